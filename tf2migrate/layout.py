"""A module's layout (line breaks, indentation), which generated code must follow.

Rewrites write generated code as lines of text and parse it with the module's
configuration (``Module.config_for_parsing``), so the module's layout must be one libcst
can parse with, and code must be split into lines as Python splits it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

_LINE_BREAK = re.compile(r"\r\n?|\n")  # Python's (and libcst's) line breaks
_PLAIN_INDENT = re.compile(r"[ \t]+")  # what libcst's parser configuration accepts
_FOUR_SPACES = re.compile(r"^(?:    )+", re.MULTILINE)


def code_lines(code: str) -> list[str]:
    """The lines of ``code`` without their line breaks (no empty last line).

    ``str.splitlines`` also breaks at form feeds, ``\\x1c``–``\\x1e``, ``\\x85`` and the
    Unicode line separators, which may stand in comments and strings: the pieces of such
    a comment, re-indented, are not Python."""
    lines = _LINE_BREAK.split(code)
    if lines[-1] == "":
        lines.pop()
    return lines


def parse_module(source: str) -> cst.Module:
    """libcst's tree of ``source``, with the two layouts libcst gets wrong repaired:

    - lone ``\\r`` line breaks: libcst drops the file's last line break;
    - a form feed in the first indentation (``\\f`` then spaces) becomes the module's
      default indentation, which libcst refuses to parse generated code with, and which,
      doubled for a nested block, is not deeper (a form feed resets Python's column
      count).  Blocks are indented with what follows the form feed instead: libcst does
      not keep form feeds in indentation line by line anyway (it writes the first line's
      indentation on every line of a block), and Python ignores them there.
    """
    module = cst.parse_module(source)
    if not module.has_trailing_newline and _LINE_BREAK.search(source[-1:]):
        module = module.with_changes(has_trailing_newline=True)
    if _PLAIN_INDENT.fullmatch(module.default_indent) is None:
        module = module.with_changes(default_indent=module.default_indent.rpartition("\f")[2] or "    ")
    return module


def indented_as(module: cst.Module, code: str) -> str:
    """``code`` written with four-space indentation (a helper's template), indented as
    the module is (with tabs, say)."""
    indent = module.default_indent
    if indent == "    ":
        return code
    return _FOUR_SPACES.sub(lambda match: indent * (len(match.group()) // 4), code)


def leading_lines(statement: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    """The blank lines and comments above a statement: both kinds of libcst statement
    (simple lines and compound statements) carry them, though their base class does not
    declare them."""
    assert isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    return statement.leading_lines
