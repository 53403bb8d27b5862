"""Graph code under ``if __name__ == "__main__":`` moved into a function the guard calls
(rewrites/main_guard.py, TFM149): made only where no name can change meaning."""

from __future__ import annotations

import ast
import textwrap

import pytest

from tf2migrate import migrate_source
from tf2migrate.layout import parse_module
from tf2migrate.rewrites.main_guard import ADDED_LINES, may_hold, move_into_function
from python3_sources import python3_fixture_sources

GRAPH = """\
    x = tf.placeholder(tf.float32, [None])
    y = x * 2.0
    with tf.Session() as sess:
        value = sess.run(y, {x: [1.0]})
"""


def _program(before: str = "", after: str = "", guard: str = 'if __name__ == "__main__":') -> str:
    return f"import tensorflow as tf\n{textwrap.dedent(before)}{guard}\n{GRAPH}{textwrap.dedent(after)}"


def _moved(source: str):
    return move_into_function(parse_module(source), source)


def test_a_guard_alone_is_moved_and_its_graph_converts():
    result = migrate_source(_program())
    assert "def main():" in result.new_source and 'if __name__ == "__main__":\n    main()' in result.new_source
    assert "placeholder" not in result.new_source and "Session" not in result.new_source
    assert [f.line for f in result.findings if f.code == "TFM149"] == [2]
    assert migrate_source(result.new_source).new_source == result.new_source


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("def report():\n    return value\n", ""),  # a module function reads a moved name
        ("class Report:\n    seen = y\n", ""),  # so does a class body
        ("", "print(value)\n"),  # a statement after the guard
        ("value = None\n", ""),  # the module binds the same name
        ("import numpy as value\n", ""),  # or imports it
        ("def value():\n    return 1\n", ""),  # or defines it
        ("", "del x\n"),
        ("print(globals())\n", ""),  # the module inspects its scopes
    ],
)
def test_names_that_would_change_meaning_keep_the_guard(before, after):
    assert _moved(_program(before, after)) is None


@pytest.mark.parametrize(
    "inside",
    [
        "    global y\n",
        "    def helper():\n        return 1\n",
        "    class Holder:\n        pass\n",
        "    from os.path import *\n",
    ],
)
def test_blocks_a_function_would_not_hold_keep_the_guard(inside):
    source = _program().replace("    x = tf.placeholder", inside + "    x = tf.placeholder")
    assert _moved(source) is None


def test_a_function_local_of_the_same_name_is_another_variable():
    source = _program("def helper(value):\n    return value + 1\n")
    moved = _moved(source)
    assert moved is not None and "def main():" in moved.source


def test_the_name_main_taken_gives_another():
    moved = _moved(_program("def main(argv):\n    return argv\n"))
    assert moved is not None and "def run_main():" in moved.source and "    run_main()" in moved.source


@pytest.mark.parametrize(
    "guard",
    ["if TRAIN:", 'if __name__ != "__main__":', 'if __name__ == "__main__" and TRAIN:'],
)
def test_other_blocks_are_not_moved(guard):
    assert _moved(_program("TRAIN = True\n", guard=guard)) is None


def test_a_guard_with_else_or_two_guards_is_not_moved():
    assert _moved(_program(after="else:\n    pass\n")) is None
    twice = _program() + 'if __name__ == "__main__":\n    print(1)\n'
    assert _moved(twice) is None


def test_lines_of_the_original_are_kept():
    source = _program(after="print('done')\n")  # (after the guard, reading nothing it binds)
    moved = _moved(source)
    assert moved is not None
    original, new = source.split("\n"), moved.source.split("\n")
    last_block_line = moved.added_after
    assert original[:last_block_line][2:] == new[:last_block_line][2:]  # the block's lines, unchanged
    after = original.index("print('done')") + 1
    assert new[after - 1 + ADDED_LINES] == "print('done')" and moved.map_line(after + ADDED_LINES) == after


def test_a_placeholder_in_a_block_that_runs_the_graph_is_refused_with_its_reason():
    result = migrate_source(_program("import sys\nTRAIN = len(sys.argv) > 0\n", guard="if TRAIN:"))
    refusals = [f for f in result.findings if f.code == "TFM306"]
    assert refusals and "made in a block that also runs the graph (`if TRAIN:`)" in refusals[0].message
    assert not any(f.code == "TFM302" for f in result.findings)


def test_a_block_under_a_module_constant_is_the_branch_tf1_took():
    """``TRAIN = True`` decides the test: the block's statements replace the ``if`` (TFM152)."""
    result = migrate_source(_program("TRAIN = True\n", guard="if TRAIN:"))
    assert "TFM152" in {f.code for f in result.findings} and "if TRAIN" not in result.new_source
    assert "placeholder" not in result.new_source and "Session" not in result.new_source


GUARD_LAYOUTS = [
    _program(),
    _program(after="# a comment after the block\n\n\nprint('after')\n"),
    _program(after="    # a comment of the block\n\n@decorated\ndef f():\n    pass\n"),
    _program(before="import os\n\n", after="x = 1\n"),
    _program(guard="if (__name__ ==\n        '__main__'):"),
    _program(guard="if '__main__' == __name__:"),
    _program().rstrip("\n"),  # no trailing newline
    _program(after="if __name__ == '__main__':\n    pass\n"),  # two guards: not moved
]


@pytest.mark.parametrize(
    "source", GUARD_LAYOUTS + [text for path in python3_fixture_sources("*.py") if "__main__" in (text := path.read_text(encoding="utf-8"))]
)
def test_the_cheap_test_holds_every_line_the_move_would_look_at(source):
    """``may_hold`` (CPython's tree) is True for every line from the guard's ``if`` to the
    end of its block as the move counts them: a False never skips a move that would count."""
    moved = _moved(source)
    if moved is None:
        return
    tree = ast.parse(source)
    for line in range(moved.guard_line, moved.added_after + 1):
        assert may_hold(tree, {line})


def test_the_cheap_test_is_false_outside_the_block():
    source = _program(before="import os\n", after="\nx = 1\n")
    tree = ast.parse(source)
    assert may_hold(tree, {3, 4, 7, 8}) and not may_hold(tree, {1, 9, 10})


@pytest.mark.parametrize("ending", ["\n", ""], ids=["final line break", "no final line break"])
def test_findings_stand_on_their_lines_with_or_without_a_final_line_break(ending):
    source = _program().rstrip("\n") + ending  # the run is the file's last line
    result = migrate_source(source)
    lines = {f.code: f.line for f in result.findings}
    assert lines["TFM149"] == 2  # the guard's `if`
    assert lines["TFM102"] == source.split("\n").index("        value = sess.run(y, {x: [1.0]})") + 1
