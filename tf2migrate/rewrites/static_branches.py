"""An ``if`` in graph-building code whose test TF1 decided from literals and static shapes →
the branch it took.

Factories check what they are given before they build (pkmital's convolutional
autoencoder, once written out at its call by rewrites/factory_inline.py)::

    input_shape = [None, 784]
    x = tf.placeholder(tf.float32, input_shape, name='x')
    if len(x.get_shape()) == 2:
        x_dim = np.sqrt(x.get_shape().as_list()[1])
        ...
        x_tensor = tf.reshape(x, [-1, x_dim, x_dim, n_filters[0]])
    elif len(x.get_shape()) == 4:
        x_tensor = x
    else:
        raise ValueError('Unsupported input dimensions')

or switch on a flag they were given (``if debug: x = tf.Variable(...) else: x =
tf.placeholder(...)``).  The test reads the graph only through a static shape, so the
analysis refuses it (TFM301: a Python value read off a tensor while the graph is built), and
a placeholder bound in a branch is no top-level binding (TFM306).  TF1 evaluated the test
once, while it built the graph, from facts of the program text: the declared shape and the
literal.  The module is first rewritten, TF1 to TF1, with the ``if`` statement replaced by
the statements of the branch taken (no statement when it takes none), and that module is
then migrated like any other.  The rewrite is made only where the test's value is proven
(analysis/static_shapes.py follows the statements before it as TF1 ran them):

- the ``if`` is a statement of the module's top level, or of the top of a module function's
  body (or in ``with`` blocks there, or in a branch taken of such an ``if``): statements run
  in order, once per run of the scope; in a function, the value must come from its own
  statements alone (its parameters and the module's names are unknown), so it is the same at
  every call;
- the test calls nothing but Python's ``len`` and ``int`` and a tensor's ``get_shape()``,
  ``as_list()`` and ``num_elements()``, and compares only known numbers (``==``, ``<``, …; ints
  with ints, floats with floats: TF1's ``Dimension(3) == 3.0`` was False) or strings (``==``,
  ``!=``), with ``not``, ``and``, ``or``: reading it runs no code, so leaving it out changes
  nothing but the branch no longer taken;
- a test of a dimension TF1 did not know is never decided but by its ``.value is None``
  (TF1's ``Dimension(None)`` is no None and compares as None; TF2's shapes, which code
  importing ``tensorflow.compat.v1`` runs with on TF2, give None).

Only an ``if`` holding a line a refusal named is rewritten: a script's other switches stay as
written.  The branch's statements keep their lines; findings of the migration are placed on
the original's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis import static_shapes
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import anchored_lines, holds_line, Positions
from tf2migrate.traversal import find_all

BRANCH_DECIDED = Rule(
    "TFM152",
    "branch-decided-at-build",
    "An `if` in graph code whose test TF1 decided from literals and static shapes → the branch it took.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces an `if` statement of graph-building code by the statements of the branch TF1 took (`if len(x.get_shape()) "
    "== 2:` of a placeholder declared `[None, 784]`; `if debug:` of `debug = False`), when its refusal kept the file on TF1; "
    "the graph code is then converted as the module's is.",
    why="TF1 evaluated the test once, while it built the graph, from the program text alone: the rewrite is made only where "
    "the test calls nothing but `len`, `int` and a tensor's static shape, compares known numbers or strings, and its value "
    "is proven by following the statements before it (in a function, its own statements alone: the same at every call). "
    "The conditions are in `tf2migrate/rewrites/static_branches.py`.",
    example="x = tf.placeholder(tf.float32, [None, 784])\nif len(x.get_shape()) == 2:\n    x_2d = tf.reshape(x, [-1, 28, 28, 1])",
    instead="x = tf.placeholder(tf.float32, [None, 784])\nx_2d = tf.reshape(x, [-1, 28, 28, 1])  # then converted",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 4])\n"
        "if len(x.get_shape()) == 2:\n"
        "    y = tf.reduce_sum(x, 1)\n"
        "else:\n"
        "    raise ValueError('rank')\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [[1.0, 2.0, 3.0, 4.0]]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, None])\n"
        "if x.get_shape()[1] == 4:\n"
        "    y = tf.reduce_sum(x, 1)\n"
        "else:\n"
        "    y = x\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [[1.0, 2.0, 3.0, 4.0]]}))\n",
    ),
)
RULES = [BRANCH_DECIDED]


@dataclass
class Decided:
    """The module with the decided ``if`` statements replaced, the original line of each of
    its lines, and the notes (on the original's lines)."""

    source: str
    lines: list[int]  # 1-based original line of each line of ``source`` (index 0: line 1)
    notes: list[tuple[int, int, str]] = field(default_factory=list)

    def map_line(self, line: int) -> int:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else line


def decide_branches(module: cst.Module, imports: TfImports, refused_lines: set[int]) -> Decided | None:
    """The module with each ``if`` holding one of ``refused_lines`` replaced by the branch its
    proven test takes; None if there is none."""
    positions = Positions(module)

    candidates = [i for i in (cst.ensure_type(n, cst.If) for n in find_all(module, cst.If)) if holds_line(i, positions, refused_lines)]
    if not candidates:
        return None
    wanted: set[int] = set()
    for candidate in candidates:  # with its ``elif`` tests, which run when it takes no branch
        link: cst.If | cst.Else | None = candidate
        while isinstance(link, cst.If):
            wanted.add(id(link))
            link = link.orelse
    tests = dict(static_shapes.evaluate_module(module, imports, wanted, set()).tests)
    for function in module.body:
        if isinstance(function, cst.FunctionDef) and any(id(i) in wanted for i in find_all(function.body, cst.If)):
            tests.update(static_shapes.evaluate_function(module, function, imports, wanted, frozenset()).tests)
    if not tests:
        return None
    notes: list[tuple[int, int, str]] = []
    elifs = {id(c.orelse) for c in candidates}
    for statement in candidates:
        if id(statement) in tests and id(statement) not in elifs:  # (one note for a chain)
            line, column = positions.get(statement) or (0, 0)
            taken = _taken_text(statement, tests)
            notes.append(
                (
                    line,
                    column + 1,
                    f"the test of this `if` is decided as TF1 decided it while building the graph: {taken} written in its place",
                )
            )
    replace = _Replace(tests, positions)
    new = module.with_changes(body=replace.statements(module.body))
    return Decided(new.code, anchored_lines(new, positions, replace.origins), notes)


def _taken_text(statement: cst.If, tests: dict[int, bool]) -> str:
    """Which branch of the chain replaces it, in words."""
    link: cst.If | cst.Else | None = statement
    depth = 0
    while isinstance(link, cst.If):
        decided = tests.get(id(link))
        if decided is None:
            return "its `elif` test, as an `if` of its own,"
        if decided:
            return "its body" if depth == 0 else "the body of its `elif`"
        link, depth = link.orelse, depth + 1
    return "its `else`" if link is not None else "no branch"


class _Replace:
    """Each decided ``if`` of a statement sequence → the statements of the branch it takes.
    Statements are carried over as the very nodes they were (their lines found by identity);
    only a statement holding a decided ``if`` is rebuilt, its line kept in ``origins``."""

    def __init__(self, tests: dict[int, bool], positions: Positions) -> None:
        self.tests = tests
        self.positions = positions
        self.origins: dict[int, int | None] = {}  # a rebuilt statement → its original line

    def statements(self, statements: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for statement in statements:
            if isinstance(statement, cst.If) and id(statement) in self.tests:
                out += self._taken(statement)
            elif isinstance(statement, (cst.FunctionDef, cst.With)) and any(id(i) in self.tests for i in find_all(statement.body, cst.If)):
                block = cst.ensure_type(statement.body, cst.IndentedBlock)
                body = self.statements(block.body) or [cst.SimpleStatementLine([cst.Pass()])]
                rebuilt = statement.with_changes(body=block.with_changes(body=body))
                self.origins[id(rebuilt)] = (self.positions.get(statement) or (None, 0))[0]
                out.append(rebuilt)
            else:
                out.append(statement)
        return out

    def _taken(self, statement: cst.If) -> list[cst.BaseStatement]:
        """The statements in place of a decided ``if``: those of the branch its test takes."""
        if self.tests[id(statement)]:
            taken = self.statements(cst.ensure_type(statement.body, cst.IndentedBlock).body)
        elif isinstance(statement.orelse, cst.If):
            # ``elif``: an ``if`` of its own now, decided or not
            elif_ = statement.orelse
            taken = self._taken(elif_) if id(elif_) in self.tests else [elif_]
        elif isinstance(statement.orelse, cst.Else):
            taken = self.statements(cst.ensure_type(statement.orelse.body, cst.IndentedBlock).body)
        else:
            taken = []
        if taken and statement.leading_lines:  # the comments above the ``if`` stay above what replaces it
            first = taken[0]
            assert isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement))  # a block's statements
            line = self.origins.get(id(first), (self.positions.get(first) or (None, 0))[0])
            taken[0] = first.with_changes(leading_lines=[*statement.leading_lines, *first.leading_lines])
            self.origins[id(taken[0])] = line
        return taken
