"""Tests of the execution-equivalence checker, tf2migrate.verify.

TensorFlow runs only in the checker's worker subprocesses, and every worker
start imports it (seconds), so most cases share one batched ``verify_pairs``
call: the module-scoped ``reports`` fixture.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tf2migrate.verify import VerifyReport, verify_pair, verify_pairs
from tf2migrate.verify.cli import main as verify_main
from tf2migrate.verify.compare import compare_values
from tf2migrate.verify.records import NONE, NUMBER, TENSOR, Leaf, ScriptResult
from tf2migrate.verify.runner import wait_for_progress

TF1_BASIC = """
    import numpy as np
    import tensorflow as tf

    w = tf.Variable(tf.random_normal([3, 2]))
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.matmul(x, w)
    loss = tf.reduce_sum(tf.square(y))
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w0 = sess.run(w)
        out, grad = sess.run([y, tf.gradients(loss, w)[0]], {x: data})
    positive = out > 0
    count = int(positive.sum())
    total = float(out.sum())
    stats = {"max": out.max(), "rows": [out[0], out[1]]}
    print("TF1 says hi")
"""

TF2_BASIC = """
    import numpy as np
    import tensorflow as tf

    w = tf.Variable(tf.random.normal([3, 2]))
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    w0 = w.numpy()
    with tf.GradientTape() as tape:
        y = tf.matmul(data, w)
        loss = tf.reduce_sum(tf.square(y))
    grad = tape.gradient(loss, w).numpy()
    out = y.numpy()
    positive = out > 0
    count = int(positive.sum())
    total = float(out.sum())
    stats = {"max": out.max(), "rows": (out[0], out[1])}
    print("TF2 says hi")
"""


def _variant(old: str, new: str) -> str:
    assert old in TF2_BASIC
    return TF2_BASIC.replace(old, new)


SCRIPTS = {
    "tf1_basic.py": TF1_BASIC,
    # TensorFlow 0.x's order, (logits, labels): TF 1.x refused it, compat.v1 reads labels first
    "tf1_positional_xent.py": """
        import numpy as np
        import tensorflow as tf

        logits = tf.constant(np.array([[2.0, -1.0]], np.float32))
        bits = tf.nn.sigmoid_cross_entropy_with_logits(logits, tf.constant([[1.0, 0.0]]))
        with tf.Session() as sess:
            value = sess.run(bits)
    """,
    "tf2_keyword_xent.py": """
        import numpy as np
        import tensorflow as tf

        logits = tf.constant(np.array([[2.0, -1.0]], np.float32))
        value = tf.nn.sigmoid_cross_entropy_with_logits(logits=logits, labels=tf.constant([[1.0, 0.0]])).numpy()
    """,
    "tf2_equal.py": TF2_BASIC,
    "tf2_wrong.py": _variant("total = float(out.sum())", "total = float(out.sum()) + 1e-3"),
    "tf2_tensor.py": _variant('"max": out.max()', '"max": tf.reduce_max(y)'),
    "tf2_crash.py": _variant("y = tf.matmul(data, w)", "y = tf.matmul(data, tf.transpose(w))"),
    # The forward pass outside the tape: the classic missing gradient.
    "tf2_none.py": _variant(
        "grad = tape.gradient(loss, w).numpy()",
        "grad = tape.gradient(tf.reduce_sum(tf.square(tf.matmul(data, w))), w)",
    ),
    # What TF2 draws on its own: no variable, so nothing is injected.
    "tf2_fresh.py": """
        import tensorflow as tf
        w0 = tf.random.normal([3, 2]).numpy()
    """,
    "tf2_shape.py": """
        import tensorflow as tf
        w = tf.Variable(tf.random.normal([2, 3]))
        w0 = tf.transpose(w).numpy()
    """,
    "tf2_exit.py": """
        import os
        os._exit(3)
    """,
    # Recording must happen at Operation.run (before the assign), and
    # InteractiveSession and Tensor.eval must work, with all import spellings.
    "tf1_interactive.py": """
        import tensorflow.compat.v1 as tf
        from tensorflow import placeholder
        from tensorflow.compat import v1

        sess = tf.InteractiveSession()
        w = tf.get_variable("w", [4], initializer=tf.random_uniform_initializer())
        x = placeholder(tf.float32, [4])
        v1.global_variables_initializer().run()
        w.assign(w * 2).eval()
        v = (w * x).eval({x: [1.0, 2.0, 3.0, 4.0]})
    """,
    "tf2_interactive.py": """
        import tensorflow as tf
        w = tf.Variable(tf.random.uniform([4]))
        w.assign(w * 2)
        v = (w * tf.constant([1.0, 2.0, 3.0, 4.0])).numpy()
    """,
    "tf1_layers.py": """
        import numpy as np
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 3])
        hidden = tf.layers.dense(x, 4, activation=tf.nn.relu)
        logits = tf.layers.dense(hidden, 2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            result = sess.run(logits, {x: np.ones((5, 3), np.float32)})
    """,
    "tf2_keras.py": """
        import numpy as np
        import tensorflow as tf

        hidden = tf.keras.layers.Dense(4, activation="relu")
        logits = tf.keras.layers.Dense(2)
        result = logits(hidden(np.ones((5, 3), np.float32))).numpy()
    """,
    # tf.app.run ends with sys.exit(0); both scripts define the same flag.
    "tf1_flags_a.py": """
        import tensorflow as tf
        tf.app.flags.DEFINE_integer("n", 3, "how many")
        FLAGS = tf.app.flags.FLAGS

        def main(_):
            global counted
            counted = tf.Session().run(tf.range(FLAGS.n))

        tf.app.run()
    """,
    "tf2_flags.py": """
        import numpy as np
        counted = np.arange(3, dtype=np.int32)  # tf.range's dtype: verify compares dtypes
    """,
    # Every way to create a variable in graph mode (TF1's tf.Variable is
    # compat.v1's; the compat fallback makes one with TF2's tf.Variable).
    "tf1_graph.py": """
        import numpy as np
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None, 3])
        w = tf.Variable(tf.random_normal([3, 2]))
        b = tf.Variable(tf.random_uniform([2]))
        g = tf.get_variable("g", [2], initializer=tf.random_normal_initializer())
        hidden = tf.layers.dense(x, 4, activation=tf.nn.relu)
        y = tf.matmul(x, w) + b + g + tf.layers.dense(hidden, 2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(y, {x: np.ones((5, 3), np.float32)})
    """,
    # The compat fallback: TF2 names and graph mode. Its reset_default_graph()
    # must not lose the injection.
    "tf2_fallback.py": """
        import numpy as np
        import tensorflow as tf

        tf.compat.v1.disable_eager_execution()
        tf.compat.v1.reset_default_graph()

        x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        w = tf.Variable(tf.random.normal([3, 2]))
        b = tf.compat.v1.Variable(tf.random.uniform([2]))
        g = tf.compat.v1.get_variable("g", [2], initializer=tf.compat.v1.random_normal_initializer())
        hidden = tf.compat.v1.layers.dense(x, 4, activation=tf.nn.relu)
        y = tf.matmul(x, w) + b + g + tf.compat.v1.layers.dense(hidden, 2)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            out = sess.run(y, {x: np.ones((5, 3), np.float32)})
    """,
    # Initial values of variables in several graphs and sessions, initialized at
    # different times; one never initialized. TF2 creates them in another order.
    "tf1_graphs.py": """
        import tensorflow as tf

        def initial(make):
            with tf.Graph().as_default():
                w = tf.Variable(make())
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    return sess.run(w)

        first = initial(lambda: tf.random_normal([3]))
        with tf.Graph().as_default():
            tf.Variable(tf.random_normal([4]))
        second = initial(lambda: tf.random_normal([2, 2]))
        third = initial(lambda: tf.random_uniform([3]))

        sess = tf.Session()
        a = tf.Variable(tf.random_normal([2]))
        sess.run(a.initializer)
        sess.run(a.assign_add([1.0, 1.0]))
        b = tf.Variable(tf.random_normal([2]))
        sess.run(b.initializer)
        a_value, b_value = sess.run([a, b])
    """,
    "tf2_graphs.py": """
        import tensorflow as tf

        second = tf.Variable(tf.random.normal([2, 2])).numpy()
        first = tf.Variable(tf.random.normal([3])).numpy()
        never = tf.Variable(tf.random.normal([4]))
        third = tf.Variable(tf.random.uniform([3])).numpy()
        a = tf.Variable(tf.random.normal([2]))
        a.assign_add([1.0, 1.0])
        b = tf.Variable(tf.random.normal([2]))
        a_value, b_value = a.numpy(), b.numpy()
    """,
    # A trained variable put back to its initial value by a second initializer run, and
    # only printed: its value at the end is what shows the difference.
    "tf1_reinit.py": """
        import tensorflow as tf

        a = tf.Variable(tf.constant([1.0, 2.0]))
        step = a.assign_add([1.0, 1.0])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step)
            sess.run(tf.global_variables_initializer())
            print(sess.run(a))
    """,
    "tf2_reinit.py": """
        import tensorflow as tf

        a = tf.Variable(tf.constant([1.0, 2.0]))
        a.assign_add([1.0, 1.0])
        print(a.numpy())
    """,
    "tf1_eager.py": """
        import tensorflow as tf
        tf.enable_eager_execution()
        y = tf.constant([0.0, 0.0]).numpy()
    """,
    "tf2_eager.py": """
        import tensorflow as tf
        y = tf.constant([0.0, 0.0]).numpy()
    """,
    "tf1_v2_behavior.py": """
        enabled = [1, 1]
    """,
    # Runs after tf2_fallback_v1.py in the graph worker: TF2 behaviour is back.
    "tf2_v2_behavior.py": """
        import tensorflow as tf
        tf.compat.v1.disable_eager_execution()
        enabled = [
            int(tf.compat.v1.resource_variables_enabled()),
            int(tf.compat.v1.control_flow_v2_enabled()),
        ]
    """,
}
SCRIPTS["tf1_flags_b.py"] = SCRIPTS["tf1_flags_a.py"]
# Under disable_v2_behavior, TF2 draws TF1's very numbers: another seed makes
# the equality depend on the injection.
SCRIPTS["tf2_fallback_v1.py"] = (
    SCRIPTS["tf2_fallback.py"]
    .replace("disable_eager_execution()", "disable_v2_behavior()")
    .replace("tf.random.normal([3, 2])", "tf.random.normal([3, 2], seed=1)")
)
SCRIPTS["tf2_clear_session.py"] = _variant("    w = tf.Variable", "    tf.keras.backend.clear_session()\n    w = tf.Variable")
# a deterministic initial value is compared, not injected; a drawn one is injected
SCRIPTS["tf1_start.py"] = """
import tensorflow as tf
W = tf.Variable(tf.ones([2]) * 0.5)
R = tf.Variable(tf.random_normal([2]))
x = tf.placeholder(tf.float32, [2])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    out = sess.run(W * x + R, {x: [1.0, 2.0]})
"""
SCRIPTS["tf2_start_kept.py"] = """
import tensorflow as tf
W = tf.Variable(tf.ones([2]) * 0.5)
R = tf.Variable(tf.random.normal([2]))
out = (W * [1.0, 2.0] + R).numpy()
"""
SCRIPTS["tf2_start_changed.py"] = SCRIPTS["tf2_start_kept.py"].replace("* 0.5", "* 0.7")
# Drawn initial values are injected, and TF2's own are checked all the same: a migration
# whose initializer draws from another distribution, or fails, is caught.  `P`: a fixed
# random projection (non-trainable), injected too.
SCRIPTS["tf1_drawn.py"] = """
import tensorflow as tf
W = tf.Variable(tf.truncated_normal([50, 20], stddev=0.1))
P = tf.Variable(tf.random_normal([20, 16]), trainable=False)
x = tf.placeholder(tf.float32, [None, 50])
features = tf.cos(tf.matmul(tf.matmul(x, W), P))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    out = sess.run(features, {x: [[0.1] * 50]})
"""
SCRIPTS["tf2_drawn.py"] = """
import tensorflow as tf
W = tf.Variable(tf.random.truncated_normal([50, 20], stddev=0.1))
P = tf.Variable(tf.random.normal([20, 16]), trainable=False)
out = tf.cos(tf.matmul(tf.matmul(tf.constant([[0.1] * 50]), W), P)).numpy()
"""
SCRIPTS["tf2_drawn_wrong_scale.py"] = SCRIPTS["tf2_drawn.py"].replace("stddev=0.1", "stddev=1.0")
SCRIPTS["tf2_drawn_wrong_fixed.py"] = SCRIPTS["tf2_drawn.py"].replace("tf.random.normal([20, 16])", "tf.random.uniform([20, 16])")
# the trainable `W` alone, its initializer's scale wrong: equal values before (TF1's were injected)
SCRIPTS["tf1_kernel.py"] = SCRIPTS["tf1_drawn.py"].replace(
    "P = tf.Variable(tf.random_normal([20, 16]), trainable=False)", "P = tf.ones([20, 16])"
)
SCRIPTS["tf2_kernel_wrong_scale.py"] = SCRIPTS["tf2_drawn_wrong_scale.py"].replace(
    "P = tf.Variable(tf.random.normal([20, 16]), trainable=False)", "P = tf.ones([20, 16])"
)
SCRIPTS["tf2_drawn_graph.py"] = """
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
W = tf.compat.v1.Variable(tf.random.truncated_normal([50, 20], stddev=0.1))
P = tf.compat.v1.Variable(tf.random.normal([20, 16]), trainable=False)
x = tf.compat.v1.placeholder(tf.float32, [None, 50])
features = tf.cos(tf.matmul(tf.matmul(x, W), P))
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    out = sess.run(features, {x: [[0.1] * 50]})
"""
SCRIPTS["tf2_drawn_graph_wrong.py"] = SCRIPTS["tf2_drawn_graph.py"].replace("stddev=0.1", "stddev=1.0")
# v's initial value reads w: TF1's reference variables read w's initial value; a resource
# variable's initializer reads w itself, uninitialized while the initializers run
SCRIPTS["tf1_from_variable.py"] = """
import tensorflow as tf
w = tf.Variable(tf.ones([2]))
v = tf.Variable(w * 3.0)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
out = sess.run(v)
"""
SCRIPTS["tf2_from_variable_resource.py"] = """
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
w = tf.compat.v1.Variable(tf.ones([2]))
v = tf.compat.v1.Variable(w * 3.0)
sess = tf.compat.v1.Session()
sess.run(tf.compat.v1.global_variables_initializer())
out = sess.run(v)
"""
SCRIPTS["tf2_from_variable_ref.py"] = SCRIPTS["tf2_from_variable_resource.py"].replace(
    "disable_eager_execution()", "disable_eager_execution()\ntf.compat.v1.disable_resource_variables()"
)

# a kept graph's moving averages: each shadow variable (non-trainable) starts from its
# variable's value, the constant b's all one number; both sides must pick the same shadows to
# inject, or b's takes u's value (the shadow of a uniform draw of b's shape)
SCRIPTS["tf1_moving_average.py"] = """
import tensorflow as tf
b = tf.Variable(tf.fill([2], 0.25))
u = tf.Variable(tf.random_uniform([2], -1.0, 1.0))
ema = tf.train.ExponentialMovingAverage(0.9)
average = ema.apply([b, u])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(average)
    shadows = sess.run([ema.average(b), ema.average(u)])
"""
SCRIPTS["tf2_moving_average_kept.py"] = """
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
b = tf.compat.v1.Variable(tf.fill([2], 0.25))
u = tf.compat.v1.Variable(tf.random.uniform([2], -1.0, 1.0))
ema = tf.compat.v1.train.ExponentialMovingAverage(0.9)
average = ema.apply([b, u])
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(average)
    shadows = sess.run([ema.average(b), ema.average(u)])
"""

# a TF1 program keying a dict by a variable; TF2 programs doing so with TF1's identity hashing
# switched on, and without: the switch must not outlive its script in the worker
SCRIPTS["tf1_keyed.py"] = """
import tensorflow as tf
v = tf.Variable(1.0)
names = {v: "v"}
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    out = sess.run(v)
"""
SCRIPTS["tf2_keyed_identity.py"] = """
import tensorflow as tf
tf.compat.v1.disable_tensor_equality()
v = tf.Variable(1.0)
names = {v: "v"}
out = v.numpy()
"""
SCRIPTS["tf2_keyed.py"] = SCRIPTS["tf2_keyed_identity.py"].replace("tf.compat.v1.disable_tensor_equality()\n", "")

PAIRS = {
    # First, so the graph worker runs before the eager one.
    "drawn_graph": ("tf1_drawn.py", "tf2_drawn_graph.py"),
    "drawn_graph_wrong": ("tf1_drawn.py", "tf2_drawn_graph_wrong.py"),
    "from_variable_resource": ("tf1_from_variable.py", "tf2_from_variable_resource.py"),
    "from_variable_ref": ("tf1_from_variable.py", "tf2_from_variable_ref.py"),
    "moving_average_kept": ("tf1_moving_average.py", "tf2_moving_average_kept.py"),
    "fallback": ("tf1_graph.py", "tf2_fallback.py"),
    "fallback_v1": ("tf1_graph.py", "tf2_fallback_v1.py"),
    "v2_behavior": ("tf1_v2_behavior.py", "tf2_v2_behavior.py"),
    "tf1_eager": ("tf1_eager.py", "tf2_eager.py"),  # before "equal", in the same TF1 worker
    "equal": ("tf1_basic.py", "tf2_equal.py"),
    "clear_session": ("tf1_basic.py", "tf2_clear_session.py"),
    "keyed_identity": ("tf1_keyed.py", "tf2_keyed_identity.py"),
    "keyed": ("tf1_keyed.py", "tf2_keyed.py"),  # after keyed_identity, in the same TF2 worker
    "wrong": ("tf1_basic.py", "tf2_wrong.py"),
    "exit": ("tf1_basic.py", "tf2_exit.py"),  # later pairs need a new worker
    "tensor": ("tf1_basic.py", "tf2_tensor.py"),
    "crash": ("tf1_basic.py", "tf2_crash.py"),
    "none": ("tf1_basic.py", "tf2_none.py"),
    "fresh": ("tf1_basic.py", "tf2_fresh.py"),
    "shape": ("tf1_basic.py", "tf2_shape.py"),
    "interactive": ("tf1_interactive.py", "tf2_interactive.py"),
    "graphs": ("tf1_graphs.py", "tf2_graphs.py"),
    "reinit": ("tf1_reinit.py", "tf2_reinit.py"),
    "layers": ("tf1_layers.py", "tf2_keras.py"),
    "flags_a": ("tf1_flags_a.py", "tf2_flags.py"),
    "flags_b": ("tf1_flags_b.py", "tf2_flags.py"),
    "start_kept": ("tf1_start.py", "tf2_start_kept.py"),
    "start_changed": ("tf1_start.py", "tf2_start_changed.py"),
    "positional_xent": ("tf1_positional_xent.py", "tf2_keyword_xent.py"),
    "drawn": ("tf1_drawn.py", "tf2_drawn.py"),
    "drawn_wrong_scale": ("tf1_drawn.py", "tf2_drawn_wrong_scale.py"),
    "drawn_wrong_fixed": ("tf1_drawn.py", "tf2_drawn_wrong_fixed.py"),
    "kernel_wrong_scale": ("tf1_kernel.py", "tf2_kernel_wrong_scale.py"),
}


@pytest.fixture(scope="module")
def scripts(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("verify")
    for name, source in SCRIPTS.items():
        (directory / name).write_text(textwrap.dedent(source))
    return directory


@pytest.fixture(scope="module")
def reports(scripts) -> dict[str, VerifyReport]:
    pairs = [(scripts / before, scripts / after) for before, after in PAIRS.values()]
    return dict(zip(PAIRS, verify_pairs(pairs)))


def _failing(report: VerifyReport) -> dict[str, str]:
    return {row.name: row.status for row in report.rows if not row.ok}


def test_equal_pair(reports):
    report = reports["equal"]
    assert report.verdict == "equal", report.render()
    names = {row.name for row in report.rows}
    # y and loss are graph tensors in TF1: not numeric, not compared; the variable w is
    # compared as the value it held when its session closed.
    assert names == {"w", "data", "w0", "out", "grad", "positive", "count", "total", "stats['max']", "stats['rows']"}
    assert "TF1 says hi" in report.tf1_stdout
    assert "TF2 says hi" in report.tf2_stdout
    assert report.render().endswith("verdict: equal (10 of 10 values match)")


def test_variables_compare_by_the_value_they_held_at_the_end(reports):
    # The script binds no value of `a`, only the variable: TF1's session closed holding
    # the re-initialized [1, 2], the TF2 variable holds [2, 3].
    report = reports["reinit"]
    assert report.verdict == "different", report.render()
    assert _failing(report) == {"a": "values differ beyond rtol=1e-05, atol=1e-06"}


def test_equality_comes_from_the_injected_initial_values(reports):
    # Left alone, TF2 draws other numbers than TF1's initial value.
    report = reports["fresh"]
    assert report.verdict == "different"
    assert _failing(report)["w0"].startswith("values differ")
    assert any("TF2 created 0 trainable variables" in message for message in report.messages)


def test_variable_of_another_shape_is_reported(reports):
    report = reports["shape"]
    assert report.verdict == "different"
    assert any(
        "'Variable:0' has shape (2, 3), but no TF1 trainable variable of that shape is left to match "
        "(TF1 has left 'Variable:0' (3, 2))" in m
        for m in report.messages
    )


def test_wrong_value(reports):
    report = reports["wrong"]
    assert report.verdict == "different"
    assert list(_failing(report)) == ["total"]
    assert "1e-05" in report.render()  # the tolerance is stated


def test_tensor_where_tf1_gave_numpy(reports):
    report = reports["tensor"]
    assert report.verdict == "different"
    assert _failing(report) == {"stats['max']": "TF2 value is a tf.Tensor, TF1 gave NumPy"}


def test_tf2_crash_is_an_error(reports):
    report = reports["crash"]
    assert report.verdict == "error"
    assert report.rows == []
    assert "TF2 script" in report.messages[0] and "InvalidArgumentError" in report.messages[0]


def test_missing_gradient(reports):
    report = reports["none"]
    assert report.verdict == "different"
    assert _failing(report) == {"grad": "TF2 value is None (a missing gradient?)"}


def test_initial_values_match_by_shape_and_creation_order_over_all_graphs(reports):
    # first/third: the 1st/2nd TF1 variable of shape (3,) in other graphs; second:
    # the (2, 2) one, created first by TF2; a: recorded when initialized, not after
    # its assign_add; the (4,) one TF1 never initialized keeps TF2's own value.
    report = reports["graphs"]
    assert report.verdict == "equal", report.render()
    # a and b: the variables themselves, compared by the values they held at the end
    assert {row.name for row in report.rows} == {"first", "second", "third", "a_value", "b_value", "a", "b"}
    assert not report.messages


def test_keras_dense_weights_get_tf_layers_values(reports):
    assert reports["layers"].verdict == "equal", reports["layers"].render()


def test_interactive_session_eval_and_run(reports):
    assert reports["interactive"].verdict == "equal", reports["interactive"].render()


def test_tf_app_run_and_flags_defined_twice_in_a_batch(reports):
    for key in ("flags_a", "flags_b"):
        assert reports[key].verdict == "equal", reports[key].render()


def test_compat_fallback_runs_in_graph_mode_with_injected_values(reports):
    # TF2 draws other random initial values: equal only if they were injected.
    for key in ("fallback", "fallback_v1"):
        assert reports[key].verdict == "equal", reports[key].render()
    # The graph worker ran first and left the eager one unharmed.
    assert reports["equal"].verdict == "equal", reports["equal"].render()


def test_tf1_eager_program_leaves_the_worker_in_graph_mode(reports):
    assert reports["tf1_eager"].verdict == "equal", reports["tf1_eager"].render()
    # the next TF1 program in that worker builds its graph (it failed: placeholders are
    # not compatible with eager execution)
    assert reports["equal"].verdict == "equal", reports["equal"].render()


def test_tf1_cross_entropy_refuses_positional_arguments_as_tf_1_did(reports):
    """Not compat.v1's (labels, logits) reading of 0.x's (logits, labels): a difference TF 1.x
    never computed (verify/tf1_keyword_only.py)."""
    report = reports["positional_xent"]
    assert report.verdict == "error"
    assert "Only call `sigmoid_cross_entropy_with_logits` with named arguments" in report.render()


def test_an_original_runs_on_tf1_as_tf_1_0_wrote_its_0_x_api():
    from tf2migrate.verify.tf1_source import runnable_on_tf1

    old = "import tensorflow as tf\nprint 'loss'\ne = tf.nn.sigmoid_cross_entropy_with_logits(y, t)\nz = tf.mul(a, b)\n"
    assert runnable_on_tf1(old) == (
        "import tensorflow as tf\nprint('loss')\ne = tf.nn.sigmoid_cross_entropy_with_logits(logits=y, labels=t)\nz = tf.multiply(a, b)\n"
    )
    current = "import tensorflow as tf\nz = tf.multiply(a, b)\n"
    assert runnable_on_tf1(current) is current
    assert runnable_on_tf1("print 'a' if\n") == "print 'a' if\n"  # neither Python: fails as written


def test_disable_v2_behavior_lasts_one_script(reports):
    assert reports["v2_behavior"].verdict == "equal", reports["v2_behavior"].render()


def test_tensor_equality_switch_lasts_one_script(reports):
    assert reports["keyed_identity"].verdict == "equal", reports["keyed_identity"].render()
    assert reports["keyed"].verdict == "error" and "unhashable" in reports["keyed"].render()


def test_injection_survives_clear_session(reports):
    assert reports["clear_session"].verdict == "equal", reports["clear_session"].render()


def test_each_tf2_script_runs_in_the_worker_of_its_mode(scripts, monkeypatch):
    batches = []

    def run_batch(mode, jobs, timeout):
        batches.append((mode, [Path(job.script).name for job in jobs]))
        return [ScriptResult(job.script, output=Path(job.script).name) for job in jobs]

    monkeypatch.setattr("tf2migrate.verify.runner._run_batch", run_batch)
    keys = ["equal", "fallback", "layers", "fallback_v1", "wrong"]
    reports = verify_pairs([(scripts / PAIRS[key][0], scripts / PAIRS[key][1]) for key in keys])
    assert batches == [
        ("tf1", ["tf1_basic.py", "tf1_graph.py", "tf1_layers.py"]),
        ("tf2", ["tf2_equal.py", "tf2_keras.py", "tf2_wrong.py"]),
        ("tf2graph", ["tf2_fallback.py", "tf2_fallback_v1.py"]),
    ]
    assert [report.tf2_stdout for report in reports] == [PAIRS[key][1] for key in keys]
    assert [report.tf1_stdout for report in reports] == [PAIRS[key][0] for key in keys]


def test_dead_worker_costs_only_its_script(reports):
    report = reports["exit"]
    assert report.verdict == "error"
    assert "tf2 worker process exited with code 3 while running this script" in report.messages[0]
    assert reports["tensor"].verdict == "different"  # ran in a fresh worker


def test_timeout_is_an_error(scripts):
    report = verify_pair(scripts / "tf1_basic.py", scripts / "tf2_equal.py", timeout=0.5)
    assert report.verdict == "error"
    assert "timed out" in report.messages[0]


@pytest.mark.parametrize(("key", "code"), [("equal", 0), ("wrong", 1), ("crash", 2)])
def test_cli_exit_codes(reports, monkeypatch, capsys, key, code):
    # The batch already ran these pairs: serve its reports instead of
    # starting two more TensorFlow workers per CLI call.
    by_paths = {(report.before, report.after): report for report in reports.values()}
    monkeypatch.setattr(
        "tf2migrate.verify.cli.verify_pairs",
        lambda checks, timeout: [by_paths[before.resolve(), after.resolve()] for before, after, _ in checks],
    )
    report = reports[key]
    assert verify_main([str(report.before), str(report.after)]) == code
    assert capsys.readouterr().out.strip() == report.render()


def test_cli_cannot_run(scripts, capsys):
    assert verify_main([str(scripts / "tf1_basic.py"), str(scripts / "nope.py")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert verify_main([str(scripts / "tf1_basic.py")]) == 2


def test_importing_the_package_does_not_import_tensorflow_or_numpy():
    modules = [
        "",
        ".cli",
        ".compare",
        ".records",
        ".runner",
        ".worker",
        ".graphs",
        ".tf1_mode",
        ".tf2_mode",
        ".tf2graph_mode",
        ".creators",
        ".driver",
        ".project",
    ]
    code = "; ".join(f"import tf2migrate.verify{module}" for module in modules)
    code += "; import sys; print(sorted({m.split('.')[0] for m in sys.modules} & {'tensorflow', 'numpy'}))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def _number(value, type_name="numpy.ndarray", variable=False) -> Leaf:
    import numpy as np

    return Leaf(NUMBER, type_name, np.asarray(value), variable=variable)


def test_compare_values_reports_a_changed_dtype():
    """Equal numbers in another dtype are a different result (a float32 placeholder fed
    float64 data and never cast, int64 steps where TF1 counted in int32)."""
    import numpy as np

    tf1 = {
        "loss": _number(np.float32(0.5)),
        "steps": _number(np.array([1, 2], np.int32)),
        "same": _number(np.array([1.0], np.float64)),
        "losses": _number(np.array([0.5, 0.25], np.float32), "list"),
    }
    tf2 = {
        "loss": _number(np.float64(0.5)),
        "steps": _number(np.array([1, 2], np.int64)),
        "same": _number(np.array([1.0], np.float64)),
        "losses": [_number(np.float32(0.5)), _number(np.float64(0.25))],
    }
    rows = {row.name: row for row in compare_values(tf1, tf2)}
    assert rows["loss"].status == "TF2 dtype is float64, TF1 gave float32" and rows["loss"].max_abs_diff == 0
    assert rows["steps"].status == "TF2 dtype is int64, TF1 gave int32"
    assert rows["same"].ok
    assert rows["losses[0]"].ok and rows["losses[1]"].status == "TF2 dtype is float64, TF1 gave float32"


def test_compare_values_rules():
    nan = float("nan")
    tf1 = {
        "close": _number([1.0, nan]),
        "ints": _number([1, 2]),
        "nested": {"a": [_number(1.0), _number([1.0, 2.0])]},
        "stacked": _number([[1.0], [2.0]], "list"),
        "gone": _number(0.0),
        "label": Leaf("other", "str"),  # not numeric: ignored
        # variables' final values: compared where TF2 binds the name, else not required
        "weight": _number([1.0], "tf.Variable", variable=True),
        "weights": _number([[1.0], [2.0]], "list", variable=True),
        "trained": _number([1.0], "tf.Variable", variable=True),
    }
    tf2 = {
        "close": _number([1.0 + 1e-7, nan]),
        "ints": _number([1, 3]),
        "nested": {"a": [_number(1.0), _number([1.0, 2.0, 3.0])]},
        "stacked": [_number([1.0]), Leaf(TENSOR, "tf.Tensor")],
        "extra": _number(1.0),
        "label": Leaf(NONE, "None"),
        "trained": _number([3.0]),
    }
    rows = {row.name: row for row in compare_values(tf1, tf2)}
    assert set(rows) == {"close", "ints", "nested['a'][0]", "nested['a'][1]", "stacked[0]", "stacked[1]", "gone", "trained"}
    assert rows["trained"].status.startswith("values differ")
    assert rows["close"].ok and rows["close"].max_abs_diff == pytest.approx(1e-7)
    assert rows["ints"].status == "integer values differ" and rows["ints"].max_abs_diff == 1
    assert rows["nested['a'][0]"].ok
    assert rows["nested['a'][1]"].status == "TF2 shape is (3,)"
    assert rows["stacked[0]"].ok
    assert rows["stacked[1]"].status == "TF2 value is a tf.Tensor, TF1 gave a list item"
    assert rows["gone"].status == "missing in TF2"


def test_deterministic_initial_values_are_compared_not_injected(reports):
    # `R` draws (random_normal): TF1's value is injected; `W` is the program's text alone:
    # a migration that changed it (0.7 for 0.5) is caught, not hidden by the injection
    assert reports["start_kept"].verdict == "equal", reports["start_kept"].render()
    changed = reports["start_changed"]
    assert changed.verdict == "different"
    assert any("starts at a value other than TF1's" in message for message in changed.messages), changed.messages


def test_drawn_initial_values_are_injected_and_checked(reports):
    # TF1's values, the trainable `W`'s and the non-trainable `P`'s, are injected (TF2 draws
    # other numbers); TF2's own draws are of TF1's distributions: eager and graph alike
    for key in ("drawn", "drawn_graph"):
        assert reports[key].verdict == "equal", reports[key].render()
        assert reports[key].starts_checked == 2, reports[key].render()


@pytest.mark.parametrize(
    ("key", "variable", "why"),
    [
        # W drawn with stddev 1.0 for TF1's 0.1: equal values before (TF1's were injected)
        ("drawn_wrong_scale", "trainable variable #0 'Variable:0'", "root mean square"),
        ("kernel_wrong_scale", "trainable variable #0 'Variable:0'", "root mean square"),
        ("drawn_graph_wrong", "trainable variable #0 'Variable:0'", "root mean square"),
        # P drawn uniform in [0, 1) for TF1's standard normal
        ("drawn_wrong_fixed", "non-trainable variable 'Variable:0'", "Kolmogorov-Smirnov distance"),
    ],
)
def test_an_initializer_drawing_otherwise_is_caught(reports, key, variable, why):
    report = reports[key]
    assert report.verdict == "different", report.render()
    assert any(m.startswith(variable) and "is not drawn as TF1's was" in m and why in m for m in report.messages), report.messages


def test_a_failing_initializer_fails_though_tf1_values_are_injected(reports):
    # a resource variable's initializer reads w, uninitialized if its initializer runs first
    # (it does, left alone): said whatever the order; with TF1's reference variables it reads
    # w's initial value, as TF1 did
    failing = reports["from_variable_resource"]
    assert failing.verdict == "different", failing.render()
    assert any(
        m.startswith("trainable variable #1 'Variable_1:0' has an initial value reading 'Variable' directly") for m in failing.messages
    ), failing.render()
    assert reports["from_variable_ref"].verdict == "equal", reports["from_variable_ref"].render()


def test_a_kept_graphs_moving_averages_start_from_their_own_variables(reports):
    # b's shadow (a variable's read, all one number) and u's are picked by both sides: each
    # gets its own TF1 value (before, TF1 left b's out and TF2's took u's: 0.842 apart)
    report = reports["moving_average_kept"]
    assert report.verdict == "equal", report.render()
    assert report.starts_checked == 4, report.render()


def test_each_script_of_a_batch_imports_its_own_sibling_directory_module(tmp_path):
    """Two projects whose scripts write the same relative ``sys.path`` entry
    (``'../Utilities'``, as PINN repositories do) each import their own helper: the import
    system's finder cached for that string must not keep the first project's directory."""
    import runpy

    from tf2migrate.verify.worker import _as_main_script

    scripts = []
    for name, value in (("first", 1), ("second", 2)):
        (tmp_path / name / "Main").mkdir(parents=True)
        (tmp_path / name / "Utilities").mkdir()
        (tmp_path / name / "Utilities" / "helper_a30.py").write_text(f"VALUE = {value}\n")
        script = tmp_path / name / "Main" / "main.py"
        script.write_text("import sys\nsys.path.insert(0, '../Utilities')\nfrom helper_a30 import VALUE\n")
        scripts.append(script)
    seen = []
    for script in [*scripts, *scripts]:
        with _as_main_script(script):
            seen.append(runpy.run_path(str(script), run_name="__main__")["VALUE"])
    assert seen == [1, 2, 1, 2]
    assert "helper_a30" not in sys.modules


@pytest.mark.parametrize(
    "modules",
    [
        # a package's module, imported by dotted name, whose own import is relative
        {"main.py": "from pkg.model import Model\n", "pkg/__init__.py": "", "pkg/model.py": "from .utils import f\n"},
        # a package's __init__, run by importing any of its modules
        {"main.py": "import pkg.model\n", "pkg/__init__.py": "from . import utils\n", "pkg/model.py": "", "pkg/utils.py": ""},
        # a module in a directory the script puts on sys.path
        {"Main/main.py": "import sys\nsys.path.insert(0, '../Utilities')\nimport utils as U\n", "Utilities/utils.py": ""},
    ],
    ids=["relative_import_in_package", "package_init", "sys_path_directory"],
)
def test_a_compat_fallback_in_any_imported_project_module_picks_the_graph_worker(tmp_path, modules):
    """The compat fallback's ``disable_eager_execution()`` in a module the program imports
    switches the whole worker to graph mode: run in the eager worker, it broke the
    programs after it in the batch.  The modules are found as the migration finds them."""
    from tf2migrate.verify.runner import _tf2_mode

    for name, text in modules.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    main = next(tmp_path.rglob("main.py"))
    assert _tf2_mode(main) == "tf2"
    switched = "utils.py" if (main.parent.parent / "Utilities").is_dir() else "pkg/utils.py"
    target = (main.parent.parent / "Utilities" / "utils.py") if switched == "utils.py" else tmp_path / switched
    target.write_text("import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n")
    assert _tf2_mode(main) == "tf2graph"


def _writer(out: Path, writes: int, pause: float) -> subprocess.Popen:
    """A process appending a byte to ``out`` ``writes`` times, ``pause`` seconds apart (a
    worker appending results), then exiting with 0."""
    code = f"import time\nfor _ in range({writes}):\n    time.sleep({pause})\n    open({str(out)!r}, 'ab').write(b'x')\n"
    return subprocess.Popen([sys.executable, "-c", code])


def test_each_script_has_its_own_time(tmp_path):
    # five results 0.8 s apart: 4 s in all, each within a 2 s timeout
    out = tmp_path / "results"
    assert wait_for_progress(_writer(out, 5, 0.8), out, timeout=2.0) == 0
    assert out.read_bytes() == b"xxxxx"


def test_a_script_out_of_time_kills_the_worker(tmp_path):
    out = tmp_path / "results"
    start = time.monotonic()
    assert wait_for_progress(_writer(out, 1, 30.0), out, timeout=1.0) is None
    assert time.monotonic() - start < 10
    assert not out.exists()
