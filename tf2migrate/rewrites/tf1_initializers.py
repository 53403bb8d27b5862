"""``tf.random_normal_initializer(0., .1)``, ``tf.constant_initializer(0.1)`` → TF2's namesakes.

TF2 kept these names for other classes (``init_ops_v2``) with other defaults, so
tf_upgrade_v2 writes every call ``tf.compat.v1.X``, and a Keras layer built with
``kernel_initializer=tf.compat.v1.random_normal_initializer(0., .1)`` is TF1 code left in a
migrated file.  A call is written with TF2's class where the two draw the very same values:

- ``random_normal_initializer`` and ``random_uniform_initializer`` without ``seed=`` or
  ``dtype=``: both versions call the same stateful op (``random_ops.random_normal`` /
  ``random_uniform``)
  with the same arguments and no op seed, so the graph seed decides the draw alike; the
  default dtype of a call is float32 in both.  A seed would differ (TF2 draws a stateless
  op from ``[seed, 0]``), and TF2 has no ``dtype=``: those calls stay ``tf.compat.v1``.
  TF2's defaults differ (stddev 0.05, uniform in [-0.05, 0.05]), so every parameter is
  written out: positionals as keywords, a missing one as TF1's default (``mean=0.0,
  stddev=1.0``; ``minval=0, maxval=None``, which ``random_uniform`` reads as 1).
  (``truncated_normal_initializer`` has no TF2 namesake: ``tf.compat.v1`` it stays.)
- ``constant_initializer(v)`` with ``v`` a float literal (``0.1``, ``-1.``): TF1's fills the
  shape with ``constant(v, dtype)``, dtype float32 unless the caller passes one; TF2's with
  ``constant(v, dtype)`` too, whose dtype unpassed is a Python float's, float32.  An
  integer (``constant_initializer(0)``: TF2 would make int32 zeros where the caller passes
  no dtype), a list (TF1 padded a short one with its last element, TF2 refuses it), a
  name, ``dtype=`` or ``verify_shape=`` stay ``tf.compat.v1``.
- ``zeros_initializer()`` and ``ones_initializer()`` without arguments: TF1's fills the shape
  with ``zeros``/``ones`` of the caller's dtype, float32 unless the caller passes one (its own
  ``dtype`` default); TF2's with the caller's dtype, float32 by default.  A ``dtype=`` stays
  ``tf.compat.v1`` (TF2's class takes none).  Passed uncalled, as a class
  (``weights_initializer=tf.zeros_initializer``: TF1's variable scopes and Keras both make
  an instance of a class they are given), TF2's class is written too: made without
  arguments it fills as TF1's, and a later call passing TF1's ``dtype`` fails loudly
  (TypeError) where it would otherwise differ (``CLASS_VALUES``).

Arguments keep their text and their order, so each is evaluated once, as before.
"""

from __future__ import annotations

import libcst as cst

#: TF1 path → its parameters in TF1's order with TF1's defaults, written where a call omits
#: one (TF2's class has other defaults).
_RANDOM = {
    "random_normal_initializer": (("mean", "0.0"), ("stddev", "1.0")),
    "random_uniform_initializer": (("minval", "0"), ("maxval", "None")),
}
CONSTANT = "constant_initializer"
#: Initializers that fill with one value and draw nothing: TF2's class equals TF1's when
#: made without arguments, and may stand for TF1's where the class is passed as a value.
CLASS_VALUES = frozenset({"zeros_initializer", "ones_initializer"})
#: The TF1 initializer calls this module may write with TF2's class.
PATHS = frozenset({*_RANDOM, CONSTANT, *CLASS_VALUES})
#: Why a call stays ``tf.compat.v1`` (the finding's words after "this call of tf.X").
REFUSED = (
    "is not written with TF2's namesake, which would not make TF1's values (a seed, a dtype, or a constant that is not a float literal)"
)


def tf2_initializer(path: str, call: cst.Call, changes: list[str]) -> cst.Call | None:
    """The call written ``tf.<path>(...)`` with TF2's class, its parameters explicit; None
    when TF2's class would not draw TF1's values (the call then stays ``tf.compat.v1``)."""
    if path == CONSTANT:
        return _constant(call, changes)
    if path in CLASS_VALUES:
        if call.args:
            return None  # dtype=: TF2's class takes none
        changes.append(f"written with TF2's tf.{path} (no dtype: the caller's, float32 by default, as in TF1)")
        return call
    parameters = _RANDOM[path]
    names = [name for name, _ in parameters]
    given: dict[str, cst.Arg] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if index >= len(names):
                return None  # seed or dtype passed by position
            name = names[index]
        else:
            name = arg.keyword.value
            if name not in names or name in given:
                return None  # seed=, dtype=, name=: no TF2 equivalent drawing TF1's values
        given[name] = arg
    args = [_keyword(name, given[name].value) for name in given]  # the call's order
    args += [_keyword(name, cst.parse_expression(default)) for name, default in parameters if name not in given]
    changes.append(f"written with TF2's tf.{path}, TF1's parameters written out ({', '.join(names)}): the same op, the same draw")
    return call.with_changes(args=_commas(args))


def _constant(call: cst.Call, changes: list[str]) -> cst.Call | None:
    if len(call.args) != 1:
        return None
    arg = call.args[0]
    if arg.star or (arg.keyword is not None and arg.keyword.value != "value") or not _float_literal(arg.value):
        return None
    changes.append("written with TF2's tf.constant_initializer (a float value: float32 unless the caller passes a dtype, as in TF1)")
    return call


def _float_literal(expression: cst.BaseExpression) -> bool:
    if isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, (cst.Minus, cst.Plus)):
        expression = expression.expression
    return isinstance(expression, cst.Float)


def _keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    no_space = cst.SimpleWhitespace("")
    return cst.Arg(value=value, keyword=cst.Name(name), equal=cst.AssignEqual(whitespace_before=no_space, whitespace_after=no_space))


def _commas(args: list[cst.Arg]) -> list[cst.Arg]:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [arg.with_changes(comma=comma if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT) for i, arg in enumerate(args)]
