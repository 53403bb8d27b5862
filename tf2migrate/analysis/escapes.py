"""Find graph values that ordinary Python code reads (TFM301 / TFM303).

After migration, placeholders and graph tensors live only inside generated functions and
sessions are gone.  Code that is kept — anything that is not a graph statement, or the
fetch and feed keys of a run site — must not read them, or the migrated program would
fail with a NameError (or, worse, read a stale value).
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers, descriptions
from tf2migrate.analysis.descriptions import holds_tensor
from tf2migrate.analysis.catalogue import EVALUATING_ASSERTS, makes_variables
from tf2migrate.analysis.discarded_returns import discarded_returns
from tf2migrate.analysis.helper_arguments import find_helper_arguments
from tf2migrate.analysis.list_fills import filled_list
from tf2migrate.analysis.passed_feed_displays import keyed_by_graph_names
from tf2migrate.analysis.model import VANISHING_KINDS, class_methods, GraphFacts, Kind, RunForm, Scope, Statement
from tf2migrate.analysis.names import (
    graph_name,
    LoopVariables,
    NameReferences,
    assigned_names,
    named_elsewhere,
    names_bound,
    self_attribute,
)
from tf2migrate.traversal import find_all, walk


class _EscapeFinder(LoopVariables, NameReferences, cst.CSTVisitor):
    def __init__(
        self, facts: GraphFacts, scope: Scope, order: int | None, skip: set[int], graph_defs: set[int], class_graph_attributes: set[str]
    ) -> None:
        super().__init__()
        self.class_graph_attributes = class_graph_attributes
        self.placeholders_allowed = False
        self.facts = facts
        self.scope = scope
        self.order = order
        self.skip = skip
        self.graph_defs = graph_defs
        self.local_names: list[set[str]] = []
        self.functions: list[str] = []  # the enclosing defs, innermost last
        self.op_depth = 0  # inside the arguments of a TF op call
        # the statement is ``c1.append(...)`` of this list, kept as Python: (the list, why)
        self.filled_list: tuple[str, str] | None = None
        # the receivers of the enclosing ``x.run(...)`` calls whose ``x`` is no session the
        # analysis knows (``sess, saver = make_session()``): named in the finding
        self.unknown_runs: list[str] = []
        # ``sess.close()`` / ``self.sess.close()`` left for this finder (a close outside the
        # graph code, such as a ``close()`` method): the receivers' ids
        self.closed: set[int] = set()
        self.returned: set[int] = set()  # ``return sess``: a session factory some caller keeps
        # by open block, the plain names its statements left so far bind (in order): a read of one
        # of them reads that binding, made by this kept code (a split loop's ``b = tf.Variable(...)``
        # then ``b_list.append(b)``), not an earlier graph binding of the name
        self.block_bindings: list[set[str]] = []
        # the arguments of ``self.assert...(...)`` calls: the method, and whether it evaluates
        # a graph tensor given there (catalogue.EVALUATING_ASSERTS)
        self.assert_arguments: dict[int, tuple[str, bool]] = {}
        # the arguments of calls of the file's functions (``print_tf(a)``): the function
        self.passed_to: dict[int, str] = {}

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.returned.add(id(node.value))

    def visit_Call(self, node: cst.Call) -> None:
        if self.facts.imports.call_name(node) is not None:
            self.op_depth += 1
        if isinstance(node.func, cst.Name) and node.func.value in self.facts.helpers:
            self.passed_to.update((id(argument.value), node.func.value) for argument in node.args)
        if m.matches(node.func, m.Attribute(value=m.Name("self"))) and (
            method := cst.ensure_type(node.func, cst.Attribute).attr.value
        ).startswith("assert"):
            evaluated = EVALUATING_ASSERTS.get(method, ())
            for index, argument in enumerate(node.args):
                if argument.star:
                    break  # (positions past ``*args`` are not known)
                where = {argument.keyword.value} if argument.keyword is not None else {index}
                self.assert_arguments[id(argument.value)] = (method, any(p in where or k in where for p, k in evaluated))
        receiver = self._unknown_run(node)
        if receiver is not None:
            self.unknown_runs.append(receiver)
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "close":
            self.closed.add(id(node.func.value))

    def leave_Call(self, original_node: cst.Call) -> None:
        if self.facts.imports.call_name(original_node) is not None:
            self.op_depth -= 1
        if self._unknown_run(original_node) is not None:
            self.unknown_runs.pop()

    def _unknown_run(self, node: cst.Call) -> str | None:
        """``x`` of ``x.run(...)`` when ``x`` is no session the analysis knows."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "run" and isinstance(func.value, cst.Name):
            return None if func.value.value in self.facts.session_names else func.value.value
        return None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.skip:
            return False
        return super().on_visit(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if id(node) in self.graph_defs:
            return False
        super().visit_FunctionDef(node)
        passed = self.facts.helper_arguments.get(id(node))  # graph tensors it will take as arguments
        self.local_names.append(set(names_bound(node.body)) | {p.name.value for p in _params(node)} | set(passed.names if passed else ()))
        self.functions.append(node.name.value)
        self.not_references.add(id(node.name))
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        if id(original_node) not in self.graph_defs:
            self.local_names.pop()
            self.functions.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        super().visit_Lambda(node)
        self.local_names.append({p.name.value for p in _params(node)})

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        super().leave_Lambda(original_node)
        self.local_names.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        self.not_references.add(id(node.name))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        name = self_attribute(node)
        if name is not None:
            if self.is_reference(node):
                self._check(node, name)
            return False
        if node.attr.value in self.class_graph_attributes and self.is_reference(node):
            # ``model.sess`` / ``model.u_pred`` of a class whose graph became methods
            self.facts.block(
                node,
                blockers.CLASS_BASED_GRAPH,
                f"`.{node.attr.value}` of a converted class is used outside it; it no longer exists",
            )
        self.not_references.add(id(node.attr))
        return True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.mark_bound(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self.mark_bound(node.name)

    def visit_For(self, node: cst.For) -> None:
        super().visit_For(node)
        self.mark_bound(node.target)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        super().visit_IndentedBlock(node)
        self.block_bindings.append(set())

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self.block_bindings.pop()
        super().leave_IndentedBlock(original_node)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        # (only statements the migration keeps as written: no TF call, or one making variables)
        calls = [n for c in find_all(original_node, cst.Call) if (n := self.facts.imports.call_name(c)) is not None]
        if self.block_bindings and (not calls or any(makes_variables(n) for n in calls)):
            self.block_bindings[-1].update(n for n in assigned_names(original_node) if n.isidentifier())

    def _bound_before(self, name: str) -> bool:
        """Bound by an earlier statement of a block the read stands in, all run before it (no
        def or lambda in between, whose body may run later)."""
        return not self.local_names and any(name in bound for bound in self.block_bindings)

    def visit_Name(self, node: cst.Name) -> None:
        if not self.is_reference(node):
            return
        name = node.value
        if any(name in local for local in self.local_names) or self.is_loop_variable(name):
            return
        self._check(node, name, self._bound_before(name))

    def _top_level_calls(self) -> tuple[int, ...] | None:
        """Where the read stands directly in a module function (no nested def or lambda):
        the orders of the module's top-level statements that call it, if those calls by
        name are its only uses (None otherwise, or elsewhere)."""
        if len(self.functions) != 1 or len(self.local_names) != 1 or self.scope.parent is not None:
            return None
        name = self.functions[0]
        if name not in self.facts.top_level_calls:
            self.facts.top_level_calls[name] = _calls_only(self.scope, name)
        return self.facts.top_level_calls[name]

    def _check(self, node: cst.CSTNode, name: str, bound_here: bool = False) -> None:
        if name in self.facts.session_names:
            if id(node) not in self.facts.allowed_session_reads:
                # (a session passed to classes of other modules: why it stays, analysis/external_builds.py)
                note = f"; {self.facts.session_notes[name]}" if name in self.facts.session_notes else ""
                where = f" in `{self.functions[-1]}`" if self.functions else ""
                use = (
                    f"is closed{where}, outside the graph-building code, where only its runs are converted"
                    if id(node) in self.closed
                    else f"is returned{where}: its callers keep using it (a session factory whose caller stays on TF1)"
                    if id(node) in self.returned
                    else "is used other than by run/eval/close"
                )
                self.facts.block(node, blockers.UNSUPPORTED_SESSION, f"session `{name}` {use}{note}")
            return
        if bound_here:
            return  # the binding this kept code made just before
        before = None if self.local_names else self.order
        calls = self._top_level_calls()
        current: Scope | None = self.scope
        while current is not None:
            if name in current.bindings:
                if calls and before is None and current is self.scope and not any(current.graph_statement(name, c + 1) for c in calls):
                    # a module function called only by top-level statements reads the name's
                    # binding at each call, a Python value there (a graph tensor bound to the
                    # name only later is no value it reads)
                    return
                target = current.resolve(name, before)
                if target is not None and target.kind is Kind.PLACEHOLDER and self.placeholders_allowed:
                    return
                if target is not None and target.kind in VANISHING_KINDS and target.defines:
                    display = _feed_display_only(current, target) if target.kind is Kind.TENSOR else None
                    what = (
                        "a loop variable of graph-building code"
                        if name in target.loop_targets
                        else f"a {target.kind.value}"
                        if target.kind is not Kind.TENSOR
                        else f"a Python value computed from the dict `{display}`, keyed by graph tensors, that no converted run takes"
                        if display is not None
                        else "defined by graph-building code"
                    )
                    helper = self.functions[-1] if self.functions else None
                    if self.op_depth and helper in self.facts.helpers and self.scope.parent is None:
                        # a graph-building helper called by graph code: it ran once per call
                        # site in TF1 too, but it reads the name from the module
                        self.facts.block(
                            node,
                            blockers.GRAPH_VALUE_OUTSIDE_RUN,
                            f"`{helper}` reads `{name}` ({what}) from the module; once the graph code moves into "
                            f"functions, `{name}` exists only inside them: pass it to `{helper}` as an argument"
                            + (f" (not done here: {why})" if (why := self.facts.helpers_not_passed.get(helper)) else ""),
                        )
                        return
                    if self.op_depth and self.local_names:
                        # new ops from the graph's tensors inside a function called later: TF1
                        # grew the graph on every call (the ResourceExhaustedError pattern)
                        self.facts.block(
                            node,
                            blockers.GRAPH_GROWS_PER_CALL,
                            f"new graph ops are built from `{name}` each time this function runs; TF1 grew the graph on every call",
                        )
                        return
                    asserted = self.assert_arguments.get(id(node))
                    if asserted is not None and id(self.scope.owner) in self.facts.test_methods:
                        self.facts.block(
                            node, blockers.GRAPH_VALUE_OUTSIDE_RUN, _asserted(name, what, *asserted, holds_tensor(current, target))
                        )
                        return
                    filled = (
                        f" (a tensor built from it is put in the Python list `{self.filled_list[0]}`, which stays Python: "
                        f"{self.filled_list[1]})"
                        if self.filled_list
                        else f" (`{self.unknown_runs[-1]}.run(...)` is no Session run here: `{self.unknown_runs[-1]}` is bound "
                        "otherwise than to `tf.Session(...)` or a session factory's call without calls in its arguments)"
                        if self.unknown_runs
                        else f" (`{self.functions[0]}` reads it when called, and is called after the module binds it to a graph value)"
                        if calls and current is self.scope
                        else f" (passed to `{self.passed_to[id(node)]}(...)`, a function of the file, which kept code calls: TF1 "
                        "gave it the graph tensor itself)"
                        if id(node) in self.passed_to
                        else ""
                    )
                    self.facts.block(
                        node,
                        blockers.GRAPH_VALUE_OUTSIDE_RUN,
                        f"`{name}` ({what}) is read outside a Session run; it does not exist once the graph code moves into functions"
                        + filled,
                    )
                return
            current = current.parent
            before = None


# what the retry of rewrites/test_asserts.py reads: the name and the assertion
ASSERT_EVALUATED = re.compile(r"^`(\w+)` \([^)]*\) is passed to `self\.(\w+)`, which TF1 evaluated in the test's session")


def _asserted(name: str, what: str, method: str, evaluated: bool, one_tensor: bool) -> str:
    """The refusal of a graph value passed to a test's ``self.assert...`` (see catalogue.EVALUATING_ASSERTS)."""
    if not evaluated:
        return (
            f"`{name}` ({what}) is passed to `self.{method}`, which does not evaluate tensors: TF1 gave it the graph "
            "tensor itself (compared as an object: `==` of graph tensors is identity), where TF2 would give it a value"
        )
    if not one_tensor:
        return (
            f"`{name}` ({what}) is passed to `self.{method}`, which TF1 evaluated only as a single tensor "
            "(`self.evaluate`), and it is not known to hold one"
        )
    return (
        f"`{name}` ({what}) is passed to `self.{method}`, which TF1 evaluated in the test's session "
        f"(`self.evaluate({name})`); read outside a Session run, it does not exist once the graph code moves into functions"
    )


def _calls_only(scope: Scope, function: str) -> tuple[int, ...] | None:
    """The orders of the module's top-level statements calling ``function`` by name, when
    every other mention of the name is a def of it (no call inside a def, lambda, class or
    generator expression, all of which may run later; no use as a value); None otherwise."""
    module = scope.owner
    if not isinstance(module, cst.Module):
        return None
    mentions = sum(1 for n in find_all(module, cst.Name) if cst.ensure_type(n, cst.Name).value == function)
    defs = sum(1 for d in find_all(module, cst.FunctionDef) if cst.ensure_type(d, cst.FunctionDef).name.value == function)
    orders: list[int] = []
    calls = 0
    for statement in scope.statements:
        if isinstance(statement.node, (cst.FunctionDef, cst.ClassDef)):
            continue
        deferred = {
            id(c)
            for inner in find_all(statement.node, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.GeneratorExp))
            for c in find_all(inner, cst.Call)
        }
        found = [
            c
            for c in find_all(statement.node, cst.Call)
            if id(c) not in deferred and m.matches(cst.ensure_type(c, cst.Call).func, m.Name(function))
        ]
        if found:
            orders.append(statement.order)
            calls += len(found)
    return tuple(orders) if orders and calls + defs == mentions else None


def _params(node) -> list[cst.Param]:
    p = node.params
    return [*p.posonly_params, *p.params, *p.kwonly_params] + [x for x in (p.star_arg, p.star_kwarg) if isinstance(x, cst.Param)]


def _graph_building_methods(facts: GraphFacts, scope: Scope) -> set[str]:
    """``self.<method>`` names the constructor's graph statements call, transitively."""
    from tf2migrate.analysis.calls import calls_in

    def callees(node: cst.CSTNode) -> set[str]:
        return {name for call in calls_in(node, enter_defs=True) if (name := self_attribute(call.func)) in facts.helpers}

    found: set[str] = set()
    pending = {n for s in scope.statements if s.kind is Kind.TENSOR for n in callees(s.node)}
    while pending:
        name = pending.pop()
        if name not in found:
            found.add(name)
            pending |= callees(facts.helpers[name].node.body)
    return found


def find_escapes(facts: GraphFacts, module: cst.Module) -> None:
    facts.helper_arguments, facts.helpers_not_passed = find_helper_arguments(facts, module)
    static: set[int] = {*facts.static_dimensions, *facts.static_values}  # numbers, not reads of the placeholder
    skip: set[int] = set(static) | facts.fed_keep_probs
    # the names inside those numbers: no reads of graph values
    static_reads = {
        id(n)
        for expression, _ in (*facts.static_dimensions.values(), *facts.static_values.values())
        for n in find_all(expression, cst.Name)
    }
    for scope in facts.scopes:
        for site in scope.run_sites:
            skip.add(id(site.fetch))
            if isinstance(site.feed, cst.Dict):
                skip.update(id(e.key) for e in site.feed.elements if isinstance(e, cst.DictElement))
            if site.form is RunForm.SCIPY:  # fetches= of ScipyOptimizerInterface.minimize
                skip.update(id(a.value) for a in site.call.args if a.keyword is not None and a.keyword.value == "fetches")
            session = site.call.func.value if isinstance(site.call.func, cst.Attribute) else None
            if session is not None and id(session) in facts.allowed_session_reads:
                skip.add(id(session))
    for feed in facts.feed_dicts.values():
        for _, dict_node in feed.bindings:
            skip.update(id(e.key) for e in dict_node.elements if isinstance(e, cst.DictElement))
    for display in facts.passed_feed_displays.values():
        skip.update(id(e.key) for e in display.elements if isinstance(e, cst.DictElement))
    graph_defs = {id(s.owner) for s in facts.scopes if isinstance(s.owner, cst.FunctionDef)}
    class_graph_attributes = {
        name[len("self.") :]
        for scope in facts.scopes
        if scope.cls is not None
        for statement in scope.statements
        if statement.kind in VANISHING_KINDS
        for name in statement.defines
        if name.startswith("self.")
    } | {name[len("self.") :] for name in facts.session_names if name.startswith("self.")}
    _block_attributes_importers_read(facts, class_graph_attributes & facts.importer_attributes)
    _block_names_importers_read(facts)
    for scope in facts.scopes:
        for statement in scope.statements:
            if statement.kind not in (Kind.PYTHON, Kind.VARIABLE):
                continue
            if statement.kind is Kind.PYTHON and scope.cls is None:
                verdict = descriptions.classify(scope, statement, skip - static, static_reads)
                if verdict is not None:
                    if verdict.refused is not None:
                        node, message = verdict.refused
                        facts.block(node, blockers.GRAPH_VALUE_OUTSIDE_RUN, message)
                    elif verdict.description is not None:
                        facts.descriptions.append(verdict.description)
                    continue
            finder = _EscapeFinder(facts, scope, statement.order, skip, graph_defs, class_graph_attributes)
            filled = filled_list(statement.node)
            if filled is not None and id(statement.node) in facts.refused_list_fills:
                finder.filled_list = (filled, facts.refused_list_fills[id(statement.node)])
            walk(statement.node, finder)
        builders = _graph_building_methods(facts, scope)
        for method in class_methods(scope):
            finder = _EscapeFinder(facts, scope, None, skip, graph_defs, class_graph_attributes)
            # a method the constructor's graph code calls builds that graph: the
            # placeholders it reads are inputs of the generated methods that call it
            finder.placeholders_allowed = f"self.{method.name.value}" in builders
            for element in discarded_returns(facts.imports, module, method, class_graph_attributes):
                finder.skip.add(id(element))
                facts.discarded_returns.append((element, method.name.value))
            found = len(facts.blockers)
            walk(method, finder)
            grows = facts.blockers[found:]
            called = named_elsewhere(module, method) or method.name.value in facts.importer_names
            if grows and all(b.rule is blockers.GRAPH_GROWS_PER_CALL for b in grows) and not called:
                # dead code as far as the run goes (no importer of the run names it either):
                # it cannot change what the rest computes
                del facts.blockers[found:]
                facts.notes.append(
                    (
                        method.name,
                        blockers.UNCALLED_GRAPH_METHOD.code,
                        f"`{method.name.value}` is never called in this file and builds graph ops from attributes "
                        "that no longer exist; it is kept as written (calling it raises AttributeError)",
                    )
                )


def _block_attributes_importers_read(facts: GraphFacts, read: set[str]) -> None:
    """A module of the run importing this one reads ``model.sess`` / ``m.loss`` of some
    object: where a class of this file defines a graph attribute or session of that name,
    which the conversion turns into generated methods, that reader would find it gone
    (the file's own readers are found by _EscapeFinder). Which object the importer reads
    is not followed: any such name keeps the class on TF1."""
    for scope in facts.scopes:
        if scope.cls is None:
            continue
        for statement in scope.statements:
            names = sorted(n[len("self.") :] for n in statement.defines if n.startswith("self.") and n[len("self.") :] in read)
            if names and (statement.kind in VANISHING_KINDS or any(f"self.{n}" in facts.session_names for n in names)):
                facts.block(
                    statement.node,
                    blockers.CLASS_BASED_GRAPH,
                    f"`.{names[0]}` of class `{scope.cls.name.value}` is read by a module importing this one "
                    "(as an attribute of some object); converted, the class would no longer set it",
                )


def _block_names_importers_read(facts: GraphFacts) -> None:
    """A module of the run importing this one reads a name of its namespace (``from main import
    k``, ``main.k``) that this file's top-level graph code binds (a tensor, a placeholder, a
    Python value computed from graph values): converted, that code moves into generated
    functions and the module no longer binds the name (the file's own readers are found by
    _EscapeFinder)."""
    read = facts.importer_module_names
    for scope in facts.scopes:
        if scope.parent is not None or scope.cls is not None or not read:
            continue
        for statement in scope.statements:
            names = sorted(n for n in statement.defines if n in read)
            if names and statement.kind in VANISHING_KINDS:
                what = "defined by graph-building code" if statement.kind is Kind.TENSOR else f"a {statement.kind.value}"
                facts.block(
                    statement.node,
                    blockers.GRAPH_VALUE_OUTSIDE_RUN,
                    f"`{names[0]}` ({what}) is read of this module by a file of the run importing it; "
                    "it does not exist once the graph code moves into functions",
                )


def _feed_display_only(scope: Scope, statement: Statement) -> str | None:
    """The text of the dict display keyed by graph names (``{x: X}``) that is the statement's
    only graph read, as a Python call's argument (``n = count({x: X})``): the statement is
    read as graph code for the display's keys alone, and what it binds is whatever the call
    returns, no tensor.  None otherwise."""
    displays = [
        d
        for call in find_all(statement.node, cst.Call)
        for argument in cst.ensure_type(call, cst.Call).args
        if isinstance(d := argument.value, cst.Dict) and keyed_by_graph_names(d)
    ]
    keys = {graph_name(cst.ensure_type(e, cst.DictElement).key) for d in displays for e in d.elements}
    graph_reads = {r for r in statement.reads if scope.graph_statement(r, statement.order) is not None}
    if len(displays) != 1 or not graph_reads or not graph_reads <= keys:
        return None
    return cst.Module(body=[]).code_for_node(displays[0])
