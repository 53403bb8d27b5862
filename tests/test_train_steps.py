"""Train steps on inputs the fixtures do not execute: each optimizer's helper, gradients
that may be sparse (code tf2migrate does not read), shared optimizers whose variables are
not written out.
The fixtures under training/ execute the converted forms."""

import pytest

from tf2migrate import migrate_source


def _program(optimizer: str, header: str = "", forward: str = "tf.matmul(x, w)") -> str:
    return (
        "import numpy as np\nimport tensorflow as tf\n"
        f"{header}"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "w = tf.Variable(np.ones([2, 1], np.float32))\n"
        f"loss = tf.reduce_sum(tf.square({forward}))\n"
        f"train_op = {optimizer}.minimize(loss)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op, {x: np.ones([3, 2], np.float32)})\n"
    )


def _refusals(findings) -> list[str]:
    return [f.message for f in findings if f.code.startswith("TFM3")]


@pytest.mark.parametrize(
    ("optimizer", "keras"),
    [
        ("tf.train.GradientDescentOptimizer(0.1)", "tf.keras.optimizers.SGD(learning_rate=0.1)"),
        ("tf.train.AdamOptimizer(0.1)", "AdamFromTF1(learning_rate=0.1, epsilon=1e-08)"),
        ("tf.train.MomentumOptimizer(0.1, 0.9)", "MomentumFromTF1(learning_rate=0.1, momentum=0.9)"),
        ("tf.train.RMSPropOptimizer(0.1)", "RMSpropFromTF1(learning_rate=0.1, epsilon=1e-10)"),
        ("tf.train.AdagradOptimizer(0.1)", "AdagradFromTF1(learning_rate=0.1, epsilon=0.0)"),
        ("tf.train.AdadeltaOptimizer(0.1)", "AdadeltaFromTF1(learning_rate=0.1, epsilon=1e-08)"),
        ("tf.train.FtrlOptimizer(0.1)", "FtrlFromTF1(learning_rate=0.1)"),
    ],
)
def test_each_optimizer_takes_tf1_steps(optimizer, keras):
    """All but GradientDescent through a helper running TF1's kernels, emitted once."""
    new, findings = migrate_source(_program(optimizer))
    assert not _refusals(findings)
    assert f"train_op_optimizer = {keras}" in new
    helper = keras.partition("(")[0]
    assert new.count(f"class {helper}(") == (0 if helper.startswith("tf.") else 1)
    assert "updated = [(g, v) for g, v in zip(gradients, variables) if g is not None]" in new
    assert "tf.control_dependencies(tf.nest.flatten([loss, [g for g, _ in updated]], expand_composites=True))" in new
    assert ".apply_gradients(updated)" in new


_WRAPPED = "def wrapped(a, b):\n    return {}\n"


@pytest.mark.parametrize(
    ("header", "forward"),
    [
        # code of another module, called by a helper of the file (called directly, any
        # unknown call in graph code is refused anyway)
        ("from model import encoder\n" + _WRAPPED.format("encoder(a, b)"), "wrapped(x, w)"),
        ("import model\nnet = model.build()\n" + _WRAPPED.format("net(a, b)"), "wrapped(x, w)"),
        ("", "tf.matmul(x, w) + tf.reduce_sum(tf.gather_nd(w, [[0]]))"),
        ("", "tf.matmul(x, w) + tf.reduce_sum(w.sparse_read([0]))"),
    ],
)
def test_possibly_sparse_gradients_are_passed_as_they_are(header, forward):
    """The helpers take TF1's sparse steps themselves: nothing in the step depends on it."""
    for optimizer, keras in [
        ("tf.train.MomentumOptimizer(0.1, 0.9)", "MomentumFromTF1(learning_rate=0.1, momentum=0.9)"),
        ("tf.train.AdamOptimizer(0.1)", "AdamFromTF1(learning_rate=0.1, epsilon=1e-08)"),
    ]:
        new, findings = migrate_source(_program(optimizer, header, forward))
        assert not _refusals(findings)
        assert f"train_op_optimizer = {keras}" in new
        assert "updated = [(g, v) for g, v in zip(gradients, variables) if g is not None]" in new
        assert ".apply_gradients(updated)" in new


def test_shared_optimizer_without_var_lists_is_refused():
    source = (
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32)\n"
        "a = tf.Variable(1.0)\n"
        "opt = tf.train.AdamOptimizer(0.1)\n"
        "t1 = opt.minimize(tf.square(a * x), var_list=[a])\n"
        "t2 = opt.minimize(tf.square(a * x - 1.0))\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(t1, {x: 1.0})\n"
        "    sess.run(t2, {x: 1.0})\n"
    )
    _, findings = migrate_source(source)
    assert any("one optimizer steps several train ops" in m for m in _refusals(findings))


def _var_list_program(variable_s: str, params: str) -> str:
    return (
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32)\n"
        "w = tf.Variable(1.0)\n"
        f"s = {variable_s}\n"
        f"params = {params}\n"
        "loss = tf.square(w * x + s)\n"
        "train_op = tf.train.AdamOptimizer(0.1).minimize(loss, var_list=params)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op, {x: 1.0})\n"
    )


def test_var_list_built_by_graph_code_is_refused_when_a_variable_may_be_untrainable():
    _, findings = migrate_source(_var_list_program("tf.Variable(0.0, trainable=False)", "[w] + [s]"))
    assert any("`var_list` is built by the graph code" in m for m in _refusals(findings))


def test_var_list_built_by_graph_code_needs_no_watch_when_every_variable_is_trainable():
    new, findings = migrate_source(_var_list_program("tf.Variable(0.0)", "[w] + [s]"))
    assert not _refusals(findings)
    assert ".watch(" not in new and "variables = params" in new


@pytest.mark.parametrize(
    "train",
    [
        "opt.minimize(v)",
        "opt.minimize(v, var_list=[v])",
        "opt.apply_gradients(opt.compute_gradients(v))",
    ],
)
def test_a_variable_minimized_itself_is_read_under_the_tape(train):
    """No op of the forward pass reads the loss when it is a variable: the tape must read
    it, or it records nothing and the step updates no variable (found by the
    differential test; training/minimize_a_variable executes it)."""
    source = (
        "import tensorflow as tf\n"
        "v = tf.Variable(0.5)\n"
        "opt = tf.train.GradientDescentOptimizer(0.1)\n"
        f"train = {train}\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train)\n"
    )
    new, findings = migrate_source(source)
    if "compute_gradients" in train:
        # bound inline, the pairs would be read as gradients the step takes itself, and the
        # call left on a Keras optimizer (training/apply_gradients_of_inline_compute_gradients_kept)
        assert _refusals(findings) == ["`compute_gradients` called inside `apply_gradients` is not converted"]
        return
    assert not _refusals(findings), findings
    assert "train_loss = tf.identity(v)\n" in new and ".gradient(train_loss, variables)" in new, new
