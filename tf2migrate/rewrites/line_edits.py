"""Text edits that keep every line's number: the first steps of a migration that rewrite
an old dialect (Python 2 prints, TensorFlow 0.x names) before the migration reads the file.

Findings on the edited text are findings on the original once their columns are moved
back over the edits made earlier on the same line (``original_column``).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """Replace ``source[start:end]`` (offsets) by ``text``; ``line`` is 1-based."""

    start: int
    end: int
    text: str
    line: int
    column: int  # 0-based, of ``start``


def line_offsets(source: str) -> list[int]:
    """The offset of each line's first character, 1-based (index 0 unused)."""
    offsets = [0, 0]
    for line in io.StringIO(source, newline="").readlines():  # Python's own line ends only
        offsets.append(offsets[-1] + len(line))
    return offsets


def applied(source: str, edits: Iterable[Edit]) -> str:
    text = source
    # last first, so that earlier offsets still hold; at one offset, a replacement before an
    # insertion there (``labels=`` before ``tf.mul`` → ``tf.multiply``): the insertion first
    # would have the replacement's span cover the inserted text
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: edit.start] + edit.text + text[edit.end :]
    return text


def original_column(edits: Iterable[Edit], line: int, column: int) -> int:
    """A 1-based column of the edited text on ``line`` → the original's."""
    shift = 0
    for edit in sorted(edits, key=lambda e: e.start):
        if edit.line == line and edit.column + shift < column - 1:
            shift += len(edit.text) - (edit.end - edit.start)
    return max(1, column - shift)
