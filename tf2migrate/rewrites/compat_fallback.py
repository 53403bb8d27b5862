"""A graph that cannot be converted stays on TF1 semantics, and still runs under TF2.

All or nothing: when a file's graph has a blocking site, none of it becomes eager.  The
file is still upgraded as far as names go (TF2 names where they mean the same,
``tf.compat.v1.X`` elsewhere, placeholders and sessions included) and graph mode is
switched on once, right after the imports, so the program runs as it did under TF1.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.graph import GraphFacts
from tf2migrate.diagnostics import FixSafety, Rule, Severity, register
from tf2migrate.plan import Plan

GRAPH_KEPT_ON_TF1 = Rule(
    "TFM404",
    "graph-kept-on-tf1",
    "The file's graph stays on TF1 semantics: tf.compat.v1 and disable_eager_execution().",
    Severity.WARNING,
    FixSafety.SAFE,
    what="When a graph cannot be converted to eager code as a whole (see the TFM3xx "
    "findings of the file), its names are still upgraded and "
    "`tf.compat.v1.disable_eager_execution()` is added once after the imports.",
    why="A half-converted graph would mix graph tensors and eager values. The file keeps "
    "running under TF2 as it ran under TF1 until the blocking sites are rewritten.",
)
register(GRAPH_KEPT_ON_TF1)

SWITCH = "tf.compat.v1.disable_eager_execution()\n"


def plan_compat_fallback(module: cst.Module, facts: GraphFacts, plan: Plan) -> None:
    if facts.v1_switches:
        return  # the file already switches TF2 behaviour off; its call is kept (renamed)
    anchor = end_of_import_block(module, facts.imports.statements[0])
    switch = cst.parse_statement(SWITCH, config=module.config_for_parsing)
    plan.add_after(anchor, [switch])
    plan.note(anchor, GRAPH_KEPT_ON_TF1.code, "graph kept on TF1 semantics; tf.compat.v1.disable_eager_execution() added")


def end_of_import_block(module: cst.Module, tf_import: cst.BaseStatement) -> cst.BaseStatement:
    """The last import of the block the TF import stands in: the switch must follow TF's
    import and should not split an import block."""
    body = list(module.body)
    index = body.index(tf_import)
    while index + 1 < len(body) and _is_import(body[index + 1]):
        index += 1
    return body[index]


def _is_import(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body
    )
