"""What may fill TF1's UPDATE_OPS collection (analysis/update_ops_producers.py), and what a
run tells a file reading it of the rest of its program (engine.py, linking.py)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from tf2migrate.analysis.update_ops_producers import update_ops_producers
from tf2migrate.engine import run


def producers(text: str) -> tuple[str, ...]:
    return update_ops_producers(ast.parse(textwrap.dedent(text)))


def test_contrib_batch_norm_updating_in_place_fills_nothing() -> None:
    assert (
        producers(
            """
        def bn(x, is_training, scope):
            return tf.contrib.layers.batch_norm(x, decay=0.9, updates_collections=None, is_training=is_training, scope=scope)
        """
        )
        == ()
    )


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("h = tf.contrib.layers.batch_norm(x, is_training=True)", "1: batch_norm"),
        ("h = slim.batch_norm(x, updates_collections=None, **kw)", "1: batch_norm"),
        ("h = tf.layers.batch_normalization(x, training=True)", "1: batch_normalization"),
        ("h = tf.keras.layers.BatchNormalization()(x)", "1: BatchNormalization"),
        ("h = slim.conv2d(x, 8, 3, normalizer_fn=bn)", "1: normalizer_fn="),
        ("tf.add_to_collection('update_ops', op)", "1: add_to_collection"),
        ("tf.get_collection_ref(tf.GraphKeys.UPDATE_OPS).append(op)", "1: UPDATE_OPS"),
        ("from tensorflow.contrib.slim.nets import resnet_v1", "1: import of tensorflow.contrib.slim.nets"),
        ("import tensorflow_hub as hub", "1: import of tensorflow_hub"),
    ],
)
def test_what_may_fill_the_collection_is_named(text: str, found: str) -> None:
    assert found in producers(text)


def test_reads_of_the_collection_fill_nothing() -> None:
    text = "with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):\n    op = opt.minimize(loss)\n"
    assert producers(text) == ()


def test_a_module_reading_the_collection_is_told_what_its_importers_and_their_modules_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "gan.py").write_text(
        "import tensorflow as tf\n\n\ndef train_op(loss):\n"
        "    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):\n"
        "        return tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
    )
    (tmp_path / "layers.py").write_text("import tensorflow as tf\n\n\ndef bn(x):\n    return tf.layers.batch_normalization(x)\n")
    (tmp_path / "main.py").write_text("import tensorflow as tf\nfrom gan import train_op\nfrom layers import bn\n")
    seen = {}

    def spy(source, path, use_cache, options, context=None, tree=None):
        seen[Path(path).name] = context
        return original(source, path, use_cache, options, context, tree)

    original = __import__("tf2migrate.engine", fromlist=["process_text"]).process_text
    monkeypatch.setattr("tf2migrate.engine.process_text", spy)
    run([tmp_path], jobs=1, progress=False)
    assert seen["gan.py"].update_ops_producers == ("layers.py:5: batch_normalization",)
