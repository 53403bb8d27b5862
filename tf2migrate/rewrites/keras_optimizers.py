"""Each converted TF1 optimizer and the Keras optimizer that takes the same steps.

TF1's defaults that Keras does not share are written out (Adam's epsilon is 1e-8 in TF1,
1e-7 in Keras), its keywords renamed, and where Keras' update differs (RMSprop's
accumulator starts at 1 in TF1; sparse gradients update only the rows looked up) a file
helper subclassing the Keras class restores TF1's.
The analysis accepts exactly these optimizers (``catalogue.OPTIMIZERS``).
"""

from __future__ import annotations

from typing import NamedTuple

from tf2migrate.analysis.catalogue import OPTIMIZERS


class KerasOptimizer(NamedTuple):
    keras_class: str  # under tf.keras.optimizers, or a file helper subclassing one
    parameters: tuple[str, ...]  # TF1's, in positional order
    renames: dict[str, str]  # TF1 keyword → Keras keyword
    defaults: dict[str, str]  # TF1 defaults Keras does not share, written out
    helper: str | None = None  # code of the file helper defining ``keras_class``


# TF1 arguments that change nothing about the steps taken
DROPPED_ARGUMENTS = frozenset({"use_locking", "accum_name", "linear_name"})

RMSPROP_HELPER_NAME = "RMSpropFromOnes"
RMSPROP_HELPER = '''class RMSpropFromOnes(tf.keras.optimizers.RMSprop):
    """RMSprop as TF1's RMSPropOptimizer ran it: the mean-square accumulator starts at 1
    (Keras starts it at 0, which makes the first steps far larger)."""

    def build(self, var_list):
        super().build(var_list)
        with tf.init_scope():  # once, also when the first step runs inside a tf.function
            for velocity in self._velocities:
                velocity.assign(tf.ones(velocity.shape, velocity.dtype))
'''

KERAS_OPTIMIZERS = {
    "train.GradientDescentOptimizer": KerasOptimizer("SGD", ("learning_rate", "use_locking", "name"), {}, {}),
    "train.AdamOptimizer": KerasOptimizer(
        "Adam",
        ("learning_rate", "beta1", "beta2", "epsilon", "use_locking", "name"),
        {"beta1": "beta_1", "beta2": "beta_2"},
        {"epsilon": "1e-08"},
    ),
    "train.MomentumOptimizer": KerasOptimizer(
        "SGD",
        ("learning_rate", "momentum", "use_locking", "name", "use_nesterov"),
        {"use_nesterov": "nesterov"},
        {},
    ),
    # TF1: ms starts at 1, epsilon (1e-10) inside the square root, as Keras' RMSprop has it
    "train.RMSPropOptimizer": KerasOptimizer(
        RMSPROP_HELPER_NAME,
        ("learning_rate", "decay", "momentum", "epsilon", "use_locking", "centered", "name"),
        {"decay": "rho"},
        {"epsilon": "1e-10"},
        RMSPROP_HELPER,
    ),
    # TF1 divides by sqrt(accumulator) with no epsilon
    "train.AdagradOptimizer": KerasOptimizer(
        "Adagrad", ("learning_rate", "initial_accumulator_value", "use_locking", "name"), {}, {"epsilon": "0.0"}
    ),
    "train.AdadeltaOptimizer": KerasOptimizer(
        "Adadelta", ("learning_rate", "rho", "epsilon", "use_locking", "name"), {}, {"epsilon": "1e-08"}
    ),
    "train.FtrlOptimizer": KerasOptimizer(
        "Ftrl",
        (
            "learning_rate",
            "learning_rate_power",
            "initial_accumulator_value",
            "l1_regularization_strength",
            "l2_regularization_strength",
            "use_locking",
            "name",
            "accum_name",
            "linear_name",
            "l2_shrinkage_regularization_strength",
            "beta",
        ),
        {},
        {},
    ),
}
assert KERAS_OPTIMIZERS.keys() == OPTIMIZERS, "the analysis must accept exactly the optimizers converted here"


# How TF1's optimizers apply a sparse gradient (IndexedSlices, the rows a gather looked up,
# duplicates included), against Keras (TensorFlow's training_ops and optimizer sources;
# each case executed in tests/fixtures/training/sparse_*):
# - GradientDescent subtracts every slice (duplicates add up): Keras' SGD does the same.
# - Adam and Adagrad sum the duplicates, then Adam updates every row (its moments decay
#   everywhere, as with a dense gradient that is zero outside the rows looked up) and
#   Adagrad the rows looked up (on the others the dense update is lr * 0 / sqrt(accum),
#   nothing, as TF1 requires accum > 0): Keras given the dense gradient computes the same.
# - Momentum, RMSProp, Adadelta and Ftrl sum the duplicates, then update only the rows
#   looked up: the other rows' accumulators neither decay nor move the variable (Ftrl
#   recomputes a row from its accumulators, so a dense update resets rows never looked
#   up).  Keras updates every row, sparse gradient or dense; ``tf1_sparse_updates`` runs
#   Keras' update on the dense gradient and puts back the rows not looked up (the rows
#   looked up are updated by the same formula as TF1's, row by row).
SPARSE_AS_DENSE = frozenset({"train.AdamOptimizer", "train.AdagradOptimizer"})
SPARSE_ROWS = frozenset({"train.MomentumOptimizer", "train.RMSPropOptimizer", "train.AdadeltaOptimizer", "train.FtrlOptimizer"})
SPARSE_UPDATES_HELPER_NAME = "tf1_sparse_updates"
SPARSE_UPDATES_HELPER = '''def tf1_sparse_updates(keras_optimizer):
    """``keras_optimizer`` applying a sparse gradient (tf.IndexedSlices: the rows a gather
    looked up) as TF1's optimizers did: duplicate rows summed, only the rows looked up
    updated, the other rows of the variable and of its slots left as they were.  (Each such
    step copies the variable and its slots: slower than TF1 for large tables.)"""

    class SparseUpdates(keras_optimizer):
        def add_variable_from_reference(self, reference_variable, name=None, initializer="zeros"):
            slot = super().add_variable_from_reference(reference_variable, name=name, initializer=initializer)
            # kept out of Keras' attribute tracking: a plain record of each variable's slots
            self.__dict__.setdefault("slots_of", {}).setdefault(id(reference_variable), []).append(slot)
            return slot

        def update_step(self, gradient, variable, learning_rate):
            if not isinstance(gradient, tf.IndexedSlices):
                return super().update_step(gradient, variable, learning_rate)
            rows = tf.expand_dims(tf.unique(gradient.indices)[0], 1)
            state = [variable, *self.__dict__.get("slots_of", {}).get(id(variable), [])]
            before = [tf.identity(value) for value in state]
            super().update_step(tf.convert_to_tensor(gradient), variable, learning_rate)
            for value, old in zip(state, before):
                value.assign(tf.tensor_scatter_nd_update(old, rows, tf.gather_nd(value, rows)))

    return SparseUpdates
'''
