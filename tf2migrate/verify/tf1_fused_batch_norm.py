"""TF 1.x's batch normalization layers fused 4-D input only; the TF1 side's fuse 4-D only too.

TF 1.x's ``tf.layers.batch_normalization`` (and ``tf.keras.layers.BatchNormalization`` of its
graph mode: the "V1" layer) chose the fused kernel ``FusedBatchNormV3`` for input of rank 4
alone (``self.fused = ndims == 4 and self._fused_can_be_used()``), and normalized 5-D input
(a 3-D convolution's output) with its non-fused ops, whose moving variance moves toward the
biased batch variance.  tf-keras, which serves TF2's ``tf.compat.v1.layers`` under
``TF_USE_LEGACY_KERAS=1``, fuses 5-D input as well (NDHWC / NCDHW), moving it toward the
unbiased one, n/(n-1) times larger: a value TF 1.x never computed.  The migration writes TF
1.x's meaning (rewrites/tf1_batch_norm.py: Keras' layer on 5-D input), so the TF1 side
builds the V1 layer as TF 1.x did.  Installed by the verify worker's TF1 side only.
"""

from __future__ import annotations


def install(v1) -> None:
    """Make the V1 batch normalization layer take its non-fused path on input not of rank 4."""
    try:
        layer = v1.layers.BatchNormalization  # tf-keras' legacy layer, a subclass of the V1 one
    except (AttributeError, ImportError):  # no tf-keras: no TF1 layers to build
        return
    v1_layer = next((c for c in layer.__mro__ if vars(c).get("_USE_V2_BEHAVIOR") is False), None)
    if v1_layer is None or "build" in vars(v1_layer):  # not tf-keras' layout, or installed already
        return

    def build(self, input_shape):
        if v1.TensorShape(input_shape).rank != 4:
            self.fused = False  # TF 1.x: ``self.fused = ndims == 4 and ...``
        super(v1_layer, self).build(input_shape)

    v1_layer.build = build
