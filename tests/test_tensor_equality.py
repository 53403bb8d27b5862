"""TF variables hashed or compared with ``==`` (rewrites/tensor_equality.py): which uses are
found, and the switch written once after the TensorFlow import."""

from __future__ import annotations

import ast

import pytest

from tf2migrate import migrate_source
from tf2migrate.analysis.summaries import tf_aliases
from tf2migrate.rewrites import tensor_equality

SWITCH = "tf.compat.v1.disable_tensor_equality()"


def _uses(source: str) -> list[tuple[str, str]]:
    tree = ast.parse(source)
    return [(s.text, s.use) for s in tensor_equality.hashed_variables(tree, tf_aliases(tree))]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("v = tf.Variable(1.0)\nd = {v: 1}\n", [("v", "a dict key")]),
        ("v = tf.get_variable('v', [])\nok = v in [v]\n", [("v", "an `in` test")]),
        ("for v in tf.trainable_variables():\n    seen.add(v)\n", [("v", "the key of `.add`")]),
        ("t = {}\nt['w'] = tf.Variable(1.0)\nw = t['w']\nx = w == other\n", [("w", "an operand of `==`")]),
        ("def make():\n    return tf.Variable(1.0)\nm = make()\nx = {m}\n", [("m", "a set member")]),
        # tensors: what a TF function returns, operators on them
        ("x = tf.placeholder(tf.float32)\nh = x * 2.0\nsame = h == x\n", [("h", "an operand of `==`"), ("x", "an operand of `==`")]),
        ("g = tf.square(y)\nok = g in outs\n", [("g", "an `in` test")]),
        ("gvs = opt.compute_gradients(loss)\nm = {v: 1.0 for g, v in gvs}\n", [("v", "a dict key")]),
        ("t = {}\nh = tf.identity(x)\nt[h] = 1\n", [("h", "a subscript (a dict key)")]),
    ],
)
def test_uses_found(body: str, expected: list[tuple[str, str]]) -> None:
    assert _uses("import tensorflow as tf\n" + body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "x = tf.Variable(1.0)\ny = tf.add(x, x)\n",  # TF's add, not a set's
        "x = tf.Variable(1.0)\nwith tf.Session() as s:\n    s.run(x, feed_dict={x: 2.0})\n",  # a feed dict
        "def f(v):\n    return {v: 1}\n",  # a parameter may be anything
        "v = tf.Variable(1.0)\nv = 'name'\nd = {v: 1}\n",  # bound to a string too
        "for (v, shape) in tf.train.list_variables(path):\n    d[v] = shape\n",  # names, not variables
        "v = tf.Variable(1.0)\nok = v is None or v == None\n",
        "s = tf.Session()\nd = {s: 1}\n",  # a class's object, hashable in TF2 too
        "c = tf.get_collection('losses')\nok = c == []\n",  # a collection is a list
        "p = tf.train.latest_checkpoint(d)\nok = p == 'x'\n",  # tf.train's functions return other objects
        "for i, v in enumerate(tf.trainable_variables()):\n    d[i] = v\n",  # an index
        "x = tf.placeholder(tf.float32)\nfeed = {x: 1.0}\n",  # a feed dict, built before the run
        "n = tf.argmax(y)\nz = emb[n]\n",  # a tensor indexing another
    ],
)
def test_uses_not_found(body: str) -> None:
    assert _uses("import tensorflow as tf\n" + body) == []


def test_switch_written_once_after_the_import() -> None:
    source = "import numpy as np\nimport tensorflow as tf\n\n_t = {}\n\n\ndef p(n):\n    v = tf.Variable(0.0, name=n)\n    _t[v] = n\n    return v\n"
    migrated, findings = migrate_source(source, "lib.py")
    assert migrated.splitlines()[2] == SWITCH
    assert [f.code for f in findings] == ["TFM401"] and findings[0].line == 9
    again, findings = migrate_source(migrated, "lib.py")
    assert again == migrated and not findings


def test_kept_graph_needs_no_switch() -> None:
    source = "import tensorflow as tf\nv = tf.Variable(1.0)\nd = {v: 1}\nn = len(d)\nwith tf.Session() as s:\n    s.run(tf.global_variables_initializer())\n    print(s.run(v))\n"
    migrated, findings = migrate_source(source, "kept.py")
    assert "disable_eager_execution" in migrated and "disable_tensor_equality" not in migrated
