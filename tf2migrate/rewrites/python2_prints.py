"""Python 2 print statements → print calls, on tokens, with the smallest text edits.

TF1 code of 2016-2018 is often Python 2: ``print "cost", c`` makes the whole file a syntax
error for Python 3, so nothing of it could be migrated.  When CPython's only complaint is a
print statement, each one is rewritten to the call 2to3's ``fix_print`` makes, keeping what
Python 2 printed:

=============================  ================================  =========================
Python 2                        Python 3                          why
=============================  ================================  =========================
``print a, b``                  ``print(a, b)``
``print a,``                    ``print(a, end=' ')``             trailing comma: no newline
``print >>f, a``                ``print(a, file=f)``
``print >>f``                   ``print(file=f)``
``print``                       ``print()``
``print (a, b)``                ``print((a, b))``                 Python 2 printed a tuple
``print ()``                    ``print(())``                     (2to3 leaves it: prints ``()``)
``print (a)``, ``print(a)``     unchanged                         one parenthesized value
=============================  ================================  =========================

The edits are insertions around the statement's tokens (``print`` and the gap after it
become ``print(``, a ``)`` follows the last token), so comments, line breaks and spacing
stay, and every line keeps its number: findings on the converted file are findings on the
original.  2to3 writes ``print((x.y))`` for ``print (x.y)``; leaving the parentheses as
they are is the same call (CPython's tree is the same), so it is left.  Where 2to3 differs
from Python 2 it is not followed: ``print ()`` printed ``()``.

Not exact, and said so in the README: Python 2's *softspace*.  ``print "a\\n",`` then
``print "b"`` printed ``a\\nb`` (no space after a text ending in a newline) where
``print("a\\n", end=' ')`` prints ``a\\n b``, as 2to3's output does.

Only print statements are converted: a file that uses Python 2 syntax of another kind
(``exec code``, backticks, ``except E, e``, ``0777``, ``ur''``, ``<>``) still fails to parse
and is reported (TFM001) naming that construct; a file with
``from __future__ import print_function`` has no print statements and is not touched.
The ``file=`` expression of a ``print >>f`` must stand on one line (moving text across
lines would renumber them); otherwise the file is not converted (TFM001).
"""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass

from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.rewrites.line_edits import Edit, applied, line_offsets, original_column

PRINTS_CONVERTED = Rule(
    "TFM008",
    "python2-prints-converted",
    "Python 2 print statements were converted to print calls (the file was Python 2).",
    Severity.INFO,
    FixSafety.SAFE,
    what="Reports a file that did not parse as Python 3 only because of Python 2 print "
    "statements, which were converted as 2to3 does (`print a, b` → `print(a, b)`, `print a,` → "
    "`print(a, end=' ')`, `print >>f, a` → `print(a, file=f)`, `print` → `print()`, "
    "`print (a, b)` → `print((a, b))`) before the file was migrated.",
    why="Python 2 code that runs under Python 3 once its prints are calls can then be migrated. "
    "The file was Python 2: what else changed meaning under Python 3 (`/` on integers, `xrange`, "
    "`dict.keys()` indexed …) is reported as TFM009. One difference remains, as with 2to3: "
    "Python 2 wrote no space after a trailing-comma print whose text ended in a newline.",
    example='import tensorflow as tf\nprint "loss:", loss,',
    instead="import tensorflow as tf\nprint(\"loss:\", loss, end=' ')",
    invalid=('import tensorflow as tf\nx = tf.constant(1.0)\nprint "x", x\n',),
    valid=('import tensorflow as tf\nx = tf.constant(1.0)\nprint("x", x)\n',),
)
RULES = [PRINTS_CONVERTED]

# CPython's message for a print statement (3.8+; the suggestion after it varies)
PRINT_STATEMENT = "Missing parentheses in call to 'print'"


@dataclass(frozen=True)
class ConvertedPrints:
    source: str
    edits: tuple[Edit, ...]
    first: tuple[int, int]  # line and 1-based column of the first converted statement

    def original_column(self, line: int, column: int) -> int:
        """A 1-based column of the converted text on ``line`` → the original's."""
        return original_column(self.edits, line, column)


_STARTS = frozenset({tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT})
_SKIPPED = frozenset({tokenize.NL, tokenize.COMMENT})
_ENDS = frozenset({tokenize.NEWLINE, tokenize.ENDMARKER})


def convert_prints(source: str) -> ConvertedPrints | None:
    """``source`` with its print statements as calls, or None when there are none or they
    cannot be converted exactly (see the module docstring)."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in _SKIPPED]
    except (tokenize.TokenError, SyntaxError):
        return None
    if _imports_print_function(tokens):
        return None
    offsets = line_offsets(source)
    edits: list[Edit] = []
    depth = 0
    index = 0
    first: tuple[int, int] | None = None
    while index < len(tokens):
        token = tokens[index]
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth = max(0, depth - 1)
        elif token.type == tokenize.NAME and token.string == "print" and depth == 0 and _starts_statement(tokens, index):
            end = _statement_end(tokens, index + 1)
            made = _convert(source, offsets, tokens, index, end)
            if made is None:
                return None
            edits += made
            first = first or (token.start[0], token.start[1] + 1)
            index = end
            continue
        index += 1
    if not edits or first is None:
        return None
    return ConvertedPrints(applied(source, edits), tuple(sorted(edits, key=lambda e: e.start)), first)


def python2_construct(source: str, line: int) -> str | None:
    """The Python 2 syntax on ``line`` that CPython reports only as ``invalid syntax``:
    a backtick repr, ``<>``, a ``ur''`` string, ``raise E, value``."""
    try:
        every = tokenize.generate_tokens(io.StringIO(source).readline)
        tokens = [t for t in every if t.start[0] <= line <= t.end[0] and t.type not in (tokenize.INDENT, tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError):
        return None
    for before, token in zip([None, *tokens], tokens):
        if token.string == "`":
            return "a Python 2 backtick repr, `x` for repr(x)"
        if before is not None and before.end == token.start and (before.string, token.string) == ("<", ">"):
            return "Python 2's `<>` for `!=`"
        if before is not None and before.end == token.start and before.string.lower() == "ur" and token.type == tokenize.STRING:
            return "a Python 2 `ur''` string"
    if tokens and tokens[0].string == "raise" and _top_level_commas(tokens, 1, len(tokens)):
        return "Python 2's `raise E, value`"
    return None


def indentation_error(source: str) -> IndentationError | None:
    """The inconsistent indentation that stops the tokenizer (a dedent to no outer level),
    which Python 2 refused as Python 3 does: a file that has it is neither."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO(source).readline):
            pass
    except IndentationError as error:
        return error
    except (tokenize.TokenError, SyntaxError):
        return None
    return None


def imports_print_function(source: str) -> bool:
    """``from __future__ import print_function`` (a print statement is then no Python 2 either)."""
    try:
        return _imports_print_function(list(tokenize.generate_tokens(io.StringIO(source).readline)))
    except (tokenize.TokenError, SyntaxError):
        return False


def _imports_print_function(tokens: list[tokenize.TokenInfo]) -> bool:
    return any(
        t.string == "print_function" and any(u.string == "__future__" for u in tokens[max(0, i - 8) : i]) for i, t in enumerate(tokens)
    )


def _starts_statement(tokens: list[tokenize.TokenInfo], index: int) -> bool:
    """``print`` begins a statement: first of a logical line, after ``;``, or after the
    ``:`` of a compound statement's header (``if x: print y``; a colon at bracket depth 0
    in Python 2 is nothing else)."""
    if index == 0:
        return True
    before = tokens[index - 1]
    return before.type in _STARTS or (before.type == tokenize.OP and before.string in (";", ":"))


def _statement_end(tokens: list[tokenize.TokenInfo], index: int) -> int:
    """The index of the token that ends the statement begun before ``index`` (its NEWLINE,
    ``;`` or the end)."""
    depth = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type in _ENDS and depth == 0:
            return index
        if token.type == tokenize.OP:
            if token.string in "([{":
                depth += 1
            elif token.string in ")]}":
                depth -= 1
            elif token.string == ";" and depth == 0:
                return index
        index += 1
    return index


def _top_level_commas(tokens: list[tokenize.TokenInfo], start: int, end: int) -> list[int]:
    depth = 0
    commas = []
    for index in range(start, end):
        token = tokens[index]
        if token.type == tokenize.OP:
            if token.string in "([{":
                depth += 1
            elif token.string in ")]}":
                depth -= 1
            elif token.string == "," and depth == 0:
                commas.append(index)
    return commas


def _convert(source: str, offsets: list[int], tokens: list[tokenize.TokenInfo], at: int, end: int) -> list[Edit] | None:
    """The edits that make the print statement of tokens ``at``..``end`` (exclusive) a call."""

    def offset(position: tuple[int, int]) -> int:
        return offsets[position[0]] + position[1]

    def edit(start: tuple[int, int], stop: tuple[int, int], text: str) -> Edit:
        return Edit(offset(start), offset(stop), text, start[0], start[1])

    name = tokens[at]
    first, last = at + 1, end - 1  # the statement's tokens after ``print``
    if first > last:  # bare ``print``
        return [edit(name.end, name.end, "()")]
    if _one_parenthesized_value(tokens, first, last):
        return []
    file_text = None
    if tokens[first].type == tokenize.OP and tokens[first].string == ">>":
        commas = _top_level_commas(tokens, first + 1, last + 1)
        file_last = commas[0] - 1 if commas else last
        if tokens[first + 1].start[0] != tokens[file_last].end[0] or file_last < first + 1:
            return None  # moving a file expression across lines would renumber them
        file_text = source[offset(tokens[first + 1].start) : offset(tokens[file_last].end)]
        if not commas:  # ``print >>f``
            return [edit(name.end, tokens[last].end, f"(file={file_text})")]
        if commas[0] == last:
            return None  # ``print >>f,`` is no Python 2 either
        first = commas[0] + 1
        if "\n" in source[offset(name.end) : offset(tokens[first].start)]:
            return None  # the first value on another line: ``>>f,`` cannot just be dropped
    trailing = tokens[last].type == tokenize.OP and tokens[last].string == ","
    keywords = (["end=' '"] if trailing else []) + ([f"file={file_text}"] if file_text is not None else [])
    gap = source[offset(name.end) : offset(tokens[first].start)]
    opening = edit(name.end, tokens[first].start, "(") if "\n" not in gap and "\r" not in gap else edit(name.end, name.end, "(")
    if trailing:
        closing = edit(tokens[last].end, tokens[last].end, " " + ", ".join(keywords) + ")")
    else:
        closing = edit(tokens[last].end, tokens[last].end, "".join(", " + k for k in keywords) + ")")
    return [opening, closing]


def _one_parenthesized_value(tokens: list[tokenize.TokenInfo], first: int, last: int) -> bool:
    """``print (value)``: one expression in parentheses, not a tuple — the same call in
    Python 3 (``print (a, b)``, ``print (a,)`` and ``print ()`` printed tuples)."""
    if not (tokens[first].string == "(" and tokens[last].string == ")" and last - first >= 2):
        return False
    depth = 0
    for index in range(first, last + 1):
        token = tokens[index]
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
            if depth == 0 and index != last:
                return False  # ``print (a) + b``: the parentheses close before the end
        elif token.type == tokenize.OP and token.string == "," and depth == 1:
            return False
    return True
