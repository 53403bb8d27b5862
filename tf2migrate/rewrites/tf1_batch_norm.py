"""The Keras layer a batch normalization with a fed flag becomes when its input may have rank 4.

``tf.layers.batch_normalization`` chose its kernel when the graph was built, by the input's
rank: on 4-D input (axis -1, float32) TF1 ran the fused kernel ``FusedBatchNormV3``, whose
training-mode variance is the unbiased one (n/(n-1) times the batch's), and its update ops
moved the moving statistics by ``moving -= (moving - batch) * (1 - momentum)`` with that
variance (``1 - momentum`` a float32 subtraction: the momentum came out of the graph's
``smart_cond`` on the flag).  A Keras 3 BatchNormalization has no fused kernel: it stores
the biased variance (the moving variance drifts from TF1's by n/(n-1)) and computes the
outputs in another order (differing in the last digits).

``BatchNormalizationFromTF1`` (a class written once per file, file_helpers.emit_once) is a
Keras BatchNormalization -- same weights, same order, same constructor -- whose call on 4-D
float32 input runs TF1's kernel and TF1's update, to the last digit (measured: training and
inference outputs, gamma, beta, moving mean and variance after training steps).  TF 1.x fused
4-D input only: on input of any other known rank (2-D; 3-D, a 1-D convolution's output; 5-D,
a 3-D convolution's, whatever its axis) it took its non-fused path, which is Keras' layer (the
case rewrites/update_ops.py proves equal to TF1's on 2-D input; 3-D and 5-D executed equal:
fixtures layers/batch_norm_fed_flag_conv1d, batch_norm_fed_flag_conv3d).  tf-keras' V1 layer,
TF2's ``tf.compat.v1.layers``, fuses 5-D input too; TF 1.x's choice is the one kept here, and
the verification's TF1 side builds it (verify/tf1_fused_batch_norm.py).  On any other input
(4-D of a dtype or layout the analysis keeps on TF1, a rank unknown at the trace) it raises at
the trace instead of computing something TF1 did not.

Which layers get it: those rewrites/update_ops.py accepts without proving their input of
rank 2 (the proof is the file's: every proven-flag batch normalization of such a file gets
the class, which is Keras' layer on 2-D input).
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.model import GraphFacts
from tf2migrate.plan import Plan
from tf2migrate.rewrites import file_helpers

HELPER_NAME = "BatchNormalizationFromTF1"
HELPER = '''class BatchNormalizationFromTF1(tf.keras.layers.BatchNormalization):
    """tf.layers.batch_normalization as TF1 ran it: on 4-D float32 input its fused kernel, the
    moving variance moved toward the unbiased batch variance (Keras' toward the biased one)."""

    def call(self, inputs, training=None):
        if inputs.shape.rank is not None and inputs.shape.rank != 4:
            return super().call(inputs, training=training)  # TF 1.x's non-fused path: Keras' own
        if inputs.shape.rank != 4 or inputs.dtype != tf.float32 or self.axis not in (-1, 3):
            raise ValueError(f"TF1's batch normalization of {inputs.shape.rank}-D {inputs.dtype.name} input is not converted")
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
'''


def layer_class(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str]) -> str:
    """The name of the class in this file (written after the imports on first use)."""
    return file_helpers.emit_once(module, facts, plan, names_in_use, HELPER_NAME, HELPER)
