"""A graph tensor passed to a ``tf.test.TestCase`` assertion that evaluates it → the same
tensor given as ``self.evaluate(tensor)``, then converted.

TF1 test methods often hand a tensor straight to an assertion::

    class SquareTest(tf.test.TestCase):
        def testSquare(self):
            with self.test_session():
                x = tf.square([2, 3])
                self.assertAllEqual(x, [4, 9])

``assertAllEqual``, ``assertAllClose`` and their kin (analysis/catalogue.py's
``EVALUATING_ASSERTS``) turn each argument into an array by ``_GetNdArray``, which gives a
graph tensor to ``self.evaluate``: a run of the tensor in the test's session, exactly as
``self.assertAllEqual(self.evaluate(x), [4, 9])`` would make.  The analysis reads the name
as a graph value used outside a run (TFM301, naming the assertion); the module is then
rewritten, TF1 to TF1, with ``self.evaluate(...)`` around each such argument, and migrated
like any test whose method evaluates its tensors (``self.assertAllEqual(compute_x().numpy(),
[4, 9])``).  Only a name the analysis knows to hold one tensor is wrapped (``_GetNdArray``
evaluates nothing else), and the rewrite is kept only when the graph then converts.

Assertions of ``unittest`` itself (``assertEqual``, ``assertNotEqual``, ``assertTrue``) got
the tensor object in TF1 — ``cost != 0`` of a graph tensor is an identity test, always true
— and stay refused with that said.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.traversal import NodeReplacer
import libcst.matchers as m

from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions

TEST_ASSERT_EVALUATED = Rule(
    "TFM155",
    "test-assert-evaluated",
    "A graph tensor given to a tf.test.TestCase assertion that evaluates it → `self.evaluate(tensor)`, then converted.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Wraps a graph tensor passed to `self.assertAllEqual`, `self.assertAllClose` (and the other assertions of "
    "`tf.test.TestCase` that turn their arguments into arrays) in `self.evaluate(...)` when the tensor kept the test "
    "on TF1; the evaluation is then converted as any run of the test's session is.",
    why="TF1's assertion evaluated a graph tensor argument itself, by `self.evaluate` in the test's session: the "
    "wrapped call runs the same tensor in the same session at the same moment. Made only for a name holding one "
    "tensor, and kept only when the graph then converts.",
    example="with self.test_session():\n    x = tf.square([2, 3])\n    self.assertAllEqual(x, [4, 9])",
    instead="@tf.function\ndef compute_x():\n    x = tf.square([2, 3])\n    return x\n\nself.assertAllEqual(compute_x().numpy(), [4, 9])",
    invalid=(
        "import tensorflow as tf\n"
        "class SquareTest(tf.test.TestCase):\n"
        "    def test_square(self):\n"
        "        with self.test_session():\n"
        "            x = tf.square([2, 3])\n"
        "            self.assertAllEqual(x, [4, 9])\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "class SquareTest(tf.test.TestCase):\n"
        "    def test_square(self):\n"
        "        self.assertAllEqual(tf.square([2, 3]), [4, 9])\n",
    ),
)
RULES = [TEST_ASSERT_EVALUATED]

_WRAP = "self.evaluate("  # (and a closing parenthesis after the name)


@dataclass
class Evaluated:
    """The module with the arguments wrapped (the same lines), and the notes to report."""

    source: str
    # by line, where the wrapped names start (0-based columns) and their lengths
    wrapped: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    notes: list[tuple[int, int, str]] = field(default_factory=list)  # (line, 1-based column, message)

    def map_column(self, line: int, column: int) -> int:
        """A 1-based column of the rewritten module on the original's line."""
        at, shift = column - 1, 0
        for start, length in self.wrapped.get(line, ()):
            wrap = start + shift  # where ``self.evaluate(`` starts in the rewritten line
            if at < wrap:
                break
            if at < wrap + len(_WRAP):
                return start + 1  # on the added call: the name's column
            if at < wrap + len(_WRAP) + length:
                return at - shift - len(_WRAP) + 1
            shift += len(_WRAP) + 1
        return at - shift + 1


def evaluate_asserted(module: cst.Module, refused: dict[tuple[int, int], str]) -> Evaluated | None:
    """The module with each name at ``refused`` (line, 1-based column: the TFM301 refusals
    naming an evaluating assertion, by the assertion's name) wrapped in ``self.evaluate``;
    None when no such name is an argument of that assertion."""
    positions = Positions(module)
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    result = Evaluated("")
    for call in _self_calls(module):
        method = cst.ensure_type(call.func, cst.Attribute).attr.value
        for argument in call.args:
            value = argument.value
            if not isinstance(value, cst.Name):
                continue
            start = positions.get(value)
            if start is None or refused.get((start[0], start[1] + 1)) != method:
                continue
            replacements[value] = cst.parse_expression(f"{_WRAP}{value.value})")
            result.wrapped.setdefault(start[0], []).append((start[1], len(value.value)))
            result.notes.append(
                (
                    start[0],
                    start[1] + 1,
                    f"`self.{method}` evaluated the graph tensor `{value.value}` in the test's session: "
                    f"written `self.evaluate({value.value})`, converted as that run",
                )
            )
    if not replacements:
        return None
    for columns in result.wrapped.values():
        columns.sort()
    result.source = cst.ensure_type(module.visit(NodeReplacer(replacements)), cst.Module).code
    return result


def _self_calls(module: cst.Module) -> list[cst.Call]:
    return [
        cst.ensure_type(c, cst.Call) for c in m.findall(module, m.Call(func=m.Attribute(value=m.Name("self")))) if isinstance(c, cst.Call)
    ]
