"""Jupyter notebooks: their code cells are migrated as one program.

A placeholder defined in one cell and fed in another is one graph, so the code cells are
joined into a single module — each cell opened by a marker statement that no rewrite moves
(``__tf2migrate_cell__(N)``) — migrated, and split back at the markers.  IPython syntax
(``%matplotlib inline``, ``!pip …``, ``files = !ls``, ``obj?``) is masked by placeholder
statements and restored exactly, each reading the program's names its line reads (the code
of ``%timeit sess.run(y, {x: data})``; other magics' and shell escapes' ``{expression}``
and ``$name``): a graph such a line reads stays on TF1 rather than leave it a NameError; a cell magic such as ``%%bash`` keeps its cell out of the
program, ``%%time`` only hides its first line.  Cells are read as IPython's input transformers
read them: a shell escape ending in a backslash goes on at the next line, an alias run without
``%`` (automagic: ``ls ./data``) is IPython where the line is no Python, and a cell may start
indented (``leading_indent``: the first line's indentation comes off every line that has it,
and goes back on a cell the migration changed).  Outputs and metadata are untouched, and the
JSON is written back with the notebook's own indentation, key order and final newline (or
its absence), so a diff shows only the changed source lines.  nbformat 3 notebooks (cells in
``worksheets``, code in ``input``) are migrated in their own format rather than upgraded:
an upgrade would rewrite every line of the file.  If any of that cannot be done exactly,
the notebook is left as it was with a finding.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, replace

import nbformat

from tf2migrate.analysis.descriptions import CELL_MARKER
from tf2migrate.analysis.project import FileContext
from tf2migrate.diagnostics import NOTEBOOK_UNSUPPORTED, Diagnostic, Severity
from tf2migrate.migrate import Options, migrate_source

_CELL = CELL_MARKER + "({})"
_MAGIC = "__tf2migrate_magic__({})"
_CELL_LINE = re.compile(r"^__tf2migrate_cell__\((\d+)\)$")
_MASKED_CALL = "`__tf2migrate_magic__(...)`"
_MAGIC_LINE = re.compile(r"^(\s*)__tf2migrate_magic__\((\d+)(?:, [\w, ]+)?\)$")
# the Python an IPython line reads: a line magic's argument is code (``%timeit sess.run(y)``), a
# shell escape or alias interpolates ``{expression}`` and ``$name``
_SHELL = re.compile(r"^\s*!|^\s*[\w.,\s]+=\s*!|^\s*[a-z]+(\s|$)")
_CODE_MAGIC = re.compile(r"^\s*%\s*(?:time|timeit|prun|debug)\s(.*)$")  # the magics whose argument is Python
_INTERPOLATED = re.compile(r"\{([^{}]*)\}|\$\{?([A-Za-z_]\w*)")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# IPython-only lines: magics, shell escapes, assignments from them, and help (``obj?``)
_IPYTHON = re.compile(r"^\s*(%|!)|^\s*[\w.,\s]+=\s*[!%]|^\s*[\w.]+\?\??\s*$")
# IPython's aliases and magics it runs without ``%`` (automagic): a line starting with one that
# is no Python (``ls ./data/train/``, ``cd ..``; ``pwd`` alone is a name Python reads too)
_AUTOMAGIC = re.compile(r"^\s*(ls|ll|cd|pwd|pip|conda|cat|cp|mv|rm|mkdir|rmdir)(\s|$)")


def _ipython_line(line: str) -> bool:
    if _IPYTHON.match(line):
        return True
    if not _AUTOMAGIC.match(line):
        return False
    try:
        ast.parse(line.strip())
    except SyntaxError:
        return True
    return False


def migrate_notebook(
    text: str, path: str, options: Options = Options(), project: FileContext | None = None
) -> tuple[str, list[Diagnostic]]:
    """``project``: what the notebook's program sees of the modules it imports."""
    try:
        notebook = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
        raw = json.loads(text)
    except Exception as exc:  # nbformat raises several kinds for a broken notebook
        return text, [_problem(path, f"not a readable notebook: {exc}")]
    if not isinstance(raw, dict) or "nbformat" not in raw:
        return text, [_problem(path, "not a notebook: its JSON names no nbformat version")]
    if notebook.get("nbformat") not in (3, 4):
        message = f"nbformat {notebook.get('nbformat')} is not supported; convert it first with "
        return text, [_problem(path, message + "`jupyter nbconvert --to notebook --nbformat 4`")]
    layout = _layout(text, raw)
    if layout is None:
        return text, [_problem(path, "the notebook's JSON layout cannot be reproduced; left unchanged")]
    key = _source_key(raw)
    numbered = _code_cells(raw)
    if len(numbered) != _count_code_cells(notebook):
        return text, [_problem(path, "the notebook's cells could not be read")]
    numbers = [n for n, _ in numbered]
    cells = [c for _, c in numbered]
    joined = _join([_source(c, key) for c in cells])
    new_program, findings = migrate_source(joined.program, path, options, project=project)
    masked = {n + 1: len(m.group(1)) + 1 for n, line in enumerate(joined.program.split("\n")) if (m := _MAGIC_LINE.match(line))}
    # a finding on a masked line is placed at the line's start: its columns are the mask's
    findings = [replace(f, column=masked[f.line]) if f.line in masked else f for f in findings]
    findings = [_locate(f, joined.starts, joined.indents, numbers) for f in findings]
    # a refusal naming a masked line names it as the user wrote it: an IPython line
    findings = [replace(f, message=f.message.replace(_MASKED_CALL, "an IPython line")) for f in findings]
    if new_program == joined.program:
        return text, findings
    sources = _split(new_program, len(cells), joined.magics)
    if sources is None:
        return text, [_problem(path, "the migrated cells could not be mapped back to the notebook; left unchanged")]
    for cell, source, read, indent in zip(cells, sources, joined.cells, joined.indents):
        old = cell[key]
        if source.rstrip("\n") == read.rstrip("\n"):
            continue  # unchanged cell: keep its text to the byte
        source = "\n".join(indent + line if line.strip() else line for line in source.split("\n"))
        cell[key] = source if isinstance(old, str) else source.splitlines(keepends=True)
    return _dump(raw, layout), findings


def notebook_program(text: str) -> str:
    """The code cells as the one program the migration reads (IPython masked): what a tool
    counting a notebook's constructs reads (benchmarks/census.py)."""
    raw = json.loads(text)
    key = _source_key(raw)
    return _join([_source(cell, key) for _, cell in _code_cells(raw)]).program


def code_cells(text: str) -> list[tuple[int, str]]:
    """``(cell number, source)`` of each code cell (1-based over all cells); [] if unreadable."""
    try:
        raw = json.loads(text)
        key = _source_key(raw)
        return [(n, _source(c, key)) for n, c in _code_cells(raw)]
    except (ValueError, TypeError, AttributeError):
        return []


def _source_key(raw: dict) -> str:
    return "input" if raw.get("nbformat") == 3 else "source"


def _code_cells(raw: dict) -> list[tuple[int, dict]]:
    """Each code cell with its 1-based number among all cells (nbformat 3: of all worksheets)."""
    if raw.get("nbformat") == 3:
        every = [c for sheet in raw.get("worksheets", []) for c in sheet.get("cells", [])]
    else:
        every = raw.get("cells", [])
    return [(n, c) for n, c in enumerate(every, start=1) if c.get("cell_type") == "code"]


def _count_code_cells(notebook) -> int:
    """The code cells nbformat itself reads, to check :func:`_code_cells` against."""
    if notebook.nbformat == 4:
        every = notebook.get("cells", [])
    else:
        every = [c for sheet in notebook.get("worksheets", []) for c in sheet.get("cells", [])]
    return sum(1 for c in every if c.get("cell_type") == "code")


def _source(cell: dict, key: str) -> str:
    source = cell.get(key, "")
    return source if isinstance(source, str) else "".join(source)


@dataclass
class _Joined:
    """The cells as one program: its text (IPython masked), the masked text, the line each
    cell starts on, each cell as read (its IPython indentation taken off) and that indentation."""

    program: str
    magics: list[str]
    starts: list[int]
    cells: list[str]
    indents: list[str]


def _join(cells: list[str]) -> _Joined:
    lines: list[str] = []
    joined = _Joined("", [], [], [], [])
    for index, source in enumerate(cells):
        lines.append(_CELL.format(index))
        joined.starts.append(len(lines) + 1)
        body = source.split("\n")
        # IPython takes the first code line's indentation off every line that has it
        # (its ``leading_indent`` transformer): a cell may start indented
        first = next((line for line in body if line.strip()), "")
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        body = [line[len(indent) :] if line.startswith(indent) else line for line in body]
        joined.indents.append(indent)
        joined.cells.append("\n".join(body))
        if body and body[0].startswith("%%") and not body[0].startswith(("%%time", "%%timeit")):
            joined.magics.append("\n".join(body))
            lines.append(_MAGIC.format(len(joined.magics) - 1))
            continue
        continuation = _Continuation()
        escaped: str | None = None  # the indentation of an IPython line ending in a backslash
        for line in body:
            if escaped is not None and line.startswith(escaped):
                # the escaped line goes on (``!t2t-datagen \`` then ``  --data_dir=...``)
                joined.magics.append(line[len(escaped) :])
                lines.append(escaped + _MAGIC.format(len(joined.magics) - 1))
                escaped = escaped if line.endswith("\\") else None
            elif continuation.starts_statement() and _ipython_line(line):
                start = line[: len(line) - len(line.lstrip())]
                joined.magics.append(line[len(start) :])  # trailing spaces kept: restored to the byte
                lines.append(start + _MAGIC.format(len(joined.magics) - 1))
                escaped = start if line.endswith("\\") else None
            else:
                escaped = None
                continuation.read(line)
                lines.append(line)
    joined.program = _with_reads("\n".join(lines) + "\n", joined.magics)
    return joined


def _with_reads(program: str, magics: list[str]) -> str:
    """The program, each masked line given the names of the program it reads as arguments
    (``__tf2migrate_magic__(3, sess, x)``): a line magic timing ``sess.run(y, {x: data})``
    reads the session and the placeholder the migration would otherwise remove, leaving the
    magic a NameError; so read, they keep the graph (or stay bound)."""
    lines = program.split("\n")
    # (the identifiers each masked line reads, first: most notebooks' magics read none, and
    # then the program is not parsed for the names it binds)
    wanted: dict[int, set[str]] = {}
    for number, line in enumerate(lines):
        magic = _MAGIC_LINE.match(line)
        if magic and (identifiers := set(_IDENTIFIER.findall(_read_text(magics[int(magic.group(2))])))):
            wanted[number] = identifiers
    if not wanted:
        return program
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return program
    bound = {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    bound |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    bound |= {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    for number, identifiers in wanted.items():
        reads = sorted(identifiers & bound)
        if reads:
            magic = _MAGIC_LINE.match(lines[number])
            assert magic is not None
            lines[number] = f"{magic.group(1)}__tf2migrate_magic__({magic.group(2)}, {', '.join(reads)})"
    return "\n".join(lines)


def _read_text(text: str) -> str:
    """The part of a masked IPython line that is Python it reads."""
    if "\n" in text:
        return ""  # (a cell magic's cell is no Python)
    code = _CODE_MAGIC.match(text)
    if code:
        return re.sub(r"(^|\s)-\w+(\s+\d+)?", " ", code.group(1))  # (``-n 10``: its options)
    if _SHELL.match(text) or text.lstrip().startswith("%"):
        # (``%tensorflow_version 1.x``, ``%watermark -p numpy``: words, not names)
        return " ".join(a or b for a, b in _INTERPOLATED.findall(text.split("!", 1)[-1]))
    return ""  # help, ``obj?``: an object IPython does not find is a message, no error


class _Continuation:
    """Whether the next line of a cell starts a statement.  IPython syntax is only
    recognised there: a line inside brackets, a string or after a backslash continues
    Python code (``print ("%d items"`` then ``       % (n,))``: the modulo operator, not
    a magic; ``(a`` then ``  != b)``), as IPython's own input transformers see it."""

    def __init__(self) -> None:
        self.depth = 0  # open brackets
        self.quote: str | None = None  # the delimiter of the string the line ends in
        self.backslash = False

    def starts_statement(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.backslash

    def read(self, line: str) -> None:
        i = 0
        while i < len(line):
            if self.quote is not None:
                if line[i] == "\\":
                    i += 2
                elif line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = None
                else:
                    i += 1
                continue
            char = line[i]
            if char == "#":
                line = line[:i]
                break
            if line.startswith(('"""', "'''"), i):
                self.quote = line[i : i + 3]
                i += 3
                continue
            if char in "\"'":
                self.quote = char
            elif char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(self.depth - 1, 0)
            i += 1
        self.backslash = line.endswith("\\")
        if self.quote in ("'", '"') and not self.backslash:
            self.quote = None  # a one-line string ends with its line (or is an error Python reports)


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


def _locate(finding: Diagnostic, starts: list[int], indents: list[str], numbers: list[int]) -> Diagnostic:
    """Point a finding at ``cell N`` (the notebook's 1-based cell number) and its line and
    column there (the cell's IPython indentation given back)."""
    cell = _cell_of(finding.line, starts)
    return replace(
        finding,
        path=f"{finding.path}:cell {numbers[cell]}",
        line=max(finding.line - starts[cell] + 1, 1),
        column=finding.column + len(indents[cell]),
        message=_LINE_IN_MESSAGE.sub(lambda match: _cell_line(int(match[1]), cell, starts, numbers), finding.message),
    )


# a line CPython's syntax error names (``expected an indented block after 'for' statement on
# line 191``, ``'(' was never closed``'s opener): a line of the joined program
_LINE_IN_MESSAGE = re.compile(r"\bon line (\d+)\b")


def _cell_of(line: int, starts: list[int]) -> int:
    return max((i for i, start in enumerate(starts) if start <= line), default=0)


def _cell_line(line: int, finding_cell: int, starts: list[int], numbers: list[int]) -> str:
    """``on line N`` of the joined program as the notebook numbers it: the line in its cell,
    and the cell when it is not the finding's."""
    cell = _cell_of(line, starts)
    where = f"on line {max(line - starts[cell] + 1, 1)}"
    return where if cell == finding_cell else f"{where} of cell {numbers[cell]}"


def _layout(text: str, raw: dict) -> dict | None:
    """The json.dumps settings (and final newline or none) that reproduce the file exactly.

    A setting the text's first lines already rule out is not tried (``json.dumps`` with an
    indent runs in Python, and a large notebook's dump costs a tenth of a second)."""
    # Colab writes ``<``, ``>`` and ``&`` as ``\u003c``, ``\u003e``, ``\u0026`` (HTML-safe JSON)
    html_safe = any(escape in text for escape in _HTML_ESCAPES.values())
    for end in ("\n", ""):
        if not text.endswith(end) or (not end and text.endswith("\n")):
            continue
        for indent in (1, 2, 4, None):
            if raw and not _may_be_indented(text, indent):
                continue
            for sort_keys in (True, False):
                layout = {"indent": indent, "sort_keys": sort_keys, "ensure_ascii": False, "end": end, "html_safe": html_safe}
                if _dump(raw, layout) == text:
                    return layout
    return None


# (JSON's own syntax holds none of these characters: each one stands in a string)
_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def _may_be_indented(text: str, indent: int | None) -> bool:
    """Can ``text`` be a non-empty dict dumped with this indent?  Indented, it opens with
    ``{`` and a line break, then the first key at that indent; on one line, it holds no
    line break but the final one."""
    if indent is None:
        return "\n" not in text.rstrip("\n")
    return text.startswith("{\n" + " " * indent + '"')


def _dump(raw: dict, layout: dict) -> str:
    settings = dict(layout)
    end, html_safe = settings.pop("end"), settings.pop("html_safe")
    text = json.dumps(raw, **settings)
    for character, escape in _HTML_ESCAPES.items() if html_safe else ():
        text = text.replace(character, escape)
    return text + end


def _problem(path: str, message: str) -> Diagnostic:
    return Diagnostic(NOTEBOOK_UNSUPPORTED.code, message, path, 1, 1, Severity.ERROR)
