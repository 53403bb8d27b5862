"""Where libcst nodes start (line, column), as libcst's ``PositionProvider`` says, and the
module's text rendered without libcst's per-node position bookkeeping.

The one module that uses a libcst internal: ``CodegenState``, the renderer
``PositionProvider`` itself runs (not exported; libcst is pinned to the tested major
version, and ``tests/test_positions.py`` checks these positions equal
``PositionProvider``'s on every fixture).  Computing them as token counts while
rendering once costs a fraction of ``PositionProvider``, which builds a line/column object
per node and splits every token on newlines.

libcst's renderer enters a generator-based context manager
(``CodegenState.record_syntactic_position``) at every expression and statement, even
when rendering plain text, where it does nothing; here it is one shared object whose
``__enter__`` and ``__exit__`` do the least they can (a third of the render's time on
tensor2tensor's test files).
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import libcst as cst
from libcst._nodes.internal import CodegenState  # what PositionProvider renders with; not exported


def render(module: cst.Module) -> str:
    """``module.code``, the same text, rendered faster (see the module doc)."""
    state = _PlainState(default_indent=module.default_indent, default_newline=module.default_newline)
    module._codegen(state)
    return "".join(state.tokens)


class _Nothing:
    """A context manager that does nothing: the plain render's syntactic positions."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exception: object) -> None:
        return None


_NOTHING = _Nothing()


class _PlainState(CodegenState):
    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Any = None, end_node: Any = None) -> Any:
        return _NOTHING


class Positions:
    """Where nodes start, computed on first use: it renders the whole module once more,
    which the many files without a finding never need.  Syntactic starts, as
    PositionProvider's: a statement starts after its leading blank lines and comments.

    The render is shared by every ``Positions`` of the same module object (the last few
    modules asked about are remembered): a file's migration and the retries that rewrite it
    ask where the same original's nodes stand, and a libcst tree never changes.

    Made by ``of_parsed`` for a module parsed from a text, it renders only the innermost
    statements holding the nodes asked about (see ``_Statement``)."""

    def __init__(self, module: cst.Module) -> None:
        self._module = module
        self._rendered: _Rendered | None = None
        self._parsed: _Parsed | None = None
        self._statements: dict[tuple[int, ...], _Statement | None] = {}  # by where they stand (``_Parsed.holder``)

    @classmethod
    def of_parsed(
        cls, module: cst.Module, source: str, tree: ast.Module, holder: Callable[[cst.CSTNode], tuple[int, ...] | None]
    ) -> Positions:
        """Positions in ``module``, parsed from ``source`` (``tree``: CPython's tree of it).
        ``holder``: where the innermost statement holding a node stands, its index in the
        module's body, then in the body of each class or def it lies in (None when it cannot
        tell: the whole module is rendered then)."""
        positions = cls(module)
        if "\r" not in source:  # (libcst and CPython might count a lone one apart)
            positions._parsed = _Parsed(source, tree, holder)
        return positions

    def get(self, node: cst.CSTNode) -> tuple[int, int] | None:
        """1-based line, 0-based column."""
        rendered = self._rendered
        if rendered is None:
            if self._parsed is not None:
                found = _RENDERED.get(id(self._module))
                if found is None or found.module is not self._module:
                    statement = self._statement(node)
                    if statement is not None:
                        return statement.get(node)
            rendered = self._rendered = _rendered(self._module)
        token = rendered.starts.get(id(node))
        if token is None:
            return None
        offset = rendered.offsets[token]
        line = bisect.bisect_right(rendered.line_starts, offset)
        return line, offset - rendered.line_starts[line - 1]

    def _statement(self, node: cst.CSTNode) -> _Statement | None:
        """The render of the innermost statement holding ``node``, where the source shows
        it stands (None: the whole module must be rendered)."""
        parsed = self._parsed
        assert parsed is not None
        path = parsed.holder(node)
        if path is None:
            return None
        if path not in self._statements:
            self._statements[path] = _Statement.placed(self._module, path, parsed)
        statement = self._statements[path]
        if statement is None or id(node) not in statement.starts:
            return None
        return statement


class _Parsed:
    """What a module was parsed from, and how to find a node's statement."""

    __slots__ = ("source", "tree", "holder", "_line_starts", "_pairs")

    def __init__(self, source: str, tree: ast.Module, holder: Callable[[cst.CSTNode], tuple[int, ...] | None]) -> None:
        self.source = source
        self.tree = tree  # CPython's tree of ``source``
        self.holder = holder
        self._line_starts: list[int] | None = None
        self._pairs: dict[int, list[ast.stmt] | None] = {}  # by a libcst body's id

    def line_starts(self) -> list[int]:
        """The character offset of each line's start in the source."""
        if self._line_starts is None:
            self._line_starts = [0, *(match.end() for match in _NEWLINE.finditer(self.source))]
        return self._line_starts

    def paired(self, body: Sequence[cst.BaseStatement], statements: list[ast.stmt]) -> list[ast.stmt] | None:
        """By index in a libcst body, CPython's first statement of it (a line of ``a; b``
        holds two of CPython's) in ``statements``, the same body as CPython read it; None
        when they do not pair up."""
        if id(body) not in self._pairs:
            firsts = []
            index = 0
            for statement in body:
                if index >= len(statements):
                    break
                firsts.append(statements[index])
                index += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
            self._pairs[id(body)] = firsts if index == len(statements) and len(firsts) == len(body) else None
        return self._pairs[id(body)]


class _Statement(NamedTuple):
    """One statement rendered alone, placed where it stands in the source.

    A statement renders alone as it does in the module when the indentation of the blocks
    it lies in is given first (and the module's defaults).  Its syntactic start is on the
    line CPython gives it (a ``def`` or ``class`` line, not a decorator's; ``a; b``'s
    first statement's), so the render starts as many lines above as it holds line breaks
    before that start; and it is used only if the source holds that very text there, from
    the start of that line: then every node in it stands on the line and column the whole
    module's render gives it."""

    first_line: int  # the 1-based line its render starts on
    starts: dict[int, int]  # node id → index of the token it starts at
    offsets: list[int]  # token index → character offset in the render
    line_starts: list[int]  # character offset of each line's start in the render

    @staticmethod
    def placed(module: cst.Module, path: tuple[int, ...], parsed: _Parsed) -> _Statement | None:
        body: Sequence[cst.BaseStatement] = module.body
        statements: list[ast.stmt] = parsed.tree.body
        indents: list[str] = []
        for depth, index in enumerate(path):
            firsts = parsed.paired(body, statements)
            if firsts is None:
                return None
            statement, first = body[index], firsts[index]
            if depth == len(path) - 1:
                break
            # (a class or def: ``_Parsed.holder`` enters no other statement)
            block = statement.body if isinstance(statement, (cst.ClassDef, cst.FunctionDef)) else None
            if not isinstance(block, cst.IndentedBlock) or not isinstance(first, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                return None
            indents.append(module.default_indent if block.indent is None else block.indent)
            body, statements = block.body, first.body
        state = _OffsetState(default_indent=module.default_indent, default_newline=module.default_newline)
        state.indent_tokens = indents
        statement._codegen(state)
        text = "".join(state.tokens)
        offsets = list(itertools.accumulate(map(len, state.tokens), initial=0))
        line_starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]
        first_line = first.lineno - (bisect.bisect_right(line_starts, offsets[state.starts[id(statement)]]) - 1)
        source_starts = parsed.line_starts()
        if not 1 <= first_line <= len(source_starts):
            return None
        at = source_starts[first_line - 1]
        if parsed.source[at : at + len(text)] != text:
            return None
        return _Statement(first_line, state.starts, offsets, line_starts)

    def get(self, node: cst.CSTNode) -> tuple[int, int]:
        offset = self.offsets[self.starts[id(node)]]
        line = bisect.bisect_right(self.line_starts, offset)
        return self.first_line + line - 1, offset - self.line_starts[line - 1]


class _Rendered(NamedTuple):
    module: cst.Module  # (held: the ids below are its nodes' as long as it lives)
    starts: dict[int, int]  # node id → index of the token it starts at
    offsets: list[int]  # token index → character offset
    line_starts: list[int]  # character offset of each line's start


_RENDERED: OrderedDict[int, _Rendered] = OrderedDict()  # by the module's id, the last used last
_RENDERED_KEPT = 4


def forget_renders() -> None:
    """Drop the renders kept so far (a file's migration is done: its trees need not stay in
    memory until later files push them out)."""
    _RENDERED.clear()


def _rendered(module: cst.Module) -> _Rendered:
    found = _RENDERED.get(id(module))
    if found is not None and found.module is module:
        _RENDERED.move_to_end(id(module))
        return found
    state = _OffsetState(default_indent=module.default_indent, default_newline=module.default_newline)
    module._codegen(state)
    text = "".join(state.tokens)
    rendered = _Rendered(
        module,
        state.starts,
        list(itertools.accumulate(map(len, state.tokens + state.popped), initial=0)),
        [0, *(match.end() for match in _NEWLINE.finditer(text))],
    )
    _RENDERED[id(module)] = rendered
    _RENDERED.move_to_end(id(module))
    while len(_RENDERED) > _RENDERED_KEPT:
        _RENDERED.popitem(last=False)
    return rendered


_NEWLINE = re.compile(r"\r\n?|\n")  # what libcst counts as a line break


class _OffsetState(CodegenState):
    """Renders the module, noting the token where each node starts (how many tokens come
    before it: their lengths give its character offset once the render is done)."""

    def __init__(self, default_indent: str, default_newline: str) -> None:
        super().__init__(default_indent=default_indent, default_newline=default_newline)
        self.starts: dict[int, int] = {}
        self.popped: list[str] = []  # the trailing newline libcst drops last: tokens counted before it went
        self._open: list[int] = []
        self._recorder = _SyntacticStart(self)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._open.append(len(self.tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._open.pop()
        self.starts.setdefault(id(node), start)  # a syntactic start recorded inside wins

    def pop_trailing_newline(self) -> None:
        if self.tokens:
            self.popped.append(self.tokens.pop())

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Any = None, end_node: Any = None) -> Any:  # the end is not needed
        self._recorder.pending = (node, start_node)
        return self._recorder


class _SyntacticStart:
    """``record_syntactic_position``'s context manager, one per render (the ``with``
    enters it right after the call that armed it; nested ones stack): the node starts
    where the block's first token goes, or where ``start_node`` was found to start."""

    __slots__ = ("state", "pending", "stack")

    def __init__(self, state: _OffsetState) -> None:
        self.state = state
        self.pending: tuple[cst.CSTNode, Any] | None = None
        self.stack: list[tuple[cst.CSTNode, Any, int]] = []

    def __enter__(self) -> None:
        node, start_node = self.pending  # type: ignore[misc]
        self.stack.append((node, start_node, len(self.state.tokens)))

    def __exit__(self, *exception: object) -> None:
        node, start_node, start = self.stack.pop()
        starts = self.state.starts
        starts[id(node)] = starts[id(start_node)] if start_node is not None else start


def holds_line(statement: cst.CSTNode, positions: Positions, lines: set[int]) -> bool:
    """Does ``statement`` span one of ``lines``: from its start to the line its last simple
    statement starts on (a refused line of a block, TF1-to-TF1 rewrites ask)?"""
    start = positions.get(statement)
    starts = [at[0] for node in _statements(statement) if isinstance(node, cst.SimpleStatementLine) and (at := positions.get(node))]
    return start is not None and any(start[0] <= line <= max(starts, default=0) for line in lines)


def anchored_lines(
    new: cst.Module, original: Positions, origins: dict[int, int | None] | None = None, placed: Positions | None = None
) -> list[int]:
    """The original's line of each line of ``new``, a module rewritten from the one ``original``
    reads (a TF1-to-TF1 rewrite: its migration's findings are placed there).  Each statement
    carried over unchanged keeps its line, one the rewrite wrote maps to the line ``origins``
    gives by its id (None: no line of its own), and the lines after a statement's first
    follow it.  Index 0 holds line 1's.  ``placed``: ``Positions(new)``, when the caller made it."""
    origins = origins or {}
    placed = placed if placed is not None else Positions(new)
    anchors: list[tuple[int, int]] = []  # (new line, original line)
    for node in _statements(new):
        at = placed.get(node)
        if at is None:
            continue
        if id(node) in origins:
            origin = origins[id(node)]
            if origin is not None:
                anchors.append((at[0], origin))
            continue
        before = original.get(node)
        if before is not None:
            anchors.append((at[0], before[0]))
    anchors.sort()
    lines: list[int] = []
    index = -1
    for number in range(1, new.code.count("\n") + 2):
        while index + 1 < len(anchors) and anchors[index + 1][0] <= number:
            index += 1
        if index < 0:
            lines.append(number)
            continue
        start, origin = anchors[index]
        lines.append(origin + number - start)
    return lines


# nodes no statement lies below: a line holds small statements, an expression (a lambda's
# included) and a def's parameters and decorators hold expressions
_HOLDING_NO_STATEMENT = (cst.SimpleStatementLine, cst.BaseSmallStatement, cst.BaseExpression, cst.Parameters, cst.Decorator)


def _statements(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements under ``node`` (simple lines and compound ones), in source order."""
    found: list[cst.CSTNode] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            found.append(current)
        if isinstance(current, _HOLDING_NO_STATEMENT):
            continue  # (libcst's ``children`` rebuilds each node it lists: most of this walk's time)
        stack.extend(reversed(current.children))
    return found
