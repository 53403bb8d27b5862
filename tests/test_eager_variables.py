"""``tf.get_variable`` → ``tf.Variable`` draws from TF1's distribution.

The golden fixtures verify by execution that the migrated program computes what the
original did *from the same initial values* (the verifier injects TF1's), so they cannot
see the initial value itself.  Here each initializer's TF2 spelling, as the migration
writes it, is sampled on a large shape and compared with TF1's initializer sampled on
the same shape: the same bounds, mean and spread.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tf2migrate import migrate_source

tf = pytest.importorskip("tensorflow")

SHAPE = [300, 200]
TEMPLATE = """import tensorflow as tf
W = tf.get_variable("W", shape={shape}{dtype}, initializer={init})
x = tf.placeholder(tf.float32, [None, {cols}])
y = tf.matmul(x, tf.cast(W, tf.float32), transpose_b=True)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(y, {{x: [[1.0] * {cols}]}}))
"""

# initializer as the TF1 program writes it → the same initializer as TF1 ran it, eager
CASES = [
    # tf.contrib is gone; its xavier_initializer() was variance_scaling(1.0, FAN_AVG, uniform): Glorot uniform
    ("tf.contrib.layers.xavier_initializer()", lambda: tf.compat.v1.glorot_uniform_initializer()),
    ("tf.glorot_uniform_initializer()", lambda: tf.compat.v1.glorot_uniform_initializer()),
    ("tf.glorot_normal_initializer()", lambda: tf.compat.v1.glorot_normal_initializer()),
    ("None", lambda: tf.compat.v1.glorot_uniform_initializer()),
    ("tf.truncated_normal_initializer()", lambda: tf.compat.v1.truncated_normal_initializer()),
    ("tf.truncated_normal_initializer(0.5, 0.1)", lambda: tf.compat.v1.truncated_normal_initializer(0.5, 0.1)),
    ("tf.random_normal_initializer(stddev=0.3)", lambda: tf.compat.v1.random_normal_initializer(stddev=0.3)),
    ("tf.random_uniform_initializer()", lambda: tf.compat.v1.random_uniform_initializer()),
    ("tf.random_uniform_initializer(-0.2, 0.4)", lambda: tf.compat.v1.random_uniform_initializer(-0.2, 0.4)),
    ("tf.constant_initializer(-1.5)", lambda: tf.compat.v1.constant_initializer(-1.5)),
    ("tf.zeros_initializer()", lambda: tf.compat.v1.zeros_initializer()),
    ("tf.ones_initializer()", lambda: tf.compat.v1.ones_initializer()),
]


def _initial_value(init: str, dtype: str = "") -> str:
    """The initial value the migration writes for ``get_variable(..., initializer=init)``."""
    source = TEMPLATE.format(shape=SHAPE, dtype=dtype, init=init, cols=SHAPE[1])
    if init == "None":
        source = source.replace(", initializer=None", "")
    new_source, _ = migrate_source(source)
    found = re.search(r"^W = tf\.Variable\((.*), name=\"W\"\)$", new_source, re.M)
    assert found is not None, new_source
    assert "get_variable" not in new_source and "compat.v1" not in new_source
    return found.group(1)


@pytest.mark.parametrize("init, tf1", CASES, ids=[c[0] for c in CASES])
def test_same_distribution_as_tf1(init: str, tf1) -> None:
    tf.random.set_seed(0)
    drawn = eval(_initial_value(init), {"tf": tf}).numpy()  # noqa: S307 - the migration's own output
    reference = tf1()(SHAPE, dtype=tf.float32).numpy()
    assert drawn.shape == reference.shape and drawn.dtype == reference.dtype
    spread = max(float(reference.std()), 1e-3)
    assert abs(drawn.mean() - reference.mean()) < 0.05 * spread + 1e-6
    assert abs(drawn.std() - reference.std()) < 0.03 * spread + 1e-6
    quantiles = [0.01, 0.1, 0.5, 0.9, 0.99]  # the shape of the distribution (truncation, bounds)
    assert np.allclose(np.quantile(drawn, quantiles), np.quantile(reference, quantiles), atol=0.05 * spread)


def test_dtype_kept() -> None:
    value = eval(_initial_value("tf.constant_initializer(2)", ", dtype=tf.float64"), {"tf": tf})  # noqa: S307
    assert value.dtype == tf.float64 and np.all(value.numpy() == 2.0)


BOUND = """import tensorflow as tf
def net(x):
{body}
x = tf.placeholder(tf.float32, [None, 3])
y = net(x)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(y, {{x: [[1.0] * 3]}}))
"""
_USE = '    W = tf.get_variable("W", [3, 2], initializer=w_init)\n    return tf.matmul(x, W)'


@pytest.mark.parametrize(
    "body, written",
    [
        # the one binding, of literal arguments, read only as initializer=: written out, the binding gone
        ("    w_init = tf.truncated_normal_initializer(stddev=0.02)\n" + _USE, True),
        ("    with tf.name_scope('n'):\n        w_init = tf.truncated_normal_initializer(stddev=0.02)\n" + _USE, True),
        # read elsewhere too, an argument not written out, bound in a branch, bound after the read: kept
        ("    w_init = tf.truncated_normal_initializer(stddev=0.02)\n    print(w_init)\n" + _USE, False),
        ("    s = 0.02\n    w_init = tf.truncated_normal_initializer(stddev=s)\n" + _USE, False),
        ("    if x is not None:\n        w_init = tf.truncated_normal_initializer(stddev=0.02)\n" + _USE, False),
        (_USE.replace("    return", "    w_init = tf.truncated_normal_initializer(stddev=0.02)\n    return"), False),
    ],
    ids=["alone", "in_with", "read_elsewhere", "non_literal", "in_branch", "after_use"],
)
def test_bound_initializer_written_only_when_proven(body: str, written: bool) -> None:
    new_source, _ = migrate_source(BOUND.format(body=body), "bound.py")
    assert ("tf.random.truncated_normal([3, 2], stddev=0.02)" in new_source) is written, new_source
    assert ("w_init = " in new_source) is not written, new_source
