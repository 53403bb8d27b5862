"""Names of generated functions: ``compute_<hint>`` from what the run site fetches
(``compute_loss``, ``compute_y_pred_and_loss``, ``compute_W_times_x``)."""

from __future__ import annotations

import libcst as cst

from tf2migrate.rewrites.fetches import Leaf


def fetch_hint(leaves: list[Leaf]) -> str:
    parts: list[str] = []
    for leaf in leaves:
        part = _name_hint(leaf.expr)
        if part and part not in parts:
            parts.append(part)
    if not parts:
        return "fetches"
    if len(parts) > 3:
        return "_and_".join(parts[:2]) + f"_and_{len(parts) - 2}_more"
    return "_and_".join(parts)


def _name_hint(expr: cst.BaseExpression) -> str:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    if isinstance(expr, cst.Subscript):
        index = expr.slice[0].slice if len(expr.slice) == 1 else None
        if isinstance(index, cst.Index) and isinstance(index.value, (cst.Integer, cst.Name)):
            return f"{_name_hint(expr.value)}_{index.value.value}"
        return f"{_name_hint(expr.value)}_slice"
    if isinstance(expr, cst.Call):
        func = _name_hint(expr.func)
        first = _name_hint(expr.args[0].value) if expr.args else ""
        return "_".join(p for p in (func, first) if p)
    if isinstance(expr, cst.BinaryOperation):
        operator = _OPERATOR_WORDS.get(type(expr.operator), "op")
        return "_".join(p for p in (_name_hint(expr.left), operator, _name_hint(expr.right)) if p)
    if isinstance(expr, cst.UnaryOperation):
        return "neg_" + _name_hint(expr.expression) if isinstance(expr.operator, cst.Minus) else _name_hint(expr.expression)
    return ""


_OPERATOR_WORDS = {
    cst.Add: "plus",
    cst.Subtract: "minus",
    cst.Multiply: "times",
    cst.Divide: "over",
    cst.Power: "pow",
    cst.MatrixMultiply: "matmul",
}
