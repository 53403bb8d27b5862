"""Which statements the rewriting walk must enter: the ones whose lines hold an edit.

The walk that applies a plan (``rewrites/apply_plan.py``) rebuilds every node it enters,
which on a large library tree costs more than parsing it — yet most statements of a
library file name no TensorFlow at all.  A statement is *quiet* when its lines hold none of
the words the renamer acts on (a TF alias, ``.value`` of a TF1 dimension, a TF1 iterator
method) and it holds no node the plan edits: the walk leaves it as it is without entering.

Lines come from CPython's tree (``ast`` statements know their line span, libcst nodes do
not without a positions pass): the two trees' statement lists are paired — a libcst
``SimpleStatementLine`` with ``a; b`` is two ``ast`` statements, a compound statement
one — and any pairing that does not line up leaves the statement to the walk.  The word
test reads the source text, so a word in a comment or a string only costs a walk.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import re
from collections.abc import Iterable, Sequence

import libcst as cst

from tf2migrate.analysis.tf_imports import ITERATOR_METHODS, TfImports

_LINE_BREAK = re.compile(r"\r\n?|\n")  # CPython's line breaks (its line numbers count them)
_COMPOUND = (cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While, cst.With, cst.Try)
_SIMPLE_AST = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Return,
    ast.Pass,
    ast.Break,
    ast.Continue,
    ast.Delete,
    ast.Raise,
    ast.Assert,
    ast.Import,
    ast.ImportFrom,
    ast.Global,
    ast.Nonlocal,
)


def quiet_statements(module: cst.Module, tree: ast.Module, source: str, imports: TfImports, targets: set[int]) -> set[int]:
    """Ids of the libcst statements, at any depth, that the rewriting walk need not enter.

    ``targets`` are the ids of the nodes the plan edits; a statement holding one is never
    quiet (found by a walk of that statement alone, only for files with targets below
    the module's own statements: graph files)."""
    words = sorted({*imports.aliases, "value", *ITERATOR_METHODS})
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b")
    line_starts = [0, *(match.end() for match in _LINE_BREAK.finditer(source))]
    # 1-based lines on which a word stands
    lines = sorted({bisect.bisect_right(line_starts, match.start()) for match in pattern.finditer(source)})
    finder = _Quiet(lines, targets, targets - {id(statement) for statement in module.body})
    finder.pair(module.body, tree.body)
    return finder.quiet


class _Quiet:
    def __init__(self, lines: list[int], targets: set[int], deep_targets: set[int]) -> None:
        self.lines = lines
        self.targets = targets
        self.deep_targets = deep_targets  # the targets that are not statements of the module body
        self.quiet: set[int] = set()

    def pair(self, statements: Sequence[cst.CSTNode], nodes: Sequence[ast.stmt]) -> None:
        """Statements of one block, with the ``ast`` statements they hold."""
        pairs = []
        index = 0
        for statement in statements:
            count = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
            held = nodes[index : index + count]
            index += count
            if len(held) != count or isinstance(statement, cst.SimpleStatementLine) != isinstance(held[0], _SIMPLE_AST):
                return  # the trees disagree: every statement of the block is walked
            pairs.append((statement, held))
        if index != len(nodes):
            return
        for statement, held in pairs:
            first = held[0]
            start = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", ()))])
            end = held[-1].end_lineno or first.lineno
            position = bisect.bisect_left(self.lines, start)
            has_word = position < len(self.lines) and self.lines[position] <= end
            if not has_word and id(statement) not in self.targets and not (self.deep_targets and _holds(statement, self.deep_targets)):
                self.quiet.add(id(statement))
            elif isinstance(statement, _COMPOUND):
                for inner, inner_nodes in _blocks(statement, first):
                    self.pair(inner, inner_nodes)


def _blocks(statement: cst.CSTNode, node: ast.stmt) -> Iterable[tuple[Sequence[cst.CSTNode], Sequence[ast.stmt]]]:
    """The statement lists of a compound statement's blocks, with their ``ast`` lists."""
    if isinstance(statement, cst.If) and isinstance(node, ast.If):
        yield _body(statement.body), node.body
        if isinstance(statement.orelse, cst.If):  # elif
            yield [statement.orelse], node.orelse
        elif statement.orelse is not None:
            yield _body(statement.orelse.body), node.orelse
    elif isinstance(statement, (cst.For, cst.While)) and isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        yield _body(statement.body), node.body
        if statement.orelse is not None:
            yield _body(statement.orelse.body), node.orelse
    elif isinstance(statement, cst.Try) and isinstance(node, ast.Try) and len(statement.handlers) == len(node.handlers):
        yield _body(statement.body), node.body
        for handler, handler_node in zip(statement.handlers, node.handlers):
            yield _body(handler.body), handler_node.body
        if statement.orelse is not None:
            yield _body(statement.orelse.body), node.orelse
        if statement.finalbody is not None:
            yield _body(statement.finalbody.body), node.finalbody
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith)):
        yield _body(statement.body), node.body  # type: ignore[attr-defined]


def _body(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    # a one-line suite (``if x: a; b``) is small: walked whole
    return suite.body if isinstance(suite, cst.IndentedBlock) else ()


def _holds(node: cst.CSTNode, targets: set[int]) -> bool:
    """Does the subtree hold one of the nodes ``targets`` names?  A plain walk over the
    dataclass fields, several times cheaper than a libcst visitor."""
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in targets:
            return True
        for name in _child_fields(type(current)):
            value = getattr(current, name)
            if isinstance(value, cst.CSTNode):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack.extend(v for v in value if isinstance(v, cst.CSTNode))
    return False


_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(kind: type) -> tuple[str, ...]:
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return fields
