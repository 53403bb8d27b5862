"""What a run site fetches, and its result in the structure ``sess.run`` returned.

A fetch is a structure (lists, tuples, dicts) of *leaves*; each leaf's kind decides how its
value becomes NumPy (``.numpy()``, a list of them, None for an Operation).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.catalogue import SPARSE_VALUE_CALLS
from tf2migrate.analysis.model import Helper, Kind, Statement
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.analysis.names import graph_name, self_attribute
from tf2migrate.traversal import FastTransformer


class LeafKind(enum.Enum):
    """What one fetched expression evaluates to (its statement's ``value_kind``, mostly)."""

    TENSOR = "tensor"
    LIST = "list"
    VARIABLE = "variable"
    OPERATION = "operation"
    UNKNOWN = "unknown"


@dataclass
class Leaf:
    """One fetched expression, its kind, and the graph statements it reads."""

    expr: cst.BaseExpression
    kind: LeafKind
    statements: list[Statement] = field(default_factory=list)


def fetch_leaves(fetch: cst.BaseExpression):
    """The expressions a fetch structure (lists, tuples, dict values) holds."""
    if isinstance(fetch, (cst.List, cst.Tuple)):
        for element in fetch.elements:
            yield from fetch_leaves(element.value)
    elif isinstance(fetch, cst.Dict):
        for entry in fetch.elements:
            if isinstance(entry, cst.DictElement):
                yield from fetch_leaves(entry.value)
    else:
        yield fetch


def is_op_attribute(expr: cst.BaseExpression) -> bool:
    """``add.op``: the Operation behind a graph tensor (run for its effect)."""
    return isinstance(expr, cst.Attribute) and expr.attr.value == "op" and graph_name(expr.value) is not None


# expressions that make a Python list, tuple, set or dict (no tensor): a fetch leaf of this kind is a structure
_DISPLAYS = (cst.List, cst.Tuple, cst.Set, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def leaf_kind(expr: cst.BaseExpression, statements: list[Statement]) -> LeafKind:
    if is_op_attribute(expr):
        return LeafKind.OPERATION
    if graph_name(expr) is not None and len(statements) == 1:
        statement = statements[0]
        if statement.kind is Kind.TRAIN:
            return LeafKind.OPERATION  # a train op: sess.run gave None for it
        if statement.kind is Kind.VARIABLE:
            return LeafKind.VARIABLE if statement.value_kind == "variable" else LeafKind.UNKNOWN
        if _nests_displays(statement):
            return LeafKind.UNKNOWN  # ``enc = h, (w, s)``: a tuple holding a tuple, by its structure
        return LeafKind(statement.value_kind)
    if isinstance(expr, cst.BinaryOperation) and (
        any(s.value_kind != "tensor" for s in statements) or isinstance(expr.left, _DISPLAYS) or isinstance(expr.right, _DISPLAYS)
    ):
        return LeafKind.UNKNOWN  # ``g1 + g2`` of two lists, ``[y] * 2``, is a list: converted by its structure
    if isinstance(expr, _DISPLAYS):
        return LeafKind.UNKNOWN  # ``[t * 2 for t in ts]``: a list, by its structure
    if (
        isinstance(expr, cst.Subscript)
        and any(isinstance(element.slice, cst.Slice) for element in expr.slice)
        and any(s.value_kind != "tensor" for s in statements)
    ):
        return LeafKind.UNKNOWN  # ``outs[1:]`` of a list is a list: converted by its structure
    if isinstance(expr, cst.Subscript) and len(statements) == 1 and _nests_displays(statements[0]):
        return LeafKind.UNKNOWN  # ``enc[1]`` of ``enc = h, (w, s)``: maybe a tuple, by its structure
    return LeafKind.TENSOR


def _nests_displays(statement: Statement) -> bool:
    """Does the statement bind a display holding a display (``enc = h, (w, s)``, a helper's
    ``return`` written out in its place)?  An item of it may be a tuple."""
    node = statement.node
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(assign := node.body[0], cst.Assign)):
        return False
    value = assign.value
    return isinstance(value, (cst.List, cst.Tuple)) and any(
        isinstance(e.value, (cst.List, cst.Tuple, cst.Dict, cst.ListComp)) for e in value.elements
    )


def item_of_python_call(expr: cst.BaseExpression, tf: TfImports, helpers: Mapping[str, Helper]) -> bool:
    """Is the leaf the value a call of a module function returned, or an item of it
    (``net(x)``, ``net(x)["layers"]``, ``encode(x)[0]``), where the function is not known
    to return a tensor (analysis: ``Helper.returns_tensor``)? A helper may return a dict or tuple of tensors, whose item may be a
    tuple again: TF1's run gave it back in that structure, of arrays, so it is converted by
    its structure (``tf.nest.map_structure``, which converts a lone tensor as ``.numpy()``
    does), never by a ``.numpy()`` a tuple does not have."""
    base = expr
    while isinstance(base, cst.Subscript):
        base = base.value
    if not isinstance(base, cst.Call) or not isinstance(base.func, cst.Name) or tf.call_name(base) is not None:
        return False  # (a method, ``W.assign(...)`` of a graph value, is an op)
    helper = helpers.get(base.func.value)
    return helper is None or not helper.returns_tensor


def item_of_python_result(expr: cst.BaseExpression, statements: list[Statement], tf: TfImports, helpers: Mapping[str, Helper]) -> bool:
    """Is the leaf a name bound to what a call of a module function returned, or an item of
    it (``model = net(x)``, then ``sess.run(model["layers"])``), the function not known to
    return a tensor?  Converted by its structure, as the call itself (``item_of_python_call``)."""
    base = expr
    while isinstance(base, cst.Subscript):
        base = base.value
    if not isinstance(base, cst.Name) or len(statements) != 1:
        return False
    node = statements[0].node
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(assign := node.body[0], cst.Assign)):
        return False
    if len(assign.targets) != 1 or not (isinstance(target := assign.targets[0].target, cst.Name) and target.value == base.value):
        return False
    return item_of_python_call(assign.value, tf, helpers)


def sparse_fetch_call(
    expr: cst.BaseExpression, statements: list[Statement], tf: TfImports, helpers: Mapping[str, Helper]
) -> cst.Call | None:
    """The call making the fetched value a SparseTensor, if it may be one: the leaf is such a
    call (catalogue.SPARSE_VALUE_CALLS), a name bound by one, or a call of a function of the
    file (or a name bound by it) one of whose ``return``s is such a call or a name its body
    binds to one.  TF1's run gave a SparseTensorValue of arrays; an eager SparseTensor has no
    ``.numpy()``, and ``tf.nest`` does not walk into it."""
    value: cst.BaseExpression = expr
    if isinstance(expr, cst.Name) and len(statements) == 1 and (bound := _single_assigned_value(statements[0].node, expr.value)):
        value = bound
    if not isinstance(value, cst.Call):
        return None
    if tf.call_name(value) in SPARSE_VALUE_CALLS:
        return value
    helper = helpers.get(value.func.value) if isinstance(value.func, cst.Name) else None
    if helper is None:
        return None
    for node in _own_nodes(helper.node.body):
        if isinstance(node, cst.Return) and node.value is not None:
            returned = node.value
            if isinstance(returned, cst.Name):
                bindings = [v for n in _own_nodes(helper.node.body) if (v := _single_assigned_value(n, returned.value))]
                if any(isinstance(v, cst.Call) and tf.call_name(v) in SPARSE_VALUE_CALLS for v in bindings):
                    return value
            elif isinstance(returned, cst.Call) and tf.call_name(returned) in SPARSE_VALUE_CALLS:
                return value
    return None


def _single_assigned_value(node: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value of ``name = value`` (a line of that one assignment), else None."""
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(assign := node.body[0], cst.Assign)):
        return None
    if len(assign.targets) == 1 and isinstance(target := assign.targets[0].target, cst.Name) and target.value == name:
        return assign.value
    return None


def _own_nodes(body: cst.BaseSuite):
    """The statements (and their small statements) of a function body, nested blocks
    included, nested functions and classes not."""
    pending: list[cst.CSTNode] = [body]
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, cst.SimpleStatementLine):
            pending.extend(node.body)
        elif not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.BaseSmallStatement)):
            pending.extend(child for child in node.children if isinstance(child, (cst.BaseSuite, cst.BaseStatement)))


def without_operations(fetch: cst.BaseExpression, operations: set[str]) -> cst.BaseExpression:
    """The fetch with None in place of the train op and other operations (tf.group,
    ``tensor.op``): their value in TF1, and a tf.function cannot return an Operation."""

    class _NoneForOperations(FastTransformer):
        def leave_Name(self, original_node, updated_node):
            return cst.Name("None") if original_node.value in operations else updated_node

        def leave_Attribute(self, original_node, updated_node):
            operation = self_attribute(original_node) in operations or is_op_attribute(original_node)
            return cst.Name("None") if operation else updated_node

    result = fetch.visit(_NoneForOperations())
    assert isinstance(result, cst.BaseExpression)  # names and attributes become names
    return result


def to_numpy(call: str, fetch: cst.BaseExpression, leaves: list[Leaf]) -> str:
    """NumPy in the structure sess.run returned."""
    nested = any(isinstance(e.value, (cst.List, cst.Tuple, cst.Dict)) for e in getattr(fetch, "elements", []) if hasattr(e, "value"))
    if any(leaf.kind is LeafKind.OPERATION for leaf in leaves):
        # an Operation's value (a train op's, a tf.group's) is None, as sess.run gave it;
        # a leaf that is itself a list (``stats = [loss, acc]``) needs the structure walk
        flat = not nested and all(leaf.kind in (LeafKind.TENSOR, LeafKind.VARIABLE, LeafKind.OPERATION) for leaf in leaves)
        if isinstance(fetch, cst.List) and flat:
            return f"[value if value is None else value.numpy() for value in {call}]"
        if isinstance(fetch, cst.Tuple) and flat:
            return f"tuple(value if value is None else value.numpy() for value in {call})"
        if not isinstance(fetch, (cst.List, cst.Tuple, cst.Dict)):
            return call
        return f"tf.nest.map_structure(lambda value: value if value is None else value.numpy(), {call})"
    plain = all(leaf.kind in (LeafKind.TENSOR, LeafKind.VARIABLE) for leaf in leaves)
    if not isinstance(fetch, (cst.List, cst.Tuple, cst.Dict)):
        if leaves[0].kind in (LeafKind.TENSOR, LeafKind.VARIABLE):
            return f"{call}.numpy()"
        if leaves[0].kind is LeafKind.LIST:
            return f"[value.numpy() for value in {call}]"
    elif plain and not nested:
        if isinstance(fetch, cst.List):
            return f"[value.numpy() for value in {call}]"
        if isinstance(fetch, cst.Tuple):
            return f"tuple(value.numpy() for value in {call})"
    return f"tf.nest.map_structure(lambda value: value.numpy(), {call})"
