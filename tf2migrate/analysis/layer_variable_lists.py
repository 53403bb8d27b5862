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

The same holds of ``tf.layers`` calls in the module's own graph code (rewrites/keras_layers.py:
each a Keras layer made once), under ``with tf.variable_scope("literal")`` blocks::

    with tf.variable_scope("Generator"):
        G_out = tf.layers.dense(tf.layers.dense(G_in, 128, tf.nn.relu), 15)   # Generator/dense, dense_1
    with tf.variable_scope("Discriminator"):
        D_l0 = tf.layers.dense(real_art, 128, tf.nn.relu, name="l")          # Discriminator/l
        D_l1 = tf.layers.dense(G_out, 128, tf.nn.relu, name="l", reuse=True) # makes none

A layer named by ``name=`` is that name under the scopes; an unnamed one TF1 numbered per
full scope name and layer kind (``dense``, ``dense_1``), as ``variable_scope(None,
default_name="dense")`` did; a call reusing an earlier layer (analysis/layer_reuse.py) makes no
variables.  A ``name=`` that is a layer kind's default name (``dense``, ``dense_2``) would take
part in that numbering: refused, as are layers of both kinds (helpers' and the graph's) before
one site.

Only ``name = tf.get_collection(...)`` (or ``tf.trainable_variables()``), a statement of its
own at the top of the module whose name is read only as ``var_list=`` of a train op, or the
``var_list=`` of a train op itself (``opt.minimize(loss, var_list=tf.get_collection(...))``):
read anywhere else (``len(gen_vars)`` before any layer is built) it would not hold TF1's list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from tf2migrate.analysis.calls import call_argument, calls_in
from tf2migrate.analysis.catalogue import layer_makes_no_variables, makes_variables
from tf2migrate.analysis.layer_helpers import LayerHelperCall
from tf2migrate.analysis.layer_reuse import enclosing_withs, layer_arguments, reused_layer_call, variable_scopes
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
    # its trainable variables (the moving statistics are not): gamma before beta, in TF1 as in
    # Keras' trainable_weights; without ``scale=``/``center=`` one of them is missing, so a
    # filter telling the two apart is refused as splitting the layer
    "layers.batch_normalization": ("batch_normalization", ("gamma", "beta")),
}
_TRAINABLE_KEYS = frozenset({"GraphKeys.TRAINABLE_VARIABLES"})
# a name TF1's numbering of unnamed layers gives (``dense``, ``conv2d_3``)
_DEFAULT_LAYER_NAME = re.compile("(?:{})(?:_[0-9]+)?".format("|".join(sorted({b for b, _ in _LAYER_VARIABLES.values()}))))


@dataclass(frozen=True)
class LayerVariableList:
    """A site written as the trainable weights of these layers: (creating call, layer index)."""

    call: cst.Call
    layers: tuple[tuple[LayerHelperCall, int], ...]
    whole: tuple[LayerHelperCall, ...]  # the creating calls all of whose layers are selected, in order
    # the graph's own ``tf.layers`` calls selected: (the statement's order, the call's index
    # among its layer calls, the call), in the order TF1 made their variables
    graph_layers: tuple[tuple[int, int, cst.Call], ...] = ()


def layer_variable_list(
    tf: TfImports, module: cst.Module, scope: Scope, statement: Statement, call: cst.Call, name: str
) -> LayerVariableList | None:
    """The layers whose variables the collection ``call`` returned in TF1; None when that is
    not known (the site keeps its refusal)."""
    if not isinstance(scope.owner, cst.Module) or statement.node not in scope.owner.body:
        return None
    if not _var_list_site(module, statement, call):
        return None
    known, pattern = _scope_pattern(tf, call, name)
    if not known:
        return None
    creators: list[LayerHelperCall] = []
    graph_layer_statements: list[Statement] = []
    for earlier in scope.statements:
        if earlier.order >= statement.order:
            break
        if earlier.layer_calls:
            graph_layer_statements.append(earlier)
            if any(
                makes_variables(tf.call_name(c) or "") for c in calls_in(earlier.node) if all(c is not lc for lc in earlier.layer_calls)
            ):
                return None  # variables besides the layers'
            continue
        if earlier.rnn_calls or (earlier.kind is Kind.VARIABLE and not earlier.layer_helper_calls):
            return None  # variables this analysis does not name
        if not earlier.layer_helper_calls and any(makes_variables(tf.call_name(c) or "") for c in calls_in(earlier.node)):
            return None
        for placed in earlier.layer_helper_calls:
            if placed.creator is None:
                if earlier.node not in scope.owner.body:
                    return None  # under a variable scope of the module: a prefix not followed
                creators.append(placed)
    if graph_layer_statements:
        if creators:
            return None  # layers of helpers and of the graph: how TF1 numbered them together not followed
        return _graph_layer_list(module, tf, scope, graph_layer_statements, call, pattern)
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
                return None  # any other: its variables are not named here
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


def _graph_layer_list(
    module: cst.Module, tf: TfImports, scope: Scope, statements: list[Statement], call: cst.Call, pattern: str | None
) -> LayerVariableList | None:
    """The list over the graph's own layer calls, each named as TF1 named it; None when a
    name is not known or the filter splits a layer."""
    withs = enclosing_withs(scope)
    counts: dict[tuple[tuple[str, ...], str], int] = {}
    selected: list[tuple[int, int, cst.Call]] = []
    for statement in statements:
        for index, layer_call in enumerate(statement.layer_calls):
            path = tf.call_name(layer_call) or ""
            reused = reused_layer_call(module, tf, scope, withs, statement, layer_call)
            if isinstance(reused, str):
                return None
            if reused is not None:
                continue  # the variables of an earlier call, already listed
            if path not in _LAYER_VARIABLES:
                if layer_makes_no_variables(path):
                    continue
                return None  # any other: its variables are not named here
            scopes = variable_scopes(tf, withs, statement)
            arguments = layer_arguments(tf, layer_call)
            if scopes is None or arguments is None:
                return None
            base, variables = _LAYER_VARIABLES[path]
            given = arguments.get("name")
            if given is not None:
                text = given.value.evaluated_value if isinstance(given.value, cst.SimpleString) else None
                if not isinstance(text, str) or _DEFAULT_LAYER_NAME.fullmatch(text):
                    return None  # not written out, or a default name TF1's numbering would also give
                layer_name = "/".join((*scopes, text))
            else:
                number = counts.get((scopes, base), 0)
                counts[scopes, base] = number + 1
                layer_name = "/".join((*scopes, base + (f"_{number}" if number else "")))
            passes = {pattern is None or re.match(pattern, f"{layer_name}/{v}:0") is not None for v in variables}
            if len(passes) != 1:
                return None  # the filter splits a layer
            if passes.pop():
                selected.append((statement.order, index, layer_call))
    if not selected:
        return None  # TF1's minimize refused an empty list (no variables to optimize)
    return LayerVariableList(call, (), (), tuple(selected))


def _var_list_site(module: cst.Module, statement: Statement, call: cst.Call) -> bool:
    """Is ``call`` the ``var_list=`` of the statement's train op, or the value of ``name =
    call`` whose name is read only as ``var_list=`` (the list is computed in the train step,
    after the forward pass built the layers)?"""
    node = statement.node
    if any(
        isinstance(c.func, cst.Attribute) and c.func.attr.value == "minimize" and call_argument(c, "var_list", 2) is call
        for c in calls_in(node)
    ):
        return True
    assign = node.body[0] if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 else None
    if not (isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1):
        return False
    target = assign.targets[0].target
    return isinstance(target, cst.Name) and _read_only_as_var_list(module, target.value, assign)


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
