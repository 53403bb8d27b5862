"""One run of two train ops whose losses read each other's variables (a GAN):
training/joint_train_ops_gan.

TF1's ref variables are updated in place, so the backward pass of one train op may read
the other's update, in no fixed order: two runs of the same TF1 program differ (about
1e-3 after a few steps), and the fixture cannot be compared against them (noexec.txt).
With resource variables a TF1 run is deterministic — each gradient reads the values of
the forward pass, before any update — and that is the step the migration takes: the
driver turns them on for the TF1 side before the program is imported.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tf2migrate.verify import verify_pairs

CASE = Path(__file__).parent / "fixtures" / "training" / "joint_train_ops_gan"

DRIVER = """
def setup(ctx):
    if ctx.side == "tf1":
        import tensorflow as tf

        tf.compat.v1.enable_resource_variables()


def drive(program, rng):
    return {"losses": program.losses, "g": program.g}
"""


def _verified(tmp_path: Path, case: Path, driver: str):
    for side, name in (("original", "before.py"), ("migrated", "after.py")):
        (tmp_path / side).mkdir()
        shutil.copy(case / name, tmp_path / side / "gan.py")
    (tmp_path / "driver.py").write_text(driver)
    [report] = verify_pairs([(tmp_path / "original" / "gan.py", tmp_path / "migrated" / "gan.py", tmp_path / "driver.py")])
    assert report.verdict == "equal", report.render()
    return report


def test_gan_step_equals_tf1_with_resource_variables(tmp_path):
    report = _verified(tmp_path, CASE, DRIVER)
    assert {row.name for row in report.rows} >= {"losses", "g"}


# training/joint_train_ops_layer_helpers: the networks are layer helpers, each train op's
# ``var_list`` the collection of its variable scope (the layers' trainable weights)
LAYERS_DRIVER = DRIVER.replace(
    '{"losses": program.losses, "g": program.g}', '{"gl": program.gl, "dl": program.dl, "samples": program.samples}'
)


def test_layer_helper_gan_step_equals_tf1_with_resource_variables(tmp_path):
    report = _verified(tmp_path, CASE.parent / "joint_train_ops_layer_helpers", LAYERS_DRIVER)
    assert {row.name for row in report.rows} >= {"gl", "dl", "samples"}


def test_inline_collection_gan_step_equals_tf1_with_resource_variables(tmp_path):
    # training/joint_train_ops_layer_helpers_inline_var_list: each collection the train op's ``var_list=`` itself
    report = _verified(tmp_path, CASE.parent / "joint_train_ops_layer_helpers_inline_var_list", LAYERS_DRIVER)
    assert {row.name for row in report.rows} >= {"gl", "dl", "samples"}


# training/joint_train_ops_graph_layers: the graph's own tf.layers calls (the discriminator's
# applied again by name= and reuse=True), each collection the train op's ``var_list=``
GRAPH_LAYERS_DRIVER = DRIVER.replace('{"losses": program.losses, "g": program.g}', '{"losses": program.losses}')


def test_graph_layer_gan_step_equals_tf1_with_resource_variables(tmp_path):
    report = _verified(tmp_path, CASE.parent / "joint_train_ops_graph_layers", GRAPH_LAYERS_DRIVER)
    assert {row.name for row in report.rows} >= {"losses"}
