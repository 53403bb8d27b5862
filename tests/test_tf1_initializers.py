"""TF1 initializers written with TF2's namesakes draw TF1's very values.

The golden fixtures verify by execution from the same initial values (the verifier
injects TF1's), so they cannot see a draw.  Here each initializer as the migration writes
it and TF1's own are run in two graphs seeded alike, through ``get_variable`` and through
a Keras layer: the values must be identical, not just alike in distribution.  The calls
TF2's class would draw differently stay ``tf.compat.v1``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tf2migrate import migrate_source

tf = pytest.importorskip("tensorflow")

PROGRAM = """import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 4])
h = tf.layers.dense(x, 3, kernel_initializer={init})
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(h, {{x: [[1.0, 2.0, 3.0, 4.0]]}}))
"""

CONVERTED = [
    "tf.random_normal_initializer()",
    "tf.random_normal_initializer(0., .1)",
    "tf.random_normal_initializer(stddev=0.3, mean=1.0)",
    "tf.random_uniform_initializer()",
    "tf.random_uniform_initializer(-0.1)",
    "tf.random_uniform_initializer(-1.0, 1.0)",
    "tf.constant_initializer(0.1)",
    "tf.constant_initializer(value=-2.)",
]
KEPT = [
    "tf.random_normal_initializer(seed=4)",
    "tf.random_normal_initializer(0.0, 1.0, 4)",
    "tf.random_uniform_initializer(dtype=tf.float64)",
    "tf.truncated_normal_initializer(stddev=0.2)",  # TF2 has no tf.truncated_normal_initializer
    "tf.constant_initializer(0)",
    "tf.constant_initializer([1.0, 2.0])",
    "tf.constant_initializer(0.1, dtype=tf.float64)",
]


def _migrated_initializer(init: str) -> str:
    text = migrate_source(PROGRAM.format(init=init)).new_source
    found = re.search(r"kernel_initializer=(.*?\)), name=|kernel_initializer=(.*\))\)\n", text)
    assert found, text
    return found.group(1) or found.group(2)


def _graph_draw(init: str, eager_tf) -> np.ndarray:
    """The value ``get_variable`` gives a [3, 4] variable initialized by ``init`` (an
    expression over ``tf``, evaluated against ``eager_tf``) in a graph seeded with 3."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        v1.set_random_seed(3)
        v1.placeholder(tf.float32)  # an op before the variable: op seeds count ops
        variable = v1.get_variable("w", [3, 4], initializer=eval(init, {"tf": eager_tf}))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            return sess.run(variable)


class _TF1Names:
    """``tf`` as the TF1 program read it: its initializers are tf.compat.v1's."""

    def __getattr__(self, name):
        return getattr(tf.compat.v1 if name.endswith("_initializer") else tf, name)


@pytest.mark.parametrize("init", CONVERTED)
def test_converted_initializer_draws_tf1_values(init):
    migrated = _migrated_initializer(init)
    assert "compat" not in migrated, migrated
    original = _graph_draw(init, _TF1Names())
    assert np.array_equal(original, _graph_draw(migrated, tf))
    # eagerly, as the migrated Keras layer draws it: the same values as TF1's class
    tf.random.set_seed(5)
    expected = eval(init, {"tf": _TF1Names()})([3, 4], dtype=tf.float32).numpy()
    tf.random.set_seed(5)
    assert np.array_equal(expected, eval(migrated, {"tf": tf})([3, 4], dtype=tf.float32).numpy())


@pytest.mark.parametrize("init", KEPT)
def test_initializer_tf2_would_draw_otherwise_stays_compat(init):
    assert _migrated_initializer(init).startswith("tf.compat.v1.")
