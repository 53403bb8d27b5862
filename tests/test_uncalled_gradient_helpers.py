"""Derivative helpers that nothing in the file calls keep ``tf.gradients`` (TFM203): called
later, they must compute TF1's values where a tf.function traces them, and raise eagerly
rather than compute something else.

The fixture gradients/forward_seed_helper_never_called holds both shapes: ``fwd_gradients_1``
(a forward-mode derivative of values its caller computed, its seed placeholder rewritten as
``tf.ones_like``) and ``net_f`` (a helper that computes its own forward pass).  A driver calls
them on the original (a graph op fetched by the model's session) and on the migration (under
``tf.function``, after checking that an eager call raises), from the same weights.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tf2migrate.verify import verify_pairs

CASE = Path(__file__).parent / "fixtures" / "gradients" / "forward_seed_helper_never_called"

DRIVER = """
import numpy as np

SIDE = []


def setup(ctx):
    SIDE.append(ctx.side)


def drive(program, rng):
    tf, model = program.tf, program.model
    x = rng.uniform(-1.0, 1.0, (5, 1)).astype(np.float32)
    if SIDE[-1] == "tf1":
        x_tf = tf.placeholder(tf.float32, (None, 1))
        fetches = [model.fwd_gradients_1(model.net_U1(x_tf), x_tf), model.net_f(x_tf)]
        d1, f = model.sess.run(fetches, {x_tf: x, model.dummy_x1_tf: np.full((5, 4), 7.0)})
    else:
        for helper, arguments in ((model.fwd_gradients_1, (model.net_U1(x), x)), (model.net_f, (x,))):
            try:
                helper(*arguments)
            except RuntimeError:
                pass
            else:
                raise AssertionError(f"{helper.__name__} computed a value eagerly")
        traced = tf.function(lambda x: [model.fwd_gradients_1(model.net_U1(x), x), model.net_f(x)])
        d1, f = [value.numpy() for value in traced(tf.constant(x))]
    return {"fwd_gradients_1": d1, "net_f": f, "U1": model.predict(x)}
"""


def test_uncalled_helpers_compute_tf1_values_when_traced_and_raise_eagerly(tmp_path):
    for side, name in (("original", "before.py"), ("migrated", "after.py")):
        (tmp_path / side).mkdir()
        shutil.copy(CASE / name, tmp_path / side / "model.py")
    (tmp_path / "driver.py").write_text(DRIVER)
    [report] = verify_pairs([(tmp_path / "original" / "model.py", tmp_path / "migrated" / "model.py", tmp_path / "driver.py")])
    assert report.verdict == "equal", report.render()
    assert {row.name for row in report.rows} >= {"fwd_gradients_1", "net_f", "U1"}
