"""TF1 calls whose eager counterpart is right only in code that becomes eager.

``tf.set_random_seed(s)`` → ``tf.random.set_seed(s)``, and ``v.initialized_value()`` →
``v.read_value()`` (TF2 variables hold their initial value from creation, and only
reference variables have ``initialized_value``; a file kept on TF1 gets those instead,
see compat_fallback.py).  ``tf.assign(v, x)`` (``assign_add``, ``assign_sub``) →
``v.assign(x)``, which is what ``tf.compat.v1.assign`` does with the resource variables
eager TF2 makes; ``tf.div(x, y)`` → ``tf.math.divide`` where ``x`` is shown to be floating
point (analysis/float_values.py: ``1.``, a float placeholder, ops of float tensors…), as
TF1's Python 2 division divided floats truly, and → ``tf.math.floordiv`` where both are
integer literals (TF1 floor-divided integers; its ``y`` takes ``x``'s dtype, so ``x``
decides).  Where the dtype is not shown (an integer tensor from a helper, a name bound
twice), the call goes to ``tf1_div``, emitted once per file (rewrites/file_helpers.py): TF1's
own ``div`` written with TF2 names, which decides by ``x``'s dtype when the call runs, as
TF1 did when it built the op.  Only a call with ``*args``/``**kwargs`` stays
``tf.compat.v1.div``.

Every physics-informed-network script seeds TensorFlow.  In a file whose graph becomes
eager TF2, the TF1 graph-level seed has nothing to act on, and TF2's ``tf.random.set_seed``
is what makes its random ops repeatable.  The random streams differ from TF1's whatever
the migration does (TF2 derives op seeds differently), so the finding says so; initial
values are not part of the equivalence tf2migrate checks.  In a file kept on TF1 the call
stays ``tf.compat.v1.set_random_seed``, which seeds that graph as before.
"""

from __future__ import annotations

import ast

import libcst as cst

from tf2migrate.analysis.float_values import FloatValues
from tf2migrate.analysis.model import GraphFacts
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan
from tf2migrate.positions import Positions
from tf2migrate.rewrites import file_helpers
from tf2migrate.rewrites.tf_names import API_RENAMED, seeded_keras_initializer

RANDOM_SEED = Rule(
    "TFM405",
    "random-seed",
    "tf.set_random_seed → tf.random.set_seed in code that became eager.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Rewrites `tf.set_random_seed(s)` (and `tf.random.set_random_seed`) to "
    "`tf.random.set_seed(s)` in files whose graph was converted to eager TF2. In a graph kept on TF1 "
    "under a graph seed, reports the Keras layers whose default or named initializer is Keras' TF2 class "
    "there (other values than TF1's).",
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

TF1_DIV_NAME = "tf1_div"
TF1_DIV = '''def tf1_div(x, y, name=None):
    """TF1's tf.div: y takes x's dtype, then a floating or complex x divides truly and any
    other floor-divides (Python 2's `/`)."""
    x = tf.convert_to_tensor(x)
    y = tf.convert_to_tensor(y, dtype=x.dtype.base_dtype)
    if x.dtype.is_floating or x.dtype.is_complex:
        return tf.realdiv(x, y, name=name)
    return tf.math.floordiv(x, y, name=name)
'''

_SEED_CALLS = frozenset({"set_random_seed", "random.set_random_seed"})
# get_variable's initializers that draw nothing (any other, or none: Glorot uniform, draws)
_CONSTANT_INITIALIZERS = frozenset(
    {"zeros_initializer", "ones_initializer", "constant_initializer", "initializers.zeros", "initializers.ones", "initializers.constant"}
)


def _partitioned_seeded_draw(facts: GraphFacts, call: cst.Call, graph_seed: bool) -> bool:
    """``tf.get_variable(..., partitioner=...)`` whose initializer draws from a seed (its own,
    or the graph seed the file sets)."""
    if facts.imports.call_name(call) not in ("get_variable", "compat.v1.get_variable"):
        return False
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if "partitioner" not in keywords:
        return False
    initializer = keywords.get("initializer")
    if isinstance(initializer, cst.Call) and facts.imports.call_name(initializer) in _CONSTANT_INITIALIZERS:
        return False
    seeded = isinstance(initializer, cst.Call) and any(a.keyword is not None and a.keyword.value == "seed" for a in initializer.args)
    return graph_seed or seeded


_ASSIGN_CALLS = frozenset({"assign", "assign_add", "assign_sub"})


def plan_eager_calls(facts: GraphFacts, plan: Plan, module: cst.Module, tree: ast.Module, names_in_use: set[str]) -> None:
    """``tree``: CPython's tree of ``module``'s text (what tells the dtype of a division)."""
    divisions = _Divisions(module, tree)
    graph_seed = any(facts.imports.call_name(c) in _SEED_CALLS for c in facts.calls)
    for call in facts.calls:
        if _partitioned_seeded_draw(facts, call, graph_seed):
            # TF1 called the initializer once per partition, each a graph op of the same seed
            # (the partitions' first numbers alike); eagerly, the calls continue one stream
            plan.note(
                call,
                RANDOM_SEED.code,
                "tf.get_variable with a partitioner and a seeded initializer: TF1 drew each partition anew from the "
                "seed, the eager variable's partitions continue one stream: other initial values than TF1's",
            )
        if facts.imports.call_name(call) in _SEED_CALLS and len(call.args) == 1 and not call.args[0].star:
            plan.call_replacements[id(call)] = _set_seed
            plan.note(call, RANDOM_SEED.code, "tf.set_random_seed → tf.random.set_seed (TF2's random streams differ from TF1's)")
        elif facts.imports.call_name(call) in _ASSIGN_CALLS and _assignment_arguments(call) is not None:
            method = facts.imports.call_name(call)
            plan.call_replacements[id(call)] = lambda updated, method=method: _assign_method(updated, method)
            plan.note(call, API_RENAMED.code, f"tf.{method}(v, x) → v.{method}(x) (what TF1's did with a resource variable)")
        elif facts.imports.call_name(call) == "div" and (kind := divisions.kind(call)) is not None:
            if kind == "float":
                plan.call_replacements[id(call)] = lambda updated: _renamed(updated, "tf.math.divide")
                plan.note(call, API_RENAMED.code, "tf.div of a float → tf.math.divide (TF1 floor-divided integers only)")
            else:
                plan.call_replacements[id(call)] = lambda updated: _renamed(updated, "tf.math.floordiv")
                plan.note(call, API_RENAMED.code, "tf.div of integers → tf.math.floordiv (TF1 floor-divided integers)")
        elif facts.imports.call_name(call) == "div" and not any(a.star for a in call.args):
            helper = file_helpers.emit_once(module, facts, plan, names_in_use, TF1_DIV_NAME, TF1_DIV)
            plan.call_replacements[id(call)] = lambda updated, helper=helper: updated.with_changes(func=cst.Name(helper))
            plan.note(call, API_RENAMED.code, f"tf.div of a dtype not shown → `{helper}` (TF1's div: divides as x's dtype decides)")
        elif seeded_keras_initializer(name := facts.imports.call_name(call) or "", call):
            # TF2's Keras class of the name seeds its draw otherwise: say so, as of the graph seed
            plan.note(call, RANDOM_SEED.code, f"tf.{name} with a seed: TF2's Keras initializer draws other values from it than TF1's")
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


class _Divisions:
    """What ``tf.div(x, y)`` did in TF1: ``y`` took ``x``'s dtype, then a floating ``x``
    divided truly and an integer one floor-divided (Python 2's ``/``)."""

    def __init__(self, module: cst.Module, tree: ast.Module) -> None:
        self._module = module
        self._tree = tree
        self._calls: dict[tuple[int, int], ast.Call] | None = None
        self._floats: FloatValues | None = None
        self._positions: Positions | None = None

    def kind(self, call: cst.Call) -> str | None:
        """ "float", "integer", or None: not shown (kept ``tf.compat.v1.div``)."""
        if len(call.args) != 2 or any(a.star or a.keyword for a in call.args):
            return None
        if any(_is_float(a.value) for a in call.args):
            return "float"  # the literal is x (a float x), or y, which x's dtype must take
        if all(_is_integer(a.value) for a in call.args):
            return "integer"
        node = self._ast_call(call)
        if node is None or len(node.args) != 2:
            return None
        if self._floats is None:
            self._floats = FloatValues(self._tree)  # only for the files with such a division
        return "float" if self._floats.is_float(node.args[0]) else None

    def _ast_call(self, call: cst.Call) -> ast.Call | None:
        """The same call in CPython's tree, found by where it starts (a column counted in
        bytes there and in characters here: a line with other text before the call may not
        match, and the division then stays TF1's)."""
        if self._positions is None:
            self._positions = Positions(self._module)
            self._calls = {(n.lineno, n.col_offset): n for n in ast.walk(self._tree) if isinstance(n, ast.Call)}
        assert self._calls is not None
        start = self._positions.get(call)
        node = self._calls.get(start) if start is not None else None
        # (the same text, so the same call: checked all the same, a wrong pairing would be wrong output)
        return node if node is not None and isinstance(node.func, ast.Attribute) and node.func.attr == "div" else None


def _is_float(node: cst.BaseExpression) -> bool:
    return isinstance(_unsigned(node), cst.Float)


def _is_integer(node: cst.BaseExpression) -> bool:
    return isinstance(_unsigned(node), cst.Integer)


def _unsigned(node: cst.BaseExpression) -> cst.BaseExpression:
    """``1.`` of ``-1.`` (a sign written before a literal)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return node.expression
    return node


def _renamed(updated: cst.Call, name: str) -> cst.Call:
    return updated.with_changes(func=cst.parse_expression(name))


def is_initialized_value(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "initialized_value" and not call.args


def _read_value(updated: cst.Call) -> cst.Call:
    return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("read_value")))


def _set_seed(updated: cst.Call) -> cst.Call:
    return updated.with_changes(
        func=cst.parse_expression("tf.random.set_seed"), args=[updated.args[0].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)]
    )
