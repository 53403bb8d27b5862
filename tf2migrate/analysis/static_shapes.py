"""Static dimensions of placeholders: ``x.get_shape()[1].value`` where ``x =
tf.placeholder(tf.float32, [None, 3])`` is the number 3.

TF1 code sizes its weights from its inputs (``W = tf.Variable(tf.ones([x.shape[1].value,
2]))``, ``n_in = x.get_shape()[1].value``).  The value is fixed by the placeholder's
declaration, so it is not a read of the placeholder: code outside the graph gets the literal
(the placeholder is gone after migration), and graph code moved into a function may keep the
expression, which gives the same number there (a feed had to match the declared shape).
Only dimensions written as integers count; ``None`` dimensions are the fed value's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import partial
from operator import is_
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.calls import bind_arguments, call_argument
from tf2migrate.analysis.model import Kind, Scope
from tf2migrate.analysis.names import root_name, target_names
from tf2migrate.analysis.tf_imports import TfImports, dotted_name
from tf2migrate.traversal import FastTransformer, find_all

_SHAPE = m.Attribute(value=m.Name(), attr=m.Name("shape")) | m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("get_shape")), args=[])


def static_dimensions(node: cst.CSTNode, scope: Scope, order: int | None) -> dict[int, tuple[cst.BaseExpression, str]]:
    """The static-dimension expressions below ``node`` (``.value`` included when written),
    by id: (expression, the integer's text)."""
    found: dict[int, tuple[cst.BaseExpression, str]] = {}
    inner: set[int] = set()
    compared = compared_unlike_ints(node, lambda operand: m.matches(operand, m.Subscript(value=_SHAPE)))
    for assign in find_all(node, m.Assign(targets=[m.AssignTarget(target=m.Name())])):
        # ``d = x.get_shape()[1]`` (``* 2``) binds a Dimension: its comparisons where the scope reads it
        assert isinstance(assign, cst.Assign)
        if cst.ensure_type(assign.targets[0].target, cst.Name).value in names_compared_unlike_ints(scope.owner):
            compared.update(id(subscript) for subscript in find_all(assign.value, m.Subscript(value=_SHAPE)))
    for subscript in find_all(node, m.Subscript(value=_SHAPE, slice=[m.SubscriptElement(slice=m.Index(value=m.Integer()))])):
        assert isinstance(subscript, cst.Subscript)
        if id(subscript) in compared:
            continue
        shape = subscript.value
        # the matcher's shapes: ``x.shape`` or ``x.get_shape()``, indexed by an integer
        holder = (
            shape.value if isinstance(shape, cst.Attribute) else cst.ensure_type(cst.ensure_type(shape, cst.Call).func, cst.Attribute).value
        )
        index = int(cst.ensure_type(cst.ensure_type(subscript.slice[0].slice, cst.Index).value, cst.Integer).value)
        statement = scope.graph_statement(holder.value, order) if isinstance(holder, cst.Name) else None
        placeholder = statement.placeholder if statement is not None and statement.kind is Kind.PLACEHOLDER else None
        declared = placeholder.shape if placeholder is not None else None
        if not isinstance(declared, (cst.List, cst.Tuple)) or index >= len(declared.elements):
            continue
        dimension = declared.elements[index].value
        if isinstance(dimension, cst.Integer):
            found[id(subscript)] = (subscript, dimension.value)
    for value_attribute in find_all(node, m.Attribute(attr=m.Name("value"))):
        assert isinstance(value_attribute, cst.Attribute)
        if id(value_attribute.value) in found:
            inner.add(id(value_attribute.value))
            found[id(value_attribute)] = (value_attribute, found[id(value_attribute.value)][1])
    return {key: value for key, value in found.items() if key not in inner}


_INTEGER = m.Integer() | m.UnaryOperation(operator=m.Minus(), expression=m.Integer())
# the comparisons in which a TF1 ``Dimension`` of a known size gave what its int gives
_INT_COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


def compared_unlike_ints(node: cst.CSTNode, is_dimension: Callable[[cst.BaseExpression], bool]) -> set[int]:
    """The operands below ``node`` holding a ``Dimension`` itself (``is_dimension``) compared
    with anything but an integer literal (``-1`` too) or another such, or by ``is``/``in``: TF1's
    ``Dimension(3) == 3.0`` was False, ``Dimension(3) is 3`` False, where the int TF2's shape
    holds gives True.  Such a read is no declared number (a function moving it would read
    TF2's int)."""
    found: set[int] = set()
    for comparison in find_all(node, cst.Comparison):
        operands = _operands(cst.ensure_type(comparison, cst.Comparison))
        if not _like_ints(cst.ensure_type(comparison, cst.Comparison), is_dimension):
            found.update(id(o) for o in operands if is_dimension(o))
    return found


def _operands(comparison: cst.Comparison) -> list[cst.BaseExpression]:
    return [comparison.left, *(target.comparator for target in comparison.comparisons)]


def _like_ints(comparison: cst.Comparison, is_dimension: Callable[[cst.BaseExpression], bool]) -> bool:
    """Does the comparison give of a known ``Dimension`` what it gives of its int?"""
    return all(isinstance(t.operator, _INT_COMPARISONS) for t in comparison.comparisons) and all(
        m.matches(o, _INTEGER) or is_dimension(o) for o in _operands(comparison)
    )


def binds_dimension_compared(node: cst.CSTNode, binds: list[str], owner: cst.Module | cst.FunctionDef) -> bool:
    """Does ``node`` bind a name to a value reading a ``Dimension`` itself (``d =
    x.get_shape()[1] * 2``) that ``owner`` compares unlike an int (:func:`compared_unlike_ints`)?"""
    return bool(set(binds) & names_compared_unlike_ints(owner)) and bool(find_all(node, m.Subscript(value=_SHAPE)))


_NAMES_COMPARED: dict[int, tuple[cst.CSTNode, frozenset[str]]] = {}


def names_compared_unlike_ints(owner: cst.Module | cst.FunctionDef) -> frozenset[str]:
    """The names ``owner`` compares as :func:`compared_unlike_ints` would a Dimension (each
    scope's walked once: each statement binding a name asks)."""
    cached = _NAMES_COMPARED.get(id(owner))
    if cached is not None and cached[0] is owner:
        return cached[1]
    names: set[str] = set()
    for comparison in find_all(owner, cst.Comparison):
        assert isinstance(comparison, cst.Comparison)
        for operand in _operands(comparison):
            if isinstance(operand, cst.Name) and not _like_ints(comparison, partial(is_, operand)):
                names.add(operand.value)
    if len(_NAMES_COMPARED) > 64:
        _NAMES_COMPARED.clear()
    _NAMES_COMPARED[id(owner)] = (owner, frozenset(names))
    return frozenset(names)


class Literalize(FastTransformer):
    """The node with its static dimensions written as the integers they are."""

    def __init__(self, dimensions: dict[int, tuple[cst.BaseExpression, str]]) -> None:
        super().__init__()
        self.dimensions = dimensions

    def on_leave(self, original_node, updated_node):
        found = self.dimensions.get(id(original_node))
        if found is None:
            return super().on_leave(original_node, updated_node)
        return cst.Integer(found[1]) if found[1].isdigit() else cst.parse_expression(found[1])


# ---------------------------------------------------------------------------------------
# Static shapes through the module's graph code and its helpers (for rewrites/helper_split.py)
#
# A helper may size its variables by the static shape of a tensor it is given
# (``n_in = int(x.get_shape()[1])``), or be given a number the module read off a shape
# (``num_features = layer.get_shape()[1:4].num_elements()``).  TF1 fixed those numbers while
# it built the graph, from the shapes its ops inferred.  They are facts of the program text
# when every op on the way has a shape rule: :func:`evaluate_module` follows the module's
# top-level statements in order (``with`` bodies included: they run once) and the helpers
# they call, and gives, at each statement asked about, the values its names hold.  A value
# is a Python number, a tensor's shape (:class:`Tensor`), a ``TensorShape`` (:class:`Shape`),
# a tuple of values, a TF function, or unknown; a dimension is an int only where TF1's own
# shape inference gives that int (else None: unknown or unknowable, never read as a number).
#
# A top-level ``for`` loop the caller names (``loops``, for rewrites/loop_split.py) is followed
# iteration by iteration when its iterable is a known sequence (literals, and ``range``,
# ``enumerate``, ``zip``, ``reversed``, ``list``, ``tuple`` of known values) and its body
# cannot leave it early; the values before each wanted statement of its body are kept, one
# environment per iteration (:attr:`ModuleShapes.each`).  Every other loop may run its body
# any number of times: the names it binds are unknown after it.


class Unknown:
    """A value the rules do not derive."""

    def __repr__(self) -> str:
        return "?"


UNKNOWN = Unknown()


@dataclass(frozen=True)
class Tensor:
    """A graph tensor: its static dimensions (None: not proven), or None when its rank is not known."""

    dims: tuple[int | None, ...] | None


@dataclass(frozen=True)
class Shape:
    """A ``TensorShape`` read off a tensor (``x.get_shape()``, ``x.shape``)."""

    dims: tuple[int | None, ...] | None


@dataclass(frozen=True)
class ShapeOf:
    """``tf.shape(x)``: a graph tensor holding ``x``'s dimensions when the graph runs.  Only a
    shape argument reads it (``tf.random_uniform(shape=tf.shape(x))``), as TF1's shape
    inference did (its constant value as a shape: ``x``'s static dimensions); its items are no
    Python numbers, so nothing else derives a value from it."""

    dims: tuple[int | None, ...] | None


@dataclass(frozen=True)
class Symbol:
    """The value of an attribute of a method's object the evaluated statements did not store
    (``self.z_dim`` in ``build_model``): unknown here, but one number all along, where TF1's
    shapes held it; ``generation`` tells the object's states apart (a call that might change
    the object starts a new one).  A dimension holding it is written as ``key`` where the
    object is in the same state (rewrites/helper_split.py checks that)."""

    key: str  # ``self.z_dim``
    generation: int


@dataclass(frozen=True)
class Derived:
    """A Python int computed from static shapes (``int(x.get_shape()[1])``)."""

    value: int


@dataclass(frozen=True)
class NoneDimension:
    """A dimension TF1 did not know (``x.get_shape()[0]`` of a ``[None, 3]`` placeholder): a
    ``Dimension`` whose ``.value`` is None in TF1 (itself no None, and true as a bool), None
    itself with TF2's shapes (``tensorflow.compat.v1`` on TF2): neither is assumed."""


NONE_DIMENSION = NoneDimension()


@dataclass(frozen=True)
class Py:
    """A Python constant: int, float, bool, str or None."""

    value: object


@dataclass(frozen=True)
class Function:
    """A TensorFlow function named by reference (``activation=tf.nn.relu``)."""

    name: str


@dataclass(frozen=True)
class Sequence:
    items: tuple[object, ...]
    # what Python object holds the items when known ("list", "tuple"); "" when not
    kind: str = ""


@dataclass(frozen=True)
class PythonFunction:
    """A function of the standard library imported by the module (``functools.reduce``,
    ``operator.mul``), or a lambda written in place."""

    name: str
    node: cst.Lambda | None = None


@dataclass(frozen=True)
class Imported:
    """A function another module of the project defines, which this one imports (``from
    libs.utils import corrupt``): its ``def`` and its module, with that module's TF imports,
    so a call is followed as a helper of its own module (the names its body reads are its
    module's).  analysis/imported_helpers.py gives the ones a call may be followed into."""

    function: cst.FunctionDef
    module: cst.Module
    imports: TfImports
    source: str  # the module as the import names it (``libs.utils``, ``.utils``)


# the functions a module imports from the project that the evaluation follows, by the name
# the importing module binds
NO_IMPORTED: Mapping[str, Imported] = MappingProxyType({})


@dataclass
class Frame:
    """One evaluation of a helper at a call site: the shapes its shape reads saw, by node id."""

    reads: dict[int, Shape] = field(default_factory=dict)
    # the first op whose static shapes TF1's shape inference rejected while it built the call
    # (``h1 @ w2 + b2`` of shapes (?, 256) and (1024,)): the TF1 program raised there
    clash: str | None = None


@dataclass
class ModuleShapes:
    """What :func:`evaluate_module` found: the names' values before each statement asked
    about, and for each helper call of those statements, its frame."""

    before: dict[int, dict[str, object]] = field(default_factory=dict)
    frames: dict[int, Frame] = field(default_factory=dict)  # by id of the call
    # statements in the body of a followed loop: the names' values before it, at each iteration
    each: dict[int, list[dict[str, object]]] = field(default_factory=dict)
    # followed loops: the number of iterations of each time the loop ran
    runs: dict[int, list[int]] = field(default_factory=dict)
    # ``if`` statements asked about, met where the statements run once in order: the branch
    # their test takes (True: the body), when it is proven (for rewrites/static_branches.py)
    tests: dict[int, bool] = field(default_factory=dict)
    evaluator: _Evaluator | None = None

    def value(self, statement: cst.CSTNode, expression: cst.BaseExpression) -> object:
        """The value of an expression without calls (an argument) before ``statement``."""
        env = self.before.get(id(statement))
        if env is None or self.evaluator is None or find_all(expression, cst.Call):
            return UNKNOWN
        return self.evaluator.expression(expression, env, 1)

    def computed(self, statement: cst.CSTNode, expression: cst.BaseExpression) -> object:
        """The value of any expression of ``statement`` read with the names' values before
        it (for a simple statement: calls of the module's helpers are evaluated, nothing runs)."""
        env = self.before.get(id(statement))
        if env is None or self.evaluator is None:
            return UNKNOWN
        return self.evaluator.expression(expression, dict(env), 0)


# element-wise ops: the output has the input's shape
_SAME_SHAPE = frozenset(
    {
        "nn.relu", "nn.relu6", "nn.elu", "nn.selu", "nn.leaky_relu", "nn.softplus", "nn.softsign", "nn.sigmoid",
        "nn.tanh", "sigmoid", "tanh", "nn.dropout", "nn.softmax", "nn.log_softmax", "identity", "abs", "exp", "log",
        "square", "sqrt", "negative", "stop_gradient", "nn.l2_normalize", "round", "sign", "nn.bias_add", "cast",
    }
)  # fmt: skip
# values drawn with a given shape: the shape is the first argument or ``shape=``
_SHAPED = frozenset(
    {"truncated_normal", "random_normal", "random_uniform", "zeros", "ones", "random.truncated_normal", "random.normal", "random.uniform"}
)
_MAX_DEPTH = 6
_MAX_ITERATIONS = 1000  # a followed loop's iterations
# the functions of ``operator`` a fold may apply, as the binary operation each one is
_OPERATORS: dict[str, Any] = {"operator.mul": cst.Multiply, "operator.add": cst.Add, "operator.sub": cst.Subtract}
# the standard library functions the evaluation knows, by the module a file imports them from
_PYTHON_FUNCTIONS = frozenset({"functools.reduce", "math.sqrt", "numpy.sqrt", *_OPERATORS})
# the modules whose functions above an import binds (``import numpy as np``: ``np.sqrt``)
_PYTHON_MODULES = frozenset({"functools", "operator", "math", "numpy"})
# square roots: ``x_dim = np.sqrt(n_features)`` of a flattened square image; both round
# correctly (IEEE 754), so NumPy's float64 holds the number Python's float does
_SQUARE_ROOTS = frozenset({"math.sqrt", "numpy.sqrt"})
# what changes a list in place
_LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "__setitem__", "__iadd__"})
_AUGMENTED: dict[type, Any] = {
    cst.AddAssign: cst.Add,
    cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply,
    cst.FloorDivideAssign: cst.FloorDivide,
    cst.ModuloAssign: cst.Modulo,
    cst.DivideAssign: cst.Divide,
}


def evaluate_module(
    module: cst.Module,
    imports: TfImports,
    wanted: set[int],
    helpers: set[str],
    loops: frozenset[int] = frozenset(),
    imported: Mapping[str, Imported] = NO_IMPORTED,
) -> ModuleShapes:
    """The values before each top-level statement in ``wanted`` (ids), and the frames of the
    calls of ``helpers`` in them; the top-level ``for`` loops in ``loops`` (ids) are followed,
    their wanted body statements' values kept at each iteration.  Nothing is trusted where the module's names may change
    behind the text: ``from x import *``, ``globals()``, ``sys.modules``, a name a function declares ``global``.
    ``imported``: the project's functions its imports bind, followed at their calls."""
    found = ModuleShapes()
    evaluator = _module_evaluator(module, imports, found, wanted, helpers, loops, imported)
    if evaluator is not None:
        evaluator.block(list(module.body), {}, 0, top=True)
    return found


def evaluate_function(
    module: cst.Module,
    function: cst.FunctionDef,
    imports: TfImports,
    wanted: set[int],
    loops: frozenset[int],
    imported: Mapping[str, Imported] = NO_IMPORTED,
) -> ModuleShapes:
    """What :func:`evaluate_module` finds for the ``for`` loops in ``loops`` (ids) at the top
    of ``function``'s body, followed through one call of it where its parameters and the
    module's names it reads are unknown: a value proven there is the same at every call
    (it comes from the body's literals and TF1's shape rules alone).  Nothing is proven
    where a scope inside it may rebind its names (``nonlocal``, ``:=``) or it declares one
    ``global``."""
    found = ModuleShapes()
    if find_all(function.body, (cst.Nonlocal, cst.Global, cst.NamedExpr)) or not isinstance(function.body, cst.IndentedBlock):
        return found
    evaluator = _module_evaluator(module, imports, found, wanted, set(), loops, imported)
    if evaluator is not None:
        # its names are its own from the start (unknown until bound): no read of one falls
        # back to a module function or a builtin of the same name
        local = _local_names(function) | {p.name.value for p in find_all(function.params, cst.Param) if isinstance(p, cst.Param)}
        evaluator.shadowed |= local
        env = _imported_names(module, evaluator)
        evaluator.block(list(function.body.body), {**env, **dict.fromkeys(local, UNKNOWN)}, 0, top=True)
    return found


def evaluate_method(module: cst.Module, method: cst.FunctionDef, imports: TfImports, wanted: set[int], helpers: set[str]) -> ModuleShapes:
    """The frames of the calls of ``helpers`` (the module's functions) in the statements
    ``wanted`` (ids) of a method (``build_model(self)``), followed through one call of it
    where its parameters, the object's attributes and the module's names it reads are unknown,
    as :func:`evaluate_function` follows a function: a shape proven there is the same at
    every call.  The attributes the method stores on its object (``self.inputs =
    tf.placeholder(tf.float32, [bs, 784])``) hold their values until a call might change
    them (the object passed to a function that changes it or calls on it, a method called
    on it)."""
    found = ModuleShapes()
    params = method.params
    if not params.params or params.posonly_params:
        return found
    if find_all(method.body, (cst.Nonlocal, cst.Global, cst.NamedExpr)) or not isinstance(method.body, cst.IndentedBlock):
        return found
    evaluator = _module_evaluator(module, imports, found, wanted, helpers, frozenset())
    if evaluator is None:
        return found
    local = _local_names(method) | {p.name.value for p in find_all(method.params, cst.Param) if isinstance(p, cst.Param)}
    evaluator.shadowed |= local
    evaluator.tracked = {params.params[0].name.value}
    evaluator.method_locals = local - evaluator.tracked
    env = _imported_names(module, evaluator)
    evaluator.block(
        list(method.body.body), {**env, **dict.fromkeys(local, UNKNOWN), f"{params.params[0].name.value}.{_GENERATION}": 0}, 0, top=True
    )
    return found


def _imported_names(module: cst.Module, evaluator: _Evaluator) -> dict[str, object]:
    """The values the module's top-level imports bind, for a function or method evaluated
    alone (``import numpy as np`` at the top: the same module at every call), where the
    module binds the name once."""
    env: dict[str, object] = {}
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    env.update(evaluator.imported_values(small))
    bound_once = {n for n in env if sum(1 for s in module.body if n in _bound_names(s)) == 1 and n not in evaluator.unsafe}
    return {n: v for n, v in env.items() if n in bound_once}


def holds(env: dict[str, object], symbol: Symbol) -> bool:
    """Does ``symbol``'s attribute hold the same number where the names' values are ``env``
    (the object in the same state, the attribute not stored since)?"""
    root = symbol.key.partition(".")[0]
    return symbol.key not in env and env.get(f"{root}.{_GENERATION}") == symbol.generation


# the key of a tracked object's state (``self.#``), among its attributes' (``self.z_dim``)
_GENERATION = "#"


def _module_evaluator(
    module: cst.Module,
    imports: TfImports,
    found: ModuleShapes,
    wanted: set[int],
    helpers: set[str],
    loops: frozenset[int],
    imported: Mapping[str, Imported] = NO_IMPORTED,
) -> _Evaluator | None:
    """The evaluator of the module's statements (its functions followed as helpers), None
    where the module's names may change behind the text."""
    names = {n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name)}
    # the builtins by their names, not attributes so named (``accuracy.eval(feed_dict=...)``)
    attributes = {id(a.attr) for a in find_all(module, cst.Attribute) if isinstance(a, cst.Attribute)}
    builtins = {n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name) and id(n) not in attributes}
    if (
        "globals" in builtins
        or "vars" in builtins
        or "exec" in builtins  # (``exec("DEBUG = True")`` binds behind the text)
        or "eval" in builtins
        # (the module object itself, whose attributes are its names: ``setattr(sys.modules[__name__],
        # "mode", "eval")``, ``import __main__`` … ``__main__.mode = "eval"``)
        or names & {"modules", "import_module", "__import__", "__main__"}
        or any(isinstance(cst.ensure_type(i, cst.ImportFrom).names, cst.ImportStar) for i in find_all(module, cst.ImportFrom))
    ):
        return None
    unsafe = {n.name.value for g in find_all(module, cst.Global) for n in cst.ensure_type(g, cst.Global).names}
    for function in find_all(module, cst.FunctionDef):
        # a function changing a module list in place (``sizes[0] = 8``, ``sizes.append(3)``)
        function = cst.ensure_type(function, cst.FunctionDef)
        local = _local_names(function) | {p.name.value for p in find_all(function.params, cst.Param) if isinstance(p, cst.Param)}
        unsafe |= {root for root in _changed_roots(function, _LIST_METHODS) if root not in local}
    for held in find_all(module, cst.Lambda):  # (``grow = lambda: sizes.append(3)``, called later)
        held = cst.ensure_type(held, cst.Lambda)
        local = {p.name.value for p in find_all(held.params, cst.Param) if isinstance(p, cst.Param)}
        unsafe |= {root for root in _changed_roots(held.body, _LIST_METHODS) if root not in local}
    functions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
    bound_once = {name for name, node in functions.items() if sum(1 for s in module.body if name in _bound_names(s)) == 1}
    evaluator = _Evaluator(
        imports, {n: f for n, f in functions.items() if n in bound_once and not f.decorators}, unsafe, found, wanted, helpers
    )
    evaluator.loops = loops
    evaluator.imported = imported
    # a builtin an iterable calls is Python's only when the module binds no name like it
    evaluator.shadowed = {n for s in module.body for n in _bound_names(s)}
    found.evaluator = evaluator
    return evaluator


def _bound_arguments(node: cst.Call, function: cst.FunctionDef) -> dict[str, cst.Arg | None] | None:
    """The arguments of a call of ``function`` by its parameters' names (None: left to its
    default); None when they are not bound statically (``*args``, an unknown keyword)."""
    params = function.params
    if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None or params.posonly_params:
        return None
    names = tuple(p.name.value for p in (*params.params, *params.kwonly_params))
    bound = bind_arguments(node, names)
    if bound is None or set(bound) - set(names):
        return None
    return {name: bound.get(name) for name in names}


def _bound_names(statement: cst.CSTNode) -> set[str]:
    out: set[str] = set()
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return {statement.name.value}
    for node in find_all(statement, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.AsName, cst.ImportAlias, cst.NamedExpr)):
        target = getattr(node, "target", None) or getattr(node, "name", None)
        if isinstance(node, cst.ImportAlias):
            target = node.asname.name if node.asname is not None else cst.Name((dotted_name(node.name) or "_").partition(".")[0])
        out |= set(target_names(target))
    for node in find_all(statement, (cst.FunctionDef, cst.ClassDef)):
        out.add(cst.ensure_type(node, (cst.FunctionDef, cst.ClassDef)).name.value)  # type: ignore[arg-type]
    return out


class _Evaluator:
    def __init__(self, imports: TfImports, functions, unsafe: set[str], found: ModuleShapes, wanted: set[int], helpers: set[str]) -> None:
        self.imports = imports
        self.functions: dict[str, cst.FunctionDef] = functions
        self.unsafe = unsafe
        self.found = found
        self.wanted = wanted
        self.helpers = helpers
        self.frame: Frame | None = None
        self.globals: dict[str, object] = {}
        self.loops: frozenset[int] = frozenset()
        self.shadowed: set[str] = set()
        self.following = 0  # inside a followed loop
        # names of objects whose attributes the statements store and read (a method's
        # ``self``): ``self.x`` is held as ``"self.x"`` in the names' values
        self.tracked: set[str] = set()
        self.method_locals: set[str] = set()  # the names local to the method evaluated (evaluate_method)
        self.generations = 0
        self.imported: Mapping[str, Imported] = NO_IMPORTED
        # the evaluators of the modules of the functions followed there, by module id
        self.others: dict[int, _Evaluator | None] = {}

    # statements ------------------------------------------------------------------------

    def block(self, statements, env: dict[str, object], depth: int, top: bool = False) -> object | None:
        """Runs the statements; the returned value (a function's), or None when they fall through."""
        for statement in statements:
            if top and id(statement) in self.wanted:
                self.found.before[id(statement)] = {k: v for k, v in env.items() if k not in self.unsafe}
            elif self.following and depth == 0 and id(statement) in self.wanted:
                self.found.each.setdefault(id(statement), []).append({k: v for k, v in env.items() if k not in self.unsafe})
            returned = self.statement(statement, env, depth, top)
            if returned is not None:
                return returned
        return None

    def statement(self, statement, env, depth, top) -> object | None:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Return):
                    return self.expression(small.value, env, depth) if small.value is not None else Py(None)
                if isinstance(small, cst.Assign):
                    value = self.expression(small.value, env, depth)
                    for target in small.targets:
                        self.bind(target.target, value, env)
                elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and type(small.operator) in _AUGMENTED:
                    operator = _AUGMENTED[type(small.operator)]()
                    current = env.get(small.target.value, UNKNOWN)
                    env[small.target.value] = self.binary(operator, current, self.expression(small.value, env, depth))
                elif isinstance(small, cst.Expr):
                    self.expression(small.value, env, depth)
                else:
                    for name in _bound_names(small):
                        env[name] = UNKNOWN
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        env.update(self.imported_values(small))
                for root in _changed_roots(small):  # ``dims[0] = 5``, ``del dims[0]``, ``self.n += 1``
                    if not (root in self.tracked and _stores_attributes_only(small, root)):
                        self.forget(root, env)
            return None
        if isinstance(statement, cst.With):
            for item in statement.items:
                self.expression(item.item, env, depth)
                # ``with tf.variable_scope("D") as scope``: the name holds no shape followed here
                for name in _bound_names(item.asname) if item.asname is not None else ():
                    env[name] = UNKNOWN
            return self.block(list(cst.ensure_type(statement.body, cst.IndentedBlock).body), env, depth, top)
        if isinstance(statement, cst.If) and top and id(statement) in self.wanted:
            test = _branch_truth(self.expression(statement.test, env, depth)) if _decidable(statement.test, env) else None
            if test is not None:
                # the branch TF1 took while it built the graph: followed as statements run once
                self.found.tests[id(statement)] = test
                if test:
                    return self.block(list(cst.ensure_type(statement.body, cst.IndentedBlock).body), env, depth, top)
                if isinstance(statement.orelse, cst.If):
                    return self.statement(statement.orelse, env, depth, top)
                if statement.orelse is not None:
                    return self.block(list(cst.ensure_type(statement.orelse.body, cst.IndentedBlock).body), env, depth, top)
                return None
        if isinstance(statement, cst.If) and not top:
            test = self.truth(self.expression(statement.test, env, depth))
            if test is True:
                return self.block(list(cst.ensure_type(statement.body, cst.IndentedBlock).body), env, depth)
            if test is False:
                orelse = statement.orelse
                if orelse is None:
                    return None
                if isinstance(orelse, cst.If):
                    return self.statement(orelse, env, depth, top)
                return self.block(list(cst.ensure_type(orelse.body, cst.IndentedBlock).body), env, depth)
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            env.pop(statement.name.value, None)  # functions are looked up in ``self.functions``
            return None
        if isinstance(statement, cst.For) and id(statement) in self.loops and depth == 0 and (top or self.following):
            items = self.followed_items(statement, env, depth)
            if items is not None:
                self.found.runs.setdefault(id(statement), []).append(len(items))
                self.following += 1
                try:
                    for bound in items:
                        self.bind(statement.target, bound, env)
                        self.block(list(cst.ensure_type(statement.body, cst.IndentedBlock).body), env, depth)
                finally:
                    self.following -= 1
                return None
        # anything else may run its body any number of times, or not at all
        for name in _bound_names(statement):
            env[name] = UNKNOWN
        if not top and find_all(statement, cst.Return):
            return UNKNOWN
        return None

    def followed_items(self, loop: cst.For, env, depth) -> tuple[object, ...] | None:
        """The values a loop binds to its target, one per iteration, when the loop runs its
        whole body each time (no ``else``, nothing that leaves it early) over a known sequence."""
        if loop.orelse is not None or loop.asynchronous is not None or not isinstance(loop.body, cst.IndentedBlock):
            return None
        leaving = (cst.Break, cst.Continue, cst.Return, cst.Yield, cst.Raise, cst.Try, cst.While, cst.Global, cst.Nonlocal)
        if find_all(loop.body, leaving) or find_all(loop.body, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return None
        items = self.items(loop.iter, env, depth)
        return items if items is not None and len(items) <= _MAX_ITERATIONS else None

    def items(self, node: cst.BaseExpression, env, depth) -> tuple[object, ...] | None:
        """The items of a sequence a loop iterates: a known list or tuple, or ``range``,
        ``enumerate``, ``zip``, ``reversed``, ``list``, ``tuple`` of known values (Python's builtins)."""
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value not in self.shadowed:
            name = node.func.value
            if any(a.star or a.keyword is not None and not (name == "enumerate" and a.keyword.value == "start") for a in node.args):
                return None
            if name == "range" and 1 <= len(node.args) <= 3:
                bounds = [_int(self.expression(a.value, env, depth)) for a in node.args]
                if any(b is None for b in bounds) or len(bounds) == 3 and bounds[2] == 0:
                    return None
                numbers = range(*bounds)  # type: ignore[arg-type]
                return tuple(Py(n) for n in numbers) if len(numbers) <= _MAX_ITERATIONS else None
            if name == "enumerate" and 1 <= len(node.args) <= 2:
                source = self.items(node.args[0].value, env, depth)
                start = _int(self.expression(node.args[1].value, env, depth)) if len(node.args) == 2 else 0
                if source is None or start is None:
                    return None
                return tuple(Sequence((Py(start + i), item), "tuple") for i, item in enumerate(source))
            if name == "zip" and node.args:
                sources = [self.items(a.value, env, depth) for a in node.args]
                if any(s is None for s in sources):
                    return None
                return tuple(Sequence(tuple(group), "tuple") for group in zip(*sources))
            if name in ("reversed", "list", "tuple") and len(node.args) == 1:
                source = self.items(node.args[0].value, env, depth)
                return None if source is None else tuple(reversed(source)) if name == "reversed" else source
            if name in ("range", "enumerate", "zip", "reversed", "list", "tuple"):
                return None
        value = self.expression(node, env, depth)
        return value.items if isinstance(value, Sequence) and value.kind in ("list", "tuple") else None

    def forget(self, name: str, env) -> None:
        """``name``'s object may have changed in place: it, and every name holding the same
        list (or a list holding it), are unknown from here."""
        value = env.get(name)
        env[name] = UNKNOWN
        for held in [k for k in env if k.startswith(f"{name}.")]:  # (its attributes, where tracked)
            del env[held]
        if name in self.tracked:
            self.generations += 1
            env[f"{name}.{_GENERATION}"] = self.generations
        if isinstance(value, Sequence):
            for other, held in list(env.items()):
                if held is value or isinstance(held, Sequence) and any(i is value for i in held.items):
                    env[other] = UNKNOWN

    def bind(self, target, value, env) -> None:
        if isinstance(target, cst.Name):
            env[target.value] = value
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value in self.tracked:
            env[f"{target.value.value}.{target.attr.value}"] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            items = value.items if isinstance(value, Sequence) else None
            elements = target.elements
            if items is not None and len(items) == len(elements) and not any(isinstance(e, cst.StarredElement) for e in elements):
                for element, item in zip(elements, items):
                    self.bind(element.value, item, env)
            else:
                for name in _bound_names(cst.AssignTarget(target)):
                    env[name] = UNKNOWN
                for part in find_all(target, cst.Attribute):
                    self.bind(part, UNKNOWN, env)

    # expressions -----------------------------------------------------------------------

    def expression(self, node, env, depth) -> object:
        value = self._expression(node, env, depth)
        if self.frame is not None and isinstance(value, Shape) and is_shape_read(node):
            self.frame.reads[id(node)] = value
        return value

    def _expression(self, node, env, depth) -> object:
        if isinstance(node, cst.Integer):
            return Py(int(node.value, 0))
        if isinstance(node, cst.Float):
            return Py(float(node.value))
        if isinstance(node, cst.SimpleString):
            return Py(node.evaluated_value)
        if isinstance(node, cst.Name):
            if node.value in ("None", "True", "False"):
                return Py({"None": None, "True": True, "False": False}[node.value])
            if node.value in self.unsafe:
                return UNKNOWN  # a function may change it behind the text
            if node.value in env:
                return env[node.value]
            return self.function_value(node)
        if isinstance(node, (cst.Tuple, cst.List)):
            if any(isinstance(e, cst.StarredElement) for e in node.elements):
                return UNKNOWN
            kind = "list" if isinstance(node, cst.List) else "tuple"
            return Sequence(tuple(self.expression(e.value, env, depth) for e in node.elements), kind)
        if isinstance(node, cst.ListComp):
            return self.comprehension(node, env, depth)
        if isinstance(node, cst.Lambda):
            return PythonFunction("<lambda>", node)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            value = self.expression(node.expression, env, depth)
            return _number(-_int(value), value) if _int(value) is not None else UNKNOWN  # type: ignore[operator]
        if isinstance(node, cst.BinaryOperation):
            return self.binary(node.operator, self.expression(node.left, env, depth), self.expression(node.right, env, depth))
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            left = self.expression(node.left, env, depth)
            right = self.expression(node.comparisons[0].comparator, env, depth)
            operator = node.comparisons[0].operator
            if isinstance(operator, (cst.Is, cst.IsNot)) and isinstance(right, Py) and right.value is None:
                # (a known dimension is no None; one TF1 did not know is no None either, but is
                # with TF2's shapes, which code importing ``tensorflow.compat.v1`` runs with: unknown)
                known = isinstance(left, (Py, Function, Tensor, Derived))
                if known:
                    is_none = isinstance(left, Py) and left.value is None
                    return Py(is_none if isinstance(operator, cst.Is) else not is_none)
            return _compared(operator, left, right)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            truth = _branch_truth(self.expression(node.expression, env, depth))
            return Py(not truth) if truth is not None else UNKNOWN
        if isinstance(node, cst.BooleanOperation):
            # Python's short circuit: the right operand is read only when the left does not decide
            left = self.expression(node.left, env, depth)
            truth = _branch_truth(left)
            if truth is None:
                return UNKNOWN
            if truth is isinstance(node.operator, cst.Or):
                return left
            return self.expression(node.right, env, depth)
        if isinstance(node, cst.Attribute):
            return self.attribute(node, env, depth)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, env, depth)
        if isinstance(node, cst.Call):
            return self.call(node, env, depth)
        return UNKNOWN

    def function_value(self, node) -> object:
        name = self.imports.canonical(node)
        return Function(name) if name is not None else UNKNOWN

    def truth(self, value) -> bool | None:
        if isinstance(value, Py):
            return bool(value.value)
        if isinstance(value, Function):
            return True
        return None

    def binary(self, operator, left, right) -> object:
        a, b = _int(left), _int(right)
        if a is not None and b is not None:
            derived = isinstance(left, Derived) or isinstance(right, Derived)
            result = {cst.Add: lambda: a + b, cst.Subtract: lambda: a - b, cst.Multiply: lambda: a * b}.get(type(operator))
            if isinstance(operator, (cst.FloorDivide, cst.Modulo)) and b != 0:
                result = (lambda: a // b) if isinstance(operator, cst.FloorDivide) else (lambda: a % b)
            if result is None:
                return UNKNOWN
            return Derived(result()) if derived else Py(result())
        if _scalar(left) and _scalar(right):
            # a float scale (``W * (0.1 * n)``): never a dimension, only a scalar a tensor keeps its shape with
            x, y = _number_value(left), _number_value(right)
            floats = {cst.Add: lambda: x + y, cst.Subtract: lambda: x - y, cst.Multiply: lambda: x * y}.get(type(operator))
            if isinstance(operator, cst.Divide) and y != 0:
                return Py(x / y)
            return Py(floats()) if floats is not None else UNKNOWN
        if isinstance(operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
            if isinstance(left, Tensor) and isinstance(right, Tensor):
                broadcast = _broadcast(left, right)
                if broadcast is UNKNOWN:
                    self.clashed(f"shapes {_shape_text(left)} and {_shape_text(right)} do not broadcast")
                return broadcast
            if isinstance(left, Tensor) and _scalar(right):
                return left
            if isinstance(right, Tensor) and _scalar(left):
                return right
        return UNKNOWN

    def clashed(self, what: str) -> None:
        """Notes, in the frame of the helper call being evaluated, an op TF1 refused to build."""
        if self.frame is not None and self.frame.clash is None:
            self.frame.clash = what

    def attribute(self, node: cst.Attribute, env, depth) -> object:
        if self.imports.canonical(node) is not None:
            return self.function_value(node)
        if isinstance(node.value, cst.Name) and node.value.value in self.tracked:
            key = f"{node.value.value}.{node.attr.value}"
            if key in env:
                return env[key]
            generation = env.get(f"{node.value.value}.{_GENERATION}")
            return Symbol(key, generation) if isinstance(generation, int) else UNKNOWN
        holder = self.expression(node.value, env, depth)
        attr = node.attr.value
        if attr == "shape" and isinstance(holder, Tensor):
            return Shape(holder.dims)
        if attr == "value" and (isinstance(holder, (Derived, Py)) and isinstance(_int(holder), int) or isinstance(holder, Symbol)):
            return holder  # a TF1 Dimension's value
        if attr == "value" and (isinstance(holder, NoneDimension) or isinstance(holder, Py) and holder.value is None):
            return Py(None)
        if isinstance(holder, PythonFunction) and f"{holder.name}.{attr}" in _PYTHON_FUNCTIONS:
            return PythonFunction(f"{holder.name}.{attr}")  # ``operator.mul``
        if attr == "ndims" and isinstance(holder, Shape) and holder.dims is not None:
            return Derived(len(holder.dims))
        return UNKNOWN

    def subscript(self, node: cst.Subscript, env, depth) -> object:
        holder = self.expression(node.value, env, depth)
        if len(node.slice) != 1:
            return UNKNOWN
        index = node.slice[0].slice
        if isinstance(holder, (Shape, Sequence)):
            items = holder.dims if isinstance(holder, Shape) else holder.items
            if items is None:
                return UNKNOWN
            if isinstance(index, cst.Index):
                position = _int(self.expression(index.value, env, depth))
                if position is None or not -len(items) <= position < len(items):
                    return UNKNOWN
                item = items[position]
                if isinstance(holder, Shape):
                    return _dimension(item)
                return item
            if isinstance(index, cst.Slice) and index.step is None:
                bounds = [None if b is None else _int(self.expression(b, env, depth)) for b in (index.lower, index.upper)]
                if any(b is None and e is not None for b, e in zip(bounds, (index.lower, index.upper))):
                    return UNKNOWN
                part: Any = tuple(items[bounds[0] : bounds[1]])
                return Shape(part) if isinstance(holder, Shape) else Sequence(part, holder.kind)
        return UNKNOWN

    def call(self, node: cst.Call, env, depth) -> object:
        value = self._call(node, env, depth)
        func = node.func
        if (
            not (isinstance(func, cst.Name) and func.value in ("int", "len"))
            and self.imports.canonical(func) is None
            and not self.pure(func, env, depth)
        ):
            # a call of Python code may change the lists it is given, or the object it is a method of
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and not isinstance(value, (Shape, Sequence, Derived, Py))
            ):
                self.forget(func.value.value, env)
            for index, arg in enumerate(node.args):
                if isinstance(arg.value, cst.Name) and isinstance(env.get(arg.value.value), Sequence):
                    self.forget(arg.value.value, env)
                elif isinstance(arg.value, cst.Name) and arg.value.value in self.tracked and self.may_change(func, arg, index):
                    self.forget(arg.value.value, env)
        return value

    def may_change(self, func: cst.BaseExpression, arg: cst.Arg, index: int) -> bool:
        """May the call change the attributes of the tracked object passed as ``arg``?  Not a
        function of the module whose parameter taking it is only read from (``self.batch_size``),
        never stored into, passed on, or called on."""
        function = self.functions.get(func.value) if isinstance(func, cst.Name) else None
        if function is None or arg.star or function.params.star_arg != cst.MaybeSentinel.DEFAULT or function.params.posonly_params:
            return True
        names = [p.name.value for p in (*function.params.params, *function.params.kwonly_params)]
        if arg.keyword is not None:
            parameter = arg.keyword.value
        elif index < len(function.params.params):
            parameter = names[index]
        else:
            return True
        if parameter not in names or parameter in _changed_roots(function.body) or parameter in _local_names(function):
            return True
        for node in find_all(function.body, (cst.Call, cst.Name, cst.Arg)):
            if isinstance(node, cst.Arg) and isinstance(node.value, cst.Name) and node.value.value == parameter:
                return True  # passed on
            if isinstance(node, cst.Call) and root_name(node.func) == parameter:
                return True  # a method called on it
        return bool(find_all(function.body, (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.Global, cst.Nonlocal)))

    def _call(self, node: cst.Call, env, depth) -> object:
        func = node.func
        if isinstance(func, cst.Attribute) and self.imports.canonical(func) is None:
            holder = self.expression(func.value, env, depth)
            method = func.attr.value
            if isinstance(holder, PythonFunction):  # ``functools.reduce(...)``, ``np.sqrt(...)``
                return self.python_call(f"{holder.name}.{method}", node, env, depth)
            if method == "get_shape" and isinstance(holder, Tensor) and not node.args:
                return Shape(holder.dims)
            if isinstance(holder, Shape) and holder.dims is not None and not node.args:
                if method == "as_list":
                    return Sequence(tuple(Py(None) if d is None else _dimension(d) for d in holder.dims), "list")
                if method == "num_elements":
                    return Derived(_product(holder.dims)) if all(isinstance(d, int) for d in holder.dims) else Py(None)
            for arg in node.args:
                self.expression(arg.value, env, depth)
            return UNKNOWN
        if isinstance(func, cst.Name) and func.value not in env:
            if func.value == "int" and len(node.args) == 1 and not node.args[0].keyword:
                value = self.expression(node.args[0].value, env, depth)
                if isinstance(value, Py) and isinstance(value.value, float) and math.isfinite(value.value):
                    return Py(int(value.value))  # Python truncates toward zero
                return value if isinstance(value, (Derived, Py)) and isinstance(_int(value), int) or isinstance(value, Symbol) else UNKNOWN
            if func.value == "len" and len(node.args) == 1:
                value = self.expression(node.args[0].value, env, depth)
                if isinstance(value, Shape) and value.dims is not None:
                    return Derived(len(value.dims))
                return Py(len(value.items)) if isinstance(value, Sequence) else UNKNOWN
            if func.value in self.functions:
                return self.helper(node, self.functions[func.value], env, depth)
        callee = self.expression(func, env, depth)
        if isinstance(callee, Imported):
            return self.imported_call(callee, node, env, depth)
        if isinstance(callee, Function):
            return self.op(callee.name, node, env, depth)
        if isinstance(callee, PythonFunction):
            return self.python_call(callee.name, node, env, depth)
        return UNKNOWN

    def python_call(self, name: str, node: cst.Call, env, depth) -> object:
        """A call of a standard library (or NumPy) function the evaluation knows."""
        if name == "functools.reduce":
            return self.reduce(node, env, depth)
        if name in _SQUARE_ROOTS and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
            value = self.expression(node.args[0].value, env, depth)
            if _scalar(value) and _number_value(value) >= 0:
                return Py(math.sqrt(_number_value(value)))
        return UNKNOWN

    def pure(self, func: cst.BaseExpression, env, depth) -> bool:
        """Is ``func`` a standard library function the evaluation knows (it changes nothing it is
        given)?  Not a lambda called by name: its body may change what it reads (``box.append``)."""
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return False
        value = self.expression(func, env, depth)
        return isinstance(value, PythonFunction) and value.node is None

    def reduce(self, node: cst.Call, env, depth) -> object:
        """``functools.reduce(operator.mul, dims[, 1])`` (or a lambda of two names computing
        with ``+``, ``-``, ``*``) over a sequence of known items: Python's fold."""
        if not 2 <= len(node.args) <= 3 or any(a.keyword is not None or a.star for a in node.args):
            return UNKNOWN
        function = self.expression(node.args[0].value, env, depth)
        items = self.expression(node.args[1].value, env, depth)
        if not isinstance(function, PythonFunction) or not isinstance(items, Sequence):
            return UNKNOWN
        values = list(items.items)
        if len(node.args) == 3:
            values.insert(0, self.expression(node.args[2].value, env, depth))
        if not values:
            return UNKNOWN  # TypeError in Python
        result = values[0]
        for item in values[1:]:
            result = self.apply(function, result, item, env, depth)
        return result

    def apply(self, function: PythonFunction, left: object, right: object, env, depth) -> object:
        if function.node is None:
            operator = _OPERATORS.get(function.name)
            return self.binary(operator(), left, right) if operator is not None else UNKNOWN
        params = function.node.params
        names = [p.name.value for p in params.params]
        if len(names) != 2 or params.star_arg != cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.star_kwarg:
            return UNKNOWN
        if any(p.default is not None for p in params.params) or params.posonly_params:
            return UNKNOWN
        return self.expression(function.node.body, {**env, names[0]: left, names[1]: right}, depth)

    def comprehension(self, node: cst.ListComp, env, depth) -> object:
        """``[d.value for d in x.get_shape()]``: one ``for`` without conditions over a shape
        (its TF1 Dimensions) or a sequence of known length."""
        loop = node.for_in
        if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None or not isinstance(loop.target, cst.Name):
            return UNKNOWN
        source = self.expression(loop.iter, env, depth)
        if isinstance(source, Shape) and source.dims is not None:
            items: tuple[object, ...] = tuple(_dimension(d) for d in source.dims)
        elif isinstance(source, Sequence):
            items = source.items
        else:
            return UNKNOWN
        name = loop.target.value
        return Sequence(tuple(self.expression(node.elt, {**env, name: item}, depth) for item in items), "list")

    def helper(self, node: cst.Call, function: cst.FunctionDef, env, depth) -> object:
        if depth >= _MAX_DEPTH:
            return UNKNOWN
        bound = _bound_arguments(node, function)
        if bound is None:
            return UNKNOWN
        names = tuple(bound)
        # (a method's locals are none of the module's names the function reads)
        local: dict[str, object] = {k: v for k, v in env.items() if k not in self.method_locals} if depth == 0 else dict(self.globals)
        if depth == 0:
            self.globals = dict(local)
        local.update(self.parameters(function, bound, env, depth))
        for held in [k for k in local if "." in k and k.partition(".")[0] in names]:
            # the caller's object's attributes, for a parameter of the same name given that object alone
            passed = bound.get(held.partition(".")[0])
            if not (passed is not None and isinstance(passed.value, cst.Name) and passed.value.value == held.partition(".")[0]):
                del local[held]
        outer = self.frame
        self.frame = Frame() if depth == 0 and function.name.value in self.helpers else None
        if self.frame is not None:
            self.found.frames[id(node)] = self.frame
        try:
            returned = self.block(list(cst.ensure_type(function.body, cst.IndentedBlock).body), local, depth + 1)
        finally:
            self.frame = outer
        return Py(None) if returned is None else returned

    def parameters(self, function: cst.FunctionDef, bound: dict[str, cst.Arg | None], env, depth) -> dict[str, object]:
        """The values of ``function``'s parameters at a call (the arguments ``bound`` to them, read
        where the call stands; a literal default), and its other locals unknown."""
        local: dict[str, object] = {}
        params = function.params
        for param in (*params.params, *params.kwonly_params):
            arg = bound.get(param.name.value)
            if arg is not None:
                local[param.name.value] = self.expression(arg.value, env, depth)
            elif param.default is not None and isinstance(param.default, (cst.Integer, cst.Float, cst.SimpleString, cst.Name)):
                local[param.name.value] = (
                    self.expression(param.default, {}, depth)
                    if not isinstance(param.default, cst.Name) or param.default.value in ("None", "True", "False")
                    else UNKNOWN
                )
            else:
                local[param.name.value] = UNKNOWN
        for name in _local_names(function):
            local.setdefault(name, UNKNOWN)
        return local

    def imported_call(self, callee: Imported, node: cst.Call, env, depth) -> object:
        """A call of a function of another module of the project: its body followed by that
        module's evaluator (its TF imports, its functions), its parameters given the values
        the arguments have here; the names it reads from its module are unknown but for what
        that module's imports bind (it may change its globals at any time, for all this knows)."""
        if depth >= _MAX_DEPTH:
            return UNKNOWN
        if id(callee.module) not in self.others:
            self.others[id(callee.module)] = _module_evaluator(callee.module, callee.imports, ModuleShapes(), set(), set(), frozenset())
        other = self.others[id(callee.module)]
        bound = _bound_arguments(node, callee.function)
        if other is None or bound is None:
            return UNKNOWN
        local = _imported_names(callee.module, other)
        other.globals = dict(local)
        local.update(self.parameters(callee.function, bound, env, depth))
        returned = other.block(list(cst.ensure_type(callee.function.body, cst.IndentedBlock).body), local, depth + 1)
        return Py(None) if returned is None else returned

    def imported_values(self, statement: cst.Import | cst.ImportFrom) -> dict[str, object]:
        """What an import binds that the evaluation knows: standard library functions and
        modules (:func:`_python_imports`), and the project's functions it follows."""
        found = _python_imports(statement)
        if isinstance(statement, cst.ImportFrom) and not isinstance(statement.names, cst.ImportStar):
            named = dotted_name(statement.module) if statement.module is not None else None
            source = "." * len(statement.relative) + (named or "")
            for alias in statement.names:
                bound = cst.ensure_type(alias.asname.name if alias.asname is not None else alias.name, cst.Name).value
                callee = self.imported.get(bound)
                if callee is not None and (source, dotted_name(alias.name)) == (callee.source, callee.function.name.value):
                    found[bound] = callee
        return found

    def op(self, name: str, node: cst.Call, env, depth) -> object:
        def argument(keyword: str, position: int) -> object:
            found = call_argument(node, keyword, position)
            return self.expression(found, env, depth) if found is not None else None

        for arg in node.args:  # evaluated for the frames' reads, whatever the op
            self.expression(arg.value, env, depth)
        if name == "placeholder":
            return _tensor(argument("shape", 1))
        if name == "TensorShape" and len(node.args) == 1:
            # (a make function's ``tf.TensorShape(x_shape)``, given ``x.get_shape()``: the same dimensions)
            dims = argument("dims", 0)
            if isinstance(dims, Shape):
                return dims
            declared = _tensor(dims) if isinstance(dims, Sequence) else UNKNOWN
            return Shape(declared.dims) if isinstance(declared, Tensor) and declared.dims is not None else UNKNOWN
        if name in ("Variable",):
            initial = argument("initial_value", 0)
            return initial if isinstance(initial, Tensor) else Tensor(None)
        if name == "get_variable":
            return _tensor(argument("shape", 1))
        if name == "shape" and not any(a.keyword is not None and a.keyword.value not in ("input", "name", "out_type") for a in node.args):
            source = argument("input", 0)
            return ShapeOf(source.dims) if isinstance(source, Tensor) else UNKNOWN
        if name in _SHAPED or name == "constant" and call_argument(node, "shape", 2) is not None:
            return _tensor(argument("shape", 0 if name != "constant" else 2))
        if name in _SAME_SHAPE:
            source = argument("x", 0) if name not in ("nn.dropout",) else argument("x", 0)
            return source if isinstance(source, Tensor) else UNKNOWN
        if name in ("add", "subtract", "multiply", "maximum", "minimum", "math.maximum", "math.minimum"):  # broadcast alike
            return self.binary(cst.Add(), argument("x", 0), argument("y", 1))
        if name == "matmul" and len(node.args) == 2 and all(a.keyword is None or a.keyword.value in ("a", "b") for a in node.args):
            a, b = argument("a", 0), argument("b", 1)
            if (
                isinstance(a, Tensor)
                and isinstance(b, Tensor)
                and a.dims is not None
                and b.dims is not None
                and len(a.dims) == len(b.dims) == 2
            ):
                if isinstance(a.dims[1], int) and isinstance(b.dims[0], int) and a.dims[1] != b.dims[0]:
                    self.clashed(f"tf.matmul of shapes {_shape_text(a)} and {_shape_text(b)}")
                    return UNKNOWN
                return Tensor((a.dims[0], b.dims[1]))
            return UNKNOWN
        if name == "reshape":
            return _reshape(argument("tensor", 0), argument("shape", 1))
        if name in ("nn.conv2d", "nn.max_pool", "nn.avg_pool", "nn.max_pool2d", "nn.avg_pool2d"):
            return self.window(name, node, argument)
        if name in ("layers.dense",):
            return _dense(argument("inputs", 0), argument("units", 1))
        if name in ("layers.flatten", "contrib.layers.flatten"):
            source = argument("inputs", 0)
            if isinstance(source, Tensor) and source.dims is not None and len(source.dims) >= 2:
                rest = source.dims[1:]
                return Tensor((source.dims[0], _product(rest) if all(isinstance(d, int) for d in rest) else None))
            return UNKNOWN
        return UNKNOWN

    def window(self, name: str, node: cst.Call, argument) -> object:
        """``conv2d``/``max_pool``/``avg_pool`` in NHWC with literal strides and padding: TF1's
        output sizes, ceil(n / s) for SAME and ceil((n - k + 1) / s) for VALID."""
        known = {"input", "filter", "filters", "strides", "padding", "value", "ksize", "name", "use_cudnn_on_gpu"}
        if any(a.keyword is not None and a.keyword.value not in known for a in node.args):
            return UNKNOWN  # dilations, data_format: not modelled
        conv = name == "nn.conv2d"
        source = (
            argument("input", 0)
            if conv
            else (argument("value", 0) if call_argument(node, "value", 0) is not None else argument("input", 0))
        )
        strides = argument("strides", 2 if conv else 2)
        padding = argument("padding", 3)
        if conv:
            kernel = argument("filters", 1) if call_argument(node, "filters", 1) is not None else argument("filter", 1)
            window = (
                (kernel.dims[0], kernel.dims[1])
                if isinstance(kernel, Tensor) and kernel.dims is not None and len(kernel.dims) == 4
                else None
            )
            channels = kernel.dims[3] if window is not None and isinstance(kernel, Tensor) and kernel.dims is not None else None
        else:
            ksize = _ints(argument("ksize", 1))
            window = (ksize[1], ksize[2]) if ksize is not None and len(ksize) == 4 and ksize[0] == ksize[3] == 1 else None
            channels = None
        steps = _ints(strides)
        if (
            not isinstance(source, Tensor)
            or source.dims is None
            or len(source.dims) != 4
            or window is None
            or steps is None
            or len(steps) != 4
            or steps[0] != 1
            or steps[3] != 1
            or not isinstance(padding, Py)
            or padding.value not in ("SAME", "VALID")
        ):
            return UNKNOWN
        sizes: list[int | None] = []
        for size, k, s in zip(source.dims[1:3], window, steps[1:3]):
            if not isinstance(size, int) or k is None or s <= 0:
                sizes.append(None)
            elif padding.value == "SAME":
                sizes.append(-(-size // s))
            else:
                sizes.append(-(-(size - k + 1) // s) if size >= k else None)
        return Tensor((source.dims[0], sizes[0], sizes[1], channels if conv else source.dims[3]))


def _branch_truth(value: object) -> bool | None:
    """The truth of a bool the program made (a literal, a comparison); of nothing else: a
    number may be a TF1 ``Dimension``, which is true even when it is 0 or unknown (None)."""
    return value.value if isinstance(value, Py) and isinstance(value.value, bool) else None


# the comparisons a branch's test may make of two numbers (or two strings: ``==``, ``!=``)
_COMPARED: dict[type, Any] = {
    cst.Equal: lambda a, b: a == b,
    cst.NotEqual: lambda a, b: a != b,
    cst.LessThan: lambda a, b: a < b,
    cst.LessThanEqual: lambda a, b: a <= b,
    cst.GreaterThan: lambda a, b: a > b,
    cst.GreaterThanEqual: lambda a, b: a >= b,
}


def _compared(operator: cst.BaseCompOp, left: object, right: object) -> object:
    """Python's comparison of two known numbers (both ints or both floats), or the equality of
    two known strings.  Never of None: TF1 read ``x.get_shape()[0] != 3`` of an unknown dimension as a ``Dimension``
    comparison (None, false), where the None this evaluation gives it compares true."""
    compare = _COMPARED.get(type(operator))
    if compare is None:
        return UNKNOWN
    if _scalar(left) and _scalar(right):
        if isinstance(_number_value(left), float) is not isinstance(_number_value(right), float):
            # an int may be a TF1 ``Dimension``, which compares with no float (``x.get_shape()[1]
            # == 3.0`` of a declared 3 was False, ``< 3.5`` raised)
            return UNKNOWN
        return Py(bool(compare(_number_value(left), _number_value(right))))
    if isinstance(left, Py) and isinstance(right, Py) and isinstance(left.value, str) and isinstance(right.value, str):
        return Py(bool(compare(left.value, right.value))) if isinstance(operator, (cst.Equal, cst.NotEqual)) else UNKNOWN
    return UNKNOWN


# the calls a decided test may make: Python's ``len``/``int`` and a tensor's static shape
# (the evaluation knows nothing else a test calls, and none of these runs code of the module)
_TEST_CALLS = frozenset({"get_shape", "as_list", "num_elements"})


def _decidable(test: cst.BaseExpression, env: dict[str, object]) -> bool:
    """May the test be read without running it: no call but those of :data:`_TEST_CALLS` and
    ``len``/``int`` (Python's: not names the code binds), no ``:=``, no lambda?"""
    if find_all(test, (cst.NamedExpr, cst.Lambda, cst.Await, cst.Yield)):
        return False
    for call in find_all(test, cst.Call):
        func = cst.ensure_type(call, cst.Call).func
        if isinstance(func, cst.Name) and func.value in ("len", "int") and func.value not in env:
            continue
        if isinstance(func, cst.Attribute) and func.attr.value in _TEST_CALLS:
            continue
        return False
    return True


def _python_imports(statement: cst.Import | cst.ImportFrom) -> dict[str, object]:
    """The names an import binds to the standard library functions the evaluation knows
    (``from functools import reduce``, ``from operator import mul``), or to their modules
    (``import functools``, ``import operator``)."""
    found: dict[str, object] = {}
    if isinstance(statement, cst.ImportFrom):
        module = dotted_name(statement.module) if statement.module is not None and not statement.relative else None
        if module is None or isinstance(statement.names, cst.ImportStar):
            return found
        for alias in statement.names:
            qualified = f"{module}.{dotted_name(alias.name)}"
            if qualified in _PYTHON_FUNCTIONS:
                bound = alias.asname.name if alias.asname is not None else alias.name
                found[cst.ensure_type(bound, cst.Name).value] = PythonFunction(qualified)
        return found
    for alias in statement.names:
        module = dotted_name(alias.name)
        if module in _PYTHON_MODULES:
            bound = alias.asname.name if alias.asname is not None else alias.name
            found[cst.ensure_type(bound, cst.Name).value] = PythonFunction(module)
    return found


def _changed_roots(node: cst.CSTNode, methods: frozenset[str] = frozenset()) -> set[str]:
    """Names whose objects a statement changes in place: roots of subscript and attribute
    targets (assigned, augmented, deleted), and of calls of ``methods``."""
    out: set[str] = set()
    for found in find_all(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)):
        target = found.target  # type: ignore[attr-defined]
        for part in find_all(target, (cst.Subscript, cst.Attribute)):
            root = root_name(cst.ensure_type(part, (cst.Subscript, cst.Attribute)))  # type: ignore[arg-type]
            if root is not None:
                out.add(root)
    for call in find_all(node, cst.Call) if methods else ():
        func = cst.ensure_type(call, cst.Call).func
        if isinstance(func, cst.Attribute) and func.attr.value in methods:
            root = root_name(func.value)
            if root is not None:
                out.add(root)
    return out


def _stores_attributes_only(small: cst.CSTNode, root: str) -> bool:
    """Does the statement change ``root``'s object only by storing its attributes
    (``self.x = ...``, which the evaluation binds), not by ``self.x[0] = ...``, ``self.n += 1``, ``del``?"""
    if not isinstance(small, cst.Assign):
        return False
    for target in small.targets:
        for part in find_all(target.target, (cst.Subscript, cst.Attribute)):
            if root_name(cst.ensure_type(part, (cst.Subscript, cst.Attribute))) != root:  # type: ignore[arg-type]
                continue
            if not (isinstance(part, cst.Attribute) and isinstance(part.value, cst.Name)):
                return False
    return True


def _local_names(function: cst.FunctionDef) -> set[str]:
    return {n for s in cst.ensure_type(function.body, cst.IndentedBlock).body for n in _bound_names(s)}


def is_shape_read(node: cst.CSTNode) -> bool:
    """``t.get_shape()`` or ``t.shape`` of a name."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get_shape" and not node.args:
        return isinstance(node.func.value, cst.Name)
    return isinstance(node, cst.Attribute) and node.attr.value == "shape" and isinstance(node.value, cst.Name)


def proven_int(value: object) -> int | None:
    """The Python int a value is proven to be (a number read off static shapes, or a constant)."""
    return _int(value)


def _dimension(item: object) -> object:
    """A dimension of a shape, as Python reads it (``shape[1]``, ``as_list()``' items)."""
    if isinstance(item, int):
        return Derived(item)
    return item if isinstance(item, Symbol) else NONE_DIMENSION


def _int(value: object) -> int | None:
    if isinstance(value, Derived):
        return value.value
    if isinstance(value, Py) and isinstance(value.value, int) and not isinstance(value.value, bool):
        return value.value
    return None


def _scalar(value: object) -> bool:
    """A Python number (a tensor combined with it keeps its shape)."""
    return (
        isinstance(value, Derived) or isinstance(value, Py) and isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    )


def _number_value(value: object) -> int | float:
    """The number a :func:`_scalar` value holds."""
    assert isinstance(value, (Derived, Py)) and isinstance(value.value, (int, float))
    return value.value


def _number(result: int, like: object) -> object:
    return Derived(result) if isinstance(like, Derived) else Py(result)


def _ints(value: object) -> tuple[int, ...] | None:
    if not isinstance(value, Sequence):
        return None
    items = tuple(_int(i) for i in value.items)
    return None if any(i is None for i in items) else items  # type: ignore[return-value]


def _product(dims) -> int:
    out = 1
    for d in dims:
        out *= d
    return out


def _tensor(shape: object) -> object:
    """The tensor a shape argument declares: ints, ``None`` dimensions; else rank unknown."""
    if isinstance(shape, Sequence):
        dims: list[int | None] = []
        for item in shape.items:
            number = _int(item)
            if isinstance(item, Symbol):
                dims.append(item)  # type: ignore[arg-type]
            elif number is not None and number >= 0:
                dims.append(number)
            elif number is None:
                dims.append(None)  # ``None``, or a number the rules do not derive
            else:
                return UNKNOWN  # a negative size: TF1 would refuse it
        return Tensor(tuple(dims))
    if isinstance(shape, (Shape, ShapeOf)):
        return Tensor(shape.dims)
    return Tensor(None)


def _reshape(source: object, shape: object) -> object:
    if not isinstance(shape, Sequence):
        return UNKNOWN
    symbols = [i for i in shape.items if isinstance(i, Symbol)]
    numbers = [_int(i) for i in shape.items if not isinstance(i, Symbol)]
    if any(n is None or n < -1 for n in numbers) or numbers.count(-1) > 1:
        return UNKNOWN
    if -1 not in numbers:
        return Tensor(tuple(i if isinstance(i, Symbol) else _int(i) for i in shape.items))  # type: ignore[misc]
    known = _product(n for n in numbers if n != -1)
    total = source.dims if isinstance(source, Tensor) else None
    if total is not None and symbols:
        # ``tf.reshape(net, [self.batch_size, -1])`` of a ``[self.batch_size, 7, 7, 64]``: the
        # same number on both sides divides out, whatever it is
        rest: list[object] = list(total)
        for symbol in symbols:
            if symbol not in rest:
                return Tensor(tuple(None if _int(i) == -1 else i if isinstance(i, Symbol) else _int(i) for i in shape.items))  # type: ignore[misc]
            rest.remove(symbol)
        total = tuple(rest)  # type: ignore[arg-type]
    if total is not None and all(isinstance(d, int) for d in total) and known > 0 and _product(total) % known == 0:
        missing: int | None = _product(total) // known
    else:
        missing = None  # the fed size decides it (or TF1 knows what these rules do not)
    return Tensor(tuple(i if isinstance(i, Symbol) else missing if _int(i) == -1 else _int(i) for i in shape.items))  # type: ignore[misc]


def _shape_text(tensor: Tensor) -> str:
    """``(?, 256)``, as TF1 printed a static shape."""
    dims = tensor.dims or ()
    return "(" + ", ".join("?" if d is None else str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def _broadcast(a: Tensor, b: Tensor) -> object:
    if a.dims is None or b.dims is None:
        return Tensor(None)
    longer, shorter = (a.dims, b.dims) if len(a.dims) >= len(b.dims) else (b.dims, a.dims)
    padded = (1,) * (len(longer) - len(shorter)) + tuple(shorter)
    dims: list[int | None] = []
    for x, y in zip(longer, padded):
        if isinstance(x, Symbol) and x == y:
            dims.append(x)
        elif isinstance(x, Symbol) and y == 1 or isinstance(y, Symbol) and x == 1:
            dims.append(x if y == 1 else y)
        elif not isinstance(x, int) or not isinstance(y, int):
            dims.append(None)  # TF1 may know it; these rules do not claim it
        elif x == y or y == 1:
            dims.append(x)
        elif x == 1:
            dims.append(y)
        else:
            return UNKNOWN
    return Tensor(tuple(dims))


def _dense(source: object, units: object) -> object:
    number = _int(units)
    if isinstance(source, Tensor) and source.dims is not None and len(source.dims) >= 2 and number is not None:
        return Tensor((*source.dims[:-1], number))
    return UNKNOWN
