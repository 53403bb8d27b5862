"""``acc = tf.metrics.accuracy(labels=…, predictions=…)[1]`` in graph code → a metric made
once, updated where the update op is computed.

TF1 made the metric's two local variables (``total``, ``count``) when the graph was built,
and each run fetching the update op added its batch to them.  The migration makes them
where the TF1 statement stood (``acc_metric = TF1StreamingAccuracy()``, a small class
emitted once per file) and calls the metric in the computation (``acc =
acc_metric(labels=…, predictions=…)[1]``): TF 1.15's ops, in its order — a trailing
dimension of 1 squeezed off whichever of labels and predictions had one more, predictions
cast to the labels' dtype, the float32 sum and count added, ``divide_no_nan`` of the new
values.  The variables are TF1's local variables: no checkpoint holds them (a Saver saved
global variables only), and ``tf.local_variables_initializer()`` runs go as initializers do
(analysis/initializer_runs.py refuses one that would set them back to zero).  Which
statements convert: analysis/streaming_metrics.py.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.names import created_name
from tf2migrate.analysis.streaming_metrics import update_op_statement
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan
from tf2migrate.rewrites import file_helpers

STREAMING_ACCURACY = Rule(
    "TFM416",
    "streaming-accuracy-written-out",
    "tf.metrics.accuracy's update op → a metric with TF1's local variables, made once and updated in the computation.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Makes `TF1StreamingAccuracy()` (a class emitted once per file: TF1's `total` and `count` variables and its "
    "update op) where the TF1 code called `tf.metrics.accuracy(labels=..., predictions=...)[1]`, and calls it in the "
    "generated function that computes the update op.",
    why="TF2 has no `tf.metrics` (`tf.compat.v1.metrics` raises under eager execution), and a Keras "
    "`Accuracy` metric compares otherwise (no squeeze of a trailing dimension, other casts); creating the "
    "variables in the generated function would set them back to zero at each call.",
    example="acc = tf.metrics.accuracy(labels=tf.argmax(y, 1), predictions=tf.argmax(logits, 1))[1]",
    instead="acc_metric = TF1StreamingAccuracy()\n...\nacc = acc_metric(labels=tf.argmax(y, 1), predictions=tf.argmax(logits, 1))[1]",
    invalid=(
        "import tensorflow as tf\n"
        "y = tf.placeholder(tf.int64, [None])\n"
        "p = tf.placeholder(tf.int64, [None])\n"
        "acc = tf.metrics.accuracy(labels=y, predictions=p)[1]\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.local_variables_initializer())\n"
        "    print(sess.run(acc, {y: [1, 2], p: [1, 3]}))\n",
    ),
    valid=("import tensorflow as tf\naccuracy = tf.keras.metrics.Accuracy()\n",),
)
RULES = [STREAMING_ACCURACY]

HELPER_NAME = "TF1StreamingAccuracy"
HELPER = '''class TF1StreamingAccuracy:
    """tf.metrics.accuracy as TF 1.15 built it: two float32 local variables, the sum of the
    correct predictions and their count, made once; a call returns (value, update_op)."""

    def __init__(self):
        self.total = tf.Variable(0.0, trainable=False, name="total")
        self.count = tf.Variable(0.0, trainable=False, name="count")

    def __call__(self, labels, predictions):
        labels = tf.convert_to_tensor(labels)
        predictions = tf.convert_to_tensor(predictions)
        # TF1 squeezed a trailing dimension of 1 off whichever had one dimension more
        labels_rank, predictions_rank = labels.shape.rank, predictions.shape.rank
        if labels_rank is not None and predictions_rank is not None:
            if predictions_rank - labels_rank == 1 and predictions.shape[-1] in (None, 1):
                predictions = tf.squeeze(predictions, [-1])
            elif predictions_rank - labels_rank == -1 and labels.shape[-1] in (None, 1):
                labels = tf.squeeze(labels, [-1])
        else:
            rank_difference = tf.rank(predictions) - tf.rank(labels)
            if predictions_rank is None or predictions.shape[-1] in (None, 1):
                squeezed = predictions
                predictions = tf.cond(tf.equal(rank_difference, 1), lambda: tf.squeeze(squeezed, [-1]), lambda: squeezed)
            if labels_rank is None or labels.shape[-1] in (None, 1):
                unsqueezed = labels
                labels = tf.cond(tf.equal(rank_difference, -1), lambda: tf.squeeze(unsqueezed, [-1]), lambda: unsqueezed)
        predictions.shape.assert_is_compatible_with(labels.shape)
        if labels.dtype != predictions.dtype:
            predictions = tf.cast(predictions, labels.dtype)
        is_correct = tf.cast(tf.equal(predictions, labels), tf.float32)
        value = tf.math.divide_no_nan(self.total, tf.maximum(self.count, 0))
        update_total = self.total.assign_add(tf.reduce_sum(is_correct))
        update_count = self.count.assign_add(tf.cast(tf.size(is_correct), tf.float32))
        return value, tf.math.divide_no_nan(update_total, tf.maximum(update_count, 0))
'''


def plan_streaming_metrics(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str]) -> None:
    for scope in facts.scopes:
        for statement in scope.statements:
            for call in statement.metric_calls:
                helper = file_helpers.emit_once(module, facts, plan, names_in_use, HELPER_NAME, HELPER)
                bound = update_op_statement(statement.node, call)
                metric = created_name(f"{bound}_metric", scope.cls is not None, names_in_use)
                # local variables: not in the checkpoint a Saver becomes (it saved global ones)
                plan.create_before(module, statement, metric, f"{helper}()", has_variables=False)
                plan.call_replacements[id(call)] = lambda updated, metric=metric: _call_metric(updated, metric)
                plan.note(call, STREAMING_ACCURACY.code, f"tf.metrics.accuracy → `{metric}`, its variables made once")


def _call_metric(updated: cst.Call, metric: str) -> cst.Call:
    """The metric called with the TF1 call's labels and predictions (``name=`` only named
    TF1's variable scope)."""
    arguments = [a for a in updated.args if a.keyword is None or a.keyword.value != "name"]
    if arguments and len(arguments) < len(updated.args):
        arguments[-1] = arguments[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return updated.with_changes(func=cst.parse_expression(metric), args=arguments)
