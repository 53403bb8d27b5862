"""rewrites/tensor_dicts.py: reads of a dict display of graph names are written as the names
only where the dict and those names keep one meaning."""

from __future__ import annotations

import textwrap

import pytest

from tf2migrate.layout import parse_module
from tf2migrate.rewrites.tensor_dicts import resolve_reads

_PROGRAM = """
import tensorflow as tf
x = tf.placeholder(tf.float32, [None])
y = x * 2.0
net = {"x": x, "y": y}
{between}
with tf.Session() as sess:
    out = sess.run(net["y"], {net["x"]: [1.0]})
"""


def _resolved(between: str):
    source = textwrap.dedent(_PROGRAM.replace("{between}", between))
    return resolve_reads(parse_module(source), source, {"net"})


def test_reads_become_the_names_on_the_same_lines():
    resolved = _resolved("")
    assert resolved is not None
    assert "out = sess.run(y, {x: [1.0]})" in resolved.source
    assert resolved.source.count("\n") == _PROGRAM.replace("{between}", "").count("\n")


@pytest.mark.parametrize(
    "between",
    [
        'net["y"] = y * 3.0',  # an entry replaced
        "y = y + 1.0",  # a name the dict holds rebound: the dict keeps the first
        "keys = list(net)",  # the dict used otherwise
        'z = net["w"]',  # a key the display lacks
        "def peek():\n    return net",  # another scope mentions it
    ],
)
def test_a_dict_whose_reads_may_differ_from_the_names_is_left(between):
    assert _resolved(between) is None


_IN_FUNCTION = """
import tensorflow as tf


def main(scale):
    x = tf.placeholder(tf.float32, [None])
    h = x * 2.0
    h = h * scale
    net = {"x": x, "y": h, "scale": scale}
    {between}
    with tf.Session() as sess:
        return sess.run(net["y"], {net["x"]: [1.0]}) * net["scale"]
"""


def _resolved_in_function(between: str):
    source = textwrap.dedent(_IN_FUNCTION.replace("{between}", between))
    return resolve_reads(parse_module(source), source, {"net"})


def test_reads_of_a_functions_dict_become_its_names():
    # `h` rebound before the dict holds its last value; the parameter never changes
    resolved = _resolved_in_function("")
    assert resolved is not None
    assert "return sess.run(h, {x: [1.0]}) * scale" in resolved.source


@pytest.mark.parametrize(
    "between",
    [
        "h = h + 1.0",  # rebound after the dict: the dict keeps the earlier tensor
        "del x",
        "peek = lambda: net",  # a scope inside mentions the dict
        "def grow():\n        nonlocal h\n        h = h * 3.0",  # a scope inside may rebind a held name
    ],
)
def test_a_functions_dict_whose_reads_may_differ_is_left(between):
    assert _resolved_in_function(between) is None


_LOOP_PROGRAM = """
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 2])
cur = x
for k in range(2):
    cur = tf.tanh(cur) * 2.0
net = {"x": x, "y": cur}
{after}
with tf.Session() as sess:
    out = sess.run(net["y"], {net["x"]: [[1.0, 2.0]]})
"""


def _loop_resolved(after: str):
    source = _LOOP_PROGRAM.replace("{after}", after)
    return resolve_reads(parse_module(source), source, {"net"})


def test_a_name_bound_again_before_the_dict_only_is_read_as_the_name():
    """pkmital's ``{'x': x, 'y': current_input}``: the loop's last ``cur`` is what the dict holds."""
    resolved = _loop_resolved("")
    assert resolved is not None
    assert "out = sess.run(cur, {x: [[1.0, 2.0]]})" in resolved.source


@pytest.mark.parametrize(
    "after",
    [
        "cur = cur * 3.0",  # bound again after the dict
        "for k in range(1):\n    cur = x",  # in a loop after it
        "del cur",  # deleted: the dict still holds the tensor
        "def rebind():\n    global cur\n    cur = x",  # a function may bind it
    ],
)
def test_a_name_bound_after_the_dict_or_elsewhere_is_left(after):
    assert _loop_resolved(after) is None
