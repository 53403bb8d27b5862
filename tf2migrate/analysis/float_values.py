"""Which values of a module are shown to be floating point, read off CPython's tree.

A fact two rules need: TFM009 (analysis/python2_semantics.py) reports a Python 2 ``/``
unless an operand is floating point, and ``tf.div`` (rewrites/eager_calls.py) divides
truly only when its first operand is.  Shown to be floating point: a float literal,
``float(x)``, ``time.time()``, ``math.sqrt(x)``, ``np.float32(x)``, ``np.mean(x)``,
``x.astype(np.float32)``, a TF tensor of a floating dtype (a float placeholder,
``tf.cast(x, tf.float32)``, a variable of a float initial value, ``tf.zeros(shape)`` with no
dtype given, and the element-wise ops and reductions of such tensors, whose dtype is their
inputs'), its value from a session run or ``.eval()``, arithmetic with any of these, a
name every binding of which in the file is one of these (function parameters, loop targets
and anything bound otherwise are not), and a call of a function of the file every
``return`` of which returns one of these: ``f()`` of a def that is the only binding of
``f``, ``self.m()`` and ``obj.m()`` of a method ``m`` that the file defines only in its
classes (``obj`` a name, or ``self.obj``, that the file binds only to objects of its
classes: ``watch = StopWatch()``), as a timer's ``def elapsed(self): return time.time() -
self.start``.  "Not shown" is the safe answer for both rules.
"""

from __future__ import annotations

import ast
from collections import defaultdict

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_FLOAT_DTYPES = frozenset({"float", "float16", "float32", "float64", "double", "half", "bfloat16"})
_FLOAT_REDUCTIONS = frozenset({"mean", "sum", "max", "min", "std", "var"})
_TIME_FLOATS = frozenset({"time", "clock", "perf_counter", "monotonic", "process_time"})
_MATH_FLOATS = frozenset({"sqrt", "exp", "log", "log10", "log2", "fabs", "pow", "sin", "cos", "tan", "tanh", "atan2", "hypot"})
_NUMPY_FLOATS = frozenset({"float16", "float32", "float64", "mean", "std", "var", "sqrt", "exp", "log", "average"})
# TF ops whose result has their floating inputs' dtype (TF1 requires the inputs to agree)
_TF_SAME_DTYPE = frozenset(
    {
        "add", "subtract", "multiply", "div", "divide", "truediv", "pow", "square", "sqrt", "rsqrt",
        "exp", "log", "log1p", "abs", "negative", "maximum", "minimum", "matmul", "tanh", "sigmoid",
        "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "add_n", "squared_difference",
        "relu", "relu6", "elu", "softplus", "softmax", "log_softmax", "dropout", "bias_add", "conv2d",
        "max_pool", "avg_pool", "l2_loss", "l2_normalize", "softmax_cross_entropy_with_logits",
        "sigmoid_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits", "clip_by_value",
        "reshape", "transpose", "identity", "concat", "stack", "squeeze", "expand_dims",
    }
)  # fmt: skip
# TF creators whose dtype is float32 unless given
_TF_FLOAT_DEFAULT = frozenset({"zeros", "ones", "random_normal", "truncated_normal", "random_uniform"})
# where the dtype of a float-by-default creator goes when given by position
_DTYPE_POSITION = {"zeros": 1, "ones": 1, "random_normal": 3, "truncated_normal": 3, "random_uniform": 3}


class FloatValues:
    """Which expressions of a module are shown to be floating point."""

    def __init__(self, tree: ast.Module) -> None:
        self.modules: dict[str, str] = {}  # local name → module (``np`` → numpy; "" for several)
        self.imports: dict[str, int] = defaultdict(int)  # local name → its import statements
        self.bindings: dict[str, list[ast.expr | None]] = defaultdict(list)  # None: not an expression we read
        self.sessions: set[str] = set()
        self.floats: dict[str, bool] = {}
        self.functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = defaultdict(list)  # every def, by name
        self.methods: set[int] = set()  # the defs that are methods of a class of the file
        self.classes: dict[str, set[str]] = defaultdict(set)  # class of the file → its methods' names
        self.attribute_bindings: dict[str, list[ast.expr]] = defaultdict(list)  # ``x.attr = value``: attr → values
        self._returning: set[int] = set()  # the defs whose returns are being read (a recursive def is not shown)
        star_import = False
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                star_import = star_import or any(a.name == "*" for a in node.names)
            self._bind(node)
        self._solve_floats(star_import)

    def is_float(self, node: ast.expr) -> bool:
        """Is ``node`` shown to be floating point (see the module's docstring)?"""
        return self._float(node)

    # -- bindings ---------------------------------------------------------------------
    def _bind(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                module = alias.name if alias.asname else name
                # a notebook imports numpy in several cells: the same module each time
                self.modules[name] = module if self.modules.get(name, module) == module else ""
                self.imports[name] += 1
                self.bindings[name].append(None)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                self.bindings[alias.asname or alias.name].append(None)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind_target(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            # ``x += y`` keeps a float a float (or raises): it adds no kind of value
            if isinstance(node, ast.AnnAssign) or not isinstance(node.op, _ARITHMETIC):
                self.bindings[node.target.id].append(node.value if isinstance(node, ast.AnnAssign) else None)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self._bind_target(node.target, None)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self._bind_target(item.optional_vars, None)
                    if isinstance(item.optional_vars, ast.Name) and self._creates_session(item.context_expr):
                        self.sessions.add(item.optional_vars.id)
        elif isinstance(node, ast.arg):
            self.bindings[node.arg].append(None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.bindings[node.name].append(None)
            if isinstance(node, ast.ClassDef):
                defs = [d for d in node.body if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))]
                self.classes[node.name] |= {d.name for d in defs}
                self.methods |= {id(d) for d in defs}
            else:
                self.functions[node.name].append(node)
        elif isinstance(node, ast.NamedExpr):
            self.bindings[node.target.id].append(node.value)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            pass
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            # any other binding (``except E as e`` aside): counted by the forms above, or unknown
            pass
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self.bindings[node.name].append(None)

    def _bind_target(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Attribute) and value is not None:
            self.attribute_bindings[target.attr].append(value)
        elif isinstance(target, ast.Name):
            self.bindings[target.id].append(value)
            if value is not None and self._creates_session(value):
                self.sessions.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = self._unpacked(value, len(target.elts))
            for index, element in enumerate(target.elts):
                self._bind_target(element, values[index] if values else None)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, None)

    def _unpacked(self, value: ast.expr | None, count: int) -> list[ast.expr] | None:
        """The expressions a tuple target of ``count`` names takes from ``value`` one by one:
        a tuple or list display, or a session run of one (``_, c = sess.run([train, cost])``)."""
        if (
            isinstance(value, (ast.Tuple, ast.List))
            and len(value.elts) == count
            and not any(isinstance(e, ast.Starred) for e in value.elts)
        ):
            return list(value.elts)
        run = self._session_run(value)
        if run is not None and isinstance(run, (ast.Tuple, ast.List)) and len(run.elts) == count:
            return [_Ran(e) for e in run.elts]
        return None

    def _creates_session(self, value: ast.expr) -> bool:
        return isinstance(value, ast.Call) and self._tf_name(value.func) in ("Session", "InteractiveSession")

    def _session_run(self, value: ast.expr | None) -> ast.expr | None:
        """The fetches of ``sess.run(fetches, ...)`` on a session the file makes."""
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "run"
            and isinstance(value.func.value, ast.Name)
            and value.func.value.id in self.sessions
            and value.args
        ):
            return value.args[0]
        return None

    # -- is it floating point? --------------------------------------------------------
    def _float(self, node: ast.expr | None) -> bool:
        if node is None:
            return False
        if isinstance(node, _Ran):
            return self._float(node.fetch)
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (float, complex))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self._float(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
            return self._float(node.left) or self._float(node.right)
        if isinstance(node, ast.Subscript):
            return self._float(node.value)  # an element of a float array or tensor
        if isinstance(node, ast.Name):
            return self._float_name(node.id)
        if isinstance(node, ast.Call):
            return self._float_call(node)
        return False

    def _float_name(self, name: str) -> bool:
        return self.floats.get(name, False)

    def _solve_floats(self, star_import: bool) -> None:
        """The names every binding of which is floating point: the greatest fixpoint, so that
        ``total = 0.0`` then ``total = total / n`` is one (a binding that reads the name runs
        after another one bound it, or fails: no builtin is a number).  A star import may
        bind any name: then none is known."""
        self.floats = {name: not star_import for name in self.bindings}
        changed = not star_import
        while changed:
            changed = False
            for name, values in self.bindings.items():
                if self.floats[name] and not all(self._float(v) for v in values):
                    self.floats[name] = False
                    changed = True

    def _float_call(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Name):
            if func.id == "float":
                return "float" not in self.bindings
            return self._returns_float(func.id, method=False)
        if not isinstance(func, ast.Attribute):
            return False
        if self._of_file_classes(func.value, func.attr) and self._returns_float(func.attr, method=True):
            return True
        owner = self._module_of(func.value)
        if owner == "time":
            return func.attr in _TIME_FLOATS
        if owner == "math":
            return func.attr in _MATH_FLOATS
        if owner == "numpy":
            return func.attr in _NUMPY_FLOATS
        if func.attr == "astype" and call.args:
            return self._float_dtype(call.args[0])
        if func.attr == "eval" and not call.args[1:]:
            return self._float(func.value)
        if func.attr in _FLOAT_REDUCTIONS and not call.args:
            return self._float(func.value)  # ``y_val.mean()`` of a float array
        fetches = self._session_run(call)
        if fetches is not None:
            return self._float(fetches)
        return self._float_tensor(call)

    def _returns_float(self, name: str, method: bool) -> bool:
        """Is every def named ``name`` in the file a method of its classes (``method``) or the
        only binding of a module name (else), and is every value it returns shown float?"""
        defs = self.functions.get(name, [])
        if not defs or any((id(d) in self.methods) != method for d in defs):
            return False
        if not method and len(self.bindings[name]) != 1:
            return False
        return all(self._def_returns_float(d) for d in defs)

    def _def_returns_float(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        if id(function) in self._returning:
            return False
        self._returning.add(id(function))
        try:
            returns = list(_returns(function))
            return bool(returns) and all(self._float(r.value) for r in returns)
        finally:
            self._returning.discard(id(function))

    def _of_file_classes(self, receiver: ast.expr, method: str) -> bool:
        """Is ``receiver`` ``self``, or a name (``self.name``) that the file binds only to
        objects of its own classes, each defining ``method``?"""
        if isinstance(receiver, ast.Name) and receiver.id == "self":
            return True
        if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self":
            name = receiver.attr
        elif isinstance(receiver, ast.Name):
            name = receiver.id
        else:
            return False
        values = [*self.bindings.get(name, []), *self.attribute_bindings.get(name, [])]
        return bool(values) and all(
            isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and method in self.classes.get(v.func.id, ()) for v in values
        )

    def _float_tensor(self, call: ast.Call) -> bool:
        op = self._tf_name(call.func)
        if op is None:
            return False
        dtype = _keyword(call, "dtype")
        if op == "placeholder":
            return self._float_dtype(call.args[0] if call.args else dtype)
        if op == "cast":
            return self._float_dtype(call.args[1] if len(call.args) > 1 else dtype)
        if dtype is not None:
            return self._float_dtype(dtype)
        if op in ("constant", "Variable", "convert_to_tensor"):
            return bool(call.args) and self._float(call.args[0])
        if op in _TF_FLOAT_DEFAULT:
            # ``tf.zeros([2], tf.int32)``: the dtype given by position decides
            position = _DTYPE_POSITION[op]
            return len(call.args) <= position or self._float_dtype(call.args[position])
        if op in _TF_SAME_DTYPE:
            return any(self._float(a) for a in call.args) or any(self._float(k.value) for k in call.keywords)
        return False

    def _float_dtype(self, node: ast.expr | None) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str) and node.value in _FLOAT_DTYPES
        if isinstance(node, ast.Name):
            return node.id == "float" and "float" not in self.bindings
        if isinstance(node, ast.Attribute):
            return self._module_of(node.value) in ("numpy", "tensorflow") and node.attr in _FLOAT_DTYPES
        return False

    def _module_of(self, node: ast.expr) -> str | None:
        """The module a name is bound to by every binding of it (imports of one module only)."""
        if isinstance(node, ast.Name) and len(self.bindings.get(node.id, [])) == self.imports.get(node.id, 0):
            return self.modules.get(node.id) or None
        return None

    def _tf_name(self, func: ast.expr) -> str | None:
        """``op`` of ``tf.op``, ``tf.nn.op``, ``tf.math.op``, ``tf.random.op`` (TF imported as a module)."""
        if not isinstance(func, ast.Attribute):
            return None
        owner = func.value
        if isinstance(owner, ast.Attribute) and owner.attr in ("nn", "math", "random", "compat") and isinstance(owner.value, ast.Name):
            owner = owner.value
        return func.attr if self._module_of(owner) == "tensorflow" else None


class _Ran(ast.expr):
    """The value a session run fetched of ``fetch`` (a NumPy value of the tensor's dtype)."""

    def __init__(self, fetch: ast.expr) -> None:
        super().__init__()
        self.fetch = fetch


def _returns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """The ``return`` statements of ``function``'s own body (not of the defs and lambdas in it);
    a ``return`` without a value, or the end of the body reached, returns None: not float."""
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return []  # a generator returns a generator
        if isinstance(node, ast.Return):
            if node.value is None:
                return []
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    if not found or not isinstance(function.body[-1], (ast.Return, ast.Raise)):
        return []  # may fall off the end, returning None
    return found


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)
