"""One-line suites (``def f(x): return x + 1``, ``if a: b``, ``else: c``) → indented blocks
for the migration, and back where the migration left them alone.

Python lets a compound statement hold its body on its header's line when the body is
simple statements.  It is the same program as the body on its own indented line, but the
rewrites (and the analyses under them) read a block's statements from an indented block:
a helper written ``def dense(x): return tf.layers.dense(x, 4)``, a one-line ``if`` in graph
code or a one-line ``def`` anywhere in a file whose graph a rewrite reads, made the whole
file an internal error (TFM002), its TF1 code left as it was.  Rather than teach every
rewrite a second form of block, the file is migrated in the one form::

    def input_fn(): return read(files)          def input_fn():  # tf2migrate:one-line
                                          →         return read(files)

(a TF1-to-TF1 rewrite, like rewrites/main_guard.py: only the layout changes, so the
migration of the expanded text means what the original would have).  Each expanded header
carries a marker comment; in the migrated text a marked block whose body is still one
simple line is written back on its header's line, as the user wrote it, and every other
marker is dropped (a block the migration changed keeps the indented form).  Findings of
the expanded text are placed on the original's lines and columns.

Simple statements sharing a line (``sess.run(init); out = sess.run(y, {x: X})``) are one
statement to libcst, and the rewrites remove, move and refuse statements: an initializer
run so written was refused as "the value of an initializer run is used", two placeholders
on one line as "not assigned at the top level of its scope".  They are migrated each on a
line of its own too, the first marked ``# tf2migrate:same-line``, the next one under a
``# tf2migrate:continues-line`` line (which moves with it); in the migrated text the two
are joined again where they still stand side by side, and only there (a statement moved
into a generated function is not joined to the ``return`` the function ends with)::

    sess.run(init); out = sess.run(y, {x: X})   →   sess.run(init);  # tf2migrate:same-line
                                                    # tf2migrate:continues-line
                                                    out = sess.run(y, {x: X})
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from ..layout import code_lines, parse_module

MARKER = "# tf2migrate:one-line"
JOINED = "# tf2migrate:same-line"  # a simple statement the next one followed on its line
CONTINUED = "# tf2migrate:continues-line"  # (a line of its own) above the statement that followed

# a compound statement's header followed, on its line, by something other than a comment:
# the cheap test before CPython's tree is read (slices and lambdas match too; the tree decides)
_MAY_HOLD = re.compile(r"^[ \t]*(?:def|class|if|elif|else|for|while|with|try|except|finally|async)\b[^\n#]*:[ \t]*[^\s#\\]", re.M)
_LEADING_BLANK = re.compile(r"[ \t\f]*")
_BLANK_BEFORE = re.compile(r"[ \t\f]*$")


@dataclass(frozen=True, order=True)
class _Suite:
    line: int  # the original's line of the header's colon and the body's first statement
    column: int  # the body's first column (characters)
    indent: str  # the expanded body's indentation
    joined: bool = False  # a statement after a semicolon (not a block's body)


@dataclass
class Expanded:
    """The module with each one-line suite as an indented block (lines and columns of the
    original recovered by :meth:`map_line` and :meth:`map_column`)."""

    source: str
    original: str
    suites: list[_Suite]
    body_lines: list[int]  # the expanded text's lines added (each body, each continuation's marker line), ascending
    placed: list[_Suite]  # the cut each of them comes from

    def map_line(self, line: int) -> int:
        return line - bisect.bisect_right(self.body_lines, line)

    def map_column(self, line: int, column: int) -> int:
        """The original's column of ``column`` on the expanded text's ``line`` (columns are
        1-based, as findings give them)."""
        at = bisect.bisect_left(self.body_lines, line)
        if at < len(self.body_lines) and self.body_lines[at] == line:
            suite = self.placed[at]
            return max(column - len(suite.indent) - 1, 0) + suite.column  # (the indentation: the body's start)
        return column

    @staticmethod
    def unmarked(message: str) -> str:
        """A finding's message without the markers of the headers it quotes."""
        return message.replace(f"  {MARKER}", "").replace(f"  {JOINED}", "").replace(f"{CONTINUED}\n", "")

    def restore(self, migrated: str) -> str:
        """The migrated text with the blocks the migration left as one simple line on their
        header's line again, and no marker left; the original when nothing else changed."""
        if migrated == self.source:
            return self.original
        if MARKER not in migrated and JOINED not in migrated:
            return migrated
        return parse_module(migrated).visit(_Join()).visit(_Collapse()).code


def expand(source: str, tree: ast.Module | None) -> Expanded | None:
    """``source`` with its one-line suites as indented blocks, or None when it has none (or
    its layout is one this rewrite does not follow: form feeds, lone ``\\r`` line breaks)."""
    if not (_MAY_HOLD.search(source) or ";" in source) or "\f" in source or "\r" in source.replace("\r\n", ""):
        return None
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return None
    lines = code_lines(source)
    suites = sorted(_one_line_suites(tree, lines))
    if not suites:
        return None
    newline = "\r\n" if "\r\n" in source else "\n"
    out = list(lines)
    body_lines, placed, shift = [], [], 0
    for suite in suites:
        added = 2 if suite.joined else 1  # (a continuation: its marker line, then its statement)
        body_lines += [suite.line + shift + n for n in range(1, added + 1)]
        placed += [suite] * added
        shift += added
    for line in sorted({suite.line for suite in suites}):
        # a line's pieces, cut at each body's or statement's start (columns ascending)
        cuts = [suite for suite in suites if suite.line == line]
        text = lines[line - 1]
        pieces, start = [], 0
        for cut in cuts:
            pieces.append(text[start : cut.column - 1])
            start = cut.column - 1
        pieces.append(text[start:])
        laid = pieces[0]
        for cut, piece in zip(cuts, pieces[1:]):
            if cut.joined:
                laid = f"{_BLANK_BEFORE.sub('', laid)}  {JOINED}{newline}{cut.indent}{CONTINUED}{newline}{cut.indent}{piece}"
            else:
                laid = f"{_BLANK_BEFORE.sub('', laid)}  {MARKER}{newline}{cut.indent}{piece}"
        out[line - 1] = laid
    expanded = newline.join(out) + (newline if source.endswith(("\n", "\r")) else "")
    return Expanded(expanded, source, suites, body_lines, placed)


def _one_line_suites(tree: ast.Module, lines: list[str]) -> set[_Suite]:
    """Every block of the module whose first statement stands on its header's line, its body
    indented one level deeper than its header, with the file's own first level of indentation."""
    found: list[tuple[int, int, str]] = []  # (line, column, header's indentation)
    joined: list[tuple[int, int, str | None, str]] = []  # (line, column, the block's indentation or None: its body's, header's)
    units: list[tuple[int, str]] = []  # (line, indentation added) of blocks on their own lines
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], (ast.stmt, ast.excepthandler, ast.match_case)):
                continue
            stack.extend(block)
            first = block[0]
            if field in ("handlers", "cases") or not isinstance(first, ast.stmt):
                continue
            text = lines[first.lineno - 1]
            column = len(text.encode("utf-8")[: first.col_offset].decode("utf-8", "replace"))
            on_header = not isinstance(node, ast.Module) and not _BLANK_BEFORE.fullmatch(text[:column])
            own = None if on_header else _LEADING_BLANK.match(text).group()  # type: ignore[union-attr]
            # the header's indentation: its keyword's line (``else:``/``finally:`` start the body's line)
            keyword = node.lineno if field == "body" and hasattr(node, "lineno") else first.lineno
            indent = _LEADING_BLANK.match(lines[keyword - 1]).group()  # type: ignore[union-attr]
            for before, statement in zip(block, block[1:]):
                # ``a = 1; b = 2``: a statement starting on the line its predecessor ends on
                if statement.lineno == before.end_lineno and before.end_lineno is not None:
                    line_text = lines[statement.lineno - 1]
                    at = len(line_text.encode("utf-8")[: statement.col_offset].decode("utf-8", "replace"))
                    joined.append((statement.lineno, at + 1, own, indent))
            if isinstance(node, ast.Module):
                continue
            if on_header:
                found.append((first.lineno, column + 1, indent))
            elif text[:column].startswith(indent) and len(text[:column]) > len(indent):
                units.append((first.lineno, text[len(indent) : column]))
    unit = min(units)[1] if units else "    "
    suites = {_Suite(line, column, indent + ("\t" if "\t" in indent else unit)) for line, column, indent in found}
    suites |= {
        _Suite(line, column, own if own is not None else header + ("\t" if "\t" in header else unit), joined=True)
        for line, column, own, header in joined
    }
    return suites


class _Collapse(cst.CSTTransformer):
    """Marked blocks still one simple line → on their header's line; the markers dropped."""

    def __init__(self) -> None:
        super().__init__()
        self.default_indent = "    "

    def visit_Module(self, node: cst.Module) -> None:
        self.default_indent = node.default_indent

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.BaseSuite:
        # (the header's own comment is already dropped below: the original's tells the marker)
        if original_node.header.comment is None or original_node.header.comment.value != MARKER:
            return updated_node
        body = updated_node.body
        if len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and not body[0].leading_lines and not updated_node.footer:
            # lines the body continues on (in brackets) are indented from the block's
            # indentation: on the header's line, they keep their columns with it added back
            kept = _Deeper(self.default_indent if updated_node.indent is None else updated_node.indent)
            line = body[0].visit(kept)
            assert isinstance(line, cst.SimpleStatementLine)
            return cst.SimpleStatementSuite(body=line.body, trailing_whitespace=line.trailing_whitespace)
        return updated_node

    def leave_TrailingWhitespace(
        self, original_node: cst.TrailingWhitespace, updated_node: cst.TrailingWhitespace
    ) -> cst.TrailingWhitespace:
        if updated_node.comment is not None and updated_node.comment.value == MARKER:
            return cst.TrailingWhitespace(newline=updated_node.newline)
        return updated_node

    def leave_EmptyLine(self, original_node: cst.EmptyLine, updated_node: cst.EmptyLine) -> cst.EmptyLine | cst.RemovalSentinel:
        # (a rewrite that unwraps a block keeps its header's comment as a line of its own)
        if updated_node.comment is not None and updated_node.comment.value in (MARKER, JOINED, CONTINUED):
            return cst.RemoveFromParent()
        return updated_node


class _Join(cst.CSTTransformer):
    """Statements that shared a line still side by side → on one line again (before
    :class:`_Collapse`, which may then put a block of one such line on its header's)."""

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=_joined(updated_node.body))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        return updated_node.with_changes(body=_joined(updated_node.body))


def _joined(body: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """A block's statements with each simple line marked as followed on its line joined to
    the next one, when that is the statement that followed it (its marker line above it, and
    nothing else); the markers (and the semicolons ending a line) of the others dropped."""
    out: list[cst.BaseStatement] = []
    for statement in body:
        previous = out[-1] if out else None
        lines = statement.leading_lines if isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) else ()
        continued = [line for line in lines if line.comment is not None and line.comment.value == CONTINUED]
        if continued:
            statement = statement.with_changes(leading_lines=[line for line in lines if line not in continued])
        if _is_joined(previous) and isinstance(statement, cst.SimpleStatementLine) and continued and len(lines) == 1:
            assert isinstance(previous, cst.SimpleStatementLine)
            last = previous.body[-1]
            semicolon = last.semicolon if isinstance(last.semicolon, cst.Semicolon) else cst.Semicolon()
            last = last.with_changes(semicolon=semicolon.with_changes(whitespace_after=cst.SimpleWhitespace(" ")))
            out[-1] = previous.with_changes(
                body=[*previous.body[:-1], last, *statement.body], trailing_whitespace=statement.trailing_whitespace
            )
            continue
        if _is_joined(previous):
            out[-1] = _unjoined(cst.ensure_type(previous, cst.SimpleStatementLine))
        out.append(statement)
    if out and _is_joined(out[-1]):
        out[-1] = _unjoined(cst.ensure_type(out[-1], cst.SimpleStatementLine))
    return out


def _is_joined(statement: cst.BaseStatement | None) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    comment = statement.trailing_whitespace.comment
    return comment is not None and comment.value == JOINED


def _unjoined(line: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    """A marked line left alone: without its marker and its closing semicolon."""
    last = line.body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return line.with_changes(
        body=[*line.body[:-1], last], trailing_whitespace=cst.TrailingWhitespace(newline=line.trailing_whitespace.newline)
    )


class _Deeper(cst.CSTTransformer):
    """The continuation lines libcst indents with their block's indentation, ``indent`` deeper."""

    def __init__(self, indent: str) -> None:
        super().__init__()
        self.indent = indent

    def leave_ParenthesizedWhitespace(
        self, original_node: cst.ParenthesizedWhitespace, updated_node: cst.ParenthesizedWhitespace
    ) -> cst.ParenthesizedWhitespace:
        if not updated_node.indent:
            return updated_node
        return updated_node.with_changes(last_line=cst.SimpleWhitespace(self.indent + updated_node.last_line.value))

    def leave_EmptyLine(self, original_node: cst.EmptyLine, updated_node: cst.EmptyLine) -> cst.EmptyLine:
        if not updated_node.indent:
            return updated_node
        return updated_node.with_changes(whitespace=cst.SimpleWhitespace(self.indent + updated_node.whitespace.value))
