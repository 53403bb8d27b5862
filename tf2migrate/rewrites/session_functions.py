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

import itertools

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers
from tf2migrate.analysis.dropped_calls import dropped_call, dropped_call_message
from tf2migrate.analysis.imported_calls import module_state_changed
from tf2migrate.analysis.bindings import changed_by_caller, module_values_changed
from tf2migrate.analysis.calls import call_argument, closure
from tf2migrate.analysis.initializer_runs import reinitializes
from tf2migrate.analysis.model import GraphFacts, Kind, lookup_graph_name, rebound_around_calls, RunForm, RunSite, Scope, Statement
from tf2migrate.analysis.names import fresh_name, graph_name, local_name, names_bound_around, read_and_bound, root_name
from tf2migrate.analysis.run_ordering import RunOrdering, scheduled_rate_reads
from tf2migrate.analysis.sparse_gradients import sparse_gradient_source
from tf2migrate.analysis.statements import is_init_expression
from tf2migrate.analysis.train_variables import joint_refusal
from tf2migrate.analysis.unrun_ops import partly_fetched_updates, pruned_state_changes, StatefulCalls
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan
from tf2migrate.rewrites import (
    descriptions,
    function_emission,
    inline_fetches,
    invariant_feeds,
    scipy_optimizer,
    session_cleanup,
    tf1_iterators,
    train_steps,
)
from tf2migrate.rewrites.feeds import call_arguments, pass_unconverted_values, rewrite_unused_feed_dicts
from tf2migrate.analysis.catalogue import STRUCTURE_CALLS
from tf2migrate.rewrites.fetches import (
    fetch_leaves,
    item_of_python_call,
    item_of_python_result,
    Leaf,
    leaf_kind,
    LeafKind,
    sparse_fetch_call,
    to_numpy,
)
from tf2migrate.rewrites.function_emission import PLACEHOLDER_TO_ARGUMENT
from tf2migrate.rewrites.function_names import fetch_hint
from tf2migrate.rewrites.generated import Generated, SessionRewrite
from tf2migrate.rewrites.half_precision_values import plan_half_precision_values
from tf2migrate.rewrites.random_streams import refuse_shared_random_streams
from tf2migrate.traversal import find_all, preorder, walk

# the first change of a value a graph statement read: (order, name, the graph statement,
# the reason when it is not "rebound after the graph is built")
Rebinding = tuple[int, str, Statement, str | None]


def _assigned_name(node: cst.CSTNode) -> str | None:
    """``grid`` of ``self.grid = grid``."""
    if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign):
        value = node.body[0].value
        return value.value if isinstance(value, cst.Name) else None
    return None


def _maker_name(node: cst.CSTNode) -> str | None:
    """``nets`` of ``self.net = nets.Net()``, ``Net`` of ``self.net = Net()``: the root name of the
    call an attribute is bound to, alone."""
    if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign):
        value = node.body[0].value
        return root_name(value.func) if isinstance(value, cst.Call) else None
    return None


RUN_TO_CALL = Rule(
    "TFM102",
    "session-run-to-call",
    "sess.run / .eval() / op.run() → a call of a generated function, NumPy results kept.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces each run site with a call of the function that computes its fetches, "
    "passing the fed values as arguments and converting the results to NumPy in the same "
    "structure (`.numpy()`; lists, tuples and dicts kept).\n\n"
    "A fetch whose ops are built in the run itself from Python values (`sess.run(tf.argmax(a, 1))`, "
    "`global_step.assign(i).eval()`): TF1 read those values when the run was called. Reading only "
    "variables, Python values and constants, it is evaluated eagerly where the run stood; reading "
    "placeholders or tensors too, its generated function takes each Python value as an argument "
    "and runs without `tf.function` (a trace would fix the values it first saw). Refused (TFM302, "
    "TFM306): such a fetch in a run feeding placeholders it does not read, a Python value named like "
    "a tensor the function computes.",
    why="Code after `sess.run` indexes, prints and compares NumPy values; it keeps working.",
    invalid=("import tensorflow as tf\ny = tf.constant([1.0]) * 2.0\nwith tf.Session() as sess:\n    print(sess.run(y))\n",),
    valid=("import tensorflow as tf\ny = tf.constant([1.0]) * 2.0\nprint(y.numpy())\n",),
)
LOOP_VARIABLE_MOVED = Rule(
    "TFM109",
    "loop-variable-moved",
    "A graph-building loop moved into a function; its loop variable is no longer a module-level name.",
    Severity.WARNING,
    FixSafety.SAFE,
    what="Reports the loop variables of a graph-building `for` loop (`for i in range(n): h = ...`) that moved into a generated function.",
    why="Nothing in the file reads them afterwards (that would have been refused, TFM301), but "
    "code importing this module would no longer find them.",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "h = x\n"
        "for i in range(3):\n"
        "    h = h * 2.0\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(h, {x: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "h = x * 8.0\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(h, {x: [1.0]}))\n",
    ),
)
UNUSED_GRAPH_CODE = Rule(
    "TFM110",
    "unused-graph-code-removed",
    "Graph-building code that no session run fetches was removed.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Removes graph-building statements whose tensors no run site needs.",
    why="In TF1 they built graph nodes that never ran; there is nothing to compute eagerly.",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "unused = tf.constant(2.0)\n"
        "y = 2.0 * x\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = 2.0 * x\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [1.0]}))\n",
    ),
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
    invalid=(
        "import tensorflow as tf\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None])\n"
        "        self.y = 2.0 * self.x\n"
        "        self.sess = tf.Session()\n"
        "\n"
        "    def predict(self, x):\n"
        "        return self.sess.run(self.y, {self.x: x})\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = 2.0 * x\n"
        "sess = tf.Session()\n"
        "print(sess.run(y, {x: [1.0]}))\n",
    ),
)
LOCAL_STORED = Rule(
    "TFM115",
    "constructor-local-stored",
    "A variable or plain value local to a graph-building constructor (or method) is stored on self.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Adds `self.W1 = W1` after `W1 = tf.Variable(...)` in a constructor (or a method it calls to "
    "build the graph) whose graph code reads `W1`; the generated methods read it back (`W1 = self.W1`). "
    "The same for a local bound once to a plain value that nothing changes in place (`D1 = self.kernel_size`), "
    "and for a parameter of the constructor that it never binds again nor changes in place (`self.grid = grid` "
    "opens the constructor).",
    why="The generated methods run later, when the constructor's locals are gone; the variable, "
    "created once where TF1 created it, or the value TF1 built the graph with, must outlive the constructor.",
    invalid=(
        "import tensorflow as tf\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None])\n"
        "        W = tf.Variable(2.0)\n"
        "        self.y = W * self.x\n"
        "        self.sess = tf.Session()\n"
        "        self.sess.run(tf.global_variables_initializer())\n"
        "\n"
        "    def predict(self, x):\n"
        "        return self.sess.run(self.y, {self.x: x})\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None])\n"
        "        self.W = tf.Variable(2.0)\n"
        "        self.y = self.W * self.x\n"
        "        self.sess = tf.Session()\n"
        "        self.sess.run(tf.global_variables_initializer())\n"
        "\n"
        "    def predict(self, x):\n"
        "        return self.sess.run(self.y, {self.x: x})\n",
    ),
)
RULES = [RUN_TO_CALL, LOOP_VARIABLE_MOVED, UNUSED_GRAPH_CODE, GRAPH_ATTRIBUTE_REMOVED, LOCAL_STORED]


class SessionFunctions:
    """Plans generated functions and run-site calls for one module."""

    def __init__(self, module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str], tf_function: bool = True) -> None:
        self.rewrite = SessionRewrite(module, facts, plan, names_in_use, tf_function)
        self._following: dict[int, cst.BaseStatement | None] | None = None  # see _following_statements
        self._stateful = StatefulCalls(facts)  # which calls change state (analysis/unrun_ops.py)
        self._ordering = RunOrdering(facts.imports, module)  # updates TF1 ran in no fixed order (analysis/run_ordering.py)
        # per generated function's key: the first rebinding of a Python value its graph reads
        self._rebound: dict[tuple[int, str, tuple[int, ...]], Rebinding | None] = {}
        self._module_changed: frozenset[str] | None = None  # (analysis/bindings.module_values_changed, asked once)
        self._caller_changes: dict[tuple[int, str], str | None] = {}  # per constructor and parameter (bindings.changed_by_caller)
        # scopes outside classes with a run converted where it stood (``sess.run(v.assign(v + 1.0))``,
        # ``sess.run(W)``): their graph is run in this file though no function is generated for it
        self._run_in_place: set[int] = set()

    # ----------------------------------------------------------------- entry
    def run(self) -> None:
        rewrite = self.rewrite
        rewrite.optimizer_of = train_steps.plan_optimizers(rewrite.module, rewrite.facts, rewrite.plan, rewrite.names_in_use)
        iterator_runs = []
        for scope in rewrite.facts.scopes:
            init_sites = []
            for site in scope.run_sites:
                iterator = tf1_iterators.initialized(rewrite.facts, site)
                if iterator is not None:
                    iterator_runs.append((site, iterator))
                    continue
                if site.form is RunForm.SCIPY:
                    scipy_run = scipy_optimizer.scipy_run(self.rewrite, site, scope)
                    if scipy_run is not None:
                        self._plan_scipy(site, *scipy_run)
                    continue
                if site.form is RunForm.INSTANCE:
                    self._plan_instance_run(site)
                    continue
                if self._is_init_fetch(site, scope):
                    init_sites.append(site)
                    continue
                self._plan_run_site(site, scope)
            self._plan_init_runs(init_sites, scope)
        self._refuse_factory_reinitializations()
        tf1_iterators.plan(rewrite, iterator_runs)
        rewrite_unused_feed_dicts(self.rewrite)
        pass_unconverted_values(self.rewrite, invariant_feeds.convert(self.rewrite))
        self._refuse_graphs_run_elsewhere()
        refuse_shared_random_streams(self.rewrite)
        plan_half_precision_values(self.rewrite)
        descriptions.plan_descriptions(self.rewrite, self._graph_inputs_stable)
        # a traced description keeps its static shapes as written: the trace gives TF1's numbers
        described = {
            id(n)
            for key, generated in self.rewrite.functions.items()
            if key[0] == "describe" and generated.anchor is not None
            for n in preorder(generated.anchor.node)
        }
        for expression, number in self.rewrite.facts.static_dimensions.values():
            # code kept outside the functions reads the declared size (moved code keeps the
            # expression, which gives the same number there)
            if id(expression) in described:
                continue
            self.rewrite.plan.replace[id(expression)] = cst.Integer(number)
            self.rewrite.plan.note(expression, PLACEHOLDER_TO_ARGUMENT.code, f"a declared dimension of a placeholder → {number}")
        for expression, value in self.rewrite.facts.static_values.values():
            # code kept outside the functions reads the number TF1 fixed (analysis/static_python.py)
            if id(expression) in described:
                continue
            self.rewrite.plan.replace[id(expression)] = cst.parse_expression(value)
            self.rewrite.plan.note(expression, PLACEHOLDER_TO_ARGUMENT.code, f"a Python value of static shapes → {value}")
        for element, method in self.rewrite.facts.discarded_returns:
            self.rewrite.plan.replace[id(element)] = cst.Name("None")
            self.rewrite.plan.note(
                element,
                GRAPH_ATTRIBUTE_REMOVED.code,
                f"the graph tensor `{self.rewrite.module.code_for_node(element)}` that `{method}` returns → None: "
                f"every call of `{method}` in this file unpacks it into a name it never reads",
            )
        # In file order, so a moved statement's comments land in the first function.
        for generated in sorted(self.rewrite.functions.values(), key=lambda g: g.anchor.order if g.anchor else -1):
            function_emission.emit(self.rewrite, generated)
        self._remove_graph_statements()

    def _refuse_graphs_run_elsewhere(self) -> None:
        """A graph no run site of this file fetches from is run by other code (``model.py``
        built it, ``train.py`` runs it): removing its placeholders would break that code."""
        if self.rewrite.facts.blockers:
            return  # a run site that could not be converted runs it: its blocker says why
        run_here = {id(g.scope) for g in self.rewrite.functions.values()} | self._run_in_place
        for scope in self.rewrite.facts.scopes:
            built = [s for s in scope.statements if s.kind in (Kind.PLACEHOLDER, Kind.TENSOR)]
            if built and id(scope) not in run_here and not self._script_runs_only_initializers(scope):
                where = f"class `{scope.cls.name.value}`" if scope.cls is not None else "this file"
                self.rewrite.block(
                    built[0].node,
                    blockers.CLASS_BASED_GRAPH if scope.cls is not None else blockers.UNSUPPORTED_GRAPH_CODE,
                    f"the graph built here is never run in {where}: the code that runs it is elsewhere",
                )

    def _script_runs_only_initializers(self, scope: Scope) -> bool:
        """Does this file run the graph of ``scope`` (not a class's) itself, though only its
        initializers (the cookbook's ``02_tensors.py``: a session, tensors and variables
        made, ``sess.run(initialize_op)``), with no file of the run importing names from it?
        Then no code elsewhere runs it: what no run fetches is removed (TFM110), as in any
        script."""
        return scope.cls is None and bool(scope.run_sites) and not self.rewrite.facts.importer_names

    def _ran_in_place(self, owner: Scope | None) -> None:
        """A class's graph whose only runs here read its variables may be run by other code
        (``model.sess.run(model.loss)`` in a training script): it stays refused."""
        if owner is not None and owner.cls is None:
            self._run_in_place.add(id(owner))

    def _is_init_fetch(self, site: RunSite, scope: Scope) -> bool:
        leaves = list(fetch_leaves(site.fetch))
        return bool(leaves) and all(self._is_init(leaf, scope, site.order) for leaf in leaves)

    def _is_init(self, expr: cst.BaseExpression, scope: Scope, order: int | None) -> bool:
        return is_init_expression(self.rewrite.facts.imports, expr, scope, order)

    def _refuse_factory_reinitializations(self) -> None:
        """Another module's session factory runs the initializer when called (README
        "Projects"), out of this file's sight: called twice, or besides an initializer run
        of this file, it initialized the variables again, undoing what runs between had
        assigned or trained; an eager variable is initialized once."""
        facts = self.rewrite.facts
        inits = [site for scope in facts.scopes for site in scope.run_sites if self._is_init_fetch(site, scope)]
        if len(facts.factory_calls) + len(inits) < 2 or not facts.factory_calls:
            return
        factory = self.rewrite.module.code_for_node(facts.factory_calls[0].func)
        again = "is called again" if len(facts.factory_calls) > 1 else "the file runs the initializer too"
        for call in facts.factory_calls:
            self.rewrite.block(
                call,
                blockers.REINITIALIZATION,
                f"`{factory}()`, a session factory of another module, runs the variables' initializer, and {again}: "
                "TF1 initialized them again there; an eager variable is initialized once, when created",
            )

    def _plan_init_runs(self, sites: list[RunSite], scope: Scope) -> None:
        if len(sites) > 1:
            restored = [s for s in sites[1:] if self._restores_everything_next(s)]
            for site in restored:
                # TF1 re-initialized, then overwrote every variable from the checkpoint
                self.rewrite.plan.remove.add(id(site.statement))
                self.rewrite.plan.note(
                    site.call,
                    session_cleanup.INITIALIZER_REMOVED.code,
                    "initializer run before a restore of every variable removed: the restore sets them all",
                )
            sites = [s for s in sites if s not in restored]
        # the file's other runs: this scope's in place, any other's anywhere
        other_runs = [
            site.order if other is scope else None for other in self.rewrite.facts.scopes for site in other.run_sites if site not in sites
        ]
        found = reinitializes(self.rewrite.facts.imports, self.rewrite.module, scope, sites, fetch_leaves, other_runs)
        if found is not None:
            reason, concerned = found
            for site in concerned:
                self.rewrite.block(site.call, blockers.REINITIALIZATION, reason)
            return
        for site in sites:
            if site.statement is None:
                self.rewrite.block(site.call, blockers.UNSUPPORTED_SESSION, "the value of an initializer run is used")
                continue
            dropped = next(filter(None, (dropped_call(self.rewrite.facts.imports, a) for a in site.call.args)), None)
            if dropped is not None:  # ``sess.run(tf.variables_initializer(pick(ws)), feed_dict={x: load()})``
                self.rewrite.block(dropped, blockers.UNSUPPORTED_GRAPH_CODE, dropped_call_message(dropped, "an initializer run"))
                continue
            self.rewrite.plan.remove.add(id(site.statement))
            self.rewrite.plan.note(
                site.call, session_cleanup.INITIALIZER_REMOVED.code, "initializer run removed: TF2 variables are initialized when created"
            )

    def _restores_everything_next(self, site: RunSite) -> bool:
        """Is this initializer run followed at once by ``saver.restore(sess, path)`` of a
        Saver that saves every variable of its graph (made after all of them, no
        ``var_list``)?  Then the re-initialization changed nothing that lasts."""
        if site.statement is None or site.in_loop or not self.rewrite.facts.saver_calls:
            return False
        if self._following is None:
            self._following = _following_statements(self.rewrite.module)
        following = self._following.get(id(site.statement))
        for call, saver in self.rewrite.facts.saver_calls:
            whole = isinstance(following, cst.SimpleStatementLine) and getattr(following.body[0], "value", None) is call
            if (
                not whole
                or cst.ensure_type(call.func, cst.Attribute).attr.value != "restore"
                or call_argument(saver.minimize_call(), "var_list", 0) is not None
            ):
                continue
            scope = next(s for s in self.rewrite.facts.scopes if saver in s.statements)
            stateful = [
                s
                for s in scope.statements
                if s.kind in (Kind.VARIABLE, Kind.OPTIMIZER, Kind.TRAIN) or s.layer_calls or s.layer_helper_calls
            ]
            return all(s.order < saver.order for s in stateful)
        return False

    # -------------------------------------------------------------- run sites
    def _plan_run_site(self, site: RunSite, scope: Scope) -> None:
        leaves: list[Leaf] = []
        owner: Scope | None = None
        python_names: dict[str, None] = {}  # read by the fetch, not graph values
        # names the loops and blocks around the run bound first (``for s in [0.5, 1.5]: scale = s * 2.0;
        # sess.run(W * scale)``): Python values there, whatever the graph binds by that name
        around = names_bound_around(scope.statements[site.order].node, site.call) if site.order is not None else set()
        for expr in fetch_leaves(site.fetch):
            leaf = Leaf(expr, LeafKind.UNKNOWN)
            if isinstance(expr, cst.BaseString) or _names_graph_element(expr, scope, site.order):
                # ``sess.run("y:0")``, ``sess.run(v.name)``: TF1 looked the tensor (or op) up by name
                # in the graph (a generated function would return the string itself)
                message = f"a fetch by a tensor's name (`{self.rewrite.code(expr)}`) is not converted: fetch the tensor's Python name"
                self.rewrite.block(expr, blockers.UNSUPPORTED_GRAPH_CODE, message)
                return
            if self._is_init(expr, scope, site.order):
                self.rewrite.block(expr, blockers.UNSUPPORTED_SESSION, "an initializer fetched together with values")
                return
            reads, bound = read_and_bound(expr)
            for name in dict.fromkeys(reads):
                if name in bound:
                    continue  # ``[t * 2.0 for t in ts]``: the comprehension's own variable
                found = lookup_graph_name(scope, name, site.order) if name not in around else None
                if found is None:
                    if "." in name or self.rewrite.facts.imports.canonical(cst.Name(name)) is None:
                        python_names[name] = None  # built into the fetch's ops when the run was called
                    continue
                found_scope, statement = found
                if owner is not None and found_scope is not owner:
                    self.rewrite.block(expr, blockers.UNSUPPORTED_GRAPH_CODE, "the fetches mix tensors of different graphs")
                    return
                rebound = rebound_around_calls(found_scope, found_scope is not scope or site.order is None, name)
                if rebound is not None:
                    self.rewrite.block(expr, blockers.UNSUPPORTED_GRAPH_CODE, rebound)
                    return
                owner = found_scope
                leaf.statements.append(statement)
            leaf.kind = leaf_kind(expr, leaf.statements)
            if isinstance(expr, cst.Call) and self.rewrite.facts.imports.call_name(expr) in STRUCTURE_CALLS:
                leaf.kind = LeafKind.UNKNOWN  # ``sess.run(tf.nn.moments(x, [0]))``: a tuple, by its structure
            if site.form is not RunForm.EVAL and (
                item_of_python_call(expr, self.rewrite.facts.imports, self.rewrite.facts.helpers)
                or item_of_python_result(expr, leaf.statements, self.rewrite.facts.imports, self.rewrite.facts.helpers)
            ):
                # ``sess.run(net(x)["layers"])``: maybe a tuple, by its structure (what ``.eval()``
                # is called on is a tensor)
                leaf.kind = LeafKind.UNKNOWN
            if (
                isinstance(expr, cst.Call)
                and isinstance(expr.func, (cst.Name, cst.Attribute))
                and self.rewrite.facts.imports.call_name(expr) is None
                and not (isinstance(expr.func, cst.Name) and expr.func.value in self.rewrite.facts.helpers)
                # (``W.assign(W * 2.0)``: a method of a graph value is an op)
                and lookup_graph_name(scope, root_name(expr.func) or "", site.order) is None
            ):
                # ``sess.run(Pair(lo, hi))``, ``sess.run(collections.OrderedDict(...))``: a call of
                # Python code may build a structure (a namedtuple or a dict TF1 returned as one,
                # of arrays): walked as a structure
                leaf.kind = LeafKind.UNKNOWN
            held = _train_op_held(scope, leaf)
            if held is not None:
                # ``fetches = [loss, train]; sess.run(fetches)``: the structure would be
                # returned with the train op in it, and the update would never run
                self.rewrite.block(
                    expr,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"the fetched `{self.rewrite.module.code_for_node(expr)}` holds the train op `{held}`; "
                    "not converted (write the fetches in the run: `sess.run([loss, train], ...)`)",
                )
                return
            sparse_call = sparse_fetch_call(expr, leaf.statements, self.rewrite.facts.imports, self.rewrite.facts.helpers)
            if sparse_call is not None:
                # TF1's run gave a SparseTensorValue of arrays: a converted fetch would call
                # ``.numpy()`` of an eager SparseTensor, which has none
                self.rewrite.block(
                    expr,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"the fetch `{self.rewrite.code(expr)}` may be a SparseTensor (`{self.rewrite.code(sparse_call.func)}(...)`): "
                    "TF1's run returned a SparseTensorValue of arrays, which a converted fetch does not give; not converted",
                )
                return
            leaves.append(leaf)
        if inline_fetches.refuse_seeded_random_ops(self.rewrite, leaves):
            return
        if site.form is RunForm.OP_RUN and site.statement is None:
            self.rewrite.block(site.call, blockers.UNSUPPORTED_SESSION, "the value of op.run() is used")
            return
        if owner is None or (python_names and not inline_fetches.reads_graph_tensors(leaves)):
            # ops built in the run from variables, Python values and constants only
            replacement = inline_fetches.evaluated_in_place(self.rewrite, site, leaves)
            if replacement is not None:
                self._ran_in_place(owner)
                self.rewrite.plan.replace[id(site.call)] = cst.parse_expression(replacement)
                self.rewrite.plan.note(site.call, RUN_TO_CALL.code, f"{site.form.label} of ops built in the run → evaluated where it stood")
            return
        if site.feed is None and all(leaf.kind is LeafKind.VARIABLE for leaf in leaves):
            self._ran_in_place(owner)
            self._inline_variable_fetch(site, leaves)
            return
        gradients = [s for leaf in leaves for s in leaf.statements if s.gradient_calls]
        sparse = sparse_gradient_source(self.rewrite.module, self.rewrite.facts, owner, gradients) if gradients else None
        if sparse is not None:
            # TF1 gave an IndexedSlicesValue for such a gradient; TF2 an IndexedSlices tensor
            self.rewrite.block(
                site.call,
                blockers.UNSUPPORTED_GRAPH_CODE,
                f"a fetched gradient may be sparse (`{self.rewrite.module.code_for_node(sparse.func)}` reads rows): TF1 "
                "returned an IndexedSlicesValue, which a converted fetch does not reproduce",
            )
            return
        generated = self._function_for(site, owner, leaves, list(python_names))
        if generated is None:
            return
        call_args = call_arguments(self.rewrite, site, generated, owner)
        if call_args is None:
            return
        call_args = ", ".join(
            a for a in [call_args, *(f"{n}={generated.python_sources.get(n, n)}" for n in generated.python_arguments)] if a
        )
        call = f"{'self.' if generated.scope.cls is not None else ''}{generated.name}({call_args})"
        if site.form is RunForm.OP_RUN or site.statement is not None:
            replacement = call  # run for its effect: no value to convert
        else:
            replacement = to_numpy(call, site.fetch, leaves)
        self.rewrite.plan.replace[id(site.call)] = cst.parse_expression(replacement)
        self.rewrite.plan.note(site.call, RUN_TO_CALL.code, f"{site.form.label} → {generated.name}(...)")
        if (
            site.order is not None
            and owner is scope
            and owner.cls is None
            and generated.anchor is not None
            and site.order <= generated.anchor.order
        ):
            self.rewrite.block(
                site.call,
                blockers.UNSUPPORTED_GRAPH_CODE,
                "the graph this runs is extended after the run; the function would be defined too late",
            )

    def _plan_scipy(self, site: RunSite, owner: Scope, interface: Statement, roots, loss, fetches) -> None:
        body, placeholders = closure(owner, roots)
        for statement in body:
            if not self._graph_inputs_stable(owner, statement):
                return
        base = f"minimize_{local_name(interface.defines[0])}"
        key = (id(owner), "scipy", id(interface.node), self.rewrite.module.code_for_node(site.call))
        generated = self.rewrite.functions.get(key)
        if generated is None:
            generated = Generated(
                owner,
                fresh_name(base, self.rewrite.names_in_use),
                loss,
                body,
                placeholders,
                needs_tf_function=any(s.calls_gradient_helper for s in body),
                anchor=max([*body, *placeholders, interface], key=lambda s: s.order),
                scipy=(interface, loss, fetches),
            )
            self.rewrite.functions[key] = generated
        arguments = call_arguments(self.rewrite, site, generated, owner)
        if arguments is None:
            return
        callbacks = scipy_optimizer.callback_arguments(self.rewrite, site.call)
        prefix = "self." if owner.cls is not None else ""
        call = f"{prefix}{generated.name}({', '.join(a for a in [arguments, *callbacks] if a)})"
        self.rewrite.plan.replace[id(site.call)] = cst.parse_expression(call)
        self.rewrite.plan.note(site.call, scipy_optimizer.SCIPY_MINIMIZE.code, f"ScipyOptimizerInterface.minimize → {generated.name}(...)")

    def _plan_instance_run(self, site: RunSite) -> None:
        """``model.sess.run(model.lambda_1)`` outside the class: variables of a converted
        class are still attributes, so their values are ``model.lambda_1.numpy()``."""
        class_variables = {
            name[len("self.") :]
            for scope in self.rewrite.facts.scopes
            if scope.cls is not None
            for statement in scope.statements
            if statement.kind is Kind.VARIABLE
            for name in statement.defines
            if name.startswith("self.")
        }
        leaves = list(fetch_leaves(site.fetch))
        session = cst.ensure_type(cst.ensure_type(site.call.func, cst.Attribute).value, cst.Attribute)  # ``model.sess``
        instance = cst.ensure_type(session.value, cst.Name).value  # ``model``
        plain = all(
            isinstance(leaf, cst.Attribute) and m.matches(leaf.value, m.Name(instance)) and leaf.attr.value in class_variables
            for leaf in leaves
        )
        if site.feed is not None or not plain or isinstance(site.fetch, cst.Dict):
            self.rewrite.block(
                site.call, blockers.CLASS_BASED_GRAPH, "code outside the class runs its graph; only its variables can be read this way"
            )
            return
        self._inline_variable_fetch(site, [Leaf(leaf, LeafKind.VARIABLE) for leaf in leaves])

    def _inline_variable_fetch(self, site: RunSite, leaves: list[Leaf]) -> None:
        code = self.rewrite.module.code_for_node
        if isinstance(site.fetch, (cst.List, cst.Tuple)) and all(
            isinstance(e.value, (cst.Name, cst.Attribute)) for e in site.fetch.elements
        ):
            parts = [f"{code(e.value)}.numpy()" for e in site.fetch.elements]
            open_, close = ("[", "]") if isinstance(site.fetch, cst.List) else ("(", ",)" if len(parts) == 1 else ")")
            replacement = open_ + ", ".join(parts) + close
        elif isinstance(site.fetch, (cst.Name, cst.Attribute)):
            replacement = f"{code(site.fetch)}.numpy()"
        else:
            replacement = f"tf.nest.map_structure(lambda v: v.numpy(), {code(site.fetch)})"
        self.rewrite.plan.replace[id(site.call)] = cst.parse_expression(replacement)
        self.rewrite.plan.note(site.call, RUN_TO_CALL.code, f"{site.form.label} of variables → .numpy()")

    def _function_for(self, site: RunSite, owner: Scope, leaves: list[Leaf], python_names: list[str]) -> Generated | None:
        roots = [s for leaf in leaves for s in leaf.statements]
        trains = list({s.order: s for s in roots if s.kind is Kind.TRAIN}.values())
        if len(trains) > 1:
            refusal = joint_refusal(self.rewrite.module, self.rewrite.facts, owner, trains)
            if refusal is not None:
                self.rewrite.block(site.call, blockers.UNSUPPORTED_GRAPH_CODE, refusal)
                return None
        body, placeholders = closure(owner, roots)
        key = (id(owner), self.rewrite.module.code_for_node(site.fetch), tuple(s.order for s in roots))
        if key not in self._rebound:
            self._rebound[key] = min((r for s in body if (r := self._rebinding(owner, s)) is not None), key=lambda r: r[0], default=None)
        if not self._runs_before_rebinding(site, owner, self._rebound[key]):
            return None
        if key in self.rewrite.functions:
            return self.rewrite.functions[key]
        pruned = pruned_state_changes(self.rewrite.facts, self._stateful, owner, roots, body)
        for call, message in pruned:
            self.rewrite.block(call, blockers.UNRUN_STATE_CHANGE, message)
        if pruned:
            return None
        names = [graph_name(leaf.expr) for leaf in leaves]
        inline = [leaf.expr for leaf, name in zip(leaves, names) if name is None]
        whole = {n for n in names if n is not None}
        partly = partly_fetched_updates(self._stateful, body, whole)
        for call, message in partly:
            self.rewrite.block(call, blockers.UNRUN_STATE_CHANGE, message)
        # updates and reads TF1 ran in no fixed order (analysis/run_ordering.py)
        unordered = self._ordering.refusals(body, inline, whole)
        # a read beside a train op: TF1's reference variables fixed when it saw the update, and
        # the kept graph reads as TF1 did with reference variables only
        beside_train = self._ordering.rate_refusals(body, scheduled_rate_reads(owner, trains))
        beside_train += self._ordering.train_refusals(owner, body, trains)
        if beside_train:
            self.rewrite.facts.unordered_ref_reads = True
        unordered += beside_train
        for node, message in unordered:
            self.rewrite.block(node, blockers.UNSUPPORTED_GRAPH_CODE, message)
        if partly or unordered:
            return None
        python = inline_fetches.python_reads(self.rewrite, site, owner, python_names, body, placeholders)
        if python is None:
            return None
        grads = [st for st in body if st.kind is Kind.GRADS]
        if grads and (
            len(grads) > 1 or not trains or cst.ensure_type(trains[0].minimize_call().func, cst.Attribute).attr.value != "apply_gradients"
        ):
            self.rewrite.block(
                site.call, blockers.UNSUPPORTED_GRAPH_CODE, "compute_gradients results are fetched other than through one apply_gradients"
            )
            return None
        pairs = [leaf for leaf in leaves if any(s.kind is Kind.GRADS for s in leaf.statements)]
        if pairs and trains:
            # ``sess.run([gvs, apply_gradients])``: each pair holds the variable, read in the
            # run that updates it, with no order between the two
            code = self.rewrite.module.code_for_node(pairs[0].expr)
            self.rewrite.block(
                pairs[0].expr,
                blockers.UNSUPPORTED_GRAPH_CODE,
                # ``grads[0][0]``: a gradient alone, which the update reads first; but TF1's pairs
                # follow the trainable variables' order, the tape's the order they were used in
                f"the fetched `{code}` is a gradient picked from compute_gradients' (gradient, variable) pairs by position: "
                "TF1's pairs follow the order the variables were made, a tape's the order the computation used them"
                if _gradient_only(pairs[0].expr)
                else f"the fetched `{code}` holds the (gradient, variable) pairs "
                "of compute_gradients, run with the apply_gradients that updates those variables: TF1 read each "
                "variable before or after the update, in no fixed order",
            )
            return None
        name = fresh_name("train_step" if trains else "compute_" + fetch_hint(leaves), self.rewrite.names_in_use)
        # defined after the graph code it runs; a fetch of ops written inline
        # (``sess.run(W.assign(...))``) after the variables it reads
        anchor_candidates = [*body, *placeholders] or [
            s for n in read_and_bound(site.fetch)[0] if (s := owner.graph_statement(n, None)) is not None
        ]
        # and after the helpers the fetch calls, for a reader
        anchor_candidates += [s for n in python_names if n in self.rewrite.facts.helpers and (s := owner.resolve(n, None)) is not None]
        anchor = max(anchor_candidates, key=lambda s: s.order) if anchor_candidates else None
        generated = Generated(
            owner,
            name,
            site.fetch,
            body,
            placeholders,
            needs_tf_function=python.needs_tf_function or any(s.calls_gradient_helper for s in body),
            anchor=max([anchor, *trains], key=lambda s: s.order) if anchor is not None else (trains[0] if trains else None),
            train=trains[0] if trains else None,
            joint=tuple(trains[1:]),
            python_arguments=python.arguments,
            python_sources=python.sources,
            python_ints=python.ints_only,
            eager=python.eager,
        )
        self.rewrite.functions[key] = generated
        return generated

    def _graph_inputs_stable(self, scope: Scope, statement: Statement, called_at: int | None = None) -> bool:
        """A TF1 graph captured Python values when it was built; the generated function
        reads them when called.  Refuse when such a value is rebound in between — a
        variable or a net object too (``W = tf.Variable(2.0)``, ``y = W * x``, ``W =
        tf.Variable(5.0)``): they stay outside the function, which reads the name when
        called.  ``called_at``: the one effective statement of ``scope`` that calls the
        function (a description's trace); a rebinding after it changes nothing it reads."""
        rebinding = self._rebinding(scope, statement)
        if rebinding is None or (called_at is not None and rebinding[0] > called_at):
            return True
        self._block_rebound(rebinding)
        return False

    def _runs_before_rebinding(self, site: RunSite, scope: Scope, rebinding: Rebinding | None) -> bool:
        """A function whose graph reads a name rebound later still reads the build-time
        value when every call runs before the rebinding: the run is a statement of the
        graph's own scope that comes earlier (a notebook's ``t = np.array(...)``,
        ``tf.shape(t).eval()``, ``t = np.array(...)`` again).  A run in a nested def, or
        in the same loop or block as the rebinding, may run after it: refused."""
        if rebinding is None:
            return True
        order = rebinding[0]
        if site.order is not None and site.order < order and any(s is site for s in scope.run_sites):
            return True
        self._block_rebound(rebinding)
        return False

    def _block_rebound(self, rebinding: Rebinding) -> None:
        _, name, statement, why = rebinding
        self.rewrite.block(
            statement.node,
            blockers.UNSUPPORTED_GRAPH_CODE,
            why
            or f"the graph reads `{name}`, which is rebound or changed in place after the graph is built; TF1 captured its earlier value",
        )

    def _rebinding(self, scope: Scope, statement: Statement) -> Rebinding | None:
        """The first effective statement after ``statement`` that rebinds or changes a
        Python value its graph code reads (order, name, the graph statement, and the
        reason when it is not that rebinding), or None."""
        if scope.cls is not None:
            outside = self._changed_outside(scope, statement)
            if outside is not None:
                return outside
        _, own_binds = read_and_bound(statement.node)
        helpers = self.rewrite.facts.helpers
        # and what the file's functions it calls read from the module (``SCALE`` of ``def
        # f(t): return t * SCALE``), when the graph is the module's own
        called = [n for n in statement.reads if n in helpers] if isinstance(scope.owner, cst.Module) else []
        first: Rebinding | None = None
        for name in dict.fromkeys([*statement.reads, *(n for h in called for n in sorted(helpers[h].free_reads))]):
            if name in own_binds:
                continue
            graph = scope.graph_statement(name, statement.order)
            if graph is not None and graph.kind not in (Kind.VARIABLE, Kind.OPTIMIZER):
                continue
            later = [o for o in scope.bindings.get(name, []) if o > statement.order]
            later += [o for o in scope.nested_bindings.get(name, []) if o >= statement.order]
            if "." in name and scope.cls is None:
                # ``self.factor`` read in a method that builds its own graph: ``self.bump()``
                # changes the object it is read from (a constructor's own ``self.x = …`` are
                # its graph's bindings, followed apart)
                later += [o for o in scope.nested_bindings.get(name.partition(".")[0], []) if o > statement.order]
            # ``row = data[0]``: a NumPy view (or the same object) of another name, which a later
            # ``data[0, 0] = 100.0`` changes too
            source = _viewed_name(scope.resolve(name, statement.order))
            through_view = (
                [] if source is None or source == name else [o for o in scope.changed_in_place.get(source, []) if o > statement.order]
            )
            if through_view and (first is None or min(through_view) < first[0]) and (not later or min(through_view) < min(later)):
                first = (
                    min(through_view),
                    name,
                    statement,
                    (
                        f"the graph reads `{name}`, bound to `{source}` or a slice of it (a NumPy view), and `{source}` is changed in place "
                        "after the graph is built; TF1 captured the earlier values"
                    ),
                )
            elif later and (first is None or min(later) < first[0]):
                first = min(later), name, statement, self._changed_by(scope, min(later), name)
        return first

    def _changed_by(self, scope: Scope, order: int, name: str) -> str | None:
        """The refusal of a graph reading ``name``, naming the statement of ``scope`` (at
        ``order``) that binds or changes it after the graph is built (``bump(cfg)``)."""
        changing = next((s for s in scope.statements if s.order == order), None)
        if changing is None:
            return None
        code = self.rewrite.module.code_for_node(changing.node).strip().splitlines()[0]
        code = code if len(code) <= 60 else code[:57] + "..."
        return (
            f"the graph reads `{name}`, which is rebound or changed in place after the graph is built (by `{code}`); "
            "TF1 captured its earlier value"
        )

    def _changed_outside(self, scope: Scope, statement: Statement) -> Rebinding | None:
        """A Python value from outside a class's graph code that the file may change after the
        constructor built the graph (``SCALE = 5.0`` or ``GRID[0] = 7.0`` at module level, a list
        passed to the constructor and appended to afterwards): TF1 captured it when it built the
        graph, a generated method reads it when it runs, any time later.  Read directly, through
        a module function the graph code calls, or through an attribute the constructor set to it
        (``self.grid = grid``).  Refused wherever the change stands: a method's calls are not ordered
        with the module's statements."""
        init = scope.owner
        assert isinstance(init, cst.FunctionDef)
        # the constructor's own names: bound in it (``scope.nested_bindings`` also holds the names
        # whose object it only changes, such as ``Net`` of ``Net.count += 1``: a module value)
        bound_in_init = set(read_and_bound(init)[1])
        own = set(read_and_bound(statement.node)[1]) | set(scope.bindings) | (set(scope.nested_bindings) & bound_in_init)
        # each name read, with how the graph code reads it
        reads = {name: f"`{name}`," for name in statement.reads}
        for name in statement.reads:  # ``self.grid`` set from a name (``self.grid = grid``): that name's object
            binding = scope.resolve(name, statement.order) if name.startswith("self.") else None
            if binding is not None and binding.kind is Kind.PYTHON and scope.graph_statement(name, statement.order) is None:
                value = _assigned_name(binding.node)
                if value is not None:
                    reads.setdefault(value, f"`{name}`, set to `{value}`,")
            # ``self.net = nets.Net()``: the object reads what its module holds (``nets.SCALE``)
            maker = _maker_name(binding.node) if binding is not None else None
            if maker is not None and maker in self.rewrite.facts.names_sharing_state:  # (a module of the project's)
                reads.setdefault(maker, f"`{name}`, made by `{maker}`,")
        # and the attributes the class's methods it calls read (``self.net_u(x)`` whose
        # ``neural_net`` reads ``self.lb``, set to the parameter ``lb``: a PINN's bounds)
        for attribute, method in _attributes_read_by_methods(scope.cls, statement.reads).items():
            binding = scope.resolve(attribute, statement.order)
            if binding is not None and binding.kind is Kind.PYTHON and scope.graph_statement(attribute, statement.order) is None:
                value = _assigned_name(binding.node)
                if value is not None:
                    reads.setdefault(value, f"`{attribute}` (through `self.{method}`), set to `{value}`,")
        helpers = self.rewrite.facts.helpers
        for helper in [h for h in reads if h in helpers]:
            for name in sorted(helpers[helper].free_reads):
                reads.setdefault(name, f"`{name}` (through `{helper}`),")
        if self._module_changed is None:
            # (and by a call of a project function setting another module's state: ``set_scale(4.0)``)
            changed = module_values_changed(self.rewrite.module) | module_state_changed(self.rewrite.facts, self.rewrite.module)
            # (``U.SCALE = 3.0`` changes what a method calling ``utils.scaled`` reads too)
            sharing = self.rewrite.facts.names_sharing_state
            self._module_changed = changed | {other for name in changed for other in sharing.get(name, ())}
        parameters = {p.name.value for p in [*init.params.posonly_params, *init.params.params, *init.params.kwonly_params]}
        for name, how in reads.items():
            if "." in name or (name in own and name not in parameters):
                continue
            if name in parameters:
                key = (id(scope), name)
                if key not in self._caller_changes:
                    self._caller_changes[key] = changed_by_caller(self.rewrite.module, scope, name) or self._changed_by_importer(scope)
                why = self._caller_changes[key]
                if why is not None:
                    return statement.order, name, statement, f"graph code reads {how} a parameter of the constructor: {why}"
            elif name in self._module_changed:
                return (
                    statement.order,
                    name,
                    statement,
                    f"graph code reads {how} a module value the file binds again or changes in place; TF1 built the graph "
                    "with its value when the constructor ran, a generated method would read it when it runs",
                )
            elif name in self.rewrite.facts.names_changed_elsewhere:
                return (
                    statement.order,
                    name,
                    statement,
                    f"graph code reads {how} the state of {self.rewrite.facts.names_changed_elsewhere[name]}, which another "
                    "file of the run changes; TF1 built the graph with its value when the constructor ran, a generated "
                    "method would read it when it runs",
                )
        return None

    def _changed_by_importer(self, scope: Scope) -> str | None:
        """Why a constructor parameter cannot be stored: a module importing this one calls the
        class with an object it changes in place (the importer's code is not followed further:
        any argument of such a call counts)."""
        cls = scope.cls
        if cls is None or cls.name.value not in self.rewrite.facts.importer_changed_arguments:
            return None
        return (
            f"a module importing this one calls `{cls.name.value}` with an object it changes in place (TF1 built the graph "
            "with the object as it was then)"
        )

    def _store_parameters(self, scope: Scope) -> None:
        """``self.grid = grid`` for each parameter the generated methods read, first thing in
        the constructor, or in the method it calls once that takes it (after a docstring):
        nothing binds it again."""
        functions = {id(f): f for f in scope.stored_parameters.values()}
        for function in functions.values():
            names = [name for name, owner in scope.stored_parameters.items() if owner is function]
            self._store_parameters_of(function, names)

    def _store_parameters_of(self, function: cst.FunctionDef, names: list[str]) -> None:
        assert isinstance(function.body, cst.IndentedBlock)
        # ``self.n = n`` among the function's first statements (its docstring and plain
        # stores of names) stores it already, before anything could run a generated method
        leading = itertools.takewhile(
            lambda s: (
                m.matches(s, m.SimpleStatementLine([m.Expr(m.SimpleString() | m.ConcatenatedString())]))
                or m.matches(s, m.SimpleStatementLine([m.Assign(targets=[m.AssignTarget(m.Attribute(m.Name("self")))], value=m.Name())]))
            ),
            function.body.body,
        )
        already = {self.rewrite.module.code_for_node(s).strip() for s in leading}
        stores: list[cst.BaseStatement] = [
            cst.parse_statement(f"self.{name} = {name}\n") for name in names if f"self.{name} = {name}" not in already
        ]
        first = function.body.body[0]
        if stores and m.matches(first, m.SimpleStatementLine([m.Expr(m.SimpleString() | m.ConcatenatedString())])):
            self.rewrite.plan.add_after(first, stores)
        elif stores:
            self.rewrite.plan.insert_before.setdefault(id(first), []).extend(stores)
        for name in names:
            self.rewrite.plan.note(
                function, LOCAL_STORED.code, f"parameter `{name}` stored as `self.{name}`: the generated methods read it"
            )

    def _remove_graph_statements(self) -> None:
        used = {id(s.node) for generated in self.rewrite.functions.values() for s in generated.body}
        for scope in self.rewrite.facts.scopes:
            self._store_parameters(scope)
            for name, binding in scope.stored_locals.items():
                self.rewrite.plan.add_after(binding.node, [cst.parse_statement(f"self.{name} = {name}\n")])
                self.rewrite.plan.note(binding.node, LOCAL_STORED.code, f"`{name}` stored as `self.{name}`: the generated methods read it")
            for statement in scope.statements:
                if statement.kind not in (Kind.TENSOR, Kind.PLACEHOLDER, Kind.TRAIN, Kind.SCIPY, Kind.GRADS):
                    continue
                self.rewrite.plan.remove.add(id(statement.node))
                for name in statement.defines:
                    if name.startswith("self."):
                        computing = sorted(
                            (g for g in self.rewrite.functions.values() if statement in g.body),
                            key=lambda g: self.rewrite.module.code_for_node(g.fetch) != name,  # its own function first
                        )
                        computed_by = [g.name for g in computing]
                        if computed_by and statement.kind is Kind.TENSOR:
                            how = f"computed by self.{computed_by[0]}(...)"
                        elif statement.kind is Kind.PLACEHOLDER and any(
                            statement in g.placeholders for g in self.rewrite.functions.values()
                        ):
                            how = "an argument of the generated methods"
                        else:
                            how = "read by no generated method" if statement.kind is Kind.PLACEHOLDER else "not computed"
                        self.rewrite.plan.note(statement.node, GRAPH_ATTRIBUTE_REMOVED.code, f"attribute `{name}` is no longer set; {how}")
                if statement.kind is Kind.TENSOR and id(statement.node) not in used:
                    self.rewrite.plan.note(statement.node, UNUSED_GRAPH_CODE.code, "graph code no run fetches: removed")
                elif statement.loop_targets:
                    names = ", ".join(f"`{n}`" for n in statement.loop_targets)
                    self.rewrite.plan.note(
                        statement.node, LOOP_VARIABLE_MOVED.code, f"loop variable {names} now lives inside the generated function"
                    )


def _names_graph_element(expr: cst.BaseExpression, scope: Scope, order: int | None) -> bool:
    """A fetch that is a graph element's name: ``v.name``, ``v.op.name`` of a graph name of the
    scope, or a sum with a string (``v.op.name + ":0"``)."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return any(isinstance(side, cst.BaseString) or _names_graph_element(side, scope, order) for side in (expr.left, expr.right))
    if not isinstance(expr, cst.Attribute) or expr.attr.value != "name":
        return False
    owner = expr.value
    if isinstance(owner, cst.Attribute) and owner.attr.value == "op":
        owner = owner.value
    name = graph_name(owner)
    return name is not None and lookup_graph_name(scope, name, order) is not None


def _following_statements(module: cst.Module) -> dict[int, cst.BaseStatement | None]:
    """Each statement's successor in its block (None for the last), by id: one walk of
    the module, however many statements are asked about."""
    following: dict[int, cst.BaseStatement | None] = {}

    class _Blocks(cst.CSTVisitor):
        def visit_Module(self, node: cst.Module) -> None:
            following.update(zip(map(id, node.body), [*node.body[1:], None]))

        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
            following.update(zip(map(id, node.body), [*node.body[1:], None]))

    walk(module, _Blocks())
    return following


def _gradient_only(expr: cst.BaseExpression) -> bool:
    """``grads[0][0]``: the gradient of one (gradient, variable) pair of compute_gradients,
    which the update reads first, not the variable it updates."""
    return (
        isinstance(expr, cst.Subscript)
        and isinstance(expr.value, cst.Subscript)
        and isinstance(expr.value.value, cst.Name)
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
        and isinstance(expr.slice[0].slice.value, cst.Integer)
        and expr.slice[0].slice.value.value == "0"
    )


def _train_op_held(scope: Scope, leaf: Leaf) -> str | None:
    """The train op a fetched name holds inside a list, tuple or dict it was bound to
    (``fetches = {"loss": loss, "train": train}``), directly or through another such
    structure; None when it holds none (a tensor's value reads a train op's never)."""
    pending = [s for s in leaf.statements if s.kind is not Kind.TRAIN and s.value_kind != "tensor"]
    seen: set[int] = set()
    while pending:
        statement = pending.pop()
        if id(statement) in seen:
            continue
        seen.add(id(statement))
        for name in statement.reads:
            found = lookup_graph_name(scope, name, statement.order)
            if found is None:
                continue
            if found[1].kind is Kind.TRAIN:
                return name
            if found[1].value_kind != "tensor":
                pending.append(found[1])
    return None


def _attributes_read_by_methods(cls: cst.ClassDef | None, reads) -> dict[str, str]:
    """``self.<attribute>`` read by the methods of ``cls`` that ``reads`` call as ``self.<method>``,
    and by the methods those call in turn, each with the first method found reading it."""
    if cls is None:
        return {}
    methods = {f.name.value: f for f in cls.body.body if isinstance(f, cst.FunctionDef)}
    pending = [name[len("self.") :] for name in reads if name.startswith("self.") and name[len("self.") :] in methods]
    seen: set[str] = set()
    found: dict[str, str] = {}
    while pending:
        method = pending.pop()
        if method in seen:
            continue
        seen.add(method)
        for attribute in find_all(methods[method].body, cst.Attribute):
            if isinstance(attribute, cst.Attribute) and m.matches(attribute.value, m.Name("self")):
                if attribute.attr.value in methods:
                    pending.append(attribute.attr.value)
                else:
                    found.setdefault(f"self.{attribute.attr.value}", method)
    return found


def _viewed_name(binding: Statement | None) -> str | None:
    """``M`` of a binding ``name = M`` or ``name = M[...]`` (for a NumPy array, a view of ``M``)."""
    node = binding.node if binding is not None else None
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)):
        return None
    value = node.body[0].value
    if isinstance(value, cst.Subscript):
        value = value.value
    return value.value if isinstance(value, cst.Name) else None
