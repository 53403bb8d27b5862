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
state_is_tuple=True)`` of ``tf.nn.rnn_cell`` or ``tf.contrib.rnn``, each bound to a name, and
``tf.nn.dynamic_rnn(cell, inputs, initial_state=…, dtype=…, time_major=…, scope="name")`` of
such a cell.  A ``scope`` written as a string only names TF1's variables (a cell keeps the
scope of its first call, and sharing by scope name needs a reuse that is refused where it is
written, TFM304/TFM311): it is dropped, as the names are.  Everything else stays refused,
naming what is missing (``cell_refusal``,
``dynamic_rnn_refusal``).
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.calls import bind_arguments, calls_in

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
_CONVERTED = frozenset({"num_units", "forget_bias", "state_is_tuple", "activation", "cells"})
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
    )
}
MULTI_CELLS = frozenset({"nn.rnn_cell.MultiRNNCell", "contrib.rnn.MultiRNNCell"})
_CONVERTED_NAMES = "BasicLSTMCell, BasicRNNCell, LSTMCell, GRUCell, MultiRNNCell"
_DYNAMIC_RNN = ("cell", "inputs", "sequence_length", "initial_state", "dtype", "parallel_iterations", "swap_memory", "time_major", "scope")
_DYNAMIC_RNN_CONVERTED = frozenset({"cell", "inputs", "initial_state", "dtype", "time_major", "scope"})


def is_rnn_class(name: str) -> bool:
    """A TF1 RNN cell class or wrapper (``tf.nn.rnn_cell.X``, ``tf.contrib.rnn.X``)."""
    return name.startswith(("nn.rnn_cell.", "contrib.rnn.")) and name.rsplit(".", 1)[1][:1].isupper()


def cell_refusal(call: cst.Call, name: str) -> str | None:
    """Why the cell ``tf.<name>(...)`` is not converted, or None when it is."""
    if name not in CELLS:
        return f"`tf.{name}` is not converted by this release (converted cells: {_CONVERTED_NAMES})"
    bound = bind_arguments(call, CELLS[name][0])
    if bound is None:
        return f"`tf.{name}(...)`: its arguments are unpacked with * or ** or do not match TF1's parameters"
    for parameter, argument in bound.items():
        required = _REQUIRED.get(parameter)
        if parameter not in _CONVERTED and required is None:
            return f"`tf.{name}(..., {parameter}=...)` is not converted (variable sharing, names, dtypes and initializers of TF1's scopes)"
        if parameter == "activation" and not isinstance(argument.value, (cst.Name, cst.Attribute)):
            return f"`tf.{name}(..., activation=...)` is converted only for a function named there (`tf.nn.relu`)"
        if required is not None and not (isinstance(argument.value, cst.Name) and argument.value.value == required):
            return f"`tf.{name}(..., {parameter}=...)` is converted only when written {required}"
    return None


def factory_cell(function: cst.FunctionDef, call_name) -> cst.Call | None:
    """The cell a cell factory makes (``def lstm_cell(): cell = rnn.BasicLSTMCell(n);
    return cell``, stacked by ``MultiRNNCell([lstm_cell() for _ in range(2)])``), or None
    for any other function.  A factory is a plain ``return`` of one converted cell, made
    in it directly or bound to a name first, and calls nothing else: each call makes a
    new cell, as in TF1.  ``call_name(call)``: the TF path a call calls."""
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    lines = [s for s in body if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1]
    calls = [c for s in body for c in calls_in(s)]
    if len(lines) != len(body) or len(calls) != 1 or not 1 <= len(lines) <= 2:
        return None
    cell = calls[0]
    name = call_name(cell)
    if name not in CELLS or name in MULTI_CELLS or cell_refusal(cell, name) is not None:
        return None
    *bound, returned = [s.body[0] for s in lines]
    if not isinstance(returned, cst.Return):
        return None
    if not bound:
        return cell if returned.value is cell else None
    made = bound[0]
    if not (isinstance(made, cst.Assign) and len(made.targets) == 1 and made.value is cell):
        return None
    target, result = made.targets[0].target, returned.value
    named = isinstance(target, cst.Name) and isinstance(result, cst.Name) and result.value == target.value
    return cell if named else None


def dynamic_rnn_refusal(call: cst.Call) -> str | None:
    """Why ``tf.nn.dynamic_rnn(...)`` is not converted for its arguments, or None when it
    is (its cell is checked by the caller)."""
    bound = bind_arguments(call, _DYNAMIC_RNN)
    if bound is None or "cell" not in bound or "inputs" not in bound:
        return f"`tf.{DYNAMIC_RNN}(...)`: its arguments are unpacked with * or ** or do not match TF1's parameters"
    for parameter in bound:
        if parameter not in _DYNAMIC_RNN_CONVERTED:
            return f"`tf.{DYNAMIC_RNN}(..., {parameter}=...)` is not converted by this release"
    time_major = bound.get("time_major")
    if time_major is not None and not (isinstance(time_major.value, cst.Name) and time_major.value.value in ("True", "False")):
        return f"`tf.{DYNAMIC_RNN}(..., time_major=...)` is converted only when written True or False"
    scope = bound.get("scope")
    if scope is not None and not (isinstance(scope.value, cst.SimpleString) and scope.keyword is not None):
        return f"`tf.{DYNAMIC_RNN}(..., scope=...)` is converted only when written as a keyword and a string (a name of TF1's variables)"
    if not isinstance(bound["cell"].value, cst.Name):
        return f"`tf.{DYNAMIC_RNN}(...)`: its cell is not a name bound by a converted cell statement"
    return None


def dynamic_rnn_cell(call: cst.Call) -> str:
    """The name of the cell a converted ``dynamic_rnn`` call runs (dynamic_rnn_refusal passed)."""
    bound = bind_arguments(call, _DYNAMIC_RNN)
    assert bound is not None
    cell = bound["cell"].value
    assert isinstance(cell, cst.Name)
    return cell.value
