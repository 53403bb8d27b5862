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


def test_a_default_read_off_a_module_is_bound_where_the_definition_stood():
    # Python evaluated ``settings.SCALE`` at the ``def``; the script changes it before the call
    source = textwrap.dedent(
        """
        import tensorflow as tf
        import settings


        def build(n, scale=settings.SCALE):
            x = tf.placeholder(tf.float32, [None, n])
            return x, x * scale


        settings.SCALE = 4.0
        x, y = build(3)
        with tf.Session() as sess:
            out = sess.run(y, {x: [[1.0] * 3]})
        """
    )
    inlined = _inline(source)
    assert inlined is not None
    text = inlined.source
    assert text.index("scale = settings.SCALE") < text.index("settings.SCALE = 4.0") < text.index("n = 3")
    assert inlined.map_line(text[: text.index("scale = settings.SCALE")].count("\n") + 1) == 6  # the ``def``'s line


def test_keyword_only_parameters_are_bound_as_the_others():
    inlined = _inline(_FACTORY.format(call="x, y = build(3, scale=0.5)").replace("def build(n):", "def build(n, *, scale, shift=1.0):"))
    assert inlined is not None
    assert "n = 3\nscale = 0.5\nshift = 1.0\nx = tf.placeholder" in inlined.source


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


_IN_FUNCTION = """
import tensorflow as tf
scale = 0.5


def build(n):
    x = tf.placeholder(tf.float32, [None, n])
    y = x * scale
    return x, y


def main():
    {before}
    x, y = build(3)
    with tf.Session() as sess:
        return sess.run(y, {{x: [[1.0] * 3]}})


out = main()
"""


def test_a_call_in_a_function_is_written_out_there():
    source = textwrap.dedent(_IN_FUNCTION.format(before="import tensorflow as tf"))
    inlined = _inline(source)
    assert inlined is not None
    assert "def build" not in inlined.source
    assert "    n = 3\n    x = tf.placeholder(tf.float32, [None, n])\n    y = x * scale\n" in inlined.source
    original = source.split("\n")
    for number, line in enumerate(inlined.source.split("\n"), start=1):
        if line.strip() and not line.strip().startswith("n = "):
            assert original[inlined.map_line(number) - 1].strip() == line.strip(), (number, line)


@pytest.mark.parametrize(
    ("before", "why"),
    [
        ("n = 7", "`n`, bound by `build`, also a name of `main`"),  # the caller's own `n`
        ("scale = 2.0", "`build` reads the module's `scale`, which `main` binds as its own"),
        ("import numpy as tf", "`build` reads the module's `tf`, which `main` binds as its own"),  # not the same import
        ("peek = lambda: x", "`lambda` in `main` mentions a name `build` binds"),
        ("global y", "`main` declares a name `build` binds global"),
    ],
)
def test_a_call_in_a_function_whose_names_would_change_says_why(before, why):
    reasons: dict = {}
    assert _inline(_IN_FUNCTION.format(before=before), reasons) is None
    assert why in " ".join(reasons.values()), reasons


def test_a_scope_after_the_call_may_read_what_the_call_binds():
    source = _IN_FUNCTION.format(before="import tensorflow as tf").replace(
        "    with tf.Session() as sess:", "    feeds = [{x: [[1.0] * 3]} for _ in range(2)]\n    with tf.Session() as sess:"
    )
    assert _inline(source) is not None
    reasons: dict = {}
    before = _IN_FUNCTION.format(before="peek = [x for x in range(2)]")  # before the call: its own `x`, but not proven so
    assert _inline(before, reasons) is None
    assert "in `main` mentions a name `build` binds" in " ".join(reasons.values())


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
