"""Python effects of a file's graph-building helpers (analysis/helper_effects.py): what would
run again at each trace, and what is the helper's own business."""

from __future__ import annotations

import libcst as cst
import pytest

from tf2migrate.analysis.helper_effects import is_property, member_uses, python_effect
from tf2migrate.analysis.names import function_facts
from tf2migrate.analysis.tf_imports import collect_tf_imports


def _effect(body: str) -> str | None:
    module = cst.parse_module("import numpy as np\nimport random\nimport tensorflow as tf\n\n" + body)
    function = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    found = python_effect(function, collect_tf_imports(module), function_facts(function))
    return None if found is None else module.code_for_node(found[0]).strip()


@pytest.mark.parametrize(
    ("body", "quoted"),
    [
        ("def f(h):\n    calls.append(1)\n    return h\n", "calls.append(1)"),
        ("def f(self, h):\n    self.n += 1\n    return h\n", "self.n += 1"),
        ("def f(h, acc=[]):\n    acc.append(h)\n    return h\n", "acc.append(h)"),
        ("def f(h):\n    CONFIG['n'] = 2\n    return h\n", "CONFIG['n'] = 2"),
        ("def f(h):\n    global n\n    return h\n", "global n"),
        ("def f(h):\n    return h * next(ids)\n", "next(ids)"),
        ("def f(h):\n    return h + np.random.uniform()\n", "np.random.uniform()"),
        ("def f(h):\n    return h * random.random()\n", "random.random()"),
    ],
)
def test_effects_that_would_repeat(body: str, quoted: str) -> None:
    assert _effect(body) == quoted


@pytest.mark.parametrize(
    "body",
    [
        "def f(h, Ws):\n    outs = []\n    for W in Ws:\n        outs.append(tf.matmul(h, W))\n    return outs\n",
        "def f(*parts, **options):\n    options.pop('scale', None)\n    return tf.add_n(list(parts))\n",
        "def f(h):\n    print('built', h.shape)\n    return tf.random.normal(tf.shape(h)) + h\n",
        "def f(h):\n    shape = h.shape.as_list()\n    shape[0] = -1\n    return tf.reshape(h, shape)\n",
    ],
)
def test_the_helpers_own_business(body: str) -> None:
    assert _effect(body) is None


def _members(body: str) -> tuple[tuple[str, bool], ...]:
    module = cst.parse_module("import tensorflow as tf\n\n" + body)
    function = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    return member_uses(function, collect_tf_imports(module), function_facts(function))


@pytest.mark.parametrize(
    ("body", "members"),
    [
        # a method called on a module object, a property read through `self`
        ("def f(h, name):\n    log.record(name)\n    return h\n", (("record", True),)),
        ("def f(self, h):\n    return tf.matmul(h, self.w)\n", (("w", False),)),
        # members of objects the helper made, and TensorFlow's, are its own business
        ("def f(h):\n    r = Registry()\n    r.add(h)\n    return tf.nn.relu(h)\n", ()),
    ],
)
def test_members_used_on_objects_it_does_not_own(body: str, members: tuple[tuple[str, bool], ...]) -> None:
    assert _members(body) == members


def test_property() -> None:
    module = cst.parse_module("class C:\n    @property\n    def w(self):\n        return 1\n\n    def v(self):\n        return 2\n")
    cls = cst.ensure_type(module.body[0], cst.ClassDef)
    w, v = [cst.ensure_type(s, cst.FunctionDef) for s in cls.body.body]
    assert is_property(w) and not is_property(v)
