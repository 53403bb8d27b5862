"""Jupyter notebooks: their code cells are migrated as one program.

A placeholder defined in one cell and fed in another is one graph, so the code cells are
joined into a single module — each cell opened by a marker statement that no rewrite moves
(``__tf2migrate_cell__(N)``) — migrated, and split back at the markers.  IPython syntax
(``%matplotlib inline``, ``!pip …``, ``files = !ls``, ``obj?``) is masked by placeholder
statements and restored exactly; a cell magic such as ``%%bash`` keeps its cell out of the
program, ``%%time`` only hides its first line.  Outputs and metadata are untouched, and the
JSON is written back with the notebook's own indentation and key order, so a diff shows
only the changed source lines.  If any of that cannot be done exactly, the notebook is left
as it was with a finding.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import nbformat

from tf2migrate.diagnostics import NOTEBOOK_UNSUPPORTED, Diagnostic, Severity
from tf2migrate.migrate import Options, migrate_source

_CELL = "__tf2migrate_cell__({})"
_MAGIC = "__tf2migrate_magic__({})"
_CELL_LINE = re.compile(r"^__tf2migrate_cell__\((\d+)\)$")
_MAGIC_LINE = re.compile(r"^(\s*)__tf2migrate_magic__\((\d+)\)$")
# IPython-only lines: magics, shell escapes, assignments from them, and help (``obj?``)
_IPYTHON = re.compile(r"^\s*(%|!)|^\s*[\w.,\s]+=\s*[!%]|^\s*[\w.]+\?\??\s*$")


def migrate_notebook(text: str, path: str, options: Options = Options()) -> tuple[str, list[Diagnostic]]:
    try:
        notebook = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
        raw = json.loads(text)
    except Exception as exc:  # nbformat raises several kinds for a broken notebook
        return text, [_problem(path, f"not a readable notebook: {exc}")]
    layout = _layout(text, raw)
    if layout is None:
        return text, [_problem(path, "the notebook's JSON layout cannot be reproduced; left unchanged")]
    numbers = [n for n, c in enumerate(raw.get("cells", []), start=1) if c.get("cell_type") == "code"]
    cells = [c for c in raw.get("cells", []) if c.get("cell_type") == "code"]
    if len(cells) != sum(1 for c in notebook.cells if c.cell_type == "code"):
        return text, [_problem(path, "the notebook's cells could not be read")]
    masked, magics, starts = _join(cells)
    new_program, findings = migrate_source(masked, path, options)
    findings = [_locate(f, starts, numbers) for f in findings]
    if new_program == masked:
        return text, findings
    sources = _split(new_program, len(cells), magics)
    if sources is None:
        return text, [_problem(path, "the migrated cells could not be mapped back to the notebook; left unchanged")]
    for cell, source in zip(cells, sources):
        old = cell["source"]
        if source.rstrip("\n") == _source(cell).rstrip("\n"):
            continue  # unchanged cell: keep its text to the byte
        cell["source"] = source if isinstance(old, str) else source.splitlines(keepends=True)
    return _dump(raw, layout), findings


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def _join(cells: list[dict]) -> tuple[str, list[str], list[int]]:
    """The cells as one program (IPython masked), the masked lines, each cell's first line."""
    lines: list[str] = []
    magics: list[str] = []
    starts: list[int] = []
    for index, cell in enumerate(cells):
        lines.append(_CELL.format(index))
        starts.append(len(lines) + 1)
        source = _source(cell)
        body = source.split("\n")
        if body and body[0].startswith("%%") and not body[0].startswith(("%%time", "%%timeit")):
            magics.append(source)
            lines.append(_MAGIC.format(len(magics) - 1))
            continue
        for line in body:
            if _IPYTHON.match(line):
                indent = line[: len(line) - len(line.lstrip())]
                magics.append(line.strip())
                lines.append(indent + _MAGIC.format(len(magics) - 1))
            else:
                lines.append(line)
    return "\n".join(lines) + "\n", magics, starts


def _split(program: str, count: int, magics: list[str]) -> list[str] | None:
    """The migrated program back into cell sources, or None if the markers moved."""
    cells: list[list[str]] = []
    for line in program.split("\n"):
        marker = _CELL_LINE.match(line)
        if marker:
            if int(marker.group(1)) != len(cells):
                return None
            cells.append([])
            continue
        if not cells:
            if line.strip():
                return None  # code before the first cell (an import the rewrite added)
            continue
        magic = _MAGIC_LINE.match(line)
        cells[-1].append(magic.group(1) + magics[int(magic.group(2))] if magic else line)
    if len(cells) != count:
        return None
    sources = []
    for lines in cells:
        while lines and not lines[-1].strip():
            lines.pop()  # the joining newline, and blank lines the rewrite left at the end
        sources.append("\n".join(lines))
    return sources


def _locate(finding: Diagnostic, starts: list[int], numbers: list[int]) -> Diagnostic:
    """Point a finding at ``cell N`` (the notebook's 1-based cell number) and its line there."""
    cell = max((i for i, start in enumerate(starts) if start <= finding.line), default=0)
    return replace(finding, path=f"{finding.path}:cell {numbers[cell]}", line=max(finding.line - starts[cell] + 1, 1))


def _layout(text: str, raw: dict) -> dict | None:
    """The json.dumps settings that reproduce the file exactly, if any do."""
    for indent in (1, 2, 4, None):
        for sort_keys in (True, False):
            layout = {"indent": indent, "sort_keys": sort_keys, "ensure_ascii": False}
            if _dump(raw, layout) == text:
                return layout
    return None


def _dump(raw: dict, layout: dict) -> str:
    return json.dumps(raw, **layout) + "\n"


def _problem(path: str, message: str) -> Diagnostic:
    return Diagnostic(NOTEBOOK_UNSUPPORTED.code, message, path, 1, 1, Severity.ERROR)
