"""Which sharded lookups surely read one table.

TF1's ``tf.nn.embedding_lookup(params, ids)`` (and ``embedding_lookup_sparse``,
``safe_embedding_lookup_sparse``, ``nce_loss``, ``sampled_softmax_loss``) takes a list of
shards, or a partitioned variable, and by default deals the ids out among them the "mod" way
(id ``i`` in shard ``i % n``); their TF2 namesakes always divide (id ``i`` in shard
``i // ceil(size / n)``): on several shards the same call reads other rows.  On one table both
read row ``i``.  So TF2's name is written only where ``params`` is proven one table; anything
else (a list, a name bound to one, ``tf.split``, ``tf.get_variable(..., partitioner=...)``, a
function's parameter, a value this module does not follow) keeps TF1's function.

Proven one table: a tuple (TF1 stacked it into one tensor too), a list of one item, a call of
a TensorFlow function that returns one tensor (not one of ``_LISTS``; ``get_variable`` only in a
module that names no partitioner), a NumPy call, a number, arithmetic or a slice of such values, and a
name (or ``self.x``) every binding of which in the module is a plain assignment of one, or a
parameter of a function of the module called only by its name, every call passing one
(``def embed(table, ids): return tf.nn.embedding_lookup(table, ids)``, ``embed(emb, ids)``).
"""

from __future__ import annotations

from collections import Counter, defaultdict

import libcst as cst

from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.names import names_bound, self_attribute
from tf2migrate.analysis.tf_imports import TfImports, dotted_name
from tf2migrate.traversal import find_all

#: TF1 paths looking ids up in shards → the parameter holding the shards, and its position.
SHARDED_PARAMETERS = {
    "nn.embedding_lookup": ("params", 0),
    "nn.embedding_lookup_sparse": ("params", 0),
    "nn.safe_embedding_lookup_sparse": ("embedding_weights", 0),
    "nn.nce_loss": ("weights", 0),
    "nn.sampled_softmax_loss": ("weights", 0),
}

# TensorFlow functions that return a Python list (or a partitioned variable, a list of shards)
_LISTS = frozenset(
    {
        "split",
        "unstack",
        "unpack",
        "meshgrid",
        "dynamic_partition",
        "gradients",
        "tuple",
        "identity_n",
        "py_func",
        "numpy_function",
        "py_function",
        "global_variables",
        "trainable_variables",
        "all_variables",
        "local_variables",
        "get_collection",
        "get_collection_ref",
        "nest.flatten",
        "create_partitioned_variables",
        "while_loop",
        "cond",
        "case",
        "map_fn",
        "scan",
        "foldl",
        "foldr",
    }
)
_VARIABLE_STORE = frozenset({"get_variable", "get_local_variable"})


def shards_argument(path: str, call: cst.Call) -> cst.Arg | None:
    """The argument holding the shards of a call of ``tf.<path>`` (one of SHARDED_PARAMETERS)."""
    keyword, position = SHARDED_PARAMETERS[path]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[position] if position < len(positional) else None


def one_table_lookups(module: cst.Module, imports: TfImports) -> set[int]:
    """The ids of the module's sharded-lookup calls whose shards are proven one table."""
    every_call = [cst.ensure_type(c, cst.Call) for c in find_all(module, cst.Call)]
    calls = [c for c in every_call if imports.canonical(c.func) in SHARDED_PARAMETERS]
    if not calls:
        return set()
    values = _Values(module, imports, every_call)
    out = set()
    for call in calls:
        arg = shards_argument(imports.canonical(call.func) or "", call)
        if arg is not None and values.one_table(arg.value, frozenset()):
            out.add(id(call))
    return out


class _Values:
    """What the module assigns to each name and ``self.x``, and whether a value is one table."""

    def __init__(self, module: cst.Module, imports: TfImports, calls: list[cst.Call]) -> None:
        self.imports = imports
        self.assigned: dict[str, list[cst.BaseExpression]] = defaultdict(list)
        self.bindings = Counter(names_bound(module))
        for node in find_all(module, (cst.Assign, cst.AnnAssign)):
            value: cst.BaseExpression | None
            if isinstance(node, cst.Assign):
                targets, value = [t.target for t in node.targets], node.value
            else:
                annotated = cst.ensure_type(node, cst.AnnAssign)
                targets, value = [annotated.target], annotated.value
            for target in targets:
                key = self_attribute(target) or (target.value if isinstance(target, cst.Name) else None)
                if key is not None and value is not None:
                    self.assigned[key].append(value)
        # name → the functions taking it as a parameter
        self.parameters: dict[str, list[tuple[cst.FunctionDef, cst.Param]]] = defaultdict(list)
        self.calls: dict[str, list[cst.Call]] = defaultdict(list)  # function name → its calls by name
        self.mentions = Counter(cst.ensure_type(n, cst.Name).value for n in find_all(module, cst.Name))
        for function in find_all(module, cst.FunctionDef):
            function = cst.ensure_type(function, cst.FunctionDef)
            parameters = function.params
            for param in (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params):
                self.parameters[param.name.value].append((function, param))
        for call in calls:
            if isinstance(call.func, cst.Name):
                self.calls[call.func.value].append(call)
        # a partitioner named anywhere (a variable scope's too) may make any get_variable shards
        self.partitioned = any(a.keyword is not None and a.keyword.value == "partitioner" for c in calls for a in c.args) or any(
            isinstance(n, cst.Attribute) and n.attr.value == "set_partitioner" for n in find_all(module, cst.Attribute)
        )

    def one_table(self, value: cst.BaseExpression, seen: frozenset[str]) -> bool:
        if isinstance(value, (cst.Tuple, cst.BaseNumber)):
            return True  # TF1 read a tuple as one tensor (its items stacked), as TF2 does
        if isinstance(value, cst.List):
            return len(value.elements) == 1 and not isinstance(value.elements[0], cst.StarredElement)
        if isinstance(value, cst.Call):
            return self._one_tensor_call(value)
        if isinstance(value, cst.BinaryOperation):
            return self.one_table(value.left, seen) and self.one_table(value.right, seen)
        if isinstance(value, cst.UnaryOperation):
            return self.one_table(value.expression, seen)
        if isinstance(value, cst.Subscript):
            return self.one_table(value.value, seen)
        key = self_attribute(value) or (value.value if isinstance(value, cst.Name) else None)
        if key is None or key in seen:
            return False
        assigned = list(self.assigned.get(key, []))
        if not key.startswith("self."):
            for function, param in self.parameters.get(key, []):
                passed = self._passed(function, param)
                if passed is None:
                    return False
                assigned += passed
        # every binding of the name an assignment or a parameter followed (a loop, ``+=``... may hold shards)
        if not assigned or (
            not key.startswith("self.") and self.bindings[key] != len(self.assigned.get(key, [])) + len(self.parameters.get(key, []))
        ):
            return False
        return all(self.one_table(v, seen | {key}) for v in assigned)

    def _passed(self, function: cst.FunctionDef, param: cst.Param) -> list[cst.BaseExpression] | None:
        """The values the calls of ``function`` give ``param``; None when not all are known (the
        function passed around or rebound, a method, a call with ``*args``)."""
        name = function.name.value
        calls = self.calls.get(name, [])
        if not calls or self.bindings[name] != 1 or self.mentions[name] != 1 + len(calls):
            return None
        positional = tuple(p.name.value for p in (*function.params.posonly_params, *function.params.params))
        values = []
        for call in calls:
            bound = bind_arguments(call, positional)
            if bound is None:
                return None
            if (arg := bound.get(param.name.value)) is not None:
                values.append(arg.value)
            elif param.default is not None:
                values.append(param.default)
            else:
                return None
        return values

    def _one_tensor_call(self, call: cst.Call) -> bool:
        path = self.imports.canonical(call.func)
        if path is None:
            dotted = dotted_name(call.func) or ""
            return dotted.split(".")[0] in ("np", "numpy")  # an array: one table
        if path in _VARIABLE_STORE:
            return not self.partitioned
        return path not in _LISTS
