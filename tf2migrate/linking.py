"""How the files of one run see each other: the project layer reading files as the
engine reads them, and the decisions about helper modules that depend on what their
importers became (engine.py runs the phases).

A helper module (one the run's other files import) is migrated after its importers: a
session factory of it goes when nothing calls it any more, and if it stays on TF1
semantics itself (its fallback switches eager execution off when it is imported), its
importers converted to eager TF2 would break, so they are migrated again seeing its
functions as unknown.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from tf2migrate.analysis.project import FileContext, ModuleSummary, Project
from tf2migrate.analysis.summaries import SESSION, UNKNOWN, Summary
from tf2migrate.diagnostics import Diagnostic
from tf2migrate.notebook import code_cells
from tf2migrate.rewrites.compat_fallback import GRAPH_KEPT_ON_TF1
from tf2migrate.source import SourceError, read_source


class ProjectReader(Project):
    """The project layer, reading modules as the engine reads sources (encoding, BOM and
    newlines as :func:`read_source` keeps them), and each file once: the texts of the
    files the run migrates are handed over, not read again."""

    def __init__(self, run: set[Path]) -> None:
        super().__init__(run)
        self.texts: dict[Path, str] = {}

    def read(self, path: Path) -> str:
        if path not in self.texts:
            try:
                self.texts[path] = read_source(path).text
            except SourceError as exc:
                raise OSError(str(exc)) from exc
        return self.texts[path]

    def context_of(self, path: Path, text: str) -> FileContext | None:
        """None for a file without TF (a notebook is read as the program of its code cells)."""
        if path.suffix == ".ipynb":
            text = "\n".join(source for _, source in code_cells(text))
        if "tensorflow" not in text:
            return None
        return self.context(path, text)


def importers_of(files: list[Path], contexts: list[FileContext | None]) -> dict[int, list[int]]:
    """The helper modules of the run (files other files of the run import), by index,
    each with the indices of the files that import it."""
    index = {path.resolve(): i for i, path in enumerate(files)}
    importers: dict[int, list[int]] = {}
    for i, context in enumerate(contexts):
        for module in context.modules.values() if context is not None else ():
            if module.path in index:
                importers.setdefault(index[module.path], []).append(i)
    return importers


def removable_factories(summary: ModuleSummary, helper_text: str, texts: dict[Path, str]) -> frozenset[str]:
    """The session factories of a helper module that nothing calls any more: not the
    module itself, no file of the run (``texts``: as migrated, for those done), and no
    other Python file in its directory."""
    factories = {name for name, found in summary.names.items() if found.kind == SESSION}
    return frozenset(name for name in factories if not _still_named(name, summary.path, helper_text, texts))


def _still_named(name: str, helper: Path, helper_text: str, texts: dict[Path, str]) -> bool:
    word = re.compile(rf"\b{re.escape(name)}\b")
    if len(word.findall(helper_text)) > 1 or any(word.search(text) for path, text in texts.items() if path != helper):
        return True
    for sibling in helper.parent.glob("*.py"):
        if sibling.resolve() not in texts:
            try:
                if word.search(sibling.read_text(encoding="utf-8", errors="replace")):
                    return True
            except OSError:
                return True
    return False


def kept_on_tf1(findings: list[Diagnostic]) -> bool:
    """Did the file's graph stay on TF1 semantics (the fallback, TFM404)?"""
    return any(d.code == GRAPH_KEPT_ON_TF1.code for d in findings)


def seen_as_unknown(context: FileContext | None, path: Path) -> FileContext:
    """``context`` with every function of the module at ``path`` unknown: that module
    stays on TF1 semantics, so graph code calling it stays there too."""
    reason = f"{path.name} stays on TF1 semantics (graph mode) in this run"
    modules = {
        key: ModuleSummary(found.path, {n: Summary(UNKNOWN, reason=reason, module=path.name) for n in found.names})
        if found.path == path
        else found
        for key, found in (context.modules if context else {}).items()
    }
    return replace(context or FileContext(), modules=modules)
