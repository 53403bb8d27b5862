"""One file's source in, migrated source and findings out.

read → prefilter → parse (once) → analyse (once) → plan (rewrites) → apply → check.
All-or-nothing: if any blocker was found, the source comes back unchanged with a finding
per blocking site.  The output is re-parsed before it is returned; a rewrite that
produced invalid code is an internal error, never a written file.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from tf2migrate.analysis.escapes import find_escapes
from tf2migrate.analysis.graph import GraphFacts, Kind, analyze
from tf2migrate.analysis.names import read_and_bound
from tf2migrate.analysis.tf_imports import collect_tf_imports
from tf2migrate.diagnostics import INTERNAL_ERROR, PARSE_ERROR, Diagnostic, Severity, rule
from tf2migrate.plan import Plan, PlanApplier
from tf2migrate.rewrites.session_cleanup import plan_cleanup
from tf2migrate.rewrites.session_functions import SessionFunctions
from tf2migrate.rewrites.tf_import import plan_tf_import


class MigrationResult(NamedTuple):
    new_source: str
    findings: list[Diagnostic]


def _has_tf1_graph(facts: GraphFacts) -> bool:
    """Only files that build and run TF1 graphs are migrated; TF2 code is left alone."""
    if facts.session_names or facts.v1_switches:
        return True
    return any(s.kind is Kind.PLACEHOLDER for scope in facts.scopes for s in scope.statements) or any(
        b.rule.code == "TFM307" for b in facts.blockers
    )


def migrate_source(source: str, path: str = "<string>") -> MigrationResult:
    if "tensorflow" not in source:
        return MigrationResult(source, [])
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        return MigrationResult(source, [_parse_error(source, path, error)])
    try:
        return _migrate_module(module, source, path)
    except RecursionError:
        return MigrationResult(source, [Diagnostic(INTERNAL_ERROR.code, "the file nests too deeply to rewrite", path, 1, 1, Severity.ERROR)])


def _migrate_module(module: cst.Module, source: str, path: str) -> MigrationResult:
    imports = collect_tf_imports(module)
    if not imports.aliases:
        return MigrationResult(source, [])
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    facts = analyze(module, imports)
    if not _has_tf1_graph(facts):
        return MigrationResult(source, [])
    positions = wrapper.resolve(PositionProvider)

    def diagnostic(node: cst.CSTNode, code: str, message: str) -> Diagnostic:
        position = positions.get(node)
        line, column = (position.start.line, position.start.column + 1) if position else (1, 1)
        return Diagnostic(code, message, path, line, column, rule(code).severity)

    reads, binds = read_and_bound(module)
    module_names = set(reads) | set(binds)
    plan = Plan()
    if not facts.blockers:
        find_escapes(facts)
        SessionFunctions(module, facts, plan, set(module_names)).run()
        plan_cleanup(facts, plan)
        plan_tf_import(module, facts, plan, module_names)
    if facts.blockers:
        findings = [diagnostic(b.node, b.rule.code, b.message) for b in facts.blockers]
        return MigrationResult(source, _sorted_unique(findings))
    new_module = module.visit(PlanApplier(plan, imports))
    new_source = new_module.code
    try:
        cst.parse_module(new_source)
    except cst.ParserSyntaxError as error:
        return MigrationResult(
            source,
            [Diagnostic(INTERNAL_ERROR.code, f"rewrite produced invalid code ({error.message}); file left unchanged", path, 1, 1, Severity.ERROR)],
        )
    findings = [diagnostic(f.node, f.code, f.message) for f in plan.findings]
    return MigrationResult(new_source, _sorted_unique(findings))


def _parse_error(source: str, path: str, error: cst.ParserSyntaxError) -> Diagnostic:
    # CPython's parser names the problem better (``Missing parentheses in call to
    # 'print'``) and places it exactly; libcst's words serve when CPython accepts the code.
    try:
        ast.parse(source)
    except SyntaxError as python_error:
        return Diagnostic(
            PARSE_ERROR.code,
            f"cannot parse as Python 3: {python_error.msg}",
            path,
            python_error.lineno or 1,
            python_error.offset or 1,
            Severity.ERROR,
        )
    except (ValueError, RecursionError, MemoryError):
        pass
    return Diagnostic(PARSE_ERROR.code, f"cannot parse: {error.message}", path, error.editor_line, error.editor_column, Severity.ERROR)


def _sorted_unique(findings: list[Diagnostic]) -> list[Diagnostic]:
    seen = set()
    out = []
    for finding in sorted(findings, key=lambda d: (d.line, d.column, d.code, d.message)):
        key = (finding.line, finding.column, finding.code, finding.message)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out
