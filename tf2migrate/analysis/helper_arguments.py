"""Module graph tensors a graph-building helper of the file reads: passed as arguments.

TensorFlow-Examples' variational autoencoder builds ``z_mean`` and ``z_std`` at the top of
the module and computes its loss with a helper that reads them from there::

    def vae_loss(x_reconstructed, x_true):
        kl_div_loss = 1 + z_std - tf.square(z_mean) - tf.exp(z_std)
        ...
    loss_op = vae_loss(decoder, input_image)

TF1 called the helper once, while building the graph, and the helper read the module's
``z_mean`` at that moment: the tensor bound where the call stood.  Once the graph code moves
into generated functions, ``z_mean`` is a local of each function that computes it, which
the helper cannot see.  Passing it makes the read explicit and keeps its meaning:
``def vae_loss(x_reconstructed, x_true, *, z_mean, z_std)`` and
``vae_loss(decoder, input_image, z_mean=z_mean, z_std=z_std)`` in the generated function,
where ``z_mean`` is the tensor the same statement computed (the call's statement now
depends on it, so the function computes it first).

Only when that is provably the same: a module function of this file, defined once and not
decorated; every mention of its name a call in the module's graph code (not a call from other
functions, which could run later) or a function given to ``tf.while_loop`` or ``tf.cond`` there
(``tf.while_loop(cond, body, [i, acc])``, whose ``body`` reads the placeholder ``x``: TF1 traced
it once, where the statement stood; it becomes ``lambda *args: body(*args, x=x)``), reading
placeholders only (TF1's v1 control flow ordered a branch's reads of other ops otherwise than a
``tf.function`` does: ``tf.control_dependencies([upd])`` in a ``tf.cond`` branch); at each
call the names bound to tensors or placeholders of the module graph; and no function it calls
reading graph tensors from the module in turn (they would need them passed too).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.model import GraphFacts, Kind, Scope, Statement
from tf2migrate.analysis.names import read_and_bound
from tf2migrate.traversal import find_all

_PASSED_KINDS = frozenset({Kind.TENSOR, Kind.PLACEHOLDER})


@dataclass
class HelperArguments:
    """A helper whose module graph tensors become keyword-only parameters."""

    function: cst.FunctionDef
    names: tuple[str, ...]
    calls: list[cst.Call]
    # the control-flow calls given the function (``tf.while_loop(cond, body, ...)``)
    traced_by: list[cst.Call]


def find_helper_arguments(facts: GraphFacts, module: cst.Module) -> tuple[dict[int, HelperArguments], dict[str, str]]:
    """The helpers of the module graph that can take the graph tensors they read as
    arguments, by id of their def, and for those that cannot, by name, why not.  The
    statements that call them now depend on those tensors' statements (so a generated
    function computes them before the call)."""
    scope = next((s for s in facts.scopes if isinstance(s.owner, cst.Module) and s.cls is None), None)
    if scope is None:
        return {}, {}
    found: dict[int, HelperArguments] = {}
    refused: dict[str, str] = {}
    for name, helper in facts.helpers.items():
        function = helper.node
        names = tuple(sorted(n for n in helper.own_free_reads if _graph_tensor(scope, n)))
        if "." in name or not names:
            continue
        calls = _calls_in_graph_code(scope, name)
        traced_by = _traced_in_graph_code(facts, scope, name) if calls is not None else []
        mentions = [n for n in find_all(module, m.Name(name)) if n is not function.name]
        if function.decorators or len(scope.bindings.get(name, [])) != 1:
            refused[name] = f"`{name}` is decorated or bound more than once"
        elif any(_graph_tensor(scope, n) for n in helper.free_reads - helper.own_free_reads):
            refused[name] = f"a function `{name}` calls reads graph tensors from the module too"
        elif calls is None:
            refused[name] = f"a statement calling `{name}` is not graph code that moves into the generated functions"
        elif not calls + traced_by or len(calls) + len(traced_by) != len(mentions):
            refused[name] = f"`{name}` is used other than by calls in the module's graph code"
        elif not all(_passable(scope, names, s) for _, s in calls + traced_by):
            refused[name] = f"at a call of `{name}`, a name it reads is not a graph tensor bound before the call"
        elif traced_by and not all(_placeholder(scope, n, s) for n in names for _, s in traced_by):
            # a branch or loop body reading an op outside it (``tf.control_dependencies([upd])`` in
            # ``tf.cond``'s branch): TF1's v1 control flow ordered it otherwise than a tf.function
            refused[name] = f"`{name}`, given to `tf.while_loop` or `tf.cond`, reads a graph tensor that is not a placeholder"
        else:
            found[id(function)] = HelperArguments(function, names, [call for call, _ in calls], [call for call, _ in traced_by])
            for _, statement in calls + traced_by:
                statement.reads = tuple(dict.fromkeys([*statement.reads, *names]))
                statement.deps = statement.deps | {
                    dep.order for n in names if (dep := scope.graph_statement(n, statement.order)) is not None
                }
    return found, refused


def _graph_tensor(scope: Scope, name: str) -> bool:
    """Does the module graph bind ``name`` to a tensor or placeholder (anywhere)?"""
    return any(
        scope.statements[o].kind in _PASSED_KINDS and name not in scope.statements[o].loop_targets for o in scope.bindings.get(name, [])
    )


def _passable(scope: Scope, names: tuple[str, ...], statement: Statement) -> bool:
    """At this call, is each name a tensor or placeholder the module graph bound before
    the calling statement (which TF1's helper read there)?"""
    own = set(read_and_bound(statement.node)[1])
    for name in names:
        bound = scope.graph_statement(name, statement.order)
        if name in own or bound is None or bound.kind not in _PASSED_KINDS:
            return False
    return True


def _placeholder(scope: Scope, name: str, statement: Statement) -> bool:
    bound = scope.graph_statement(name, statement.order)
    return bound is not None and bound.kind is Kind.PLACEHOLDER


def _calls_in_graph_code(scope: Scope, name: str) -> list[tuple[cst.Call, Statement]] | None:
    """Each call of ``name`` with its statement; None when one is not in graph code."""
    calls: list[tuple[cst.Call, Statement]] = []
    for statement in scope.statements:
        own = [c for c in calls_in(statement.node) if m.matches(c.func, m.Name(name))]
        if not own:
            continue
        if statement.kind is not Kind.TENSOR:
            return None
        calls += [(c, statement) for c in own]
    return calls


# graph control flow that traces a function it is given, once, where the call stands
_TRACING_CALLS = frozenset({"while_loop", "cond"})


def _traced_in_graph_code(facts: GraphFacts, scope: Scope, name: str) -> list[tuple[cst.Call, Statement]]:
    """Each ``tf.while_loop`` / ``tf.cond`` of the module's graph code given ``name`` itself as
    an argument (``body``), with its statement, once per such argument."""
    traced: list[tuple[cst.Call, Statement]] = []
    for statement in scope.statements:
        if statement.kind is not Kind.TENSOR:
            continue
        for call in calls_in(statement.node):
            if facts.imports.call_name(call) in _TRACING_CALLS:
                traced += [(call, statement) for a in call.args if m.matches(a.value, m.Name(name))]
    return traced
