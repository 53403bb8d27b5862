"""analysis/names.py's loop_variable_names: which reads of a statement read only a loop
or comprehension variable (so never a graph value bound before the statement)."""

from __future__ import annotations

import libcst as cst
import pytest

from tf2migrate.analysis.names import loop_variable_names


def _names(code: str) -> set[str]:
    return loop_variable_names(cst.parse_module(code).body[0])


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("for p, y in zip(pred, data):\n    print(p, y[0])\n", {"p", "y"}),
        ("for x, (a, b) in rows:\n    f(x, a, b)\n", {"x", "a", "b"}),
        # read in the loop's iterable: the binding before the statement
        ("for y in y:\n    print(y)\n", set()),
        # read after the loop, in its else (runs when the loop did not) or in a nested def
        ("if c:\n    for y in v:\n        print(y)\n    print(y)\n", set()),
        ("for y in v:\n    print(y)\nelse:\n    print(y)\n", set()),
        ("for y in v:\n    def f():\n        return y\n", set()),
        ("for y in v:\n    g = lambda: y\n", set()),
        # an inner loop over the outer loop's variable
        ("for y in v:\n    for y in y:\n        print(y)\n", {"y"}),
        ("for y in v:\n    for z in w:\n        print(y, z)\n", {"y", "z"}),
        # a comprehension's targets are its own names (its first iterable is read outside)
        ("outs = [sess.run(acc, {x: _}) for _ in range(3)]\n", {"_"}),
        ("values = {x: float(x) for x in xs if x}\n", {"x"}),
        ("pairs = list((a, b) for a in u for b in a)\n", {"a", "b"}),
        ("values = [x for x in x]\n", set()),
        ("values = [x for y in v]\nprint(x)\n", set()),
        ("values = [lambda: x for x in xs]\n", set()),
    ],
)
def test_loop_variable_names(code: str, expected: set[str]) -> None:
    assert _names(code) == expected
