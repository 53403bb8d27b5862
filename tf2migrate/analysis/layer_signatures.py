"""TF1's functional layers (``tf.layers.dense`` …): the Keras class each becomes and the
parameters each takes, in TF1's positional order, so that a call's arguments are read by
name (rewrites/keras_layers.py converts them in graph code, analysis/layer_helpers.py in
functions of the file called from it)."""

from collections.abc import Mapping

import libcst as cst
import libcst.matchers as m

# the parameters every layer with a kernel and a bias takes last, in TF1's positional order
_WEIGHTED = (
    "activation",
    "use_bias",
    "kernel_initializer",
    "bias_initializer",
    "kernel_regularizer",
    "bias_regularizer",
    "activity_regularizer",
    "kernel_constraint",
    "bias_constraint",
    "trainable",
    "name",
    "reuse",
)
_CONV = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", *_WEIGHTED)
_POOL = ("pool_size", "strides", "padding", "data_format", "name")
# TF1 path → (Keras class, TF1 parameters after ``inputs``, in positional order)
LAYER_CLASSES = {
    "layers.dense": ("Dense", ("units", *_WEIGHTED)),
    "layers.dropout": ("Dropout", ("rate", "noise_shape", "seed", "training", "name")),
    "layers.flatten": ("Flatten", ("name", "data_format")),
    "layers.batch_normalization": (
        "BatchNormalization",
        (
            "axis",
            "momentum",
            "epsilon",
            "center",
            "scale",
            "beta_initializer",
            "gamma_initializer",
            "moving_mean_initializer",
            "moving_variance_initializer",
            "beta_regularizer",
            "gamma_regularizer",
            "beta_constraint",
            "gamma_constraint",
            "training",
            "trainable",
            "name",
            "reuse",
            "renorm",
            "renorm_clipping",
            "renorm_momentum",
            "fused",
            "virtual_batch_size",
            "adjustment",
        ),
    ),
    "layers.conv1d": ("Conv1D", _CONV),
    "layers.conv2d": ("Conv2D", _CONV),
    "layers.conv3d": ("Conv3D", _CONV),
    "layers.conv2d_transpose": ("Conv2DTranspose", tuple(p for p in _CONV if p != "dilation_rate")),
    "layers.max_pooling1d": ("MaxPooling1D", _POOL),
    "layers.max_pooling2d": ("MaxPooling2D", _POOL),
    "layers.max_pooling3d": ("MaxPooling3D", _POOL),
    "layers.average_pooling1d": ("AveragePooling1D", _POOL),
    "layers.average_pooling2d": ("AveragePooling2D", _POOL),
    "layers.average_pooling3d": ("AveragePooling3D", _POOL),
}
CALL_TIME = frozenset({"training"})
# TF1 arguments with no Keras counterpart of the same meaning: such calls stay on TF1.
UNSUPPORTED = frozenset({"reuse", "renorm", "renorm_clipping", "renorm_momentum", "virtual_batch_size", "adjustment", "fused"})
# ``tf.contrib.layers.fully_connected`` is ``tf.layers.dense`` with contrib's names (its
# initializers too: see KERAS_NAMES); every other parameter of it (normalizer_fn,
# regularizers, collections, scope) is refused
_CONTRIB_DENSE_REFUSED = (
    "normalizer_fn",
    "normalizer_params",
    "weights_regularizer",
    "biases_regularizer",
    "reuse",
    "variables_collections",
    "outputs_collections",
    "trainable",
    "scope",
)
# its parameters after ``inputs``, in TF1's positional order
_CONTRIB_DENSE_PARAMETERS = (
    "num_outputs",
    "activation_fn",
    "normalizer_fn",
    "normalizer_params",
    "weights_initializer",
    "weights_regularizer",
    "biases_initializer",
    "biases_regularizer",
    "reuse",
    "variables_collections",
    "outputs_collections",
    "trainable",
    "scope",
)
# in graph code (rewrites/keras_layers.py) also ``fully_connected``
GRAPH_LAYER_CLASSES = {
    **LAYER_CLASSES,
    "contrib.layers.fully_connected": ("Dense", _CONTRIB_DENSE_PARAMETERS),
    "contrib.layers.flatten": ("Flatten", ("outputs_collections", "scope")),
}
# contrib parameters a Keras layer has no counterpart of (flatten's scope named its ops only,
# but is refused with the collections, as in layer helpers)
_CONTRIB_REFUSED = {
    "contrib.layers.fully_connected": _CONTRIB_DENSE_REFUSED,
    "contrib.layers.flatten": ("outputs_collections", "scope"),
}
# contrib parameters → Keras': fully_connected's num_outputs, activation_fn and initializers
# (contrib's default weights are Glorot uniform and its biases zeros, as Keras'; a weights
# initializer of None is tf.layers.dense's kernel_initializer=None; a biases initializer of
# None made no bias: rewrites/keras_layers.py writes use_bias=False)
KERAS_NAMES = {
    "num_outputs": "units",
    "activation_fn": "activation",
    "weights_initializer": "kernel_initializer",
    "biases_initializer": "bias_initializer",
}
# TF1 defaults that differ from Keras': fully_connected applies a ReLU unless told otherwise
TF1_DEFAULTS = {"contrib.layers.fully_connected": {"activation": "tf.nn.relu"}}


def frozen_weights_message(path: str, arguments: Mapping[str, cst.Arg]) -> str | None:
    """Why ``trainable=`` other than ``True`` keeps a call on TF1: TF1 left such a layer's
    variables out of the trainable collection, so ``minimize`` never updated them; the
    variables of a Keras layer made with ``trainable=False`` are still watched by a
    GradientTape, and a generated train step (``tape.watched_variables()``) would update them."""
    trainable = arguments.get("trainable")
    if trainable is None or m.matches(trainable.value, m.Name("True")):
        return None
    return (
        f"`trainable=` of tf.{path} is not converted: TF1's optimizers left the variables of a layer made with "
        "trainable=False alone, a GradientTape watches a Keras layer's variables whatever its `trainable`"
    )


def unsupported_arguments(path: str, given) -> list[str]:
    """The arguments of a call of ``path`` with no Keras counterpart of the same meaning."""
    return sorted((UNSUPPORTED | set(_CONTRIB_REFUSED.get(path, ()))) & set(given))


# in a layer helper (analysis/layer_helpers.py) also ``tf.contrib.layers.flatten``, which
# makes no variables but is gone from TF2: the Keras ``Flatten`` it becomes is one more layer
HELPER_LAYER_CLASSES = {**LAYER_CLASSES, "contrib.layers.flatten": ("Flatten", ("outputs_collections", "scope"))}
