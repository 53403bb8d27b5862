"""What a function, class or method of a module does, as its callers see it: the
summaries the project layer (analysis/project.py) computes once per run.

- **builder**: builds graph ops only from its arguments (and the attributes its class's
  ``__init__`` set) — no variables, sessions, placeholders, stateful ops or module state;
  under ``tf.function`` it runs at trace time, as TF1 ran it at build time;
- **variables**: creates variables (a class whose ``__init__`` does is a *net object*
  when its ``__call__`` is a builder: made once, applied by calling the instance);
- **session**: a session factory (``tf.Session(config=...)``, the initializer run,
  ``return sess``: nothing else);
- **numpy**: returns what ``sess.run`` returned;
- **unknown**: anything else (said why).

Read from CPython's ``ast``; never imports TensorFlow.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, replace

from tf2migrate.analysis.catalogue import (
    GRAPH_SEEDS,
    RANDOM_OPS,
    CONFIG_CALLS,
    CONTROL_FLOW_CALLS,
    is_unsupported_call,
    GRADIENT_CALLS,
    INIT_CALLS,
    OPTIMIZERS,
    PLACEHOLDER_CALLS,
    PURE_BUILTINS,
    SESSION_CALLS,
    SPARSE_NAME_PARTS,
    makes_variables,
    passes_seed,
)
from tf2migrate.analysis.module_facts import ast_dotted_name
from tf2migrate.analysis.tf_imports import ITERATOR_FUNCTIONS, ITERATOR_METHODS, TfImports, is_v1_path, strip_v1, tf_relative

BUILDER = "builder"
VARIABLES = "variables"
SESSION = "session"
NUMPY = "numpy"
UNKNOWN = "unknown"

# ops with effects of their own: TF1 ran them only when fetched, tf.function always runs them
_STATEFUL = ("assign", "assign_add", "assign_sub", "scatter_", "Print", "print", "py_func", "numpy_function")
# NumPy/math namespaces whose functions compute values (np.random draws: not a builder's)
_VALUE_MODULES = frozenset({"numpy", "math"})


@dataclass(frozen=True)
class Summary:
    """What one function, class or method of a module does, as its callers see it."""

    kind: str
    uses_gradients: bool = False  # takes tf.gradients (itself or through what it calls)
    reads_rows: bool = False  # gathers or looks up rows: its gradients may be sparse
    # builds graph control flow (``tf.cond``, ``tf.while_loop``…), itself or through what it
    # calls: a function differentiating its result must be traced (rewrites/function_emission.py)
    uses_control_flow: bool = False
    reason: str = ""  # for ``unknown``: the first construct that made it so
    call: Summary | None = None  # a class: its ``__call__`` (a net object's builder)
    module: str = ""  # the file that defines it, for findings
    initializes: bool = False  # a session factory that runs the variables initializer before returning
    # changes an object it is given in place (``v[0] = 0.0``, ``v.append(x)``, ``c.factor = 2.0``): a
    # caller's value a graph read may be another by the run
    changes_arguments: bool = False
    # changes its module's state (``SIZES[0] = 10.0``, ``global F``), itself or through its module's functions
    changes_module_state: bool = False
    # a method (not the constructor) that sets or changes its object's state (``self.scale = 0.5``,
    # ``self.items.append(x)``): a caller's ``net.eval_mode()`` changes what a graph built from ``net`` read
    changes_self: bool = False
    # makes TF1 random ops (itself or through what it calls): each TF1 run reading its result
    # drew a new sample, which a caller keeping the result as a Python value would draw once
    draws_random: bool = False
    # ... and may seed them: a random call given ``seed=`` or an argument at the seed's position
    # (catalogue.passes_seed), or its module sets a graph seed: numbers a program reproduces
    # (rewrites/random_streams.py refuses such a helper shared by several runs, not an unseeded one)
    draws_seeded: bool = False


def summarize_module(tree: ast.Module, imported: dict[str, Summary] | None = None) -> dict[str, Summary]:
    """Summaries of ``tree``'s top-level functions, classes and their methods
    (``Class.method``); ``imported`` gives those
    of names its ``from … import`` statements bind from other modules of the project."""
    return _ModuleSummarizer(tree, imported or {}).run()


def tf_aliases(tree: ast.Module) -> TfImports:
    """Local names bound to TensorFlow by module-level imports (what tf_imports reads
    from libcst, for ``ast``)."""
    imports = TfImports()
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                relative = tf_relative(alias.name)
                if relative is not None:
                    if alias.asname:
                        _bind(imports, alias.asname, relative)
                    else:
                        imports.aliases["tensorflow"] = ""
        elif isinstance(statement, ast.ImportFrom) and not statement.level and statement.module:
            relative = tf_relative(statement.module)
            if relative is not None:
                for alias in statement.names:
                    _bind(imports, alias.asname or alias.name, ".".join(p for p in (relative, alias.name) if p))
    return imports


def _bind(imports: TfImports, local: str, path: str) -> None:
    imports.aliases[local] = strip_v1(path)
    if is_v1_path(path):
        imports.v1_aliases.add(local)


def _module_names(tree: ast.Module) -> tuple[set[str], dict[str, str]]:
    """Module-level names that are safe for a builder to read (imported modules and
    names, functions, classes, constants bound to literals), and NumPy/math aliases with
    the module each names (``npr`` → ``numpy.random``)."""
    safe: set[str] = set()
    literals: set[str] = set()
    value_modules: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
            safe.add(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                local = alias.asname or alias.name.split(".")[0]
                safe.add(local)
                if isinstance(statement, ast.Import) and alias.name.split(".")[0] in _VALUE_MODULES:
                    value_modules[local] = alias.name if alias.asname else local
        elif isinstance(statement, ast.Assign) and _is_literal(statement.value):
            literals |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
    safe |= literals
    # a constant some function rebinds (``global SCALE``), the module binds twice, or code
    # changes in place is module state: TF1 built the graph with the value of that moment
    top = [s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    bound = [n.id for s in top for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    changed = {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}
    changed |= {name for name in bound if bound.count(name) > 1}
    changed |= {name for node in ast.walk(tree) if (name := _changed_in_place(node)) in literals}
    if any(_changes_namespace(node) for node in ast.walk(tree)):
        # ``globals().update(kw)``, ``globals()[name] = v``: any name of the module may change
        return set(), value_modules
    return safe - changed, value_modules


def _changes_namespace(node: ast.AST) -> bool:
    """Does ``node`` change the module's namespace through ``globals()``: an item set or
    deleted, a dict method changing it?"""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
        target: ast.expr = node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
        target = node.func.value
    else:
        return False
    return isinstance(target, ast.Call) and ast_dotted_name(target.func) == "globals"


# methods that change a list, dict or set in place
_MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "add", "discard", "sort", "reverse"}
)


def _changed_in_place(node: ast.AST) -> str | None:
    """The name whose value ``node`` changes in place (``CONFIG["scale"] = s``,
    ``SIZES.append(3)``, ``COUNT += 1``), if it does."""
    if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
        target: ast.expr = node
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
        target = node.func.value
    elif isinstance(node, ast.AugAssign):
        target = node.target
    else:
        return None
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _changed_by_statement(node: ast.AST) -> str | None:
    """:func:`_changed_in_place`, a method counting only when called as a statement of its own
    (``sizes.append(3)``; ``tf.add(a, b)`` is a value, no ``set.add``)."""
    if isinstance(node, ast.Call):
        return None
    if isinstance(node, ast.Expr):
        return _changed_in_place(node.value) if isinstance(node.value, ast.Call) else None
    return _changed_in_place(node)


def _changes_parameters(function: ast.FunctionDef) -> bool:
    """Does the function change an object one of its parameters holds, in place (an item or
    attribute set, a list's, dict's or array's method changing it, ``+=``, ``setattr``)?  A
    parameter bound again first may hold another object; read conservatively, any such
    change counts."""
    arguments = function.args
    parameters = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    parameters |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    parameters.discard("self")
    for node in ast.walk(function):
        if _changed_by_statement(node) in parameters:
            return True
        if _method_called_for_effect(node) in parameters:
            return True
        if isinstance(node, ast.Call) and _last(node.func) in ("setattr", "delattr") and node.args:
            root: ast.expr = node.args[0]
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            if isinstance(root, ast.Name) and root.id in parameters:
                return True
    return False


def _changes_self(method: ast.FunctionDef) -> bool:
    """Does the method set or change its object's state in place (``self.scale = 0.5``,
    ``self.n += 1``, ``self.items.append(x)``, ``self.cfg["k"] = v``)?"""
    return any(_changed_by_statement(node) == "self" for node in ast.walk(method))


def _method_called_for_effect(node: ast.AST) -> str | None:
    """The name whose object a statement calls a method of, its value unused (``net.set_gain(3.0)``
    in ``def detune(net)``): called for an effect, which may be a change of that object (its class
    may be another module's, unknown here)."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)):
        return None
    root: ast.expr = node.value.func.value
    while isinstance(root, (ast.Subscript, ast.Attribute)):
        root = root.value
    return root.id if isinstance(root, ast.Name) else None


def _is_literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


class _ModuleSummarizer:
    def __init__(self, tree: ast.Module, imported: dict[str, Summary]) -> None:
        self.tree = tree
        self.tf = tf_aliases(tree)
        self.imported = imported
        self.safe, self.value_modules = _module_names(tree)
        self.functions = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
        self.classes = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
        self.done: dict[str, Summary] = {}
        self.pending: set[str] = set()  # bodies being summarized (recursion)

    def run(self) -> dict[str, Summary]:
        for name in self.functions:
            self.function(name)
        out = {name: self.done[name] for name in self.functions}
        for name, node in self.classes.items():
            out[name] = self._class(node)
            for method in node.body:
                if isinstance(method, ast.FunctionDef):
                    constructor = method.name == "__init__"
                    made = self._body(method, node, constructor=constructor)
                    out[f"{name}.{method.name}"] = replace(made, changes_self=not constructor and _changes_self(method))
        if self._sets_graph_seed():
            # (the graph seed seeds every op the program makes: its numbers are reproduced)
            out = {name: replace(found, draws_seeded=found.draws_random) for name, found in out.items()}
        return out

    def _passes_seed(self, call: ast.Call) -> bool:
        """Does a call drawing random numbers give a seed, or may it (catalogue.passes_seed; a call
        of a function, not an op, only by ``seed=`` or ``**``: its own body's calls say the rest)?"""
        name = self.tf.canonical_dotted(ast_dotted_name(call.func))
        keywords = [k.arg for k in call.keywords]
        starred = any(isinstance(a, ast.Starred) for a in call.args)
        if name is None or name not in RANDOM_OPS and name not in ("nn.dropout", "layers.dropout"):
            return starred or None in keywords or "seed" in keywords
        return passes_seed(name, len([a for a in call.args if not isinstance(a, ast.Starred)]), keywords, starred)

    def _sets_graph_seed(self) -> bool:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                name = ast_dotted_name(node.func)
                if name is not None and self.tf.canonical_dotted(name) in GRAPH_SEEDS:
                    return True
        return False

    def function(self, name: str) -> Summary:
        if name not in self.done:
            node = self.functions[name]
            made = _session_factory(node, self.tf) or self._body(node, method_of=None)
            self.done[name] = replace(
                made, changes_arguments=_changes_parameters(node), changes_module_state=self._changes_module_state(name, set())
            )
        return self.done[name]

    def _changes_module_state(self, name: str, seen: set[str]) -> bool:
        """Does the module function ``name`` change a value of its module (a name it does not
        bind changed in place, one declared ``global``), or call a function of the module that does?"""
        seen.add(name)
        node = self.functions[name]
        own = {sub.arg for sub in ast.walk(node.args) if isinstance(sub, ast.arg)}
        own |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Global):
                return True
            changed = _changed_by_statement(sub)
            if changed is not None and changed not in own:
                return True
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in self.functions:
                if sub.func.id not in seen and self._changes_module_state(sub.func.id, seen):
                    return True
        return False

    def _class(self, node: ast.ClassDef) -> Summary:
        methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
        init, call = methods.get("__init__"), methods.get("__call__")
        if node.bases and not all(ast_dotted_name(b) == "object" for b in node.bases):
            return Summary(UNKNOWN, reason=f"class `{node.name}` has a base class")
        made = self._body(init, method_of=node, constructor=True) if init is not None else Summary(BUILDER)
        if made.kind == UNKNOWN:
            return made
        applied = self._body(call, method_of=node) if call is not None else None
        if made.kind == VARIABLES and init is not None:
            derived = self._computed_from_variables(init, node)
            if derived is not None:
                return Summary(
                    UNKNOWN,
                    reason=f"`{node.name}.__init__` computes `{derived}` from its variables: TF1 computed it again at every run, "
                    "an object made once would keep the value of the initial variables",
                )
            return Summary(VARIABLES, call=applied)
        return Summary(made.kind, call=applied)

    def _computed_from_variables(self, init: ast.FunctionDef, cls: ast.ClassDef) -> str | None:
        """The first expression of a constructor that computes a tensor from the variables it
        made (``self.w / tf.norm(self.w)``, ``tf.transpose(self.weights[0])``), if any.  TF1
        evaluated such a tensor at every ``sess.run``; made once in eager TF2 (a net object is
        made where TF1 made it, outside the generated functions), it holds the initial value
        and no gradient reaches the variables through it.  Initial values of other variables
        (``tf.Variable(tf.zeros_like(w))``) are evaluated once in both."""
        local = {a.arg for a in ast.walk(init.args) if isinstance(a, ast.arg)}
        local |= {n.id for n in ast.walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}

        def makes_variables(expr: ast.AST) -> bool:
            return any(isinstance(c, ast.Call) and self._call(c, local, cls, True).kind == VARIABLES for c in ast.walk(expr))

        holders: set[str] = set()  # ``w``, ``self.w``, ``self.weights`` (appended to)
        for sub in ast.walk(init):
            if isinstance(sub, ast.Assign) and makes_variables(sub.value):
                holders |= {name for t in sub.targets if (name := ast_dotted_name(t)) is not None}
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in ("append", "extend", "insert"):
                if any(makes_variables(a) for a in sub.args) and (name := ast_dotted_name(sub.func.value)) is not None:
                    holders.add(name)
        if not holders:
            return None

        def reads_variable(expr: ast.AST) -> bool:
            while isinstance(expr, (ast.Subscript, ast.Starred)):
                expr = expr.value
            return ast_dotted_name(expr) in holders if isinstance(expr, (ast.Name, ast.Attribute)) else False

        pending: list[ast.AST] = list(init.body)
        while pending:
            sub = pending.pop(0)
            if isinstance(sub, ast.Call) and self._call(sub, local, cls, True).kind == VARIABLES:
                continue  # (an initial value: evaluated once)
            operands: list[ast.AST] = []
            if isinstance(sub, ast.BinOp):
                operands = [sub.left, sub.right]
            elif isinstance(sub, ast.UnaryOp):
                operands = [sub.operand]
            elif isinstance(sub, ast.Call) and self.tf.canonical_dotted(ast_dotted_name(sub.func)) is not None:
                operands = [*sub.args, *(k.value for k in sub.keywords)]
            if any(reads_variable(o) for o in operands):
                return ast.unparse(sub)
            pending.extend(ast.iter_child_nodes(sub))
        return None

    def _body(self, node: ast.FunctionDef, method_of: ast.ClassDef | None, constructor: bool = False) -> Summary:
        """Builder, variables, numpy or unknown, from every call and name the body reads.

        A constructor may set attributes and draw random numbers: it runs once, where
        the TF1 program made the object."""
        key = f"{method_of.name if method_of else ''}.{node.name}"
        if key in self.pending:
            return Summary(UNKNOWN, reason=f"`{node.name}` is recursive")
        self.pending.add(key)
        try:
            return self._walk_body(node, method_of, constructor)
        finally:
            self.pending.discard(key)

    def _walk_body(self, node: ast.FunctionDef, method_of: ast.ClassDef | None, constructor: bool) -> Summary:
        kind = BUILDER
        gradients = rows = control_flow = random = seeded = False
        local = {a.arg for sub in ast.walk(node) if isinstance(sub, (ast.arguments)) for a in ast.walk(sub) if isinstance(a, ast.arg)}
        local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        local |= {n.name for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n is not node}
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)):
                return Summary(UNKNOWN, reason=f"`{node.name}` uses `{type(sub).__name__.lower()}`")
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                if sub.id not in local and sub.id not in self.safe and sub.id not in _BUILTIN_NAMES:
                    return Summary(UNKNOWN, reason=f"`{node.name}` reads module state `{sub.id}`")
            if isinstance(sub, (ast.Attribute, ast.Subscript)) and isinstance(sub.ctx, ast.Store) and not constructor:
                root: ast.expr = sub
                while isinstance(root, (ast.Attribute, ast.Subscript)):
                    root = root.value
                if not (isinstance(root, ast.Name) and root.id in local and root.id != "self"):
                    return Summary(UNKNOWN, reason=f"`{node.name}` changes a value it does not own")
            if isinstance(sub, ast.Call):
                verdict = self._call(sub, local, method_of, constructor)
                if verdict.kind == UNKNOWN:
                    return Summary(UNKNOWN, reason=verdict.reason)
                if verdict.kind == NUMPY and _returns_run(node):
                    return Summary(NUMPY)
                if verdict.kind in (SESSION, NUMPY):
                    return Summary(UNKNOWN, reason=f"`{node.name}` makes or runs a session")
                if verdict.kind == VARIABLES:
                    kind = VARIABLES
                gradients |= verdict.uses_gradients
                control_flow |= verdict.uses_control_flow
                random |= verdict.draws_random
                seeded |= verdict.draws_seeded or verdict.draws_random and self._passes_seed(sub)
                rows |= verdict.reads_rows or any(part in _last(sub.func).lower() for part in SPARSE_NAME_PARTS)
        return Summary(
            kind, uses_gradients=gradients, reads_rows=rows, uses_control_flow=control_flow, draws_random=random, draws_seeded=seeded
        )

    def _call(self, call: ast.Call, local: set[str], method_of: ast.ClassDef | None, constructor: bool) -> Summary:
        """What one call in a body does (a summary of the callee, as far as it is known)."""
        dotted = ast_dotted_name(call.func)
        name = self.tf.canonical_dotted(dotted)
        if name is not None:
            return _tf_call(name)
        if dotted is None:
            if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call):
                # a method of the value a call made (``np.linspace(...).reshape(2, 3)``,
                # ``H.get_shape().as_list()``): the inner call is judged on its own
                return _method_verdict(f"(...).{call.func.attr}") or Summary(BUILDER)
            return Summary(UNKNOWN, reason="a call of a computed function")
        if dotted in self.imported:
            found = self.imported[dotted]
            return _construction(found) if found.call is not None else found
        head, _, attr = dotted.partition(".")
        if not attr:
            if head in self.functions:
                return self.function(head)
            if head in self.classes:
                return _construction(self._class(self.classes[head]))
            if head in PURE_BUILTINS or head in ("type", "print", "hasattr", "getattr", "iter", "next"):
                return Summary(BUILDER)
            return Summary(UNKNOWN, reason=f"a call of `{head}`")
        if head in self.value_modules:
            if f"{self.value_modules[head]}.{attr}".split(".")[1:2] == ["random"] and not constructor:
                return Summary(UNKNOWN, reason=f"`{dotted}` draws random numbers")
            return Summary(BUILDER)
        by_name = _method_verdict(dotted)
        if by_name is not None:
            return by_name
        if attr.rsplit(".", 1)[-1] in ITERATOR_METHODS:
            return Summary(UNKNOWN, reason=MAKES_ITERATOR)
        if head == "self" and method_of is not None and dotted.count(".") == 1:
            method = next((m for m in method_of.body if isinstance(m, ast.FunctionDef) and m.name == attr), None)
            if method is None or method.name.startswith("__"):
                return Summary(UNKNOWN, reason=f"a call of `{dotted}`")
            return self._body(method, method_of, constructor)
        if head in local and head != "self":
            return Summary(BUILDER)  # a method of a value the body made or was given
        if head == "self" and constructor:
            return Summary(BUILDER)  # ``self.weights.append(W)`` while the object is made
        return Summary(UNKNOWN, reason=f"a call of `{dotted}`")


def _last(func: ast.AST) -> str:
    """The last part of a called name (``gather`` of ``tf.gather``, ``K.gather``)."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _method_verdict(dotted: str) -> Summary | None:
    """What a method call does by its name alone: a run hands back NumPy, a state change
    (``.assign``, ``minimize``) is not a builder's; None for any other method."""
    last = dotted.rsplit(".", 1)[1]
    if last in ("run", "eval"):
        return Summary(NUMPY)
    if last.startswith(_STATEFUL) or last in ("minimize", "apply_gradients", "compute_gradients"):
        return Summary(UNKNOWN, reason=f"`{dotted}` changes state")
    return None


def _construction(made: Summary) -> Summary:
    """Calling a class makes an object: its ``__init__``'s variables are made there."""
    return Summary(VARIABLES) if made.kind == VARIABLES else Summary(made.kind, reason=made.reason)


def _returns_run(node: ast.FunctionDef) -> bool:
    """Does some ``return`` of ``node`` hand back what ``X.run(...)`` / ``X.eval()`` gave?"""
    return any(
        isinstance(r, ast.Return)
        and isinstance(r.value, ast.Call)
        and isinstance(r.value.func, ast.Attribute)
        and r.value.func.attr in ("run", "eval")
        for r in ast.walk(node)
    )


_BUILTIN_NAMES = frozenset(dir(builtins))
# Its element is one op that each run reading it advances: a caller moving the call into
# a function would make a new iterator at each call (or read one element for good)
MAKES_ITERATOR = "it makes a TF1 tf.data iterator, whose element each run advances"


def _tf_call(name: str) -> Summary:
    if makes_variables(name):
        return Summary(VARIABLES)
    if name in GRADIENT_CALLS:
        return Summary(BUILDER, uses_gradients=True)
    if name in CONTROL_FLOW_CALLS:
        return Summary(BUILDER, uses_control_flow=True)
    if name in SESSION_CALLS or name in INIT_CALLS or name in CONFIG_CALLS:
        return Summary(SESSION)
    if name in PLACEHOLDER_CALLS:
        return Summary(UNKNOWN, reason=f"`tf.{name}` makes its own graph input")
    if name in ITERATOR_FUNCTIONS:
        return Summary(UNKNOWN, reason=MAKES_ITERATOR)
    if name in OPTIMIZERS or is_unsupported_call(name):
        return Summary(UNKNOWN, reason=f"`tf.{name}` is not a pure graph op")
    if name.rsplit(".", 1)[-1].startswith(_STATEFUL):
        return Summary(UNKNOWN, reason=f"`tf.{name}` changes state")
    return Summary(BUILDER, draws_random=name in RANDOM_OPS or name in ("nn.dropout", "layers.dropout"))


def _session_factory(node: ast.FunctionDef, tf: TfImports) -> Summary | None:
    """``config = tf.ConfigProto(...)``, ``config.x.y = value``, ``sess = tf.Session(...)``,
    ``sess.run(init)`` of the variables initializer, ``return sess`` — and nothing else; or
    the configuration, then ``return tf.Session(...)`` (the session made where it is returned)."""
    configs: set[str] = set()
    inits: set[str] = set()
    session = None
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not body or not isinstance(body[-1], ast.Return):
        return None
    returned = body[-1].value
    if isinstance(returned, ast.Call) and tf.canonical_dotted(ast_dotted_name(returned.func)) in SESSION_CALLS:
        # as ``sess = tf.Session(...)`` then ``return sess`` (a name no source binds)
        made = returned
        returned = ast.Name(" returned")
        body = [*body[:-1], ast.Assign([returned], made)]
    elif isinstance(returned, ast.Name):
        body = body[:-1]
    else:
        return None
    for statement in body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
            if isinstance(target, ast.Name) and isinstance(value, ast.Call):
                called = tf.canonical_dotted(ast_dotted_name(value.func))
                if called in CONFIG_CALLS:
                    configs.add(target.id)
                    continue
                if called in SESSION_CALLS and session is None:
                    session = target.id
                    continue
                if called in INIT_CALLS:
                    inits.add(target.id)
                    continue
            root = target
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in configs and (_is_literal(value) or _parameter(value, node)):
                continue
            return None
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and session is not None:
            call = statement.value
            if ast_dotted_name(call.func) == f"{session}.run" and len(call.args) == 1 and not call.keywords:
                argument = call.args[0]
                if (isinstance(argument, ast.Name) and argument.id in inits) or (
                    isinstance(argument, ast.Call) and tf.canonical_dotted(ast_dotted_name(argument.func)) in INIT_CALLS
                ):
                    continue
        return None
    if session is None or returned.id != session:
        return None
    # (the only expression statements the loop lets through are ``sess.run(init)``)
    return Summary(SESSION, initializes=any(isinstance(s, ast.Expr) for s in body))


def _parameter(value: ast.expr, node: ast.FunctionDef) -> bool:
    """``value`` is a parameter of ``node`` (``config.gpu_options.per_process_gpu_memory_fraction
    = frac`` of ``def tf_session(frac=0.5)``): a setting the caller chose, as a literal would be."""
    arguments = node.args
    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    return isinstance(value, ast.Name) and value.id in names


def numpy_imports(imported: dict[str, Summary]) -> dict[str, str]:
    """The imported functions that return NumPy (``sess.run``): local name → their module."""
    return {name: summary.module for name, summary in imported.items() if summary.kind == NUMPY}
