"""Each converted TF1 optimizer and the Keras optimizer that takes the same steps.

TF1's defaults that Keras does not share are written out (Adam's epsilon is 1e-8 in TF1,
1e-7 in Keras), its keywords renamed, and where Keras' update differs from TF1's, to the
last digit, a file helper subclassing the Keras class runs TF1's update (below).
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

# Each helper below runs, for its Keras class, the update kernels TF1's optimizer ran
# (tf.raw_ops.ResourceApply*, and for a sparse gradient ResourceSparseApply* on the rows
# looked up, duplicates summed first), with TF1's hyperparameters: float32 tensors cast to
# the variable's dtype.  Keras' own formulas are the same up to rounding, which the
# execution checks of real programs do not absorb (an Adam step amplifies the last digits
# of a near-zero gradient); GradientDescent alone is bit-identical in Keras (SGD).
# benchmarks/tf1_optimizer_steps.py compares every case with TF1's optimizers.


def _kernels(dense: str, sparse: str) -> str:
    """update_step's last lines: the ``dense`` kernel, or the ``sparse`` one for a sparse
    gradient (its duplicate rows summed first, as TF1's optimizers did)."""
    return f"""        if isinstance(gradient, tf.IndexedSlices):  # TF1's sparse kernel: duplicate rows summed first
            rows, positions = tf.unique(gradient.indices)
            values = tf.math.unsorted_segment_sum(gradient.values, positions, tf.size(rows))
            {sparse}(grad=values, indices=rows, **arguments)
        else:
            {dense}(grad=gradient, **arguments)
"""


NAMED_KERNELS = _kernels('getattr(tf.raw_ops, f"ResourceApply{kernel}")', 'getattr(tf.raw_ops, f"ResourceSparseApply{kernel}")')
AS_TF1 = """        def tf1(value):  # TF1's hyperparameters: float32 tensors, cast to the variable's dtype
            return tf.cast(tf.cast(value, tf.float32), variable.dtype)

"""

ADAM_HELPER_NAME = "AdamFromTF1"
ADAM_HELPER = f"""class AdamFromTF1(tf.keras.optimizers.Adam):
    \"\"\"Adam as TF1's AdamOptimizer ran it, to the last digit: TF1's kernel, its constants
    float32, beta1^t and beta2^t float32 products updated once a step (Keras takes pow of
    the step count and computes 1 - beta in float64).\"\"\"

    def build(self, var_list):
        super().build(var_list)
        # TF1's beta1^t and beta2^t, multiplied by the betas after each step (apply)
        self.beta_powers = self.add_variable((2,), initializer=tf.keras.initializers.Constant([self.beta_1, self.beta_2]), dtype="float32")

    def update_step(self, gradient, variable, learning_rate):
{AS_TF1}        i = self._get_variable_index(variable)
        m, v = self._momentums[i], self._velocities[i]
        beta1_power, beta2_power = tf1(self.beta_powers[0]), tf1(self.beta_powers[1])
        lr, beta1, beta2, epsilon = tf1(learning_rate), tf1(self.beta_1), tf1(self.beta_2), tf1(self.epsilon)
        if not isinstance(gradient, tf.IndexedSlices):
            tf.raw_ops.ResourceApplyAdam(
                var=variable.handle, m=m.handle, v=v.handle, beta1_power=beta1_power, beta2_power=beta2_power,
                lr=lr, beta1=beta1, beta2=beta2, epsilon=epsilon, grad=gradient,
            )
            return
        # TF1's sparse step: duplicate rows summed, the moments decay on every row
        rows, positions = tf.unique(gradient.indices)
        values = tf.math.unsorted_segment_sum(gradient.values, positions, tf.size(rows))
        m.assign(m * beta1)
        tf.raw_ops.ResourceScatterAdd(resource=m.handle, indices=rows, updates=values * (1 - beta1))
        v.assign(v * beta2)
        tf.raw_ops.ResourceScatterAdd(resource=v.handle, indices=rows, updates=values * values * (1 - beta2))
        variable.assign_sub(lr * tf.sqrt(1 - beta2_power) / (1 - beta1_power) * m / (tf.sqrt(v) + epsilon))

    def apply(self, grads, trainable_variables=None):
        super().apply(grads, trainable_variables)
        self.beta_powers.assign(self.beta_powers * [self.beta_1, self.beta_2])
"""

MOMENTUM_HELPER_NAME = "MomentumFromTF1"
MOMENTUM_HELPER = f"""class MomentumFromTF1(tf.keras.optimizers.SGD):
    \"\"\"SGD with momentum as TF1's MomentumOptimizer ran it, to the last digit: TF1's
    kernels (its velocity sums gradients, Keras' sums steps).\"\"\"

    def build(self, var_list):
        super().build(var_list)
        if not self.momentums:  # TF1 keeps a velocity also for momentum=0
            self.momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient, variable, learning_rate):
{AS_TF1}        arguments = dict(
            var=variable.handle, accum=self.momentums[self._get_variable_index(variable)].handle,
            lr=tf1(learning_rate), momentum=tf1(self.momentum), use_nesterov=self.nesterov,
        )
{_kernels("tf.raw_ops.ResourceApplyMomentum", "tf.raw_ops.ResourceSparseApplyMomentum")}"""

RMSPROP_HELPER_NAME = "RMSpropFromTF1"
RMSPROP_HELPER = f"""class RMSpropFromTF1(tf.keras.optimizers.RMSprop):
    \"\"\"RMSprop as TF1's RMSPropOptimizer ran it, to the last digit: the mean square starts
    at 1 (Keras starts it at 0, which makes the first steps far larger), TF1's kernels.\"\"\"

    def build(self, var_list):
        super().build(var_list)
        with tf.init_scope():  # once, also when the first step runs inside a tf.function
            for velocity in self._velocities:
                velocity.assign(tf.ones(velocity.shape, velocity.dtype))
        if not self._momentums:  # TF1 keeps a momentum also for momentum=0
            self._momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient, variable, learning_rate):
{AS_TF1}        i = self._get_variable_index(variable)
        arguments = dict(
            var=variable.handle, ms=self._velocities[i].handle, mom=self._momentums[i].handle,
            lr=tf1(learning_rate), rho=tf1(self.rho), momentum=tf1(self.momentum), epsilon=tf1(self.epsilon),
        )
        if self.centered:
            arguments["mg"] = self._average_gradients[i].handle
        kernel = "CenteredRMSProp" if self.centered else "RMSProp"
{NAMED_KERNELS}"""

# Adagrad's and Ftrl's accumulators start at TF1's initial value in the variable's dtype
ACCUMULATORS_AS_TF1 = """    def build(self, var_list):
        super().build(var_list)
        with tf.init_scope():  # TF1's initial value in the variable's dtype (Keras' passes through float32)
            for accumulator in self._accumulators:
                accumulator.assign(tf.fill(accumulator.shape, tf.constant(self.initial_accumulator_value, accumulator.dtype)))
"""

ADAGRAD_HELPER_NAME = "AdagradFromTF1"
ADAGRAD_HELPER = f"""class AdagradFromTF1(tf.keras.optimizers.Adagrad):
    \"\"\"Adagrad as TF1's AdagradOptimizer ran it, to the last digit: TF1's kernels.\"\"\"

{ACCUMULATORS_AS_TF1}
    def update_step(self, gradient, variable, learning_rate):
{AS_TF1}        arguments = dict(
            var=variable.handle, accum=self._accumulators[self._get_variable_index(variable)].handle, lr=tf1(learning_rate)
        )
{_kernels("tf.raw_ops.ResourceApplyAdagrad", "tf.raw_ops.ResourceSparseApplyAdagrad")}"""

ADADELTA_HELPER_NAME = "AdadeltaFromTF1"
ADADELTA_HELPER = f"""class AdadeltaFromTF1(tf.keras.optimizers.Adadelta):
    \"\"\"Adadelta as TF1's AdadeltaOptimizer ran it, to the last digit: TF1's kernels.\"\"\"

    def update_step(self, gradient, variable, learning_rate):
{AS_TF1}        i = self._get_variable_index(variable)
        arguments = dict(
            var=variable.handle, accum=self._accumulated_grads[i].handle, accum_update=self._accumulated_delta_vars[i].handle,
            lr=tf1(learning_rate), rho=tf1(self.rho), epsilon=tf1(self.epsilon),
        )
{_kernels("tf.raw_ops.ResourceApplyAdadelta", "tf.raw_ops.ResourceSparseApplyAdadelta")}"""

FTRL_HELPER_NAME = "FtrlFromTF1"
FTRL_HELPER = f"""class FtrlFromTF1(tf.keras.optimizers.Ftrl):
    \"\"\"Ftrl as TF1's FtrlOptimizer ran it, to the last digit: TF1's kernels.\"\"\"

{ACCUMULATORS_AS_TF1}
    def update_step(self, gradient, variable, learning_rate):
{AS_TF1}        i = self._get_variable_index(variable)
        # TF1 folds beta into the l2 strength, in float32
        l2 = self.l2_regularization_strength + self.beta / (2.0 * tf.maximum(tf.cast(learning_rate, tf.float32), 1e-36))
        arguments = dict(
            var=variable.handle, accum=self._accumulators[i].handle, linear=self._linears[i].handle, lr=tf1(learning_rate),
            l1=tf1(self.l1_regularization_strength), l2=tf1(l2), lr_power=tf1(self.learning_rate_power),
        )
        kernel = "Ftrl"
        if self.l2_shrinkage_regularization_strength > 0:
            kernel, arguments["l2_shrinkage"] = "FtrlV2", tf1(self.l2_shrinkage_regularization_strength)
{NAMED_KERNELS}"""

KERAS_OPTIMIZERS = {
    "train.GradientDescentOptimizer": KerasOptimizer("SGD", ("learning_rate", "use_locking", "name"), {}, {}),
    "train.AdamOptimizer": KerasOptimizer(
        ADAM_HELPER_NAME,
        ("learning_rate", "beta1", "beta2", "epsilon", "use_locking", "name"),
        {"beta1": "beta_1", "beta2": "beta_2"},
        {"epsilon": "1e-08"},
        ADAM_HELPER,
    ),
    "train.MomentumOptimizer": KerasOptimizer(
        MOMENTUM_HELPER_NAME,
        ("learning_rate", "momentum", "use_locking", "name", "use_nesterov"),
        {"use_nesterov": "nesterov"},
        {},
        MOMENTUM_HELPER,
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
        ADAGRAD_HELPER_NAME,
        ("learning_rate", "initial_accumulator_value", "use_locking", "name"),
        {},
        {"epsilon": "0.0"},
        ADAGRAD_HELPER,
    ),
    "train.AdadeltaOptimizer": KerasOptimizer(
        ADADELTA_HELPER_NAME, ("learning_rate", "rho", "epsilon", "use_locking", "name"), {}, {"epsilon": "1e-08"}, ADADELTA_HELPER
    ),
    "train.FtrlOptimizer": KerasOptimizer(
        FTRL_HELPER_NAME,
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
        FTRL_HELPER,
    ),
}
assert KERAS_OPTIMIZERS.keys() == OPTIMIZERS, "the analysis must accept exactly the optimizers converted here"
