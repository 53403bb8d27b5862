"""Fetches built in the run itself from Python values: ``sess.run(tf.argmax(a, 1))``,
``global_step.assign(i).eval()``, ``sess.run(tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 *
test_X.shape[0]), feed)``.

TF1 built such a fetch's ops when the run was called, from the Python values of that
moment, and ran them once.  Two conversions keep that meaning:

- a fetch that reads no placeholder and no computed tensor (only variables, Python values
  and constants) is evaluated eagerly where the run stood: the same ops, the same values,
  read at the same moment;
- a fetch that also reads the graph's tensors goes into a generated function like any
  other, which takes each Python value it reads as an argument passed at the call and
  runs without ``tf.function``: a traced function would have fixed the values (and
  converted a NumPy array to a tensor) the first time it ran.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.catalogue import LIST_CALLS, OPERATION_CALLS, STRUCTURE_CALLS, is_unsupported_call
from tf2migrate.analysis.half_precision import names_half_precision
from tf2migrate.analysis.run_sites import builds_ops_by_helper
from tf2migrate.analysis.model import Kind, RunForm, RunSite, Scope, Statement
from tf2migrate.analysis.names import NameReferences, fresh_name, local_name, names_bound, read_and_bound, root_name
from tf2migrate.rewrites.fetches import item_of_python_call, Leaf, LeafKind, to_numpy
from tf2migrate.rewrites.generated import SessionRewrite
from tf2migrate.traversal import find_all, preorder

# Read through the module, not passed: what the module binds once (imports, functions,
# classes) and Python's builtins.
_BUILTINS = frozenset(dir(builtins))
# random ops whose names do not say ``random``
_RANDOM_OPS = frozenset({"truncated_normal", "multinomial", "nn.dropout"})


def reads_graph_tensors(leaves: list[Leaf]) -> bool:
    """Does the fetch read a placeholder or a computed tensor (anything but variables)?"""
    return any(s.kind is not Kind.VARIABLE for leaf in leaves for s in leaf.statements)


def refuse_seeded_random_ops(rewrite: SessionRewrite, leaves: list[Leaf]) -> bool:
    """Block a fetch built in the run that draws with an op seed (``sess.run(tf.random_normal([2],
    seed=1))``): TF1 made a new op at every run, and a new op with the same seed draws the
    same numbers; an eager op with a seed draws new ones at every call.  True when blocked."""
    for leaf in leaves:
        for call in calls_in(leaf.expr):
            name = rewrite.facts.imports.call_name(call)
            if name is None or not ("random" in name or name in _RANDOM_OPS):
                continue
            if any(a.keyword is not None and a.keyword.value == "seed" for a in call.args):
                rewrite.block(
                    call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"`tf.{name}` with a seed is built in the run: TF1 made a new op at each run, drawing the same "
                    "numbers each time, where an eager op draws new ones; build it once in the graph code",
                )
                return True
    return False


def evaluated_in_place(rewrite: SessionRewrite, site: RunSite, leaves: list[Leaf]) -> str | None:
    """The fetch evaluated eagerly where the run stood, its tensors as NumPy in the
    structure sess.run returned (None, with a blocker, when that would not be TF1's run).
    For a fetch of variables, Python values and constants only."""
    for leaf in leaves:
        for call in calls_in(leaf.expr):
            name = rewrite.facts.imports.call_name(call)
            if name is not None and is_unsupported_call(name):
                # graph collections are empty in TF2, tf.train/tf.data ops need the graph
                rewrite.block(call, blockers.UNSUPPORTED_GRAPH_CODE, f"`tf.{name}` is not converted by this release")
                return None
        kind = _leaf_kind(rewrite, site, leaf)
        if kind is None:
            rewrite.block(leaf.expr, blockers.UNSUPPORTED_GRAPH_CODE, _unknown_fetch(rewrite, leaf.expr))
            return None
        leaf.kind = kind
    if site.feed is not None:
        # TF1 still evaluated the fed values (a call, a random draw): not dropped silently
        rewrite.block(
            site.feed,
            blockers.UNSUPPORTED_FEED,
            "a run feeds placeholders that its fetch, built in the run from Python values, does not read",
        )
        return None
    names = rewrite.half_precision_names()
    if names_half_precision(site.fetch) or any(isinstance(n, cst.Name) and n.value in names for n in preorder(site.fetch)):
        # eagerly, an op of a half-precision tensor and a Python float (``w * 2049.0001``)
        # converts the float through float32: rounded twice, where TF1's graph rounded it once
        rewrite.block(
            site.fetch,
            blockers.UNSUPPORTED_GRAPH_CODE,
            "the fetch, built in the run from Python values, would be evaluated eagerly where the run stood, and it "
            "computes in float16 or bfloat16: eagerly, TF2 rounds a Python float to float32 before the half-precision "
            "dtype (2049.0001 → 2048 in float16), where TF1's graph rounded it once (2050)",
        )
        return None
    code = rewrite.code(site.fetch)
    if site.statement is not None:
        return code  # run for its effect (an assign op): evaluated, its value unused
    atom = isinstance(site.fetch, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.List, cst.Tuple, cst.Dict))
    return to_numpy(code if atom else f"({code})", site.fetch, leaves)


def _unknown_fetch(rewrite: SessionRewrite, expr: cst.BaseExpression) -> str:
    if isinstance(expr, cst.Name):
        # a name the analysis did not read as a graph value: its binding (a helper call
        # with effects on module state, say) is why, not the user's code
        return (
            f"the fetch `{expr.value}` is bound by code not read as graph code (a call whose effects this release "
            "does not follow, a Python value, or a function enclosing the one that runs it); its run is not converted"
        )
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name):
        # ``sess.run(g["train"])``, ``g = build_graph()``: the container's items are not followed
        return (
            f"the fetch `{rewrite.code(expr)}` is an item of `{expr.value.value}`, a container "
            "whose items this release does not read as graph values; its run is not converted"
        )
    if isinstance(expr, cst.Attribute) and (root := root_name(expr)) not in (None, "self"):
        # ``sess.run(model.out)`` with ``model = Model()``: the analysis does not read an
        # object's attributes there, so the fetch may well be a tensor
        return (
            f"the fetch `{rewrite.code(expr)}` is an attribute of `{root}`: this release reads a fetch as a "
            "graph value only through a name or, in a class's methods, an attribute of `self`; its run is not converted"
        )
    if isinstance(expr, cst.Attribute) and root_name(expr) == "self":
        # ``self.evaluate(self.v)`` in a test method, ``self.v`` made by ``setUp``: another
        # method's graph value, which the method's own graph code does not bind
        return (
            f"the fetch `{rewrite.code(expr)}` is an attribute of `self` this code does not bind as a graph value: "
            "made by another method (a test's `setUp`, a method run before), a Python value, or a constant the "
            "constructor makes where it stands (`self.c = tf.constant(c)`); its run is not converted"
        )
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and rewrite.facts.imports.call_name(expr) is None:
        # ``sess.run(get_step())``, a function of the program returning the global step:
        # no Python value TF1 refused, but graph code built in the run, which is not followed
        return (
            f"the fetch `{rewrite.code(expr)}` calls `{expr.func.value}` in the run: TF1 built (or got) there what "
            "it returns, on the graph (a variable it gets, such as the global step, the graph's own); a run calling "
            "a function of the program is not converted"
        )
    return (
        "the fetch is no graph tensor or variable: a Python value (TF1 refused to run it), or a constant the "
        "constructor makes where it stands (`self.c = tf.constant(c)`), whose run is not converted"
    )


def _leaf_kind(rewrite: SessionRewrite, site: RunSite, leaf: Leaf) -> LeafKind | None:
    """What one leaf of a fetch built in the run evaluates to; None for a leaf that
    builds no op and reads no variable (a Python value)."""
    if leaf.statements and leaf.kind is not LeafKind.UNKNOWN:
        return leaf.kind  # a variable, or an expression of variables
    expr = leaf.expr
    if isinstance(expr, cst.Call) and (name := rewrite.facts.imports.call_name(expr)) is not None:
        if name in STRUCTURE_CALLS:
            return LeafKind.UNKNOWN  # a tuple of tensors: converted by its structure
        return LeafKind.OPERATION if name in OPERATION_CALLS else LeafKind.LIST if name in LIST_CALLS else LeafKind.TENSOR
    builds = any(rewrite.facts.imports.call_name(c) is not None or builds_ops_by_helper(rewrite.facts, c) for c in calls_in(expr))
    if not builds and not leaf.statements:
        return None
    if site.form is not RunForm.EVAL and item_of_python_call(expr, rewrite.facts.imports, rewrite.facts.helpers):
        # ``sess.run(net(w)["layers"])``: maybe a tuple, by its structure (what ``.eval()`` is
        # called on is a tensor)
        return LeafKind.UNKNOWN
    return LeafKind.TENSOR


@dataclass
class PythonReads:
    """What the Python names a fetch reads require of its generated function."""

    arguments: tuple[str, ...]  # values passed at each call, as TF1 read them at the run
    eager: bool  # runs without tf.function: it reads Python values at each call
    needs_tf_function: bool  # it calls a helper that takes tf.gradients (TFM203)
    # a parameter named apart from the Python value it takes (``i_2`` for ``i``), where the
    # graph code the function runs binds the value's own name (a ``for i in …`` loop)
    sources: dict[str, str] = field(default_factory=dict)
    # every value passed is a Python int (the variable of a ``for`` over ``range`` around the
    # run): a tf.function traces anew for each int, so a traced function reads it as TF1 did
    ints_only: bool = False


def python_reads(
    rewrite: SessionRewrite, site: RunSite, owner: Scope, names: list[str], body: list[Statement], placeholders: list[Statement]
) -> PythonReads | None:
    """How a generated function computes a fetch reading the Python ``names`` as TF1 did at
    this run (None, with a blocker, when it cannot).  A graph-building helper of the file
    that creates no variables is called as the graph code calls it; any other Python value
    is read when the function runs, untraced: passed as an argument, unless the module
    binds it once (imports, functions, classes), it is a builtin, or a ``self.x`` of the
    method."""
    module_once = {
        name
        for statement in rewrite.module.body
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) or _is_import(statement)
        for name in ([statement.name.value] if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) else names_bound(statement))
    }
    bound = {local_name(n) for s in [*body, *placeholders] for n in s.defines}
    fetch_binds = read_and_bound(site.fetch)[1]
    arguments: list[str] = []
    sources: dict[str, str] = {}
    reads_attributes = False
    eager = needs_tf_function = False
    for name in names:
        helper = rewrite.facts.helpers.get(name)
        if helper is not None:
            if helper.creates_variables:
                # TF1 made new (uninitialized) variables in each such run
                rewrite.block(site.call, blockers.VARIABLE_IN_COMPUTATION, f"the fetch calls `{name}`, which creates variables")
                return None
            needs_tf_function |= helper.uses_gradients
            continue
        eager = True
        if name.startswith("self."):
            if owner.cls is None:
                rewrite.block(
                    site.call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"the fetch reads `{name}`, an attribute of an object the generated function cannot see",
                )
                return None
            reads_attributes = True  # its value at each call: no trace could key on it
            continue
        if name in module_once or (name in _BUILTINS and not _assigned_anywhere(rewrite, name)):
            continue
        if name in bound:
            if name in fetch_binds:
                # ``sess.run([g[i] for i in …][i])``: which ``i`` a rename would mean is not one thing
                rewrite.block(
                    site.call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"the fetch reads the Python value `{name}` and binds the name too, which the graph code it runs also binds",
                )
                return None
            # the function's graph code rebinds it (``for i in range(n): grads.append(…)``):
            # the value comes in under a name of its own, read by the fetch alone
            parameter = fresh_name(name, rewrite.names_in_use | bound)
            sources[parameter] = name
            arguments.append(parameter)
            continue
        arguments.append(name)
    ints_only = bool(arguments) and not reads_attributes and all(_range_loop_variable(rewrite, site, sources.get(a, a)) for a in arguments)
    return PythonReads(tuple(arguments), eager, needs_tf_function, sources, ints_only)


def _range_loop_variable(rewrite: SessionRewrite, site: RunSite, name: str) -> bool:
    """Is ``name``, where the run reads it, the variable of a ``for name in range(...)`` whose
    body holds the run, and bound nowhere else in the run's function (nor declared global
    or nonlocal there, nor ``range`` rebound by the module)?  Then it holds a Python int."""
    function = site.function
    if function is None or _assigned_anywhere(rewrite, "range"):
        return False
    if any(name in (n.value for n in s.names) for s in find_all(function, (cst.Global, cst.Nonlocal))):  # type: ignore[attr-defined]
        return False
    if read_and_bound(function.body)[1].count(name) != 1:
        return False
    loops = [
        loop
        for loop in find_all(function.body, cst.For)
        if isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and loop.target.value == name
    ]
    return (
        len(loops) == 1
        and isinstance(loops[0].iter, cst.Call)
        and m.matches(loops[0].iter.func, m.Name("range"))
        and any(node is site.call for node in find_all(loops[0].body, cst.Call))
    )


def with_parameters(code: str, sources: dict[str, str]) -> str:
    """The fetch's code with each Python value it reads under its parameter's name:
    its reads only, not an attribute's or a keyword's name."""
    if not sources:
        return code
    expression = cst.parse_expression(code)
    renamed = expression.visit(_ReadsRenamed({source: parameter for parameter, source in sources.items()}))
    return cst.Module([]).code_for_node(cst.ensure_type(renamed, type(expression)))


class _ReadsRenamed(NameReferences, cst.CSTTransformer):
    def __init__(self, renames: dict[str, str]) -> None:
        super().__init__()
        self.renames = renames

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.not_references.add(id(node.attr))

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if not self.is_reference(original_node) or original_node.value not in self.renames:
            return updated_node
        return updated_node.with_changes(value=self.renames[original_node.value])


def _is_import(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)


def _assigned_anywhere(rewrite: SessionRewrite, name: str) -> bool:
    """Is a builtin's name rebound by the module (``all = sess.run(...)``)?"""
    return any(name in scope.bindings or name in scope.nested_bindings for scope in rewrite.facts.scopes)
