"""Learning-rate decay and the global step → Keras schedules and a counter variable.

``lr = tf.train.exponential_decay(0.1, global_step, 100, 0.96)`` computed a rate from the
step each time the graph ran.  The schedule object is created once where the TF1 statement
stood (``lr_schedule = tf.keras.optimizers.schedules.ExponentialDecay(...)``); the statement
becomes ``lr = lr_schedule(global_step)``, computed wherever the rate is fetched, and an
optimizer built on ``lr`` gets ``learning_rate=lambda: lr_schedule(global_step)``: Keras
calls it at every update, so each step uses the rate of the current step, as TF1 did.
``tf.train.get_or_create_global_step()`` becomes the int64 variable it created.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.catalogue import SCHEDULE_PARAMETERS
from tf2migrate.analysis.model import GraphFacts, Kind, Scope, Statement
from tf2migrate.analysis.names import created_name, read_and_bound
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import name_normalizer

SCHEDULE = Rule(
    "TFM123",
    "decay-to-keras-schedule",
    "tf.train.exponential_decay(lr, global_step, …) → a Keras schedule created once, called with the step.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces `tf.train.exponential_decay`, `inverse_time_decay`, `polynomial_decay`, "
    "`cosine_decay` and `piecewise_constant` with the `tf.keras.optimizers.schedules` class "
    "computing the same rate, created once and called with the step; an optimizer built on the "
    "rate gets `learning_rate=lambda: schedule(step)`.",
    why="TF2 has no graph to re-evaluate the rate each step; Keras calls a callable learning "
    "rate at every update, with the same formula TF1 used (staircase, cycle, alpha kept).",
    example="lr = tf.train.exponential_decay(0.1, global_step, 100, 0.96, staircase=True)\n"
    "train_op = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=global_step)",
    instead="lr_schedule = tf.keras.optimizers.schedules.ExponentialDecay(initial_learning_rate=0.1, "
    "decay_steps=100, decay_rate=0.96, staircase=True)\n"
    "train_op_optimizer = tf.keras.optimizers.SGD(learning_rate=lambda: lr_schedule(global_step))",
    invalid=(
        "import tensorflow as tf\n"
        "W = tf.Variable(1.0)\n"
        "loss = tf.square(W - 3.0)\n"
        "step = tf.train.get_or_create_global_step()\n"
        "lr = tf.train.exponential_decay(0.1, step, 100, 0.96)\n"
        "train_op = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=step)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op)\n",
    ),
    valid=("import tensorflow as tf\nlr = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 100, 0.96)\n",),
)
GLOBAL_STEP = Rule(
    "TFM124",
    "global-step-variable",
    "tf.train.get_or_create_global_step() → tf.Variable(0, trainable=False, dtype=tf.int64).",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces `tf.train.get_or_create_global_step()` (and `create_global_step()`) with the "
    "int64 counter variable it created; train steps built from `minimize(..., global_step=...)` "
    "increment it after each update.",
    why="TF2 has no graph collection to hold a global step; the counter is an ordinary variable.",
    invalid=(
        "import tensorflow as tf\n"
        "W = tf.Variable(1.0)\n"
        "loss = tf.square(W - 3.0)\n"
        "step = tf.train.get_or_create_global_step()\n"
        "train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op)\n",
    ),
    valid=("import tensorflow as tf\nstep = tf.Variable(0, trainable=False, dtype=tf.int64)\n",),
)
RULES = [SCHEDULE, GLOBAL_STEP]

# TF1 path → the Keras schedule computing the same rate
_KERAS_SCHEDULES = {
    "train.exponential_decay": "ExponentialDecay",
    "train.inverse_time_decay": "InverseTimeDecay",
    "train.polynomial_decay": "PolynomialDecay",
    "train.cosine_decay": "CosineDecay",
    "train.piecewise_constant": "PiecewiseConstantDecay",
}
_KERAS_KEYWORDS = {"learning_rate": "initial_learning_rate"}
_GLOBAL_STEP_VARIABLE = 'tf.Variable(0, trainable=False, dtype=tf.int64, name="global_step")'


def plan_schedules(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str]) -> None:
    global_steps = [s.global_step for scope in facts.scopes for s in scope.statements if s.global_step is not None]
    for global_step in global_steps:
        if len(global_steps) > 1:
            # TF1 returned one variable to every call; separate variables would count apart
            facts.block(global_step, blockers.UNSUPPORTED_GRAPH_CODE, "the global step is fetched more than once in this file")
            continue
        plan.call_replacements[id(global_step)] = lambda updated: cst.parse_expression(_GLOBAL_STEP_VARIABLE)
        plan.note(global_step, GLOBAL_STEP.code, "global step → an int64 tf.Variable")
    for scope in facts.scopes:
        for statement in scope.statements:
            for call in statement.schedule_calls:
                _plan_schedule(module, facts, plan, names_in_use, scope, statement, call)


def _plan_schedule(
    module, facts: GraphFacts, plan: Plan, names_in_use: set[str], scope: Scope, statement: Statement, call: cst.Call
) -> None:
    path = facts.imports.call_name(call)
    assert path is not None  # the analysis found a schedule call by its TF path
    keras_class = _KERAS_SCHEDULES[path]
    parameters, step_parameter = SCHEDULE_PARAMETERS[path]
    arguments = bind_arguments(call, parameters)
    step = arguments.pop(step_parameter, None) if arguments is not None else None
    if arguments is None or step is None:
        facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, f"tf.{path} call not understood (*args, **kwargs or no step)")
        return
    normalizer = name_normalizer(plan, facts.imports)
    constructor = []
    for name, arg in arguments.items():
        reads, _ = read_and_bound(arg.value)
        if any((s := scope.graph_statement(n, statement.order)) is not None and s.kind in (Kind.TENSOR, Kind.PLACEHOLDER) for n in reads):
            facts.block(arg, blockers.UNSUPPORTED_GRAPH_CODE, f"`{name}` of tf.{path} is a graph tensor")
            return
        constructor.append(f"{_KERAS_KEYWORDS.get(name, name)}={module.code_for_node(arg.value.visit(normalizer))}")
    base = f"{statement.defines[0]}_schedule" if len(statement.defines) == 1 else "learning_rate_schedule"
    schedule = created_name(base, scope.cls is not None, names_in_use)
    plan.create_before(
        module, statement, schedule, f"tf.keras.optimizers.schedules.{keras_class}({', '.join(constructor)})", has_variables=False
    )
    step_index = list(call.args).index(step)
    plan.call_replacements[id(call)] = lambda updated: cst.parse_expression(
        f"{schedule}({module.code_for_node(updated.args[step_index].value)})"
    )
    if (
        len(statement.defines) == 1
        and isinstance(statement.node, cst.SimpleStatementLine)
        and getattr(statement.node.body[0], "value", None) is call
    ):
        # the rate itself: an optimizer built on it calls the schedule at each update
        plan.rates[statement.defines[0]] = (schedule, step.value, statement)
    plan.note(call, SCHEDULE.code, f"tf.{path} → tf.keras.optimizers.schedules.{keras_class} `{schedule}`, created once")
