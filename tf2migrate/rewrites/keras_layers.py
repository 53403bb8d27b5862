"""``tf.layers.dense(x, 8, …)`` in graph code → a Keras layer created once, called in the computation.

TF1's functional layers create their variables when the graph is built, once.  The
computation that calls them moves into generated functions that run on every call, so
the layer object is created where the TF1 statement stood (``h_layer =
tf.keras.layers.Dense(8, …)``) and the generated function only calls it
(``h = h_layer(x)``).  Positional arguments are passed by their TF1 names;
``tf.layers.dropout``'s ``training`` (default False in TF1) is passed at the call.  A fed
flag (a bool placeholder) is a tensor in the function, which Keras' ``Dropout`` cannot
branch on in Python: ``tf.cond`` picks the training or the inference call, as TF1's
``smart_cond`` picked dropout or the identity in the graph.

A layer applied again by name (``tf.layers.dense(y, 128, tf.nn.relu, name='l',
reuse=True)`` after ``tf.layers.dense(x, 128, tf.nn.relu, name='l')``) took the variables
TF1 had made under that name: it becomes a call of the same Keras layer object.  That is
proven only when the earlier call is the one call of the graph that made the name: the
same variable scopes around both (``tf.variable_scope("literal")`` blocks), the same
``name=`` written out, the same layer and the same constructor arguments (the shared Keras
layer has one set: analysis/layer_reuse.py); anything else is refused (TFM304) with the reason.

``opt.minimize(loss, var_list=tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES,
scope="Discriminator"))`` over these layers (analysis/layer_variable_lists.py names them as
TF1 did) becomes ``var_list=[v for layer in [l, out] for v in layer.trainable_weights]``
(TFM141), read in the train step after the forward pass built the layers.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.layer_dtypes import is_reason, layer_dtype
from tf2migrate.analysis.layer_reuse import enclosing_withs, reused_layer_call
from tf2migrate.analysis.layer_signatures import (
    CALL_TIME,
    frozen_weights_message,
    GRAPH_LAYER_CLASSES,
    KERAS_NAMES,
    TF1_DEFAULTS,
    unsupported_arguments,
)
from tf2migrate.analysis.model import GraphFacts, Kind, Scope, Statement
from tf2migrate.analysis.names import created_name, read_and_bound
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan
from tf2migrate.rewrites import tf1_batch_norm
from tf2migrate.rewrites.tf_names import name_normalizer
from tf2migrate.rewrites.variable_lists import VARIABLE_LIST

LAYERS_TO_KERAS = Rule(
    "TFM411",
    "layers-to-keras",
    "tf.layers.* in graph code → a Keras layer created once and called in the computation.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Creates `tf.keras.layers.Dense(...)` (Conv2D, MaxPooling2D, Dropout, Flatten, …) where "
    "the TF1 code called `tf.layers.dense(...)`, and calls that layer inside the generated "
    "function.",
    why="A generated function runs on every call; creating the layer there would create new "
    "variables each time. TF1 created them once, when the graph was built.",
    example="h = tf.layers.dense(x, 8, activation=tf.nn.relu)",
    instead="h_layer = tf.keras.layers.Dense(units=8, activation=tf.nn.relu)\n...\nh = h_layer(x)",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "h = tf.layers.dense(x, 3)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(h, {x: [[1.0, 2.0]]}))\n",
    ),
    valid=("import tensorflow as tf\ndense = tf.keras.layers.Dense(3)\n",),
)
BATCH_NORM_UPDATES = Rule(
    "TFM412",
    "batch-norm-updates-eagerly",
    "A Keras BatchNormalization updates its moving statistics whenever it runs in training mode.",
    Severity.WARNING,
    FixSafety.SAFE,
    what="Reports `tf.layers.batch_normalization(..., training=True)` converted to a Keras "
    "layer. With `training=` a flag or placeholder (sometimes true, sometimes false) the graph "
    "converts only where TFM148 proves the moving statistics updated as TF1 did; else it stays on TF1 (TFM306).",
    why="TF1 updated the moving mean and variance only when the ops in the UPDATE_OPS "
    "collection ran; Keras updates them on every training-mode call. With training always true "
    "the outputs are the same (batch statistics), but the stored moving statistics differ "
    "(a checkpoint of them, for instance); on 4-D input TF1's fused kernel also stored the unbiased "
    "batch variance (n/(n-1) times the batch's), where Keras stores the biased one.",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "h = tf.layers.batch_normalization(x, training=True)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(h, {x: [[1.0, 2.0]]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "h = tf.layers.batch_normalization(x, training=False)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(h, {x: [[1.0, 2.0]]}))\n",
    ),
)
RULES = [LAYERS_TO_KERAS, BATCH_NORM_UPDATES]


def plan_keras_layers(
    module: cst.Module,
    facts: GraphFacts,
    plan: Plan,
    names_in_use: set[str],
    batch_norm_flags: frozenset[str] = frozenset(),
    batch_norm_fused: bool = False,
) -> None:
    """``batch_norm_flags``: the fed flags of batch normalizations whose updates TF1 ran in
    exactly the runs feeding them True (rewrites/update_ops.py): those convert under tf.cond,
    to rewrites/tf1_batch_norm.py's layers; ``batch_norm_fused``: their input is not proven
    of rank 2 (TF1 may have run its fused kernel, written out for float32 only)."""
    calls = [(scope, statement, call) for scope in facts.scopes for statement in scope.statements for call in statement.layer_calls]
    if not calls:
        return
    dtype = layer_dtype(module, facts.imports)
    made: dict[int, str] = {}  # by id of each call that made a Keras layer: its name
    withs: dict[int, dict[int, cst.With]] = {}  # by id of each scope: the ``with`` around each statement
    for scope, statement, call in calls:
        if is_reason(dtype):
            facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, layer_dtype_message(facts.imports.call_name(call), dtype))
            continue
        if id(scope) not in withs:
            withs[id(scope)] = enclosing_withs(scope)
        earlier = reused_layer_call(module, facts.imports, scope, withs[id(scope)], statement, call)
        if isinstance(earlier, str):
            facts.block(call, blockers.VARIABLE_IN_COMPUTATION, earlier)
            continue
        if earlier is not None and id(earlier) not in made:
            continue  # the earlier call was refused: so is the graph
        layer = _plan_layer(
            module, facts, plan, scope, statement, call, names_in_use, dtype, made.get(id(earlier)), batch_norm_flags, batch_norm_fused
        )
        if layer is not None:
            made[id(call)] = layer
    _plan_variable_lists(module, facts, plan, made)


def _plan_variable_lists(module: cst.Module, facts: GraphFacts, plan: Plan, made: dict[int, str]) -> None:
    """``tf.get_collection(TRAINABLE_VARIABLES, scope=...)`` over the graph's layers
    (analysis/layer_variable_lists.py) → the weights of their Keras layers, in TF1's order,
    read in the train step after the forward pass built them."""
    for listed in facts.layer_variable_lists:
        if not listed.graph_layers or any(id(call) not in made for _, _, call in listed.graph_layers):
            continue  # a helpers' list (rewrites/layer_helpers.py), or a layer refused above: the graph stays on TF1
        layers = ", ".join(made[id(call)] for _, _, call in listed.graph_layers)
        write_variable_list(module, plan, listed.call, f"[v for layer in [{layers}] for v in layer.trainable_weights]")


def write_variable_list(module: cst.Module, plan: Plan, call: cst.Call, text: str) -> None:
    """A TF1 collection of the layers' variables (``tf.get_collection(..., scope=…)``) → ``text``,
    the Keras layers' weights, with the note saying so."""
    plan.call_replacements[id(call)] = lambda _updated, text=text: cst.parse_expression(text)
    plan.note(
        call,
        VARIABLE_LIST.code,
        f"`{module.code_for_node(call)}` → `{text}`: the variables of the layers TF1 had made there whose TF1 "
        "names pass the filter, read after the forward pass built them",
    )


def fused_dtype_message(dtype: str) -> str:
    """Why a batch normalization TF1 may have computed with its fused kernel is not converted."""
    return (
        f"tf.layers.batch_normalization of {dtype} input, not proven of rank 2: TF1 chose its kernel by the rank "
        "(the fused one on 4-D float32 input), which is written out for float32 only"
    )


def layer_dtype_message(path: str | None, reason: str | None) -> str:
    """Why a TF1 layer is not made a Keras layer (``layer_dtype``'s reason)."""
    return f"tf.{path} followed its input's float type, a Keras layer computes in float32: {reason}"


def _contrib_biases(facts, arg: cst.Arg) -> bool | None:
    """Does ``biases_initializer=`` of tf.contrib.layers.fully_connected make no bias (a
    literal None: TF1 made no bias variable)?  False for an initializer proven not None (a
    TF call or a TF name: Keras' ``bias_initializer=None`` would draw a Glorot bias where
    TF1 made none), None (refused, TFM304) for any other value, which may be None."""
    if m.matches(arg.value, m.Name("None")):
        return True
    path = facts.imports.canonical(arg.value.func if isinstance(arg.value, cst.Call) else arg.value) or ""
    if path.endswith("_initializer") or ".initializers." in f".{path}":
        return False
    facts.block(
        arg,
        blockers.VARIABLE_IN_COMPUTATION,
        "`biases_initializer=` of tf.contrib.layers.fully_connected is neither None nor a TF initializer written out: "
        "None made no bias in TF1, where Keras' bias_initializer=None would draw one",
    )
    return None


def _plan_layer(
    module,
    facts,
    plan,
    scope,
    statement: Statement,
    call: cst.Call,
    names_in_use: set[str],
    dtype: str | None,
    reused: str | None,
    batch_norm_flags: frozenset[str] = frozenset(),
    batch_norm_fused: bool = False,
) -> str | None:
    """Plans the Keras layer of one call (``reused``: the layer of the earlier call it applies
    again, by ``name=`` and ``reuse=True``); its name, or None when refused."""
    path = facts.imports.call_name(call)
    keras_class, parameters = GRAPH_LAYER_CLASSES[path]
    arguments = bind_arguments(call, ("inputs", *parameters))
    inputs = arguments.pop("inputs", None) if arguments is not None else None
    if arguments is None or inputs is None:
        facts.block(call, blockers.VARIABLE_IN_COMPUTATION, f"tf.{path} call not understood (*args, **kwargs or no inputs)")
        return None
    if reused is not None:
        arguments.pop("reuse")  # proven by reused_layer_call: the layer of the earlier call
    elif "reuse" in arguments and m.matches(arguments["reuse"].value, m.Name("None") | m.Name("False")):
        arguments.pop("reuse")  # TF1's default: the call makes its own variables
    unsupported = unsupported_arguments(path, arguments.keys())
    if unsupported:
        facts.block(call, blockers.VARIABLE_IN_COMPUTATION, f"`{unsupported[0]}=` of tf.{path} is not converted")
        return None
    frozen = frozen_weights_message(path, arguments)
    if frozen is not None:
        facts.block(arguments["trainable"], blockers.VARIABLE_IN_COMPUTATION, frozen)
        return None
    normalizer = name_normalizer(plan, facts.imports)
    constructor = []
    training = arguments.get("training")
    for name, arg in arguments.items():
        if name in CALL_TIME:
            continue
        if name == "noise_shape" and _never_drops(path, training) and _reads_graph_tensor(scope, statement, arg.value):
            # TF1's layer returned its input unchanged without reading the noise shape
            # (``tf.layers.dropout(x, 0.7, is_training)`` passes the flag as noise_shape)
            plan.note(arg, LAYERS_TO_KERAS.code, "`noise_shape=` of tf.layers.dropout dropped: with training=False TF1 never read it")
            continue
        if _reads_graph_tensor(scope, statement, arg.value):
            facts.block(arg, blockers.VARIABLE_IN_COMPUTATION, f"`{name}=` of tf.{path} depends on placeholders")
            return None
        if name == "biases_initializer":
            no_bias = _contrib_biases(facts, arg)
            if no_bias is None:
                return None
            if no_bias:
                constructor.append("use_bias=False")
                continue
        constructor.append(f"{KERAS_NAMES.get(name, name)}={module.code_for_node(arg.value.visit(normalizer))}")
    given = {KERAS_NAMES.get(name, name) for name in arguments}
    constructor += [f"{name}={value}" for name, value in TF1_DEFAULTS.get(path, {}).items() if name not in given]
    if dtype is not None:
        constructor.append(f'dtype="{dtype}"')  # TF1's layer followed its float64 input
    fed_flag = training is not None and _reads_graph_tensor(scope, statement, training.value)
    proven_flag = (
        path == "layers.batch_normalization"
        and training is not None
        and m.matches(training.value, m.Name(m.MatchIfTrue(batch_norm_flags.__contains__)))
        and m.matches(inputs.value, m.Name())
    )
    if fed_flag and not proven_flag and (path != "layers.dropout" or not m.matches(inputs.value, m.Name() | m.Attribute(value=m.Name()))):
        # Keras layers branch on ``training`` in Python: a fed flag is a tensor in the function
        facts.block(
            training,
            blockers.UNSUPPORTED_GRAPH_CODE,
            f"`training=` of tf.{path} is a graph tensor (a fed flag); Keras layers take a Python bool"
            + ("; converted under tf.cond when the dropout's input is a name" if path == "layers.dropout" else ""),
        )
        return None
    if (
        path == "layers.batch_normalization"
        and training is not None
        and not proven_flag
        and not m.matches(training.value, m.Name("True") | m.Name("False"))
    ):
        # sometimes training, sometimes not: Keras' training calls move the statistics that
        # its inference calls read; TF1's moved only when the program ran UPDATE_OPS
        facts.block(
            training,
            blockers.UNSUPPORTED_GRAPH_CODE,
            "`training=` of tf.layers.batch_normalization may be true or false: TF1 updated the moving statistics only "
            "when UPDATE_OPS ran, Keras updates them on every training call, so later inference outputs would differ",
        )
        return None
    made_by = f"tf.keras.layers.{keras_class}"
    if proven_flag:
        if batch_norm_fused and dtype is not None:
            facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, fused_dtype_message(dtype))
            return None
        # TF1's ops and update of the moving statistics (Keras' own move them otherwise)
        made_by = keras_class = tf1_batch_norm.layer_class(module, facts, plan, names_in_use)
    if reused is None:
        layer = created_name(_layer_name(arguments.get("name"), statement), scope.cls is not None, names_in_use)
        plan.create_before(module, statement, layer, f"{made_by}({', '.join(constructor)})")
    else:
        layer = reused
    inputs_index = list(call.args).index(inputs)
    training_index = list(call.args).index(training) if training is not None else None
    # TF1's functional dropout and batch norm default to training=False; Keras' to None
    default_training = "False" if path in ("layers.dropout", "layers.batch_normalization") else None
    if (
        path == "layers.batch_normalization"
        and not (training is not None and m.matches(training.value, m.Name("False")))
        and training is not None
    ):
        plan.note(call, BATCH_NORM_UPDATES.code, "moving mean/variance now update whenever the layer runs with training=True")

    def call_layer(updated: cst.Call) -> cst.BaseExpression:
        code = module.code_for_node
        parts = [code(updated.args[inputs_index].value)]
        if fed_flag:
            # TF1 chose between dropout and the identity in the graph (smart_cond): so does tf.cond
            flag = code(updated.args[training_index].value)  # type: ignore[index]
            return cst.parse_expression(
                f"tf.cond({flag}, lambda: {layer}({parts[0]}, training=True), lambda: {layer}({parts[0]}, training=False))"
            )
        if training_index is not None:
            parts.append(f"training={code(updated.args[training_index].value)}")
        elif default_training is not None:
            parts.append(f"training={default_training}")  # TF1's default; Keras' differs
        return cst.parse_expression(f"{layer}({', '.join(parts)})")

    plan.call_replacements[id(call)] = call_layer
    if reused is None:
        plan.note(call, LAYERS_TO_KERAS.code, f"tf.{path} → {made_by} `{layer}`, created once")
    else:
        plan.note(call, LAYERS_TO_KERAS.code, f"tf.{path}(..., reuse=True) → `{layer}` applied again: the layer whose variables it reused")
    return layer


def _layer_name(name_arg: cst.Arg | None, statement: Statement) -> str:
    if name_arg is not None and isinstance(name_arg.value, cst.SimpleString):
        text = name_arg.value.evaluated_value
        if isinstance(text, str) and text.isidentifier():
            return text
    if len(statement.defines) == 1:
        return f"{statement.defines[0]}_layer"
    return "layer"


def _never_drops(path: str | None, training: cst.Arg | None) -> bool:
    """A ``tf.layers.dropout`` whose ``training`` is TF1's default or ``False`` written out:
    its layer picked the identity when the graph was built (``smart_cond`` of a Python bool)."""
    return path == "layers.dropout" and (training is None or m.matches(training.value, m.Name("False")))


def _reads_graph_tensor(scope: Scope, statement: Statement, expr: cst.BaseExpression) -> bool:
    """Does the expression read a placeholder or a tensor of the graph (a value the layer
    would see only inside the generated function)?"""
    return any(
        (found := scope.graph_statement(name, statement.order)) is not None and found.kind in (Kind.TENSOR, Kind.PLACEHOLDER)
        for name in read_and_bound(expr)[0]
    )
