"""analysis/static_shapes.py: the shapes TF1's inference gives, derived from the text.

Each number is checked against what TensorFlow computes for the same program (in
``test_rules_agree_with_tensorflow``); what the rules do not derive must come out unknown."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from tf2migrate.analysis import static_shapes
from tf2migrate.analysis.tf_imports import collect_tf_imports
from tf2migrate.layout import parse_module


def _values(source: str) -> dict[str, object]:
    """The names' values after the module's last statement (an ``pass`` appended)."""
    module = parse_module(textwrap.dedent(source) + "pass\n")
    last = module.body[-1]
    found = static_shapes.evaluate_module(module, collect_tf_imports(module), {id(last)}, set())
    return found.before.get(id(last), {})


def _dims(value: object) -> tuple | None:
    assert isinstance(value, static_shapes.Tensor), value
    return value.dims


PROGRAMS = {
    "conv_same_pool": (
        """
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 7 * 7])
        image = tf.reshape(x, [-1, 7, 7, 1])
        w = tf.Variable(tf.truncated_normal([3, 3, 1, 4]))
        h = tf.nn.relu(tf.nn.conv2d(image, w, strides=[1, 2, 2, 1], padding='SAME'))
        p = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='VALID')
        n = p.get_shape()[1:4].num_elements()
        """,
        {"image": (None, 7, 7, 1), "h": (None, 4, 4, 4), "p": (None, 2, 2, 4)},
        {"n": 16},
    ),
    "matmul_broadcast_dense": (
        """
        import tensorflow as tf
        n_in = 5
        x = tf.placeholder(tf.float32, shape=(None, n_in))
        W = tf.Variable(tf.zeros([n_in, 3]))
        b = tf.Variable(tf.zeros([3]))
        z = tf.matmul(x, W) + b
        d = tf.nn.dropout(tf.matmul(z, tf.ones([3, 2])), 0.5)
        flat = tf.reshape(tf.placeholder(tf.float32, [4, 3, 2]), [-1, 6])
        k = int(z.get_shape()[1])
        m = d.get_shape().as_list()[-1]
        """,
        {"z": (None, 3), "d": (None, 2), "flat": (4, 6)},
        {"k": 3, "m": 2},
    ),
    "python_folds": (
        """
        import tensorflow as tf
        import operator
        from functools import reduce
        from operator import mul
        x = tf.placeholder(tf.float32, [None, 4, 3])
        W = tf.Variable(tf.zeros([2, 6]))
        flat = reduce(mul, x.get_shape().as_list()[1:])
        total = reduce(lambda a, b: a * b, W.shape.as_list(), 1)
        summed = reduce(operator.add, [d for d in W.get_shape().as_list()])
        h = tf.reshape(x, [-1, flat])
        """,
        {"h": (None, 12)},
        {"flat": 12, "total": 12, "summed": 8},
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_rules_derive_the_shapes(name: str) -> None:
    source, tensors, numbers = PROGRAMS[name]
    values = _values(source)
    for tensor, dims in tensors.items():
        assert _dims(values[tensor]) == dims, tensor
    for number, expected in numbers.items():
        assert static_shapes._int(values[number]) == expected, number


def test_layers() -> None:
    values = _values(
        """
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 2, 3])
        d = tf.layers.dense(x, 5)
        f = tf.layers.flatten(d)
        """
    )
    assert _dims(values["d"]) == (None, 2, 5)
    assert _dims(values["f"]) == (None, 10)


def test_unknown_is_never_a_number() -> None:
    values = _values(
        """
        import sys
        import tensorflow as tf
        n = 4
        if sys.argv:
            n = 8
        x = tf.placeholder(tf.float32, [None, n])           # n bound in a branch
        y = tf.reshape(tf.transpose(x), [-1, 2])              # no rule for transpose
        z = tf.reshape(tf.placeholder(tf.float32, [None, 6]), [-1, 3])   # the batch decides -1
        """
    )
    assert _dims(values["x"]) == (None, None)
    assert _dims(values["y"]) == (None, 2)
    assert _dims(values["z"]) == (None, 3)


def test_lists_changed_in_place_are_unknown() -> None:
    values = _values(
        """
        import tensorflow as tf
        dims = [None, 3]
        alias = dims
        alias.append(2)
        x = tf.placeholder(tf.float32, dims)
        sizes = [4]
        def grow():
            sizes[0] = 8
        grow()
        y = tf.placeholder(tf.float32, [None, sizes[0]])
        """
    )
    assert _dims(values["x"]) is None or _dims(values["x"]) != (None, 3)
    assert _dims(values["y"]) == (None, None)


def test_helpers_are_followed_with_their_arguments() -> None:
    values = _values(
        """
        import tensorflow as tf
        def layer(x, n_out, activation=None):
            n_in = int(x.get_shape()[1])
            W = tf.Variable(tf.zeros([n_in, n_out]))
            z = tf.matmul(x, W)
            if activation is not None:
                return activation(z)
            return z
        x = tf.placeholder(tf.float32, (None, 4))
        h = layer(x, 3, activation=tf.nn.relu)
        out = layer(h, 2)
        """
    )
    assert _dims(values["h"]) == (None, 3)
    assert _dims(values["out"]) == (None, 2)


def test_star_import_trusts_nothing() -> None:
    values = _values(
        """
        import tensorflow as tf
        from sizes import *
        x = tf.placeholder(tf.float32, [None, 4])
        """
    )
    assert values == {}


def test_rules_agree_with_tensorflow() -> None:
    tf = pytest.importorskip("tensorflow").compat.v1
    graph = tf.Graph()
    with graph.as_default():
        for name in sorted(PROGRAMS):
            source, tensors, numbers = PROGRAMS[name]
            scope: dict[str, object] = {}
            exec(textwrap.dedent(source).replace("import tensorflow as tf", ""), {"tf": tf}, scope)
            for tensor, dims in tensors.items():
                assert tuple(scope[tensor].get_shape().as_list()) == dims, (name, tensor)  # type: ignore[attr-defined]
            for number, expected in numbers.items():
                assert scope[number] == expected, (name, number)


def test_shape_read_is_recognised() -> None:
    assert static_shapes.is_shape_read(cst.parse_expression("x.get_shape()"))
    assert static_shapes.is_shape_read(cst.parse_expression("x.shape"))
    assert not static_shapes.is_shape_read(cst.parse_expression("tf.shape(x)"))


def test_dimension_comprehension_and_unknown_folds() -> None:
    values = _values(
        """
        from functools import reduce
        from operator import mul
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 784])
        W = tf.Variable(tf.zeros([2, 6]))
        rows, cols = [d.value for d in W.get_shape()]
        batch = x.get_shape().as_list()[0]
        pixels = reduce(mul, x.get_shape().as_list())
        other = reduce(max, W.get_shape().as_list())
        """
    )
    assert (static_shapes._int(values["rows"]), static_shapes._int(values["cols"])) == (2, 6)
    assert values["batch"] == static_shapes.Py(None)  # the fed size: no number
    assert values["pixels"] is static_shapes.UNKNOWN
    assert values["other"] is static_shapes.UNKNOWN  # only operator's mul, add, sub and lambdas


FOLLOWED_LOOP = """
import tensorflow as tf
sizes = [6, 4, 3]
cur = tf.placeholder(tf.float32, [None, 5])
widths = []
for i, (n, m) in enumerate(zip(sizes[1:], reversed(list(range(2))))):
    n_in = int(cur.get_shape()[1])
    widths.append(n_in)
    cur = tf.nn.tanh(tf.matmul(cur, tf.Variable(tf.ones([n_in, n]))) + m)
"""


def _followed(source: str) -> tuple[list[int], list[object]]:
    """The iteration counts of the module's first loop, and ``n_in`` at each iteration (the
    values before the statement after its binding)."""
    module = parse_module(textwrap.dedent(source))
    loop = next(s for s in module.body if isinstance(s, cst.For))
    body = cst.ensure_type(loop.body, cst.IndentedBlock).body
    found = static_shapes.evaluate_module(module, collect_tf_imports(module), {id(body[1])}, set(), frozenset({id(loop)}))
    return found.runs.get(id(loop), []), [env.get("n_in") for env in found.each.get(id(body[1]), [])]


def test_named_loops_are_followed_iteration_by_iteration() -> None:
    runs, widths = _followed(FOLLOWED_LOOP)
    assert runs == [2]
    assert [static_shapes.proven_int(w) for w in widths] == [5, 4]
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default():
        scope: dict[str, object] = {}
        exec(textwrap.dedent(FOLLOWED_LOOP).replace("import tensorflow as tf", ""), {"tf": tf}, scope)
        assert scope["widths"] == [5, 4]


@pytest.mark.parametrize(
    "change",
    [
        ("for i, (n, m) in", "for i, (n, m) in"),  # (followed: the control case)
        ("enumerate(zip(sizes[1:], reversed(list(range(2)))))", "enumerate(unknown_sizes)"),  # iterable not known
        ("    widths.append(n_in)\n", "    widths.append(n_in)\n    if n_in > 5:\n        break\n"),  # may leave early
        ("import tensorflow as tf\n", "import tensorflow as tf\nfrom sizes_module import *\n"),  # names may change behind the text
        ("sizes = [6, 4, 3]\n", "sizes = [6, 4, 3]\ndef zip(*a):\n    return []\n"),  # not Python's zip
    ],
)
def test_loops_not_known_are_not_followed(change: tuple[str, str]) -> None:
    source = textwrap.dedent(FOLLOWED_LOOP).replace(*change)
    runs, _ = _followed(source)
    assert (runs == [2]) == (change[0] == change[1])


def test_loops_not_named_run_any_number_of_times() -> None:
    module = parse_module(textwrap.dedent(FOLLOWED_LOOP) + "pass\n")
    found = static_shapes.evaluate_module(module, collect_tf_imports(module), {id(module.body[-1])}, set())
    assert found.before[id(module.body[-1])]["cur"] is static_shapes.UNKNOWN
    assert not found.each and not found.runs


def _followed_in_function(source: str) -> list[int | None]:
    """``n_in`` at each iteration of the first loop of the module's function ``build``,
    followed through the body alone (evaluate_function)."""
    module = parse_module(textwrap.dedent(source))
    function = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    loop = next(s for s in cst.ensure_type(function.body, cst.IndentedBlock).body if isinstance(s, cst.For))
    body = cst.ensure_type(loop.body, cst.IndentedBlock).body
    found = static_shapes.evaluate_function(module, function, collect_tf_imports(module), {id(body[1])}, frozenset({id(loop)}))
    return [static_shapes.proven_int(env.get("n_in")) for env in found.each.get(id(body[1]), [])]


FUNCTION_LOOP = """
import tensorflow as tf
width = 6
def build(sizes):
    x = tf.placeholder(tf.float32, [None, 6])
    cur = x
    for n in [4, 3]:
        n_in = int(cur.get_shape()[1])
        cur = tf.nn.tanh(tf.matmul(cur, tf.Variable(tf.ones([n_in, n]))))
    return cur
"""


@pytest.mark.parametrize(
    ("change", "widths"),
    [
        (("for n in", "for n in"), [6, 4]),  # the body's own literals: the same at every call
        (("for n in [4, 3]", "for n in sizes"), []),  # the parameter: each call may give others
        (("[None, 6]", "[None, width]"), [None, 4]),  # a module name: it may change between calls (the matmul fixes the next)
        (("    cur = x\n", "    cur = x\n    def reset():\n        nonlocal cur\n"), []),  # a scope inside may rebind
    ],
)
def test_function_bodies_are_followed_with_their_own_values_only(change: tuple[str, str], widths: list[int | None]) -> None:
    assert _followed_in_function(FUNCTION_LOOP.replace(*change)) == widths


def _decided(source: str) -> list[bool | None]:
    """The branch each top-level ``if`` takes, in order (None: not decided)."""
    module = parse_module(textwrap.dedent(source))
    branches = [s for s in module.body if isinstance(s, cst.If)]
    found = static_shapes.evaluate_module(module, collect_tf_imports(module), {id(b) for b in branches}, set())
    return [found.tests.get(id(b)) for b in branches]


def test_branch_tests_are_decided_as_tf1_decided_them() -> None:
    """A test of known numbers, strings and bools is decided; a dimension TF1 did not know is
    never compared or read as a bool, nor tested against None (a TF1 Dimension is no None, but
    TF2's shapes, which ``tensorflow.compat.v1`` code runs with, give None); its ``.value`` is None."""
    assert _decided(
        """
        import tensorflow as tf
        import numpy as np
        x = tf.placeholder(tf.float32, [None, 784])
        mode = 'train'
        if len(x.get_shape()) == 2 and mode == 'train':
            pass
        if x.get_shape()[1] is None:
            pass
        if x.get_shape()[0].value is None:
            pass
        if not x.get_shape().as_list()[1] != 784:
            pass
        if x.get_shape()[1] > 1000 or mode != 'train':
            pass
        if x.get_shape()[0] is None:
            pass
        """
    ) == [True, False, True, True, False, None]
    assert _decided(
        """
        import tensorflow as tf
        import numpy as np
        x = tf.placeholder(tf.float32, [None, 3])
        if x.get_shape()[0] == 2:
            pass
        if x.get_shape()[1]:
            pass
        if int(x.get_shape()[0] or 0) == 0:
            pass
        if len(x.get_shape().as_list()) == 2 and np.sqrt(4) == 2:
            pass
        """
    ) == [None, None, None, None]


def test_decided_branch_is_followed() -> None:
    """What the branch taken binds is known after it; the other branch never runs."""
    module = parse_module(
        textwrap.dedent(
            """
            import tensorflow as tf
            debug = False
            x = tf.placeholder(tf.float32, [None, 6])
            if debug:
                h = tf.reshape(x, [-1, 2, 3])
            else:
                h = tf.reshape(x, [-1, 3, 2])
            pass
            """
        )
    )
    branch, last = module.body[-2], module.body[-1]
    found = static_shapes.evaluate_module(module, collect_tf_imports(module), {id(branch), id(last)}, set())
    assert found.tests[id(branch)] is False
    assert _dims(found.before[id(last)]["h"]) == (None, 3, 2)


def test_a_call_tf1_refused_to_build_is_told_apart() -> None:
    # a bias of 8 added to 4 units, a matmul of unequal inner dimensions: TF1 raised while it
    # built the call, so the frame says so (not merely an unknown shape)
    source = textwrap.dedent(
        """
        import tensorflow as tf
        def net(x):
            w = tf.Variable(tf.zeros([3, 4]))
            h = tf.matmul(x, w) + tf.Variable(tf.zeros([8]))
            return tf.matmul(h, tf.Variable(tf.zeros([4, 1])))
        def other(x):
            return tf.matmul(x, tf.Variable(tf.zeros([5, 2])))
        def fine(x):
            return tf.matmul(x, tf.Variable(tf.zeros([3, 2]))) + tf.Variable(tf.zeros([2]))
        x = tf.placeholder(tf.float32, [None, 3])
        a = net(x)
        b = other(x)
        c = fine(x)
        """
    )
    module = parse_module(source)
    calls = {s.body[0].targets[0].target.value: s for s in module.body[-3:]}  # type: ignore[attr-defined]
    found = static_shapes.evaluate_module(module, collect_tf_imports(module), {id(s) for s in calls.values()}, {"net", "other", "fine"})
    clash = {name: found.frames[id(s.body[0].value)].clash for name, s in calls.items()}  # type: ignore[attr-defined]
    assert clash == {
        "a": "shapes (?, 4) and (8,) do not broadcast",
        "b": "tf.matmul of shapes (?, 3) and (5, 2)",
        "c": None,
    }
