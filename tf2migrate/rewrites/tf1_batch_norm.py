"""The Keras layer a batch normalization with a fed flag becomes: TF 1.x's layer, to the last digit.

``tf.layers.batch_normalization`` chose its kernel when the graph was built, by the input's
rank: on 4-D input (axis -1, float32) TF1 ran the fused kernel ``FusedBatchNormV3``, whose
training-mode variance is the unbiased one (n/(n-1) times the batch's), and its update ops
moved the moving statistics by ``moving -= (moving - batch) * (1 - momentum)`` with that
variance (``1 - momentum`` a float32 subtraction: the momentum came out of the graph's
``smart_cond`` on the flag).  On input of any other known rank (2-D, a dense layer's; 3-D, a
1-D convolution's; 5-D, a 3-D convolution's, whatever its axis) it ran its non-fused ops
(``self.fused = ndims == 4 and ...``): ``tf.nn.moments`` over every axis but the normalized
one (the biased variance), ``tf.nn.batch_normalization``, and ``assign_moving_average``'s
``moving -= (moving - batch) * decay``, ``decay`` Python's ``1.0 - momentum`` made a float32
constant and cast to the variable's type (keras/layers/normalization.py of TF 1.x; tf-keras'
V1 layer, the verification's TF1 side, is the same).  A Keras 3 BatchNormalization has no
fused kernel, and moves its statistics by ``moving * momentum + batch * (1 - momentum)``
(other last digits), toward the biased variance on 4-D input too.

``BatchNormalizationFromTF1`` (a class written once per file, file_helpers.emit_once) is a
Keras BatchNormalization -- same weights, same order, same constructor -- whose call runs
TF1's kernel and TF1's update on 4-D float32 input and TF1's non-fused ops on float32 or
float64 input of another known rank (measured: training and inference outputs, gradients,
gamma, beta, moving mean and variance after training steps, equal to the last digit against
TF1's layer).  tf-keras' V1 layer, TF2's ``tf.compat.v1.layers``, fuses 5-D input too; TF
1.x's choice is the one kept here, and the verification's TF1 side builds it
(verify/tf1_fused_batch_norm.py).  On any other input (4-D of a dtype or layout the analysis
keeps on TF1, a rank unknown at the trace, a renormalization) it raises at the trace instead
of computing something TF1 did not.

Which layers get it: every batch normalization with a flag rewrites/update_ops.py proved
(``training=`` a fed flag, converted under ``tf.cond``), in the module or in a layer helper.
A literal ``training=True`` / ``False`` stays Keras' own layer (rewrites/keras_layers.py).
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.model import GraphFacts
from tf2migrate.plan import Plan
from tf2migrate.rewrites import file_helpers

HELPER_NAME = "BatchNormalizationFromTF1"
HELPER = '''class BatchNormalizationFromTF1(tf.keras.layers.BatchNormalization):
    """tf.layers.batch_normalization as TF 1.x ran it: its fused kernel on 4-D float32 input, its non-fused ops
    on input of any other rank, and its update of the moving statistics (not Keras' formula)."""

    def call(self, inputs, training=None):
        rank = inputs.shape.rank
        if rank is not None and rank != 4 and inputs.dtype in (tf.float32, tf.float64) and not self.renorm:
            return self._non_fused(inputs, training)
        if rank != 4 or inputs.dtype != tf.float32 or self.axis not in (-1, 3) or self.renorm:
            raise ValueError(f"TF1's batch normalization of {rank}-D {inputs.dtype.name} input is not converted")
        scale = tf.ones_like(self.moving_mean) if self.gamma is None else self.gamma
        offset = tf.zeros_like(self.moving_mean) if self.beta is None else self.beta
        if not training:
            return tf.raw_ops.FusedBatchNormV3(
                x=inputs, scale=scale, offset=offset, mean=self.moving_mean, variance=self.moving_variance,
                epsilon=self.epsilon, data_format="NHWC", is_training=False,
            )[0]
        empty = tf.constant([], tf.float32)
        outputs, mean, variance = tf.raw_ops.FusedBatchNormV3(
            x=inputs, scale=scale, offset=offset, mean=empty, variance=empty,
            epsilon=self.epsilon, data_format="NHWC", is_training=True,
        )[:3]
        decay = tf.constant(1.0) - tf.constant(self.momentum)  # float32, as TF1's update ops computed it
        self.moving_mean.assign_sub((self.moving_mean - mean) * decay)
        self.moving_variance.assign_sub((self.moving_variance - variance) * decay)
        return outputs

    def _non_fused(self, inputs, training):
        rank = inputs.shape.rank
        axis = self.axis % rank
        if training:  # the batch's moments (the biased variance); the trainable flag does not matter, as in TF1
            mean, variance = tf.nn.moments(inputs, [i for i in range(rank) if i != axis])
            # TF1's assign_moving_average: 1 - momentum in Python, a float32 constant cast to the variable's type
            decay = tf.cast(tf.constant(1.0 - self.momentum, tf.float32), self.moving_mean.dtype)
            self.moving_mean.assign_sub((self.moving_mean - mean) * decay)
            self.moving_variance.assign_sub((self.moving_variance - variance) * decay)
        else:
            mean, variance = self.moving_mean, self.moving_variance

        def along_axis(v):  # TF1 reshaped the per-channel vectors for an axis not the last
            return v if v is None or axis == rank - 1 else tf.reshape(v, [-1 if i == axis else 1 for i in range(rank)])

        return tf.nn.batch_normalization(
            inputs, along_axis(mean), along_axis(variance), along_axis(self.beta), along_axis(self.gamma), self.epsilon
        )
'''


def layer_class(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str]) -> str:
    """The name of the class in this file (written after the imports on first use)."""
    return file_helpers.emit_once(module, facts, plan, names_in_use, HELPER_NAME, HELPER)
