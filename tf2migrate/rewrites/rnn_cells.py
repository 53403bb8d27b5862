"""TF1 RNN cells and ``tf.nn.dynamic_rnn`` / ``bidirectional_dynamic_rnn`` / ``static_rnn`` /
``static_bidirectional_rnn`` → the same cells and runs written out in TF2 ops.

``cell = tf.nn.rnn_cell.BasicLSTMCell(5)`` (or ``tf.contrib.rnn``'s) becomes
``cell = TF1BasicLSTMCell(5)``, and ``tf.nn.dynamic_rnn(cell, x, …)`` becomes
``tf1_dynamic_rnn(cell, x, …)``: small classes and a function emitted once per file
(rewrites/file_helpers.py).  Why not Keras' cells (analysis/rnn.py): their weight layout,
gate order, forget bias and initializers are not TF1's, so the migration could not start
from the variables TF1 made, nor be shown equal.  These keep TF1's: one kernel over the
concatenated input and state, in TF1's shape, drawn by TF1's initializer (Glorot uniform,
the variable scope's default; the bias zeros), made at the cell's first call, when the
input depth is known — once, also when a ``tf.function`` traces that call, as Keras layers
are built; and TF1's step, op for op.  ``tf1_dynamic_rnn`` loops over time as TF1's did,
a ``tf.while_loop`` reading the steps from a ``TensorArray`` and writing the outputs to
one: the same values and the same gradients, bit for bit (a Python loop unrolled over the
steps gives the same values, but sums the gradients of the steps in another order, which
an Adam step then magnifies past 1e-5).  An LSTM state is a ``(c, h)`` tuple that also
reads ``.c`` and ``.h``, as TF1's ``LSTMStateTuple`` (a run fetching it gets one back:
``tf.nest`` keeps its type); a stacked cell's is the tuple of its cells' states.  A
``DropoutWrapper`` becomes ``TF1DropoutWrapper``: the wrapped cell's step, converted when
it keeps all (analysis/rnn.py), as TF1 then added no dropout op, or when a keep probability is
fed: TF1's wrapper read the placeholder at each run, but the one written out is made once, where
no fed value exists, so it reads ``keep_prob_fed = tf.Variable(...)`` made beside it, which every
generated function taking ``keep_prob`` sets first (rewrites/function_emission.py); its dropout
is TF1's op, ``tf.nn.dropout(v, rate=1 - keep_prob)`` on the input and the output of each step.  With
``sequence_length``, each step is TF1's ``_rnn_step`` as ``dynamic_rnn`` ran it (no
``tf.cond``: the cell is stepped, then every row past its length gets zeros as output and its
state as it was, a row select); the loop stops after the longest row (one step at least), and
the later outputs are zeros, as TF1's unwritten ``TensorArray`` entries were (padded here, not
left to the ``TensorArray``).  ``tf1_bidirectional_dynamic_rnn`` runs the forward cell, then the
backward cell over the inputs reversed in time (``tf.reverse_sequence`` within each length) and
reverses its outputs back, as TF1 did.

``tf1_static_rnn`` unrolls over the list of steps in Python, as TF1's ``static_rnn`` did;
with ``sequence_length`` each step is TF1's ``_rnn_step`` (two ``tf.cond``: every row past
its length → zeros and the state as it was, every row within → the cell's; else a row
select, TF1's v1 ``where`` of a ``[batch]`` condition written as ``tf.where`` of a ``[batch,
1]`` one).  ``tf1_static_bidirectional_rnn`` runs the forward cell, then the backward cell
over the reversed steps (``tf.reverse_sequence`` within each length), as TF1 did: the
forward cell makes its variables first.  A run in a function of the file is converted at
its calls (analysis/statements.py ``_helper_runs``) and rewritten here like any other.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import rnn
from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.names import fresh_name
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan
from tf2migrate.rewrites import file_helpers

RNN_CELLS = Rule(
    "TFM413",
    "rnn-cells-written-out",
    "TF1 RNN cells and tf.nn.dynamic_rnn → the same cells and time loop in TF2 ops.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces `tf.nn.rnn_cell.BasicLSTMCell` / `BasicRNNCell` / `LSTMCell` / `GRUCell` / `MultiRNNCell` / "
    "`DropoutWrapper` keeping all or reading a fed keep probability (also "
    "`tf.contrib.rnn`'s) by `TF1BasicLSTMCell` … and `tf.nn.dynamic_rnn` / `bidirectional_dynamic_rnn` / `static_rnn` / "
    "`static_bidirectional_rnn` by `tf1_dynamic_rnn` / `tf1_bidirectional_dynamic_rnn` / `tf1_static_rnn` / "
    "`tf1_static_bidirectional_rnn` (also in functions of the file the cells "
    "are passed to), emitted once per file: TF1's variables (shapes, initializers) and TF1's step in TF2 ops.",
    why="TF2 has no `tf.nn.rnn_cell` or `dynamic_rnn`, and Keras' cells keep other weights (a "
    "separate recurrent kernel, gates in another order, no run-time forget bias): a migration to "
    "them would not compute what the TF1 program computed from its variables.",
    example="cell = tf.nn.rnn_cell.BasicLSTMCell(5)\noutputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)",
    instead="cell = TF1BasicLSTMCell(5)\n...\noutputs, state = tf1_dynamic_rnn(cell, x, dtype=tf.float32)",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 3, 2])\n"
        "cell = tf.nn.rnn_cell.BasicRNNCell(4)\n"
        "outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(outputs, {x: [[[1.0, 2.0]] * 3]}))\n",
    ),
    valid=("import tensorflow as tf\ncell = tf.keras.layers.SimpleRNNCell(4)\n",),
)
RULES = [RNN_CELLS]

_BASE_NAME = "TF1RNNCell"
_BASE = '''class TF1RNNCell(tf.Module):
    """A TF1 RNN cell (tf.nn.rnn_cell) in TF2 ops: its variables, in TF1's shapes and drawn
    by TF1's initializers, are made at the first call (when the input depth is known), once,
    also when a tf.function traces that call; its state is a tuple where TF1's was."""

    def __init__(self, num_units, activation=None):
        super().__init__()
        self.num_units = num_units
        self.activation = activation or tf.math.tanh
        self.built = False

    @property
    def output_size(self):
        return self.num_units

    def zero_state(self, batch_size, dtype):
        return tf.nest.map_structure(lambda size: tf.zeros([batch_size, size], dtype), self.state_size)

    def __call__(self, inputs, state):
        if not self.built:
            with tf.init_scope():
                self.build(inputs.shape[-1], inputs.dtype)
            self.built = True
        return self.step(inputs, state)

    def variable(self, name, shape, dtype, initializer=tf.keras.initializers.GlorotUniform()):
        return tf.Variable(initializer(shape, dtype), name=name)
'''
_CELLS = {
    "TF1BasicLSTMCell": '''class TF1BasicLSTMCell(TF1RNNCell):
    """TF1's BasicLSTMCell: one kernel [input depth + units, 4 * units] with the gates in
    the order i, j, f, o, a zero bias, forget_bias added at each step; the state is (c, h)."""

    class LSTMStateTuple(tuple):
        """TF1's LSTMStateTuple: the pair (c, h), also read by name (tf.nest keeps it)."""

        _fields = ("c", "h")

        def __new__(cls, c, h):
            return super().__new__(cls, (c, h))

        c = property(lambda self: self[0])
        h = property(lambda self: self[1])

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None):
        super().__init__(num_units, activation)
        self.forget_bias = forget_bias

    @property
    def state_size(self):
        return self.LSTMStateTuple(self.num_units, self.num_units)

    def build(self, depth, dtype):
        self.kernel = self.variable("basic_lstm_cell/kernel", [depth + self.num_units, 4 * self.num_units], dtype)
        self.bias = self.variable("basic_lstm_cell/bias", [4 * self.num_units], dtype, tf.keras.initializers.Zeros())

    def step(self, inputs, state):
        c, h = state
        gates = tf.nn.bias_add(tf.matmul(tf.concat([inputs, h], 1), self.kernel), self.bias)
        i, j, f, o = tf.split(gates, 4, axis=1)
        new_c = c * tf.sigmoid(f + tf.constant(self.forget_bias, f.dtype)) + tf.sigmoid(i) * self.activation(j)
        new_h = self.activation(new_c) * tf.sigmoid(o)
        return new_h, self.LSTMStateTuple(new_c, new_h)
''',
    "TF1LSTMCell": '''class TF1LSTMCell(TF1BasicLSTMCell):
    """TF1's LSTMCell without peepholes, projection, clipping or sharding (those stay on
    TF1): BasicLSTMCell's variables under LSTMCell's names, and its step (the same ops);
    TF1's parameters in TF1's order."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None, proj_clip=None,
                 num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True, activation=None):
        super().__init__(num_units, forget_bias, state_is_tuple, activation)

    def build(self, depth, dtype):
        self.kernel = self.variable("lstm_cell/kernel", [depth + self.num_units, 4 * self.num_units], dtype)
        self.bias = self.variable("lstm_cell/bias", [4 * self.num_units], dtype, tf.keras.initializers.Zeros())
''',
    "TF1GRUCell": '''class TF1GRUCell(TF1RNNCell):
    """TF1's GRUCell: a gates kernel [input depth + units, 2 * units] (reset r, update u)
    with a bias of ones, a candidate kernel [input depth + units, units] with a zero bias;
    the output is the new state."""

    @property
    def state_size(self):
        return self.num_units

    def build(self, depth, dtype):
        self.gate_kernel = self.variable("gru_cell/gates/kernel", [depth + self.num_units, 2 * self.num_units], dtype)
        self.gate_bias = self.variable("gru_cell/gates/bias", [2 * self.num_units], dtype, tf.keras.initializers.Ones())
        self.candidate_kernel = self.variable("gru_cell/candidate/kernel", [depth + self.num_units, self.num_units], dtype)
        self.candidate_bias = self.variable("gru_cell/candidate/bias", [self.num_units], dtype, tf.keras.initializers.Zeros())

    def step(self, inputs, state):
        gates = tf.nn.bias_add(tf.matmul(tf.concat([inputs, state], 1), self.gate_kernel), self.gate_bias)
        r, u = tf.split(tf.sigmoid(gates), 2, axis=1)
        candidate = tf.nn.bias_add(tf.matmul(tf.concat([inputs, r * state], 1), self.candidate_kernel), self.candidate_bias)
        c = self.activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h
''',
    "TF1BasicRNNCell": '''class TF1BasicRNNCell(TF1RNNCell):
    """TF1's BasicRNNCell: a kernel [input depth + units, units] and a zero bias; the
    output is the new state."""

    @property
    def state_size(self):
        return self.num_units

    def build(self, depth, dtype):
        self.kernel = self.variable("basic_rnn_cell/kernel", [depth + self.num_units, self.num_units], dtype)
        self.bias = self.variable("basic_rnn_cell/bias", [self.num_units], dtype, tf.keras.initializers.Zeros())

    def step(self, inputs, state):
        output = self.activation(tf.nn.bias_add(tf.matmul(tf.concat([inputs, state], 1), self.kernel), self.bias))
        return output, output
''',
}
# the written-out cell each cell class derives from, where it is not TF1RNNCell
_PARENTS = {"TF1LSTMCell": "TF1BasicLSTMCell"}
_MULTI = '''class TF1MultiRNNCell(tf.Module):
    """TF1's MultiRNNCell: the cells stacked, each one's output the next one's input; the
    state is the tuple of their states."""

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        self.cells = list(cells)

    @property
    def state_size(self):
        return tuple(cell.state_size for cell in self.cells)

    @property
    def output_size(self):
        return self.cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        return tuple(cell.zero_state(batch_size, dtype) for cell in self.cells)

    def __call__(self, inputs, state):
        new_states = []
        for cell, cell_state in zip(self.cells, state):
            inputs, new_state = cell(inputs, cell_state)
            new_states.append(new_state)
        return inputs, tuple(new_states)
'''
_DROPOUT = '''class TF1DropoutWrapper(tf.Module):
    """TF1's DropoutWrapper: the wrapped cell's step, its input and output dropped out with
    TF1's tf.nn.dropout where their keep probability is not the constant 1 (for which TF1
    added no dropout op); the variables are the wrapped cell's."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0):
        super().__init__()
        self.cell = cell
        self.input_keep_prob, self.output_keep_prob = input_keep_prob, output_keep_prob

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    def zero_state(self, batch_size, dtype):
        return self.cell.zero_state(batch_size, dtype)

    def __call__(self, inputs, state):
        output, new_state = self.cell(self.dropout(inputs, self.input_keep_prob), state)
        return self.dropout(output, self.output_keep_prob), new_state

    @staticmethod
    def dropout(value, keep_prob):
        if isinstance(keep_prob, (int, float)) and keep_prob >= 1:
            return value
        return tf.nn.dropout(value, rate=1.0 - keep_prob)
'''
# the classes written out for cells of cells (analysis/rnn.CELLS_OF_CELLS), by name
_CELLS_OF_CELLS = {"TF1MultiRNNCell": _MULTI, "TF1DropoutWrapper": _DROPOUT}
_DYNAMIC_RNN_NAME = "tf1_dynamic_rnn"
_DYNAMIC_RNN = '''def tf1_dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                    swap_memory=False, time_major=False):
    """TF1's tf.nn.dynamic_rnn, as TF1 looped: the cell applied at each time step of ``inputs``
    in a tf.while_loop, from ``initial_state`` (else the cell's zero state); the outputs
    stacked over time, and the last state.  With ``sequence_length``, as TF1's _rnn_step:
    past a row's length its output is zeros and its state is copied through; the loop stops
    after the longest row (one step at least), the later outputs are zeros."""
    if not time_major:  # batch-major: [batch, time, ...] → [time, batch, ...] and back
        inputs = tf.transpose(inputs, [1, 0, *range(2, inputs.shape.rank)])
    time_steps, batch_size = tf.shape(inputs)[0], tf.shape(inputs)[1]
    state = initial_state if initial_state is not None else cell.zero_state(batch_size, dtype)
    steps = tf.TensorArray(inputs.dtype, size=time_steps).unstack(inputs)
    loop_steps = time_steps
    if sequence_length is not None:
        sequence_length = tf.cast(sequence_length, tf.int32)
        if sequence_length.shape.rank not in (None, 1):
            raise ValueError(f"sequence_length must be a vector of length batch_size, but saw shape: {sequence_length.shape}")
        loop_steps = tf.minimum(time_steps, tf.maximum(1, tf.reduce_max(sequence_length)))
        zero_output = tf.zeros([batch_size, cell.output_size], dtype or tf.nest.flatten(state)[0].dtype)

    def step(time, outputs, state):
        output, new_state = cell(steps.read(time), state)
        if sequence_length is not None:  # rows past their length: zeros, and the state as it was
            copy = tf.reshape(time >= sequence_length, [batch_size, 1])
            output = tf.where(copy, zero_output, output)
            new = [n if n.shape.rank == 0 else tf.where(copy, old, n) for old, n in zip(tf.nest.flatten(state), tf.nest.flatten(new_state))]
            new_state = tf.nest.pack_sequence_as(state, new)
        return time + 1, outputs.write(time, output), new_state

    loop = (0, tf.TensorArray(inputs.dtype, size=loop_steps), state)
    _, outputs, state = tf.while_loop(
        lambda time, *_: time < loop_steps, step, loop, parallel_iterations=parallel_iterations or 32, swap_memory=swap_memory
    )
    outputs = outputs.stack()
    if sequence_length is not None:  # the steps after the longest row: zeros
        outputs = tf.pad(outputs, [[0, time_steps - loop_steps]] + [[0, 0]] * (outputs.shape.rank - 1))
    outputs.set_shape(inputs.shape[:2].concatenate(outputs.shape[2:]))  # TF1's static time and batch sizes
    return (outputs if time_major else tf.transpose(outputs, [1, 0, *range(2, outputs.shape.rank)])), state
'''
_BIDIRECTIONAL_DYNAMIC_RNN = '''def tf1_bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                                  initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory=False,
                                  time_major=False):
    """TF1's tf.nn.bidirectional_dynamic_rnn: the forward cell over ``inputs``, then the
    backward cell over them reversed in time (each row within its length when
    ``sequence_length`` is given) and its outputs reversed back; the outputs (forward,
    backward) and the last states (forward, backward)."""
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)

    def reverse(tensor):
        if sequence_length is None:
            return tf.reverse(tensor, axis=[time_axis])
        return tf.reverse_sequence(tensor, sequence_length, seq_axis=time_axis, batch_axis=batch_axis)

    output_fw, state_fw = tf1_dynamic_rnn(
        cell_fw, inputs, sequence_length, initial_state_fw, dtype, parallel_iterations, swap_memory, time_major
    )
    output_bw, state_bw = tf1_dynamic_rnn(
        cell_bw, reverse(inputs), sequence_length, initial_state_bw, dtype, parallel_iterations, swap_memory, time_major
    )
    return (output_fw, reverse(output_bw)), (state_fw, state_bw)
'''
_STATIC_RNN_NAME = "tf1_static_rnn"
_STATIC_RNN = '''def tf1_static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None):
    """TF1's tf.nn.static_rnn: the cell applied to each tensor of the list ``inputs`` in turn,
    unrolled, from ``initial_state`` (else the cell's zero state); the list of outputs and
    the last state.  With ``sequence_length``, as TF1's _rnn_step: past a row's length its
    output is zeros and its state is copied through, with TF1's tf.cond choices."""
    first = tf.nest.flatten(inputs[0])[0]
    batch_size = first.shape[0] if first.shape[0] is not None else tf.shape(first)[0]
    state = initial_state if initial_state is not None else cell.zero_state(batch_size, dtype)
    if sequence_length is not None:
        sequence_length = tf.cast(sequence_length, tf.int32)
        min_length, max_length = tf.reduce_min(sequence_length), tf.reduce_max(sequence_length)
        zero_dtype = dtype or tf.nest.flatten(state)[0].dtype
        zero_output = tf.nest.map_structure(lambda size: tf.zeros([batch_size, size], zero_dtype), cell.output_size)

    def step(time, step_input, state):
        # all rows past their length: zeros and the state as it was; all within: the cell's;
        # else row by row (TF1's where of a [batch] condition picked rows)
        flat_zero, flat_state = tf.nest.flatten(zero_output), tf.nest.flatten(state)
        copy = tf.reshape(time >= sequence_length, [-1, 1])

        def stepped():
            new_output, new_state = cell(step_input, state)
            new = tf.nest.flatten(new_output) + tf.nest.flatten(new_state)
            some = [n if n.shape.rank == 0 else tf.where(copy, old, n) for old, n in zip(flat_zero + flat_state, new)]
            return tf.cond(time < min_length, lambda: new, lambda: some)

        final = tf.cond(time >= max_length, lambda: flat_zero + flat_state, stepped)
        output = tf.nest.pack_sequence_as(zero_output, final[: len(flat_zero)])
        return output, tf.nest.pack_sequence_as(state, final[len(flat_zero) :])

    outputs = []
    for time, step_input in enumerate(inputs):
        output, state = cell(step_input, state) if sequence_length is None else step(time, step_input, state)
        outputs.append(output)
    return outputs, state
'''
_STATIC_BIDIRECTIONAL_RNN = '''def tf1_static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None, initial_state_bw=None, dtype=None,
                                 sequence_length=None):
    """TF1's tf.nn.static_bidirectional_rnn: the forward cell over ``inputs``, then the
    backward cell over them reversed (each row within its length when ``sequence_length``
    is given); the outputs concatenated at each step, and both last states."""

    def reverse(steps):
        if sequence_length is None:
            return list(reversed(steps))
        reversed_steps = tf.unstack(tf.reverse_sequence(tf.stack(steps), tf.cast(sequence_length, tf.int64), 0, 1))
        for step, original in zip(reversed_steps, steps):
            step.set_shape(original.shape)
        return reversed_steps

    output_fw, state_fw = tf1_static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length)
    output_bw, state_bw = tf1_static_rnn(cell_bw, reverse(inputs), initial_state_bw, dtype, sequence_length)
    outputs = [tf.concat([fw, bw], 1) for fw, bw in zip(output_fw, reverse(output_bw))]
    return outputs, state_fw, state_bw
'''


# every definition this module writes out (rewrites/written_helpers.py recognises them)
TEMPLATES = (
    _BASE,
    *_CELLS.values(),
    *_CELLS_OF_CELLS.values(),
    _DYNAMIC_RNN,
    _BIDIRECTIONAL_DYNAMIC_RNN,
    _STATIC_RNN,
    _STATIC_BIDIRECTIONAL_RNN,
)


def plan_rnn_cells(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str]) -> None:
    """The cells and dynamic_rnn calls the analysis converted (analysis/statements.py)."""
    for scope in facts.scopes:
        for statement in scope.statements:
            fed = _fed_holders(module, scope, statement, plan, names_in_use)
            for call in statement.rnn_calls:
                path = facts.imports.call_name(call)
                assert path is not None  # a TF call, by how rnn_calls is filled
                local = _emit(module, facts, plan, names_in_use, path)
                _replace_callee(plan, call, local, drop_scope=path in rnn.RUNS, fed=fed if path in rnn.DROPOUT_WRAPPERS else {})
                what = "TF1's variables and step in TF2 ops"
                if path in rnn.RUNS:
                    two_cells = len(rnn.RUNS[path][2]) == 2
                    what = (
                        "the forward cell, then the backward one over the reversed steps"
                        if two_cells
                        else "the cell applied at each time step"
                    )
                plan.note(call, RNN_CELLS.code, f"tf.{path} → `{local}`: {what}, emitted once")


def _emit(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str], path: str) -> str:
    """The name of the class or function written out for ``tf.<path>`` in this file."""

    def emit(name: str, code: str) -> str:
        return file_helpers.emit_once(module, facts, plan, names_in_use, name, code)

    if path in (rnn.DYNAMIC_RNN, rnn.BIDIRECTIONAL_DYNAMIC_RNN):
        # tf1_dynamic_rnn, once; the bidirectional run calls it
        dynamic = emit(_DYNAMIC_RNN_NAME, _DYNAMIC_RNN)
        if path == rnn.DYNAMIC_RNN:
            return dynamic
        return emit(rnn.RUNS[path][3], _BIDIRECTIONAL_DYNAMIC_RNN.replace(f" {_DYNAMIC_RNN_NAME}(", f" {dynamic}("))
    if path in rnn.RUNS:
        # tf1_static_rnn and its step, once; the bidirectional run calls them
        static = emit(_STATIC_RNN_NAME, _STATIC_RNN)
        if path in rnn.STATIC_RNN:
            return static
        return emit(rnn.RUNS[path][3], _STATIC_BIDIRECTIONAL_RNN.replace(f" {_STATIC_RNN_NAME}(", f" {static}("))
    template = rnn.CELLS[path][1]
    if template in _CELLS_OF_CELLS:
        return emit(template, _CELLS_OF_CELLS[template])
    return _emit_cell(emit, template)


def _emit_cell(emit, template: str) -> str:
    """Emit a cell class after the class it derives from (TF1RNNCell, or TF1BasicLSTMCell
    for TF1LSTMCell), each once; the local name of the class."""
    parent = _PARENTS.get(template, _BASE_NAME)
    local_parent = emit(_BASE_NAME, _BASE) if parent == _BASE_NAME else _emit_cell(emit, parent)
    return emit(template, _CELLS[template].replace(f"({parent})", f"({local_parent})", 1))


def _fed_holders(module: cst.Module, scope, statement, plan: Plan, names_in_use: set[str]) -> dict[str, str]:
    """The variables holding the keep probabilities fed to the wrappers ``statement`` makes
    (placeholder → variable), each made once, before the first wrapper reading it.  TF1's
    wrapper read the placeholder at each run; the wrapper written out is made once, where no
    fed value exists, so it reads the variable, which every generated function taking the
    placeholder sets first (rewrites/function_emission.py): the value fed to that run."""
    holders: dict[str, str] = {}
    for order in sorted(statement.fed_cell_inputs):
        placeholder = scope.statements[order].placeholder
        if placeholder is None or not any(a for c in statement.rnn_calls for a in _fed_arguments(c, placeholder.name)):
            continue  # read by a cell this one stacks (its holder is made there)
        holder = plan.fed_cell_values.get(placeholder.name)
        if holder is None:
            holder = plan.fed_cell_values[placeholder.name] = fresh_name(f"{placeholder.name}_fed", names_in_use)
            dtype = module.code_for_node(placeholder.dtype) if placeholder.dtype is not None else "tf.float32"
            shape = ", shape=tf.TensorShape(None)" if placeholder.shape is None else ""
            creation = cst.parse_statement(
                f"{holder} = tf.Variable(1.0, dtype={dtype}{shape}, trainable=False)  # the keep probability fed to each run\n",
                config=module.config_for_parsing,
            )
            plan.insert_before.setdefault(id(statement.node), []).append(creation)
        holders[placeholder.name] = holder
    return holders


def _fed_arguments(call: cst.Call, name: str) -> list[cst.Arg]:
    """The arguments of a wrapper ``call`` passing the placeholder ``name`` as a keep probability."""
    bound = bind_arguments(call, rnn.DROPOUT_PARAMETERS) or {}
    return [a for p, a in bound.items() if p in rnn.FED_KEEP_PROBS and isinstance(a.value, cst.Name) and a.value.value == name]


def _replace_callee(plan: Plan, call: cst.Call, name: str, drop_scope: bool, fed: dict[str, str]) -> None:
    """Call ``name`` instead; a ``dynamic_rnn``'s ``scope="..."`` goes (it only named TF1's
    variables, analysis/rnn.py); a keep probability fed reads its variable (``fed``)."""

    def replace(updated: cst.Call) -> cst.Call:
        holding = {id(a): fed[p] for p in fed for a in _fed_arguments(updated, p)}
        args = [a.with_changes(value=cst.Name(holding[id(a)])) if id(a) in holding else a for a in updated.args]
        args = [a for a in args if not (drop_scope and a.keyword is not None and a.keyword.value == "scope")]
        if len(args) < len(updated.args) and args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(func=cst.Name(name), args=args)

    plan.call_replacements[id(call)] = replace
