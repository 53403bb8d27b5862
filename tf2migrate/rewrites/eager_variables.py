"""``tf.get_variable`` → ``tf.Variable`` in code that became eager.

Outside a graph, TF1's variable store keeps nothing: ``tf.compat.v1.get_variable``
creates a new variable at every call, exactly as ``tf.Variable`` does (a graph that asks
the store for reuse is kept on TF1, analysis/shared_variables.py).  What is left of
``get_variable`` is its initializer, an object TF1 called with the variable's shape and
dtype; written out as the op it ran, the variable is plain TF2:

    W = tf.get_variable("W", shape=[784, 256], initializer=tf.contrib.layers.xavier_initializer())
    W = tf.Variable(tf.keras.initializers.GlorotUniform()([784, 256]), name="W")

Each initializer becomes the TF2 op or Keras initializer drawing from the same
distribution (TF1's defaults written out where TF2's differ: ``truncated_normal_initializer``'s
stddev 1.0, ``random_uniform_initializer``'s [0, 1)); no initializer is TF1's default for
floats, Glorot uniform.  The numbers drawn differ from TF1's, as for every random op of a
migration.  A file that sets what ``get_variable`` makes from the outside (a
``variable_scope`` with ``initializer=``, ``dtype=`` or ``custom_getter=``,
``get_variable_scope()``, ``arg_scope``) keeps every call.  Any other argument
(``regularizer=``, ``partitioner=``, ``collections=``…),
an initializer not in the table (``variance_scaling_initializer``, a tensor or NumPy
value, an initializer built elsewhere) or one called with arguments it does not know
keeps the call as ``tf.compat.v1.get_variable``, which still runs.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.shared_variables import sets_variable_defaults
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import API_RENAMED
from tf2migrate.traversal import find_all

# get_variable's parameters, in TF1's order, that the rewrite reads
_GET_VARIABLE_ORDER = ("name", "shape", "dtype", "initializer")
_GET_VARIABLE_KEYWORDS = frozenset({*_GET_VARIABLE_ORDER, "trainable"})
_FLOAT_DTYPES = frozenset({"float16", "float32", "float64", "bfloat16"})

# initializer → (its parameters in TF1's order, with TF1's defaults where TF2's op differs;
# how the initial value is written from the shape, the dtype keyword and those arguments)
_Writer = Callable[[str, list[str], dict[str, str]], str]


def _random(op: str) -> _Writer:
    return lambda shape, dtype, args: f"tf.random.{op}({', '.join([shape, *(f'{k}={v}' for k, v in args.items()), *dtype])})"


def _filled(op: str) -> _Writer:
    return lambda shape, dtype, args: f"tf.{op}({', '.join([shape, *dtype])})"


def _keras(cls: str) -> _Writer:
    def write(shape: str, dtype: list[str], args: dict[str, str]) -> str:
        seed = f"seed={args['seed']}" if "seed" in args else ""
        return f"tf.keras.initializers.{cls}({seed})({', '.join([shape, *dtype])})"

    return write


def _constant(shape: str, dtype: list[str], args: dict[str, str]) -> str:
    # a scalar fills the shape in TF1 and TF2 alike; the variable is float32 unless told
    return f"tf.constant({args['value']}, shape={shape}, {(dtype or ['dtype=tf.float32'])[0]})"


_INITIALIZERS: dict[str, tuple[tuple[str, ...], dict[str, str], _Writer]] = {
    "zeros_initializer": ((), {}, _filled("zeros")),
    "ones_initializer": ((), {}, _filled("ones")),
    "constant_initializer": (("value",), {}, _constant),
    "random_normal_initializer": (("mean", "stddev", "seed"), {}, _random("normal")),
    "truncated_normal_initializer": (("mean", "stddev", "seed"), {"stddev": "1.0"}, _random("truncated_normal")),
    "random_uniform_initializer": (("minval", "maxval", "seed"), {}, _random("uniform")),
    "glorot_uniform_initializer": (("seed",), {}, _keras("GlorotUniform")),
    "initializers.glorot_uniform": (("seed",), {}, _keras("GlorotUniform")),
    "glorot_normal_initializer": (("seed",), {}, _keras("GlorotNormal")),
    "initializers.glorot_normal": (("seed",), {}, _keras("GlorotNormal")),
    # (uniform=False is a truncated normal of TF1's own 1.3 factor, not Glorot's)
    "contrib.layers.xavier_initializer": (("uniform", "seed"), {}, _keras("GlorotUniform")),
}


def plan_eager_variables(module: cst.Module, facts: GraphFacts, plan: Plan) -> None:
    if any(sets_variable_defaults(facts.imports, call) for call in facts.calls):
        return
    prefixes = _scope_prefixes(module, facts)
    for call in facts.calls:
        if facts.imports.call_name(call) == "get_variable":
            _plan_get_variable(module, facts, plan, call, prefixes.get(id(call)))


def _scope_prefixes(module: cst.Module, facts: GraphFacts) -> dict[int, str | None]:
    """``get_variable`` call → the names of the variable scopes opened up around it
    (analysis/graph.py), ``"layer1/"``, so that its variable keeps TF1's name; None when
    one of them is not a string written out, or a scope kept around it would come first."""
    out: dict[int, str | None] = {}
    opened = {id(w) for scope in facts.scopes for w, kind in scope.unwrapped.values() if kind == "variables"}
    for with_node in find_all(module, cst.With):
        kept = id(with_node) not in opened and any(
            facts.imports.call_name(item.item) == "variable_scope" for item in cst.ensure_type(with_node, cst.With).items
        )
        if kept:
            out.update({id(call): None for call in find_all(with_node, cst.Call)})
    for scope in facts.scopes:
        for with_node, kind in scope.unwrapped.values():  # outer blocks before the blocks they hold
            if kind != "variables":
                continue
            name = cst.ensure_type(with_node.items[0].item, cst.Call).args[0].value
            text = name.evaluated_value if isinstance(name, cst.SimpleString) else None
            if isinstance(text, str) and not text.replace("_", "a").replace("-", "a").isalnum():
                text = None  # written into a literal: plain names only
            for call in find_all(with_node.body, cst.Call):
                if id(call) not in out or out[id(call)] is not None:
                    out[id(call)] = None if not isinstance(text, str) else f"{out.get(id(call)) or ''}{text}/"
    return out


def _arguments(call: cst.Call, order: tuple[str, ...]) -> dict[str, int] | None:
    """Parameter name → index in ``call.args``; None for a star argument or too many positionals."""
    out: dict[str, int] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if len(out) >= len(order):
                return None
            out[order[len(out)]] = index
        else:
            out[arg.keyword.value] = index
    return out


def _plan_get_variable(module: cst.Module, facts: GraphFacts, plan: Plan, call: cst.Call, prefix: str | None) -> None:
    arguments = _arguments(call, _GET_VARIABLE_ORDER)
    if arguments is None or not arguments.keys() <= _GET_VARIABLE_KEYWORDS or not {"name", "shape"} <= arguments.keys():
        return
    dtype_index = arguments.get("dtype")
    if dtype_index is not None:
        dtype_path = facts.imports.canonical(call.args[dtype_index].value)
        if dtype_path is None or ("initializer" not in arguments and dtype_path not in _FLOAT_DTYPES):
            return  # a dtype not written as tf.X, or TF1's default initializer (for floats only) of another
    initializer = call.args[arguments["initializer"]].value if "initializer" in arguments else None
    path = "glorot_uniform_initializer"
    init_arguments: dict[str, int] = {}
    if initializer is not None:
        if not isinstance(initializer, cst.Call):
            return
        path = facts.imports.call_name(initializer) or ""
        if path not in _INITIALIZERS:
            return
        order, _, _ = _INITIALIZERS[path]
        found = _arguments(initializer, order)
        if found is None or not found.keys() <= set(order):
            return
        if "uniform" in found and not _is_true(initializer.args[found["uniform"]].value):
            return
        if path == "constant_initializer" and not _is_number(initializer.args[found["value"]].value):
            return  # TF1 pads a short list with its last value; TF2 refuses it
        init_arguments = found
        plan.call_replacements[id(initializer)] = lambda updated: updated  # written whole below, not renamed
    _, defaults, write = _INITIALIZERS[path]
    code = module.code_for_node

    def variable(updated: cst.Call) -> cst.BaseExpression:
        shape = code(updated.args[arguments["shape"]].value)
        dtype = [f"dtype={code(updated.args[dtype_index].value)}"] if dtype_index is not None else []
        args = dict(defaults)
        if initializer is not None:
            written = cst.ensure_type(updated.args[arguments["initializer"]].value, cst.Call)
            args.update({k: code(written.args[i].value) for k, i in init_arguments.items() if k != "uniform"})
        value = write(shape, dtype, args)
        name = updated.args[arguments["name"]].value
        if prefix and isinstance(name, cst.SimpleString) and name.prefix == "" and name.raw_value.isidentifier():
            name = name.with_changes(value=f"{name.quote}{prefix}{name.raw_value}{name.quote}")  # TF1's name, scope included
        keywords = [f"name={code(name)}"]
        if "trainable" in arguments:
            keywords.append(f"trainable={code(updated.args[arguments['trainable']].value)}")
        return cst.parse_expression(f"tf.Variable({value}, {', '.join(keywords)})")

    plan.call_replacements[id(call)] = variable
    plan.note(
        call,
        API_RENAMED.code,
        f"tf.get_variable → tf.Variable, its initial value drawn as tf.{path} drew it (eager TF2 shares no variables by name)",
    )


def _is_number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _is_true(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"
