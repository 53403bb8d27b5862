"""``train_op = tf.train.AdamOptimizer(lr).minimize(loss)`` → a Keras optimizer and a train step.

The optimizer is created once, where the TF1 code created it, as the Keras optimizer that
takes the same steps (TF1's defaults written out where Keras' differ: Adam's epsilon is
1e-8 in TF1, 1e-7 in Keras).  A run site fetching the train op calls a generated function
that computes the fetches under a ``tf.GradientTape``, takes the gradient of the loss with
respect to the trainable variables the computation read (what ``minimize`` trains by
default: every trainable variable the loss reaches; ``var_list`` when given), and applies
it — so ``sess.run([train_op, loss])`` still returns the loss of the same step.
"""

from __future__ import annotations

import re

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import bind_arguments, call_argument, calls_in
from tf2migrate.analysis.catalogue import UNSUPPORTED_CALLS
from tf2migrate.analysis.model import GraphFacts, Kind, Scope, Statement
from tf2migrate.analysis.names import created_name, fresh_name, local_name, read_and_bound, self_attribute
from tf2migrate.analysis.statements import fed_rate
from tf2migrate.analysis.static_python import module_constants
from tf2migrate.analysis.train_variables import stale_backward_reads
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import name_normalizer
from tf2migrate.rewrites import file_helpers
from tf2migrate.rewrites.generated import Generated, SessionRewrite
from tf2migrate.rewrites.gradient_tape import BodyContext, render_body
from tf2migrate.rewrites.keras_optimizers import (
    DROPPED_ARGUMENTS,
    KERAS_OPTIMIZERS,
)

TRAIN_STEP = Rule(
    "TFM121",
    "train-op-to-train-step",
    "opt.minimize(loss) run by sess.run → a Keras optimizer applying tape gradients.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces `tf.train.GradientDescentOptimizer`, `MomentumOptimizer`, `AdamOptimizer`, "
    "`RMSPropOptimizer`, `AdagradOptimizer`, `AdadeltaOptimizer` and `FtrlOptimizer` with the "
    "Keras optimizer taking the same steps to the last digit (TF1 defaults written out: "
    "Adam/Adadelta epsilon=1e-8, RMSProp epsilon=1e-10, Adagrad without epsilon; `use_nesterov` → "
    "`nesterov`, `decay` → `rho`; all but GradientDescent, which Keras' SGD reproduces, through a "
    "subclass emitted once per file, `AdamFromTF1`, `MomentumFromTF1`, `RMSpropFromTF1`, "
    "`AdagradFromTF1`, `AdadeltaFromTF1`, `FtrlFromTF1`, whose update runs TF1's kernel with "
    "TF1's float32 hyperparameters: Keras' own formulas round differently, Adam's beta powers "
    "are TF1's float32 running products, RMSProp's mean square starts at 1), and each run of "
    "`opt.minimize(loss)` with a generated train step: forward computation under a GradientTape, "
    "`tape.gradient`, `apply_gradients`, decorated with `@tf.function` unless turned off "
    "(`compute_gradients` … `apply_gradients`: the processing between them kept as written; "
    "`apply_gradients(zip(grads, params))` of `tf.gradients`: those gradients, now from a tape).\n\n"
    "Variables: without `var_list`, every trainable variable the loss reaches (what TF1 trained). "
    "With `var_list`, exactly those, watched by the tape before the forward pass, so a listed "
    "variable made with `trainable=False` is trained as TF1 trained it (a `var_list` name bound in "
    "graph code must be bound to a list display of variables, or the file must make no variable "
    "untrainable; otherwise refused, TFM306). A graph collection in the "
    "arguments (`var_list=tf.trainable_variables()`, `tf.get_collection(...)`) is empty in TF2: "
    "refused (TFM306).\n\n"
    "Sparse gradients: a variable read through a gather (`tf.gather`, `tf.gather_nd`, "
    "`tf.nn.embedding_lookup`, `nce_loss`, `sampled_softmax_loss`, a Keras `Embedding`, "
    "`sparse_read`) gets an `IndexedSlices` gradient, one slice per lookup, passed to the "
    "optimizer as it is: GradientDescent subtracts every slice, as Keras' SGD does; the other "
    "helpers take TF1's sparse steps (duplicate rows summed, then TF1's sparse kernel on the rows "
    "looked up; Adam's moments decay on every row), proven by execution with duplicate ids over "
    "several steps.\n\n"
    "One optimizer stepping several train ops: TF1 shares its step count (Adam's beta powers) and "
    "keeps one set of slots per variable, as one Keras optimizer does; it is built once on the "
    "union of the `var_list`s (`opt.build([...])`) after the last train op, because Keras refuses "
    "variables it was not built on. Converted when every train op is `opt.minimize(..., "
    "var_list=...)` naming its variables: a list of them (`[v1, v2]`), one variable (`self.beta`, "
    "trained as `[self.beta]`: TF1 flattened `var_list`), or lists the graph code made of variables "
    "(`self.weights + self.biases`, built on as `*tf.nest.flatten(...)`); otherwise refused (TFM306).\n\n"
    "A rate fed at each step (`AdamOptimizer(lr)`, `lr` a float32 placeholder): TF1 read the value "
    "fed to each run; the Keras optimizer is made with `learning_rate=0.0` and every train step "
    "takes `lr` as an argument and assigns it (`opt.learning_rate.assign(lr)`) before "
    "`apply_gradients`. `MomentumOptimizer`'s rate may change too (fed, or decayed): `MomentumFromTF1` "
    "runs TF1's kernel, which scales the accumulated velocity by the rate of the step, as TF1 did "
    "(Keras' own SGD scales each gradient as it is accumulated). Refused (TFM306): a fed rate that is "
    "not float32 (Keras keeps its rate in float32), a rate computed from a fed value, and other fed "
    "hyperparameters.",
    why="TF2 has no train ops: a step is a function call. The losses and parameters match the "
    "TF1 run step for step, to the last digit: the emitted optimizers run TF1's kernels with TF1's "
    "float32 hyperparameters (in float64 models TF1 rounded them to float32 first: Adam's beta2 = "
    "0.999 became 0.99900001, which Keras' own Adam does not do).",
    example="train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)\n_, l = sess.run([train_op, loss], feed)",
    instead="train_op_optimizer = AdamFromTF1(learning_rate=1e-3, epsilon=1e-08)\n"
    "def train_step(x):\n    with tf.GradientTape() as train_tape:\n        loss = ...\n"
    "    variables = train_tape.watched_variables()\n"
    "    gradients = train_tape.gradient(loss, variables)\n"
    "    train_op_optimizer.apply_gradients(...)\n    return [None, loss]",
    invalid=(
        "import tensorflow as tf\n"
        "W = tf.Variable(1.0)\n"
        "loss = tf.square(W - 3.0)\n"
        "train_op = tf.train.AdamOptimizer(0.1).minimize(loss)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op)\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "W = tf.Variable(1.0)\n"
        "opt = tf.keras.optimizers.Adam(0.1)\n"
        "with tf.GradientTape() as tape:\n"
        "    loss = tf.square(W - 3.0)\n"
        "opt.apply_gradients([(tape.gradient(loss, W), W)])\n",
    ),
)
JOINT_STEP_READS_BEFORE_UPDATES = Rule(
    "TFM417",
    "joint-step-reads-before-updates",
    "Train ops stepped in one run (a GAN's) → one step taking every gradient before any update, "
    "where TF1's reference variables read in no fixed order.",
    Severity.WARNING,
    FixSafety.SAFE,
    what="Reported on a run that steps several train ops whose losses read each other's variables "
    "(`sess.run([train_gen, train_disc], feed)`: the generator's loss goes through the discriminator): "
    "the converted step computes every loss and gradient from the values before the step, then applies "
    "every update (TFM121).",
    why="TF1's graph mode made reference variables, updated in place: the backward pass of one train op "
    "could read the other's variables after its update, in an order the executor chose. Run on TF1 with "
    "reference variables, such a program ends its steps with other values than the converted step; run "
    "with `tf.enable_resource_variables()` (TF 1.15's default in TF2 behaviour) it computes exactly what "
    "the converted step computes. To compare the two, add that call to the TF1 original.",
    example="sess.run([train_gen, train_disc, gen_loss], feed_dict)",
    instead="train_step(...)  # every gradient from the step's starting values, then every update",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 1])\n"
        "g = tf.Variable([[1.0]])\n"
        "d = tf.Variable([[2.0]])\n"
        "fake = tf.matmul(x, g)\n"
        "gen_loss = tf.reduce_mean(tf.matmul(fake, d))\n"
        "disc_loss = tf.reduce_mean(tf.square(tf.matmul(fake, d)))\n"
        "train_gen = tf.train.GradientDescentOptimizer(0.1).minimize(gen_loss, var_list=[g])\n"
        "train_disc = tf.train.GradientDescentOptimizer(0.1).minimize(disc_loss, var_list=[d])\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run([train_gen, train_disc], {x: [[1.0]]})\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 1])\n"
        "a = tf.Variable([[1.0]])\n"
        "b = tf.Variable([[2.0]])\n"
        "loss_a = tf.reduce_mean(tf.matmul(x, a))\n"
        "loss_b = tf.reduce_mean(tf.square(tf.matmul(x, b)))\n"
        "train_a = tf.train.GradientDescentOptimizer(0.1).minimize(loss_a, var_list=[a])\n"
        "train_b = tf.train.GradientDescentOptimizer(0.1).minimize(loss_b, var_list=[b])\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run([train_a, train_b], {x: [[1.0]]})\n",
    ),
)
RULES = [TRAIN_STEP, JOINT_STEP_READS_BEFORE_UPDATES]


def plan_optimizers(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str]) -> dict[int, str]:
    """Keras optimizers for the file's TF1 ones; returns, per TRAIN statement, the
    expression of its optimizer."""
    optimizer_of: dict[int, str] = {}
    own: dict[int, str] = {}  # TRAIN statement → the optimizer made for it alone
    for scope in facts.scopes:
        for statement in scope.statements:
            if statement.kind is Kind.OPTIMIZER:
                call = _constructor_call(statement)
                _replace_optimizer(module, facts, plan, names_in_use, scope, statement, call)
                own |= _build_when_shared(module, facts, plan, names_in_use, scope, statement)
            if statement.kind in (Kind.TRAIN, Kind.GRADS) and statement.minimize is not None:
                _check_arguments(facts, statement.minimize)
            if statement.kind is Kind.TRAIN and statement.minimize is not None:
                optimizer = _optimizer_expression(statement)
                if isinstance(optimizer, cst.Call):
                    # created inline: create it once, where the train op was built
                    target = created_name(_optimizer_name(facts, statement.defines[0], optimizer), scope.cls is not None, names_in_use)
                    plan.create_before(
                        module, statement, target, optimizer_code(module, facts, plan, names_in_use, scope, statement, optimizer)
                    )
                    optimizer_of[id(statement.node)] = target
                else:
                    optimizer_of[id(statement.node)] = own.get(id(statement.node)) or module.code_for_node(optimizer)
    return optimizer_of


def _check_arguments(facts: GraphFacts, call: cst.Call) -> None:
    """The arguments of ``opt.minimize(...)`` run in the train step: a graph collection
    there (``var_list=tf.trainable_variables()``) is empty in TF2, so the step would train
    nothing; such calls keep the graph on TF1, as elsewhere in graph code."""
    written_out = {id(listed.call) for listed in facts.layer_variable_lists}  # over the file's layers
    for argument in call.args:
        for inner in calls_in(argument.value):
            if id(inner) in written_out:
                continue
            if (name := facts.imports.call_name(inner)) in UNSUPPORTED_CALLS:
                facts.block(inner, blockers.UNSUPPORTED_GRAPH_CODE, f"`tf.{name}` is not converted by this release")
            elif (read := _collection_in_helper(facts, inner, set())) is not None:
                # ``var_list=trained()``, ``def trained(): return tf.trainable_variables()``:
                # as empty in TF2 as the collection written in the call
                facts.block(
                    inner,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"`{cst.Module([]).code_for_node(inner.func)}(...)` reads `tf.{read}`, which is not converted by this release",
                )


def _collection_in_helper(facts: GraphFacts, call: cst.Call, seen: set[str]) -> str | None:
    """The graph collection (an UNSUPPORTED_CALLS name) the file's helper ``call`` calls
    reads, itself or through the helpers it calls; None if none."""
    name = call.func.value if isinstance(call.func, cst.Name) else self_attribute(call.func)
    helper = facts.helpers.get(name) if name is not None and name not in seen else None
    if helper is None:
        return None
    seen.add(cst.ensure_type(name, str))
    for inner in calls_in(helper.node.body):
        if (tf_name := facts.imports.call_name(inner)) in UNSUPPORTED_CALLS:
            return tf_name
        found = _collection_in_helper(facts, inner, seen)
        if found is not None:
            return found
    return None


def _build_when_shared(
    module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str], scope: Scope, optimizer: Statement
) -> dict[int, str]:
    """A TF1 optimizer stepping several train ops shares its step counter (Adam's beta
    powers, advanced once per update) and keeps one set of slots per variable, as one Keras
    optimizer does (``iterations``, its slots).  But Keras builds its slots on the variables
    of its first update and refuses others later: built on every variable the train ops
    update, once they exist.  That needs each train op's variables written out.

    Plain gradient descent at a constant rate keeps no state: then each train op whose
    variables are not written out gets an optimizer of its own (returned: TRAIN statement →
    its name), which takes the very steps the shared one took."""
    uses = _train_ops(scope, optimizer)
    if len(uses) < 2:
        return {}
    variables: dict[str, None] = {}
    for use in uses:
        listed = _listed_variables(module, scope, use)
        if listed is None:
            call = _constructor_call(optimizer)
            if _stateless(module, facts, call):
                return _optimizer_each(module, facts, plan, names_in_use, scope, uses, call)
            facts.block(
                use.minimize_call(),
                blockers.UNSUPPORTED_GRAPH_CODE,
                "one optimizer steps several train ops: converted when each is `minimize(..., var_list=...)` naming its "
                "variables (a list of variables, a variable, or a sum of lists the graph code made of variables), "
                "or when it is a `GradientDescentOptimizer` at a constant rate",
            )
            return {}
        variables.update(dict.fromkeys(listed))
    build = f"# one optimizer for {len(uses)} train ops, as in TF1: one step count, slots for each variable\n"
    build += f"{optimizer.defines[0]}.build([{', '.join(variables)}])\n"
    plan.add_after(uses[-1].node, [cst.parse_statement(build, config=module.config_for_parsing)])
    return {}


def _stateless(module: cst.Module, facts: GraphFacts, call: cst.Call) -> bool:
    """``tf.train.GradientDescentOptimizer(rate)`` with a number, or a module constant
    bound to one, for its rate: its steps read nothing but the gradient."""
    if facts.imports.call_name(call) != "train.GradientDescentOptimizer":
        return False
    bound = bind_arguments(call, KERAS_OPTIMIZERS["train.GradientDescentOptimizer"][1])
    rate = bound.get("learning_rate") if bound is not None else None
    if rate is None:
        return False
    value = rate.value
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression
    if isinstance(value, (cst.Integer, cst.Float)):
        return True
    return isinstance(value, cst.Name) and isinstance(module_constants(module, {value.value}).get(value.value), (int, float))


def _optimizer_each(
    module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str], scope: Scope, uses: list[Statement], call: cst.Call
) -> dict[int, str]:
    """An optimizer made for each train op after the first, where the train op was built."""
    own = {}
    for use in uses[1:]:
        target = created_name(_optimizer_name(facts, use.defines[0], call), scope.cls is not None, names_in_use)
        plan.create_before(module, use, target, optimizer_code(module, facts, plan, names_in_use, scope, use, call))
        plan.note(
            use.minimize_call(),
            TRAIN_STEP.code,
            f"one GradientDescentOptimizer steps {len(uses)} train ops: `{local_name(target)}` made for this one "
            "(plain gradient descent keeps no state to share)",
        )
        own[id(use.node)] = target
    return own


def _train_ops(scope: Scope, statement: Statement) -> list[Statement]:
    """The train ops an OPTIMIZER statement steps; a TRAIN statement (its optimizer made
    inline) is its own."""
    if statement.kind is Kind.TRAIN:
        return [statement]
    return [
        s
        for s in scope.statements
        if s.kind is Kind.TRAIN and s.minimize is not None and _optimizer_statement(scope, _optimizer_expression(s), s.order) is statement
    ]


def _optimizer_expression(train: Statement) -> cst.BaseExpression:
    """``opt`` in ``opt.minimize(loss)``: the optimizer's name, or its constructor call inline."""
    return cst.ensure_type(train.minimize_call().func, cst.Attribute).value


def _constructor_call(optimizer: Statement) -> cst.Call:
    """The call an OPTIMIZER statement assigns: ``opt = tf.train.AdamOptimizer(lr)``."""
    line = cst.ensure_type(optimizer.node, cst.SimpleStatementLine)
    return cst.ensure_type(cst.ensure_type(line.body[0], cst.Assign).value, cst.Call)


def _listed_variables(module: cst.Module, scope: Scope, train: Statement) -> list[str] | None:
    """The variables of ``opt.minimize(loss, var_list=...)`` as entries of a list display
    (the optimizer is built on them): a display's elements (``[w, b]``); a variable
    (``var_list=self.beta``) itself; variables held in lists (``self.weights + self.biases``,
    names the graph code binds to variables) flattened as TF1 flattened ``var_list``
    (``*tf.nest.flatten(...)``).  None for another call, or a ``var_list`` that names
    anything but variables."""
    call = train.minimize_call()
    var_list = call_argument(call, "var_list", 2)
    if cst.ensure_type(call.func, cst.Attribute).attr.value != "minimize" or var_list is None:
        return None
    if not isinstance(var_list, (cst.List, cst.Tuple)):
        if _single_variable(scope, var_list, train.order):
            return [module.code_for_node(var_list)]
        operands = _summed(var_list)
        if any(_variable_statement(scope, o, train.order) is None for o in operands):
            return None
        return [f"*tf.nest.flatten({module.code_for_node(var_list)})"]
    listed = []
    for element in var_list.elements:
        if isinstance(element, cst.StarredElement) or _variable_statement(scope, element.value, train.order) is None:
            return None
        code = module.code_for_node(element.value)
        # a list the graph code made of variables (``[self.weights, self.biases]``): its variables
        listed.append(f"*tf.nest.flatten({code})" if _variable_structure(scope, element.value, train.order) else code)
    return listed


def _summed(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of ``a + b + c`` (``expr`` itself when it is no sum)."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return [*_summed(expr.left), *_summed(expr.right)]
    return [expr]


def _variable_statement(scope: Scope, expr: cst.BaseExpression, before: int) -> Statement | None:
    """The VARIABLE statement binding the name or ``self.`` attribute ``expr`` (a variable,
    or a structure of variables a helper made: ``self.weights, self.biases = self.initialize_NN(layers)``)."""
    name = expr.value if isinstance(expr, cst.Name) else self_attribute(expr)
    found = scope.graph_statement(name, before) if name is not None else None
    return found if found is not None and found.kind is Kind.VARIABLE else None


def _variable_structure(scope: Scope, expr: cst.BaseExpression, before: int) -> bool:
    """Is ``expr`` a structure of variables a helper made (``self.weights``), not one variable?"""
    found = _variable_statement(scope, expr, before)
    return found is not None and found.value_kind != "variable"


def _nested(scope: Scope, expr: cst.BaseExpression, before: int, depth: int = 0, named: bool = False) -> bool:
    """Is ``expr`` a structure ``nest.flatten`` changes: a dict, a display holding a structure of
    variables (a display, a list a helper made), or a name the scope bound to a display of
    displays before (``named``: its elements are read as written, not as helpers' lists)?"""
    if depth > 4:
        return False
    if isinstance(expr, (cst.Dict, cst.DictComp)):
        return True
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        return any(
            isinstance(element, cst.Element)
            and (
                isinstance(element.value, (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.DictComp))
                or (not named and _variable_structure(scope, element.value, before))
                or _nested(scope, element.value, before, depth + 1, named)
            )
            for element in expr.elements
        )
    if isinstance(expr, cst.Name):
        # ``groups = [[w1], [b1, b2]]`` … ``var_list=groups``
        bound = scope.resolve(expr.value, before)
        line = bound.node if bound is not None else None
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Assign):
            assign = line.body[0]
            if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
                return _nested(scope, assign.value, before, depth + 1, named=True)
    return False


def _single_variable(scope: Scope, expr: cst.BaseExpression, before: int) -> bool:
    """Is ``expr`` one variable (``self.beta = tf.Variable(...)``), not a list of them?"""
    found = _variable_statement(scope, expr, before)
    return found is not None and found.value_kind == "variable"


def _optimizer_name(facts: GraphFacts, train_op: str, optimizer: cst.Call) -> str:
    """``train_op_optimizer`` for ``train_op = tf.train.AdamOptimizer(lr).minimize(loss)``;
    ``adam_optimizer`` when the train op is itself called ``optimizer`` (a common TF1
    spelling), rather than ``optimizer_optimizer``."""
    if "optimizer" in train_op.lower():
        kind = (facts.imports.call_name(optimizer) or "train.").removeprefix("train.").removesuffix("Optimizer")
        snake = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", kind).lower()  # GradientDescent → gradient_descent
        return f"{'self.' if train_op.startswith('self.') else ''}{snake}_optimizer"
    return f"{train_op}_optimizer"


def _replace_optimizer(module, facts, plan, names_in_use: set[str], scope: Scope, statement: Statement, call: cst.Call) -> None:
    code = optimizer_code(module, facts, plan, names_in_use, scope, statement, call)
    plan.call_replacements[id(call)] = lambda updated: cst.parse_expression(code)
    constructor = re.match(r"[\w.]+(?:\([\w.]+\)(?=\())?", code)
    assert constructor is not None  # the code starts with the optimizer's dotted name
    plan.note(call, TRAIN_STEP.code, f"tf.{facts.imports.call_name(call)} → {constructor.group(0)}")


def optimizer_code(
    module, facts: GraphFacts, plan: Plan, names_in_use: set[str], scope: Scope, statement: Statement, call: cst.Call
) -> str:
    path = facts.imports.call_name(call)
    assert path is not None  # the analysis found the optimizer by its TF path
    keras_class, parameters, renames, defaults, helper = KERAS_OPTIMIZERS[path]
    bound = bind_arguments(call, parameters)
    if bound is None:
        facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, f"tf.{path} call not understood (*args, **kwargs or too many arguments)")
        return f"tf.keras.optimizers.{keras_class}()"
    arguments = {name: arg.value for name, arg in bound.items()}
    normalizer = name_normalizer(plan, facts.imports)
    parts = []
    for name, value in arguments.items():
        if name in DROPPED_ARGUMENTS:
            continue
        if any((n := facts.imports.call_name(c)) is not None and n.startswith("train.") for c in calls_in(value)):
            facts.block(
                value,
                blockers.UNSUPPORTED_GRAPH_CODE,
                f"`{name}` of the optimizer is built inline from tf.train; assign it to a name first",
            )
            continue
        if name == "learning_rate" and (fed := fed_rate(call, scope, statement.order)) is not None:
            refused = _fed_rate_refused(facts, path, fed)
            if refused is not None:
                facts.block(value, blockers.UNSUPPORTED_GRAPH_CODE, refused)
            # a placeholder for the rate: each train step assigns the fed value before its update
            plan.note(value, TRAIN_STEP.code, f"the rate fed to `{local_name(fed.defines[0])}` → set by each train step before its update")
            parts.append("learning_rate=0.0")
            continue
        reads, _ = read_and_bound(value)
        constant = _constant_tensor(module, facts, scope, statement, value)
        if constant is not None:
            # Keras takes hyperparameters as Python numbers
            parts.append(f"{renames.get(name, name)}=float({module.code_for_node(constant.visit(normalizer))})")
            continue
        if any(scope.graph_statement(n, statement.order) is not None for n in reads):
            rate = _scheduled_rate(module, plan, scope, statement, value) if name == "learning_rate" else None
            if rate is None:
                facts.block(
                    value, blockers.UNSUPPORTED_GRAPH_CODE, f"`{name}` of the optimizer is a graph tensor (a fed rate or a computed value)"
                )
            parts.append(f"{renames.get(name, name)}={rate}")
            continue
        if any(facts.imports.call_name(c) is not None for c in calls_in(value)):
            # ``beta1=tf.constant(0.8)``: TF1 took a tensor, Keras' helpers build on Python numbers
            facts.block(
                value,
                blockers.UNSUPPORTED_GRAPH_CODE,
                f"`{name}` of the optimizer is computed by TensorFlow in the call (`{module.code_for_node(value)}`); "
                "Keras takes Python numbers (pass the number)",
            )
            continue
        parts.append(f"{renames.get(name, name)}={module.code_for_node(value.visit(normalizer))}")
    parts += [f"{k}={v}" for k, v in defaults.items() if k not in arguments]
    constructor = f"tf.keras.optimizers.{keras_class}"
    if helper is not None:
        constructor = file_helpers.emit_once(module, facts, plan, names_in_use, keras_class, helper)
    return f"{constructor}({', '.join(parts)})"


def _fed_rate_refused(facts: GraphFacts, path: str, rate: Statement) -> str | None:
    """Why a rate fed at each step cannot become the Keras optimizer's rate, if it cannot."""
    name = local_name(rate.defines[0])
    placeholder = rate.placeholder
    assert placeholder is not None
    dtype = placeholder.dtype
    if placeholder.default is not None:
        float32 = isinstance(placeholder.default, cst.Float)
    elif isinstance(dtype, cst.SimpleString):
        float32 = dtype.evaluated_value in ("float", "float32")
    else:
        float32 = dtype is not None and (facts.imports.canonical(dtype) or "").rsplit(".", 1)[-1] == "float32"
    if not float32:
        return f"the rate fed to `{name}` is not a float32 placeholder: a Keras optimizer keeps its rate in float32, TF1 used the fed value in its own dtype"
    return None


def fed_rate_of(scope: Scope, train: Statement) -> str | None:
    """The argument of a train step that holds its optimizer's fed rate (see
    ``analysis.statements.fed_rate``), or None when the rate is not fed.  A placeholder
    without a shape (``tf.placeholder(tf.float32)``) is read as the scalar TF1's update
    required: a Keras rate variable takes no value of unknown rank."""
    optimizer = _optimizer_expression(train)
    if isinstance(optimizer, cst.Call):
        rate = fed_rate(optimizer, scope, train.order)
    else:
        statement = _optimizer_statement(scope, optimizer, train.order)
        rate = fed_rate(_constructor_call(statement), scope, statement.order) if statement is not None else None
    if rate is None:
        return None
    name = local_name(rate.defines[0])
    shape = rate.placeholder.shape if rate.placeholder is not None else cst.List([])
    unknown_rank = shape is None or (isinstance(shape, cst.Name) and shape.value == "None")
    return f"tf.reshape({name}, [])" if unknown_rank else name


def _constant_tensor(module, facts: GraphFacts, scope: Scope, statement: Statement, value: cst.BaseExpression) -> cst.BaseExpression | None:
    """The expression of a hyperparameter named but computed from constants only
    (``lr = tf.constant(0.05)``): the same value whenever TF1 evaluated it, so the
    optimizer can take it once, where it is created."""
    if not isinstance(value, cst.Name):
        return None
    found = scope.graph_statement(value.value, statement.order)
    if (
        found is None
        or found.kind is not Kind.TENSOR
        or found.deps
        or found.compound
        or not isinstance(found.node, cst.SimpleStatementLine)
    ):
        return None
    small = found.node.body[0]
    if len(found.node.body) != 1 or not isinstance(small, cst.Assign) or len(small.targets) != 1 or found.defines != (value.value,):
        return None
    for call in calls_in(small.value):
        path = facts.imports.call_name(call)
        if path is None or "random" in path or path.endswith(("placeholder", "Variable", "get_variable")):
            return None  # a user function, or a value that changes between evaluations
    return small.value


def _scheduled_rate(module, plan: Plan, scope: Scope, statement: Statement, value: cst.BaseExpression) -> str | None:
    """``lambda: lr_schedule(global_step)`` for a rate a Keras schedule computes from a
    variable: Keras calls it at each update, when TF1 re-evaluated the rate."""
    found = plan.rates.get(module.code_for_node(value))
    if found is None:
        return None
    schedule, step, rate_statement = found
    if scope.graph_statement(module.code_for_node(value), statement.order) is not rate_statement:
        return None  # the name was bound again in between
    step_reads, _ = read_and_bound(step)
    if any((s := scope.graph_statement(n, statement.order)) is not None and s.kind is not Kind.VARIABLE for n in step_reads):
        return None  # a fed or computed step: not known when Keras asks for the rate
    return f"lambda: {schedule}({module.code_for_node(step)})"


def train_step_lines(
    tape: str,
    forward: list[str],
    indent: str,
    var_list: tuple[str, str] | None,
    gradients: list[str],
    optimizer: str,
    pairs: str,
    global_step: str | None,
    rate: str | None,
    loss: str | None,
    names_in_use: set[str],
) -> list[str]:
    """A train step's body: the forward computation under ``tape``, the variables TF1
    would train (``var_list``: the list and its variables as an expression valid before
    the forward pass, see ``watched_variables``; or every trainable variable the
    computation read), the ``gradients`` lines, the update, the counter."""
    listed, watched = var_list if var_list is not None else (None, None)
    return [
        f"with tf.GradientTape() as {tape}:",
        # TF1 trains a listed variable even when it is not trainable: the tape must see
        # every one from the start
        *[indent + line if line else line for line in [*([f"{tape}.watch({watched})"] if watched else []), *forward] or ["pass"]],
        f"variables = {listed if listed is not None else f'{tape}.watched_variables()'}",
        *gradients,
        *update_lines(optimizer, pairs, global_step, rate, loss, indent, names_in_use),
    ]


def watched_variables(module: cst.Module, facts: GraphFacts, var_list: cst.BaseExpression, step: list[Statement], code) -> str | None:
    """The variables of ``var_list`` as an expression the step can watch before its
    forward computation: ``var_list`` itself when it reads nothing the computation binds,
    else the list display a name of the computation is bound to (``params = [w, s]``).
    For a list the computation builds otherwise: "" (nothing to watch) in a file that
    makes no variable untrainable, else None, and the graph stays on TF1."""
    if any(listed.call is var_list for listed in facts.layer_variable_lists):
        # the weights of Keras layers (analysis/layer_variable_lists.py), trainable and made by
        # the forward pass itself: the tape watches those it reads, there is nothing before it
        return ""
    bound = {name for statement in step for name in statement.defines}
    reads, _ = read_and_bound(var_list)
    if not bound & set(reads):
        return code(var_list)
    name = var_list.value if isinstance(var_list, cst.Name) else self_attribute(var_list)
    definitions = [s for s in step if name in s.defines]
    line = definitions[-1].node if definitions else None
    assign = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
    if (
        isinstance(assign, cst.Assign)
        and isinstance(assign.value, (cst.List, cst.Tuple))
        and not bound & set(read_and_bound(assign.value)[0])
    ):
        return code(assign.value)
    if not any(a.keyword is not None and a.keyword.value == "trainable" for call in facts.calls for a in call.args):
        return ""  # every variable is trainable: the tape watches those it reads
    facts.block(
        var_list,
        blockers.UNSUPPORTED_GRAPH_CODE,
        "`var_list` is built by the graph code: its variables must be watched before the forward pass "
        "(TF1 trains a listed variable even when it is not trainable); write it as a list of variables",
    )
    return None


def update_lines(
    optimizer: str, pairs: str, global_step: str | None, rate: str | None, after: str | None, indent: str, names_in_use: set[str]
) -> list[str]:
    """The update with the (gradient, variable) ``pairs`` (a sparse gradient as it is: the
    optimizer helpers take TF1's sparse steps), at the fed ``rate`` when the rate is fed,
    and the step counter.
    Also the whole step of ``opt.apply_gradients(zip(grads, params))`` whose gradients the
    computation takes.

    TF1 ran the update after the gradients it applies and after the loss they were taken of
    (``after``, the losses of the step when known): every variable read of the forward pass
    came before it.  Inside a ``tf.function`` a Keras optimizer's update is not ordered after
    those reads (a step whose loss reads a variable it updates returned the updated value in
    some runs): the update waits for them."""
    updated = fresh_name("updated", names_in_use)
    follows = f"[{after}, [g for g, _ in {updated}]]" if after else f"[g for g, _ in {updated}]"
    return [
        *([f"{optimizer}.learning_rate.assign({rate})  # the rate fed for this step, as TF1's optimizer read it"] if rate else []),
        # TF1 skipped variables without a gradient (minimize: those the loss does not reach)
        f"{updated} = [(g, v) for g, v in {pairs} if g is not None]",
        f"with tf.control_dependencies(tf.nest.flatten({follows}, expand_composites=True)):  # updated after the loss and gradients, as TF1 did",
        f"{indent}{optimizer}.apply_gradients({updated})",
        *([f"{global_step}.assign_add(1)"] if global_step is not None else []),
    ]


def _optimizer_statement(scope: Scope, optimizer: cst.BaseExpression, before: int) -> Statement | None:
    name = optimizer.value if isinstance(optimizer, cst.Name) else self_attribute(optimizer)
    found = scope.resolve(name, before) if name is not None else None
    return found if found is not None and found.kind is Kind.OPTIMIZER else None


def minimize_arguments(statement: Statement) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None, cst.BaseExpression | None]:
    call = statement.minimize_call()
    return call_argument(call, "loss", 0), call_argument(call, "var_list", 2), call_argument(call, "global_step", 1)


def applied_gradients_body(
    rewrite: SessionRewrite, generated: Generated, grads: Statement, ctx: BodyContext, indent: str
) -> list[str] | None:
    """``gvs = opt.compute_gradients(loss)``; processing (clipping); ``opt.apply_gradients``:
    the forward pass under the tape, the gradients after it, then the processing, as
    written, and the update."""
    train = generated.train
    assert train is not None
    after = {grads.order}
    for statement in generated.body:  # what is computed from the gradients
        if statement.deps & after:
            after.add(statement.order)
    before = [st for st in generated.body if st.order not in after]
    processing = [st for st in generated.body if st.order in after and st is not grads]
    forward = render_body(before, ctx, indent)
    rest = render_body(processing, ctx, indent)
    if forward is None or rest is None:
        return None
    loss, var_list, _ = minimize_arguments(grads)
    pairs = call_argument(train.minimize_call(), "grads_and_vars", 0)
    global_step = call_argument(train.minimize_call(), "global_step", 1)
    tape = fresh_name("train_tape", ctx.names_in_use)
    code = lambda node: rewrite.code(node, generated.scope)  # noqa: E731
    rewrite.plan.note(train.node, TRAIN_STEP.code, f"compute_gradients/apply_gradients → {generated.name}(...)")
    optimizer = rewrite.optimizer_of.get(id(train.node)) or code(_optimizer_expression(train))
    gvs = local_name(grads.defines[0]) if grads.defines[0] in ctx.localize else grads.defines[0]
    forward, loss_code = _loss_under_tape(forward, code(loss), loss, ctx)
    # the processing (clipping) stays between the gradients and the update, as written
    gradients = [f"{gvs} = list(zip({tape}.gradient({loss_code}, variables), variables))", *rest]
    return train_step_lines(
        tape,
        forward,
        indent,
        _var_list(rewrite, var_list, generated, train),
        gradients,
        optimizer,
        code(pairs),
        code(global_step) if global_step is not None else None,
        fed_rate_of(generated.scope, train),
        loss_code,
        ctx.names_in_use,
    )


def train_step_body(rewrite: SessionRewrite, generated: Generated, body: list[str], ctx: BodyContext, indent: str) -> list[str]:
    """A train op's step: ``minimize(loss)`` becomes the rendered ``body`` under a tape, the
    gradients and the update; ``apply_gradients`` of gradients the body takes itself, the
    update after it."""
    train = generated.train
    assert train is not None
    code = lambda node: rewrite.code(node, generated.scope) if node is not None else None  # noqa: E731
    rewrite.plan.note(train.node, TRAIN_STEP.code, f"train op → {generated.name}(...)")
    minimize = train.minimize_call()
    if cst.ensure_type(minimize.func, cst.Attribute).attr.value == "apply_gradients":
        # of gradients the computation takes itself (tf.gradients, now a tape in ``body``)
        pairs = call_argument(minimize, "grads_and_vars", 0)
        assert pairs is not None  # ``apply_gradients(grads_and_vars)``: TF1 requires it
        global_step = call_argument(minimize, "global_step", 1)
        rate = fed_rate_of(generated.scope, train)
        return [
            *body,
            *update_lines(
                rewrite.optimizer_of[id(train.node)],
                rewrite.code(pairs, generated.scope),
                code(global_step),
                rate,
                None,
                indent,
                ctx.names_in_use,
            ),
        ]
    loss, var_list, global_step = minimize_arguments(train)
    tape = fresh_name("train_tape", ctx.names_in_use)
    body, loss_code = _loss_under_tape(body, code(loss), loss, ctx)
    gradients = [f"gradients = {tape}.gradient({loss_code}, variables)"]
    return train_step_lines(
        tape,
        body,
        indent,
        _var_list(rewrite, var_list, generated, train),
        gradients,
        rewrite.optimizer_of[id(train.node)],
        "zip(gradients, variables)",
        code(global_step),
        fed_rate_of(generated.scope, train),
        loss_code,
        ctx.names_in_use,
    )


def joint_step_body(rewrite: SessionRewrite, generated: Generated, body: list[str], ctx: BodyContext, indent: str) -> list[str]:
    """One run of several train ops (``sess.run([train_gen, train_disc, gen_loss])``): the
    forward computation once under a persistent tape, every train op's gradients from it,
    then every update — TF1's run with disjoint variables (analysis/train_variables.py)."""
    code = lambda node: rewrite.code(node, generated.scope) if node is not None else None  # noqa: E731
    tape = fresh_name("train_tape", ctx.names_in_use)
    watches: list[str] = []
    gradients: list[str] = []
    steps: list[tuple[str, str, str | None, str | None]] = []  # optimizer, pairs, counter, rate
    computed: list[str] = []  # every loss and gradient of the run: each update follows them all
    for train in (cst.ensure_type(generated.train, Statement), *generated.joint):
        rewrite.plan.note(
            train.node, TRAIN_STEP.code, f"train op → {generated.name}(...), its gradients taken before any update of the run"
        )
        loss, var_list, global_step = minimize_arguments(train)
        body, loss_code = _loss_under_tape(body, code(loss), loss, ctx)
        listed, watched = _var_list(rewrite, var_list, generated, train) or (None, None)
        variables = fresh_name("variables", ctx.names_in_use)
        gradient = fresh_name("gradients", ctx.names_in_use)
        watches += [f"{tape}.watch({watched})"] if watched else []
        gradients += [
            f"{variables} = {listed if listed is not None else f'{tape}.watched_variables()'}",
            f"{gradient} = {tape}.gradient({loss_code}, {variables})",
        ]
        steps.append(
            (rewrite.optimizer_of[id(train.node)], f"zip({gradient}, {variables})", code(global_step), fed_rate_of(generated.scope, train))
        )
        computed += [*([loss_code] if loss_code else []), f"[g for g in {gradient} if g is not None]"]
    trains = [cst.ensure_type(generated.train, Statement), *generated.joint]
    stale = stale_backward_reads(rewrite.module, rewrite.facts, generated.scope, trains)
    if stale is not None:
        rewrite.plan.note(trains[0].node, JOINT_STEP_READS_BEFORE_UPDATES.code, stale)
    updates = [line for step in steps for line in update_lines(*step, ", ".join(computed), indent, ctx.names_in_use)]
    return [
        f"with tf.GradientTape(persistent=True) as {tape}:",
        *[indent + line if line else line for line in [*watches, *body] or ["pass"]],
        "# every gradient from the values before this step, then every update, as one TF1 run of the train ops",
        *gradients,
        *updates,
    ]


def _loss_under_tape(
    body: list[str], loss_code: str | None, loss: cst.BaseExpression | None, ctx: BodyContext
) -> tuple[list[str], str | None]:
    """A loss written inline (``minimize(loss + 0.5 * tf.nn.l2_loss(W))``) is computed
    inside the tape, as the last step of the forward pass: computed after it, nothing
    of it would be recorded.  So is a variable minimized itself (``minimize(v)``): no
    op of the forward pass reads it, and the tape would see no variable at all."""
    variable = isinstance(loss, cst.Name) and loss.value in ctx.trainable_variables
    if loss is None or (isinstance(loss, cst.Name) or self_attribute(loss) is not None) and not variable:
        return body, loss_code
    name = fresh_name("train_loss", ctx.names_in_use)
    return [*body, f"{name} = {f'tf.identity({loss_code})' if variable else loss_code}"], name


def _var_list(
    rewrite: SessionRewrite, var_list: cst.BaseExpression | None, generated: Generated, train: Statement
) -> tuple[str, str] | None:
    """``var_list`` of ``train`` as the step reads it, and its variables as it watches them."""
    if var_list is None:
        return None
    code = lambda node: rewrite.code(node, generated.scope)  # noqa: E731
    watched = watched_variables(rewrite.module, rewrite.facts, var_list, generated.body, code)
    if watched is None:
        return None
    if _single_variable(generated.scope, var_list, train.order):
        # TF1 flattened ``var_list``: one variable trains as ``[v]`` (gradients a list too)
        return f"[{code(var_list)}]", watched
    if _nested(generated.scope, var_list, train.order):
        # TF1 flattened ``var_list`` (``nest.flatten``): a display of lists of variables
        # (``[self.weights, self.biases]``, ``[[w1, w2], [b1]]``, ``{"w": w}``) trains their
        # variables; the step pairs each gradient with its variable, which a nested list would
        # pair list with list
        return f"tf.nest.flatten({code(var_list)})", watched
    return code(var_list), watched
