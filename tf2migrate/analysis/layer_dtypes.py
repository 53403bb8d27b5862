"""Which float type the Keras layers made from TF1 layers must compute in.

A TF1 layer (``tf.layers.dense``, ``tf.contrib.layers.fully_connected``, a layer helper's)
took its dtype from its input when the graph was built: float64 in, float64 variables
and float64 out.  A Keras layer computes in its own dtype, float32 by default, and casts
a float64 input down: the values change with no error.  The input's dtype is not known
where the layer is made, so the file's TF code decides: only float32 in sight (or none
named: TF's default) keeps Keras' default; only float64 (placeholders, casts, NumPy
dtypes given to TF) gives every layer ``dtype="float64"``; anything else — two float
types, half precision, a TF constant made from a value of unknown dtype
(``tf.constant(np.array([...]))`` is float64) — keeps the graph on TF1, with that reason.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.tf_imports import TfImports, dotted_name

# TF names of float types and of the casts to them
_TF_FLOATS = {
    "float16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "to_bfloat16": "bfloat16",
    "float32": "float32",
    "to_float": "float32",
    "float64": "float64",
    "double": "float64",
    "to_double": "float64",
}
# NumPy's (and strings') names of them, counted only inside a call of TF
_OTHER_FLOATS = {
    "float16": "float16",
    "half": "float16",
    "float32": "float32",
    "single": "float32",
    "float64": "float64",
    "double": "float64",
}
# TF functions making a tensor of their value's dtype when ``dtype=`` is not given
_FROM_VALUE = frozenset({"constant", "convert_to_tensor"})


def layer_dtype(module: cst.Module, imports: TfImports) -> str | None:
    """``None`` (Keras' float32), ``'float64'`` (every layer gets it), or why neither is
    known to be TF1's dtype."""
    finder = _FloatTypes(imports)
    module.visit(finder)
    if finder.unknown is not None:
        return f"{finder.unknown} makes a tensor of its value's dtype, which may be float64"
    kinds = finder.found - {"float32"}
    if not kinds:
        return None
    if finder.found == {"float64"}:
        return "float64"
    return f"the graph computes in {' and '.join(sorted(finder.found))}"


def is_reason(result: str | None) -> bool:
    return result is not None and result != "float64"


class _FloatTypes(cst.CSTVisitor):
    def __init__(self, imports: TfImports) -> None:
        self.imports = imports
        self.found: set[str] = set()
        self.unknown: str | None = None
        self._tf_calls = 0  # depth of TF calls the visit is in

    def visit_Call(self, node: cst.Call) -> None:
        path = self.imports.canonical(node.func)
        if path is None:
            return
        self._tf_calls += 1
        if path in _FROM_VALUE and not any(a.keyword is not None and a.keyword.value == "dtype" for a in node.args):
            positional = [a for a in node.args if a.keyword is None]
            if len(positional) < 2 and positional and not _plain_number(positional[0].value) and self.unknown is None:
                self.unknown = f"`{dotted_name(node.func)}(...)` without dtype="

    def leave_Call(self, original_node: cst.Call) -> None:
        if self.imports.canonical(original_node.func) is not None:
            self._tf_calls -= 1

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        path = self.imports.canonical(node)
        if path is not None:
            if path in _TF_FLOATS:
                self.found.add(_TF_FLOATS[path])
            return False
        if self._tf_calls and node.attr.value in _OTHER_FLOATS and isinstance(node.value, cst.Name):
            self.found.add(_OTHER_FLOATS[node.attr.value])
        return True

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if self._tf_calls and isinstance(value, str) and value in _OTHER_FLOATS:
            self.found.add(_OTHER_FLOATS[value])


def _plain_number(expression: cst.BaseExpression) -> bool:
    """A literal TF makes float32 (or an integer type) of: a number, or lists of them."""
    if isinstance(expression, (cst.Integer, cst.Float)):
        return True
    if isinstance(expression, cst.UnaryOperation):
        return _plain_number(expression.expression)
    if isinstance(expression, (cst.List, cst.Tuple)):
        return all(_plain_number(e.value) for e in expression.elements)
    return False
