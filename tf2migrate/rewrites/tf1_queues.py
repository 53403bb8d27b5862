"""TF1 queue-runner input pipelines → the TF1 ``tf.data`` iterator that yields the same batches.

TF1 (DeepLearningZeroToAll's lab-04-4)::

    filename_queue = tf.train.string_input_producer(['data.csv'], shuffle=False)
    reader = tf.TextLineReader(skip_header_lines=1)
    key, value = reader.read(filename_queue)
    xy = tf.decode_csv(value, record_defaults=[[0.], [0.], [0.]])
    x_batch, y_batch = tf.train.batch([xy[0:-1], xy[-1:]], batch_size=10)
    ...
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    for step in range(100):
        x, y = sess.run([x_batch, y_batch])
    coord.request_stop()
    coord.join(threads)

is rewritten, before the graph analysis, into the tf.data pipeline TF1 itself can run::

    def filename_queue_record(value):
        xy = tf.decode_csv(value, record_defaults=[[0.], [0.], [0.]])
        return xy[0:-1], xy[-1:]

    filename_queue_batches = tf.data.TextLineDataset(['data.csv']).skip(1).repeat().map(filename_queue_record).batch(10, drop_remainder=True)
    filename_queue_iterator = filename_queue_batches.make_one_shot_iterator()
    x_batch, y_batch = filename_queue_iterator.get_next()

(the coordinator's statements go away), which rewrites/tf1_iterators.py then converts as
any TF1 iterator: each run that reads the batch passes ``iterator.get_next()``, one batch
per run, as TF1's run dequeued one batch.

Why the batches are the same, in the same order: ``string_input_producer(shuffle=False)``
hands out the file names in their order, once per epoch (``num_epochs``: that many, then
the end; else for ever); the reader reads each file's lines in order, skipping
``skip_header_lines`` at the top of each file; ``tf.train.batch`` with one thread (its
default) runs read → decode → enqueue one record after the other into a FIFO queue, and
each run's dequeue takes the next ``batch_size`` records, across epochs; at the end a
smaller last batch is dropped unless ``allow_smaller_final_batch``.  That is
``TextLineDataset(files).skip(n)`` (per file) ``.repeat(num_epochs).map(decode).batch(batch_size,
drop_remainder=...)``: the record statements (those between the read and the batch that
compute from the line) become the map function, traced where the batch was built, as
TF1 ran them there.

Refused, with the reason (the graph stays on TF1): a producer that shuffles (its default)
or a batch filled by several threads, and ``tf.train.shuffle_batch``: TF1's order then
depends on a random draw and on thread timing, and cannot be reproduced; every other
shape (other readers and producers, the reader's key read, a pipeline inside a function,
names of the pipeline used elsewhere, the coordinator used other than to start, stop and
join) is left to the generic refusals.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TypeVar

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.names import changed_in_place, fresh_name, read_and_bound
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.traversal import find_all, preorder

QUEUE_TO_DATASET = Rule(
    "TFM128",
    "tf1-queue-to-dataset",
    "A TF1 queue-runner pipeline read in a fixed order → the tf.data pipeline that yields the same batches.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces `string_input_producer(files, shuffle=False)` + `TextLineReader` + `read` + the statements "
    "decoding the line + `tf.train.batch` (one thread) by `tf.data.TextLineDataset(files).skip(...).repeat(...)"
    ".map(decode).batch(...)` and its iterator, and removes `tf.train.Coordinator`, `start_queue_runners`, "
    "`request_stop` and `join`; the iterator is then converted as any TF1 iterator (TFM127).",
    why="With the file names in order and one thread filling a FIFO queue, TF1's batches are the lines of the "
    "files in order, epoch after epoch, `batch_size` at a time, and each run took the next batch: the same "
    "batches tf.data yields, one per `get_next()`. A shuffling producer, `shuffle_batch` or several threads "
    "draw an order that cannot be reproduced: refused.",
    example="q = tf.train.string_input_producer(['data.csv'], shuffle=False)\nreader = tf.TextLineReader()\n"
    "key, line = reader.read(q)\nrow = tf.decode_csv(line, [[0.], [0.]])\nx, y = tf.train.batch([row[0], row[1]], batch_size=4)",
    instead="def q_record(line):\n    row = tf.decode_csv(line, [[0.], [0.]])\n    return row[0], row[1]\n\n"
    "q_batches = tf.data.TextLineDataset(['data.csv']).repeat().map(q_record).batch(4, drop_remainder=True)",
    invalid=(
        "import os\n"
        "import tempfile\n"
        "import tensorflow as tf\n"
        "path = os.path.join(tempfile.mkdtemp(), 'data.csv')\n"
        "with open(path, 'w') as f:\n"
        "    f.write('1,2\\n3,4\\n5,6\\n')\n"
        "q = tf.train.string_input_producer([path], shuffle=False)\n"
        "reader = tf.TextLineReader()\n"
        "key, line = reader.read(q)\n"
        "row = tf.decode_csv(line, [[0.], [0.]])\n"
        "x, y = tf.train.batch([row[0], row[1]], batch_size=2)\n"
        "with tf.Session() as sess:\n"
        "    coord = tf.train.Coordinator()\n"
        "    threads = tf.train.start_queue_runners(sess=sess, coord=coord)\n"
        "    print(sess.run(x + y))\n"
        "    coord.request_stop()\n"
        "    coord.join(threads)\n",
    ),
    valid=("import tensorflow as tf\nfor x in tf.data.TextLineDataset(['data.csv']).batch(2):\n    print(x)\n",),
)
RULES = [QUEUE_TO_DATASET]

# cheap test of the source before the module is searched
WORDS = ("input_producer", "queue_runner", "shuffle_batch", "train.batch")

# producers, and the position of their ``shuffle`` parameter
_PRODUCERS = {"train.string_input_producer": 2, "train.slice_input_producer": 2, "train.range_input_producer": 2, "train.input_producer": 3}
# (other batching calls: left to the generic refusals)
_BATCHES = frozenset({"train.batch_join", "train.maybe_batch", "train.maybe_batch_join"})
_SHUFFLED_BATCHES = frozenset(
    {"train.shuffle_batch", "train.shuffle_batch_join", "train.maybe_shuffle_batch", "train.maybe_shuffle_batch_join"}
)
_READERS = frozenset({"TextLineReader", "WholeFileReader", "TFRecordReader", "FixedLengthRecordReader", "IdentityReader", "LMDBReader"})
_RUNNERS = frozenset({"train.Coordinator", "train.start_queue_runners", "train.queue_runner.start_queue_runners"})
QUEUE_CALLS = {*_PRODUCERS, "train.batch", *_BATCHES, *_SHUFFLED_BATCHES, *_READERS, *_RUNNERS}

_PRODUCER_PARAMETERS = ("string_tensor", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name", "cancel_op")
_PRODUCER_KEPT = frozenset({"string_tensor", "num_epochs", "shuffle", "seed", "capacity", "name"})
_BATCH_PARAMETERS = (
    "tensors",
    "batch_size",
    "num_threads",
    "capacity",
    "enqueue_many",
    "shapes",
    "dynamic_pad",
    "allow_smaller_final_batch",
    "shared_name",
    "name",
)
_BATCH_KEPT = frozenset({"tensors", "batch_size", "num_threads", "capacity", "allow_smaller_final_batch", "name"})

Finding = tuple[cst.CSTNode, str, str]
_Node = TypeVar("_Node", bound=cst.CSTNode)


@dataclass
class Queued:
    """The module with its queue pipelines as TF1 tf.data iterators (None: not rewritten),
    the original node each of its new nodes stands for (findings on them are placed there),
    why a pipeline was refused and what the rewrite did (both on the original's nodes)."""

    module: cst.Module | None
    anchors: dict[int, cst.CSTNode] = field(default_factory=dict)
    refusals: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)


@dataclass
class _Pipeline:
    """The statements (indices in the module's body) of one recognized pipeline."""

    producer: int
    reader: int
    read: int
    records: list[int]
    batch: int
    batch_call: cst.Call
    replacement: list[cst.SimpleStatementLine | cst.FunctionDef]


def desugar(module: cst.Module, imports: TfImports, names_in_use: set[str]) -> Queued | None:
    """None if the module calls no queue API; else its rewrite, or the reasons it has none."""
    calls = [c for c in find_all(module, cst.Call) if isinstance(c, cst.Call) and imports.call_name(c) in QUEUE_CALLS]
    if not calls:
        return None
    refusals = [r for r in (_unordered(imports, c) for c in calls) if r is not None]
    if refusals:
        return Queued(None, refusals=refusals)
    in_use = set(names_in_use)
    pipelines: list[_Pipeline] = []
    for index, statement in enumerate(module.body):
        call = _assigned_call(statement)
        if call is not None and imports.call_name(call) == "train.string_input_producer":
            found = _pipeline(module, imports, index, call, in_use)
            if isinstance(found, tuple):
                return Queued(None, refusals=[found])
            if found is not None:
                pipelines.append(found)
    if not pipelines:
        return None  # (runners started for another module's queues: those stay TF1's, and so do they)
    runners = _runner_statements(module, imports)
    covered = {id(node) for p in pipelines for i in (p.producer, p.reader, p.read, p.batch) for node in preorder(module.body[i])}
    covered |= {id(node) for statement in runners for node in preorder(statement)}
    if any(id(c) not in covered for c in calls):
        return None
    shared = _used_elsewhere(module, pipelines, runners)
    if shared is not None:
        return Queued(None, refusals=[shared])
    return _rewritten(module, pipelines, runners)


def _unordered(imports: TfImports, call: cst.Call) -> Finding | None:
    """Why a queue call's order cannot be reproduced, if it cannot."""
    name = imports.call_name(call)
    if name in _SHUFFLED_BATCHES:
        return _refusal(
            call,
            f"`tf.{name}` draws each batch at random from a queue that background threads fill: TF1's order "
            "cannot be reproduced, so no tf.data pipeline can be shown to yield the same batches; not converted",
        )
    if name in _PRODUCERS and not _is_literal(_keyword_or_position(call, "shuffle", _PRODUCERS[name]), "False"):
        return _refusal(
            call,
            f"`tf.{name}` shuffles its items (shuffle=True, the default): TF1 drew a new random order each epoch "
            "in a queue-runner thread, which cannot be reproduced, so no tf.data pipeline can be shown to yield the "
            "same batches; not converted",
        )
    threads = _keyword_or_position(call, "num_threads", 2)
    if name == "train.batch" and threads is not None and not _is_literal(threads, "1"):
        return _refusal(
            call,
            f"`tf.{name}` is filled by several threads (num_threads={cst.Module([]).code_for_node(threads)}), "
            "which enqueue in no fixed order: TF1's batches cannot be reproduced; not converted",
        )
    return None


def _refusal(node: cst.CSTNode, message: str) -> Finding:
    return node, blockers.UNSUPPORTED_GRAPH_CODE.code, message


def _keyword_or_position(call: cst.Call, keyword: str, position: int | None) -> cst.BaseExpression | None:
    for index, arg in enumerate(call.args):
        if (arg.keyword is not None and arg.keyword.value == keyword) or (arg.keyword is None and index == position):
            return arg.value
    return None


def _is_literal(node: cst.BaseExpression | None, text: str) -> bool:
    return isinstance(node, (cst.Name, cst.Integer)) and node.value == text


def _assigned_call(statement: cst.CSTNode) -> cst.Call | None:
    """The call of ``target = call(...)`` (one assignment, one target)."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.Call):
            return small.value
    return None


def _target(statement: cst.BaseStatement) -> cst.BaseAssignTargetExpression:
    small = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Assign)
    return small.targets[0].target


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _pipeline(module: cst.Module, imports: TfImports, index: int, producer: cst.Call, in_use: set[str]) -> _Pipeline | Finding | None:
    """The pipeline fed by the producer at ``module.body[index]``; a refusal where the shape is
    recognized but a detail is not; None for other shapes (left to the generic refusals)."""
    body = module.body
    queue = _target(body[index])
    producer_args = bind_arguments(producer, _PRODUCER_PARAMETERS)
    if not isinstance(queue, cst.Name) or producer_args is None or "string_tensor" not in producer_args:
        return None
    unsupported = sorted(set(producer_args) - _PRODUCER_KEPT)
    if unsupported:
        return _refusal(producer, f"`string_input_producer` with `{unsupported[0]}` is not converted")
    files = producer_args["string_tensor"].value
    if any(imports.call_name(c) is not None for c in find_all(files, cst.Call)):
        return _refusal(producer, "the file names of `string_input_producer` are computed by TensorFlow ops; not converted")
    read = next((j for j in range(index + 1, len(body)) if _reads_queue(body[j], queue.value)), None)
    if read is None:
        return None
    read_call = _assigned_call(body[read])
    assert read_call is not None  # (_reads_queue)
    reader_name = cst.ensure_type(cst.ensure_type(read_call.func, cst.Attribute).value, cst.Name).value
    reader = next((j for j in range(read) if j != index and _binds_reader(imports, body[j], reader_name)), None)
    key_value = _target(body[read])
    if reader is None or not (isinstance(key_value, cst.Tuple) and len(key_value.elements) == 2):
        return None
    key, value = (e.value for e in key_value.elements)
    if not (isinstance(key, cst.Name) and isinstance(value, cst.Name)):
        return None
    reader_call = cst.ensure_type(_assigned_call(body[reader]), cst.Call)
    reader_args = bind_arguments(reader_call, ("skip_header_lines", "name"))
    if imports.call_name(reader_call) != "TextLineReader" or reader_args is None:
        return _refusal(
            reader_call,
            f"`tf.{imports.call_name(reader_call)}` reading a `string_input_producer` is not converted (only `tf.TextLineReader`)",
        )
    # the statements computing from the line, up to the batch
    computed = {value.value}
    records: list[int] = []
    batch = None
    for j in range(read + 1, len(body)):
        statement = body[j]
        reads, binds = read_and_bound(statement)
        if not computed & set(reads):
            continue
        call = _assigned_call(body[j])
        if call is not None and imports.call_name(call) == "train.batch":
            batch = j
            break
        if not (isinstance(statement, cst.SimpleStatementLine) and all(isinstance(s, cst.Assign) for s in statement.body)):
            return _refusal(
                statement,
                "a statement of a queue pipeline between its `read` and `tf.train.batch` that is not an assignment is not converted",
            )
        records.append(j)
        computed |= set(binds)
    if batch is None:
        return None
    batch_call = cst.ensure_type(_assigned_call(body[batch]), cst.Call)
    refused = _batch_refusal(batch_call, _target(body[batch]))
    if refused is not None:
        return _refusal(batch_call, refused)
    # the map function sees the line alone: not the reader's key (TF1's `file:line` string), queue or reader
    pipeline_names = {key.value, queue.value, reader_name}
    unseen = next(((j, n) for j in [*records, batch] for n in read_and_bound(body[j])[0] if n in pipeline_names), None)
    if unseen is not None:
        return _refusal(
            body[unseen[0]],
            f"`{unseen[1]}`, bound by the queue pipeline's producer, reader or `read`, is decoded or batched with the line: the "
            "tf.data pipeline reads the line alone; not converted",
        )
    moved = [index, reader, read, *records]
    for j in moved:
        outside = set(read_and_bound(body[j])[0]) - computed - {queue.value, reader_name}
        # the moved statements run where the batch was built: a name they read must hold the same object there
        changed = [
            n
            for k in range(j + 1, batch)
            if k not in moved
            for n in [*read_and_bound(body[k])[1], *changed_in_place(body[k])]
            if n in outside
        ]
        if changed:
            return _refusal(
                body[j],
                f"`{changed[0]}`, read by this statement of a queue pipeline, is bound again or changed in place before its "
                "`tf.train.batch`; not converted",
            )
    skip = reader_args.get("skip_header_lines")
    replacement = _replacement(
        module, queue.value, value.value, files, producer_args, skip.value if skip is not None else None, records, batch, batch_call, in_use
    )
    return _Pipeline(index, reader, read, records, batch, batch_call, replacement)


def _reads_queue(statement: cst.BaseStatement, queue: str) -> bool:
    """``key, value = reader.read(queue)``."""
    call = _assigned_call(statement)
    return (
        call is not None
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "read"
        and isinstance(call.func.value, cst.Name)
        and len(call.args) == 1
        and call.args[0].keyword is None
        and isinstance(call.args[0].value, cst.Name)
        and call.args[0].value.value == queue
    )


def _binds_reader(imports: TfImports, statement: cst.BaseStatement, name: str) -> bool:
    call = _assigned_call(statement)
    target = _target(statement) if call is not None else None
    return call is not None and imports.call_name(call) in _READERS and isinstance(target, cst.Name) and target.value == name


def _batch_refusal(call: cst.Call, target: cst.BaseAssignTargetExpression) -> str | None:
    arguments = bind_arguments(call, _BATCH_PARAMETERS)
    if arguments is None or "tensors" not in arguments or "batch_size" not in arguments:
        return "`tf.train.batch` with arguments this release does not read is not converted"
    unsupported = sorted(set(arguments) - _BATCH_KEPT)
    if unsupported:
        return f"`tf.train.batch` with `{unsupported[0]}` is not converted"
    smaller = arguments.get("allow_smaller_final_batch")
    if smaller is not None and not (_is_literal(smaller.value, "True") or _is_literal(smaller.value, "False")):
        return "`tf.train.batch` with `allow_smaller_final_batch` not written as True or False is not converted"
    tensors = arguments["tensors"].value
    if not isinstance(tensors, (cst.List, cst.Tuple)) or any(isinstance(e, cst.StarredElement) for e in tensors.elements):
        return "`tf.train.batch` of something else than a list of tensors written out is not converted"
    if not (
        isinstance(target, (cst.Tuple, cst.List))
        and len(target.elements) == len(tensors.elements) >= 2
        and all(isinstance(e.value, cst.Name) for e in target.elements)
    ):
        return "the batches of `tf.train.batch` are not converted unless unpacked into one name per tensor"
    return None


def _replacement(
    module: cst.Module,
    queue: str,
    value: str,
    files: cst.BaseExpression,
    producer_args: dict[str, cst.Arg],
    skip: cst.BaseExpression | None,
    records: list[int],
    batch: int,
    batch_call: cst.Call,
    in_use: set[str],
) -> list[cst.SimpleStatementLine | cst.FunctionDef]:
    """The map function, the dataset, its iterator and the ``get_next()`` statement."""
    body = module.body
    tf = _root(batch_call.func)
    arguments = bind_arguments(batch_call, _BATCH_PARAMETERS)
    tensors = arguments["tensors"].value if arguments is not None else None
    assert arguments is not None and isinstance(tensors, (cst.List, cst.Tuple))  # (_batch_refusal)
    record, batches, iterator = (fresh_name(f"{queue}_{suffix}", in_use) for suffix in ("record", "batches", "iterator"))
    returned = ", ".join(_code(e.value) for e in tensors.elements)
    function = cst.ensure_type(
        cst.parse_statement(f"def {record}({value}):\n    return {returned}\n", config=module.config_for_parsing), cst.FunctionDef
    )
    # the record statements themselves (their nodes: findings on them stay where they were)
    statements = [cst.ensure_type(body[j], cst.SimpleStatementLine) for j in records]
    function = function.with_changes(
        body=function.body.with_changes(body=[*statements, *function.body.body]),
    )
    single_file = isinstance(files, (cst.List, cst.Tuple)) and len(files.elements) == 1
    lines = f"{tf}.data.TextLineDataset({_code(files)})"
    if skip is not None and single_file:
        lines += f".skip({_code(skip)})"
    elif skip is not None:
        lines = f"{tf}.data.Dataset.from_tensor_slices({_code(files)}).flat_map(lambda name: {tf}.data.TextLineDataset(name).skip({_code(skip)}))"
    epochs = producer_args.get("num_epochs")
    repeat = "" if epochs is None or _is_literal(epochs.value, "None") else _code(epochs.value)
    smaller = arguments.get("allow_smaller_final_batch")
    drop = "" if smaller is not None and _is_literal(smaller.value, "True") else ", drop_remainder=True"
    size = _code(arguments["batch_size"].value)
    target = _code(_target(body[batch]))
    code = (
        f"{batches} = {lines}.repeat({repeat}).map({record}).batch({size}{drop})\n"
        f"{iterator} = {batches}.make_one_shot_iterator()\n"
        f"{target} = {iterator}.get_next()\n"
    )
    following = [cst.ensure_type(s, cst.SimpleStatementLine) for s in cst.parse_module(code, config=module.config_for_parsing).body]
    following[0] = following[0].with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
    return [function, *following]


def _root(func: cst.BaseExpression) -> str:
    while isinstance(func, cst.Attribute):
        func = func.value
    return cst.ensure_type(func, cst.Name).value


def _runner_statements(module: cst.Module, imports: TfImports) -> list[cst.SimpleStatementLine]:
    """``coord = tf.train.Coordinator()``, ``threads = tf.train.start_queue_runners(...)``
    (or the call alone), ``coord.request_stop()``, ``coord.join(threads)``: anywhere."""
    found = []
    coordinators: set[str] = set()
    for statement in find_all(module, cst.SimpleStatementLine):
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        small = statement.body[0]
        call = small.value if isinstance(small, (cst.Assign, cst.Expr)) else None
        if not isinstance(call, cst.Call):
            continue
        name = imports.call_name(call)
        plain = all(isinstance(a.value, cst.Name) and not a.star for a in call.args)
        if name == "train.Coordinator" and not call.args and isinstance(small, cst.Assign) and isinstance(_target(statement), cst.Name):
            coordinators.add(cst.ensure_type(_target(statement), cst.Name).value)
            found.append(statement)
        elif name in _RUNNERS and name != "train.Coordinator" and plain:
            if isinstance(small, cst.Expr) or isinstance(_target(statement), cst.Name):
                found.append(statement)
        elif (
            isinstance(small, cst.Expr)
            and isinstance(call.func, cst.Attribute)
            and isinstance(call.func.value, cst.Name)
            and call.func.value.value in coordinators
            and call.func.attr.value in ("request_stop", "join")
            and plain
        ):
            found.append(statement)
    return found


def _used_elsewhere(module: cst.Module, pipelines: list[_Pipeline], runners: list[cst.SimpleStatementLine]) -> Finding | None:
    """Why the statements to remove cannot go: a name they bind is read or bound elsewhere
    (``coord.should_stop()``, the reader's key fetched).  (``_`` as the reader's key may
    be bound elsewhere if it is read nowhere.)"""
    removed = [module.body[i] for p in pipelines for i in (p.producer, p.reader, p.read, *p.records, p.batch)] + list(runners)
    inside: Counter[str] = Counter()
    bound: dict[str, cst.CSTNode] = {}
    for statement in removed:
        reads, binds = read_and_bound(statement)
        inside.update(reads)
        inside.update(binds)
        bound.update((name, statement) for name in binds)
    for p in pipelines:  # the batch's own names stay bound, by the get_next() statement
        for name in read_and_bound(_target(module.body[p.batch]))[0]:
            bound.pop(name, None)
    reads, binds = read_and_bound(module)
    everywhere = Counter(reads) + Counter(binds)
    for name, binding in bound.items():
        if everywhere[name] != inside[name] and (name != "_" or "_" in reads):
            return _refusal(
                binding,
                f"`{name}`, bound here by a queue pipeline or its coordinator, is used elsewhere than in the pipeline and "
                "the start, stop and join of its runners; not converted",
            )
    return None


def _rewritten(module: cst.Module, pipelines: list[_Pipeline], runners: list[cst.SimpleStatementLine]) -> Queued:
    original = {id(node) for node in preorder(module)}
    queued = Queued(None)
    removed = {id(module.body[i]) for p in pipelines for i in (p.producer, p.reader, p.read, *p.records)}
    removed |= {id(statement) for statement in runners}
    replaced = {id(module.body[p.batch]): p for p in pipelines}
    body: list[cst.BaseStatement] = []
    carried: list[cst.EmptyLine] = []  # the blank lines and comments above removed statements
    for statement in module.body:
        if id(statement) in removed:
            carried += cst.ensure_type(statement, cst.SimpleStatementLine).leading_lines
            continue
        pipeline = replaced.get(id(statement))
        new: list[cst.SimpleStatementLine | cst.BaseCompoundStatement]
        if pipeline is None:
            new = [_without(statement, removed, queued.anchors)]
        else:
            function, *rest = pipeline.replacement
            comments = [line for line in [*carried, *statement.leading_lines] if line.comment is not None]
            new = [function.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine(), *comments]), *rest]
            carried = []
            for node in new:
                queued.anchors.update({id(n): pipeline.batch_call for n in preorder(node) if id(n) not in original})
            queued.notes.append((pipeline.batch_call, QUEUE_TO_DATASET.code, "queue-runner pipeline → tf.data pipeline and its iterator"))
        if carried:
            first = new[0].with_changes(leading_lines=[*carried, *new[0].leading_lines])
            queued.anchors[id(first)] = queued.anchors.get(id(new[0]), new[0])
            new[0], carried = first, []
        body += new
    for statement in runners:
        queued.notes.append((statement, QUEUE_TO_DATASET.code, "queue runners removed: the tf.data pipeline needs none"))
    queued.module = module.with_changes(body=body)
    return queued


def _without(node: _Node, removed: set[int], anchors: dict[int, cst.CSTNode]) -> _Node:
    """``node`` without the removed statements under it (``pass`` where a block would be
    empty); a rebuilt node is anchored to the one it replaces."""
    if not any(id(n) in removed for n in preorder(node)):
        return node
    changes: dict[str, object] = {}
    if isinstance(node, cst.IndentedBlock):
        kept = [_without(s, removed, anchors) for s in node.body if id(s) not in removed]
        changes["body"] = kept or [cst.SimpleStatementLine([cst.Pass()])]
    else:
        for name in ("body", "orelse", "handlers", "finalbody"):
            child = getattr(node, name, None)
            if isinstance(child, cst.CSTNode):
                changes[name] = _without(child, removed, anchors)
            elif isinstance(child, (list, tuple)):
                changes[name] = [_without(c, removed, anchors) for c in child]
    rebuilt = node.with_changes(**changes)
    anchors[id(rebuilt)] = node
    return rebuilt
