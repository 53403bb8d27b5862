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
``BasicRNNCell(num_units, activation)``, ``MultiRNNCell(cells, state_is_tuple=True)`` of
``tf.nn.rnn_cell`` or ``tf.contrib.rnn``, each bound to a name, and
``tf.nn.dynamic_rnn(cell, inputs, initial_state=…, dtype=…, time_major=…, scope="name")`` of
such a cell.  A ``scope`` written as a string only names TF1's variables (a cell keeps the
scope of its first call, and sharing by scope name needs a reuse that is refused where it is
written, TFM304/TFM311): it is dropped, as the names are.  Everything else stays refused, naming what is missing (``cell_refusal``,
``dynamic_rnn_refusal``).
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.calls import bind_arguments

DYNAMIC_RNN = "nn.dynamic_rnn"
# the TF1 parameters each converted cell accepts, in TF1's positional order
_BASIC_LSTM = ("num_units", "forget_bias", "state_is_tuple", "activation")
_BASIC_RNN = ("num_units", "activation")
_MULTI = ("cells", "state_is_tuple")
# TF1 cell class → (its converted parameters, the class written out for it)
CELLS = {
    f"{namespace}.{cls}": (parameters, f"TF1{cls}")
    for namespace in ("nn.rnn_cell", "contrib.rnn")
    for cls, parameters in (("BasicLSTMCell", _BASIC_LSTM), ("BasicRNNCell", _BASIC_RNN), ("MultiRNNCell", _MULTI))
}
MULTI_CELLS = frozenset({"nn.rnn_cell.MultiRNNCell", "contrib.rnn.MultiRNNCell"})
# TF1 parameters that are what they would be without them: ``state_is_tuple=True``
_DEFAULTS = {"state_is_tuple": "True"}
_DYNAMIC_RNN = ("cell", "inputs", "sequence_length", "initial_state", "dtype", "parallel_iterations", "swap_memory", "time_major", "scope")
_DYNAMIC_RNN_CONVERTED = frozenset({"cell", "inputs", "initial_state", "dtype", "time_major", "scope"})


def is_rnn_class(name: str) -> bool:
    """A TF1 RNN cell class or wrapper (``tf.nn.rnn_cell.X``, ``tf.contrib.rnn.X``)."""
    return name.startswith(("nn.rnn_cell.", "contrib.rnn.")) and name.rsplit(".", 1)[1][:1].isupper()


def cell_refusal(call: cst.Call, name: str) -> str | None:
    """Why the cell ``tf.<name>(...)`` is not converted, or None when it is."""
    if name not in CELLS:
        return f"`tf.{name}` is not converted by this release (converted cells: BasicLSTMCell, BasicRNNCell, MultiRNNCell)"
    parameters = CELLS[name][0]
    bound = bind_arguments(call, parameters + ("reuse", "name", "dtype"))
    if bound is None:
        return f"`tf.{name}(...)`: its arguments are unpacked with * or ** or do not match TF1's parameters"
    for parameter, argument in bound.items():
        if parameter not in parameters:
            return f"`tf.{name}(..., {parameter}=...)` is not converted (variable sharing, names and dtypes of TF1's scopes)"
        if parameter == "activation" and not isinstance(argument.value, (cst.Name, cst.Attribute)):
            return f"`tf.{name}(..., activation=...)` is converted only for a function named there (`tf.nn.relu`)"
        expected = _DEFAULTS.get(parameter)
        if expected is not None and not (isinstance(argument.value, cst.Name) and argument.value.value == expected):
            return f"`tf.{name}(..., {parameter}=...)` is converted only when written {expected}"
    return None


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
