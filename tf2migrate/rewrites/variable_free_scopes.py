"""``with tf.variable_scope(name):`` around code that makes no variable → ``with tf.name_scope(name):``.

Library helpers of TF1 tutorials name their ops with a variable scope even where no
variable is made (pkmital's ``libs/activations.py``)::

    def lrelu(x, leak=0.2, name="lrelu"):
        with tf.variable_scope(name):
            f1 = 0.5 * (1 + leak)
            return f1 * x + (0.5 * (1 - leak)) * abs(x)

Without a variable made in it, a variable scope did one thing: it opened the name scope of
the same name (made unique, ``lrelu_1`` for the second call, as ``tf.name_scope`` does), so
its ops were named under it.  ``tf.name_scope(name)`` does exactly that, in TF2's eager code,
in ``tf.function`` traces and in TF1 graphs alike, where ``tf.compat.v1.variable_scope`` would
keep the file on ``compat.v1`` for nothing.

Converted only when provably nothing in the block reads or makes variables: each call in it
is a TF function that makes none (``tf.matmul``, ``tf.nn.relu``, pooling and dropout layers,
not ``tf.get_variable``, ``tf.Variable``, layers with weights, RNN cells or
``tf.get_variable_scope``), a builtin that runs no code of the program's (``abs``, ``len``,
``range``…), or a nested variable scope converted by the same rule; the scope is given one
name that is a string (a literal, a formatted one, or a parameter whose default is a string
literal), no other argument, and no ``as`` target.  Anything else keeps
``tf.compat.v1.variable_scope`` (TFM401): a function of the program called in the block may
make variables, whose names and reuse the variable scope decided.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from tf2migrate.analysis.catalogue import layer_makes_no_variables, makes_variables
from tf2migrate.analysis.model import GraphFacts
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import string_valued
from tf2migrate.traversal import find_all, preorder

VARIABLE_FREE_SCOPE = Rule(
    "TFM130",
    "variable-free-scope",
    "`with tf.variable_scope(name):` around code that makes no variable → `with tf.name_scope(name):`.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Writes a variable scope whose block calls only TF functions that make no variables (and builtins) as the name scope it opened.",
    why="Without variables, TF1's variable scope only named the block's ops, as `tf.name_scope` does (the same unique "
    "names); `tf.compat.v1.variable_scope` would keep the file on compat.v1 for nothing. A block calling a function of "
    "the program keeps the variable scope: that function may make variables, which the scope named and reused.",
    example='def lrelu(x, leak=0.2, name="lrelu"):\n    with tf.variable_scope(name):\n        return tf.maximum(x, leak * x)',
    instead='def lrelu(x, leak=0.2, name="lrelu"):\n    with tf.name_scope(name):\n        return tf.maximum(x, leak * x)',
    invalid=(
        "import tensorflow as tf\n\n\n"
        'def lrelu(x, leak=0.2, name="lrelu"):\n'
        "    with tf.variable_scope(name):\n"
        "        return tf.maximum(x, leak * x)\n",
    ),
    valid=(
        "import tensorflow as tf\n\n\n"
        "def dense(x, n):\n"
        '    with tf.variable_scope("dense"):\n'
        '        w = tf.get_variable("w", [int(x.shape[1]), n])\n'
        "        return tf.matmul(x, w)\n",
        'import tensorflow as tf\n\n\ndef block(x, layer):\n    with tf.variable_scope("block"):\n        return layer(x)\n',
    ),
)
RULES = [VARIABLE_FREE_SCOPE]

# builtins that run none of the program's code on the values they are given
_PLAIN_BUILTINS = frozenset(
    {
        "abs",
        "len",
        "range",
        "int",
        "float",
        "bool",
        "str",
        "min",
        "max",
        "list",
        "tuple",
        "zip",
        "enumerate",
        "isinstance",
        "print",
        "round",
    }
)
# TF functions that read the variable scope itself: its name, its reuse flag, its variables
_READS_VARIABLE_SCOPE = frozenset(
    {
        "get_variable_scope",
        "variable_scope",
        "variable_op_scope",
        "get_local_variable",
        # TF functions making their variables by ``get_variable``, named under the scope
        "train.create_global_step",
        "train.get_or_create_global_step",
        "feature_column.input_layer",
        "feature_column.linear_model",
    }
)
# TF functions that run a function of the program (which may make variables, under the scope)
_RUN_PROGRAM_CODE = frozenset(
    {
        "map_fn",
        "scan",
        "foldl",
        "foldr",
        "while_loop",
        "cond",
        "case",
        "switch_case",
        "vectorized_map",
        "py_func",
        "py_function",
        "numpy_function",
        "make_template",
        "custom_gradient",
        "recompute_grad",
        "function",
    }
)
# methods of tensors and static shapes that read them
_SHAPE_METHODS = frozenset({"get_shape", "as_list"})


def may_have_variable_free_scopes(source: str, tree: ast.Module, aliases) -> bool:
    """A cheap test on CPython's tree that the rule may act (the renames-only path then hands
    the file to the whole-module one): a ``with <alias>.variable_scope(x):`` (one argument,
    no ``as``) whose block calls only attributes of a TF alias, builtins and shape methods."""
    if "variable_scope" not in source:
        return False
    for node in _withs(tree.body):
        if len(node.items) != 1 or node.items[0].optional_vars is not None:
            continue
        call = node.items[0].context_expr
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "variable_scope"):
            continue
        if len(call.args) != 1 or call.keywords:
            continue
        if all(_cheap_plain_call(c, aliases) for statement in node.body for c in ast.walk(statement) if isinstance(c, ast.Call)):
            return True
    return False


def _withs(body: list[ast.stmt]) -> Iterator[ast.With]:
    """The ``with`` statements among ``body`` and the statements nested in it (a ``with`` is a
    statement: the expressions, most of the tree, need no visit)."""
    for statement in body:
        if isinstance(statement, ast.With):
            yield statement
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(statement, field, None)
            if inner:
                yield from _withs(inner)


def _cheap_plain_call(call: ast.Call, aliases) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in _PLAIN_BUILTINS
    if isinstance(func, ast.Attribute) and func.attr in _SHAPE_METHODS:
        return True
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not (isinstance(func, ast.Name) and func.id in aliases):
        return False
    return _plain_tf_call(".".join(reversed(parts)))


def plan_variable_free_scopes(module: cst.Module, facts: GraphFacts, plan: Plan) -> None:
    # (the analysis listed a graph's calls: a module with no candidate scope is walked no more;
    # a file with no graph was not analysed, its calls are found here)
    calls = facts.calls or [cst.ensure_type(c, cst.Call) for c in find_all(module, cst.Call)]
    candidates = {id(call) for call in calls if _is_scope_call(facts, call)}
    if not candidates:
        return
    names = _ModuleNames(module)
    for with_ in find_all(module, cst.With):
        assert isinstance(with_, cst.With)
        call = with_.items[0].item if len(with_.items) == 1 and with_.items[0].asname is None else None
        if call is None or id(call) not in candidates:
            continue
        assert isinstance(call, cst.Call)
        if id(call) in plan.call_replacements or id(with_) in plan.unwrap or id(with_) in plan.remove:
            continue
        if not _names_by_string(names, with_, call.args[0].value) or not _makes_no_variables(facts, with_.body, names):
            continue
        plan.call_replacements[id(call)] = lambda updated: updated.with_changes(func=cst.parse_expression("tf.name_scope"))
        plan.note(call, VARIABLE_FREE_SCOPE.code, "tf.variable_scope → tf.name_scope: its block makes no variable (only names its ops)")


def _is_scope_call(facts: GraphFacts, call: cst.Call) -> bool:
    """``tf.variable_scope(name)``: one positional argument, nothing else."""
    if facts.imports.call_name(call) not in ("variable_scope", "compat.v1.variable_scope"):
        return False
    return len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star


class _ModuleNames:
    """What the rule asks of the whole module, each found with one walk, and only when a
    candidate scope asks (most blocks are decided by their own calls first)."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._bound: set[str] | None = None
        self._defined: set[str] | None = None
        self._enclosing: dict[int, cst.FunctionDef] | None = None

    def bound(self) -> set[str]:
        """Names the module defines or imports anywhere (a builtin of that name is not the builtin)."""
        if self._bound is None:
            self._walk_bindings()
        assert self._bound is not None
        return self._bound

    def defined(self) -> set[str]:
        """The names of the module's functions and classes (anywhere in it)."""
        if self._defined is None:
            self._walk_bindings()
        assert self._defined is not None
        return self._defined

    def _walk_bindings(self) -> None:
        defined: set[str] = set()
        bound: set[str] = set()
        for node in find_all(self.module, (cst.FunctionDef, cst.ClassDef, cst.AssignTarget, cst.ImportAlias, cst.AsName)):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                defined.add(node.name.value)
                continue
            if isinstance(node, cst.AssignTarget):
                target: cst.CSTNode = node.target
            elif isinstance(node, cst.ImportAlias):
                target = node.asname.name if node.asname else node.name
            else:
                target = cst.ensure_type(node, cst.AsName).name
            bound |= {n.value for n in preorder(target) if isinstance(n, cst.Name)}
        self._defined = defined
        self._bound = bound | defined

    def enclosing_function(self, with_: cst.With) -> cst.FunctionDef | None:
        """The innermost function whose body holds ``with_``."""
        if self._enclosing is None:
            self._enclosing = {}
            for function in find_all(self.module, cst.FunctionDef):
                assert isinstance(function, cst.FunctionDef)
                for inner in find_all(function.body, cst.With):
                    self._enclosing[id(inner)] = function  # (document order: an inner def comes later, and wins)
        return self._enclosing.get(id(with_))


def _names_by_string(names: _ModuleNames, with_: cst.With, name: cst.BaseExpression) -> bool:
    """Is the scope's name a string (TF2's name_scope takes no VariableScope, and no None)?
    A literal, a formatted one, or a parameter of the enclosing function whose default is a
    string literal, bound nowhere else in it."""
    if string_valued(name):
        return True
    if not isinstance(name, cst.Name):
        return False
    function = names.enclosing_function(with_)
    if function is None:
        return False
    parameters = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
    declared = next((p for p in parameters if p.name.value == name.value), None)
    if declared is None or not isinstance(declared.default, cst.SimpleString):
        return False
    rebinds = []
    for node in find_all(function.body, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.AsName)):
        target = node.name if isinstance(node, cst.AsName) else node.target  # type: ignore[attr-defined]
        rebinds += [n for n in find_all(target, cst.Name) if isinstance(n, cst.Name) and n.value == name.value]
    return not rebinds


def _makes_no_variables(facts: GraphFacts, body: cst.BaseSuite, names: _ModuleNames) -> bool:
    if any(True for _ in find_all(body, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Global, cst.Nonlocal))):
        return False
    for call in find_all(body, cst.Call):
        assert isinstance(call, cst.Call)
        path = facts.imports.call_name(call)
        if path is None:
            if isinstance(call.func, cst.Name) and call.func.value in _PLAIN_BUILTINS and call.func.value not in names.bound():
                continue
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in _SHAPE_METHODS and not call.args:
                continue
            return False  # the program's own code (or an object's method): it may make variables
        if path in ("variable_scope", "compat.v1.variable_scope"):
            continue  # a nested scope: its own block is inside this one, checked with it
        if not _plain_tf_call(path):
            return False
        if any(isinstance(a.value, cst.Name) and a.value.value in names.defined() for a in call.args):
            return False  # ``tf.nest.map_structure(dense, xs)``: the TF function runs the program's function here
    return True


def _plain_tf_call(path: str) -> bool:
    """Is ``tf.<path>`` a TF function that makes no variable and runs none of the program's code?"""
    if path in _READS_VARIABLE_SCOPE or path in _RUN_PROGRAM_CODE or path.startswith(("contrib.", "compat.v1.")):
        return False
    if path.startswith("nn.") and "rnn" in path:
        return False  # ``tf.nn.dynamic_rnn(cell, x)``: the cell makes its variables here, under the scope
    return not makes_variables(path) or layer_makes_no_variables(path)
