"""TF1 summaries → the same Summary protocol buffers, written by a TF2 file writer.

TF1 code logs with graph ops: ``tf.summary.scalar("loss", loss)`` builds an op whose
value is a serialized ``Summary``, ``tf.summary.merge_all()`` concatenates those built so
far, ``sess.run([train_op, merged])`` evaluates them with the step, and
``writer.add_summary(s, step)`` writes the bytes at the step given.  That is kept exactly:

- each summary op becomes the kernel TF1 ran, called through ``tf.raw_ops`` with the tag
  TF1 computed (its name under the enclosing ``name_scope``/``variable_scope``, written out:
  ``tf.raw_ops.ScalarSummary(tags="Cost/loss", values=loss)``); ``HistogramSummary`` keeps
  TF1's exponential buckets and ``ImageSummary`` TF1's per-image scaling and ``name/image/i``
  tags, which ``tf.summary.histogram``/``image`` would change; ``merge_all`` becomes
  ``tf.raw_ops.MergeSummary`` of the ops built before it, ``merge`` of those it names;
- these are graph tensors like any other, so the session rewrite computes them in the
  generated function of the run that fetched them, from the same values in the same step
  (before the train step's update, as the rest of the forward pass), and the run returns the
  same bytes (``.numpy()`` of a string tensor);
- ``tf.summary.FileWriter(logdir, graph)`` becomes ``tf.summary.create_file_writer(logdir)``
  (also one bound to nothing, in any block: ``if OUTPUT_GRAPH: tf.summary.FileWriter(...)``)
  and ``writer.add_summary(s, step)`` ``tf.summary.experimental.write_raw_pb(s, step=step)``
  under ``writer.as_default()``: the event file holds TF1's tags, steps and values;
- in a class, the same statements bound to attributes of ``self`` (``self.d_sum = merge(...)``
  in the method building the graph, ``self.writer = FileWriter(...)`` in any method): the
  class conversion then treats the raw ops as any graph tensor attribute;
- ``merged = tf.summary.merge_all()`` with no summary op built before it returned None in
  TF1: it becomes ``merged = None`` when nothing reads ``merged`` (a module this one imports
  may have built summary ops, which would have made it a merge: unread, that cannot matter).

The raw form also needs no TensorBoard package, which TF1's summary ops never needed and
TF2's ``tf.summary.scalar`` does (it raises ``TBNotInstalledError`` without it).

The rewrite runs before the graph analysis, on the module: the result is a TF1 program
without TF1 summary API (``desugar``), which the other rewrites then convert like any
graph.  One line stays one line, so findings keep pointing at the original's lines; the
one-line ``with writer.as_default(): ...`` is laid out as a block at the end (``tf1_summary_runs.lay_out``).
If the graph then stays on TF1 for another reason, the original is migrated instead.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.calls import bind_arguments, calls_in
from tf2migrate.analysis.names import fresh_name, graph_name, names_bound, variable_names
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.data.tf_symbols import SAME_IN_TF2
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.traversal import FastTransformer, walk

SUMMARY_WRITES = Rule(
    "TFM126",
    "summaries-to-file-writer",
    "tf.summary ops, merge_all and FileWriter.add_summary → the same summaries written by tf.summary.create_file_writer.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces `tf.summary.scalar`, `histogram` and `image` with the TF1 kernel they ran "
    "(`tf.raw_ops.ScalarSummary`, `HistogramSummary`, `ImageSummary`) under the tag TF1 gave them "
    "(the name under its `name_scope`/`variable_scope`), `tf.summary.merge_all()` with "
    "`tf.raw_ops.MergeSummary` of the summaries built before it (`merge([...])` of those listed), "
    "`tf.summary.FileWriter(logdir, graph)` with `tf.summary.create_file_writer(logdir)`, and "
    "`writer.add_summary(s, step)` with `tf.summary.experimental.write_raw_pb(s, step=step)` under "
    "`writer.as_default()`. The summaries are computed by the generated function of the run that "
    "fetched them, as the other fetches are. Summaries and writers may be bound to attributes of `self` "
    "(a class whose method builds the graph; its writer made in any method). A FileWriter bound to "
    "nothing, a statement of its own in any block (`if OUTPUT_GRAPH: tf.summary.FileWriter(logdir, sess.graph)`), "
    "becomes `tf.summary.create_file_writer(logdir)` where it stood. A `merge_all()` with no "
    "summary op built before it, whose value nothing reads, becomes None, as TF1 returned.",
    why="TF2 has no summary collection and no graph to evaluate it in. Written this way, the event "
    "file holds what TF1 wrote — the same tags, steps and values, histograms with TF1's buckets, "
    "images scaled as TF1 scaled them — and the program needs no TensorBoard package "
    "(`tf.summary.scalar` does). TF2 writes no graph: `writer.add_graph` and FileWriter's graph "
    "argument are dropped (`tf.summary.trace_on`/`trace_export` record a traced function's graph).",
    example='tf.summary.scalar("loss", loss)\nmerged = tf.summary.merge_all()\n'
    "writer = tf.summary.FileWriter(logdir, sess.graph)\n"
    "_, s = sess.run([train_op, merged], feed)\nwriter.add_summary(s, step)",
    instead='loss_summary = tf.raw_ops.ScalarSummary(tags="loss", values=loss)   # in the train step\n'
    "merged = tf.raw_ops.MergeSummary(inputs=[loss_summary])\n"
    "writer = tf.summary.create_file_writer(logdir)\n"
    "_, s = [... for value in train_step(...)]\n"
    "with writer.as_default():\n    tf.summary.experimental.write_raw_pb(s, step=step)",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "loss = tf.reduce_mean(x)\n"
        'tf.summary.scalar("loss", loss)\n'
        "merged = tf.summary.merge_all()\n"
        "with tf.Session() as sess:\n"
        '    writer = tf.summary.FileWriter("logs", sess.graph)\n'
        "    writer.add_summary(sess.run(merged, {x: [1.0, 2.0]}), 0)\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        'writer = tf.summary.create_file_writer("logs")\n'
        "with writer.as_default():\n"
        '    tf.summary.scalar("loss", 1.5, step=0)\n',
    ),
)
SUMMARY_KEPT = Rule(
    "TFM312",
    "summary-not-converted",
    "A TF1 summary whose logged values tf2migrate cannot show to stay the same.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports the TF1 summary construct that keeps the file's graph on TF1 semantics: a summary "
    "op built in a helper function, a loop or a branch (merge_all collects what ran), inside an "
    "expression or bound to a target other than a name or an attribute of self (the message names "
    "which), a `merge_all()` with no summary op before it whose value is read (or whose module TF1 "
    "code of the run imports), a tag that is "
    "not a literal or that TF1 would have made unique (`loss_1`: a name used twice in a scope, or the "
    "name of another op), a summary that reads a variable directly fetched in the same run as a train "
    "op (TF1 read the variable before or after the update, in no fixed order), a FileWriter used other "
    "than by add_summary/add_graph/flush/close, audio, text and tensor summaries.",
    why="The rewrite must write the tags, steps and values TF1 wrote; where that cannot be shown the "
    "graph keeps TF1 semantics (TFM404), where the summaries still run as they did.",
    instead="Give the summary a literal, unique name at the top level of the graph code; fetch a "
    "variable's summary in a run without the train op.",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 1])\n"
        "W = tf.Variable(tf.ones([1, 1]))\n"
        "loss = tf.reduce_mean(tf.matmul(x, W))\n"
        "train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
        'tf.summary.histogram("weights", W)\n'
        "merged = tf.summary.merge_all()\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    _, s = sess.run([train_op, merged], {x: [[1.0]]})\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 1])\n"
        "W = tf.Variable(tf.ones([1, 1]))\n"
        "loss = tf.reduce_mean(tf.matmul(x, W))\n"
        "train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
        'tf.summary.histogram("loss", loss)\n'
        "merged = tf.summary.merge_all()\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    _, s = sess.run([train_op, merged], {x: [[1.0]]})\n",
    ),
)
RULES = [SUMMARY_WRITES, SUMMARY_KEPT]

# TF1 summary op → (the kernel it ran, the kernel's tag and value parameters, TF1 parameters)
_OPS = {
    "summary.scalar": ("ScalarSummary", "tags", "values", ("name", "tensor", "collections", "family")),
    "summary.histogram": ("HistogramSummary", "tag", "values", ("name", "values", "collections", "family")),
    "summary.image": ("ImageSummary", "tag", "tensor", ("name", "tensor", "max_outputs", "collections", "family")),
    # TensorFlow 0.x's (0.12's logging_ops.py): the same kernels, the tag given to them as
    # written (no name scope, never made unique), the op added to the summaries collection;
    # rewrites/pre_1_0_api.py leaves them as written where 1.x's would tag otherwise
    "scalar_summary": ("ScalarSummary", "tags", "values", ("tags", "values", "collections", "name")),
    "histogram_summary": ("HistogramSummary", "tag", "values", ("tag", "values", "collections", "name")),
    "image_summary": ("ImageSummary", "tag", "tensor", ("tag", "tensor", "max_images", "collections", "name")),
}
_MERGE_ALL, _MERGE, _WRITER = "summary.merge_all", "summary.merge", "summary.FileWriter"
# TensorFlow 0.x's summary ops, which rewrites/pre_1_0_api.py leaves as written where name
# scopes would change their tags: summary ops all the same, which merge_all collects
PRE_1_0_SUMMARY_OPS = frozenset({"scalar_summary", "histogram_summary", "image_summary", "audio_summary"})
_SCOPES = frozenset({"name_scope", "variable_scope"})
_PROTOS = frozenset({"Summary", "Summary.Value", "Event"})
# with-contexts that open no name scope and do not change what a summary evaluates
_NEUTRAL_CONTEXTS = frozenset({"Session", "InteractiveSession", "device"})
# as statements of their own; flush and close are the same in TF2
_WRITER_METHODS = frozenset({"add_summary", "add_graph", "flush", "close"})
# TF1's name scopes accept these; tags of other names are cleaned (``a:0`` → ``a_0``)
CLEAN_NAME = re.compile(r"[A-Za-z0-9.][A-Za-z0-9_.\-]*")
# default names of ops built by Python operators (``a + b`` is ``add``)
_OPERATOR_OP_NAMES = frozenset(
    {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg", "div", "and", "or", "xor", "invert", "strided_slice"}
)
# the default names of the ops TF1 functions build in the caller's scope, for functions whose
# ops are not one raw op named like them (``tf.reduce_mean`` builds ``Mean`` and its axes'
# ``Const``, ``tf.multiply`` ``Mul``; ``random_normal`` opens its own scope): read off the
# graphs TF builds (tests/test_tf1_summary_op_names.py builds each call and compares).  A
# function named like one raw op (``tf.matmul``, ``tf.nn.relu``, ``tf.nn.l2_loss``) builds that
# op; a file calling any other TF function may have built any op (DEFAULT_OP_NAMES).
SCOPE_OP_NAMES: dict[str, frozenset[str]] = {
    "reduce_sum": frozenset({"sum", "const"}),
    "reduce_mean": frozenset({"mean", "const"}),
    "reduce_max": frozenset({"max", "const"}),
    "reduce_min": frozenset({"min", "const"}),
    "multiply": frozenset({"mul"}),
    "subtract": frozenset({"sub"}),
    "divide": frozenset({"truediv"}),
    "constant": frozenset({"const"}),
    "Variable": frozenset({"variable"}),
    "zeros": frozenset({"zeros"}),
    "ones": frozenset({"ones"}),
    "random_normal": frozenset({"random_normal"}),
    "random_uniform": frozenset({"random_uniform"}),
    "truncated_normal": frozenset({"truncated_normal"}),
    "nn.sigmoid_cross_entropy_with_logits": frozenset({"logistic_loss"}),
    "global_variables_initializer": frozenset({"init"}),
    "train.Saver": frozenset({"save"}),
    "Session": frozenset(),
    "train.AdamOptimizer": frozenset(),
    "train.GradientDescentOptimizer": frozenset(),
    "summary.FileWriter": frozenset(),
    "summary.merge": frozenset({"merge"}),
    "summary.merge_all": frozenset({"merge"}),
    "searchsorted": frozenset({"lowerbound", "upperbound", "reshape", "shape", "strided_slice"}),
}
# ``opt.minimize(loss)``: a method, not a TF function; the names its ops take in the caller's scope
_MINIMIZE_OP_NAMES = frozenset(
    {"gradients", "beta1_power", "beta2_power", "adam", "gradientdescent", "momentum", "rmsprop", "adagrad", "range", "rank", "sum", "mul"}
)
DEFAULT_OP_NAMES = (
    frozenset(name.removeprefix("raw_ops.").lower() for name in SAME_IN_TF2 if name.startswith("raw_ops.")) | _OPERATOR_OP_NAMES
)


@dataclass
class Desugared:
    """The module with TF1 summaries in raw form (None when a construct was refused), the
    findings to report with it (nodes of that module), and the refusals (nodes of the
    original)."""

    module: cst.Module | None
    notes: list[tuple[cst.CSTNode, str, str]] = field(default_factory=list)
    refusals: list[tuple[cst.CSTNode, str, str]] = field(default_factory=list)
    # ids of the raw summary calls → the TF1 call they replace (for the train-run check)
    raw_calls: dict[int, cst.Call] = field(default_factory=dict)
    writers: set[str] = field(default_factory=set)  # names bound to TF2 file writers


def has_tf1_summaries(module: cst.Module, imports: TfImports, calls: Sequence[cst.Call] | None = None) -> bool:
    """TF1 summary API in a file (a TF2 ``tf.summary.scalar(..., step=)`` is not);
    ``calls``: every call of the module, when known (the analysis' index holds them)."""
    for call in calls if calls is not None else calls_in(module, enter_defs=True):
        name = imports.call_name(call)
        if name in (_MERGE_ALL, _MERGE, _WRITER) or name in _OPS and not any(a.keyword and a.keyword.value == "step" for a in call.args):
            return True
    return False


def desugar(module: cst.Module, imports: TfImports, names_in_use: set[str], imported_by_tf1: bool = False) -> Desugared:
    """``imported_by_tf1``: TF1 code of the run imports the module, and may read what it binds."""
    finder = _Finder(module, imports, names_in_use, imported_by_tf1)
    finder.find()
    if finder.refusals:
        return Desugared(None, refusals=finder.refusals)
    new = module.visit(_Replace(finder))
    return Desugared(new, notes=finder.notes(), raw_calls=finder.raw_calls, writers=finder.writers)


# -- finding the summaries ---------------------------------------------------------------


class _Finder:
    """One walk over the graph-building bodies (the module's, each function's), entering
    ``with`` blocks only: summary ops in their order, with their tags; merges; writers."""

    def __init__(self, module: cst.Module, imports: TfImports, names_in_use: set[str], imported_by_tf1: bool = False) -> None:
        self.module = module
        self.imported_by_tf1 = imported_by_tf1
        self.tf = imports
        self.names_in_use = names_in_use
        self.tf_name = "tf"  # the file's module-level alias of tensorflow
        self.refusals: list[tuple[cst.CSTNode, str, str]] = []
        # statement id → replacement statement
        self.replace: dict[int, cst.BaseStatement | None] = {}
        self.raw_calls: dict[int, cst.Call] = {}
        self.padding: dict[int, int] = {}  # statement id → blank lines to add after its replacement
        self.writers: set[str] = set()
        self.writer_targets: set[int] = set()  # the names FileWriter statements bind
        self.noted: list[tuple[cst.CSTNode, str]] = []  # (replacement node, message)
        self.placed: set[int] = set()  # summary calls met at statement level
        self.skipped_withs: set[int] = set()  # with blocks of graph-building bodies the walk did not enter
        # merge_all() with no summary op before it: (statement, call, the name bound, its node)
        self.empty_merges: list[tuple[cst.SimpleStatementLine, cst.Call, str, cst.CSTNode | None]] = []
        # names other ops may have taken: string arguments of TF calls (``name="loss"``,
        # ``get_variable("W")``, a helper's ``name_scope("x")``), without the summaries'
        # own and the scopes the walk follows (``tracked``, set by ``find``)
        self.tracked: set[int] = set()
        self.literal_names: set[str] = set()
        # lower-cased full names TF1 counted in use (Graph._names_in_use) → uses
        self.in_use: dict[str, int] = {}
        self.called_names = {n.rpartition(".")[2].lower() for c in self._all_calls if (n := imports.call_name(c))}
        self.op_names = self._op_names(imports)

    def _op_names(self, imports: TfImports) -> frozenset[str] | None:
        """The default names of the ops the file's TF calls and operators may build in the
        caller's scope (SCOPE_OP_NAMES); None when a TF function of unknown ops is called."""
        names = set(_OPERATOR_OP_NAMES)
        for call in self._all_calls:
            name = imports.call_name(call)
            if name is None:
                if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("minimize", "apply_gradients"):
                    names |= _MINIMIZE_OP_NAMES
                continue
            own = name.rpartition(".")[2].lower().replace("_", "")
            if name in SCOPE_OP_NAMES:
                names |= SCOPE_OP_NAMES[name]
            elif name in _OPS:
                continue  # the summaries' names are counted as the walk meets them
            elif own in DEFAULT_OP_NAMES:
                names.add(own)
            else:
                return None
        return frozenset(names)

    def _scope_names(self, call: cst.Call) -> set[str] | None:
        """The names a scope call can be given: its literal; or, for a parameter of a module
        function (``def linear(x, n, name): with tf.variable_scope(name):``) the function never
        binds again and the module names only to call it, the literals its calls pass (or
        the parameter's literal default); ``scope or "Linear"`` (DCGAN's ``linear``) gives the
        literal where the parameter is given None or an empty string.  None when a name is unknown."""
        if not call.args:
            return None
        given = call.args[0].value
        if (text := _literal(given)) is not None:
            return {text}
        fallback = None
        if (
            isinstance(given, cst.BooleanOperation)
            and isinstance(given.operator, cst.Or)
            and (fallback := _literal(given.right)) is not None
        ):
            given = given.left
        function = self._module_functions.get(id(call))
        if not isinstance(given, cst.Name) or function is None or given.value in names_bound(function.body):
            return None
        parameters = tuple(p.name.value for p in function.params.params)
        if given.value not in parameters:
            return None
        default = next(p.default for p in function.params.params if p.name.value == given.value)
        callers = [c for c in self._all_calls if m.matches(c.func, m.Name(function.name.value))]
        if not callers or self._name_counts[function.name.value] != len(callers) + 1:  # (the def's name, then calls only)
            return None
        names: set[str] = set()
        for caller in callers:
            bound = bind_arguments(caller, parameters)
            argument = None if bound is None else (bound[given.value].value if given.value in bound else default)
            if fallback is not None and argument is not None and (m.matches(argument, m.Name("None")) or _literal(argument) == ""):
                names.add(fallback)  # (``None or "Linear"``)
                continue
            if argument is None or (text := _literal(argument)) is None:
                return None
            names.add(text or fallback or "")
        return names

    @functools.cached_property
    def _all_calls(self) -> list[cst.Call]:
        return calls_in(self.module, enter_defs=True)

    @functools.cached_property
    def _module_functions(self) -> dict[int, cst.FunctionDef]:
        """Each call in a module-level function's body (not in defs nested in it) → that function."""
        return {id(c): f for f in self.module.body if isinstance(f, cst.FunctionDef) for c in calls_in(f.body)}

    @functools.cached_property
    def _name_counts(self) -> Counter[str]:
        return Counter(n.value for n in variable_names(self.module))

    def refuse(self, node: cst.CSTNode, message: str) -> None:
        self.refusals.append((node, SUMMARY_KEPT.code, message))

    def find(self) -> None:
        root = next((alias for alias, path in self.tf.aliases.items() if path == ""), None)
        if root is None:
            self.refuse(self.module, "summaries are converted in files that `import tensorflow` (as any name) at module level")
            return
        self.tf_name = root
        for call in self._all_calls:
            if self.tf.call_name(call) in _PROTOS:
                self.refuse(
                    call,
                    "a hand-built `tf.Summary` may be written by add_summary (a proto, where TF2 writes serialized bytes): not converted",
                )
                return
        named = {"the module": self.module.body, **{f"`{name}`": f.body.body for name, f in _functions(self.module)}}
        bodies = list(named.values())
        building = [b for b in bodies if any(self._contains_summaries(s) for s in b if not isinstance(s, (cst.FunctionDef, cst.ClassDef)))]
        if len(building) > 1:  # which runs first decides TF1's unique names and what merge_all collects
            where = " and ".join(name for name, body in named.items() if any(body is b for b in building))
            for call in self._all_calls:
                if self.tf.call_name(call) in _OPS:
                    self.refuse(
                        call,
                        f"summary ops are built in {where}: their tags and what merge_all collects depend on the order of the calls; not converted",
                    )
            return
        for body in building:
            self.tracked = {id(item.item) for item in _with_items(body)}
        # a scope's name can take a summary's only where the file builds summaries
        summarized = any(self.tf.call_name(call) in _OPS for call in self._all_calls)
        for call in self._all_calls:
            called = self.tf.call_name(call)
            if called in _SCOPES and summarized and id(call) not in self.tracked:
                scope_names = self._scope_names(call)
                if scope_names is None:
                    self.refuse(
                        call,
                        f"this `tf.{called}`'s name is neither a literal nor a parameter every call of its function gives a "
                        "literal: it may take a summary's name (TF1 would make the tag unique)",
                    )
                    return
                self.literal_names |= {text.lower() for text in scope_names}
            if called is not None and called not in _OPS and id(call) not in self.tracked:
                self.literal_names |= {text.lower() for a in call.args if (text := _literal(a.value)) is not None}
        for body in building:
            self._body(body, [], [])
        for body in bodies:
            if not any(body is b for b in building):
                self._writers_and_merges(body, after_ops=bool(building))
        for statement, call in _discarded_writers(self.module, self.tf):
            if id(call) not in self.placed:
                self._discarded_writer(statement, call)
        unplaced = [c for c in self._all_calls if id(c) not in self.placed]
        places = _where(
            self.module, [c for c in unplaced if self.tf.call_name(c) in (*_OPS, _MERGE_ALL, _MERGE, _WRITER)], self.skipped_withs
        )
        for call in unplaced:
            name = self.tf.call_name(call)
            if name in _OPS or name in (_MERGE_ALL, _MERGE, _WRITER):
                why = (
                    "a writer is followed where it is bound" if name == _WRITER else "merge_all collects the summary ops that ran before it"
                )
                self.refuse(call, f"`tf.{name}` {places[id(call)]}: not converted ({why})")
            elif name in PRE_1_0_SUMMARY_OPS:
                # a summary op all the same, which merge_all collects (TFM415 left it as written)
                self.refuse(call, f"`tf.{name}` (TensorFlow 0.x's summary op, left as written) is not converted")
            elif name is not None and name.startswith("summary.") and name not in ("summary.create_file_writer",):
                self.refuse(
                    call,
                    f"`tf.{name}` is not converted (tf2migrate converts scalar, histogram and image summaries, merge, merge_all and FileWriter)",
                )
        uses = self._writer_uses()
        if not self.refusals:  # else the summaries it would have found were refused
            for statement, call, target, _ in self.empty_merges:
                if uses.reads.get(target) or self.imported_by_tf1:
                    read = f"`{target}` is read" if uses.reads.get(target) else "TF1 code of this run imports the module"
                    self.refuse(
                        call,
                        f"`tf.summary.merge_all()` finds no summary op built before it here (TF1 returned None) and {read}: "
                        "summary ops another module builds would make it a merge; not converted",
                    )
                else:
                    # TF1 returned None (no summary op in this file before it) — and whatever
                    # a module this one imports may have added, nothing reads the value (no
                    # statement of the file, no TF1 module of the run importing it)
                    self._swap(
                        statement,
                        f"{target} = None",
                        f"`tf.summary.merge_all()` with no summary op built before it → None, as TF1 returned (`{target}` is not read)",
                    )

    def _body(self, body, scope: list[str], ops: list[str]) -> None:
        for statement in body:
            if isinstance(statement, cst.With):
                inner = self._with_scope(statement, scope)
                if inner is not None:
                    self._body(statement.body.body, inner, ops)
                else:
                    self.skipped_withs.add(id(statement))
                continue
            if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
                self._simple(statement, statement.body[0], scope, ops)

    def _writers_and_merges(self, body, after_ops: bool) -> None:
        """Writers and merges in code that builds no summary op (``main()`` running the
        graph the module built): no name scope matters there; a merge_all collects ops
        built elsewhere, in an order that depends on the calls."""
        for statement in body:
            if isinstance(statement, cst.With):
                self._writers_and_merges(statement.body.body, after_ops)
            elif isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
                small = statement.body[0]
                value = small.value if isinstance(small, (cst.Assign, cst.Expr)) else None
                if after_ops and isinstance(value, cst.Call) and self.tf.call_name(value) == _MERGE_ALL:
                    self.placed.add(id(value))
                    self.refuse(
                        value,
                        "`tf.summary.merge_all()` in another function than the summary ops: what it collects depends on the order of the calls",
                    )
                elif isinstance(value, cst.Call) and self.tf.call_name(value) in (_MERGE, _WRITER, _MERGE_ALL):
                    self._simple(statement, small, [], [])

    def _with_scope(self, statement: cst.With, scope: list[str]) -> list[str] | None:
        """The name scope inside a with block; None (and no entering) for other contexts."""
        inner = list(scope)
        for item in statement.items:
            name = self.tf.call_name(item.item)
            if name in _SCOPES and isinstance(item.item, cst.Call):
                bound = bind_arguments(item.item, ("name",) if name == "name_scope" else ("name_or_scope",))
                arg = bound and bound.get("name" if name == "name_scope" else "name_or_scope")
                text = _literal(arg.value) if arg else None
                if text is None or not CLEAN_NAME.fullmatch(text) or self._taken(text):
                    if text is None or self._contains_summaries(statement):  # an unknown name may take a tag
                        self.refuse(
                            item.item,
                            f"the `tf.{name}` name of summaries in this block is not a literal, or may be "
                            "the name of another op (TF1 would have made it unique)",
                        )
                    return None
                inner = self._unique(inner, text).split("/")
            elif name in _NEUTRAL_CONTEXTS or name is None and not self._contains_summaries(statement):
                continue
            else:
                if self._contains_summaries(statement):
                    self.refuse(item.item, "summaries under this `with` context are not converted")
                return None
        return inner

    def _unique(self, scope: list[str], name: str) -> str:
        """The full name TF1 gave a scope or summary (``Graph.unique_name``): ``loss`` again
        in the same scope, in any letter case, is ``loss_1``."""
        full = "/".join([*scope, name])
        key = full.lower()
        count = self.in_use.get(key, 0)
        self.in_use[key] = count + 1
        if count == 0:
            return full
        base = key
        while key in self.in_use:
            key = f"{base}_{count}"
            count += 1
        self.in_use[key] = 1
        return f"{full}_{count - 1}"

    def _contains_summaries(self, node: cst.CSTNode) -> bool:
        return any(self.tf.call_name(c) in _OPS for c in calls_in(node))

    def _taken(self, text: str) -> bool:
        """Could TF1 have found this name in use, and made it unique?"""
        return self._taken_by(text) is not None

    def _taken_by(self, text: str) -> str | None:
        """What may have taken this name in TF1's graph (then TF1 made the tag unique), or None."""
        lowered = text.lower()
        default = re.sub(r"_\d+$", "", lowered)  # TF1 named the second ``dense`` layer ``dense_1``
        if lowered in self.literal_names:
            return f"a TF call of the file is given the name `{text}`"
        if default in self.called_names:
            return f"`{default}` is the default name of ops of a TF function the file calls"
        if default in DEFAULT_OP_NAMES and self.op_names is None:
            return f"`{default}` is the default name of a TF op, and the file calls TF functions whose ops are not known"
        if self.op_names is not None and default in self.op_names:
            return f"`{default}` is the default name of an op a TF call of the file builds"
        return None

    def _simple(self, statement: cst.SimpleStatementLine, small: cst.BaseSmallStatement, scope: list[str], ops: list[str]) -> None:
        value: cst.BaseExpression | None = None
        target_node: cst.BaseAssignTargetExpression | None = None
        target: str | None = None
        if isinstance(small, cst.Expr):
            value = small.value
        elif isinstance(small, cst.Assign) and len(small.targets) == 1 and (target := graph_name(small.targets[0].target)) is not None:
            # a name, or an attribute of ``self`` (``self.d_sum = tf.summary.merge([...])``)
            value, target_node = small.value, small.targets[0].target

        if not isinstance(value, cst.Call):
            return
        name = self.tf.call_name(value)
        if name in _OPS:
            self.placed.add(id(value))
            self._op(statement, value, name, target, scope, ops)
        elif name == _MERGE_ALL and target is not None:
            self.placed.add(id(value))
            if not self._default_collection(value):
                self.refuse(value, "`tf.summary.merge_all` with a key or scope is not converted")
            elif not ops:
                self.empty_merges.append((statement, value, target, target_node))
            else:
                inputs = ", ".join(ops)
                self._swap(
                    statement,
                    f"{target} = {self.tf_name}.raw_ops.MergeSummary(inputs=[{inputs}])",
                    f"`tf.summary.merge_all()` → MergeSummary of {len(ops)} summaries",
                )
        elif name == _MERGE and target is not None:
            self.placed.add(id(value))
            bound = bind_arguments(value, ("inputs", "collections", "name"))
            if bound is None or "inputs" not in bound or "collections" in bound:
                self.refuse(value, "`tf.summary.merge` with collections is not converted")
            else:
                inputs = cst.Module([]).code_for_node(bound["inputs"].value)
                self._swap(
                    statement, f"{target} = {self.tf_name}.raw_ops.MergeSummary(inputs={inputs})", "`tf.summary.merge` → MergeSummary"
                )
        elif name == _WRITER and target_node is not None:
            self.placed.add(id(value))
            self._writer(statement, value, target_node)

    def _default_collection(self, merge_all: cst.Call) -> bool:
        """``merge_all()``, ``merge_all(key=tf.GraphKeys.SUMMARIES)``, ``scope=None``: the
        summaries every summary op adds itself to, as without arguments."""
        bound = bind_arguments(merge_all, ("key", "scope", "name"))
        if bound is None:
            return False
        key, scope = bound.get("key"), bound.get("scope")
        if key is not None and not (
            self.tf.canonical(key.value) == "GraphKeys.SUMMARIES"
            or (isinstance(key.value, cst.SimpleString) and key.value.evaluated_value == "summaries")
        ):
            return False
        return scope is None or (isinstance(scope.value, cst.Name) and scope.value.value == "None")

    def _op(self, statement, call: cst.Call, name: str, target: str | None, scope: list[str], ops: list[str]) -> None:
        if name in PRE_1_0_SUMMARY_OPS:
            self._pre_1_0_op(statement, call, name, target, scope, ops)
            return
        kernel, tag_parameter, value_parameter, parameters = _OPS[name]
        bound = bind_arguments(call, parameters)
        if bound is None or "collections" in bound or "family" in bound or parameters[1] not in bound:
            self.refuse(call, f"`tf.{name}` with collections, family or unpacked arguments is not converted")
            return
        text = _literal(bound["name"].value) if "name" in bound else None
        if text is None or not CLEAN_NAME.fullmatch(text) or self._taken(text):
            why = (
                "is not a literal"
                if text is None
                else _unclean(text)
                if not CLEAN_NAME.fullmatch(text)
                else f"`{text}` may be taken by another op: {self._taken_by(text)} (TF1 would have made the tag unique)"
            )
            self.refuse(call, f"this `tf.{name}`'s name {why}")
            return
        tag = self._unique(scope, text)
        value = cst.Module([]).code_for_node(bound[parameters[1]].value)
        extra = ""
        if name == "summary.image":
            extra = f", max_images={cst.Module([]).code_for_node(bound['max_outputs'].value) if 'max_outputs' in bound else '3'}"
        base = re.sub(r"\W", "_", tag) + "_summary"
        holder = target or fresh_name(base if base.isidentifier() else f"summary_{base}", self.names_in_use)
        raw = f'{self.tf_name}.raw_ops.{kernel}({tag_parameter}="{tag}", {value_parameter}={value}{extra})'
        ops.append(holder)
        self._swap(statement, f"{holder} = {raw}", f'`tf.{name}` → tf.raw_ops.{kernel} with TF1\'s tag "{tag}"', original=call)

    def _pre_1_0_op(self, statement, call: cst.Call, name: str, target: str | None, scope: list[str], ops: list[str]) -> None:
        """TensorFlow 0.x's ``tf.scalar_summary("cross entropy", cost)``: the kernel 1.x's
        summaries run, given the tag as written — 0.x neither prefixed it with the name scopes
        nor made it unique (``logging_ops.scalar_summary`` passed ``tags`` to the kernel and
        used the scope for the op's name alone) — and collected by merge_all like the others."""
        kernel, tag_parameter, value_parameter, parameters = _OPS[name]
        bound = bind_arguments(call, parameters)
        if bound is None or "collections" in bound or parameters[0] not in bound or parameters[1] not in bound:
            self.refuse(call, f"`tf.{name}` (TensorFlow 0.x) with collections or unpacked arguments is not converted")
            return
        text = _literal(bound[parameters[0]].value)
        if text is None:
            self.refuse(call, f"`tf.{name}` (TensorFlow 0.x) with a tag other than one string literal is not converted")
            return
        op_name = _literal(bound["name"].value) if "name" in bound else kernel
        if op_name is None:
            self.refuse(call, f"`tf.{name}` (TensorFlow 0.x) with a `name=` other than a literal is not converted")
            return
        self._unique(scope, op_name)  # the op's name, which later names in the scope avoid
        value = cst.Module([]).code_for_node(bound[parameters[1]].value)
        extra = ""
        if name == "image_summary":
            images = bound.get("max_images")
            extra = f", max_images={cst.Module([]).code_for_node(images.value) if images is not None else '3'}"
        base = re.sub(r"\W", "_", text) + "_summary"
        holder = target or fresh_name(base if base.isidentifier() else f"summary_{base}", self.names_in_use)
        raw = f"{self.tf_name}.raw_ops.{kernel}({tag_parameter}={cst.Module([]).code_for_node(bound[parameters[0]].value)}, {value_parameter}={value}{extra})"
        ops.append(holder)
        self._swap(
            statement,
            f"{holder} = {raw}",
            f"`tf.{name}` (TensorFlow 0.x) → tf.raw_ops.{kernel} with its tag as written, as 0.x gave it (no name scope)",
            original=call,
        )

    def _writer(self, statement: cst.SimpleStatementLine, call: cst.Call, target_node: cst.BaseAssignTargetExpression) -> None:
        target = graph_name(target_node)
        assert target is not None  # (_simple binds only names and attributes of self)
        bound = bind_arguments(call, ("logdir", "graph", "max_queue", "flush_secs", "graph_def", "filename_suffix", "session"))
        if bound is None or "logdir" not in bound or set(bound) - {"logdir", "graph", "graph_def"}:
            self.refuse(call, "`tf.summary.FileWriter` with a queue, flush or session setting is not converted")
            return
        self.writers.add(target)
        self.writer_targets.add(id(target_node))
        logdir = cst.Module([]).code_for_node(bound["logdir"].value)
        message = "`tf.summary.FileWriter` → tf.summary.create_file_writer"
        if "graph" in bound or "graph_def" in bound:
            message += " (TF2 writes no graph: the graph argument is dropped)"
        self._swap(statement, f"{target} = {self.tf_name}.summary.create_file_writer({logdir})", message)

    def _discarded_writer(self, statement: cst.SimpleStatementLine, call: cst.Call) -> None:
        """``tf.summary.FileWriter("logs/", sess.graph)`` as a statement of its own, in any
        block (MorvanZhou's ``if OUTPUT_GRAPH:``): the writer is bound to nothing, so no
        summary is written through it; TF1 made its event file where the statement stood,
        as TF2's writer does there, in the same branch or loop."""
        self.placed.add(id(call))
        bound = bind_arguments(call, ("logdir", "graph", "max_queue", "flush_secs", "graph_def", "filename_suffix", "session"))
        if bound is None or "logdir" not in bound or set(bound) - {"logdir", "graph", "graph_def"}:
            self.refuse(call, "`tf.summary.FileWriter` with a queue, flush or session setting is not converted")
            return
        logdir = cst.Module([]).code_for_node(bound["logdir"].value)
        message = "`tf.summary.FileWriter` bound to nothing → tf.summary.create_file_writer"
        if "graph" in bound or "graph_def" in bound:
            message += " (TF2 writes no graph: the graph argument is dropped)"
        self._swap(statement, f"{self.tf_name}.summary.create_file_writer({logdir})", message)

    def _swap(self, statement: cst.SimpleStatementLine, code: str, message: str, original: cst.Call | None = None) -> None:
        new = cst.parse_statement(code, config=self.module.config_for_parsing)
        if isinstance(new, cst.SimpleStatementLine):
            new = new.with_changes(leading_lines=statement.leading_lines, trailing_whitespace=statement.trailing_whitespace)
        elif isinstance(new, cst.With) and isinstance(new.body, cst.SimpleStatementSuite):  # ``with w.as_default(): write``, one line
            suite = new.body.with_changes(trailing_whitespace=statement.trailing_whitespace)
            new = new.with_changes(leading_lines=statement.leading_lines, body=suite)
        self.replace[id(statement)] = new
        # a statement written over several lines becomes one: blank lines after it keep
        # the lines of what follows
        self.padding[id(statement)] = _lines(self.module, statement) - _lines(self.module, new)
        # noted on a node _Replace keeps (it may give the statement leading blank lines)
        self.noted.append((new.body[0] if isinstance(new, cst.SimpleStatementLine) else new, message))
        if original is not None:
            assign = new.body[0] if isinstance(new, cst.SimpleStatementLine) else None
            if isinstance(assign, cst.Assign):
                self.raw_calls[id(assign.value)] = original

    def _writer_uses(self) -> _WriterUses:
        """Every use of a writer: add_summary of a fetched value, add_graph, flush, close;
        and the reads of the names empty merges bind."""
        uses = _WriterUses(self.writers, self.writer_targets, {target: id(node) for _, _, target, node in self.empty_merges})
        walk(self.module, uses)
        for node, message in uses.refused:
            self.refuse(node, message)
        for statement, call, writer in uses.writes:
            bound = bind_arguments(call, ("summary", "global_step"))
            if bound is None or "summary" not in bound:
                self.refuse(call, "this `add_summary` call is not converted")
                continue
            summary = cst.Module([]).code_for_node(bound["summary"].value)
            step = cst.Module([]).code_for_node(bound["global_step"].value) if "global_step" in bound else "0"
            self._swap(
                statement,
                f"with {writer}.as_default(): {self.tf_name}.summary.experimental.write_raw_pb({summary}, step={step})",
                "`add_summary` → tf.summary.experimental.write_raw_pb under the writer",
            )
        for statement in uses.graphs:
            self.replace[id(statement)] = None
        return uses

    def notes(self) -> list[tuple[cst.CSTNode, str, str]]:
        return [(node, SUMMARY_WRITES.code, message) for node, message in self.noted]


def _discarded_writers(module: cst.Module, imports: TfImports) -> list[tuple[cst.SimpleStatementLine, cst.Call]]:
    """The statements ``tf.summary.FileWriter(...)`` alone on their line, whose writer is
    bound to nothing, wherever they stand."""
    found: list[tuple[cst.SimpleStatementLine, cst.Call]] = []

    class _Statements(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            small = node.body[0] if len(node.body) == 1 else None
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and imports.call_name(small.value) == _WRITER:
                found.append((node, small.value))

    walk(module, _Statements())
    return found


def _lines(module: cst.Module, statement: cst.SimpleStatementLine | cst.BaseCompoundStatement) -> int:
    """The lines a statement spans, without its leading blank and comment lines."""
    return module.code_for_node(statement).count("\n") - len(statement.leading_lines)


def _unclean(text: str) -> str:
    """Why a literal summary name is not a plain op name, whose tag is followed."""
    others = dict.fromkeys(re.sub(r"[A-Za-z0-9_.\-]", "", text))
    if not others:
        return f"`{text}` does not start with a letter, a digit or `.`, as an op name must (TF1 cleaned it)"
    shown = ", ".join(f"`{c}`" for c in others)
    return (
        f"`{text}` holds characters other than letters, digits, `_`, `.` and `-` ({shown}): TF1 cleaned such names, and read `/` as scopes"
    )


def _literal(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value
    return None


def _with_items(body) -> list[cst.WithItem]:
    """The items of the with blocks a walk of ``body`` enters (nested ones too)."""
    items: list[cst.WithItem] = []
    for statement in body:
        if isinstance(statement, cst.With):
            items += [*statement.items, *_with_items(statement.body.body)]
    return items


def _functions(module: cst.Module) -> list[tuple[str, cst.FunctionDef]]:
    """Every def with its qualified name (``Model.__init__``: two classes' constructors are
    two bodies)."""
    out: list[tuple[str, cst.FunctionDef]] = []
    outer: list[str] = []

    class _Defs(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            out.append((".".join([*outer, node.name.value]), node))
            outer.append(node.name.value)

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            outer.pop()

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            outer.append(node.name.value)

        def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
            outer.pop()

    walk(module, _Defs())
    return out


def _where(module: cst.Module, calls: list[cst.Call], skipped_withs: set[int]) -> dict[int, str]:
    """Where each call stands, as the reason the walk of graph-building bodies (which
    enters only ``with`` blocks, and takes statements ``x = call`` / ``call``) missed it."""
    where = _Where({id(c) for c in calls}, skipped_withs)
    if calls:
        walk(module, where)
    return where.found


_LOOPS = {cst.For: "in a `for` loop", cst.While: "in a `while` loop", cst.ListComp: "in a comprehension", cst.SetComp: "in a comprehension"}
_LOOPS |= {cst.DictComp: "in a comprehension", cst.GeneratorExp: "in a comprehension"}
_BRANCHES = {
    cst.If: "in an `if` branch",
    cst.Try: "in a `try` statement",
    cst.IfExp: "in a conditional expression",
    cst.Lambda: "in a lambda",
    cst.ClassDef: "in a class body (not a method)",
}


class _Where(cst.CSTVisitor):
    def __init__(self, calls: set[int], skipped_withs: set[int]) -> None:
        self.calls = calls
        self.skipped_withs = skipped_withs
        self.stack: list[cst.CSTNode] = []
        self.found: dict[int, str] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.calls:
            self.found[id(node)] = self._describe(node)
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()

    def _describe(self, call: cst.CSTNode) -> str:
        parent = self.stack[-1] if self.stack else None
        line = self.stack[-2] if len(self.stack) > 1 else None
        if isinstance(parent, cst.Assign) and parent.value is call:
            if len(parent.targets) != 1 or graph_name(parent.targets[0].target) is None:
                target = " = ".join(cst.Module([]).code_for_node(t.target) for t in parent.targets)
                return f"bound to `{target}` (followed: a name or an attribute of self)"
        elif not isinstance(parent, cst.Expr):
            return "inside an expression"
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) > 1:
            return "on a line with other statements"
        for node in reversed(self.stack):
            if isinstance(node, cst.FunctionDef):
                break
            if isinstance(node, cst.With) and id(node) in self.skipped_withs:
                items = ", ".join(cst.Module([]).code_for_node(item.item) for item in node.items)
                return f"under `with {items}`, a context whose summaries are not followed (only literal name scopes, sessions, devices)"
            for kinds in (_LOOPS, _BRANCHES):
                if type(node) in kinds:
                    return kinds[type(node)]
        return "in a body whose summaries are not followed"


class _WriterUses(cst.CSTVisitor):
    """Statements ``w.add_summary(s, step)`` / ``w.add_graph(g)``, and any other use of a
    writer (refused: its TF2 object has no such method, or escapes our sight).  A writer
    bound to ``self.writer`` is used through that attribute only: ``x.writer`` of any
    other object counts as another use.  Also counts the reads of ``watched`` names (those
    empty merges bind; ``self.merged`` read as any ``x.merged``), but their binding."""

    def __init__(self, writers: set[str], targets: set[int], watched: dict[str, int]) -> None:
        self.writers = writers
        self.attribute_writers = {w.removeprefix("self.") for w in writers if w.startswith("self.")}
        self.watched = watched
        self.reads: dict[str, int] = {}
        self.writes: list[tuple[cst.SimpleStatementLine, cst.Call, str]] = []  # (statement, call, writer)
        self.graphs: list[cst.SimpleStatementLine] = []
        self.refused: list[tuple[cst.CSTNode, str]] = []
        self._allowed: set[int] = set(targets)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if len(node.body) != 1 or not isinstance(node.body[0], cst.Expr):
            return
        call = node.body[0].value
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and (writer := graph_name(call.func.value)) in self.writers:
            assert writer is not None
            method = call.func.attr.value
            if method == "add_summary":
                self.writes.append((node, call, writer))
            elif method == "add_graph":
                self.graphs.append(node)
            if method in _WRITER_METHODS:
                self._allowed.add(id(call.func.value))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.writers and id(node) not in self._allowed:
            self._refuse(node, node.value)
        if node.value in self.watched and self.watched[node.value] != id(node):
            self.reads[node.value] = self.reads.get(node.value, 0) + 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        attribute = node.attr.value
        if attribute in self.attribute_writers and id(node) not in self._allowed:
            self._refuse(node, f"self.{attribute}")
        watched = f"self.{attribute}"
        if watched in self.watched and self.watched[watched] != id(node):
            self.reads[watched] = self.reads.get(watched, 0) + 1

    def _refuse(self, node: cst.CSTNode, writer: str) -> None:
        self.refused.append(
            (node, f"the summary writer `{writer}` is used other than by add_summary, add_graph, flush and close: not converted")
        )


class _Replace(FastTransformer):
    """Each summary statement by its raw form, line for line; a removed ``add_graph``
    leaves a blank line, so the statements after it keep their line numbers."""

    def __init__(self, finder: _Finder) -> None:
        super().__init__()
        self.replace = finder.replace
        self.padding = finder.padding

    def leave_SimpleStatementLine(self, original_node, updated_node):
        return self.replace.get(id(original_node), updated_node) or updated_node

    def leave_IndentedBlock(self, original_node, updated_node):
        return updated_node.with_changes(**self._drop(original_node.body, updated_node.body, updated_node.footer, "footer"))

    def leave_Module(self, original_node, updated_node):
        return updated_node.with_changes(**self._drop(original_node.body, updated_node.body, updated_node.footer, "footer"))

    def _drop(self, originals, updated, footer, footer_field: str) -> dict:
        body: list[cst.BaseStatement] = []
        carried: list[cst.EmptyLine] = []
        for original, statement in zip(originals, updated):
            if id(original) in self.replace and self.replace[id(original)] is None:
                carried += [*statement.leading_lines, cst.EmptyLine(indent=False)]
                continue
            if carried:
                statement = statement.with_changes(leading_lines=[*carried, *statement.leading_lines])
                carried = []
            body.append(statement)
            carried = [cst.EmptyLine(indent=False)] * max(self.padding.get(id(original), 0), 0)
        if not body and carried:  # the block held only add_graph: it must hold a statement
            return {"body": [cst.SimpleStatementLine([cst.Pass()], leading_lines=carried[:-1])], footer_field: footer}
        return {"body": body, footer_field: [*carried, *footer]}
