"""TF1 initializers written with TF2's namesakes draw TF1's very values.

The golden fixtures verify by execution from the same initial values (the verifier
injects TF1's), so they cannot see a draw.  Here each initializer as the migration writes
it and TF1's own are run in two graphs seeded alike, through ``get_variable`` and through
a Keras layer: the values must be identical, not just alike in distribution.  The calls
TF2's class would draw differently stay ``tf.compat.v1``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

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


# TF1's Keras initializers that draw, in a graph kept on TF1 (a Python function in it)
KEPT_PROGRAM = """import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 4])
h = tf.layers.dense(x, 3, kernel_initializer={init})
y = tf.py_func(abs, [h], tf.float32)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(y, {{x: [[1.0, 2.0, 3.0, 4.0]]}}))
"""
KERAS_DRAWING = [
    "tf.keras.initializers.glorot_uniform(seed=1)",
    "tf.keras.initializers.RandomNormal(stddev=0.5, seed=2)",
    "tf.keras.initializers.he_normal()",  # the graph seed decides its draw
    "tf.keras.initializers.VarianceScaling(2.0, 'fan_in', 'uniform', 3)",
    "tf.keras.initializers.Orthogonal(seed=4)",
    "tf.keras.initializers.truncated_normal(seed=5)",
]
# Each initializer's draw for a [3, 4] shape in a graph seeded with 3, as TF1 (``tensorflow`` is
# compat.v1 after ``disable_v2_behavior``, as the verifier runs TF1 programs) or as the kept
# graph (TF2 with eager execution off); both with tf-keras, which kept graphs need.
_DRAWS = """import json, sys
import tensorflow as tf
side, expressions = sys.argv[1], json.loads(sys.stdin.read())
if side == "tf1":
    tf.compat.v1.disable_v2_behavior()
    names = tf.compat.v1
else:
    tf.compat.v1.disable_eager_execution()
    names = tf
draws = []
for expression in expressions:
    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(3)
        value = eval(expression, {"tf": names})(shape=[3, 4], dtype=tf.float32)
        with tf.compat.v1.Session() as sess:
            draws.append(sess.run(value).tolist())
print(json.dumps(draws))
"""


def _draws(side: str, expressions: list[str]) -> list:
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", _DRAWS, side], input=json.dumps(expressions), capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout)


def test_kept_keras_initializers_draw_tf1_values():
    migrated = []
    for init in KERAS_DRAWING:
        text = migrate_source(KEPT_PROGRAM.format(init=init)).new_source
        assert "disable_eager_execution" in text, text
        found = re.search(r"kernel_initializer=(.*\))\)\n", text)
        assert found, text
        assert found.group(1).startswith("tf.compat.v1.keras.initializers."), found.group(1)
        migrated.append(found.group(1))
    original, kept = _draws("tf1", KERAS_DRAWING), _draws("kept", migrated)
    assert original == kept
    # (the test can fail: TF2's Keras classes of these names draw other values)
    assert _draws("kept", KERAS_DRAWING) != original


# A kept graph's layers with Keras' default or named initializers (rewrites/kept_keras_draws.py):
# each variable's initial value in a graph seeded with 3, as TF1 and as the kept graph run it.
_LAYER_DRAWS = """import json, sys
import tensorflow as tf
side, source = sys.argv[1], sys.stdin.read()
if side == "tf1":
    tf.compat.v1.disable_v2_behavior()
    names = tf.compat.v1
else:
    tf.compat.v1.disable_eager_execution()
    names = tf
with tf.Graph().as_default():
    tf.compat.v1.set_random_seed(3)
    x = tf.compat.v1.placeholder(tf.float32, [None, 3])
    exec(source, {"tf": names, "x": x})
    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        print(json.dumps([v.tolist() for v in sess.run(tf.compat.v1.global_variables())]))
"""
LAYER_LINES = [
    "d = tf.compat.v1.layers.dense(x, 2)",
    "h = tf.keras.layers.Dense(4)(x)",
    "g = tf.keras.layers.Dense(2, kernel_initializer='glorot_normal')(x)",
    "e = tf.keras.layers.Embedding(5, 3)(tf.constant([1, 2]))",
    "c = tf.keras.layers.Conv1D(2, 2)(tf.ones([1, 4, 3]))",
]


def _layer_draws(side: str, lines: list[str]) -> list:
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", _LAYER_DRAWS, side], input="\n".join(lines), capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout)


def test_kept_layers_with_keras_default_initializers_are_reported_and_tf1_classes_draw_tf1_values():
    program = "import tensorflow as tf\ntf.set_random_seed(3)\nx = tf.placeholder(tf.float32, [None, 3])\n"
    program += "".join(line + "\n" for line in LAYER_LINES) + "finalized = tf.get_default_graph().finalized\n"
    result = migrate_source(program)
    assert "disable_eager_execution" in result.new_source
    said = {f.line: f.message for f in result.findings if f.code == "TFM405"}
    assert sorted(said) == list(range(4, 4 + len(LAYER_LINES))), said
    fixed = []
    for number, line in enumerate(LAYER_LINES, start=4):
        keyword, tf1_class = re.search(r"`(\w+)=(tf\.compat\.v1\.keras\.initializers\.[^`]*)` draws TF1's", said[number]).groups()
        given = re.sub(rf"{keyword}=[^,)]*", f"{keyword}={tf1_class}", line)
        fixed.append(given if given != line else line.replace(")", f", {keyword}={tf1_class})", 1))
    original = _layer_draws("tf1", LAYER_LINES)
    # what the findings say: the kept graph draws otherwise, TF1's classes written out draw TF1's values
    assert _layer_draws("kept", LAYER_LINES) != original
    assert _layer_draws("kept", fixed) == original
