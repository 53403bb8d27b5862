"""Layer helpers: functions of the file that build a network from TF1 functional layers.

Tutorial and GAN code keeps its network in a function called once per input, the
variables shared by scope name::

    def conv_net(x, n_classes, dropout, reuse, is_training):
        with tf.variable_scope('ConvNet', reuse=reuse):
            x = tf.layers.conv2d(x, 32, 5, activation=tf.nn.relu)
            ...
            out = tf.layers.dense(x, n_classes)
        return out

    logits_train = conv_net(X, n_classes, dropout, reuse=False, is_training=True)
    logits_test = conv_net(X, n_classes, dropout, reuse=True, is_training=False)

TF1 made the layers' variables at the first call and handed the same ones back to the
second (``reuse=True``).  Converted, the helper takes its Keras layers as an argument
and the layers are made once, where the creating call stood (rewrites/layer_helpers.py);
a reusing call applies the same layer objects.  Which call creates and which reuses is
read from the call sites, so it must be certain: the scope name and ``reuse=`` are
literals at every call (or the helper's defaults), every constructor argument of a layer
is a parameter bound to a Python value or a module name, and the helper is used nowhere
but at those calls.  Anything else keeps the graph on TF1 (TFM304) with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.calls import bind_arguments, calls_in
from tf2migrate.analysis.catalogue import KERAS_LAYERS
from tf2migrate.analysis.layer_signatures import CALL_TIME, frozen_weights_message, HELPER_LAYER_CLASSES, UNSUPPORTED
from tf2migrate.analysis.model import Kind, Scope, Statement
from tf2migrate.analysis.names import function_facts, read_and_bound
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.traversal import find_all

FLATTEN_CALLS = frozenset(HELPER_LAYER_CLASSES) - KERAS_LAYERS
LAYER_PATHS = frozenset(HELPER_LAYER_CLASSES)
_SCOPE_ARGUMENTS = (
    "name_or_scope",
    "default_name",
    "values",
    "initializer",
    "regularizer",
    "caching_device",
    "partitioner",
    "custom_getter",
    "reuse",
)
_AUTO_REUSE = "AUTO_REUSE"


@dataclass
class LayerHelper:
    """A function of the file whose only variables are those of its tf.layers calls."""

    name: str
    node: cst.FunctionDef
    layers: tuple[tuple[cst.Call, str], ...]  # each call and its TF path, in the order of the body
    scope: cst.With | None  # ``with tf.variable_scope(name, reuse=...):`` around them, opened up when converted
    scope_name: cst.BaseExpression | None
    reuse: cst.BaseExpression | None
    parameters: tuple[str, ...]  # every parameter, in order
    made_from: tuple[str, ...]  # the parameters the layers' constructor arguments read
    named: bool  # a layer has ``name=``: TF1 refused to make it twice in one scope
    # ``if reuse: scope.reuse_variables()`` opening the scope's body (``reuse`` a parameter), removed when converted
    reuse_switch: cst.If | None = None
    calls: dict[int, LayerHelperCall] = field(default_factory=dict)  # the accepted call sites, by id of the call


@dataclass
class LayerHelperCall:
    call: cst.Call
    statement: Statement
    scope: Scope
    creator: LayerHelperCall | None  # the call whose layers this one applies (None: it makes them)
    made_from: dict[str, cst.BaseExpression]  # the constructor parameters' arguments at this call
    helper: LayerHelper | None = field(default=None, repr=False, compare=False)  # whose call it is


def find_layer_helper(tf: TfImports, name: str, node: cst.FunctionDef, creates, fed_batch_norm: bool = False) -> LayerHelper | str | None:
    """The layer helper ``node`` is, or why it is not one (a refusal for its call sites);
    None for a function calling no TF1 layer.  ``creates(call)``: does a call of the body
    make variables (a TF call, a helper of the file, an imported one)?  ``fed_batch_norm``:
    the file's batch normalizations with a fed flag are proven to update as Keras' do
    (rewrites/update_ops.py): their ``training=`` may be a parameter, which each call
    site must then bind to a proven flag (place_call)."""
    facts = function_facts(node)
    layer_calls = [(c, p) for c in facts.calls if (p := tf.call_name(c)) in LAYER_PATHS]
    if not any(p in KERAS_LAYERS for _, p in layer_calls):
        return None
    layer_ids = {id(c) for c, _ in layer_calls}
    made_elsewhere = next((c for c in facts.calls if id(c) not in layer_ids and creates(c)), None)
    if made_elsewhere is not None:
        return f"`{name}` also creates variables other than by tf.layers calls (`{_code(made_elsewhere.func)}(...)`)"
    params = node.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None or params.posonly_params:
        return f"`{name}` takes *args, **kwargs or positional-only parameters"
    parameters = tuple(p.name.value for p in (*params.params, *params.kwonly_params))
    if not isinstance(node.body, cst.IndentedBlock):
        return f"`{name}` is written on one line"
    body = [s for s in node.body.body if not _is_docstring(s)]
    scopes = [s for s in body if isinstance(s, cst.With)]
    others = [s for s in body if not isinstance(s, (cst.SimpleStatementLine, cst.With))]
    scope = scopes[0] if len(scopes) == 1 else None
    switch = _reuse_switch(scope, parameters) if scope is not None else None
    if others or len(scopes) > 1 or (scope is not None and not _simple_block(scope, switch)):
        return f"`{name}` calls its layers in a loop, a branch or nested blocks: which layers each call makes is not followed"
    scope_name = reuse = None
    if scope is not None:
        item = scope.items[0].item if len(scope.items) == 1 and (scope.items[0].asname is None or switch is not None) else None
        if not (isinstance(item, cst.Call) and tf.call_name(item) == "variable_scope"):
            return f"`{name}` calls its layers under a `with` other than `tf.variable_scope(name, reuse=...)`"
        bound = bind_arguments(item, _SCOPE_ARGUMENTS)
        if bound is None or set(bound) - {"name_or_scope", "reuse"} or "name_or_scope" not in bound:
            return f"`{name}` opens a `tf.variable_scope` with more than a name and `reuse=`, which changes the variables its layers make"
        scope_name = bound["name_or_scope"].value
        reuse = bound["reuse"].value if "reuse" in bound else None
        if switch is not None:
            if reuse is not None:
                return f"`{name}` asks for reuse both by `reuse=` and by `reuse_variables()`"
            reuse = cst.ensure_type(switch.test, cst.Name)  # ``if reuse: scope.reuse_variables()``: reuse=reuse
        for what, expression in (("name", scope_name), ("reuse=", reuse)):
            if expression is not None and not (
                _literal(tf, expression) or m.matches(expression, m.Name(m.MatchIfTrue(parameters.__contains__)))
            ):
                return f"the variable scope's {what} in `{name}` is neither a literal nor a parameter"
    locals_ = set(facts.binds) - set(parameters)
    lines = [s for s in body if s is not scope] + (list(cst.ensure_type(scope.body, cst.IndentedBlock).body) if scope is not None else [])
    made_from: dict[str, None] = {}
    for call, path in layer_calls:
        statement = next(s for s in lines if any(c is call for c in calls_in(s)))
        if find_all(statement, (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp)):
            return f"`{name}` calls tf.{path} in a statement with a lambda or comprehension"
        bound = bind_arguments(call, ("inputs", *HELPER_LAYER_CLASSES[path][1]))
        if bound is None or "inputs" not in bound or set(bound) - {"inputs", *HELPER_LAYER_CLASSES[path][1]}:
            return f"tf.{path} in `{name}` is called with *args, **kwargs, unknown arguments or no input"
        unsupported = sorted(UNSUPPORTED & bound.keys()) or (sorted(set(bound) - {"inputs"}) if path in FLATTEN_CALLS else [])
        if unsupported:
            return f"`{unsupported[0]}=` of tf.{path} in `{name}` is not converted"
        frozen = frozen_weights_message(path, bound)
        if frozen is not None:
            return f"in `{name}`: {frozen}"
        training = bound.get("training")
        if (
            path == "layers.batch_normalization"
            and training is not None
            and not m.matches(training.value, m.Name("True") | m.Name("False"))
            and not (fed_batch_norm and m.matches(training.value, m.Name(m.MatchIfTrue(parameters.__contains__))))
        ):
            return (
                f"`training=` of tf.layers.batch_normalization in `{name}` is not a literal: TF1 updated the moving "
                "statistics only when UPDATE_OPS ran, Keras on every training call"
            )
        for keyword, arg in bound.items():
            read = [n for n in read_and_bound(arg.value)[0] if "." not in n]
            computed = next((n for n in read if n in locals_), None)
            if keyword == "inputs":
                continue
            if computed is not None and keyword in CALL_TIME:
                return f"`{keyword}=` of tf.{path} in `{name}` reads `{computed}`, computed in the helper: Keras layers take a Python bool"
            if computed is not None:
                return f"`{keyword}=` of tf.{path} in `{name}` reads `{computed}`, computed in the helper: the layer is made before the helper runs"
            if keyword not in CALL_TIME:
                made_from.update((n, None) for n in read if n in parameters)
    named = any(a.keyword is not None and a.keyword.value == "name" for c, _ in layer_calls for a in c.args)
    return LayerHelper(
        name,
        node,
        tuple(layer_calls),
        scope,
        scope_name,
        reuse,
        parameters,
        tuple(p for p in parameters if p in made_from),
        named,
        switch,
    )


def place_call(
    tf: TfImports,
    helper: LayerHelper,
    call: cst.Call,
    statement: Statement,
    scope: Scope,
    made: dict,
    batch_norm_flags: frozenset[str] = frozenset(),
) -> LayerHelperCall | str:
    """Which layers a call site of the helper applies: new ones (its statement makes them)
    or those of an earlier call of the same variable scope; or why that is not known.
    ``made``: the creating calls so far, by (graph scope, helper, variable scope name);
    ``batch_norm_flags``: the fed flags a parameter read only as ``training=`` of batch
    normalizations may be bound to (rewrites/update_ops.py proved their updates)."""
    name = helper.name
    if not isinstance(statement.node, cst.SimpleStatementLine) or len(statement.node.body) != 1:
        return f"`{name}(...)` is called in a compound statement or with other statements on its line"
    bound = bind_arguments(call, helper.parameters)
    if bound is None or set(bound) - set(helper.parameters):
        return f"the call of `{name}` passes *args, **kwargs or unknown arguments"
    arguments = {p: a.value for p, a in bound.items()}
    defaults = {p.name.value: p.default for p in (*helper.node.params.params, *helper.node.params.kwonly_params) if p.default is not None}

    def value(expression: cst.BaseExpression | None) -> cst.BaseExpression | None:
        """The expression at this call, a parameter replaced by its argument or default."""
        if isinstance(expression, cst.Name) and expression.value in helper.parameters:
            return arguments.get(expression.value, defaults.get(expression.value))
        return expression

    for parameter, argument in arguments.items():
        if _fed_batch_norm_flag(helper, parameter, argument, batch_norm_flags):
            continue  # a tensor in the function: the layers apply it under tf.cond (rewrites/layer_helpers.py)
        if parameter in helper.made_from or _is_training(helper, parameter) or _steers_scope(helper, parameter):
            tensor = next((n for n in read_and_bound(argument)[0] if _graph_value(scope, n, statement.order)), None)
            if tensor is not None:
                return (
                    f"`{parameter}` of `{name}(...)` is `{_code(argument)}`, which reads the graph value `{tensor}`: "
                    "the layers are made once, from Python values"
                )
    scope_name = value(helper.scope_name)
    reuse = value(helper.reuse)
    if helper.scope is not None and not isinstance(scope_name, cst.SimpleString):
        return f"the variable scope of `{name}(...)` is not a string literal at this call"
    if reuse is not None and not _literal(tf, reuse):
        return f"`reuse=` of `{name}(...)` is `{_code(reuse)}`, not a literal: which calls share the layers is not known"
    if helper.reuse_switch is not None and reuse is not None and not m.matches(reuse, m.Name("True") | m.Name("False") | m.Name("None")):
        # ``if reuse: scope.reuse_variables()`` tests its truth: a string or AUTO_REUSE is reuse=True
        return f"`{_code(helper.reuse_switch.test)}` of `{name}(...)` is `{_code(reuse)}`, not True, False or None"
    key = (id(scope), name, scope_name.evaluated_value if isinstance(scope_name, cst.SimpleString) else None)
    earlier: LayerHelperCall | None = made.get(key)
    auto = reuse is not None and tf.canonical(reuse) == _AUTO_REUSE
    reusing = auto or (reuse is not None and m.matches(reuse, m.Name("True")))
    if reusing and earlier is None and not auto:
        return f"`{name}(...)` reuses variables no earlier call of this graph made (TF1 raised a ValueError)"
    if not reusing and earlier is not None and (helper.scope is not None or helper.named):
        return f"`{name}(...)` makes the variables of an earlier call again under the same names (TF1 raised a ValueError)"
    made_from = {p: e for p in helper.made_from if (e := value(cst.Name(p))) is not None}
    creator = earlier if reusing else None
    if creator is not None:
        differing = next((p for p in helper.made_from if _code_or_none(made_from.get(p)) != _code_or_none(creator.made_from.get(p))), None)
        if differing is not None:
            return (
                f"`{name}(...)` reuses the layers of an earlier call with another `{differing}`: TF1 took the "
                "variables, this call's own arguments for the rest, which shared Keras layers cannot"
            )
    placed = LayerHelperCall(call, statement, scope, creator, made_from, helper)
    if creator is None:
        made[key] = placed
    return placed


def _is_training(helper: LayerHelper, parameter: str) -> bool:
    return any(
        a.keyword is not None and a.keyword.value == "training" and parameter in read_and_bound(a.value)[0]
        for call, _ in helper.layers
        for a in call.args
    )


def _fed_batch_norm_flag(helper: LayerHelper, parameter: str, argument: cst.BaseExpression, flags: frozenset[str]) -> bool:
    """Is ``parameter`` bound to a proven flag, and read in the helper only as the whole
    ``training=`` of its batch normalizations?"""
    if not (isinstance(argument, cst.Name) and argument.value in flags):
        return False
    keywords = {id(a.keyword) for a in find_all(helper.node.body, cst.Arg) if isinstance(a, cst.Arg) and a.keyword is not None}
    reads = [n for n in find_all(helper.node.body, cst.Name) if isinstance(n, cst.Name) and n.value == parameter and id(n) not in keywords]
    trainings = [
        a.value
        for call, path in helper.layers
        if path == "layers.batch_normalization"
        for a in call.args
        if a.keyword is not None and a.keyword.value == "training" and m.matches(a.value, m.Name(parameter))
    ]
    return bool(trainings) and len(reads) == len(trainings)


def _steers_scope(helper: LayerHelper, parameter: str) -> bool:
    return any(m.matches(e, m.Name(parameter)) for e in (helper.scope_name, helper.reuse) if e is not None)


def _graph_value(scope: Scope, name: str, order: int) -> bool:
    found = scope.graph_statement(name, order)
    return found is not None and found.kind in (Kind.PLACEHOLDER, Kind.TENSOR, Kind.GRADS, Kind.VARIABLE)


def _literal(tf: TfImports, expression: cst.BaseExpression) -> bool:
    return m.matches(expression, m.Name("True") | m.Name("False") | m.Name("None") | m.SimpleString()) or (
        tf.canonical(expression) == _AUTO_REUSE
    )


def _simple_block(scope: cst.With, switch: cst.If | None) -> bool:
    return isinstance(scope.body, cst.IndentedBlock) and all(isinstance(s, cst.SimpleStatementLine) or s is switch for s in scope.body.body)


def _reuse_switch(scope: cst.With, parameters: tuple[str, ...]) -> cst.If | None:
    """``with tf.variable_scope(name) as scope:`` opened by ``if reuse:
    scope.reuse_variables()`` (``reuse`` a parameter; no ``else``; ``scope`` read nowhere
    else in the block): TF1's ``reuse=reuse`` written another way (from then on the scope
    reuses, which is the whole block).  None for any other block."""
    target = scope.items[0].asname.name if len(scope.items) == 1 and scope.items[0].asname is not None else None
    body = scope.body.body if isinstance(scope.body, cst.IndentedBlock) else ()
    first = body[0] if body else None
    switch = m.If(
        test=m.Name(m.MatchIfTrue(parameters.__contains__)),
        body=m.IndentedBlock(
            body=[m.SimpleStatementLine(body=[m.Expr(m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("reuse_variables")), args=[]))])]
        ),
        orelse=None,
    )
    if not isinstance(target, cst.Name) or not isinstance(first, cst.If) or not m.matches(first, switch):
        return None
    reads = [n for s in body for n in find_all(s, cst.Name) if isinstance(n, cst.Name) and n.value == target.value]
    called_on = cst.ensure_type(
        cst.ensure_type(cst.ensure_type(first.body, cst.IndentedBlock).body[0], cst.SimpleStatementLine).body[0], cst.Expr
    )
    if len(reads) != 1 or not m.matches(called_on.value, m.Call(func=m.Attribute(value=m.Name(target.value)))):
        return None
    return first


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return m.matches(statement, m.SimpleStatementLine(body=[m.Expr(value=m.SimpleString() | m.ConcatenatedString())]))


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _code_or_none(node: cst.CSTNode | None) -> str | None:
    return None if node is None else _code(node)
