"""What a Python 2 file meant that Python 3 reads otherwise (TFM009).

Once its print statements are calls (rewrites/python2_prints.py) a Python 2 file parses as
Python 3, but some of its code no longer means what it did, and Python 3 does not say so:

- ``a / b`` floor-divided two integers (``7 / 2 == 3``; integer tensors and NumPy arrays
  too: ``Tensor.__div__`` was ``tf.div``); Python 3 divides truly (``3.5``, a float tensor).
  Not reported where ``from __future__ import division`` is in force, or where an operand
  is shown to be floating point, so that both divide truly: a float literal, ``float(x)``,
  ``time.time()``, ``math.sqrt(x)``, ``np.float32(x)``, ``np.mean(x)``, ``x.astype(np.float32)``,
  a TF tensor of a floating dtype (a float placeholder, ``tf.cast(x, tf.float32)``, a
  variable of a float initial value, ``tf.zeros(shape)``, and the element-wise ops and
  reductions of such tensors, whose dtype is their inputs'), its value from a session run or
  ``.eval()``, arithmetic with any of these, and a name every binding of which in the file is
  one of these.  Anything else is reported, integers that only look like sizes included
  (``int(n / batch)`` truncates where Python 2 floored: the same only for non-negative n).
- ``round(x)`` rounded halves away from zero and returned a float; Python 3 rounds halves
  to even and returns an int.
- ``map``, ``filter`` and ``zip`` returned lists; they return one-shot iterators, which
  cannot be indexed or measured (``map(f, xs)[0]``, ``len(zip(a, b))``, a name bound to one),
  and ``d.keys()``/``.values()``/``.items()`` return views that cannot be indexed.
- Names and methods Python 3 lacks (``xrange``, ``unicode``, ``long``, ``raw_input``,
  ``reduce``, ``d.iteritems()``, ``d.has_key(k)`` …) fail when the line runs.

Each is reported (warning), never rewritten: whether ``n / 2`` should become ``n // 2``
depends on values the file does not show.  The check runs on the few files that were
Python 2 only, with a walk of CPython's tree of its own: the module-wide walk
(analysis/module_facts.py) serves every file and must not pay for this.
"""

from __future__ import annotations

import ast
from collections import defaultdict

from tf2migrate.diagnostics import FixSafety, Rule, Severity

PYTHON2_SEMANTICS = Rule(
    "TFM009",
    "python2-semantics",
    "Python 2 code whose meaning changes under Python 3 (integer `/`, `round`, lists from `map`, …).",
    Severity.WARNING,
    FixSafety.NONE,
    what="In a file that was Python 2 (its print statements were converted, TFM008), reports each "
    "`/` between operands not shown to be floating point (Python 2 floor-divided integers, "
    "integer arrays and integer tensors), `round(...)`, an indexed or measured result of `map`, "
    "`filter`, `zip` or `d.keys()`/`.values()`/`.items()`, and names and methods Python 3 lacks "
    "(`xrange`, `unicode`, `long`, `basestring`, `raw_input`, `reduce`, `.iteritems()`, `.has_key()` …).",
    why="These lines run under Python 3 but compute something else (`7 / 2` is 3.5, not 3; "
    "`round(0.5)` is 0, not 1.0), or fail only when they run. tf2migrate cannot tell from the file "
    "which one the author meant, so it rewrites none of them.",
    example="import tensorflow as tf\nprint 'half', n / 2",
    instead="import tensorflow as tf\nprint('half', n // 2)  # or n / 2.0, whichever was meant",
    invalid=('import tensorflow as tf\nn = 7\nprint "half", n / 2\n',),
    valid=('import tensorflow as tf\nn = 7\nprint "half", n / 2.0\n', 'import tensorflow as tf\nn = 7\nprint("half", n / 2)\n'),
)
RULES = [PYTHON2_SEMANTICS]

_PYTHON2_NAMES = {
    "xrange": "`xrange` is not in Python 3 (`range` is lazy there)",
    "unicode": "`unicode` is not in Python 3 (`str` is Unicode text there; Python 2's `str` was bytes)",
    "basestring": "`basestring` is not in Python 3",
    "long": "`long` is not in Python 3 (`int` has no size limit there)",
    "raw_input": "`raw_input` is not in Python 3 (`input` reads a line there; Python 2's `input` evaluated it)",
    "reduce": "`reduce` is not a builtin in Python 3 (`functools.reduce`)",
    "unichr": "`unichr` is not in Python 3 (`chr`)",
    "execfile": "`execfile` is not in Python 3",
    "file": "`file` is not in Python 3 (`open`)",
    "cmp": "`cmp` is not in Python 3",
    "apply": "`apply` is not in Python 3",
}
_PYTHON2_METHODS = {
    "iteritems": "`.iteritems()` is not a dict method in Python 3 (`.items()`)",
    "iterkeys": "`.iterkeys()` is not a dict method in Python 3 (`.keys()`)",
    "itervalues": "`.itervalues()` is not a dict method in Python 3 (`.values()`)",
    "has_key": "`.has_key(k)` is not a dict method in Python 3 (`k in d`)",
}
_ITERATORS = frozenset({"map", "filter", "zip"})
_VIEWS = frozenset({"keys", "values", "items"})
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


def python2_semantics(tree: ast.Module) -> list[tuple[int, int, str]]:
    """``(line, column, message)`` of each site, 1-based columns, in file order."""
    return sorted(set(_Finder(tree).sites))


class _Finder:
    def __init__(self, tree: ast.Module) -> None:
        self.sites: list[tuple[int, int, str]] = []
        self.modules: dict[str, str] = {}  # local name → module (``np`` → numpy; "" for several)
        self.imports: dict[str, int] = defaultdict(int)  # local name → its import statements
        self.bindings: dict[str, list[ast.expr | None]] = defaultdict(list)  # None: not an expression we read
        self.sessions: set[str] = set()
        self.floats: dict[str, bool] = {}
        division = star_import = False
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                division = division or (node.module == "__future__" and any(a.name == "division" for a in node.names))
                star_import = star_import or any(a.name == "*" for a in node.names)
            self._bind(node)
        self._solve_floats(star_import)
        for node in ast.walk(tree):
            self._visit(node, division)

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
        if isinstance(target, ast.Name):
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
            return func.id == "float" and "float" not in self.bindings
        if not isinstance(func, ast.Attribute):
            return False
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
            return True
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

    # -- the sites --------------------------------------------------------------------
    def _visit(self, node: ast.AST, division: bool) -> None:
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.Div) and not division:
            left = node.left if isinstance(node, ast.BinOp) else node.target
            right = node.right if isinstance(node, ast.BinOp) else node.value
            if not (self._float(left) or self._float(right)):
                text = _short(node)
                self._add(
                    node,
                    f"`{text}`: Python 2 floor-divided integers (and integer arrays and tensors) with `/`, "
                    "Python 3 divides truly; neither operand is shown to be floating point: write `//` "
                    "if floor division was meant",
                )
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name == "round" and name not in self.bindings:
                self._add(
                    node,
                    f"`{_short(node)}`: Python 2's `round` rounded halves away from zero and returned a float; Python 3's rounds them to even and returns an int when given one argument",
                )
            elif name == "len" and node.args and self._iterator(node.args[0]):
                self._add(
                    node, f"`{_short(node)}`: `{_short(node.args[0])}` is a list in Python 2, a one-shot iterator without `len` in Python 3"
                )
        elif isinstance(node, ast.Subscript) and self._iterator(node.value):
            self._add(
                node,
                f"`{_short(node)}`: `{_short(node.value)}` is a list in Python 2, an iterator or view that cannot be indexed in Python 3",
            )
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in _PYTHON2_NAMES and node.id not in self.bindings:
            self._add(node, _PYTHON2_NAMES[node.id])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PYTHON2_METHODS:
            self._add(node.func, _PYTHON2_METHODS[node.func.attr])

    def _iterator(self, node: ast.expr, seen: frozenset[str] = frozenset()) -> bool:
        """``map(...)``/``filter(...)``/``zip(...)``/``d.keys()``…, or a name every binding of which is one."""
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                return func.id in _ITERATORS and func.id not in self.bindings
            return isinstance(func, ast.Attribute) and func.attr in _VIEWS and not node.args and not node.keywords
        if isinstance(node, ast.Name) and node.id not in seen:
            values = self.bindings.get(node.id, [])
            return bool(values) and all(v is not None and self._iterator(v, seen | {node.id}) for v in values)
        return False

    def _add(self, node: ast.AST, message: str) -> None:
        self.sites.append((node.lineno, node.col_offset + 1, message))  # type: ignore[attr-defined]


class _Ran(ast.expr):
    """The value a session run fetched of ``fetch`` (a NumPy value of the tensor's dtype)."""

    def __init__(self, fetch: ast.expr) -> None:
        super().__init__()
        self.fetch = fetch


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."
