"""The pieces of ``tf.contrib`` the TF1 originals need: ``opt.ScipyOptimizerInterface``,
``layers.xavier_initializer``, ``layers.fully_connected``, ``layers.flatten``,
``seq2seq.sequence_loss``, ``rnn``, ``learn.ModeKeys``, ``framework.get_global_step`` and ``eager`` (``tfe``) (and ``tf.estimator.ModeKeys``,
gone with TF 2.16's tensorflow_estimator).

TensorFlow 2 no longer ships ``tf.contrib``, so the TF1 side of a verification could not
run the L-BFGS-B training of physics-informed-network code.  This re-creates TF1's
``ExternalOptimizerInterface`` behaviour in graph mode: the trainable variables packed
into one float64 vector, loss and gradients (and ``fetches``, for ``loss_callback``)
evaluated by the session for SciPy, the result assigned back.  Used by the verify
worker only (imported in the TF1 subprocess).
"""

from __future__ import annotations

import sys
import types
from typing import Any


def install(v1) -> None:
    """Give ``tf.compat.v1`` a ``contrib.opt.ScipyOptimizerInterface`` if it has none."""
    if not hasattr(v1, "estimator"):  # TF 2.16 dropped tensorflow_estimator
        v1.estimator = types.SimpleNamespace(ModeKeys=_MODE_KEYS)
    if hasattr(v1, "contrib"):
        return
    contrib = types.SimpleNamespace(
        opt=types.SimpleNamespace(ScipyOptimizerInterface=_interface(v1)),
        layers=types.SimpleNamespace(
            xavier_initializer=_xavier_initializer(v1), fully_connected=_fully_connected(v1), flatten=_flatten(v1)
        ),
        seq2seq=types.SimpleNamespace(sequence_loss=_sequence_loss(v1)),
        rnn=_Rnn(v1),
        learn=types.SimpleNamespace(ModeKeys=_LEARN_MODE_KEYS),
        # TF 1.15's contrib.framework.get_global_step was training_util's, tf.train's
        framework=types.SimpleNamespace(get_global_step=v1.train.get_global_step),
        eager=_eager(v1),
    )
    v1.contrib = contrib
    # ``from tensorflow.contrib import rnn`` imports the same pieces, and
    # ``import tensorflow.contrib.eager as tfe`` the eager ones
    module = types.ModuleType("tensorflow.contrib")
    module.__dict__.update(vars(contrib))
    module.__path__ = []  # a package: ``tensorflow.contrib.eager`` imports
    sys.modules.setdefault("tensorflow.contrib", module)
    eager = types.ModuleType("tensorflow.contrib.eager")
    eager.__dict__.update(vars(contrib.eager))
    sys.modules.setdefault("tensorflow.contrib.eager", eager)


# TF 1.15's ``tf.estimator.ModeKeys`` (saved_model's EstimatorModeKeys) and
# ``tf.contrib.learn.ModeKeys``: plain strings
_MODE_KEYS = types.SimpleNamespace(TRAIN="train", EVAL="eval", PREDICT="infer")
_LEARN_MODE_KEYS = types.SimpleNamespace(TRAIN="train", EVAL="eval", INFER="infer")


def _eager(v1) -> types.SimpleNamespace:
    """``tf.contrib.eager`` as TF 1.15's eager tutorials used it: its variables were TF's
    resource variables, its implicit gradients TF's own ``backprop`` functions (still in
    TF2's code), its ``Iterator(dataset)`` an eager iterator over the dataset."""
    from tensorflow.python.data.ops import iterator_ops
    from tensorflow.python.eager import backprop

    return types.SimpleNamespace(
        enable_eager_execution=v1.enable_eager_execution,
        executing_eagerly=v1.executing_eagerly,
        Variable=v1.Variable,
        implicit_gradients=backprop.implicit_grad,
        implicit_value_and_gradients=backprop.implicit_val_and_grad,
        gradients_function=backprop.gradients_function,
        value_and_gradients_function=backprop.val_and_grad_function,
        Iterator=iterator_ops.OwnedIterator,
        Network=_network(v1),
    )


def _network(v1):
    """``tfe.Network`` (TF 1.4–1.10, gone from 1.15): a container of layers whose ``__call__``
    ran the subclass's ``call``, each layer registered by ``track_layer`` (which returned it).
    Re-created on the Keras base layer TF1's Network already stood on."""

    layer: Any = v1.keras.layers.Layer  # a base class only known at run time

    class Network(layer):
        def __init__(self, name=None):
            super().__init__(name=name)
            self._tracked = []

        def track_layer(self, layer):
            self._tracked.append(layer)
            return layer

    return Network


class _Rnn:
    """``tf.contrib.rnn``: TF1's cells and RNN functions, which ``tf.compat.v1.nn.rnn_cell``
    and ``tf.compat.v1.nn`` still hold (with tf-keras)."""

    def __init__(self, tf) -> None:
        self._tf = tf

    def __getattr__(self, name: str):
        cells = self._tf.nn.rnn_cell
        return getattr(cells, name) if hasattr(cells, name) else getattr(self._tf.nn, name)


def _fully_connected(tf):
    """``tf.contrib.layers.fully_connected(inputs, num_outputs, activation_fn=relu, …,
    weights_initializer=xavier, …, biases_initializer=zeros)``: TF 1.15 built a core Dense
    layer (those initializers, no bias where ``biases_initializer`` is None) in a new
    ``fully_connected`` variable scope at each call (``fully_connected_1`` for the second);
    normalizers and regularizers are not re-created."""

    def fully_connected(
        inputs,
        num_outputs,
        activation_fn=tf.nn.relu,
        normalizer_fn=None,
        normalizer_params=None,
        weights_initializer=tf.glorot_uniform_initializer(),
        weights_regularizer=None,
        biases_initializer=tf.zeros_initializer(),
    ):
        if normalizer_fn is not None or weights_regularizer is not None:
            raise NotImplementedError("fully_connected(normalizer_fn=, weights_regularizer=) is not re-created for verification")
        with tf.variable_scope(None, default_name="fully_connected"):
            return tf.layers.dense(
                inputs,
                num_outputs,
                activation=activation_fn,
                use_bias=biases_initializer is not None,
                kernel_initializer=weights_initializer,
                bias_initializer=biases_initializer,
            )

    return fully_connected


def _xavier_initializer(tf):
    """TF1's ``variance_scaling_initializer(factor=1.0, mode='FAN_AVG', uniform=True)``:
    limit sqrt(3 / ((fan_in + fan_out) / 2)), which is Glorot uniform.  (``uniform=False``
    drew from TF1's own truncated normal, not re-created.)"""

    def xavier_initializer(uniform=True, seed=None, dtype=tf.float32):
        if not uniform:
            raise NotImplementedError("xavier_initializer(uniform=False) is not re-created for verification")
        return tf.glorot_uniform_initializer(seed=seed, dtype=dtype)

    return xavier_initializer


def _flatten(tf):
    """TF 1.15's ``tf.contrib.layers.flatten``: the core layers' flatten (the batch
    dimension kept, the others made one), under the scope name it opened."""

    def flatten(inputs, outputs_collections=None, scope=None):
        if outputs_collections is not None:
            raise NotImplementedError("flatten(outputs_collections=...) is not re-created for verification")
        with tf.name_scope(scope, "Flatten", [inputs]):
            return tf.layers.flatten(inputs)

    return flatten


def _sequence_loss(tf):
    """TF 1.15's ``tf.contrib.seq2seq.sequence_loss``, statement for statement on the
    ``tf.compat.v1`` ops it called (its checks of ranks and flags included)."""

    def sequence_loss(
        logits,
        targets,
        weights,
        average_across_timesteps=True,
        average_across_batch=True,
        sum_over_timesteps=False,
        sum_over_batch=False,
        softmax_loss_function=None,
        name=None,
    ):
        if len(logits.get_shape()) != 3 or len(targets.get_shape()) != 2 or len(weights.get_shape()) != 2:
            raise ValueError("logits must be 3-D, targets and weights 2-D")
        if (average_across_timesteps and sum_over_timesteps) or (average_across_batch and sum_over_batch):
            raise ValueError("an axis cannot be both averaged and summed")
        with tf.name_scope(name, "sequence_loss", [logits, targets, weights]):
            num_classes = tf.shape(logits)[2]
            logits_flat = tf.reshape(logits, [-1, num_classes])
            targets = tf.reshape(targets, [-1])
            if softmax_loss_function is None:
                crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits_flat)
            else:
                crossent = softmax_loss_function(labels=targets, logits=logits_flat)
            crossent *= tf.reshape(weights, [-1])
            if average_across_timesteps and average_across_batch:
                crossent = tf.div_no_nan(tf.reduce_sum(crossent), tf.reduce_sum(weights))
            elif sum_over_timesteps and sum_over_batch:
                total_count = tf.cast(tf.count_nonzero(weights), crossent.dtype)
                crossent = tf.div_no_nan(tf.reduce_sum(crossent), total_count)
            else:
                crossent = tf.reshape(crossent, tf.shape(logits)[0:2])
                if average_across_timesteps or average_across_batch:
                    reduce_axis = [0] if average_across_batch else [1]
                    crossent = tf.div_no_nan(tf.reduce_sum(crossent, axis=reduce_axis), tf.reduce_sum(weights, axis=reduce_axis))
                elif sum_over_timesteps or sum_over_batch:
                    reduce_axis = [0] if sum_over_batch else [1]
                    total_count = tf.cast(tf.count_nonzero(weights, axis=reduce_axis), dtype=crossent.dtype)
                    crossent = tf.div_no_nan(tf.reduce_sum(crossent, axis=reduce_axis), total_count)
            return crossent

    return sequence_loss


def _interface(tf):
    import numpy as np

    class ScipyOptimizerInterface:
        def __init__(self, loss, var_list=None, method="L-BFGS-B", options=None, **optimizer_kwargs):
            self._loss = loss
            self._vars = list(var_list) if var_list is not None else tf.trainable_variables()
            # TF1's interface used zeros for variables the loss does not reach
            self._gradients = [g if g is not None else tf.zeros_like(v) for g, v in zip(tf.gradients(loss, self._vars), self._vars)]
            self._method, self._options, self._kwargs = method, options, optimizer_kwargs
            self._placeholders = [tf.placeholder(v.dtype.base_dtype, v.shape) for v in self._vars]
            self._assigns = [v.assign(p) for v, p in zip(self._vars, self._placeholders)]

        def _assign(self, session, flat):
            values, offset = [], 0
            for variable in self._vars:
                shape = variable.shape.as_list()
                size = int(np.prod(shape))
                values.append(np.reshape(flat[offset : offset + size], shape))
                offset += size
            session.run(self._assigns, dict(zip(self._placeholders, values)))

        def minimize(self, session=None, feed_dict=None, fetches=None, step_callback=None, loss_callback=None, **run_kwargs):
            import scipy.optimize

            session = session or tf.get_default_session()
            feed_dict, fetches = feed_dict or {}, list(fetches or [])
            count = len(self._gradients)

            def value_and_gradient(flat):
                self._assign(session, flat)
                out = session.run([self._loss, *self._gradients, *fetches], feed_dict, **run_kwargs)
                if loss_callback is not None:
                    loss_callback(*out[1 + count :])
                flat_gradient = np.concatenate([np.reshape(g, [-1]) for g in out[1 : 1 + count]])
                return np.float64(out[0]), flat_gradient.astype(np.float64)

            start = np.concatenate([np.reshape(v, [-1]) for v in session.run(self._vars)]).astype(np.float64)
            result = scipy.optimize.minimize(
                value_and_gradient,
                start,
                jac=True,
                method=self._method,
                options=self._options,
                callback=step_callback,
                **self._kwargs,
            )
            self._assign(session, result.x)

    return ScipyOptimizerInterface
