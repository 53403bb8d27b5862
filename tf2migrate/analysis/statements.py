"""Statement classification: which kind of graph statement one effective statement of a
graph scope is (placeholder, variable, session, optimizer and train op, saver, tensor
computation, plain Python...), and the blockers that refuse one.

Part of the analysis that ``analysis/graph.py`` orchestrates; one classifier per module,
sharing the module's :class:`GraphFacts`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import (
    bindings,
    blockers,
    helper_returns,
    imported_calls,
    iterators,
    layer_helpers,
    rnn,
    sequence_loss,
    streaming_metrics,
)
from tf2migrate.analysis.call_origins import call_origin, imported_graph
from tf2migrate.analysis.calls import bind_arguments, call_argument, calls_in
from tf2migrate.analysis.helper_effects import is_property
from tf2migrate.analysis.dropped_calls import dropped_call, dropped_call_message
from tf2migrate.analysis.catalogue import (
    GRAPH_STATE_READS,
    STRUCTURE_CALLS,
    NUMPY_ARRAY_READS,
    CONFIG_CALLS,
    is_unsupported_call,
    DROP_CALLS,
    EAGER_CONSTANT_CALLS,
    GLOBAL_STEP_CALLS,
    GRADIENT_CALLS,
    INIT_CALLS,
    KERAS_LAYERS,
    LIST_CALLS,
    OPERATION_CALLS,
    OPTIMIZERS,
    PLACEHOLDER_CALLS,
    PURE_BUILTINS,
    SAVER_CALL,
    SCHEDULE_CALLS,
    SCIPY_OPTIMIZER,
    SESSION_CALLS,
    STATIC_TENSOR_ATTRIBUTES,
    STREAMING_METRICS,
    makes_variables,
    VARIABLE_CALLS,
    is_graph_op,
)
from tf2migrate.analysis.keras_layer_objects import layer_object_call
from tf2migrate.analysis.layer_variable_lists import layer_variable_list
from tf2migrate.analysis.model import (
    GraphFacts,
    Helper,
    Kind,
    lookup_graph_name,
    Placeholder,
    Scope,
    Statement,
)
from tf2migrate.analysis.names import (
    loop_variable_names,
    names_bound_before_read,
    assigned_names,
    changed_in_place,
    graph_name,
    read_and_bound,
    root_name,
    self_attribute,
    target_names,
)
from tf2migrate.analysis.list_fills import filled_list
from tf2migrate.analysis.run_sites import looks_like_run_site
from tf2migrate.analysis.sequence_loss import SEQUENCE_LOSS
from tf2migrate.analysis.static_python import StaticPython, underived_shape_read
from tf2migrate.analysis.static_shapes import Literalize, binds_dimension_compared, static_dimensions
from tf2migrate.analysis.tf_imports import TfImports, dotted_name
from tf2migrate.traversal import find_all, preorder


# trainable-variable collections, written out over layer helpers' layers (analysis/layer_variable_lists.py)
_COLLECTIONS = frozenset({"get_collection", "trainable_variables"})
# What TF1's graph holds, read or changed through the modules behind the public API
# (``from tensorflow.python.framework import ops``: ``ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)``):
# eager TF2 code fills no collection and builds into no default graph, so the call would give
# ``[]`` or an empty graph where TF1 gave the file's variables and ops
_GRAPH_STATE = frozenset(
    {
        "get_collection",
        "get_collection_ref",
        "add_to_collection",
        "add_to_collections",
        "get_all_collection_keys",
        "get_default_graph",
        "trainable_variables",
        "global_variables",
        "local_variables",
        "all_variables",
    }
)


def _private_graph_state(tf: TfImports, call: cst.Call) -> str | None:
    """Why a call of a module outside the public TF1 API that reads or changes the graph's
    state (:data:`_GRAPH_STATE`) keeps the graph on TF1, or None."""
    path = tf.kept_call_name(call)
    if path is None or not path.startswith("python.") or path.rpartition(".")[2] not in _GRAPH_STATE:
        return None
    return (
        f"`{dotted_name(call.func)}` (`tensorflow.{path}`, outside the public TF1 API) reads or changes the TF1 graph's "
        "collections or default graph, which eager TF2 code leaves empty: not converted"
    )


# how a TFM304 refusal of a block that creates variables and builds ops starts: migrate.py
# retries such loops split in two (rewrites/loop_split.py)
MIXED_BLOCK = "this block both creates variables and computes with placeholder-dependent tensors"


class StatementClassifier:
    """Classifies the effective statements of one module's graph scopes."""

    def __init__(self, module: cst.Module, facts: GraphFacts) -> None:
        self.module = module
        self.tf = facts.imports
        self.facts = facts
        # ``self.grads = []`` statements of the scope being classified that a graph block
        # fills next (:meth:`graph_lists`), by id
        self.graph_lists: set[int] = set()
        # the lines ``L.append(...)`` of the scope being classified that fill a list graph
        # code made, before anything else read it (analysis/list_fills.py), by id
        self.list_fills: set[int] = set()
        # the calls of layer helpers that made layers, by graph scope, helper and variable
        # scope name (analysis/layer_helpers.place_call)
        self.made_layers: dict = {}
        # the cells of cell factories written out so far (analysis/rnn.factory_cell), by id
        self.factory_cells: set[int] = set()
        # the RNN runs in helper bodies converted so far (one helper may be called twice), by id
        self.helper_runs: set[int] = set()
        # Python values of static shapes, branches module constants rule out (analysis/static_python.py)
        self.static_python = StaticPython(module, facts.imports)
        # the calls and attributes of expressions reading a dimension TF1 did not know: by id, the expression
        self.unknown_dimensions: dict[int, cst.BaseExpression] = {}
        # module functions building TF ops, themselves or through the functions they call (see builds_ops)
        self._builds_ops: dict[str, bool] = {}
        self._runs_graph: dict[str, bool] = {}  # (each module function's body walked once: see runs_graph)

    def graph_lists_of(self, nodes: list[cst.BaseStatement]) -> set[int]:
        """The statements ``L = []`` (``L`` a name or an attribute of self) whose list the
        next statement naming ``L`` fills in a block of graph code creating no variables:

            self.grad_res = []
            for i in range(len(self.layers) - 1):
                self.grad_res.append(tf.gradients(self.loss_res, self.weights[i])[0])

        (GradientPathologiesPINNs).  The empty list is part of that graph: it moves with the
        block into each generated function that reads the list, so each trace builds a
        list of its own, as TF1 built one while building the graph.  Filled by statements
        of their own (``L.append(...)`` lines), or by a block that runs the graph, a list
        stays Python (TFM301)."""
        found: set[int] = set()
        for index, node in enumerate(nodes):
            target = _empty_list_target(node)
            if target is None:
                continue
            following = next((n for n in nodes[index + 1 :] if target in read_and_bound(n)[0] + read_and_bound(n)[1]), None)
            if following is None or isinstance(following, cst.SimpleStatementLine) or target not in changed_in_place(following):
                continue
            calls = calls_in(following)
            if any(self.tf.call_name(c) is not None for c in calls) and not any(
                self.is_variable_call(c) or looks_like_run_site(self.facts, c) for c in calls
            ):
                found.add(id(node))
        return found

    def is_variable_call(self, call: cst.Call) -> bool:
        name = self.tf.call_name(call)
        if name is not None:
            return makes_variables(name)
        helper = self.helper_for(call)
        return (helper is not None and helper.creates_variables) or imported_calls.creates_variables(self.facts, call)

    def _helper_returning_op(self, calls: list[cst.Call]) -> str | None:
        """Why a statement calling a helper that creates variables is refused: the helper
        also returns an op on them, which the kept call would run once (helper_returns.py).
        Only a call given literals: one given values computed elsewhere is refused, or not,
        with the code computing them."""
        for call in calls:
            helper = self.helper_for(call)
            if helper is None or not helper.creates_variables or not helper_returns.literal_arguments(call):
                continue
            op = helper_returns.returned_op(self.tf, helper.node)
            if op is not None:
                code = cst.Module([]).code_for_node(op)
                return (
                    f"`{helper.node.name.value}(...)` creates variables and returns `{code}`, an op computed from graph "
                    "values: kept where it stands, the call would compute it once, from the variables' first values, "
                    "where TF1 computed it at each run; not converted"
                )
        return None

    def builds_ops(self, name: str) -> bool:
        """Does the module function ``name`` make TF ops, in its body or through the module
        functions it calls, and run none (no session run, no ``.eval()``: it returns what TF1
        would have computed at each run that reads it)?"""
        return not self.runs_graph(name) and self._makes_ops(name, frozenset())

    def runs_graph(self, name: str) -> bool:
        """Does the module function ``name`` run a session or ``.eval()`` a tensor, in its body
        or through the module functions it calls?  ``def predict_class(X): return predict(X) >
        0.5`` over ``def predict(X): return sess.run(y, {x: X})`` returns NumPy values as
        ``predict`` does: a Python call, though the graph names it reads through ``predict``
        are its own (was graph code no run fetches: ``c = predict_class(X)`` removed)."""
        return self._runs_graph_from(name, frozenset())

    def _runs_graph_from(self, name: str, seen: frozenset[str]) -> bool:
        if name not in self._runs_graph:
            calls = self._calls_of(name)
            self._runs_graph[name] = any(
                looks_like_run_site(self.facts, c)
                or self.tf.call_name(c) in SESSION_CALLS
                or m.matches(c.func, m.Attribute(attr=m.Name("eval")))
                for c in calls
            ) or any(
                isinstance(c.func, cst.Name)
                and c.func.value in self.facts.helpers
                and c.func.value not in seen | {name}
                and self._runs_graph_from(c.func.value, seen | {name})
                for c in calls
            )
        return self._runs_graph[name]

    def _makes_ops(self, name: str, seen: frozenset[str]) -> bool:
        if name not in self._builds_ops:
            calls = self._calls_of(name)
            self._builds_ops[name] = any((n := self.tf.call_name(c)) is not None and is_graph_op(n) for c in calls) or any(
                isinstance(c.func, cst.Name)
                and c.func.value in self.facts.helpers
                and c.func.value not in seen | {name}
                and self._makes_ops(c.func.value, seen | {name})
                for c in calls
            )
        return self._builds_ops[name]

    def _calls_of(self, name: str) -> list[cst.Call]:
        helper = self.facts.helpers.get(name)
        return calls_in(helper.node.body) if helper is not None else []

    def _passed_variable_maker(self, calls: list[cst.Call]) -> tuple[cst.Call, str] | None:
        """A function of the file that makes variables, passed on rather than called by the
        statement (``max(xs, key=layer)``, ``map(layer, xs)``, ``tf.nest.map_structure(layer,
        xs)``), and the call given it: what it is passed to calls it here, so it makes its
        variables here, as a call would (in a generated function: at each trace, which TF2
        refuses or makes anew where TF1 made them once)."""
        for call in calls:
            for argument in call.args:
                value = argument.value
                if isinstance(value, cst.Name) and (helper := self.facts.helpers.get(value.value)) is not None and helper.creates_variables:
                    return call, value.value
        return None

    def helper_for(self, call: cst.Call) -> Helper | None:
        if isinstance(call.func, cst.Name):
            return self.facts.helpers.get(call.func.value)
        method = self_attribute(call.func)
        return self.facts.helpers.get(method) if method is not None else None

    def _singleton_branch(self, call: cst.Call, name: str) -> str | None:
        """A ``tf.cond`` branch returning a one-element list or tuple display: see
        ``singleton_branch``."""
        found = singleton_branch(call, self.facts.helpers) if name == "cond" else None
        if found is None:
            return None
        branch, value = found
        return (
            f"`tf.cond` whose branch `{self.module.code_for_node(branch).strip()}` returns a one-element "
            f"`{self.module.code_for_node(value)}`: TF1 (strict=False) unpacked it to the tensor, TF2's "
            "`tf.cond` returns the list"
        )

    def expression_kind(self, value: cst.BaseExpression) -> str:
        """tensor | list | operation | unknown, for the value of a graph-building expression."""
        if isinstance(value, (cst.List, cst.Tuple)):
            return "list"
        if isinstance(value, cst.Call):
            name = self.tf.call_name(value)
            if name in OPERATION_CALLS:
                return "operation"
            if name in LIST_CALLS:
                return "list"
            if name in STRUCTURE_CALLS:
                return "unknown"  # a tuple of tensors: converted by its structure
            if name == "cond" and any(
                isinstance(b, cst.Lambda) and isinstance(b.body, (cst.List, cst.Tuple))
                for b in (call_argument(value, "true_fn", 1), call_argument(value, "false_fn", 2))
            ):
                return "list"  # branches returning ``(a, b)``: a tuple of tensors
            if name is not None:
                return "tensor"
            helper = self.helper_for(value)
            return "tensor" if helper is not None and helper.returns_tensor else "unknown"
        if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)):
            return "tensor"
        if isinstance(value, cst.Subscript):
            if isinstance(value.value, cst.Call) and self.tf.call_name(value.value) in GRADIENT_CALLS:
                return "tensor"
        return "unknown"

    def classify(self, node: cst.BaseStatement, order: int, scope: Scope, names: tuple[list[str], list[str]]) -> Statement:
        statement = Statement(node, order, Kind.PYTHON)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return statement
        if isinstance(node, cst.If) and (initialized := self._initializer_choice(node, scope, order)) is not None:
            # ``if <TF version test>: init = tf.initialize_all_variables() else: init =
            # tf.global_variables_initializer()`` (MorvanZhou's tutorials): an initializer either way
            statement.kind = Kind.INIT
            statement.defines = (initialized,)
            return statement
        if isinstance(node, cst.SimpleStatementLine):
            if any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in node.body):
                return statement
            if len(node.body) == 1:
                special = self._classify_simple(node, node.body[0], statement, scope)
                if special is not None:
                    return special
        return self._classify_general(node, statement, scope, names)

    def _initializer_choice(self, node: cst.If, scope: Scope, order: int) -> str | None:
        """The name every branch of an ``if``/``else`` binds, alone, to an initializer (an
        ``else`` included, so it is bound either way), when its tests call no TF op."""
        names: set[str] = set()
        branch: cst.If | cst.Else | None = node
        while branch is not None:
            body = branch.body.body if isinstance(branch.body, cst.IndentedBlock) else ()
            if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
                return None
            assign = body[0].body[0]
            if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
                return None
            if not is_init_expression(self.tf, assign.value, scope, order):
                return None
            names.add(assign.targets[0].target.value)
            if isinstance(branch, cst.If):
                if any((n := self.tf.call_name(c)) is not None and is_graph_op(n) for c in calls_in(branch.test)):
                    return None
                if branch.orelse is None:
                    return None
                branch = branch.orelse
            else:
                branch = None
        return names.pop() if len(names) == 1 else None

    def placeholder_statement(self, statement: Statement, target: str, call: cst.Call) -> Statement:
        """``target = tf.placeholder(...)``, or one target of several unpacked placeholders."""
        statement.kind = Kind.PLACEHOLDER
        statement.defines = (target,)
        statement.value_kind = "tensor"
        if self.tf.call_name(call) == "placeholder":
            statement.placeholder = Placeholder(target, call_argument(call, "dtype", 0), None, call, call_argument(call, "shape", 1))
        else:
            statement.placeholder = Placeholder(target, None, call_argument(call, "input", 0), call, call_argument(call, "shape", 1))
        statement.reads = tuple(read_and_bound(call)[0])
        return statement

    def _classify_simple(self, node, small, statement: Statement, scope: Scope) -> Statement | None:
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            name = self.tf.call_name(call)
            if name in DROP_CALLS:
                statement.kind = Kind.DROP
                return statement
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.attr.value == "close"
                and func.value.value in self.facts.session_names
            ):
                statement.kind = Kind.DROP
                self.facts.allowed_session_reads.add(id(func.value))
                return statement
            return None
        if isinstance(small, cst.Assign):
            for parameter in self.facts.session_parameters:
                if parameter.store is node:  # ``self.sess = sess``: the caller's session
                    statement.kind = Kind.SESSION
                    statement.defines = (parameter.attribute,)
                    return statement
            iterator_statement = iterators.classify(self.facts, self.module, small, statement, scope)
            if iterator_statement is not None:
                return iterator_statement
            targets = [t.target for t in small.targets]
            single = graph_name(targets[0]) if len(targets) == 1 else None
            if id(node) in self.graph_lists and single is not None:
                statement.kind = Kind.TENSOR
                statement.defines = (single,)
                statement.value_kind = "list"
                return statement
            if isinstance(small.value, cst.Call) and single is not None:
                target = single
                call = small.value
                name = self.tf.call_name(call)
                if name in PLACEHOLDER_CALLS:
                    return self.placeholder_statement(statement, target, call)
                if name in SESSION_CALLS or imported_calls.is_session_factory(self.facts, call):
                    if name in SESSION_CALLS and self._blocks_dropped_call(call.args, "the session's arguments"):
                        return statement
                    statement.kind = Kind.SESSION
                    statement.defines = (target,)
                    return statement
                if name in CONFIG_CALLS:
                    if self._blocks_dropped_call(call, "the session's configuration"):
                        return statement
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
                    rate = fed_rate(call, scope, statement.order)
                    # a fed rate is an input of every step of this optimizer
                    statement.deps = frozenset({rate.order}) if rate is not None else frozenset()
                    return statement
                if m.matches(call.func, m.Attribute(attr=m.Name("minimize") | m.Name("compute_gradients") | m.Name("apply_gradients"))):
                    return self._classify_minimize(call, target, statement, scope)
            if (
                isinstance(small.value, cst.Dict)
                and small.value.elements
                and all(
                    isinstance(e, cst.DictElement)
                    and (key := graph_name(e.key)) is not None
                    and (found := scope.graph_statement(key, statement.order)) is not None
                    and (found.kind is Kind.PLACEHOLDER or single in self.facts.feed_names)
                    for e in small.value.elements
                )
            ):
                # a feed dict (``tf_dict = {x: X}``): its keys are rewritten; one a run is given
                # with a key that is no placeholder (a variable or tensor fed) is refused there
                return statement
            # config.gpu_options.allow_growth = True
            if all(root_name(t) in self.facts.config_names for t in targets):
                if self._blocks_dropped_call(small.value, "a setting of the session's configuration"):
                    return statement
                statement.kind = Kind.CONFIG
                return statement
        return None

    def _session_block_refusal(self, node: cst.BaseStatement, calls: list[cst.Call], binds: list[str]) -> tuple[cst.CSTNode, str] | None:
        """A block that makes a session and runs nothing itself (``if __name__ ==
        "__main__": sess = tf.Session(); out = report()``, ``report`` running the graph)
        counts as graph code — the session call is a TF call — and graph code no run fetches
        is removed: the helper call and the Python values it binds would go with it.  The
        first such call or name, and why; None when the block holds only sessions and
        configurations (removed as TF1 code, rightly)."""
        made = next(
            (
                c
                for c in calls
                if (self.tf.call_name(c) in SESSION_CALLS or imported_calls.is_session_factory(self.facts, c))
                and id(c) not in self.facts.no_graph_calls
            ),
            None,
        )
        if made is None:
            return None
        why = "makes a session and runs nothing itself: it would be removed as graph code no run fetches"
        # (the calls the block itself makes: not those in a function it defines)
        kept = next((c for c in calls if dropped_call(self.tf, c) is c and not imported_calls.is_session_factory(self.facts, c)), None)
        if kept is not None:
            return kept, f"`{self.module.code_for_node(kept.func)}(...)` is called in a block that {why}, and the call with it (TF1 ran it)"
        sessions = self.facts.session_names | self.facts.config_names
        bound = next((n for n in binds if n not in sessions), None)
        if bound is not None:
            return made, f"`{bound}` is bound in a block that {why}, and the binding with it"
        return None

    def _blocks_dropped_call(self, node: cst.CSTNode | Sequence[cst.CSTNode], dropped: str) -> bool:
        """Block a call in what the migration drops (analysis/dropped_calls.py).  True when blocked."""
        for part in node if isinstance(node, Sequence) else [node]:
            call = dropped_call(self.tf, part)
            if call is not None:
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, dropped_call_message(call, dropped))
                return True
        return False

    def _classify_scipy(self, call: cst.Call, target: str, statement: Statement, scope: Scope) -> Statement:
        """``opt = tf.contrib.opt.ScipyOptimizerInterface(loss, method=..., options=...)``."""
        unsupported = [
            a.keyword.value
            for a in call.args
            if a.keyword is not None and a.keyword.value in ("equalities", "inequalities", "var_to_bounds")
        ]
        if unsupported or any(a.star for a in call.args) or sum(a.keyword is None for a in call.args) > 1:
            self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, "ScipyOptimizerInterface with constraints or bounds is not converted")
            return statement
        return _optimization_statement(statement, Kind.SCIPY, target, call, scope)

    def _optimizer_attribute(self, node: cst.CSTNode, scope: Scope, order: int) -> cst.Attribute | None:
        """The first ``opt.<attribute>`` in ``node`` where ``opt`` is bound to a TF1 optimizer
        (``opt.get_slot(w, "m")``, ``zip(*opt.compute_gradients(loss))``)."""
        for attribute in find_all(node, cst.Attribute):
            assert isinstance(attribute, cst.Attribute)
            if not isinstance(attribute.value, cst.Name):
                continue
            name = attribute.value.value
            found = scope.resolve(name, order)
            if found is not None and found.kind is Kind.OPTIMIZER:
                return cst.ensure_type(attribute, cst.Attribute)
        return None

    def _classify_minimize(self, call: cst.Call, target: str, statement: Statement, scope: Scope) -> Statement:
        """``train_op = opt.minimize(loss)`` (or on an optimizer made inline), and the pair
        ``gvs = opt.compute_gradients(loss)`` … ``train_op = opt.apply_gradients(gvs)``."""
        func = cst.ensure_type(call.func, cst.Attribute)  # matched as ``….minimize`` (or the others)
        optimizer = func.value
        known = isinstance(optimizer, cst.Call) and self.tf.call_name(optimizer) in OPTIMIZERS
        if not known:
            name = graph_name(optimizer)
            found = scope.resolve(name, statement.order) if name else None
            known = found is not None and found.kind is Kind.OPTIMIZER
        method = func.attr.value
        if not known:
            # name the method and the object: `apply_gradients` of `self.g_optimizer(...)` said `minimize` before
            made_by = (
                f"{self.module.code_for_node(optimizer.func)}(...)"
                if isinstance(optimizer, cst.Call)
                else self.module.code_for_node(optimizer)
            )
            called = self.tf.call_name(optimizer) if isinstance(optimizer, cst.Call) else None
            if called is not None and called.startswith("train.") and called.endswith("Optimizer"):
                # a TF1 optimizer this release has no exact Keras counterpart for
                converted = ", ".join(sorted(o.removeprefix("train.").removesuffix("Optimizer") for o in OPTIMIZERS))
                reason = f"`tf.{called}` is not converted by this release (converted optimizers: {converted})"
            else:
                reason = (
                    f"`{method}` of `{made_by}`, not known to be a TF1 optimizer: converted on `tf.train.<Name>Optimizer(...)` "
                    "or a name this code binds to one"
                )
            self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, reason)
            return statement
        for arg in call.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if arg.star or keyword in ("gate_gradients", "aggregation_method", "grad_loss", "colocate_gradients_with_ops"):
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, f"`{method}` with `{keyword or '*'}` is not converted")
                return statement
        if method != "minimize" and isinstance(optimizer, cst.Call):
            self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, f"`{method}` of an optimizer made inline is not converted")
            return statement
        if method == "apply_gradients" and any(
            m.matches(inner.func, m.Attribute(attr=m.Name("compute_gradients"))) for arg in call.args for inner in calls_in(arg.value)
        ):
            # the pairs are read as the gradients the step takes itself; this call would stay,
            # on a Keras optimizer that has no such method
            self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, "`compute_gradients` called inside `apply_gradients` is not converted")
            return statement
        kind = Kind.GRADS if method == "compute_gradients" else Kind.TRAIN
        var_list = call_argument(call, "var_list", 2) if method == "minimize" else None
        if isinstance(var_list, cst.Call) and (collection := self.tf.call_name(var_list)) in _COLLECTIONS:
            # ``minimize(loss, var_list=tf.get_collection(...))`` over the file's layers
            listed = layer_variable_list(self.tf, self.module, scope, statement, var_list, collection)
            if listed is not None:
                self.facts.layer_variable_lists.append(listed)
        return _optimization_statement(statement, kind, target, call, scope)

    def _classify_general(
        self, node: cst.BaseStatement, statement: Statement, scope: Scope, names: tuple[list[str], list[str]]
    ) -> Statement:
        reads, binds = names
        compound = not isinstance(node, cst.SimpleStatementLine)
        if reads and (compound or any(scope.graph_statement(n, statement.order) is not None for n in reads)):
            # a loop variable named like a graph value (``for p, y in zip(pred, y_data)``
            # after ``y = tf.placeholder(...)``, ``[float(x) for x in xs]``) is a Python value
            # wherever the loop reads it (no reads, no walk: a def's or class's are none here,
            # see GraphAnalyzer._analyze_scope; a simple statement's only when one is a graph name's)
            loop_variables = loop_variable_names(node)
            # (and a name the block binds before it reads it: ``action = policy(step)`` in a loop
            # after ``action = tf.argmax(...)``, its reads the loop's own Python value)
            loop_variables |= names_bound_before_read(node)
            reads = [n for n in reads if n not in loop_variables]
        maybe_rebound = _maybe_rebound(reads, scope, statement.order, self.facts)
        if maybe_rebound is not None:
            self.facts.block(node, blockers.UNSUPPORTED_GRAPH_CODE, maybe_rebound)
            return statement
        literals: dict[int, tuple[cst.BaseExpression, str]] = {}
        if any((found := scope.graph_statement(n, statement.order)) is not None and found.kind is Kind.PLACEHOLDER for n in reads):
            dimensions = static_dimensions(node, scope, statement.order)
            # a declared dimension is a number, not a read of the placeholder
            self.facts.static_dimensions.update(dimensions)
            literals.update(dimensions)
        if any(scope.graph_statement(n, statement.order) is not None for n in reads):
            literals.update(self._static_values(node, binds, scope))
        for display in find_all(node, cst.Dict) if self.facts.passed_feed_displays else ():
            if id(display) in self.facts.passed_feed_displays:
                # ``predict({x: X})``: the keys name the run's arguments, no graph value is read
                keys = cst.ensure_type(display, cst.Dict).elements
                literals.update({id(e.key): (e.key, '"feed key"') for e in keys if isinstance(e, cst.DictElement)})
        if literals:
            literal = node.visit(Literalize(literals))
            assert isinstance(literal, cst.BaseStatement)  # Literalize replaces expressions only
            reads = read_and_bound(literal)[0]
        calls = self._live_calls(node)
        for call in calls:
            state = _private_graph_state(self.tf, call)
            if state is not None:
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, state)
                return statement
        tf_calls = [(c, self.tf.call_name(c)) for c in calls]
        has_run = any(looks_like_run_site(self.facts, c) for c in calls)
        graph_deps: set[int] = set()
        reads_graph_tensor = False
        reads_variable = False
        tensors_read: list[Statement] = []
        # another module's builder drawing random values (``z = noise(4)``): its ops are this
        # statement's too, run at each run that reads them (a builder making ops only from its
        # arguments otherwise gives the same value each time: it may stay a Python value)
        builds_by_helper = any(
            (built := imported_calls.builder_call(self.facts, c, scope, statement.order)) is not None and built.draws_random for c in calls
        )
        read_by_helpers: list[str] = []
        for call in calls:
            helper = self.helper_for(call)
            for name in helper.self_reads if helper is not None else ():
                target = scope.graph_statement(name, statement.order)
                if target is not None and target.kind is Kind.PLACEHOLDER:
                    # read inside the helper: an input of this statement all the same
                    graph_deps.add(target.order)
                    reads_graph_tensor = True
            # a module function's ops are this statement's: ``d = doubled()`` reading the
            # module's ``w``, ``z = noise(4)`` drawing random values, built where TF1 built
            # them and run at each run that reads them (not once, as a Python value); a
            # function running the graph, or building none, is a Python call
            if helper is not None and isinstance(call.func, cst.Name) and not self.runs_graph(call.func.value):
                builds_by_helper = builds_by_helper or self.builds_ops(call.func.value)
                read_by_helpers += helper.free_reads
        for name in dict.fromkeys([*reads, *read_by_helpers]):
            target = scope.graph_statement(name, statement.order)
            if target is None:
                continue
            graph_deps.add(target.order)
            if target.kind in (Kind.PLACEHOLDER, Kind.TENSOR, Kind.GRADS):
                reads_graph_tensor = True
                tensors_read.append(target)
            elif target.kind is Kind.VARIABLE:
                reads_variable = True
        traced_by_data = iterators.dataset_function_calls(self.tf, calls, scope, statement.order)
        op_calls = [
            (c, n)
            for c, n in tf_calls
            if n is not None and is_graph_op(n) and id(c) not in self.facts.no_graph_calls and id(c) not in traced_by_data
        ]
        creates_variables = any(self.is_variable_call(c) for c in calls) or self._passed_variable_maker(calls) is not None
        statement.reads = tuple(dict.fromkeys(reads))
        statement.deps = frozenset(graph_deps)
        used = self._optimizer_attribute(node, scope, statement.order)
        if used is not None:
            # only ``train_op = opt.minimize(loss)``, ``gvs = opt.compute_gradients(loss)`` and
            # ``opt.apply_gradients(gvs)`` (statements of their own) are rewritten: any other use
            # would stay, on the Keras optimizer that replaces it, which has no TF1 methods
            self.facts.block(
                used,
                blockers.UNSUPPORTED_GRAPH_CODE,
                f"`{cst.Module([]).code_for_node(used)}` of a TF1 optimizer (not a statement of its own: "
                "`train_op = opt.minimize(loss)`) is not converted; the Keras optimizer replacing it has no such attribute",
            )
            return statement
        if has_run:
            if not isinstance(node, cst.SimpleStatementLine):
                # a block both building and running the graph: its graph code is never
                # converted (graph code is read at the top level of a module or function)
                for call, tf_name in tf_calls:
                    if tf_name in PLACEHOLDER_CALLS:
                        self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, bindings.placeholder_beside_runs(node, tf_name))
                        return statement
            # (a collection fetched by a run, ``sess.run(tf.trainable_variables())``, is written
            # out as its list by rewrites/inline_fetches.py; a statement of its own reading one
            # is graph code, refused below)
            fetched = {id(inner) for run in calls if looks_like_run_site(self.facts, run) for inner in calls_in(run)}
            for read, read_name in tf_calls:
                if read_name in GRAPH_STATE_READS and id(read) not in fetched:
                    self.facts.block(
                        read,
                        blockers.UNSUPPORTED_GRAPH_CODE,
                        f"`tf.{read_name}` is not converted by this release (read in a block with session runs: eager TF2 keeps "
                        f"no graph collections, and `tf.compat.v1.{read_name}()` there would return an empty list)",
                    )
                    return statement
            return statement  # runtime code; run sites are rewritten in place
        for call in calls:
            if iterators.iterator_made(self.tf, call) is not None:
                self.facts.block(
                    call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    "a TF1 tf.data iterator made inside another statement (not `it = dataset.make_one_shot_iterator()`) is not converted",
                )
                return statement
            refused = iterators.refused_call(self.tf, call)
            if refused is not None:
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, refused)
                return statement
        for call in calls:
            refused = self._iterator_elsewhere(call)
            if refused is not None:
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, refused)
                return statement
        for call, tf_name in tf_calls:
            if tf_name in PLACEHOLDER_CALLS:
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, bindings.refused_binding(node, call, tf_name))
                return statement
        for call in calls:
            helper = self.helper_for(call)
            if helper is None or helper.layers is None:
                continue
            placed = layer_helpers.place_call(self.tf, helper.layers, call, statement, scope, self.made_layers, self.facts.batch_norm_flags)
            if isinstance(placed, str):
                self.facts.block(call, blockers.VARIABLE_IN_COMPUTATION, placed)
                return statement
            helper.layers.calls[id(call)] = placed
            statement.layer_helper_calls += (placed,)
        layer_calls = tuple(c for c, n in tf_calls if n in KERAS_LAYERS)
        # (``tf.contrib.layers.flatten`` makes no variables, but is gone from TF2: a Keras layer too)
        if layer_calls and reads_graph_tensor and self._layers_convertible(node, calls, layer_calls):
            creates_variables = False  # the layers are created once, outside the computation
            statement.layer_calls = layer_calls
        if creates_variables and reads_graph_tensor and self._initial_values(scope, tensors_read, node, calls):
            reads_graph_tensor = False  # ``W = tf.Variable(W_init)``: W_init is computed once, where it stands
        for call, tf_name in tf_calls:
            if tf_name is not None and tf_name.startswith(STREAMING_METRICS):
                # TF1's streaming metrics keep their total and count in local variables, and
                # tf.compat.v1.metrics raises under eager execution: graph code using one
                # stays on TF1, placeholder-dependent or not, unless it binds an accuracy's
                # update op alone (made once, updated where it is computed: rewrites/streaming_metrics.py)
                refused = streaming_metrics.update_op_refusal(node, call) if tf_name == streaming_metrics.ACCURACY else None
                if tf_name == streaming_metrics.ACCURACY and refused is None:
                    statement.metric_calls += (call,)
                    continue
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, refused or f"`tf.{tf_name}` is not converted by this release")
                return statement
        if statement.metric_calls:
            # the metric's variables are made once, outside the computation
            creates_variables = any(self.is_variable_call(c) for c in calls if not any(c is mc for mc in statement.metric_calls))
        fed_cell_inputs = self._fed_cell_inputs(node, tf_calls, tensors_read, scope, statement.order) if creates_variables else set()
        if fed_cell_inputs:
            # ``DropoutWrapper(cell, output_keep_prob=keep_prob)``: the cell is made once, here; the
            # functions running it take the fed value and set the wrapper's before (rewrites/rnn_cells.py)
            reads_graph_tensor = False
        if creates_variables:
            if reads_graph_tensor:
                message = self._variables_in_computation(node, calls, tensors_read)
                if layer_calls and find_all(node, (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp)):
                    message = (
                        "a tf.layers call with a lambda or comprehension in its arguments is not converted (a "
                        "regularizer's losses go to TF1 collections that Keras layers do not fill; a comprehension "
                        "would create a layer per element)"
                    )
                self.facts.block(node, blockers.VARIABLE_IN_COMPUTATION, message)
            elif (returned := self._helper_returning_op(calls)) is not None:
                self.facts.block(node, blockers.UNSUPPORTED_GRAPH_CODE, returned)
                return statement
            elif not self._rnn_cells(node, statement, tf_calls, scope):
                return statement
            statement.kind = Kind.VARIABLE
            statement.defines = tuple(assigned_names(node)) or tuple(binds)
            # a stack of cells reading fed values (``MultiRNNCell([cell1, cell2])``) reads them too
            stacked = (scope.statements[o].fed_cell_inputs for o in graph_deps if scope.statements[o].kind is Kind.VARIABLE)
            statement.fed_cell_inputs = frozenset(fed_cell_inputs).union(*stacked)
            statement.value_kind = "variable" if self._single_call(node, VARIABLE_CALLS) else self._value_kind(node)
            statement.loop_targets = self._python_loop_targets(node, scope, statement.order)
            return statement
        is_assignment = isinstance(node, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Assign, cst.AugAssign, cst.AnnAssign)) for s in node.body
        )
        builds_graph = bool(op_calls) or reads_graph_tensor or reads_variable or builds_by_helper
        if not builds_graph or self._constant_in_constructor(node, scope, graph_deps, op_calls, calls):
            return statement
        for call, name in op_calls:
            if any(call is c for c in statement.metric_calls):
                continue
            refused = _control_flow_refused(call, name) or self._singleton_branch(call, name)
            if refused is not None:
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, refused)
                return statement
            if is_unsupported_call(name) and name not in SCHEDULE_CALLS and name not in KERAS_LAYERS:
                if name == SEQUENCE_LOSS:
                    refusal = sequence_loss.refusal(call)
                    if refusal is None:
                        continue  # an exact TF2 expression (rewrites/sequence_losses.py)
                    message = refusal
                elif name in rnn.RUNS:
                    refusal = self._run_refusal(call, name, scope, statement.order)
                    if refusal is None:
                        statement.rnn_calls += (call,)
                        continue  # the cell stepped over time in TF2 ops (rewrites/rnn_cells.py)
                    message = refusal
                elif name in OPTIMIZERS and _under_control_dependencies(node):
                    message = (
                        f"`tf.{name}` makes a train op inside a `with` block (`tf.control_dependencies(...)`): "
                        "a train op with dependencies of its own is not converted"
                    )
                elif name in OPTIMIZERS and (block := _BLOCK_KINDS.get(type(node))) is not None:
                    # ``if MODE == "gp": train_op = tf.train.AdamOptimizer(...).minimize(cost)``: the
                    # statement is not one the train-op rewrite reads; name the block, not an expression
                    message = f"`tf.{name}` makes a train op inside {block}: a train op built in a block is not converted"
                elif name in OPTIMIZERS:
                    message = (
                        f"`tf.{name}` is used inside another expression (a train op inside `tf.group`, an optimizer "
                        "built in a call); not converted"
                    )
                else:
                    listed = layer_variable_list(self.tf, self.module, scope, statement, call, name) if name in _COLLECTIONS else None
                    if listed is not None:
                        self.facts.layer_variable_lists.append(listed)
                        continue  # the helpers' layers' weights (rewrites/layer_helpers.py)
                    if any(b.node is call for b in self.facts.blockers):
                        return statement  # refused already, with its own reason (a graph writer's)
                    message = f"`tf.{name}` is not converted by this release"
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, message)
                return statement
        refused_run = self._helper_runs(calls, statement, scope)
        if refused_run is not None:
            self.facts.block(node, blockers.UNSUPPORTED_GRAPH_CODE, refused_run)
            return statement
        if reads_graph_tensor:
            builder = next((c for c in calls if (h := self.helper_for(c)) is not None and h.optimizer is not None), None)
            if builder is not None:
                # the call would move into a generated function, whose every call would make a
                # TF1 optimizer and its slots anew (TF1 built one train op, once)
                helper = self.helper_for(builder)
                assert helper is not None and helper.optimizer is not None
                self.facts.block(
                    builder,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"`{self.module.code_for_node(builder.func)}(...)` makes a TF1 optimizer "
                    f"(`{self.module.code_for_node(helper.optimizer)}`) at a call given graph values: an optimizer made in a "
                    "function of the file is not converted (make it in graph code: `opt = tf.train.AdamOptimizer(lr)`, "
                    "`train_op = opt.minimize(loss)`)",
                )
                return statement
        fill = id(node) in self.list_fills
        if isinstance(node, cst.SimpleStatementLine) and not is_assignment and not fill:
            # Kept as Python: a TF call for its effect on the runtime, or code that reads
            # graph values (reported by the escape check).
            return statement
        if is_assignment and isinstance(node, cst.SimpleStatementLine):
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
        if not self._movable(node, [c for c in calls if not (fill and c is _fill_call(node))], scope, statement.order):
            return statement
        session_block = self._session_block_refusal(node, calls, binds) if compound else None
        if session_block is not None:
            self.facts.block(session_block[0], blockers.UNSUPPORTED_SESSION, session_block[1])
            return statement
        statement.kind = Kind.TENSOR
        if is_assignment:
            statement.defines = tuple(assigned_names(node))
        elif fill and (filled := filled_list(node)) is not None:
            statement.defines = (filled,)
        else:
            # ``if debug: fetches.extend([mx, mn])`` defines the list of tensors it extends
            extended = [
                n
                for n in changed_in_place(node)
                if (found := scope.graph_statement(n, statement.order)) is not None and found.kind is Kind.TENSOR
            ]
            statement.defines = tuple(dict.fromkeys([*binds, *extended]))
        statement.compound = not is_assignment
        if statement.compound:
            statement.loop_targets = tuple(
                dict.fromkeys(n for loop in find_all(node, cst.For) if isinstance(loop, cst.For) for n in target_names(loop.target))
            )
        statement.gradient_calls = tuple(c for c, n in tf_calls if n in GRADIENT_CALLS)
        statement.schedule_calls = tuple(c for c, n in tf_calls if n in SCHEDULE_CALLS)
        statement.calls_gradient_helper = any(
            ((h := self.helper_for(c)) is not None and h.uses_gradients)
            or imported_calls.takes_gradients(self.facts, c, scope, statement.order)
            for c in calls
        )
        statement.value_kind = self._value_kind(node, scope, statement.order)
        self._take_starts(statement, scope)
        return statement

    def _python_loop_targets(self, node: cst.CSTNode, scope: Scope, order: int) -> tuple[str, ...]:
        """The targets of a loop making variables (``for n, n_in in zip([3, 2], [4, 3]):``,
        the variables' loop loop_split.py leaves) that hold the Python values of an iterable
        reading no graph name and calling no TensorFlow: plain Python values the loop leaves
        bound where it stood, which code after it reads as such (``last_in = n_in``), not
        graph code that moves into generated functions (or is removed) with them.  A target
        the body binds again (``W = tf.Variable(...)``) is not one."""
        if not isinstance(node, cst.For):
            return ()
        if any(self.tf.call_name(c) is not None for c in calls_in(node.iter)) or any(
            isinstance(n, cst.Name) and scope.graph_statement(n.value, order) is not None for n in find_all(node.iter, cst.Name)
        ):
            return ()
        rebound = set(read_and_bound(node.body)[1])
        return tuple(n for n in dict.fromkeys(target_names(node.target)) if n not in rebound)

    def _iterator_elsewhere(self, call: cst.Call) -> str | None:
        """Why ``call`` takes an element of a TF1 iterator this analysis does not follow:
        a ``get_next()`` not of an iterator statement of the scope (analysis/iterators.py
        classifies those), or a function of the file or project making an iterator.  TF1
        took the next element at each run reading it; the statement kept as Python would
        take one for good, moved into a function a new iterator at each call."""
        helper = self.helper_for(call)
        if iterators.is_get_next(call):
            receiver = self.module.code_for_node(cst.ensure_type(call.func, cst.Attribute).value)
            return (
                f"`{receiver}.get_next()` is not a statement `x = it.get_next()` of its own, of an iterator this scope "
                "makes (`it = dataset.make_one_shot_iterator()`): TF1 took the next element at each run reading it; not converted"
            )
        if (helper is not None and helper.iterator is not None) or imported_calls.makes_iterator(self.facts, call):
            return f"`{self.module.code_for_node(call.func)}(...)` makes a TF1 tf.data iterator, whose element each TF1 run reading it advanced: not converted"
        return None

    def _take_starts(self, statement: Statement, scope: Scope) -> None:
        """Graph code that rebinds a name from the plain value it held (``self.loss = 0``,
        then ``for e in range(n): self.loss = self.loss + tf.reduce_mean(...)``: hp-VPINNs'
        variational loss summed over elements).  TF1 built the sum once from that start;
        moved into a generated function without it, the sum would read a local the
        function never bound.  A start bound by an assignment of its own that calls nothing
        moves along (recomputed at each call, it is the same value); any other is refused."""
        for name in statement.defines:
            start = scope.resolve(name, statement.order) if name in statement.reads else None
            if start is not None and start.kind is Kind.VARIABLE and start.value_kind == "variable" and "." not in name:
                # ``h = tf.Variable(...)``, then ``h = h * x``: in the generated function ``h`` is
                # a local, unbound when the statement reads it
                self.facts.block(
                    statement.node,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"graph code rebinds `{name}` from the variable it held before; moved into a function, its first read "
                    "would find the local unbound (give the variable a name of its own)",
                )
                continue
            if start is None or start.kind is not Kind.PYTHON:
                continue
            node = start.node
            if (
                isinstance(node, cst.SimpleStatementLine)
                and len(node.body) == 1
                and isinstance(node.body[0], cst.Assign)
                and len(node.body[0].targets) == 1
                and graph_name(node.body[0].targets[0].target) == name
                and not calls_in(node.body[0].value)
            ):
                start.kind = Kind.TENSOR
                start.defines = (name,)
                statement.deps = statement.deps | {start.order}
            elif not any(id(b.node) in {id(node), *map(id, calls_in(node))} for b in self.facts.blockers):
                # (a start that is graph code refused already keeps the graph on TF1)
                self.facts.block(
                    statement.node,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"graph code rebinds `{name}` from the Python value it held before, which is not bound by a plain "
                    "assignment of its own that calls nothing; not moved into a function",
                )

    def _variables_in_computation(self, node: cst.BaseStatement, calls: list[cst.Call], tensors: list[Statement]) -> str:
        """Why a statement that creates variables from placeholder-dependent tensors is
        refused, naming the call that creates them and a tensor it computes with."""
        creator = next((c for c in calls if self.is_variable_call(c)), None)
        if creator is None:
            passed = self._passed_variable_maker(calls)
            assert passed is not None  # (the statement creates variables: a call does, or a function passed on)
            creator, maker = passed
            passer = creator
            made = f"`{maker}`, passed to `{self.module.code_for_node(passer.func)}(...)`, which calls it, creates variables"
        else:
            made = f"`{self.module.code_for_node(creator.func)}(...)` creates variables"
        helper = self.helper_for(creator)
        if helper is not None and helper.layer_refusal is not None:
            made += f" ({helper.layer_refusal})"
        elif helper is not None and self_attribute(creator.func) is not None:
            made += f" ({self._method_not_split(helper)})"
        cell = self.tf.call_name(creator)
        if cell is not None and rnn.is_rnn_class(cell) and (refusal := rnn.cell_refusal(creator, cell)) is not None:
            # ``DropoutWrapper(cell, output_keep_prob=keep_prob)``: a cell made once, reading a fed value
            made = f"`{self.module.code_for_node(creator.func)}(...)` makes an RNN cell, once ({refusal})"
        ordered = sorted(tensors, key=lambda t: t.kind is not Kind.PLACEHOLDER)
        inputs = [name for t in ordered for name in t.defines]
        tensor = f" (`{inputs[0]}`)" if inputs else ""
        if ordered and ordered[0].placeholder is not None and ordered[0].placeholder.iterator is not None:
            # ``w = tf.Variable(element)``: TF1's initializer run took an element from the iterator
            return (
                f"this {'statement' if isinstance(node, cst.SimpleStatementLine) else 'block'} creates variables from "
                f"tensors of an element of a TF1 iterator{tensor}: {made}; not converted (a generated function would make "
                "them again at each call, and a variable initialized from the element took it from the iterator when TF1's "
                "initializer ran)"
            )
        if isinstance(node, cst.SimpleStatementLine):
            return f"this statement creates variables from placeholder-dependent tensors{tensor}: {made}"
        if isinstance(node, cst.With) and any(self._reuses(item.item) for item in node.items):
            # MultistepNNs: ``with tf.variable_scope(scope, reuse=True): self.Y_pred = self.net_Y(self.X_tf)``
            return (
                f"this block applies the variables of an earlier block again, by name, through `tf.variable_scope(..., "
                f"reuse=...)`, to placeholder-dependent tensors{tensor}: {made} (TF1 returned the existing ones); a network "
                "shared by scope name is not converted (create its layers once, e.g. Keras layers, and call them on each input)"
            )
        return f"{MIXED_BLOCK}{tensor}: {made}; converted, the variables would be made again at each call of the generated function"

    def _method_not_split(self, method: Helper) -> str:
        """Why a method making variables is not split into variables and ops as a function of
        the module is (rewrites/helper_split.py): naming what makes its variables, so the
        reader sees which of them another module holds (hwalsuklee's GANs: ``discriminator``
        over ops.py's ``conv2d``, ``linear``, ``bn``)."""
        name = method.node.name.value
        imported: list[str] = []
        own: list[str] = []
        for call in calls_in(method.node.body):
            called = self.module.code_for_node(call.func)
            if self.tf.call_name(call) is not None or called in imported + own:
                continue
            callee = self.helper_for(call)
            if callee is not None and callee is not method and callee.creates_variables:
                own.append(called)
            elif callee is None and imported_calls.creates_variables(self.facts, call):
                imported.append(called)
        made_by = [f"the file's {', '.join(f'`{c}`' for c in own)}"] if own else []
        if imported:
            made_by.append(f"{', '.join(f'`{c}`' for c in imported)}, imported from another module (split only in its own file)")
        through = f"; its variables are made by {' and '.join(made_by)}" if made_by else ""
        return (
            f"not split into variables and ops: `{name}` is a method, and only a function defined at the top of the module "
            f"is split{through}"
        )

    def _reuses(self, expression: cst.BaseExpression) -> bool:
        """``tf.variable_scope(scope, reuse=True)`` (any ``reuse=`` but False or None)."""
        if not (isinstance(expression, cst.Call) and self.tf.call_name(expression) == "variable_scope"):
            return False
        reuse = call_argument(expression, "reuse", 8)
        return reuse is not None and not m.matches(reuse, m.Name("False") | m.Name("None"))

    def _constant_in_constructor(
        self, node: cst.BaseStatement, scope: Scope, graph_deps: set[int], op_calls, calls: list[cst.Call]
    ) -> bool:
        """``self.lam = tf.constant(lam, dtype=tf.float32)`` in a constructor, reading no
        graph value (GradientPathologiesPINNs): TF1 fixed its value when it built the
        graph; computed once, eagerly, where it stands, it has that value, and the moved
        code reads it as ``self.lam`` (moved, it would read the constructor's parameter
        ``lam``, which the generated methods cannot see).  Only into attributes: a local
        would not be seen by the generated methods, while moved it is."""
        targets = assigned_names(node)
        return (
            scope.cls is not None
            and bool(targets)
            and all(name.startswith("self.") for name in targets)
            and not graph_deps
            and bool(op_calls)
            and all(name in EAGER_CONSTANT_CALLS for _, name in op_calls)
            and not any(self.helper_for(c) is not None for c in calls)
        )

    def _initial_values(self, scope: Scope, tensors: list[Statement], node: cst.BaseStatement, calls: list[cst.Call]) -> bool:
        """A variable made from named tensors that no placeholder feeds (``W_init =
        tf.random_uniform(...)``; ``W = tf.Variable(W_init)``): TF1 computed them once, to
        initialize; they become values computed once where they stand, like the inline
        form ``tf.Variable(tf.random_uniform(...))``.  Not when the statement also calls
        tf.layers or other code that builds ops from them per call."""
        if not isinstance(node, cst.SimpleStatementLine) or any(self.helper_for(c) is not None for c in calls):
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

    def _static_values(self, node: cst.BaseStatement, binds: list[str], scope: Scope) -> dict[int, tuple[cst.BaseExpression, str]]:
        """The Python values of static shapes ``node`` computes (analysis/static_python.py),
        recorded for the plan (the number written where the code stays outside the generated
        functions); those reading a dimension TF1 did not know are kept for the refusal.  None
        where a name it binds is compared as TF1's ``Dimension`` and an int compare apart
        (``d = x.get_shape()[1]`` … ``d == 3.0``: False in TF1, True of the number)."""
        if binds_dimension_compared(node, binds, scope.owner):
            return {}
        values = self.static_python.values(node)
        declared = {id(n) for expression, _ in self.facts.static_dimensions.values() for n in preorder(expression)}
        values.found = {key: found for key, found in values.found.items() if key not in declared}  # said already
        for whole, _ in values.found.values():
            inner = {id(n) for n in preorder(whole)}
            for key in [k for k in self.facts.static_dimensions if k in inner]:
                del self.facts.static_dimensions[key]  # written out as part of the whole value
        self.facts.static_values.update(values.found)
        for unknown in values.unknown.values():
            for part in preorder(unknown):
                if isinstance(part, (cst.Call, cst.Attribute)):
                    self.unknown_dimensions.setdefault(id(part), unknown)
        return values.found

    def _live_calls(self, node: cst.BaseStatement) -> list[cst.Call]:
        """The calls of ``node``, but those of branches module constants rule out (when no run
        site is among them: a run there is still rewritten with the others)."""
        calls = calls_in(node)
        dead = {id(c) for branch in self.static_python.ruled_out(node) for c in calls_in(branch)}
        if not dead or any(looks_like_run_site(self.facts, c) for c in calls if id(c) in dead):
            return calls
        return [c for c in calls if id(c) not in dead]

    def _movable(self, node: cst.BaseStatement, calls: list[cst.Call], scope: Scope, order: int) -> bool:
        """Graph-building code moves into functions that run on every call; refuse what
        would then change meaning: Python values read off graph tensors (static shapes,
        names), which exist only while building, and Python side effects, which TF1 ran
        once."""
        proven = (*self.facts.static_dimensions.values(), *self.facts.static_values.values())
        declared = {id(shape) for expression, _ in proven for shape in _shape_attributes(expression)}
        inside_values = {id(c) for expression, _ in self.facts.static_values.values() for c in find_all(expression, cst.Call)}
        for attribute in find_all(node, m.Attribute(value=m.Name(), attr=m.Name())):
            if (
                isinstance(attribute, cst.Attribute)  # as matched: ``name.attr``
                and isinstance(attribute.value, cst.Name)
                and attribute.attr.value in STATIC_TENSOR_ATTRIBUTES
                and id(attribute) not in declared
            ):
                target = scope.graph_statement(attribute.value.value, order)
                if target is not None and target.kind in (Kind.TENSOR, Kind.PLACEHOLDER):
                    if attribute.attr.value == "dtype":
                        # known while tracing, the same as TF1's: a placeholder's argument is
                        # given its dtype (the signature, or a cast), a tensor's ops are the same
                        continue
                    if self._block_unknown_dimension(attribute):
                        return False
                    self.facts.block(
                        attribute,
                        blockers.GRAPH_VALUE_OUTSIDE_RUN,
                        f"`{attribute.value.value}.{attribute.attr.value}` is a Python value read off a graph tensor while "
                        "the graph is built; it does not exist once the computation moves into a function",
                    )
                    return False
        identity = _identity_test(node)
        if identity is not None:
            # ``missing = grads[1] is None``: a Python bool about the graph object, not a
            # tensor; no run fetches it, so moved code would drop the statement
            self.facts.block(
                identity,
                blockers.GRAPH_VALUE_OUTSIDE_RUN,
                f"`{self.module.code_for_node(identity)}` is a Python value about a graph object (an identity test), "
                "computed while the graph is built; it is no tensor a run could fetch",
            )
            return False
        for string in find_all(node, (cst.SimpleString, cst.FormattedString)):
            if "\n" in cst.Module([]).code_for_node(string):
                # moved into a generated function, its continuation lines would be indented:
                # another string
                self.facts.block(
                    string, blockers.UNSUPPORTED_GRAPH_CODE, "a string spanning lines in graph-building code is not moved into a function"
                )
                return False
        for attribute in find_all(node, cst.Attribute):
            method = self.facts.helpers.get(f"self.{cst.ensure_type(attribute, cst.Attribute).attr.value}")
            if method is not None and method.effect is not None and is_property(method.node):
                self._block_effect(attribute, f"`{self.module.code_for_node(attribute)}` (a property)", method.effect)
                return False
        for call in calls:
            if id(call) in inside_values:
                continue  # a Python value of static shapes: the same number at each trace
            handed = self._effect_handed_on(call)
            if handed is not None:
                self._block_effect(call, f"`{self.module.code_for_node(call.func)}(...)` is handed `{handed[0]}`, which", handed[1])
                return False
            helper = self.helper_for(call)
            if helper is not None and helper.ambiguous:
                self.facts.block(
                    call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"`{self.module.code_for_node(call.func)}(...)`: the classes "
                    + ", ".join(f"`{c}`" for c in helper.ambiguous)
                    + " of the file define this method differently, and which one runs here is not resolved",
                )
                return False
            if helper is not None and helper.effect is not None and not helper.creates_variables:
                self._block_effect(call, f"`{self.module.code_for_node(call.func)}(...)`", helper.effect)
                return False
            if self.tf.call_name(call) is not None or helper is not None:
                continue
            if imported_calls.builder_call(self.facts, call, scope, order) is not None:
                continue  # traced where TF1 built it (analysis/imported_calls.py)
            layer_object = layer_object_call(self.module, self.tf, scope, call, order)
            if layer_object == "":
                continue  # a Keras layer object's call, traced where TF1 built it (analysis/keras_layer_objects.py)
            if layer_object is not None:
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, layer_object)
                return False
            refused = imported_calls.refusal(self.facts, call) or imported_calls.net_method_refusal(self.facts, call, scope, order)
            if refused is not None:
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, refused)
                return False
            func = call.func
            if isinstance(func, cst.Name) and func.value in PURE_BUILTINS:
                continue
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
                owner = func.value.value
                if owner in ("np", "numpy", "math") or scope.graph_statement(owner, order) is not None:
                    continue  # NumPy/math functions, or a method of a graph tensor or variable
                if _graph_element_method(node, call, owner, lambda name: scope.graph_statement(name, order) is not None):
                    continue  # ``[p.assign(...) for p in theta_D]``: a method of each variable of a graph list
            if _numpy_array_read(func):
                continue  # ``np.arange(12).reshape(6, 2)``: a new array from a NumPy function's
            list_name = self_attribute(func.value) if isinstance(func, cst.Attribute) else None
            if list_name is not None and scope.graph_statement(list_name, order) is not None:
                continue  # a method of a graph list kept on self (``self.grads.append``)
            root = root_name(func)
            if root in self.tf.kept_names:
                self.facts.block(
                    call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"`{self.module.code_for_node(func)}` comes from `{self.tf.kept_names[root]}`, outside the public "
                    "TF1 API: graph code built with it is not converted",
                )
                return False
            if self._block_unknown_dimension(call):
                return False
            self.facts.block(
                call,
                blockers.UNSUPPORTED_GRAPH_CODE,
                f"`{self.module.code_for_node(call.func)}(...)` is a Python call in graph-building code: it would run on "
                "every call of the generated function (TF1 ran it once, while building the graph)"
                + (
                    f"; {why}"
                    if (
                        why := call_origin(self.module, call)
                        or self._underived_shape(call)
                        or imported_graph(self.module, self.tf, node, call)
                    )
                    is not None
                    else ""
                ),
            )
            return False
        return True

    def _underived_shape(self, call: cst.Call) -> str | None:
        """Why a Python call reading a static shape is refused: its value was not derived."""
        read = underived_shape_read(call)
        if read is None:
            return None
        return (
            f"`{self.module.code_for_node(read)}` is a static shape this release does not derive from the program text "
            "(it follows declared placeholder and variable shapes, literal sizes and the shape rules of common ops, through "
            "the module's helpers): a Python value made of it is not proven the same at each trace"
        )

    def _block_unknown_dimension(self, node: cst.CSTNode) -> bool:
        """Refuse ``node`` when it reads a dimension TF1 did not know; was it refused?"""
        expression = self.unknown_dimensions.get(id(node))
        if expression is None:
            return False
        self.facts.block(
            expression,
            blockers.GRAPH_VALUE_OUTSIDE_RUN,
            f"`{self.module.code_for_node(expression)}` reads a dimension TF1 did not know (None, the fed size): the "
            "generated function would see the size of the value it is given when run eagerly, not None",
        )
        return True

    def _effect_handed_on(self, call: cst.Call) -> tuple[str, tuple[cst.CSTNode, str]] | None:
        """A function of the file with a Python effect passed as an argument (``layer(h,
        activation=noisy)``, ``tf.map_fn(noisy, xs)``): the callee calls it while the graph is
        built, once in TF1, at each trace once moved; its name and effect."""
        for arg in call.args:
            if isinstance(arg.value, cst.Name):
                handed = self.facts.helpers.get(arg.value.value)
                if handed is not None and handed.effect is not None:
                    return arg.value.value, handed.effect
        return None

    def _block_effect(self, node: cst.CSTNode, subject: str, effect: tuple[cst.CSTNode, str]) -> None:
        """Refuse ``node``, whose helper or property has a Python effect (analysis/helper_effects.py)."""
        quoted = self.module.code_for_node(effect[0]).strip().splitlines()[0]
        self.facts.block(
            node,
            blockers.UNSUPPORTED_GRAPH_CODE,
            f"{subject} runs `{quoted}`, which {effect[1]}: "
            "it would run again at each trace of the generated functions (TF1 ran it once, while building the graph)",
        )

    def _rnn_cells(self, node, statement: Statement, tf_calls: list, scope: Scope) -> bool:
        """A statement making TF1 RNN cells: each one converted (``statement.rnn_calls``,
        rewrites/rnn_cells.py), or the statement refused naming the first that is not
        (analysis/rnn.py).  A ``MultiRNNCell``'s cells are cells made in the statement or
        names of converted cell statements."""
        cells = [(c, n) for c, n in tf_calls if n is not None and rnn.is_rnn_class(n)]
        fed = self._fed_keep_prob(scope, statement.order)
        for call, name in cells:
            refusal = rnn.cell_refusal(call, name, fed)
            if refusal is None and name in rnn.MULTI_CELLS:
                refusal = self._stacked_cells_refusal(call, name, cells, scope, statement.order)
            if refusal is None and name in rnn.DROPOUT_WRAPPERS:
                wrapped = call_argument(call, "cell", 0)
                if wrapped is None or not self._converted_cell(wrapped, cells, scope, statement.order):
                    refusal = f"`tf.{name}(...)`: the cell it wraps is not a converted cell made there or bound to a name"
            if refusal is not None:
                self.facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, refusal)
                return False
        # the cells the factories called here make, each written out once
        made = [c for call in calls_in(node) for c in self._factory_cells(call) if id(c) not in self.factory_cells]
        self.factory_cells.update(id(c) for c in made)
        statement.rnn_calls = (*(c for c, _ in cells), *made)
        return True

    def _fed_keep_prob(self, scope: Scope, order: int) -> Callable[[cst.BaseExpression], bool]:
        """Is a keep probability a scalar placeholder of the module, fed at each run (then
        read where the cell runs, not where it is made: analysis/rnn.FED_KEEP_PROBS)?  A
        placeholder of a class's graph, or of a shape written other than ``[]``, is not followed."""

        def fed(value: cst.BaseExpression) -> bool:
            if not isinstance(scope.owner, cst.Module) or not isinstance(value, cst.Name):
                return False
            found = scope.graph_statement(value.value, order)
            if found is None or found.kind is not Kind.PLACEHOLDER or found.defines != (value.value,):
                return False
            placeholder = found.placeholder
            if placeholder is None or placeholder.iterator is not None:
                return False
            if placeholder.dtype is None and not isinstance(placeholder.default, cst.Float):
                # (``tf.placeholder_with_default(1.0, [])``: a float32 scalar, its default where no run feeds it)
                return False
            shape = placeholder.shape  # a scalar, or left out (any shape, as a feed then gave)
            return shape is None or (isinstance(shape, (cst.List, cst.Tuple)) and not shape.elements)

        return fed

    def _fed_cell_inputs(
        self, node: cst.BaseStatement, tf_calls: list, tensors_read: list[Statement], scope: Scope, order: int
    ) -> set[int]:
        """The placeholders this statement reads only as the fed keep probabilities of the
        ``DropoutWrapper``s it makes (their orders), or nothing when it reads a graph tensor
        otherwise: then it computes with them where it makes variables (TFM304)."""
        fed = self._fed_keep_prob(scope, order)
        values = [
            argument.value
            for call, name in tf_calls
            if name in rnn.DROPOUT_WRAPPERS
            for parameter, argument in (bind_arguments(call, rnn.CELLS[name][0]) or {}).items()
            if parameter in rnn.FED_KEEP_PROBS and fed(argument.value)
        ]
        names = {cst.ensure_type(v, cst.Name).value for v in values}
        if not values or any(t.kind is not Kind.PLACEHOLDER or not set(t.defines) <= names for t in tensors_read):
            return set()
        # every read of those names is a keep probability (a keyword or an attribute is no read)
        not_reads = {id(n) for a in find_all(node, cst.Arg) if isinstance(a, cst.Arg) and (n := a.keyword) is not None}
        not_reads |= {id(a.attr) for a in find_all(node, cst.Attribute) if isinstance(a, cst.Attribute)}
        reads = [n for n in find_all(node, cst.Name) if isinstance(n, cst.Name) and n.value in names and id(n) not in not_reads]
        if len(reads) != len(values):
            return set()
        self.facts.fed_keep_probs.update(id(v) for v in values)
        return {found.order for n in names if (found := scope.graph_statement(n, order)) is not None}

    def _factory_cell(self, call: cst.Call) -> cst.Call | None:
        """The cell the function of the file ``call`` calls makes, when it is a cell
        factory (analysis/rnn.py)."""
        helper = self.helper_for(call)
        return None if helper is None or not isinstance(call.func, cst.Name) else rnn.factory_cell(helper.node, self.tf.call_name)

    def _factory_cells(self, call: cst.Call) -> list[cst.Call]:
        """The cells the function of the file ``call`` calls makes, when it is a cell
        factory making one or several (analysis/rnn.factory_cells)."""
        helper = self.helper_for(call)
        found = None if helper is None or not isinstance(call.func, cst.Name) else rnn.factory_cells(helper.node, self.tf.call_name)
        return found or []

    def _stacked_cells_refusal(self, call: cst.Call, name: str, cells: list, scope: Scope, order: int) -> str | None:
        """Why the cells a ``MultiRNNCell`` stacks are not converted: each must be a cell
        made in the statement or the name of a converted cell statement, in a list written
        out, repeated (``[cell] * n``, ``[cell for _ in range(n)]``), made anew for each
        element (``[Cell(n) for _ in ...]``), or a name bound to such a comprehension
        (``layers = [Cell(n) for _ in range(3)]``, then ``MultiRNNCell(layers)``: ageron's
        handson-ml).  One cell object listed twice is one cell applied at two depths: TF1
        made its variables once and shared them ("will share weights"), and so does the cell
        written out, built at its first call."""
        listed = call_argument(call, "cells", 0)
        if isinstance(listed, cst.BinaryOperation) and isinstance(listed.operator, cst.Multiply):
            listed = listed.left if isinstance(listed.left, (cst.List, cst.Tuple)) else listed.right
        if isinstance(listed, cst.Name) and self._is_cell_list(listed.value, scope, order):
            return None
        elements = listed.elements if isinstance(listed, (cst.List, cst.Tuple)) else None
        if isinstance(listed, cst.ListComp) and isinstance(listed.elt, cst.Call):
            elements = [cst.Element(listed.elt)]  # a new cell for each element
        elif isinstance(listed, cst.ListComp) and _comprehension_reads_no_target(listed):
            elements = [cst.Element(listed.elt)]  # the same cell for each element
        for element in elements or ():
            if isinstance(element, cst.StarredElement) or not self._converted_cell(element.value, cells, scope, order):
                return f"`tf.{name}(...)`: its cells are not all converted cells written in the list"
        return None if elements else f"`tf.{name}(...)`: its cells are not a list written out"

    def _converted_cell(self, value: cst.BaseExpression, cells: list, scope: Scope, order: int) -> bool:
        """Is ``value`` a converted cell: one of ``cells`` (made in the statement), a call of a
        cell factory, or a name (or ``self`` attribute) bound by a converted cell statement?"""
        if isinstance(value, cst.Call):
            return any(value is c for c, _ in cells) or self._factory_cell(value) is not None
        bound = graph_name(value)
        return bound is not None and self._is_cell(bound, scope, order)

    def _is_cell_list(self, name: str, scope: Scope, order: int) -> bool:
        """Is ``name`` bound by a converted cell statement ``name = [Cell(...) for ... in ...]``
        making a new cell for each element (nothing changes the list in place after)?"""
        found = scope.graph_statement(name, order)
        if found is None or not found.rnn_calls or _single_name(found.node) != name or name in scope.changed_in_place:
            return False
        node = cst.ensure_type(found.node, cst.SimpleStatementLine).body[0]
        value = cst.ensure_type(node, cst.Assign).value
        if not isinstance(value, cst.ListComp) or not isinstance(value.elt, cst.Call):
            return False
        return any(value.elt is c for c in found.rnn_calls) or self._factory_cell(value.elt) is not None

    def _is_cell(self, name: str, scope: Scope, order: int) -> bool:
        """Is ``name`` bound by a converted cell statement: ``name = <cell>``, or one of the
        names ``a, b = make_cells()`` binds from a factory returning as many cells?"""
        found = scope.graph_statement(name, order)
        if found is None or not found.rnn_calls:
            return False
        if _single_name(found.node) == name:
            return True
        node = found.node
        if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)):
            return False
        assign = node.body[0]
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(assign.value, cst.Call):
            return False
        names = [e.value.value for e in target.elements if isinstance(e, cst.Element) and isinstance(e.value, cst.Name)]
        made = self._factory_cells(assign.value)
        return len(names) == len(target.elements) == len(made) >= 1 and name in names

    def _run_refusal(self, call: cst.Call, path: str, scope: Scope, order: int, cells: list[str] | None = None) -> str | None:
        """Why an RNN run (``tf.nn.dynamic_rnn``, ``static_rnn``, ``static_bidirectional_rnn``)
        is not converted: its arguments, or a cell that is not a name bound by a converted cell
        statement.  ``cells``: the module names its cells are, when the run is in a helper."""
        refusal = rnn.run_refusal(call, path)
        if refusal is not None:
            return refusal
        for cell in cells if cells is not None else rnn.run_cells(call, path):
            if not self._is_cell(cell, scope, order):
                return f"`tf.{path}(...)`: its cell `{cell}` is not bound by a converted cell statement"
        return None

    def _helper_runs(self, calls: list[cst.Call], statement: Statement, scope: Scope) -> str | None:
        """The RNN runs in the bodies of the helpers this statement calls: each converted
        (added to ``statement.rnn_calls``) when its cells are module names bound by converted
        cell statements, read by the helper as free names or passed to it at this call (a
        parameter, or a name the helper binds once from one, ``cell = variables`` or ``fw, bw
        = variables``, as rewrites/helper_split.py writes it); else why not.  A run left to
        ``tf.compat.v1`` would get cells written out that it cannot run."""
        for call in calls:
            helper = self.helper_for(call)
            if helper is None:
                continue
            if helper.nested_runs:
                return f"`{self.module.code_for_node(call.func)}(...)` calls a function running a TF1 RNN: converted only in a helper called directly"
            for run in helper.rnn_runs:
                path = self.tf.call_name(run)
                assert path is not None
                refusal = rnn.run_refusal(run, path)
                if refusal is None:
                    cells = [_passed_cell(helper.node, cell, call) for cell in rnn.run_cells(run, path)]
                    missing = next((c for c, passed in zip(rnn.run_cells(run, path), cells) if passed is None), None)
                    if missing is not None:
                        refusal = (
                            f"`tf.{path}(...)` in `{helper.node.name.value}`: its cell `{missing}` is not a module name, a "
                            "parameter or a name bound once from a parameter"
                        )
                    else:
                        refusal = self._run_refusal(run, path, scope, statement.order, [c for c in cells if c is not None])
                if refusal is not None:
                    return refusal if f"in `{helper.node.name.value}`" in refusal else f"in `{helper.node.name.value}`: {refusal}"
                if id(run) not in self.helper_runs:
                    self.helper_runs.add(id(run))
                    statement.rnn_calls += (run,)
        return None

    def _layers_convertible(self, node, calls: list[cst.Call], layer_calls: tuple[cst.Call, ...]) -> bool:
        """tf.layers calls in a plain assignment, and no other variable creation: each
        becomes a Keras layer created where the statement stood and called in the
        computation."""
        if not layer_calls or not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1:
            return False
        if not isinstance(node.body[0], cst.Assign):
            return False
        others = [c for c in calls if c not in layer_calls and self.is_variable_call(c)]
        nested = find_all(node, (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp))
        return not others and not nested

    def _single_call(self, node, names) -> bool:
        if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign):
            value = node.body[0].value
            return isinstance(value, cst.Call) and self.tf.call_name(value) in names
        return False

    def _value_kind(self, node, scope: Scope | None = None, order: int = 0) -> str:
        """Whether the single name a TENSOR statement binds holds a tensor or a list."""
        if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1):
            return "unknown"
        small = node.body[0]
        if not isinstance(small, cst.Assign) or len(small.targets) != 1 or graph_name(small.targets[0].target) is None:
            return "unknown"
        if scope is not None and isinstance(small.value, cst.BinaryOperation) and self._joins_lists(small.value, scope, order):
            return "unknown"  # ``doubled = fetches * 2`` of a list of tensors: a list, converted by its structure
        return self.expression_kind(small.value)

    def _joins_lists(self, value: cst.BaseExpression, scope: Scope, order: int) -> bool:
        """``fetches * 2``, ``ts + [y]``: an operand (of ``+``/``*`` chains) is a list or tuple
        of tensors, bound by a graph statement or written out with graph names in it (``x *
        [1.0, 2.0]`` of numbers is a tensor), so the result is one too."""
        if isinstance(value, cst.BinaryOperation):
            return self._joins_lists(value.left, scope, order) or self._joins_lists(value.right, scope, order)
        if isinstance(value, (cst.List, cst.Tuple, cst.ListComp)):
            return any(scope.graph_statement(n, order) is not None for n in read_and_bound(value)[0])
        name = graph_name(value)
        found = scope.graph_statement(name, order) if name is not None else None
        return found is not None and found.kind is Kind.TENSOR and found.value_kind == "list"


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
    step_reads = dict.fromkeys(n for a in call.args for n in read_and_bound(a.value)[0]) if isinstance(optimizer, cst.Call) else reads
    statement.deps = frozenset(o.order for n in step_reads if (o := scope.graph_statement(n, statement.order)) is not None)
    rate = fed_rate(optimizer, scope, statement.order) if isinstance(optimizer, cst.Call) else None
    if rate is not None:
        statement.deps |= {rate.order}  # except a rate fed at each step: an input of the step
    return statement


def fed_rate(optimizer: cst.Call, scope: Scope, before: int) -> Statement | None:
    """The placeholder a TF1 optimizer's ``learning_rate`` names (``AdamOptimizer(lr)``,
    ``learning_rate=self.learning_rate``): TF1 read the value fed at each run, so every
    step of the optimizer takes it as an argument (rewrites/train_steps.py sets the Keras
    optimizer's rate from it before each update)."""
    rate = call_argument(optimizer, "learning_rate", 0)
    name = graph_name(rate) if rate is not None else None
    found = scope.graph_statement(name, before) if name is not None else None
    return found if found is not None and found.kind is Kind.PLACEHOLDER else None


def is_init_expression(tf: TfImports, expr: cst.BaseExpression, scope: Scope, before: int | None) -> bool:
    """An initializer: ``tf.global_variables_initializer()`` (and kin), ``tf.group`` of
    initializers, a name or ``self.`` attribute bound to one (``self.init`` in
    hp-VPINNs' constructors), or ``var.initializer``."""
    if isinstance(expr, cst.Call):
        name = tf.call_name(expr)
        if name in INIT_CALLS:
            return True
        if name == "group":
            args = [a.value for a in expr.args]
            return bool(args) and all(is_init_expression(tf, a, scope, before) for a in args)
    bound = graph_name(expr)
    if bound is not None and (found := lookup_graph_name(scope, bound, before)) is not None and found[1].kind is Kind.INIT:
        return True
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.attr.value == "initializer":
        found = lookup_graph_name(scope, expr.value.value, before)
        return found is not None and found[1].kind is Kind.VARIABLE
    return False


def singleton_branch(call: cst.Call, helpers: dict[str, Helper]) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(branch, returned display) of a ``tf.cond`` call whose branch returns a one-element list
    or tuple display (``lambda: [x * 2.0]``, or ``return [h]`` in a function of the file):
    TF1's ``tf.cond`` (``strict=False``) unpacked it to the tensor, TF2's returns the list, so
    ``r * 3.0`` and the fetched value change. None with ``strict=True`` (a list in both)."""
    if any(a.keyword is not None and a.keyword.value == "strict" for a in call.args):
        return None
    for keyword, position in (("true_fn", 1), ("false_fn", 2), ("fn1", 1), ("fn2", 2)):
        branch = call_argument(call, keyword, position)
        returned: list[cst.BaseExpression] = []
        if isinstance(branch, cst.Lambda):
            returned = [branch.body]
        elif isinstance(branch, cst.Name) and (helper := helpers.get(branch.value)) is not None:
            returned = [r.value for r in find_all(helper.node.body, cst.Return) if isinstance(r, cst.Return) and r.value is not None]
        for value in returned:
            if branch is not None and isinstance(value, (cst.List, cst.Tuple)) and len(value.elements) == 1:
                return branch, value
    return None


def _numpy_array_read(func: cst.BaseExpression) -> bool:
    """``np.f(...).reshape`` (also ``.astype``, ``.tolist``…, chained): a reading method of the
    array a NumPy function returned (the NumPy function itself is checked as a call of its
    own). Not ``np.random``'s: their owner is not ``np``."""
    if not (isinstance(func, cst.Attribute) and func.attr.value in NUMPY_ARRAY_READS and isinstance(func.value, cst.Call)):
        return False
    inner = func.value.func
    if isinstance(inner, cst.Attribute) and isinstance(inner.value, cst.Name) and inner.value.value in ("np", "numpy"):
        return True
    return _numpy_array_read(inner)


# The compound statements a train op may be built in, as a refusal names them.
_BLOCK_KINDS: dict[type[cst.CSTNode], str] = {
    cst.If: "an `if` block",
    cst.For: "a `for` loop",
    cst.While: "a `while` loop",
    cst.Try: "a `try` block",
}


def _under_control_dependencies(node: cst.CSTNode) -> bool:
    """A ``with tf.control_dependencies(...):`` block (the train op made in it waits for those ops)."""
    return isinstance(node, cst.With) and any(
        isinstance(item.item, cst.Call)
        and isinstance(item.item.func, cst.Attribute)
        and item.item.func.attr.value == "control_dependencies"
        for item in node.items
    )


def _maybe_rebound(reads: Sequence[str], scope: Scope, order: int, facts: GraphFacts) -> str | None:
    """Why a read of a graph name may see a Python value instead: a Python block between the
    graph's binding and the read assigns the name (``for step in range(n_steps): y = ...``,
    ``if verbose: y = sess.run(z)``) but may not run that assignment (an empty loop, a branch
    not taken), so which of the two values TF1 read is not known here.  (A block that surely
    runs it, ``with`` or ``for k in range(4)``, is the name's binding: analysis/graph.py.)  A
    block holding refused graph code binds no Python value: it is not one."""
    for name in reads:
        graph = scope.graph_statement(name, order)
        if graph is None or graph.kind is Kind.VARIABLE:
            continue  # (a variable stays where it is, read as the name holds it when the read runs)
        for other in scope.nested_bindings.get(name, ()):
            block = scope.statements[other]
            if not (graph.order < other < order and block.kind is Kind.PYTHON and name in read_and_bound(block.node)[1]):
                continue
            inside = {id(n) for n in preorder(block.node)}
            if not any(id(b.node) in inside for b in facts.blockers):  # (graph code refused is no Python value)
                header = bindings.block_header(block.node)
                return (
                    f"`{name}` is read after `{header[:60]}:`, which binds it to a Python value but may not run that "
                    f"assignment: the read sees either that value or the graph's `{name}` bound before it, not known "
                    "before the program runs (bind the Python value to a name of its own)"
                )
    return None


def _control_flow_refused(call: cst.Call, name: str) -> str | None:
    """Control flow forms whose TF2 counterpart behaves otherwise inside a tf.function."""
    if name == "case" and call.args and isinstance(call.args[0].value, cst.Dict):
        return "`tf.case` with a dict of predicates (tensors are not hashable in TF2); write a list of (predicate, function) pairs"
    if name == "while_loop" and any(a.keyword is not None and a.keyword.value == "maximum_iterations" for a in call.args):
        return "`tf.while_loop` with `maximum_iterations=` is not converted (TF2 checks the loop variables' structure otherwise)"
    if name in ("assign", "compat.v1.assign") and any(
        a.keyword is not None and a.keyword.value == "validate_shape" and not m.matches(a.value, m.Name("True")) for a in call.args
    ):
        # TF1's reference variable took the assigned value's shape; a TF2 variable keeps the
        # shape it was made with (ValueError "Shape mismatch" in the generated function)
        return "`tf.assign(..., validate_shape=False)` (a variable given another shape) is not converted"
    return None


def _shape_attributes(expression: cst.BaseExpression) -> list[cst.Attribute]:
    """The ``x.shape`` / ``x.get_shape`` attribute inside a static-dimension expression."""
    return [a for a in find_all(expression, m.Attribute(attr=m.Name("shape") | m.Name("get_shape"))) if isinstance(a, cst.Attribute)]


def _fill_call(node: cst.BaseStatement) -> cst.BaseExpression:
    """The ``L.append(...)`` call of a fill line (analysis/list_fills.py)."""
    return cst.ensure_type(cst.ensure_type(node, cst.SimpleStatementLine).body[0], cst.Expr).value


def _empty_list_target(node: cst.BaseStatement) -> str | None:
    """``L`` of a statement ``L = []`` (a name or an attribute of self)."""
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)):
        return None
    assign = node.body[0]
    if len(assign.targets) != 1 or not (isinstance(assign.value, cst.List) and not assign.value.elements):
        return None
    return graph_name(assign.targets[0].target)


def _comprehension_reads_no_target(comprehension: cst.ListComp) -> bool:
    """``[cell for _ in range(n)]``: an element that is a name (or ``self`` attribute) the
    comprehension does not bind, so every element is the same object."""
    if graph_name(comprehension.elt) is None:
        return False
    bound: set[str] = set()
    clause: cst.CompFor | None = comprehension.for_in
    while clause is not None:
        bound.update(n.value for n in find_all(clause.target, (cst.Name,)) if isinstance(n, cst.Name))
        clause = clause.inner_for_in
    return root_name(comprehension.elt) not in bound


def _single_name(node: cst.BaseStatement) -> str | None:
    """The graph name ``name = value`` binds, if the statement is that."""
    if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1:
        small = node.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            return graph_name(small.targets[0].target)
    return None


def _passed_cell(helper: cst.FunctionDef, cell: str, call: cst.Call) -> str | None:
    """The module name the helper's ``cell`` is at ``call``: itself when the helper does not
    bind it (a module name), the argument of the parameter it is, or of the parameter it is
    bound from once at the top of the body (``cell = variables``, ``fw, bw = variables``
    with ``variables=(A, B)`` passed); None otherwise (a ``self`` attribute too)."""
    if "." in cell:
        return None
    params = [*helper.params.params, *helper.params.kwonly_params]
    parameters = tuple(p.name.value for p in params)
    body = helper.body.body if isinstance(helper.body, cst.IndentedBlock) else ()
    bound_here = [n for b in find_all(helper.body, _BINDINGS) for n in _target_names(b)]
    position = None
    source = cell
    if cell in parameters:
        if cell in bound_here:
            return None
    elif cell in bound_here:
        if bound_here.count(cell) != 1:
            return None
        line = next(
            (
                s.body[0]
                for s in body
                if isinstance(s, cst.SimpleStatementLine)
                and len(s.body) == 1
                and isinstance(s.body[0], cst.Assign)
                and len(s.body[0].targets) == 1
                and cell in _target_names(s.body[0].targets[0])
            ),
            None,
        )
        if (
            not isinstance(line, cst.Assign)
            or not isinstance(line.value, cst.Name)
            or line.value.value not in parameters
            or line.value.value in bound_here
        ):
            return None
        source = line.value.value
        target = line.targets[0].target
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
            position = names.index(cell)
        elif not isinstance(target, cst.Name):
            return None
    else:
        return cell  # a name of the module
    bound = bind_arguments(call, parameters)
    argument = bound.get(source) if bound is not None else None
    if argument is None:
        return None
    value = argument.value
    if position is not None:
        if not isinstance(value, (cst.Tuple, cst.List)) or position >= len(value.elements):
            return None
        value = value.elements[position].value
    return value.value if isinstance(value, cst.Name) else None


_BINDINGS = (
    cst.AssignTarget,
    cst.AugAssign,
    cst.AnnAssign,
    cst.For,
    cst.CompFor,
    cst.WithItem,
    cst.NamedExpr,
    cst.ImportAlias,
    cst.ExceptHandler,
)


def _target_names(node: cst.CSTNode) -> list[str]:
    """The plain names a binding node binds (each time it appears)."""
    if isinstance(node, cst.WithItem):
        target: cst.CSTNode | None = node.asname.name if node.asname is not None else None
    elif isinstance(node, cst.ExceptHandler):
        target = node.name.name if node.name is not None else None
    elif isinstance(node, cst.ImportAlias):
        bound = node.asname.name if node.asname is not None else node.name
        target = bound if isinstance(bound, cst.Name) else None  # ``import a.b`` binds ``a``: no cell
    else:
        target = getattr(node, "target", None)
    return target_names(target)


def _identity_test(node: cst.BaseStatement) -> cst.Comparison | None:
    """The value of ``name = x is None`` (``is``/``is not`` only): a Python bool, whatever
    ``x`` is.  Not ``g = tf.zeros_like(v) if g is None else g``, a tensor either way."""
    if not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1 or not isinstance(node.body[0], cst.Assign):
        return None
    value = node.body[0].value
    if isinstance(value, cst.Comparison) and all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in value.comparisons):
        return value
    return None


def _graph_element_method(node: cst.CSTNode, call: cst.Call, owner: str, is_graph: Callable[[str], bool]) -> bool:
    """Is ``call`` (``p.assign(...)``) a method of ``owner``, the target of a comprehension
    of ``node`` enclosing the call whose items are graph values: a graph name (``for p in
    theta_D``, a list of variables) or a list or tuple display of graph names (``for p in [W,
    b]``)?  Each item's method then builds ops as the graph's own methods do (WGAN's weight
    clipping, ``clip_D = [p.assign(tf.clip_by_value(p, -0.01, 0.01)) for p in theta_D]``)."""
    for comprehension in find_all(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        if not isinstance(comprehension, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            continue  # (find_all gives nodes of those types only: for the type checker)
        clause: cst.CompFor | None = comprehension.for_in
        if not any(inner is call for inner in preorder(comprehension.elt)):
            continue
        while clause is not None:
            if isinstance(clause.target, cst.Name) and clause.target.value == owner and _graph_items(clause.iter, is_graph):
                return True
            clause = clause.inner_for_in
    return False


def _graph_items(items: cst.BaseExpression, is_graph: Callable[[str], bool]) -> bool:
    if isinstance(items, cst.BinaryOperation) and isinstance(items.operator, cst.Add):
        return _graph_items(items.left, is_graph) and _graph_items(items.right, is_graph)  # ``theta_D1 + theta_D2``
    if isinstance(items, cst.Name):
        return is_graph(items.value)
    if isinstance(items, (cst.List, cst.Tuple)):
        return bool(items.elements) and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) and is_graph(e.value.value) for e in items.elements
        )
    return False
