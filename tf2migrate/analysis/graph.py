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

This module walks the file and its scopes; ``analysis/statements.py`` decides each
statement's kind and ``analysis/run_sites.py`` finds where the graphs run.
"""

from __future__ import annotations

from collections import Counter

import libcst as cst
import libcst.matchers as m
from libcst.helpers import get_full_name_for_node

from tf2migrate.analysis import bindings, blockers, imported_calls, iterators, rnn
from tf2migrate.analysis.bindings import parameter_names
from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.helper_effects import is_property, member_uses, python_effect
from tf2migrate.analysis.idle_sessions import find_idle_sessions, placement_calls, rebound_sessions
from tf2migrate.analysis.layer_helpers import LayerHelper, find_layer_helper
from tf2migrate.analysis.list_fills import list_fills
from tf2migrate.analysis.passed_feed_displays import collect_passed_feed_displays
from tf2migrate.analysis.dropped_calls import dropped_call, dropped_call_message
from tf2migrate.analysis.catalogue import (
    GRAPH_STATE_READS,
    GRAPH_WRITER_CALLS,
    GLOBAL_STEP_CALLS,
    CONFIG_CALLS,
    GRADIENT_CALLS,
    NAMING_CONTEXTS,
    OTHER_SESSION_CALLS,
    PLACEHOLDER_CALLS,
    SESSION_CALLS,
    TEST_SESSION_METHODS,
    V1_SWITCH_CALLS,
    makes_variables,
)
from tf2migrate.analysis.model import (
    FeedDict,
    GraphFacts,
    Helper,
    Kind,
    Scope,
    Statement,
    lookup_graph_name,
)
from tf2migrate.analysis.names import (
    assigned_names,
    function_facts,
    names_bound,
    names_surely_bound,
    graph_name,
    read_and_bound,
    root_name,
    self_attribute,
    variable_names,
)
from tf2migrate.analysis.project import FileContext
from tf2migrate.analysis.module_facts import reached_from
from tf2migrate.analysis.summaries import Summary
from tf2migrate.analysis.run_sites import find_run_sites
from tf2migrate.analysis.session_parameters import find_session_parameters
from tf2migrate.analysis.shared_variables import sets_variable_defaults
from tf2migrate.analysis.statements import StatementClassifier
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.traversal import find_all, lay_out, preorder, walk


# what a ``tf.test.TestCase`` session's arguments may set: placement and the session's
# configuration, which a converted session drops as it drops ``tf.Session(config=...)``'s
_TEST_SESSION_SETTINGS = frozenset({"use_gpu", "force_gpu", "config"})
# TF1's graph-level seed: what a module kept on TF1 reads from the default graph
_GRAPH_SEEDS = frozenset({"set_random_seed", "random.set_random_seed"})


class NodeIndex(cst.CSTVisitor):
    """One walk over the module that files away the nodes the analysis asks about, each
    with the function it belongs to, so no later step walks the whole tree again."""

    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.assigns: list[tuple[cst.Assign, cst.FunctionDef | None]] = []
        self.with_items: list[cst.WithItem] = []
        self.lines: list[cst.SimpleStatementLine] = []  # every simple statement line
        self.withs: list[cst.With] = []  # outside classes
        self.classes: list[cst.ClassDef] = []
        self.functions: list[cst.FunctionDef] = []  # outside classes
        self.returns: dict[int, list[cst.Return]] = {}
        self.imports: list[cst.Import | cst.ImportFrom] = []
        # by id of each def: the calls anywhere in it, its decorators and defaults included
        # (``calls_in(def, enter_defs=True)``)
        self.calls_within: dict[int, list[cst.Call]] = {}
        # by id of each call in a def: the innermost def it stands in
        self.function_of_call: dict[int, cst.FunctionDef] = {}
        # by id of each def and class: the names whose objects an assignment in it changes
        # (the root of ``x[0] = …``, ``self.a = …``, ``obj.b += …``), however deep
        self.changed_within: dict[int, set[str]] = {}
        # names a def declares ``global`` or ``nonlocal``: any call may rebind them
        self.declared: set[str] = set()
        self._functions: list[cst.FunctionDef] = []
        self._defs: list[cst.FunctionDef | cst.ClassDef] = []
        self._class_depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self._class_depth:
            self.functions.append(node)
        self._functions.append(node)
        self.calls_within[id(node)] = []
        self._enter_def(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()
        self._defs.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node)
        self._class_depth += 1
        self._enter_def(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._class_depth -= 1
        self._defs.pop()

    def _enter_def(self, node: cst.FunctionDef | cst.ClassDef) -> None:
        self._defs.append(node)
        self.changed_within[id(node)] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._changes(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        self.declared.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declared.update(n.name.value for n in node.names)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._changes(node.target)

    def _changes(self, target: cst.BaseExpression) -> None:
        root = root_name(target) if isinstance(target, (cst.Subscript, cst.Attribute)) else None
        if root is not None:
            for node in self._defs:
                self.changed_within[id(node)].add(root)

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
        for function in self._functions:
            self.calls_within[id(function)].append(node)
        if self._functions:
            self.function_of_call[id(node)] = self._functions[-1]

    def visit_Import(self, node: cst.Import) -> None:
        self.imports.append(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.imports.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.assigns.append((node, self._functions[-1] if self._functions else None))

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.lines.append(node)

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

    def __init__(
        self,
        module: cst.Module,
        imports: TfImports,
        imported: dict[str, Summary],
        links: FileContext | None = None,
        index: NodeIndex | None = None,
        tf1: bool = False,
    ) -> None:
        self.module = module
        self.tf1 = tf1
        self.links = links
        self.tf = imports
        self.facts = GraphFacts(imports, imported=imported)
        self._sources: dict[str, str] | None = None  # each imported name's module
        if links is not None:
            self.facts.importer_names, self.facts.graph_mode_modules = links.importer_names, links.graph_mode_modules
            self.facts.importer_changed_arguments = links.importer_changed_arguments
            self.facts.importer_attributes = links.importer_attributes
            self.facts.importer_module_names = links.importer_module_names
            links_of_state = imported_calls.state_links(module, self._import_sources(), links.modules, links.changed_elsewhere)
            self.facts.names_sharing_state, self.facts.names_changed_by_calls, self.facts.names_changed_elsewhere = links_of_state
        self.index = index if index is not None else index_module(module)
        self._module_functions: dict[str, cst.FunctionDef] | None = None
        self._changing_methods: frozenset[str] | None = None
        self.facts.calls = self.index.calls
        self.facts.function_of_call = self.index.function_of_call
        self._scopes_set_defaults: bool | None = None  # see _is_naming_variable_scope
        self._names: Counter[str] | None = None  # see _name_counts
        self.facts.import_nodes = self.index.imports
        self.classifier = StatementClassifier(module, self.facts)
        self._test_sessions, self._refused_test_sessions = self._find_test_sessions()
        # placeholder and session calls: the few a def must hold to build or run a graph
        self._graph_calls = {id(c) for c in self.index.calls if self.tf.call_name(c) in PLACEHOLDER_CALLS | SESSION_CALLS}
        self._graph_calls |= self._test_sessions | self.facts.test_runs
        self._graph_names = {
            t.target.value
            for node, _ in self.index.assigns
            if isinstance(node.value, cst.Call) and self.tf.call_name(node.value) == "Graph"
            for t in node.targets
            if isinstance(t.target, cst.Name)
        }

    # ----------------------------------------------------------------- helpers
    def _collect_helpers(self, graph_functions: set[int]) -> None:
        """Module functions: do they create variables or take tf.gradients (transitively)?

        Functions that build and run a graph of their own are programs, not helpers."""
        functions: dict[str, cst.FunctionDef] = {}
        # ``self.method`` → (class, def) of each class defining it
        methods: dict[str, list[tuple[str, cst.FunctionDef]]] = {}
        for statement in self._module_statements(self.module.body):
            if isinstance(statement, cst.FunctionDef) and id(statement) not in graph_functions:
                functions[statement.name.value] = statement
            elif isinstance(statement, cst.ClassDef):
                # methods are called as ``self.method(...)``
                for method in statement.body.body:
                    if isinstance(method, cst.FunctionDef) and method.name.value != "__init__":
                        functions[f"self.{method.name.value}"] = method
                        methods.setdefault(f"self.{method.name.value}", []).append((statement.name.value, method))
        calls: dict[str, list[cst.Call]] = {}
        helpers: dict[str, Helper] = {}
        for name, node in functions.items():
            facts = function_facts(node)
            calls[name] = facts.calls
            helpers[name] = Helper(
                node,
                returns_tensor=self._returns_tensor(node),
                self_reads={n for n in facts.reads if n.startswith("self.")},
                free_reads=set(facts.free_reads),
                own_free_reads=frozenset(facts.free_reads),
                effect=python_effect(node, self.tf, facts),
                member_uses=member_uses(node, self.tf, facts),
                iterator=next((c for c in facts.calls if iterators.iterator_made(self.tf, c) is not None), None),
                rnn_runs=tuple(c for c in facts.calls if self.tf.call_name(c) in rnn.RUN_CALLS),
                optimizer=next((c for c in facts.calls if _is_optimizer(self.tf.call_name(c))), None),
            )
        self.facts.helpers = helpers
        for name, defined in methods.items():
            # deep_equals stops at the first difference: cheaper than rendering each definition
            if any(not method.deep_equals(defined[0][1]) for _, method in defined[1:]):
                helper = helpers[name]
                helper.ambiguous = tuple(cls for cls, _ in defined)
                # a member used on another object (``log.record(...)``) lends the effect of any of them
                helper.effect = next(
                    (e for _, method in defined if (e := python_effect(method, self.tf, function_facts(method))) is not None), None
                )
        changed = True
        while changed:
            changed = False
            for name, helper in helpers.items():
                for call in calls[name]:
                    tf_name = self.tf.call_name(call)
                    callee = self.classifier.helper_for(call)
                    creates = self._creates_variables(helper, call)
                    grads = (
                        tf_name in GRADIENT_CALLS
                        or (callee is not None and callee is not helper and callee.uses_gradients)
                        or imported_calls.takes_gradients(self.facts, call)
                    )
                    if creates and not helper.creates_variables:
                        helper.creates_variables = changed = True
                    if grads and not helper.uses_gradients:
                        helper.uses_gradients = changed = True
                    if callee is not None and callee is not helper and not callee.self_reads <= helper.self_reads:
                        helper.self_reads |= callee.self_reads
                        changed = True
                    if callee is not None and callee is not helper and not callee.free_reads <= helper.free_reads:
                        helper.free_reads |= callee.free_reads
                        changed = True
                    if callee is not None and callee.effect is not None and helper.effect is None:
                        helper.effect = callee.effect
                        changed = True
                    if callee is not None and callee.iterator is not None and helper.iterator is None:
                        helper.iterator = callee.iterator
                        changed = True
                    if callee is not None and callee.optimizer is not None and helper.optimizer is None:
                        helper.optimizer = callee.optimizer
                        changed = True
                for decorator in helper.node.decorators:
                    # ``@counted`` of the file: its wrapper runs at each call of the helper
                    wrapper = decorator.decorator
                    wrapper = wrapper.func if isinstance(wrapper, cst.Call) else wrapper
                    used = helpers.get(wrapper.value) if isinstance(wrapper, cst.Name) else None
                    if used is not None and used is not helper and used.effect is not None and helper.effect is None:
                        helper.effect = used.effect
                        changed = True
                for member, called in helper.member_uses:
                    used = helpers.get(f"self.{member}")
                    if used is None or used is helper or used.effect is None or helper.effect is not None:
                        continue
                    if called or is_property(used.node):
                        helper.effect = used.effect
                        changed = True

        changed = True
        while changed:  # a function calling one that runs an RNN (refused where it is called)
            changed = False
            for name, helper in helpers.items():
                if not helper.nested_runs and any(
                    (callee := self.classifier.helper_for(c)) is not None
                    and callee is not helper
                    and (callee.rnn_runs or callee.nested_runs)
                    for c in calls[name]
                ):
                    helper.nested_runs = changed = True
        for name, helper in helpers.items():
            if "." in name or not helper.creates_variables:
                continue
            found = find_layer_helper(
                self.tf,
                name,
                helper.node,
                lambda call, helper=helper: self._creates_variables(helper, call),
                bool(self.facts.batch_norm_flags),
            )
            if isinstance(found, LayerHelper):
                # its callers in graph code pass it layers made once (analysis/layer_helpers.py);
                # helpers calling it keep creating variables (its calls there are refused)
                helper.layers, helper.creates_variables = found, False
            else:
                helper.layer_refusal = found

    def _creates_variables(self, helper: Helper, call: cst.Call) -> bool:
        """Does a call in the body of ``helper`` create variables (TF, a helper of the file, an imported one)?"""
        tf_name = self.tf.call_name(call)
        # a TF1 name kept through an import this release does not rewrite (``from tensorflow.contrib import rnn``)
        kept_name = self.tf.kept_call_name(call) if tf_name is None else None
        callee = self.classifier.helper_for(call)
        return (
            (tf_name is not None and (makes_variables(tf_name) or tf_name in GLOBAL_STEP_CALLS))
            or (kept_name is not None and makes_variables(kept_name))
            or (callee is not None and callee is not helper and callee.creates_variables)
            or imported_calls.creates_variables(self.facts, call)
        )

    def _check_layer_helpers(self) -> None:
        """A layer helper is rewritten to take its layers as an argument: every use of its
        name must be a call of graph code that passes them (see analysis/layer_helpers.py)."""
        placed = [h.layers for h in self.facts.helpers.values() if h.layers is not None and h.layers.calls]
        if not placed:
            return
        uses = self._name_counts()
        for helper in placed:
            if uses.get(helper.name, 0) == len(helper.calls) + 1:  # its calls and its def
                self.facts.layer_helpers.append(helper)
                continue
            for site in helper.calls.values():
                self.facts.block(
                    site.call,
                    blockers.VARIABLE_IN_COMPUTATION,
                    f"`{helper.name}` creates variables with tf.layers and is also used where its layers cannot be passed "
                    "(another function, a loop, a value, or a call refused here): converted, it takes its Keras layers as "
                    "an argument, which those uses would not pass",
                )

    def _name_counts(self) -> Counter[str]:
        """How many times each name stands in the module as a ``Name``, counted on first use."""
        if self._names is None:
            self._names = bindings.name_counts_in(self.module)
        return self._names

    def _returns_tensor(self, function: cst.FunctionDef) -> bool:
        returns = self.index.returns.get(id(function), [])
        if not returns:
            return False
        bound: list[str] | None = None
        for r in returns:
            value, seen = r.value, set()
            # ``out = tf.squeeze(y); return out``: a local bound once, at the top level of
            # the body, by an expression that is a tensor (followed through such locals)
            while isinstance(value, cst.Name) and value.value not in seen:
                seen.add(value.value)
                if bound is None:
                    bound = read_and_bound(function.body)[1]
                if bound.count(value.value) != 1 or value.value in parameter_names(function):
                    break
                value = _top_level_value(function, value.value)
            if value is None or self.classifier.expression_kind(value) != "tensor" or _joins_displays(value):
                return False
        return True

    # ------------------------------------------------------------------ entry
    def analyze(self) -> GraphFacts:
        self._self_changing_runs: dict[int, str] = {}  # such a method changing ``self``: the first statement that does
        self._self_contained = self._self_contained_methods()
        function_scopes = self._function_scopes()
        self._collect_helpers({id(f) for f in function_scopes})
        self._collect_session_and_config_names()
        collect_passed_feed_displays(self.facts, self.module, self.index.calls)
        self._check_graph_mode_modules()
        self.facts.session_parameters = find_session_parameters(self.module, self.facts, self.index.classes, self.links)
        if self.facts.session_names:
            self.facts.idle_sessions, self.facts.idle_configs = find_idle_sessions(self.module, self.tf, self.index.lines)
        idle = [*self.facts.idle_sessions, *self.facts.idle_configs]
        self.facts.no_graph_calls = {id(c) for s in idle for c in calls_in(s)} | placement_calls(self.index.with_items, self.tf)
        self._check_classes()
        module_scope = Scope(self.module, None)
        self._analyze_scope(module_scope, self.module.body)
        for function in function_scopes:
            scope = Scope(function, module_scope)
            self._analyze_scope(scope, function.body.body)
            if id(function) in self._test_methods:
                self._check_test_method_reads(function, module_scope)
        for cls, init, candidates in self._class_scopes:
            scope = Scope(init, module_scope, cls=cls)
            self._splice_candidates = candidates
            self._analyze_scope(scope, init.body.body)
            self._splice_candidates = {}
            self._check_constructor_methods(scope, candidates)
        self._check_layer_helpers()
        find_run_sites(self.facts)
        self._check_graph_state_reads()
        self._collect_feed_dicts()
        rebound = rebound_sessions(self.index.lines, self.tf, self.facts.session_names) if self.facts.session_names else []
        if rebound:
            # (one in a statement the migration removes or moves as graph code goes with it)
            taken = {id(line) for line in self.facts.idle_sessions}
            for scope in self.facts.scopes:
                for statement in scope.statements:
                    if statement.kind is not Kind.PYTHON:
                        taken |= {id(line) for line in find_all(statement.node, cst.SimpleStatementLine)}
            self.facts.idle_sessions += [line for line in rebound if id(line) not in taken]
        opened = {key for scope in self.facts.scopes for key in scope.unwrapped}
        self.facts.nested_session_blocks = [
            w for w in self.index.withs if id(w) not in opened and all(self._is_session_context(i.item) for i in w.items)
        ]
        return self.facts

    def _check_graph_state_reads(self) -> None:
        """A graph's collections read in a function the analysis does not read as graph code (a
        helper the training loop calls, ``def count(): return len(tf.global_variables())``; a
        method running ``self.sess.run`` in a loop next to ``len(tf.trainable_variables())``):
        kept as ``tf.compat.v1.global_variables()`` in an eager program, it would find no graph.
        The statements of the scopes analysed are judged where they are classified (graph code
        by its rules, a block with runs in analysis/statements.py).  Asked only of a graph
        nothing else keeps on TF1."""
        if self.facts.blockers or not self.facts.graph_evidence:
            return
        analysed = {id(scope.owner) for scope in self.facts.scopes}
        taken = {id(inner) for scope in self.facts.scopes for site in scope.run_sites for inner in calls_in(site.call)}
        for call in self.index.calls:
            function = self.index.function_of_call.get(id(call))
            name = self.tf.call_name(call) if function is not None else None
            if name in GRAPH_STATE_READS and id(call) not in taken and id(function) not in analysed:
                assert function is not None
                self.facts.block(
                    call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"`tf.{name}` is not converted by this release (read in `{function.name.value}`, which is no graph code: "
                    f"eager TF2 keeps no graph, and `tf.compat.v1.{name}()` would find it empty)",
                )
                return

    def _check_graph_mode_modules(self) -> None:
        """A module imported with modules that stay on TF1 runs in their graph mode (the
        fallback's switch holds for the whole process): its own graph stays on TF1 too."""
        modules = self.facts.graph_mode_modules
        first = next((c for c in self.index.calls if id(c) in self._graph_calls), None)
        if modules and first is not None:
            names = ", ".join(f"`{name}`" for name in modules)
            self.facts.block(
                first,
                blockers.UNSUPPORTED_GRAPH_CODE,
                f"this module's graph stays on TF1: {names}, imported with it, stays on TF1 semantics, whose "
                "`disable_eager_execution()` holds for the whole process, where this module's graph converted to eager "
                "TF2 would not run",
            )
        elif modules:
            # No graph of its own, but a graph seed: TF1's ``tf.set_random_seed`` seeded the
            # default graph those modules build in.  Left eager until they are imported (an
            # import after the seed, in a class body or a function), ``tf.compat.v1.set_random_seed``
            # would seed the eager context, which the graph made after the switch never reads: their
            # random initial values would change at every run.  The file switches to graph mode too.
            seed = next((c for c in self.index.calls if self.tf.call_name(c) in _GRAPH_SEEDS), None)
            if seed is not None and not _seeded_after_imports(self.module, seed, modules):
                names = ", ".join(f"`{name}`" for name in modules)
                self.facts.graph_evidence = True
                self.facts.block(
                    seed,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"`tf.{self.tf.call_name(seed)}` seeds the graph of {names}, imported with this module, which "
                    "stays on TF1 semantics: run before its `disable_eager_execution()`, the call would seed eager "
                    "execution instead, and the graph's random values would change at every run",
                )

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
            if (fed := _fed_name(call)) is not None:
                self.facts.feed_names.add(fed)
        self._check_graph_writers()
        if self._test_sessions or (self.tf1 and self.facts.test_runs):
            # (a TF1 file's test method evaluating with ``self.evaluate`` ran a graph: TF1's
            # TestCase ran its tests in graph mode, TF2's runs them eagerly)
            self.facts.graph_evidence = True
        for call, why in self._refused_test_sessions:
            self.facts.graph_evidence = True
            self.facts.block(call, blockers.UNSUPPORTED_SESSION, why)
        for node, _ in self.index.assigns:
            if not isinstance(node.value, cst.Call):
                continue
            name = self.tf.call_name(node.value)
            names = {t.target.value for t in node.targets if isinstance(t.target, cst.Name)}
            names |= {a for t in node.targets if (a := self_attribute(t.target)) is not None}
            if name in SESSION_CALLS or imported_calls.is_session_factory(self.facts, node.value):
                self.facts.session_names |= names
                found = imported_calls.summary_of(self.facts, node.value) if name not in SESSION_CALLS else None
                if found is not None and found.initializes:
                    # (a factory that only makes the session initializes nothing: `make_session()`)
                    self.facts.factory_calls.append(node.value)
            elif name in CONFIG_CALLS:
                self.facts.config_names |= names
        for item in self.index.with_items:
            if item.asname is not None and isinstance(item.asname.name, cst.Name) and self._is_session_context(item.item):
                self.facts.session_names.add(item.asname.name.value)

    def _check_graph_writers(self) -> None:
        """A writer of the default graph made by the module's own top-level code (or a function of
        the module it calls), in a file with no other graph evidence (no placeholder, no session:
        a script building a graph only to show it in TensorBoard): renamed alone,
        ``tf.compat.v1.summary.FileWriter`` would be made under eager execution, which it refuses
        (RuntimeError), and TF2 keeps no default graph to write.
        The graph stays on TF1, where the writer runs as it did."""
        if self.facts.graph_evidence:
            return
        # (or by a function of the module its top-level code calls: ``def main():`` of the guard)
        top_level = {id(s) for s in self.module.body}
        called: set[str] = set()
        called_by: dict[str, set[str]] = {}
        for call in self.index.calls:
            caller = self.index.function_of_call.get(id(call))
            if isinstance(call.func, cst.Name) and caller is None:
                called.add(call.func.value)
            elif isinstance(call.func, cst.Name) and caller is not None and id(caller) in top_level:
                called_by.setdefault(caller.name.value, set()).add(call.func.value)
        called = reached_from(called, called_by)
        for call in self.index.calls:
            name = self.tf.call_name(call)
            function = self.index.function_of_call.get(id(call))
            if name in GRAPH_WRITER_CALLS and (function is None or id(function) in top_level and function.name.value in called):
                self.facts.graph_evidence = True
                self.facts.block(
                    call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"`tf.{name}` writes the default graph this module builds (with no session): TF2 runs eagerly and "
                    "keeps no default graph, and the writer cannot be made under eager execution",
                )
                return

    def _check_classes(self) -> None:
        """A class that builds its graph in ``__init__`` (placeholders and session on
        ``self``) is a graph scope; one that builds graph pieces elsewhere is not converted."""
        self._class_scopes: list[tuple[cst.ClassDef, cst.FunctionDef, dict[str, cst.FunctionDef]]] = []
        self._external: dict[int, cst.FunctionDef] = {}  # by constructor: the build method its callers run
        self._splice_candidates = {}
        top_level = {id(s) for s in self.module.body}
        for node in self.index.classes:
            methods = [m_ for m_ in node.body.body if isinstance(m_, cst.FunctionDef)]
            init = next((m_ for m_ in methods if m_.name.value == "__init__"), None)
            graph_calls = [
                (method, call)
                for method in methods
                if method not in self._self_contained
                for call in self.index.calls_within[id(method)]
                if id(call) in self._graph_calls
            ]
            if not graph_calls:
                continue
            # a build method another module calls right after the construction (analysis/external_builds.py)
            external = self.links.external_builds.get(node.name.value) if self.links is not None and id(node) in top_level else None
            candidates, refused = (
                bindings.spliced_methods(
                    self.tf,
                    self.module,
                    node,
                    init,
                    self.index.calls_within,
                    external.method if external is not None else None,
                    self._name_counts,
                )
                if init is not None
                else ({}, {})
            )
            why_not = self.links.build_refusals.get(node.name.value) if self.links is not None else None
            if why_not is not None:
                refused = {
                    name: f"{reason}, nor is it run right after each construction by its callers: {why_not}"
                    for name, reason in refused.items()
                }
            outside = [(method, call) for method, call in graph_calls if method is not init and method.name.value not in candidates]
            if id(node) not in top_level or init is None or outside:
                method, call = (outside or graph_calls)[0]
                reason = refused.get(method.name.value) if id(node) in top_level else None
                changes_self = self._self_changing_runs.get(id(method))
                if changes_self is not None:
                    why = (
                        "a method building and running a graph of its own is converted as a function when it changes nothing "
                        f"of `self`; `{changes_self}` does (TF1 built the graph with the values `self` held then, a generated "
                        "function would read them when called)"
                    )
                elif reason is not None:
                    why = f"a graph-building method is converted when the constructor calls it once, as a statement of its own; {reason}"
                else:
                    why = "only graphs built in `__init__` of a module-level class (or in methods it calls) are converted"
                    if id(node) not in top_level:
                        why += f"; `{node.name.value}` is defined inside {self._enclosing_block(node)}"
                self.facts.block(
                    call, blockers.CLASS_BASED_GRAPH, f"`{self.tf.call_name(call)}` in `{node.name.value}.{method.name.value}`: {why}"
                )
                continue
            self._class_scopes.append((node, init, candidates))
            if external is not None:
                self._external[id(init)] = candidates[external.method]

    def _enclosing_block(self, node: cst.ClassDef) -> str:
        """The module-level statement a nested class is defined in, as a user sees it:
        ``with tf.device('/gpu:0'):`` (scripts indented whole under a device scope), a
        function, an ``if``."""
        statement = next((s for s in self.module.body if any(n is node for n in preorder(s))), None)
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            kind = "function" if isinstance(statement, cst.FunctionDef) else "class"
            return f"{kind} `{statement.name.value}`"
        if isinstance(statement, (cst.With, cst.If, cst.For, cst.While)):
            return f"`{bindings.block_header(statement)}:`"  # ``with tf.device('/gpu:0'):``
        if isinstance(statement, cst.Try):
            return "a `try` block"
        return "another statement"

    def _check_constructor_methods(self, scope: Scope, candidates: dict[str, cst.FunctionDef]) -> None:
        """A graph-building method the constructor does not call as a statement of its own
        is refused; graph code must not read what only the constructor (or such a method)
        can see."""
        spliced = {id(method) for method in scope.spliced}
        for name, method in candidates.items():
            if id(method) not in spliced:
                call, called = self._graph_building_call(method, candidates)
                self.facts.block(
                    call,
                    blockers.CLASS_BASED_GRAPH,
                    f"`{called}` in `{scope.cls.name.value}.{name}`: a graph-building method is converted "  # type: ignore[union-attr]
                    "when the constructor calls it once, as a statement of its own",
                )
        for node, message in bindings.constructor_local_reads(self.tf, self.module, scope):
            self.facts.block(node, blockers.UNSUPPORTED_GRAPH_CODE, message)
        # what each method reads of ``self`` (and does not set itself first: ``self.h0 = ...; use(self.h0)``)
        helper_reads = {
            name: helper.self_reads - set(names_bound(helper.node.body))
            for name, helper in self.facts.helpers.items()
            if name.startswith("self.")
        }
        for node, message in bindings.attributes_set_elsewhere(self.module, scope, helper_reads):
            self.facts.block(node, blockers.UNSUPPORTED_GRAPH_CODE, message)

    def _graph_building_call(self, method: cst.FunctionDef, candidates: dict[str, cst.FunctionDef]) -> tuple[cst.Call, str]:
        """The call that makes ``method`` build graph, and its name as written: a placeholder
        or session first, else its first TF call, else its first call of another of the
        class's graph-building methods (a ``build_graph`` that only runs
        ``self._create_placeholders()``, ``self._create_loss()`` …, called by the program)."""
        calls = calls_in(method, enter_defs=True)
        found = [c for c in calls if self.tf.call_name(c) is not None]
        if found:
            call = next((c for c in found if self.tf.call_name(c) in PLACEHOLDER_CALLS | SESSION_CALLS), found[0])
            return call, str(self.tf.call_name(call))
        # a candidate with no TF call of its own calls one that has (bindings.spliced_methods)
        builders = [(c, attribute) for c in calls if (attribute := self_attribute(c.func)) is not None]
        call, attribute = next(((c, a) for c, a in builders if a[len("self.") :] in candidates), builders[0])
        return call, attribute

    def _function_scopes(self) -> list[cst.FunctionDef]:
        """Functions (at any depth, outside classes) that build or run their own graph, and
        the methods that do so on their own (:meth:`_self_contained_methods`)."""
        return [
            node
            for node in [*self.index.functions, *self._self_contained]
            # (only a def with one anywhere in it can have one in its own body)
            if any(id(c) in self._graph_calls for c in self.index.calls_within[id(node)])
            and any(id(c) in self._graph_calls for c in calls_in(node.body))
        ]

    def _find_test_sessions(self) -> tuple[set[int], list[tuple[cst.Call, str]]]:
        """The sessions of ``tf.test.TestCase`` test methods (``with self.test_session() as
        sess:``, ``cached_session()``, ``session()``), read as ``tf.Session()`` blocks, and those
        refused, each with why.

        TF1's ``TestCase.setUp`` gave each test method a new default graph, and each of these
        calls a session on it (``test_session`` and ``cached_session`` the same one at each
        block of the method, ``session`` a new one): a test method building its graph and
        running it in such blocks is a function building and running a graph of its own, as
        :meth:`_self_contained_methods` converts.  The arguments must only place or configure
        (``use_gpu=``, ``force_gpu=``, ``config=``); a session of another graph (``graph=``, or a
        positional argument, TF1's first parameter) is refused, as is such a call outside a
        method of a module-level ``tf.test.TestCase`` subclass."""
        self._test_methods: set[int] = set()
        if not self.tf.aliases:
            return set(), []
        self._test_methods = self.facts.test_methods = test_methods = {
            id(method)
            for node in self.module.body
            if isinstance(node, cst.ClassDef) and any(self.tf.canonical(base.value) == "test.TestCase" for base in node.bases)
            for method in node.body.body
            if isinstance(method, cst.FunctionDef)
        }
        accepted: set[int] = set()
        refused: list[tuple[cst.Call, str]] = []
        # the test methods having had a session block, and a ``self.session()`` block (source order)
        blocks_seen: set[int] = set()
        new_sessions_seen: set[int] = set()
        # (a method opening sessions or graphs of its own, ``with tf.Graph().as_default(): with
        # tf.Session():`` in a loop, evaluates in those: its ``self.evaluate`` is left as it is)
        own_sessions = {
            id(function)
            for call in self.index.calls
            if self.tf.call_name(call) in SESSION_CALLS | {"Graph"} and (function := self.index.function_of_call.get(id(call))) is not None
        }
        self.facts.test_runs = {
            id(call)
            for call in self.index.calls
            if m.matches(call.func, m.Attribute(value=m.Name("self"), attr=m.Name("evaluate")))
            and id(function := self.index.function_of_call.get(id(call))) in test_methods
            and id(function) not in own_sessions
        }
        for item in self.index.with_items:
            call = item.item
            if not (
                isinstance(call, cst.Call)
                and m.matches(call.func, m.Attribute(value=m.Name("self"), attr=m.OneOf(*map(m.Name, TEST_SESSION_METHODS))))
            ):
                continue
            method = self.index.function_of_call.get(id(call))
            other = [a for a in call.args if a.keyword is None or a.keyword.value not in _TEST_SESSION_SETTINGS]
            if method is None or id(method) not in test_methods:
                refused.append((call, "tf.test.TestCase graph sessions are converted in the methods of a module-level subclass only"))
            elif other:
                refused.append((call, "a tf.test.TestCase session of another graph (`graph=`, or a positional argument) is not converted"))
            elif id(method) in new_sessions_seen or (id(method) in blocks_seen and call.func.attr.value == "session"):  # type: ignore[attr-defined]
                # TF1's ``self.session()`` opened a new session (``test_session`` and ``cached_session``
                # the method's cached one): a block after another, one of them ``session()``, ran in
                # another session, whose variables were uninitialized, or initialized anew, where the
                # converted method has one set of them
                refused.append(
                    (
                        call,
                        "a session block after another of the test, one of them `self.session()`: TF1 opened a new session, "
                        "whose variables were uninitialized (or initialized anew), where the converted method keeps one set of them",
                    )
                )
            else:
                accepted.add(id(call))
            if method is not None:
                blocks_seen.add(id(method))
                if call.func.attr.value == "session":  # type: ignore[attr-defined]
                    new_sessions_seen.add(id(method))
        return accepted, refused

    def _self_contained_methods(self) -> list[cst.FunctionDef]:
        """Methods of module-level classes that build a graph and run it in a session of their
        own, as a function would (``def run(self): x = tf.placeholder(...) … with
        tf.Session() as sess: …``), in a class no other method of which builds or runs graph
        code: nothing of the graph is kept on ``self`` (the method changes nothing of it) or
        reaches another method, so the method is read as a function whose parameter
        ``self`` holds Python values (the class's own methods, attributes the constructor set)."""
        top_level = {id(s) for s in self.module.body}
        found: list[cst.FunctionDef] = []
        for node in self.index.classes:
            if id(node) not in top_level:
                continue
            methods = [m_ for m_ in node.body.body if isinstance(m_, cst.FunctionDef)]
            graph = [m_ for m_ in methods if any(id(c) in self._graph_calls for c in self.index.calls_within[id(m_)])]
            own = [
                m_
                for m_ in graph
                if m_.name.value != "__init__"
                and not m_.decorators
                and any(
                    self.tf.call_name(c) in SESSION_CALLS or id(c) in self._test_sessions or id(c) in self.facts.test_runs
                    for c in calls_in(m_.body)
                )
                and not find_all(m_.body, (cst.FunctionDef, cst.ClassDef, cst.Yield))
            ]
            if own and len(own) == len(graph):
                for m_ in own:
                    change = next(
                        (line for line in find_all(m_.body, cst.SimpleStatementLine) if "self" in bindings.roots_changed(line)), None
                    )
                    if change is None:
                        found.append(m_)
                    else:
                        self._self_changing_runs[id(m_)] = self.module.code_for_node(change).strip()
        return found

    # ------------------------------------------------------- contexts (with)
    def _is_session_context(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Call):
            if self.tf.call_name(expr) in SESSION_CALLS or id(expr) in self._test_sessions:
                return True
            # tf.Session().as_default() / sess.as_default()
            if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "as_default":
                inner = expr.func.value
                if isinstance(inner, cst.Call) and self.tf.call_name(inner) in SESSION_CALLS:
                    return True
                if graph_name(inner) in self.facts.session_names:
                    return True
        return False

    def _is_graph_context(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "as_default":
            inner = expr.func.value
            if isinstance(inner, cst.Call) and self.tf.call_name(inner) == "Graph":
                return True
            if isinstance(inner, cst.Name) and inner.value in self._graph_names:
                return True
        return False

    def _module_statements(self, body) -> list[cst.BaseStatement]:
        """The module's statements, with those of ``with tf.device(...)``/``tf.name_scope(...)``
        blocks in it (Tensorflow-101 defines its networks inside ``with tf.device(device2use):``):
        the context places the ops built inside it, not a def's, whose ops are placed where it
        is called, as a def at the top of the module would be."""
        out: list[cst.BaseStatement] = []
        for statement in body:
            if isinstance(statement, cst.With) and all(
                isinstance(i.item, cst.Call) and self.tf.call_name(i.item) in NAMING_CONTEXTS and i.asname is None for i in statement.items
            ):
                out.extend(self._module_statements(statement.body.body))
            else:
                out.append(statement)
        return out

    def _context_kind(self, node: cst.With) -> str | None:
        kinds = set()
        for item in node.items:
            if self._is_session_context(item.item):
                kinds.add("session")
            elif self._is_graph_context(item.item):
                kinds.add("graph")
            elif isinstance(item.item, cst.Call) and self.tf.call_name(item.item) in NAMING_CONTEXTS and item.asname is None:
                kinds.add("naming")
            elif self._is_naming_variable_scope(node, item):
                kinds.add("variables")
            else:
                kinds.add("other")
        if len(kinds) == 1 and kinds != {"other"}:
            return kinds.pop()
        if kinds <= {"session", "graph", "naming"}:
            # ``with tf.Graph().as_default(), tf.Session() as sess:`` is the nested blocks one
            # within the other, each of which opens up
            return "contexts"
        if "session" in kinds or "graph" in kinds:
            self.facts.block(
                node, blockers.UNSUPPORTED_SESSION, "a with-statement mixes a session or graph context with other context managers"
            )
        return None

    def _is_naming_variable_scope(self, node: cst.With, item: cst.WithItem) -> bool:
        """``with tf.variable_scope("layer1"):`` (a name and nothing else; its ``as`` name
        read nowhere): in eager TF2 it only prefixes the names of the variables made in it
        (variable sharing, which it exists for, is refused where asked: ``reuse=``), so it
        opens up like a name scope and its variables and graph code go where they belong.
        Not in a file whose scopes set more than names (an initializer, a dtype): a scope
        object may carry them into a block that names it; nor around a block that binds a
        scope (``as inner``), whose name would lose this one."""
        call = item.item
        if not isinstance(call, cst.Call) or self.tf.call_name(call) != "variable_scope" or len(call.args) != 1:
            return False
        if self._scopes_set_defaults is None:  # (asked once per file, and only of files with variable scopes)
            self._scopes_set_defaults = any(sets_variable_defaults(self.tf, c) for c in self.index.calls)
        if self._scopes_set_defaults:
            return False  # a scope object made with an initializer may be re-entered by name
        arg = call.args[0]
        if arg.keyword is not None or arg.star or not m.matches(arg.value, m.SimpleString() | m.Name() | m.Attribute(value=m.Name())):
            return False
        if find_all(node.body, m.WithItem(asname=m.AsName())):
            return False
        if item.asname is None:
            return True
        target = item.asname.name
        if not isinstance(target, cst.Name):
            return False
        bound = sum(1 for i in self.index.with_items if i.asname is not None and m.matches(i.asname.name, m.Name(target.value)))
        return self._name_counts()[target.value] == bound  # ``as scope`` of each block, never read

    # ------------------------------------------------------------ statements
    def _effective(self, body, scope: Scope) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for statement in body:
            method = bindings.spliced_call(statement, self._splice_candidates) if scope.cls is not None else None
            if method is not None and all(method is not s for s in scope.spliced):
                out.extend(self._spliced(method, scope))  # ``self.build(...)``: the method's body runs here, once
                continue
            if isinstance(statement, cst.With):
                kind = self._context_kind(statement)
                call = next(filter(None, map(self._dropped_by_context, statement.items)), None) if kind is not None else None
                if call is not None:
                    self.facts.block(
                        call, blockers.UNSUPPORTED_GRAPH_CODE, dropped_call_message(call, "a context this with-statement opens")
                    )
                elif kind is not None:
                    scope.unwrapped[id(statement)] = (statement, kind)
                    out.extend(self._effective(statement.body.body, scope))
                    continue
            out.append(statement)
        return out

    def _check_test_method_reads(self, method: cst.FunctionDef, module_scope: Scope) -> None:
        """A test method reading the module's graph values: TF1's ``TestCase.setUp`` had made a
        new default graph, so its sessions ran another graph than the one those values belong
        to and TF1 raised (``the tensor's graph is different from the session's graph``); the
        converted method would compute.  Refused, to keep what TF1 did."""
        own = set(names_bound(method.body)) | {p.name.value for p in method.params.params}
        for name in variable_names(method.body):
            if name.value not in own and lookup_graph_name(module_scope, name.value, None) is not None:
                self.facts.block(
                    name,
                    blockers.UNSUPPORTED_SESSION,
                    f"`{name.value}`, built by the module's graph code, is read in the test method `{method.name.value}`: "
                    "tf.test.TestCase gave each test method a new default graph, so TF1 raised there (the tensor's graph "
                    "is not the session's), where the converted method would compute",
                )
                return

    def _dropped_by_context(self, item: cst.WithItem) -> cst.Call | None:
        """A call of a with item the conversion would drop with it (a test session's own call
        is the session, dropped as ``tf.Session()`` is; what its arguments call is not)."""
        if id(item.item) in self._test_sessions:
            return next(filter(None, (dropped_call(self.tf, a.value) for a in cst.ensure_type(item.item, cst.Call).args)), None)
        return dropped_call(self.tf, item.item)

    def _spliced(self, method: cst.FunctionDef, scope: Scope) -> list[cst.BaseStatement]:
        """The statements of a method read as part of the constructor, each remembering it."""
        scope.spliced.append(method)
        inner = self._effective(method.body.body, scope)
        for node in inner:
            scope.origin.setdefault(id(node), method)
        return inner

    def _self_changing_methods(self) -> frozenset[str]:
        """The methods that change their object's state: of the file's classes, and of the
        project's classes it imports (``net.eval_mode()`` of ``nets.Net`` setting
        ``self.scale``), told by name as the file's own are."""
        if self._changing_methods is None:
            imported = {name.rpartition(".")[2] for name, found in self.facts.imported.items() if found.changes_self}
            self._changing_methods = bindings.self_changing_methods(self.module) | imported
        return self._changing_methods

    def _import_sources(self) -> dict[str, str]:
        if self._sources is None:
            self._sources = imported_calls.import_sources(self.module)
        return self._sources

    def _functions_of_module(self) -> dict[str, cst.FunctionDef]:
        """The module's top-level functions, each bound once (one ``def`` of its name)."""
        if self._module_functions is None:
            defs = [n for n in self.module.body if isinstance(n, cst.FunctionDef)]
            counts = Counter(d.name.value for d in defs)
            self._module_functions = {d.name.value: d for d in defs if counts[d.name.value] == 1}
        return self._module_functions

    def _analyze_scope(self, scope: Scope, body) -> None:
        order = -1
        nodes = self._effective(body, scope)
        external = self._external.get(id(scope.owner))
        scope.initializer_methods_run_once = external is not None
        if external is not None and all(external is not s for s in scope.spliced):
            # run by the caller right after the constructor: read as the constructor's last statement
            nodes.extend(self._spliced(external, scope))
        self.classifier.graph_lists = self.classifier.graph_lists_of(nodes)
        self.classifier.list_fills, refused_fills = list_fills(nodes, self.module)
        self.facts.refused_list_fills.update(refused_fills)
        for node in nodes:
            several = bindings.placeholder_targets(self.tf, node)
            if several is not None:
                # ``[a, b] = [tf.placeholder(...) for _ in range(2)]``: one statement per placeholder
                for target, call in several:
                    order += 1
                    scope.statements.append(self.classifier.placeholder_statement(Statement(node, order, Kind.PYTHON), target, call))
                    scope.bindings.setdefault(target, []).append(order)
                continue
            order += 1
            # one walk for the names a statement reads and binds, shared with the classifier
            names = read_and_bound(node) if not isinstance(node, (cst.FunctionDef, cst.ClassDef)) else ([], [])
            statement = self.classifier.classify(node, order, scope, names)
            scope.statements.append(statement)
            binds = names[1]
            top_binds = set(assigned_names(node)) | set(statement.defines)
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                top_binds.add(node.name.value)
            if statement.kind is Kind.PYTHON:
                # ``for k in range(4): y = k * 1.5`` after ``y = tf.matmul(...)``: the reads after
                # the block see its Python value, not the graph tensor (analysis/statements.py
                # refuses a read after a block that only may have bound it)
                top_binds |= {n for n in names_surely_bound(node) if scope.graph_statement(n, order) is not None}
            for name in top_binds:
                scope.bindings.setdefault(name, []).append(order)
            # one walk for the changes in place (``coeffs[0] = 5.0``, ``sizes.append(5)``, ``data += 1.0``)
            targets_changed, augmented = bindings.changes_in_place(node)
            mutated = self.index.changed_within.get(id(node))
            if mutated is None:  # (a def's or class's were filed by the index's walk)
                mutated = targets_changed
                # ``normalize(w)`` of a function of the file changing its parameter in place (``a /= a.sum()``)
                mutated |= bindings.arguments_changed_by_callees(node, self._functions_of_module(), self._self_changing_methods())
                # ``bump(c)`` of another module's function changing its parameter in place
                mutated |= imported_calls.arguments_changed(self.facts, node, self._import_sources())
                # ``set_scale(4.0)`` of a module setting ``cfg.SCALE``: what the graph's helpers read
                mutated |= imported_calls.module_state_changed(self.facts, node)
            for name in mutated | augmented:
                scope.changed_in_place.setdefault(name, []).append(order)
            # ``coeffs[0] = 5.0`` changes what a graph built from ``coeffs`` captured
            for name in (set(binds) - top_binds) | mutated:
                scope.nested_bindings.setdefault(name, []).append(order)
        # ``alias[0] = 5.0`` (``alias = cfg``), ``inner[0] = 6.0`` (``cfg = {"w": inner}``) change ``cfg``'s values too
        seen_through = bindings.objects_seen_through(nodes, frozenset(self._import_sources()), frozenset(self.tf.aliases))
        for name, orders in list(scope.changed_in_place.items()):
            for other in seen_through.get(name, ()):
                for changes in (scope.changed_in_place, scope.nested_bindings):
                    changes[other] = sorted({*changes.get(other, []), *orders})
        # ``U.SCALE = 3.0`` (``import utils as U``), ``cfg.SCALE = 5.0`` (read by ``utils``'s
        # builders) change what a graph built from ``utils`` read
        for name, orders in list(scope.changed_in_place.items()):
            for other in self.facts.names_sharing_state.get(name, ()):
                for changes in (scope.changed_in_place, scope.nested_bindings):
                    changes[other] = sorted({*changes.get(other, []), *orders})
        self.facts.scopes.append(scope)

    def _collect_feed_dicts(self) -> None:
        for node, function in self.index.assigns:
            if (
                isinstance(node.value, cst.Dict)
                and len(node.targets) == 1
                and isinstance(node.targets[0].target, cst.Name)
                and node.value.elements
                and all(isinstance(e, cst.DictElement) and graph_name(e.key) is not None for e in node.value.elements)
            ):
                name = node.targets[0].target.value
                key = (id(function), name)
                existing = self.facts.feed_dicts.get(key)
                if existing is not None:
                    existing.count += 1
                else:
                    existing = self.facts.feed_dicts[key] = FeedDict(name, node, node.value, function)
                    existing.declared = name in self.index.declared
                existing.bindings.append((node, node.value))


def _fed_name(call: cst.Call) -> str | None:
    """The name given as a run's feed (``sess.run(t, feed)``, ``t.eval(feed_dict=feed)``):
    a dict bound to it is a feed dict whatever its keys, so a key that is no placeholder is
    refused as a feed at the run, not taken for graph code."""
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value in ("run", "eval")):
        return None
    for position, argument in enumerate(call.args):
        keyword = argument.keyword.value if argument.keyword is not None else None
        if (keyword == "feed_dict" or (keyword is None and position == 1 and call.func.attr.value == "run")) and isinstance(
            argument.value, cst.Name
        ):
            return argument.value.value
    return None


def index_module(module: cst.Module) -> NodeIndex:
    """The analysis' one walk of ``module`` (callers that need its calls first pass it on to :func:`analyze`)."""
    index = NodeIndex()
    lay_out(module)  # (the walks and searches of its parts that follow read the layout: no walk rebuilds it)
    walk(module, index)
    return index


def analyze(
    module: cst.Module,
    imports: TfImports,
    imported: dict[str, Summary] | None = None,
    links: FileContext | None = None,
    index: NodeIndex | None = None,
    tf1: bool = False,
    batch_norm_flags: frozenset[str] = frozenset(),
) -> GraphFacts:
    """``imported``: the summaries of other modules' functions and classes, by the name
    this module calls them (analysis/project.py); ``links``: what the module's callers
    proved of it (analysis/external_builds.py); ``index``: ``index_module(module)``, when
    the caller made it already; ``tf1``: the file uses TensorFlow as TF1 (module_facts),
    which makes a test method's ``self.evaluate`` a run of its graph; ``batch_norm_flags``: the
    fed flags whose batch normalizations' updates ran exactly in the runs feeding them True
    (rewrites/update_ops.py)."""
    analyzer = GraphAnalyzer(module, imports, imported or {}, links, index, tf1)
    analyzer.facts.batch_norm_flags = batch_norm_flags
    return analyzer.analyze()


def _joins_displays(value: cst.BaseExpression) -> bool:
    """``[a] + [b]``, ``(t,) * 2``: an operation on a list or tuple display (or a
    comprehension) makes a list or tuple, not a tensor."""
    while isinstance(value, cst.BinaryOperation):
        if isinstance(value.right, (cst.List, cst.Tuple, cst.ListComp)) or _joins_displays(value.right):
            return True
        value = value.left
    return isinstance(value, (cst.List, cst.Tuple, cst.ListComp))


def _top_level_value(function: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    """The value of ``name = value``, a statement of the function's own body (not in a
    block), if there is one."""
    for statement in function.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and m.matches(small.targets[0].target, m.Name(name)):
                    return small.value
    return None


def _is_optimizer(name: str | None) -> bool:
    """A TF1 optimizer class (``train.AdamOptimizer``, ``train.ProximalAdagradOptimizer``)."""
    return name is not None and name.startswith("train.") and name.endswith("Optimizer")


def _seeded_after_imports(module: cst.Module, seed: cst.Call, modules: tuple[str, ...]) -> bool:
    """Is ``seed`` a statement of the module's top level that runs after every import of
    ``modules`` (file names: ``helper.py``), each one a top-level import statement?  Their
    switch to graph mode then holds when the seed is set, as TF1's graph held it."""
    stems = {name.rsplit(".", 1)[0] for name in modules}
    seed_at, imports_at = None, []
    for position, statement in enumerate(module.body):
        if seed_at is None and any(call is seed for call in find_all(statement, cst.Call)):
            if not isinstance(statement, cst.SimpleStatementLine):
                return False  # (in a block: when it runs is not read here)
            seed_at = position
        for node in find_all(statement, (cst.Import, cst.ImportFrom)):
            if _imports_stem(node, stems):
                if not isinstance(statement, cst.SimpleStatementLine):
                    return False  # an import in a block (a class body, a function): runs when it runs
                imports_at.append(position)
    return seed_at is not None and bool(imports_at) and max(imports_at) < seed_at


def _imports_stem(node: cst.CSTNode, stems: set[str]) -> bool:
    """Does the import statement ``node`` name a module whose last component is one of ``stems``?"""
    dotted: list[str] = []
    if isinstance(node, cst.Import):
        dotted = [get_full_name_for_node(alias.name) or "" for alias in node.names]
    elif isinstance(node, cst.ImportFrom):
        source = get_full_name_for_node(node.module) if node.module is not None else ""
        dotted = [source or ""]
        if not isinstance(node.names, cst.ImportStar):  # ``from . import helper``, ``from pkg import helper``
            dotted += [get_full_name_for_node(alias.name) or "" for alias in node.names]
    return any(name.rsplit(".", 1)[-1] in stems for name in dotted if name)
