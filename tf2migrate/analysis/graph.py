"""Graph facts for a TF1 module: what each graph-building statement is, and where graphs run.

Computed once per file (one walk per scope) and shared by every rewrite.  A *graph
scope* is the module body, or a function body that creates placeholders or sessions.
Its *effective statements* are its body with graph contexts (``with g.as_default():``)
and session blocks (``with tf.Session() as sess:``) opened up, because those blocks go
away in TF2 and their contents become ordinary statements of the scope.

Statement kinds:
  PLACEHOLDER  ``x = tf.placeholder(...)``               → argument of generated functions
  VARIABLE     creates variables (no placeholder input)   → kept where it is (created once)
  TENSOR       builds graph tensors                       → moved into generated functions
  INIT         ``init = tf.global_variables_initializer()`` → removed
  SESSION      ``sess = tf.Session(...)``                 → removed
  CONFIG       ``config = tf.ConfigProto(...)`` and its settings → removed
  DROP         ``tf.reset_default_graph()``, ``sess.close()``, v1 switches → removed
  PYTHON       everything else                            → kept; run sites inside rewritten
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import call_argument, calls_in
from tf2migrate.analysis.catalogue import (
    CONFIG_CALLS,
    DROP_CALLS,
    GLOBAL_STEP_CALLS,
    GRADIENT_CALLS,
    INIT_CALLS,
    KERAS_LAYERS,
    NAMING_CONTEXTS,
    OPERATION_CALLS,
    OPTIMIZERS,
    OTHER_SESSION_CALLS,
    PLACEHOLDER_CALLS,
    PURE_BUILTINS,
    SAVER_CALL,
    SCHEDULE_CALLS,
    SCIPY_OPTIMIZER,
    SESSION_CALLS,
    STATIC_TENSOR_ATTRIBUTES,
    TEST_SESSION_METHODS,
    UNSUPPORTED_CALL_PREFIXES,
    UNSUPPORTED_CALLS,
    V1_SWITCH_CALLS,
    VARIABLE_CALL_PREFIXES,
    VARIABLE_CALLS,
    is_graph_op,
)
from tf2migrate.analysis.model import (
    class_methods,
    FeedDict,
    GraphFacts,
    Helper,
    Kind,
    lookup_graph_name,
    Placeholder,
    RunSite,
    Scope,
    Statement,
)
from tf2migrate.analysis.names import (
    assigned_names,
    read_and_bound,
    self_attribute,
    target_names,
)
from tf2migrate.analysis.static_shapes import Literalize, static_dimensions
from tf2migrate.analysis.tf_imports import ITERATOR_METHODS, TfImports


class _NodeIndex(cst.CSTVisitor):
    """One walk over the module that files away the nodes the analysis asks about, each
    with the function it belongs to, so no later step walks the whole tree again."""

    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.assigns: list[tuple[cst.Assign, cst.FunctionDef | None]] = []
        self.with_items: list[cst.WithItem] = []
        self.withs: list[cst.With] = []  # outside classes
        self.classes: list[cst.ClassDef] = []
        self.functions: list[cst.FunctionDef] = []  # outside classes
        self.returns: dict[int, list[cst.Return]] = {}
        self.imports: list[cst.Import | cst.ImportFrom] = []
        self._functions: list[cst.FunctionDef] = []
        self._class_depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self._class_depth:
            self.functions.append(node)
        self._functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node)
        self._class_depth += 1

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._class_depth -= 1

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Import(self, node: cst.Import) -> None:
        self.imports.append(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.imports.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.assigns.append((node, self._functions[-1] if self._functions else None))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        self.with_items.append(node)

    def visit_With(self, node: cst.With) -> None:
        if not self._class_depth:
            self.withs.append(node)

    def visit_Return(self, node: cst.Return) -> None:
        if self._functions:
            self.returns.setdefault(id(self._functions[-1]), []).append(node)


class GraphAnalyzer:
    """Builds :class:`GraphFacts` for one module."""

    def __init__(self, module: cst.Module, imports: TfImports) -> None:
        self.module = module
        self.tf = imports
        self.facts = GraphFacts(imports)
        self.index = _NodeIndex()
        module.visit(self.index)
        self.facts.calls = self.index.calls
        self.facts.import_nodes = self.index.imports
        self._graph_names = {
            t.target.value
            for node, _ in self.index.assigns
            if isinstance(node.value, cst.Call) and self.tf.call_name(node.value) == "Graph"
            for t in node.targets
            if isinstance(t.target, cst.Name)
        }

    # ----------------------------------------------------------------- helpers
    def _is_variable_call(self, call: cst.Call) -> bool:
        name = self.tf.call_name(call)
        if name is not None:
            return name in VARIABLE_CALLS or name.startswith(VARIABLE_CALL_PREFIXES)
        helper = self._helper_for(call)
        return helper is not None and helper.creates_variables

    def _helper_for(self, call: cst.Call) -> Helper | None:
        if isinstance(call.func, cst.Name):
            return self.facts.helpers.get(call.func.value)
        method = self_attribute(call.func)
        return self.facts.helpers.get(method) if method is not None else None

    def _collect_helpers(self, graph_functions: set[int]) -> None:
        """Module functions: do they create variables or take tf.gradients (transitively)?

        Functions that build and run a graph of their own are programs, not helpers."""
        functions: dict[str, cst.FunctionDef] = {}
        for statement in self.module.body:
            if isinstance(statement, cst.FunctionDef) and id(statement) not in graph_functions:
                functions[statement.name.value] = statement
            elif isinstance(statement, cst.ClassDef):
                # methods are called as ``self.method(...)``
                for method in statement.body.body:
                    if isinstance(method, cst.FunctionDef) and method.name.value != "__init__":
                        functions[f"self.{method.name.value}"] = method
        calls = {name: calls_in(node.body, enter_defs=True) for name, node in functions.items()}
        helpers = {
            name: Helper(
                node,
                returns_tensor=self._returns_tensor(node),
                self_reads={n for n in read_and_bound(node.body)[0] if n.startswith("self.")},
            )
            for name, node in functions.items()
        }
        self.facts.helpers = helpers
        changed = True
        while changed:
            changed = False
            for name, helper in helpers.items():
                for call in calls[name]:
                    tf_name = self.tf.call_name(call)
                    callee = self._helper_for(call)
                    creates = (tf_name is not None and (tf_name in VARIABLE_CALLS or tf_name.startswith(VARIABLE_CALL_PREFIXES))) or (
                        callee is not None and callee is not helper and callee.creates_variables
                    )
                    grads = tf_name in GRADIENT_CALLS or (
                        callee is not None and callee is not helper and callee.uses_gradients
                    )
                    if creates and not helper.creates_variables:
                        helper.creates_variables = changed = True
                    if grads and not helper.uses_gradients:
                        helper.uses_gradients = changed = True
                    if callee is not None and callee is not helper and not callee.self_reads <= helper.self_reads:
                        helper.self_reads |= callee.self_reads
                        changed = True

    def _returns_tensor(self, function: cst.FunctionDef) -> bool:
        returns = self.index.returns.get(id(function), [])
        return bool(returns) and all(
            r.value is not None and self._expression_kind(r.value) == "tensor" for r in returns
        )

    def _expression_kind(self, value: cst.BaseExpression) -> str:
        """tensor | list | operation | unknown, for the value of a graph-building expression."""
        if isinstance(value, (cst.List, cst.Tuple)):
            return "list"
        if isinstance(value, cst.Call):
            name = self.tf.call_name(value)
            if name in OPERATION_CALLS:
                return "operation"
            if name in GRADIENT_CALLS or name in ("unstack", "split", "meshgrid"):
                return "list"
            if name is not None:
                return "tensor"
            helper = self._helper_for(value)
            return "tensor" if helper is not None and helper.returns_tensor else "unknown"
        if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)):
            return "tensor"
        if isinstance(value, cst.Subscript):
            if isinstance(value.value, cst.Call) and self.tf.call_name(value.value) in GRADIENT_CALLS:
                return "tensor"
        return "unknown"

    # ------------------------------------------------------------------ entry
    def analyze(self) -> GraphFacts:
        function_scopes = self._function_scopes()
        self._collect_helpers({id(f) for f in function_scopes})
        self._collect_session_and_config_names()
        self._check_classes()
        module_scope = Scope(self.module, None)
        self._analyze_scope(module_scope, self.module.body)
        for function in function_scopes:
            scope = Scope(function, module_scope)
            self._analyze_scope(scope, function.body.body)
        for cls, init in self._class_scopes:
            scope = Scope(init, module_scope, cls=cls)
            self._analyze_scope(scope, init.body.body)
        self._find_run_sites()
        self._collect_feed_dicts()
        opened = {key for scope in self.facts.scopes for key in scope.unwrapped}
        self.facts.nested_session_blocks = [
            w for w in self.index.withs if id(w) not in opened and all(self._is_session_context(i.item) for i in w.items)
        ]
        return self.facts

    def _collect_session_and_config_names(self) -> None:
        for call in self.index.calls:
            name = self.tf.call_name(call)
            if name in V1_SWITCH_CALLS:
                self.facts.v1_switches.append(call)
            if name in PLACEHOLDER_CALLS or name in SESSION_CALLS:
                self.facts.graph_evidence = True
            elif name in OTHER_SESSION_CALLS:
                self.facts.graph_evidence = True
                self.facts.block(call, blockers.UNSUPPORTED_SESSION, f"`tf.{name}` sessions are not converted")
        for item in self.index.with_items:
            if isinstance(item.item, cst.Call) and m.matches(
                item.item.func, m.Attribute(value=m.Name("self"), attr=m.OneOf(*map(m.Name, TEST_SESSION_METHODS)))
            ) and self.tf.aliases:
                self.facts.graph_evidence = True
                self.facts.block(item.item, blockers.UNSUPPORTED_SESSION, "tf.test.TestCase graph sessions are not converted")
        for node, _ in self.index.assigns:
            if not isinstance(node.value, cst.Call):
                continue
            name = self.tf.call_name(node.value)
            names = {t.target.value for t in node.targets if isinstance(t.target, cst.Name)}
            names |= {a for t in node.targets if (a := self_attribute(t.target)) is not None}
            if name in SESSION_CALLS:
                self.facts.session_names |= names
            elif name in CONFIG_CALLS:
                self.facts.config_names |= names
        for item in self.index.with_items:
            if item.asname is not None and isinstance(item.asname.name, cst.Name) and self._is_session_context(item.item):
                self.facts.session_names.add(item.asname.name.value)

    def _check_classes(self) -> None:
        """A class that builds its graph in ``__init__`` (placeholders and session on
        ``self``) is a graph scope; one that builds graph pieces elsewhere is not converted."""
        self._class_scopes: list[tuple[cst.ClassDef, cst.FunctionDef]] = []
        top_level = {id(s) for s in self.module.body}
        for node in self.index.classes:
            methods = [m_ for m_ in node.body.body if isinstance(m_, cst.FunctionDef)]
            init = next((m_ for m_ in methods if m_.name.value == "__init__"), None)
            graph_calls = [
                (method, call)
                for method in methods
                for call in calls_in(method, enter_defs=True)
                if self.tf.call_name(call) in PLACEHOLDER_CALLS | SESSION_CALLS
            ]
            if not graph_calls:
                continue
            outside = [(method, call) for method, call in graph_calls if method is not init]
            if id(node) not in top_level or init is None or outside:
                method, call = (outside or graph_calls)[0]
                self.facts.block(
                    call,
                    blockers.CLASS_BASED_GRAPH,
                    f"`{self.tf.call_name(call)}` in `{node.name.value}.{method.name.value}`: only graphs built in "
                    "`__init__` of a module-level class are converted",
                )
                continue
            self._class_scopes.append((node, init))

    def _function_scopes(self) -> list[cst.FunctionDef]:
        """Functions (at any depth, outside classes) that build or run their own graph."""
        return [
            node
            for node in self.index.functions
            if any(self.tf.call_name(c) in PLACEHOLDER_CALLS | SESSION_CALLS for c in calls_in(node.body))
        ]

    # ------------------------------------------------------- contexts (with)
    def _is_session_context(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Call):
            if self.tf.call_name(expr) in SESSION_CALLS:
                return True
            # tf.Session().as_default() / sess.as_default()
            if m.matches(expr.func, m.Attribute(attr=m.Name("as_default"))):
                inner = expr.func.value  # type: ignore[attr-defined]
                if isinstance(inner, cst.Call) and self.tf.call_name(inner) in SESSION_CALLS:
                    return True
                if _target_name(inner) in self.facts.session_names:
                    return True
        return False

    def _is_graph_context(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Call) and m.matches(expr.func, m.Attribute(attr=m.Name("as_default"))):
            inner = expr.func.value  # type: ignore[attr-defined]
            if isinstance(inner, cst.Call) and self.tf.call_name(inner) == "Graph":
                return True
            if isinstance(inner, cst.Name) and inner.value in self._graph_names:
                return True
        return False

    def _context_kind(self, node: cst.With) -> str | None:
        kinds = set()
        for item in node.items:
            if self._is_session_context(item.item):
                kinds.add("session")
            elif self._is_graph_context(item.item):
                kinds.add("graph")
            elif isinstance(item.item, cst.Call) and self.tf.call_name(item.item) in NAMING_CONTEXTS and item.asname is None:
                kinds.add("naming")
            else:
                kinds.add("other")
        if len(kinds) == 1 and kinds != {"other"}:
            return kinds.pop()
        if "session" in kinds or "graph" in kinds:
            self.facts.block(node, blockers.UNSUPPORTED_SESSION, "a with-statement mixes a session or graph context with other context managers")
        return None

    # ------------------------------------------------------------ statements
    def _effective(self, body, scope: Scope) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for statement in body:
            if isinstance(statement, cst.With):
                kind = self._context_kind(statement)
                if kind is not None:
                    scope.unwrapped[id(statement)] = (statement, kind)
                    out.extend(self._effective(statement.body.body, scope))
                    continue
            out.append(statement)
        return out

    def _analyze_scope(self, scope: Scope, body) -> None:
        for order, node in enumerate(self._effective(body, scope)):
            # one walk for the names a statement reads and binds, shared with _classify
            names = read_and_bound(node) if not isinstance(node, (cst.FunctionDef, cst.ClassDef)) else ([], [])
            statement = self._classify(node, order, scope, names)
            scope.statements.append(statement)
            binds = names[1]
            top_binds = set(assigned_names(node)) | set(statement.defines)
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                top_binds.add(node.name.value)
            for name in top_binds:
                scope.bindings.setdefault(name, []).append(order)
            mutated = {
                _root_name(target)
                for target in (
                    t.target for t in m.findall(node, m.AssignTarget() | m.AugAssign())  # type: ignore[union-attr]
                )
                if isinstance(target, (cst.Subscript, cst.Attribute))
            }
            # ``coeffs[0] = 5.0`` changes what a graph built from ``coeffs`` captured
            for name in (set(binds) - top_binds) | (mutated - {None}):
                scope.nested_bindings.setdefault(name, []).append(order)  # type: ignore[arg-type]
        self.facts.scopes.append(scope)

    def _classify(self, node: cst.BaseStatement, order: int, scope: Scope, names: tuple[list[str], list[str]]) -> Statement:
        statement = Statement(node, order, Kind.PYTHON)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return statement
        if isinstance(node, cst.SimpleStatementLine):
            if any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in node.body):
                return statement
            if len(node.body) == 1:
                special = self._classify_simple(node, node.body[0], statement, scope)
                if special is not None:
                    return special
        return self._classify_general(node, statement, scope, names)

    def _classify_simple(self, node, small, statement: Statement, scope: Scope) -> Statement | None:
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            name = self.tf.call_name(call)
            if name in DROP_CALLS:
                statement.kind = Kind.DROP
                return statement
            if m.matches(call.func, m.Attribute(value=m.Name(), attr=m.Name("close"))) and call.func.value.value in self.facts.session_names:  # type: ignore[attr-defined]
                statement.kind = Kind.DROP
                self.facts.allowed_session_reads.add(id(call.func.value))  # type: ignore[attr-defined]
                return statement
            return None
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
            single = _target_name(targets[0]) if len(targets) == 1 else None
            if isinstance(small.value, cst.Call) and single is not None:
                target = single
                call = small.value
                name = self.tf.call_name(call)
                if name in PLACEHOLDER_CALLS:
                    statement.kind = Kind.PLACEHOLDER
                    statement.defines = (target,)
                    statement.value_kind = "tensor"
                    if name == "placeholder":
                        statement.placeholder = Placeholder(target, call_argument(call, "dtype", 0), None, call, call_argument(call, "shape", 1))
                    else:
                        statement.placeholder = Placeholder(target, None, call_argument(call, "input", 0), call, call_argument(call, "shape", 1))
                    statement.reads = tuple(read_and_bound(call)[0])
                    return statement
                if name in SESSION_CALLS:
                    statement.kind = Kind.SESSION
                    statement.defines = (target,)
                    return statement
                if name in CONFIG_CALLS:
                    statement.kind = Kind.CONFIG
                    statement.defines = (target,)
                    return statement
                if is_init_expression(self.tf, call, scope, statement.order):
                    statement.kind = Kind.INIT
                    statement.defines = (target,)
                    return statement
                if name == "Graph":
                    statement.kind = Kind.DROP
                    statement.defines = (target,)
                    return statement
                if name == SCIPY_OPTIMIZER:
                    return self._classify_scipy(call, target, statement, scope)
                if name == SAVER_CALL:
                    statement.kind = Kind.SAVER
                    statement.defines = (target,)
                    statement.minimize = call  # the constructor call, for the rewrite
                    return statement
                if name in GLOBAL_STEP_CALLS:
                    statement.kind = Kind.VARIABLE
                    statement.defines = (target,)
                    statement.value_kind = "variable"
                    statement.global_step = call
                    return statement
                if name in OPTIMIZERS:
                    statement.kind = Kind.OPTIMIZER
                    statement.defines = (target,)
                    statement.reads = tuple(read_and_bound(call)[0])
                    return statement
                if m.matches(call.func, m.Attribute(attr=m.Name("minimize") | m.Name("compute_gradients") | m.Name("apply_gradients"))):
                    return self._classify_minimize(call, target, statement, scope)
            if (
                isinstance(small.value, cst.Dict)
                and small.value.elements
                and all(
                    isinstance(e, cst.DictElement)
                    and _target_name(e.key) is not None
                    and (found := scope.graph_statement(_target_name(e.key), statement.order)) is not None  # type: ignore[arg-type]
                    and found.kind is Kind.PLACEHOLDER
                    for e in small.value.elements
                )
            ):
                return statement  # a feed dict (``tf_dict = {x: X}``): its keys are rewritten
            # config.gpu_options.allow_growth = True
            if all(_root_name(t) in self.facts.config_names for t in targets):
                statement.kind = Kind.CONFIG
                return statement
        return None

    def _classify_scipy(self, call: cst.Call, target: str, statement: Statement, scope: Scope) -> Statement:
        """``opt = tf.contrib.opt.ScipyOptimizerInterface(loss, method=..., options=...)``."""
        unsupported = [
            a.keyword.value for a in call.args
            if a.keyword is not None and a.keyword.value in ("equalities", "inequalities", "var_to_bounds")
        ]
        if unsupported or any(a.star for a in call.args) or sum(a.keyword is None for a in call.args) > 1:
            self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, "ScipyOptimizerInterface with constraints or bounds is not converted")
            return statement
        return _optimization_statement(statement, Kind.SCIPY, target, call, scope)

    def _classify_minimize(self, call: cst.Call, target: str, statement: Statement, scope: Scope) -> Statement:
        """``train_op = opt.minimize(loss)`` (or on an optimizer made inline), and the pair
        ``gvs = opt.compute_gradients(loss)`` … ``train_op = opt.apply_gradients(gvs)``."""
        optimizer = call.func.value  # type: ignore[attr-defined]
        known = isinstance(optimizer, cst.Call) and self.tf.call_name(optimizer) in OPTIMIZERS
        if not known:
            name = _target_name(optimizer)
            found = scope.resolve(name, statement.order) if name else None
            known = found is not None and found.kind is Kind.OPTIMIZER
        if not known:
            self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, "`minimize` of an optimizer this release does not convert")
            return statement
        method = call.func.attr.value  # type: ignore[attr-defined]
        for arg in call.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if arg.star or keyword in ("gate_gradients", "aggregation_method", "grad_loss", "colocate_gradients_with_ops"):
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, f"`{method}` with `{keyword or '*'}` is not converted")
                return statement
        if method != "minimize" and isinstance(optimizer, cst.Call):
            self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, f"`{method}` of an optimizer made inline is not converted")
            return statement
        kind = Kind.GRADS if method == "compute_gradients" else Kind.TRAIN
        return _optimization_statement(statement, kind, target, call, scope)


    def _classify_general(
        self, node: cst.BaseStatement, statement: Statement, scope: Scope, names: tuple[list[str], list[str]]
    ) -> Statement:
        reads, binds = names
        if any((found := scope.graph_statement(n, statement.order)) is not None and found.kind is Kind.PLACEHOLDER for n in reads):
            dimensions = static_dimensions(node, scope, statement.order)
            if dimensions:
                # a declared dimension is a number, not a read of the placeholder
                self.facts.static_dimensions.update(dimensions)
                reads = read_and_bound(node.visit(Literalize(dimensions)))[0]
        calls = calls_in(node)
        tf_calls = [(c, self.tf.call_name(c)) for c in calls]
        has_run = any(self._looks_like_run_site(c) for c in calls)
        graph_deps: set[int] = set()
        reads_graph_tensor = False
        reads_variable = False
        tensors_read: list[Statement] = []
        for name in dict.fromkeys(reads):
            target = scope.graph_statement(name, statement.order)
            if target is None:
                continue
            graph_deps.add(target.order)
            if target.kind in (Kind.PLACEHOLDER, Kind.TENSOR, Kind.GRADS):
                reads_graph_tensor = True
                tensors_read.append(target)
            elif target.kind is Kind.VARIABLE:
                reads_variable = True
        for call in calls:
            helper = self._helper_for(call)
            for name in helper.self_reads if helper is not None else ():
                target = scope.graph_statement(name, statement.order)
                if target is not None and target.kind is Kind.PLACEHOLDER:
                    # read inside the helper: an input of this statement all the same
                    graph_deps.add(target.order)
                    reads_graph_tensor = True
        op_calls = [(c, n) for c, n in tf_calls if n is not None and is_graph_op(n)]
        creates_variables = any(self._is_variable_call(c) for c in calls)
        statement.reads = tuple(dict.fromkeys(reads))
        statement.deps = frozenset(graph_deps)
        if has_run:
            return statement  # runtime code; run sites are rewritten in place
        for call in calls:
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in ITERATOR_METHODS:
                self.facts.block(
                    call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"a TF1 tf.data iterator (`{call.func.attr.value}`) feeds the graph; it is not converted "
                    "(in TF2, iterate the dataset: `for batch in dataset:`)",
                )
                return statement
        for call, name in tf_calls:
            if name in PLACEHOLDER_CALLS:
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, f"`tf.{name}` must be assigned to a name at the top level of its scope")
                return statement
        layer_calls = tuple(c for c, n in tf_calls if n in KERAS_LAYERS)
        if creates_variables and reads_graph_tensor and self._layers_convertible(node, calls, layer_calls):
            creates_variables = False  # the layers are created once, outside the computation
            statement.layer_calls = layer_calls
        if creates_variables and reads_graph_tensor and self._initial_values(scope, tensors_read, node, calls):
            reads_graph_tensor = False  # ``W = tf.Variable(W_init)``: W_init is computed once, where it stands
        if creates_variables:
            if reads_graph_tensor:
                message = (
                    "this block both creates variables and computes with placeholder-dependent tensors"
                    if not isinstance(node, cst.SimpleStatementLine)
                    else "this statement creates variables from placeholder-dependent tensors"
                )
                if layer_calls and m.findall(node, m.Lambda() | m.ListComp() | m.GeneratorExp() | m.DictComp() | m.SetComp()):
                    message = (
                        "a tf.layers call with a lambda or comprehension in its arguments is not converted (a "
                        "regularizer's losses go to TF1 collections that Keras layers do not fill; a comprehension "
                        "would create a layer per element)"
                    )
                self.facts.block(node, blockers.VARIABLE_IN_COMPUTATION, message)
            statement.kind = Kind.VARIABLE
            statement.defines = tuple(assigned_names(node)) or tuple(binds)
            statement.value_kind = "variable" if self._single_call(node, VARIABLE_CALLS) else self._value_kind(node)
            return statement
        is_assignment = isinstance(node, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Assign, cst.AugAssign, cst.AnnAssign)) for s in node.body
        )
        builds_graph = bool(op_calls) or reads_graph_tensor or reads_variable
        if not builds_graph:
            return statement
        for call, name in op_calls:
            refused = _control_flow_refused(call, name)
            if refused is not None:
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, refused)
                return statement
            if (name.startswith(UNSUPPORTED_CALL_PREFIXES) or name in UNSUPPORTED_CALLS) and name not in SCHEDULE_CALLS:
                message = (
                    f"`tf.{name}` is used inside another expression (a train op inside `tf.group`, an optimizer "
                    "built in a call); not converted"
                    if name in OPTIMIZERS
                    else f"`tf.{name}` is not converted by this release"
                )
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, message)
                return statement
        if isinstance(node, cst.SimpleStatementLine) and not is_assignment:
            # Kept as Python: a TF call for its effect on the runtime, or code that reads
            # graph values (reported by the escape check).
            return statement
        if is_assignment:
            targets_ok = all(
                isinstance(t.target, (cst.Name, cst.Tuple, cst.List)) or self_attribute(t.target) is not None
                for s in node.body
                if isinstance(s, cst.Assign)
                for t in s.targets
            ) and all(isinstance(s.target, cst.Name) for s in node.body if isinstance(s, (cst.AugAssign, cst.AnnAssign)))
            if not targets_ok:
                if reads_graph_tensor:
                    self.facts.block(node, blockers.UNSUPPORTED_GRAPH_CODE, "a graph tensor is stored into an attribute or item")
                return statement
        if not self._movable(node, calls, scope, statement.order):
            return statement
        statement.kind = Kind.TENSOR
        statement.defines = tuple(assigned_names(node)) if is_assignment else tuple(dict.fromkeys(binds))
        statement.compound = not is_assignment
        if statement.compound:
            statement.loop_targets = tuple(
                dict.fromkeys(n for loop in m.findall(node, m.For()) for n in target_names(loop.target))
            )
        statement.gradient_calls = tuple(c for c, n in tf_calls if n in GRADIENT_CALLS)
        statement.schedule_calls = tuple(c for c, n in tf_calls if n in SCHEDULE_CALLS)
        statement.calls_gradient_helper = any(
            (h := self._helper_for(c)) is not None and h.uses_gradients for c in calls
        )
        if statement.compound and statement.gradient_calls:
            for call in statement.gradient_calls:
                self.facts.block(call, blockers.UNSUPPORTED_GRADIENTS, "tf.gradients inside control flow of graph-building code")
        statement.value_kind = self._value_kind(node)
        return statement

    def _initial_values(self, scope: Scope, tensors: list[Statement], node: cst.BaseStatement, calls: list[cst.Call]) -> bool:
        """A variable made from named tensors that no placeholder feeds (``W_init =
        tf.random_uniform(...)``; ``W = tf.Variable(W_init)``): TF1 computed them once, to
        initialize; they become values computed once where they stand, like the inline
        form ``tf.Variable(tf.random_uniform(...))``.  Not when the statement also calls
        tf.layers or other code that builds ops from them per call."""
        if not isinstance(node, cst.SimpleStatementLine) or any(self._helper_for(c) is not None for c in calls):
            return False
        closure: list[Statement] = []
        stack = list(tensors)
        while stack:
            current = stack.pop()
            if current in closure:
                continue
            if current.kind is not Kind.TENSOR or current.compound or current.gradient_calls or current.schedule_calls:
                return False
            closure.append(current)
            for order in current.deps:
                dep = scope.statements[order]
                if dep.kind is not Kind.VARIABLE:
                    stack.append(dep)
        for current in closure:
            current.kind = Kind.PYTHON  # stays where it is and runs once, eagerly
        return True

    def _movable(self, node: cst.BaseStatement, calls: list[cst.Call], scope: Scope, order: int) -> bool:
        """Graph-building code moves into functions that run on every call; refuse what
        would then change meaning: Python values read off graph tensors (static shapes,
        names), which exist only while building, and Python side effects, which TF1 ran
        once."""
        declared = {id(shape) for expression, _ in self.facts.static_dimensions.values() for shape in _shape_attributes(expression)}
        for attribute in m.findall(node, m.Attribute(value=m.Name(), attr=m.Name())):
            if attribute.attr.value in STATIC_TENSOR_ATTRIBUTES and id(attribute) not in declared:
                target = scope.graph_statement(attribute.value.value, order)
                if target is not None and target.kind in (Kind.TENSOR, Kind.PLACEHOLDER):
                    self.facts.block(
                        attribute,
                        blockers.GRAPH_VALUE_OUTSIDE_RUN,
                        f"`{attribute.value.value}.{attribute.attr.value}` is a Python value read off a graph tensor while "
                        "the graph is built; it does not exist once the computation moves into a function",
                    )
                    return False
        for string in m.findall(node, m.SimpleString() | m.FormattedString()):
            if "\n" in cst.Module([]).code_for_node(string):
                # moved into a generated function, its continuation lines would be indented:
                # another string
                self.facts.block(string, blockers.UNSUPPORTED_GRAPH_CODE, "a string spanning lines in graph-building code is not moved into a function")
                return False
        for call in calls:
            if self.tf.call_name(call) is not None or self._helper_for(call) is not None:
                continue
            func = call.func
            if isinstance(func, cst.Name) and func.value in PURE_BUILTINS:
                continue
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
                owner = func.value.value
                if owner in ("np", "numpy", "math") or scope.graph_statement(owner, order) is not None:
                    continue  # NumPy/math functions, or a method of a graph tensor or variable
            root = _root_name(func)
            if root in self.tf.kept_names:
                self.facts.block(
                    call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"`{self.module.code_for_node(func)}` comes from `{self.tf.kept_names[root]}`, outside the public "
                    "TF1 API: graph code built with it is not converted",
                )
                return False
            self.facts.block(
                call,
                blockers.UNSUPPORTED_GRAPH_CODE,
                "a Python call in graph-building code would run on every call of the generated "
                "function (TF1 ran it once, while building the graph)",
            )
            return False
        return True

    def _layers_convertible(self, node, calls: list[cst.Call], layer_calls: tuple[cst.Call, ...]) -> bool:
        """tf.layers calls in a plain assignment, and no other variable creation: each
        becomes a Keras layer created where the statement stood and called in the
        computation."""
        if not layer_calls or not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1:
            return False
        if not isinstance(node.body[0], cst.Assign):
            return False
        others = [c for c in calls if c not in layer_calls and self._is_variable_call(c)]
        nested = m.findall(node, m.Lambda() | m.ListComp() | m.GeneratorExp() | m.DictComp() | m.SetComp())
        return not others and not nested

    def _single_call(self, node, names) -> bool:
        if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign):
            value = node.body[0].value
            return isinstance(value, cst.Call) and self.tf.call_name(value) in names
        return False

    def _value_kind(self, node) -> str:
        """Whether the single name a TENSOR statement binds holds a tensor or a list."""
        if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1):
            return "unknown"
        small = node.body[0]
        if not isinstance(small, cst.Assign) or len(small.targets) != 1 or _target_name(small.targets[0].target) is None:
            return "unknown"
        return self._expression_kind(small.value)

    # -------------------------------------------------------------- run sites
    def _looks_like_run_site(self, call: cst.Call) -> bool:
        if not isinstance(call.func, cst.Attribute):
            return False
        attr = call.func.attr.value
        receiver = call.func.value
        if attr == "run" and _target_name(receiver) in self.facts.session_names:
            return True
        if attr in ("eval", "run"):
            if isinstance(receiver, cst.Call) and self.tf.call_name(receiver) in INIT_CALLS:
                return True
            # receiver reads graph names: decided per scope in _find_run_sites
            return isinstance(receiver, (cst.Name, cst.Attribute, cst.Subscript, cst.BinaryOperation))
        return False

    def _find_run_sites(self) -> None:
        for scope in self.facts.scopes:
            for statement in scope.statements:
                finder = _RunSiteFinder(self, scope, statement)
                statement.node.visit(finder)
            for method in class_methods(scope):
                # the other methods run the constructor's graph, later: like nested defs
                finder = _RunSiteFinder(self, scope, None)
                finder.def_stack.append(method)
                method.body.visit(finder)

    def _collect_feed_dicts(self) -> None:
        for node, function in self.index.assigns:
            if (
                isinstance(node.value, cst.Dict)
                and len(node.targets) == 1
                and isinstance(node.targets[0].target, cst.Name)
                and node.value.elements
                and all(isinstance(e, cst.DictElement) and _target_name(e.key) is not None for e in node.value.elements)
            ):
                name = node.targets[0].target.value
                key = (id(function), name)
                existing = self.facts.feed_dicts.get(key)
                if existing is not None:
                    existing.count += 1
                else:
                    existing = self.facts.feed_dicts[key] = FeedDict(name, node, node.value, function)
                existing.bindings.append((node, node.value))


class _RunSiteFinder(cst.CSTVisitor):
    """Finds run sites below one effective statement of a scope."""

    def __init__(self, analyzer: GraphAnalyzer, scope: Scope, statement: Statement | None) -> None:
        self.analyzer = analyzer
        self.scope = scope
        self.statement = statement
        self.def_stack: list[cst.FunctionDef] = []
        self.loop_depth = 0
        self.expr_statement: cst.SimpleStatementLine | None = None
        self.graph_scope_defs = {id(s.owner) for s in analyzer.facts.scopes if isinstance(s.owner, cst.FunctionDef)}

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

    def _run_site(self, call: cst.Call) -> RunSite | None:
        a = self.analyzer
        if not isinstance(call.func, cst.Attribute):
            return None
        attr = call.func.attr.value
        receiver = call.func.value
        nested = bool(self.def_stack) or self.statement is None
        order = None if nested else self.statement.order  # type: ignore[union-attr]
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
            and m.matches(receiver, m.Attribute(value=m.Name(), attr=m.Name()))
            and receiver.value.value != "self"  # type: ignore[attr-defined]
            and f"self.{receiver.attr.value}" in a.facts.session_names  # type: ignore[attr-defined]
        ):
            # ``model.sess.run(model.lambda_1)``: the session of a converted class, used outside it
            a.facts.allowed_session_reads.add(id(receiver))
            fetch = call_argument(call, "fetches", 0)
            if fetch is None:
                return None
            return RunSite(call, "instance", fetch, call_argument(call, "feed_dict", 1), order, in_loop, whole, function)
        if attr == "run" and _target_name(receiver) in a.facts.session_names:
            a.facts.allowed_session_reads.add(id(receiver))
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value in ("options", "run_metadata"):
                    a.facts.block(call, blockers.UNSUPPORTED_SESSION, f"`{arg.keyword.value}=` of Session.run is not converted")
            fetch = call_argument(call, "fetches", 0)
            if fetch is None:
                a.facts.block(call, blockers.UNSUPPORTED_SESSION, "Session.run without fetches")
                return None
            return RunSite(call, "session.run", fetch, call_argument(call, "feed_dict", 1), order, in_loop, whole, function)
        if attr == "minimize" and _target_name(receiver) is not None:
            found = lookup_graph_name(self.scope, _target_name(receiver), order)  # type: ignore[arg-type]
            if found is not None and found[1].kind is Kind.SCIPY:
                session = call_argument(call, "session", 0)
                if session is not None and _target_name(session) in a.facts.session_names:
                    a.facts.allowed_session_reads.add(id(session))
                return RunSite(call, "scipy", receiver, call_argument(call, "feed_dict", 1), order, in_loop, whole, function)
        if attr in ("save", "restore") and _target_name(receiver) is not None:
            found = lookup_graph_name(self.scope, _target_name(receiver), order)  # type: ignore[arg-type]
            if found is not None and found[1].kind is Kind.SAVER:
                session = call_argument(call, "sess", 0)
                if session is not None and _target_name(session) in a.facts.session_names:
                    a.facts.allowed_session_reads.add(id(session))
                a.facts.saver_calls.append((call, found[1]))
                return None
        if attr in ("eval", "run"):
            if not self._is_graph_expression(receiver, order):
                return None
            session = call_argument(call, "session", 1)
            if session is not None and _target_name(session) is not None:
                a.facts.allowed_session_reads.add(id(session))
            return RunSite(call, "eval" if attr == "eval" else "op.run", receiver, call_argument(call, "feed_dict", 0), order, in_loop, whole, function)
        return None

    def _is_graph_expression(self, expr: cst.BaseExpression, order: int | None) -> bool:
        a = self.analyzer
        if isinstance(expr, cst.Call) and a.tf.call_name(expr) in INIT_CALLS:
            return True
        reads, _ = read_and_bound(expr)
        if not reads:
            return False
        return any(lookup_graph_name(self.scope, name, order) is not None for name in reads)


def _optimization_statement(statement: Statement, kind: Kind, target: str, call: cst.Call, scope: Scope) -> Statement:
    """A TRAIN or SCIPY statement: defined by ``call``, depending on the graph it reads."""
    reads = tuple(dict.fromkeys(read_and_bound(call)[0]))
    statement.kind = kind
    statement.defines = (target,)
    statement.reads = reads
    statement.minimize = call
    # An optimizer made inline (``tf.train.AdamOptimizer(rate).minimize(loss)``) is created
    # once, outside the step: what its arguments read is not part of the step's computation.
    optimizer = call.func.value if isinstance(call.func, cst.Attribute) else None
    step_reads = (
        dict.fromkeys(n for a in call.args for n in read_and_bound(a.value)[0]) if isinstance(optimizer, cst.Call) else reads
    )
    statement.deps = frozenset(o.order for n in step_reads if (o := scope.graph_statement(n, statement.order)) is not None)
    return statement


def is_init_expression(tf: TfImports, expr: cst.BaseExpression, scope: Scope, before: int | None) -> bool:
    """An initializer: ``tf.global_variables_initializer()`` (and kin), ``tf.group`` of
    initializers, a name bound to one, or ``var.initializer``."""
    if isinstance(expr, cst.Call):
        name = tf.call_name(expr)
        if name in INIT_CALLS:
            return True
        if name == "group":
            args = [a.value for a in expr.args]
            return bool(args) and all(is_init_expression(tf, a, scope, before) for a in args)
    if isinstance(expr, cst.Name):
        found = lookup_graph_name(scope, expr.value, before)
        return found is not None and found[1].kind is Kind.INIT
    if m.matches(expr, m.Attribute(value=m.Name(), attr=m.Name("initializer"))):
        found = lookup_graph_name(scope, expr.value.value, before)  # type: ignore[attr-defined]
        return found is not None and found[1].kind is Kind.VARIABLE
    return False


def _control_flow_refused(call: cst.Call, name: str) -> str | None:
    """Control flow forms whose TF2 counterpart behaves otherwise inside a tf.function."""
    if name == "case" and call.args and isinstance(call.args[0].value, cst.Dict):
        return "`tf.case` with a dict of predicates (tensors are not hashable in TF2); write a list of (predicate, function) pairs"
    if name == "while_loop" and any(a.keyword is not None and a.keyword.value == "maximum_iterations" for a in call.args):
        return "`tf.while_loop` with `maximum_iterations=` is not converted (TF2 checks the loop variables' structure otherwise)"
    return None


def _shape_attributes(expression: cst.BaseExpression) -> list[cst.Attribute]:
    """The ``x.shape`` / ``x.get_shape`` attribute inside a static-dimension expression."""
    return [a for a in m.findall(expression, m.Attribute(attr=m.Name("shape") | m.Name("get_shape"))) if isinstance(a, cst.Attribute)]


def _target_name(node: cst.BaseExpression) -> str | None:
    """The graph name an expression stands for: a variable, or an attribute of self."""
    if isinstance(node, cst.Name):
        return node.value
    return self_attribute(node)


def _root_name(expr: cst.BaseExpression) -> str | None:
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def analyze(module: cst.Module, imports: TfImports) -> GraphFacts:
    return GraphAnalyzer(module, imports).analyze()
