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
    "in a loop": "for i in range(2):\n    tf.scatter_add(c, [], 1.0)\ny = W * x\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
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
