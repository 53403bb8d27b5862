"""rewrites/tf_callable_names.py: which calls through names are written as TF calls, and how
a partial's keywords merge (as functools.partial merges them)."""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.tf_imports import collect_tf_imports
from tf2migrate.rewrites.tf_callable_names import Resolved, resolve


def _resolve(source: str, *names: str) -> Resolved | None:
    module = cst.parse_module(source)
    return resolve(module, collect_tf_imports(module), set(names), False)


def test_partial_keywords_merged_call_keywords_win():
    resolved = _resolve(
        "from functools import partial\n"
        "import tensorflow as tf\n"
        "# the book's layer\n"
        "dense = partial(tf.layers.dense,\n"
        "                activation=tf.nn.elu, use_bias=False)\n"
        "h = dense(x, 3, activation=None, name='h')\n",
        "dense",
    )
    assert resolved is not None and resolved.source is not None
    assert resolved.source.splitlines()[2:] == [
        "# the book's layer",
        "h = tf.layers.dense(x, 3, use_bias=False, activation=None, name='h')",
    ]
    assert resolved.dropped == [(4, 2)] and resolved.map_line(4) == 6


def test_alias_in_function_and_nested_function():
    resolved = _resolve(
        "import tensorflow as tf\ndef f(x):\n    act = tf.nn.relu\n    def g(y):\n        return act(y)\n    return act(x), g\n",
        "act",
    )
    assert resolved is not None and resolved.source is not None
    assert "return tf.nn.relu(y)" in resolved.source and "return tf.nn.relu(x), g" in resolved.source
    assert "act = tf.nn.relu" in resolved.source  # a plain alias stays


def _reason(source: str, name: str) -> str:
    resolved = _resolve(source, name)
    assert resolved is not None and resolved.source is None, resolved
    return resolved.reasons[name]


def test_not_followed():
    head = "from functools import partial\nimport tensorflow as tf\n"
    assert "under a branch" in _reason(head + "if c:\n    act = tf.nn.relu\ny = act(x)\n", "act")
    assert "under a branch" in _reason(head + "class A:\n    act = tf.nn.relu\n    y = act(x)\n", "act")
    assert "bound again" in _reason(head + "act = tf.nn.relu\nfor act in fs:\n    pass\ny = act(x)\n", "act")
    assert "bound again" in _reason(head + "act = tf.nn.relu\ndef f(act):\n    return act(x)\n", "act")
    assert "before its binding" in _reason(head + "def f():\n    return act(x)\nact = tf.nn.relu\n", "act")
    assert "outside the function" in _reason(head + "def f():\n    act = tf.nn.relu\ndef g():\n    return act(x)\n", "act")
    assert "read as a value" in _reason(head + "act = tf.nn.relu\ny = act(x)\nz = [act]\n", "act")
    assert "`*`/`**`" in _reason(head + "act = tf.nn.relu\ny = act(**kw)\n", "act")
    assert "positional" in _reason(head + "d = partial(tf.layers.dense, x)\ny = d(3)\n", "d")
    assert "`kernel_initializer=`" in _reason(
        head + "d = partial(tf.layers.dense, kernel_initializer=tf.ones_initializer())\ny = d(x, 3)\n", "d"
    )


def test_not_a_tf_function():
    head = "import tensorflow as tf\n"
    assert _resolve(head + "act = my_relu\ny = act(x)\n", "act") is None
    assert _resolve(head + "nn = tf.nn\ny = nn(x)\n", "nn") is None  # a module
    assert _resolve("import tensorflow as tf\npartial = make\nd = partial(tf.layers.dense, units=3)\ny = d(x)\n", "d") is None


def test_rebound_per_section_each_call_sees_the_binding_before_it():
    resolved = _resolve(
        "from functools import partial\n"
        "import tensorflow as tf\n"
        "act = tf.nn.elu\n"
        "init = tf.ones_initializer()\n"
        "dense = partial(tf.layers.dense, kernel_initializer=init)\n"
        "a = act(dense(x, 2))\n"
        "from functools import partial\n"
        "act = tf.nn.relu\n"
        "init = tf.zeros_initializer()\n"
        "dense = partial(tf.layers.dense, kernel_initializer=init)\n"
        "b = act(dense(a, 2))\n",
        "act",
        "dense",
    )
    assert resolved is not None and resolved.source is not None
    lines = resolved.source.splitlines()
    assert "a = tf.nn.elu(tf.layers.dense(x, 2, kernel_initializer=init))" in lines
    assert "b = tf.nn.relu(tf.layers.dense(a, 2, kernel_initializer=init))" in lines
    assert [line for line in lines if line.startswith("dense =")] == []  # both partials dropped
    assert resolved.dropped == [(5, 1), (10, 1)]


def test_rebound_not_followed():
    head = "from functools import partial\nimport tensorflow as tf\n"
    # a function nested in the scope runs when called: which of the two bindings it sees is not followed
    assert "nested in it" in _reason(head + "act = tf.nn.elu\ndef f(x):\n    return act(x)\nact = tf.nn.relu\ny = f(x)\n", "act")
    # another binding that is no TF function
    assert "something else" in _reason(head + "act = tf.nn.elu\ny = act(x)\nact = my_act\nz = act(x)\n", "act")
    # a binding under a branch
    assert "under a branch" in _reason(head + "act = tf.nn.elu\nif c:\n    act = tf.nn.relu\ny = act(x)\n", "act")
    # the partial's keyword names a variable bound again between the partial and the call
    assert "bound again between" in _reason(
        head + "i = tf.ones_initializer()\nd = partial(tf.layers.dense, kernel_initializer=i)\ni = tf.zeros_initializer()\ny = d(x, 1)\n",
        "d",
    )


def test_rebound_in_function_is_its_local():
    resolved = _resolve(
        "import tensorflow as tf\nact = tf.nn.elu\ny = act(x)\ndef f(h):\n    act = tf.nn.relu\n    return act(h)\nact = tf.nn.tanh\nz = act(y)\n",
        "act",
    )
    assert resolved is not None and resolved.source is not None
    assert "y = tf.nn.elu(x)" in resolved.source and "return tf.nn.relu(h)" in resolved.source and "z = tf.nn.tanh(y)" in resolved.source
