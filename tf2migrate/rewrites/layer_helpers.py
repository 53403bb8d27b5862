"""A function of the file that builds a network with ``tf.layers`` → one that applies
Keras layers it is given, made once where TF1 made their variables.

``def conv_net(x, ..., reuse, is_training): with tf.variable_scope('ConvNet',
reuse=reuse): ... tf.layers.conv2d(x, 32, 5) ...`` becomes ``def conv_net(x, ..., *,
keras_layers): ... keras_layers[0](x) ...``, next to ``make_conv_net_layers(...)``
returning ``[tf.keras.layers.Conv2D(filters=32, kernel_size=5), ...]``.  The call that
made the variables in TF1 is preceded by ``conv_net_layers = make_conv_net_layers(...)``
(kept where it stood, run once) and passes ``keras_layers=conv_net_layers``; a call that
reused them passes the same list.  Keras builds each layer's variables at its first call,
in the order TF1 made them (kernel, then bias), with TF1's default initializers (Glorot
uniform kernels, zero biases; batch normalization's ones and zeros).  Which call makes
and which reuses is decided by analysis/layer_helpers.py; the variable scope, which only
named and shared the variables, goes away.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.layer_dtypes import is_reason, layer_dtype
from tf2migrate.analysis.layer_helpers import FLATTEN_CALLS, LayerHelper
from tf2migrate.analysis.layer_variable_lists import LayerVariableList
from tf2migrate.analysis.layer_signatures import CALL_TIME, HELPER_LAYER_CLASSES
from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.names import created_name, fresh_name, function_facts
from tf2migrate.plan import Plan
from tf2migrate.rewrites import tf1_batch_norm
from tf2migrate.rewrites.keras_layers import (
    BATCH_NORM_UPDATES,
    LAYERS_TO_KERAS,
    fused_dtype_message,
    layer_dtype_message,
    write_variable_list,
)
from tf2migrate.rewrites.tf_names import name_normalizer

# TF1's functional dropout and batch normalization default to training=False; Keras' to None
_TRAINING_FALSE_BY_DEFAULT = frozenset({"layers.dropout", "layers.batch_normalization"})


def plan_layer_helpers(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str], batch_norm_fused: bool = False) -> None:
    """``batch_norm_fused``: a batch normalization with a fed flag may have run TF1's fused kernel
    (rewrites/update_ops.py proved their updates, not their input of rank 2): of float32 only."""
    if not facts.layer_helpers:
        return
    dtype = layer_dtype(module, facts.imports)
    layer_lists: dict[int, str] = {}  # by id of each creating call site: the name of its layers
    for helper in facts.layer_helpers:
        if is_reason(dtype):
            call, path = helper.layers[0]
            facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, layer_dtype_message(path, dtype))
            continue
        _plan_helper(module, facts, plan, helper, names_in_use, dtype, layer_lists, batch_norm_fused)
    for listed in facts.layer_variable_lists:
        if any(id(placed) not in layer_lists for placed, _ in listed.layers):
            continue  # a helper kept on TF1 above (its layers' float type): the list stays with it
        write_variable_list(module, plan, listed.call, _trainable_weights(listed, layer_lists))


def _trainable_weights(listed: LayerVariableList, layer_lists: dict[int, str]) -> str:
    """The variables of the selected layers, in TF1's order: ``[v for layer in generator_layers
    for v in layer.trainable_weights]``."""
    creators = list(dict.fromkeys(id(placed) for placed, _ in listed.layers))
    if len(creators) == 1 and len(listed.whole) == 1:
        return f"[v for layer in {layer_lists[creators[0]]} for v in layer.trainable_weights]"
    layers = ", ".join(f"{layer_lists[id(placed)]}[{index}]" for placed, index in listed.layers)
    return f"[v for layer in [{layers}] for v in layer.trainable_weights]"


def _plan_helper(
    module: cst.Module,
    facts: GraphFacts,
    plan: Plan,
    helper: LayerHelper,
    names_in_use: set[str],
    dtype: str | None,
    layer_lists: dict[int, str],
    batch_norm_fused: bool,
) -> None:
    code = module.code_for_node
    normalizer = name_normalizer(plan, facts.imports)
    own = function_facts(helper.node)
    argument = fresh_name("keras_layers", {*helper.parameters, *own.reads, *own.binds})
    factory = fresh_name(f"make_{helper.name}_layers", names_in_use)
    constructors = []
    for index, (call, path) in enumerate(helper.layers):
        keras_class, parameters = HELPER_LAYER_CLASSES[path]
        bound = bind_arguments(call, ("inputs", *parameters))
        assert bound is not None  # analysis/layer_helpers.py refused any other call
        made_with = [] if path in FLATTEN_CALLS else [(k, a) for k, a in bound.items() if k != "inputs" and k not in CALL_TIME]
        given = [f"{k}={_normalized(module, a.value, normalizer)}" for k, a in made_with]
        if dtype is not None:
            given.append(f'dtype="{dtype}"')  # TF1's layer followed its float64 input
        training = bound.get("training")
        made_by = f"tf.keras.layers.{keras_class}"
        if path == "layers.batch_normalization" and training is not None and code(training.value) not in ("True", "False"):
            # a fed flag (proven by rewrites/update_ops.py): TF1's ops and update of the moving statistics
            if batch_norm_fused and dtype is not None:
                facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, fused_dtype_message(dtype))
                return
            made_by = tf1_batch_norm.layer_class(module, facts, plan, names_in_use)
        constructors.append(f"{made_by}({', '.join(given)})")
        plan.call_replacements[id(call)] = _applied(module, argument, index, call, path, bound)
        plan.note(call, LAYERS_TO_KERAS.code, f"tf.{path} → {made_by}, made once by `{factory}` and passed to `{helper.name}`")
        if path == "layers.batch_normalization" and training is not None and code(training.value) != "False":
            plan.note(call, BATCH_NORM_UPDATES.code, "moving mean/variance now update whenever the layer runs with training=True")
    items = "".join(f"        {c},\n" for c in constructors)
    definition = cst.parse_statement(
        f"def {factory}({', '.join(helper.made_from)}):\n"
        f'    """The Keras layers `{helper.name}` applies, in the order of its TF1 layers: made once, where TF1 made '
        'their variables."""\n'
        f"    return [\n{items}    ]\n",
        config=module.config_for_parsing,
    ).with_changes(leading_lines=[cst.EmptyLine(indent=False)] * 2)
    plan.add_after(helper.node, [definition])
    plan.generated[id(definition)] = definition

    def takes_layers(updated: cst.FunctionDef) -> cst.FunctionDef:
        params = updated.params
        return updated.with_changes(
            params=params.with_changes(star_arg=cst.ParamStar(), kwonly_params=[*params.kwonly_params, cst.Param(cst.Name(argument))])
        )

    plan.replace[id(helper.node)] = takes_layers
    if helper.scope is not None:
        plan.unwrap.add(id(helper.scope))
    if helper.reuse_switch is not None:
        plan.remove.add(id(helper.reuse_switch))  # ``if reuse: scope.reuse_variables()``: the scope goes
    for site in helper.calls.values():
        if site.creator is None:
            name = created_name(f"{helper.name}_layers", site.scope.cls is not None, names_in_use)
            layer_lists[id(site)] = name
            arguments = ", ".join(f"{p}={_normalized(module, e, normalizer)}" for p, e in site.made_from.items())
            plan.create_before(module, site.statement, name, f"{factory}({arguments})")
        layers = layer_lists[id(site.creator if site.creator is not None else site)]
        plan.call_replacements[id(site.call)] = _passing(argument, layers)


def _applied(module: cst.Module, argument: str, index: int, call: cst.Call, path: str, bound: dict[str, cst.Arg]):
    """The layer call in the helper: ``keras_layers[i](inputs, training=...)``."""
    inputs = next(i for i, a in enumerate(call.args) if a is bound["inputs"])
    training = next((i for i, a in enumerate(call.args) if a is bound.get("training")), None)

    def apply(updated: cst.Call) -> cst.BaseExpression:
        parts = [module.code_for_node(updated.args[inputs].value)]
        flag = updated.args[training].value if training is not None else None
        if path == "layers.batch_normalization" and isinstance(flag, cst.Name) and flag.value not in ("True", "False"):
            # a fed flag (analysis/layer_helpers.py accepted it only when proven): a tensor here,
            # so TF1's choice in the graph becomes tf.cond, as for the top level (rewrites/keras_layers.py)
            layer = f"{argument}[{index}]"
            return cst.parse_expression(
                f"tf.cond({flag.value}, lambda: {layer}({parts[0]}, training=True), lambda: {layer}({parts[0]}, training=False))"
            )
        if training is not None:
            parts.append(f"training={module.code_for_node(updated.args[training].value)}")
        elif path in _TRAINING_FALSE_BY_DEFAULT:
            parts.append("training=False")  # TF1's default; Keras' differs
        return cst.parse_expression(f"{argument}[{index}]({', '.join(parts)})")

    return apply


def _passing(argument: str, layers: str):
    def pass_layers(updated: cst.Call) -> cst.BaseExpression:
        equal = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
        return updated.with_changes(args=[*updated.args, cst.Arg(cst.parse_expression(layers), keyword=cst.Name(argument), equal=equal)])

    return pass_layers


def _normalized(module: cst.Module, expression: cst.BaseExpression, normalizer) -> str:
    """The code of the expression with its TF names in their TF2 form."""
    node = expression.visit(normalizer)
    assert isinstance(node, cst.BaseExpression)  # the renamer replaces names by names
    return module.code_for_node(node)
