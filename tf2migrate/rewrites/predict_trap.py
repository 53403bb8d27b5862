"""Gradients taken through NumPy: ``y = model.predict_u(x); tf.gradients(y, x)`` is None.

A call that returns NumPy — Keras ``model.predict`` / ``predict_on_batch``, ``.numpy()``,
``.eval()``, ``np.asarray``, or a function of the file that returns ``sess.run(...)`` —
cuts the path from ``x`` to ``y``: nothing differentiable connects them, and
``tf.gradients`` / ``tape.gradient`` / ``tape.jacobian`` silently give ``None``.  This
rule finds such a gradient target (following it through the assignments of its scope)
and reports it at the gradient and at the NumPy-returning call.  Inside a tape, a Keras
model's ``model.predict(x)`` is rewritten to ``model(x, training=False)``, the
differentiable call.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.calls import call_argument, calls_in
from tf2migrate.analysis.names import read_and_bound, target_names
from tf2migrate.analysis.tf_imports import TfImports, dotted_name
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.traversal import walk

GRADIENT_THROUGH_NUMPY = Rule(
    "TFM501",
    "gradient-through-numpy",
    "A gradient target comes from a call that returns NumPy: the gradient is None.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports `tf.gradients(y, x)`, `tape.gradient(y, x)` or `tape.jacobian(y, x)` where "
    "`y` flows from `model.predict(...)`, `predict_on_batch`, `.numpy()`, `.eval()`, "
    "`np.asarray(...)` or a function that returns `sess.run(...)`.",
    why="NumPy arrays carry no graph and no tape record: nothing connects `y` to `x`, so the "
    "gradient is silently `None` (TF2) or an error (TF1). This is the bug tf2migrate was "
    "born from.",
    example="y = model.predict_u(x)        # returns sess.run(...)\ndydx = tf.gradients(y, x)",
    instead="with tf.GradientTape() as tape:\n    tape.watch(x)\n    y = model(x)   # the "
    "model's differentiable call, not predict\ndydx = tape.gradient(y, x)",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.constant([1.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = (x * x).numpy()\n"
        "dydx = tape.gradient(y, x)\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.constant([1.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = x * x\n"
        "dydx = tape.gradient(y, x)\n",
    ),
)
NUMPY_SOURCE = Rule(
    "TFM502",
    "numpy-returning-call",
    "This call returns NumPy, and a gradient is taken of its result.",
    Severity.WARNING,
    FixSafety.SAFE,
    what="Marks the call whose NumPy result a gradient is taken through (see TFM501). Inside "
    "a GradientTape, `model.predict(x)` on a Keras model of this file is rewritten to "
    "`model(x, training=False)`.",
    why="`predict` converts the model's output to NumPy; calling the model keeps it a tensor the tape records.",
    invalid=(
        "import tensorflow as tf\n"
        "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        "x = tf.ones([2, 1])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = model.predict(x, verbose=0)\n"
        "dydx = tape.gradient(y, x)\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        "x = tf.ones([2, 1])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = model(x)\n"
        "dydx = tape.gradient(y, x)\n",
    ),
)
RULES = [GRADIENT_THROUGH_NUMPY, NUMPY_SOURCE]

_KERAS_PREDICT = ("predict", "predict_on_batch")
_NUMPY_METHODS = ("numpy", "eval")
_NUMPY_FUNCTIONS = ("np.asarray", "np.array", "numpy.asarray", "numpy.array")
_KERAS_CONSTRUCTORS = ("keras.Sequential", "keras.Model", "keras.models.Sequential", "keras.models.Model", "keras.models.load_model")


@dataclass
class Trap:
    gradient: cst.Call
    source: cst.Call
    description: str
    fix: cst.BaseExpression | None = None


@dataclass(frozen=True)
class _Taint:
    call: cst.Call  # the NumPy-returning call a value flows from
    why: str
    upstream: frozenset[str]  # the names that call computes from (and what those came from)


@dataclass
class _Scope:
    # name -> the NumPy-returning calls its value flows from
    tainted: dict[str, tuple[_Taint, ...]] = field(default_factory=dict)
    # name -> the names its value was computed from, transitively (data flow of the scope)
    ancestors: dict[str, frozenset[str]] = field(default_factory=dict)
    # the same, but only through tensors: not through what a NumPy-returning call returned
    tensor_ancestors: dict[str, frozenset[str]] = field(default_factory=dict)
    tapes: set[str] = field(default_factory=set)
    in_tape: int = 0


class _TrapFinder(cst.CSTVisitor):
    def __init__(
        self, imports: TfImports, numpy_functions: dict[str, str], keras_models: set[str], defined: set[str], imported: set[str]
    ) -> None:
        self.tf = imports
        self.defined = defined  # functions and methods of this file (a user ``predict`` is not Keras')
        self.not_data = defined | imported  # names of functions and modules: code, not values
        self.numpy_functions = numpy_functions  # function/method name -> why it returns NumPy
        self.keras_models = keras_models
        self.numpy_imports: dict[str, str] = {}  # imported functions returning a run's NumPy -> their module
        self.scopes = [_Scope()]
        self.traps: list[Trap] = []
        self.calls_in_tapes: set[int] = set()  # calls made while a GradientTape records

    @property
    def scope(self) -> _Scope:
        return self.scopes[-1]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append(_Scope())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            if isinstance(item.item, cst.Call) and self.tf.call_name(item.item) == "GradientTape":
                if item.asname is not None and isinstance(item.asname.name, cst.Name):
                    self.scope.tapes.add(item.asname.name.value)
                self.scope.in_tape += 1

    def leave_With(self, original_node: cst.With) -> None:
        for item in original_node.items:
            if isinstance(item.item, cst.Call) and self.tf.call_name(item.item) == "GradientTape":
                self.scope.in_tape -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        reads = read_and_bound(node.value)[0]  # one walk of the value for both questions
        sources = self._numpy_sources(node.value, reads)
        ancestors = self._ancestors_of(reads)
        tensor_ancestors = self._tensor_ancestors(node.value, reads)
        for target in node.targets:
            for name in target_names(target.target):
                self.scope.ancestors[name] = ancestors
                self.scope.tensor_ancestors[name] = tensor_ancestors
                if sources:
                    self.scope.tainted[name] = sources
                else:
                    self.scope.tainted.pop(name, None)

    def _ancestors(self, expr: cst.CSTNode) -> frozenset[str]:
        """The names an expression's value is computed from, and theirs, transitively."""
        return self._ancestors_of(read_and_bound(expr)[0])

    def _ancestors_of(self, reads: list[str]) -> frozenset[str]:
        out: set[str] = set()
        for name in reads:
            if name not in self.not_data:
                out.add(name)
                out |= self.scope.ancestors.get(name, frozenset())
        return frozenset(out)

    def _tensor_ancestors(self, expr: cst.BaseExpression, reads: list[str] | None = None) -> frozenset[str]:
        """The names an expression's value is computed from through tensors, transitively:
        what it reads outside its NumPy-returning calls (``reads``: all it reads, when the
        caller has them)."""
        numpy_calls = {id(call) for call in calls_in(expr, enter_defs=True) if self._numpy_call(call) is not None}
        if numpy_calls:
            stripped = expr.visit(_WithoutCalls(numpy_calls))
            assert isinstance(stripped, cst.CSTNode)  # (calls become names: nothing is removed)
            reads = read_and_bound(stripped)[0]
        elif reads is None:
            reads = read_and_bound(expr)[0]
        out: set[str] = set()
        for name in reads:
            if name not in self.not_data:
                out.add(name)
                out |= self.scope.tensor_ancestors.get(name, frozenset())
        return frozenset(out)

    def _numpy_sources(self, expr: cst.BaseExpression, reads: list[str] | None = None) -> tuple[_Taint, ...]:
        """The NumPy-returning calls an expression's value flows from, in order: its own,
        then those of the names it reads (``reads``: the names it reads, when the caller
        has them)."""
        found = {}
        for call in calls_in(expr, enter_defs=True):
            why = self._numpy_call(call)
            if why is not None:
                found[id(call)] = _Taint(call, why, self._ancestors(call))
        for name in reads if reads is not None else read_and_bound(expr)[0]:
            for taint in self.scope.tainted.get(name, ()):
                found.setdefault(id(taint.call), taint)
        return tuple(found.values())

    def _numpy_call(self, call: cst.Call) -> str | None:
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in _KERAS_PREDICT and (method not in self.defined or _code(func.value) in self.keras_models):
                return f"`{_code(func)}` returns NumPy"
            if method in _NUMPY_METHODS and not call.args:
                return f"`.{method}()` returns NumPy"
            if method in self.numpy_functions:
                return f"`{method}` {self.numpy_functions[method]}"
        name = dotted_name(func)
        if name in _NUMPY_FUNCTIONS:
            return f"`{name}` returns NumPy"
        if name in self.numpy_imports:
            return f"`{name}` (from {self.numpy_imports[name]}) returns the NumPy result of a Session run"
        if isinstance(func, cst.Name) and func.value in self.numpy_functions:
            return f"`{func.value}` {self.numpy_functions[func.value]}"
        return None

    def visit_Call(self, node: cst.Call) -> None:
        if self.scope.in_tape:
            self.calls_in_tapes.add(id(node))
        target, sources = self._gradient_target(node)
        if target is None:
            return
        # The path is cut only for a source that reaches the target through a NumPy call
        # (or was made from what that call read: ``x = tf.constant(X)``, ``predict(X)``)
        # and through no tensor: ``tf.Variable(np.array(...))`` is a fine source, and so is
        # one a NumPy-made mask is applied to (``tf.where(mask, x, 0)``).
        taints = self._numpy_sources(target)
        if not taints:
            return
        if sources is not None:
            connected = self._tensor_ancestors(target)  # (what reaches the target through tensors)
            named = _names(sources)
            taints = tuple(t for t in taints if self._cut_sources(named, connected, t))
            if not taints:
                return
        call, why = taints[0].call, taints[0].why
        fix = None
        if id(call) in self.calls_in_tapes and isinstance(call.func, cst.Attribute) and call.func.attr.value == "predict":
            owner = call.func.value
            # calling the model connects the target only to what it is called on
            differentiable = sources is None or bool(_names(call.args[0].value) & _names(sources)) if call.args else False
            if isinstance(owner, cst.Name) and owner.value in self.keras_models and differentiable:
                fix = cst.parse_expression(f"{owner.value}({_code(call.args[0].value)}, training=False)")
        self.traps.append(Trap(node, call, why, fix))

    def _cut_sources(self, sources: frozenset[str], connected: frozenset[str], source: _Taint) -> bool:
        """Does one of the ``sources`` (names) reach the target only through the NumPy call
        ``source``, not through the tensors ``connected`` to it?"""
        for name in sources:
            reaches = ({name} | self.scope.ancestors.get(name, frozenset())) & source.upstream
            if reaches and name not in connected:
                return True
        return False

    def _gradient_target(self, call: cst.Call) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None]:
        """The target of a gradient call and what it is taken with respect to."""
        name = self.tf.call_name(call)
        if name is not None and name.split(".")[-1] == "gradients":
            return call_argument(call, "ys", 0), call_argument(call, "xs", 1)
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in ("gradient", "jacobian", "batch_jacobian")
            and isinstance(func.value, cst.Name)
            and func.value.value in self.scope.tapes
        ):
            return call_argument(call, "target", 0), call_argument(call, "sources", 1)
        if isinstance(func, cst.Attribute) and func.attr.value == "gradients" and _code(func.value) in ("K", "keras.backend", "backend"):
            return call_argument(call, "loss", 0), call_argument(call, "variables", 1)
        return None, None


class _WithoutCalls(cst.CSTTransformer):
    """The expression with the given calls replaced by ``None`` (what they read left out)."""

    def __init__(self, calls: set[int]) -> None:
        super().__init__()
        self.calls = calls

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        return cst.Name("None") if id(original_node) in self.calls else updated_node


def _names(expr: cst.CSTNode) -> frozenset[str]:
    return frozenset(read_and_bound(expr)[0])


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


class TrapFacts(cst.CSTVisitor):
    """What the trap search needs to know first, in one walk (it can share the walk of
    other visitors): for each function, its assignments and returns (not those of nested
    defs); every assignment of a call; every function name."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[cst.FunctionDef, list[cst.Assign], list[cst.Return]]] = []
        self.done: list[tuple[cst.FunctionDef, list[cst.Assign], list[cst.Return]]] = []
        self.call_assigns: list[cst.Assign] = []
        self.defined: set[str] = set()
        self.imported: set[str] = set()  # names imports bind (modules, functions)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self.imported.add(alias.evaluated_alias or alias.evaluated_name.split(".")[0])

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not isinstance(node.names, cst.ImportStar):
            self.imported.update(a.evaluated_alias or a.evaluated_name for a in node.names)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.append((node, [], []))
        self.defined.add(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.done.append(self.stack.pop())

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.stack:
            self.stack[-1][1].append(node)
        if isinstance(node.value, cst.Call):
            self.call_assigns.append(node)

    def visit_Return(self, node: cst.Return) -> None:
        if self.stack:
            self.stack[-1][2].append(node)


def _numpy_returning_functions(collector: TrapFacts) -> dict[str, str]:
    """Functions and methods of the file whose return value is ``sess.run(...)``,
    ``.eval()`` or ``.numpy()`` (directly or through a local name)."""
    found: dict[str, str] = {}
    for function, assigns, returns in collector.done:
        assigned: dict[str, str] = {}
        for assign in assigns:
            why = _returns_numpy(assign.value)
            for target in assign.targets:
                for name in target_names(target.target):
                    if why:
                        assigned[name] = why
        for ret in returns:
            if ret.value is None:
                continue
            reads, _ = read_and_bound(ret.value)
            why = _returns_numpy(ret.value) or next((assigned[n] for n in reads if n in assigned), None)
            if why:
                found[function.name.value] = why
    return found


def _returns_numpy(expr: cst.BaseExpression) -> str | None:
    for call in calls_in(expr, enter_defs=True):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "run" and "sess" in _code(func.value).lower():
            return "returns the NumPy result of a Session run"
        if isinstance(func, cst.Attribute) and func.attr.value in ("eval", "numpy") and not call.args:
            return f"returns the NumPy result of `.{func.attr.value}()`"
    return None


_GRADIENT_TEXT = ("gradients(", ".gradient(", "jacobian(")
_NUMPY_TEXT = ("predict", ".numpy()", ".eval(", "asarray", "np.array", "numpy.array", ".run(")
_GRADIENT_NAMES = frozenset({"gradients", "gradient", "jacobian", "batch_jacobian"})
_NUMPY_RETURNING = frozenset({*_KERAS_PREDICT, *_NUMPY_METHODS})


def may_have_traps(source: str, tree: ast.Module, numpy_imports: dict[str, str] | None = None) -> bool:
    """A cheap test that the search cannot find a trap: no text of a gradient call or of
    a NumPy-returning call; else no function (or module level) that calls both a gradient
    and something that may return NumPy — a trap's NumPy value flows to its gradient
    through the assignments of one scope, which the search follows.  ``numpy_imports``:
    the imported functions that return NumPy (see find_traps)."""
    imported = {name.rsplit(".", 1)[-1] for name in numpy_imports or {}}
    if not (any(t in source for t in _GRADIENT_TEXT) and (imported or any(t in source for t in _NUMPY_TEXT))):
        return False
    return _ScopeCalls(imported | _may_return_numpy(tree)).both(tree)


def _may_return_numpy(tree: ast.Module) -> set[str]:
    """The functions (by name) whose code, nested functions included, names ``.run`` or a
    NumPy-returning method: one walk, each node seen once however deep the nesting."""
    names: set[str] = set()
    attributes = frozenset({"run", *_NUMPY_METHODS})
    stack: list[tuple[ast.AST, tuple[str, ...]]] = [(tree, ())]
    while stack:
        node, enclosing = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            enclosing = (*enclosing, node.name)
        elif isinstance(node, ast.Attribute) and node.attr in attributes:
            names.update(enclosing)
        stack.extend((child, enclosing) for child in ast.iter_child_nodes(node))
    return names


def find_traps(module: cst.Module, imports: TfImports, facts: TrapFacts, numpy_imports: dict[str, str] | None = None) -> list[Trap]:
    """The traps of the module, given the facts a walk gathered (see TrapFacts), and the
    functions other modules of the project define that return what ``sess.run`` returned
    (``numpy_imports``: the name they are called by → the module defining them)."""
    keras_models = {
        name
        for assign in facts.call_assigns
        if (imports.call_name(assign.value) or "").endswith(_KERAS_CONSTRUCTORS)
        for target in assign.targets
        for name in target_names(target.target)
    }
    finder = _TrapFinder(imports, _numpy_returning_functions(facts), keras_models, facts.defined, facts.imported)
    finder.numpy_imports = numpy_imports or {}
    walk(module, finder)
    return finder.traps


class _ScopeCalls:
    """Does some scope (a function with its decorators and defaults, as the search
    scopes them, or the module outside functions) call both kinds?"""

    def __init__(self, returners: set[str]) -> None:
        self.numpy = _NUMPY_RETURNING | returners

    def both(self, scope: ast.AST) -> bool:
        gradient = numpy = False
        stack = list(ast.iter_child_nodes(scope))
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if self.both(node):
                    return True
                continue
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
                gradient = gradient or name in _GRADIENT_NAMES
                numpy = numpy or name in self.numpy or name in ("asarray", "array")
                if gradient and numpy:
                    return True
            stack.extend(ast.iter_child_nodes(node))
        return False
