"""Ops a method builds from the constructor's graph at every call, then runs → built once,
in the constructor, as TF1 would have computed them all the same.

DeepVIV's ``predict_drag_lift`` (the TFM309 pattern)::

    def predict_drag_lift(self, t_cyl):
        ...                                                    # NumPy inputs
        u_x_pred = tf.gradients(self.u_pred, self.x_tf)[0]     # new ops at each call
        tf_dict = {self.t_tf: t_star, self.x_tf: x_star, self.y_tf: y_star}
        p_star, u_x_star = self.sess.run([self.p_pred, u_x_pred], tf_dict)

Each call adds nodes to the graph (it grows until memory runs out), but what the run
computes is the same as if ``u_x_pred`` had been built once: the new ops read only the
constructor's tensors, which no code changes after the constructor, and they are pure
(no variable, no random draw, no state), so a fresh copy and a reused one give the same
values for the same feed.  The module is therefore first rewritten, TF1 to TF1, with such
statements moved to the end of ``__init__`` (``self.u_x_pred = tf.gradients(self.u_pred,
self.x_tf)[0]``) and the run fetching the attribute; the migration of that module then
computes them in the run's generated function, traced once per input signature.

A statement moves only when all of this holds (else nothing moves, and TFM309 stays):

- the class is a module-level class whose ``__init__`` makes a session on ``self``, and
  the method is a plain def of it (no decorator), which the constructor does not name,
  that runs that session;
- the statement is one of the method's own top-level statements, ``name = expression``;
- the expression calls TF ops only (no variable, random, stateful, control-flow,
  session or placeholder call, nothing ``is_unsupported_call`` names) and reads only
  ``self.`` attributes that ``__init__`` binds at its top level and nothing else in the
  module binds or changes in place (under any object; ``setattr`` anywhere refuses all), the TF module, and
  names bound by earlier moved statements; it reads at least one attribute or such name;
- ``name`` is bound once in the method and read only in the fetches of its session runs
  or by later moved statements (not returned, passed on or printed, which would hand
  out a graph tensor);
- ``__init__`` does not end with ``return``; the attribute's name (``name``, else
  ``<method>_<name>``) is no attribute anywhere in the module.

If the migrated module still keeps its graph on TF1, the original is migrated instead.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import cast

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.catalogue import (
    CONFIG_CALLS,
    CONTROL_FLOW_CALLS,
    OPERATION_CALLS,
    PLACEHOLDER_CALLS,
    SESSION_CALLS,
    is_graph_op,
    is_unsupported_call,
    makes_variables,
)
from tf2migrate.analysis.names import MUTATING_METHODS, assigned_names, read_and_bound, self_attribute
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.traversal import find_all, preorder

PER_CALL_OPS = Rule(
    "TFM116",
    "per-call-ops-built-once",
    "Ops a method built from the constructor's graph at every call → computed by the generated function of its run.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Moves the pure ops a method builds from the constructor's tensors before running them "
    "(`u_x = tf.gradients(self.u_pred, self.x_tf)[0]; self.sess.run([self.p_pred, u_x], feed)`) into the "
    "constructor's graph, so that the run converts like any other: one generated function computes them.",
    why="TF1 added new nodes to the graph at every call (ResourceExhaustedError in long runs), but each copy "
    "computed the same values from the same feed: the ops read only the constructor's tensors and hold no "
    "state. The conditions are in `tf2migrate/rewrites/per_call_ops.py`; otherwise TFM309 keeps the graph on TF1.",
    example="def grad_u(self, X):\n    g = tf.gradients(self.y, self.x)[0]\n    return self.sess.run(g, {self.x: X})",
    instead="def grad_u(self, X):\n    return self.compute_g(x=X).numpy()   # the tape in the generated method",
    invalid=(
        "import tensorflow as tf\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None])\n"
        "        self.y = self.x * self.x\n"
        "        self.sess = tf.Session()\n"
        "\n"
        "    def grad(self, x):\n"
        "        g = tf.gradients(self.y, self.x)[0]\n"
        "        return self.sess.run(g, {self.x: x})\n"
        "\n"
        "print(M().grad([1.0, 2.0]))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None])\n"
        "        self.y = self.x * self.x\n"
        "        self.sess = tf.Session()\n"
        "\n"
        "    def grad(self, x, w):\n"
        "        g = tf.gradients(self.y, self.x, grad_ys=w)[0]   # reads a Python value of the call\n"
        "        return self.sess.run(g, {self.x: x})\n",
    ),
)
RULES = [PER_CALL_OPS]

# TF calls whose fresh copy may differ from a reused one, or that are no pure op
_IMPURE_PARTS = ("random", "assign", "scatter", "dropout", "multinomial", "truncated_normal", "py_func", "numpy_function")
_IMPURE_PARTS_CASED = ("Print", "print", "Variable", "variable", "initializer", "summary")


@dataclass
class Hoisted:
    """The module's text with the moved statements, the original line each of its lines
    comes from, the attributes made (their findings are about the original's locals) and
    the notes to report, on the original's lines."""

    source: str
    lines: list[int]  # 1-based original line of each line of ``source`` (index 0: line 1)
    attributes: set[str] = field(default_factory=set)
    notes: list[tuple[int, int, str]] = field(default_factory=list)  # (line, 1-based column, message)
    # lines of ``source`` (1-based) starting a moved statement: how far right of the
    # original's its value starts (``self.u_x = `` for ``u_x = ``, another indentation)
    shifts: dict[int, int] = field(default_factory=dict)

    def map_line(self, line: int) -> int:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else line

    def map_column(self, line: int, column: int) -> int:
        return max(1, column - self.shifts.get(line, 0))


@dataclass
class _Move:
    method: cst.FunctionDef
    statement: cst.SimpleStatementLine
    name: str
    fetches: tuple[cst.BaseExpression, ...]  # of the method's session runs, where the name is read
    attribute: str = ""


def hoist(module: cst.Module, imports: TfImports) -> Hoisted | None:
    """The module with every movable per-call statement moved; None when there is none."""
    if any(m.matches(c.func, m.Name("setattr")) for c in find_all(module, cst.Call) if isinstance(c, cst.Call)):
        return None
    attributes_anywhere = {n.attr.value for n in find_all(module, cst.Attribute) if isinstance(n, cst.Attribute)}
    moves: dict[int, tuple[cst.FunctionDef, list[_Move]]] = {}  # by class id: (its __init__, the moves)
    for cls in module.body:
        if not isinstance(cls, cst.ClassDef):
            continue
        init = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
        if init is None or _ends_with_return(init):
            continue
        bound = _attributes_bound(init)
        sessions = {name for name, value in bound.items() if isinstance(value, cst.Call) and imports.call_name(value) in SESSION_CALLS}
        if not sessions:
            continue
        elsewhere = _attributes_bound_outside(module, init)
        stable = {name for name in bound if name not in elsewhere}
        found: list[_Move] = []
        called_in_init = {a.attr.value for a in find_all(init, cst.Attribute) if isinstance(a, cst.Attribute)}
        for method in cls.body.body:
            # (a method the constructor calls may run before the attributes have their last values)
            if (
                isinstance(method, cst.FunctionDef)
                and method is not init
                and not method.decorators
                and method.name.value not in called_in_init
            ):
                found += _moves(imports, method, sessions, stable)
        for move in found:
            for candidate in (move.name, f"{move.method.name.value}_{move.name}"):
                if candidate not in attributes_anywhere:
                    move.attribute = candidate
                    attributes_anywhere.add(candidate)
                    break
        if found and all(move.attribute for move in found):
            moves[id(cls)] = (init, found)
    if not moves:
        return None
    return _rewritten(module, moves)


def _ends_with_return(init: cst.FunctionDef) -> bool:
    last = init.body.body[-1] if init.body.body else None
    return isinstance(last, cst.SimpleStatementLine) and any(isinstance(s, cst.Return) for s in last.body)


def _attributes_bound(init: cst.FunctionDef) -> dict[str, cst.BaseExpression | None]:
    """``self.`` attributes the constructor's top-level statements bind (by attribute name),
    with the value of a single-target assignment."""
    bound: dict[str, cst.BaseExpression | None] = {}
    for statement in init.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            for name in assigned_names(cst.SimpleStatementLine([small])):
                if name.startswith("self."):
                    single = isinstance(small, cst.Assign) and len(small.targets) == 1 and self_attribute(small.targets[0].target) == name
                    bound[name[len("self.") :]] = cst.ensure_type(small, cst.Assign).value if single else None
    return bound


def _attributes_bound_outside(module: cst.Module, init: cst.FunctionDef) -> set[str]:
    """Attribute names (of any object) bound, deleted or changed anywhere but at the top of
    the constructor: such an attribute may hold another value when a method runs."""
    top = {id(n) for s in init.body.body if isinstance(s, cst.SimpleStatementLine) for n in preorder(s)}
    names: set[str] = set()
    for node in preorder(module):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)) and id(node) not in top:
            names |= {a.attr.value for a in find_all(node.target, cst.Attribute) if isinstance(a, cst.Attribute)}
        elif isinstance(node, cst.Del):
            names |= {a.attr.value for a in find_all(node.target, cst.Attribute) if isinstance(a, cst.Attribute)}
        elif isinstance(node, (cst.For, cst.CompFor, cst.WithItem)):
            target = node.target if not isinstance(node, cst.WithItem) else (node.asname.name if node.asname else None)
            if target is not None:
                names |= {a.attr.value for a in find_all(target, cst.Attribute) if isinstance(a, cst.Attribute)}
        elif isinstance(node, cst.Call) and id(node) not in top:
            # ``model.grads.append(g)``: the object changes in place
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS and isinstance(func.value, cst.Attribute):
                names.add(func.value.attr.value)
    return names


def _moves(imports: TfImports, method: cst.FunctionDef, sessions: set[str], stable: set[str]) -> list[_Move]:
    """The statements of ``method`` that move (see the module's docstring)."""
    fetches = _fetches(method, sessions)
    if not fetches:
        return []
    in_fetches = {id(n) for fetch in fetches for n in preorder(fetch)}
    candidates: list[_Move] = []
    for statement in method.body.body:
        name = _single_name_assignment(statement)
        if name is None:
            continue
        assign = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Assign)
        if _pure(imports, assign.value, stable, {c.name for c in candidates}):
            candidates.append(_Move(method, cst.ensure_type(statement, cst.SimpleStatementLine), name, tuple(fetches)))
    proposed = {c.name for c in candidates}
    changed = True
    while changed:
        changed = False
        kept = {c.name for c in candidates}
        values = {id(n) for c in candidates for n in preorder(cst.ensure_type(c.statement.body[0], cst.Assign).value)}
        for candidate in list(candidates):
            reads, _ = read_and_bound(cst.ensure_type(candidate.statement.body[0], cst.Assign).value)
            if not _used_only_in(method, candidate, in_fetches | values) or any(r in proposed and r not in kept for r in reads):
                candidates.remove(candidate)
                changed = True
    fetched = {n.value for fetch in fetches for n in find_all(fetch, cst.Name) if isinstance(n, cst.Name)}
    return candidates if any(c.name in fetched for c in candidates) else []


def _fetches(method: cst.FunctionDef, sessions: set[str]) -> list[cst.BaseExpression]:
    """The fetch arguments of ``self.<session>.run(...)`` calls in the method."""
    found = []
    for call in find_all(method, cst.Call):
        assert isinstance(call, cst.Call)
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "run"
            and (self_attribute(func.value) or "")[len("self.") :] in sessions
            and call.args
            and call.args[0].keyword is None
            and not call.args[0].star
        ):
            found.append(call.args[0].value)
    return found


def _single_name_assignment(statement: cst.BaseStatement | cst.BaseSmallStatement) -> str | None:
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and isinstance(statement.body[0], cst.Assign)):
        return None
    targets = statement.body[0].targets
    return targets[0].target.value if len(targets) == 1 and isinstance(targets[0].target, cst.Name) else None


def _pure(imports: TfImports, value: cst.BaseExpression, stable: set[str], moved: set[str]) -> bool:
    """Pure TF ops of the constructor's stable attributes and of moved names only."""
    calls = [c for c in find_all(value, cst.Call) if isinstance(c, cst.Call)]
    if not calls or find_all(value, (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp, cst.NamedExpr)):
        return False
    for call in calls:
        name = imports.call_name(call)
        if name is None or not _pure_op(name):
            return False
    reads, _ = read_and_bound(value)
    attributes = [r for r in reads if r.startswith("self.")]
    tf_roots = {alias for alias, path in imports.aliases.items() if path == ""} | set(imports.aliases)
    return bool(attributes or set(reads) & moved) and all(
        (r.startswith("self.") and r[len("self.") :] in stable) or r in moved or r in tf_roots or r in ("True", "False", "None")
        for r in reads
    )


def _pure_op(name: str) -> bool:
    lowered = name.lower()
    return (
        is_graph_op(name)
        and not makes_variables(name)
        and not is_unsupported_call(name)
        and name not in PLACEHOLDER_CALLS | SESSION_CALLS | CONFIG_CALLS | OPERATION_CALLS | CONTROL_FLOW_CALLS
        and not any(part in lowered for part in _IMPURE_PARTS)
        and not any(part in name for part in _IMPURE_PARTS_CASED)
    )


def _used_only_in(method: cst.FunctionDef, move: _Move, allowed: set[int]) -> bool:
    """Is ``move.name`` bound by its statement only, and read only inside ``allowed`` nodes
    (the session runs' fetches, the values of moved statements)?"""
    target = cst.ensure_type(move.statement.body[0], cst.Assign).targets[0].target
    not_variables = {id(n.attr) for n in find_all(method, cst.Attribute) if isinstance(n, cst.Attribute)}
    not_variables |= {id(a.keyword) for a in find_all(method, cst.Arg) if isinstance(a, cst.Arg) and a.keyword is not None}
    for node in find_all(method, m.Name(move.name)):
        if node is target or id(node) in not_variables:
            continue
        if id(node) not in allowed:
            return False
    return True


class _Renamer(cst.CSTTransformer):
    """Moved names → ``self.<attribute>`` inside the ``zones`` (original nodes: the session
    runs' fetches, the moved values); moved statements removed from their method, and
    appended to the constructor's body."""

    def __init__(
        self,
        renames: dict[int, dict[str, str]],
        zones: set[int],
        removed: set[int] = frozenset(),  # type: ignore[assignment]
        appended: dict[int, list[cst.SimpleStatementLine]] | None = None,
        names: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.renames = renames  # by id of the method whose names they are
        self.zones = zones
        self.removed = removed
        self.appended = appended or {}  # by id of a constructor
        self.current: list[dict[str, str]] = [names or {}]  # the names of the enclosing def
        self.depth = 0
        self.not_variables: set[int] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.current.append(self.renames.get(id(node), {}))

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.zones:
            self.depth += 1
        if isinstance(node, cst.Attribute):
            self.not_variables.add(id(node.attr))
        if isinstance(node, cst.Arg) and node.keyword is not None:
            self.not_variables.add(id(node.keyword))
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # (the base's return type)
        updated = super().on_leave(original_node, updated_node)
        inside = self.depth > 0
        if id(original_node) in self.zones:
            self.depth -= 1
        names = self.current[-1]
        if inside and isinstance(original_node, cst.Name) and original_node.value in names and id(original_node) not in self.not_variables:
            return cst.Attribute(value=cst.Name("self"), attr=cst.Name(names[original_node.value]))
        return updated

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.current.pop()
        body = [s for s, o in zip(updated_node.body.body, original_node.body.body) if id(o) not in self.removed]
        body += self.appended.get(id(original_node), [])
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))


def _rewritten(module: cst.Module, moves: dict[int, tuple[cst.FunctionDef, list[_Move]]]) -> Hoisted:
    positions = Positions(module)
    all_moves = [move for _, found in moves.values() for move in found]
    renames: dict[int, dict[str, str]] = {}
    zones: set[int] = set()
    for move in all_moves:
        renames.setdefault(id(move.method), {})[move.name] = move.attribute
        zones |= {id(fetch) for fetch in move.fetches}
    appended: dict[int, list[cst.SimpleStatementLine]] = {}
    origin: dict[str, int] = {}  # a stripped line of an appended statement → the original statement's line
    notes: list[tuple[int, int, str]] = []
    for init, found in moves.values():
        statements: list[cst.SimpleStatementLine] = []
        names = {move.name: move.attribute for move in found}
        for move in found:
            assign = cst.ensure_type(move.statement.body[0], cst.Assign)
            value = cast(cst.BaseExpression, assign.value.visit(_Renamer({}, {id(assign.value)}, names=names)))
            target = cst.AssignTarget(cst.Attribute(cst.Name("self"), cst.Name(move.attribute)))
            comments = [line for line in move.statement.leading_lines if line.comment is not None]
            line = cst.SimpleStatementLine([cst.Assign([target], value)], leading_lines=comments)
            statements.append(line)
            start = positions.get(move.statement)
            assert start is not None
            origin.update(dict.fromkeys((text.strip() for text in module.code_for_node(line).splitlines()), start[0]))
            notes.append(
                (
                    start[0],
                    start[1] + 1,
                    f"`{move.name}` is built by `{move.method.name.value}` at every call from the constructor's tensors "
                    "(TF1 grew the graph each time): its run's generated function computes it, the same values",
                )
            )
        appended[id(init)] = statements
    removed = {id(move.statement) for move in all_moves}
    source = module.visit(_Renamer(renames, zones, removed, appended)).code
    back = {move.attribute: move.name for move in all_moves}
    lines = _line_map(module.code, source, origin, back)
    original_lines, new_lines = module.code.splitlines(), source.splitlines()
    shifts = {}
    for index, text in enumerate(new_lines):
        before = original_lines[lines[index] - 1]
        if text.strip() != before.strip() and text.lstrip().startswith("self.") and " = " in text and " = " in before:
            shifts[index + 1] = text.index(" = ") - before.index(" = ")
    return Hoisted(source, lines, {move.attribute for move in all_moves}, notes, shifts)


def _line_map(old: str, new: str, origin: dict[str, int], back: dict[str, str]) -> list[int]:
    """The original line of each line of ``new``: unchanged lines, and lines whose only
    change is a moved name read as ``self.<attribute>``, map to theirs; an appended line to
    the statement it was moved from."""
    pattern = re.compile(r"\bself\.(" + "|".join(map(re.escape, back)) + r")\b")
    old_lines, new_lines = old.splitlines(), new.splitlines()
    as_before = [pattern.sub(lambda match: back[match.group(1)], line) for line in new_lines]
    mapped = [0] * len(new_lines)
    matcher = difflib.SequenceMatcher(a=old_lines, b=as_before, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(j2 - j1):
                mapped[j1 + k] = i1 + k + 1
    last = 1
    for index, line in enumerate(new_lines):
        if not mapped[index] or (as_before[index] != line and line.strip() in origin):  # (a moved statement's first line)
            mapped[index] = origin.get(line.strip(), last)
        last = mapped[index]
    return mapped
