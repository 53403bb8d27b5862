"""What a helper of the file that creates variables returns besides its variables.

A statement calling such a helper with no placeholder-dependent argument (``w, inc =
build()``) stays where it stands and runs once, eagerly: the variables are made there, as
TF1 made them. An op the helper also returns on them (``inc = tf.assign_add(w, 1.0)``,
``y = w * 2.0``, ``step = opt.minimize(loss)``) would then run once too, on the variables'
first values, where TF1 computed it again at each run that fetched it: such a call is
refused (TFM306), naming what is returned.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.catalogue import GLOBAL_STEP_CALLS, makes_variables
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.traversal import find_all

# methods whose call builds an op changing variables (an optimizer's step, an assignment)
_UPDATE_METHODS = frozenset(
    {"minimize", "apply_gradients", "assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub"}
)


def literal_arguments(call: cst.Call) -> bool:
    """Whether every argument of the call is a literal (``build()``, ``build(0.1, "w")``)."""
    names = (n for a in call.args for n in find_all(a.value, cst.Name))
    return all(isinstance(n, cst.Name) and n.value in ("True", "False", "None") for n in names)


def returned_op(tf: TfImports, helper: cst.FunctionDef) -> cst.BaseExpression | None:
    """The first expression the helper returns that is an op computed from graph values,
    not a variable; None when every return is variables (or code not followed: a call of
    other Python code, a parameter, an attribute)."""
    for returned in find_all(helper, cst.Return):
        assert isinstance(returned, cst.Return)
        if returned.value is not None:
            found = _op_in(tf, helper, returned.value, set())
            if found is not None:
                return found
    return None


def _op_in(tf: TfImports, helper: cst.FunctionDef, expr: cst.BaseExpression, seen: set[str]) -> cst.BaseExpression | None:
    if isinstance(expr, (cst.Tuple, cst.List)):
        for element in expr.elements:
            found = _op_in(tf, helper, element.value, seen)
            if found is not None:
                return found
        return None
    if isinstance(expr, cst.Dict):
        for entry in expr.elements:
            if isinstance(entry, cst.DictElement):
                found = _op_in(tf, helper, entry.value, seen)
                if found is not None:
                    return found
        return None
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _UPDATE_METHODS:
            return expr
        name = tf.call_name(expr)
        return expr if name is not None and not makes_variables(name) and name not in GLOBAL_STEP_CALLS else None
    if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)):
        return expr
    if isinstance(expr, cst.Name) and expr.value not in seen:
        seen.add(expr.value)
        for value in _single_bindings(helper, expr.value):
            if _op_in(tf, helper, value, seen) is not None:
                return expr
    return None


def _single_bindings(helper: cst.FunctionDef, name: str) -> list[cst.BaseExpression]:
    """The values the helper's ``name = value`` statements bind to the name."""
    values = []
    for assign in find_all(helper, cst.Assign):
        assert isinstance(assign, cst.Assign)
        if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name) and assign.targets[0].target.value == name:
            values.append(assign.value)
    return values
