"""The renames-only path (tf2migrate/renames_only.py: only the statements that name
TensorFlow parsed with libcst) gives exactly what the whole-module path gives — source
and findings, line and column — on every fixture and on layouts chosen to break it; and
it really is taken for library files (a test that it runs, not only that it agrees)."""

import ast
from pathlib import Path

import pytest

import tf2migrate.migrate as migrate
from tf2migrate.renames_only import migrate_renames_only

SOURCES = sorted((Path(__file__).parent / "fixtures").rglob("before*.py"))
LIBRARY = '''"""A library module."""
# Dependency imports
import os
import tensorflow as tf
from tensorflow.compat.v1 import estimator as tf_estimator  # removed: its lines fold
import numpy as np

FLAGS = tf.flags.FLAGS


def helper(x, shape):
    """No TF here."""
    y = np.zeros(shape)
    return x + y


class Layer(object):

    @property
    def size(self):
        return 3

    @tf.custom_gradient
    def call(self, x):
        if x is None:
            return None
        else: return tf.log(x)  # a block on its header's line: the if is one fragment

    def build(self, shape):
        dims = shape[0].value
        with tf.variable_scope("layer"):
            self.w = tf.get_variable("w", [dims, 3],
                                     initializer=tf.random_normal_initializer())
        tf.logging.info("built %s", self.w); n = 1
        return n


def main(_):
    tf.app.run()
'''
# TF1 constants written as their values, by the text path as by libcst (a call's argument)
MODE_KEYS = (
    "import tensorflow as tf\ndef f(mode):\n    if mode == tf.estimator.ModeKeys.TRAIN:\n"
    "        return g(mode=(tf.estimator.ModeKeys.PREDICT), other=tf.contrib.learn.ModeKeys.INFER)\n"
)
ODD = [
    LIBRARY,
    "import tensorflow as tf\nx = tf.log(2.0)",  # no newline at the end
    "import tensorflow as tf\ndef f():\n\tif True:\n\t\treturn tf.log(2.0)\n\treturn 1\n",  # tabs
    "import tensorflow as tf\ndef f(a,\n      b=tf.float32):\n    return a\n",  # the header names TF
    "import tensorflow as tf\nclass A:\n    x = 1; y = tf.log(2.0)\n    def f(self): return tf.exp(1.0)\n",
    "import tensorflow as tf\ntry:\n    import foo\nexcept ImportError:\n    foo = tf.log\nfinally:\n    pass\n",
    "'''doc'''\nimport tensorflow as tf\n# comment\nfor i in range(3):\n    s = '''\ntf.log\n'''\n    v = tf.to_float(i)\nelse:\n    pass\n",
    "import tensorflow as tf\nif True:\n    x = (tf.log(1.0)\n# odd comment\n  + 1)\n",
    "import tensorflow.compat.v1 as tf\nimport tensorflow as tf2\nx = tf.log(1.0)\n\n# comment\ny = tf2.math.log(1.0)\n",
    "import tensorflow as tf\nx = tf.contrib.layers.xavier_initializer()\n",
    "from tensorflow.examples.tutorials.mnist import input_data\nimport tensorflow as tf\ny = tf.log(1.0)\n",
    "import tensorflow as tf\n\n\ndef f():\n    tf.logging.info('x')\n",  # absl after the TF import
    "import tensorflow as tf\nimport tensorflow as tf\nx = tf.log(2.0)\n",
    "import os\nx = 1\nimport tensorflow as tf\ny = tf.log(2.0)\n",
    # written as text (fragment_text) or sent to libcst: each side of every line it draws
    "import tensorflow as tf\ns = tf.reduce_sum(x); t = tf.reduce_sum(x, 1, keep_dims=True)\n",  # a keyword renamed
    "import tensorflow as tf\na = tf.reduce_sum(x, 1, True)\nb = tf.reduce_sum(x, axis=1)\n",  # reordered positionals
    "import tensorflow as tf\nc = tf.expand_dims(x, -1)\nd = tf.expand_dims(*args)\ne = tf.expand_dims(**kw)\n",
    "import tensorflow as tf\nf = (tf.log)(1.0)\ng = (tf).log(1.0)\nh = tf . log(1.0)\ni = tf.reduce_sum (x)\n",
    "import tensorflow as tf\nj = (tf.log\n     (1.0))\nk = tf.\\\n  log(1.0)\n",  # a chain over two lines
    "import tensorflow as tf\n# é ü\nl = 'ü' + str(tf.log(1.0)) + 'é'; m = tf.reduce_sum('ä', 1, True)\n",  # non-ASCII columns
    "import tensorflow as tf\nn = f'{tf.log(1.0)}'\no = f'{x!r:{tf.float32}}'\n",  # f-strings
    "import tensorflow as tf\np = tf\nq = [tf, tf.log]\nfor tf2 in (tf,):\n    pass\n",  # the TF name alone
    "import tensorflow as tf\nr = x.shape[0].value + tf.to_float(x)\ns = ds.make_one_shot_iterator()\n",
    "from tensorflow import log, gfile\nimport tensorflow as tf\nt = log(1.0) + gfile.Exists('a')\n",
    "import tensorflow as tflow\nu = tflow.log(1.0)\nv = tflow.compat.v1.log(1.0)\nw = tflow.contrib.foo(1)\n",
    "import tensorflow as tf\n@tf.function\ndef f(x=tf.float32, *, y: tf.Tensor = None) -> tf.Tensor:\n    return lambda z=tf.log: z\n",
    "import tensorflow as tf\nx = tf.nn.dropout(x, 0.5)\ny = tf.gfile.Exists(p)\nz = tf.compat.v1.gfile.Exists(p)\n",
    "import tensorflow as tf\nflags = tf.flags\nFLAGS = tf.flags.FLAGS\ntf.logging.info('x')\n",
    "import tensorflow as tf\nmatch x:\n    case tf.float32:\n        y = tf.log(1.0)\n",
    "import os  # c0\nimport tensorflow.compat.v1 as tf  # c1\nfrom tensorflow import gfile  # c2\nx = tf.log(1.0)\n",
    MODE_KEYS,
    "import tensorflow as tf\ndef f(x):\n    return tf.py_func(g, [x], tf.float32), tf.py_func(func=g, inp=[x], Tout=tf.float32)\n",
]


def _whole_module(source: str, path: str):
    original = migrate.migrate_renames_only
    migrate.migrate_renames_only = lambda *args: None
    try:
        return migrate.migrate_source(source, path)
    finally:
        migrate.migrate_renames_only = original


@pytest.mark.parametrize("source", [p.read_text(encoding="utf-8") for p in SOURCES] + ODD)
def test_renames_only_path_equals_the_whole_module_path(source: str) -> None:
    expected = _whole_module(source, "f.py")
    assert migrate.migrate_source(source, "f.py") == expected


def test_the_path_is_taken_for_library_code() -> None:
    result = migrate_renames_only(LIBRARY, ast.parse(LIBRARY), "f.py")
    assert result is not None
    assert "tf.math.log(x)" in result.new_source and "from absl import app, flags, logging" in result.new_source
    assert result.new_source.count('def helper(x, shape):\n    """No TF here."""') == 1
    taken = sum(migrate_renames_only(s, ast.parse(s), "f.py") is not None for s in ODD)
    assert taken >= len(ODD) - 3  # (graph-free: only the conflicting/odd ones may fall back)


def test_fragments_that_only_rename_references_are_written_as_text(monkeypatch) -> None:
    """The text path (fragment_text.py) is taken where it can be: on the library module
    only the import region and the statement with a call rewritten whole are parsed."""
    import tf2migrate.renames_only as renames_only

    parsed: list[str] = []
    original = renames_only.parse_module
    monkeypatch.setattr(renames_only, "parse_module", lambda text: parsed.append(text) or original(text))
    result = migrate_renames_only(LIBRARY, ast.parse(LIBRARY), "f.py")
    assert result is not None and result.new_source == _whole_module(LIBRARY, "f.py").new_source
    # the import region, the statement whose ``tf.random_normal_initializer()`` is written
    # with TF2's class (its parameters written out), and ``tf.app.run()`` (it gets ``main``)
    assert len(parsed) == 3
    assert "tf.random_normal_initializer()" in parsed[1]
    assert "tf.app.run()" in parsed[2]


@pytest.mark.parametrize(
    "source",
    [
        "import tensorflow as tf\nx = tf.placeholder(tf.float32)\n",  # a graph
        "import tensorflow as tf\r\nx = tf.log(1.0)\r\n",  # carriage returns
        "import tensorflow as tf\n\fx = tf.log(1.0)\n",  # a page break
    ],
)
def test_the_whole_module_path_is_left_to_what_this_path_does_not_reproduce(source: str) -> None:
    assert migrate_renames_only(source, ast.parse(source), "f.py") is None


def test_tf1_mode_keys_are_written_as_their_strings() -> None:
    result = migrate_renames_only(MODE_KEYS, ast.parse(MODE_KEYS), "f.py")
    assert result is not None
    assert 'if mode == "train":\n        return g(mode=("infer"), other="infer")\n' in result.new_source
