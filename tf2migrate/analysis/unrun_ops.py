"""Stateful ops TF1 did not run: a session runs only the ops its fetches need.

A TF1 program builds ops, and each ``sess.run`` executes only the subgraph its fetches
need; an op nothing fetched never ran.  After migration graph code is ordinary code:
every statement placed in a generated function, or kept where it stood, runs — and
``tf.function`` runs every stateful op of its body (automatic control dependencies).
For an op without state that costs time only; for one that changes state (an assignment
to a variable, a scatter update, a Python function called from the graph) it changes
the results.  These shapes are refused (TFM310):

- *dangling*: a stateful op whose value nothing uses — a statement of its own
  (``tf.assign_add(c, 1.0)``) or a local of a helper that nothing reads.  TF1 never ran it;
  the migration would run it where it stands, or on every call of the code that calls the
  helper (a ``tf.cond`` branch too).
- *unfetched*: a stateful op bound with other values in one statement (``upd, y =
  tf.assign_add(c, 1.0), W * x``) that a generated function runs for ``y``;
- *pruned*: a stateful op in the forward pass of a gradient or of a train step, when the
  run fetches no value that needs it.  TF1 ran only the forward ops the gradient
  computation read, which depends on each op's gradient function (in
  ``W * x + tf.assign_add(c, 1.0) * 0.0`` differentiated in ``x``, the assignment is not
  read); the generated function records the whole forward pass on its tape.  An op
  that certainly ran is converted: one whose value a gradient function of the fetched
  computation reads (``analysis/gradient_reads.py``: the moving averages of a
  hand-written batch norm, under ``tf.control_dependencies`` of the normalised value
  that ``tf.nn.relu`` and the next ``tf.matmul`` feed on).

Random ops are not counted: their streams differ between TF1 and TF2 whatever runs.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.gradient_reads import GradientReads
from tf2migrate.analysis.model import GraphFacts, Helper, Kind, Scope, Statement
from tf2migrate.analysis.names import read_and_bound
from tf2migrate.traversal import walk

# Methods of a variable whose op changes state when it runs (``W.assign(...)``).
STATEFUL_METHODS = frozenset(
    {
        "assign",
        "assign_add",
        "assign_sub",
        "count_up_to",
        "scatter_update",
        "scatter_add",
        "scatter_sub",
        "scatter_mul",
        "scatter_div",
        "scatter_min",
        "scatter_max",
        "scatter_nd_update",
        "scatter_nd_add",
        "scatter_nd_sub",
        "batch_scatter_update",
    }
)
# TF1 functions with the same effect (canonical paths): the methods' namesakes
# (``tf.assign_add(v, 1)``) and Python functions called from the graph.
STATEFUL_CALLS = STATEFUL_METHODS | {"py_func", "py_function", "numpy_function"}


class StatefulCalls:
    """Which calls run a stateful op: a TF1 stateful function or variable method, or a
    helper of the file whose body makes one (transitively)."""

    def __init__(self, facts: GraphFacts) -> None:
        self.facts = facts
        self._helpers: dict[int, list[cst.Call]] = {}
        stateful = {name: self._direct(helper.node) for name, helper in facts.helpers.items()}
        # each helper's calls of the file's helpers, found once (the fixed point below reads them per round)
        helper_calls = {
            name: [c for c in calls_in(helper.node.body) if self._helper(c) is not None] for name, helper in facts.helpers.items()
        }
        changed = True
        while changed:  # a helper calling a stateful helper is stateful
            changed = False
            for name, calls in helper_calls.items():
                if not stateful[name] and any(stateful[self._helper_name(call)] for call in calls):
                    stateful[name] = calls
                    changed = True
        self._stateful_helpers = {name for name, calls in stateful.items() if calls}

    def _direct(self, node: cst.CSTNode) -> list[cst.Call]:
        return [c for c in calls_in(node, enter_defs=True) if self.is_op(c)]

    def is_op(self, call: cst.Call) -> bool:
        """A stateful TF op itself (not a helper of the file that makes one)."""
        name = self.facts.imports.call_name(call)
        if name is not None:
            return name in STATEFUL_CALLS
        return isinstance(call.func, cst.Attribute) and call.func.attr.value in STATEFUL_METHODS

    def _helper_name(self, call: cst.Call) -> str:
        func = call.func
        if isinstance(func, cst.Name):
            return func.value
        return f"self.{func.attr.value}"  # type: ignore[attr-defined]

    def _helper(self, call: cst.Call) -> Helper | None:
        func = call.func
        if isinstance(func, cst.Name):
            return self.facts.helpers.get(func.value)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            return self.facts.helpers.get(f"self.{func.attr.value}")
        return None

    def is_stateful(self, call: cst.Call) -> bool:
        return self.is_op(call) or (self._helper(call) is not None and self._helper_name(call) in self._stateful_helpers)

    def in_node(self, node: cst.CSTNode) -> list[cst.Call]:
        """The stateful calls of a subtree (lambdas included: a ``tf.cond`` branch runs
        its ops when taken, in both versions)."""
        return [c for c in calls_in(node) if self.is_stateful(c)]


def find_dangling_state(facts: GraphFacts, stateful: StatefulCalls) -> None:
    """Block on stateful ops whose value nothing uses in graph code kept where it stands
    (it would run there, eagerly) and in the helpers graph code refers to (calls, or
    passes as a ``tf.cond``/``tf.while_loop`` body).  Graph statements that move into
    generated functions are checked with the function (``pruned_state_changes``): one
    that no function runs is dropped, as TF1 never ran it."""
    graph_reads: set[str] = set()
    for scope in facts.scopes:
        for statement in scope.statements:
            if statement.kind is not Kind.PYTHON:
                graph_reads.update(statement.reads)
            elif not isinstance(statement.node, (cst.FunctionDef, cst.ClassDef)):
                for call in discarded_state_changes(facts, stateful, statement.node):
                    facts.block(call, blockers.UNRUN_STATE_CHANGE, _DANGLING.format(where="in graph-building code"))
    for name in _helpers_reached(facts, graph_reads):
        for call in discarded_state_changes(facts, stateful, facts.helpers[name].node.body):
            facts.block(call, blockers.UNRUN_STATE_CHANGE, _DANGLING.format(where=f"in `{name}`, which graph code calls"))
        _block_unread_locals(facts, stateful, facts.helpers[name].node)


_DANGLING = "a stateful op whose value nothing uses ({where}): TF1 built it but no run fetched it; the migrated code would run it"
_SEVERAL_VALUES = (
    "a stateful op in a statement that binds several values: TF1 ran it only if a fetch needed its own value; "
    "the migrated function runs the whole statement"
)
_PRUNED = (
    "a stateful op that only the fetched gradient or train step needs: TF1 ran it only if the gradient computation "
    "read its value; the migrated function would run it at every call"
)


def _runs_graph(node: cst.CSTNode) -> bool:
    """Does the statement run graph ops itself (``sess.run(...)``, ``x.eval()``, ``op.run()``)?"""
    return any(isinstance(c.func, cst.Attribute) and c.func.attr.value in ("run", "eval") for c in calls_in(node))


def _helpers_reached(facts: GraphFacts, reads: set[str]) -> list[str]:
    reached: list[str] = []
    stack = [n for n in reads if n in facts.helpers]
    while stack:
        name = stack.pop()
        if name in reached:
            continue
        reached.append(name)
        inner, _ = read_and_bound(facts.helpers[name].node.body)
        stack.extend(n for n in inner if n in facts.helpers)
        stack.extend(
            f"self.{c.func.attr.value}"
            for c in calls_in(facts.helpers[name].node.body)
            if isinstance(c.func, cst.Attribute)
            and isinstance(c.func.value, cst.Name)
            and c.func.value.value == "self"
            and f"self.{c.func.attr.value}" in facts.helpers
        )
    return reached


class _DiscardedValues(cst.CSTVisitor):
    """Expression statements (values thrown away), outside nested defs and lambdas."""

    def __init__(self) -> None:
        self.values: list[cst.BaseExpression] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Expr(self, node: cst.Expr) -> None:
        self.values.append(node.value)


def discarded_state_changes(facts: GraphFacts, stateful: StatefulCalls, node: cst.CSTNode) -> list[cst.Call]:
    """The stateful calls of a subtree's expression statements: values thrown away that
    are themselves stateful (or a ``tf.group`` of stateful ops)."""
    finder = _DiscardedValues()
    walk(node, finder)
    found: list[cst.Call] = []
    for value in finder.values:
        if not isinstance(value, cst.Call) or _runs_graph(value):
            continue  # ``sess.run(tf.assign(...))``: run where it stands, in both versions
        if not (stateful.is_stateful(value) or facts.imports.call_name(value) in ("group", "tuple")):
            continue  # ``tf.add_to_collection(UPDATE_OPS, tf.assign(...))``: kept for a later run
        found.extend(stateful.in_node(value))
    return found


def _block_unread_locals(facts: GraphFacts, stateful: StatefulCalls, function: cst.FunctionDef) -> None:
    """``bump = tf.assign_add(c, 1.0)`` in a helper, ``bump`` never read: dangling too."""
    reads, _ = read_and_bound(function.body)
    for statement in function.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Assign) or not all(isinstance(t.target, cst.Name) for t in small.targets):
                continue
            if any(t.target.value in reads for t in small.targets):  # type: ignore[attr-defined]
                continue
            for call in stateful.in_node(small.value):
                facts.block(
                    call,
                    blockers.UNRUN_STATE_CHANGE,
                    f"a stateful op bound to a name `{function.name.value}` never reads: TF1 built it but no run "
                    "fetched it; the migrated code would run it at every call",
                )


def pruned_state_changes(
    facts: GraphFacts, stateful: StatefulCalls, scope: Scope, roots: list[Statement], body: list[Statement]
) -> list[tuple[cst.Call, str]]:
    """Stateful calls of a generated function's body that TF1 may not have run, with the
    reason: those only the fetched gradients or train step need, not a fetched value, and
    values thrown away.  ``roots`` are the statements the fetches name, ``body`` the
    statements the function runs."""
    forward: set[int] = set()
    stack = [s for s in roots if s.kind is Kind.TENSOR and not _differentiates(s)]
    while stack:
        statement = stack.pop()
        if statement.order in forward or _differentiates(statement):
            continue  # a gradient's inputs: TF1 computed only those its gradient read
        forward.add(statement.order)
        stack.extend(scope.statements[o] for o in statement.deps if scope.statements[o].kind is Kind.TENSOR)
    found: list[tuple[cst.Call, str]] = []
    reads: GradientReads | None = None
    for statement in body:
        if statement.order not in forward:
            for call in stateful.in_node(statement.node):
                reads = reads or GradientReads(facts, scope, roots)
                if not (stateful.is_op(call) and reads.ran(call)):
                    found.append((call, _PRUNED))
        elif isinstance(statement.node, cst.SimpleStatementLine) and len(statement.defines) > 1:
            # ``upd, y = tf.assign_add(c, 1.0), W * x``: TF1 ran the op only if a fetch needed ``upd``
            found += [(c, _SEVERAL_VALUES) for c in stateful.in_node(statement.node)]
        else:
            found += [
                (c, _DANGLING.format(where="in graph-building code")) for c in discarded_state_changes(facts, stateful, statement.node)
            ]
    return found


def _differentiates(statement: Statement) -> bool:
    return bool(statement.gradient_calls) or statement.calls_gradient_helper or statement.kind is Kind.GRADS


_ONE_ELEMENT = (
    "a stateful op in `{name}`, a {display} of several values of which the run fetches one element: TF1 ran "
    "only the ops that element needs; the migrated function builds, and so runs, the whole {display}"
)


def partly_fetched_updates(stateful: StatefulCalls, body: list[Statement], fetched: set[str]) -> list[tuple[cst.Call, str]]:
    """Stateful calls in a list, tuple or dict display bound to one name (``ops =
    [tf.assign_add(v, 1.0), tf.assign_add(w, 5.0)]``) when the run reads the name only
    through an element (``sess.run(ops[0])``): ``fetched`` are the names the run fetches
    whole; a statement of the run reading the name uses it whole too."""
    found: list[tuple[cst.Call, str]] = []
    for statement in body:
        node = statement.node
        if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and len(statement.defines) == 1):
            continue
        small = node.body[0]
        value = small.value if isinstance(small, cst.Assign) else None
        if not isinstance(value, (cst.List, cst.Tuple, cst.Dict)) or len(value.elements) < 2:
            continue
        name = statement.defines[0]
        if name in fetched or any(name in other.reads for other in body if other is not statement):
            continue
        display = {cst.List: "list", cst.Tuple: "tuple", cst.Dict: "dict"}[type(value)]
        found += [(c, _ONE_ELEMENT.format(name=name, display=display)) for c in stateful.in_node(value)]
    return found
