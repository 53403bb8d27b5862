"""Loop-invariant feeds (rewrites/invariant_feeds.py): a feed dict's arrays become tensors
once, before the loop, only when no code from the dict to its last read can change them."""

from __future__ import annotations

import textwrap

import pytest

from tf2migrate import migrate_source

PROGRAM = """\
import time
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 1])
y = tf.placeholder(tf.float32, [None, 1])
w = tf.Variable(tf.ones([1, 1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
train = tf.train.AdamOptimizer(0.1).minimize(loss)
x_data = np.linspace(0.0, 1.0, 8, dtype=np.float32)[:, None]
y_data = 2.0 * x_data
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    feed = {x: x_data, y: y_data}
    losses = []
    for it in range(3):
        start = time.perf_counter()
        sess.run(train, feed)
        if it % 2 == 0:
            losses.append(sess.run(loss, feed))
            print("step %d took %.3f s" % (it, time.perf_counter() - start))
    LAST
"""
CONVERTED = 'feed = {"x": tf.convert_to_tensor(x_data, tf.float32), "y": tf.convert_to_tensor(y_data, tf.float32)}'


def _migrate(last: str, loop_line: str = "") -> str:
    source = PROGRAM.replace("    LAST\n", f"    {last}\n")
    if loop_line:
        source = source.replace("        sess.run(train, feed)\n", f"        sess.run(train, feed)\n        {loop_line}\n")
    new, _ = migrate_source(source, "program.py")
    assert "Session" not in new, new  # converted to TF2
    return new


def test_converted_once_before_the_loop() -> None:
    new = _migrate("final = sess.run(loss, feed)")
    assert CONVERTED in new
    assert "train_step(**feed)" in new


@pytest.mark.parametrize(
    "loop_line",
    [
        "x_data[0] = 5.0",  # written in place
        "x_data += 1.0",  # in place for an array
        "np.random.shuffle(x_data)",  # user or library code that may write into it
        "y_data.sort()",
        "helper = feed",  # the dict read otherwise than unpacked into a run
        "best = min(range(2), key=shrink)",  # a function min calls: it may write into the arrays
    ],
)
def test_kept_as_arrays_when_the_loop_may_change_them(loop_line: str) -> None:
    assert "convert_to_tensor" not in _migrate("final = sess.run(loss, feed)", loop_line)


def test_kept_when_read_after_by_other_code() -> None:
    assert "convert_to_tensor" not in _migrate("print(feed)")


def test_kept_when_no_loop_reads_it() -> None:
    source = PROGRAM.replace("sess.run(train, feed)\n", "pass\n").replace("losses.append(sess.run(loss, feed))", "pass")
    new, _ = migrate_source(source.replace("    LAST\n", "    final = sess.run(loss, feed)\n"), "program.py")
    assert "convert_to_tensor" not in new and "compute_loss(**feed)" in new


def test_kept_when_a_list_fed_may_be_appended_before_it_is_rebound() -> None:
    # ``rows`` is the function's parameter, the list fed: the first turn appends to it,
    # only then is the name bound to a new list
    head = PROGRAM[: PROGRAM.index("with tf.Session()")]
    source = head + textwrap.dedent("""\
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())


        def fit(rows, labels):
            feed = {x: rows, y: labels}
            losses = []
            for it in range(3):
                sess.run(train, feed)
                losses.append(sess.run(loss, feed))
                rows.append([0.5])
                labels.append([1.0])
                rows = []
                labels = []
            return losses
        """)
    new, _ = migrate_source(source, "program.py")
    assert "train_step(**feed)" in new and "convert_to_tensor" not in new
