"""The order of a run's variable updates and reads: what TF1 left open, TF2 fixes.

A TF1 session runs the ops of one ``sess.run`` in any order their data and control
dependencies allow.  A generated ``tf.function`` runs its stateful ops in program order
(automatic control dependencies), so where TF1 fixed no order the migration picks one.
Two shapes of one run are refused (TFM306), found among the statements the generated
function would run (and the fetched expressions written inline):

- *unordered*: an update of variable ``v`` (``tf.assign(v, …)``, ``v.assign_add(…)``,
  ``tf.scatter_update(v, …)`` …) and another op of the run that reads or updates ``v``,
  with no dependency either way (``a = tf.assign(v, 7.0)``, ``r = v * 1.0``,
  ``sess.run([a, r])``; ``tf.group(tf.assign(a, a + b), tf.assign(b, b * 2.0))``).  TF1
  gave ``r`` before or after the update as its scheduler went (measured: before; the
  migration, after), with ref and resource variables alike.
- *aliased snapshot*: ``s = tf.identity(v)`` (or ``v.read_value()``, ``v.value()``)
  ordered before an update of ``v`` in the same run, ``s`` fetched (or read by an op not
  ordered before the update).  TF1's ref variables (its default) hand the identity the
  variable's own buffer, which the update then changes in place: the run returned the
  value *after* the update (measured: ``tf.identity(v)`` of 2.0 under
  ``tf.control_dependencies`` of an ``assign_add(v, 3.0)`` fetched as 5.0); the
  migration returns the snapshot, 2.0.

Dependencies are followed through the names the statements bind, in order, and through
``with tf.control_dependencies([...]):`` blocks (every statement of the block depends on
the list's values).  Ops inside a lambda (a ``tf.cond`` branch, a loop body) count as
reads and updates of their statement for other statements, but not against each other
(two branches of one ``tf.cond`` never both run).  Updates whose variable is not a name
(or ``self`` attribute) of the variables outside the run, and updates made by helpers,
are not followed.  A variable fetched as it is beside its update is not concerned: TF1
returned it after the update, and so does the migration.

- *trained read*: a train op of the run and another op of the run that reads a variable the
  train op updates (``w_doubled = W * 2.0``, ``w_snap = tf.identity(W)``,
  ``sess.run([train_op, w_doubled])``), not on the way to the loss or the gradients the
  update follows.  TF1 read it before or after the update as its scheduler went (measured:
  ``W * 2.0`` before in some runs, after in others; the identity, through the aliased
  buffer, after); the migration reads it in the forward pass, before.  The trained
  variables: the names of a ``var_list`` holding one variable each, else those the way to
  the loss reads (not ``trainable=False``); the train op's own global-step increment is
  left out (a decayed rate fetched beside the train op, ``sess.run([train_op, lr])``, was
  measured before the increment, as the migration computes it), and so are the forward
  passes of every train op of the run (joint train steps compute them all before the
  updates: analysis/train_variables.py).  The kept graph makes reference variables, which
  read as TF1 did.
- *rate read*: a train op of the run whose learning rate a decay schedule computes from a
  variable (``lr = tf.train.exponential_decay(0.5, global_step, …)``,
  ``GradientDescentOptimizer(lr)``) and another op of the run that updates that variable
  (``inc = tf.assign_add(global_step, 1)``, ``sess.run([train_op, inc])``).  The rate was
  built outside the run, ordered after nothing in it: TF1 read the step before or after
  the update (measured: before); the migration's schedule, called by the Keras update after
  the forward pass, reads it after.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.calls import call_argument
from tf2migrate.analysis.model import Kind, Scope, Statement
from tf2migrate.analysis.names import graph_name, read_and_bound, self_attribute, target_names
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.analysis.unrun_ops import STATEFUL_METHODS
from tf2migrate.traversal import find_all, preorder

# TF1 functions that update their first argument (``tf.assign(ref, value)``): the methods' namesakes
_UPDATE_FUNCTIONS = STATEFUL_METHODS
# ``tf.identity(v)``, ``v.read_value()``, ``v.value()``: TF1 ref variables give them the variable's buffer
_SNAPSHOT_METHODS = frozenset({"read_value", "value"})


@dataclass
class _Unit:
    """A simple statement of the run (or a fetched expression written inline, or the list
    of a ``tf.control_dependencies``)."""

    node: cst.CSTNode
    index: int
    defines: tuple[str, ...] = ()
    mentions: set[str] = field(default_factory=set)  # graph names read, lambdas included
    controls: tuple[int, ...] = ()  # units of the enclosing control_dependencies lists
    updates: list[tuple[str, cst.Call]] = field(default_factory=list)
    snapshot_of: str | None = None
    # the mentions each update call owns besides its arguments: the target and the items of
    # the comprehension whose variable it updates (``[p.assign(...) for p in [W, b]]``)
    owned: dict[int, set[int]] = field(default_factory=dict)
    # updates of a comprehension's variable whose items are not known variables
    unresolved: list[tuple[cst.Call, str]] = field(default_factory=list)


class _Mentions(cst.CSTVisitor):
    """Names and ``self`` attributes read in a subtree (not keywords, not attribute names)."""

    def __init__(self, skip_lambdas: bool) -> None:
        self.skip_lambdas = skip_lambdas
        self.found: list[tuple[str, cst.CSTNode]] = []

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return not self.skip_lambdas

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        return False  # bound, not read

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        name = graph_name(node)
        if name is not None:
            self.found.append((name, node))
            return False
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.found.append((node.value, node))


def _mentions(node: cst.CSTNode, skip_lambdas: bool = False) -> list[tuple[str, cst.CSTNode]]:
    visitor = _Mentions(skip_lambdas)
    node.visit(visitor)
    return visitor.found


class RunOrdering:
    """The refusals of one generated function's run (see the module docstring)."""

    def __init__(self, imports: TfImports, module: cst.Module) -> None:
        self.imports = imports
        self.code = module.code_for_node
        self._last_body: tuple[list[cst.CSTNode], list[_Unit]] | None = None

    def refusals(self, body: list[Statement], inline: list[cst.BaseExpression], fetched: set[str]) -> list[tuple[cst.CSTNode, str]]:
        """``body``: the statements the function runs, in order; ``inline``: fetched
        expressions that are not a name; ``fetched``: the names the run fetches."""
        units = [*self._body_units(body)]
        for expression in inline:
            units.append(self._unit(expression, (), len(units), (), units))
        found: list[tuple[cst.CSTNode, str]] = [item for unit in units for item in unit.unresolved]
        if found or not any(u.updates for u in units):
            return found
        before = self._ancestors(units)
        for unit in units:
            found += self._within(unit, units)
        for writer in units:
            for variable, call in writer.updates:
                found += self._across(units, before, writer, variable, call, fetched)
        return found

    def train_refusals(self, scope: Scope, body: list[Statement], trains: list[Statement]) -> list[tuple[cst.CSTNode, str]]:
        """The *trained read* shape, among ``body`` (the statements the function runs) and
        the run's train ops ``trains``."""
        if not trains:
            return []
        units = self._body_units(body)
        before = self._ancestors(units)
        # each train op follows the units binding what its call reads, and their inputs: the
        # forward passes of every train op of the run come before all their updates
        follows: dict[int, set[int]] = {}
        for train in trains:
            inputs = {n for a in train.minimize_call().args for n, _ in _mentions(a.value)}
            direct = {self._defined_by[n] for n in inputs if n in self._defined_by}
            follows[train.order] = direct | {d for u in direct for d in before[u]}
        forward = set().union(*follows.values())
        found: list[tuple[cst.CSTNode, str]] = []
        for train in trains:
            var_list = call_argument(train.minimize_call(), "var_list", 2)
            listed = {n for n, _ in _mentions(var_list)} if var_list is not None else set()
            trained = {n for n in listed if _is_variable(scope, n, train.order, trainable_only=False)}
            if not trained:
                trained = {n for u in follows[train.order] for n in units[u].mentions if _is_variable(scope, n, train.order)}
            for unit in units:
                read = sorted(unit.mentions & trained)
                if read and unit.index not in forward:
                    found.append((unit.node, self._trained_message(train.defines[0], read[0], self.code(unit.node).strip())))
                    break
        return found

    def rate_refusals(self, body: list[Statement], rate_reads: dict[str, str]) -> list[tuple[cst.CSTNode, str]]:
        """The *rate read* shape: updates among ``body`` (the statements the function
        runs) of the variables in ``rate_reads`` (``scheduled_rate_reads``)."""
        if not rate_reads:
            return []
        units = self._body_units(body)
        return [
            (call, self._rate_message(variable, call, rate_reads[variable]))
            for writer in units
            for variable, call in writer.updates
            if variable in rate_reads and not _bound_in_run(units, writer, variable)
        ]

    # -- the units and their dependencies ----------------------------------------------

    def _body_units(self, body: list[Statement]) -> list[_Unit]:
        """The units of the statements a function runs, made once for the run's three checks
        (asked again for the same statements, the last units are given back)."""
        nodes: list[cst.CSTNode] = [statement.node for statement in body]
        if self._last_body is not None and len(nodes) == len(self._last_body[0]) and all(map(operator.is_, nodes, self._last_body[0])):
            return self._last_body[1]
        units: list[_Unit] = []
        for node in nodes:
            self._units(node, (), units)
        self._last_body = (nodes, units)
        return units

    def _units(self, node: cst.CSTNode, controls: tuple[int, ...], units: list[_Unit]) -> None:
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                units.append(self._unit(small, _defines(small), len(units), controls, units))
            return
        control = self._control_list(node)
        if control is not None:
            units.append(self._unit(control, (), len(units), controls, units))
            inner = (*controls, len(units) - 1)
            for child in cst.ensure_type(node, cst.With).body.body:
                self._units(child, inner, units)
            return
        units.append(self._unit(node, (), len(units), controls, units))  # a loop, a branch: one unit

    def _control_list(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        if not isinstance(node, cst.With) or len(node.items) != 1:
            return None
        call = node.items[0].item
        if not isinstance(call, cst.Call) or self.imports.call_name(call) != "control_dependencies":
            return None
        return call_argument(call, "control_inputs", 0)

    def _unit(self, node: cst.CSTNode, defines: tuple[str, ...], index: int, controls: tuple[int, ...], earlier: list[_Unit]) -> _Unit:
        unit = _Unit(node, index, defines, {name for name, _ in _mentions(node)}, controls)
        for call in _calls(node):
            variable = self._updated(call)
            if variable is None:
                continue
            comprehension = _binding_comprehension(node, call, variable)
            if comprehension is None:
                unit.updates.append((variable, call))
                continue
            # ``[p.assign(tf.clip_by_value(p, -0.01, 0.01)) for p in theta_D]``: an update of
            # each item, the variables of the list display iterated (or bound to the name
            # iterated by a statement of the run)
            clause, items = comprehension
            variables = _display_names(clause.iter) if not isinstance(clause.iter, cst.Name) else self._listed(clause.iter.value, earlier)
            if variables is None or len(set(variables)) != len(variables):
                iterated = self.code(clause.iter)
                unit.unresolved.append((call, self._unresolved(variable, call, iterated, variables is not None)))
                continue
            unit.updates += [(name, call) for name in variables]
            unit.owned[id(call)] = {id(n) for _, n in _mentions(clause.target)} | {id(n) for _, n in _mentions(items)}
        value = node.value if isinstance(node, cst.Assign) and len(defines) == 1 else None
        unit.snapshot_of = self._snapshot(value) if value is not None else None
        return unit

    def _updated(self, call: cst.Call) -> str | None:
        """The variable an update call changes, when it is a name or a ``self`` attribute."""
        name = self.imports.call_name(call)
        if name is not None:
            if name not in _UPDATE_FUNCTIONS:
                return None
            ref = call_argument(call, "ref", 0)
            return graph_name(ref) if ref is not None else None
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in STATEFUL_METHODS:
            return graph_name(call.func.value)
        return None

    def _snapshot(self, value: cst.BaseExpression) -> str | None:
        if not isinstance(value, cst.Call):
            return None
        if self.imports.call_name(value) == "identity" and len(value.args) >= 1 and value.args[0].keyword is None:
            inner = value.args[0].value
            return graph_name(inner) or (self._snapshot(inner) if isinstance(inner, cst.Call) else None)
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value in _SNAPSHOT_METHODS and not value.args:
            return graph_name(func.value)
        return None

    def _ancestors(self, units: list[_Unit]) -> list[set[int]]:
        """For each unit, the units TF1 certainly ran before it (data and control inputs)."""
        latest: dict[str, int] = {}
        direct: list[set[int]] = []
        for unit in units:
            inputs = {latest[n] for n in unit.mentions if n in latest} | set(unit.controls)
            direct.append(inputs)
            for name in unit.defines:
                latest[name] = unit.index
        before: list[set[int]] = []
        for unit in units:
            seen: set[int] = set()
            for d in direct[unit.index]:
                if d < unit.index:  # a loop unit reads its own later bindings: not an input
                    seen.add(d)
                    seen |= before[d]
            before.append(seen)
        self._defined_by = latest
        return before

    # -- the refusals ------------------------------------------------------------------

    def _within(self, unit: _Unit, units: list[_Unit]) -> list[tuple[cst.CSTNode, str]]:
        """Two ops of one statement: an update and another read or update of its variable
        outside its own arguments (lambdas left out)."""
        outside = _mentions(unit.node, skip_lambdas=True)
        for call in _calls(unit.node, skip_lambdas=True):
            variable = self._updated(call)
            if variable is None or _bound_in_run(units, unit, variable):
                continue
            inside = {id(n) for _, n in _mentions(call)} | unit.owned.get(id(call), set())
            if any(name == variable and id(n) not in inside for name, n in outside):
                return [(call, self._message(variable, call, self.code(unit.node).strip(), "reads or updates it outside that update"))]
        return []

    def _across(
        self, units: list[_Unit], before: list[set[int]], writer: _Unit, variable: str, call: cst.Call, fetched: set[str]
    ) -> list[tuple[cst.CSTNode, str]]:
        if _bound_in_run(units, writer, variable):
            return []
        for other in units:
            if other is writer or variable not in other.mentions:
                continue
            if writer.index not in before[other.index] and other.index not in before[writer.index]:
                return [(call, self._message(variable, call, self.code(other.node).strip(), "reads or updates it too"))]
            if other.snapshot_of == variable and other.index in before[writer.index]:
                snapshot = other.defines[0]
                readers = [u for u in units if snapshot in u.mentions and u is not writer and u.index not in before[writer.index]]
                if snapshot in fetched or readers:
                    return [(call, self._aliased(variable, call, self.code(other.node).strip()))]
        if id(call) in writer.owned:
            # an update of a comprehension's item: a function of the file called by an op of
            # the run may read the variable (``D_real = discriminator(X)`` reading ``D_W1``),
            # and reads in functions are not followed
            for other in units:
                if other is writer or writer.index in before[other.index] or other.index in before[writer.index]:
                    continue
                helper = next((c for c in _calls(other.node) if isinstance(c.func, cst.Name) and self.imports.call_name(c) is None), None)
                if helper is not None:
                    how = f"calls `{self.code(helper.func)}(...)`, which may read it"
                    return [(call, self._message(variable, call, self.code(other.node).strip(), how))]
        return []

    def _message(self, variable: str, call: cst.Call, other: str, how: str) -> str:
        return (
            f"one run updates `{variable}` (`{self.code(call)}`) and runs `{other}`, which {how}, "
            "with no dependency between the two: TF1 ran them in no fixed order, the migration would run them in "
            "program order (order them with `tf.control_dependencies`, or run them in two runs)"
        )

    def _trained_message(self, train: str, variable: str, other: str) -> str:
        return (
            f"one run steps `{train}`, which updates `{variable}`, and runs `{other}`, which reads it, with no dependency "
            "between the two: TF1 read it before or after the update, in no fixed order, the migration would read it "
            "before (run it in a run of its own, or fetch the variable itself)"
        )

    def _rate_message(self, variable: str, call: cst.Call, rate: str) -> str:
        return (
            f"one run updates `{variable}` (`{self.code(call)}`) and steps a train op whose learning rate `{rate}` is "
            f"computed from `{variable}`, with no dependency between the two: TF1 computed the rate before or after the "
            "update, in no fixed order, the migration would compute it after (run the update in a run of its own)"
        )

    def _listed(self, name: str, earlier: list[_Unit]) -> list[str] | None:
        """The variables a list display binds to ``name`` in a statement of the run
        (``theta_D = [D_W1, D_W2, D_b1, D_b2]``), or None."""
        binding = next((u for u in reversed(earlier) if name in u.defines), None)
        if binding is None or binding.defines != (name,) or not isinstance(binding.node, cst.Assign):
            return None
        return _display_names(binding.node.value)

    def _unresolved(self, variable: str, call: cst.Call, iterated: str, repeated: bool) -> str:
        what = "names a variable twice" if repeated else "is not a list display of variables bound by a statement of the run"
        return (
            f"one run updates `{variable}` (`{self.code(call)}`) for each item of `{iterated}`, which {what}: which "
            "variables the run updates, and whether other ops of it read them in no fixed order, is not known "
            "(write the updates out, or run them in a run of their own)"
        )

    def _aliased(self, variable: str, call: cst.Call, snapshot: str) -> str:
        return (
            f"`{snapshot}` is fetched in a run that then updates `{variable}` (`{self.code(call)}`): TF1's ref variables "
            "give the snapshot the variable's own buffer, which the update changes in place, so TF1 returned the value "
            "after the update; the migration would return the value before it (fetch the snapshot in a run of its own, "
            "or compute a new value from it, `v * 1.0`)"
        )


def _is_variable(scope: Scope, name: str, before: int, trainable_only: bool = True) -> bool:
    """``name`` holds one variable (not a dict or list of them, nor a graph step:
    ``get_or_create_global_step``), made without ``trainable=False`` unless not ``trainable_only``."""
    found = scope.graph_statement(name, before)
    if found is None or found.kind is not Kind.VARIABLE or found.value_kind != "variable" or found.global_step is not None:
        return False
    return not trainable_only or not any(
        isinstance(arg.value, cst.Name) and arg.value.value == "False"
        for call in _calls(found.node)
        for arg in call.args
        if arg.keyword is not None and arg.keyword.value == "trainable"
    )


def scheduled_rate_reads(scope: Scope, trains: list[Statement]) -> dict[str, str]:
    """The variables the learning rates of ``trains`` read through a decay schedule
    (``lr = tf.train.exponential_decay(0.5, global_step, …)``), each with the rate's name:
    the migration's schedule reads them when the Keras update runs."""
    reads: dict[str, str] = {}
    for train in trains:
        if train.minimize is None or not isinstance(train.minimize.func, cst.Attribute):
            continue
        optimizer = train.minimize.func.value  # ``opt`` in ``opt.minimize(loss)``, or the constructor inline
        if not isinstance(optimizer, cst.Call):
            name = graph_name(optimizer) or self_attribute(optimizer)
            found = scope.resolve(name, train.order) if name is not None else None
            if found is None or found.kind is not Kind.OPTIMIZER or not isinstance(found.node, cst.SimpleStatementLine):
                continue
            assign = found.node.body[0]
            if not isinstance(assign, cst.Assign) or not isinstance(assign.value, cst.Call):
                continue
            optimizer = assign.value
        rate = call_argument(optimizer, "learning_rate", 0)
        rate_name = graph_name(rate) if rate is not None else None
        schedule = scope.graph_statement(rate_name, train.order) if rate_name is not None else None
        if rate_name is None or schedule is None or not schedule.schedule_calls:
            continue
        for name in read_and_bound(schedule.node)[0]:
            variable = scope.graph_statement(name, schedule.order)
            if variable is not None and variable.kind is Kind.VARIABLE:
                reads.setdefault(name, rate_name)
    return reads


def _calls(node: cst.CSTNode, skip_lambdas: bool = False) -> list[cst.Call]:
    class Calls(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[cst.Call] = []

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return not skip_lambdas

        def visit_Call(self, node: cst.Call) -> None:
            self.found.append(node)

    visitor = Calls()
    node.visit(visitor)
    return visitor.found


def _defines(small: cst.BaseSmallStatement) -> tuple[str, ...]:
    """The names (and ``self`` attributes) an assignment binds."""
    if not isinstance(small, cst.Assign):
        return ()
    names: list[str] = []
    for target in small.targets:
        name = graph_name(target.target)
        names += [name] if name is not None else target_names(target.target)
    return tuple(names)


def _bound_in_run(units: list[_Unit], unit: _Unit, name: str) -> bool:
    """``name`` is a value of the run itself (bound by ``unit`` or before it), not a
    variable outside it."""
    return any(name in u.defines for u in units[: unit.index + 1])


def _binding_comprehension(node: cst.CSTNode, call: cst.Call, name: str) -> tuple[cst.CompFor, cst.BaseExpression] | None:
    """The ``for`` clause binding ``name`` of a comprehension of ``node`` whose element holds
    ``call`` (the innermost such comprehension), with the expression it iterates."""
    found = None
    for comprehension in find_all(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        if not isinstance(comprehension, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            continue  # (find_all gives nodes of those types only: for the type checker)
        if not any(inner is call for inner in preorder(comprehension.elt)):
            continue
        clause: cst.CompFor | None = comprehension.for_in
        while clause is not None:
            if isinstance(clause.target, cst.Name) and clause.target.value == name:
                found = (clause, clause.iter)
            clause = clause.inner_for_in
    return found


def _display_names(value: cst.BaseExpression) -> list[str] | None:
    """The graph names of a list or tuple display of them (``[W, b]``, ``(self.W, self.b)``)."""
    if not isinstance(value, (cst.List, cst.Tuple)) or not value.elements:
        return None
    names = [graph_name(e.value) if isinstance(e, cst.Element) else None for e in value.elements]
    return None if any(n is None for n in names) else [n for n in names if n is not None]
