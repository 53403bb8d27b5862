"""Python calls in graph code whose result is fixed by the program text.

Graph-building code moves into generated functions, which run it again at each trace (or
each call, without ``tf.function``); TF1 ran it once.  A Python call there is refused
(TFM306) unless it is shown to compute the same thing each time.  Two kinds are shown here:

**Static shape values.**  ``dim = reduce(mul, x.get_shape().as_list()[1:])``,
``n = int(h.get_shape()[1])``, ``x.shape.as_list()``, ``W.get_shape().num_elements()``,
``[d.value for d in x.get_shape()]``: numbers TF1 read off the static shapes it inferred.
The module's evaluation (analysis/static_shapes.py: declared placeholder and variable
shapes, the shape rules of common ops, the module's helpers; in a module function, the
function's own statements followed alone) gives the value; when every
dimension it reads is a number TF1 knew, the same expression gives the same number in a
trace (the generated function's input signature is the placeholder's declared shape) and
when run eagerly (a fed value has the declared sizes), and code kept outside the functions
gets the number written out.  A dimension TF1 did not know (``None``: the fed batch size
of a ``[None, 784]`` placeholder) is refused (TFM301): eager code would see the fed size.

**Branches module constants rule out.**  ``DEBUG = False`` ... ``if DEBUG: print(...)``:
a name the module binds once, at its top level, to a literal (and never elsewhere: no
other assignment, parameter, ``global``, comprehension variable, ``del``, star import,
``globals()`` / ``vars()`` / ``exec``) decides an ``if`` test of constants and literals
(``==``, ``!=``, ``is``, ``in``, ``<`` ..., ``not``, ``and``, ``or``); the calls of the branch
it rules out never run, in TF1 or in the generated function, and do not block it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.static_shapes import (
    UNKNOWN,
    Derived,
    ModuleShapes,
    NoneDimension,
    Py,
    Sequence,
    evaluate_function,
    evaluate_module,
    is_shape_read,
)
from tf2migrate.analysis.names import target_names
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.traversal import find_all, preorder

# the expressions asked about: calls, subscripts, comprehensions, arithmetic (a list
# written out is asked about item by item: ``[-1, dim]`` is a shape argument, not a value)
_VALUE_NODES = (cst.Call, cst.Subscript, cst.ListComp, cst.BinaryOperation, cst.UnaryOperation)
# what a shape read is followed by for its Python value to be asked about
_SHAPE_METHODS = frozenset({"as_list", "num_elements", "get_shape"})
# the names that are literals (Python 3 cannot bind them)
_LITERAL_NAMES = frozenset({"True", "False", "None"})


@dataclass
class StatementValues:
    """The static Python values of one statement."""

    # proven: by id, (the expression, its value as Python source)
    found: dict[int, tuple[cst.BaseExpression, str]] = field(default_factory=dict)
    # a dimension TF1 did not know: by id, the expression reading it
    unknown: dict[int, cst.BaseExpression] = field(default_factory=dict)


class StaticPython:
    """The static Python values and ruled-out branches of one module, computed on demand."""

    def __init__(self, module: cst.Module, imports: TfImports) -> None:
        self.module = module
        self.imports = imports
        self._shapes: ModuleShapes | None = None
        self._in_functions: dict[int, ModuleShapes] = {}  # a statement of a module function → its function's evaluation
        self._dead: set[int] | None = None

    # static shape values ---------------------------------------------------------------

    def values(self, statement: cst.BaseStatement) -> StatementValues:
        """The outermost expressions of a simple statement that read a static shape, and
        whose value is a number, or a list or tuple of numbers, TF1 fixed (``found``); or
        that read a dimension TF1 did not know (``unknown``)."""
        out = StatementValues()
        if not isinstance(statement, cst.SimpleStatementLine) or not _asks_value(statement):
            return out
        shapes = self._shapes_before(statement)
        for small in statement.body:
            value = getattr(small, "value", None)
            if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr, cst.Return)) and value is not None:
                self._visit(shapes, statement, value, out)
        return out

    def _visit(self, shapes: ModuleShapes, statement: cst.BaseStatement, node: cst.CSTNode, out: StatementValues) -> None:
        if isinstance(node, _VALUE_NODES) and _reads_shape(node):
            value = shapes.computed(statement, node)
            text = literal(value)
            if text is not None:
                out.found[id(node)] = (node, text)
                return
            if _unknown_dimension(value) and isinstance(node, (cst.Call, cst.Subscript, cst.ListComp)):
                out.unknown[id(node)] = node
                return
        for child in node.children:
            if not isinstance(child, (cst.Lambda, cst.FunctionDef)):
                self._visit(shapes, statement, child, out)

    def _shapes_before(self, statement: cst.BaseStatement) -> ModuleShapes:
        """The evaluation that reached ``statement``: the module's, or that of the module
        function whose body holds it (followed alone, its parameters and the module's names
        unknown: what it proves comes from the function's own statements, the same at every
        call, as in a script's ``main()`` a factory was written out into)."""
        if self._shapes is None:
            wanted = {id(s) for s in find_all(self.module, cst.SimpleStatementLine) if _asks_value(s)}
            self._shapes = evaluate_module(self.module, self.imports, wanted, set())
            for function in self.module.body:
                if isinstance(function, cst.FunctionDef) and any(id(s) in wanted for s in find_all(function.body, cst.SimpleStatementLine)):
                    found = evaluate_function(self.module, function, self.imports, wanted, frozenset())
                    self._in_functions.update(dict.fromkeys(found.before, found))
        return self._in_functions.get(id(statement), self._shapes)

    # branches ruled out ----------------------------------------------------------------

    def ruled_out(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        """The branches below ``node`` that module constants rule out (their bodies)."""
        dead = self._dead_branches()
        return [n for n in preorder(node) if id(n) in dead] if dead else []

    def _dead_branches(self) -> set[int]:
        if self._dead is None:
            self._dead = set()
            branches = [cst.ensure_type(b, cst.If) for b in find_all(self.module, cst.If)]
            tested = {n.value for b in branches for n in find_all(b.test, cst.Name) if isinstance(n, cst.Name)}
            # (a test of literals alone, ``if False:``, is decided without any constant)
            constants = module_constants(self.module, tested - _LITERAL_NAMES) if tested - _LITERAL_NAMES else {}
            for branch in branches:
                truth = _truth(branch.test, constants)
                if truth is False:
                    self._dead.add(id(branch.body))
                elif truth is True and branch.orelse is not None:
                    self._dead.add(id(branch.orelse))
        return self._dead


def literal(value: object) -> str | None:
    """Python source for a number, or a list or tuple of them (nested), else None."""
    if isinstance(value, Derived):
        return str(value.value)
    if isinstance(value, Py) and isinstance(value.value, int) and not isinstance(value.value, bool):
        return str(value.value)
    if isinstance(value, Sequence) and value.kind in ("list", "tuple"):
        items = [literal(i) for i in value.items]
        if any(i is None for i in items):
            return None
        inner = ", ".join(items)  # type: ignore[arg-type]
        if value.kind == "list":
            return f"[{inner}]"
        return f"({inner},)" if len(items) == 1 else f"({inner})"
    return None


def underived_shape_read(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The first static-shape read below ``node`` (``x.get_shape()``, ``x.shape``, of any
    expression: ``init_image[:, 1:].get_shape()``), to name in the refusal of a Python value
    made of it that :meth:`StaticPython.values` did not prove."""
    for found in preorder(node):
        if (
            isinstance(found, cst.Call)
            and isinstance(found.func, cst.Attribute)
            and found.func.attr.value == "get_shape"
            and not found.args
        ):
            return found
        if isinstance(found, cst.Attribute) and found.attr.value == "shape":
            return found
    return None


def _unknown_dimension(value: object) -> bool:
    if isinstance(value, NoneDimension):
        return True
    if isinstance(value, Py):
        return value.value is None
    return isinstance(value, Sequence) and any(_unknown_dimension(i) for i in value.items)


def _asks_value(node: cst.CSTNode) -> bool:
    """Does ``node`` make a Python value of a static shape: ``.as_list()``,
    ``.num_elements()``, a dimension (``x.shape[1]``), or a comprehension over a shape?"""
    for found in preorder(node):
        if isinstance(found, cst.Attribute) and found.attr.value in ("as_list", "num_elements"):
            return True
        if isinstance(found, cst.Subscript) and is_shape_read(found.value):
            return True
        if isinstance(found, cst.ListComp) and is_shape_read(found.for_in.iter):
            return True
    return False


def _reads_shape(node: cst.CSTNode) -> bool:
    """Does ``node`` read a static shape off a name (``x.get_shape()``, ``x.shape``) that
    a Python value is then made of?"""
    for found in preorder(node):
        if is_shape_read(found):
            return True
        if isinstance(found, cst.Attribute) and found.attr.value in _SHAPE_METHODS:
            return True
    return False


# module constants ----------------------------------------------------------------------

_NO_CONSTANTS = frozenset({"globals", "vars", "exec", "eval", "setattr"})


def module_constants(module: cst.Module, wanted: set[str] | None = None) -> dict[str, object]:
    """The names bound once in the whole module, by a top-level ``NAME = literal``, to
    that literal's value (of the ``wanted`` names only, when given: the module is walked
    only when one of them is bound so)."""
    candidates = {
        target.value
        for statement in module.body
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.Assign)
        for target in (t.target for t in small.targets)
        if isinstance(target, cst.Name) and (wanted is None or target.value in wanted)
    }
    if not candidates:
        return {}
    reads = {n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name)}
    if reads & _NO_CONSTANTS or any(
        isinstance(i, cst.ImportFrom) and isinstance(i.names, cst.ImportStar) for i in find_all(module, cst.ImportFrom)
    ):
        return {}
    counts: dict[str, int] = {}
    for name in _bindings(module):
        counts[name] = counts.get(name, 0) + 1
    found: dict[str, object] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        assign = statement.body[0]
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            continue
        name = assign.targets[0].target.value
        value = _literal_value(assign.value)
        if name in candidates and counts.get(name) == 1 and value is not UNKNOWN:
            found[name] = value
    return found


_BINDING_NODES = (
    cst.AssignTarget,
    cst.AugAssign,
    cst.AnnAssign,
    cst.For,
    cst.CompFor,
    cst.NamedExpr,
    cst.Del,
    cst.WithItem,
    cst.ExceptHandler,
    cst.Param,
    cst.FunctionDef,
    cst.ClassDef,
    cst.Global,
    cst.Nonlocal,
    cst.ImportAlias,
)


def _bindings(module: cst.Module) -> list[str]:
    """Every name bound anywhere in the module, once per binding."""
    out: list[str] = []
    for node in find_all(module, _BINDING_NODES):  # (the module's layout: no second walk)
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.Del)):
            out.extend(target_names(node.target))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            out.extend(target_names(node.asname.name))
        elif isinstance(node, cst.ExceptHandler) and node.name is not None:
            out.extend(target_names(node.name.name))
        elif isinstance(node, (cst.Param, cst.FunctionDef, cst.ClassDef)):
            out.append(node.name.value)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            out.extend(n.name.value for n in node.names for _ in range(2))  # never a constant
        elif isinstance(node, cst.ImportAlias):
            bound: cst.BaseExpression = node.asname.name if node.asname is not None else node.name
            while isinstance(bound, cst.Attribute):
                bound = bound.value
            if isinstance(bound, cst.Name):
                out.append(bound.value)
    return out


def _literal_value(node: cst.BaseExpression) -> object:
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.Float):
        return float(node.value)
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.Name) and node.value in _LITERAL_NAMES:
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
        items = [_literal_value(e.value) for e in node.elements]
        return UNKNOWN if any(i is UNKNOWN for i in items) else tuple(items)
    return UNKNOWN


_COMPARISONS = {
    cst.Equal: lambda a, b: a == b,
    cst.NotEqual: lambda a, b: a != b,
    cst.Is: lambda a, b: a is b if b is None or a is None or isinstance(a, bool) else None,
    cst.IsNot: lambda a, b: a is not b if b is None or a is None or isinstance(a, bool) else None,
    cst.In: lambda a, b: a in b if isinstance(b, (tuple, str)) else None,
    cst.NotIn: lambda a, b: a not in b if isinstance(b, (tuple, str)) else None,
}


def _truth(test: cst.BaseExpression, constants: dict[str, object]) -> bool | None:
    """The truth of an ``if`` test of module constants and literals; None when not decided."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _truth(test.expression, constants)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left, right = _truth(test.left, constants), _truth(test.right, constants)
        if isinstance(test.operator, cst.And):
            return False if left is False or right is False else (True if left and right else None)
        return True if left is True or right is True else (False if left is False and right is False else None)
    value = _operand(test, constants)
    if value is not UNKNOWN:
        return bool(value)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        first, second = _operand(test.left, constants), _operand(test.comparisons[0].comparator, constants)
        compare = _COMPARISONS.get(type(test.comparisons[0].operator))
        if compare is None or first is UNKNOWN or second is UNKNOWN:
            return None
        try:
            result = compare(first, second)
        except TypeError:
            return None
        return None if result is None else bool(result)
    return None


def _operand(node: cst.BaseExpression, constants: dict[str, object]) -> object:
    if isinstance(node, cst.Name) and node.value in constants:
        return constants[node.value]
    if isinstance(node, cst.Name) and node.value not in _LITERAL_NAMES:
        return UNKNOWN
    return _literal_value(node)
