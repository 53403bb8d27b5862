"""``tf.contrib.seq2seq.sequence_loss(...)``: which calls have an exact TF2 expression.

TF2 has no ``tf.contrib``, but the function is a few core ops (TF 1.15's
``contrib/seq2seq/python/ops/loss.py``): a sparse softmax cross-entropy of the logits
flattened to ``[-1, num_classes]``, multiplied by the flattened weights, then reduced
according to four Python flags — summed and divided (``div_no_nan``) by the sum of the
weights over the axes averaged, or by the count of non-zero weights over the axes summed.
Those ops exist in TF2 with the same meaning, so a call converts when every argument that
decides the ops is known where the call is written: the flags are absent or literal
``True``/``False`` (a flag held in a variable could be anything), no
``softmax_loss_function`` (a user function of unknown meaning), no ``name`` (TF1 opened a
name scope with it), and ``logits`` and ``weights``, which the expression reads more than
once, are names (a computed argument would be computed again).  Other calls stay refused,
naming what is missing (``refusal``).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tf2migrate.analysis.tf_imports import dotted_name

SEQUENCE_LOSS = "contrib.seq2seq.sequence_loss"

_PARAMETERS = (
    "logits",
    "targets",
    "weights",
    "average_across_timesteps",
    "average_across_batch",
    "sum_over_timesteps",
    "sum_over_batch",
    "softmax_loss_function",
    "name",
)
_FLAGS = {"average_across_timesteps": True, "average_across_batch": True, "sum_over_timesteps": False, "sum_over_batch": False}


@dataclass(frozen=True)
class SequenceLossCall:
    """A call's tensors and its flags, every one known."""

    logits: cst.BaseExpression
    targets: cst.BaseExpression
    weights: cst.BaseExpression
    average_across_timesteps: bool
    average_across_batch: bool
    sum_over_timesteps: bool
    sum_over_batch: bool


def sequence_loss_call(call: cst.Call) -> SequenceLossCall | str:
    """The call's arguments, or why its TF2 expression is not known (for the refusal)."""
    if any(a.star for a in call.args):
        return "its arguments are unpacked with * or **"
    given: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(call.args):
        keyword = arg.keyword.value if arg.keyword is not None else (_PARAMETERS[position] if position < len(_PARAMETERS) else None)
        if keyword not in _PARAMETERS or keyword in given:
            return "its arguments do not match TF1's parameters"
        given[keyword] = arg.value
    missing = [p for p in ("logits", "targets", "weights") if p not in given]
    if missing:
        return f"`{missing[0]}` is not given"
    for parameter in ("softmax_loss_function", "name"):
        value = given.get(parameter)
        if value is not None and not (isinstance(value, cst.Name) and value.value == "None"):
            return f"it is given `{parameter}=`"
    flags = dict(_FLAGS)
    for flag in _FLAGS:
        if flag in given:
            value = given[flag]
            if not (isinstance(value, cst.Name) and value.value in ("True", "False")):
                return f"`{flag}` is not written as True or False"
            flags[flag] = value.value == "True"
    if (flags["average_across_timesteps"] and flags["sum_over_timesteps"]) or (flags["average_across_batch"] and flags["sum_over_batch"]):
        return "it both averages and sums over one axis (TF1 raised ValueError)"
    for parameter in ("logits", "weights"):
        if dotted_name(given[parameter]) is None:  # ``outputs``, ``self.outputs``: read twice, the same tensor
            return f"`{parameter}` is not a name (the TF2 expression reads it more than once)"
    return SequenceLossCall(given["logits"], given["targets"], given["weights"], **flags)


def refusal(call: cst.Call) -> str | None:
    """The blocker message for a call that does not convert, or None when it does."""
    parsed = sequence_loss_call(call)
    if isinstance(parsed, SequenceLossCall):
        return None
    return f"`tf.{SEQUENCE_LOSS}` is not converted here: {parsed}"
