"""Helpers the generated code calls, written once per file after its imports.

Some TF1 behaviour has no one-line TF2 spelling (``ScipyOptimizerInterface``'s packing of
the variables, ``RMSPropOptimizer``'s accumulator starting at one).  Such a helper is
emitted once, under a name the file does not use yet, however many call sites need it.
"""

from __future__ import annotations

import re

import libcst as cst

from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.names import fresh_name
from tf2migrate.layout import indented_as
from tf2migrate.plan import Plan
from tf2migrate.rewrites.compat_fallback import end_of_import_block


def emit_once(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str], name: str, code: str) -> str:
    """The name the helper ``name`` (defined by ``code``) has in this file; emitted on
    first use."""
    if name in plan.file_helpers:
        return plan.file_helpers[name]
    local = name if name not in names_in_use else fresh_name(name, names_in_use)
    names_in_use.add(local)
    plan.file_helpers[name] = local
    helper = helper_definition(module, name, local, code)
    plan.add_after(end_of_import_block(module, facts.imports.statements[0]), [helper])
    plan.generated[id(helper)] = helper
    return local


def helper_definition(module: cst.Module, name: str, local: str, code: str) -> cst.BaseStatement:
    """The helper's statement, indented as the module is, two blank lines before it.  The
    template defines ``name`` on its first line: only that definition is renamed ``local``."""
    first, _, rest = indented_as(module, code).partition("\n")
    first = re.sub(rf"\b{re.escape(name)}\b", local, first, count=1)
    return cst.parse_statement(first + "\n" + rest, config=module.config_for_parsing).with_changes(
        leading_lines=[cst.EmptyLine(indent=False)] * 2
    )
