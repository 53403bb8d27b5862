"""TF1 recurrent networks: which cells and ``tf.nn.dynamic_rnn`` calls have an exact TF2 form.

TF2 keeps no ``tf.nn.rnn_cell`` (``tf.compat.v1``'s needs tf-keras) and no
``tf.nn.dynamic_rnn``.  Keras' ``LSTMCell``/``GRUCell`` are no substitute: they keep a
``kernel`` and a ``recurrent_kernel`` where TF1 keeps one kernel over the concatenated
input and state, order the LSTM gates i, f, c, o where TF1 orders them i, j, f, o, add
no ``forget_bias`` at run time (``unit_forget_bias`` initializes the bias instead) and draw
other initial values — a migration to them would start from other variables, and could
not be shown equal.  So the cells are written out (rewrites/rnn_cells.py): variables in
TF1's shapes, made once with TF1's initializers at the first call, and TF1's step in plain
TF2 ops; ``dynamic_rnn`` applies the cell at each time step.  Shown equal by execution,
values and gradients, from the same initial variables.

Converted: ``BasicLSTMCell(num_units, forget_bias, state_is_tuple=True, activation)``,
``BasicRNNCell(num_units, activation)``, ``LSTMCell(num_units, forget_bias=…,
activation=…)`` without peepholes, projection, clipping or sharding (its step is
BasicLSTMCell's, its variables named ``lstm_cell/…``), ``GRUCell(num_units, activation)``
(gates and candidate kernels, the gates' bias ones), ``MultiRNNCell(cells,
state_is_tuple=True)`` (its cells a list written out, ``[cell] * n``, a comprehension making a
cell per element or repeating one, or a name bound to such a comprehension),
``DropoutWrapper(cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0)`` keeping
all (TF1 added no dropout op for a constant 1; a constant below 1 draws masks from TF1's random
stream: refused), or whose ``input_keep_prob`` / ``output_keep_prob`` is a scalar placeholder of
the module's graph, fed at each run (FED_KEEP_PROBS: the wrapper, made once, reads it where the
cell runs, through a variable each generated function sets first; its masks are then TF2's
draws, as a converted ``tf.nn.dropout``'s are; a keep probability computed is read where the
cell is made, once, and a state's goes through TF1's state filter: refused) of ``tf.nn.rnn_cell``
or ``tf.contrib.rnn``, each bound to a name (or a ``self`` attribute), and
``tf.nn.dynamic_rnn(cell, inputs, sequence_length, initial_state, dtype, parallel_iterations,
swap_memory, time_major, scope="name")`` of such a cell and ``tf.nn.bidirectional_dynamic_rnn(cell_fw,
cell_bw, inputs, …)`` of two (TF1's zero outputs and copied state past each row's length written
out; ``parallel_iterations`` and ``swap_memory`` only schedule the loop); ``tf.nn.static_rnn(cell, inputs, initial_state, dtype, sequence_length,
scope="name")`` and ``tf.nn.static_bidirectional_rnn(cell_fw, cell_bw, inputs, …)`` (also
``tf.contrib.rnn``'s), in graph code or in a function of the file whose cells are module
names (read by it, or passed to it: analysis/statements.py).  A ``scope`` written as a string only names TF1's variables (a cell keeps the
scope of its first call, and sharing by scope name needs a reuse that is refused where it is
written, TFM304/TFM311): it is dropped, as the names are.  Everything else stays refused,
naming what is missing (``cell_refusal``,
``run_refusal``).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from tf2migrate.analysis.calls import bind_arguments, calls_in
from tf2migrate.analysis.names import graph_name

DYNAMIC_RNN = "nn.dynamic_rnn"
# TF1's parameters of each converted cell, in TF1's positional order; those not converted
# must be absent (or written as in ``_REQUIRED``)
_BASIC_LSTM = ("num_units", "forget_bias", "state_is_tuple", "activation", "reuse", "name", "dtype")
_BASIC_RNN = ("num_units", "activation", "reuse", "name", "dtype")
_LSTM = (
    "num_units",
    "use_peepholes",
    "cell_clip",
    "initializer",
    "num_proj",
    "proj_clip",
    "num_unit_shards",
    "num_proj_shards",
    "forget_bias",
    "state_is_tuple",
    "activation",
    "reuse",
    "name",
    "dtype",
)
_GRU = ("num_units", "activation", "reuse", "kernel_initializer", "bias_initializer", "name", "dtype")
_MULTI = ("cells", "state_is_tuple")
_DROPOUT = (
    "cell",
    "input_keep_prob",
    "output_keep_prob",
    "state_keep_prob",
    "variational_recurrent",
    "input_size",
    "dtype",
    "seed",
    "dropout_state_filter_visitor",
)
_KEEP_PROBS = ("input_keep_prob", "output_keep_prob", "state_keep_prob")
# the keep probabilities converted when fed (a scalar placeholder): TF1 dropped the input and
# the output with ``tf.nn.dropout(v, rate=1 - keep_prob)`` at each step, the wrapper written out
# does the same with the value fed to the run (a state's dropout filters LSTM states: refused)
FED_KEEP_PROBS = ("input_keep_prob", "output_keep_prob")
_CONVERTED = frozenset({"num_units", "forget_bias", "state_is_tuple", "activation", "cells", "cell", *_KEEP_PROBS})
# parameters converted only as written here: what they are when left out
_REQUIRED = {
    "state_is_tuple": "True",
    "use_peepholes": "False",
    **dict.fromkeys(("cell_clip", "initializer", "num_proj", "proj_clip", "num_unit_shards", "num_proj_shards"), "None"),
}
# TF1 cell class → (its parameters, the class written out for it)
CELLS = {
    f"{namespace}.{cls}": (parameters, f"TF1{cls}")
    for namespace in ("nn.rnn_cell", "contrib.rnn")
    for cls, parameters in (
        ("BasicLSTMCell", _BASIC_LSTM),
        ("BasicRNNCell", _BASIC_RNN),
        ("LSTMCell", _LSTM),
        ("GRUCell", _GRU),
        ("MultiRNNCell", _MULTI),
        ("DropoutWrapper", _DROPOUT),
    )
}
MULTI_CELLS = frozenset({"nn.rnn_cell.MultiRNNCell", "contrib.rnn.MultiRNNCell"})
DROPOUT_WRAPPERS = frozenset({"nn.rnn_cell.DropoutWrapper", "contrib.rnn.DropoutWrapper"})
DROPOUT_PARAMETERS = _DROPOUT
# the classes whose arguments are other cells (checked by analysis/statements.py)
CELLS_OF_CELLS = MULTI_CELLS | DROPOUT_WRAPPERS
_CONVERTED_NAMES = "BasicLSTMCell, BasicRNNCell, LSTMCell, GRUCell, MultiRNNCell, DropoutWrapper"
_DYNAMIC_RNN = ("cell", "inputs", "sequence_length", "initial_state", "dtype", "parallel_iterations", "swap_memory", "time_major", "scope")
# every parameter is converted: past each row's ``sequence_length`` TF1's zero outputs and
# copied state are written out; ``parallel_iterations`` and ``swap_memory`` only schedule the loop
_DYNAMIC_RNN_CONVERTED = frozenset(_DYNAMIC_RNN)
BIDIRECTIONAL_DYNAMIC_RNN = "nn.bidirectional_dynamic_rnn"
_BIDIRECTIONAL_DYNAMIC_RNN = (
    "cell_fw",
    "cell_bw",
    "inputs",
    "sequence_length",
    "initial_state_fw",
    "initial_state_bw",
    "dtype",
    "parallel_iterations",
    "swap_memory",
    "time_major",
    "scope",
)
# ``static_rnn`` / ``static_bidirectional_rnn``: every parameter is converted (sequence_length
# too: TF1's zeroing of the outputs and copying of the state past each length is written out)
_STATIC_RNN = ("cell", "inputs", "initial_state", "dtype", "sequence_length", "scope")
_STATIC_BIDIRECTIONAL_RNN = ("cell_fw", "cell_bw", "inputs", "initial_state_fw", "initial_state_bw", "dtype", "sequence_length", "scope")
STATIC_RNN = frozenset({"nn.static_rnn", "contrib.rnn.static_rnn"})
STATIC_BIDIRECTIONAL_RNN = frozenset({"nn.static_bidirectional_rnn", "contrib.rnn.static_bidirectional_rnn"})
# each converted RNN run → (TF1's parameters, those converted, its cell parameters, the function written out)
RUNS = {
    DYNAMIC_RNN: (_DYNAMIC_RNN, _DYNAMIC_RNN_CONVERTED, ("cell",), "tf1_dynamic_rnn"),
    BIDIRECTIONAL_DYNAMIC_RNN: (
        _BIDIRECTIONAL_DYNAMIC_RNN,
        frozenset(_BIDIRECTIONAL_DYNAMIC_RNN),
        ("cell_fw", "cell_bw"),
        "tf1_bidirectional_dynamic_rnn",
    ),
    **dict.fromkeys(STATIC_RNN, (_STATIC_RNN, frozenset(_STATIC_RNN), ("cell",), "tf1_static_rnn")),
    **dict.fromkeys(
        STATIC_BIDIRECTIONAL_RNN,
        (_STATIC_BIDIRECTIONAL_RNN, frozenset(_STATIC_BIDIRECTIONAL_RNN), ("cell_fw", "cell_bw"), "tf1_static_bidirectional_rnn"),
    ),
}
# every TF1 function running cells over time: in a helper, converted or refused (never
# left to ``tf.compat.v1``, whose RNNs take no cell written out)
RUN_CALLS = frozenset(
    {
        *RUNS,
        "nn.raw_rnn",
        "nn.static_state_saving_rnn",
        "contrib.rnn.static_state_saving_rnn",
        "contrib.rnn.stack_bidirectional_rnn",
        "contrib.rnn.stack_bidirectional_dynamic_rnn",
    }
)


def is_rnn_class(name: str) -> bool:
    """A TF1 RNN cell class or wrapper (``tf.nn.rnn_cell.X``, ``tf.contrib.rnn.X``)."""
    return name.startswith(("nn.rnn_cell.", "contrib.rnn.")) and name.rsplit(".", 1)[1][:1].isupper()


def cell_refusal(call: cst.Call, name: str, fed: Callable[[cst.BaseExpression], bool] | None = None) -> str | None:
    """Why the cell ``tf.<name>(...)`` is not converted, or None when it is.  ``fed(value)``:
    a keep probability that is a scalar placeholder fed at each run (FED_KEEP_PROBS, read
    where the cell runs: rewrites/rnn_cells.py), when the caller knows the graph's names."""
    if name not in CELLS:
        return f"`tf.{name}` is not converted by this release (converted cells: {_CONVERTED_NAMES})"
    bound = bind_arguments(call, CELLS[name][0])
    if bound is None:
        return f"`tf.{name}(...)`: its arguments are unpacked with * or ** or do not match TF1's parameters"
    for parameter, argument in bound.items():
        required = _REQUIRED.get(parameter)
        if parameter not in _CONVERTED and required is None and name in DROPOUT_WRAPPERS:
            return f"`tf.{name}(..., {parameter}=...)` is not converted (variational dropout, seeds, dtypes and state filters)"
        if parameter not in _CONVERTED and required is None:
            return f"`tf.{name}(..., {parameter}=...)` is not converted (variable sharing, names, dtypes and initializers of TF1's scopes)"
        if parameter == "activation" and not isinstance(argument.value, (cst.Name, cst.Attribute)):
            return f"`tf.{name}(..., activation=...)` is converted only for a function named there (`tf.nn.relu`)"
        if required is not None and not (isinstance(argument.value, cst.Name) and argument.value.value == required):
            return f"`tf.{name}(..., {parameter}=...)` is converted only when written {required}"
        if parameter in FED_KEEP_PROBS and fed is not None and fed(argument.value):
            continue
        if parameter in _KEEP_PROBS and not _is_one(argument.value):
            if isinstance(argument.value, (cst.Integer, cst.Float)):
                why = "a constant below 1 drops elements drawn from TF1's random stream at each step, which TF2 does not reproduce"
            elif parameter not in FED_KEEP_PROBS:
                why = "a state kept in part is dropped through TF1's state filter (an LSTM's c kept whole), which is not written out"
            else:
                why = (
                    "a keep probability is read at each run only by a wrapper the module's graph code makes from a placeholder "
                    "of that graph (a scalar, or its shape left out, or `tf.placeholder_with_default` of a float literal); otherwise it is read where the wrapper is made, once, "
                    "where no fed value exists"
                )
            return f"`tf.{name}(..., {parameter}=...)` is converted only when written 1.0: {why}"
    return None


def _is_one(value: cst.BaseExpression) -> bool:
    """A keep probability written as the constant 1 (``1``, ``1.0``): TF1's DropoutWrapper
    added no dropout op for it."""
    return isinstance(value, (cst.Integer, cst.Float)) and float(value.value) == 1.0


def factory_cell(function: cst.FunctionDef, call_name) -> cst.Call | None:
    """The cell a cell factory makes (``def lstm_cell(): cell = rnn.BasicLSTMCell(n);
    return cell``, stacked by ``MultiRNNCell([lstm_cell() for _ in range(2)])``), or None
    for any other function (see factory_cells)."""
    cells = factory_cells(function, call_name)
    return cells[0] if cells is not None and len(cells) == 1 else None


def factory_cells(function: cst.FunctionDef, call_name) -> list[cst.Call] | None:
    """The cells a cell factory makes, in the order it returns them, or None for any other
    function.  A factory is, after an optional docstring, a plain ``return`` of converted
    cells (not stacked), made in it directly or each bound to a name of its own first
    (``make_BiRNN_variables``: ``fw = rnn.BasicLSTMCell(n); bw = rnn.BasicLSTMCell(n);
    return fw, bw``, rewrites/helper_split.py), and calls nothing else: each call makes new
    cells, as in TF1.  ``call_name(call)``: the TF path a call calls."""
    body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1:
        first = body[0].body[0]
        if isinstance(first, cst.Expr) and isinstance(first.value, (cst.SimpleString, cst.ConcatenatedString)):
            body = body[1:]
    lines = [s for s in body if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1]
    if len(lines) != len(body) or not lines:
        return None
    *made, returned = [s.body[0] for s in lines]
    if not isinstance(returned, cst.Return) or returned.value is None:
        return None
    results = [e.value for e in returned.value.elements] if isinstance(returned.value, cst.Tuple) else [returned.value]
    by_name: dict[str, cst.Call] = {}
    for assign in made:
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
            return None
        if not isinstance(assign.value, cst.Call) or assign.targets[0].target.value in by_name:
            return None
        by_name[assign.targets[0].target.value] = assign.value
    if any(isinstance(r, cst.Name) and r.value in by_name for r in results) and len(by_name) != len(results):
        return None  # a cell made and not returned, or returned twice
    cells = [by_name.get(r.value) if isinstance(r, cst.Name) else r for r in results]
    if made and any(not isinstance(r, cst.Name) for r in results):
        return None
    if len({id(c) for c in cells}) != len(cells) or len(calls_in(function.body)) != len(cells):
        return None
    for cell in cells:
        name = call_name(cell) if isinstance(cell, cst.Call) else None
        if name not in CELLS or name in CELLS_OF_CELLS or cell_refusal(cst.ensure_type(cell, cst.Call), name) is not None:
            return None
    return [cst.ensure_type(c, cst.Call) for c in cells]


def run_refusal(call: cst.Call, path: str) -> str | None:
    """Why the RNN run ``tf.<path>(...)`` (``dynamic_rnn``, ``static_rnn``,
    ``static_bidirectional_rnn``) is not converted for its arguments, or None when it is
    (its cells are checked by the caller)."""
    if path not in RUNS:
        return f"`tf.{path}` is not converted by this release (converted: dynamic_rnn, bidirectional_dynamic_rnn, static_rnn, static_bidirectional_rnn)"
    parameters, converted, cells, _ = RUNS[path]
    bound = bind_arguments(call, parameters)
    if bound is None or any(p not in bound for p in (*cells, "inputs")):
        return f"`tf.{path}(...)`: its arguments are unpacked with * or ** or do not match TF1's parameters"
    for parameter in bound:
        if parameter not in converted:
            return f"`tf.{path}(..., {parameter}=...)` is not converted by this release"
    time_major = bound.get("time_major")
    if time_major is not None and not (isinstance(time_major.value, cst.Name) and time_major.value.value in ("True", "False")):
        return f"`tf.{path}(..., time_major=...)` is converted only when written True or False"
    scope = bound.get("scope")
    if scope is not None and not (isinstance(scope.value, cst.SimpleString) and scope.keyword is not None):
        return f"`tf.{path}(..., scope=...)` is converted only when written as a keyword and a string (a name of TF1's variables)"
    if any(graph_name(bound[c].value) is None for c in cells):
        return f"`tf.{path}(...)`: its cell is not a name (or `self` attribute) bound by a converted cell statement"
    return None


def run_cells(call: cst.Call, path: str) -> list[str]:
    """The names (or ``self.x``) of the cells a converted RNN run runs (run_refusal passed),
    in TF1's order of their first call (forward, then backward)."""
    parameters, _, cells, _ = RUNS[path]
    bound = bind_arguments(call, parameters)
    assert bound is not None
    names = [graph_name(bound[c].value) for c in cells]
    return [n for n in names if n is not None]
