"""A name bound to an anonymous float placeholder scaled by a number → a placeholder of that name.

MorvanZhou's 401_CNN::

    tf_x = tf.placeholder(tf.float32, [None, 28*28]) / 255.
    ...
    sess.run(train_op, {tf_x: b_x, tf_y: b_y})

The placeholder has no name, so nothing can feed it; the runs feed ``tf_x``, the division's
result, and TF1 then replaced that tensor with the fed value: the division never ran.  A run
that needs ``tf_x`` without feeding it fails (the placeholder is not fed).  So ``tf_x`` behaves
exactly as ``tf_x = tf.placeholder(tf.float32, [None, 28*28])``: the same dtype (a float
placeholder with a number added, subtracted, multiplied or divided keeps its dtype) and the
same static shape (the number broadcasts), the fed value in every run that feeds it, and the
same failure in every run that needs it unfed.  The module is first rewritten, TF1 to TF1,
with the number dropped, on the same line, and the migration of that module then converts
the placeholder like any other (TFM306 "must be assigned to a name" named it before).

Only a statement ``name = <placeholder> <op> <number>`` (or ``<number> <op> <placeholder>``),
alone on one line, whose placeholder's dtype is written as ``tf.float16``, ``tf.float32`` or
``tf.float64`` (an integer placeholder divided by a number becomes a float), ``op`` one of
``+ - * /``, and only if the file's graph then converts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.traversal import NodeReplacer

from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions

FED_EXPRESSION = Rule(
    "TFM135",
    "fed-scaled-placeholder",
    "A name bound to an anonymous float placeholder scaled by a number, and fed by that name → a placeholder of that name.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Drops the number from `tf_x = tf.placeholder(tf.float32, [None, 784]) / 255.`: the placeholder is then `tf_x`, which "
    "the runs feed, and it converts like any other placeholder.",
    why="Nothing can feed an anonymous placeholder; TF1 replaced the fed tensor `tf_x` by the fed value, so the arithmetic "
    "never ran, and a run needing `tf_x` unfed failed as an unfed placeholder does. The dtype and shape are the same.",
    example="tf_x = tf.placeholder(tf.float32, [None, 784]) / 255.",
    instead="def compute_loss(tf_x): ...   # tf_x, the fed value",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2]) / 255.\n"
        "y = x * 2.0\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [[1.0, 2.0]]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.int32, [None, 2]) / 255.   # an int placeholder: the division makes floats\n"
        "y = x * 2.0\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [[1.0, 2.0]]}))\n",
    ),
)
RULES = [FED_EXPRESSION]

# the refusal whose statements are tried (analysis/bindings.py)
UNNAMED_PLACEHOLDER = "`tf.placeholder` must be assigned to a name at the top level of its scope"

_FLOATS = frozenset({"float16", "float32", "float64"})
_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)


@dataclass
class Unscaled:
    """The module with the numbers dropped (the same lines), and the notes to report."""

    source: str
    notes: list[tuple[int, int, str]] = field(default_factory=list)  # (line, 1-based column, message)


def unscale(module: cst.Module, imports: TfImports, lines: set[int]) -> Unscaled | None:
    """The module with each such statement on one of ``lines`` rewritten; None if none is."""
    positions = Positions(module)
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    notes: list[tuple[int, int, str]] = []
    for statement in _statements(module):
        start = positions.get(statement)
        if start is None or start[0] not in lines:
            continue
        placeholder = _scaled_placeholder(statement, imports, module)
        if placeholder is None:
            continue
        assign = cst.ensure_type(statement.body[0], cst.Assign)
        replacements[assign] = assign.with_changes(value=placeholder)
        name = cst.ensure_type(assign.targets[0].target, cst.Name).value
        notes.append(
            (
                start[0],
                start[1] + 1,
                f"`{name}` is a fed placeholder: TF1 replaced the arithmetic on its anonymous placeholder by the fed value",
            )
        )
    if not replacements:
        return None
    updated = module.visit(NodeReplacer(replacements))
    return Unscaled(cst.ensure_type(updated, cst.Module).code, notes)


def _statements(module: cst.Module) -> list[cst.SimpleStatementLine]:
    return [s for s in module.body if isinstance(s, cst.SimpleStatementLine)]


def _scaled_placeholder(statement: cst.SimpleStatementLine, imports: TfImports, module: cst.Module) -> cst.Call | None:
    """The placeholder call of ``name = <float placeholder> <op> <number>``, alone on one line."""
    if len(statement.body) != 1 or "\n" in module.code_for_node(statement.with_changes(leading_lines=())).rstrip("\r\n"):
        return None
    assign = statement.body[0]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
        return None
    value = assign.value
    if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, _OPERATORS)) or value.lpar:
        return None
    pairs = ((value.left, value.right), (value.right, value.left))
    for call, number in pairs:
        if isinstance(call, cst.Call) and isinstance(number, (cst.Integer, cst.Float)) and imports.call_name(call) == "placeholder":
            dtype = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "dtype"), None)
            if dtype is None and call.args and call.args[0].keyword is None:
                dtype = call.args[0].value
            canonical = imports.canonical(dtype) if dtype is not None else None
            return call if canonical in _FLOATS else None
    return None
