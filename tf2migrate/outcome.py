"""The last step of every migration, whichever way the file was rewritten: the new source
is checked (valid Python, nothing left undefined, only TF2 paths: ``output_check``) and
the findings placed on nodes become diagnostics at their line and column."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

import libcst as cst

from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import INTERNAL_ERROR, Diagnostic, Severity
from tf2migrate.output_check import problem_of
from tf2migrate.rules import rule


class Located(NamedTuple):
    """Where a finding is when no libcst node holds it (``fragment_text``'s edits):
    1-based line, 0-based column in characters."""

    line: int
    column: int


RawFinding = tuple[cst.CSTNode | Located, str, str]  # the node it is about (or its place), the code, the message


class MigrationResult(NamedTuple):
    new_source: str
    findings: list[Diagnostic]


class NodePositions(Protocol):
    def get(self, node: cst.CSTNode) -> tuple[int, int] | None:
        """1-based line, 0-based column of the node in the original source."""


def outcome(
    source: str,
    new_source: str,
    tree: ast.Module,
    imports: TfImports,
    path: str,
    positions: NodePositions,
    kept: Sequence[RawFinding],
    made: Sequence[RawFinding],
    renamed: Sequence[RawFinding],
    check: Callable[[], str | None] | None = None,
) -> MigrationResult:
    """``kept``: findings that stand whether or not the file changes (blockers, imports
    kept, traps); ``made``: those of the edits made; ``renamed``: the renamer's;
    ``check``: why the new source must not be written (default: ``problem_of`` it)."""
    if new_source == source:
        # nothing to change, but code that cannot run on TF2 (tf.contrib) is still reported
        unrunnable = [f for f in renamed if rule(f[1]).severity is Severity.ERROR]
        return MigrationResult(source, placed([*kept, *unrunnable], positions, path))
    problem = check() if check is not None else problem_of(tree, new_source, imports)
    if problem is not None:
        return MigrationResult(source, [Diagnostic(INTERNAL_ERROR.code, f"{problem}; file left unchanged", path, 1, 1, Severity.ERROR)])
    return MigrationResult(new_source, placed([*kept, *made, *renamed], positions, path))


def placed(raw: Sequence[RawFinding], positions: NodePositions, path: str) -> list[Diagnostic]:
    """Diagnostics at the nodes' positions, sorted, each once."""
    out = []
    for node, code, message in raw:
        position = tuple(node) if isinstance(node, Located) else positions.get(node)
        line, column = (position[0], position[1] + 1) if position else (1, 1)
        out.append(Diagnostic(code, message, path, line, column, rule(code).severity))
    return sorted_unique(out)


def sorted_unique(findings: list[Diagnostic]) -> list[Diagnostic]:
    seen = set()
    out = []
    for finding in sorted(findings, key=lambda d: (d.line, d.column, d.code, d.message)):
        key = (finding.line, finding.column, finding.code, finding.message)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out
