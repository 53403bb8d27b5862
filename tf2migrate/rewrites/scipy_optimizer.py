"""``tf.contrib.opt.ScipyOptimizerInterface`` (L-BFGS-B in every Raissi PINN) → ``scipy.optimize.minimize``.

TF1's interface packed the trainable variables into one float64 vector, let SciPy call
back for the loss and its gradient (computed by the graph), reported ``fetches`` to
``loss_callback`` at each evaluation and wrote the result back into the variables.  The
migration does the same eagerly: a generated ``minimize_<name>`` computes the loss (and
fetches) from the fed values under a tape, and one helper, ``minimize_with_scipy``,
emitted once per file, does the packing and calls SciPy with the same method and options.
"""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import call_argument
from tf2migrate.analysis.model import Kind, lookup_graph_name, RunSite, Scope, Statement
from tf2migrate.analysis.names import read_and_bound, self_attribute
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.rewrites import file_helpers
from tf2migrate.rewrites.generated import Generated, SessionRewrite

SCIPY_MINIMIZE = Rule(
    "TFM122",
    "scipy-optimizer-interface",
    "ScipyOptimizerInterface(loss, method, options).minimize(sess, ...) → scipy.optimize.minimize.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces `tf.contrib.opt.ScipyOptimizerInterface` and its `minimize(sess, feed_dict=..., "
    "fetches=..., loss_callback=..., step_callback=...)` with `scipy.optimize.minimize(..., "
    "jac=True, method=..., options=...)` over `var_list` or the trainable variables the loss reads, with a "
    "tape-computed value and gradient, float64 at the SciPy boundary as TF1 did.",
    why="tf.contrib is gone from TensorFlow 2; SciPy itself was always doing the optimization.",
    invalid=(
        "import tensorflow as tf\n"
        "W = tf.Variable(1.0)\n"
        "loss = tf.square(W - 3.0)\n"
        "opt = tf.contrib.opt.ScipyOptimizerInterface(loss, method='L-BFGS-B')\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    opt.minimize(sess)\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "W = tf.Variable(1.0)\n"
        "loss = tf.square(W - 3.0)\n"
        "train_op = tf.train.AdamOptimizer(0.1).minimize(loss)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op)\n",
    ),
)
RULES = [SCIPY_MINIMIZE]

HELPER_NAME = "minimize_with_scipy"
HELPER = '''def minimize_with_scipy(loss_and_fetches, loss_callback=None, step_callback=None, var_list=None, **minimize_kwargs):
    """scipy.optimize.minimize over `var_list`, else the trainable variables the loss reads,
    as tf.contrib.opt.ScipyOptimizerInterface did (float64 at the SciPy boundary)."""
    import numpy
    import scipy.optimize

    variables = list(var_list) if var_list is not None else []

    @tf.function
    def find_variables():
        with tf.GradientTape() as tape:
            loss_and_fetches()
        variables.extend(tape.watched_variables())

    if var_list is None:
        find_variables.get_concrete_function()  # traced, not run: which variables the loss reads

    def assign(flat):
        offset = 0
        for variable in variables:
            size = int(numpy.prod(variable.shape))
            value = numpy.reshape(flat[offset:offset + size], variable.shape)
            variable.assign(value.astype(variable.dtype.as_numpy_dtype))
            offset += size

    @tf.function  # traced once per minimize call; SciPy calls it at every iteration
    def loss_fetches_and_gradients():
        with tf.GradientTape() as tape:
            loss, fetched = loss_and_fetches()
        # a variable the loss does not reach gets a zero gradient, as in TF1's interface
        gradients = tape.gradient(loss, variables, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        return loss, fetched, gradients

    def value_and_gradient(flat):
        assign(flat)
        loss, fetched, gradients = loss_fetches_and_gradients()
        if loss_callback is not None:
            loss_callback(*[value.numpy() for value in fetched])
        flat_gradient = numpy.concatenate([numpy.reshape(g.numpy(), [-1]) for g in gradients])
        return loss.numpy().astype(numpy.float64), flat_gradient.astype(numpy.float64)

    start = numpy.concatenate([numpy.reshape(v.numpy(), [-1]) for v in variables]).astype(numpy.float64)
    result = scipy.optimize.minimize(value_and_gradient, start, jac=True, callback=step_callback, **minimize_kwargs)
    assign(result.x)
    return result
'''


def helper_code(tf_function: bool) -> str:
    """The helper, tracing the loss and gradient with tf.function or running them eagerly
    (a loss calling a helper that keeps tf.gradients needs the tf.function)."""
    return HELPER if tf_function else HELPER.replace(_TRACED, "")


_TRACED = "    @tf.function  # traced once per minimize call; SciPy calls it at every iteration\n"


def settings_code(rewrite: SessionRewrite, scope: Scope, statement, call: cst.Call) -> list[str] | None:
    """``method=..., options=...`` of the interface, evaluated where the minimize runs;
    refused if they read names of the constructor (they would not exist there)."""
    own_names = set(read_and_bound(scope.owner)[1]) if isinstance(scope.owner, cst.FunctionDef) else set()
    parts = []
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value == "loss":
            continue
        reads, _ = read_and_bound(arg.value)
        if any(n in own_names and not n.startswith("self.") for n in reads):
            rewrite.block(
                arg.value, blockers.UNSUPPORTED_GRAPH_CODE, "ScipyOptimizerInterface settings read local names of the constructor"
            )
            return None
        parts.append(f"{arg.keyword.value}={rewrite.code(arg.value)}")
    return parts


class ScipyRun(NamedTuple):
    """What the generated function of ``opt.minimize(sess, feed_dict, fetches, ...)`` is built from."""

    owner: Scope  # the scope that built the interface's graph
    interface: Statement  # ``opt = ScipyOptimizerInterface(loss, ...)``
    roots: list[Statement]  # the graph statements the loss and fetches read
    loss: cst.BaseExpression
    fetches: list[cst.BaseExpression]


def scipy_run(rewrite: SessionRewrite, site: RunSite, scope: Scope) -> ScipyRun | None:
    """The parts of ``opt.minimize(sess, feed_dict, fetches, ...)``; None (and a blocker) if
    it is not converted."""
    name = site.fetch.value if isinstance(site.fetch, cst.Name) else self_attribute(site.fetch)
    found = lookup_graph_name(scope, name, site.order) if name is not None else None
    if found is None or site.statement is None:
        rewrite.block(site.call, blockers.UNSUPPORTED_SESSION, "the result of ScipyOptimizerInterface.minimize is used")
        return None
    owner, statement = found
    interface = statement.minimize_call()
    loss = call_argument(interface, "loss", 0)
    fetches = call_argument(site.call, "fetches", 2)
    elements = [] if fetches is None else ([e.value for e in fetches.elements] if isinstance(fetches, (cst.List, cst.Tuple)) else None)
    if loss is None or elements is None:
        rewrite.block(site.call, blockers.UNSUPPORTED_FEED, "fetches of ScipyOptimizerInterface.minimize must be a list display")
        return None
    roots = []
    for expr in [loss, *elements]:
        for read in read_and_bound(expr)[0]:
            target = lookup_graph_name(owner, read, None)
            if target is not None and target[1].kind in (Kind.TENSOR, Kind.PLACEHOLDER):
                roots.append(target[1])
    return ScipyRun(owner, statement, roots, loss, elements)


def callback_arguments(rewrite: SessionRewrite, call: cst.Call) -> list[str]:
    parts = []
    for keyword in ("loss_callback", "step_callback"):
        value = call_argument(call, keyword, 3 if keyword == "step_callback" else 4)
        if value is not None:
            parts.append(f"{keyword}={rewrite.code(value)}")
    return parts


def scipy_body(rewrite: SessionRewrite, generated: Generated, body: list[str], indent: str) -> list[str]:
    """The SciPy function's body: the loss and fetches as a function the helper minimizes."""
    assert generated.scipy is not None  # the function of a SciPy run
    interface, loss, fetches = generated.scipy
    settings = settings_code(rewrite, generated.scope, interface, interface.minimize_call())
    if settings is None:
        return body
    code = lambda node: rewrite.code(node, generated.scope)  # noqa: E731
    returned = f"return {code(loss)}, [{', '.join(code(f) for f in fetches)}]"
    # one helper per file: traced when any loss calls a helper keeping tf.gradients
    traced = rewrite.tf_function or any(g.needs_tf_function for g in rewrite.functions.values() if g.scipy is not None)
    helper = file_helpers.emit_once(rewrite.module, rewrite.facts, rewrite.plan, rewrite.names_in_use, HELPER_NAME, helper_code(traced))
    rewrite.plan.note(interface.node, SCIPY_MINIMIZE.code, f"ScipyOptimizerInterface → {generated.name}(...)")
    return [
        "def loss_and_fetches():",
        *[indent + line if line else line for line in [*body, returned]],
        f"{helper}(loss_and_fetches, loss_callback=loss_callback, step_callback=step_callback, {', '.join(settings)})",
    ]
