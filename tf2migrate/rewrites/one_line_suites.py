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
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass

import libcst as cst

from ..layout import code_lines, parse_module

MARKER = "# tf2migrate:one-line"

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


@dataclass
class Expanded:
    """The module with each one-line suite as an indented block (lines and columns of the
    original recovered by :meth:`map_line` and :meth:`map_column`)."""

    source: str
    original: str
    suites: list[_Suite]
    body_lines: list[int]  # the expanded text's line of each suite's body, ascending

    def map_line(self, line: int) -> int:
        return line - bisect.bisect_right(self.body_lines, line)

    def map_column(self, line: int, column: int) -> int:
        """The original's column of ``column`` on the expanded text's ``line`` (columns are
        1-based, as findings give them)."""
        at = bisect.bisect_left(self.body_lines, line)
        if at < len(self.body_lines) and self.body_lines[at] == line:
            suite = self.suites[at]
            return max(column - len(suite.indent) - 1, 0) + suite.column  # (the indentation: the body's start)
        return column

    @staticmethod
    def unmarked(message: str) -> str:
        """A finding's message without the markers of the headers it quotes."""
        return message.replace(f"  {MARKER}", "")

    def restore(self, migrated: str) -> str:
        """The migrated text with the blocks the migration left as one simple line on their
        header's line again, and no marker left; the original when nothing else changed."""
        if migrated == self.source:
            return self.original
        if MARKER not in migrated:
            return migrated
        return parse_module(migrated).visit(_Collapse()).code


def expand(source: str, tree: ast.Module | None) -> Expanded | None:
    """``source`` with its one-line suites as indented blocks, or None when it has none (or
    its layout is one this rewrite does not follow: form feeds, lone ``\\r`` line breaks)."""
    if not _MAY_HOLD.search(source) or "\f" in source or "\r" in source.replace("\r\n", ""):
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
    body_lines = []
    for shift, suite in enumerate(suites):
        text = lines[suite.line - 1]
        head = _BLANK_BEFORE.sub("", text[: suite.column - 1])
        out[suite.line - 1] = f"{head}  {MARKER}{newline}{suite.indent}{text[suite.column - 1 :]}"
        body_lines.append(suite.line + shift + 1)
    expanded = newline.join(out) + (newline if source.endswith(("\n", "\r")) else "")
    return Expanded(expanded, source, suites, body_lines)


def _one_line_suites(tree: ast.Module, lines: list[str]) -> set[_Suite]:
    """Every block of the module whose first statement stands on its header's line, its body
    indented one level deeper than its header, with the file's own first level of indentation."""
    found: list[tuple[int, int, str]] = []  # (line, column, header's indentation)
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
            if field in ("handlers", "cases") or not isinstance(first, ast.stmt) or isinstance(node, ast.Module):
                continue
            text = lines[first.lineno - 1]
            column = len(text.encode("utf-8")[: first.col_offset].decode("utf-8", "replace"))
            # the header's indentation: its keyword's line (``else:``/``finally:`` start the body's line)
            keyword = node.lineno if field == "body" and hasattr(node, "lineno") else first.lineno
            indent = _LEADING_BLANK.match(lines[keyword - 1]).group()  # type: ignore[union-attr]
            if not _BLANK_BEFORE.fullmatch(text[:column]):
                found.append((first.lineno, column + 1, indent))
            elif text[:column].startswith(indent) and len(text[:column]) > len(indent):
                units.append((first.lineno, text[len(indent) : column]))
    unit = min(units)[1] if units else "    "
    return {_Suite(line, column, indent + ("\t" if "\t" in indent else unit)) for line, column, indent in found}


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
        if updated_node.comment is not None and updated_node.comment.value == MARKER:
            return cst.RemoveFromParent()
        return updated_node


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
