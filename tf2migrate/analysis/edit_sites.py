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
import re
from collections.abc import Iterable, Sequence

import libcst as cst

from tf2migrate.analysis.tf_imports import ITERATOR_METHODS, TfImports
from tf2migrate.traversal import children, preorder

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


def edit_words(imports: TfImports) -> frozenset[str]:
    """The names the renamer acts on: a TF alias, ``.value`` of a TF1 dimension, a TF1
    iterator method.  A subtree that holds none of them (and no planned edit) is left as
    it is by the rewriting walk."""
    return frozenset({*imports.aliases, "value", *ITERATOR_METHODS})


def quiet_statements(module: cst.Module, tree: ast.Module, source: str, words: frozenset[str], targets: set[int]) -> set[int]:
    """Ids of the libcst statements, at any depth, that the rewriting walk need not enter.

    ``targets`` are the ids of the nodes the plan edits; a statement holding one is never
    quiet (found by a walk of that statement alone, only for files with targets below
    the module's own statements: graph files)."""
    return quiet_among(module.body, tree.body, word_lines(source, words), targets)


def word_lines(source: str, words: frozenset[str]) -> list[int]:
    """The 1-based lines on which one of ``words`` stands, in order."""
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(words))) + r")\b")
    line_starts = line_offsets(source)
    return sorted({bisect.bisect_right(line_starts, match.start()) for match in pattern.finditer(source)})


def line_offsets(source: str) -> list[int]:
    """Where each line starts, as CPython counts lines."""
    return [0, *(match.end() for match in _LINE_BREAK.finditer(source))]


def quiet_among(statements: Sequence[cst.CSTNode], nodes: Sequence[ast.stmt], lines: list[int], targets: set[int]) -> set[int]:
    """``quiet_statements`` for one block: its libcst ``statements`` and the ``ast``
    statements they hold, the word ``lines`` of the file."""
    finder = _Quiet(lines, targets, targets - {id(statement) for statement in statements})
    finder.pair(statements, nodes)
    return finder.quiet


def ast_statements_in(statement: cst.CSTNode) -> int:
    """How many ``ast`` statements a libcst statement is: ``a; b`` on a line is two."""
    return len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1


def statement_span(node: ast.stmt) -> tuple[int, int]:
    """The first and last line of a statement, its decorators included."""
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    return start, node.end_lineno or node.lineno


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
            count = ast_statements_in(statement)
            held = nodes[index : index + count]
            index += count
            if len(held) != count or isinstance(statement, cst.SimpleStatementLine) != isinstance(held[0], _SIMPLE_AST):
                return  # the trees disagree: every statement of the block is walked
            pairs.append((statement, held))
        if index != len(nodes):
            return
        for statement, held in pairs:
            first = held[0]
            start, end = statement_span(first)[0], statement_span(held[-1])[1]
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
    """Does the subtree hold one of the nodes ``targets`` names?"""
    return any(id(n) in targets for n in preorder(node))


_BLOCKS = (cst.IndentedBlock, cst.Module)


def entered_parts(statement: cst.CSTNode, words: frozenset[str], targets: set[int]) -> set[int]:
    """Ids of the nodes of one statement the rewriting walk must enter: the ancestors of
    every ``Name`` spelled as one of ``words`` and of every planned edit.  The statements
    of its indented blocks are not looked into (the walk decides for each of them when it
    gets there); the blocks themselves are entered."""
    entered: set[int] = {id(statement)}
    path: list[cst.CSTNode] = []  # the ancestors of the node at hand, for marking
    stack: list[tuple[cst.CSTNode, int]] = [(statement, 0)]
    while stack:
        node, depth = stack.pop()
        del path[depth:]
        path.append(node)
        block = type(node) in _BLOCKS
        if block or (type(node) is cst.Name and node.value in words) or id(node) in targets:
            entered.update(map(id, path))
            if block and node is not statement:
                continue
        stack.extend((child, depth + 1) for child in reversed(children(node)))
    return entered
