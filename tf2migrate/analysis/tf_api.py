"""Where each TF1 API path lives in TF2: the catalogue the renamer and the analysis share.

Facts, not rewrites: ``tf2_target("log")`` says ``tf.math.log`` (renamed), ``placeholder``
says ``tf.compat.v1.placeholder``, ``contrib.layers`` says removed (with its successor);
``reference_evidence`` says what a reference tells about its file (TF1 by a name only TF1
has).  ``rewrites/tf_names.py`` writes the references; ``analysis/module_facts.py`` reads
the evidence; both from this one table.
"""

from __future__ import annotations

from dataclasses import dataclass

from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.data.tf_symbols import (
    DIFFERENT_IN_TF2,
    RENAMES,
    SAME_IN_TF2,
    UNRESOLVED_RENAMES,
    V1_ONLY,
)

# Known successors for removed namespaces (longest prefix wins).
REMOVED_SUCCESSORS = {
    "contrib": "none in TensorFlow; see TensorFlow Addons' successors or fork the code",
    "contrib.layers": "tf.keras.layers",
    # Initializers and regularizers are not layers: the "contrib.layers" prefix would name the
    # wrong module. TF1's truncated normal had stddev sqrt(1.3 * factor / n); Keras divides
    # sqrt(scale / n) by 0.8796, so scale = 1.0059 * factor draws the same distribution.
    "contrib.layers.xavier_initializer": 'tf.keras.initializers.GlorotUniform (uniform=False: tf.keras.initializers.VarianceScaling(scale=1.0059, mode="fan_avg", distribution="truncated_normal"))',
    "contrib.layers.xavier_initializer_conv2d": 'tf.keras.initializers.GlorotUniform (uniform=False: tf.keras.initializers.VarianceScaling(scale=1.0059, mode="fan_avg", distribution="truncated_normal"))',
    "contrib.layers.variance_scaling_initializer": 'tf.keras.initializers.VarianceScaling with mode in lower case (TF1\'s defaults factor=2.0, mode="FAN_IN"): uniform=True ↔ scale=factor, distribution="uniform"; TF1\'s truncated normal ↔ scale=1.0059 * factor, distribution="truncated_normal"',
    "contrib.layers.l1_regularizer": "tf.keras.regularizers.L1 (the same scale)",
    "contrib.layers.flatten": "tf.keras.layers.Flatten",
    "contrib.layers.layer_norm": "tf.keras.layers.LayerNormalization (TF1 normalized the axes from begin_norm_axis=1 with epsilon 1e-12: pass axis and epsilon)",
    "contrib.layers.fully_connected": "tf.keras.layers.Dense",
    "contrib.layers.l2_regularizer": "tf.keras.regularizers.L2 (note: scale/2)",
    "contrib.opt": "tf.keras.optimizers",
    "contrib.opt.ScipyOptimizerInterface": "scipy.optimize.minimize with a GradientTape value-and-gradient function",
    "contrib.rnn": "tf.keras.layers (RNN, LSTM, GRU, LSTMCell)",
    "contrib.seq2seq": "TensorFlow Addons' seq2seq",
    "contrib.distributions": "TensorFlow Probability (tfp.distributions)",
    "contrib.keras": "tf.keras (its public name since TF 1.4)",
    "contrib.learn": "tf.keras",
    "contrib.slim": "tf.keras (tf-slim is a separate package)",
    "contrib.framework": "tf.keras / tf.nest",
    "contrib.eager": "TF2 eager execution (no import needed)",
    "estimator": "Keras Model.fit (tf.estimator was removed in TensorFlow 2.16)",
    "examples": "tf.keras.datasets (e.g. tf.keras.datasets.mnist.load_data())",
}
# tf_upgrade_v2 renames these, but the TF2 function computes other values (TF2's
# image.resize samples at half-pixel centres; TF1's ``tf.image.resize``, from TF 1.14, is
# ``resize_images`` with its corners), or TF2's namesake is another thing (a TF1 summary op
# is a graph op that merge_all collects; TF2's writes to a default writer at a step, and
# needs TensorBoard installed): they stay on tf.compat.v1.
SEMANTIC_CHANGES = frozenset(
    {"image.resize_images", "image.resize", "summary.scalar", "summary.histogram", "summary.image", "summary.audio", "summary.text"}
)

# absl takes over tf.app / tf.flags / tf.logging: (module, names it provides).
_ABSL_LOGGING = frozenset(
    {
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "fatal",
        "log",
        "vlog",
        "set_verbosity",
        "get_verbosity",
        "flush",
        "log_every_n",
        "log_first_n",
        "log_if",
        "DEBUG",
        "INFO",
        "WARNING",
        "WARN",
        "ERROR",
        "FATAL",
    }
)
KNOWN_PATHS = SAME_IN_TF2 | DIFFERENT_IN_TF2.keys()
_TF2_NAMESPACES = frozenset(path.rsplit(".", i)[0] for path in KNOWN_PATHS for i in range(1, path.count(".") + 1))


def _tf1_modules() -> frozenset[str]:
    """TF1's modules (``""`` the root, ``losses``, ``nn.rnn_cell``): the lowercase prefixes
    of its API paths, but those TF2 keeps the same (``keras``; ``nest``, ``io.gfile``: every
    member the same, called the same), writes to absl (``app.flags``, ``logging``) or lacks
    (``contrib``, ``estimator``)."""
    paths = KNOWN_PATHS | RENAMES.keys() | V1_ONLY
    prefixes = {path.rsplit(".", i)[0] for path in paths for i in range(1, path.count(".") + 1)}
    modules = {p for p in prefixes if all(part[:1].islower() for part in p.split("."))}

    def same_in_tf2(module: str) -> bool:
        members = [path for path in paths if path.startswith(module + ".")]
        return all(tf2_target(path).kind == "same" and path not in DIFFERENT_IN_TF2 for path in members)

    kept = {p for p in modules if not p.startswith(("keras", "compat")) and tf2_target(p).kind not in ("absl", "removed")}
    return frozenset({""} | {p for p in kept if not same_in_tf2(p)})


@dataclass
class Target:
    """Where a canonical TF1 path goes: a dotted expression and how it got there."""

    code: str
    kind: str  # same | renamed | compat | removed | unknown | absl
    absl_module: str | None = None


def removed_successor(path: str) -> str | None:
    if path in UNRESOLVED_RENAMES:
        return "none in current TensorFlow"
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        successor = REMOVED_SUCCESSORS.get(".".join(parts[:i]))
        if successor is not None:
            return successor
    return None


def _renamed_prefix(path: str) -> str | None:
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        target = RENAMES.get(".".join(parts[:i]))
        if target is not None:
            return ".".join([target, *parts[i:]])
    return None


# TF1 paths whose TF2 home tf_upgrade_v2 does not name although TF2 has one doing the very
# same: ``tf.compat.v1.py_func`` and ``tf.numpy_function`` both call ``py_func_common(func,
# inp, Tout, stateful, name)``, with the same parameters in the same order; TF1's
# ``gfile.FastGFile(name, mode='r')`` and TF2's ``io.gfile.GFile(name, mode='r')`` are both
# ``FileIO(name=name, mode=mode)`` and nothing more (FastGFile only adds a deprecation
# warning, "Use tf.gfile.GFile"): Hvass' frozen-graph loaders read their files with it
SAME_IMPLEMENTATION = {"py_func": "numpy_function", "gfile.FastGFile": "io.gfile.GFile"}


# ``tf.contrib.rnn``'s cells and RNN functions were TF1's ``tf.nn`` ones under another name (the
# same objects in TF 1.15): where the graph stays on TF1 they are written as those, which
# ``tf.compat.v1`` still has, instead of a ``tf.contrib`` that TF2 lacks (the file crashed)
_CONTRIB_RNN_IN_COMPAT = {
    path: target for path, target in RENAMES.items() if path.startswith("contrib.rnn.") and target.startswith("compat.v1.nn.")
} | {
    # the cell wrappers too (TF 1.15's contrib/rnn/__init__.py imported them from
    # ``tensorflow.python.ops.rnn_cell``), which tf_upgrade_v2's table does not name
    f"contrib.rnn.{wrapper}": RENAMES[f"nn.rnn_cell.{wrapper}"]
    for wrapper in ("DropoutWrapper", "DeviceWrapper", "ResidualWrapper")
}


# ``tf.contrib.keras`` was TF1's alias of ``tf.keras`` (TF 1.4 made it public as ``tf.keras``);
# its dataset loaders download and read files into NumPy arrays, the same functions in TF2
_CONTRIB_KERAS_DATASETS = "contrib.keras.datasets."


def tf2_target(path: str) -> Target:
    """The TF2 home of a canonical TF1 path, ignoring call-site arguments."""
    if path == "":
        return Target("tf", "same")
    head = path.split(".")[0]
    for prefix in ("app.flags", "flags"):
        if path == prefix or path.startswith(prefix + "."):
            return Target("flags" + path[len(prefix) :], "absl", "flags")
    if head == "logging":
        name = path[len("logging.") :]
        if path == "logging" or name in _ABSL_LOGGING:
            return Target("logging" + (f".{name}" if name else ""), "absl", "logging")
    if head == "keras":
        return Target(f"tf.{path}", "same")  # tf.keras is TF2 API already
    if path in _CONTRIB_RNN_IN_COMPAT:
        return Target(f"tf.{_CONTRIB_RNN_IN_COMPAT[path]}", "compat")
    if path.startswith(_CONTRIB_KERAS_DATASETS):
        return Target(f"tf.{path[len('contrib.') :]}", "renamed")
    if removed_successor(path) is not None or path in UNRESOLVED_RENAMES:
        return Target(f"tf.{path}", "removed")
    if path in SEMANTIC_CHANGES:
        return Target(f"tf.compat.v1.{path}", "compat")
    target = SAME_IMPLEMENTATION.get(path) or RENAMES.get(path) or _renamed_prefix(path)
    if target is None:
        if path in KNOWN_PATHS or path in _TF2_NAMESPACES:
            return Target(f"tf.{path}", "same")
        if path in V1_ONLY or head == "layers":
            target = f"compat.v1.{path}"
        else:
            return Target(f"tf.{path}", "unknown")
    kind = "compat" if target.startswith("compat.v1") else ("same" if target == path else "renamed")
    return Target(f"tf.{target}", kind)


def reference_evidence(imports: TfImports, dotted: str | None) -> str | None:
    """What a reference written ``dotted`` (``tf.log``) says about its file: "explicit"
    (``tf.compat.v1.X``, tf.contrib, tf.estimator), "tf1" (a name only TF1 has), or
    nothing.

    Only unambiguous signs count as TF1: a name TF2 does not have (``tf.placeholder``,
    ``tf.log``) or, with refuses_tf2_keywords, a keyword TF2's namesake refuses
    (``keep_dims=``); our own output has neither, so a second run leaves it alone."""
    path = imports.canonical_dotted(dotted)
    if path is None:
        return None
    if imports.is_explicit_v1_dotted(dotted or "") or tf2_target(path).kind == "removed":
        return "explicit"
    # tf.contrib stays in the output, so it cannot be evidence (a second run must see the
    # same file as TF2)
    if path and path not in KNOWN_PATHS and path not in _TF2_NAMESPACES and tf2_target(path).kind in ("renamed", "compat", "absl"):
        return "tf1"
    return None


def refuses_tf2_keywords(imports: TfImports, dotted: str | None, keywords: set[str]) -> bool:
    """Is a call of ``dotted`` with these keywords TF1 by a keyword its TF2 namesake refuses
    (``tf.reduce_sum(x, keep_dims=True)``)?"""
    path = imports.canonical_dotted(dotted)
    if path not in DIFFERENT_IN_TF2 or imports.is_explicit_v1_dotted(dotted or ""):
        return False
    tf2_params = DIFFERENT_IN_TF2[path][1]
    return tf2_params is not None and not keywords <= set(tf2_params)


# TF1's namespaces read as values (``backend=tf``, ``L = tf.losses``): see tf_names.
TF1_MODULES = _tf1_modules()
