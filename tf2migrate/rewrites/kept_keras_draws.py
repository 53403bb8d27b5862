"""Say where a graph kept on TF1 draws other initial values than TF1 under its graph seed.

A kept file runs under TF2 with eager execution off, TF2's behaviour otherwise on. Keras
(tf-keras, which ``tf.keras`` and ``tf.compat.v1.layers`` are there) reads an initializer
given by name, or its own default (``tf.keras.layers.Dense(4)``, ``tf.layers.dense(x, 2)``,
``kernel_initializer="glorot_normal"``), as its TF2 class when TF2's behaviour is on, as
TF1's ``init_ops`` class under TF1: the two draw other numbers from the same graph seed, and
the TF2 class takes no place in the graph's sequence of op seeds, so every later unseeded
draw shifts too (measured: every kernel of a seeded program of four layers differed, equal
again with TF1's classes written out). Only a program seeded by ``tf.set_random_seed``
drew numbers it could reproduce; there the layer is reported (TFM405), naming the
initializer and TF1's class to write. An initializer written as an object (TF1's classes
are kept as ``tf.compat.v1.keras.initializers.*``, rewrites/tf_names.py) draws TF1's.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.plan import Plan
from tf2migrate.rewrites.eager_calls import RANDOM_SEED
from tf2migrate.rewrites.tf_names import KERAS_DRAWING_INITIALIZERS

_SEEDS = frozenset({"set_random_seed", "random.set_random_seed"})
# Keras' defaults by name, and TF1's class of each (tf-keras' v1 API)
_TF1_CLASSES = {
    "glorot_uniform": "tf.compat.v1.keras.initializers.glorot_uniform()",
    "uniform": "tf.compat.v1.keras.initializers.RandomUniform(-0.05, 0.05)",
}
_KERNEL = (("kernel_initializer", "glorot_uniform"),)
# the layers whose weights a default initializer draws: the initializer's keyword, its default
LAYERS: dict[str, tuple[tuple[str, str], ...]] = {
    **{f"keras.layers.{name}": _KERNEL for name in ("Dense", "Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose")},
    **{f"layers.{name}": _KERNEL for name in ("Dense", "Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose")},
    **{f"layers.{name}": _KERNEL for name in ("dense", "conv1d", "conv2d", "conv3d", "conv2d_transpose")},
    "keras.layers.Embedding": (("embeddings_initializer", "uniform"),),
}


def note_default_draws(imports: TfImports, calls: Sequence[cst.Call], plan: Plan) -> None:
    """Report the layers of a kept, seeded graph whose initializer is Keras' TF2 class."""
    names = [imports.call_name(call) for call in calls]
    if not _SEEDS & set(names) or "disable_v2_behavior" in names:
        return
    for call, name in zip(calls, names):
        for keyword, default in LAYERS.get(name or "", ()):
            given = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)
            if given is None:
                which, tf1 = f"default {keyword} ({default!r})", _TF1_CLASSES[default]
            elif isinstance(given, cst.SimpleString) and f"keras.initializers.{_text(given)}" in KERAS_DRAWING_INITIALIZERS:
                which, tf1 = f"{keyword}={given.value}", f"tf.compat.v1.keras.initializers.{_text(given)}()"
            else:
                continue
            plan.note(
                call,
                RANDOM_SEED.code,
                f"`tf.{name}(...)`'s {which} is Keras' TF2 class in a graph kept on TF1: under `tf.set_random_seed` it "
                f"draws other initial values than TF1's, and every later unseeded draw of the graph shifts; "
                f"`{keyword}={tf1}` draws TF1's",
            )


def _text(string: cst.SimpleString) -> str:
    value = string.evaluated_value
    return value if isinstance(value, str) else ""  # (a bytes literal names no initializer)
