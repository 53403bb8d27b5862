"""``d.value`` of a name holding a TF1 ``Dimension`` → ``tf.compat.dimension_value(d)``.

TF1's shapes held ``Dimension`` objects; a script reads one through a name::

    d = x.get_shape()[1]          # Dimension(3)
    n = d.value                   # 3
    shape = h.get_shape()
    m = shape[2].value
    for dim in x.get_shape():
        sizes.append(dim.value)

TF2's shapes hold ints (``None`` for an unknown size), which have no ``.value``: the
converted file failed (``AttributeError: 'int' object has no attribute 'value'``), and the
static-shape rewrites write such a ``d`` out as the int it is (``d = 3``).
``tf.compat.dimension_value`` gives a ``Dimension``'s value and gives an int or ``None``
back as it is, so the read means what it meant in TF1 whichever the name holds.  The read
is rewritten only where the name can hold nothing else: it is the module's global (read at
the top, or in a function that does not bind it: a parameter ``d`` is the function's own), every
binding of it at the module's top level is ``name = t.get_shape()[i]`` / ``t.shape[i]`` (or, for
the ``shape[2].value`` form, ``shape = t.get_shape()`` / ``t.shape``) or a ``for name in
t.get_shape():`` / ``t.shape`` loop, and no function declares it ``global``; an ``Enum``
member's or any other object's ``.value`` is left alone.  A kept file switches TF2's shapes off instead (rewrites/compat_fallback.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.names import names_bound
from tf2migrate.analysis.static_shapes import is_shape_read
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import API_RENAMED, value_reads_by_name
from tf2migrate.traversal import children, find_all


# the scopes of their own inside a module: a name they bind is theirs, not the module's
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def plan_dimension_name_reads(module: cst.Module, plan: Plan) -> None:
    """Rewrite each ``.value`` read of a module global (or an item of one) that holds TF1
    Dimensions (or a TF1 shape) at every binding."""
    dimensions, shapes = _dimension_and_shape_names(module)
    if not dimensions and not shapes:
        return
    for node, own in value_reads_by_name(_with_own_names(module, frozenset())):
        read = cst.ensure_type(node, cst.Attribute)
        if _holds_dimension(read.value, dimensions - own, shapes - own):
            plan.dimension_name_reads.add(id(read))
            plan.note(read, API_RENAMED.code, "`d.value` of a TF1 Dimension → `tf.compat.dimension_value(d)` (TF2 dimensions are ints)")


def _with_own_names(node: cst.CSTNode, own: frozenset[str]) -> Iterator[tuple[cst.CSTNode, frozenset[str]]]:
    """Each node below ``node``, in document order, with the names an enclosing scope of its
    own binds (a parameter ``d`` of a function is not the module's ``d``)."""
    for child in children(node):
        inner = own | frozenset(_own_bindings(child)) if isinstance(child, _SCOPES) else own
        yield child, inner
        yield from _with_own_names(child, inner)


def _holds_dimension(receiver: cst.BaseExpression, dimensions: set[str], shapes: set[str]) -> bool:
    if isinstance(receiver, cst.Name):
        return receiver.value in dimensions
    return (
        isinstance(receiver, cst.Subscript)
        and isinstance(receiver.value, cst.Name)
        and receiver.value.value in shapes
        and len(receiver.slice) == 1
        and isinstance(receiver.slice[0].slice, cst.Index)
    )


def _dimension_and_shape_names(module: cst.Module) -> tuple[set[str], set[str]]:
    """The module's names every binding of which at its top level (functions, classes and
    comprehensions have their own) is a Dimension (a shape's item, a loop over a shape), and
    those every such binding of which is a shape; none declared ``global`` anywhere."""
    dimension_bindings: Counter[str] = Counter()
    shape_bindings: Counter[str] = Counter()
    for node, own in _with_own_names(module, frozenset()):
        if own or not isinstance(node, (cst.Assign, cst.For)):
            continue
        if isinstance(node, cst.For):
            if isinstance(node.target, cst.Name) and is_shape_read(node.iter):
                dimension_bindings[node.target.value] += 1
            continue
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            continue
        name, value = node.targets[0].target.value, node.value
        if is_shape_read(value):
            shape_bindings[name] += 1
        elif m.matches(value, m.Subscript(slice=[m.SubscriptElement(m.Index())])) and is_shape_read(
            cst.ensure_type(value, cst.Subscript).value
        ):
            dimension_bindings[name] += 1
    at_top = Counter(names_bound(module))
    for scope in _outermost_scopes(module):
        at_top.subtract(_own_bindings(scope))
    declared = {item.name.value for g in find_all(module, cst.Global) for item in cst.ensure_type(g, cst.Global).names}
    return (
        {n for n, c in dimension_bindings.items() if at_top[n] == c and n not in declared},
        {n for n, c in shape_bindings.items() if at_top[n] == c and n not in declared},
    )


def _outermost_scopes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for child in children(node):
        if isinstance(child, _SCOPES):
            yield child
        else:
            yield from _outermost_scopes(child)


def _own_bindings(scope: cst.CSTNode) -> list[str]:
    """The names a scope binds for itself (a ``def``'s or ``class``'s own name is its
    enclosing scope's)."""
    bound = names_bound(scope)
    if isinstance(scope, (cst.FunctionDef, cst.ClassDef)):
        bound.remove(scope.name.value)
    return bound
