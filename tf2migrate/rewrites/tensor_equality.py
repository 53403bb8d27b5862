"""TF variables hashed or compared with ``==``: TF1's identity semantics kept (TFM401).

TF1 hashed a ``tf.Variable`` (and any tensor) by identity and compared it with ``==`` by
identity, so libraries keyed dicts and sets by variables (a parameter table following
aliases: ``while p in aliases: p = aliases[p]``) and tested ``v in some_list``.  TF2's
tensors and variables are unhashable (``TypeError: Variable is unhashable``) and ``==``
compares their values element-wise: the dict or set use raises, and ``v in some_list`` or
``v == w`` of two scalar variables holding the same value answers ``True`` where TF1
answered ``False`` — no error, another result.  Nothing of this names a TF1 symbol, so the
renames leave such code as it was and the migrated file runs into it under TF2.

The same holds of every tensor: TF1 code comparing two graph tensors with ``==`` in Python
(``if h1 == h2:`` while building) took the identity branch, where eager TF2 (or a
``tf.function``'s autograph) compares the values and takes the other, and ``h in outputs``
raises in a ``tf.function`` ("a symbolic tensor as a Python bool").

Here CPython's tree of the file is read for values known to be variables — a call of
``tf.Variable`` / ``tf.get_variable`` / ``tf.get_local_variable`` (also under
``compat.v1``), an element of ``tf.trainable_variables()`` and the other variable lists, a
name bound to one, an item of a container filled with them (``table[name] = v``,
``params.append(v)``, a list display), an item read back from such a container, the
names a loop unpacks from an optimizer's ``compute_gradients(...)`` pairs (``for g, v in
gvs``) — or tensors: what a TensorFlow function returns (``tf.placeholder``, ``tf.matmul``,
``tf.nn.relu``; not its classes, scopes, collections, initializers, ``tf.group`` and the like,
nor the functions of ``tf.train``, ``tf.summary``, ``tf.gfile`` … which return other objects),
an operator applied to one, a slice of one — and each place one is hashed (a dict key or subscript, a set member, ``in``, ``hash``,
``.get``/``.pop``/``.setdefault``/``.add``/``.discard``) or compared (``==``, ``!=``,
``.index``/``.count``/``.remove`` of a list) is reported.  Names are resolved per function
scope (a name a function does not bind is its enclosing function's, then the module's).
Where there is one, ``tf.compat.v1.disable_tensor_equality()`` is written after the
module's TensorFlow import: TF2's switch back to TF1's identity hashing and equality of
tensors and variables, eager execution unchanged.  It holds for the whole program, which
was TF1 code reading ``==`` as identity throughout.  A file whose graph stays on TF1
(TFM404) needs none (eager execution disabled, TF1's hashing holds), and one that calls the
switch already, or disables eager execution, is left alone (a second run adds nothing).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tf2migrate.analysis.module_facts import ast_dotted_name
from tf2migrate.analysis.summaries import tf_aliases
from tf2migrate.analysis.tf_imports import TfImports

_MAKERS = frozenset({"Variable", "get_variable", "get_local_variable"})
# calls returning lists of the graph's variables: their elements are variables
_LISTS = frozenset(
    {"trainable_variables", "global_variables", "all_variables", "local_variables", "model_variables", "moving_average_variables"}
)
SWITCH = "disable_tensor_equality"
# top-level calls under which variables hash by identity already: the switch, or graph mode
# (a kept file, or one a first run kept: hashing is TF1's wherever eager execution is off)
_IDENTITY_SWITCHES = frozenset({SWITCH, "disable_eager_execution", "disable_v2_behavior"})
# TF functions returning no tensor (a scope, a collection, an op to run, a setting): the rest of
# ``tf.X`` / ``tf.nn.X`` … return tensors (classes, ``tf.Session``, are told by their capital)
_NOT_TENSORS = frozenset(
    {
        "variable_scope", "name_scope", "get_variable_scope", "get_default_graph", "get_default_session",
        "get_collection", "get_collection_ref", "add_to_collection", "add_to_collections", "group", "no_op",
        "control_dependencies", "device", "set_random_seed", "reset_default_graph", "as_dtype", "executing_eagerly",
        "make_template", "get_seed", "colocate_with", "container", "op_scope", "variable_op_scope", "arg_scope",
        "dimension_value", "global_variables_initializer", "local_variables_initializer", "initialize_all_variables",
        "initialize_local_variables", "initialize_variables", "variables_initializer", "tables_initializer",
        "enable_eager_execution", "disable_eager_execution", "disable_v2_behavior", "is_tensor", "py_function",
    }
)  # fmt: skip
_PLACEHOLDERS = frozenset({"placeholder", "placeholder_with_default", "sparse_placeholder"})
# namespaces whose functions return other objects (file handles, flags, writers, datasets, …)
_NOT_TENSOR_MODULES = frozenset(
    {
        "app", "flags", "logging", "gfile", "io", "saved_model", "test", "errors", "sysconfig", "train", "summary",
        "data", "estimator", "keras", "contrib", "python_io", "profiler", "config", "distribute", "debugging", "lite",
        "feature_column", "initializers", "dtypes", "resource_loader", "autograph", "experimental", "tpu", "saver",
        "compat", "version", "queue", "lookup", "tools", "examples",
    }
)  # fmt: skip
# methods hashing their argument (dicts and sets), and list methods comparing it with ``==``
_HASHING_METHODS = frozenset({"get", "pop", "setdefault", "add", "discard"})
_COMPARING_METHODS = frozenset({"index", "count", "remove"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_NO_VARIABLE = (
    ast.Constant,
    ast.JoinedStr,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.List,
    ast.Tuple,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.DictComp,
    ast.SetComp,
)


@dataclass(frozen=True)
class Site:
    line: int
    column: int  # 1-based
    text: str  # the variable's expression as written
    use: str  # what is done with it: "a dict key", "an `in` test", …
    origin: str  # where the variable was made
    kind: str = "variable"  # or "tensor"


@dataclass(frozen=True)
class _Made:
    """Where a TF value was made (the call as written), and whether it is a variable or a tensor."""

    where: str
    kind: str
    fed: bool = False  # a placeholder's: a dict keyed by it is a feed dict


def may_hash_variables(source: str) -> bool:
    """A cheap test before the tree is read: does the text name a variable maker or list, or
    compare with ``==`` / ``in``?"""
    return "ariable" in source or "==" in source or " in " in source


def switched_off(tree: ast.Module, imports: TfImports) -> bool:
    """Does a statement of the module's top level call ``disable_tensor_equality()`` or
    switch eager execution off?"""
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            path = _tf_path(node.value.func, imports)
            if path is not None and path.rpartition(".")[2] in _IDENTITY_SWITCHES:
                return True
    return False


def _tf_path(func: ast.expr, imports: TfImports) -> str | None:
    """``tf.compat.v1.get_variable`` → ``get_variable`` (with ``tf`` TensorFlow's alias); None
    for anything else, TensorFlow's module itself included."""
    return imports.canonical_dotted(ast_dotted_name(func)) or None


def _tf_tensor_function(func: ast.expr, imports: TfImports) -> bool:
    """Is ``func`` a TensorFlow function returning tensors (``tf.matmul``, ``tf.nn.relu``)?"""
    path = _tf_path(func, imports)
    if path is None:
        return False
    parts = path.split(".")
    return (
        not any(p[:1].isupper() or p.startswith("_") for p in parts)
        and parts[-1] not in _NOT_TENSORS
        and not parts[-1].endswith("initializer")
        and not (len(parts) > 1 and parts[0] in _NOT_TENSOR_MODULES)
    )


def _tf_function(func: ast.expr, imports: TfImports, names: frozenset[str]) -> str | None:
    """The name of ``tf.X`` or ``tf.compat.v1.X`` when X is one of ``names``."""
    path = _tf_path(func, imports)
    return path if path in names else None


class _Scopes:
    """Which scope binds each name: functions' locals (not declared global or nonlocal)."""

    def __init__(self, tree: ast.Module) -> None:
        self.parent: dict[int, ast.AST] = {}  # function → the scope it is defined in
        self.bound: dict[int, set[str]] = {}  # function → its locals
        self.scope_of: dict[int, ast.AST] = {}  # node → the scope it stands in
        self._walk(tree, tree)

    def _walk(self, node: ast.AST, scope: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            self.scope_of[id(child)] = scope
            if isinstance(child, _SCOPES):
                self.parent[id(child)] = scope
                self.bound[id(child)] = self._locals(child)
                self._walk(child, child)
            else:  # (a class body's names are read as its scope's)
                self._walk(child, scope)

    @staticmethod
    def _locals(function: ast.AST) -> set[str]:
        declared: set[str] = set()
        bound: set[str] = set()
        arguments = function.args  # type: ignore[attr-defined]
        for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg):
            if argument is not None:
                bound.add(argument.arg)
        stack = list(function.body) if isinstance(function.body, list) else [function.body]  # type: ignore[attr-defined]
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                declared.update(node.names)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
                stack.extend(node.decorator_list)
                continue  # (its body is its own scope)
            elif isinstance(node, ast.Lambda):
                continue
            stack.extend(ast.iter_child_nodes(node))
        return bound - declared

    def resolve(self, name: str, scope: ast.AST) -> tuple[int, str]:
        """The (scope, name) a read of ``name`` in ``scope`` refers to."""
        while id(scope) in self.parent:
            if name in self.bound[id(scope)]:
                return id(scope), name
            scope = self.parent[id(scope)]
        return id(scope), name


def hashed_variables(tree: ast.Module, imports: TfImports, every_value: bool = False) -> list[Site]:
    """Every place the module hashes or ``==``-compares a value known to be a TF variable or
    tensor; with ``every_value``, every place it hashes or compares anything (the migrated
    text, whose tensors are function arguments: a use of the original still there)."""
    if not imports.aliases:
        return []
    scopes = _Scopes(tree)
    variables: dict[tuple[int, str], _Made] = {}  # (scope, name) → where its variable was made
    containers: dict[tuple[int, str], _Made] = {}  # (scope, name) → where the variables it holds were made
    returning: dict[tuple[int, str], _Made] = {}  # (scope, function name) → where the variable it returns was made

    def key(node: ast.Name) -> tuple[int, str]:
        return scopes.resolve(node.id, scopes.scope_of.get(id(node), tree))

    def origin(node: ast.expr) -> _Made | None:
        """Where the variable or tensor ``node`` evaluates to was made, if it is one."""
        if isinstance(node, ast.Call):
            if _tf_function(node.func, imports, _MAKERS) is not None:
                return _Made(f"`{ast.unparse(node.func)}`", "variable")
            if _tf_tensor_function(node.func, imports):
                fed = _tf_function(node.func, imports, _PLACEHOLDERS) is not None
                return _Made(f"`{ast.unparse(node.func)}`", "tensor", fed)
            return returning.get(key(node.func)) if isinstance(node.func, ast.Name) else None
        if isinstance(node, ast.Name):
            return variables.get(key(node))
        if isinstance(node, ast.Subscript):
            # (an item of a container of them; a slice of a tensor is one)
            held = containers.get(key(node.value)) if isinstance(node.value, ast.Name) else None
            sliced = origin(node.value)
            return held or (_Made(sliced.where, "tensor") if sliced is not None else None)
        if isinstance(node, ast.BinOp):  # (``x * 2.0``: a tensor when an operand is one)
            made = origin(node.left) or origin(node.right)
            return _Made(f"an operator on {made.where.removeprefix('an operator on ')}", "tensor") if made is not None else None
        if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
            made = origin(node.operand)
            return _Made(f"an operator on {made.where.removeprefix('an operator on ')}", "tensor") if made is not None else None
        return None

    def holder(node: ast.expr) -> _Made | None:
        """Where the variables held by the container ``node`` were made, if it holds some."""
        if isinstance(node, ast.Call):
            listed = _tf_function(node.func, imports, _LISTS)
            if listed is not None:
                return _Made(f"`{ast.unparse(node.func)}()`", "variable")
            return pairs(node)
        if isinstance(node, ast.Name):
            return containers.get(key(node))
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return next((o for o in map(origin, node.elts) if o is not None), None)
        return None

    def pairs(node: ast.expr) -> _Made | None:
        """``opt.compute_gradients(...)``: a list of (gradient, variable) pairs."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "compute_gradients":
            return _Made(f"`{ast.unparse(node.func)}`", "variable")
        if isinstance(node, ast.Name):
            return pair_lists.get(key(node))
        return None

    def mark(table: dict[tuple[int, str], _Made], target: ast.expr, where: _Made | None) -> bool:
        if where is None or not isinstance(target, ast.Name) or key(target) in table:
            return False
        table[key(target)] = where
        return True

    nodes = list(ast.walk(tree))
    # lists of (gradient, variable) pairs, bound once to a name
    pair_lists: dict[tuple[int, str], _Made] = {}
    # A name is a variable when its bindings are plain assignments and loop targets (a
    # parameter, an unpacking, an augmented assignment … may bind anything), one of them a
    # variable and none a value that is plainly no variable (a literal, arithmetic, a display);
    # a name a loop unpacks from a list of (gradient, variable) pairs is one of the two
    bindings: dict[tuple[int, str], list[tuple[str, ast.expr]]] = {}  # → (how: "=", "for", "pair"; the value)
    stores: dict[tuple[int, str], int] = {}
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[key(node)] = stores.get(key(node), 0) + 1
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    bindings.setdefault(key(target), []).append(("=", node.value))
                    if pairs(node.value) is not None:
                        pair_lists.setdefault(key(target), pairs(node.value))  # type: ignore[arg-type]
        elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
            bindings.setdefault(key(node.target), []).append(("for", node.iter))
        elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Tuple) and len(node.target.elts) == 2:
            for element in node.target.elts:
                if isinstance(element, ast.Name):
                    bindings.setdefault(key(element), []).append(("pair", node.iter))
        elif isinstance(node, _SCOPES):
            arguments = node.args
            for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg):
                if argument is not None:
                    stores[id(node), argument.arg] = stores.get((id(node), argument.arg), 0) + 1
    changed = True
    while changed:  # (a fixed point: a container filled in one function, read in another)
        changed = False
        for name, bound in bindings.items():
            if name in variables or len(bound) != stores.get(name):
                continue
            made = [holder(value) if how == "for" else pairs(value) if how == "pair" else origin(value) for how, value in bound]
            where = next((m for m in made if m is not None), None)
            plainly_not = any(how == "=" and m is None and isinstance(value, _NO_VARIABLE) for (how, value), m in zip(bound, made))
            if where is not None and not plainly_not:
                variables[name] = where
                changed = True
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    changed |= mark(containers, target, holder(node.value))
                    if isinstance(target, ast.Subscript):
                        changed |= mark(containers, target.value, origin(node.value))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                returned = (origin(n.value) for n in _returns(node) if n.value is not None)
                where = next((o for o in returned if o is not None), None)
                if where is not None and (id(scopes.scope_of[id(node)]), node.name) not in returning:
                    returning[id(scopes.scope_of[id(node)]), node.name] = where
                    changed = True
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                if node.func.attr in ("append", "insert"):
                    changed |= mark(containers, node.func.value, origin(node.args[-1]))
                elif node.func.attr == "extend":
                    changed |= mark(containers, node.func.value, holder(node.args[0]))
    # feed dicts are keyed by graph tensors in TF1's runs, which a converted file no longer makes
    # (``feed_dict=`` or a run's second argument)
    fed = {id(k.value) for n in nodes if isinstance(n, ast.Call) for k in n.keywords if k.arg == "feed_dict"}
    fed |= {
        id(n.args[1])
        for n in nodes
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "run" and len(n.args) > 1
    }

    sites: list[Site] = []

    # names bound to dicts: a tensor subscripting anything else indexes a tensor (``x[n]``)
    dicts = {
        key(target)
        for node in nodes
        if isinstance(node, ast.Assign) and _is_dict(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }

    def report(node: ast.expr, use: str, container: ast.expr | None = None) -> None:
        where = _Made("", "") if every_value else origin(node)
        if where is None or (where.kind == "tensor" and use != "an `in` test" and "==" not in use and where.fed):
            return  # (a placeholder hashed is a feed dict's key: TF1 runs fed it, the converted ones take arguments)
        if container is not None and where.kind == "tensor" and not (isinstance(container, ast.Name) and key(container) in dicts):
            return
        sites.append(Site(node.lineno, node.col_offset + 1, ast.unparse(node), use, where.where, where.kind))

    for node in nodes:
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands, operands[1:]):
                if isinstance(op, (ast.In, ast.NotIn)):
                    report(left, "an `in` test")
                elif isinstance(op, (ast.Eq, ast.NotEq)):
                    for side, other in ((left, right), (right, left)):
                        if not (isinstance(other, ast.Constant) and other.value is None):
                            report(side, "an operand of `==`")
        elif isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            report(node.slice, "a subscript (a dict key)", node.value)
        elif isinstance(node, ast.Dict) and id(node) not in fed:
            for item in node.keys:
                if item is not None:
                    report(item, "a dict key")
        elif isinstance(node, ast.Set):
            for item in node.elts:
                report(item, "a set member")
        elif isinstance(node, (ast.DictComp, ast.SetComp)):
            report(
                node.key if isinstance(node, ast.DictComp) else node.elt, "a dict key" if isinstance(node, ast.DictComp) else "a set member"
            )
        elif isinstance(node, ast.Call) and node.args and _tf_path(node.func, imports) is None:  # (not `tf.add`)
            if isinstance(node.func, ast.Name) and node.func.id == "hash":
                report(node.args[0], "hashed")
            elif isinstance(node.func, ast.Attribute) and node.func.attr in _HASHING_METHODS:
                report(node.args[0], f"the key of `.{node.func.attr}`")
            elif isinstance(node.func, ast.Attribute) and node.func.attr in _COMPARING_METHODS:
                report(node.args[0], f"compared with `==` by `.{node.func.attr}`")
    unique = {(s.line, s.column, s.use): s for s in sites}
    return sorted(unique.values(), key=lambda s: (s.line, s.column))


def _is_dict(value: ast.expr) -> bool:
    """A dict display, comprehension or constructor (``dict()``, ``OrderedDict()``, ``defaultdict(list)``)."""
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return True
    name = ast_dotted_name(value.func) if isinstance(value, ast.Call) else None
    return name is not None and name.rpartition(".")[2] in ("dict", "OrderedDict", "defaultdict")


def _returns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """The function's own return statements (not its nested functions')."""
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        elif not isinstance(node, (*_SCOPES, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def switch_insertion(tree: ast.Module) -> tuple[int, str] | None:
    """Where ``disable_tensor_equality()`` goes in the migrated module: the line after its
    last top-level TensorFlow import, and the call as its alias spells it; None when no
    top-level import names TensorFlow (or ``tensorflow.compat.v1``)."""
    found = None
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports = tf_aliases(ast.Module([node], []))
            for name, path in imports.aliases.items():
                if path != "":  # (a TF symbol or submodule, not TensorFlow itself)
                    continue
                call = f"{name}.{SWITCH}()" if name in imports.v1_aliases else f"{name}.compat.v1.{SWITCH}()"
                assert node.end_lineno is not None
                found = (node.end_lineno, call)
    return found


def message(site: Site, written: bool) -> str:
    outcome = (
        "`tf.compat.v1.disable_tensor_equality()` added after the TensorFlow import (TF1's identity hashing and "
        "equality of tensors and variables, for the whole program)"
        if written
        else "add `tf.compat.v1.disable_tensor_equality()` after the TensorFlow import, or key by `.ref()`"
    )
    return (
        f"`{site.text}` is a TF {site.kind} (made by {site.origin}) used as {site.use}: TF2's variables and tensors are "
        f"unhashable and `==` compares their values, where TF1 hashed and compared them by identity; {outcome}"
    )
