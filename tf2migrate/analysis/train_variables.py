"""The variables of train ops that one run steps together, told apart statically.

``sess.run([train_gen, train_disc, gen_loss], feed)`` (a GAN) steps two train ops in one
run.  TF1 orders nothing between them: each op's gradients read the values of the
variables as the run reads them, and each op updates its own.  When no variable is
updated by two of them (disjoint variables) and each train op has its own optimizer (its
step count and slots), the run means "every gradient from the values before this step,
then every update", which a TF2 step computing all the gradients first reproduces.  (A
loss may read the other train op's variables, as a GAN's do: TF1's forward pass reads
them before either update — a resource variable keeps the value read — while a TF1 ref
variable, updated in place, could in principle be read again by the backward pass after
the other update; the converted step takes the values of the forward pass for both.)  That "in principle" is
seen in practice: a GAN stepping ``train_gen`` and ``train_disc`` in one TF1 run (ref
variables, TF1's executor) ended its steps with other losses than the same program with
``tf.enable_resource_variables()``, which the converted step matches exactly;
:func:`stale_backward_reads` says when a run is of that kind, for a warning (TFM417).

What "disjoint" needs is the identity of each variable, known only when it is written
out: a ``var_list`` of variables the file creates (``[w1, b1]``, ``weights['gen_out']``
of a dict display of ``tf.Variable`` calls, a name bound once to such a list), or,
without ``var_list``, the variables each loss reaches through statements that call TF
only (a helper of the file may read any variable).  Variable reuse
(``reuse=``, ``reuse_variables()``) makes two statements one variable: refused.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.calls import call_argument, calls_in
from tf2migrate.analysis.catalogue import makes_variables
from tf2migrate.analysis.layer_reuse import enclosing_withs, reused_layer_call
from tf2migrate.analysis.model import GraphFacts, Kind, Scope, Statement
from tf2migrate.analysis.names import graph_name
from tf2migrate.traversal import find_all, walk

# A variable: the statement that created it, and its key in a dict display (None: the
# statement's only variable, or every variable it made).
VariableKey = tuple[int, str | None]


def joint_refusal(module: cst.Module, facts: GraphFacts, scope: Scope, trains: list[Statement]) -> str | None:
    """Why the train ops one run steps cannot become one step that takes every gradient
    before any update, or None when it can."""
    names = ", ".join(f"`{t.defines[0]}`" for t in trains)
    if any(cst.ensure_type(t.minimize_call().func, cst.Attribute).attr.value != "minimize" for t in trains):
        return f"one run steps the train ops {names}: converted when each is `opt.minimize(...)`"
    optimizers = [_optimizer_identity(scope, t) for t in trains]
    if None in optimizers or len(set(optimizers)) < len(optimizers):
        return (
            f"one run steps the train ops {names} of one optimizer (or of one not written out): its step count, advanced "
            "by each, is read by the other in no fixed order"
        )
    if sum(call_argument(t.minimize_call(), "global_step", 1) is not None for t in trains) > 1:
        return f"one run steps the train ops {names}, which advance global steps in no fixed order"
    if _reuses_variables(module, facts):
        return f"one run steps the train ops {names}: the file reuses variables (`reuse`), so their variables cannot be told apart"
    seen: dict[VariableKey, str] = {}
    for train in trains:
        keys = _trained_variables(module, facts, scope, train)
        if keys is None:
            return (
                f"one run steps the train ops {names}: the variables of `{train.defines[0]}` cannot be shown disjoint from "
                "the others' (write `var_list` as a list of the variables the file creates)"
            )
        for key in keys:
            other = next(
                (name for (order, k), name in seen.items() if order == key[0] and (k is None or key[1] is None or k == key[1])), None
            )
            if other is not None:
                return f"one run steps the train ops {names}, and `{train.defines[0]}` and `{other}` update the same variables"
        seen.update(dict.fromkeys(keys, train.defines[0]))
    return None


def stale_backward_reads(module: cst.Module, facts: GraphFacts, scope: Scope, trains: list[Statement]) -> str | None:
    """Why the values of a joint step (train ops :func:`joint_refusal` accepted) may differ
    from a TF1 run with reference variables, or None: the loss of one train op reaches a
    variable another one updates (or what it reaches is not known)."""
    trained = {t.order: _trained_variables(module, facts, scope, t) for t in trains}
    for train in trains:
        closure = _loss_closure(facts, scope, train)
        # the graph's layers the loss applies (a layer applied again by name: its maker's)
        layers = {key for key in _reached_variables(module, facts, scope, train) or [] if key[1] and key[1].startswith("layer ")}
        for other in trains:
            if other is train:
                continue
            updated = trained[other.order]
            known = closure is not None and updated is not None
            if not known or any(
                (o, k) in layers if k and k.startswith("layer ") else _reads_variable(closure or [], scope.statements[o], k)
                for o, k in updated or []
            ):
                return (
                    f"the loss of `{train.defines[0]}` {'reads' if known else 'may read'} variables that `{other.defines[0]}` "
                    "updates in the same run: TF1's reference variables let its backward pass read them before or after that "
                    "update, in no fixed order; the train step takes every gradient from the values before the step, as TF1 did "
                    "with resource variables (`tf.enable_resource_variables()`), so its values may differ from a TF1 run's"
                )
    return None


def _optimizer_identity(scope: Scope, train: Statement) -> int | None:
    """The order of the statement creating the optimizer of ``train`` (its own, for one
    created inline), None when it is not found."""
    optimizer = cst.ensure_type(train.minimize_call().func, cst.Attribute).value
    if isinstance(optimizer, cst.Call):
        return train.order
    name = graph_name(optimizer)
    found = scope.resolve(name, train.order) if name is not None else None
    return found.order if found is not None and found.kind is Kind.OPTIMIZER else None


def _reuses_variables(module: cst.Module, facts: GraphFacts) -> bool:
    """Does the file reuse variables other than by its converted layer helpers (whose
    calls' reuse analysis/layer_helpers.py followed: each applies the layers of one call)
    and its graph's layer calls reusing an earlier one's by name (analysis/layer_reuse.py)?"""
    followed = {id(c) for helper in facts.layer_helpers for c in calls_in(helper.node, enter_defs=True)}
    followed |= {id(site.call) for helper in facts.layer_helpers for site in helper.calls.values()}
    followed |= set(_graph_layer_makers(module, facts))
    return any(
        (
            any(a.keyword is not None and a.keyword.value == "reuse" for a in call.args)
            or (isinstance(call.func, cst.Attribute) and call.func.attr.value == "reuse_variables")
        )
        and id(call) not in followed
        for call in facts.calls
    )


def _graph_layer_makers(module: cst.Module, facts: GraphFacts) -> dict[int, tuple[int, int]]:
    """Each graph layer call proven to reuse an earlier one's variables (analysis/layer_reuse.py),
    by id: the statement order of the call that made them and its index among its layer calls."""
    makers: dict[int, tuple[int, int]] = {}
    for scope in facts.scopes:
        withs = enclosing_withs(scope)
        for statement in scope.statements:
            for call in statement.layer_calls:
                earlier = reused_layer_call(module, facts.imports, scope, withs, statement, call)
                if isinstance(earlier, cst.Call):
                    maker = next(s for s in scope.statements if any(c is earlier for c in s.layer_calls))
                    makers[id(call)] = (maker.order, next(i for i, c in enumerate(maker.layer_calls) if c is earlier))
    return makers


def _trained_variables(module: cst.Module, facts: GraphFacts, scope: Scope, train: Statement) -> list[VariableKey] | None:
    var_list = call_argument(train.minimize_call(), "var_list", 2)
    if var_list is None:
        return _reached_variables(module, facts, scope, train)
    return _listed(module, facts, scope, var_list, train.order)


def _reached_variables(module: cst.Module, facts: GraphFacts, scope: Scope, train: Statement) -> list[VariableKey] | None:
    """The variable-making statements the loss of ``train`` reaches (a variable, a layer, any
    TF call that makes variables), when every statement it goes through calls TF only (a statement calling a helper of the file may read
    variables its dependencies do not show)."""
    closure = _loss_closure(facts, scope, train)
    if closure is None:
        return None
    makers = _graph_layer_makers(module, facts)
    keys: list[VariableKey] = []
    for statement in closure:
        layers = [
            makers.get(id(call), (statement.order, index)) for index, call in enumerate(statement.layer_calls)
        ]  # a layer applied again by name: the variables of the call that made them
        keys += [(order, f"layer {index}") for order, index in layers]
        if (
            statement.kind is Kind.VARIABLE
            or statement.rnn_calls
            or any(
                makes_variables(p)
                for c in calls_in(statement.node)
                if all(c is not lc for lc in statement.layer_calls) and (p := facts.imports.call_name(c))
            )
        ):
            keys.append((statement.order, None))
    return keys


def _loss_closure(facts: GraphFacts, scope: Scope, train: Statement) -> list[Statement] | None:
    """The statements the loss of ``train`` goes through, in the order met; None when one
    calls anything but TF (a helper of the file may read variables its dependencies do not show)."""
    met: list[Statement] = []
    seen: set[int] = set()
    pending = [scope.statements[o] for o in train.deps]
    while pending:
        statement = pending.pop()
        if statement.order in seen:
            continue
        seen.add(statement.order)
        if statement.layer_helper_calls or any(facts.imports.call_name(c) is None for c in calls_in(statement.node)):
            return None
        met.append(statement)
        if statement.kind in (Kind.TENSOR, Kind.OPTIMIZER):
            pending.extend(scope.statements[o] for o in statement.deps)
    return met


def _reads_variable(closure: list[Statement], made: Statement, key: str | None) -> bool:
    """Does a statement of the closure read the variable ``made`` made (``params['w']`` of a
    dict display for ``key``; any of them for None)?"""
    if key is None:
        return any(s is made for s in closure)
    names = set(made.defines)
    return any(
        isinstance(node.value, cst.Name)
        and node.value.value in names
        and len(node.slice) == 1
        and isinstance(index := node.slice[0].slice, cst.Index)
        and isinstance(index.value, cst.SimpleString)
        and index.value.evaluated_value in (key, None)
        for statement in closure
        for node in find_all(statement.node, cst.Subscript)
        if isinstance(node, cst.Subscript)
    )


def _listed(module: cst.Module, facts: GraphFacts, scope: Scope, var_list: cst.BaseExpression, before: int) -> list[VariableKey] | None:
    """The variables of a ``var_list`` written out: a list or tuple display of them, a
    name bound once to such a display, a sum of those, or one variable."""
    if isinstance(var_list, cst.BinaryOperation) and isinstance(var_list.operator, cst.Add):
        left = _listed(module, facts, scope, var_list.left, before)
        right = _listed(module, facts, scope, var_list.right, before)
        return None if left is None or right is None else left + right
    if isinstance(var_list, (cst.List, cst.Tuple)):
        keys = [_variable(module, facts, scope, e.value, before) if isinstance(e, cst.Element) else None for e in var_list.elements]
        return None if None in keys else [k for k in keys if k is not None]
    single = _variable(module, facts, scope, var_list, before)
    if single is not None:
        return [single]
    layers = _layer_variables(facts, scope, var_list, before)
    if layers is not None:
        return layers
    value = _bound_once(module, scope, var_list, before)
    return _listed(module, facts, scope, value, before) if isinstance(value, (cst.List, cst.Tuple)) else None


def _variable(module: cst.Module, facts: GraphFacts, scope: Scope, expr: cst.BaseExpression, before: int) -> VariableKey | None:
    """``w`` bound once to ``tf.Variable(...)`` (or ``tf.get_variable``), or
    ``weights['w']`` of a name bound once to a dict display of such calls."""
    key = None
    if isinstance(expr, cst.Subscript):
        index = expr.slice[0].slice if len(expr.slice) == 1 else None
        if not (isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)):
            return None
        key = str(index.value.evaluated_value)
        expr = expr.value
    value = _bound_once(module, scope, expr, before)
    if key is not None and isinstance(value, cst.Dict):
        keys = [
            str(e.key.evaluated_value) if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) else None
            for e in value.elements
        ]
        if None in keys or len(set(keys)) < len(keys) or key not in keys:
            return None
        value = cst.ensure_type(value.elements[keys.index(key)], cst.DictElement).value
    elif key is not None:
        return None
    if not _creates_variable(facts, value):
        return None
    statement = scope.graph_statement(cst.ensure_type(expr, cst.Name).value, before)
    return (statement.order, key) if statement is not None and statement.kind is Kind.VARIABLE else None


def _layer_variables(facts: GraphFacts, scope: Scope, var_list: cst.BaseExpression, before: int) -> list[VariableKey] | None:
    """The layers of ``gen_vars = tf.get_collection(...)`` written out over the layer
    helpers' layers or the graph's (analysis/layer_variable_lists.py): each the statement
    that made it and its index among the helper's layers (the statement's layer calls)."""
    statement = scope.graph_statement(var_list.value, before) if isinstance(var_list, cst.Name) else None
    line = statement.node if statement is not None else None
    assign = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
    value = assign.value if isinstance(assign, cst.Assign) else var_list  # (or the collection as ``var_list=`` itself)
    listed = next((v for v in facts.layer_variable_lists if v.call is value), None)
    if listed is None:
        return None
    helpers: list[VariableKey] = [(placed.statement.order, f"layer {index}") for placed, index in listed.layers]
    return helpers + [(order, f"layer {index}") for order, index, _ in listed.graph_layers]


def _creates_variable(facts: GraphFacts, value: cst.BaseExpression | None) -> bool:
    path = facts.imports.call_name(value) if isinstance(value, cst.Call) else None
    return path is not None and path.rsplit(".", 1)[-1] in ("Variable", "get_variable")


def _bound_once(module: cst.Module, scope: Scope, expr: cst.BaseExpression, before: int) -> cst.BaseExpression | None:
    """The value of ``name = value``, the only binding of a plain name in its scope, made
    before ``before`` and never changed in place (no method called on it, no item
    assigned); None otherwise."""
    if not isinstance(expr, cst.Name) or len(scope.bindings.get(expr.value, ())) != 1 or expr.value in scope.nested_bindings:
        return None
    statement = scope.resolve(expr.value, before)
    line = statement.node if statement is not None else None
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    assign = line.body[0]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
        return None
    return None if _changed_in_place(module, expr.value) else assign.value


def _changed_in_place(module: cst.Module, name: str) -> bool:
    """Is a method called on ``name`` (``gen_vars.append(w)``), an item of it assigned or
    deleted, or the name rebound in a nested function (``global``)?"""

    class Finder(cst.CSTVisitor):
        found = False

        def visit_Attribute(self, node: cst.Attribute) -> None:
            self.found |= isinstance(node.value, cst.Name) and node.value.value == name

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            self.found |= _subscript_of(node.target, name)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self.found |= _subscript_of(node.target, name) or isinstance(node.target, cst.Name) and node.target.value == name

        def visit_Del(self, node: cst.Del) -> None:
            self.found |= _subscript_of(node.target, name)

        def visit_Global(self, node: cst.Global) -> None:
            self.found |= any(n.name.value == name for n in node.names)

    finder = Finder()
    walk(module, finder)
    return finder.found


def _subscript_of(target: cst.BaseExpression, name: str) -> bool:
    return isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value == name
