"""After the graph analysis of a module whose TF1 summaries were desugared
(``tf1_summaries.desugar``): the runs whose summary values TF1 read in no fixed order are
refused, and the one-line writer blocks that kept line numbers are laid out as blocks."""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.model import GraphFacts, Kind, Scope, Statement
from tf2migrate.analysis.names import graph_name, read_and_bound
from tf2migrate.rewrites.tf1_summaries import SUMMARY_KEPT, Desugared
from tf2migrate.traversal import FastTransformer


def train_run_refusals(facts: GraphFacts, desugared: Desugared) -> list[tuple[cst.CSTNode, str, str]]:
    """Summaries fetched in the same run as a train op that read a variable other than
    through the forward pass the update needs: TF1 evaluated such a read before or after
    the update, in no fixed order (shown by execution: a histogram of the weights got the
    updated values at one step and the old ones at the next); the train step would read
    it before.  Reads in the forward pass came before the update in TF1 too."""
    refused: dict[int, tuple[cst.CSTNode, str, str]] = {}
    for scope in facts.scopes:
        holders = {
            s.order: originals
            for s in scope.statements
            if (originals := [desugared.raw_calls[id(c)] for c in calls_in(s.node) if id(c) in desugared.raw_calls])
        }
        if not holders:
            continue
        for site in scope.run_sites:
            fetched = [s for n in dict.fromkeys(read_and_bound(site.fetch)[0]) if (s := scope.graph_statement(n, site.order)) is not None]
            trains = [s for s in fetched if s.kind is Kind.TRAIN]
            if not trains:
                continue
            updated = _ancestors(scope, trains)
            for statement in _ancestors(scope, fetched).values():
                variables = _variables_read(scope, statement)
                if statement.order in holders and statement.order not in updated and variables:
                    read = ", ".join(f"`{name}`" for name in variables)
                    steps = ", ".join(f"`{name}`" for train in trains for name in train.defines)
                    for original in holders[statement.order]:
                        refused[id(original)] = (
                            original,
                            SUMMARY_KEPT.code,
                            f"this summary reads the variable{'s' if len(variables) > 1 else ''} {read} directly and is fetched "
                            f"in the same run as the train op {steps}: TF1 read {read} before or after the update, in no fixed "
                            "order; fetch the summary in a run without the train op",
                        )
    return list(refused.values())


def _ancestors(scope: Scope, roots: list[Statement]) -> dict[int, Statement]:
    """The roots and every statement of the scope they read, by order."""
    seen: dict[int, Statement] = {}
    stack = list(roots)
    while stack:
        statement = stack.pop()
        if statement.order not in seen:
            seen[statement.order] = statement
            stack += [scope.statements[o] for o in statement.deps]
    return seen


def _variables_read(scope: Scope, statement: Statement) -> list[str]:
    """The names of the variables the statement reads directly."""
    return list(
        dict.fromkeys(
            name for o in sorted(statement.deps) if scope.statements[o].kind is Kind.VARIABLE for name in scope.statements[o].defines
        )
    )


def lay_out(module: cst.Module, writers: set[str]) -> cst.Module:
    """``with w.as_default(): write_raw_pb(...)`` on one line (so line numbers held) → a block."""
    return module.visit(_Expand(writers))


class _Expand(FastTransformer):
    def __init__(self, writers: set[str]) -> None:
        super().__init__()
        self.writers = writers

    def leave_With(self, original_node, updated_node):
        body = updated_node.body
        item = updated_node.items[0].item if len(updated_node.items) == 1 else None
        if (
            isinstance(body, cst.SimpleStatementSuite)
            and isinstance(item, cst.Call)
            and isinstance(item.func, cst.Attribute)
            and item.func.attr.value == "as_default"
            and graph_name(item.func.value) in self.writers
        ):
            line = cst.SimpleStatementLine(body=body.body, trailing_whitespace=body.trailing_whitespace)  # a comment stays
            return updated_node.with_changes(body=cst.IndentedBlock(body=[line]), whitespace_before_colon=cst.SimpleWhitespace(""))
        return updated_node
