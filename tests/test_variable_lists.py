"""rewrites/variable_lists.py: which collections of trainable variables are written out, and
why the others are not (the executed cases are fixtures/training/var_list_*)."""

import pytest

from tf2migrate.migrate import migrate_source

HEAD = "import numpy as np\nimport tensorflow as tf\nx = tf.placeholder(tf.float32, [None, 1])\n"
TAIL = (
    "loss = tf.reduce_mean(tf.square(w * x + b))\n"
    "train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=chosen)\n"
    "with tf.Session() as sess:\n"
    "    sess.run(tf.global_variables_initializer())\n"
    "    sess.run(train_op, {x: np.ones([2, 1])})\n"
)


def _migrate(body: str) -> tuple[str, list[str]]:
    new, findings = migrate_source(HEAD + body + TAIL, "example.py")
    return new, [f"{f.code} {f.message}" for f in findings]


@pytest.mark.parametrize(
    ("body", "listed"),
    [
        # TF1 restarts the list at a reset of the graph
        (
            "u = tf.Variable(1.0)\ntf.reset_default_graph()\nx = tf.placeholder(tf.float32, [None, 1])\n"
            "w = tf.Variable(0.5)\nb = tf.Variable(0.1)\nchosen = tf.trainable_variables()\n",
            "[w, b]",
        ),
        # trainable=False is no trainable variable
        (
            "w = tf.Variable(0.5)\nstep = tf.Variable(0, trainable=False)\nb = tf.Variable(0.1)\nchosen = tf.trainable_variables()\n",
            "[w, b]",
        ),
        # scope= is re.match on TF1's names: "w" matches "w:0" and "wb:0", not "b:0"
        (
            "w = tf.Variable(0.5, name='w')\nb = tf.Variable(0.1, name='b')\nv = tf.Variable(0.1, name='wb')\n"
            "chosen = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='w')\n",
            "[w, v]",
        ),
        # get_variable's names carry its variable scopes; a name scope does not
        (
            "with tf.variable_scope('net'):\n    w = tf.get_variable('w', [])\nwith tf.name_scope('net2'):\n"
            "    b = tf.get_variable('b', [])\nchosen = [v for v in tf.trainable_variables() if v.name.startswith('net/')]\n",
            "[w]",
        ),
        # a loader whose helpers are defined inside it makes no variable (the MNIST reader's port)
        (
            "def load(n):\n    def scale(v):\n        return v * 2.0\n    return scale(np.ones([n, 1]))\ndata = load(3)\n"
            "w = tf.Variable(0.5)\nb = tf.Variable(0.1)\nchosen = tf.trainable_variables()\n",
            "[w, b]",
        ),
        (
            "w = tf.Variable(0.5, name='g_w')\nb = tf.Variable(0.1, name='d_b')\n"
            "chosen = [v for v in tf.trainable_variables() if not 'd_' in v.name and v.name != 'x']\n",
            "[w]",
        ),
    ],
)
def test_written_out(body, listed):
    new, findings = _migrate(body)
    assert not [f for f in findings if f.startswith("TFM3")], findings
    assert f"→ `{listed}`" in " ".join(findings)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (
            "w = tf.Variable(0.5)\nb = tf.Variable(0.1)\nchosen = [v for v in tf.trainable_variables() if '_1' in v.name]\n",
            "depends on the suffix TF1 may have added",
        ),
        (
            "flag = True\nw = tf.Variable(0.5, trainable=flag)\nb = tf.Variable(0.1)\nchosen = tf.trainable_variables()\n",
            "not written as True or False",
        ),
        (
            "def make():\n    return tf.Variable(1.0)\nu = make()\nw = tf.Variable(0.5)\nb = tf.Variable(0.1)\n"
            "chosen = tf.trainable_variables()\n",
            "`make(...)` makes variables",
        ),
        (
            "w = tf.Variable(0.5)\nif np.random.rand() > 0.5:\n    u = tf.Variable(1.0)\nb = tf.Variable(0.1)\n"
            "chosen = tf.trainable_variables()\n",
            "made in a loop, a branch",
        ),
        (
            "import helpers\nw = tf.Variable(0.5)\nb = tf.Variable(0.1)\nh = helpers.net(w)\nchosen = tf.trainable_variables()\n",
            "of module `helpers` is not followed",
        ),
        (
            "with tf.variable_scope('s', reuse=tf.AUTO_REUSE):\n    w = tf.get_variable('w', [])\n    b = tf.get_variable('b', [])\n"
            "chosen = tf.trainable_variables()\n",
            '`tf.variable_scope("name")` (a plain name',
        ),
        (
            "w = tf.Variable(0.5)\nb = tf.Variable(0.1)\nchosen = tf.trainable_variables()\nnames = [v.name for v in chosen]\n",
            "reads the variables' `.name`",
        ),
        (
            "w = tf.Variable(0.5)\nb = tf.Variable(0.1)\nchosen = [v for v in tf.trainable_variables() if v.name.lower().startswith('v')]\n",
            "not a test of the variables' names",
        ),
        (
            "with tf.variable_scope('s') as scope:\n    w = tf.get_variable('w', [])\n    scope.reuse_variables()\n"
            "    b = tf.get_variable('w', [])\nchosen = tf.trainable_variables()\n",
            "reuses variables",
        ),
        (
            "weights = {'a': tf.Variable(0.5)}\nweights['a'] = tf.Variable(0.7)\nw = weights['a']\nb = tf.Variable(0.1)\n"
            "chosen = tf.trainable_variables()\n",
            "`weights` is changed in place",
        ),
        (
            "from tensorflow.contrib import rnn\nw = tf.Variable(0.5)\nb = tf.Variable(0.1)\ncell = rnn.BasicLSTMCell(4)\n"
            "chosen = tf.trainable_variables()\n",
            "`tf.contrib.rnn.BasicLSTMCell(...)` makes variables",
        ),
        # a function defined inside the followed one is judged by its own calls ...
        (
            "def build(v):\n    def layer(u):\n        return tf.Variable(u)\n    return layer(v)\nu = build(1.0)\n"
            "w = tf.Variable(0.5)\nb = tf.Variable(0.1)\nchosen = tf.trainable_variables()\n",
            "`build(...)` makes variables",
        ),
        # ... unless its name is bound again there (it may stand for a layer)
        (
            "def build(v):\n    def layer(u):\n        return u\n    layer = tf.layers.dense\n    return layer(x, 1)\nu = build(1.0)\n"
            "w = tf.Variable(0.5)\nb = tf.Variable(0.1)\nchosen = tf.trainable_variables()\n",
            "`build(...)` makes variables",
        ),
    ],
)
def test_refused_with_the_reason(body, reason):
    new, findings = _migrate(body)
    refusals = [f for f in findings if f.startswith("TFM306") and "not written out as a list" in f]
    assert refusals and reason in refusals[0], findings


def test_layer_helper_lists_beside_contrib_flatten() -> None:
    """``tf.contrib.layers.flatten`` makes no variable (TensorFlow-Examples' dcgan.py flattens
    in its discriminator): the helpers' layer lists are still written out."""
    source = (
        "import numpy as np\nimport tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2, 2, 1])\n"
        "def disc(h, reuse=False):\n"
        "    with tf.variable_scope('D', reuse=reuse):\n"
        "        h = tf.contrib.layers.flatten(h)\n"
        "        return tf.layers.dense(h, 1)\n"
        "out = disc(x)\n"
        "loss = tf.reduce_mean(tf.square(out))\n"
        "d_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='D')\n"
        "train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=d_vars)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op, {x: np.ones([2, 2, 2, 1])})\n"
    )
    new, findings = migrate_source(source, "example.py")
    assert not [f for f in findings if f.code.startswith("TFM3")], findings
    assert "trainable_weights" in new
