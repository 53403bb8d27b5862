"""``tf.get_collection(TRAINABLE_VARIABLES, scope=...)`` over the variables of the file's
layer helpers: which Keras layers (made once, rewrites/layer_helpers.py) hold them.

In a module whose every variable before the site is made by a layer helper's call
(``fake = generator(noise)``: ``with tf.variable_scope("Generator"): tf.layers.dense(...)``),
TF1's list is a static fact: the helpers' layers in the order their calls made them, each
layer's kernel before its bias, named as TF1 named them (``Generator/dense/kernel:0``,
``Generator/dense_1/kernel:0``: numbered per variable scope and layer kind).  ``scope=`` is
TF1's ``re.match(scope, name)``, evaluated here on those names; a layer is selected whole
(every variable of it) or not at all, else the site is refused.  The list is then
``[v for layer in <layers> for v in layer.trainable_weights]`` (Keras' order: kernel, bias),
computed where the TF1 statement stood: in the step, after the forward pass built the layers.

Only ``name = tf.get_collection(...)`` (or ``tf.trainable_variables()``), a statement of its
own at the top of the module whose name is read only as ``var_list=`` of a train op: read
anywhere else (``len(gen_vars)`` before any layer is built) it would not hold TF1's list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from tf2migrate.analysis.calls import call_argument, calls_in
from tf2migrate.analysis.catalogue import layer_makes_no_variables, makes_variables
from tf2migrate.analysis.layer_helpers import LayerHelperCall
from tf2migrate.analysis.model import Kind, Scope, Statement
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.traversal import preorder

# TF1's base name of each layer that makes trainable variables, and their names in order
# (of the calls this release converts in a layer helper: analysis/layer_signatures.py)
_LAYER_VARIABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "layers.dense": ("dense", ("kernel", "bias")),
    "layers.conv1d": ("conv1d", ("kernel", "bias")),
    "layers.conv2d": ("conv2d", ("kernel", "bias")),
    "layers.conv3d": ("conv3d", ("kernel", "bias")),
    "layers.conv2d_transpose": ("conv2d_transpose", ("kernel", "bias")),
    "layers.conv3d_transpose": ("conv3d_transpose", ("kernel", "bias")),
}
_TRAINABLE_KEYS = frozenset({"GraphKeys.TRAINABLE_VARIABLES"})


@dataclass(frozen=True)
class LayerVariableList:
    """A site written as the trainable weights of these layers: (creating call, layer index)."""

    call: cst.Call
    layers: tuple[tuple[LayerHelperCall, int], ...]
    whole: tuple[LayerHelperCall, ...]  # the creating calls all of whose layers are selected, in order


def layer_variable_list(
    tf: TfImports, module: cst.Module, scope: Scope, statement: Statement, call: cst.Call, name: str
) -> LayerVariableList | None:
    """The layers whose variables the collection ``call`` returned in TF1; None when that is
    not known (the site keeps its refusal)."""
    if not isinstance(scope.owner, cst.Module) or statement.node not in scope.owner.body:
        return None
    node = statement.node
    assign = node.body[0] if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 else None
    if not (isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1):
        return None
    target = assign.targets[0].target
    if not isinstance(target, cst.Name) or not _read_only_as_var_list(module, target.value, assign):
        return None
    known, pattern = _scope_pattern(tf, call, name)
    if not known:
        return None
    creators: list[LayerHelperCall] = []
    for earlier in scope.statements:
        if earlier.order >= statement.order:
            break
        if earlier.layer_calls or earlier.rnn_calls or (earlier.kind is Kind.VARIABLE and not earlier.layer_helper_calls):
            return None  # variables this analysis does not name
        if not earlier.layer_helper_calls and any(makes_variables(tf.call_name(c) or "") for c in calls_in(earlier.node)):
            return None
        for placed in earlier.layer_helper_calls:
            if placed.creator is None:
                if earlier.node not in scope.owner.body:
                    return None  # under a variable scope of the module: a prefix not followed
                creators.append(placed)
    selected: list[tuple[LayerHelperCall, int]] = []
    whole: list[LayerHelperCall] = []
    counts: dict[tuple[str, str], int] = {}
    scopes_seen: set[str] = set()
    for placed in creators:
        helper = _helper_of(placed)
        if helper is None:
            return None
        variable_scope, layers = helper
        if variable_scope in scopes_seen:
            return None  # two calls making layers in one scope: how TF1 numbered the second's not followed
        scopes_seen.add(variable_scope)
        chosen = []
        for index, path in enumerate(layers):
            if path not in _LAYER_VARIABLES:
                if layer_makes_no_variables(path):
                    continue
                return None  # batch normalization (and any other): its variables are not named here
            base, variables = _LAYER_VARIABLES[path]
            number = counts.get((variable_scope, base), 0)
            counts[variable_scope, base] = number + 1
            layer_name = f"{variable_scope}/{base}" + (f"_{number}" if number else "")
            passes = {pattern is None or re.match(pattern, f"{layer_name}/{v}:0") is not None for v in variables}
            if len(passes) != 1:
                return None  # the filter splits a layer
            if passes.pop():
                chosen.append(index)
        with_variables = [i for i, p in enumerate(layers) if p in _LAYER_VARIABLES]
        if chosen and chosen == with_variables:
            whole.append(placed)
        selected += [(placed, i) for i in chosen]
    if not selected:
        return None  # TF1's minimize refused an empty list (no variables to optimize)
    return LayerVariableList(call, tuple(selected), tuple(whole))


def _scope_pattern(tf: TfImports, call: cst.Call, name: str) -> tuple[bool, str | None]:
    """Whether the site's filter is known, and its ``scope=`` regex (None: every variable)."""
    if name == "trainable_variables":
        return not call.args, None
    key = call_argument(call, "key", 0)
    if (
        key is None
        or tf.canonical(key) not in _TRAINABLE_KEYS
        and not (isinstance(key, cst.SimpleString) and key.evaluated_value == "trainable_variables")
    ):
        return False, None
    scope = call_argument(call, "scope", 1)
    if len(call.args) > 2:
        return False, None
    if scope is None:
        return True, None
    value = scope.evaluated_value if isinstance(scope, cst.SimpleString) else None
    if not isinstance(value, str):
        return False, None
    try:
        re.compile(value)
    except re.error:
        return False, None
    return True, value


def _helper_of(placed: LayerHelperCall) -> tuple[str, list[str]] | None:
    """The variable scope name and the layers' TF paths of the helper a creating call applies."""
    helper = placed.helper
    if helper is None or helper.scope is None or helper.named:
        return None
    scope_name = helper.scope_name
    if isinstance(scope_name, cst.Name) and scope_name.value in helper.parameters:
        return None  # a scope given at the call: not followed
    if not isinstance(scope_name, cst.SimpleString) or not isinstance(scope_name.evaluated_value, str):
        return None
    return scope_name.evaluated_value, [path for _, path in helper.layers]


def _read_only_as_var_list(module: cst.Module, name: str, binding: cst.Assign) -> bool:
    """Is ``name`` bound only by ``binding`` and read only as ``var_list=name``?"""
    var_lists: set[int] = set()  # the ``name`` of each ``var_list=name``
    bound: set[int] = set()  # each name an assignment binds
    names: list[cst.Name] = []
    for node in preorder(module):
        if isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value == "var_list":
            var_lists.add(id(node.value))
        elif isinstance(node, cst.AssignTarget):
            bound.add(id(node.target))
        elif isinstance(node, cst.Name) and node.value == name and node is not binding.targets[0].target:
            names.append(node)
    return all(id(node) not in bound and id(node) in var_lists for node in names)
