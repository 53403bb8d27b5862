"""TensorFlow 0.x → TF 1.x, the migration's first step (rewrites/pre_1_0_api.py).

TF 0.x cannot run here, so each row holds the upgrade to the mapping TensorFlow's own 1.0
upgrade script made (its ``tf_upgrade.py``: renames, keyword renames, reorders written as
keywords); the fixtures api/pre_1_0_names and python2/print_statements_pre_1_0 then run the
upgraded program under TF1 against its migration under TF2."""

from __future__ import annotations

import ast

import pytest

from tf2migrate import migrate_source
from tf2migrate.rewrites.pre_1_0_api import LEFT, may_be_pre_1_0, upgrade

HEAD = "import tensorflow as tf\n"

UPGRADED = [
    ("y = tf.mul(a, b) - tf.sub(a, b) + tf.neg(a)", "y = tf.multiply(a, b) - tf.subtract(a, b) + tf.negative(a)"),
    ("s = tf.pack([a, b]); u = tf.unpack(s)", "s = tf.stack([a, b]); u = tf.unstack(s)"),
    ("w = tf.select(c, a, b)", "w = tf.where(c, a, b)"),
    ("r = tf.inv(a) + tf.complex_abs(z)", "r = tf.reciprocal(a) + tf.abs(z)"),
    ("d = tf.listdiff(a, b)", "d = tf.setdiff1d(a, b)"),
    ("i = tf.batch_matrix_inverse(m)", "i = tf.matrix_inverse(m)"),
    ("p = tf.batch_matmul(a, b, adj_x=True, adj_y=False)", "p = tf.matmul(a=a, b=b, adjoint_a=True, adjoint_b=False)"),
    ("p = tf.batch_matmul(a, b, True)", "p = tf.matmul(a=a, b=b, adjoint_a=True)"),  # 1.x's third is transpose_a
    ("u = tf.batch_svd(m, False)", "u = tf.svd(tensor=m, compute_uv=False)"),  # 1.x's second is full_matrices
    ("n = tf.image.per_image_whitening(img)", "n = tf.image.per_image_standardization(img)"),
    ("w = tf.train.SummaryWriter(d, graph=g)", "w = tf.summary.FileWriter(d, graph=g)"),
    ("m = tf.merge_all_summaries(); n = tf.merge_summary([s])", "m = tf.summary.merge_all(); n = tf.summary.merge([s])"),
    ('tf.scalar_summary("loss", l)', 'tf.summary.scalar("loss", l)'),
    ("tf.scalar_summary('acc %d' % i, a)", "tf.summary.scalar('acc %d' % i, a)"),
    ('tf.scalar_summary(tags="loss", values=l)', 'tf.summary.scalar(name="loss", tensor=l)'),
    ('tf.image_summary("img", x, max_images=2)', 'tf.summary.image("img", x, max_outputs=2)'),
    ('tf.histogram_summary(tag="w", values=w)', 'tf.summary.histogram(name="w", values=w)'),
    ("c = tf.concat(1, [a, b])", "c = tf.concat(axis=1, values=[a, b])"),
    ("c = tf.concat(-1, [a, b])", "c = tf.concat(axis=-1, values=[a, b])"),
    ("c = tf.concat(dim, [a, b])", "c = tf.concat(axis=dim, values=[a, b])"),
    ("c = tf.concat(len(s) - 1, [t for t in s])", "c = tf.concat(axis=len(s) - 1, values=[t for t in s])"),
    ("c = tf.concat(concat_dim=1, values=[a, b])", "c = tf.concat(axis=1, values=[a, b])"),
    ("l, r = tf.split(1, 2, x)", "l, r = tf.split(axis=1, num_or_size_splits=2, value=x)"),
    ("l, r = tf.split(split_dim=1, num_split=2, value=x)", "l, r = tf.split(axis=1, num_or_size_splits=2, value=x)"),
    (
        "e = tf.nn.softmax_cross_entropy_with_logits(y, t)",
        "e = tf.nn.softmax_cross_entropy_with_logits(logits=y, labels=t)",
    ),
    (
        "e = tf.nn.sparse_softmax_cross_entropy_with_logits(y, t)",
        "e = tf.nn.sparse_softmax_cross_entropy_with_logits(logits=y, labels=t)",
    ),
    (
        "e = tf.nn.sigmoid_cross_entropy_with_logits(logits=y, targets=t)",
        "e = tf.nn.sigmoid_cross_entropy_with_logits(logits=y, labels=t)",
    ),
    ("o, s = tf.nn.rnn(cell, xs, dtype=tf.float32)", "o, s = tf.nn.static_rnn(cell, xs, dtype=tf.float32)"),
    ("r = tf.reverse(x, [False, True, True])", "r = tf.reverse(x, [1, 2])"),
    # the arguments on other lines: each edit stays on its own line
    ("c = tf.concat(1,\n              [a, b])", "c = tf.concat(axis=1,\n              values=[a, b])"),
]

UNCHANGED = [
    "c = tf.concat([a, b], 1)",
    "c = tf.concat(values, axis)",  # not an integer first nor a list second: TF 1.x's own order
    "c = tf.concat([a, b], axis=1)",
    "l, r = tf.split(x, 2, 1)",
    "e = tf.nn.softmax_cross_entropy_with_logits(labels=t, logits=y)",
    "r = tf.reverse(x, [1])",
    "r = tf.reverse(x, axes)",
    "y = tf.multiply(a, b)",
    "init = tf.initialize_all_variables()",  # still in TF 1.x: migrated as TF 1.x's
    "v = tf.all_variables()",
    "y = np.mul(a, b)",  # not TensorFlow
    'tf.summary.scalar("loss", l)',
    # written for both versions: TF 1.x runs the handler
    "try:\n    scalar_summary = tf.scalar_summary\n    mul = tf.mul\nexcept AttributeError:\n    scalar_summary = tf.summary.scalar\n    mul = tf.multiply",
]


@pytest.mark.parametrize(("before", "after"), UPGRADED)
def test_upgrades_as_tf_1_0_renamed(before: str, after: str) -> None:
    upgraded = upgrade(HEAD + before + "\n", ast.parse(HEAD + before + "\n"))
    assert upgraded is not None
    assert upgraded.source == HEAD + after + "\n"
    assert upgraded.source.count("\n") == (HEAD + before + "\n").count("\n")


@pytest.mark.parametrize("source", UNCHANGED)
def test_tf_1_x_code_is_not_touched(source: str) -> None:
    text = HEAD + "import numpy as np\n" + source + "\n"
    assert upgrade(text, ast.parse(text)) is None


def test_an_alias_of_tensorflow_is_followed() -> None:
    text = "import tensorflow as T\ny = T.mul(a, b)\n"
    assert upgrade(text, ast.parse(text)).source == "import tensorflow as T\ny = T.multiply(a, b)\n"


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ('with tf.name_scope("s"):\n    tf.scalar_summary("loss", l)', "opens name scopes"),
        ("tf.scalar_summary(tags, values)", "not one literal"),
        ('tf.scalar_summary("loss", l, name="s")', "names its op"),
        ('tf.scalar_summary("loss", l, None, "s")', "names its op"),
        ("from tensorflow import mul", "imported from tensorflow"),
        ("y = tf . mul(a, b)", "with spaces"),
        ("r = tf.reverse(x, [False,\n                   True])", "across lines"),
        # TF 1.x tags a summary by its name scope, unique in the graph and cleaned; 0.x as given
        ('tf.scalar_summary("loss", a)\ntf.scalar_summary("loss", b)', "given more than once"),
        ('for i in range(2):\n    tf.scalar_summary("loss", l)', "given more than once"),
        ('def track(v):\n    return tf.scalar_summary("v", v)\na = track(x)\nb = track(y)', "given more than once"),
        ('l = tf.reduce_mean(x, name="loss")\ntf.scalar_summary("loss", l)', "name of another op"),
        ('tf.scalar_summary("Mean", tf.reduce_mean(x))', "name of another op"),
        ('tf.scalar_summary("train loss", l)', "not a clean name"),
        ('tf.scalar_summary("acc:top1", l)', "not a clean name"),
    ],
)
def test_what_is_left_as_written_is_said(source: str, reason: str) -> None:
    text = HEAD + source + "\n"
    upgraded = upgrade(text, ast.parse(text))
    assert upgraded is not None
    assert any(LEFT in message and reason in message for _, _, message in upgraded.notes), upgraded.notes


def test_findings_stand_on_the_original_columns() -> None:
    source = (
        HEAD
        + "x = tf.placeholder(tf.float32)\ny = tf.mul(x, 2.0) + tf.foo_unknown(x)\nwith tf.Session() as s:\n    print(s.run(y, {x: 1.0}))\n"
    )
    result = migrate_source(source, "t.py")
    columns = {(f.code, f.line): f.column for f in result.findings}
    assert columns[("TFM415", 3)] == 5  # tf.mul, where the original wrote it
    assert "tf.multiply(x, 2.0)" in result.new_source
    assert migrate_source(result.new_source, "t.py").new_source == result.new_source


@pytest.mark.parametrize("function", ["softmax", "sparse_softmax", "sigmoid", "sigmoid_targets"])
def test_a_cross_entropy_alone_is_upgraded(function: str) -> None:
    """A positional cross-entropy call is 0.x code even as the file's only 0.x spelling: the
    cheap word test must see it, or TF2's (labels, logits) would read 0.x's (logits, labels)."""
    call = f"tf.nn.{function}_cross_entropy_with_logits(y, t)"
    if function == "sigmoid_targets":  # 0.x's keyword, which TF2 does not take
        call = "tf.nn.sigmoid_cross_entropy_with_logits(y, targets=t)"
    assert may_be_pre_1_0(HEAD + f"loss = {call}\n")
    result = migrate_source(HEAD + f"loss = tf.reduce_mean({call})\n", "t.py")
    assert "logits=y" in result.new_source, result.new_source
    assert any(f.code == "TFM415" for f in result.findings)


def test_a_unique_clean_literal_tag_is_still_upgraded() -> None:
    text = HEAD + 'l = tf.reduce_mean(x, name="cost")\ntf.scalar_summary("loss", l)\ntf.scalar_summary("acc_%d" % 1, l)\n'
    upgraded = upgrade(text, ast.parse(text))
    assert upgraded is not None and upgraded.source.count("tf.summary.scalar(") == 2
