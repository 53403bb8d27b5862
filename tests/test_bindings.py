"""Binding forms of placeholders and the methods read as part of a constructor
(analysis/bindings.py): which statements are read as one placeholder per target, and
which graph-building methods are candidates, with the reason for each that is not."""

import textwrap

import libcst as cst
import pytest

from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.bindings import (
    arguments_changed_by_callees,
    changes_in_place,
    local_names,
    module_values_changed,
    placeholder_targets,
    spliced_methods,
)
from tf2migrate.analysis.tf_imports import collect_tf_imports

PLACEHOLDER = "tf.placeholder(tf.float32, [None, 1])"


def _targets(statement: str):
    module = cst.parse_module(f"import tensorflow as tf\n{statement}\n")
    found = placeholder_targets(collect_tf_imports(module), module.body[1])
    return None if found is None else [name for name, _ in found]


@pytest.mark.parametrize(
    "statement, names",
    [
        (f"[a, b] = [{PLACEHOLDER} for _ in range(2)]", ["a", "b"]),
        (f"[self.a, self.b, self.c] = [{PLACEHOLDER} for i in range(0, 3)]", ["self.a", "self.b", "self.c"]),
        (f"a, b = ({PLACEHOLDER} for _ in range(2))", ["a", "b"]),
        (f"a, b = {PLACEHOLDER}, tf.placeholder_with_default(1.0, [])", ["a", "b"]),
        (f"(a, self.b) = [{PLACEHOLDER}, {PLACEHOLDER}]", ["a", "self.b"]),
    ],
)
def test_each_target_its_own_placeholder(statement: str, names: list[str]) -> None:
    assert _targets(statement) == names


@pytest.mark.parametrize(
    "statement",
    [
        f"a = {PLACEHOLDER}",  # one target: the ordinary placeholder statement
        f"[a, b] = [{PLACEHOLDER} for _ in range(3)]",  # more placeholders than targets
        f"[a, b] = [{PLACEHOLDER} for _ in range(n)]",  # a count not written out
        f"[a, b] = [{PLACEHOLDER} for _ in range(1, 3)]",
        "[a, b] = [tf.placeholder(tf.float32, [None, d]) for d in range(2)]",  # differs per element
        f"[a, b] = [{PLACEHOLDER} for _ in range(2) if keep]",
        f"[a, b] = [{PLACEHOLDER} for _ in range(2) for _ in range(1)]",
        f"a, a = {PLACEHOLDER}, {PLACEHOLDER}",  # the same name twice
        f"a, *b = {PLACEHOLDER}, {PLACEHOLDER}",
        f"a, b = {PLACEHOLDER}, 5",  # not every value a placeholder
        f"a, b = [*{PLACEHOLDER}]",
        f"d['x'], b = {PLACEHOLDER}, {PLACEHOLDER}",  # an item, not a name
        f"a = b = {PLACEHOLDER}",
        "a, b = tf.placeholder(tf.float32), tf.placeholder_with_default(a, [])",  # the earlier `a`
    ],
)
def test_other_forms_are_not_read_as_placeholders(statement: str) -> None:
    assert _targets(statement) is None


CLASS = """
import tensorflow as tf

class Model:
    def __init__(self):
        self.build()
        self.twice()
        self.twice()
        self.valued = self.returns()
        self.sess = tf.Session()

    def build(self):
        self.inputs()
        self.y = tf.square(self.x)

    def inputs(self):
        self.x = tf.placeholder(tf.float32)

    def twice(self):
        self.z = tf.placeholder(tf.float32)

    def returns(self):
        return tf.placeholder(tf.float32)

    @property
    def decorated(self):
        self.w = tf.placeholder(tf.float32)

    def plain(self):
        return tf.square(2.0)
"""


def test_graph_building_methods_and_why_not() -> None:
    module = cst.parse_module(CLASS)
    cls = module.body[1]
    init = cls.body.body[0]
    calls_within = {id(method): calls_in(method, enter_defs=True) for method in cls.body.body}
    candidates, refused = spliced_methods(collect_tf_imports(module), module, cls, init, calls_within)
    # ``build`` calls a method that makes placeholders: it builds the graph too
    assert sorted(candidates) == ["build", "inputs"]
    assert refused == {
        "twice": "it is named 2 times in this file",
        "returns": "it returns or yields",
        "decorated": "it is decorated or async",
    }


def test_local_names_are_parameters_and_plain_bindings() -> None:
    function = cst.parse_module("def f(self, a, *b, c=1, **d):\n    e = 1\n    self.g = 2\n    for h in a:\n        pass\n").body[0]
    assert local_names(function) == {"a", "b", "c", "d", "e", "h"}


@pytest.mark.parametrize(
    "source, changed",
    [
        ("SCALE = 2.0\nnet = Net()\nSCALE = 5.0\n", {"SCALE"}),
        ("GRID = np.zeros(3)\nGRID[0] = 7.0\n", {"GRID"}),
        ("grid = np.zeros(3)\ngrid *= 10\n", {"grid"}),
        ("sizes = [1]\ndef grow():\n    sizes.append(2)\n", {"sizes"}),
        ("n = 1\ndef reset():\n    global n\n    n = 0\n", {"n"}),
        ("for lr in [0.1, 0.2]:\n    net = Net()\n", {"lr", "net"}),
        ("from config import SCALE\nSCALE = 3.0\n", {"SCALE"}),
        # the same import in two notebook cells binds the same module; one assignment is one value
        ("import numpy as np\nSCALE = 2.0\nimport numpy as np\n", set()),
    ],
)
def test_module_values_the_file_may_change(source: str, changed: set[str]) -> None:
    assert module_values_changed(cst.parse_module(source)) == changed


_CALLEES = """
sizes = [2.0]


def grow():
    sizes[0] = 10.0


def grow_through():
    grow()


def bump(c):
    c.factor = 10.0


def summed(values):
    return tf.add(values[0], values[1])


def log(values):
    print(len(values))
"""


@pytest.mark.parametrize(
    ("statement", "changed"),
    [
        ("grow()", {"sizes"}),  # the module's list, changed by the function called
        ("grow_through()", {"sizes"}),  # through a function it calls
        ("bump(cfg)", {"cfg"}),  # the argument whose attribute the function assigns
        ("y = summed(cfg)", set()),  # `tf.add(...)` is a value, no `set.add`
        ("log(cfg)", set()),  # read only
    ],
)
def test_calls_change_what_their_callees_change(statement: str, changed: set[str]) -> None:
    module = cst.parse_module(textwrap.dedent(_CALLEES))
    functions = {f.name.value: f for f in module.body if isinstance(f, cst.FunctionDef)}
    assert arguments_changed_by_callees(cst.parse_statement(statement + "\n"), functions) == changed


@pytest.mark.parametrize(
    ("statement", "roots", "augmented"),
    [
        ("a[0], b.x = 1, 2", {"a", "b"}, set()),  # each target of a tuple
        ("out[self.i] = v", {"out"}, set()),  # what the index reads is not changed
        ("del d[k]", {"d"}, set()),
        ("data += 1.0", set(), {"data"}),
        ("sizes.append(3)", {"sizes"}, set()),
        ("y = tf.add(a, b)", set(), set()),  # a value, no set.add
    ],
)
def test_changes_in_place(statement: str, roots: set[str], augmented: set[str]) -> None:
    assert changes_in_place(cst.parse_statement(statement + "\n")) == (roots, augmented)
