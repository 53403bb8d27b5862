"""A module-level name bound again after graph code read it → a name for each binding but the last.

TF1 (DeepLearningZeroToAll's lab-06-1, the lab-08 notebook)::

    b = tf.Variable(tf.random_normal([3]))
    hypothesis = tf.nn.softmax(tf.matmul(X, W) + b)
    with tf.Session() as sess:
        ...
        b = sess.run(hypothesis, feed_dict={X: [[1, 3, 4, 3]]})
        print(b, sess.run(tf.argmax(b, 1)))

TF1 built the graph once and captured the variable ``b``; the generated function reads
``b`` when it is called, so after ``b = sess.run(...)`` it would read the NumPy array.
The graph is then refused (TFM306 "the graph reads `b`, which is rebound …").  Straight-line
code can be given one name per binding instead, as a compiler's SSA form does: each
binding but the last, and the reads that follow it, are renamed ``b_1``, ``b_2`` …, and
every read still sees the value it saw, so the program is the same TF1 program (the
module's last binding of ``b`` is still ``b``, for code that reads it afterwards, an
importer or a later notebook cell)::

    b_1 = tf.Variable(tf.random_normal([3]))
    hypothesis = tf.nn.softmax(tf.matmul(X, W) + b_1)

which then converts.  Only names whose every binding and read is in straight-line code at
the top of the module (module statements and the bodies of ``with`` blocks there whose
contexts are TensorFlow's or ``open``'s, which swallow no exception, in the order they run) are renamed, each binding a plain assignment target; a name bound or read
in a loop, a branch, a ``try``, a function, a class, a lambda or a comprehension, bound by
``+=``, ``for``, ``import``, ``as`` or ``del``, or declared ``global`` keeps its name (and the
graph its refusal).  migrate.py renames only the names of that refusal, and keeps the
renamed file only if its graph then converts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.names import fresh_name, read_and_bound
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.traversal import FastTransformer, preorder

REBOUND_NAME_RENAMED = Rule(
    "TFM129",
    "rebound-name-renamed",
    "A module-level name bound again after graph code read it → a name for each binding but the last.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Renames each later binding of a name that graph code reads (`b = sess.run(...)` after `b = tf.Variable(...)`): each "
    "binding but the last, and the reads that follow it, become `b_1`, `b_2` …, when all of the name's bindings and reads are straight-line code "
    "at the top of the module (also inside `with` blocks there). In a function (a constructor whose locals graph code reads, "
    "stored on `self`), the last binding of a local bound more than once, and the reads after it, get a name of their own "
    "when it is a straight-line assignment and nothing after it binds the name again.",
    why="TF1 captured the value when it built the graph; a generated function reads the name when it is called, and "
    "would read the later value. With one name per binding, every read sees what it saw in TF1 and the graph converts.",
    example="b = tf.Variable(1.0)\ny = b * x\nb = sess.run(y, {x: 2.0})\nprint(b)",
    instead="b_1 = tf.Variable(1.0)\n...\nb = compute_y(x=2.0).numpy()\nprint(b)",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [])\n"
        "b = tf.Variable(1.0)\n"
        "y = b * x\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    b = sess.run(y, {x: 2.0})\n"
        "    print(b)\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [])\n"
        "b = tf.Variable(1.0)\n"
        "y = b * x\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    for step in range(2):\n"
        "        b = sess.run(y, {x: 2.0})\n"
        "    print(b)\n",
    ),
)
RULES = [REBOUND_NAME_RENAMED]

# the refusal whose names are renamed (rewrites/session_functions.py)
REBOUND = re.compile(r"the graph reads `(\w+)`, which is rebound or changed in place after the graph is built")

# the refusal of a function's local that would be stored on ``self`` but is bound more than
# once (analysis/bindings.py): its name and the function's
LOCAL_REBOUND = re.compile(r"graph code reads (?:the variable )?`(\w+)`, a local of `(\w+)`.*it is bound more than once$")

_SCOPES = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.FunctionDef, cst.ClassDef)


@dataclass
class Renamed:
    """The renamed module, the findings about it (on the original's nodes) and, per line,
    where the renamed names start in the original and how much longer they became."""

    module: cst.Module
    notes: list[tuple[cst.CSTNode, str, str]]
    shifts: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    def map_column(self, line: int, column: int) -> int:
        """A 1-based column of the renamed text (lines are the same) in the original."""
        original = column
        for start, longer in self.shifts.get(line, []):
            if column - 1 > start:  # a node after the renamed name (starts: 0-based, in the renamed text)
                original -= longer
        return original


def rename_rebound(module: cst.Module, names: set[str], in_use: set[str]) -> Renamed | None:
    """The module with the later bindings of ``names`` renamed where that keeps its meaning;
    None if none is."""
    if any(_references(module, name) for name in _DYNAMIC):
        return None  # names read by their string
    renames: dict[int, str] = {}
    notes: list[tuple[cst.CSTNode, str, str]] = []
    contexts = _tf_aliases(module) | {"open"}
    for name in sorted(names):
        versions = _versions(module, name, in_use, contexts)
        if versions is None:
            continue
        renames.update(versions[0])
        notes += [
            (node, REBOUND_NAME_RENAMED.code, f"`{name}` is bound again later: this binding and its reads → `{new}`")
            for node, new in versions[1]
        ]
    return _renamed(module, renames, notes)


def rename_last_local_bindings(module: cst.Module, names: set[tuple[str, str]], in_use: set[str]) -> Renamed | None:
    """The module with the last binding of each ``(name, function)`` local, and the reads
    after it, given a name of its own where that keeps the meaning; None if none is.

    A constructor's local variable that graph code reads is stored on ``self`` under its
    name (analysis/bindings.py), which needs one binding: dennybritz's TextCNN binds ``W``
    in its loop of convolutions and again for the output layer.  The last binding is
    renamed when it is a straight-line assignment of the function's body (also inside
    ``with`` blocks there) and nothing after it binds the name again: every read after it
    saw that value and still does, every read before it is untouched, and no code outside
    the function sees its locals (none of its lambdas, nested functions or classes names
    it, nor does it call ``locals()``, ``vars()``, ``eval`` or ``exec``)."""
    renames: dict[int, str] = {}
    notes: list[tuple[cst.CSTNode, str, str]] = []
    contexts = _tf_aliases(module) | {"open"}
    functions = [f for f in preorder(module) if isinstance(f, cst.FunctionDef)]
    for name, function_name in sorted(names):
        for function in functions:
            if function.name.value != function_name:
                continue
            version = _last_version(function, name, in_use, contexts)
            if version is not None:
                function_renames, new, target = version
                renames.update(function_renames)
                notes.append(
                    (
                        target,
                        REBOUND_NAME_RENAMED.code,
                        f"`{name}` is bound more than once in `{function_name}`: its last binding and the reads after it → `{new}`",
                    )
                )
    return _renamed(module, renames, notes)


def _last_version(
    function: cst.FunctionDef, name: str, in_use: set[str], contexts: set[str]
) -> tuple[dict[int, str], str, cst.Name] | None:
    """The renames of the last binding of ``name`` in ``function`` and of the reads after
    it, the new name and the renamed target; None where that is not proven the same
    (:func:`rename_last_local_bindings`)."""
    body = cst.ensure_type(function.body, cst.IndentedBlock).body
    if any(_references(function, dynamic) for dynamic in _DYNAMIC):
        return None
    if any(
        isinstance(n, (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.Global, cst.Nonlocal)) and n is not function and _mentions(n, name)
        for n in preorder(function)
    ):
        return None
    statements = _straight_line(body, contexts)
    last = None
    for index, statement in enumerate(statements):
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and isinstance(statement.body[0], cst.Assign):
            targets = [n for t in statement.body[0].targets for n in _target_names(t.target) if n.value == name]
            if targets:
                last = (index, targets)
    if last is None:
        return None
    index, targets = last
    before, after = _own_parts(statements[:index], contexts), _own_parts(statements[index + 1 :], contexts)
    if any(name in read_and_bound(n)[1] or _in_scope(n, name) for n in after) or any(
        isinstance(d, cst.Del) and _mentions(d, name) for n in after for d in preorder(n)
    ):
        return None
    parameters = {p.name.value for p in preorder(function.params) if isinstance(p, cst.Param)}
    earlier = sum(read_and_bound(n)[1].count(name) for n in before)
    if not earlier and name not in parameters:
        return None  # bound once: nothing to rename
    new = fresh_name(f"{name}_{earlier + 1}", in_use)
    in_use.add(new)
    renames = {id(n): new for n in targets}
    renames.update({id(n): new for part in after for n in _references(part, name)})
    return renames, new, targets[0]


def _own_parts(statements: Sequence[cst.BaseStatement], contexts: set[str]) -> list[cst.CSTNode]:
    """What each statement of a :func:`_straight_line` list runs itself: an entered
    ``with``'s items (its body's statements are listed after it), any other statement whole."""
    parts: list[cst.CSTNode] = []
    for statement in statements:
        if isinstance(statement, cst.With) and _entered(statement, contexts):
            parts += statement.items
        else:
            parts.append(statement)
    return parts


def _renamed(module: cst.Module, renames: dict[int, str], notes: list[tuple[cst.CSTNode, str, str]]) -> Renamed | None:
    """The module with ``renames`` (``id`` of a ``Name`` → its new name) applied, and where
    each renamed name starts and how much longer it became."""
    if not renames:
        return None
    positions = Positions(module)
    shifts: dict[int, list[tuple[int, int]]] = {}
    for node in preorder(module):
        if id(node) in renames:
            position = positions.get(node)
            assert position is not None and isinstance(node, cst.Name)
            shifts.setdefault(position[0], []).append((position[1], len(renames[id(node)]) - len(node.value)))
    for line in shifts.values():
        line.sort()
        accumulated = 0
        for index, (start, longer) in enumerate(line):  # (where each starts in the renamed text)
            line[index] = (start + accumulated, longer)
            accumulated += longer
    return Renamed(module.visit(_Rename(renames)), notes, shifts)


_DYNAMIC = frozenset({"globals", "locals", "vars", "eval", "exec"})
# simple statements that bind a name otherwise than as an assignment target
_OTHER_BINDINGS = (cst.AugAssign, cst.AnnAssign, cst.Del, cst.Global, cst.Nonlocal, cst.Import, cst.ImportFrom)


def _versions(
    module: cst.Module, name: str, in_use: set[str], contexts: set[str]
) -> tuple[dict[int, str], list[tuple[cst.Name, str]]] | None:
    """The new name of each reference to ``name`` from its first binding up to its last,
    and the target of each such binding with its new name; None if ``name`` is bound once,
    or anywhere but in straight-line assignments."""
    # the references in the order they run: (the binding's target, or None for a read)
    references: list[tuple[cst.Name, bool]] = []
    for statement in _straight_line(module.body, contexts):
        if not isinstance(statement, cst.SimpleStatementLine) and not _entered(statement, contexts):
            if _mentions(statement, name):
                return None
            continue
        if isinstance(statement, cst.With):
            for item in statement.items:
                if (item.asname is not None and _mentions(item.asname, name)) or _in_scope(item.item, name):
                    return None
                references += [(n, False) for n in _references(item.item, name)]
            continue
        for small in cst.ensure_type(statement, cst.SimpleStatementLine).body:
            if isinstance(small, _OTHER_BINDINGS) or _in_scope(small, name):
                if _mentions(small, name):
                    return None
                continue
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else []
            plain = [n for t in targets for n in _target_names(t)]
            plain_ids = {id(n) for n in plain}
            references += [(n, False) for n in _references(small, name) if id(n) not in plain_ids]  # (read first)
            references += [(n, True) for n in plain if n.value == name]
    count = sum(binding for _, binding in references)
    if count < 2:
        return None
    renames: dict[int, str] = {}
    bound: list[tuple[cst.Name, str]] = []
    current, seen = name, 0
    for node, binding in references:
        if binding:
            seen += 1
            current = name if seen == count else fresh_name(f"{name}_{seen}", in_use)
            if current != name:
                bound.append((node, current))
        if current != name:
            renames[id(node)] = current
    return renames, bound


def _straight_line(body: Sequence[cst.BaseStatement], contexts: set[str]) -> list[cst.BaseStatement]:
    """The statements of straight-line module code in the order they run: simple ones,
    ``with`` statements (their headers) followed by their bodies, and the other compound
    statements whole (not entered)."""
    out: list[cst.BaseStatement] = []
    for statement in body:
        out.append(statement)
        if _entered(statement, contexts):
            out += _straight_line(cst.ensure_type(cst.ensure_type(statement, cst.With).body, cst.IndentedBlock).body, contexts)
    return out


def _entered(statement: cst.BaseStatement, contexts: set[str]) -> bool:
    """A ``with`` block whose body runs to its end or raises: each context a TensorFlow one
    (``tf.Session()``, ``tf.device(...)``, ``graph.as_default()``) or ``open(...)``.  Another
    context manager may swallow an exception (``contextlib.suppress``) and skip the rest of
    the body, whose bindings then never ran: not straight-line code."""
    return (
        isinstance(statement, cst.With)
        and isinstance(statement.body, cst.IndentedBlock)
        and all(_non_suppressing(item.item, contexts) for item in statement.items)
    )


def _non_suppressing(context: cst.BaseExpression, roots: set[str]) -> bool:
    if not isinstance(context, cst.Call):
        return False
    func = context.func
    if isinstance(func, cst.Attribute) and func.attr.value == "as_default":
        return True
    while isinstance(func, cst.Attribute):
        func = func.value
    return isinstance(func, cst.Name) and func.value in roots


def _tf_aliases(module: cst.Module) -> set[str]:
    """The names the module's top-level imports bind to TensorFlow modules (``tf``)."""
    aliases = set()
    for statement in module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if cst.Module([]).code_for_node(alias.name).split(".")[0] == "tensorflow":
                        aliases.add(alias.evaluated_alias or "tensorflow")
            elif isinstance(small, cst.ImportFrom) and small.module is not None and not isinstance(small.names, cst.ImportStar):
                if cst.Module([]).code_for_node(small.module).split(".")[0] == "tensorflow":  # ``from tensorflow.compat import v1 as tf``
                    aliases.update(alias.evaluated_alias or alias.evaluated_name for alias in small.names)
    return aliases


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in preorder(node))


def _in_scope(node: cst.CSTNode, name: str) -> bool:
    """Is ``name`` mentioned inside a lambda or comprehension under ``node`` (a scope of its own)?"""
    return any(isinstance(n, _SCOPES) and _mentions(n, name) for n in preorder(node))


def _references(node: cst.CSTNode, name: str) -> list[cst.Name]:
    """The ``Name`` nodes under ``node`` that refer to the variable ``name`` (not attribute
    or keyword names)."""
    not_references: set[int] = set()
    found = []
    for n in preorder(node):
        if isinstance(n, cst.Attribute):
            not_references.add(id(n.attr))
        elif isinstance(n, cst.Arg) and n.keyword is not None:
            not_references.add(id(n.keyword))
        elif isinstance(n, cst.Name) and n.value == name and id(n) not in not_references:
            found.append(n)
    return found


def _target_names(target: cst.BaseExpression) -> list[cst.Name]:
    """The names an assignment target binds (``a``, ``a, (b, *c)``)."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


class _Rename(FastTransformer):
    def __init__(self, renames: dict[int, str]) -> None:
        super().__init__()
        self.renames = renames

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.renames.get(id(original_node))
        return updated_node if new is None else updated_node.with_changes(value=new)
