"""Remove the TF1 graph machinery that has no TF2 counterpart.

Sessions (``tf.Session()``, ``with tf.Session() as sess:``, ``InteractiveSession``,
``sess.close()``), graph contexts (``tf.Graph()``, ``with g.as_default():``,
``tf.reset_default_graph()``), session configuration, initializers and the switches that
turn TF2 behaviour off.  A ``with`` block keeps its body, one level less indented.
"""

from __future__ import annotations

import functools

import libcst as cst

from tf2migrate.analysis.model import GraphFacts, Kind
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan

SESSION_REMOVED = Rule(
    "TFM103",
    "session-removed",
    "Sessions and graph contexts are removed; their blocks keep their bodies.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Removes `tf.Session()`, `tf.InteractiveSession()`, `sess.close()`, `tf.Graph()`, "
    "`tf.reset_default_graph()`, and opens up `with tf.Session() as sess:` and "
    "`with g.as_default():` blocks.",
    why="TF2 runs operations eagerly; there is no session to create, run or close.",
    invalid=("import tensorflow as tf\ny = tf.constant([1.0]) * 2.0\nwith tf.Session() as sess:\n    print(sess.run(y))\n",),
    valid=("import tensorflow as tf\ny = tf.constant([1.0]) * 2.0\nprint(y.numpy())\n",),
)
INITIALIZER_REMOVED = Rule(
    "TFM104",
    "initializer-removed",
    "Variable initializers and their runs are removed.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Removes `tf.global_variables_initializer()`, `tf.local_variables_initializer()`, "
    "`tf.variables_initializer(...)`, `var.initializer` and the runs of them.",
    why="TF2 variables hold their initial value from the moment they are created.",
    invalid=(
        "import tensorflow as tf\n"
        "W = tf.Variable([1.0])\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(W))\n",
    ),
    valid=("import tensorflow as tf\nW = tf.Variable([1.0])\nwith tf.Session() as sess:\n    print(sess.run(W))\n",),
)
CONFIG_DROPPED = Rule(
    "TFM105",
    "session-config-dropped",
    "Session configuration (tf.ConfigProto) is dropped.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Removes `tf.ConfigProto(...)`, settings made on it, and `config=` of sessions.",
    why="TF2 has no sessions to configure. Device and threading settings live in `tf.config`.",
    instead="`gpu_options.allow_growth = True` → `tf.config.experimental.set_memory_growth(gpu, True)` "
    "for each `gpu` in `tf.config.list_physical_devices('GPU')`; thread pools → "
    "`tf.config.threading.set_intra_op_parallelism_threads(n)`.",
    invalid=(
        "import tensorflow as tf\n"
        "y = tf.constant([1.0]) * 2.0\n"
        "config = tf.ConfigProto()\n"
        "config.gpu_options.allow_growth = True\n"
        "with tf.Session(config=config) as sess:\n"
        "    print(sess.run(y))\n",
    ),
    valid=("import tensorflow as tf\ny = tf.constant([1.0]) * 2.0\nwith tf.Session() as sess:\n    print(sess.run(y))\n",),
)
V1_SWITCH_REMOVED = Rule(
    "TFM106",
    "v1-switch-removed",
    "tf.disable_v2_behavior() / disable_eager_execution() are removed.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Removes the calls that switch TF2 behaviour off once the whole file runs eagerly.",
    why="The migrated code relies on eager execution.",
    invalid=(
        "import tensorflow.compat.v1 as tf\n"
        "tf.disable_v2_behavior()\n"
        "y = tf.constant([1.0]) * 2.0\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y))\n",
    ),
    valid=("import tensorflow.compat.v1 as tf\ny = tf.constant([1.0]) * 2.0\nwith tf.Session() as sess:\n    print(sess.run(y))\n",),
)
RULES = [SESSION_REMOVED, INITIALIZER_REMOVED, CONFIG_DROPPED, V1_SWITCH_REMOVED]
# what each kind of with-block opened up (analysis/graph.py) is called in findings
_OPENED = {
    "session": "session block",
    "graph": "graph context",
    "naming": "name/device scope",
    "variables": "variable scope",
    "contexts": "graph/session/device contexts",
}


def plan_cleanup(facts: GraphFacts, plan: Plan) -> None:
    switches = {id(c) for c in facts.v1_switches}
    for parameter in facts.session_parameters:
        # ``def __init__(self, sess, name)`` / ``Model(sess, "m1")``: the session goes, and with it the parameter
        if parameter.init is not None and parameter.param is not None:
            plan.replace[id(parameter.init.params)] = functools.partial(_without_param, parameter.param.name.value)
        for construction, argument in parameter.arguments:
            plan.replace[id(construction)] = functools.partial(_without_argument, construction.args.index(argument))
            plan.note(argument, SESSION_REMOVED.code, "session argument removed (the class's session is gone)")
    for with_node in facts.nested_session_blocks:
        plan.unwrap.add(id(with_node))
        plan.note(with_node, SESSION_REMOVED.code, "session block removed; its body is kept")
    for scope in facts.scopes:
        for with_node, kind in scope.unwrapped.values():
            plan.unwrap.add(id(with_node))
            what = _OPENED[kind]
            plan.note(with_node, SESSION_REMOVED.code, f"{what} removed; its body is kept")
            if kind in ("session", "contexts") and any(
                a.keyword is not None and a.keyword.value == "config" for item in with_node.items for a in getattr(item.item, "args", ())
            ):
                plan.note(with_node, CONFIG_DROPPED.code, "session config dropped")
        for statement in scope.statements:
            node = statement.node
            if statement.kind is Kind.SESSION:
                plan.remove.add(id(node))
                plan.note(node, SESSION_REMOVED.code, "session removed")
            elif statement.kind is Kind.CONFIG:
                plan.remove.add(id(node))
                plan.note(node, CONFIG_DROPPED.code, "session configuration dropped")
            elif statement.kind is Kind.INIT:
                plan.remove.add(id(node))
                plan.note(node, INITIALIZER_REMOVED.code, "initializer removed")
            elif statement.kind is Kind.DROP:
                plan.remove.add(id(node))
                call = getattr(node.body[0], "value", None) if hasattr(node, "body") else None
                if id(call) in switches:
                    plan.note(node, V1_SWITCH_REMOVED.code, "TF2 behaviour switch removed")
                else:
                    plan.note(node, SESSION_REMOVED.code, "graph/session statement removed")
    idle = [(node, SESSION_REMOVED.code, "session nothing uses removed") for node in facts.idle_sessions]
    idle += [(node, CONFIG_DROPPED.code, "configuration of a session nothing uses dropped") for node in facts.idle_configs]
    for node, code, message in idle:
        if id(node) not in plan.remove:  # (one a graph scope holds is removed as its statement)
            plan.remove.add(id(node))
            plan.note(node, code, message)


def _without_param(name: str, updated: cst.Parameters) -> cst.Parameters:
    params = [p for p in updated.params if p.name.value != name]
    if params and len(params) < len(updated.params) and updated.params[-1].name.value == name:
        params[-1] = params[-1].with_changes(comma=updated.params[-1].comma)  # no comma left dangling
    return updated.with_changes(params=params)


def _without_argument(index: int, updated: cst.Call) -> cst.Call:
    args = list(updated.args)
    removed = args.pop(index)
    if args and index == len(args):
        args[-1] = args[-1].with_changes(comma=removed.comma)
    return updated.with_changes(args=args)
