"""rewrites/factory_inline.py: a graph factory called once at the top is written out at its
call only where no name changes meaning, and the rewritten lines map to the original's."""

from __future__ import annotations

import textwrap

import pytest

from tf2migrate.layout import parse_module
from tf2migrate.rewrites.factory_inline import inline_factories

_FACTORY = """
import tensorflow as tf


def build(n):
    x = tf.placeholder(tf.float32, [None, n])
    y = x * 2.0
    return x, y


{call}
with tf.Session() as sess:
    out = sess.run(y, {{x: [[1.0] * 3]}})
"""


def _inline(source: str, reasons: dict | None = None):
    source = textwrap.dedent(source)
    lines = set(range(1, source.count("\n") + 2))  # a refusal anywhere
    return inline_factories(parse_module(source), source, lines, reasons)


def test_the_body_replaces_the_call_with_its_parameters_bound():
    inlined = _inline(_FACTORY.format(call="x, y = build(3)"))
    assert inlined is not None
    assert "def build" not in inlined.source
    assert "n = 3\nx = tf.placeholder(tf.float32, [None, n])\ny = x * 2.0\n" in inlined.source
    assert "x, y = x, y" not in inlined.source  # the call's names are the body's: no binding left


def test_each_line_maps_to_the_line_it_came_from():
    source = textwrap.dedent(_FACTORY.format(call="x, y = build(3)"))
    inlined = _inline(source)
    assert inlined is not None
    original = source.split("\n")
    for number, line in enumerate(inlined.source.split("\n"), start=1):
        if line.strip() and not line.startswith("n = "):  # (the parameter's binding is the call's line)
            assert original[inlined.map_line(number) - 1].strip() == line.strip(), (number, line)


def test_other_targets_are_bound_from_what_the_body_returned():
    inlined = _inline(_FACTORY.format(call="inputs, doubled = build(3)").replace("{x:", "{inputs:").replace("run(y", "run(doubled"))
    assert inlined is not None and "inputs, doubled = x, y\n" in inlined.source


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("x, y = build(3)\nx2, y2 = build(4)", "named 2 times"),
        ("x, y = build(len('abc'))", "calls a function"),
        ("y = 1.0\nx, y = build(3)\nn = 0", "also a name of the module's top level"),
        ("x, y = build(*[3])", "unpacks its arguments"),
    ],
)
def test_a_call_the_body_cannot_replace_says_why(change, why):
    reasons: dict = {}
    assert _inline(_FACTORY.format(call=change), reasons) is None
    assert any(why in reason for reason in reasons.values()), reasons


def test_a_function_reading_the_bodys_names_as_globals_keeps_it():
    source = _FACTORY.format(call="x, y = build(3)").replace(
        "def build(n):", "def peek():\n    return W\n\n\ndef build(n):\n    W = tf.Variable(1.0)"
    )
    reasons: dict = {}
    assert _inline(source, reasons) is None
    assert any("`peek` reads or binds a name `build` binds" in reason for reason in reasons.values())


@pytest.mark.parametrize(
    "definition",
    [
        "@staticmethod\ndef build(n):",
        "def build(n, *rest):",
        "def build(n):\n    global g",
        "def build(n):\n    def inner():\n        return 1",
    ],
)
def test_functions_whose_scope_would_change_are_left(definition):
    assert _inline(_FACTORY.format(call="x, y = build(3)").replace("def build(n):", definition)) is None


def test_a_left_out_mutable_default_is_left():
    source = _FACTORY.format(call="x, y = build()").replace("def build(n):", "def build(n=[3][0]):")
    reasons: dict = {}
    assert _inline(source, reasons) is None
    assert any("defaults to other than a literal" in reason for reason in reasons.values())


_READ_BY_LAMBDA = """
import tensorflow as tf
{defs}

def build():
    x = tf.placeholder(tf.float32, [None, 3])
    h = {h}
    n = h.get_shape().as_list()[-1]
    return x, h


x, h = build()
t = tf.cond(tf.reduce_sum(h) > 0.1, lambda: h * 2.0, lambda: h * 0.5)
"""


def test_a_lambda_may_read_the_calls_names_when_the_body_calls_methods_of_tf_objects():
    """``h.get_shape()`` runs TF's code, not the module's: the lambda reading ``h`` cannot tell."""
    assert _inline(_READ_BY_LAMBDA.format(defs="", h="tf.nn.tanh(x)")) is not None


def test_a_lambda_reading_the_calls_names_keeps_a_body_calling_the_modules_objects():
    """``h`` is the module's object (``Net()``): its method may read the module's globals."""
    reasons: dict = {}
    source = _READ_BY_LAMBDA.format(defs="class Net:\n    def get_shape(self):\n        return h\n", h="Net()")
    assert _inline(source, reasons) is None
    assert any("reads or binds a name `build` binds" in why for why in reasons.values())
