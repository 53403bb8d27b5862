"""Rename-only fragments whose every edit is a whole reference, written as text.

Most statements that ``renames_only`` cuts out of a library file need nothing but
references renamed whole: ``tf.log`` → ``tf.math.log``, ``tf.placeholder_with_default``
→ ``tf.compat.v1.placeholder_with_default``.  The libcst renamer replaces such a chain by
a new node spelled as the rename table says; here the same decision
(``tf_names.reference_spelling``) is written over the chain's characters, found by
CPython's tree, which ``renames_only`` already has.  Parsing the statement with libcst,
walking it and rendering it back (and rendering it once more for the findings'
positions) bought nothing else.

The text path only takes what it reproduces exactly; anything else sends the fragment
to libcst (``None``):

- a call the renamer rewrites with its arguments (a keyword renamed, a reordered
  positional, ``tf.to_float(x)``, ``tf.app.run``; the call-site fixes are asked of
  ``tf_names.rewritten_call`` itself, on a call of the same argument shape) or a TF1
  iterator method (``dataset.make_one_shot_iterator()``);
- ``x.shape[i].value``;
- a TF name on its own (``tf``, or a name imported from TensorFlow), not as the root of
  an attribute chain;
- a chain written with anything but names and dots (spaces, parentheses, comments,
  line breaks), or inside an f-string.

``tests/test_renames_only.py`` compares the whole-module path with this one on every
fixture and on odd layouts.
"""

from __future__ import annotations

import ast
import operator
import re
from typing import NamedTuple

import libcst as cst

from tf2migrate.analysis.module_facts import ast_dotted_name, is_dimension_comprehension, is_dimension_value
from tf2migrate.analysis.tf_imports import ITERATOR_METHODS, TfImports, dotted_name
from tf2migrate.outcome import Located
from tf2migrate.rewrites.tf_names import CALLS_READING_ARGUMENTS, CALLS_TRANSFORMED, call_rewritten, reference_spelling, rewritten_call

_PLAIN_CHAIN = re.compile(r"[\w.]+")


class TextRenames(NamedTuple):
    text: str  # the fragment's new text
    findings: list[tuple[Located, str, str]]
    absl_modules: set[str]  # absl modules the new text names


class _NeedsLibcst(Exception):
    """The fragment holds something only the libcst renamer reproduces."""


def text_renames(
    nodes: list[ast.stmt],
    source: str,
    offsets: list[int],
    span: tuple[int, int],
    imports: TfImports,
    root_is_tf1: bool,
    absl_names: dict[str, str],
) -> TextRenames | None:
    """The fragment ``source[span[0]:span[1]]`` (the statements ``nodes``) with its TF
    references renamed, or None when libcst must do it (see the module doc)."""
    writer = _Writer(source, offsets, imports, root_is_tf1, absl_names)
    try:
        for node in nodes:
            writer.visit(node, in_fstring=False)
    except _NeedsLibcst:
        return None
    start, end = span
    pieces, copied = [], start
    for first, last, text in sorted(writer.edits):
        pieces += [source[copied:first], text]
        copied = last
    pieces.append(source[copied:end])
    return TextRenames("".join(pieces), writer.findings, writer.absl_modules)


class _Writer:
    def __init__(self, source: str, offsets: list[int], imports: TfImports, root_is_tf1: bool, absl_names: dict[str, str]) -> None:
        self.source = source
        self.offsets = offsets
        self.imports = imports
        self.root_is_tf1 = root_is_tf1
        self.absl_names = absl_names
        self.edits: list[tuple[int, int, str]] = []  # source offsets and the new text
        self.findings: list[tuple[Located, str, str]] = []
        self.absl_modules: set[str] = set()

    def visit(self, node: ast.AST, in_fstring: bool) -> None:
        if isinstance(node, ast.Attribute):
            dotted = ast_dotted_name(node)
            path = self.imports.canonical_dotted(dotted)
            if path is not None and dotted is not None:
                if in_fstring:
                    raise _NeedsLibcst
                self._rename(node, path, dotted)
                return  # the chain is written whole
            if node.attr == "value" and is_dimension_value(node):
                raise _NeedsLibcst
        elif isinstance(node, ast.ListComp) and is_dimension_comprehension(node):
            raise _NeedsLibcst
        elif isinstance(node, ast.Name):
            if node.id in self.imports.aliases:
                raise _NeedsLibcst
            return
        elif isinstance(node, ast.Call):
            self.visit_call(node, in_fstring)
            return
        elif isinstance(node, ast.JoinedStr):
            in_fstring = True
        for child in ast.iter_child_nodes(node):
            self.visit(child, in_fstring)

    def visit_call(self, call: ast.Call, in_fstring: bool) -> None:
        dotted = ast_dotted_name(call.func)
        path = self.imports.canonical_dotted(dotted)
        keywords = frozenset(k.arg for k in call.keywords if k.arg is not None)
        if path is None or dotted is None or not call_rewritten(self.imports, path, dotted, self.root_is_tf1, keywords):
            if path is None and isinstance(call.func, ast.Attribute) and call.func.attr in ITERATOR_METHODS:
                raise _NeedsLibcst
            for child in ast.iter_child_nodes(call):
                self.visit(child, in_fstring)
            return
        # A call the renamer rewrites with its arguments: written here only when they stay
        # as they are (``tf.reduce_sum(x)``: no keyword to rename, no reordered positional).
        # (a call whose fix reads an argument's value, not its shape, goes to libcst too)
        if (
            in_fstring
            or path == "app.run"
            or path in CALLS_TRANSFORMED
            or path in CALLS_READING_ARGUMENTS
            or call.func.col_offset != call.col_offset
        ):
            raise _NeedsLibcst
        skeleton = _skeleton(call)
        new, findings = rewritten_call(path, skeleton)
        if not (isinstance(new, cst.Call) and len(new.args) == len(skeleton.args) and all(map(operator.is_, new.args, skeleton.args))):
            raise _NeedsLibcst
        code = dotted_name(new.func)
        assert code is not None  # the renamer writes a dotted path
        self._write(call.func, code, [(call, *finding) for finding in findings])
        for argument in [*call.args, *call.keywords]:
            self.visit(argument, in_fstring)

    def _rename(self, node: ast.Attribute, path: str, dotted: str) -> None:
        spelling = reference_spelling(self.imports, path, dotted, self.root_is_tf1, self.absl_names)
        if spelling.absl_module is not None:
            self.absl_modules.add(spelling.absl_module)
        self._write(node, spelling.code, [(node, *spelling.finding)] if spelling.finding is not None else [])

    def _write(self, chain: ast.expr, code: str, findings: list[tuple[ast.expr, str, str]]) -> None:
        """``chain`` (a plain ``a.b.c`` in the source) written ``code``; the findings are
        placed at the nodes they name."""
        assert chain.end_lineno is not None and chain.end_col_offset is not None
        start = self._offset(chain.lineno, chain.col_offset)
        end = self._offset(chain.end_lineno, chain.end_col_offset)
        written = self.source[start:end]
        if not _PLAIN_CHAIN.fullmatch(written):
            raise _NeedsLibcst
        for node, rule, message in findings:
            column = self._offset(node.lineno, node.col_offset) - self.offsets[node.lineno - 1]
            self.findings.append((Located(node.lineno, column), rule, message))
        if code != written:
            self.edits.append((start, end, code))

    def _offset(self, line: int, utf8_column: int) -> int:
        """The character offset of CPython's (line, UTF-8 byte column)."""
        start = self.offsets[line - 1]
        end = self.offsets[line] if line < len(self.offsets) else len(self.source)
        text = self.source[start:end]
        if text.isascii():
            return start + utf8_column
        return start + len(text.encode("utf-8")[:utf8_column].decode("utf-8", errors="replace"))


def _skeleton(call: ast.Call) -> cst.Call:
    """A libcst call with the shape of ``call``'s arguments (positional, keywords by name,
    ``*``/``**``) and placeholder values: all the renamer's call-site fixes look at."""
    value = cst.Name("_")
    args = [cst.Arg(value, star="*") if isinstance(a, ast.Starred) else cst.Arg(value) for a in call.args]
    args += [cst.Arg(value, keyword=cst.Name(k.arg)) if k.arg is not None else cst.Arg(value, star="**") for k in call.keywords]
    return cst.Call(cst.Name("_"), args)
