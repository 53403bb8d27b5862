"""analysis/static_python.py: module constants and the branches they rule out; the static
shape values of a statement and the dimensions TF1 did not know."""

from __future__ import annotations

import textwrap

import libcst as cst

from tf2migrate.analysis.static_python import StaticPython, module_constants
from tf2migrate.analysis.tf_imports import collect_tf_imports
from tf2migrate.layout import parse_module


def _module(source: str) -> cst.Module:
    return parse_module(textwrap.dedent(source))


def test_constants_are_names_bound_once_to_a_literal() -> None:
    module = _module(
        """
        DEBUG = False
        MODE = 'ridge'
        SIZES = (1, 2)
        twice = 1
        twice = 2
        computed = len([])
        shadowed = True
        def f(shadowed):
            global DEBUG2
        DEBUG2 = False
        """
    )
    assert module_constants(module) == {"DEBUG": False, "MODE": "ridge", "SIZES": (1, 2)}


def test_no_constants_where_names_may_change_behind_the_text() -> None:
    assert module_constants(_module("DEBUG = False\nglobals()['DEBUG'] = True\n")) == {}
    assert module_constants(_module("from settings import *\nDEBUG = False\n")) == {}


def test_ruled_out_branches() -> None:
    module = _module(
        """
        DEBUG = False
        MODE = 'ridge'
        if DEBUG:
            print('a')
        if MODE == 'lasso':
            pass
        elif MODE == 'ridge' and not DEBUG:
            pass
        else:
            print('b')
        if unknown:
            print('c')
        """
    )
    static = StaticPython(module, collect_tf_imports(module))
    dead = [module.code_for_node(n).strip() for s in module.body for n in static.ruled_out(s)]
    assert dead == ["print('a')", "pass", "else:\n    print('b')"]


def test_statement_values() -> None:
    module = _module(
        """
        from functools import reduce
        from operator import mul
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 4, 3])
        h = tf.reshape(x, [-1, reduce(mul, x.get_shape().as_list()[1:])])
        batch = x.get_shape().as_list()[0] + 1
        """
    )
    static = StaticPython(module, collect_tf_imports(module))
    reshaped, batch = module.body[-2], module.body[-1]
    found = static.values(reshaped)
    assert [(module.code_for_node(e), v) for e, v in found.found.values()] == [("reduce(mul, x.get_shape().as_list()[1:])", "12")]
    unknown = static.values(batch).unknown
    assert [module.code_for_node(e) for e in unknown.values()] == ["x.get_shape().as_list()[0]"]


def test_literal_tests_rule_out_branches_without_constants() -> None:
    # no module constant at all: ``if False:`` (a cell switched off by hand) is decided by
    # its literal; a test mixing a literal with a computed value is not
    module = _module(
        """
        import sys
        if False:
            x_pretty = pt.wrap(x)
        if 0:
            print('a')
        if True:
            pass
        else:
            print('b')
        if False or len(sys.argv) > 2:
            print('c')
        """
    )
    static = StaticPython(module, collect_tf_imports(module))
    dead = [module.code_for_node(n).strip() for s in module.body for n in static.ruled_out(s)]
    assert dead == ["x_pretty = pt.wrap(x)", "print('a')", "else:\n    print('b')"]
