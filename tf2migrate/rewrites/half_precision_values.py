"""Half-precision values a converted graph builds eagerly from Python numbers.

A converted graph's variables are made where their statements stood, eagerly.  Eager TF2
converts a Python float to a ``float16`` / ``bfloat16`` tensor through ``float32``: rounded
twice (``tf.Variable(2049.0001, dtype=tf.float16)`` is 2048), where TF1's graph made the
constant of the half-precision dtype at once (2050).  That holds for every eager op a
Python float meets a half-precision tensor in (``tf.constant(2049.0001, tf.float16)``,
``w * 2049.0001`` of a ``float16`` variable, ``tf.constant_initializer(2049.0001)``); a
NumPy ``float64`` value is converted as NumPy does, once.

So a variable statement of a converted graph that meets half precision (it names such a
dtype, or reads a name a statement meeting half precision binds: ``w2 = tf.Variable(w *
0.5)`` of a ``float16`` ``w``) may read Python numbers only as the value of
``tf.Variable(value, dtype=...)``, ``tf.constant(value, ...)`` or ``tf.convert_to_tensor``
given a half-precision dtype, the value written in number literals (``2049.0001``,
``[0.1, -2.0]``): it becomes ``np.asarray(value)`` (a float64 array, rounded once to the
dtype; ``np`` the name the module's ``import numpy`` binds before the statement, as for
the values fed to half-precision placeholders, rewrites/feeds.py).  A float literal an
operator applies to a cast to ``float32`` / ``float64`` (``tf.cast(w, tf.float32) * 3.0``)
meets that dtype, not half precision, and is let through.  Any other float literal,
or a Python value (a name or attribute that is no graph value nor NumPy, outside the shape
argument of a TF creator), keeps the graph on TF1 (TFM306, naming it).  The generated
functions are traced, where a Python float is a constant of the tensor's dtype at once, as
in TF1; one that runs eagerly and computes in half precision is refused
(rewrites/function_emission.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import call_argument
from tf2migrate.analysis.half_precision import half_precision, meets_half_precision
from tf2migrate.analysis.model import Kind, Scope, Statement
from tf2migrate.rewrites.feeds import numpy_at
from tf2migrate.rewrites.generated import SessionRewrite
from tf2migrate.traversal import preorder

# TF calls whose value (its keyword, its position) becomes a tensor of their dtype (its keyword, its position)
_VALUE_CALLS = {
    "Variable": (("initial_value", 0), ("dtype", None)),
    "constant": (("value", 0), ("dtype", 1)),
    "convert_to_tensor": (("value", 0), ("dtype", 1)),
}
# TF creators whose first argument is a shape (Python ints, not values of the tensor)
_SHAPE_FIRST = frozenset(
    {
        "zeros", "ones", "fill", "random_normal", "random_uniform", "truncated_normal", "random.normal",
        "random.uniform", "random.truncated_normal",
    }
)  # fmt: skip


def plan_half_precision_values(rewrite: SessionRewrite) -> None:
    half = set(rewrite.half_precision_names())
    runs = {id(site.call) for scope in rewrite.facts.scopes for site in scope.run_sites}  # their fetches are converted apart
    for scope in rewrite.facts.scopes:
        tensors: set[str] = set()  # the names eager statements bind to TF values (``c = tf.constant(...)``)
        for statement in scope.statements:
            eager = statement.kind is Kind.VARIABLE or statement.kind is Kind.PYTHON and _calls_tf(rewrite, statement.node, runs)
            if eager:
                tensors.update(statement.defines)
            if eager and meets_half_precision(statement, half) and not _convert(rewrite, scope, statement, tensors, runs):
                return


def _calls_tf(rewrite: SessionRewrite, node: cst.CSTNode, runs: set[int]) -> bool:
    """Does the statement call TF outside its runs (``c = tf.constant(...)``, a Python statement run eagerly)?"""
    if id(node) in runs:
        return False
    if isinstance(node, cst.Call) and rewrite.facts.imports.call_name(node) is not None:
        return True
    return any(_calls_tf(rewrite, child, runs) for child in node.children)


def _convert(rewrite: SessionRewrite, scope: Scope, statement: Statement, tensors: set[str], runs: set[int]) -> bool:
    """Write each Python-number value of a half-precision call in ``statement`` (an eager
    statement meeting half precision) as ``np.asarray(value)``; False (and the graph refused)
    when another Python number or value (not a graph value nor one of ``tensors``) reaches
    the statement's ops."""
    values: list[cst.BaseExpression] = []
    for node in preorder(statement.node):
        value = _half_value(rewrite, node) if isinstance(node, cst.Call) else None
        if value is not None:
            values.append(value)
    skipped = runs | {id(n) for value in values for n in preorder(value)}
    skipped |= {id(n) for node in preorder(statement.node) if isinstance(node, cst.Call) for n in _shape_nodes(rewrite, node)}
    skipped |= _beside_full_precision_casts(rewrite, statement.node)
    for node in _operands(rewrite, statement.node, skipped):
        if isinstance(node, cst.Float):
            return _refuse(rewrite, node, f"the Python float `{node.value}`")
        if (python := _python_value(rewrite, scope, statement, node)) is not None and python not in tensors:
            return _refuse(rewrite, node, f"the Python value `{python}`")
    if not values:
        return True
    numpy = numpy_at(rewrite, statement.node)
    if numpy is None:
        return _refuse(
            rewrite,
            values[0],
            f"the Python number `{rewrite.code(values[0])}`",
            " (the file has no `import numpy` at module level, before this statement, to convert it as TF1 did)",
        )
    for value in values:
        rewrite.plan.replace[id(value)] = cst.parse_expression(f"{numpy}.asarray({rewrite.code(value)})")
    return True


def _half_value(rewrite: SessionRewrite, call: cst.Call) -> cst.BaseExpression | None:
    """The value of ``tf.Variable(value, dtype=tf.float16)`` (``tf.constant``, ``tf.convert_to_tensor``)
    when it is written in number literals, one of them a float, and the dtype is half precision."""
    parameters = _VALUE_CALLS.get(rewrite.facts.imports.call_name(call) or "")
    if parameters is None:
        return None
    (value_keyword, value_position), (dtype_keyword, dtype_position) = parameters
    value = call_argument(call, value_keyword, value_position)
    dtype = call_argument(call, dtype_keyword, dtype_position if dtype_position is not None else len(call.args))
    if value is None or dtype is None or not half_precision(rewrite.code(dtype)) or not _literal_numbers(value):
        return None
    return value if any(isinstance(n, cst.Float) for n in preorder(value)) else None


def _beside_full_precision_casts(rewrite: SessionRewrite, node: cst.CSTNode) -> set[int]:
    """Ids of the float literals an arithmetic operator applies to the result of a cast to
    ``float32`` / ``float64`` (``tf.cast(w16, tf.float32) * 3.0``): TF converts such a literal
    to the cast's dtype, eagerly as TF1's graph did; it never meets half precision."""
    out: set[int] = set()
    for operation in preorder(node):
        if isinstance(operation, cst.BinaryOperation):
            for literal, other in ((operation.left, operation.right), (operation.right, operation.left)):
                if isinstance(literal, cst.Float) and _full_precision_cast(rewrite, other):
                    out.add(id(literal))
    return out


def _full_precision_cast(rewrite: SessionRewrite, node: cst.BaseExpression) -> bool:
    """``tf.cast(x, tf.float32)`` (``float64``, as a TF or NumPy dtype or a string), ``tf.to_float(x)``, ``tf.to_double(x)``."""
    if not isinstance(node, cst.Call):
        return False
    name = rewrite.facts.imports.call_name(node)
    if name in ("to_float", "to_double"):
        return True
    dtype = call_argument(node, "dtype", 1) if name == "cast" else None
    if dtype is None:
        return False
    code = rewrite.code(dtype)
    named = (
        isinstance(dtype, cst.SimpleString)
        or rewrite.facts.imports.canonical(dtype) is not None
        or _numpy_name(rewrite, code.split(".", 1)[0])
    )
    return named and code.rsplit(".", 1)[-1].strip("\"'") in _FULL_PRECISION


_FULL_PRECISION = frozenset({"float32", "float64", "double"})


def _literal_numbers(value: cst.BaseExpression) -> bool:
    """Is ``value`` a number literal (negated or not) or a nested list or tuple of them?"""
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
        return _literal_numbers(value.expression)
    if isinstance(value, (cst.List, cst.Tuple)):
        return bool(value.elements) and all(isinstance(e, cst.Element) and _literal_numbers(e.value) for e in value.elements)
    return isinstance(value, (cst.Float, cst.Integer))


def _shape_nodes(rewrite: SessionRewrite, call: cst.Call) -> list[cst.CSTNode]:
    """The nodes of a TF call's shape argument (``shape=``, or the first of a creator's)."""
    name = rewrite.facts.imports.call_name(call)
    if name is None:
        return []
    shape = call_argument(call, "shape", 0 if name in _SHAPE_FIRST else len(call.args))
    if name in ("get_variable", "compat.v1.get_variable"):
        shape = call_argument(call, "shape", 1)
    return list(preorder(shape)) if shape is not None else []


def _operands(rewrite: SessionRewrite, node: cst.CSTNode, skipped: set[int]) -> Iterator[cst.BaseExpression]:
    """The float literals, names and attributes whose values the statement's ops take
    (not a call's callee, a subscript's index, the targets, nor NumPy values), outside ``skipped``."""
    if id(node) in skipped or isinstance(node, cst.BaseExpression) and rewrite.numpy_values().is_numpy(node):
        return
    if isinstance(node, (cst.Float, cst.Name, cst.Attribute)):
        yield node
    elif isinstance(node, cst.Call):
        for arg in node.args:
            yield from _operands(rewrite, arg.value, skipped)
    elif isinstance(node, cst.Subscript):
        yield from _operands(rewrite, node.value, skipped)
    elif isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
        if node.value is not None:
            yield from _operands(rewrite, node.value, skipped)
    elif not isinstance(node, cst.Lambda):
        for child in node.children:
            yield from _operands(rewrite, child, skipped)


def _python_value(rewrite: SessionRewrite, scope: Scope, statement: Statement, value: cst.BaseExpression) -> str | None:
    """The code of ``value`` (a name or attribute the statement's ops take) when it is a Python
    value: not a graph value, a TF name nor the module's NumPy; else None."""
    if not isinstance(value, (cst.Name, cst.Attribute)):
        return None
    code = rewrite.module.code_for_node(value)
    root = code.split(".", 1)[0]
    if root in ("True", "False", "None") or rewrite.facts.imports.canonical(value) is not None or _numpy_name(rewrite, root):
        return None
    if isinstance(value, cst.Name) and scope.graph_statement(code, statement.order) is not None:
        return None
    if code.startswith("self.") and scope.graph_statement(code, statement.order) is not None:
        return None
    return code


def _numpy_name(rewrite: SessionRewrite, name: str) -> bool:
    """Is ``name`` the module's NumPy (``np.float16`` is a dtype, not a value)?"""
    return rewrite.numpy_values().numpy_module(len(rewrite.module.body)) == name


def _refuse(rewrite: SessionRewrite, node: cst.CSTNode, what: str, why: str = "") -> bool:
    rewrite.block(
        node,
        blockers.UNSUPPORTED_GRAPH_CODE,
        f"{what} meets a half-precision (float16 or bfloat16) tensor in a statement that runs eagerly in "
        "TF2: eagerly, TF2 rounds a Python float to float32 before the half-precision dtype (2049.0001 → 2048 in "
        f"float16), where TF1's graph rounded it once (2050){why}",
    )
    return False
