"""Static dimensions of placeholders: ``x.get_shape()[1].value`` where ``x =
tf.placeholder(tf.float32, [None, 3])`` is the number 3.

TF1 code sizes its weights from its inputs (``W = tf.Variable(tf.ones([x.shape[1].value,
2]))``, ``n_in = x.get_shape()[1].value``).  The value is fixed by the placeholder's
declaration, so it is not a read of the placeholder: code outside the graph gets the literal
(the placeholder is gone after migration), and graph code moved into a function may keep the
expression, which gives the same number there (a feed had to match the declared shape).
Only dimensions written as integers count; ``None`` dimensions are the fed value's.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.model import Kind, Scope
from tf2migrate.traversal import FastTransformer, find_all

_SHAPE = m.Attribute(value=m.Name(), attr=m.Name("shape")) | m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("get_shape")), args=[])


def static_dimensions(node: cst.CSTNode, scope: Scope, order: int | None) -> dict[int, tuple[cst.BaseExpression, str]]:
    """The static-dimension expressions below ``node`` (``.value`` included when written),
    by id: (expression, the integer's text)."""
    found: dict[int, tuple[cst.BaseExpression, str]] = {}
    inner: set[int] = set()
    for subscript in find_all(node, m.Subscript(value=_SHAPE, slice=[m.SubscriptElement(slice=m.Index(value=m.Integer()))])):
        assert isinstance(subscript, cst.Subscript)
        shape = subscript.value
        # the matcher's shapes: ``x.shape`` or ``x.get_shape()``, indexed by an integer
        holder = (
            shape.value if isinstance(shape, cst.Attribute) else cst.ensure_type(cst.ensure_type(shape, cst.Call).func, cst.Attribute).value
        )
        index = int(cst.ensure_type(cst.ensure_type(subscript.slice[0].slice, cst.Index).value, cst.Integer).value)
        statement = scope.graph_statement(holder.value, order) if isinstance(holder, cst.Name) else None
        placeholder = statement.placeholder if statement is not None and statement.kind is Kind.PLACEHOLDER else None
        declared = placeholder.shape if placeholder is not None else None
        if not isinstance(declared, (cst.List, cst.Tuple)) or index >= len(declared.elements):
            continue
        dimension = declared.elements[index].value
        if isinstance(dimension, cst.Integer):
            found[id(subscript)] = (subscript, dimension.value)
    for value_attribute in find_all(node, m.Attribute(attr=m.Name("value"))):
        assert isinstance(value_attribute, cst.Attribute)
        if id(value_attribute.value) in found:
            inner.add(id(value_attribute.value))
            found[id(value_attribute)] = (value_attribute, found[id(value_attribute.value)][1])
    return {key: value for key, value in found.items() if key not in inner}


class Literalize(FastTransformer):
    """The node with its static dimensions written as the integers they are."""

    def __init__(self, dimensions: dict[int, tuple[cst.BaseExpression, str]]) -> None:
        super().__init__()
        self.dimensions = dimensions

    def on_leave(self, original_node, updated_node):
        found = self.dimensions.get(id(original_node))
        return cst.Integer(found[1]) if found is not None else super().on_leave(original_node, updated_node)
