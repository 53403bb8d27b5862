"""The functions generated for one file's run sites, and what the code that plans and
builds them shares — run sites, feeds, emission, train-step and SciPy bodies all take a
:class:`SessionRewrite` (the module, its facts and plan, the functions so far, and the
code of a node as a generated function reads it), not the class that drives them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.catalogue import PURE_BUILTINS
from tf2migrate.analysis.half_precision import half_precision_names
from tf2migrate.analysis.model import FeedDict, GraphFacts, Kind, RunSite, Scope, Statement
from tf2migrate.analysis.names import read_and_bound, self_attribute
from tf2migrate.analysis.numpy_values import NumpyValues
from tf2migrate.diagnostics import Rule
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import name_normalizer


@dataclass
class Generated:
    """A function generated in the scope that built the graph, for the run sites that fetch the same values."""

    scope: Scope
    name: str
    fetch: cst.BaseExpression
    body: list[Statement]
    placeholders: list[Statement]
    needs_tf_function: bool  # it calls a helper taking tf.gradients (TFM203)
    anchor: Statement | None
    train: Statement | None = None  # the train op this function runs a step of
    # the other train ops the same run steps: every gradient is taken before any update
    # (analysis/train_variables.py, train_steps.joint_step_body)
    joint: tuple[Statement, ...] = ()
    # ScipyOptimizerInterface: (interface statement, loss expression, fetch expressions)
    scipy: tuple[Statement, cst.BaseExpression, list[cst.BaseExpression]] | None = None
    # a fetch built in the run from Python values (rewrites/inline_fetches.py): the values
    # passed at each call, and whether it runs untraced to read them as TF1 did
    python_arguments: tuple[str, ...] = ()
    python_sources: dict[str, str] = field(default_factory=dict)  # parameter → the value's name, where they differ
    python_ints: bool = False  # every Python value passed is proven an int: it may be traced
    eager: bool = False
    # a build-time print or shape check the function runs, traced where it stood
    # (rewrites/descriptions.py): the function returns nothing and is traced, not called
    describes: Statement | None = None
    # ... a notebook cell's displayed value, whose trace must display nothing itself
    displays: bool = False


@dataclass
class UnpackedFeed:
    """A converted run that unpacks a feed dict into its generated function's arguments
    (``train_step(**tf_dict)``); see rewrites/invariant_feeds.py."""

    feed_dict: FeedDict
    dict_node: cst.Dict
    site: RunSite
    placeholders: dict[str, Statement]  # dict key → the placeholder it feeds
    # the call's arguments written out, converting the values that need it (see feeds._as_fed),
    # when some do: passed so unless invariant_feeds converts the dict's values where it is built
    keywords: str = ""


@dataclass
class SessionRewrite:
    """One file's session rewrite: its inputs and what its steps build up."""

    module: cst.Module
    facts: GraphFacts
    plan: Plan
    names_in_use: set[str]
    tf_function: bool = True  # decorate generated functions with @tf.function
    functions: dict[tuple, Generated] = field(default_factory=dict)
    # id of a train op's statement → the code of its Keras optimizer (see train_steps.plan_optimizers)
    optimizer_of: dict[int, str] = field(default_factory=dict)
    rewritten_feed_dicts: set[int] = field(default_factory=set)
    unpacked_feeds: list[UnpackedFeed] = field(default_factory=list)
    # see scope_names
    _names_of_scope: dict[int, tuple[frozenset[str], set[str], dict[str, str]]] = field(default_factory=dict, init=False, repr=False)
    _module_bindings: list[str] | None = field(default=None, init=False, repr=False)
    _numpy_values: NumpyValues | None = field(default=None, init=False, repr=False)
    _half_precision_names: frozenset[str] | None = field(default=None, init=False, repr=False)

    def module_bindings(self) -> list[str]:
        """Every binding of a name anywhere in the module, one entry per binding: read
        once per file, for the checks that a module name is bound only once."""
        if self._module_bindings is None:
            self._module_bindings = read_and_bound(self.module)[1]
        return self._module_bindings

    def numpy_values(self) -> NumpyValues:
        """Which expressions of the module are shown to be NumPy values (a fed one needs no
        conversion): read once per file, when a feed first asks."""
        if self._numpy_values is None:
            self._numpy_values = NumpyValues(self.module, self.facts.importer_attributes, self.facts.importer_names)
        return self._numpy_values

    def half_precision_names(self) -> frozenset[str]:
        """The names holding half-precision values (analysis/half_precision.py): read once
        per file, when a rule first asks."""
        if self._half_precision_names is None:
            self._half_precision_names = half_precision_names(self.facts)
        return self._half_precision_names

    def code(self, node: cst.CSTNode, scope: Scope | None = None) -> str:
        localize = self.scope_names(scope)[0] if scope is not None else frozenset()
        normalized = node.visit(name_normalizer(self.plan, self.facts.imports, localize))
        assert isinstance(normalized, cst.CSTNode)  # names are renamed, never removed
        return self.module.code_for_node(normalized)

    def block(self, node: cst.CSTNode, rule: Rule, message: str) -> None:
        self.facts.block(node, rule, message)

    def scope_names(self, scope: Scope) -> tuple[frozenset[str], set[str], dict[str, str]]:
        """The scope's ``self.x`` graph names, trainable variables and the value kind of
        each name: once per scope, not once per generated function (a file of many
        session blocks would otherwise cost the square of its size)."""
        names = self._names_of_scope.get(id(scope))
        if names is None:
            trainable = {name for s in scope.statements if s.kind is Kind.VARIABLE and self._surely_trainable(s) for name in s.defines}
            value_kinds = {
                name: s.value_kind
                for s in scope.statements
                if s.kind in (Kind.TENSOR, Kind.PLACEHOLDER, Kind.VARIABLE) and len(s.defines) == 1
                for name in s.defines
            }
            names = self._names_of_scope[id(scope)] = (_graph_attributes(scope), trainable, value_kinds)
        return names

    def _surely_trainable(self, statement: Statement) -> bool:
        """Does the statement make trainable variables, which a tape watches by itself?  Only
        when no ``trainable=`` in it or in the helpers of this file it calls says otherwise
        (``trainable=flag`` may be False); anything else is watched, which costs nothing for a
        variable that was trainable after all."""
        if statement.global_step is not None:
            return False
        texts = [self.module.code_for_node(statement.node)]
        for call in calls_in(statement.node):
            if self.facts.imports.call_name(call) is not None or _numpy_or_builtin(call):
                continue
            helper = self.facts.helpers.get(self_attribute(call.func) or (call.func.value if isinstance(call.func, cst.Name) else ""))
            if helper is None or any(self.facts.imports.call_name(c) is None for c in calls_in(helper.node.body)):
                return False  # code this file cannot see, or helpers of helpers
            texts.append(self.module.code_for_node(helper.node))
        code = "".join(texts).replace(" ", "")
        return code.count("trainable=") == code.count("trainable=True")


def _numpy_or_builtin(call: cst.Call) -> bool:
    func = call.func
    while isinstance(func, cst.Attribute):
        func = func.value
    root = func.value if isinstance(func, cst.Name) else None
    return root in ("np", "numpy", "math") or (isinstance(call.func, cst.Name) and call.func.value in PURE_BUILTINS)


def _graph_attributes(scope: Scope) -> frozenset[str]:
    """``self.x`` names of a constructor-built graph that become locals of its methods."""
    return frozenset(
        name for s in scope.statements if s.kind in (Kind.TENSOR, Kind.PLACEHOLDER) for name in s.defines if name.startswith("self.")
    )
