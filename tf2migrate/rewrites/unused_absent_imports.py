"""Unused imports of TF modules TF2 does not ship, removed.

Tutorials import ``tensorflow.contrib.slim as slim`` (awjuliani/DeepRL-Agents' bandits) or
``from tensorflow.contrib import rnn`` out of habit, and never use the name.  TF2 has no
``tensorflow.contrib``: the migrated file failed at that import (TFM403, "import kept as
written"), whatever became of its graph, although nothing in it needs the module.  A
module-level import whose every bound name the file never reads again is removed, its
comments kept for the next statement, and said (TFM402); its TFM403 goes with it.

The post-pass of every file (migrate.py), on the migrated text: an import the migration
kept is kept with its finding when the file reads the name anywhere (any ``Name`` of it
but the import's own), declares ``__all__`` (a name it exports), or another file of the
run imports the module and writes the name (``from script import slim``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.tf_imports import dotted_name
from tf2migrate.positions import Positions
from tf2migrate.rewrites.tf_names import ABSENT_PACKAGES, absent_module
from tf2migrate.traversal import find_all


@dataclass
class Removal:
    """The text without the unused imports, and for each one removed: its line (1-based)
    and how it was written."""

    new_source: str
    removed: list[tuple[int, str]] = field(default_factory=list)


def may_import_absent_module(source: str) -> bool:
    """A cheap test that there is nothing to do: no text of the packages."""
    return any(package in source for package in ABSENT_PACKAGES)


def remove_unused_absent_imports(
    source: str, importer_names: frozenset[str] = frozenset(), tree: ast.Module | None = None
) -> Removal | None:
    """The source without its unused module-level imports of ``tensorflow.contrib`` /
    ``tensorflow.examples``; None when there is none (or the text does not parse).
    ``tree``: CPython's tree of ``source``, when at hand: where it shows every such import
    read, the text is not parsed with libcst (most files that import ``tensorflow.contrib``
    use it; that parse was most of this pass's time)."""
    if tree is not None and _all_read(tree):
        return None
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    names = [n for n in find_all(module, cst.Name) if isinstance(n, cst.Name)]
    if any(n.value == "__all__" for n in names):
        return None
    unused: list[cst.SimpleStatementLine] = []
    for statement in module.body:
        bound = _absent_import_names(statement)
        if not bound:
            continue
        own = {id(n) for n in find_all(statement, cst.Name)}
        if not any(n.value in bound and id(n) not in own for n in names) and not bound & importer_names:
            unused.append(statement)  # type: ignore[arg-type]  # (_absent_import_names checked the kind)
    if not unused:
        return None
    positions = Positions(module)
    removed = [((positions.get(s) or (0, 0))[0], module.code_for_node(s.body[0])) for s in unused]
    return Removal(_without(module, {id(s) for s in unused}).code, removed)


def in_original(source: str, removed: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The removed imports at their lines in ``source``, the text the migration read:
    the pass runs on the migrated text, whose lines are not the original's where the
    migration added or removed lines above an import (``from absl import flags`` written
    for ``tf.flags``, a helper class), and findings name the original's lines.  An import
    the migration kept is the original's statement as written: the k-th removed import of
    a text is the k-th module-level import of that text in ``source``.  One not found there
    (``source`` does not parse) keeps the migrated text's line."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return removed
    positions = Positions(module)
    found: dict[str, list[int]] = {}
    for statement in module.body:
        if _absent_import_names(statement):  # (a line of one import)
            written = module.code_for_node(cst.ensure_type(statement, cst.SimpleStatementLine).body[0])
            found.setdefault(written, []).append((positions.get(statement) or (0, 0))[0])
    at: list[tuple[int, str]] = []
    for line, written in removed:
        lines = found.get(written)
        at.append((lines.pop(0) if lines else line, written))
    return at


def _all_read(tree: ast.Module) -> bool:
    """Does CPython's tree show that the libcst pass would remove nothing: the module names
    ``__all__``, or each module-level import of an absent package has a name that some
    ``ast.Name`` reads?  (Every ``ast.Name`` is a libcst ``Name`` outside any import; the
    imports looked at here are all those ``_absent_import_names`` could take, and more.)"""
    imported = [bound for statement in tree.body if (bound := _ast_absent_import_names(statement))]
    if not imported:
        return True
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return "__all__" in names or all(bound & names for bound in imported)


def _ast_absent_import_names(statement: ast.stmt) -> set[str]:
    """``_absent_import_names`` of CPython's statement (whether or not it shares its line)."""
    if isinstance(statement, ast.Import):
        if not all(absent_module(a.name) and a.asname is not None for a in statement.names):
            return set()
        return {a.asname for a in statement.names if a.asname is not None}
    if isinstance(statement, ast.ImportFrom) and statement.module is not None and not statement.level:
        if any(a.name == "*" for a in statement.names) or not absent_module(statement.module):
            return set()
        return {a.asname or a.name for a in statement.names}
    return set()


def _absent_import_names(statement: cst.CSTNode) -> set[str]:
    """The names a line holding one import of an absent package binds (``slim`` of ``import
    tensorflow.contrib.slim as slim``, ``rnn`` of ``from tensorflow.contrib import rnn``);
    empty for anything else, and for ``import tensorflow.contrib.x`` without ``as`` (it binds
    ``tensorflow``) and star imports."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return set()
    small = statement.body[0]
    if isinstance(small, cst.Import):
        if not all(absent_module(dotted_name(a.name) or "") and a.asname is not None for a in small.names):
            return set()
        return {a.evaluated_alias for a in small.names if a.evaluated_alias is not None}
    if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
        if isinstance(small.names, cst.ImportStar) or not absent_module(dotted_name(small.module) or ""):
            return set()
        return {a.evaluated_alias or a.evaluated_name for a in small.names}
    return set()


def _without(module: cst.Module, removed: set[int]) -> cst.Module:
    """The module without those statements; the comments above each go to the next one."""
    body: list[cst.BaseStatement] = []
    comments: list[cst.EmptyLine] = []
    for statement in module.body:
        if id(statement) in removed:
            comments += [line for line in statement.leading_lines if line.comment is not None]
            continue
        body.append(statement.with_changes(leading_lines=[*comments, *statement.leading_lines]))
        comments = []
    return module.with_changes(body=body, footer=[*comments, *module.footer])
