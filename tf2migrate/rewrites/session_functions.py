"""Placeholders → arguments, ``sess.run(fetches, feed_dict)`` → calls of generated functions.

For each distinct fetch, a function is generated in the scope that built the graph.  Its
parameters are the placeholders the fetches read (cast to the placeholder's dtype, as a
feed was); its body is the graph-building code the fetches need, in program order; it
returns the fetched structure.  The run site becomes a call whose tensors are turned
into NumPy (``.numpy()``) in the structure ``sess.run`` returned.  Run sites fetching the
same tensors share one function.  Variables stay where the TF1 program created them, so
a generated function never creates variables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import call_argument, calls_in, closure
from tf2migrate.analysis.catalogue import PURE_BUILTINS
from tf2migrate.analysis.statements import is_init_expression
from tf2migrate.analysis.model import GraphFacts, Kind, lookup_graph_name, RunSite, Scope, Statement
from tf2migrate.analysis.sparse_gradients import sparse_gradient_source
from tf2migrate.analysis.names import (
    fresh_name,
    local_name,
    read_and_bound,
    self_attribute,
)
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import name_normalizer
from tf2migrate.rewrites import file_helpers, gradient_tape, scipy_optimizer, session_cleanup, train_steps

PLACEHOLDER_TO_ARGUMENT = Rule(
    "TFM101",
    "placeholder-to-argument",
    "tf.placeholder → an argument of the generated functions that read it.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Removes `x = tf.placeholder(dtype, shape)` and makes `x` a parameter of every "
    "generated function whose computation reads it, cast to the placeholder's dtype as a "
    "feed was. `tf.placeholder_with_default(value, shape)` becomes a parameter with that default.",
    why="TF2 has no placeholders: values flow into functions as arguments.",
    example="x = tf.placeholder(tf.float32, [None, 1])\ny = tf.tanh(x)\n"
    "y_val = sess.run(y, feed_dict={x: data})",
    instead="def compute_y(x):\n    x = tf.cast(x, tf.float32)\n    y = tf.tanh(x)\n    return y\n\n"
    "y_val = compute_y(x=data).numpy()",
)
RUN_TO_CALL = Rule(
    "TFM102",
    "session-run-to-call",
    "sess.run / .eval() / op.run() → a call of a generated function, NumPy results kept.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces each run site with a call of the function that computes its fetches, "
    "passing the fed values as arguments and converting the results to NumPy in the same "
    "structure (`.numpy()`; lists, tuples and dicts kept).",
    why="Code after `sess.run` indexes, prints and compares NumPy values; it keeps working.",
)
LOOP_VARIABLE_MOVED = Rule(
    "TFM109",
    "loop-variable-moved",
    "A graph-building loop moved into a function; its loop variable is no longer a module-level name.",
    Severity.WARNING,
    FixSafety.SAFE,
    what="Reports the loop variables of a graph-building `for` loop (`for i in range(n): h = ...`) "
    "that moved into a generated function.",
    why="Nothing in the file reads them afterwards (that would have been refused, TFM301), but "
    "code importing this module would no longer find them.",
)
UNUSED_GRAPH_CODE = Rule(
    "TFM110",
    "unused-graph-code-removed",
    "Graph-building code that no session run fetches was removed.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Removes graph-building statements whose tensors no run site needs.",
    why="In TF1 they built graph nodes that never ran; there is nothing to compute eagerly.",
)
GRAPH_ATTRIBUTE_REMOVED = Rule(
    "TFM111",
    "graph-attribute-removed",
    "A tensor or placeholder attribute of a class (self.u_pred) is no longer set.",
    Severity.WARNING,
    FixSafety.SAFE,
    what="Reports each `self.<name>` graph tensor or placeholder of a class whose graph became "
    "methods: the value is now computed by a generated method (`self.compute_<name>(...)`).",
    why="The class's public methods keep their names, parameters and NumPy results, but code "
    "outside the class that read `model.u_pred` (a graph tensor) must call the method instead.",
)
RULES = [PLACEHOLDER_TO_ARGUMENT, RUN_TO_CALL, LOOP_VARIABLE_MOVED, UNUSED_GRAPH_CODE, GRAPH_ATTRIBUTE_REMOVED]

# Python-literal defaults of placeholder_with_default → their TF dtype.
_LITERAL_DTYPES = {cst.Float: "tf.float32", cst.Integer: "tf.int32"}


@dataclass
class Leaf:
    expr: cst.BaseExpression
    kind: str  # tensor | list | variable | operation | unknown | init
    statements: list[Statement] = field(default_factory=list)


@dataclass
class Generated:
    scope: Scope
    name: str
    fetch: cst.BaseExpression
    body: list[Statement]
    placeholders: list[Statement]
    needs_tf_function: bool  # it calls a helper taking tf.gradients (TFM203)
    anchor: Statement | None
    train: Statement | None = None  # the train op this function runs a step of
    # ScipyOptimizerInterface: (interface statement, loss expression, fetch expressions)
    scipy: tuple | None = None


class SessionFunctions:
    """Plans generated functions and run-site calls for one module."""

    def __init__(self, module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str], tf_function: bool = True) -> None:
        self.module = module
        self.tf_function = tf_function  # decorate generated functions with @tf.function
        self.facts = facts
        self.plan = plan
        self.names_in_use = names_in_use
        self.functions: dict[tuple, Generated] = {}
        self.rewritten_feed_dicts: set[int] = set()
        self._following: dict[int, cst.BaseStatement | None] | None = None  # see _following_statements
        self._names_of_scope: dict[int, tuple[frozenset[str], set[str], dict[str, str]]] = {}  # see _scope_names

    # -------------------------------------------------------------- helpers
    def code(self, node: cst.CSTNode, scope: Scope | None = None) -> str:
        localize = self._scope_names(scope)[0] if scope is not None else frozenset()
        return self.module.code_for_node(node.visit(name_normalizer(self.plan, self.facts.imports, localize)))

    def block(self, node: cst.CSTNode, rule: Rule, message: str) -> None:
        self.facts.block(node, rule, message)

    # ----------------------------------------------------------------- entry
    def run(self) -> None:
        self.optimizer_of = train_steps.plan_optimizers(self.module, self.facts, self.plan, self.names_in_use)
        for scope in self.facts.scopes:
            init_sites = []
            for site in scope.run_sites:
                if site.form == "scipy":
                    scipy_optimizer.plan_site(self, site, scope)
                    continue
                if site.form == "instance":
                    self._plan_instance_run(site)
                    continue
                if self._is_init_fetch(site, scope):
                    init_sites.append(site)
                    continue
                self._plan_run_site(site, scope)
            self._plan_init_runs(init_sites)
        self._refuse_graphs_run_elsewhere()
        for expression, number in self.facts.static_dimensions.values():
            # code kept outside the functions reads the declared size (moved code keeps the
            # expression, which gives the same number there)
            self.plan.replace[id(expression)] = cst.Integer(number)
            self.plan.note(expression, PLACEHOLDER_TO_ARGUMENT.code, f"a declared dimension of a placeholder → {number}")
        # In file order, so a moved statement's comments land in the first function.
        for generated in sorted(self.functions.values(), key=lambda g: g.anchor.order if g.anchor else -1):
            self._emit(generated)
        self._remove_graph_statements()

    def _refuse_graphs_run_elsewhere(self) -> None:
        """A graph no run site of this file fetches from is run by other code (``model.py``
        built it, ``train.py`` runs it): removing its placeholders would break that code."""
        if self.facts.blockers:
            return  # a run site that could not be converted runs it: its blocker says why
        run_here = {id(g.scope) for g in self.functions.values()}
        for scope in self.facts.scopes:
            built = [s for s in scope.statements if s.kind in (Kind.PLACEHOLDER, Kind.TENSOR)]
            if built and id(scope) not in run_here:
                where = f"class `{scope.cls.name.value}`" if scope.cls is not None else "this file"
                self.block(
                    built[0].node,
                    blockers.CLASS_BASED_GRAPH if scope.cls is not None else blockers.UNSUPPORTED_GRAPH_CODE,
                    f"the graph built here is never run in {where}: the code that runs it is elsewhere",
                )

    def _is_init_fetch(self, site: RunSite, scope: Scope) -> bool:
        leaves = list(_leaves(site.fetch))
        return bool(leaves) and all(self.is_init(leaf, scope, site.order) for leaf in leaves)

    def is_init(self, expr: cst.BaseExpression, scope: Scope, order: int | None) -> bool:
        return is_init_expression(self.facts.imports, expr, scope, order)

    def _plan_init_runs(self, sites: list[RunSite]) -> None:
        if len(sites) > 1:
            restored = [s for s in sites[1:] if self._restores_everything_next(s)]
            for site in restored:
                # TF1 re-initialized, then overwrote every variable from the checkpoint
                self.plan.remove.add(id(site.statement))
                self.plan.note(site.call, session_cleanup.INITIALIZER_REMOVED.code, "initializer run before a restore of every variable removed: the restore sets them all")
            sites = [s for s in sites if s not in restored]
        fetched = [self.module.code_for_node(s.fetch) for s in sites]
        if len(set(fetched)) < len(fetched) or any(s.in_loop for s in sites):
            for site in sites:
                self.block(site.call, blockers.REINITIALIZATION, "variables are initialized more than once; eager variables are initialized when created")
            return
        for site in sites:
            if site.statement is None:
                self.block(site.call, blockers.UNSUPPORTED_SESSION, "the value of an initializer run is used")
                continue
            self.plan.remove.add(id(site.statement))
            self.plan.note(site.call, session_cleanup.INITIALIZER_REMOVED.code, "initializer run removed: TF2 variables are initialized when created")

    def _restores_everything_next(self, site: RunSite) -> bool:
        """Is this initializer run followed at once by ``saver.restore(sess, path)`` of a
        Saver that saves every variable of its graph (made after all of them, no
        ``var_list``)?  Then the re-initialization changed nothing that lasts."""
        if site.statement is None or site.in_loop or not self.facts.saver_calls:
            return False
        if self._following is None:
            self._following = _following_statements(self.module)
        following = self._following.get(id(site.statement))
        for call, saver in self.facts.saver_calls:
            whole = isinstance(following, cst.SimpleStatementLine) and following.body[0].value is call  # type: ignore[union-attr]
            if not whole or call.func.attr.value != "restore" or call_argument(saver.minimize, "var_list", 0) is not None:  # type: ignore[arg-type, union-attr]
                continue
            scope = next(s for s in self.facts.scopes if saver in s.statements)
            stateful = [s for s in scope.statements if s.kind in (Kind.VARIABLE, Kind.OPTIMIZER, Kind.TRAIN) or s.layer_calls]
            return all(s.order < saver.order for s in stateful)
        return False

    # -------------------------------------------------------------- run sites
    def _plan_run_site(self, site: RunSite, scope: Scope) -> None:
        leaves: list[Leaf] = []
        owner: Scope | None = None
        for expr in _leaves(site.fetch):
            leaf = Leaf(expr, "unknown")
            if self.is_init(expr, scope, site.order):
                self.block(expr, blockers.UNSUPPORTED_SESSION, "an initializer fetched together with values")
                return
            reads, _ = read_and_bound(expr)
            for name in dict.fromkeys(reads):
                found = lookup_graph_name(scope, name, site.order)
                if found is None:
                    if self.facts.imports.canonical(cst.Name(name)) is not None:
                        continue
                    self.block(expr, blockers.UNSUPPORTED_GRAPH_CODE, f"the fetch reads `{name}`, which is not a graph value (a Python value, or a variable's initial value, computed once where it stands)")
                    return
                found_scope, statement = found
                if owner is not None and found_scope is not owner:
                    self.block(expr, blockers.UNSUPPORTED_GRAPH_CODE, "the fetches mix tensors of different graphs")
                    return
                owner = found_scope
                leaf.statements.append(statement)
            leaf.kind = _leaf_kind(expr, leaf.statements)
            leaves.append(leaf)
        if owner is None:
            self.block(
                site.call,
                blockers.UNSUPPORTED_GRAPH_CODE,
                "the fetch builds its ops in the run itself from no tensor of the graph (constants only); not converted",
            )
            return
        if site.form == "op.run" and site.statement is None:
            self.block(site.call, blockers.UNSUPPORTED_SESSION, "the value of op.run() is used")
            return
        if site.feed is None and all(leaf.kind == "variable" for leaf in leaves):
            self._inline_variable_fetch(site, leaves)
            return
        gradients = [s for leaf in leaves for s in leaf.statements if s.gradient_calls]
        sparse = sparse_gradient_source(self.module, self.facts, owner, gradients) if gradients else None
        if sparse is not None:
            # TF1 gave an IndexedSlicesValue for such a gradient; TF2 an IndexedSlices tensor
            self.block(
                site.call,
                blockers.UNSUPPORTED_GRAPH_CODE,
                f"a fetched gradient may be sparse (`{self.module.code_for_node(sparse.func)}` reads rows): TF1 "
                "returned an IndexedSlicesValue, which a converted fetch does not reproduce",
            )
            return
        generated = self._function_for(site, owner, leaves)
        if generated is None:
            return
        call_args = self._call_arguments(site, generated, owner)
        if call_args is None:
            return
        call = f"{'self.' if generated.scope.cls is not None else ''}{generated.name}({call_args})"
        if site.form == "op.run" or site.statement is not None:
            replacement = call  # run for its effect: no value to convert
        else:
            replacement = _to_numpy(call, site.fetch, leaves)
        self.plan.replace[id(site.call)] = cst.parse_expression(replacement)
        self.plan.note(site.call, RUN_TO_CALL.code, f"{_form_name(site)} → {generated.name}(...)")
        if site.order is not None and owner is scope and owner.cls is None and generated.anchor is not None and site.order <= generated.anchor.order:
            self.block(site.call, blockers.UNSUPPORTED_GRAPH_CODE, "the graph this runs is extended after the run; the function would be defined too late")

    def plan_scipy(self, site: RunSite, owner: Scope, interface: Statement, roots, loss, fetches) -> None:
        body, placeholders = closure(owner, roots)
        for statement in body:
            if not self._graph_inputs_stable(owner, statement):
                return
        base = f"minimize_{local_name(interface.defines[0])}"
        key = (id(owner), "scipy", id(interface.node), self.module.code_for_node(site.call))
        generated = self.functions.get(key)
        if generated is None:
            generated = Generated(
                owner,
                fresh_name(base, self.names_in_use),
                loss,
                body,
                placeholders,
                needs_tf_function=any(s.calls_gradient_helper for s in body),
                anchor=max([*body, *placeholders, interface], key=lambda s: s.order),
                scipy=(interface, loss, fetches),
            )
            self.functions[key] = generated
        arguments = self._call_arguments(site, generated, owner)
        if arguments is None:
            return
        callbacks = scipy_optimizer.callback_arguments(self, site.call)
        prefix = "self." if owner.cls is not None else ""
        call = f"{prefix}{generated.name}({', '.join(a for a in [arguments, *callbacks] if a)})"
        self.plan.replace[id(site.call)] = cst.parse_expression(call)
        self.plan.note(site.call, scipy_optimizer.SCIPY_MINIMIZE.code, f"ScipyOptimizerInterface.minimize → {generated.name}(...)")

    def _plan_instance_run(self, site: RunSite) -> None:
        """``model.sess.run(model.lambda_1)`` outside the class: variables of a converted
        class are still attributes, so their values are ``model.lambda_1.numpy()``."""
        class_variables = {
            name[len("self."):]
            for scope in self.facts.scopes
            if scope.cls is not None
            for statement in scope.statements
            if statement.kind is Kind.VARIABLE
            for name in statement.defines
            if name.startswith("self.")
        }
        leaves = list(_leaves(site.fetch))
        instance = site.call.func.value.value.value  # ``model`` in ``model.sess.run``  # type: ignore[attr-defined]
        plain = all(
            m.matches(leaf, m.Attribute(value=m.Name(instance), attr=m.Name())) and leaf.attr.value in class_variables  # type: ignore[attr-defined]
            for leaf in leaves
        )
        if site.feed is not None or not plain or isinstance(site.fetch, cst.Dict):
            self.block(site.call, blockers.CLASS_BASED_GRAPH, "code outside the class runs its graph; only its variables can be read this way")
            return
        self._inline_variable_fetch(site, [Leaf(leaf, "variable") for leaf in leaves])

    def _inline_variable_fetch(self, site: RunSite, leaves: list[Leaf]) -> None:
        code = self.module.code_for_node
        if isinstance(site.fetch, (cst.List, cst.Tuple)) and all(isinstance(e.value, (cst.Name, cst.Attribute)) for e in site.fetch.elements):
            parts = [f"{code(e.value)}.numpy()" for e in site.fetch.elements]
            open_, close = ("[", "]") if isinstance(site.fetch, cst.List) else ("(", ",)" if len(parts) == 1 else ")")
            replacement = open_ + ", ".join(parts) + close
        elif isinstance(site.fetch, (cst.Name, cst.Attribute)):
            replacement = f"{code(site.fetch)}.numpy()"
        else:
            replacement = f"tf.nest.map_structure(lambda v: v.numpy(), {code(site.fetch)})"
        self.plan.replace[id(site.call)] = cst.parse_expression(replacement)
        self.plan.note(site.call, RUN_TO_CALL.code, f"{_form_name(site)} of variables → .numpy()")

    def _function_for(self, site: RunSite, owner: Scope, leaves: list[Leaf]) -> Generated | None:
        roots = [s for leaf in leaves for s in leaf.statements]
        trains = list({s.order: s for s in roots if s.kind is Kind.TRAIN}.values())
        if len(trains) > 1:
            self.block(site.call, blockers.UNSUPPORTED_GRAPH_CODE, "one run steps two train ops")
            return None
        body, placeholders = closure(owner, roots)
        key = (id(owner), self.module.code_for_node(site.fetch), tuple(s.order for s in roots))
        if key in self.functions:
            return self.functions[key]
        for statement in body:
            if not self._graph_inputs_stable(owner, statement):
                return None
        grads = [st for st in body if st.kind is Kind.GRADS]
        if grads and (len(grads) > 1 or not trains or trains[0].minimize.func.attr.value != "apply_gradients"):  # type: ignore[union-attr]
            self.block(site.call, blockers.UNSUPPORTED_GRAPH_CODE, "compute_gradients results are fetched other than through one apply_gradients")
            return None
        name = fresh_name("train_step" if trains else "compute_" + _hint(leaves), self.names_in_use)
        # defined after the graph code it runs; a fetch of ops written inline
        # (``sess.run(W.assign(...))``) after the variables it reads
        anchor_candidates = [*body, *placeholders] or [
            s for n in read_and_bound(site.fetch)[0] if (s := owner.graph_statement(n, None)) is not None
        ]
        anchor = max(anchor_candidates, key=lambda s: s.order) if anchor_candidates else None
        generated = Generated(
            owner,
            name,
            site.fetch,
            body,
            placeholders,
            needs_tf_function=any(s.calls_gradient_helper for s in body),
            anchor=max([anchor, *trains], key=lambda s: s.order) if anchor is not None else (trains[0] if trains else None),
            train=trains[0] if trains else None,
        )
        self.functions[key] = generated
        return generated

    def _graph_inputs_stable(self, scope: Scope, statement: Statement) -> bool:
        """A TF1 graph captured Python values when it was built; the generated function
        reads them when called.  Refuse when such a value is rebound in between."""
        _, own_binds = read_and_bound(statement.node)
        for name in statement.reads:
            if name in own_binds or scope.graph_statement(name, statement.order) is not None:
                continue
            later = [o for o in scope.bindings.get(name, []) if o > statement.order]
            later += [o for o in scope.nested_bindings.get(name, []) if o >= statement.order]
            if later:
                self.block(
                    statement.node,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"the graph reads `{name}`, which is rebound after the graph is built; TF1 captured its earlier value",
                )
                return False
        return True

    # ------------------------------------------------------------------ feeds
    def _call_arguments(self, site: RunSite, generated: Generated, owner: Scope) -> str | None:
        params = {local_name(p.defines[0]): p for p in generated.placeholders}
        fed: dict[str, str] = {}
        feed = site.feed
        if isinstance(feed, cst.Dict):
            for element in feed.elements:
                key = _graph_name(element.key) if isinstance(element, cst.DictElement) else None
                if key is None:
                    self.block(feed, blockers.UNSUPPORTED_FEED, "feed_dict keys must be placeholder names")
                    return None
                placeholder = self._placeholder(key, site, owner)
                if placeholder is None:
                    return None
                if local_name(placeholder.defines[0]) in params:
                    fed[local_name(placeholder.defines[0])] = self.code(element.value)  # type: ignore[union-attr]
                elif not _side_effect_free(element.value):
                    self.block(element.value, blockers.UNSUPPORTED_FEED, "a value fed to a placeholder the fetches do not read is computed with side effects")
                    return None
        elif isinstance(feed, cst.Name):
            feed_dict = self.facts.feed_dicts.get((id(site.function), feed.value)) or self.facts.feed_dicts.get((id(None), feed.value))
            dict_node = _reaching_feed_dict(feed_dict, site) if feed_dict is not None else None
            if dict_node is None:
                self.block(feed, blockers.UNSUPPORTED_FEED, f"`{feed.value}` is not bound to a dict display keyed by placeholders before this run")
                return None
            keys = []
            for element in dict_node.elements:
                placeholder = self._placeholder(_graph_name(element.key), site, owner)  # type: ignore[union-attr, arg-type]
                if placeholder is None:
                    return None
                keys.append(local_name(placeholder.defines[0]))
            self._rewrite_feed_dict(dict_node, keys)
            if set(keys) == set(params):
                return f"**{feed.value}"  # the dict holds exactly the arguments
            for key in keys:
                if key in params:
                    fed[key] = f'{feed.value}["{key}"]'
        elif feed is not None:
            self.block(feed, blockers.UNSUPPORTED_FEED, "feed_dict must be a dict display or a variable bound to one")
            return None
        missing = [n for n, p in params.items() if n not in fed and p.placeholder.default is None]  # type: ignore[union-attr]
        if missing:
            self.block(site.call, blockers.UNSUPPORTED_FEED, "placeholder " + ", ".join(f"`{n}`" for n in missing) + " is not fed here")
            return None
        return ", ".join(f"{name}={self._as_fed(params[name], value)}" for name, value in fed.items())

    def _as_fed(self, statement: Statement, value: str) -> str:
        """A feed converted any number to an integer or boolean placeholder's dtype
        (``[2.0, 1.0]`` → ``[2, 1]``, ``1`` → ``True``); a TensorSpec refuses such values,
        so the call converts them as the feed did (a literal of the right kind needs nothing)."""
        dtype_node = statement.placeholder.dtype if statement.placeholder is not None else None
        dtype = self.code(dtype_node) if dtype_node is not None else ""
        kind = dtype.rsplit(".", 1)[-1]
        if not kind.startswith(("int", "uint", "bool")):
            return value
        if (kind == "bool" and value in ("True", "False")) or (kind != "bool" and value.lstrip("-").isdigit()):
            return value
        return f"tf.cast({value}, {dtype})"

    def _placeholder(self, name: str, site: RunSite, owner: Scope) -> Statement | None:
        found = lookup_graph_name(owner, name, site.order if site in owner.run_sites else None)
        if found is None or found[1].kind is not Kind.PLACEHOLDER:
            self.block(site.call, blockers.UNSUPPORTED_FEED, f"`{name}` is fed but is not a placeholder")
            return None
        return found[1]

    def _rewrite_feed_dict(self, node: cst.Dict, keys: list[str]) -> None:
        if id(node) in self.rewritten_feed_dicts:
            return
        self.rewritten_feed_dicts.add(id(node))

        def with_string_keys(updated: cst.Dict) -> cst.Dict:
            elements = [
                e.with_changes(key=cst.SimpleString(f'"{key}"'))
                for e, key in zip(updated.elements, keys)
            ]
            return updated.with_changes(elements=elements)

        self.plan.replace[id(node)] = with_string_keys  # type: ignore[assignment]

    # ---------------------------------------------------------------- emission
    def _emit(self, generated: Generated) -> None:
        module = self.module
        indent = module.default_indent
        param_names = [local_name(p.defines[0]) for p in generated.placeholders]
        localize, trainable, value_kinds = self._scope_names(generated.scope)
        ctx = gradient_tape.BodyContext(
            module=module,
            imports=self.facts.imports,
            facts=self.facts,
            plan=self.plan,
            params=param_names,
            trainable_variables=trainable,
            names_in_use=set(self.names_in_use) | set(param_names),
            value_kinds=value_kinds,
            commented=self.plan.commented,
            localize=localize,
        )
        grads = [st for st in generated.body if st.kind is Kind.GRADS]
        if grads:
            body = self._applied_gradients_body(generated, grads[0], ctx, indent)
        else:
            body = gradient_tape.render_body(generated.body, ctx, indent)
            if body is not None and generated.train is not None:
                body = self._train_step_body(generated, body, ctx, indent)
        if body is None:
            return
        if ctx.keeps_gradients:
            # a tape could not provably see a source's computation: tf.gradients, exact
            # TF1 semantics, inside a tf.function
            generated.needs_tf_function = True
            for s in generated.body:
                for call in s.gradient_calls:
                    self.plan.note(call, gradient_tape.GRADIENTS_IN_TF_FUNCTION.code, gradient_tape.kept_message(generated.name))
        if generated.scipy is not None:
            body = self._scipy_body(generated, body, indent)
        signature, casts, specs = self._parameters(generated)
        if signature is None:
            return
        lines = []
        if (self.tf_function or generated.needs_tf_function) and generated.scipy is None:
            # SciPy's loop is Python; the helper traces the loss and gradient itself
            if specs:
                # the signature converts each argument as a feed did: no casts, no retracing
                lines += _decorator(specs, indent)
                casts = []
            else:
                lines.append("@tf.function")
        casts += self._placeholders_for_helpers(generated)
        if generated.needs_tf_function:
            for s in generated.body:
                if s.calls_gradient_helper:
                    self.plan.note(s.node, gradient_tape.GRADIENTS_IN_TF_FUNCTION.code, f"this calls a helper that takes tf.gradients; {generated.name} runs as a tf.function, where tf.gradients is valid")
        is_method = generated.scope.cls is not None
        if generated.scipy is not None:
            signature = ", ".join(p for p in (signature, "loss_callback=None", "step_callback=None") if p)
        lines.append(f"def {generated.name}({', '.join(p for p in ('self' if is_method else '', signature) if p)}):")
        operations = {name for s in generated.body if s.value_kind == "operation" for name in s.defines}
        if generated.train is not None:
            operations.add(generated.train.defines[0])
        returned = self.code(_without_operations(generated.fetch, operations), generated.scope)
        ending = [] if generated.scipy is not None else [f"return {returned}"]
        lines += [indent + line if line else line for line in [*casts, *body, *ending]]
        function = cst.parse_statement("\n".join(lines) + "\n", config=module.config_for_parsing)
        # PEP 8 spacing: two blank lines around a module-level def, one inside a function.
        blank = 2 if isinstance(generated.scope.owner, cst.Module) else 1
        function = function.with_changes(
            leading_lines=[cst.EmptyLine(indent=False)] * blank,
        )
        self.plan.generated[id(function)] = function
        if is_method:
            # a method of the class, after the constructor that built the graph
            self.plan.add_after(generated.scope.owner, [function])
        elif generated.anchor is not None:
            self.plan.add_after(generated.anchor.node, [function])
        else:
            first = generated.scope.statements[0].node
            self.plan.insert_before.setdefault(id(first), []).append(function)

    def _scope_names(self, scope: Scope) -> tuple[frozenset[str], set[str], dict[str, str]]:
        """The scope's ``self.x`` graph names, trainable variables and the value kind of
        each name: once per scope, not once per generated function (a file of many
        session blocks would otherwise cost the square of its size)."""
        names = self._names_of_scope.get(id(scope))
        if names is None:
            trainable = {name for s in scope.statements if s.kind is Kind.VARIABLE and self._surely_trainable(s) for name in s.defines}
            value_kinds = {
                name: s.value_kind
                for s in scope.statements
                if s.kind in (Kind.TENSOR, Kind.PLACEHOLDER, Kind.VARIABLE) and len(s.defines) == 1
                for name in s.defines
            }
            names = self._names_of_scope[id(scope)] = (_graph_attributes(scope), trainable, value_kinds)
        return names

    def _scipy_body(self, generated: Generated, body: list[str], indent: str) -> list[str]:
        interface, loss, fetches = generated.scipy  # type: ignore[misc]
        settings = scipy_optimizer.settings_code(self, generated.scope, interface, interface.minimize)
        if settings is None:
            return body
        code = lambda node: self.code(node, generated.scope)  # noqa: E731
        returned = f"return {code(loss)}, [{', '.join(code(f) for f in fetches)}]"
        # one helper per file: traced when any loss calls a helper keeping tf.gradients
        traced = self.tf_function or any(g.needs_tf_function for g in self.functions.values() if g.scipy is not None)
        helper = file_helpers.emit_once(
            self.module, self.facts, self.plan, self.names_in_use, scipy_optimizer.HELPER_NAME, scipy_optimizer.helper_code(traced)
        )
        self.plan.note(interface.node, scipy_optimizer.SCIPY_MINIMIZE.code, f"ScipyOptimizerInterface → {generated.name}(...)")
        return [
            "def loss_and_fetches():",
            *[indent + line if line else line for line in [*body, returned]],
            f"{helper}(loss_and_fetches, loss_callback=loss_callback, step_callback=step_callback, {', '.join(settings)})",
        ]

    def _applied_gradients_body(self, generated: Generated, grads: Statement, ctx, indent: str) -> list[str] | None:
        """``gvs = opt.compute_gradients(loss)``; processing (clipping); ``opt.apply_gradients``:
        the forward pass under the tape, the gradients after it, then the processing, as
        written, and the update."""
        train = generated.train
        assert train is not None and grads.minimize is not None
        after = {grads.order}
        for statement in generated.body:  # what is computed from the gradients
            if statement.deps & after:
                after.add(statement.order)
        before = [st for st in generated.body if st.order not in after]
        processing = [st for st in generated.body if st.order in after and st is not grads]
        forward = gradient_tape.render_body(before, ctx, indent)
        rest = gradient_tape.render_body(processing, ctx, indent)
        if forward is None or rest is None:
            return None
        loss, var_list, _ = train_steps.minimize_arguments(grads)
        pairs = call_argument(train.minimize, "grads_and_vars", 0)  # type: ignore[arg-type]
        global_step = call_argument(train.minimize, "global_step", 1)  # type: ignore[arg-type]
        tape = fresh_name("train_tape", ctx.names_in_use)
        code = lambda node: self.code(node, generated.scope)  # noqa: E731
        self.plan.note(train.node, train_steps.TRAIN_STEP.code, f"compute_gradients/apply_gradients → {generated.name}(...)")
        optimizer = self.optimizer_of.get(id(train.node)) or code(train.minimize.func.value)  # type: ignore[union-attr]
        gvs = local_name(grads.defines[0]) if grads.defines[0] in ctx.localize else grads.defines[0]
        forward, loss_code = self._loss_under_tape(forward, code(loss), loss, ctx)
        # the processing (clipping) stays between the gradients and the update, as written
        gradients = [f"{gvs} = list(zip({tape}.gradient({loss_code}, variables), variables))", *rest]
        return train_steps.train_step_lines(
            tape, forward, indent, self._var_list(var_list, generated), gradients, optimizer, code(pairs),
            code(global_step) if global_step is not None else None,
            train_steps.dense_update(self.module, self.facts, generated.scope, train),
        )

    def _train_step_body(self, generated: Generated, body: list[str], ctx, indent: str) -> list[str]:
        train = generated.train
        assert train is not None and train.minimize is not None
        code = lambda node: self.code(node, generated.scope) if node is not None else None  # noqa: E731
        self.plan.note(train.node, train_steps.TRAIN_STEP.code, f"train op → {generated.name}(...)")
        dense = train_steps.dense_update(self.module, self.facts, generated.scope, train)
        if train.minimize.func.attr.value == "apply_gradients":  # type: ignore[attr-defined]
            # of gradients the computation takes itself (tf.gradients, now a tape in ``body``)
            pairs = call_argument(train.minimize, "grads_and_vars", 0)
            global_step = call_argument(train.minimize, "global_step", 1)
            return [*body, *train_steps.update_lines(self.optimizer_of[id(train.node)], code(pairs), code(global_step), dense)]  # type: ignore[arg-type]
        loss, var_list, global_step = train_steps.minimize_arguments(train)
        tape = fresh_name("train_tape", ctx.names_in_use)
        body, loss_code = self._loss_under_tape(body, code(loss), loss, ctx)
        gradients = [f"gradients = {tape}.gradient({loss_code}, variables)"]
        return train_steps.train_step_lines(
            tape, body, indent, self._var_list(var_list, generated), gradients, self.optimizer_of[id(train.node)], "zip(gradients, variables)",
            code(global_step), dense,
        )

    def _loss_under_tape(self, body: list[str], loss_code: str, loss: cst.BaseExpression | None, ctx) -> tuple[list[str], str]:
        """A loss written inline (``minimize(loss + 0.5 * tf.nn.l2_loss(W))``) is computed
        inside the tape, as the last step of the forward pass: computed after it, nothing
        of it would be recorded."""
        if loss is None or isinstance(loss, cst.Name) or self_attribute(loss) is not None:
            return body, loss_code
        name = fresh_name("train_loss", ctx.names_in_use)
        return [*body, f"{name} = {loss_code}"], name

    def _var_list(self, var_list: cst.BaseExpression | None, generated: Generated) -> tuple[str, str] | None:
        """``var_list`` as the train step reads it, and its variables as it watches them."""
        if var_list is None:
            return None
        code = lambda node: self.code(node, generated.scope)  # noqa: E731
        watched = train_steps.watched_variables(self.module, self.facts, var_list, generated.body, code)
        return (code(var_list), watched) if watched is not None else None

    def _surely_trainable(self, statement: Statement) -> bool:
        """Does the statement make trainable variables, which a tape watches by itself?  Only
        when no ``trainable=`` in it or in the helpers of this file it calls says otherwise
        (``trainable=flag`` may be False); anything else is watched, which costs nothing for a
        variable that was trainable after all."""
        if statement.global_step is not None:
            return False
        texts = [self.module.code_for_node(statement.node)]
        for call in calls_in(statement.node):
            if self.facts.imports.call_name(call) is not None or _numpy_or_builtin(call):
                continue
            helper = self.facts.helpers.get(self_attribute(call.func) or getattr(call.func, "value", ""))
            if helper is None or any(self.facts.imports.call_name(c) is None for c in calls_in(helper.node.body)):
                return False  # code this file cannot see, or helpers of helpers
            texts.append(self.module.code_for_node(helper.node))
        code = "".join(texts).replace(" ", "")
        return code.count("trainable=") == code.count("trainable=True")

    def _placeholders_for_helpers(self, generated: Generated) -> list[str]:
        """Graph-building methods that read a placeholder through ``self`` find the fed
        value there while the generated method runs."""
        read_by_helpers = {
            name
            for statement in generated.body
            for call in calls_in(statement.node)
            if (helper := self.facts.helpers.get(self_attribute(call.func) or "")) is not None
            for name in helper.self_reads
        }
        return [
            f"{name} = {local_name(name)}  # read by the methods this calls"
            for p in generated.placeholders
            if (name := p.defines[0]) in read_by_helpers
        ]

    def _parameters(self, generated: Generated) -> tuple[str | None, list[str], list[str] | None]:
        """The signature, the casts a feed did, and the ``tf.TensorSpec`` of each parameter
        in signature order (None when a dtype or shape is not written out literally)."""
        required, optional, casts = [], [], []
        required_specs: list[str | None] = []
        optional_specs: list[str | None] = []
        for statement in generated.placeholders:
            placeholder = statement.placeholder
            assert placeholder is not None
            name = local_name(placeholder.name)
            self.plan.note(placeholder.call, PLACEHOLDER_TO_ARGUMENT.code, f"placeholder `{name}` → argument of {generated.name}")
            if placeholder.default is None:
                dtype = self.code(placeholder.dtype) if placeholder.dtype is not None else None
                required.append(name)
                specs = required_specs
            else:
                dtype = self._default_dtype(placeholder.default)
                if dtype is None:
                    self.block(placeholder.call, blockers.UNSUPPORTED_GRAPH_CODE, "the dtype of this placeholder_with_default cannot be told from its default")
                    return None, [], None
                reads, _ = read_and_bound(placeholder.default)
                if any(generated.scope.graph_statement(n, statement.order) for n in reads):
                    self.block(placeholder.call, blockers.UNSUPPORTED_GRAPH_CODE, "the default of this placeholder_with_default is a graph tensor")
                    return None, [], None
                optional.append(f"{name}={self.code(placeholder.default)}")
                specs = optional_specs
            if dtype is None:
                self.block(placeholder.call, blockers.UNSUPPORTED_GRAPH_CODE, "placeholder without a dtype")
                return None, [], None
            specs.append(self._tensor_spec(placeholder, dtype))
            if dtype in ("tf.string", "tf.dtypes.string"):
                casts.append(f"{name} = tf.convert_to_tensor({name}, dtype={dtype})")
            else:
                casts.append(f"{name} = tf.cast({name}, {dtype})")
        specs = required_specs + optional_specs
        return ", ".join(required + optional), casts, None if None in specs else specs  # type: ignore[return-value]

    def _tensor_spec(self, placeholder, dtype: str) -> str | None:
        """``tf.TensorSpec([None, 2], tf.float32)`` when the placeholder's dtype is a TF
        dtype and its shape is absent or written with integers and None only."""
        literal_dtype = placeholder.dtype is None or self.facts.imports.canonical(placeholder.dtype) is not None
        shape = placeholder.shape
        if shape is None or m.matches(shape, m.Name("None")):
            shape_code = "None"
        elif isinstance(shape, (cst.List, cst.Tuple)) and all(
            isinstance(e.value, cst.Integer) or m.matches(e.value, m.Name("None")) for e in shape.elements
        ):
            shape_code = "[" + ", ".join(self.module.code_for_node(e.value) for e in shape.elements) + "]"
        else:
            return None
        return f"tf.TensorSpec({shape_code}, {dtype})" if literal_dtype else None

    def _default_dtype(self, default: cst.BaseExpression) -> str | None:
        for literal, dtype in _LITERAL_DTYPES.items():
            if isinstance(default, literal):
                return dtype
        if isinstance(default, cst.Name) and default.value in ("True", "False"):
            return "tf.bool"
        if isinstance(default, cst.Call) and self.facts.imports.call_name(default) == "constant":
            dtype = call_argument(default, "dtype", 1)
            if dtype is not None:
                return self.code(dtype)
            value = call_argument(default, "value", 0)
            return self._default_dtype(value) if value is not None else None
        if isinstance(default, cst.Call) and m.matches(default.func, m.Attribute(value=m.Name("np") | m.Name("numpy"))):
            kind = default.func.attr.value  # type: ignore[attr-defined]
            if kind in ("float32", "float64", "int32", "int64", "bool_"):
                return f"tf.{kind.rstrip('_')}"
        return None

    def _remove_graph_statements(self) -> None:
        used = {id(s.node) for generated in self.functions.values() for s in generated.body}
        for scope in self.facts.scopes:
            for statement in scope.statements:
                if statement.kind not in (Kind.TENSOR, Kind.PLACEHOLDER, Kind.TRAIN, Kind.SCIPY, Kind.GRADS):
                    continue
                self.plan.remove.add(id(statement.node))
                for name in statement.defines:
                    if name.startswith("self."):
                        computed_by = sorted(
                            (g for g in self.functions.values() if statement in g.body),
                            key=lambda g: self.module.code_for_node(g.fetch) != name,  # its own function first
                        )
                        computed_by = [g.name for g in computed_by]
                        how = f"computed by self.{computed_by[0]}(...)" if computed_by and statement.kind is Kind.TENSOR else (
                            "an argument of the generated methods" if statement.kind is Kind.PLACEHOLDER else "not computed")
                        self.plan.note(statement.node, GRAPH_ATTRIBUTE_REMOVED.code, f"attribute `{name}` is no longer set; {how}")
                if statement.kind is Kind.TENSOR and id(statement.node) not in used:
                    self.plan.note(statement.node, UNUSED_GRAPH_CODE.code, "graph code no run fetches: removed")
                elif statement.loop_targets:
                    names = ", ".join(f"`{n}`" for n in statement.loop_targets)
                    self.plan.note(statement.node, LOOP_VARIABLE_MOVED.code, f"loop variable {names} now lives inside the generated function")


# ------------------------------------------------------------------ pure helpers
def _numpy_or_builtin(call: cst.Call) -> bool:
    func = call.func
    while isinstance(func, cst.Attribute):
        func = func.value
    root = func.value if isinstance(func, cst.Name) else None
    return root in ("np", "numpy", "math") or (isinstance(call.func, cst.Name) and call.func.value in PURE_BUILTINS)


def _following_statements(module: cst.Module) -> dict[int, cst.BaseStatement | None]:
    """Each statement's successor in its block (None for the last), by id: one walk of
    the module, however many statements are asked about."""
    following: dict[int, cst.BaseStatement | None] = {}

    class _Blocks(cst.CSTVisitor):
        def visit_Module(self, node: cst.Module) -> None:
            following.update(zip(map(id, node.body), [*node.body[1:], None]))

        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
            following.update(zip(map(id, node.body), [*node.body[1:], None]))

    module.visit(_Blocks())
    return following


def _decorator(specs: list[str], indent: str) -> list[str]:
    one_line = f"@tf.function(input_signature=[{', '.join(specs)}])"
    if len(one_line) <= 100:
        return [one_line]
    return ["@tf.function(input_signature=[", *[f"{indent}{spec}," for spec in specs], "])"]


def _reaching_feed_dict(feed_dict, site: RunSite) -> cst.Dict | None:
    """The dict display the feed-dict variable holds at the run site: bound once, or
    rebound in the same function body before each group of runs."""
    if feed_dict.count == 1:
        return feed_dict.dict_node
    if feed_dict.function is None or site.function is not feed_dict.function:
        return None
    body = list(feed_dict.function.body.body)

    def position(node: cst.CSTNode) -> int | None:
        for index, statement in enumerate(body):
            if statement is node or m.findall(statement, m.MatchIfTrue(lambda n: n is node)):
                return index
        return None

    run_at = position(site.call)
    bound = [(position(assign), dict_node) for assign, dict_node in feed_dict.bindings]
    if run_at is None or any(p is None for p, _ in bound):
        return None
    before = [(p, d) for p, d in bound if p < run_at]  # type: ignore[operator]
    return before[-1][1] if before else None


def _without_operations(fetch: cst.BaseExpression, operations: set[str]) -> cst.BaseExpression:
    """The fetch with None in place of the train op and other operations (tf.group,
    ``tensor.op``): their value in TF1, and a tf.function cannot return an Operation."""

    class _NoneForOperations(cst.CSTTransformer):
        def leave_Name(self, original_node, updated_node):
            return cst.Name("None") if original_node.value in operations else updated_node

        def leave_Attribute(self, original_node, updated_node):
            operation = self_attribute(original_node) in operations or _is_op_attribute(original_node)
            return cst.Name("None") if operation else updated_node

    return fetch.visit(_NoneForOperations())


def _graph_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    return self_attribute(node)


def _graph_attributes(scope: Scope) -> frozenset[str]:
    """``self.x`` names of a constructor-built graph that become locals of its methods."""
    return frozenset(
        name
        for s in scope.statements
        if s.kind in (Kind.TENSOR, Kind.PLACEHOLDER)
        for name in s.defines
        if name.startswith("self.")
    )


def _leaves(fetch: cst.BaseExpression):
    if isinstance(fetch, (cst.List, cst.Tuple)):
        for element in fetch.elements:
            yield from _leaves(element.value)
    elif isinstance(fetch, cst.Dict):
        for element in fetch.elements:
            if isinstance(element, cst.DictElement):
                yield from _leaves(element.value)
    else:
        yield fetch


def _is_op_attribute(expr: cst.BaseExpression) -> bool:
    """``add.op``: the Operation behind a graph tensor (run for its effect)."""
    return isinstance(expr, cst.Attribute) and expr.attr.value == "op" and _graph_name(expr.value) is not None


def _leaf_kind(expr: cst.BaseExpression, statements: list[Statement]) -> str:
    if _is_op_attribute(expr):
        return "operation"
    if _graph_name(expr) is not None and len(statements) == 1:
        statement = statements[0]
        if statement.kind is Kind.TRAIN:
            return "operation"  # a train op: sess.run gave None for it
        if statement.kind is Kind.VARIABLE:
            return statement.value_kind if statement.value_kind == "variable" else "unknown"
        return statement.value_kind
    if isinstance(expr, cst.BinaryOperation) and any(s.value_kind != "tensor" for s in statements):
        return "unknown"  # ``g1 + g2`` of two lists is a list: converted by its structure
    return "tensor"


def _hint(leaves: list[Leaf]) -> str:
    parts: list[str] = []
    for leaf in leaves:
        part = _name_hint(leaf.expr)
        if part and part not in parts:
            parts.append(part)
    if not parts:
        return "fetches"
    if len(parts) > 3:
        return "_and_".join(parts[:2]) + f"_and_{len(parts) - 2}_more"
    return "_and_".join(parts)


def _name_hint(expr: cst.BaseExpression) -> str:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    if isinstance(expr, cst.Subscript):
        index = expr.slice[0].slice if len(expr.slice) == 1 else None
        if isinstance(index, cst.Index) and isinstance(index.value, (cst.Integer, cst.Name)):
            return f"{_name_hint(expr.value)}_{index.value.value}"
        return f"{_name_hint(expr.value)}_slice"
    if isinstance(expr, cst.Call):
        func = _name_hint(expr.func)
        first = _name_hint(expr.args[0].value) if expr.args else ""
        return "_".join(p for p in (func, first) if p)
    if isinstance(expr, cst.BinaryOperation):
        operator = _OPERATOR_WORDS.get(type(expr.operator), "op")
        return "_".join(p for p in (_name_hint(expr.left), operator, _name_hint(expr.right)) if p)
    if isinstance(expr, cst.UnaryOperation):
        return "neg_" + _name_hint(expr.expression) if isinstance(expr.operator, cst.Minus) else _name_hint(expr.expression)
    return ""


_OPERATOR_WORDS = {
    cst.Add: "plus",
    cst.Subtract: "minus",
    cst.Multiply: "times",
    cst.Divide: "over",
    cst.Power: "pow",
    cst.MatrixMultiply: "matmul",
}


def _to_numpy(call: str, fetch: cst.BaseExpression, leaves: list[Leaf]) -> str:
    """NumPy in the structure sess.run returned."""
    nested = any(isinstance(e.value, (cst.List, cst.Tuple, cst.Dict)) for e in getattr(fetch, "elements", []) if hasattr(e, "value"))
    if any(leaf.kind == "operation" for leaf in leaves):
        # an Operation's value (a train op's, a tf.group's) is None, as sess.run gave it
        if isinstance(fetch, cst.List) and not nested:
            return f"[value if value is None else value.numpy() for value in {call}]"
        if isinstance(fetch, cst.Tuple) and not nested:
            return f"tuple(value if value is None else value.numpy() for value in {call})"
        if not isinstance(fetch, (cst.List, cst.Tuple, cst.Dict)):
            return call
        return f"tf.nest.map_structure(lambda value: value if value is None else value.numpy(), {call})"
    plain = all(leaf.kind in ("tensor", "variable") for leaf in leaves)
    if not isinstance(fetch, (cst.List, cst.Tuple, cst.Dict)):
        if leaves[0].kind in ("tensor", "variable"):
            return f"{call}.numpy()"
        if leaves[0].kind == "list":
            return f"[value.numpy() for value in {call}]"
    elif plain and not nested:
        if isinstance(fetch, cst.List):
            return f"[value.numpy() for value in {call}]"
        if isinstance(fetch, cst.Tuple):
            return f"tuple(value.numpy() for value in {call})"
    return f"tf.nest.map_structure(lambda value: value.numpy(), {call})"


def _form_name(site: RunSite) -> str:
    return {"session.run": "Session.run", "eval": "Tensor.eval", "op.run": "Operation.run", "scipy": "minimize", "instance": "Session.run"}[site.form]


def _side_effect_free(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.Name, cst.BaseNumber, cst.BaseString)):
        return True
    if isinstance(expr, cst.Attribute):
        return _side_effect_free(expr.value)
    if isinstance(expr, cst.Subscript):
        return _side_effect_free(expr.value) and all(
            isinstance(e.slice, cst.Index) and _side_effect_free(e.slice.value) or isinstance(e.slice, cst.Slice)
            for e in expr.slice
        )
    return False
