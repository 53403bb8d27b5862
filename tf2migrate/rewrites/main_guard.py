"""Graph code under ``if __name__ == "__main__":`` → the same statements as a function the
guard calls.

Scripts often build and run their graph in the guard, so that importing them does nothing::

    if __name__ == "__main__":
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.reduce_sum(x * w, axis=1)
        with tf.Session() as sess:
            print(sess.run(y, {x: data}))

The analysis reads graph code at a module's top level and in functions; a module-level
block is neither, so such a file stayed on TF1.  The module is first rewritten, TF1 to TF1,
with the block's statements as the body of a function and the guard calling it::

    def main():
        x = tf.placeholder(tf.float32, [None, 2])
        ...
    if __name__ == "__main__":
        main()

and that module is then migrated like any other whose graph a function builds.  The
statements run at the same moment, in the same order, with the same values: they differ
only in where their names live (the function's locals, not the module's globals), so the
move is made only where nothing can tell the two apart (checked on the module's symbol
tables, Python's own scoping):

- no code outside the block reads or binds a name the block binds (a module function
  reading ``sess`` as a global, a statement after the guard, a module binding of the same
  name, which the block would now shadow);
- the block declares no ``global``/``nonlocal`` and defines no function or class (their
  ``__qualname__`` and pickling would change); it has no star import (not allowed in a
  function);
- the module calls none of ``globals``, ``locals``, ``vars``, ``exec``, ``eval``, ``dir``,
  which see scopes;
- the guard has no ``else``, and is the module's only one.

The function is ``main`` unless the module binds that name (then ``run_main``, …).
migrate.py makes the move only for a file kept on TF1 with a refusal inside the guard, and
keeps the moved module only if its graph then converts.
"""

from __future__ import annotations

import ast
import math
import symtable
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.symbol_tables import INLINE_SCOPES, inspects_scopes, reads_globals, tables_under
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import render
from tf2migrate.traversal import find_all

MAIN_GUARD = Rule(
    "TFM149",
    "main-guard-as-function",
    'Graph code under `if __name__ == "__main__":` → a function the guard calls, migrated like any function\'s graph code.',
    Severity.INFO,
    FixSafety.SAFE,
    what='Moves the statements of a module\'s `if __name__ == "__main__":` block into `def main():` and has the guard call '
    "`main()`, when the block builds or runs a TF1 graph that kept the file on TF1; the function's graph code is then "
    "converted as any function's is.",
    why="The statements run at the same moment and in the same order; only their names move from the module's globals to "
    "the function's locals, so the move is made only when no other code reads or binds those names (Python's symbol tables "
    "say), the block defines no function or class and declares no global, and the module never inspects its scopes. The "
    "conditions are in `tf2migrate/rewrites/main_guard.py`.",
    example='if __name__ == "__main__":\n    x = tf.placeholder(tf.float32)\n    with tf.Session() as sess:\n'
    "        print(sess.run(x * 2.0, {x: 1.0}))",
    instead="def main():\n    @tf.function(...)\n    def compute_x_times(x): ...\n    print(compute_x_times(x=1.0).numpy())\n"
    'if __name__ == "__main__":\n    main()',
    invalid=(
        "import tensorflow as tf\n"
        'if __name__ == "__main__":\n'
        "    x = tf.placeholder(tf.float32, [None])\n"
        "    y = x * 2.0\n"
        "    with tf.Session() as sess:\n"
        "        print(sess.run(y, {x: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "def report():\n"
        "    print(y)\n"
        'if __name__ == "__main__":\n'
        "    x = tf.placeholder(tf.float32, [None])\n"
        "    y = x * 2.0\n"
        "    with tf.Session() as sess:\n"
        "        print(sess.run(y, {x: [1.0]}))\n",
    ),
)
RULES = [MAIN_GUARD]

# in the text of every file that has the guard (a cheap test before parsing)
GUARD_TEXT = "__main__"
_GUARD = m.If(
    test=m.Comparison(
        left=m.Name("__name__"),
        comparisons=[m.ComparisonTarget(operator=m.Equal(), comparator=m.SimpleString('"__main__"') | m.SimpleString("'__main__'"))],
    )
    | m.Comparison(
        left=m.SimpleString('"__main__"') | m.SimpleString("'__main__'"),
        comparisons=[m.ComparisonTarget(operator=m.Equal(), comparator=m.Name("__name__"))],
    ),
    orelse=None,
)


@dataclass
class Moved:
    """The module with the guard's statements in a function (their lines unchanged), and
    the notes to report (on the original's lines)."""

    source: str
    guard_line: int
    added_after: int  # the block's last line: the original's later lines are ADDED_LINES further down
    notes: list[tuple[int, int, str]] = field(default_factory=list)

    def map_line(self, line: int) -> int:
        return line - ADDED_LINES if line > self.added_after + ADDED_LINES else min(line, self.added_after)


# the guard calling the function, after the block: two blank lines, the `if`, the call
ADDED_LINES = 4


def may_hold(tree: ast.Module, lines: Collection[int]) -> bool:
    """The cheap test before the move (which renders the module twice and reads its symbol
    tables): could one of ``lines`` lie in the guard's block, from (the line before) its
    ``if`` to the line before the next top-level statement?  Read from CPython's tree of the module: every
    top-level ``if`` whose test compares ``__name__`` (the guard among them), so a False
    means that no line lies where ``Moved.guard_line`` … ``Moved.added_after`` would."""
    body = tree.body
    for index, statement in enumerate(body):
        if not (isinstance(statement, ast.If) and isinstance(statement.test, ast.Compare)):
            continue
        compared = [statement.test.left, *statement.test.comparators]
        if not any(isinstance(node, ast.Name) and node.id == "__name__" for node in compared):
            continue
        end = _first_line(body[index + 1]) - 1 if index + 1 < len(body) else math.inf
        if any(statement.lineno <= line <= end for line in lines):
            return True
    return False


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", None)
    return decorators[0].lineno if decorators else statement.lineno


def move_into_function(module: cst.Module, source: str) -> Moved | None:
    """The module with its guard's block as a function the guard calls; None when the move
    could change what a name means (see the module's docstring)."""
    guards = [s for s in module.body if m.matches(s, _GUARD)]
    if len(guards) != 1:
        return None
    guard = guards[0]
    assert isinstance(guard, cst.If)
    if not isinstance(guard.body, cst.IndentedBlock) or inspects_scopes(module, source):
        return None
    if find_all(guard.body, (cst.FunctionDef, cst.ClassDef, cst.Global, cst.Nonlocal, cst.ImportStar)):
        return None
    name = _function_name(source)
    if name is None:
        return None
    function = cst.FunctionDef(name=cst.Name(name), params=cst.Parameters(), body=guard.body, leading_lines=guard.leading_lines)
    call = cst.If(
        test=guard.test,
        body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Expr(cst.Call(cst.Name(name)))])]),
        leading_lines=[cst.EmptyLine(indent=False)] * 2,  # PEP 8: two blank lines after a module-level def
    )
    body = list(module.body)
    index = body.index(guard)
    body[index : index + 1] = [function, call]
    moved = render(module.with_changes(body=body))
    if not _same_meaning(moved, name):
        return None
    # (the lines up to the function's end are the original's, the `def` on the `if`'s line)
    before = _lines(module, body[:index])
    guard_line = before + len(guard.leading_lines) + 1
    through = before + module.code_for_node(function).count("\n")  # the function's text is the guard's
    note = f'the statements of `if __name__ == "__main__":` moved into `def {name}():`, which the guard calls'
    return Moved(moved, guard_line, through, [(guard_line, 1, note)])


def _lines(module: cst.Module, statements: Sequence[cst.BaseStatement]) -> int:
    """How many lines the module's header and these statements take."""
    # (each statement's own line break counted, the last one's too: a module without a final
    # line break renders its last statement without one)
    return render(module.with_changes(body=statements, footer=(), has_trailing_newline=True)).count("\n")


def _function_name(source: str) -> str | None:
    try:
        top = symtable.symtable(source, "<module>", "exec")
    except SyntaxError:
        return None
    bound = {s.get_name() for s in top.get_symbols()} | _names_everywhere(top)
    for name in ("main", "run_main", "main_guarded"):
        if name not in bound:
            return name
    return None


def _names_everywhere(table: symtable.SymbolTable) -> set[str]:
    names = {s.get_name() for s in table.get_symbols()}
    for child in table.get_children():
        names |= _names_everywhere(child)
    return names


def _same_meaning(moved: str, name: str) -> bool:
    """Do the names the function now binds mean, everywhere, what they meant as the
    module's globals?  No other scope reads or binds them, and the function declares no
    global; judged on Python's own symbol tables of the moved module."""
    try:
        top = symtable.symtable(moved, "<module>", "exec")
    except SyntaxError:
        return False
    functions = [c for c in top.get_children() if c.get_name() == name and c.get_type() == "function"]
    if len(functions) != 1:
        return False
    function = functions[0]
    assert isinstance(function, symtable.Function)
    moved_names = set(function.get_locals())
    if any(s.is_declared_global() or s.is_nonlocal() for s in function.get_symbols()):
        return False
    if any(c.get_name() not in INLINE_SCOPES for c in tables_under(function)):
        return False
    # the module scope itself: a statement after the guard reading a moved name, or a
    # binding of the same name elsewhere at the top level
    # (every name the top level mentions: read, assigned, imported, a def or class)
    module_names = {s.get_name() for s in top.get_symbols() if s.get_name() != name}
    if moved_names & module_names:
        return False
    return not any(reads_globals(table, moved_names) for table in top.get_children() if table is not function)
