"""Run sites: where a graph scope runs its graph — ``sess.run(...)``, ``tensor.eval()``,
``op.run()``, a converted class's ``model.sess.run(...)``, a SciPy optimizer's
``minimize(sess)`` — and the Saver's ``save``/``restore`` calls, found once the scope's
statements are classified.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import call_argument, calls_in
from tf2migrate.analysis.catalogue import (
    INIT_CALLS,
    is_graph_op,
)
from tf2migrate.analysis.model import (
    class_methods,
    GraphFacts,
    Kind,
    lookup_graph_name,
    RunForm,
    RunSite,
    Scope,
    Statement,
)
from tf2migrate.analysis.names import (
    graph_name,
    read_and_bound,
)
from tf2migrate.traversal import find_all, walk


def looks_like_run_site(facts: GraphFacts, call: cst.Call) -> bool:
    """Whether ``call`` may run the graph (decided per scope by :func:`find_run_sites`): a
    statement holding one is runtime code, not graph building."""
    if not isinstance(call.func, cst.Attribute):
        return False
    attr = call.func.attr.value
    receiver = call.func.value
    if attr == "run" and graph_name(receiver) in facts.session_names:
        return True
    if id(call) in facts.test_runs:
        return True  # ``self.evaluate(fetches)`` of a test method
    if attr in ("eval", "run"):
        if isinstance(receiver, cst.Call) and facts.imports.call_name(receiver) in INIT_CALLS:
            return True
        # receiver reads graph names: decided per scope in find_run_sites (a call: an op
        # built in the run, ``global_step.assign(i).eval()``)
        return isinstance(receiver, (cst.Name, cst.Attribute, cst.Subscript, cst.BinaryOperation, cst.Call))
    return False


def builds_ops_by_helper(facts: GraphFacts, call: cst.Call, seen: frozenset[str] = frozenset()) -> bool:
    """A call of a function of the file that builds ops (directly or through others) and
    creates no variables: what ``.eval()`` of its result evaluates is built by the call
    (``flip(img_array).eval()``), and an eager call computes it once, as the run did."""
    if not isinstance(call.func, cst.Name) or call.func.value in seen:
        return False
    name = call.func.value
    helper = facts.helpers.get(name)
    if helper is None or helper.creates_variables or helper.uses_gradients:
        return False
    return helper.returns_tensor or any(
        ((op := facts.imports.call_name(c)) is not None and is_graph_op(op)) or builds_ops_by_helper(facts, c, seen | {name})
        for c in calls_in(helper.node.body, enter_defs=True)
    )


def find_run_sites(facts: GraphFacts) -> None:
    for scope in facts.scopes:
        for statement in scope.statements:
            finder = RunSiteFinder(facts, scope, statement)
            walk(statement.node, finder)
        for method in class_methods(scope):
            # the other methods run the constructor's graph, later: like nested defs
            finder = RunSiteFinder(facts, scope, None)
            finder.def_stack.append(method)
            walk(method.body, finder)


class RunSiteFinder(cst.CSTVisitor):
    """Finds run sites below one effective statement of a scope."""

    def __init__(self, facts: GraphFacts, scope: Scope, statement: Statement | None) -> None:
        self.facts = facts
        self.scope = scope
        self.statement = statement
        self.def_stack: list[cst.FunctionDef] = []
        self.loop_depth = 0
        self.expr_statement: cst.SimpleStatementLine | None = None
        # calls in a ``try:`` whose handlers catch ValueError, not TypeError, or in a ``with`` block
        # expecting ValueError (``self.assertRaises(ValueError)``, ``pytest.raises``), not TypeError
        self.value_error_only: dict[int, str] = {}
        self.graph_scope_defs = {id(s.owner) for s in facts.scopes if isinstance(s.owner, cst.FunctionDef)}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if id(node) in self.graph_scope_defs and node is not self.scope.owner:
            return False  # analysed as its own scope
        self.def_stack.append(node)
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        if self.def_stack and self.def_stack[-1] is original_node:
            self.def_stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Try(self, node: cst.Try) -> None:
        if _catches(node, "ValueError") and not _catches(node, "TypeError"):
            self.value_error_only.update((id(c), "in `try:` whose handler catches") for c in calls_in(node.body, enter_defs=True))

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            expected = _expected_exceptions(item.item)
            if expected is not None and _names_exception(expected, "ValueError") and not _names_exception(expected, "TypeError"):
                context = f"in `with {_render(item.item.func)}(...)` expecting"  # type: ignore[attr-defined]
                self.value_error_only.update((id(c), context) for c in calls_in(node.body, enter_defs=True))

    def visit_For(self, node) -> None:
        self.loop_depth += 1

    def leave_For(self, original_node) -> None:
        self.loop_depth -= 1

    def visit_While(self, node) -> None:
        self.loop_depth += 1

    def leave_While(self, original_node) -> None:
        self.loop_depth -= 1

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.expr_statement = node

    def visit_Call(self, node: cst.Call) -> None:
        site = self._run_site(node)
        if site is not None:
            self.scope.run_sites.append(site)
            if site.feed is not None and id(node) in self.value_error_only:
                # ``try: sess.run(s, {x: X})`` / ``except ValueError:`` (or a test's ``with
                # self.assertRaises(ValueError):``): TF1 raised ValueError for a fed value of the wrong
                # shape, which the handler caught or the test expected; a generated function's
                # signature raises TypeError, which ends the program or fails the test
                self.facts.block(
                    node,
                    blockers.UNSUPPORTED_SESSION,
                    f"a run with a feed {self.value_error_only[id(node)]} ValueError and not TypeError: TF1 raised "
                    "ValueError for a fed value of the wrong shape, a generated function raises TypeError (not caught)",
                )

    def _run_site(self, call: cst.Call) -> RunSite | None:
        facts = self.facts
        if not isinstance(call.func, cst.Attribute):
            return None
        attr = call.func.attr.value
        receiver = call.func.value
        order = None if self.def_stack or self.statement is None else self.statement.order  # None in nested code
        whole = None
        if (
            self.expr_statement is not None
            and len(self.expr_statement.body) == 1
            and isinstance(self.expr_statement.body[0], cst.Expr)
            and self.expr_statement.body[0].value is call
        ):
            whole = self.expr_statement
        function = self.def_stack[-1] if self.def_stack else (self.scope.owner if isinstance(self.scope.owner, cst.FunctionDef) else None)
        in_loop = self.loop_depth > 0
        if (
            attr == "run"
            and isinstance(receiver, cst.Attribute)
            and isinstance(receiver.value, cst.Name)
            and receiver.value.value != "self"
            and f"self.{receiver.attr.value}" in facts.session_names
        ):
            # ``model.sess.run(model.lambda_1)``: the session of a converted class, used outside it
            facts.allowed_session_reads.add(id(receiver))
            fetch = call_argument(call, "fetches", 0)
            if fetch is None:
                return None
            return RunSite(call, RunForm.INSTANCE, fetch, call_argument(call, "feed_dict", 1), order, in_loop, whole, function)
        if attr == "run" and graph_name(receiver) in facts.session_names:
            facts.allowed_session_reads.add(id(receiver))
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value in ("options", "run_metadata"):
                    facts.block(call, blockers.UNSUPPORTED_SESSION, f"`{arg.keyword.value}=` of Session.run is not converted")
            fetch = call_argument(call, "fetches", 0)
            if fetch is None:
                facts.block(call, blockers.UNSUPPORTED_SESSION, "Session.run without fetches")
                return None
            return RunSite(call, RunForm.SESSION_RUN, fetch, call_argument(call, "feed_dict", 1), order, in_loop, whole, function)
        if attr == "evaluate" and id(call) in facts.test_runs:
            fetch = call_argument(call, "tensors", 0)
            return RunSite(call, RunForm.SESSION_RUN, fetch, None, order, in_loop, whole, function) if fetch is not None else None
        receiver_name = graph_name(receiver)
        if attr == "minimize" and receiver_name is not None:
            found = lookup_graph_name(self.scope, receiver_name, order)
            if found is not None and found[1].kind is Kind.SCIPY:
                session = call_argument(call, "session", 0)
                if session is not None and graph_name(session) in facts.session_names:
                    facts.allowed_session_reads.add(id(session))
                return RunSite(call, RunForm.SCIPY, receiver, call_argument(call, "feed_dict", 1), order, in_loop, whole, function)
        if attr in ("save", "restore") and receiver_name is not None:
            found = lookup_graph_name(self.scope, receiver_name, order)
            if found is not None and found[1].kind is Kind.SAVER:
                session = call_argument(call, "sess", 0)
                if session is not None and graph_name(session) in facts.session_names:
                    facts.allowed_session_reads.add(id(session))
                facts.saver_calls.append((call, found[1]))
                return None
        if attr in ("eval", "run"):
            session = call_argument(call, "session", 1)
            if not self._is_graph_expression(receiver, order) and not (attr == "eval" and self._builds_ops(receiver)):
                if session is not None and graph_name(session) in facts.session_names:
                    facts.allowed_session_reads.add(id(session))  # said here, more precisely than "used other than by run"
                    facts.block(
                        call,
                        blockers.UNSUPPORTED_SESSION,
                        f"`{cst.Module([]).code_for_node(receiver)}.{attr}(session=...)`: what it runs is not known to be a graph "
                        "tensor or op of this file (it is built outside the graph code this release reads, e.g. by a "
                        "function of the file from another value)",
                    )
                elif isinstance(receiver, cst.Name) and (bound := self._bound_to_ops(receiver)) is not None:
                    # (left as it stands, the eval would outlive the session it needs)
                    facts.block(
                        call,
                        blockers.UNSUPPORTED_GRAPH_CODE,
                        f"`{receiver.value}.{attr}()`: `{receiver.value}` is bound to ops built outside the graph code this "
                        f"release reads (`{bound}`, in a loop, a branch or another block), which TF1 ran at each `.{attr}()`",
                    )
                return None
            if session is not None and graph_name(session) is not None:
                facts.allowed_session_reads.add(id(session))
            return RunSite(
                call,
                RunForm.EVAL if attr == "eval" else RunForm.OP_RUN,
                receiver,
                call_argument(call, "feed_dict", 0),
                order,
                in_loop,
                whole,
                function,
            )
        return None

    def _bound_to_ops(self, receiver: cst.Name) -> str | None:
        """``updater.eval()`` where the scope binds ``updater = tf.assign(v, x)`` (or other
        ops) somewhere the graph code is not read (a loop, a branch): the binding's value,
        shortened; None for a receiver bound to nothing that builds ops."""
        for assign in find_all(self.scope.owner, cst.Assign):
            if isinstance(assign, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == receiver.value for t in assign.targets
            ):
                if self._builds_ops(assign.value):
                    text = cst.Module([]).code_for_node(assign.value)
                    return text if len(text) <= 40 else text[:37] + "..."
        return None

    def _builds_ops(self, expr: cst.BaseExpression) -> bool:
        """``tf.argmax(a, 1).eval()``: a tensor built in the run from Python values only; or
        by a helper of the file that returns one (``random_flip(img_array).eval()``)."""
        return any(
            ((name := self.facts.imports.call_name(c)) is not None and is_graph_op(name)) or builds_ops_by_helper(self.facts, c)
            for c in calls_in(expr)
        )

    def _is_graph_expression(self, expr: cst.BaseExpression, order: int | None) -> bool:
        facts = self.facts
        if isinstance(expr, cst.Call) and facts.imports.call_name(expr) in INIT_CALLS:
            return True
        reads, _ = read_and_bound(expr)
        if not reads:
            return False
        return any(lookup_graph_name(self.scope, name, order) is not None for name in reads)


def _catches(node: cst.Try, exception: str) -> bool:
    """Does a handler of ``node`` catch ``exception`` (by its name, in a tuple, or as
    ``Exception``/``BaseException`` or a bare ``except:``)?"""
    return any(handler.type is None or _names_exception(handler.type, exception) for handler in node.handlers)


def _names_exception(expression: cst.BaseExpression, exception: str) -> bool:
    """Does ``expression`` (an exception class, or a tuple of them) name ``exception`` or
    ``Exception``/``BaseException``?"""
    caught = expression.elements if isinstance(expression, cst.Tuple) else [expression]
    for element in caught:
        value = element.value if isinstance(element, cst.Element) else element
        name = value.attr.value if isinstance(value, cst.Attribute) else value.value if isinstance(value, cst.Name) else None
        if name in (exception, "Exception", "BaseException"):
            return True
    return False


# context managers expecting their block to raise the exception passed first: unittest's and
# tf.test's assertions, pytest's ``raises``
_RAISES_CONTEXTS = frozenset(("assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "raises"))


def _expected_exceptions(item: cst.BaseExpression) -> cst.BaseExpression | None:
    """The exception(s) a ``with`` item expects its block to raise (``self.assertRaises(ValueError)``,
    ``pytest.raises((ValueError, KeyError), match=...)``), or None."""
    if not isinstance(item, cst.Call) or not item.args or item.args[0].keyword is not None:
        return None
    if _callee(item) not in _RAISES_CONTEXTS:
        return None
    return item.args[0].value


def _render(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _callee(call: cst.BaseExpression) -> str | None:
    """The called name or attribute of a call (``assertRaises`` of ``self.assertRaises(...)``)."""
    func = call.func if isinstance(call, cst.Call) else None
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None
