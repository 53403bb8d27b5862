"""``tf.contrib.seq2seq.sequence_loss(...)`` → the TF2 ops TF1's function built.

TF 1.15's function (``contrib/seq2seq/python/ops/loss.py``), written out with core ops
for a call whose arguments analysis/sequence_loss.py knows::

    loss = tf.contrib.seq2seq.sequence_loss(logits=outputs, targets=Y, weights=weights)

becomes::

    loss = tf.math.divide_no_nan(
        tf.reduce_sum(
            tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.reshape(Y, [-1]), logits=tf.reshape(outputs, [-1, tf.shape(outputs)[2]])
            )
            * tf.reshape(weights, [-1])
        ),
        tf.reduce_sum(weights),
    )

With ``average_across_batch=False`` (or ``average_across_timesteps=False``) the
cross-entropy is reshaped to ``tf.shape(logits)[0:2]`` and reduced over the other axis
only; with the ``sum_over_*`` flags it is divided by the count of non-zero weights
(``tf.math.count_nonzero``, cast to the logits' dtype) instead of their sum; with neither,
the per-step losses are returned.  Earlier TF1 releases divided by ``sum + 1e-12`` instead
of using ``div_no_nan``: the values differ by about 1e-12 relative (all-zero weights give
0 either way).  Rewritten only in files whose graph becomes eager TF2.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.sequence_loss import SEQUENCE_LOSS, SequenceLossCall, sequence_loss_call
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import API_RENAMED


def plan_sequence_losses(facts: GraphFacts, plan: Plan) -> None:
    for call in facts.calls:
        if facts.imports.call_name(call) != SEQUENCE_LOSS:
            continue
        parsed = sequence_loss_call(call)
        if not isinstance(parsed, SequenceLossCall):
            continue  # refused by the analysis (analysis/statements.py)
        expression = cst.parse_expression(_expression(parsed))
        plan.call_replacements[id(call)] = lambda updated, expression=expression: expression.with_changes(
            lpar=updated.lpar, rpar=updated.rpar
        )
        plan.note(
            call,
            API_RENAMED.code,
            f"tf.{SEQUENCE_LOSS} → the ops TF 1.15 built: weighted tf.nn.sparse_softmax_cross_entropy_with_logits, " + _reduction(parsed),
        )


def _expression(call: SequenceLossCall) -> str:
    code = cst.Module([]).code_for_node
    logits, targets, weights = code(call.logits), code(call.targets), code(call.weights)
    crossent = (
        f"tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape({targets}, [-1]), "
        f"logits=tf.reshape({logits}, [-1, tf.shape({logits})[2]])) * tf.reshape({weights}, [-1])"
    )
    if call.average_across_timesteps and call.average_across_batch:
        return f"tf.math.divide_no_nan(tf.reduce_sum({crossent}), tf.reduce_sum({weights}))"
    if call.sum_over_timesteps and call.sum_over_batch:
        count = f"tf.cast(tf.math.count_nonzero({weights}), {logits}.dtype)"
        return f"tf.math.divide_no_nan(tf.reduce_sum({crossent}), {count})"
    per_step = f"tf.reshape({crossent}, tf.shape({logits})[0:2])"
    if call.average_across_timesteps or call.average_across_batch:
        axis = "[0]" if call.average_across_batch else "[1]"
        return f"tf.math.divide_no_nan(tf.reduce_sum({per_step}, axis={axis}), tf.reduce_sum({weights}, axis={axis}))"
    if call.sum_over_timesteps or call.sum_over_batch:
        axis = "[0]" if call.sum_over_batch else "[1]"
        count = f"tf.cast(tf.math.count_nonzero({weights}, axis={axis}), {logits}.dtype)"
        return f"tf.math.divide_no_nan(tf.reduce_sum({per_step}, axis={axis}), {count})"
    return per_step


def _reduction(call: SequenceLossCall) -> str:
    """What the expression does with the weighted losses, for the finding."""
    averaged = [axis for axis, flag in (("batch", call.average_across_batch), ("timesteps", call.average_across_timesteps)) if flag]
    summed = [axis for axis, flag in (("batch", call.sum_over_batch), ("timesteps", call.sum_over_timesteps)) if flag]
    if averaged:
        return f"averaged over {' and '.join(averaged)} by the sum of the weights"
    if summed:
        return f"summed over {' and '.join(summed)}, divided by the count of non-zero weights"
    return "per step"
