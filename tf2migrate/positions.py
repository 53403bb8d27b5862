"""Where libcst nodes start (line, column), as libcst's ``PositionProvider`` says.

The one module that uses a libcst internal: ``CodegenState``, the renderer
``PositionProvider`` itself runs (not exported; libcst is pinned to the tested major
version, and ``tests/test_positions.py`` checks these positions equal
``PositionProvider``'s on every fixture).  Computing them as character offsets while
rendering once costs a fraction of ``PositionProvider``, which builds a line/column object
per node and splits every token on newlines.
"""

from __future__ import annotations

import bisect
import re
from contextlib import contextmanager

import libcst as cst
from libcst._nodes.internal import CodegenState  # what PositionProvider renders with; not exported


class Positions:
    """Where nodes start, computed on first use: it renders the whole module once more,
    which the many files without a finding never need.  Syntactic starts, as
    PositionProvider's: a statement starts after its leading blank lines and comments."""

    def __init__(self, module: cst.Module) -> None:
        self._module = module
        self._starts: dict[int, int] | None = None
        self._line_starts: list[int] = []

    def get(self, node: cst.CSTNode) -> tuple[int, int] | None:
        """1-based line, 0-based column."""
        if self._starts is None:
            state = _OffsetState(default_indent=self._module.default_indent, default_newline=self._module.default_newline)
            self._module._codegen(state)
            self._starts = state.starts
            text = "".join(state.tokens)
            self._line_starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]
        offset = self._starts.get(id(node))
        if offset is None:
            return None
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1]


_NEWLINE = re.compile(r"\r\n?|\n")  # what libcst counts as a line break


class _OffsetState(CodegenState):
    """Renders the module, noting the character offset where each node starts."""

    def __init__(self, default_indent: str, default_newline: str) -> None:
        super().__init__(default_indent=default_indent, default_newline=default_newline)
        self.offset = 0
        self.starts: dict[int, int] = {}
        self._open: list[int] = []

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)
        self.offset += sum(len(token) for token in self.indent_tokens)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self.offset += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._open.append(self.offset)

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._open.pop()
        self.starts.setdefault(id(node), start)  # a syntactic start recorded inside wins

    @contextmanager
    def record_syntactic_position(self, node, *, start_node=None, **_end_node):  # the end is not needed
        start = self.offset
        yield
        self.starts[id(node)] = self.starts[id(start_node)] if start_node is not None else start
