"""TFM310: stateful ops TF1 built but did not run are refused; those it ran are not.

The fixtures (tests/fixtures/*/*stateful*, dangling_*, unread_*) execute both versions;
these cases pin the boundary of the rule without running TensorFlow."""

import pytest

from tf2migrate import migrate_source

GRAPH = "import tensorflow as tf\nx = tf.placeholder(tf.float32, [])\nW = tf.Variable(2.0)\nc = tf.Variable(0.0, trainable=False)\n"


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
    "unread local": "def f(t):\n    bump = tf.assign_add(c, 1.0)\n    return W * t\ny = f(x)\ny2 = f(x)\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
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
    # (a helper called once is written out at its call, TFM150: the unread assign is graph code no run fetches)
    "unread local of a helper called once": "def f(t):\n    bump = tf.assign_add(c, 1.0)\n    return W * t\ny = f(x)\nwith tf.Session() as s:\n    v = s.run(y, {x: 1.0})\n",
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


TRAIN_ONLY = (
    "train = tf.train.GradientDescentOptimizer(0.1).minimize(loss{var_list})\n"
    "with tf.Session() as s:\n    s.run(tf.global_variables_initializer())\n    s.run(train, {{x: 1.0}})\n"
)
BATCH_NORM = "z = W * x\nupd = tf.assign(c, c * 0.9 + z * 0.1)\nwith tf.control_dependencies([upd]):\n    bn = z - c\n"
# Pairs (the gradient reads the stateful op's value: TF1 ran it, converted; it does not,
# or the rule cannot tell: refused).
READ_BY_GRADIENT = {
    "relu reads its output, made under control dependencies": (
        BATCH_NORM + "h = tf.nn.relu(bn)\nloss = h * 2.0\n" + TRAIN_ONLY.format(var_list=""),
        BATCH_NORM + "h = tf.identity(bn)\nloss = h * 2.0\n" + TRAIN_ONLY.format(var_list=""),
    ),
    "square reads its input": (
        BATCH_NORM + "loss = tf.square(bn)\n" + TRAIN_ONLY.format(var_list=""),
        BATCH_NORM + "loss = bn * 2.0\n" + TRAIN_ONLY.format(var_list=""),
    ),
    "a name rebound from itself": (
        BATCH_NORM + "h = bn * 2.0\nh = tf.nn.relu(h)\nloss = h * 3.0\n" + TRAIN_ONLY.format(var_list=""),
        BATCH_NORM + "h = bn * 2.0\nh = tf.identity(h)\nloss = h * 3.0\n" + TRAIN_ONLY.format(var_list=""),
    ),
    "a product with a differentiated value": (
        "y = W * x * tf.assign_add(c, 1.0)\ng = tf.gradients(y, x)[0]\nwith tf.Session() as s:\n    v = s.run(g, {x: 1.0})\n",
        "y = W * x + tf.assign_add(c, 1.0) * 0.0\ng = tf.gradients(y, x)[0]\nwith tf.Session() as s:\n    v = s.run(g, {x: 1.0})\n",
    ),
    "the fetched gradient's source": (
        "y = x * tf.assign_add(c, 1.0) + W * x\ng = tf.gradients(y, [x, W])[0]\nwith tf.Session() as s:\n    v = s.run(g, {x: 1.0})\n",
        "y = x * tf.assign_add(c, 1.0) + W * x\ng = tf.gradients(y, [x, W])[1]\nwith tf.Session() as s:\n    v = s.run(g, {x: 1.0})\n",
    ),
    "a trainable variable the train step updates": (
        "V = tf.Variable(1.0)\nloss = tf.square(W * x) + V * tf.assign_add(c, 1.0)\n" + TRAIN_ONLY.format(var_list=", var_list=[W, V]"),
        "V = tf.Variable(1.0)\nloss = tf.square(W * x) + V * tf.assign_add(c, 1.0)\n" + TRAIN_ONLY.format(var_list=", var_list=[W]"),
    ),
    "a variable that is not trainable is no source": (
        "V = tf.Variable(1.0)\nloss = tf.square(W * x) + V * tf.assign_add(c, 1.0)\n" + TRAIN_ONLY.format(var_list=""),
        "V = tf.Variable(1.0, trainable=False)\nloss = tf.square(W * x) + V * tf.assign_add(c, 1.0)\n" + TRAIN_ONLY.format(var_list=""),
    ),
    "an identity of the loss under control dependencies": (
        "upd = tf.assign_add(c, 1.0)\nwith tf.control_dependencies([upd]):\n    loss = tf.sigmoid(W * x)\n"
        + TRAIN_ONLY.format(var_list=""),
        "loss0 = tf.sigmoid(W * x)\nupd = tf.assign_add(c, 1.0)\nwith tf.control_dependencies([upd]):\n    loss = tf.identity(loss0)\n"
        + TRAIN_ONLY.format(var_list=""),
    ),
    "a helper's value is not followed": (
        "upd = tf.assign_add(c, 1.0)\nwith tf.control_dependencies([upd]):\n    h = W * x\nloss = tf.square(h)\n"
        + TRAIN_ONLY.format(var_list=""),
        "def f(t):\n    return t\nupd = tf.assign_add(c, 1.0)\nwith tf.control_dependencies([upd]):\n    h = W * x\n"
        "loss = tf.square(f(h))\n" + TRAIN_ONLY.format(var_list=""),
    ),
}


@pytest.mark.parametrize("read, unread", READ_BY_GRADIENT.values(), ids=READ_BY_GRADIENT.keys())
def test_state_changes_a_fetched_gradient_reads_are_converted(read, unread):
    codes = _codes(read)
    assert "TFM310" not in codes and "TFM404" not in codes
    assert "TFM310" in _codes(unread)
