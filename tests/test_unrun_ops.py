"""TFM310: stateful ops TF1 built but did not run are refused; those it ran are not.

The fixtures (tests/fixtures/*/*stateful*, dangling_*, unread_*) execute both versions;
these cases pin the boundary of the rule without running TensorFlow."""

import pytest

from tf2migrate import migrate_source

GRAPH = (
    "import tensorflow as tf\n"
    "x = tf.placeholder(tf.float32, [])\n"
    "W = tf.Variable(2.0)\n"
    "c = tf.Variable(0.0, trainable=False)\n"
)


def _codes(body: str) -> set[str]:
    _, findings = migrate_source(GRAPH + body)
    return {f.code for f in findings}


REFUSED = {
    "statement of its own": "tf.assign_add(c, 1.0)\ny = W * x\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
    "method form": "c.assign_add(1.0)\ny = W * x\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
    "in a block a run needs": (
        "outs = [W * x]\nfor i in range(2):\n    tf.scatter_add(c, [], 1.0)\n    outs.append(outs[-1] * 2.0)\n"
        "with tf.Session() as s:\n    v = s.run(outs, {x: 1.0})\n"
    ),
    "in a helper": "def f(t):\n    tf.assign_add(c, 1.0)\n    return W * t\ny = f(x)\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
    "unread local": "def f(t):\n    bump = tf.assign_add(c, 1.0)\n    return W * t\ny = f(x)\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
    "helper of a helper": "def g():\n    tf.assign_add(c, 1.0)\n    return 1.0\ndef f(t):\n    return W * t * g()\ny = f(x)\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
    "stateful helper called for nothing": "def f(t):\n    return W * t + tf.assign_add(c, 1.0)\nf(x)\ny = W * x\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
}

KEPT_CONVERTED = {
    "run where it stands": "y = W * x\nwith tf.Session() as s:\n    s.run(tf.assign_add(c, 1.0))\n    v = s.run(y, {x: 1.0})\n",
    "value fetched": "inc = tf.assign_add(c, 1.0)\ny = W * x + inc\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
    "under control dependencies": (
        "def f(t):\n    bump = tf.assign_add(c, 1.0)\n    with tf.control_dependencies([bump]):\n        out = W * t\n    return out\n"
        "y = f(x)\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n"
    ),
    "in a block no run needs (dropped)": "for i in range(2):\n    tf.scatter_add(c, [], 1.0)\ny = W * x\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
    "assignment never built into a run": "upd = tf.assign_add(c, 1.0)\ny = W * x\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
}


@pytest.mark.parametrize("body", REFUSED.values(), ids=REFUSED.keys())
def test_dangling_state_changes_are_refused(body):
    assert "TFM310" in _codes(body)


@pytest.mark.parametrize("body", KEPT_CONVERTED.values(), ids=KEPT_CONVERTED.keys())
def test_state_changes_tf1_ran_are_converted(body):
    codes = _codes(body)
    assert "TFM310" not in codes and "TFM404" not in codes


def test_variables_shared_by_name_are_refused():
    body = (
        'with tf.variable_scope("s", reuse=tf.AUTO_REUSE):\n    a = tf.get_variable("w", [], initializer=tf.zeros_initializer())\n'
        "y = a * x\nwith tf.Session() as s:\n    s.run(tf.global_variables_initializer())\n    v = s.run(y, {x: 1.0})\n"
    )
    assert "TFM311" in _codes(body)
    assert "TFM311" not in _codes(body.replace("reuse=tf.AUTO_REUSE", "reuse=False"))


PRUNED = {
    "gradient only": "y = W * x + tf.assign_add(c, 1.0) * 0.0\ng = tf.gradients(y, x)[0]\nwith tf.Session() as s:\n    v = s.run(g, {x: 1.0})\n",
    "train step only": (
        "loss = tf.square(W * x) + tf.assign_add(c, 1.0) * 0.0\ntrain = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
        "with tf.Session() as s:\n    s.run(tf.global_variables_initializer())\n    s.run(train, {x: 1.0})\n"
    ),
    "one of several values bound together": (
        "upd, y = tf.assign_add(c, 1.0), W * x\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n"
    ),
    "gradient of a value fetched through it": (
        "y = W * x + tf.assign_add(c, 1.0) * 0.0\ng = tf.gradients(y, x)[0]\nn = tf.norm(g)\n"
        "with tf.Session() as s:\n    v = s.run(n, {x: 1.0})\n"
    ),
}
RUN_BY_TF1 = {
    "forward value fetched with the gradient": (
        "y = W * x + tf.assign_add(c, 1.0) * 0.0\ng = tf.gradients(y, x)[0]\nwith tf.Session() as s:\n    v = s.run([y, g], {x: 1.0})\n"
    ),
    "loss fetched with the train step": (
        "loss = tf.square(W * x) + tf.assign_add(c, 1.0) * 0.0\ntrain = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
        "with tf.Session() as s:\n    s.run(tf.global_variables_initializer())\n    v = s.run([train, loss], {x: 1.0})\n"
    ),
    "random op in a train step": (
        "loss = tf.square(W * tf.nn.dropout(x, rate=0.0))\ntrain = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
        "with tf.Session() as s:\n    s.run(tf.global_variables_initializer())\n    s.run(train, {x: 1.0})\n"
    ),
}


@pytest.mark.parametrize("body", PRUNED.values(), ids=PRUNED.keys())
def test_state_changes_only_a_gradient_needs_are_refused(body):
    assert "TFM310" in _codes(body)


@pytest.mark.parametrize("body", RUN_BY_TF1.values(), ids=RUN_BY_TF1.keys())
def test_state_changes_a_fetched_value_needs_are_converted(body):
    codes = _codes(body)
    assert "TFM310" not in codes and "TFM404" not in codes
