"""Which variables each initializer run of a graph scope initializes.

TF1 initialized a variable each time an initializer covering it ran: a second
``sess.run(tf.global_variables_initializer())`` after training put every variable
made before that initializer back to its initial value (a new draw, for a random
initializer), and Adam's slots with them.  Eager variables are initialized once, when
created, so the migration may drop initializer runs only when no two of them cover the
same variable.  This module tells, for a scope's initializer runs in statement order,
whether some run covers a variable an earlier one already covered — or whether that
cannot be told, which counts the same.

What a run covers:
- ``tf.global_variables_initializer()`` (``initialize_all_variables``, and
  ``variables_initializer`` of anything but a list of variable names): every variable
  made before the initializer was made — its own statement's order when it is bound to
  a name, else the run's — and after the last graph reset (``reset_default_graph()``:
  the variables before it belong to a graph nothing can run any more);
- ``tf.variables_initializer([a, b])``, ``a.initializer``: those variables;
- ``tf.local_variables_initializer()`` (and ``tables_initializer``): the graph's local
  variables (tables), counted as one set apart from the global variables;
- ``tf.group(...)`` of initializers: the union.

Variables are made by the scope's VARIABLE statements and, for the optimizers' slots,
its TRAIN statements.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from tf2migrate.traversal import walk
from tf2migrate.analysis.model import Kind, lookup_graph_name, RunForm, RunSite, Scope, Statement
from tf2migrate.analysis.tf_imports import TfImports

_GLOBAL = frozenset({"global_variables_initializer", "initialize_all_variables", "variables_initializer", "initialize_variables"})
_LOCAL = frozenset({"local_variables_initializer", "initialize_local_variables", "tables_initializer"})
_CREATING = (Kind.VARIABLE, Kind.TRAIN)

_MORE_THAN_ONCE = "variables are initialized more than once; eager variables are initialized when created"
_IN_LOOP = (
    "variables are initialized by a run in a loop (each pass put them back to their initial values); eager variables "
    "are initialized once, when created"
)
_AGAIN_AFTER_RUNS = (
    "{} initialized again after other runs since the first initialization: TF1 put {} "
    "(a random initializer draws anew); eager variables are initialized once, when created"
)
_IN_TWO_SESSIONS = (
    "variables are initialized in {} and again in {}, each session holding its own values of them; an eager variable has one value"
)
_IN_FUNCTION = (
    "variables are initialized by a run in `{}`, which may run more than once (each call put them back to their "
    "initial values); eager variables are initialized once, when created"
)

#: the set of a graph's local variables (tables), apart from any statement's order
_LOCALS = -1


def reinitializes(
    tf: TfImports,
    module: cst.Module,
    scope: Scope,
    sites: list[RunSite],
    leaves: Callable[[cst.BaseExpression], Iterable[cst.BaseExpression]],
    other_runs: Iterable[int | None] = (),
) -> tuple[str, list[RunSite]] | None:
    """Why some of ``sites`` (initializer runs of ``scope``) initializes a variable an
    earlier one already initialized in the same graph (a run in a loop repeats itself),
    or that cannot be told (``leaves`` splits a fetch into its expressions), with the runs
    the reason is about (the one that initializes again, not the first, which did nothing
    wrong); None when none does.

    A second initialization with no other run since the first (``other_runs``: the orders
    of the file's other runs, None for a run whose place is not known) changes nothing a
    program can see: the value the first put there was never read nor updated (a random
    initializer's first draw is never seen; the second is the one TF1 used) — when both ran in
    one session: two sessions of a graph each hold their own values of its variables."""
    others = list(other_runs)
    looping = [site for site in sites if site.in_loop]
    if looping:
        return _IN_LOOP, looping
    for site in sites:
        repeated = _repeated_function(module, scope, site)
        if repeated is not None:
            return _IN_FUNCTION.format(repeated), [site]
    if len(sites) < 2:
        return None
    if any(site.order is None for site in sites):
        return _MORE_THAN_ONCE, sites
    resets = [s.order for s in scope.statements if _is_graph_reset(tf, s)]
    made = _creating_statements(scope)
    initialized: dict[int, int] = {}  # variable (its statement's key) → the run that initialized it
    session_of: dict[int, str | None] = {}  # that run's order → the session it ran in
    graph_start = -1
    for site in sorted(sites, key=lambda s: s.order or 0):
        assert site.order is not None
        start = max((r for r in resets if r < site.order), default=-1)
        if start != graph_start:
            graph_start, initialized = start, {}
        covered: set[int] = set()
        for leaf in leaves(site.fetch):
            part = _covered(tf, scope, leaf, site.order, graph_start)
            if part is None:
                return _MORE_THAN_ONCE, sites
            covered |= part
        again = [initialized[v] for v in covered if v in initialized]
        if again and any(run is None or min(again) < run < site.order for run in others):
            names = [
                f"`{name}`" if made[v].kind is not Kind.TRAIN else f"the optimizer state of `{name}`"
                for v in sorted(covered & made.keys(), key=list(made).index)
                if v in initialized
                for name in made[v].defines
            ]
            if not names:
                return _MORE_THAN_ONCE, sites
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            return _AGAIN_AFTER_RUNS.format(
                f"{shown} {'is' if len(names) == 1 else 'are'}",
                "it back to its initial value" if len(names) == 1 else "them back to their initial values",
            ), [site]
        session = _session_name(site)
        if again and any(session is None or session_of[run] != session for run in again):
            return _IN_TWO_SESSIONS.format(_session_label(session_of[min(again)]), _session_label(session)), [site]
        initialized.update(dict.fromkeys(covered, site.order))
        session_of[site.order] = session
    return None


def _session_name(site: RunSite) -> str | None:
    """The session a run ran in: ``sess`` of ``sess.run(init)``, ``s`` of
    ``init.run(session=s)``, ``""`` for the default session; None when not known."""
    if site.form is RunForm.SESSION_RUN:
        func = site.call.func
        return func.value.value if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) else None
    if site.form in (RunForm.EVAL, RunForm.OP_RUN):
        session = next((arg.value for arg in site.call.args if arg.keyword is not None and arg.keyword.value == "session"), None)
        if session is None:
            return ""
        return session.value if isinstance(session, cst.Name) else None
    return None


def _creating_statements(scope: Scope) -> dict[int, Statement]:
    """The statements making variables that an initializer run of ``scope`` may cover, by
    key (``id``): the scope's own and, for a function's scope, those of the scopes around it
    (a module's variables, which a function's ``global_variables_initializer()`` covers too)."""
    scopes = []
    current: Scope | None = scope
    while current is not None:
        scopes.append(current)
        current = current.parent
    # (outer scopes first: their variables were made before the function ran)
    return {id(s): s for current in reversed(scopes) for s in current.statements if s.kind in _CREATING}


def _session_label(session: str | None) -> str:
    if session is None:
        return "a session not known"
    return f"session `{session}`" if session else "the default session"


def _covered(tf: TfImports, scope: Scope, expr: cst.BaseExpression, order: int, graph_start: int) -> set[int] | None:
    """The creating statements ``expr`` initializes, by key (``id``; ``_LOCALS`` for the
    local variables), made at ``order``; None when not known."""
    if isinstance(expr, cst.Call):
        name = tf.call_name(expr)
        if name == "group":
            union: set[int] = set()
            for arg in expr.args:
                part = _covered(tf, scope, arg.value, order, graph_start)
                if part is None:
                    return None
                union |= part
            return union
        if name in _LOCAL:
            return {_LOCALS}
        if name in _GLOBAL:
            listed = _listed_variables(scope, expr, order) if name != "global_variables_initializer" else None
            return listed if listed is not None else _made_between(scope, graph_start, order)
        return None
    if isinstance(expr, cst.Attribute) and expr.attr.value == "initializer" and isinstance(expr.value, cst.Name):
        found = lookup_graph_name(scope, expr.value.value, order)
        return {id(found[1])} if found is not None and found[1].kind is Kind.VARIABLE else None
    if isinstance(expr, cst.Name):
        found = lookup_graph_name(scope, expr.value, order)
        if found is None or found[0] is not scope or found[1].kind is not Kind.INIT:
            return None
        value = _assigned_value(found[1])
        return _covered(tf, scope, value, found[1].order, graph_start) if value is not None else None
    return None


def _listed_variables(scope: Scope, call: cst.Call, order: int) -> set[int] | None:
    """``variables_initializer([a, b])``: the statements making ``a`` and ``b``."""
    if not call.args or not isinstance(call.args[0].value, (cst.List, cst.Tuple)):
        return None
    orders = set()
    for element in call.args[0].value.elements:
        if not isinstance(element.value, cst.Name):
            return None
        found = lookup_graph_name(scope, element.value.value, order)
        if found is None or found[1].kind is not Kind.VARIABLE:
            return None
        orders.add(id(found[1]))
    return orders


def _made_between(scope: Scope, start: int, end: int) -> set[int]:
    """The scope's variables made between a graph reset (``start``) and ``end``, by key; and
    when no reset of the scope came first, those of the scopes around it: a function
    initializing the variables of the module's graph (TF1's global initializer covered every
    variable of the default graph, wherever it was made)."""
    own = {id(s) for s in scope.statements if s.kind in _CREATING and start < s.order < end}
    if start >= 0 or scope.parent is None:
        return own
    return own | set(_creating_statements(scope.parent))


def _assigned_value(statement: Statement) -> cst.BaseExpression | None:
    node = statement.node
    if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign):
        return node.body[0].value
    return None


def _is_graph_reset(tf: TfImports, statement: Statement) -> bool:
    """``tf.reset_default_graph()`` as a statement of its own (or through ``from
    tensorflow.python.framework import ops``, as tutorials wrote it)."""
    node = statement.node
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Expr)):
        return False
    call = node.body[0].value
    return isinstance(call, cst.Call) and (
        tf.call_name(call) == "reset_default_graph" or tf.kept_call_name(call) == "python.framework.ops.reset_default_graph"
    )


def _repeated_function(module: cst.Module, scope: Scope, site: RunSite) -> str | None:
    """The name of the function holding an initializer run that may run more than once
    while the variables it covers live on; None when it runs once.  A run nested in a def
    of the graph's scope (a method of its class) repeats with that def; a run in a
    function of its own that initializes the enclosing scope's variables (a module-level
    graph, ``def train():`` opening a session) repeats with the function, and one in the
    constructor of a class whose objects each open a session on the module's graph
    repeats with each construction."""
    function = site.function
    if site.order is None:
        if function is None:
            return "a function"
        if scope.cls is not None:
            once = scope.initializer_methods_run_once or _method_called_once(module, scope.cls, function)
        else:
            once = _def_runs_once(scope, function)
        return None if once else function.name.value
    owner, parent = scope.owner, scope.parent
    if not isinstance(owner, cst.FunctionDef):
        return None
    enclosing_variables = False
    while parent is not None:
        enclosing_variables |= any(s.kind in _CREATING for s in parent.statements)
        parent = parent.parent
    if not enclosing_variables or scope.parent is None:
        return None
    if scope.cls is not None:
        # a constructor initializing the module's variables: once per object, each in its own session
        once = _called_once(module, scope.cls.name.value, scope.cls.name)
        return None if once else f"{scope.cls.name.value}.__init__"
    return None if _def_runs_once(scope.parent, owner) else owner.name.value


def _def_runs_once(scope: Scope, function: cst.FunctionDef) -> bool:
    """Does a def of the graph's scope run at most once per run of that scope?  So it
    does when the scope's own body — the module, or the function building the graph —
    defines it and calls it once, by name, outside any loop, def, lambda or comprehension,
    and never names it otherwise (``main()`` under ``if __name__ == "__main__":``).  A
    function called twice, in a loop, from another function or passed as a value is not
    known to run once."""
    owner = scope.owner
    body = owner.body if isinstance(owner, cst.Module) else owner.body.body
    if not any(statement is function for statement in body):
        return False
    uses = _NameUses(function.name.value, function.name)
    for statement in body:
        if statement is not function:
            walk(statement, uses)
    return uses.calls == 1 and uses.other == 0


def _method_called_once(module: cst.Module, cls: cst.ClassDef, method: cst.FunctionDef) -> bool:
    """Is a method of a module-level class called once in the module, ``model.fit(...)``
    in straight-line module code, and named nowhere else (not by the class itself, not
    as a value)?  Then each object runs it at most once."""
    if not any(statement is cls for statement in module.body) or not any(m is method for m in cls.body.body):
        return False
    return _called_once(module, method.name.value, method.name)


def _called_once(module: cst.Module, name: str, own: cst.Name) -> bool:
    """Is ``name`` (a function, a method as ``x.name``, a class) called once in straight-line
    module code and named nowhere else?"""
    uses = _NameUses(name, own)
    walk(module, uses)  # (the project's traversal: libcst's visit rebuilds the tree)
    return uses.calls == 1 and uses.other == 0


class _NameUses(cst.CSTVisitor):
    """Counts the uses of a name (``name`` or ``x.name``): calls of it in straight-line
    code, and any other (a call in a loop, a def, a class, a lambda or a comprehension;
    the name as a value).  ``own`` is the def's own name, not a use."""

    _REPEATING = (cst.For, cst.While, cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)

    def __init__(self, name: str, own: cst.Name) -> None:
        self.name = name
        self.own = own
        self.calls = 0
        self.other = 0
        self.depth = 0
        self.called: set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, self._REPEATING):
            self.depth += 1
        if isinstance(node, cst.Call) and self._names(node.func):
            self.called.add(id(node.func))
        if self._names(node) and node is not self.own:
            if id(node) in self.called and self.depth == 0:
                self.calls += 1
            else:
                self.other += 1
            return False  # (the attribute's own Name node is not a second use)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, self._REPEATING):
            self.depth -= 1

    def _names(self, node: cst.CSTNode) -> bool:
        return (isinstance(node, cst.Name) and node.value == self.name) or (
            isinstance(node, cst.Attribute) and node.attr.value == self.name
        )
