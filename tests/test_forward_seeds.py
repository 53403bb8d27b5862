"""rewrites/forward_seeds.py: which placeholders are forward-mode seeds, and why the ones
that look like seeds are not (the golden cases under tests/fixtures/gradients/forward_seed_*
run them)."""

import libcst as cst
import pytest

from tf2migrate.analysis.tf_imports import collect_tf_imports
from tf2migrate.rewrites.forward_seeds import Seeded, seed_placeholders

HEAD = "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None, 1])\nd = tf.placeholder(tf.float32, [None, 2])\nU = tf.sin(x)\n"


def _seeds(body: str) -> Seeded | None:
    module = cst.parse_module(HEAD + body)
    return seed_placeholders(module, collect_tf_imports(module), {"x", "d", "U", "g", "tf"})


@pytest.mark.parametrize(
    "body",
    [
        "g = tf.gradients(U, x, grad_ys=d)[0]\nU_x = tf.gradients(g, d)[0]\n",
        "U_x = tf.gradients(tf.gradients(U, x, grad_ys=d)[0], d)[0]\n",
        "g = tf.gradients(U, x, d)\nU_x = tf.gradients(g, d, name='jvp')\nfeed = {x: 1.0, d: 2.0}\n",
    ],
    ids=["bound", "nested", "positional-and-fed"],
)
def test_seeds(body):
    seeded = _seeds(body)
    assert seeded is not None and seeded.module is not None and not seeded.refused
    assert "d_2 = tf.ones_like(U)\n" in seeded.module.code
    assert seeded.added_lines == [5]
    assert [seeded.map_line(line) for line in (4, 5, 6, 7)] == [4, 5, 5, 6]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("g = tf.gradients(U, x, grad_ys=d)[0]\nU_x = tf.gradients(g * g, d)[0]\n", "not taken of a gradient seeded with it alone"),
        ("g = tf.gradients(U, x, grad_ys=d)[0]\nU_x = tf.gradients(g, d)[0]\nh = g + 1.0\n", "not taken of a gradient seeded"),
        ("g = tf.gradients(U, x, grad_ys=d)[0]\nU_x = tf.gradients(g, d)[0]\ne = 2.0 * d\n", "read here too"),
        ("g = tf.gradients(2.0 * U, x, grad_ys=d)[0]\nU_x = tf.gradients(g, d)[0]\n", "target is not a name"),
        (
            "g = tf.gradients(U, x, grad_ys=d)[0]\nv = tf.gradients(U, x, grad_ys=d)[0]\nU_x = tf.gradients(g, d)[0]\n",
            "no gradient of this",
        ),
        ("d = tf.placeholder(tf.float32)\ng = tf.gradients(U, x, grad_ys=d)[0]\nU_x = tf.gradients(g, d)[0]\n", "bound more than once"),
    ],
    ids=["not-linear", "first-read-elsewhere", "read-elsewhere", "target-computed", "unpaired", "rebound"],
)
def test_look_alikes_are_refused_with_the_reason(body, reason):
    seeded = _seeds(body)
    assert seeded is not None and seeded.module is None
    [(_, code, message)] = seeded.refused
    assert code == "TFM204" and reason in message


def test_a_weighted_gradient_is_no_seed():
    """``grad_ys`` fed with weights (a vector-Jacobian product), never a source: not a seed, no finding."""
    assert _seeds("g = tf.gradients(U, x, grad_ys=d)[0]\n") is None
