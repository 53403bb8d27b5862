"""Every TensorFlow reference of a migrated file gets its TF2 home.

The facts come from TensorFlow's own upgrade tables (generated into ``data/tf_symbols``):
symbol renames (``tf.log`` → ``tf.math.log``), keyword renames (``keep_dims`` →
``keepdims``), positional reorders (turned into keywords) and the call sites that need
a real rewrite (``tf.to_float(x)`` → ``tf.cast(x, tf.float32)``, ``tf.nn.dropout(x,
keep_prob)`` → ``tf.nn.dropout(x, rate=1 - keep_prob)``).  Beyond those tables,
``tf.app.flags``, ``tf.flags``, ``tf.app.run`` and ``tf.logging`` go to absl, which
TensorFlow itself uses.  A TF1 symbol with no TF2 equivalent is written
``tf.compat.v1.X`` (it still runs) with a finding that says so; ``tf.contrib`` and
``tf.estimator`` have no home in current TensorFlow at all and are reported.

References are recognised through the file's imports, whatever the alias, and written
``tf.…`` (the migrated file imports ``tensorflow as tf``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Any, NamedTuple, TypeVar

import libcst as cst

from tf2migrate.analysis.lookup_tables import SHARDED_PARAMETERS, shards_argument
from tf2migrate.analysis.names import NameReferences, self_attribute
from tf2migrate.analysis.tf_api import (
    KNOWN_PATHS,
    TF1_MODULES,
    Target,
    removed_successor,
    tf2_target,
)
from tf2migrate.analysis.tf_imports import ITERATOR_METHODS, TfImports, dotted_name
from tf2migrate.data.tf_symbols import (
    DIFFERENT_IN_TF2,
    KEYWORD_RENAMES,
    RENAMES,
    REORDERS,
    SAME_IN_TF2,
    TRANSFORMED,
)
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan, RenameLog
from tf2migrate.rewrites import tf1_initializers
from tf2migrate.traversal import FastTransformer

COMPAT_FALLBACK = Rule(
    "TFM401",
    "compat-v1-fallback",
    "A TF1 symbol with no TF2 equivalent is kept as tf.compat.v1.X.",
    Severity.WARNING,
    FixSafety.SAFE,
    what="Writes `tf.compat.v1.X` for a TF1 symbol that TF2 has no equivalent for (or whose "
    "call site needs a change tf2migrate cannot prove safe).",
    why="`tf.compat.v1.X` keeps the TF1 meaning and runs under TF2, but it is TF1 API: replace it by hand when convenient.",
    invalid=("import tensorflow as tf\nwith tf.Session() as sess:\n    print(sess.run(tf.global_variables()))\n",),
    valid=("import tensorflow as tf\ny = tf.constant(7.0) * 2\nwith tf.Session() as sess:\n    print(sess.run(y))\n",),
)
API_RENAMED = Rule(
    "TFM402",
    "api-renamed",
    "A TF1 symbol, keyword or call form was rewritten to its TF2 equivalent.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Renames symbols (`tf.log` → `tf.math.log`), keywords (`keep_dims` → `keepdims`), "
    "turns reordered positional arguments into keywords, and rewrites call forms "
    "(`tf.to_float(x)` → `tf.cast(x, tf.float32)`, `keep_prob` → `rate=1 - keep_prob`, "
    "`tf.app.flags` → `absl.flags`, `tf.logging` → `absl.logging`).",
    why="TF2 removed or renamed these; the tables are TensorFlow's own (tf_upgrade_v2).",
    invalid=("import tensorflow as tf\nW = tf.Variable(tf.truncated_normal([2]))\n",),
    valid=("import tensorflow as tf\nW = tf.Variable(tf.random.truncated_normal([2]))\n",),
)
REMOVED_MODULE = Rule(
    "TFM403",
    "removed-module",
    "tf.contrib, tf.estimator and tensorflow.examples are not part of TensorFlow 2 (estimator since 2.16).",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports each use of `tf.contrib.*` and `tf.estimator.*` with the known replacement, "
    "and each import of a module TF2 does not ship (`import tensorflow.contrib.slim as slim`, "
    "`from tensorflow.examples.tutorials.mnist import input_data`), which is kept as written.",
    why="These modules do not exist in current TensorFlow, not even under tf.compat.v1; the code cannot run until they are replaced.",
    instead="tf.contrib.layers → tf.keras.layers; tf.contrib.opt → tf.keras.optimizers or "
    "TensorFlow Addons' successors; tf.contrib.rnn / seq2seq → tf.keras.layers.RNN / LSTM; "
    "tf.contrib.distributions → TensorFlow Probability; tf.estimator → Keras `Model.fit`.",
    invalid=("import tensorflow as tf\ninit = tf.contrib.layers.xavier_initializer()\n",),
    valid=("import tensorflow as tf\ninit = tf.keras.initializers.GlorotUniform()\n",),
)
RULES = [COMPAT_FALLBACK, API_RENAMED, REMOVED_MODULE]

# Modules outside the public API that TF2's package does not ship at all.
_ABSENT_MODULES = ("contrib", "examples")


def imports_absent_module(imports) -> bool:
    """Does the file import a TF module TF2 does not ship (``from tensorflow.contrib import
    slim``)?  Such an import names TF1's API as plainly as ``tf.contrib.slim`` does."""
    return any(_absent(dotted) for _, dotted in imports.kept)


def _absent(dotted: str) -> bool:
    return dotted.partition(".")[2].split(".")[0] in _ABSENT_MODULES


def absent_module(dotted: str) -> bool:
    """Is ``dotted`` a module of a TF package TF2 does not ship (``tensorflow.contrib.slim``,
    ``tensorflow.examples.tutorials.mnist``)?"""
    return dotted.partition(".")[0] == "tensorflow" and _absent(dotted)


# the packages' text, for a cheap test of a file (``tensorflow.contrib``, ``tensorflow.examples``)
ABSENT_PACKAGES = tuple(f"tensorflow.{module}" for module in _ABSENT_MODULES)


def kept_import_findings(imports) -> list[tuple[cst.CSTNode, str, str]]:
    """Imports of TF modules TF2 lacks are kept as written (so their names stay bound)
    and reported: the file cannot run until they are replaced."""
    out = []
    for node, dotted in imports.kept:
        relative = dotted.partition(".")[2]
        if _absent(dotted):
            successor = removed_successor(relative) or "none known"
            message = f"`{dotted}` is not part of TensorFlow 2; import kept as written (replacement: {successor})"
            out.append((node, REMOVED_MODULE.code, message))
    return out


_CASTS = {
    "to_float": "float32",
    "to_double": "float64",
    "to_int32": "int32",
    "to_int64": "int64",
    "to_bfloat16": "bfloat16",
    "to_complex64": "complex64",
    "to_complex128": "complex128",
}


#: Calls rewritten whole by this module: TensorFlow's table, and TF1 initializers that TF2's
#: namesakes replace where they draw the same values (rewrites/tf1_initializers.py).
CALLS_TRANSFORMED = TRANSFORMED | tf1_initializers.PATHS


def _needs_call_fix(path: str) -> bool:
    return path in REORDERS or path in KEYWORD_RENAMES or path in CALLS_TRANSFORMED or path in SHARDED_PARAMETERS


def _tf2_takes_every_call(path: str) -> bool:
    """Is the TF2 function a safe value wherever the TF1 one was passed around?  Yes when
    TF1's extra parameters are only deprecated aliases of TF2's (``softmax``'s ``dim`` for
    ``axis``): the positional parameters are the same, and a call elsewhere naming an alias
    fails loudly (TypeError) instead of meaning something else."""
    if path in REORDERS or path in CALLS_TRANSFORMED or path not in KEYWORD_RENAMES:
        return False
    tf1, tf2 = DIFFERENT_IN_TF2.get(path, (None, None))
    if tf1 is None or tf2 is None or tuple(tf1[: len(tf2)]) != tuple(tf2):
        return False
    return all(old not in tf2 and new in tf2 for old, new in KEYWORD_RENAMES[path].items())


def name_normalizer(plan: Plan, imports: TfImports, localize: frozenset[str] = frozenset()) -> TfNameNormalizer:
    """The renamer every rewrite writes code with: one rename log and call-replacement
    table per file (the plan's)."""
    return TfNameNormalizer(imports, localize=localize, **plan_settings(plan))


def plan_settings(plan: Plan) -> dict[str, Any]:
    """What a renamer takes from the file's plan (its rename log, call replacements and the
    file's facts), for each renamer of the file: the rewrites' and the plan's applier."""
    return {
        "log": plan.renames,
        "absl_names": plan.absl_names,
        "module_defines_main": plan.defines_main,
        "call_replacements": plan.call_replacements,
        "root_is_tf1": plan.root_is_tf1,
        "tf1_dimensions": plan.tf1_dimensions,
        "dimension_name_reads": plan.dimension_name_reads,
        "eager_graph": plan.eager_graph,
        "one_table_lookups": plan.one_table_lookups,
    }


class TfNameNormalizer(NameReferences, FastTransformer):
    """Rewrites the TF references of a subtree to their TF2 form (see module doc)."""

    def __init__(
        self,
        imports: TfImports,
        log: RenameLog | None = None,
        absl_names: dict[str, str] | None = None,
        module_defines_main: bool = False,
        call_replacements: dict | None = None,
        root_is_tf1: bool = True,
        localize: frozenset[str] = frozenset(),
        tf1_dimensions: bool = False,
        dimension_name_reads: Collection[int] = (),
        eager_graph: bool = False,
        one_table_lookups: Collection[int] = (),
    ) -> None:
        super().__init__()
        # ``self.x`` graph names that are locals in the generated method being written
        self.localize = localize
        # Whether ``tf.X`` (through ``import tensorflow``) means TF1 in this file: a name
        # valid in both versions (``tf.nn.dropout(x, 0.5)``) is rewritten only then.
        self.root_is_tf1 = root_is_tf1
        self.module_defines_main = module_defines_main
        # calls another rewrite replaces whole (tf.layers → Keras): id → f(updated call)
        self.call_replacements = call_replacements or {}
        self.tf = imports
        self.log = log if log is not None else RenameLog()
        # absl module → the local name it is imported as (``flags`` or ``absl_flags``)
        self.absl_names = absl_names or {}
        self._calls_handled: set[int] = set()  # func nodes rewritten together with their call
        # TF1's shapes kept (``disable_v2_tensorshape``): ``shape[i].value`` reads a Dimension still
        self.tf1_dimensions = tf1_dimensions
        # ``d.value`` of names holding TF1 Dimensions (rewrites/dimension_names.py), by id
        self.dimension_name_reads = dimension_name_reads
        # the file's graph becomes eager TF2: its Keras initializers are TF2's (reference_spelling)
        self.eager_graph = eager_graph
        # sharded lookups whose shards are one table (analysis/lookup_tables.py), by id
        self.one_table_lookups = one_table_lookups

    # -------------------------------------------------------------- plumbing
    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if self.tf.canonical(node) is not None:
            return False  # the whole chain is replaced in leave_Attribute
        self.not_references.add(id(node.attr))
        return True

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        path = self.tf.canonical(node.func)
        if path is None:
            return
        keywords = frozenset(a.keyword.value for a in node.args if a.keyword is not None)
        if call_rewritten(self.tf, path, dotted_name(node.func) or "", self.root_is_tf1, keywords) or id(node) in self.call_replacements:
            self._calls_handled.add(id(node.func))

    def _app_run(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``tf.app.run()`` runs ``__main__.main``; absl's ``app.run`` takes it explicitly."""
        args = list(updated.args)
        if not args and self.module_defines_main:
            args = [cst.Arg(cst.Name("main"))]
        if not args or any(a.star for a in args):
            self.log.note(original, COMPAT_FALLBACK.code, "tf.app.run() without a main function; kept as tf.compat.v1.app.run")
            return updated.with_changes(func=_expression("tf.compat.v1.app.run", updated.func))
        self.log.absl_modules.add("app")
        self.log.note(original, API_RENAMED.code, "tf.app.run → absl.app.run")
        local = self.absl_names.get("app", "app")
        return updated.with_changes(func=_expression(f"{local}.run", updated.func), args=args)

    def _iterator_function(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``dataset.make_one_shot_iterator()``: TF2 datasets have no such method; the TF1
        function form takes the dataset."""
        func = cst.ensure_type(updated.func, cst.Attribute)  # ``dataset.make_…_iterator``
        method = func.attr.value
        self.log.note(
            original, COMPAT_FALLBACK.code, f"Dataset.{method}() → tf.compat.v1.data.{method}(dataset) (TF2 datasets lack the method)"
        )
        dataset = cst.Arg(func.value)
        args = [dataset.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))] if updated.args else [dataset]
        return updated.with_changes(func=cst.parse_expression(f"tf.compat.v1.data.{method}"), args=[*args, *updated.args])

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if is_dimension_value(original_node) and not self.tf1_dimensions:
            # TF1 shapes hold Dimension objects; TF2's hold ints (or None) already
            self.log.note(original_node, API_RENAMED.code, "`shape[i].value` → `shape[i]` (TF2 dimensions are ints)")
            return updated_node.value
        if id(original_node) in self.dimension_name_reads:
            # the name holds a TF2 int (or None) where TF1's held a Dimension
            return cst.Call(func=cst.parse_expression("tf.compat.dimension_value"), args=[cst.Arg(updated_node.value)])
        if self.localize and self_attribute(original_node) in self.localize:
            return cst.Name(original_node.attr.value, lpar=updated_node.lpar, rpar=updated_node.rpar)
        return self._reference(original_node, updated_node)

    def leave_ListComp(self, original_node: cst.ListComp, updated_node: cst.ListComp) -> cst.BaseExpression:
        if is_dimension_comprehension(original_node) and isinstance(updated_node.elt, cst.Attribute) and not self.tf1_dimensions:
            # iterating a TF2 shape gives ints (or None) already
            self.log.note(original_node, API_RENAMED.code, "`[d.value for d in shape]` → `[d for d in shape]` (TF2 dimensions are ints)")
            return updated_node.with_changes(elt=updated_node.elt.value)
        return updated_node

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if not self.is_reference(original_node):
            return updated_node
        return self._reference(original_node, updated_node)

    def _reference(self, original, updated) -> cst.BaseExpression:
        path = self.tf.canonical(original)
        if path is None:
            return updated
        if id(original) in self._calls_handled:
            return updated  # rewritten with its arguments in leave_Call
        spelling = reference_spelling(self.tf, path, dotted_name(original) or "", self.root_is_tf1, self.absl_names, self.eager_graph)
        if spelling.absl_module is not None:
            self.log.absl_modules.add(spelling.absl_module)
        if spelling.finding is not None:
            self.log.note(original, *spelling.finding)
        return _expression(spelling.code, updated)

    # ----------------------------------------------------------------- calls
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        replace = self.call_replacements.get(id(original_node))
        if replace is not None:
            return replace(updated_node)
        path = self.tf.canonical(original_node.func)
        if path == "app.run":
            return self._app_run(original_node, updated_node)
        # TF1 datasets (the file's own TF1 code, or a ``tensorflow.compat.v1`` alias now
        # written ``tensorflow``) become TF2 ones, which lack the iterator methods
        if path is None and (self.root_is_tf1 or self.tf.v1_aliases) and is_iterator_method_call(original_node):
            return self._iterator_function(original_node, updated_node)
        if path is None or id(original_node.func) not in self._calls_handled:
            return updated_node
        call, findings = rewritten_call(path, updated_node, id(original_node) in self.one_table_lookups)
        for finding in findings:
            self.log.note(original_node, *finding)
        return call


def _means_tf1(imports: TfImports, path: str, dotted: str, root_is_tf1: bool) -> bool:
    """TF2 also has ``tf.<path>``: only TF1 code needs its call sites rewritten."""
    return path not in KNOWN_PATHS or root_is_tf1 or imports.is_explicit_v1_dotted(dotted)


def call_rewritten(imports: TfImports, path: str, dotted: str, root_is_tf1: bool, keywords: frozenset[str]) -> bool:
    """Is a call of the TF reference ``dotted`` (canonical ``path``) rewritten with its
    arguments (keywords, reorders, call forms, ``tf.app.run``), not just renamed?

    Also a call passing a keyword TF2's namesake refuses and no table renames
    (``tf.Variable(..., collections=[...])``): written ``tf.compat.v1.Variable`` it keeps
    running, and a second run no longer reads the file as TF1 by that keyword (which made
    it give TF1's meaning to names the first run had given TF2's, see
    tf_api.reference_evidence)."""
    if path == "app.run" or not _means_tf1(imports, path, dotted, root_is_tf1):
        return path == "app.run"
    if _needs_call_fix(path):
        return True
    if tf2_target(path).kind in ("compat", "removed"):
        return False  # written tf.compat.v1.<path> (or reported) whatever its keywords
    return bool(_tf1_only_keywords(path, keywords))


def _tf1_only_keywords(path: str, keywords) -> list[str]:
    """The keywords TF1's ``tf.<path>`` takes and TF2's namesake does not (a keyword
    neither takes, such as ``targets=`` older than TF 1.0, fails in both alike)."""
    tf1_params, tf2_params = DIFFERENT_IN_TF2.get(path, (None, None))
    if tf1_params is None or tf2_params is None:
        return []
    return [keyword for keyword in keywords if keyword in tf1_params and keyword not in tf2_params]


def rewritten_call(path: str, call: cst.Call, one_table: bool = False) -> tuple[cst.BaseExpression, list[tuple[str, str]]]:
    """The TF2 form of a call ``call_rewritten`` says needs more than a rename (not
    ``tf.app.run``), and the findings (code, message) about it.  ``one_table``: a lookup
    in shards whose shards are proven one table (analysis/lookup_tables.py)."""
    target = tf2_target(path)
    if target.kind == "removed":
        finding = (REMOVED_MODULE.code, f"tf.{path} is not in TensorFlow 2; replacement: {removed_successor(path)}")
        return call.with_changes(func=_expression(target.code, call.func)), [finding]
    if target.kind == "compat" and path not in CALLS_TRANSFORMED:
        # ``tf.compat.v1.X`` is TF1's function itself: it takes TF1's arguments, so none is
        # renamed or dropped (``resize_images(..., align_corners=True)`` keeps its corners).
        # A call transformed whole (``tf.to_float(x)`` → ``tf.cast``) is TF2 code instead.
        return call.with_changes(func=_expression(target.code, call.func)), [(COMPAT_FALLBACK.code, _compat_message(path, target.code))]
    fixed = _fix_call(path, call, one_table)
    if fixed is None:
        only_tf1 = _tf1_only_keywords(path, [a.keyword.value for a in call.args if a.keyword is not None])
        needs = (
            f"passes {', '.join(f'`{k}=`' for k in only_tf1)}, which TF2's namesake does not take"
            if only_tf1
            else tf1_initializers.REFUSED
            if path in tf1_initializers.PATHS
            else _SHARDS_BY_MOD
            if _shards_by_mod(path, call, one_table)
            else "needs a manual change for TF2"
        )
        finding = (COMPAT_FALLBACK.code, f"this call of tf.{path} {needs}; kept as tf.compat.v1.{path}")
        return call.with_changes(func=_expression(f"tf.compat.v1.{path}", call.func)), [finding]
    new, changes = fixed
    findings = []
    if isinstance(new, cst.Call) and new.func is call.func:
        new = new.with_changes(func=_expression(target.code, call.func))
        if target.kind == "renamed":
            changes.insert(0, f"→ {target.code}")
    if changes:
        findings.append((API_RENAMED.code, f"tf.{path}: " + "; ".join(changes)))
    return new, findings


# TF1's Keras initializers that draw random numbers were ``init_ops``' v1 classes: stateful
# random ops seeded by the graph seed and the op seed, as every TF1 random op.  TF2 gave these
# names Keras' v2 classes, which draw otherwise (their own seeding, stateless ops): a graph
# kept on TF1 made other initial values with ``tf.keras.initializers.glorot_uniform(seed=1)``,
# and with an unseeded one under a graph seed.  TF1's classes live on as
# ``tf.compat.v1.keras.initializers.X`` (tf-keras's v1 API), which draw TF1's very values in
# a kept graph.  (``Zeros``, ``Ones``, ``Constant``, ``Identity`` draw nothing.)  By name, the
# position of ``seed`` among a call's positionals (TF 1.15's signatures).
KERAS_DRAWING_INITIALIZERS = {
    **{f"keras.initializers.{name}": 2 for name in ("RandomNormal", "random_normal", "normal", "RandomUniform")},
    **{f"keras.initializers.{name}": 2 for name in ("random_uniform", "uniform", "TruncatedNormal", "truncated_normal")},
    "keras.initializers.VarianceScaling": 3,
    "keras.initializers.Orthogonal": 1,
    "keras.initializers.orthogonal": 1,
    **{
        f"keras.initializers.{name}": 0
        for name in ("glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "lecun_normal", "lecun_uniform")
    },
}
_KERAS_V1_DRAWS = (
    "TF2's class of that name draws other values (TF1's drew as its graph and op seeds said); "
    "needs tf-keras and TF_USE_LEGACY_KERAS=1 on TF >= 2.16"
)


def seeded_keras_initializer(path: str, call: cst.Call) -> bool:
    """A call of a TF1 Keras initializer that draws (``glorot_uniform(seed=1)``) given a seed."""
    position = KERAS_DRAWING_INITIALIZERS.get(path)
    if position is None:
        return False
    positional = [a for a in call.args if a.keyword is None]
    return any(a.keyword is not None and a.keyword.value == "seed" for a in call.args) or len(positional) > position


class Spelling(NamedTuple):
    code: str  # what the reference is written as
    finding: tuple[str, str] | None  # (code, message)
    absl_module: str | None  # the absl module it now names, to import


def reference_spelling(
    imports: TfImports, path: str, dotted: str, root_is_tf1: bool, absl_names: dict[str, str], eager_graph: bool = False
) -> Spelling:
    """How a TF reference ``dotted`` (canonical ``path``) that is not a call rewritten
    whole is written in TF2, and what is said of it: the one decision both the libcst
    renamer and the text path of rename-only fragments (``fragment_text``) take.
    ``eager_graph``: the file's graph becomes eager TF2 (its Keras code is TF2's)."""
    if path in TF1_MODULES and (root_is_tf1 or imports.is_explicit_v1_dotted(dotted)):
        # TF1's module as a value (``backend=tf``, ``L = tf.losses``, ``getattr(tf, name)``):
        # what is read from it elsewhere is TF1's, which only ``tf.compat.v1`` still holds
        code = "tf.compat.v1" + (f".{path}" if path else "")
        return Spelling(code, (COMPAT_FALLBACK.code, f"TF1's module `{dotted}` read as a value; kept as {code}"), None)
    value = TF1_CONSTANT_VALUES.get(path)
    if value is not None:
        message = f"tf.{path} → {value}, the string TF1 defined it as (TF2 has no tf.{path.rsplit('.', 2)[0]})"
        return Spelling(value, (API_RENAMED.code, message), None)
    if path in tf1_initializers.CLASS_VALUES and not imports.is_explicit_v1_dotted(dotted):
        # the class as a value (``weights_initializer=tf.zeros_initializer``): TF2's, made
        # without arguments, fills as TF1's (rewrites/tf1_initializers.py)
        target = Target(f"tf.{path}", "same")
    elif (
        _needs_call_fix(path)
        and path not in SAME_IN_TF2
        and not _tf2_takes_every_call(path)
        and _means_tf1(imports, path, dotted, root_is_tf1)
    ):
        # used as a value (passed around, aliased): its calls elsewhere cannot be fixed
        target = Target(f"tf.compat.v1.{path}", "compat")
    elif path in KERAS_DRAWING_INITIALIZERS and not eager_graph and (root_is_tf1 or imports.is_explicit_v1_dotted(dotted)):
        # TF1's Keras initializer in code that stays TF1's (a kept graph, a library): TF1's class
        code = f"tf.compat.v1.{path}"
        return Spelling(code, (COMPAT_FALLBACK.code, f"tf.{path} kept as {code}: {_KERAS_V1_DRAWS}"), None)
    elif path in tf1_initializers.PATHS and not _means_tf1(imports, path, dotted, root_is_tf1):
        # TF2's own initializer (as rewrites/tf1_initializers.py writes it): a second run
        # must not take it for TF1's
        target = Target(f"tf.{path}", "same")
    else:
        target = tf2_target(path)
        if target.kind == "removed" and imports.is_explicit_v1_dotted(dotted):
            target = Target(f"tf.compat.v1.{path}", "removed")  # tf.compat.v1.estimator is not tf.estimator
    if target.kind == "absl":
        module = target.absl_module or ""
        local = absl_names.get(module, module)
        return Spelling(local + target.code[len(module) :], (API_RENAMED.code, f"tf.{path} → absl.{target.code}"), module)
    finding = None
    if target.kind == "compat":
        finding = (COMPAT_FALLBACK.code, _compat_message(path, target.code))
    elif target.kind == "renamed":
        finding = (API_RENAMED.code, f"tf.{path} → {target.code}")
    elif target.kind == "removed":
        finding = (REMOVED_MODULE.code, f"tf.{path} is not in TensorFlow 2; replacement: {removed_successor(path)}")
    return Spelling(target.code, finding, None)


def is_iterator_method_call(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in ITERATOR_METHODS


def _arg_value(call: cst.Call, keyword: str, position: int) -> cst.Arg | None:
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg
    return positional[position] if position < len(positional) else None


def _keywordize(path: str, call: cst.Call, changes: list[str]) -> cst.Call | None:
    """Positionals at reordered slots → keywords with their TF1 names."""
    order = REORDERS.get(path)
    if order is None:
        return call
    args: list[cst.Arg] = []
    index = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            if index >= len(order):
                return None
            name = order[index]
            index += 1
            if name is not None:
                arg = arg.with_changes(
                    keyword=cst.Name(name),
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
                )
                changes.append(f"argument {index} passed as {name}=")
        args.append(arg)
    return call.with_changes(args=args)


# calls whose fix reads an argument's value (the text path of fragment_text.py asks
# rewritten_call about a call of the same argument shape only)
CALLS_READING_ARGUMENTS = frozenset(SHARDED_PARAMETERS)
_SHARDS_BY_MOD = (
    'looks ids up in shards the TF1 way (partition_strategy="mod"; TF2\'s namesake divides) unless its params are one table, '
    "which is not proven here"
)


def _shards_by_mod(path: str, call: cst.Call, one_table: bool) -> bool:
    """A lookup in shards (analysis/lookup_tables.py) with TF1's default strategy, whose
    shards are not proven one table (``one_table``)."""
    if path not in SHARDED_PARAMETERS or one_table:
        return False
    return shards_argument(path, call) is not None and _arg_value(call, "partition_strategy", 99) is None


def _rename_keywords(path: str, call: cst.Call, changes: list[str]) -> cst.Call | None:
    renames = KEYWORD_RENAMES.get(path)
    if not renames:
        return call
    args = []
    for arg in call.args:
        if arg.star == "**":
            return None
        if arg.keyword is not None and arg.keyword.value in renames:
            old, new = arg.keyword.value, renames[arg.keyword.value]
            if new is None:
                changes.append(f"{old}= dropped")
                continue
            tf2_params = DIFFERENT_IN_TF2.get(path, (None, None))[1]
            if tf2_params is not None and new not in tf2_params:
                return None  # tf_upgrade_v2 marks an argument TF2 refuses (verify_shape=)
            arg = arg.with_changes(keyword=cst.Name(new))
            changes.append(f"{old}= → {new}=")
        args.append(arg)
    return call.with_changes(args=args)


def _fix_call(path: str, call: cst.Call, one_table: bool) -> tuple[cst.BaseExpression, list[str]] | None:
    """The TF2 form of a call of a TF1 path that needs more than a rename, with what
    changed; None when tf2migrate cannot prove a TF2 form keeps the meaning."""
    changes: list[str] = []
    if _shards_by_mod(path, call, one_table):
        return None
    if path in tf1_initializers.PATHS:
        initializer = tf1_initializers.tf2_initializer(path, call, changes)
        return (initializer.with_changes(func=_expression(f"tf.{path}", call.func)), changes) if initializer is not None else None
    if path in TRANSFORMED:
        transformed = _transform(path, call, changes)
        return (transformed, changes) if transformed is not None else None
    keyworded = _keywordize(path, call, changes)
    renamed = _rename_keywords(path, keyworded, changes) if keyworded is not None else None
    if renamed is not None and path in _SCALAR_BLOCKS:
        renamed = _block_pair(renamed, changes)
    if renamed is None or not _accepted_by_tf2(path, renamed):
        return None
    return renamed, changes


# TF1 functions whose block size (``block_size=``, or its alias ``block_shape=``) is one
# integer for the two spatial dimensions of a 4-D input, where TF2's ``block_shape`` lists
# one per dimension: tf_upgrade_v2's keyword rename alone makes a call TF2 rejects
# (``block_shape must have rank 1``).
_SCALAR_BLOCKS = frozenset({"space_to_batch", "nn.space_to_batch", "batch_to_space"})


def _block_pair(call: cst.Call, changes: list[str]) -> cst.Call | None:
    """``block_shape=b`` → ``block_shape=[b, b]``, when ``b`` is a name, attribute or
    integer (written twice, so it must not compute anything); None otherwise."""
    args = []
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "block_shape":
            if not isinstance(arg.value, (cst.Name, cst.Attribute, cst.Integer)):
                return None
            code = cst.Module([]).code_for_node(arg.value)
            arg = arg.with_changes(value=cst.parse_expression(f"[{code}, {code}]"))
            changes.append(f"block size {code} → block_shape=[{code}, {code}] (TF1's one size for both spatial dimensions)")
        args.append(arg)
    return call.with_changes(args=args)


def _accepted_by_tf2(path: str, call: cst.Call) -> bool:
    """Every keyword left must be a parameter of the TF2 function (a TF1-only argument
    such as ``partition_strategy=`` means the call needs a human)."""
    target = RENAMES.get(path, path)
    tf2_params = DIFFERENT_IN_TF2.get(target, (None, None))[1]
    if tf2_params is None:
        return True
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    positional = sum(1 for a in call.args if a.keyword is None)
    return keywords <= set(tf2_params) and positional <= len(tf2_params)


def _transform(path: str, call: cst.Call, changes: list[str]) -> cst.BaseExpression | None:
    code = cst.Module([]).code_for_node
    if any(a.star for a in call.args):
        return None
    if path in _CASTS:
        value = _arg_value(call, "x", 0)
        name = _arg_value(call, "name", 1)
        if value is None:
            return None
        extra = f", name={code(name.value)}" if name is not None else ""
        changes.append(f"→ tf.cast(…, tf.{_CASTS[path]})")
        return cst.parse_expression(f"tf.cast({code(value.value)}, tf.{_CASTS[path]}{extra})")
    if path == "nn.dropout":
        keep = _arg_value(call, "keep_prob", 1)
        x = _arg_value(call, "x", 0)
        if x is None:
            return None
        rest = [a for a in call.args if a is not x and a is not keep]
        keywords = [(a.keyword.value, a.value) for a in rest if a.keyword is not None]
        if len(keywords) < len(rest) or any(keyword not in ("noise_shape", "seed", "name", "rate") for keyword, _ in keywords):
            return None
        parts = [code(x.value)]
        if keep is not None:
            keep_prob = keep.value
            simple = isinstance(keep_prob, (cst.Name, cst.Attribute, cst.BaseNumber))
            parts.append(f"rate=1 - {code(keep_prob) if simple else '(' + code(keep_prob) + ')'}")
            changes.append("keep_prob → rate=1 - keep_prob")
        parts += [f"{keyword}={code(value)}" for keyword, value in keywords]
        return cst.parse_expression(f"tf.nn.dropout({', '.join(parts)})")
    if path in ("ones_like", "zeros_like"):
        optimize = _arg_value(call, "optimize", 3)
        if optimize is not None and not (isinstance(optimize.value, cst.Name) and optimize.value.value == "True"):
            return None
        if optimize is not None:
            changes.append("optimize=True dropped (TF2 always optimizes)")
        return _rename_keywords(path, call.with_changes(args=[a for a in call.args if a is not optimize]), changes)
    if path == "name_scope":
        # TF2's name_scope takes only a name, and no None (TF1's reset to the root scope)
        if len(call.args) != 1 or call.args[0].keyword is not None:
            return None
        return None if isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "None" else call
    if path == "device":
        # TF2's device takes only a device name, not a function
        return call if len(call.args) == 1 and call.args[0].keyword is None and string_valued(call.args[0].value) else None
    if path == "nn.softmax_cross_entropy_with_logits":
        keyworded = _keywordize(path, call, changes)
        renamed = _rename_keywords(path, keyworded, changes) if keyworded is not None else None
        labels = _arg_value(renamed, "labels", 99) if renamed is not None else None
        if renamed is None or labels is None:
            return None
        # TF1's op does not backpropagate into labels; TF2's does.
        if _is_stop_gradient(labels.value):
            return renamed
        stopped = cst.parse_expression(f"tf.stop_gradient({code(labels.value)})")
        changes.append("labels wrapped in tf.stop_gradient (TF1 did not backpropagate into labels)")
        return renamed.with_changes(args=[a.with_changes(value=stopped) if a is labels else a for a in renamed.args])
    return None


def string_valued(expression: cst.BaseExpression) -> bool:
    """A string literal, or one formatted (``"/gpu:%d" % i``, ``"/gpu:{}".format(i)``): a
    string whatever it is given, never a function."""
    if isinstance(expression, cst.BaseString):
        return True
    if isinstance(expression, cst.BinaryOperation) and isinstance(expression.operator, cst.Modulo):
        return isinstance(expression.left, cst.BaseString)
    func = expression.func if isinstance(expression, cst.Call) else None
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.BaseString) and func.attr.value == "format"


T = TypeVar("T")  # a node, or a (node, …) tuple


def value_reads_by_name(nodes: Iterable[T]) -> Iterator[T]:
    """Of ``nodes`` (in document order: a call or a comprehension before the attributes in
    it), the items whose node (the item itself, or its first member) is a ``.value`` read a
    name stands for — no method call (``v.value()``), no element of a Dimension comprehension
    (``[d.value for d in shape]``), no direct read of a shape's item (``x.get_shape()[1].value``,
    which the renames cover): where a TF1 ``Dimension`` held by a name may be read."""
    not_reads: set[int] = set()
    for item in nodes:
        node = item[0] if isinstance(item, tuple) else item
        if isinstance(node, cst.Call):
            not_reads.add(id(node.func))
        elif isinstance(node, cst.ListComp):
            if is_dimension_comprehension(node):
                not_reads.add(id(node.elt))
        elif isinstance(node, cst.Attribute) and node.attr.value == "value" and id(node) not in not_reads and not is_dimension_value(node):
            yield item


def is_dimension_value(node: cst.Attribute) -> bool:
    """``x.shape[i].value`` or ``x.get_shape()[i].value``: a TF1 Dimension's value."""
    if node.attr.value != "value" or not isinstance(node.value, cst.Subscript):
        return False
    shape = node.value.value
    if isinstance(shape, cst.Call):
        shape = shape.func
        return isinstance(shape, cst.Attribute) and shape.attr.value == "get_shape"
    return isinstance(shape, cst.Attribute) and shape.attr.value == "shape"


def is_dimension_comprehension(node: cst.ListComp) -> bool:
    """``[d.value for d in x.get_shape()]`` (or ``x.shape``): the values of TF1 Dimensions."""
    loop = node.for_in
    if loop.inner_for_in is not None or loop.ifs or not isinstance(loop.target, cst.Name):
        return False
    shape, element = loop.iter, node.elt
    if isinstance(shape, cst.Call):
        reads = not shape.args and isinstance(shape.func, cst.Attribute) and shape.func.attr.value == "get_shape"
    else:
        reads = isinstance(shape, cst.Attribute) and shape.attr.value == "shape"
    return (
        reads
        and isinstance(element, cst.Attribute)
        and element.attr.value == "value"
        and isinstance(element.value, cst.Name)
        and element.value.value == loop.target.value
    )


def _is_stop_gradient(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Call) and (cst.Module([]).code_for_node(expr.func).endswith("stop_gradient"))


def _expression(dotted: str, like: cst.BaseExpression) -> cst.BaseExpression:
    """``a.b.c`` as a node, built directly: the parser costs more than the whole rename
    (or a string literal, a TF1 constant written as its value)."""
    if dotted.startswith('"'):
        return cst.SimpleString(dotted, lpar=like.lpar, rpar=like.rpar)
    head, *rest = dotted.split(".")
    node: cst.BaseExpression = cst.Name(head)
    for part in rest:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node.with_changes(lpar=like.lpar, rpar=like.rpar)


# TF1 constants of modules TF2 dropped, written as the values they were (TF 1.15's
# EstimatorModeKeys and contrib.learn's ModeKeys): comparisons with ``mode`` keep their meaning
TF1_CONSTANT_VALUES = {
    **{f"estimator.ModeKeys.{key}": value for key, value in (("TRAIN", '"train"'), ("EVAL", '"eval"'), ("PREDICT", '"infer"'))},
    **{f"contrib.learn.ModeKeys.{key}": value for key, value in (("TRAIN", '"train"'), ("EVAL", '"eval"'), ("INFER", '"infer"'))},
}


# TF1 names whose TF2 look-alike behaves differently: kept on compat.v1, and the finding
# says why rather than claiming TF2 has nothing.
_DIFFERENT_SUCCESSORS = {
    "set_random_seed": "tf.random.set_seed exists, but derives op seeds differently: random values would change",
    "random.set_random_seed": "tf.random.set_seed exists, but derives op seeds differently: random values would change",
    **{
        f"summary.{kind}": f"TF2's tf.summary.{kind} writes to a default writer at a step (and needs TensorBoard); "
        "TF1's builds a graph op that merge_all collects"
        for kind in ("scalar", "histogram", "image", "audio", "text")
    },
    # (rewrites/tf1_resize.py writes out the calls whose TF1 result the call shows)
    **{
        f"image.{name}": "TF2's tf.image.resize samples at half-pixel centres; TF1's ran its op on the corners' grid, or "
        "returned the image itself, its dtype kept, where the image's static shape had the asked size, which the call does "
        "not show (written out for a decoded image or the nearest neighbour, in a graph that becomes eager)"
        for name in ("resize", "resize_images")
    },
}


def _compat_message(path: str, code: str) -> str:
    if path in _DIFFERENT_SUCCESSORS:
        return f"tf.{path} kept as {code}: {_DIFFERENT_SUCCESSORS[path]}"
    legacy = " (needs tf-keras and TF_USE_LEGACY_KERAS=1 on TF >= 2.16)" if path.startswith(("layers", "nn.rnn_cell")) else ""
    return f"tf.{path} has no TF2 equivalent; kept as {code}{legacy}"
