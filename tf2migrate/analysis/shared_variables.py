"""Variables shared by name: TF1's variable store, which eager TF2 does not keep.

In a TF1 graph, ``tf.get_variable("w")`` under ``tf.variable_scope("s", reuse=True)``
returns the variable ``s/w`` made before, so two Python names (or two calls of a
helper) hold one variable.  Outside a graph, ``tf.compat.v1.get_variable`` creates a new
variable at every call: the names would hold two variables, and an update of one would
not be seen through the other.  A graph that asks for reuse is refused (TFM311).
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.tf_imports import TfImports

# Calls that change what get_variable makes from the outside: a scope's initializer, dtype
# or custom getter reaches into the helpers called in it too.
_SCOPE_SETTERS = frozenset({"get_variable_scope", "variable_op_scope", "variable_creator_scope", "contrib.framework.arg_scope"})
# Calls whose ``reuse=`` argument asks the variable store for an existing variable.
_REUSING_CALLS = frozenset({"variable_scope", "get_variable", "get_local_variable", "make_template"})


def find_shared_variables(facts: GraphFacts) -> None:
    # the scopes of layer helpers: which call makes and which reuses their layers is known
    # (analysis/layer_helpers.py), and the scope goes away with them
    converted = {id(h.scope.items[0].item) for h in facts.layer_helpers if h.scope is not None}
    converted |= {id(c) for h in facts.layer_helpers if h.reuse_switch is not None for c in calls_in(h.reuse_switch)}
    for call in facts.calls:
        if id(call) in converted:
            continue
        name = facts.imports.call_name(call)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "reuse_variables" and name is None:
            facts.block(call, blockers.SHARED_BY_NAME, "`reuse_variables()` shares variables by name; eager TF2 creates new ones")
            continue
        if name is not None and any(a.keyword is not None and a.keyword.value == "custom_getter" for a in call.args):
            # the getter's result is what get_variable returns: often an op over the variable
            # (``getter(...) * 2``, an EMA's shadow), which eager TF2 would compute once
            facts.block(
                call,
                blockers.UNSUPPORTED_GRAPH_CODE,
                f"`tf.{name}(..., custom_getter=...)` makes `get_variable` return what the getter computes, often an op "
                "over the variable; eager TF2 would compute it once, when the variable is made, and the ops would read "
                "that stale value",
            )
            continue
        if name not in _REUSING_CALLS:
            continue  # tf.layers' ``reuse=`` is refused with the layer (rewrites/keras_layers.py)
        reuse = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "reuse"), None)
        if reuse is None or (isinstance(reuse, cst.Name) and reuse.value in ("False", "None")):
            continue
        facts.block(
            call,
            blockers.SHARED_BY_NAME,
            f"`tf.{name}(..., reuse=...)` shares variables by name; eager TF2 would create a new variable "
            "where TF1 returned the existing one",
        )


def sets_variable_defaults(imports: TfImports, call: cst.Call) -> bool:
    """Does the call set what ``get_variable`` makes in a scope (``variable_scope`` with more
    than a name: ``initializer=``, ``dtype=``, ``custom_getter=``, ``reuse=``…;
    ``get_variable_scope()``, ``arg_scope``)?  A file with one keeps its variable scopes
    and ``get_variable`` calls as TF1 wrote them."""
    name = imports.call_name(call)
    if name == "variable_scope":
        return len(call.args) != 1 or call.args[0].keyword is not None
    return name in _SCOPE_SETTERS or any(a.keyword is not None and a.keyword.value == "custom_getter" for a in call.args)
