"""rewrites/rebound_names.py ``rename_last_local_bindings``: a function's local bound more than
once gets a name of its own for its last binding only where every read keeps its value."""

import libcst as cst
import pytest

from tf2migrate.rewrites.rebound_names import rename_last_local_bindings


def renamed(source: str, name: str = "W") -> str | None:
    module = cst.parse_module(source)
    result = rename_last_local_bindings(module, {(name, "__init__")}, {"W", "b"})
    return None if result is None else result.module.code


def test_last_binding_and_the_reads_after_it_are_renamed():
    source = (
        "import tensorflow as tf\n"
        "def __init__(self, x):\n"
        "    for i in range(2):\n"
        "        W = make(i)\n"
        "    with tf.name_scope('output'):\n"
        "        W = make(3)\n"
        "        self.y = f(x, W)\n"
        "    self.z = g(W)\n"
    )
    assert renamed(source) == source.replace("W = make(3)", "W_2 = make(3)").replace("f(x, W)", "f(x, W_2)").replace("g(W)", "g(W_2)")


@pytest.mark.parametrize(
    "source",
    [
        # bound again after the last straight-line binding (in a loop): reads there see that value
        "def __init__(self):\n    W = a()\n    W = b()\n    for i in range(2):\n        W = c(W)\n    self.y = W\n",
        # a lambda reads the local when it is called, maybe after the renamed binding
        "def __init__(self):\n    W = a()\n    self.f = lambda: W\n    W = b()\n    self.y = W\n",
        # locals() names every local by its string
        "def __init__(self):\n    W = a()\n    W = b()\n    self.y = locals()['W']\n",
        # bound once: nothing to rename
        "def __init__(self):\n    W = a()\n    self.y = W\n",
        # the last binding is in a branch, not straight-line code
        "def __init__(self, c):\n    W = a()\n    if c:\n        W = b()\n    self.y = W\n",
    ],
)
def test_kept_where_a_read_could_see_another_value(source):
    assert renamed(source) is None
