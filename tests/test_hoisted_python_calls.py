"""rewrites/hoisted_python_calls.py: which refused Python calls are computed before their
statement, where the new statement goes, and how lines map back."""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.tf_imports import collect_tf_imports
from tf2migrate.rewrites.hoisted_python_calls import Hoisted, hoist

HEAD = "import numpy as np\nimport tensorflow as tf\n"


def _hoist(source: str, *refused: tuple[int, int, str]) -> Hoisted | None:
    module = cst.parse_module(HEAD + source)
    return hoist(module, collect_tf_imports(module), {(line + 2, column, func) for line, column, func in refused})


def test_hoisted_before_its_statement_in_its_block():
    hoisted = _hoist("for i in range(2):\n    # the key\n    a = d['m_{}'.format(i)] + tf.ones([2])\n", (3, 11, "'m_{}'.format"))
    assert hoisted is not None and hoisted.source is not None
    assert hoisted.source.splitlines()[2:] == [
        "for i in range(2):",
        "    # the key",
        "    format_value = 'm_{}'.format(i)",
        "    a = d[format_value] + tf.ones([2])",
    ]
    assert hoisted.map_line(5) == 5 and hoisted.map_line(6) == 5 and hoisted.map_line(7) == 6


def test_multi_line_call_and_lines_after_it():
    hoisted = _hoist(
        "y = tf.constant(data.reshape(\n    -1, 1))\nz = tf.constant(other.copy())\n", (1, 17, "data.reshape"), (3, 17, "other.copy")
    )
    assert hoisted is not None and hoisted.source is not None
    assert "reshape_value = data.reshape(\n    -1, 1)\ny = tf.constant(reshape_value)\ncopy_value = other.copy()\n" in hoisted.source
    # original lines 3-4 (y), 5 (z) → rewritten: 3-4 new, 5-6 y, 7 new, 8 z
    assert [hoisted.map_line(n) for n in (3, 4, 5, 6, 7, 8)] == [3, 3, 3, 4, 5, 5]


def test_not_hoisted():
    # a Python call runs before it in the statement: it would run after the hoisted one
    assert _hoist("y = tf.constant(q.pop()) * tf.constant(q.pop())\n", (1, 41, "q.pop")) is None
    # a TF op built before a call that could read the graph (an unknown function)
    assert _hoist("y = tf.ones([2]) + tf.constant(count_ops())\n", (1, 32, "count_ops")) is None
    # evaluated only in a branch, in a lambda, in a comprehension, after `and`
    assert _hoist("y = tf.constant(a.copy() if c else b)\n", (1, 17, "a.copy")) is None
    assert _hoist("f = lambda: tf.constant(a.copy())\n", (1, 25, "a.copy")) is None
    assert _hoist("ys = [tf.constant(a.copy()) for _ in r]\n", (1, 19, "a.copy")) is None
    assert _hoist("y = tf.constant(c and a.copy())\n", (1, 23, "a.copy")) is None
    # it calls TF itself; one line holding two statements; a statement of its own already
    assert _hoist("y = tf.constant(len(tf.trainable_variables()))\n", (1, 17, "len")) is None
    assert _hoist("b = 1; y = tf.constant(a.copy())\n", (1, 24, "a.copy")) is None
    assert _hoist("v = a.copy()\n", (1, 5, "a.copy")) is None


def test_tf_op_before_a_graph_blind_call():
    hoisted = _hoist("y = tf.ones([2]) * tf.constant(a.reshape(2))\n", (1, 32, "a.reshape"))
    assert hoisted is not None and hoisted.source is not None
    assert "reshape_value = a.reshape(2)\ny = tf.ones([2]) * tf.constant(reshape_value)\n" in hoisted.source
