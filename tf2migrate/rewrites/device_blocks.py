"""A script's code inside a top-level ``with tf.device(...):`` → that code at the module's top.

Research scripts put their whole program under one device block (EQDiscovery's sixteen
physics-informed scripts, ``with tf.device('/device:GPU:0'):`` holding the network class,
the data loading and the training)::

    with tf.device('/device:GPU:0'):
        class PhysicsInformedNN:
            def __init__(self, X, u, layers):
                self.x_tf = tf.placeholder(tf.float32, shape=[None, 1])
                ...
        model = PhysicsInformedNN(X, u, layers)
        model.train(10000)

The analysis converts graphs built by the module's classes and statements; a class defined
in a ``with`` block is none of those (TFM307).  TF1 placed the block's ops on the device it
named (or, under ``allow_soft_placement``, on one that could run them); eager TF2 places each
op itself, on a GPU when one is present, and a placement changes no value.  The module is
first rewritten, TF1 to TF1, with the block's statements in its place, then migrated like any
other; the rewrite is kept only when the graph then converts, so a file still kept on TF1
keeps its device block.  Only a top-level block whose every item is ``tf.device(...)``, bound
to no name, and which holds a line a refusal named is unwrapped.  Comments on the ``with``
line and at the block's end stay where they were; the block's statements keep their lines,
and findings are placed on the original's lines and columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.bindings import block_header
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions, anchored_lines, holds_line

DEVICE_BLOCK_UNWRAPPED = Rule(
    "TFM153",
    "device-block-unwrapped",
    "A script's code inside a top-level `with tf.device(...):` → that code at the module's top, then converted.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Moves the statements of a top-level `with tf.device(...):` block to the module's top level when the block holds "
    "a graph the analysis refused only because its class or statements stood in the block; the graph is then converted "
    "as the module's is.",
    why="Eager TF2 places each op itself (on a GPU when one is present); the device a TF1 graph was pinned to changes no "
    "value. The block is unwrapped only when the graph then converts; otherwise the file keeps it.",
    example="with tf.device('/device:GPU:0'):\n    class PINN:\n        def __init__(self, X):\n"
    "            self.x_tf = tf.placeholder(tf.float32, [None, 1])",
    instead="class PINN:\n    def __init__(self, X):\n        self.x = X  # then converted",
    invalid=(
        "import numpy as np\n"
        "import tensorflow as tf\n"
        "with tf.device('/cpu:0'):\n"
        "    class Model:\n"
        "        def __init__(self):\n"
        "            self.x = tf.placeholder(tf.float32, [None, 1])\n"
        "            self.y = self.x * 2.0\n"
        "            self.sess = tf.Session()\n"
        "\n"
        "        def predict(self, x):\n"
        "            return self.sess.run(self.y, {self.x: x})\n"
        "    model = Model()\n"
        "    print(model.predict(np.ones((2, 1))))\n",
    ),
    valid=(
        "import numpy as np\n"
        "import tensorflow as tf\n"
        "class Model:\n"
        "    def __init__(self):\n"
        "        self.scale = 2.0\n"
        "\n"
        "    def predict(self, x):\n"
        "        return tf.constant(x) * self.scale\n"
        "with tf.device('/cpu:0'):\n"
        "    print(Model().predict(np.ones((2, 1))))\n",
    ),
)
RULES = [DEVICE_BLOCK_UNWRAPPED]

# (the cheap test: the text of the call)
DEVICE_TEXT = "device("
# what TFM307 says of a class defined in a block (analysis/graph.py)
DEFINED_INSIDE = "is defined inside `with "


@dataclass
class Unwrapped:
    """The module with its device blocks unwrapped, the original line of each of its lines,
    the columns each line moved left by, and the notes (on the original's lines)."""

    source: str
    lines: list[int]  # 1-based original line of each line of ``source`` (index 0: line 1)
    dedents: list[int]  # columns each line of ``source`` moved left by
    notes: list[tuple[int, int, str]] = field(default_factory=list)

    def map_line(self, line: int) -> int:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else line

    def map_column(self, line: int, column: int) -> int:
        return column + self.dedents[line - 1] if 0 < line <= len(self.dedents) else column


def unwrap_device_blocks(module: cst.Module, imports: TfImports, refused_lines: set[int]) -> Unwrapped | None:
    """The module with each top-level ``with tf.device(...):`` block holding one of
    ``refused_lines`` replaced by its statements; None if there is none."""
    positions = Positions(module)
    body: list[cst.BaseStatement] = []
    origins: dict[int, int | None] = {}
    notes: list[tuple[int, int, str]] = []
    blocks: list[tuple[int, int, int]] = []  # (first index in ``body``, index after the last, indentation width)
    pending: list[cst.EmptyLine] = []  # a block's closing comments, for the statement after it
    for statement in module.body:
        if _device_block(statement, imports, positions, refused_lines) is None:
            if pending:
                origins[id(rebuilt := statement.with_changes(leading_lines=[*pending, *statement.leading_lines]))] = (
                    positions.get(statement) or (None, 0)
                )[0]
                statement, pending = rebuilt, []
            body.append(statement)
            continue
        with_node = cst.ensure_type(statement, cst.With)
        block = cst.ensure_type(with_node.body, cst.IndentedBlock)
        line, column = positions.get(statement) or (0, 0)
        # (a comment on the ``with`` line goes on a line of its own above the statements)
        header = [cst.EmptyLine(comment=block.header.comment)] if block.header.comment is not None else []
        statements = list(block.body)
        first = statements[0]
        assert isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement))  # a block's statements
        statements[0] = first.with_changes(leading_lines=[*with_node.leading_lines, *header, *first.leading_lines])
        origins[id(statements[0])] = (positions.get(first) or (None, 0))[0]
        indent = block.indent if block.indent is not None else module.default_indent
        blocks.append((len(body), len(body) + len(statements), len(indent.expandtabs(8))))
        body += statements
        pending = list(block.footer)
        message = f"`{block_header(with_node)}:` unwrapped: its statements moved to the module's top level (eager TF2 places ops itself)"
        notes.append((line, column + 1, message))
    if not notes:
        return None
    new = module.with_changes(body=body, footer=[*pending, *module.footer])
    placed = Positions(new)
    lines = anchored_lines(new, positions, origins, placed)
    return Unwrapped(new.code, lines, _dedents(placed, body, blocks, len(lines)), notes)


def _dedents(placed: Positions, body: list[cst.BaseStatement], blocks: list[tuple[int, int, int]], count: int) -> list[int]:
    """Per line of the new module (``placed``): how far left it moved.  A block's lines run
    from its first statement to the line before the next statement of the module."""
    dedents = [0] * count
    for first, after, width in blocks:
        start = (placed.get(body[first]) or (1, 0))[0]
        stop = (placed.get(body[after]) or (count + 1, 0))[0] if after < len(body) else count + 1
        for number in range(start, stop):
            dedents[number - 1] = width
    return dedents


def _device_block(statement: cst.BaseStatement, imports: TfImports, positions: Positions, refused_lines: set[int]) -> cst.With | None:
    """``statement`` when it is a ``with tf.device(...):`` block (every item a device, bound
    to no name) holding a refused line."""
    if not isinstance(statement, cst.With) or statement.asynchronous is not None:
        return None
    if not all(
        isinstance(item.item, cst.Call) and item.asname is None and imports.call_name(item.item) == "device" for item in statement.items
    ):
        return None
    return statement if holds_line(statement, positions, refused_lines) else None
