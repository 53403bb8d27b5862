"""Dependencies on an ``UPDATE_OPS`` collection nothing fills → the block's statements alone.

GAN code wraps its optimizers in the batch normalization boilerplate whether or not anything
adds to the collection (hwalsuklee's tensorflow-generative-model-collections, each model's
``build_model``)::

    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        self.d_optim = tf.train.AdamOptimizer(lr, beta1=0.5).minimize(self.d_loss, var_list=d_vars)
        self.g_optim = tf.train.AdamOptimizer(lr * 5, beta1=0.5).minimize(self.g_loss, var_list=g_vars)

Its batch normalizations (``tf.contrib.layers.batch_norm(..., updates_collections=None)``)
update their moving statistics in place, as part of their output, and add nothing to the
collection: ``tf.get_collection`` returns ``[]`` and ``tf.control_dependencies([])`` adds no
dependency.  The file is rewritten, TF1 to TF1, with the block's statements in place of the
``with`` (and without ``update_ops = tf.get_collection(...)`` when the collection was bound
to a name first), and migrated again; the rewrite is kept if the graph then converts
(TFM154 says where), else the refusal of ``tf.get_collection`` says why it stays.

Proven when (analysis/update_ops_producers.py):

- each read of the collection (``tf.get_collection(tf.GraphKeys.UPDATE_OPS[, scope])``) is the
  only argument of ``tf.control_dependencies`` in a ``with`` of that one item, or bound to a
  name by a statement of its own, the name bound nowhere else and read only so by ``with``
  statements of the same block;
- neither the file, nor the modules of the project it imports (directly or through others),
  nor the run's files importing it mention anything that may add to the collection: the
  batch normalizations of ``tf.layers``, Keras and Sonnet, contrib/slim ``batch_norm`` without
  ``updates_collections=None``, ``normalizer_fn=``, ``add_to_collection(s)``, ``add_update``,
  another mention of ``UPDATE_OPS``, the string ``"update_ops"``, slim's ``nets``, Keras'
  ``applications``, ``contrib.quantize``, graph libraries (TF Hub, TFLearn, TensorLayer...).
  A module outside the run and not imported by the file is not read: the run names the
  program's modules.

Batch normalization with a fed training flag, whose updates the collection does hold, is
rewrites/update_ops.py's.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.analysis.update_ops_producers import UPDATE_OPS_TEXT, update_ops_producers
from tf2migrate.diagnostics import Diagnostic, FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.rewrites.update_ops import COLLECTION_REFUSAL
from tf2migrate.traversal import find_all

EMPTY_UPDATE_OPS = Rule(
    "TFM154",
    "empty-update-ops",
    "Dependencies on an UPDATE_OPS collection nothing of the program fills → the block's statements alone.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Drops `with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):` (and the `update_ops = "
    "tf.get_collection(...)` it reads) when nothing in the program adds to the collection, keeping the block's statements.",
    why="TF1's collection is then empty, and `tf.control_dependencies([])` adds no dependency: the train ops are the same "
    "without the block (contrib's batch_norm with `updates_collections=None` updates its statistics in place and adds "
    "nothing).",
    example="with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):\n    train_op = opt.minimize(loss)",
    instead="train_op = opt.minimize(loss)   # migrated",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "w = tf.Variable(tf.ones([2, 1]))\n"
        "loss = tf.reduce_sum(tf.matmul(x, w))\n"
        "with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):\n"
        "    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op, {x: [[1.0, 2.0]]})\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "w = tf.Variable(tf.ones([2, 1]))\n"
        "loss = tf.reduce_sum(tf.matmul(x, w))\n"
        "tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, tf.assign_add(w, tf.ones([2, 1])))\n"
        "with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):\n"
        "    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op, {x: [[1.0, 2.0]]})\n",
    ),
)
RULES = [EMPTY_UPDATE_OPS]


@dataclass
class Dropped:
    """The module without the blocks, and the notes to report on the original's lines."""

    source: str
    notes: list[tuple[int, int, str]] = field(default_factory=list)  # (line, 1-based column, message)
    origins: list[int] = field(default_factory=list)  # the original line of each new line

    def map_line(self, line: int) -> int:
        return self.origins[line - 1] if 0 < line <= len(self.origins) else line


def drop_empty_update_ops(module: cst.Module, imports: TfImports, source: str, elsewhere: Sequence[str]) -> Dropped | str:
    """``module`` (parsed from ``source``) without its dependencies on ``UPDATE_OPS``, or why
    not: a read of the collection in another form, or what may fill it (``elsewhere``: what
    the project's other modules hold that may, as ``module: line: text``)."""
    reads = {id(c): c for c in find_all(module, cst.Call) if _is_update_ops(cst.ensure_type(c, cst.Call), imports)}
    if not reads:
        return "no read of the collection"
    bindings: dict[str, tuple[cst.SimpleStatementLine, cst.Call]] = {}
    for statement in find_all(module, cst.SimpleStatementLine):
        statement = cst.ensure_type(statement, cst.SimpleStatementLine)
        small = statement.body[0] if len(statement.body) == 1 else None
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and id(small.value) in reads
        ):
            bindings[small.targets[0].target.value] = (statement, cst.ensure_type(small.value, cst.Call))
    blocks = _blocks(module)
    withs: dict[int, cst.With] = {}
    covered = {id(call) for _, call in bindings.values()}
    read_names: dict[str, int] = dict.fromkeys(bindings, 0)
    for node in find_all(module, cst.With):
        block = cst.ensure_type(node, cst.With)
        dependency = _dependency(block, imports)
        if dependency is None:
            continue
        if id(dependency) in reads:
            withs[id(block)] = block
            covered.add(id(dependency))
        elif isinstance(dependency, cst.Name) and dependency.value in bindings:
            if blocks.get(id(block)) is not blocks.get(id(bindings[dependency.value][0])):
                return f"`{dependency.value}` is read by a `with` of another block than the one binding it"
            withs[id(block)] = block
            read_names[dependency.value] += 1
    if set(reads) - covered:
        return "the collection is read otherwise than as the dependencies of a `with` block"
    for name, count in read_names.items():
        mentions = sum(1 for n in find_all(module, cst.Name) if cst.ensure_type(n, cst.Name).value == name)
        if mentions != count + 1:  # (its binding, and the reads of the ``with`` statements)
            return f"`{name}`, bound to the collection, is bound again or read otherwise than as a `with`'s dependencies"
    try:
        own = update_ops_producers(ast.parse(source))
    except SyntaxError:
        return "the file does not parse as Python 3"
    producers = [*own, *elsewhere]
    if producers:
        shown = ", ".join(f"`{p}`" for p in producers[:3]) + (f" and {len(producers) - 3} more" if len(producers) > 3 else "")
        return f"something of the program may add to the collection ({shown})"
    removed = {id(statement) for statement, _ in bindings.values()}
    new = module.visit(_Drop(set(withs), removed))
    positions = Positions(module)
    notes = []
    for block in withs.values():
        line, column = positions.get(block) or (1, 0)
        notes.append(
            (
                line,
                column + 1,
                "`with tf.control_dependencies(...)` on `tf.GraphKeys.UPDATE_OPS` dropped, its statements kept: nothing in the "
                "program adds to the collection, so TF1 gave the block no dependency",
            )
        )
    return Dropped(new.code, notes, _origins(source, new.code))


def _is_update_ops(call: cst.Call, imports: TfImports) -> bool:
    return (
        imports.call_name(call) == "get_collection"
        and 1 <= len(call.args) <= 2
        and all(a.keyword is None and not a.star for a in call.args)
        and imports.canonical(call.args[0].value) == "GraphKeys.UPDATE_OPS"
    )


def _dependency(block: cst.With, imports: TfImports) -> cst.BaseExpression | None:
    """The one argument of ``with tf.control_dependencies(X):``, the block's only item."""
    if len(block.items) != 1 or block.items[0].asname is not None or block.asynchronous is not None:
        return None
    call = block.items[0].item
    if not isinstance(call, cst.Call) or imports.call_name(call) != "control_dependencies":
        return None
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    return call.args[0].value


def _blocks(module: cst.Module) -> dict[int, cst.CSTNode]:
    """The block (module or indented block) each statement stands in, by id."""
    found: dict[int, cst.CSTNode] = {}
    for holder in [module, *find_all(module, cst.IndentedBlock)]:
        for statement in holder.body:  # type: ignore[attr-defined]
            found[id(statement)] = holder
    return found


class _Drop(cst.CSTTransformer):
    def __init__(self, withs: set[int], removed: set[int]) -> None:
        self.withs = withs
        self.removed = removed

    def leave_SimpleStatementLine(self, original, updated):
        return cst.RemovalSentinel.REMOVE if id(original) in self.removed else updated

    def leave_With(self, original, updated):
        if id(original) not in self.withs:
            return updated
        if isinstance(updated.body, cst.SimpleStatementSuite):
            statements: list[cst.BaseStatement] = [cst.SimpleStatementLine(body=updated.body.body)]
        else:
            statements = list(updated.body.body)
        first = statements[0]
        statements[0] = first.with_changes(leading_lines=[*updated.leading_lines, *first.leading_lines])  # type: ignore[attr-defined]
        return cst.FlattenSentinel(statements)


def _origins(before: str, after: str) -> list[int]:
    """The original line of each line of ``after``: lines compared without their indentation,
    so a statement moved out of its block keeps its line."""
    old, new = [line.strip() for line in before.splitlines()], [line.strip() for line in after.splitlines()]
    origins = [0] * len(new)
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        for offset in range(b2 - b1):
            origins[b1 + offset] = a1 + offset + 1 if tag == "equal" else min(a1 + offset, max(a2 - 1, a1)) + 1
    return origins


def with_reason(findings: list[Diagnostic], source: str, reason: str) -> list[Diagnostic]:
    """The findings, with why the dependencies on the collection are not dropped appended to
    the refusals of its reads."""
    lines = source.splitlines()
    return [
        f
        if not (f.code.startswith("TFM3") and f.message.startswith(COLLECTION_REFUSAL))
        or not (0 < f.line <= len(lines) and UPDATE_OPS_TEXT in lines[f.line - 1])
        else dataclasses.replace(f, message=f"{f.message} (the dependencies on UPDATE_OPS are not dropped: {reason})")
        for f in findings
    ]
