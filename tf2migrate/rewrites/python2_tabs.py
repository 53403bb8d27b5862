"""Python 2 indentation mixing tabs and spaces → the same indentation in spaces.

Python 2 read a tab in a line's indentation as a move to the next multiple of 8 columns,
so a file indented with spaces could have a few lines indented with a tab (an editor's
doing) and run.  Python 3 refuses the mix (``TabError: inconsistent use of tabs and spaces
in indentation``), so nothing of such a TF1 file could be migrated::

    def __init__(self, ...):
        self.config = config      # eight spaces
    \tself.out_stddev = stddev    # one tab: column 8 for Python 2

When CPython's complaint is the indentation, each line's indentation is written in spaces
as Python 2 read it (``str.expandtabs(8)``), and the file is migrated as any other: the
block structure Python 2 saw is the one Python 3 then sees.  Only indentation changes: a
tab after the first non-blank character, and every line inside a multi-line string (whose
tabs are characters of the string), stay as written; every line keeps its number.  A line
whose indentation holds a form feed (which reset Python 2's column count) leaves the file
unconverted.
"""

from __future__ import annotations

import io
import tokenize

from tf2migrate.diagnostics import FixSafety, Rule, Severity

TABS_EXPANDED = Rule(
    "TFM010",
    "python2-tabs-expanded",
    "Indentation mixing tabs and spaces, which Python 2 read and Python 3 refuses, was written in spaces.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Reports a file that did not parse as Python 3 only because its indentation mixes tabs and "
    "spaces (`TabError`): each line's indentation is written in spaces as Python 2 read it (a tab moves "
    "to the next multiple of 8 columns) before the file is migrated.",
    why="Python 2 accepted the mix, so the file ran; Python 3 refuses it. The blocks Python 2 saw are the "
    "ones Python 3 then sees, and nothing but indentation changes (multi-line strings stay as written).",
    example="import tensorflow as tf\nif True:\n        x = tf.constant(1.0)\n\ty = x + 1.0\n",
    instead="import tensorflow as tf\nif True:\n        x = tf.constant(1.0)\n        y = x + 1.0\n",
    invalid=("import tensorflow as tf\nif True:\n        x = tf.constant(1.0)\n\ty = x + 1.0\n",),
    valid=("import tensorflow as tf\nif True:\n\tx = tf.constant(1.0)\n\ty = x + 1.0\n",),
)
RULES = [TABS_EXPANDED]


def expand_indentation(source: str) -> tuple[str, int] | None:
    """``source`` with every line's indentation in spaces as Python 2 read it, and the first
    line changed (1-based); None when no indentation holds a tab, one holds a form feed, or
    the text does not tokenize once converted."""
    lines = source.splitlines(keepends=True)
    expanded = []
    for line in lines:
        body = line.lstrip(" \t\f")
        indentation = line[: len(line) - len(body)]
        if "\f" in indentation and "\t" in indentation:
            return None
        expanded.append(indentation.expandtabs(8) + body if "\t" in indentation else line)
    if expanded == lines:
        return None
    try:  # lines inside multi-line strings: their tabs belong to the string
        inside: set[int] = set()
        for token in tokenize.generate_tokens(io.StringIO("".join(expanded)).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                inside.update(range(token.start[0] + 1, token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return None
    for number in inside:
        expanded[number - 1] = lines[number - 1]
    changed = [number for number, (old, new) in enumerate(zip(lines, expanded), start=1) if old != new]
    if not changed:
        return None
    return "".join(expanded), changed[0]


def original_column(source: str, converted: str, line: int, column: int) -> int:
    """The 1-based ``column`` of ``line`` in ``converted`` as a column of ``source``: shifted
    by what the indentation's expansion added, or 1 inside the expanded indentation."""
    old, new = source.splitlines()[line - 1 : line], converted.splitlines()[line - 1 : line]
    if not old or not new or old[0] == new[0]:
        return column
    added = len(new[0]) - len(old[0])
    return max(1, column - added) if column > len(new[0]) - len(new[0].lstrip()) else 1
