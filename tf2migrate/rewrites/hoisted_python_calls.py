"""A Python call of graph-building code that reads no graph value → computed once, by a
statement of its own just before its statement.

Tutorial code computes Python values where it builds ops from them::

    y = tf.constant(housing.target.reshape(-1, 1), dtype=tf.float32, name="y")
    image = tf.image.decode_png(plot_buf.getvalue(), channels=4)
    A = matrix_list['m_{}'.format(i)]

To the analysis ``housing.target.reshape(...)`` is a Python call in graph-building code,
refused (TFM306): the statement moves into a generated function, where the call would run
at every call of it, while TF1 ran it once, while building the graph.  Yet the call reads
no graph value: TF1 computed a Python value from Python values, once, when the statement
ran.  The module is first rewritten, TF1 to TF1, with the call computed by a statement of
its own placed right before its statement, in the same block, and the statement reading
the value through that name::

    reshape_value = housing.target.reshape(-1, 1)
    y = tf.constant(reshape_value, dtype=tf.float32, name="y")

and that module is migrated like any other (migrate.py keeps it only if its graph then
converts).  The new statement runs where and as often as its statement ran (a statement of
the block, just before it); what it reads is the analysis's to judge again: a statement
reading no graph value stays where it is, plain Python, run once (analysis/statements.py,
``Kind.PYTHON``); one reading a graph value is graph code, and the call in it is refused
again, the file kept as before.  The graph code then reads a Python name, as it reads any.

Only when all of this holds (else the refusal stays as it was):

- the refusal is the plain one (no further reason: a call of a module this run does not
  read, a static shape not derived, a name bound nowhere... stay as they are);
- the call is part of a statement alone on its line (``a = 1; b = f(x)`` is not split),
  evaluated exactly once each time the statement runs: not in a ``lambda``, a comprehension,
  a branch of a conditional expression or the right operand of ``and``/``or``, nor in a
  decorator or a default;
- it calls no TF function (in it: ``len(tf.trainable_variables())`` reads the graph as it
  is while being built);
- no other call of the statement is evaluated before it (a call whose text ends before the
  call begins, or in an assignment's targets), but Python's builtins that read only their
  arguments (``len``, ``int``, ``list``...): computed before the statement, the call now
  runs before them, which changes nothing only if nothing they did was read by it;
- the new name is one the module nowhere uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.names import read_and_bound
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.traversal import find_all

HOISTED_CALL = Rule(
    "TFM157",
    "python-call-hoisted",
    "A Python call of graph-building code that reads no graph value → computed once, just before its statement.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Writes `y = tf.constant(housing.target.reshape(-1, 1))` as `reshape_value = housing.target.reshape(-1, 1)` followed "
    "by `y = tf.constant(reshape_value)` when the call was refused as a Python call in graph-building code; the new statement "
    "is then judged by the analysis: reading no graph value, it stays where it is and runs once, as TF1 ran it.",
    why="The call ran once, when its statement ran, and read Python values only: computed by a statement of its own just "
    "before, it runs at the same point of the program, once; the graph code reads its value through a name. The conditions "
    "are in `tf2migrate/rewrites/hoisted_python_calls.py`.",
    example="y = tf.constant(data.reshape(-1, 1))",
    instead="reshape_value = data.reshape(-1, 1)\ny = tf.constant(reshape_value)  # graph code: moved into the generated function",
    invalid=(
        "import numpy as np\n"
        "import tensorflow as tf\n"
        "data = np.arange(4.0)\n"
        "y = tf.constant(data.reshape(-1, 1)) * 2.0\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y))\n",
    ),
    valid=(
        "import numpy as np\n"
        "import tensorflow as tf\n"
        "data = [np.arange(4.0)]\n"
        "y = tf.constant(data.pop().reshape(-1, 1) if data else 0.0) * 2.0\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y))\n",
    ),
)
RULES = [HOISTED_CALL]

# the refusal with no further reason (analysis/statements.py)
PLAIN_REFUSAL = re.compile(
    r"`(.+)\(\.\.\.\)` is a Python call in graph-building code: it would run on every call of the generated function "
    r"\(TF1 ran it once, while building the graph\)$"
)
# builtins that read only their arguments and change nothing (a call of one may run after the hoisted call)
_READING_BUILTINS = frozenset(
    {"len", "int", "float", "bool", "str", "list", "tuple", "dict", "set", "range", "abs", "min", "max", "sum", "round", "zip"}
)
# methods that compute a new value from their object and arguments (NumPy arrays, strings),
# reading no TF graph: a TF op built before such a call changes nothing it returns (a dict's
# ``values()`` is not one: a view of the dict, read when the graph code runs)
_READING_METHODS = frozenset(
    {"reshape", "astype", "copy", "tolist", "ravel", "flatten", "squeeze", "transpose", "format", "join", "lower", "upper", "strip"}
)
_DEFERRED = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Decorator, cst.Param)


@dataclass
class Hoisted:
    """The module with the calls hoisted (None if none is), the notes to report (on the
    original's lines), and the lines the new statements take (to map lines back)."""

    source: str | None
    notes: list[tuple[int, int, str]] = field(default_factory=list)
    inserted: list[tuple[int, int]] = field(default_factory=list)  # (first new line, number of new lines), in the rewritten module

    def map_line(self, line: int) -> int:
        """A line of the rewritten module → the original's line (a new statement's: its statement's)."""
        before = 0
        for start, count in sorted(self.inserted):
            if line >= start + count:
                before += count
            elif line >= start:
                return start - before
        return line - before


def hoist(module: cst.Module, imports: TfImports, refused: set[tuple[int, int, str]]) -> Hoisted | None:
    """The module with each call refused at ``refused`` (line, 1-based column, the called
    function as the refusal writes it: calls chained on one another begin at one place) that
    may be computed before its statement computed there; None if none may."""
    positions = Positions(module)
    reads, binds = read_and_bound(module)
    used, bound = {*reads, *binds}, set(binds)
    plans: dict[int, list[tuple[cst.Call, str]]] = {}  # id of the statement line -> its calls and new names
    notes = []
    for line_node in find_all(module, cst.SimpleStatementLine):
        statement = cst.ensure_type(line_node, cst.SimpleStatementLine)
        for call in find_all(statement, cst.Call):
            start = positions.get(call)
            call = cst.ensure_type(call, cst.Call)
            if start is None or (start[0], start[1] + 1, module.code_for_node(call.func)) not in refused:
                continue
            if not _hoistable(statement, call, imports, positions, bound):
                continue
            name = _fresh(_base(call), used)
            used.add(name)
            plans.setdefault(id(statement), []).append((call, name))
            notes.append(
                (start[0], start[1] + 1, f"`{module.code_for_node(call.func)}(...)` computed once before its statement, as `{name}`")
            )
    if not plans:
        return None
    inserted, shift = [], 0
    for line_node in find_all(module, cst.SimpleStatementLine):
        start = positions.get(line_node) if id(line_node) in plans else None
        if start is not None:
            count = sum(module.code_for_node(call).count("\n") + 1 for call, _ in plans[id(line_node)])
            inserted.append((start[0] + shift, count))  # where the new lines begin in the rewritten module
            shift += count
    rewritten = cst.ensure_type(module.visit(_Hoister(plans)), cst.Module)
    return Hoisted(rewritten.code, sorted(notes), inserted)


def _hoistable(statement: cst.SimpleStatementLine, call: cst.Call, imports: TfImports, positions: Positions, bound: set[str]) -> bool:
    """May ``call`` be computed by a statement of its own just before ``statement``?"""
    if len(statement.body) != 1 or any(_calls_tf(imports, c) for c in find_all(call, cst.Call)):
        return False
    small = statement.body[0]
    if isinstance(small, cst.Assign) and small.value is call and all(isinstance(t.target, cst.Name) for t in small.targets):
        return False  # ``name = f(x)``: computed by a statement of its own already
    path = _path(statement, call)
    begin = positions.get(call)
    if path is None or begin is None:
        return False
    for parent, child in zip(path, path[1:]):
        if isinstance(parent, _DEFERRED):
            return False
        if isinstance(parent, cst.IfExp) and child is not parent.test:
            return False
        if isinstance(parent, cst.BooleanOperation) and child is parent.right:
            return False
    # Python evaluates left to right, a call after its function and arguments: the calls run
    # before this one are those that neither contain it nor lie in it and begin before it
    # (and an assignment's targets, run after its value: counted in, the safe side)
    skipped = {id(c) for c in find_all(call, cst.Call)} | {id(node) for node in path}
    targets = {id(c) for t in _targets(statement.body[0]) for c in find_all(t, cst.Call)}
    blind = all(_graph_blind(cst.ensure_type(c, cst.Call), bound) for c in find_all(call, cst.Call))
    for other in find_all(statement, cst.Call):
        if id(other) in skipped:
            continue
        start = positions.get(other)
        if id(other) in targets or start is None or start < begin:
            other = cst.ensure_type(other, cst.Call)
            if _reading_builtin(other, bound) or (blind and _calls_tf(imports, other)):
                continue  # changes nothing the call reads (a TF call builds ops: the graph, which it does not read)
            return False
    return True


def _reading_builtin(call: cst.Call, bound: set[str]) -> bool:
    return isinstance(call.func, cst.Name) and call.func.value in _READING_BUILTINS and call.func.value not in bound


def _graph_blind(call: cst.Call, bound: set[str]) -> bool:
    """Does ``call`` compute from its arguments alone, reading no TF graph: a reading builtin,
    a NumPy or ``math`` function, a string literal's method (``'m_{}'.format(i)``) or one of
    the reading methods of arrays and strings?"""
    func = call.func
    if _reading_builtin(call, bound):
        return True
    if not isinstance(func, cst.Attribute):
        return False
    root = func.value
    while isinstance(root, cst.Attribute):
        root = root.value
    if isinstance(root, cst.Name) and root.value in ("np", "numpy", "math"):
        return True
    if isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    return func.attr.value in _READING_METHODS


def _calls_tf(imports: TfImports, call: cst.CSTNode) -> bool:
    func = cst.ensure_type(call, cst.Call).func
    return isinstance(func, (cst.Name, cst.Attribute)) and imports.canonical(func) is not None


def _path(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes from ``root`` down to ``target``, both included."""
    if root is target:
        return [root]
    for child in root.children:
        found = _path(child, target)
        if found is not None:
            return [root, *found]
    return None


def _targets(small: cst.BaseSmallStatement) -> list[cst.CSTNode]:
    if isinstance(small, cst.Assign):
        return [t.target for t in small.targets]
    if isinstance(small, (cst.AugAssign, cst.AnnAssign)):
        return [small.target]
    return []


def _base(call: cst.Call) -> str:
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else "call"
    return f"{name.strip('_') or 'call'}_value"


def _fresh(base: str, used: set[str]) -> str:
    name, n = base, 1
    while name in used:
        n += 1
        name = f"{base}_{n}"
    return name


class _Hoister(cst.CSTTransformer):
    """Writes each planned call as its name and puts ``name = call`` before its statement
    (the statement's leading comments go first)."""

    def __init__(self, plans: dict[int, list[tuple[cst.Call, str]]]) -> None:
        self.plans = plans
        self.names = {id(call): name for calls in plans.values() for call, name in calls}

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        name = self.names.get(id(original_node))
        if name is None:
            return updated_node
        return cst.Name(name, lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        return updated_node.with_changes(body=self._with_hoisted(original_node.body, updated_node.body))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=self._with_hoisted(original_node.body, updated_node.body))

    def _with_hoisted(self, original, updated) -> list:
        body: list = []
        for before, after in zip(original, updated):
            calls = self.plans.get(id(before))
            if not calls:
                body.append(after)
                continue
            for index, (call, name) in enumerate(calls):
                body.append(
                    cst.SimpleStatementLine(
                        [cst.Assign([cst.AssignTarget(cst.Name(name))], call.with_changes(lpar=[], rpar=[]))],
                        leading_lines=after.leading_lines if index == 0 else (),
                    )
                )
            body.append(after.with_changes(leading_lines=()))
        return body
