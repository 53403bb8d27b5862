"""A TF1 graph collection of trainable variables → the list of those variables, written out.

TF2 keeps no graph collections: ``tf.compat.v1.trainable_variables()`` is empty in eager
code, so a train step over it would train nothing, and graph code reading one stayed on TF1
(TFM306).  Yet what TF1 returns at a point of a program that makes its variables at the top
of the module is a static fact: every trainable variable made before that point, in the
order they were made.  The module is first rewritten, TF1 to TF1, with the call written as
that list (the same objects, so the TF1 program computes exactly what it did), and the
migration of that module then judges it like any other::

    W = tf.Variable(tf.zeros([4, 2]), name="d_w")
    b = tf.Variable(tf.zeros([2]), name="d_b")
    g = tf.Variable(tf.zeros([2]), name="g_w")
    t_vars = tf.trainable_variables()                 # t_vars = [W, b, g]
    d_vars = [v for v in t_vars if "d_" in v.name]    # d_vars = [W, b]
    train_d = opt.minimize(loss, var_list=d_vars)

Sites: ``tf.trainable_variables()``, ``tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)``
(or its key ``"trainable_variables"``) with ``scope=`` a string TF1 applies as
``re.match(scope, variable.name)``, and a list comprehension ``[v for v in L if test]`` over
such a list (or over a module name bound once to one) whose test reads ``v.name`` or
``v.op.name`` only (``in``, ``not in``, ``==``, ``startswith``, ``endswith``, ``and``,
``or``, ``not``).  The filter is evaluated here, on TF1's names: TF2 names variables
otherwise (no graph makes ``Variable_1`` unique), so no ``.name`` of a listed variable may be
read at run time (one read elsewhere, ``for v in t_vars: print(v.name)``, is refused).  A
name TF1 made unique (``w_1``: an op or a variable named ``w`` came before) is not known
here: the filter is evaluated for every such suffix of every part of the name, and must
come out the same.

A make function of the file (rewrites/helper_split.py's ``make_<helper>_variables``) makes the
variables it returns, in order: its ``tf.Variable``/``tf.get_variable`` assignments and its calls
of other make functions, inside ``with tf.variable_scope(name):`` blocks whose name is a string, a
parameter given a string (or ``None``) at the call, or ``parameter or "default"``.

The variables: ``name = tf.Variable(...)`` / ``tf.get_variable(...)`` and dict or list
displays of those calls (``weights = {"h1": tf.Variable(...)}`` → ``weights["h1"]``),
statements of the module's top level (``with tf.variable_scope("s")`` / ``tf.name_scope``
blocks give their names' prefixes), each name bound once in the module and never changed in
place.  ``trainable=False`` (a literal) leaves a variable out.  Refused, with the reason:
a site inside a function (the list depends on when it runs), in a loop or a branch; a
variable made in a loop, a branch or inside an expression (an ``if``/``else`` whose two
branches each assign one name, bound nowhere else, a display making the same variables —
the same references and TF1 names, in the same order — makes those whichever runs); a TF call that makes variables
not written out here (``tf.layers``, Keras, RNN cells, contrib, ``make_template``); a call
of a helper of the file that makes variables; a call of a module this analysis cannot see
(only the standard library and the common data libraries are known to make no TF
variables); reuse of variables, other graphs.  ``reset_default_graph()`` at the top level
starts the list again.
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import itertools
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.calls import bind_arguments, call_argument, calls_in
from tf2migrate.analysis.catalogue import is_initializer_or_regularizer, layer_makes_no_variables, makes_variables
from tf2migrate.analysis.names import read_and_bound, target_names
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.traversal import find_all

VARIABLE_LIST = Rule(
    "TFM141",
    "variable-collection-written-out",
    "tf.trainable_variables() / tf.get_collection(TRAINABLE_VARIABLES) → the list of the variables TF1 had made there.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Writes `tf.trainable_variables()`, `tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=...)` and "
    "comprehensions filtering them by name (`[v for v in t_vars if 'd_' in v.name]`) as the list display of the "
    "variables TF1 returned there (`[d_w, d_b]`), when the file makes every variable before that point at the top of "
    "the module (`tf.Variable`, `tf.get_variable`, dict displays of them) and the filter is a test of the names "
    "evaluated on TF1's names; the module is then migrated like any other.",
    why="TF2 keeps no collections (the call returns `[]` in eager code), and names variables otherwise than TF1 (no "
    "graph uniquifies `Variable_1`). The list written out holds the same objects in TF1, so the rewritten TF1 program "
    "computes what it did. The conditions are in `tf2migrate/rewrites/variable_lists.py`.",
    example="t_vars = tf.trainable_variables()\nd_vars = [v for v in t_vars if 'd_' in v.name]",
    instead="t_vars = [d_w, d_b, g_w]\nd_vars = [d_w, d_b]",
    invalid=(
        "import tensorflow as tf\n"
        "w = tf.Variable(1.0)\n"
        "loss = tf.square(w - 3.0)\n"
        "train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=tf.trainable_variables())\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op)\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "def f():\n"
        "    return tf.trainable_variables()\n"
        "w = tf.Variable(1.0)\n"
        "loss = tf.square(w - 3.0)\n"
        "train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=f())\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op)\n",
    ),
)
RULES = [VARIABLE_LIST]

# the refusals the rewrite answers (analysis/statements.py, rewrites/train_steps.py)
COLLECTION_REFUSAL = re.compile(r"`tf\.(trainable_variables|get_collection)` is not converted by this release$")

_TRAINABLE_KEYS = frozenset({"GraphKeys.TRAINABLE_VARIABLES"})
# TF calls that may make trainable variables the analysis does not follow (besides
# catalogue.makes_variables): TF1's RNN functions run their cells in variable scopes
_MAY_MAKE_VARIABLES = frozenset(
    {"nn.dynamic_rnn", "nn.static_rnn", "nn.bidirectional_dynamic_rnn", "nn.static_bidirectional_rnn", "nn.raw_rnn", "make_template"}
)
_MAY_MAKE_PREFIXES = ("contrib.", "keras.", "estimator.", "layers.", "nn.rnn_cell.", "feature_column.", "compat.")
_VARIABLE_CALLS = frozenset({"Variable", "get_variable", "VariableV1", "get_local_variable"})


def _may_make_variables(name: str) -> bool:
    """May calling ``tf.<name>`` make variables?"""
    if layer_makes_no_variables(name) or is_initializer_or_regularizer(name):
        # (tf.layers.dropout with a fed flag: TF1 made no variable; an initializer makes values)
        return False
    return name in _VARIABLE_CALLS or makes_variables(name) or name in _MAY_MAKE_VARIABLES or name.startswith(_MAY_MAKE_PREFIXES)


# Modules known to make no TF variable when their functions are called
# the standard library's modules that run no code they are given (``tempfile``, ``pathlib``, ``shutil``), and
# the common data libraries: their calls make no TF variables (``importlib``, ``runpy``, ``timeit``, threads and
# the like may run a module's or a callable's code, which may)
_CODE_RUNNING_STDLIB = frozenset(
    {
        "importlib", "runpy", "code", "codeop", "pkgutil", "imp", "builtins", "threading", "_thread", "concurrent",
        "multiprocessing", "asyncio", "timeit", "trace", "profile", "cProfile", "pdb", "bdb", "doctest", "unittest",
        "sched", "atexit", "ctypes", "signal", "site", "zipimport",
    }
)  # fmt: skip
_SAFE_MODULES = frozenset(set(sys.stdlib_module_names) - _CODE_RUNNING_STDLIB) | frozenset(
    {
        "numpy", "os", "sys", "math", "time", "random", "matplotlib", "pandas", "scipy", "sklearn", "collections",
        "itertools", "functools", "json", "pickle", "csv", "argparse", "datetime", "re", "glob", "shutil", "PIL",
        "cv2", "tqdm", "six", "urllib", "gzip", "zipfile", "tarfile", "struct", "copy", "string", "io", "logging",
        "pprint", "warnings", "operator", "codecs", "imageio", "skimage", "h5py", "seaborn", "requests",
        "tensorflow.examples.tutorials.mnist", "tensorflow.examples.tutorials.mnist.input_data",
    }
)  # fmt: skip
_BUILTINS = frozenset(dir(builtins))
# the calls marking a notebook's cells and IPython magics in its joined source (notebook.py)
_NOTEBOOK_MARKER = "__tf2migrate_"
# the suffixes TF1's unique names may have given a part of a variable's name
_SUFFIXES = ("", "_1", "_2", "_10", "_17")


@dataclass
class Written:
    """The module with the collections written out (the same lines), and the notes to
    report (on the original's lines)."""

    source: str
    notes: list[tuple[int, int, str]] = field(default_factory=list)  # (line, 1-based column, message)


@dataclass(frozen=True)
class _Variable:
    reference: str  # how the module names it: ``w``, ``weights["h1"]``
    # TF1's name as parts (``("s", "w")``), each with whether TF1 may have made it unique by
    # a suffix; None when not known
    parts: tuple[tuple[str, bool], ...] | None

    def names(self, op: bool) -> list[str] | None:
        """Every name TF1 may have given it (``s/w:0``, ``s_1/w_2:0``…)."""
        if self.parts is None:
            return None
        choices = [[text + s for s in _SUFFIXES] if unique else [text] for text, unique in self.parts]
        return ["/".join(c) + ("" if op else ":0") for c in itertools.product(*choices)]


@dataclass
class _Site:
    call: cst.Call
    scope: str | None  # get_collection's ``scope=`` regex
    variables: list[_Variable] | str  # what TF1 returned there, or why it is not known
    walker: _Walker | None = None  # the walk of the method holding it (None: the module's)


def write_out(
    module: cst.Module, imports: TfImports, builders: frozenset[str] = frozenset(), exported: frozenset[str] = frozenset()
) -> Written | dict[int, str]:
    """The module with every trainable-variable collection written as a list display, if
    each is known; else why each site (by line) is not.  ``builders``: the names (``f``,
    ``H.f``) of other modules' pure graph builders it calls, which make no variables
    (analysis/summaries.py); ``exported``: the names other files of the run import from it
    (a class they construct builds its graph there too)."""
    positions = Positions(module)
    walker = _Walker(module, imports, builders)
    walker.statements(module.body, _Scopes())
    sites = walker.sites
    in_methods: dict[int, str] = {}  # sites in methods whose lists are not known: why
    for qualified, method in _build_methods(module, walker, exported).items():
        if isinstance(method, str):
            in_methods.update(
                (id(c), f"the call is in `{qualified}`: {method}") for c in find_all(_method_named(module, qualified), cst.Call)
            )
            continue
        # the graph a class builds in the method its constructor calls first, the class made
        # once, before any variable: what TF1 had made at a site there is what the method made
        inner = _Walker(module, imports, builders, method)
        inner.statements(cst.ensure_type(method.body, cst.IndentedBlock).body, _Scopes())
        sites += [dataclasses.replace(site, walker=inner) for site in inner.sites]
    for call in walker.all_sites:
        if id(call) not in {id(s.call) for s in sites}:
            why = in_methods.get(id(call), "the call is inside a function, a loop or a branch: the list depends on when it runs")
            sites.append(_Site(call, None, why))
    replacements: dict[int, str] = {}
    notes: list[tuple[int, int, str]] = []
    reasons: dict[int, str] = {}

    def line_of(node: cst.CSTNode) -> tuple[int, int]:
        start = positions.get(node)
        return (start[0], start[1] + 1) if start else (1, 1)

    for site in sites:
        line, column = line_of(site.call)
        outcome = _replacement(module, walker, site)
        if isinstance(outcome, str):
            reasons[line] = outcome
            continue
        for node, text in outcome:
            replacements[id(node)] = text
            what = "the trainable variables TF1 had made there" if node is site.call else "those whose TF1 names pass the filter"
            notes.append((*line_of(node), f"`{module.code_for_node(node)}` → `{text}`: {what}"))
    if reasons or not replacements:
        return reasons
    return Written(_Replacer(replacements).rewrite(module), notes)


class _Replacer(cst.CSTTransformer):
    def __init__(self, replacements: dict[int, str]) -> None:
        self.replacements = replacements

    def rewrite(self, module: cst.Module) -> str:
        return module.visit(self).code

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        text = self.replacements.get(id(original_node))
        return cst.parse_expression(text) if text is not None else updated_node


_Nodes = cst.CSTNode | Sequence[cst.CSTNode]


def _parts(node: _Nodes) -> Sequence[cst.CSTNode]:
    return [node] if isinstance(node, cst.CSTNode) else node


@dataclass
class _Scopes:
    """The variable scope and name scope prefixes of the blocks around a statement."""

    variable: tuple[str, ...] = ()
    name: tuple[tuple[str, bool], ...] = ()


class _Walker:
    """The module's top-level statements in execution order: the trainable variables made
    so far, and the sites met."""

    def __init__(
        self, module: cst.Module, imports: TfImports, builders: frozenset[str] = frozenset(), method: cst.FunctionDef | None = None
    ) -> None:
        self.module = module
        self.imports = imports
        self.builders = builders
        self.variables: list[_Variable] | str = []
        self.sites: list[_Site] = []
        self.all_sites = [c for c in find_all(module, cst.Call) if isinstance(c, cst.Call) and self.site_scope(c) is not False]
        self.functions = {
            s.name.value: s for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))
        }  # top-level defs: calls of them are followed
        # the statements walked: the module's, or a method's body (its names are its locals;
        # a method called on its object is not followed)
        self.method = method
        walked = module if method is None else cst.Module(body=cst.ensure_type(method.body, cst.IndentedBlock).body)  # type: ignore[arg-type]
        self.opaque = {method.params.params[0].name.value} if method is not None and method.params.params else set()
        self.bindings = _bindings_at_top(walked)
        self.bound_once = {name for name, count in self.bindings.items() if count == 1}
        self.assigned = _module_assignments(walked)
        # the variables made before each top-level statement of the module (its walk)
        self.before: dict[int, list[_Variable] | str] = {}
        self.imported = _imported_modules(module)
        self.reuse = any(
            # (a TF call's ``reuse=``: a helper's own, ``discriminator(G, reuse=True)``, is what its body does with it)
            (
                isinstance(c, cst.Call)
                and (imports.call_name(c) is not None or imports.kept_call_name(c) is not None or not isinstance(c.func, cst.Name))
                and any(a.keyword is not None and a.keyword.value == "reuse" for a in c.args)
            )
            or (isinstance(c, cst.Attribute) and c.attr.value in ("reuse_variables", "as_default"))
            or (isinstance(c, cst.Call) and imports.call_name(c) == "Graph")
            for c in find_all(module, (cst.Call, cst.Attribute))
        )
        self.followed: dict[str, str | None] = {}
        self.resolving: set[str] = set()

    def site_scope(self, call: cst.Call) -> str | None | bool:
        """The ``scope=`` of a collection site (None without one); False when not a site."""
        name = self.imports.call_name(call)
        if name == "trainable_variables":
            scope = call_argument(call, "scope", 0)
        elif name == "get_collection":
            key = call_argument(call, "key", 0)
            if not (
                (isinstance(key, cst.SimpleString) and key.evaluated_value == "trainable_variables")
                or (key is not None and self.imports.canonical(key) in _TRAINABLE_KEYS)
            ):
                return False
            scope = call_argument(call, "scope", 1)
        else:
            return False
        if scope is None or (isinstance(scope, cst.Name) and scope.value == "None"):
            return None
        return scope.evaluated_value if isinstance(scope, cst.SimpleString) and isinstance(scope.evaluated_value, str) else "\0"

    # the walk -------------------------------------------------------------------------

    def statements(self, body: Sequence[cst.CSTNode], scopes: _Scopes) -> None:
        for statement in body:
            self.before[id(statement)] = self.variables if isinstance(self.variables, str) else list(self.variables)
            self.statement(statement, scopes)

    def statement(self, statement: cst.CSTNode, scopes: _Scopes) -> None:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return
        if isinstance(statement, cst.With):
            inner = self.with_scopes(statement, scopes)
            self.sites_in(statement.items, scopes)
            self.creations(statement.items)
            if isinstance(inner, str):
                self.spoil_if_creating(statement.body, inner)
                return
            self.statements(statement.body.body, inner)
            return
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self.small(small, scopes)
            return
        if isinstance(statement, cst.If) and self.alike_branches(statement, scopes):
            return
        # a loop, a branch, try: its sites are refused (all_sites) but a loop's iterable,
        # evaluated once before it; and any variable it makes spoils the list
        if isinstance(statement, cst.For):
            self.sites_in(statement.iter, scopes)
        self.spoil_if_creating(
            statement, "a variable is made in a loop, a branch or a `try` before it: which variables TF1 made there is not followed"
        )

    def alike_branches(self, statement: cst.If, scopes: _Scopes) -> bool:
        """``if use_gray: weights = {"wc1": tf.Variable(...), ...} else: weights = {...}``:
        each of the two branches is one assignment to the same name (bound nowhere else)
        making the same variables — the same references, TF1 names and order — so whichever
        branch runs, the variables made are those; they are added to the list (True)."""
        orelse = statement.orelse
        if not isinstance(orelse, cst.Else) or calls_in(statement.test):
            return False
        made: list[list[_Variable]] = []
        for body in (statement.body, orelse.body):
            lines = body.body if isinstance(body, cst.IndentedBlock) else ()
            line = lines[0] if len(lines) == 1 else None
            small = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
            target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
            if not isinstance(small, cst.Assign) or not isinstance(target, cst.Name) or self.bindings.get(target.value) != 2:
                return False
            variables = self.made(small, scopes, branch_name=target.value)
            if not isinstance(variables, list) or not variables:
                return False
            made.append(variables)
        if made[0] != made[1]:
            return False
        if isinstance(self.variables, list):
            self.variables = self.variables + made[0]
        return True

    def small(self, small: cst.BaseSmallStatement, scopes: _Scopes) -> None:
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            return
        if (
            isinstance(small, cst.Expr)
            and isinstance(small.value, cst.Call)
            and self.imports.call_name(small.value) == "reset_default_graph"
        ):
            self.variables = []
            return
        self.sites_in(small, scopes)
        made = self.made(small, scopes) if isinstance(small, cst.Assign) else None
        if made is not None:
            if isinstance(self.variables, list):
                self.variables = made if isinstance(made, str) else self.variables + made
            return
        self.creations(small)

    def sites_in(self, node: _Nodes, scopes: _Scopes) -> None:
        for part in _parts(node):
            for call in calls_in(part):
                scope = self.site_scope(call)
                if scope is False:
                    continue
                variables = self.variables if isinstance(self.variables, str) else list(self.variables)
                if isinstance(variables, list) and any(c is not call and self._creates(c) is not None for c in calls_in(part)):
                    variables = "the statement holding it also makes variables"
                self.sites.append(_Site(call, scope if isinstance(scope, str) else None, variables))

    def with_scopes(self, statement: cst.With, scopes: _Scopes) -> _Scopes | str:
        for item in statement.items:
            call = item.item
            name = self.imports.call_name(call) if isinstance(call, cst.Call) else None
            if name not in ("variable_scope", "name_scope"):
                continue
            call = cst.ensure_type(call, cst.Call)
            first = call.args[0].value if call.args and call.args[0].keyword is None else None
            text = first.evaluated_value if isinstance(first, cst.SimpleString) else None
            if len(call.args) != 1 or not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+", text):
                return f'a `tf.{name}` other than `tf.{name}("name")` (a plain name written out, no other argument) holds variables'
            if name == "variable_scope":
                scopes = _Scopes(scopes.variable + (text,), scopes.name + ((text, True),))
            else:
                scopes = _Scopes(scopes.variable, scopes.name + ((text, True),))
        return scopes

    def spoil_if_creating(self, node: _Nodes, reason: str) -> None:
        reason_found = self.creations(node, quiet=True)
        if reason_found is not None and isinstance(self.variables, list):
            self.variables = reason if reason_found == "" else reason_found

    def creations(self, node: _Nodes, quiet: bool = False) -> str | None:
        """Why the calls in ``node`` may make variables not written out (spoiling the list
        from here on), "" for a plain variable call, None when they make none."""
        for part in _parts(node):
            for call in calls_in(part):
                reason = self._creates(call)
                if reason is None:
                    continue
                if isinstance(self.variables, list) and not quiet:
                    self.variables = reason or "a variable is made inside an expression before it"
                return reason
        return None

    def made(self, assign: cst.Assign, scopes: _Scopes, branch_name: str | None = None) -> list[_Variable] | str | None:
        """The variables ``name = tf.Variable(...)`` (or a dict or list display of such calls)
        makes; None when it makes no variable itself (its calls are judged as others).
        ``branch_name``: the name the two alike branches of an ``if`` bind (and nothing else)."""
        value = assign.value
        maker = self._maker(value)
        if maker is not None:
            return self._made_by_maker(assign, maker, scopes)
        if isinstance(value, cst.Call) and self._variable_call(value):
            calls: list[tuple[str, cst.Call]] = [("", value)]
        elif isinstance(value, cst.Dict) and any(
            isinstance(e, cst.DictElement) and isinstance(e.value, cst.Call) and self._variable_call(e.value) for e in value.elements
        ):
            calls = []
            for entry in value.elements:
                if not (isinstance(entry, cst.DictElement) and isinstance(entry.key, cst.SimpleString)):
                    return "a dict display of variables holds keys that are not strings"
                if not isinstance(entry.key.evaluated_value, str) or not isinstance(entry.value, cst.Call):
                    return "a dict display of variables holds other values or keys that are not strings"
                if not self._variable_call(entry.value):
                    return "a dict display of variables holds other values"
                calls.append((f"[{entry.key.value}]", entry.value))
            if len({k for k, _ in calls}) < len(calls):
                return "a dict display of variables repeats a key"
        elif isinstance(value, (cst.List, cst.Tuple)) and any(
            isinstance(e.value, cst.Call) and self._variable_call(e.value) for e in value.elements
        ):
            calls = []
            for index, e in enumerate(value.elements):
                if not isinstance(e, cst.Element) or not isinstance(e.value, cst.Call) or not self._variable_call(e.value):
                    return "a list of variables holds other values"
                calls.append((f"[{index}]", e.value))
        else:
            return None
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        if not isinstance(target, cst.Name) or (target.value not in self.bound_once and target.value != branch_name):
            return "a variable is bound to something other than a module name bound once"
        if calls[0][0] and _changed_in_place(self.module, target.value):
            # ``weights["h1"]`` names the variable only while no item of the display is replaced
            return f"the display of variables `{target.value}` is changed in place"
        out = []
        for suffix, call in calls:
            if any(self._creates(c) is not None for c in calls_in(call) if c is not call):
                return "a variable's initial value makes variables"
            variable = self._variable(f"{target.value}{suffix}", call, scopes)
            if isinstance(variable, str):
                return variable
            if variable is not None:
                out.append(variable)
        return out

    def _maker(self, value: cst.BaseExpression, depth: int = 0) -> cst.FunctionDef | None:
        """The module's function ``value`` calls when it is a maker of variables: straight-line
        assignments ending in ``return`` of the names bound by ``tf.Variable``/``tf.get_variable``
        calls or by calls of such makers (``a, b = make_linear_variables(...)``), in
        ``with tf.variable_scope(name):`` blocks or not (rewrites/helper_split.py's
        ``make_<helper>_variables``)."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)) or depth > _MAX_MAKER_DEPTH:
            return None
        function = self.functions.get(value.func.value)
        if not isinstance(function, cst.FunctionDef) or function.decorators or not isinstance(function.body, cst.IndentedBlock):
            return None
        statements = [s for s in function.body.body if not _is_docstring(s)]
        returned = _returned_names(statements[-1]) if statements else None
        if returned is None:
            return None
        made: set[str] = set()

        def straight(body: Sequence[cst.BaseStatement]) -> bool:
            for statement in body:
                if isinstance(statement, cst.With):
                    item = statement.items[0].item if len(statement.items) == 1 and statement.items[0].asname is None else None
                    if not (isinstance(item, cst.Call) and self.imports.call_name(item) == "variable_scope"):
                        return False
                    if not straight(cst.ensure_type(statement.body, cst.IndentedBlock).body):
                        return False
                    continue
                if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
                    return False
                small = statement.body[0]
                if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                    return False
                names = _elements(small.targets[0].target)
                if not all(isinstance(n, cst.Name) for n in names):
                    return False
                bound = [cst.ensure_type(n, cst.Name).value for n in names]
                if self._maker(small.value, depth + 1) is not None:
                    made.update(bound)
                elif len(bound) == 1 and isinstance(small.targets[0].target, cst.Name):
                    if isinstance(small.value, cst.Call) and self._variable_call(small.value):
                        made.update(bound)
                else:
                    return False
            return True

        return function if straight(statements[:-1]) and set(returned) <= made else None

    def _made_by_maker(self, assign: cst.Assign, maker: cst.FunctionDef, scopes: _Scopes) -> list[_Variable] | str:
        """The variables ``a, b = make_layer_variables(...)`` makes, in the maker's order, each
        named as the maker's ``tf.Variable``/``tf.get_variable`` call names it in the scopes of
        the call (and the maker's own variable scopes); why not when its statements make other
        variables."""
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        names = target_names(target) if target is not None else []
        returned = _returned_names(cst.ensure_type(maker.body, cst.IndentedBlock).body[-1]) or []
        if isinstance(target, cst.Name) and len(returned) == 1:
            names = [target.value]
        if len(names) != len(returned) or not all(isinstance(e, cst.Name) for e in _elements(target)):
            return f"`{maker.name.value}(...)` is not unpacked into one name per variable it returns"
        if any(n not in self.bound_once for n in names):
            return "a variable is bound to something other than a module name bound once"
        if any(self._creates(c) is not None for c in calls_in(assign.value) if c is not assign.value):
            return "a variable's initial value makes variables"
        return self._maker_variables(maker, cst.ensure_type(assign.value, cst.Call), {}, scopes, dict(zip(returned, names)))

    def _maker_variables(
        self, maker: cst.FunctionDef, call: cst.Call, outer: dict[str, object], scopes: _Scopes, reference: dict[str, str]
    ) -> list[_Variable] | str:
        """The variables one call of a maker makes, in order; ``outer`` the values of the
        caller's parameters (a maker calling a maker), ``reference`` the module name each
        returned variable ends in."""
        values = _argument_values(maker, call, outer)
        out: list[_Variable] = []

        def walk(body: Sequence[cst.BaseStatement], scopes: _Scopes) -> str | None:
            for statement in body:
                if isinstance(statement, cst.With):
                    scope_call = cst.ensure_type(statement.items[0].item, cst.Call)
                    text = _scope_name(scope_call, values)
                    if text is None:
                        return f"`{maker.name.value}` names a `tf.variable_scope` otherwise than by a name known here"
                    inner = _Scopes(scopes.variable + (text,), scopes.name + ((text, True),))
                    reason = walk(cst.ensure_type(statement.body, cst.IndentedBlock).body, inner)
                    if reason is not None:
                        return reason
                    continue
                small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
                if not isinstance(small, cst.Assign):
                    continue
                bound = target_names(small.targets[0].target)
                inner_maker = self._maker(small.value)
                if inner_maker is not None:
                    inner_returned = _returned_names(cst.ensure_type(inner_maker.body, cst.IndentedBlock).body[-1]) or []
                    if len(bound) != len(inner_returned) or any(n not in reference for n in bound):
                        return f"`{maker.name.value}(...)` makes variables it does not return"
                    made = self._maker_variables(
                        inner_maker,
                        cst.ensure_type(small.value, cst.Call),
                        values,
                        scopes,
                        {r: reference[n] for r, n in zip(inner_returned, bound)},
                    )
                    if isinstance(made, str):
                        return made
                    out.extend(made)
                    continue
                calls = [c for c in calls_in(small.value) if self._creates(c) is not None]
                if bound[0] not in reference:
                    if calls:
                        return f"`{maker.name.value}(...)` makes variables it does not return"
                    continue
                if any(c is not small.value for c in calls):
                    return "a variable's initial value makes variables"
                variable = self._variable(reference[bound[0]], cst.ensure_type(small.value, cst.Call), scopes)
                if isinstance(variable, str):
                    return variable
                if variable is not None:
                    out.append(variable)
            return None

        reason = walk(cst.ensure_type(maker.body, cst.IndentedBlock).body, scopes)
        return reason if reason is not None else out

    def _variable_call(self, call: cst.Call) -> bool:
        return self.imports.call_name(call) in ("Variable", "get_variable")

    def _variable(self, reference: str, call: cst.Call, scopes: _Scopes) -> _Variable | str | None:
        """The variable of one call; None when it is not trainable."""
        tf_name = self.imports.call_name(call)
        if tf_name == "Variable":
            trainable, name = call_argument(call, "trainable", 1), call_argument(call, "name", 5)
            collections = call_argument(call, "collections", 2)
        else:
            trainable, name = call_argument(call, "trainable", 5), call_argument(call, "name", 0)
            collections = call_argument(call, "collections", 6)
        if collections is not None or any(a.star for a in call.args):
            return f"`tf.{tf_name}(...)` with `collections=` or starred arguments"
        if trainable is not None:
            if not (isinstance(trainable, cst.Name) and trainable.value in ("True", "False")):
                return f"`tf.{tf_name}(..., trainable=...)` not written as True or False"
            if trainable.value == "False":
                return None
        evaluated = name.evaluated_value if isinstance(name, cst.SimpleString) else None
        text = evaluated if isinstance(evaluated, str) else None
        if name is not None and text is None:
            return _Variable(reference, None)
        if tf_name == "Variable":
            parts = (*scopes.name, (text or "Variable", True))
        else:
            if not text:
                return "`tf.get_variable` without a name written out"
            parts = (*((s, False) for s in scopes.variable), (text, False))
        return _Variable(reference, tuple(parts))

    def _creates(self, call: cst.Call) -> str | None:
        """Why a call may make variables not written out here; "" for a plain
        ``tf.Variable``/``get_variable``; None when it makes none."""
        name = self.imports.call_name(call) or self.imports.kept_call_name(call)
        if name is not None:
            if name in _VARIABLE_CALLS:
                return ""
            if _may_make_variables(name):
                return f"`tf.{name}(...)` makes variables this release does not write out by name"
            return None
        func = call.func
        while isinstance(func, cst.Attribute):
            func = func.value
        if isinstance(call.func, cst.Attribute) and not isinstance(func, cst.Name):
            # a method of a value an expression computed, whose own calls are judged
            # (``opt.minimize``: the slots it makes are not trainable)
            return None
        if not isinstance(func, cst.Name):
            return f"`{self.module.code_for_node(call.func)}(...)` is not followed"
        if self.module.code_for_node(call.func) in self.builders:
            return None  # (another module's pure builder: it makes no variables)
        root = func.value
        method = isinstance(call.func, cst.Attribute)
        if root in self.opaque:
            return f"`{self.module.code_for_node(call.func)}(...)` is not followed (a method of the object may make variables)"
        if root in self.functions:
            return self._follow(root)
        if root in self.imported:
            module = self.imported[root]
            top = module.split(".")[0]
            if module in _SAFE_MODULES or top in _SAFE_MODULES:
                return None
            return f"`{self.module.code_for_node(call.func)}(...)` of module `{module}` is not followed (it may make variables)"
        if root in self.assigned:
            if root in self.resolving:
                return None  # ``x = x.reshape(...)``: judged by its other values
            self.resolving.add(root)
            try:
                return next(filter(None, (self._made_by(root, value) for value in self.assigned[root])), None)
            finally:
                self.resolving.discard(root)
        if root.startswith(_NOTEBOOK_MARKER):
            return None
        if method or root in _BUILTINS:
            return None  # a method of a value the module did not make by a call (``sess.run``), or a builtin
        return f"`{root}(...)` is not followed (it may make variables)"

    def _made_by(self, root: str, value: cst.BaseExpression) -> str | None:
        """Why calling (a method of) the object ``root`` bound to ``value`` may make variables."""
        # ``dense = tf.layers.dense``, ``fc = functools.partial(tf.layers.dense, ...)``: calling
        # ``root`` calls the TF function it names
        for reference in (value, *(a.value for a in value.args)) if isinstance(value, cst.Call) else (value,):
            path = self.imports.canonical(reference)
            if path is not None and _may_make_variables(path):
                return f"`{root}` stands for `tf.{path}`, which makes variables: calls through `{root}` are not written out by name"
        if not isinstance(value, cst.Call):
            return None
        reason = self._creates(value)
        if reason:
            return f"`{root}` is bound to an object that makes variables when called"
        if self.imports.call_name(value) is None and isinstance(value.func, cst.Name) and value.func.value in self.functions:
            return self._follow(value.func.value)
        return None

    def _nested_functions(self, function: cst.CSTNode) -> set[str]:
        """The names of functions defined inside ``function`` (a function, not a class: a bare
        name in a method is no method) that nothing else binds there, in it or in the module."""
        if not isinstance(function, cst.FunctionDef):
            return set()
        defs = Counter(
            node.name.value for node in find_all(function, cst.FunctionDef) if isinstance(node, cst.FunctionDef) and node is not function
        )
        binds = Counter(read_and_bound(function)[1])
        return {
            name
            for name, count in defs.items()
            if binds[name] == count and name != function.name.value and name not in self.functions and name not in self.imported
        }

    def _follow(self, name: str) -> str | None:
        """Why calling the module's function or class ``name`` may make variables."""
        if name not in self.followed:
            self.followed[name] = None  # recursion: judged by its other calls
            function = self.functions[name]
            # a call of a function defined inside this one (``def read32(...)`` in a loader) is
            # judged by that function's own calls, which this walk enters too
            nested = self._nested_functions(function)
            for call in calls_in(function, enter_defs=True):
                if isinstance(call.func, cst.Name) and call.func.value in nested:
                    continue
                reason = self._creates(call)
                if reason is not None:
                    self.followed[name] = f"`{name}(...)` makes variables (in the file's `{name}`) this release does not write out"
                    break
        return self.followed[name]


def _replacement(module: cst.Module, walker: _Walker, site: _Site) -> list[tuple[cst.CSTNode, str]] | str:
    """The nodes to replace for one site, and their texts; or why not."""
    if isinstance(site.variables, str):
        return site.variables
    if walker.reuse:
        return "the file reuses variables (`reuse`) or opens other graphs: the variables cannot be told apart"
    variables = site.variables
    if site.scope == "\0":
        return "`scope=` is not a string written out"
    if site.scope is not None:
        kept = _filtered(variables, lambda n: re.match(site.scope or "", n) is not None, op=False)
        if isinstance(kept, str):
            return kept
        variables = kept
    out: list[tuple[cst.CSTNode, str]] = [(site.call, _display(variables))]
    walker = site.walker or walker
    for use in _uses(module, walker, site.call):
        if isinstance(use, str):
            return use
        comprehension, test, target, op = use
        if test is not None:
            kept = _filtered(variables, functools.partial(_evaluate, test, target, op=op), op=op)
            if isinstance(kept, str):
                return kept
            out.append((comprehension, _display(kept)))
            if any(c is site.call for c in find_all(comprehension, cst.Call)):
                out.pop(0)  # ``[v for v in tf.trainable_variables() if ...]``: one list display
    return out


def _build_methods(module: cst.Module, walker: _Walker, exported: frozenset[str]) -> dict[str, cst.FunctionDef | str]:
    """By ``Class.method``: the methods whose trainable-variable lists are known, or why not.
    Known for the method a class's constructor calls on the object (``self.build_model()``)
    as a statement of its own, before anything that may make variables, and nowhere else; the
    class constructed once in the module, by a top-level statement before which the module
    made no variable, and by no other file of the run.  TF1's graph then held at a site in the
    method only what the method made before it."""
    out: dict[str, cst.FunctionDef | str] = {}
    attributes = [a.attr.value for a in find_all(module, cst.Attribute) if isinstance(a, cst.Attribute)]
    parts = {id(a.attr) for a in find_all(module, cst.Attribute) if isinstance(a, cst.Attribute)}
    mentions = [n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name) and id(n) not in parts]
    for cls in module.body:
        if not (isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)):
            continue
        methods = {f.name.value: f for f in cls.body.body if isinstance(f, cst.FunctionDef)}
        init = methods.get("__init__")
        name = cls.name.value
        constructed = [
            s
            for s in module.body
            if isinstance(s, cst.SimpleStatementLine)
            and any(isinstance(c, cst.Call) and m.matches(c.func, m.Name(name)) for c in find_all(s, cst.Call))
        ]
        if name in exported:
            why = f"another file of the run imports `{name}`"
        elif len(constructed) != 1 or mentions.count(name) != 2:
            why = f"`{name}` is not constructed once, by a statement at the top of the module"
        elif walker.before.get(id(constructed[0])) != [] or any(
            walker._creates(c) is not None
            for c in calls_in(constructed[0])
            if not (isinstance(c, cst.Call) and m.matches(c.func, m.Name(name)))
        ):
            # (its arguments too are evaluated before the constructor runs)
            why = f"variables may exist when `{name}` is constructed"
        else:
            why = ""
        build = _build_call(module, walker, init) if init is not None else None
        for method in methods.values():
            if method is init:
                continue
            if method is not build:
                out[f"{name}.{method.name.value}"] = "its class's constructor does not call it first, once, before making any variable"
            elif why or attributes.count(method.name.value) != 1 or mentions.count(method.name.value) != 1:
                out[f"{name}.{method.name.value}"] = why or "the method is called elsewhere too"
            else:
                out[f"{name}.{method.name.value}"] = method
    return out


def _method_named(module: cst.Module, qualified: str) -> cst.FunctionDef:
    class_name, _, name = qualified.partition(".")
    cls = next(c for c in module.body if isinstance(c, cst.ClassDef) and c.name.value == class_name)
    return next(f for f in cst.ensure_type(cls.body, cst.IndentedBlock).body if isinstance(f, cst.FunctionDef) and f.name.value == name)


def _build_call(module: cst.Module, walker: _Walker, init: cst.FunctionDef) -> cst.FunctionDef | None:
    """The method of the class the constructor calls on the object (``self.build_model()``), a
    statement of its own that comes before any that may make variables or call on the object."""
    if not init.params.params or not isinstance(init.body, cst.IndentedBlock):
        return None
    me = init.params.params[0].name.value
    inner = _Walker(module, walker.imports, walker.builders, init)
    for statement in init.body.body:
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
        call = small.value if isinstance(small, cst.Expr) else None
        if isinstance(call, cst.Call) and not call.args and m.matches(call.func, m.Attribute(value=m.Name(me))):
            name = cst.ensure_type(call.func, cst.Attribute).attr.value
            cls = next(
                c
                for c in module.body
                if isinstance(c, cst.ClassDef) and any(s is init for s in cst.ensure_type(c.body, cst.IndentedBlock).body)
            )
            return next(
                (f for f in cst.ensure_type(cls.body, cst.IndentedBlock).body if isinstance(f, cst.FunctionDef) and f.name.value == name),
                None,
            )
        if inner.creations(statement, quiet=True) is not None:
            return None
    return None


def _display(variables: list[_Variable]) -> str:
    return f"[{', '.join(v.reference for v in variables)}]"


def _filtered(variables: list[_Variable], test: Callable[[str], object], op: bool) -> list[_Variable] | str:
    """The variables whose TF1 names pass ``test``, or why that is not known."""
    kept = []
    for variable in variables:
        names = variable.names(op)
        if names is None:
            return f"the name of `{variable.reference}` is not a string written out"
        try:
            results = {bool(test(n)) for n in names}
        except (_Unknown, re.error):
            return "the filter is not a test of the variables' names this release evaluates"
        if len(results) != 1:
            return (
                f"whether `{variable.reference}` passes the filter depends on the suffix TF1 may have added to make its "
                f"name unique (`{names[0]}`)"
            )
        if results.pop():
            kept.append(variable)
    return kept


class _Unknown(Exception):
    """A test this release does not evaluate."""


def _evaluate(test: cst.BaseExpression, target: str, name: str, *, op: bool) -> object:
    """The value of a filter's test for a variable named ``name`` (``v.name`` or ``v.op.name``)."""
    if isinstance(test, cst.BooleanOperation):
        left = _evaluate(test.left, target, name, op=op)
        if isinstance(test.operator, cst.And):
            return left and _evaluate(test.right, target, name, op=op)
        return left or _evaluate(test.right, target, name, op=op)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return not _evaluate(test.expression, target, name, op=op)
    if isinstance(test, cst.SimpleString):
        return test.evaluated_value
    if isinstance(test, cst.Tuple) and all(isinstance(e.value, cst.SimpleString) for e in test.elements):
        return tuple(_evaluate(e.value, target, name, op=op) for e in test.elements)
    if _name_read(test, target, op):
        return name
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        left = _evaluate(test.left, target, name, op=op)
        right = _evaluate(test.comparisons[0].comparator, target, name, op=op)
        operator = test.comparisons[0].operator
        if not isinstance(left, str) or not isinstance(right, str):
            raise _Unknown
        if isinstance(operator, cst.In):
            return left in right
        if isinstance(operator, cst.NotIn):
            return left not in right
        if isinstance(operator, cst.Equal):
            return left == right
        if isinstance(operator, cst.NotEqual):
            return left != right
    if (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Attribute)
        and test.func.attr.value in ("startswith", "endswith")
        and _name_read(test.func.value, target, op)
        and len(test.args) == 1
        and test.args[0].keyword is None
        and not test.args[0].star
    ):
        argument = _evaluate(test.args[0].value, target, name, op=op)
        if not isinstance(argument, (str, tuple)):
            raise _Unknown
        return name.startswith(argument) if test.func.attr.value == "startswith" else name.endswith(argument)
    raise _Unknown


def _name_read(node: cst.BaseExpression, target: str, op: bool) -> bool:
    """``v.name`` (``op`` False) or ``v.op.name`` (``op`` True)."""
    if not (isinstance(node, cst.Attribute) and node.attr.value == "name"):
        return False
    inner = node.value
    if op:
        if not (isinstance(inner, cst.Attribute) and inner.attr.value == "op"):
            return False
        inner = inner.value
    return isinstance(inner, cst.Name) and inner.value == target


_Use = tuple[cst.CSTNode, cst.BaseExpression | None, str, bool]


def _uses(module: cst.Module, walker: _Walker, call: cst.Call) -> list[_Use | str]:
    """How the list is read: the comprehensions filtering it by name (and those mapping it,
    test None), or why a read is refused (one that may read a variable's ``.name`` at run
    time).  The list is the call itself or a module name bound once to it."""
    parents = _parents(module)
    out: list[_Use | str] = []
    for holder in _holders(module, walker, parents, call):
        if isinstance(holder, str):
            return [holder]
        parent = parents.get(id(holder))
        if isinstance(parent, cst.CompFor) and parent.iter is holder:
            use = _comprehension_use(parents.get(id(parent)), parent)
            if isinstance(use, str):
                return [use]
            out.append(use)
            if use[1] is not None:
                # the filtered list: read no name of it either
                refused = next((h for h in _holders(module, walker, parents, use[0]) if isinstance(h, str)), None)
                if refused is None:
                    refused = _name_reads(module, walker, parents, use[0])
                if refused is not None:
                    return [refused]
        else:
            refused = _plain_use(module, parents, holder, parent)
            if refused is not None:
                return [refused]
    return out


def _name_reads(module: cst.Module, walker: _Walker, parents: dict[int, cst.CSTNode], node: cst.CSTNode) -> str | None:
    for holder in _holders(module, walker, parents, node):
        if isinstance(holder, str):
            return holder
        parent = parents.get(id(holder))
        if isinstance(parent, cst.CompFor) and parent.iter is holder:
            target = parent.target.value if isinstance(parent.target, cst.Name) else None
            comprehension = parents.get(id(parent))
            if target is None or comprehension is None or _reads_name(comprehension, target):
                return "a comprehension over the list reads the variables' `.name`, which TF2 gives otherwise"
            continue
        refused = _plain_use(module, parents, holder, parent)
        if refused is not None:
            return refused
    return None


def _holders(module: cst.Module, walker: _Walker, parents: dict[int, cst.CSTNode], node: cst.CSTNode) -> list[cst.CSTNode | str]:
    """The expressions that hold the list ``node`` makes: itself, or the reads of the
    module name it is bound to (bound once)."""
    parent = parents.get(id(node))
    if not isinstance(parent, cst.Assign) or parent.value is not node:
        return [node]
    target = parent.targets[0].target if len(parent.targets) == 1 else None
    if not isinstance(target, cst.Name) or target.value not in walker.bound_once:
        return ["the list is bound to more than one name, or to a name bound again"]
    line = parents.get(id(parent))
    if walker.method is None and not isinstance(parents.get(id(line)), cst.Module):
        return ["the list is bound inside a block"]
    if walker.method is not None and not any(line is s for s in cst.ensure_type(walker.method.body, cst.IndentedBlock).body):
        return ["the list is bound inside a block"]
    # (a method's local: read in that method alone)
    where = module if walker.method is None else walker.method.body
    return [n for n in find_all(where, cst.Name) if isinstance(n, cst.Name) and n.value == target.value and n is not target]


def _plain_use(module: cst.Module, parents: dict[int, cst.CSTNode], holder: cst.CSTNode, parent: cst.CSTNode | None) -> str | None:
    """Why reading the list at ``holder`` (not a comprehension over it) may read a
    variable's name, or None."""
    if isinstance(parent, cst.For) and parent.iter is holder:
        target = parent.target.value if isinstance(parent.target, cst.Name) else None
        if target is None or _reads_name(parent.body, target):
            return "a loop over the list reads the variables' `.name`, which TF2 gives otherwise"
        return None
    if isinstance(parent, cst.Arg):
        owner = parents.get(id(parent))
        if _passes_safely(parent, owner):
            return None
        called = module.code_for_node(owner.func) if isinstance(owner, cst.Call) else "?"
        return f"the list is passed to `{called}(...)`, which this release does not follow (it may read the variables' names, which TF2 gives otherwise)"
    if isinstance(parent, cst.Assign) and parent.value is holder:
        return None
    return "the list is stored or read in a way this release does not follow"


_PASSING_CALLS = frozenset({"zip", "len", "list", "tuple", "enumerate", "reversed", "gradients", "minimize", "compute_gradients",
                            "clip_by_global_norm", "variables_initializer", "add_n", "run"})  # fmt: skip


def _passes_safely(arg: cst.Arg, owner: cst.CSTNode | None) -> bool:
    """A call that reads the list's variables for their values, never their names."""
    if not isinstance(owner, cst.Call):
        return False
    func = owner.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    return name in _PASSING_CALLS and (arg.keyword is None or arg.keyword.value in ("var_list", "xs", "t_list", "inputs", "fetches"))


def _comprehension_use(comprehension: cst.CSTNode | None, comp_for: cst.CompFor) -> _Use | str:
    if not isinstance(comprehension, (cst.ListComp, cst.GeneratorExp)) or comp_for.inner_for_in is not None:
        return "a comprehension over the list that is not one `for` this release follows"
    target = comp_for.target.value if isinstance(comp_for.target, cst.Name) else None
    if target is None or comp_for.asynchronous is not None:
        return "a comprehension over the list unpacks its elements"
    if _reads_name(comprehension.elt, target):
        return "a comprehension over the list reads the variables' `.name`, which TF2 gives otherwise"
    if not comp_for.ifs:
        return (comprehension, None, target, False)
    if len(comp_for.ifs) != 1 or not isinstance(comprehension, cst.ListComp):
        return "a filter of the list is not one `if` of a list comprehension"
    if not (isinstance(comprehension.elt, cst.Name) and comprehension.elt.value == target):
        return "a filtered comprehension over the list computes from its elements"
    test = comp_for.ifs[0].test
    op = any(_name_read(n, target, True) for n in find_all(test, cst.Attribute) if isinstance(n, cst.Attribute))
    return (comprehension, test, target, op)


def _reads_name(node: cst.CSTNode, target: str | None) -> bool:
    return any(
        isinstance(a, cst.Attribute) and a.attr.value == "name" and (target is None or _root(a) == target)
        for a in find_all(node, cst.Attribute)
    )


def _root(node: cst.BaseExpression) -> str | None:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def _parents(module: cst.Module) -> dict[int, cst.CSTNode]:
    parents: dict[int, cst.CSTNode] = {}

    class Recorder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            for child in node.children:
                parents[id(child)] = node
            return True

    module.visit(Recorder())
    return parents


def _module_name(node: cst.ImportFrom) -> str:
    if node.module is None:
        return ""
    return cst.Module([]).code_for_node(node.module)


def _imported_modules(module: cst.Module) -> dict[str, str]:
    """Local name → the module it comes from, for every import of the module."""
    out: dict[str, str] = {}
    empty = cst.Module([])
    for node in find_all(module, (cst.Import, cst.ImportFrom)):
        if isinstance(node, cst.Import):
            for alias in node.names:
                dotted = empty.code_for_node(alias.name)
                local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else dotted.split(".")[0]
                out[local] = dotted if alias.asname else dotted.split(".")[0]
        elif isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            source = ("." * len(node.relative)) + _module_name(node)
            for alias in node.names:
                local = (
                    alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else empty.code_for_node(alias.name)
                )
                out[local] = source
    return out


def _bindings_at_top(module: cst.Module) -> dict[str, int]:
    """How many times the module's own statements bind each of its names (a def's
    parameters and locals are other names), for the names declared ``global`` nowhere."""
    binds: list[str] = []
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            binds.append(statement.name.value)
        else:
            binds.extend(read_and_bound(statement)[1])
    declared = {n.name.value for g in find_all(module, cst.Global) if isinstance(g, cst.Global) for n in g.names}
    return {n: binds.count(n) for n in set(binds) if n not in declared}


def _module_assignments(module: cst.Module) -> dict[str, list[cst.BaseExpression]]:
    """Name → its values, for names assigned at the top of the module."""
    out: dict[str, list[cst.BaseExpression]] = {}
    for line in module.body:
        if isinstance(line, cst.SimpleStatementLine):
            for small in line.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            out.setdefault(target.target.value, []).append(small.value)
    return out


def _changed_in_place(module: cst.Module, name: str) -> bool:
    """Is an item of ``name`` assigned or deleted, a method called on it, or is it declared
    ``global`` somewhere?"""
    for node in find_all(module, (cst.AssignTarget, cst.AugAssign, cst.Del, cst.Global, cst.Call)):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.Del)):
            target = node.target
            if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value == name:
                return True
        elif isinstance(node, cst.Global):
            if any(n.name.value == name for n in node.names):
                return True
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            inner = node.func.value
            if isinstance(inner, cst.Name) and inner.value == name and node.func.attr.value not in ("get", "keys", "values", "items"):
                return True
    return False


def _is_docstring(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.SimpleString)
    )


# how deep makers calling makers are followed
_MAX_MAKER_DEPTH = 4
_UNKNOWN = object()


def _argument_values(maker: cst.FunctionDef, call: cst.Call, outer: dict[str, object]) -> dict[str, object]:
    """The string (or None) each parameter of ``maker`` holds at ``call``: a string or ``None``
    written there or as the default, or the caller's parameter holding one; else unknown."""

    def value(node: cst.BaseExpression | None, env: dict[str, object]) -> object:
        if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
            return node.evaluated_value
        if isinstance(node, cst.Name):
            return None if node.value == "None" else env.get(node.value, _UNKNOWN)
        return _UNKNOWN

    parameters = [*maker.params.params, *maker.params.kwonly_params]
    bound = bind_arguments(call, tuple(p.name.value for p in parameters)) or {}
    out: dict[str, object] = {}
    for parameter in parameters:
        argument = bound.get(parameter.name.value)
        out[parameter.name.value] = value(argument.value, outer) if argument is not None else value(parameter.default, {})
    return out


def _scope_name(call: cst.Call, values: dict[str, object]) -> str | None:
    """The name ``tf.variable_scope(name)`` opens where the maker's parameters hold ``values``:
    a string, a parameter holding one, or ``parameter or "default"``; None when not known."""
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    named = call.args[0].value
    text: object = _UNKNOWN
    if isinstance(named, cst.BooleanOperation) and isinstance(named.operator, cst.Or) and isinstance(named.right, cst.SimpleString):
        left = values.get(named.left.value, _UNKNOWN) if isinstance(named.left, cst.Name) else _UNKNOWN
        text = left if isinstance(left, str) and left else (None if left is _UNKNOWN else named.right.evaluated_value)
    elif isinstance(named, cst.SimpleString):
        text = named.evaluated_value
    elif isinstance(named, cst.Name):
        text = values.get(named.value, _UNKNOWN)
    return text if isinstance(text, str) and re.fullmatch(r"[A-Za-z0-9_.\-]+", text) else None


def _returned_names(statement: cst.CSTNode | None) -> list[str] | None:
    """The names ``return a, b`` (or ``return a``) returns; None for another statement."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    if not isinstance(small, cst.Return) or small.value is None:
        return None
    values = _elements(small.value)
    if not all(isinstance(v, cst.Name) for v in values):
        return None
    return [cst.ensure_type(v, cst.Name).value for v in values]


def _elements(expression: cst.BaseExpression | None) -> list[cst.BaseExpression]:
    if isinstance(expression, cst.Tuple):
        return [e.value for e in expression.elements]
    return [expression] if expression is not None else []
