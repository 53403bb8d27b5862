"""``tf.losses.mean_squared_error(labels, predictions)`` and its kin → the TF2 ops TF1's
function built.

TF1's ``tf.losses`` functions (TF 1.15's ``ops/losses/losses_impl.py``) compute the
per-element losses, then ``compute_weighted_loss``: cast to float32, multiplied by the
weights (1.0 by default), summed and divided by the count of elements
(``SUM_BY_NONZERO_WEIGHTS``), cast back to the losses' dtype, and added to the ``LOSSES``
collection.  With the default weights, reduction and collection that is a mean::

    loss = tf.losses.mean_squared_error(tf_y, output)
    loss = tf.losses.softmax_cross_entropy(onehot_labels=tf_y, logits=output)

becomes::

    loss = tf.reduce_mean(tf.math.squared_difference(tf.cast(output, tf.float32), tf.cast(tf_y, tf.float32)))
    loss = tf.reduce_mean(
        tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(tf.cast(tf_y, output.dtype)), logits=output)
    )

``mean_squared_error`` and ``absolute_difference`` cast both arguments to float32 first
(their loss is float32 whatever the inputs, as in TF1); ``sigmoid_cross_entropy`` and
``softmax_cross_entropy`` cast the labels to the logits' dtype, and the softmax one stops
their gradient, as TF1 did.  Converted only with the defaults (no ``weights``,
``label_smoothing``, ``loss_collection`` or ``reduction``; ``scope`` only named TF1's ops),
and when the logits of a cross-entropy are a name (the expression reads them twice): other
calls keep ``tf.compat.v1.losses``, which runs in TF2.  (Graph code reading the
``LOSSES`` collection back, ``tf.losses.get_total_loss()``, stays on TF1: the collection
is empty in TF2, analysis/catalogue.py.)  Two differences, both within
float rounding of TF1: float64 logits are averaged in float64 (TF1 averaged in float32), and
an empty batch gives NaN where TF1's ``div_no_nan`` gave 0.

``sparse_softmax_cross_entropy(labels, logits)`` squeezed a trailing dimension of 1 off
labels of the logits' rank (off logits of two dimensions more), which the call alone does
not show: it becomes ``tf1_sparse_softmax_cross_entropy(labels, logits)``, a function
emitted once per file that takes that decision from the static ranks as TF1 did (under
``tf.cond`` when a rank is known only at the run), then computes TF1's ops exactly: the
per-example losses cast to float32, their ``reduce_sum`` divided by their count with
``divide_no_nan``, cast back to the logits' dtype (values and gradients TF1's, bit for bit,
also for an empty batch).  Rewritten only in files whose graph becomes eager TF2.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.tf_imports import dotted_name
from tf2migrate.plan import Plan
from tf2migrate.rewrites import file_helpers
from tf2migrate.rewrites.tf_names import API_RENAMED
from tf2migrate.traversal import preorder

_Expression = Callable[[str, str], str]


def _float32_mean(elementwise: str) -> _Expression:
    return lambda labels, predictions: (
        f"tf.reduce_mean({elementwise.format(p=f'tf.cast({predictions}, tf.float32)', l=f'tf.cast({labels}, tf.float32)')})"
    )


def _cross_entropy(function: str, labels_gradient: bool) -> _Expression:
    def expression(labels: str, logits: str) -> str:
        cast = f"tf.cast({labels}, {logits}.dtype)"
        return f"tf.reduce_mean(tf.nn.{function}(labels={cast if labels_gradient else f'tf.stop_gradient({cast})'}, logits={logits}))"

    return expression


# TF1 name → (its parameters in order, the two that make the loss, the TF2 expression, and
# whether the second is read twice)
_LOSSES: dict[str, tuple[tuple[str, ...], _Expression, bool]] = {
    "losses.mean_squared_error": (
        ("labels", "predictions", "weights", "scope", "loss_collection", "reduction"),
        _float32_mean("tf.math.squared_difference({p}, {l})"),
        False,
    ),
    "losses.absolute_difference": (
        ("labels", "predictions", "weights", "scope", "loss_collection", "reduction"),
        _float32_mean("tf.abs({p} - {l})"),
        False,
    ),
    "losses.sigmoid_cross_entropy": (
        ("multi_class_labels", "logits", "weights", "label_smoothing", "scope", "loss_collection", "reduction"),
        _cross_entropy("sigmoid_cross_entropy_with_logits", labels_gradient=True),
        True,
    ),
    "losses.softmax_cross_entropy": (
        ("onehot_labels", "logits", "weights", "label_smoothing", "scope", "loss_collection", "reduction"),
        _cross_entropy("softmax_cross_entropy_with_logits", labels_gradient=False),
        True,
    ),
}


_SPARSE = "losses.sparse_softmax_cross_entropy"
_SPARSE_PARAMETERS = ("labels", "logits", "weights", "scope", "loss_collection", "reduction")
SPARSE_HELPER_NAME = "tf1_sparse_softmax_cross_entropy"
SPARSE_HELPER = '''def tf1_sparse_softmax_cross_entropy(labels, logits):
    """TF 1.15's tf.losses.sparse_softmax_cross_entropy with its default weights and
    reduction: a trailing dimension of 1 squeezed off labels of the logits' rank (off logits
    of two dimensions more), the losses' float32 sum divided by their count."""
    labels = tf.convert_to_tensor(labels)
    logits = tf.convert_to_tensor(logits)
    labels_rank, logits_rank = labels.shape.rank, logits.shape.rank
    if labels_rank is not None and logits_rank is not None:
        if logits_rank - labels_rank == 2 and logits.shape[-1] in (None, 1):
            logits = tf.squeeze(logits, [-1])
        elif logits_rank == labels_rank and labels.shape[-1] in (None, 1):
            labels = tf.squeeze(labels, [-1])
    else:
        rank_difference = tf.rank(logits) - tf.rank(labels)
        if logits_rank is None or logits.shape[-1] in (None, 1):
            unsqueezed_logits = logits
            logits = tf.cond(
                tf.equal(rank_difference, 2), lambda: tf.squeeze(unsqueezed_logits, [-1]), lambda: unsqueezed_logits
            )
        if labels_rank is None or labels.shape[-1] in (None, 1):
            unsqueezed_labels = labels
            labels = tf.cond(
                tf.equal(rank_difference, 0), lambda: tf.squeeze(unsqueezed_labels, [-1]), lambda: unsqueezed_labels
            )
    losses = tf.cast(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits), tf.float32)
    loss = tf.math.divide_no_nan(tf.reduce_sum(losses), tf.cast(tf.size(losses), tf.float32))
    return tf.cast(loss, logits.dtype)
'''


def plan_tf1_losses(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str]) -> None:
    for call in facts.calls:
        name = facts.imports.call_name(call)
        if name == _SPARSE:
            _plan_sparse(module, facts, plan, names_in_use, call)
            continue
        if name not in _LOSSES:
            continue
        parameters, expression_of, reads_twice = _LOSSES[name]
        bound = bind_arguments(call, parameters)
        if bound is None:
            continue
        given = {parameter: arg.value for parameter, arg in bound.items()}
        labels, predictions = (given.get(p) for p in parameters[:2])
        if labels is None or predictions is None or set(given) - {*parameters[:2], "scope"}:
            continue  # weights, smoothing, another reduction or collection: tf.compat.v1 stays
        if reads_twice and (dotted_name(predictions) is None or _python_value(facts, call, predictions)):
            continue  # ``logits.dtype`` needs a tensor (a list or an array has none, or NumPy's)
        plan.call_replacements[id(call)] = _replacement(parameters, expression_of)
        plan.note(call, API_RENAMED.code, f"tf.{name} → the mean TF1 computed with its default weights and reduction")


def _plan_sparse(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str], call: cst.Call) -> None:
    """``tf.losses.sparse_softmax_cross_entropy(labels, logits)`` (``scope=`` only named
    TF1's ops) → the helper; other arguments keep ``tf.compat.v1.losses``."""
    bound = bind_arguments(call, _SPARSE_PARAMETERS)
    if bound is None or "labels" not in bound or "logits" not in bound or set(bound) - {"labels", "logits", "scope"}:
        return
    helper = file_helpers.emit_once(module, facts, plan, names_in_use, SPARSE_HELPER_NAME, SPARSE_HELPER)
    code = cst.Module([]).code_for_node

    def replace(updated: cst.Call) -> cst.BaseExpression:
        arguments = bind_arguments(updated, _SPARSE_PARAMETERS)
        assert arguments is not None  # bound before the rename; renaming keeps the arguments
        labels, logits = code(arguments["labels"].value), code(arguments["logits"].value)
        return cst.parse_expression(f"{helper}(labels={labels}, logits={logits})").with_changes(lpar=updated.lpar, rpar=updated.rpar)

    plan.call_replacements[id(call)] = replace
    plan.note(call, API_RENAMED.code, f"tf.{_SPARSE} → `{helper}`: TF1's squeeze of the labels and mean, written out")


def _replacement(parameters: tuple[str, ...], expression_of: _Expression) -> Callable[[cst.Call], cst.BaseExpression]:
    """The TF2 expression of the call as the other rewrites left it: its arguments renamed
    (``tf.log(p)`` → ``tf.math.log(p)``) like any TF1 code."""
    code = cst.Module([]).code_for_node

    def replace(updated: cst.Call) -> cst.BaseExpression:
        bound = bind_arguments(updated, parameters)
        assert bound is not None  # bound before the rename; renaming keeps the arguments
        labels, predictions = (code(bound[p].value) for p in parameters[:2])
        return cst.parse_expression(expression_of(labels, predictions)).with_changes(lpar=updated.lpar, rpar=updated.rpar)

    return replace


def _python_value(facts: GraphFacts, call: cst.Call, name: cst.BaseExpression) -> bool:
    """Is ``name`` bound, where ``call`` reads it, by a statement that makes no graph value
    (``logits = [[2.0, 0.5]]``, a NumPy array)?  TF1 converted it to a tensor; the
    expression written for the call reads its ``dtype``."""
    if not isinstance(name, cst.Name):
        return False
    for scope in facts.scopes:
        for statement in scope.statements:
            if any(node is call for node in preorder(statement.node)):
                bound = scope.resolve(name.value, statement.order)
                return bound is not None and scope.graph_statement(name.value, statement.order) is None
    return False
