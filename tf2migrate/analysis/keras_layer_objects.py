"""Keras layer objects the program makes itself and calls in graph code.

``dense = tf.keras.layers.Dense(4)`` then ``t = dense(x)``: in TF1 the constructor made an
object without variables, and its first call, while the graph was built, made them.  That
is the shape rewrites/keras_layers.py gives ``tf.layers.dense(x, 4)``: the layer object
made where the statement stood, called in the generated function, whose first trace makes
the variables once (a train step's tape watches them).  So a call of such an object in
graph-building code is traced where TF1 built it, not a Python call run anew each time.

Proven only when the object cannot be seen other than through those calls, and computes
what TF1's did:

- the name is bound once, in the graph's scope, to ``tf.keras.layers.<Class>(...)`` of a
  layer that computes the same in TF1 graphs and TF2 functions (dense, convolution,
  pooling, flatten: no training-dependent behaviour like dropout's or batch
  normalization's), with keywords among those that only shape its computation (no
  ``trainable=False``, which a tape would not honour, no regularizers or constraints,
  which TF1 collected elsewhere);
- every other mention of the name in the file is a call of it (``dense.kernel`` or
  ``dense.weights`` read before the first trace would find the layer unbuilt);
- the file computes in float32 only (analysis/layer_dtypes.py): a TF1 Keras layer took
  a float64 input's dtype, a TF2 one casts it down to float32.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.layer_dtypes import layer_dtype
from tf2migrate.analysis.model import Scope
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.traversal import find_all

# Keras classes (by their name under ``tf``) whose call computes the same in a TF1 graph
# and a TF2 function, and the keywords their constructor may take
_CONV = frozenset({"filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate"})
_WEIGHTED = frozenset({"activation", "use_bias", "kernel_initializer", "bias_initializer", "name"})
_POOL = frozenset({"pool_size", "strides", "padding", "data_format", "name"})
LAYER_OBJECT_CLASSES = {
    "keras.layers.Dense": frozenset({"units"}) | _WEIGHTED,
    "keras.layers.Conv1D": _CONV | _WEIGHTED,
    "keras.layers.Conv2D": _CONV | _WEIGHTED,
    "keras.layers.Conv3D": _CONV | _WEIGHTED,
    "keras.layers.Conv2DTranspose": _CONV | _WEIGHTED,
    "keras.layers.MaxPooling1D": _POOL,
    "keras.layers.MaxPooling2D": _POOL,
    "keras.layers.MaxPool2D": _POOL,
    "keras.layers.AveragePooling2D": _POOL,
    "keras.layers.Flatten": frozenset({"data_format", "name"}),
}


def layer_object_call(module: cst.Module, tf: TfImports, scope: Scope, call: cst.Call, order: int) -> str | None:
    """For a call ``f(...)`` in graph code whose ``f`` the scope binds to a Keras layer
    object: ``""`` when the call is traced where TF1 built it (see the module docstring),
    else why not.  None when ``f`` is no such object."""
    if not isinstance(call.func, cst.Name):
        return None
    name = call.func.value
    binding = scope.resolve(name, order)
    if binding is None or not isinstance(binding.node, cst.SimpleStatementLine) or len(binding.node.body) != 1:
        return None
    assign = binding.node.body[0]
    if not (isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call)):
        return None
    path = tf.call_name(assign.value)
    if path is None or not path.startswith("keras.layers."):
        return None
    what = f"`{name}` is a Keras layer object (`tf.{path}`) called in graph-building code"
    allowed = LAYER_OBJECT_CLASSES.get(path)
    if allowed is None:
        return f"{what}; only dense, convolution, pooling and flatten layers are converted"
    if len(assign.targets) != 1 or not m.matches(assign.targets[0].target, m.Name(name)):
        return f"{what}, bound with other names"
    if len(scope.bindings.get(name, ())) != 1 or name in scope.nested_bindings:
        return f"{what}, bound more than once"
    other = [a for a in assign.value.args if a.keyword is not None and a.keyword.value not in allowed or a.star]
    if other:
        return f"{what} with `{cst.Module([]).code_for_node(other[0]).strip(', ')}`, which this release does not carry into TF2"
    if not _mentioned_only_by_calls(module, name, assign.targets[0].target):
        return f"{what} and used otherwise: its variables are made only by its first call, at the first trace"
    dtype = layer_dtype(module, tf)
    if dtype is not None:
        return f"{what}, and the file does not compute in float32 only: a TF1 layer took its input's dtype, a TF2 one casts it to float32"
    return ""


def _mentioned_only_by_calls(module: cst.Module, name: str, target: cst.BaseExpression) -> bool:
    """Is every ``Name`` of that spelling the binding's target, a callee, an attribute's
    or a keyword's name (another namespace)?"""
    callees = {id(c.func) for c in find_all(module, cst.Call) if isinstance(c, cst.Call)}
    other_namespaces = {id(a.attr) for a in find_all(module, cst.Attribute) if isinstance(a, cst.Attribute)}
    other_namespaces |= {id(a.keyword) for a in find_all(module, cst.Arg) if isinstance(a, cst.Arg) and a.keyword is not None}
    return all(n is target or id(n) in callees or id(n) in other_namespaces for n in find_all(module, m.Name(name)))
