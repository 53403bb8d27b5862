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

An initializer bound to a name first (GAN code: ``w_init = tf.truncated_normal_initializer(mean=0,
stddev=0.02)``, then ``initializer=w_init`` for every weight) is the same object each time: it
is written out at each ``get_variable`` as if given there, when the binding is a statement of
its own (at the top of the function or module, or in ``with`` blocks), its arguments are
literals, and the name is bound nowhere else and read only as ``initializer=`` of calls written
out; the binding then goes away.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.shared_variables import sets_variable_defaults
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import API_RENAMED
from tf2migrate.traversal import find_all, preorder

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
    bindings = _initializer_bindings(module, facts)
    written: set[int] = set()  # the names read as ``initializer=`` of calls written out
    for call in facts.calls:
        if facts.imports.call_name(call) == "get_variable":
            _plan_get_variable(module, facts, plan, call, prefixes.get(id(call)), bindings, written)
    for binding in {id(b): b for b in bindings.values()}.values():
        if binding.reads and all(id(read) in written for read in binding.reads):
            plan.remove.add(id(binding.statement))  # read nowhere else any more


@dataclass
class _Binding:
    """``w_init = tf.truncated_normal_initializer(...)``: the statement, its call, and the
    names reading it (each the ``initializer=`` of a get_variable call after it)."""

    statement: cst.SimpleStatementLine
    initializer: cst.Call
    reads: list[cst.Name] = field(default_factory=list)


def _initializer_bindings(module: cst.Module, facts: GraphFacts) -> dict[int, _Binding]:
    """By id of each name read as a get_variable's ``initializer=``: the binding it reads,
    when that is proven the only value the name can have there."""
    uses: dict[int, cst.Call] = {}  # id of a name given as initializer= → its get_variable call
    for call in facts.calls:
        if facts.imports.call_name(call) == "get_variable":
            arguments = _arguments(call, _GET_VARIABLE_ORDER)
            value = call.args[arguments["initializer"]].value if arguments and "initializer" in arguments else None
            if isinstance(value, cst.Name):
                uses[id(value)] = call
    if not uses:
        return {}
    order = {id(node): index for index, node in enumerate(preorder(module))}  # the text's order
    out: dict[int, _Binding] = {}
    owners: list[cst.Module | cst.FunctionDef] = [module, *(f for f in find_all(module, cst.FunctionDef) if isinstance(f, cst.FunctionDef))]
    for owner in owners:
        for statement in _own_statements(owner.body):
            binding = _binding(facts, statement)
            if binding is None:
                continue
            name = cst.ensure_type(cst.ensure_type(statement.body[0], cst.Assign).targets[0].target, cst.Name)
            occurrences = _occurrences(owner, name.value)
            reads = [n for n in occurrences if n is not name]
            if all(id(n) in uses and order[id(n)] > order[id(statement)] for n in reads):
                binding.reads = reads
                out.update({id(n): binding for n in reads})
    return out


def _own_statements(body: cst.BaseSuite | Sequence[cst.BaseStatement]) -> list[cst.SimpleStatementLine]:
    """The simple statements of a body, and of the ``with`` blocks in it (which run them once, in order)."""
    if isinstance(body, cst.BaseSuite):
        statements: Sequence[cst.BaseStatement] = body.body if isinstance(body, cst.IndentedBlock) else ()
    else:
        statements = body
    out: list[cst.SimpleStatementLine] = []
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            out.append(statement)
        elif isinstance(statement, cst.With):
            out += _own_statements(statement.body)
    return out


def _binding(facts: GraphFacts, statement: cst.SimpleStatementLine) -> _Binding | None:
    """``name = tf.<initializer>(literal, ...)`` of the table, alone on its line."""
    if len(statement.body) != 1 or not isinstance(assign := statement.body[0], cst.Assign) or len(assign.targets) != 1:
        return None
    if not isinstance(assign.targets[0].target, cst.Name) or not isinstance(assign.value, cst.Call):
        return None
    if facts.imports.call_name(assign.value) not in _INITIALIZERS:
        return None
    if not all(_is_literal(arg.value) and not arg.star for arg in assign.value.args):
        return None
    return _Binding(statement, assign.value)


def _occurrences(owner: cst.CSTNode, name: str) -> list[cst.Name]:
    """Every ``name`` the owner binds or reads (attribute names and keywords aside)."""
    skipped = {id(n.attr) for n in find_all(owner, cst.Attribute) if isinstance(n, cst.Attribute)}
    skipped |= {id(a.keyword) for a in find_all(owner, cst.Arg) if isinstance(a, cst.Arg) and a.keyword is not None}
    return [n for n in find_all(owner, cst.Name) if isinstance(n, cst.Name) and n.value == name and id(n) not in skipped]


def _is_literal(node: cst.BaseExpression) -> bool:
    """A number, a string, True, False or None written out."""
    return _is_number(node) or isinstance(node, cst.SimpleString) or isinstance(node, cst.Name) and node.value in ("True", "False", "None")


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


def _plan_get_variable(
    module: cst.Module,
    facts: GraphFacts,
    plan: Plan,
    call: cst.Call,
    prefix: str | None,
    bindings: dict[int, _Binding],
    written: set[int],
) -> None:
    arguments = _arguments(call, _GET_VARIABLE_ORDER)
    if arguments is None or not arguments.keys() <= _GET_VARIABLE_KEYWORDS or not {"name", "shape"} <= arguments.keys():
        return
    dtype_index = arguments.get("dtype")
    if dtype_index is not None:
        dtype_path = facts.imports.canonical(call.args[dtype_index].value)
        if dtype_path is None or ("initializer" not in arguments and dtype_path not in _FLOAT_DTYPES):
            return  # a dtype not written as tf.X, or TF1's default initializer (for floats only) of another
    initializer = call.args[arguments["initializer"]].value if "initializer" in arguments else None
    bound = bindings.get(id(initializer)) if initializer is not None else None
    if bound is not None:
        initializer = bound.initializer  # ``initializer=w_init``: the call the name is bound to, written here
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
        if bound is None:
            plan.call_replacements[id(initializer)] = lambda updated: updated  # written whole below, not renamed
    _, defaults, write = _INITIALIZERS[path]
    code = module.code_for_node

    def variable(updated: cst.Call) -> cst.BaseExpression:
        shape = code(updated.args[arguments["shape"]].value)
        dtype = [f"dtype={code(updated.args[dtype_index].value)}"] if dtype_index is not None else []
        args = dict(defaults)
        if initializer is not None:
            given = bound.initializer if bound is not None else updated.args[arguments["initializer"]].value
            given = cst.ensure_type(given, cst.Call)  # (a bound one's arguments are literals: nothing to rename)
            args.update({k: code(given.args[i].value) for k, i in init_arguments.items() if k != "uniform"})
        value = write(shape, dtype, args)
        name = updated.args[arguments["name"]].value
        if prefix and isinstance(name, cst.SimpleString) and name.prefix == "" and name.raw_value.isidentifier():
            name = name.with_changes(value=f"{name.quote}{prefix}{name.raw_value}{name.quote}")  # TF1's name, scope included
        keywords = [f"name={code(name)}"]
        if "trainable" in arguments:
            keywords.append(f"trainable={code(updated.args[arguments['trainable']].value)}")
        return cst.parse_expression(f"tf.Variable({value}, {', '.join(keywords)})")

    plan.call_replacements[id(call)] = variable
    if bound is not None:
        written.add(id(call.args[arguments["initializer"]].value))
    # (a Glorot draw is written with Keras' class, which seeds its draw otherwise than TF1's op)
    keras_seed = initializer is not None and "seed" in init_arguments and write("s", [], {}).startswith("tf.keras.")
    plan.note(
        call,
        API_RENAMED.code,
        f"tf.get_variable → tf.Variable, its initial value drawn as tf.{path} drew it (eager TF2 shares no variables by name)"
        + ("; from its seed TF2's Keras initializer draws other values than TF1's" if keras_seed else ""),
    )


def _is_number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _is_true(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"
