"""A DropoutWrapper whose keep probability is fed (golbin's 02 - Autocomplete) drops what TF1
dropped, at keep probabilities below 1 too.

The fixture rnn/dropout_wrapper_fed_keep_prob feeds 1.0, the one value at which TF1's masks
do not depend on its random stream.  Below 1, TF1 and the migration draw their masks from
streams of their own (analysis/rnn.py); here every uniform draw of ``tf.nn.dropout`` is made
stateless, of one fixed seed, in both programs (a module both import), so both drop the same
elements at each step: what is compared is then the wiring — the fed value reaching the
wrapper at each run, dropping the output of each time step with TF1's op — through three
training steps at 0.5 and a prediction at 0.75 (the losses, the variable, the predictions),
and a migration that ignored the fed value is shown different.
"""

from __future__ import annotations

import textwrap

import pytest

from tf2migrate.migrate import migrate_source
from tf2migrate.verify import verify_pairs

STATELESS_DRAWS = '''
"""Every uniform draw of tf.nn.dropout replaced by a stateless one of a fixed seed."""
import tensorflow as tf
from tensorflow.python.ops import random_ops


def stateless_uniform(shape, minval=0, maxval=None, dtype=tf.float32, seed=None, name=None):
    return tf.random.stateless_uniform(shape, seed=[7, 11], minval=minval, maxval=maxval, dtype=dtype)


random_ops.random_uniform = stateless_uniform
'''

TF1_PROGRAM = """
    import numpy as np
    import tensorflow as tf

    import stateless_draws  # noqa: F401

    rng = np.random.RandomState(5)
    xb = rng.rand(3, 4, 6).astype(np.float32)
    yb = np.array([1, 0, 2], dtype=np.int32)

    X = tf.placeholder(tf.float32, [None, 4, 6])
    Y = tf.placeholder(tf.int32, [None])
    keep_prob = tf.placeholder(tf.float32, [])
    W = tf.Variable(tf.random_normal([5, 3]))

    cell1 = tf.nn.rnn_cell.BasicLSTMCell(5)
    cell1 = tf.nn.rnn_cell.DropoutWrapper(cell1, output_keep_prob=keep_prob)
    cell2 = tf.nn.rnn_cell.BasicLSTMCell(5)
    multi_cell = tf.nn.rnn_cell.MultiRNNCell([cell1, cell2])
    outputs, states = tf.nn.dynamic_rnn(multi_cell, X, dtype=tf.float32)
    outputs = tf.transpose(outputs, [1, 0, 2])[-1]
    model = tf.matmul(outputs, W)
    cost = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(logits=model, labels=Y))
    optimizer = tf.train.AdamOptimizer(0.01).minimize(cost)

    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    losses = []
    for epoch in range(3):
        _, loss = sess.run([optimizer, cost], feed_dict={X: xb, Y: yb, keep_prob: 0.5})
        losses.append(loss)
    scores = sess.run(model, feed_dict={X: xb, keep_prob: 0.75})
"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    root = tmp_path_factory.mktemp("fed_dropout")
    before, migrated = root / "tf1", root / "tf2"
    before.mkdir()
    migrated.mkdir()
    source = textwrap.dedent(TF1_PROGRAM)
    result = migrate_source(source, "program.py")
    assert "keep_prob_fed.assign(keep_prob)" in result.new_source, result.new_source
    assert not [d for d in result.findings if d.severity.name == "ERROR"], result.findings
    (before / "program.py").write_text(source)
    (migrated / "program.py").write_text(result.new_source)
    # the fed value ignored: the wrapper keeps all at every run
    (migrated / "ignored.py").write_text(result.new_source.replace("keep_prob_fed.assign(keep_prob)", "keep_prob_fed.assign(1.0)"))
    for side in (before, migrated):
        (side / "stateless_draws.py").write_text(STATELESS_DRAWS)
    pairs = [(before / "program.py", migrated / "program.py"), (before / "program.py", migrated / "ignored.py")]
    return verify_pairs(pairs)


def test_fed_keep_probability_drops_what_tf1_dropped(reports):
    report = reports[0]
    assert report.verdict == "equal", report.render()
    assert {row.name for row in report.rows} >= {"losses", "scores", "W"}


def test_a_migration_ignoring_the_fed_value_is_told_apart(reports):
    report = reports[1]
    assert report.verdict == "different", report.render()
