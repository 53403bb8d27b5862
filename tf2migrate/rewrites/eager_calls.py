"""TF1 calls whose eager counterpart is right only in code that becomes eager.

``tf.set_random_seed(s)`` → ``tf.random.set_seed(s)``, and ``v.initialized_value()`` →
``v.read_value()`` (TF2 variables hold their initial value from creation, and only
reference variables have ``initialized_value``; a file kept on TF1 gets those instead,
see compat_fallback.py).  ``tf.assign(v, x)`` (``assign_add``, ``assign_sub``) →
``v.assign(x)``, which is what ``tf.compat.v1.assign`` does with the resource variables
eager TF2 makes; ``tf.div(1., x)`` with a float written out → ``tf.math.divide`` (TF1's
Python 2 division divided floats truly, as TF2's does).

Every physics-informed-network script seeds TensorFlow.  In a file whose graph becomes
eager TF2, the TF1 graph-level seed has nothing to act on, and TF2's ``tf.random.set_seed``
is what makes its random ops repeatable.  The random streams differ from TF1's whatever
the migration does (TF2 derives op seeds differently), so the finding says so; initial
values are not part of the equivalence tf2migrate checks.  In a file kept on TF1 the call
stays ``tf.compat.v1.set_random_seed``, which seeds that graph as before.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.model import GraphFacts
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import API_RENAMED

RANDOM_SEED = Rule(
    "TFM405",
    "random-seed",
    "tf.set_random_seed → tf.random.set_seed in code that became eager.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Rewrites `tf.set_random_seed(s)` (and `tf.random.set_random_seed`) to "
    "`tf.random.set_seed(s)` in files whose graph was converted to eager TF2.",
    why="The TF1 graph-level seed belongs to a graph that no longer exists; `tf.random.set_seed` "
    "seeds TF2's random ops. The numbers drawn differ from TF1's (TF2 derives op seeds "
    "differently), as with any migration: runs stay repeatable, not identical to TF1's.",
    example="tf.set_random_seed(1234)",
    instead="tf.random.set_seed(1234)",
    invalid=(
        "import tensorflow as tf\n"
        "tf.set_random_seed(1234)\n"
        "y = tf.random_normal([2])\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y))\n",
    ),
    valid=("import tensorflow as tf\ntf.random.set_seed(1234)\n",),
)
RULES = [RANDOM_SEED]

_SEED_CALLS = frozenset({"set_random_seed", "random.set_random_seed"})
_ASSIGN_CALLS = frozenset({"assign", "assign_add", "assign_sub"})


def plan_eager_calls(facts: GraphFacts, plan: Plan) -> None:
    for call in facts.calls:
        if facts.imports.call_name(call) in _SEED_CALLS and len(call.args) == 1 and not call.args[0].star:
            plan.call_replacements[id(call)] = _set_seed
            plan.note(call, RANDOM_SEED.code, "tf.set_random_seed → tf.random.set_seed (TF2's random streams differ from TF1's)")
        elif facts.imports.call_name(call) in _ASSIGN_CALLS and _assignment_arguments(call) is not None:
            method = facts.imports.call_name(call)
            plan.call_replacements[id(call)] = lambda updated, method=method: _assign_method(updated, method)
            plan.note(call, API_RENAMED.code, f"tf.{method}(v, x) → v.{method}(x) (what TF1's did with a resource variable)")
        elif facts.imports.call_name(call) == "div" and _divides_floats(call):
            plan.call_replacements[id(call)] = _divide
            plan.note(call, API_RENAMED.code, "tf.div of a float → tf.math.divide (TF1 floor-divided integers only)")
        elif is_initialized_value(call):
            plan.call_replacements[id(call)] = _read_value
            plan.note(
                call, API_RENAMED.code, "`.initialized_value()` → `.read_value()` (an eager variable holds its initial value once created)"
            )


def _assignment_arguments(call: cst.Call) -> tuple[cst.Arg, cst.Arg] | None:
    """``(ref, value)`` of ``tf.assign(ref, value)`` written with nothing else (no
    ``validate_shape=``, ``use_locking=``, ``name=``)."""
    if len(call.args) != 2 or any(a.star or a.keyword is not None and a.keyword.value not in ("ref", "value") for a in call.args):
        return None
    by_name = {a.keyword.value: a for a in call.args if a.keyword is not None}
    positional = [a for a in call.args if a.keyword is None]
    ref = by_name.get("ref") or (positional.pop(0) if positional else None)
    value = by_name.get("value") or (positional.pop(0) if positional else None)
    return (ref, value) if ref is not None and value is not None else None


def _assign_method(updated: cst.Call, method: str) -> cst.Call:
    """``tf.assign(v, x)`` → ``v.assign(x)``: in eager TF2 every variable is a resource
    variable, whose ``tf.compat.v1.assign`` is exactly ``v.assign(x)`` (the same for
    ``assign_add`` and ``assign_sub``)."""
    arguments = _assignment_arguments(updated)
    assert arguments is not None  # checked on the original call, which has the same arguments
    ref, value = arguments
    target = ref.value
    if not isinstance(target, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
        target = target.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(cst.Attribute(target, cst.Name(method)), [cst.Arg(value.value)])


def _divides_floats(call: cst.Call) -> bool:
    """``tf.div(1., x)``: a float written out makes it a float division, where TF1's
    Python 2 division was true division (it floor-divided integers only)."""
    return len(call.args) == 2 and not any(a.star or a.keyword for a in call.args) and any(_is_float(a.value) for a in call.args)


def _is_float(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, cst.Float)


def _divide(updated: cst.Call) -> cst.Call:
    return updated.with_changes(func=cst.parse_expression("tf.math.divide"))


def is_initialized_value(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "initialized_value" and not call.args


def _read_value(updated: cst.Call) -> cst.Call:
    return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("read_value")))


def _set_seed(updated: cst.Call) -> cst.Call:
    return updated.with_changes(
        func=cst.parse_expression("tf.random.set_seed"), args=[updated.args[0].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)]
    )
