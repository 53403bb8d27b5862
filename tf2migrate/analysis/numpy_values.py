"""Which expressions of a module are shown to be NumPy arrays or scalars, read off its text.

A fact the feeds need (rewrites/feeds.py).  TF1 converted every fed value to its
placeholder's dtype (``np.asarray(value, dtype)``) and fed it when the graph ran.  A
generated ``tf.function`` without an input signature takes a NumPy array or scalar as a
tensor of the value's own dtype, which the function's ``tf.cast`` converts exactly as NumPy
did; but it takes a Python number or bool, and a list or tuple of them, as a constant of its
trace.  Grappler then folds the constant into the ops that read it (``x / keep`` computed as
``x * (1 / keep)``, rounded otherwise: a 1-ulp difference Adam grows), a Python float fed to
a ``float64`` placeholder is made a ``float32`` by the cast, and each new value traces the
function again.  So a value fed to such a function is passed as a tensor of the
placeholder's dtype unless it is shown here to be NumPy.

Shown to be NumPy:

- a call of a NumPy function that returns an array or a NumPy scalar (``np.zeros(n)``,
  ``np.float32(0.7)``, ``np.mean(x)``; not ``np.meshgrid`` or ``np.load``, which return
  other things), ``np`` a name the module binds only by ``import numpy [as np]``;
- a sampler of ``np.random`` (or of a name bound only to ``np.random.RandomState(...)`` or
  ``np.random.default_rng(...)``) given a size (``rng.rand(5, 3)``, ``np.random.uniform(-1,
  1, size=[n, 2])``; without one it returns a Python float), or ``permutation``;
- an array method that returns an array (``.astype``, ``.reshape``, ``.T``, ``.mean()``...)
  of a NumPy value, an item or slice of one (``X[idx]``), arithmetic with one;
- a name or ``self.name`` subscripted by a tuple holding a slice (``X[:, 0:1]``): Python's
  lists and tuples refuse a tuple index, and a fed value cannot be a TF tensor (TF1 refused
  to feed one);
- TF1's MNIST reader's arrays: ``mnist.train.images`` / ``.labels`` (also ``test``,
  ``validation``) and the items of ``mnist.train.next_batch(n)`` (``batch_xs, batch_ys =
  mnist.train.next_batch(100)``), ``mnist`` a name bound only to ``input_data.read_data_sets(...)``
  of ``from tensorflow.examples.tutorials.mnist import input_data``;
- a parameter of a module-level class's ``__init__`` (``self.u = u``) when the class is
  only called in the file (no other mention, no importer naming it) and every call passes a
  value shown here (or the parameter's default is one): ``model = PINN(X_u_train, u_train)``
  with ``u_train = Exact[idx, :]``;
- a name every binding of which in the file is one of these, and ``self.attr`` when every
  assignment of an attribute ``attr`` in the file (to any object) is, no class body binds
  ``attr`` otherwise and no importer of the module names it.

Everything else is not shown, the safe answer: parameters, loop targets, values other
functions return, and all of a module with a star import or a call of ``globals``,
``vars``, ``exec``, ``eval`` or ``setattr``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import libcst as cst

from tf2migrate.analysis.tf_imports import dotted_name
from tf2migrate.traversal import preorder

# NumPy functions whose result is an array or a NumPy scalar whatever their arguments
_ARRAY_FUNCTIONS = frozenset(
    {
        "array", "asarray", "ascontiguousarray", "asfarray", "copy", "zeros", "ones", "empty", "full",
        "zeros_like", "ones_like", "empty_like", "full_like", "eye", "identity", "arange", "linspace",
        "logspace", "concatenate", "stack", "vstack", "hstack", "column_stack", "dstack", "reshape",
        "transpose", "squeeze", "expand_dims", "tile", "repeat", "flip", "roll", "clip", "abs", "absolute",
        "exp", "log", "log1p", "sqrt", "square", "sin", "cos", "tan", "tanh", "sinh", "cosh", "arctan",
        "power", "maximum", "minimum", "dot", "matmul", "outer", "sum", "mean", "std", "var", "max", "min",
        "amax", "amin", "prod", "cumsum", "cumprod", "diff", "sort", "round", "floor", "ceil", "sign",
        "float16", "float32", "float64", "int32", "int64", "diag", "tril", "triu", "kron", "interp",
        "loadtxt", "genfromtxt", "multiply", "add", "subtract", "divide", "true_divide", "reciprocal",
    }
)  # fmt: skip
# samplers of ``np.random`` and of its generators, by where their ``size`` goes when given by position
_SIZED_SAMPLERS = {
    "random": 0, "random_sample": 0, "sample": 0, "ranf": 0, "standard_normal": 0, "uniform": 2,
    "normal": 2, "randint": 2, "integers": 2, "binomial": 2, "beta": 2, "gamma": 2, "poisson": 1,
    "exponential": 1, "choice": 1, "laplace": 2, "logistic": 2, "lognormal": 2, "truncated_normal": 2,
}  # fmt: skip
_SHAPE_SAMPLERS = frozenset({"rand", "randn"})  # ``rand(d0, d1, ...)``: an array when given a dimension
_GENERATORS = frozenset({"random.RandomState", "random.default_rng", "random.Generator"})
# array methods whose result is an array or a NumPy scalar (``tolist`` and ``item`` are Python values)
_ARRAY_METHODS = frozenset(
    {
        "astype", "reshape", "copy", "flatten", "ravel", "squeeze", "transpose", "dot", "mean", "sum",
        "max", "min", "std", "var", "prod", "cumsum", "clip", "round", "swapaxes",
    }
)  # fmt: skip
_ARRAY_ATTRIBUTES = frozenset({"T", "real", "imag"})
_OPAQUE_CALLS = frozenset({"globals", "vars", "exec", "eval", "setattr"})
_MNIST_MODULE = "tensorflow.examples.tutorials.mnist"
_MNIST_SPLITS = frozenset({"train", "test", "validation"})


@dataclass(frozen=True)
class _InitParameter:
    """A binding of a parameter of a module-level class's ``__init__``: ``position`` counts
    ``self``; None for a keyword-only parameter."""

    cls: str
    name: str
    position: int | None
    default: cst.BaseExpression | None


class NumpyValues:
    """Which expressions of one module are shown to be NumPy values (see the docstring)."""

    def __init__(
        self, module: cst.Module, importer_attributes: frozenset[str] = frozenset(), importer_names: frozenset[str] = frozenset()
    ) -> None:
        self._bindings: dict[str, list[cst.BaseExpression | _InitParameter | None]] = defaultdict(list)
        self._attributes: dict[str, list[cst.BaseExpression | _InitParameter | None]] = defaultdict(list)
        self._numpy_imports: dict[str, int] = defaultdict(int)
        self._mnist_readers: dict[str, int] = defaultdict(int)  # ``input_data`` of TF1's MNIST tutorials
        self._importer_attributes = importer_attributes
        self._opaque = False
        self._names: dict[str, bool] = {}
        self._attribute_values: dict[str, bool] = {}
        self._open: set[str] = set()  # names being decided: a binding reading itself is not shown
        self._importer_names = importer_names
        self._init_parameters, self._stored_parameters = _init_parameters(module)
        self._mentions: dict[str, int] = defaultdict(int)  # Name nodes, by name
        self._calls: dict[str, list[cst.Call]] = defaultdict(list)  # calls of a bare name
        # the names ``import numpy [as name]`` statements of the module's body bind, by the
        # index of the first such statement
        self._module_imports: dict[str, int] = {}
        for index, statement in reversed(list(enumerate(module.body))):
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                for alias in small.names if isinstance(small, cst.Import) else ():
                    if dotted_name(alias.name) == "numpy":
                        self._module_imports[alias.evaluated_alias or "numpy"] = index
        for node in preorder(module):
            self._bind(node)
            if isinstance(node, cst.Name):
                self._mentions[node.value] += 1
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
                self._calls[node.func.value].append(node)

    def is_numpy(self, node: cst.BaseExpression) -> bool:
        """Is ``node`` shown to be a NumPy array or scalar?"""
        return not self._opaque and self._numpy(node)

    def numpy_module(self, before: int) -> str | None:
        """A name for NumPy that code written into the module may call (``np.asarray(value)``)
        in or under its ``before``-th statement: one an ``import numpy [as name]`` of the
        module's body binds before that statement, and nothing else binds (``np`` preferred);
        None when there is none.  A NumPy imported only in a function is no name there."""
        if self._opaque:
            return None
        names = sorted(
            (n for n, i in self._module_imports.items() if i < before and self._is_numpy_module(n)), key=lambda n: (n != "np", n)
        )
        return names[0] if names else None

    # -- bindings ---------------------------------------------------------------------
    def _bind(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                name = dotted_name(alias.asname.name) if alias.asname else dotted_name(alias.name)
                if name is None:
                    continue
                local = name.partition(".")[0]
                self._bindings[local].append(None)
                if dotted_name(alias.name) == "numpy" and "." not in name:
                    self._numpy_imports[local] += 1
        elif isinstance(node, cst.ImportFrom):
            if isinstance(node.names, cst.ImportStar):
                self._opaque = True
            else:
                for alias in node.names:
                    target = alias.asname.name if alias.asname else alias.name
                    if isinstance(target, cst.Name):
                        self._bindings[target.value].append(None)
                        if (
                            node.module is not None
                            and dotted_name(node.module) == _MNIST_MODULE
                            and dotted_name(alias.name) == "input_data"
                        ):
                            self._mnist_readers[target.value] += 1
        elif isinstance(node, cst.Assign):
            for assigned in node.targets:
                self._bind_target(assigned.target, node.value)
        elif isinstance(node, cst.AnnAssign):
            self._bind_target(node.target, node.value)
        elif isinstance(node, (cst.For, cst.CompFor)):
            self._bind_target(node.target, None)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            self._bind_target(node.asname.name, None)
        elif isinstance(node, cst.ExceptHandler) and node.name is not None:
            self._bind_target(node.name.name, None)
        elif isinstance(node, cst.NamedExpr):
            self._bind_target(node.target, node.value)
        elif isinstance(node, cst.Param):
            self._bindings[node.name.value].append(self._init_parameters.get(id(node)))
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self._bindings[node.name.value].append(None)
            if isinstance(node, cst.ClassDef):
                self._bind_class_body(node)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _OPAQUE_CALLS:
            self._opaque = True
        # (``x += 1`` keeps a NumPy value NumPy: an augmented assignment adds no kind of value;
        # ``global``, ``nonlocal`` and ``del`` neither: every binding in the file is counted)

    def _bind_class_body(self, node: cst.ClassDef) -> None:
        """A class body's names are attributes of its instances too (``self.keep`` reads a
        class-level ``keep = 0.5`` until an instance binds its own)."""
        for statement in node.body.body:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                self._attributes[statement.name.value].append(None)
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else []
                    if isinstance(small, cst.AnnAssign):
                        targets.append(small.target)
                    for target in targets:
                        if isinstance(target, cst.Name):
                            self._attributes[target.value].append(None)
            else:
                self._opaque = True  # (a compound statement in a class body: not followed)

    def _bind_target(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            self._bindings[target.value].append(value)
        elif isinstance(target, cst.Attribute):
            # (``self.u = u`` in ``__init__``: the parameter itself, whatever else ``u`` names in the file)
            stored = self._stored_parameters.get(id(value)) if value is not None else None
            self._attributes[target.attr.value].append(stored or value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            values = (
                [e.value for e in value.elements]
                if isinstance(value, (cst.Tuple, cst.List))
                and len(value.elements) == len(elements)
                and not any(isinstance(e, cst.StarredElement) for e in value.elements)
                else None
            )
            if values is None and isinstance(value, cst.Call) and not any(isinstance(e, cst.StarredElement) for e in elements):
                # ``xs, ys = mnist.train.next_batch(100)``: each name is an item of the call's result
                values = [cst.Subscript(value, [cst.SubscriptElement(cst.Index(cst.Integer(str(i))))]) for i in range(len(elements))]
            for index, element in enumerate(elements):
                self._bind_target(element.value, values[index] if values and not isinstance(element, cst.StarredElement) else None)
        # (``x[i] = v`` changes an array in place: it stays an array)

    # -- values -----------------------------------------------------------------------
    def _numpy(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return self._name(node.value)
        if isinstance(node, cst.Attribute):
            if node.attr.value in _ARRAY_ATTRIBUTES:
                return self._numpy(node.value)
            if node.attr.value in ("images", "labels") and self._mnist_split(node.value):
                return True
            return isinstance(node.value, cst.Name) and node.value.value == "self" and self._attribute(node.attr.value)
        if isinstance(node, cst.Subscript):
            if isinstance(node.value, cst.Call) and self._mnist_batch(node.value):
                return True  # an item of ``(images, labels)``
            return self._numpy(node.value) or (_plain(node.value) and _tuple_with_slice(node))
        if isinstance(node, cst.BinaryOperation):
            # (``"%s" % arr`` is a str: a NumPy right operand counts but for ``%``)
            return self._numpy(node.left) or (not isinstance(node.operator, cst.Modulo) and self._numpy(node.right))
        if isinstance(node, cst.UnaryOperation):
            return not isinstance(node.operator, cst.Not) and self._numpy(node.expression)
        if isinstance(node, cst.IfExp):
            return self._numpy(node.body) and self._numpy(node.orelse)
        if isinstance(node, cst.Call):
            return self._call(node)
        return False

    def _call(self, call: cst.Call) -> bool:
        func = call.func
        name = dotted_name(func)
        if name is not None:
            root, _, rest = name.partition(".")
            if self._is_numpy_module(root):
                if rest in _ARRAY_FUNCTIONS:
                    return True
                if rest.startswith("random."):
                    return _sized_sample(call, rest.removeprefix("random."))
                return False
            if "." in rest or not rest:
                return False
            if self._is_generator(root):
                return _sized_sample(call, rest)
        if isinstance(func, cst.Attribute) and func.attr.value in _ARRAY_METHODS:
            return self._numpy(func.value)
        return False

    def _name(self, name: str) -> bool:
        known = self._names.get(name)
        if known is None:
            if name in self._open:
                return False
            self._open.add(name)
            bindings = self._bindings.get(name, [])
            known = bool(bindings) and all(self._bound_numpy(value) for value in bindings)
            self._open.discard(name)
            self._names[name] = known
        return known

    def _bound_numpy(self, value: cst.BaseExpression | _InitParameter | None) -> bool:
        if isinstance(value, _InitParameter):
            return self._constructed_with_numpy(value)
        return value is not None and self._numpy(value)

    def _constructed_with_numpy(self, parameter: _InitParameter) -> bool:
        """Is every value the file's calls of the class give the parameter shown NumPy?"""
        calls = self._calls.get(parameter.cls, [])
        # (the class name's one other mention is its definition: not passed on, not subclassed)
        if not calls or parameter.cls in self._importer_names or self._mentions[parameter.cls] != len(calls) + 1:
            return False
        for call in calls:
            if any(a.star for a in call.args):
                return False
            given = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == parameter.name), None)
            positional = [a.value for a in call.args if a.keyword is None]
            if given is None and parameter.position is not None and parameter.position - 1 < len(positional):
                given = positional[parameter.position - 1]
            given = given if given is not None else parameter.default
            if given is None or not self._numpy(given):
                return False
        return True

    def _attribute(self, attr: str) -> bool:
        known = self._attribute_values.get(attr)
        if known is None:
            key = f"self.{attr}"
            if key in self._open or attr in self._importer_attributes:
                return False
            self._open.add(key)
            bindings = self._attributes.get(attr, [])
            known = bool(bindings) and all(self._bound_numpy(value) for value in bindings)
            self._open.discard(key)
            self._attribute_values[attr] = known
        return known

    def _mnist_batch(self, call: cst.Call) -> bool:
        """``mnist.train.next_batch(n)``: a tuple of NumPy arrays, (images, labels)."""
        func = call.func
        return isinstance(func, cst.Attribute) and func.attr.value == "next_batch" and self._mnist_split(func.value)

    def _mnist_split(self, node: cst.BaseExpression) -> bool:
        """``mnist.train`` (``test``, ``validation``) of a name bound only to TF1's MNIST reader."""
        if not (isinstance(node, cst.Attribute) and node.attr.value in _MNIST_SPLITS and isinstance(node.value, cst.Name)):
            return False
        bindings = self._bindings.get(node.value.value, [])
        return bool(bindings) and all(isinstance(b, cst.Call) and self._reads_mnist(b) for b in bindings)

    def _reads_mnist(self, call: cst.Call) -> bool:
        name = dotted_name(call.func) or ""
        reader, _, function = name.partition(".")
        count = self._mnist_readers.get(reader, 0)
        return function == "read_data_sets" and count > 0 and count == len(self._bindings.get(reader, []))

    def _is_numpy_module(self, name: str) -> bool:
        imports = self._numpy_imports.get(name, 0)
        return imports > 0 and imports == len(self._bindings.get(name, []))

    def _is_generator(self, name: str) -> bool:
        """Is ``name`` bound only to NumPy random generators (``rng = np.random.RandomState(0)``)?"""
        bindings = self._bindings.get(name, [])
        return bool(bindings) and all(isinstance(value, cst.Call) and self._creates_generator(value) for value in bindings)

    def _creates_generator(self, call: cst.Call) -> bool:
        name = dotted_name(call.func)
        root, _, rest = (name or "").partition(".")
        return self._is_numpy_module(root) and rest in _GENERATORS


def _init_parameters(module: cst.Module) -> tuple[dict[int, _InitParameter], dict[int, _InitParameter]]:
    """The parameters of the ``__init__`` of each class at the module's top, by node id; and
    the parameter read by each ``self.a = p`` (``self.a, self.b = p, q``) statement at the top
    of such an ``__init__``, by the id of the read, when ``__init__`` binds ``p`` nowhere else."""
    found: dict[int, _InitParameter] = {}
    stored: dict[int, _InitParameter] = {}
    for statement in module.body:
        if not isinstance(statement, cst.ClassDef):
            continue
        for member in statement.body.body:
            if not (isinstance(member, cst.FunctionDef) and member.name.value == "__init__" and not member.decorators):
                continue
            parameters: dict[str, _InitParameter] = {}
            positional = [*member.params.posonly_params, *member.params.params]
            for position, param in enumerate(positional):
                parameters[param.name.value] = found[id(param)] = _InitParameter(
                    statement.name.value, param.name.value, position, param.default
                )
            for param in member.params.kwonly_params:
                parameters[param.name.value] = found[id(param)] = _InitParameter(
                    statement.name.value, param.name.value, None, param.default
                )
            rebound = _rebound_names(member.body)
            for line in member.body.body:
                if not isinstance(line, cst.SimpleStatementLine):
                    continue
                for small in line.body:
                    if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                        continue
                    target, value = small.targets[0].target, small.value
                    pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = [(target, value)]
                    if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) and len(target.elements) == len(value.elements):
                        pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
                    for t, v in pairs:
                        if (
                            isinstance(t, cst.Attribute)
                            and isinstance(t.value, cst.Name)
                            and t.value.value == "self"
                            and isinstance(v, cst.Name)
                            and v.value in parameters
                            and v.value not in rebound
                        ):
                            stored[id(v)] = parameters[v.value]
    return found, stored


def _rebound_names(body: cst.BaseSuite) -> set[str]:
    """The names a function body binds (assignments, loops, with, except, imports, defs)."""
    names: set[str] = set()
    for node in preorder(body):
        if isinstance(node, cst.AssignTarget | cst.AnnAssign | cst.AugAssign | cst.For | cst.CompFor | cst.NamedExpr):
            names |= _bound_by(node.target)
        elif isinstance(node, cst.AsName):
            names |= _bound_by(node.name)
        elif isinstance(node, cst.FunctionDef | cst.ClassDef):
            names.add(node.name.value)
    return names


def _bound_by(target: cst.BaseExpression) -> set[str]:
    """The names an assignment target binds (``self.a`` and ``x[i]`` bind none)."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, cst.Tuple | cst.List):
        return set().union(*(_bound_by(e.value) for e in target.elements))
    if isinstance(target, cst.StarredElement):
        return _bound_by(target.value)
    return set()


def _sized_sample(call: cst.Call, sampler: str) -> bool:
    """Does this call of a NumPy sampler return an array: one given a size, ``permutation``?"""
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return False
    if sampler == "permutation":
        return True
    if sampler in _SHAPE_SAMPLERS:
        return bool(positional)
    position = _SIZED_SAMPLERS.get(sampler)
    if position is None:
        return False
    size = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "size"), None)
    if size is None and len(positional) > position:
        size = positional[position].value
    return size is not None and not (isinstance(size, cst.Name) and size.value == "None")


def _plain(node: cst.BaseExpression) -> bool:
    """A name or ``self.name``: not ``df.iloc``, whose subscript is a pandas object."""
    return isinstance(node, cst.Name) or (
        isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"
    )


def _tuple_with_slice(node: cst.Subscript) -> bool:
    """``X[:, 0:1]``: an index of several parts, one of them a slice."""
    return len(node.slice) > 1 and any(isinstance(e.slice, cst.Slice) for e in node.slice)
