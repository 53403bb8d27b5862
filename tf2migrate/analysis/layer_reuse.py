"""Which earlier ``tf.layers`` call of the graph a layer call applies again by ``name=`` and
``reuse=True``, and the variable scopes around a graph statement.

``tf.layers.dense(y, 128, tf.nn.relu, name='l', reuse=True)`` after ``tf.layers.dense(x,
128, tf.nn.relu, name='l')`` took the variables TF1 had made under that name.  That is
proven only when the earlier call is the one call of the graph that made the name: the
same variable scopes around both (``tf.variable_scope("literal")`` blocks), the same
``name=`` written out, the same layer and the same constructor arguments (one shared Keras
layer has one set).  The fact is read by the Keras layer rewrite (rewrites/keras_layers.py:
the reusing call applies the earlier call's layer), by the trainable-variable lists written
out over the layers (analysis/layer_variable_lists.py: a reusing call makes no variables)
and by the joint train steps (analysis/train_variables.py: a reusing call's variables are
its maker's), so it lives here, computed the same way for all three.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.layer_signatures import CALL_TIME, GRAPH_LAYER_CLASSES
from tf2migrate.analysis.model import Scope, Statement
from tf2migrate.analysis.tf_imports import TfImports


def reused_layer_call(
    module: cst.Module, imports: TfImports, scope: Scope, withs: dict[int, cst.With], statement: Statement, call: cst.Call
) -> cst.Call | str | None:
    """The earlier layer call whose variables ``call`` takes by ``name=`` and ``reuse=True``;
    None for a call without ``reuse=`` (or ``reuse=None``/``False``, which reuse nothing);
    why not, when that is not proven.  ``withs``: :func:`enclosing_withs` of ``scope``."""
    path = imports.call_name(call)
    arguments = layer_arguments(imports, call)
    reuse = arguments.get("reuse") if arguments is not None else None
    if arguments is None or reuse is None or m.matches(reuse.value, m.Name("None") | m.Name("False")):
        return None
    if not m.matches(reuse.value, m.Name("True")):
        return f"`reuse=` of tf.{path} is not True, False or None written out: which variables it takes is not known"
    name = arguments.get("name")
    if name is None or not isinstance(name.value, cst.SimpleString) or not isinstance(name.value.evaluated_value, str):
        return f"tf.{path}(..., reuse=True) without a `name=` written out: which layer's variables it takes is not known"
    scopes = variable_scopes(imports, withs, statement)
    if scopes is None:
        return f"tf.{path}(..., reuse=True) under a `tf.variable_scope` other than a name written out: its variables' names are not known"
    same_name = [
        (s, c)
        for s in scope.statements
        if s.order < statement.order
        for c in s.layer_calls
        if layer_name_text(imports, c) == name.value.evaluated_value and variable_scopes(imports, withs, s) == scopes
    ]
    makers = [(s, c) for s, c in same_name if reused_layer_call(module, imports, scope, withs, s, c) is None]
    where = "/".join((*scopes, name.value.evaluated_value))
    if len(makers) != 1:
        return f"tf.{path}(..., reuse=True) takes the variables `{where}/...`, which {'no' if not makers else 'more than one'} earlier layer call of this graph made"
    earlier = makers[0][1]
    if imports.call_name(earlier) != path:
        return f"tf.{path}(..., reuse=True) takes the variables `{where}/...` of another kind of layer"
    if _constructor(module, imports, earlier) != _constructor(module, imports, call):
        return (
            f"tf.{path}(..., reuse=True) takes the variables `{where}/...` with other constructor arguments than the call that "
            "made them: one shared Keras layer has one set"
        )
    return earlier


def enclosing_withs(scope: Scope) -> dict[int, cst.With]:
    """The ``with`` block (of those the scope's statements were read out of) around each
    statement or ``with``, by its id."""
    return {id(s): w for w, _ in scope.unwrapped.values() for s in cst.ensure_type(w.body, cst.IndentedBlock).body}


def variable_scopes(imports: TfImports, enclosing: dict[int, cst.With], statement: Statement) -> tuple[str, ...] | None:
    """The names of the ``tf.variable_scope("name")`` blocks around the statement, outermost
    first; None under a variable scope with other arguments (``reuse=``, a scope object)."""
    names: list[str] = []
    node = enclosing.get(id(statement.node))
    while node is not None:
        for item in reversed(node.items):
            if isinstance(item.item, cst.Call) and imports.call_name(item.item) == "variable_scope":
                args = item.item.args
                first = args[0].value if len(args) == 1 and args[0].keyword is None else None
                text = first.evaluated_value if isinstance(first, cst.SimpleString) else None
                if not isinstance(text, str):
                    return None
                names.append(text)
        node = enclosing.get(id(node))
    return tuple(reversed(names))


def layer_arguments(imports: TfImports, call: cst.Call) -> dict[str, cst.Arg] | None:
    """A layer call's arguments by TF1 parameter (statement.layer_calls are of GRAPH_LAYER_CLASSES)."""
    return bind_arguments(call, ("inputs", *GRAPH_LAYER_CLASSES[imports.call_name(call) or ""][1]))


def layer_name_text(imports: TfImports, call: cst.Call) -> str | None:
    """The ``name=`` of a layer call, when written out as a string."""
    arguments = layer_arguments(imports, call)
    name = arguments.get("name") if arguments is not None else None
    text = name.value.evaluated_value if name is not None and isinstance(name.value, cst.SimpleString) else None
    return text if isinstance(text, str) else None


def _constructor(module: cst.Module, imports: TfImports, call: cst.Call) -> dict[str, str] | None:
    """The arguments a layer call's Keras layer is made from, as code."""
    arguments = layer_arguments(imports, call)
    if arguments is None:
        return None
    return {k: module.code_for_node(a.value) for k, a in arguments.items() if k not in ("inputs", "reuse", *CALL_TIME)}
