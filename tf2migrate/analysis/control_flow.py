"""Does graph code reach graph control flow (``tf.cond``, ``tf.case``, ``tf.while_loop``)
and gradients, written in it or in the code it calls?

Traced, both branches of a ``tf.cond`` are in the graph and the gradient through the
branch not taken is zeros, as in TF1; run eagerly, a tape sees only the branch taken and
gives None (a fetched gradient is None, a train step skips the variable and its optimizer
slots stand still).  A generated function that differentiates such code therefore runs as
a ``tf.function`` even with ``--no-tf-function`` (rewrites/function_emission.py).  The
control flow, and the gradient, may be in the statements themselves, in a helper of the
file they call (a function, a method of the class, followed transitively) or in another
module's builder or net object (its summary, analysis/summaries.py).  A helper named
without being called (``apply_layer(gate, x)``, ``fn = gate``) may be called by the code it
is handed to: it counts as reached too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst

from tf2migrate.analysis import imported_calls
from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.catalogue import CONTROL_FLOW_CALLS, GRADIENT_CALLS
from tf2migrate.analysis.model import GraphFacts, Scope
from tf2migrate.analysis.names import self_attribute
from tf2migrate.traversal import find_all


@dataclass
class Reached:
    control_flow: bool = False
    gradients: bool = False


def reached(facts: GraphFacts, nodes: Iterable[cst.CSTNode], scope: Scope) -> Reached:
    """What the calls of ``nodes`` reach, following the file's helpers into their bodies
    and other modules' code through its summaries."""
    found = Reached()
    seen: set[int] = set()
    nodes = list(nodes)
    pending = [call for node in nodes for call in calls_in(node, enter_defs=True)]
    pending += _handed_helpers(facts, nodes, seen)
    while pending and not (found.control_flow and found.gradients):
        call = pending.pop()
        if id(call) in seen:
            continue
        seen.add(id(call))
        name = facts.imports.call_name(call)
        found.control_flow |= name in CONTROL_FLOW_CALLS
        found.gradients |= name in GRADIENT_CALLS
        summarized = imported_calls.summary_of(facts, call) or imported_calls.builder_call(facts, call, scope, None)
        if summarized is not None:
            found.control_flow |= summarized.uses_control_flow
            found.gradients |= summarized.uses_gradients
            continue
        callee = call.func.value if isinstance(call.func, cst.Name) else self_attribute(call.func)
        helper = facts.helpers.get(callee) if callee is not None else None
        if helper is not None:
            pending += calls_in(helper.node.body, enter_defs=True)
            pending += _handed_helpers(facts, [helper.node.body], seen)
    return found


def _handed_helpers(facts: GraphFacts, nodes: list[cst.CSTNode], seen: set[int]) -> list[cst.Call]:
    """The calls in the bodies of the file's helpers that ``nodes`` name as values (not
    as the function of a call: those are followed as calls), each body once."""
    called = {id(call.func) for node in nodes for call in calls_in(node, enter_defs=True)}
    out: list[cst.Call] = []
    for node in nodes:
        for name in find_all(node, (cst.Name, cst.Attribute)):
            if id(name) in called:
                continue
            key = name.value if isinstance(name, cst.Name) else self_attribute(name)
            helper = facts.helpers.get(key) if key is not None else None
            if helper is not None and id(helper.node) not in seen:
                seen.add(id(helper.node))
                out += calls_in(helper.node.body, enter_defs=True)
    return out
