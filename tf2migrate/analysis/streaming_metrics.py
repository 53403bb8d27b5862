"""Which ``tf.metrics.accuracy`` statements convert: those that keep only the update op.

TF1's ``tf.metrics.accuracy(labels, predictions)`` makes two local variables (``total``,
``count``) when the graph is built and returns ``(value, update_op)``: the value reads the
variables, the update op adds the batch to them and returns the new ratio.  Each is a
separate op, run only by the runs that fetch it.  A generated function computes a whole
statement, so a statement may convert only when it binds one of them: the update op, as
tutorials write it (``acc = tf.metrics.accuracy(labels=…, predictions=…)[1]``).  A statement that also binds the value would run the
update in every run fetching the value; other metrics, ``weights=`` and the collections
arguments stay on TF1 (rewrites/streaming_metrics.py writes the converted ones out).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.calls import bind_arguments

ACCURACY = "metrics.accuracy"
PARAMETERS = ("labels", "predictions", "weights", "metrics_collections", "updates_collections", "name")


def update_op_refusal(node: cst.BaseStatement, call: cst.Call) -> str | None:
    """Why the ``tf.metrics.accuracy`` call ``call`` in ``node`` is not converted; None when
    ``node`` binds its update op alone, and it passes labels and predictions only (and a
    ``name=`` written out, which named the variables' scope)."""
    arguments = bind_arguments(call, PARAMETERS)
    if arguments is None or "labels" not in arguments or "predictions" not in arguments:
        return "`tf.metrics.accuracy` without its labels and predictions written out is not converted"
    extra = [name for name, arg in arguments.items() if name not in ("labels", "predictions", "name")]
    if extra:
        return f"`{extra[0]}=` of `tf.metrics.accuracy` is not converted (only labels and predictions)"
    if "name" in arguments and not isinstance(arguments["name"].value, cst.SimpleString):
        return "`name=` of `tf.metrics.accuracy` is not a string written out"
    if update_op_statement(node, call) is None:
        return (
            "`tf.metrics.accuracy` is converted where a statement binds its update op alone "
            "(`acc = tf.metrics.accuracy(...)[1]`): its value op "
            "reads the totals without adding to them, and a generated function computes its statement whole"
        )
    return None


def update_op_statement(node: cst.BaseStatement, call: cst.Call) -> str | None:
    """The name ``node`` binds to the update op of ``call``: ``acc = call[1]`` (or
    ``self.acc = call[1]`` in a constructor building the graph), the statement's only small
    statement; None otherwise (``_, acc = call`` binds the value too)."""
    if not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1 or not isinstance(node.body[0], cst.Assign):
        return None
    assign = node.body[0]
    if len(assign.targets) != 1:
        return None
    target, value = assign.targets[0].target, assign.value
    if m.matches(target, m.Name() | m.Attribute(value=m.Name("self"), attr=m.Name())) and m.matches(
        value, m.Subscript(value=m.MatchIfTrue(lambda v: v is call), slice=[m.SubscriptElement(m.Index(m.Integer("1")))])
    ):
        return cst.Module([]).code_for_node(target)
    return None
