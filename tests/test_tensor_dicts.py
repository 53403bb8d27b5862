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
