"""TF1 programs that ran eagerly already: ``tf.enable_eager_execution()`` at the top.

TF 1.5–1.15 could run eagerly when a program switched eager execution on first thing;
its tutorials then used ``tf.contrib.eager`` (imported as ``tfe``) for what TF2 made
core.  In TF2 every program runs eagerly, so the rest is a matter of spelling:

- ``tf.enable_eager_execution()`` goes away (it is TF2's default);
- ``tfe = tf.contrib.eager`` goes away when each use of ``tfe`` is one of: ``tfe.Variable(…)``
  → ``tf.Variable(…)`` (the same resource variable), ``tfe.Iterator(dataset)`` →
  ``iter(dataset)`` (the same eager iterator: ``next()`` gives the next element, then
  ``StopIteration``), ``tfe.implicit_gradients(f)`` → ``implicit_gradients(f)``, a helper
  written once per file that does what TF1's did: run ``f`` under a tape, and return the
  (gradient, variable) pairs of the trainable variables it read;
- ``class Net(tfe.Network)`` → ``class Net(tf.keras.Model)``, and its ``self.track_layer(layer)``
  → ``layer``: what TF1 deprecated Network for (a Keras model tracks the layers assigned to
  its attributes, and its ``__call__`` runs ``call`` as Network's did);
- ``opt = tf.train.<Name>Optimizer(…)`` used only as ``opt.apply_gradients(pairs)`` → the
  Keras optimizer taking TF1's steps (rewrites/keras_optimizers.py: ``GradientDescent`` →
  ``tf.keras.optimizers.SGD``, the others a file helper running TF1's update kernels), when
  every argument is a number written out or a name bound once to one;
  ``opt.apply_gradients(pairs, global_step=step)`` → ``opt.apply_gradients(pairs)`` then
  ``step.assign_add(1)`` (TF1 added one to the step after the update), ``step`` the global
  step (``tf.train.get_or_create_global_step()``) or a name bound once to it or to a variable;
- ``tf.layers.Dense(…)`` (the layer classes: ``Conv1D``…``Conv3D``, ``Conv2DTranspose``, the
  pooling layers, ``Flatten``, ``Dropout``) → ``tf.keras.layers.Dense(…)``, arguments passed by
  name: in eager execution TF1's layer classes were these Keras layers (the same defaults,
  initializers and call), and ``tf.compat.v1.layers`` is gone from TF 2.16's Keras.

Anything else (another ``tfe`` member, a network using other ``Network`` members, an
optimizer used otherwise, a layer made with ``trainable=False``) is left as it was, with
the findings the names get.  The layer classes also stay, with an error finding, when the file
keeps a TF1 optimizer with slots (all but gradient descent): it cannot update a Keras 3
layer's variables (it keys its slots by ``_unique_id``, which they have not).
"""

from __future__ import annotations


import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.catalogue import GLOBAL_STEP_CALLS
from tf2migrate.analysis.layer_signatures import LAYER_CLASSES
from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.names import bound_once_at_top
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.plan import Plan
from tf2migrate.rewrites import file_helpers
from tf2migrate.rewrites.keras_optimizers import DROPPED_ARGUMENTS, KERAS_OPTIMIZERS
from tf2migrate.rewrites.session_cleanup import V1_SWITCH_REMOVED
from tf2migrate.rewrites.tf_names import API_RENAMED
from tf2migrate.traversal import find_all

IMPLICIT_GRADIENTS_NAME = "implicit_gradients"
IMPLICIT_GRADIENTS = '''def implicit_gradients(f):
    """tf.contrib.eager.implicit_gradients: a function returning the (gradient, variable)
    pairs of f's result with respect to the trainable variables f read."""

    def gradients(*args, **kwargs):
        with tf.GradientTape() as tape:
            result = f(*args, **kwargs)
        variables = tape.watched_variables()
        if not variables:
            raise ValueError("No trainable variables were accessed while the function was being computed.")
        return list(zip(tape.gradient(result, variables), variables))

    return gradients
'''
_TFE_MEMBERS = frozenset({"Variable", "Iterator", "implicit_gradients"})
# TF1's layer classes (``tf.layers.Dense``) → the Keras class and the constructor's
# parameters in TF1's positional order: the functional layer's, less ``inputs`` and the call's
# (``training``, ``reuse``); batch normalization stays (its TF1 class ran TF1's own update rules)
_EAGER_LAYER_CLASSES = {
    keras_class: ("data_format", "name") if keras_class == "Flatten" else tuple(p for p in parameters if p not in ("training", "reuse"))
    for keras_class, parameters in LAYER_CLASSES.values()
    if keras_class != "BatchNormalization"
}


def may_be_tf1_eager(source: str) -> bool:
    """A cheap test that this rewrite has nothing to do: no text of the switch."""
    return "enable_eager_execution" in source


def enables_eager_execution(module: cst.Module, imports: TfImports) -> bool:
    """Does the module switch eager execution on at its top level?  Then it ran eagerly from
    its first op (TF1 raised when the switch came after one): its sessions and module-level
    ops are no graph to convert or keep (a kept graph's ``disable_eager_execution()`` would
    turn the program into the graph program it never was)."""
    return _enable_statement(module, imports) is not None


def plan_tf1_eager(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str], graph_objects: bool = False) -> None:
    """``graph_objects``: the file also makes what reads as a TF1 graph (a session, which
    stays ``tf.compat.v1.Session``).  The switch then stays too, as
    ``tf.compat.v1.enable_eager_execution()`` (nothing in TF2): it tells a later run that
    the program runs eagerly, which the session alone would hide."""
    enable = _enable_statement(module, facts.imports)
    if enable is None:
        return
    if graph_objects:
        # (the switch is renamed as any TF1 name is, with its TFM401 finding)
        if facts.imports.call_name(cst.ensure_type(cst.ensure_type(enable.body[0], cst.Expr).value, cst.Call)) is None:
            return  # ``tfe.enable_eager_execution()``: the ``tfe`` import stays with it
    else:
        plan.remove.add(id(enable))
        plan.note(enable, V1_SWITCH_REMOVED.code, "tf.enable_eager_execution() removed: TF2 runs eagerly")
    top_level = bound_once_at_top(module)
    names = find_all(module, cst.Name)
    for line, alias in _imported_tfe(module, facts.imports):
        # the import's uses but the switch, removed already
        switch = cst.ensure_type(cst.ensure_type(enable.body[0], cst.Expr).value, cst.Call).func
        in_switch = {id(part) for part in find_all(switch, cst.Name)}
        uses = [n for n in _uses(alias, line, names) if id(n) not in in_switch]
        _plan_tfe(module, facts, plan, names_in_use, line, alias, uses, "import tensorflow.contrib.eager as")
    for name, (statement, value) in top_level.items():
        if facts.imports.canonical(value) == "contrib.eager":
            _plan_tfe(module, facts, plan, names_in_use, statement, name, _uses(name, statement, names))
        elif isinstance(value, cst.Call) and facts.imports.call_name(value) in KERAS_OPTIMIZERS:
            _plan_optimizer(module, facts, plan, names_in_use, statement, value, name, names, top_level)
    if not graph_objects:
        kept = _kept_optimizers_with_slots(module, facts, plan, top_level, names)
        if kept:
            _refuse_layer_classes(module, facts, plan, kept[0])
        else:
            _plan_layer_classes(module, facts, plan)


def _enable_statement(module: cst.Module, imports: TfImports) -> cst.SimpleStatementLine | None:
    for statement in module.body:
        if m.matches(statement, m.SimpleStatementLine(body=[m.Expr(m.Call(args=[]))])):
            call = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Expr).value
            assert isinstance(call, cst.Call)
            # ``tf.enable_eager_execution()``, or ``tfe.enable_eager_execution()`` of ``import tensorflow.contrib.eager as tfe``
            if (
                imports.call_name(call) == "enable_eager_execution"
                or imports.kept_call_name(call) == "contrib.eager.enable_eager_execution"
            ):
                return cst.ensure_type(statement, cst.SimpleStatementLine)
    return None


def _imported_tfe(module: cst.Module, imports: TfImports) -> list[tuple[cst.SimpleStatementLine, str]]:
    """``import tensorflow.contrib.eager as tfe`` at the module's top, one alias to a line:
    (the line, the alias)."""
    # (the imports' reading kept the aliases; a line of its own holds one of them)
    aliases = {id(alias) for alias, dotted in imports.kept if dotted == "tensorflow.contrib.eager" and isinstance(alias, cst.ImportAlias)}
    found = []
    for statement in module.body:
        if m.matches(statement, m.SimpleStatementLine(body=[m.Import(names=[m.ImportAlias(asname=m.AsName(name=m.Name()))])])):
            alias = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Import).names[0]
            if id(alias) in aliases and alias.evaluated_alias is not None:
                found.append((cst.ensure_type(statement, cst.SimpleStatementLine), alias.evaluated_alias))
    return found


def _uses(name: str, statement: cst.SimpleStatementLine, names: list[cst.CSTNode]) -> list[cst.Name]:
    """Every occurrence of ``name`` outside its binding ``statement``."""
    bound = {id(n) for n in find_all(statement, cst.Name)}
    return [n for n in names if isinstance(n, cst.Name) and n.value == name and id(n) not in bound]


def _member_calls(module: cst.Module, uses: list[cst.Name], members: frozenset[str]) -> list[tuple[cst.Call, str]] | None:
    """``(call, member)`` for each use written ``alias.member(...)``; None when a use is anything else."""
    parents = {id(a.value): a for a in find_all(module, m.Attribute(value=m.Name())) if isinstance(a, cst.Attribute)}
    calls = {id(c.func): c for c in find_all(module, m.Call(func=m.Attribute(value=m.Name()))) if isinstance(c, cst.Call)}
    out = []
    for use in uses:
        attribute = parents.get(id(use))
        call = calls.get(id(attribute)) if attribute is not None else None
        if attribute is None or call is None or attribute.attr.value not in members or any(a.star for a in call.args):
            return None
        out.append((call, attribute.attr.value))
    return out


def _plan_tfe(module, facts: GraphFacts, plan: Plan, names_in_use: set[str], statement, alias: str, uses, binding="") -> None:
    """``binding``: how the statement binds the alias (``import tensorflow.contrib.eager as``),
    when it is not ``alias = tf.contrib.eager``."""
    networks = _network_classes(module, alias)
    in_bases = {id(use) for _, use, _ in networks}
    calls = _member_calls(module, [u for u in uses if id(u) not in in_bases], _TFE_MEMBERS)
    if calls is None or any(member != "Variable" and (len(call.args) != 1 or call.args[0].keyword) for call, member in calls):
        return
    tracked = [_tracked_layers(c) for c, _, _ in networks]
    if any(t is None for t in tracked) or _lists_variables(module, [c for c, _, _ in networks]):
        return  # a network using other ``Network`` members, or listing its variables: TF1's API
    plan.remove.add(id(statement))
    if binding:
        # the import goes: its kept-import finding (TFM403) with it
        plan.remove.add(id(cst.ensure_type(statement.body[0], cst.Import).names[0]))
    written = f"{binding} {alias}" if binding else f"{alias} = tf.contrib.eager"
    plan.note(statement, API_RENAMED.code, f"`{written}` removed: its members used here are TF2 core")
    for (_, _, base), track_calls in zip(networks, tracked):
        plan.replace[id(base)] = cst.parse_expression("tf.keras.Model")
        plan.note(base, API_RENAMED.code, f"{alias}.Network → tf.keras.Model (a Keras model tracks the layers of its attributes)")
        for track in track_calls or ():
            plan.call_replacements[id(track)] = lambda updated: updated.args[0].value
            plan.note(track, API_RENAMED.code, "self.track_layer(layer) → layer (tracked as an attribute of the model)")
    for call, member in calls:
        if member == "Variable":
            plan.call_replacements[id(call)] = lambda updated: updated.with_changes(func=cst.parse_expression("tf.Variable"))
            plan.note(call, API_RENAMED.code, f"{alias}.Variable → tf.Variable")
        elif member == "Iterator":
            plan.call_replacements[id(call)] = lambda updated: updated.with_changes(func=cst.Name("iter"))
            plan.note(call, API_RENAMED.code, f"{alias}.Iterator(dataset) → iter(dataset) (TF2 datasets iterate eagerly)")
        else:
            helper = file_helpers.emit_once(module, facts, plan, names_in_use, IMPLICIT_GRADIENTS_NAME, IMPLICIT_GRADIENTS)
            plan.call_replacements[id(call)] = lambda updated, helper=helper: updated.with_changes(func=cst.Name(helper))
            plan.note(
                call, API_RENAMED.code, f"{alias}.implicit_gradients → `{helper}`, a GradientTape over the function's trainable variables"
            )


def _network_classes(module: cst.Module, alias: str) -> list[tuple[cst.ClassDef, cst.Name, cst.Attribute]]:
    """``class Net(alias.Network)`` at the module's top, one base: (the class, the alias's
    use, the base)."""
    found = []
    for statement in module.body:
        if isinstance(statement, cst.ClassDef) and len(statement.bases) == 1 and not statement.keywords:
            base = statement.bases[0].value
            if m.matches(base, m.Attribute(value=m.Name(alias), attr=m.Name("Network"))):
                found.append(
                    (statement, cst.ensure_type(cst.ensure_type(base, cst.Attribute).value, cst.Name), cst.ensure_type(base, cst.Attribute))
                )
    return found


# what a Network listed from its tracked layers only, and a Keras model from every attribute
_VARIABLE_LISTS = frozenset(
    {"variables", "trainable_variables", "non_trainable_variables", "weights", "trainable_weights", "non_trainable_weights", "layers"}
)


def _lists_variables(module: cst.Module, networks: list[cst.ClassDef]) -> bool:
    """Does the file read a network's variables as a list (``self.variables`` in the class,
    ``net.variables`` of a name bound to one, ``Net().weights``)?  TF1's Network listed the
    variables of the layers it tracked, a Keras model also those of its other attributes."""
    classes = {c.name.value for c in networks}
    instances = {
        target.value
        for assign in find_all(module, cst.Assign)
        if isinstance(assign, cst.Assign)
        and m.matches(assign.value, m.Call(func=m.Name()))
        and cst.ensure_type(cst.ensure_type(assign.value, cst.Call).func, cst.Name).value in classes
        for t in assign.targets
        if isinstance(target := t.target, cst.Name)
    }
    in_classes = {id(a) for c in networks for a in find_all(c, m.Attribute(value=m.Name("self")))}
    for attribute in find_all(module, cst.Attribute):
        assert isinstance(attribute, cst.Attribute)
        if attribute.attr.value not in _VARIABLE_LISTS:
            continue
        owner = attribute.value
        if (
            id(attribute) in in_classes
            or (isinstance(owner, cst.Name) and owner.value in instances)
            or (isinstance(owner, cst.Call) and isinstance(owner.func, cst.Name) and owner.func.value in classes)
        ):
            return True
    return False


def _tracked_layers(network: cst.ClassDef) -> list[cst.Call] | None:
    """The class's ``self.track_layer(layer)`` calls; None when the class reads another
    member Network had and a Keras model may not (``self.track_layer`` other than called
    with one argument, ``self.add_variable``, ``self.scope_name``…)."""
    network_only = {"track_layer", "add_variable", "scope_name", "layers_by_name", "get_layer"}
    calls = []
    for attribute in find_all(network, m.Attribute(value=m.Name("self"))):
        assert isinstance(attribute, cst.Attribute)
        if attribute.attr.value in network_only and attribute.attr.value != "track_layer":
            return None
    track_attributes = {id(a) for a in find_all(network, m.Attribute(value=m.Name("self"), attr=m.Name("track_layer")))}
    for call in find_all(network, m.Call(func=m.Attribute(value=m.Name("self"), attr=m.Name("track_layer")))):
        assert isinstance(call, cst.Call)
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        calls.append(call)
        track_attributes.discard(id(call.func))
    return None if track_attributes else calls


def _plan_optimizer(
    module, facts: GraphFacts, plan: Plan, names_in_use: set[str], statement, call: cst.Call, name: str, names, top_level
) -> None:
    path = facts.imports.call_name(call)
    assert path is not None  # the caller found it in KERAS_OPTIMIZERS
    keras_class, parameters, renames, defaults, helper = KERAS_OPTIMIZERS[path]
    bound = bind_arguments(call, parameters)
    if bound is None:
        return
    parts = []
    for parameter, argument in bound.items():
        value = argument.value
        if isinstance(value, cst.Name) and value.value in top_level:
            value = top_level[value.value][1]  # a number named once at the top
        if parameter in DROPPED_ARGUMENTS:
            continue
        if parameter == "name" and isinstance(value, cst.SimpleString):
            continue  # the name of TF1's slot variables: nothing reads it here
        if parameter == "use_nesterov" and m.matches(value, m.Name("True") | m.Name("False")):
            parts.append(f"{renames.get(parameter, parameter)}={module.code_for_node(value)}")
            continue
        if not _is_number(value):
            return  # a variable or tensor hyperparameter: TF1 read it at each step, Keras copies it once
        parts.append(f"{renames.get(parameter, parameter)}={module.code_for_node(argument.value)}")
    parts += [f"{k}={v}" for k, v in defaults.items() if k not in {renames.get(p, p) for p in bound}]
    calls = _member_calls(module, _uses(name, statement, names), frozenset({"apply_gradients"}))
    statements = {id(e.value): line for line in find_all(module, m.SimpleStatementLine(body=[m.Expr()])) for e in _expressions(line)}
    steps = {id(c): _counted_step(facts, c, top_level) for c, _ in calls or ()}
    if not calls or any(steps[id(c)] is None or id(c) not in statements for c, _ in calls):
        return  # used otherwise (its result read, another argument): TF1's optimizer API
    for apply, _ in calls:
        step = steps[id(apply)]
        if step:
            # TF1's ``apply_gradients(pairs, global_step=step)`` added one to the step after the
            # update; the Keras optimizer counts its own iterations only
            plan.call_replacements[id(apply)] = lambda updated: updated.with_changes(
                args=[updated.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
            )
            plan.add_after(statements[id(apply)], [cst.parse_statement(f"{step}.assign_add(1)\n", config=module.config_for_parsing)])
            plan.note(apply, API_RENAMED.code, f"apply_gradients(..., global_step=) → apply_gradients(...), then {step}.assign_add(1)")
    constructor = (
        f"tf.keras.optimizers.{keras_class}"
        if helper is None
        else file_helpers.emit_once(module, facts, plan, names_in_use, keras_class, helper)
    )
    code = f"{constructor}({', '.join(parts)})"
    plan.call_replacements[id(call)] = lambda updated: cst.parse_expression(code)
    update = "the same update, var -= lr * grad" if helper is None else "TF1's update, to the last digit"
    plan.note(call, API_RENAMED.code, f"tf.{path} → {constructor} ({update})")


def _counted_step(facts: GraphFacts, call: cst.Call, top_level) -> str | None:
    """What ``opt.apply_gradients(pairs)`` adds one to: ``""`` for nothing, the code of the
    step variable for ``global_step=`` a name bound once at the top to the global step (or a
    variable), or ``tf.train.get_or_create_global_step()`` written there; None for another
    argument (TF1's ``get_global_step()`` may be None, which TF1 did not count)."""
    if not call.args or call.args[0].keyword or call.args[0].star:
        return None
    rest = call.args[1:]
    if not rest:
        return ""
    if len(rest) != 1 or rest[0].keyword is None or rest[0].keyword.value != "global_step":
        return None
    value = rest[0].value
    if isinstance(value, cst.Name) and value.value in top_level:
        made = top_level[value.value][1]
        name = facts.imports.call_name(made) if isinstance(made, cst.Call) else None
        variable = isinstance(made, cst.Call) and (
            name == "Variable" or (facts.imports.kept_call_name(made) or "").endswith("eager.Variable")
        )
        return value.value if name in GLOBAL_STEP_CALLS or variable else None
    if isinstance(value, cst.Call) and not value.args and facts.imports.call_name(value) in GLOBAL_STEP_CALLS:
        return "tf.compat.v1.train.get_or_create_global_step()"
    return None


def _kept_optimizers_with_slots(module: cst.Module, facts: GraphFacts, plan: Plan, top_level, names) -> list[cst.Call]:
    """The TF1 optimizers with slot variables (all but gradient descent) the file keeps and
    may give a layer's variables: a TF1 optimizer keys its slots by the variables'
    ``_unique_id``, which a Keras 3 layer's variables have not (AttributeError at the first
    update).  One bound once at the top and used only as ``opt.minimize(loss_fn)`` takes the
    variables the function read under its tape (the layer's own TF variables): not counted."""
    bound = {id(value): (name, statement) for name, (statement, value) in top_level.items()}
    kept = []
    for call in find_all(module, cst.Call):
        assert isinstance(call, cst.Call)
        path = facts.imports.call_name(call)
        if id(call) in plan.call_replacements or path not in KERAS_OPTIMIZERS or path == "train.GradientDescentOptimizer":
            continue
        if id(call) in bound:
            name, statement = bound[id(call)]
            uses = _member_calls(module, _uses(name, statement, names), frozenset({"minimize"}))
            if uses and all(_minimizes_what_it_reads(use) for use, _ in uses):
                continue
        kept.append(call)
    return kept


def _minimizes_what_it_reads(call: cst.Call) -> bool:
    """``opt.minimize(loss_fn)`` (or with ``global_step``): no ``var_list`` given."""
    positional = [a for a in call.args if a.keyword is None]
    return len(positional) <= 2 and not any(a.star or (a.keyword is not None and a.keyword.value == "var_list") for a in call.args)


def _refuse_layer_classes(module: cst.Module, facts: GraphFacts, plan: Plan, optimizer: cst.Call) -> None:
    """TF1's layer classes stay (``tf.compat.v1.layers.Dense``, TF1's with Keras 2), with why."""
    for call in find_all(module, cst.Call):
        assert isinstance(call, cst.Call)
        path = facts.imports.call_name(call)
        if path is not None and path.startswith("layers.") and path[len("layers.") :] in _EAGER_LAYER_CLASSES:
            plan.note(
                call,
                blockers.UNSUPPORTED_GRAPH_CODE.code,
                f"tf.{path} stays TF1's: the file keeps TF1's `{module.code_for_node(optimizer.func)}` (a hyperparameter "
                "no number written out, or used otherwise than `opt.apply_gradients(pairs)`), which cannot update a "
                "Keras layer's variables; tf.compat.v1.layers needs Keras 2 (tf_keras, TF_USE_LEGACY_KERAS=1)",
            )


def _plan_layer_classes(module: cst.Module, facts: GraphFacts, plan: Plan) -> None:
    """``tf.layers.Dense(8, tf.nn.relu)`` → ``tf.keras.layers.Dense(units=8, activation=tf.nn.relu)``
    (Keras' positional order differs: ``Conv2D`` takes ``groups`` before ``activation``)."""
    for call in find_all(module, cst.Call):
        assert isinstance(call, cst.Call)
        path = facts.imports.call_name(call)
        if path is None or not path.startswith("layers.") or path[len("layers.") :] not in _EAGER_LAYER_CLASSES:
            continue
        keras_class = path[len("layers.") :]
        bound = bind_arguments(call, _EAGER_LAYER_CLASSES[keras_class])
        if bound is None or any(p not in _EAGER_LAYER_CLASSES[keras_class] for p in bound):
            continue  # ``**kwargs``, or a keyword Keras' class may read otherwise
        trainable = bound.get("trainable")
        if trainable is not None and not m.matches(trainable.value, m.Name("True")):
            continue  # TF1 left such a layer out of the trainable variables; implicit gradients too, but stay safe
        plan.call_replacements[id(call)] = lambda updated, keras_class=keras_class: updated.with_changes(
            func=cst.parse_expression(f"tf.keras.layers.{keras_class}"), args=_by_name(updated, keras_class)
        )
        plan.note(
            call, API_RENAMED.code, f"tf.layers.{keras_class} → tf.keras.layers.{keras_class} (TF1's eager layer class, arguments by name)"
        )


def _by_name(call: cst.Call, keras_class: str) -> list[cst.Arg]:
    """The arguments of the (rewritten) call by name: its arguments' own rewrites kept
    (``tf.zeros_initializer()`` renamed inside them: built from the original call, a second
    run renamed them)."""
    bound = bind_arguments(call, _EAGER_LAYER_CLASSES[keras_class])
    assert bound is not None  # bound the same before its arguments were rewritten
    arguments = [cst.Arg(keyword=cst.Name(p), value=a.value, equal=_EQUAL) for p, a in bound.items()]
    if keras_class == "Dropout" and "rate" not in bound:
        arguments.insert(0, cst.Arg(keyword=cst.Name("rate"), value=cst.Float("0.5"), equal=_EQUAL))  # TF1's default; Keras has none
    return _with_commas(arguments)


_EQUAL = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))


def _with_commas(arguments: list[cst.Arg]) -> list[cst.Arg]:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [a.with_changes(comma=comma if i < len(arguments) - 1 else cst.MaybeSentinel.DEFAULT) for i, a in enumerate(arguments)]


def _is_number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _expressions(line: cst.CSTNode) -> list[cst.Expr]:
    """The expression statement of a line holding only it."""
    return [e for e in cst.ensure_type(line, cst.SimpleStatementLine).body if isinstance(e, cst.Expr)]
