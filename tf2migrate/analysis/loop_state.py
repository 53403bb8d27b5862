"""Stateful ops in a ``tf.while_loop`` body (or ``tf.map_fn``'s, ``tf.scan``'s, ``tf.foldl``'s
``fn``): TF1 ran their iterations in parallel.

TF1's ``tf.while_loop`` (control flow v1) runs up to ``parallel_iterations`` (10 by
default) iterations at once: an iteration's ops wait only for their own data and control
inputs, so a variable read in one iteration (``tf.identity(v)`` under
``tf.control_dependencies([tf.assign_add(v, 1.0)])``) may already see the updates of the
next ones.  Migrated into a ``tf.function``, the loop is TF2's: automatic control
dependencies run the stateful ops of its body in program order, one iteration after
another.  A body that adds ``1, 2, 3`` to an accumulator read from the variable sums
``6`` in TF2 and ``9`` in TF1.  ``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr`` are
such loops too (``parallel_iterations=10`` in TF1).  The values are not provably the same,
so a loop whose ``cond``, ``body`` or ``fn`` (a lambda, or a function of the file, followed
into the helpers it calls) makes a stateful op (an assignment or scatter update of a
variable, a Python function called from the graph: ``unrun_ops.StatefulCalls``) keeps the
file on TF1 (TFM306).  A loop of stateless ops converts as before.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.model import GraphFacts, Kind
from tf2migrate.analysis.unrun_ops import StatefulCalls
from tf2migrate.traversal import find_all

_MESSAGE = (
    "`tf.{loop}` whose {part} `{name}` changes state (`{op}`): TF1 ran up to `parallel_iterations` "
    "iterations at once, so the order of its updates and reads differs from TF2's, which runs them one "
    "iteration after another"
)
# the keywords and positions of the functions each loop calls
_FUNCTION_ARGUMENTS = {
    "while_loop": (("cond", 0), ("body", 1)),
    "map_fn": (("fn", 0),),
    "scan": (("fn", 0),),
    "foldl": (("fn", 0),),
    "foldr": (("fn", 0),),
}


def find_stateful_loops(facts: GraphFacts, stateful: StatefulCalls) -> None:
    """Block each loop of graph code, or of a helper of the file, whose ``cond``,
    ``body`` or ``fn`` makes a stateful op."""
    nodes: list[cst.CSTNode] = [s.node for scope in facts.scopes for s in scope.statements if s.kind is not Kind.PYTHON]
    nodes += [helper.node for helper in facts.helpers.values()]
    seen: set[int] = set()
    for node in nodes:
        for call in calls_in(node, enter_defs=True):
            loop = facts.imports.call_name(call)
            if id(call) in seen or loop not in _FUNCTION_ARGUMENTS:
                continue
            seen.add(id(call))
            found = _stateful_function(facts, stateful, call, _FUNCTION_ARGUMENTS[loop], node)
            if found is not None:
                part, name, op = found
                facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, _MESSAGE.format(loop=loop, part=part, name=name, op=op))


def _stateful_function(
    facts: GraphFacts, stateful: StatefulCalls, call: cst.Call, arguments: tuple[tuple[str, int], ...], node: cst.CSTNode
) -> tuple[str, str, str] | None:
    """(``cond``/``body``, how it is written, the first stateful call) of the loop's first
    function argument that changes state, or None.  A name is a helper of the file
    (``body``, ``self.body``) or a function defined in ``node``, the code that holds the loop."""
    for keyword, position in arguments:
        argument = _argument(call, keyword, position)
        if argument is None:
            continue
        if isinstance(argument, cst.Lambda):
            found, name = stateful.in_node(argument), "lambda"
        elif (definition := _definition(facts, argument, node)) is not None:
            found, name = stateful.in_node(definition.body), cst.Module([]).code_for_node(argument)
        else:
            continue
        if found:
            return keyword, name, _callee(found[0])
    return None


def _definition(facts: GraphFacts, argument: cst.BaseExpression, node: cst.CSTNode) -> cst.FunctionDef | None:
    if isinstance(argument, cst.Attribute) and isinstance(argument.value, cst.Name) and argument.value.value == "self":
        helper = facts.helpers.get(f"self.{argument.attr.value}")
        return helper.node if helper is not None else None
    if not isinstance(argument, cst.Name):
        return None
    helper = facts.helpers.get(argument.value)
    if helper is not None:
        return helper.node
    local = [d for d in find_all(node, cst.FunctionDef) if isinstance(d, cst.FunctionDef) and d.name.value == argument.value]
    return local[0] if local else None


def _argument(call: cst.Call, keyword: str, position: int) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    return positional[position].value if len(positional) > position else None


def _callee(call: cst.Call) -> str:
    func = call.func
    return f"{func.attr.value}(...)" if isinstance(func, cst.Attribute) else f"{cst.Module([]).code_for_node(func)}(...)"
