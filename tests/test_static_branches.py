"""rewrites/static_branches.py: an ``if`` holding a refused line, whose test TF1 decided while
building the graph, replaced by the branch taken; every other statement carried over as written."""

from __future__ import annotations

import textwrap

from tf2migrate.analysis.tf_imports import collect_tf_imports
from tf2migrate.layout import parse_module
from tf2migrate.rewrites.static_branches import decide_branches


def _decided(source: str, lines: set[int]):
    module = parse_module(textwrap.dedent(source).lstrip("\n"))
    return decide_branches(module, collect_tf_imports(module), lines)


SOURCE = """
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 4])
# pick the layer by rank
if len(x.get_shape()) == 4:
    y = tf.reduce_mean(x, [1, 2])
elif len(x.get_shape()) == 2:
    y = tf.reduce_sum(x, 1)
else:
    raise ValueError('rank')
DEBUG = False
if DEBUG:
    print(x)
"""


def test_elif_chain_gives_the_branch_taken_and_keeps_the_comment() -> None:
    decided = _decided(SOURCE, {6})
    assert decided is not None
    assert decided.source == textwrap.dedent(
        """\
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 4])
        # pick the layer by rank
        y = tf.reduce_sum(x, 1)
        DEBUG = False
        if DEBUG:
            print(x)
        """
    )
    # each line on the original's: the branch's statement stood on line 7
    assert [decided.map_line(n) for n in range(1, 8)] == [1, 2, 3, 7, 10, 11, 12]
    assert [(line, column) for line, column, _ in decided.notes] == [(4, 1)]
    assert "the body of its `elif` written in its place" in decided.notes[0][2]


def test_no_refusal_in_an_if_changes_nothing() -> None:
    """A script's other switches stay as written (``if DEBUG:`` holds no refused line)."""
    assert _decided(SOURCE, {2}) is None


def test_undecided_tests_are_left() -> None:
    source = """
    import sys
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 4])
    if len(sys.argv) > 1:
        y = x * 2.0
    if x.get_shape()[0] == 3:
        y = x * 3.0
    """
    assert _decided(source, {5, 7}) is None


def test_branch_in_a_function_is_decided_from_its_own_statements() -> None:
    source = """
    import tensorflow as tf
    def main(debug):
        corruption = False
        x = tf.placeholder(tf.float32, [None, 4])
        if corruption:
            x = x + 1.0
        if debug:
            x = x * 2.0
        return x
    """
    decided = _decided(source, {5, 7})
    assert decided is not None
    assert "corruption:" not in decided.source  # decided: no branch taken
    assert "if debug:" in decided.source  # a parameter: unknown at every call
