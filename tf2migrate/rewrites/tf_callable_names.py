"""A call through a name bound to a TF function → the call of that TF function.

Tutorial code names its builders::

    activation = tf.nn.softplus
    h1 = activation(tf.matmul(x, W1) + b1)

    my_dense_layer = partial(tf.layers.dense, activation=tf.nn.elu, kernel_initializer=he_init)
    hidden1 = my_dense_layer(X, n_hidden1)

To the analysis ``activation(...)`` is a Python call in graph-building code, refused (TFM306)
because it would run at every call of a generated function while TF1 ran it once; yet what
it runs is a TF function, and a TF call is what the analysis judges by its own rules (an op
built at each trace, as TF1 built it once; a ``tf.layers.dense`` converted to a Keras layer).
When the name provably stands for the TF function at every such call, the module is first
rewritten, TF1 to TF1, with each call written as the call it makes (``tf.nn.softplus(...)``;
``tf.layers.dense(X, n_hidden1, activation=tf.nn.elu, kernel_initializer=he_init)``), and
that module is migrated like any other (migrate.py keeps it only if its graph then
converts).  A partial's keywords are merged as ``functools.partial`` merges them: the call's
own keywords win, its positional arguments come first; the call's arguments keep their
order of evaluation (the partial's keywords, values that evaluate to the same object
wherever they are read, go between its positional and keyword arguments).

Only when all of this holds (else the refusal stays, naming the call):

- every binding of the name in the module (no other assignment, ``for``, ``import``, ``def``,
  parameter, ``global``, ``del``) is ``name = tf.X`` or ``name = partial(tf.X, k=v, ...)``
  alone on its line, directly in its scope's body or in ``with`` blocks of it (not under an
  ``if``, a loop or a ``try``: it ran before any later statement of its scope), not in a
  class body;
- a name bound several times (a notebook's sections each bind ``activation = tf.nn.elu`` or
  ``my_dense_layer = partial(...)`` again) is followed binding by binding: a read sees the
  innermost scope binding the name (a function binding it holds its own local, Python's
  rule), and in that scope the last binding before it, since the bindings are
  unconditional statements of the scope's straight-line body and nothing between two of them
  binds the name; a read from a function nested in that scope is followed only when the
  scope binds the name once (when the nested function runs is not followed);
- ``tf.X`` is a function or class of the TF1 API (a module is not: ``nn = tf.nn``);
- ``partial`` is ``functools.partial`` (``from functools import partial`` or
  ``functools.partial``, that name bound by such imports alone); the partial takes keywords only (a
  positional argument would shift the call's arguments: not followed), and each keyword's
  value is a literal, ``True``/``False``/``None``, a list or tuple of those (``kernel_size=[3, 3]``),
  a TF attribute (``tf.nn.elu``) or a
  variable that is the same object at the call as when the partial was made: bound once in the
  module, or bound only by unconditional statements of the partial's scope, none of them between
  the partial and the call, the call in that scope (``init = tf.ones_initializer()`` again in
  each section);
  a value that calls anything (``partial(tf.layers.dense, kernel_initializer=
  tf.variance_scaling_initializer())``: one initializer for all, a new one per call once
  written out) is not followed;
- every read of the name is such a call, after the binding, in its scope or a function
  nested in it, with no ``*args``/``**kwargs`` (``**kwargs`` could repeat a partial's
  keyword: a TypeError the merged call would not raise the same way).

The binding of a partial is then read by nothing and is dropped (its ``tf.layers.dense``
would stay a TF1 reference); so is a plain alias of a function the renamer keeps on
``tf.compat.v1`` (``dense = tf.layers.dense``: with Keras 3 that reference raises at import);
another plain alias binding stays (``activation = tf.nn.softplus``: a reference the renamer
writes in TF2).  A module-level partial that files of the run
building TF1 graphs may import (analysis/project.py, ``tf1_callers``) is kept: its
``tf.layers.dense`` then stays on ``tf.compat.v1``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.names import read_and_bound
from tf2migrate.analysis.tf_api import tf2_target
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.data.tf_symbols import DIFFERENT_IN_TF2, RENAMES, SAME_IN_TF2, V1_ONLY
from tf2migrate.rewrites.lambda_helpers import PYTHON_CALL
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.traversal import find_all, walk

TF_CALLABLE_NAME = Rule(
    "TFM137",
    "tf-callable-name-call",
    "A call through a name bound to a TF function (or a functools.partial of one) → the call of that function.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Writes `activation(x)` after `activation = tf.nn.softplus` as `tf.nn.softplus(x)`, and `my_dense_layer(X, n)` after "
    "`my_dense_layer = partial(tf.layers.dense, activation=tf.nn.elu)` as `tf.layers.dense(X, n, activation=tf.nn.elu)`, when "
    "graph code calls the name and the call was refused as a Python call in graph-building code; the TF call is then judged "
    "by the rules for TF calls (ops built in the generated functions, layers converted as any).",
    why="Each binding of the name, before the calls it reaches, is the TF function (a partial of it with keywords whose values "
    "are the same objects at every call): a name bound once, or bound again by unconditional statements of a straight-line "
    "scope (a notebook's sections), where a call runs the last binding before it. The conditions are in "
    "`tf2migrate/rewrites/tf_callable_names.py`.",
    example="act = tf.nn.softplus\ny = act(tf.matmul(x, w))",
    instead="act = tf.nn.softplus\n# graph code: y = tf.nn.softplus(tf.matmul(x, w)), moved into the generated function",
    invalid=(
        "import tensorflow as tf\n"
        "act = tf.nn.softplus\n"
        "w = tf.Variable(1.0)\n"
        "y = act(w * 2.0)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(y))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "act = tf.nn.softplus\n"
        "if flag:\n"
        "    act = tf.nn.relu\n"
        "w = tf.Variable(1.0)\n"
        "y = act(w * 2.0)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(y))\n",
    ),
)
RULES = [TF_CALLABLE_NAME]

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


@dataclass
class Resolved:
    """The module with the calls written as TF calls (None if no name is followed), the
    notes to report (on the original's lines), the original lines of each dropped binding
    (to map lines back), the names followed (-> their TF function, as written) and why each
    other name bound to a TF function is not."""

    source: str | None
    notes: list[tuple[int, int, str]] = field(default_factory=list)  # (line, 1-based column, message)
    dropped: list[tuple[int, int]] = field(default_factory=list)  # (first line, number of lines)
    followed: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    def map_line(self, line: int) -> int:
        """A line of the rewritten module → the original's line."""
        for start, count in sorted(self.dropped):
            if line >= start:
                line += count
        return line


@dataclass
class _Binding:
    statement: cst.SimpleStatementLine
    scopes: tuple[int, ...]  # ids of the scopes it is in, outermost first
    target: cst.Name
    function: cst.BaseExpression  # the TF function, as written
    keywords: list[cst.Arg]  # a partial's keywords
    line: int = 0  # its first line: the order of a scope's straight-line statements


class _Collector(cst.CSTVisitor):
    """The bindings of ``names`` (``name = ...`` statements) and every ``Name`` of them,
    with the scopes each is in, in one pass over the module."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.scopes: list[int] = []
        # per scope, how many enclosing compound statements other than ``with`` blocks
        self.conditional: list[int] = [0]
        self.statements: dict[str, list[tuple[cst.SimpleStatementLine, tuple[int, ...], bool]]] = {}
        self.reads: dict[str, list[tuple[cst.Name, tuple[int, ...]]]] = {}
        self.called: dict[int, cst.Call] = {}  # id of a called Name -> its call
        self.call_scopes: dict[int, tuple[int, ...]] = {}  # id of a call of a name -> the scopes it is in

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Attribute) or (isinstance(node, cst.Arg) and node.keyword is not None):
            walk(node.value, self)  # ``x.name`` and ``f(name=...)`` name no variable
            return False
        if isinstance(node, _SCOPES):
            self.scopes.append(id(node))
            self.conditional.append(1 if isinstance(node, cst.ClassDef) else 0)  # a class body binds no visible name
        elif isinstance(node, cst.BaseCompoundStatement) and not isinstance(node, cst.With):
            self.conditional[-1] += 1
        elif isinstance(node, cst.SimpleStatementLine):
            name = _assigned_name(node)
            if name in self.names:
                self.statements.setdefault(name, []).append((node, tuple(self.scopes), self.conditional[-1] > 0))
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in self.names:
            self.called[id(node.func)] = node
            self.call_scopes[id(node)] = tuple(self.scopes)
        elif isinstance(node, cst.Name) and node.value in self.names:
            self.reads.setdefault(node.value, []).append((node, tuple(self.scopes)))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, _SCOPES):
            self.scopes.pop()
            self.conditional.pop()
        elif isinstance(original_node, cst.BaseCompoundStatement) and not isinstance(original_node, cst.With):
            self.conditional[-1] -= 1


def resolve(module: cst.Module, imports: TfImports, names: set[str], keep_module_bindings: bool) -> Resolved | None:
    """The module with the calls of ``names`` written as the TF calls they make, where each
    name provably stands for a TF function at every call, and for each name bound to a TF
    function (or a partial of one) that is not followed, why; None if no name is either."""
    collector = _Collector(names)
    walk(module, collector)  # (libcst's visit rebuilt every node of the module: this reads them)
    positions = Positions(module)
    calls: dict[int, tuple[_Binding, cst.Call]] = {}
    dropped: dict[int, _Binding] = {}
    notes: list[tuple[int, int, str]] = []
    reasons: dict[str, str] = {}
    followed: dict[str, str] = {}
    for name in sorted(names):
        bindings = _bindings(module, imports, name, collector, positions)
        if bindings is None:
            continue
        if isinstance(bindings, str):
            reasons[name] = bindings
            continue
        uses = [(n, s) for n, s in collector.reads.get(name, []) if all(n is not b.target for b in bindings)]
        reached = _reaching(uses, bindings, collector, positions)
        if isinstance(reached, str):
            reasons[name] = reached
            continue
        why = _keywords_refusal(module, reached, positions, collector.call_scopes)
        if why is not None:
            reasons[name] = why
            continue
        for call, binding in reached:
            calls[id(call)] = (binding, call)
        wholes = {module.code_for_node(b.function) for b in bindings}
        followed[name] = " or ".join(f"`{w}`" for w in sorted(wholes))[1:-1]
        for binding in bindings:
            whole = module.code_for_node(binding.function)
            if (binding.keywords or _stays_tf1(imports, binding.function)) and not (keep_module_bindings and len(binding.scopes) == 0):
                dropped[id(binding.statement)] = binding
            with_keywords = " with its keywords" if binding.keywords else ""
            if len(bindings) == 1:
                notes.append(
                    (binding.line, _column(positions, binding), f"calls of `{name}` are written as calls of `{whole}`{with_keywords}")
                )
            else:
                notes.append(
                    (
                        binding.line,
                        _column(positions, binding),
                        f"calls of `{name}` this binding reaches (up to its next one) are written as calls of `{whole}`{with_keywords}",
                    )
                )
    if not calls:
        return Resolved(None, reasons=reasons) if reasons else None
    ranges = []
    for binding in dropped.values():
        first = positions.get(binding.statement)
        lines = module.code_for_node(binding.statement.with_changes(leading_lines=())).count("\n")
        if first is not None:
            ranges.append((first[0], lines))
    rewritten = module.visit(_Rewriter(calls, set(dropped)))
    return Resolved(cst.ensure_type(rewritten, cst.Module).code, notes, ranges, followed, reasons)


def _bindings(
    module: cst.Module, imports: TfImports, name: str, collector: _Collector, positions: Positions
) -> list[_Binding] | str | None:
    """The bindings of ``name``, if each is ``name = tf.X`` or a partial of ``tf.X`` that ran
    before the rest of its scope (and the name is bound by nothing else); why not, if a
    binding of it is one of those; None if none is."""
    found = collector.statements.get(name, [])
    tf_bound = [f for f in found if _is_tf_callable(imports, _value(f[0])) or _partial_of_tf(module, imports, _value(f[0]))]
    if not tf_bound:
        return None
    whole = module.code_for_node(_value(tf_bound[0][0]))
    stands = f"`{name}` is bound to `{whole}`" if len(whole) <= 60 else f"`{name}` is bound to a partial of a TF function"
    if len(found) != bound_count(module, name) or not _stable_name(module, name):
        return f"{stands}, but is bound again (or is a parameter, global, deleted or read as `{name}.attribute`): which function a call runs is not proven"
    # (a star import, ``exec`` between the first binding and the last read may bind it unseen)
    first = min((start[0] for statement, _, _ in found if (start := positions.get(statement)) is not None), default=0)
    last = max((start[0] for node, _ in collector.reads.get(name, []) if (start := positions.get(node)) is not None), default=0)
    unseen = _unseen_binder(module, positions, first, last)
    if unseen is not None:
        return f"{stands}, but {unseen} after it may bind `{name}` again: which function a call runs is not proven"
    bindings = []
    for statement, scopes, conditional in found:
        if conditional:
            return f"{stands} under a branch, a loop, a `try` or in a class body: that it is bound at each call is not proven"
        if len(tf_bound) != len(found):
            return (
                f"{stands}, but is bound again to something else: which function a call runs is followed only where every "
                "binding is a TF function or a partial of one"
            )
        start = positions.get(statement)
        if start is None:
            return "its binding is not placed"
        binding = _one_binding(module, imports, statement, scopes, start[0], stands)
        if isinstance(binding, str):
            return binding
        bindings.append(binding)
    return bindings


def _one_binding(
    module: cst.Module, imports: TfImports, statement: cst.SimpleStatementLine, scopes: tuple[int, ...], line: int, stands: str
) -> _Binding | str:
    """One binding as followed, or why its partial is not."""
    assign = cst.ensure_type(statement.body[0], cst.Assign)
    target = cst.ensure_type(assign.targets[0].target, cst.Name)
    value = assign.value
    if not isinstance(value, cst.Call):
        return _Binding(statement, scopes, target, value, [], line)
    function, *keywords = value.args
    for keyword in keywords:
        if keyword.keyword is None or keyword.star:
            return f"{stands}, a partial with positional or `*`/`**` arguments: the call's arguments would shift (not followed)"
        if not _same_object(module, imports, keyword.value):
            return (
                f"{stands}; its keyword `{keyword.keyword.value}=` is not a literal, a TF attribute or a name bound once: "
                "written into each call it would be evaluated again at each (the partial evaluated it once)"
            )
        if "\n" in module.code_for_node(keyword.value):
            return f"{stands}; its keyword `{keyword.keyword.value}=` spans lines"
    return _Binding(statement, scopes, target, function.value, keywords, line)


def _column(positions: Positions, binding: _Binding) -> int:
    start = positions.get(binding.statement)
    return start[1] + 1 if start else 1


def _stays_tf1(imports: TfImports, function: cst.BaseExpression) -> bool:
    """Would the renamer write ``function`` as a TF1 reference (``tf.compat.v1.layers.dense``,
    which TF >= 2.16 with Keras 3 no longer has: the bare binding would raise at import)?"""
    path = imports.canonical(function)
    return path is not None and tf2_target(path).kind in ("compat", "removed")


def _value(statement: cst.SimpleStatementLine) -> cst.BaseExpression:
    return cst.ensure_type(statement.body[0], cst.Assign).value


def _partial_of_tf(module: cst.Module, imports: TfImports, value: cst.BaseExpression) -> bool:
    """``partial(tf.X, ...)``: functools' partial of a TF function."""
    if not (isinstance(value, cst.Call) and value.args and _is_partial(module, value.func)):
        return False
    function = value.args[0]
    return function.keyword is None and not function.star and _is_tf_callable(imports, function.value)


def _reaching(uses: list, bindings: list[_Binding], collector: _Collector, positions: Positions) -> list[tuple[cst.Call, _Binding]] | str:
    """Each read of the name as a call, with the binding it sees; why not, if a read is not
    such a call.  A read sees the innermost scope binding the name (Python's rule: a
    function binding it holds it as a local); in that scope itself, the last binding before
    it (they are all unconditional statements of the scope's straight-line body: nothing
    between runs another); from a function nested in it, the scope's binding if it has only
    one, placed before the read (when the nested function runs is not followed)."""
    name = bindings[0].target.value
    if not uses:
        return f"`{name}` is read nowhere"
    reached = []
    for use, scopes in uses:
        call = collector.called.get(id(use))
        start = positions.get(use)
        if call is None:
            return f"`{name}` is also read as a value, not only called"
        if any(arg.star for arg in call.args):
            return f"a call of `{name}` passes `*`/`**` arguments"
        enclosing = [b for b in bindings if scopes[: len(b.scopes)] == b.scopes]
        innermost = max((len(b.scopes) for b in enclosing), default=-1)
        scope = [b for b in enclosing if len(b.scopes) == innermost]
        before = [b for b in scope if start is not None and b.line < start[0]]
        if not before:
            return f"`{name}` is called before its binding or outside the function that binds it"
        if len(scopes) != innermost and len(scope) > 1:
            return (
                f"`{name}` is bound several times in a scope and called from a function nested in it: which binding a call "
                "sees depends on when that function runs (not followed)"
            )
        reached.append((call, before[-1]))
    return reached


def _keywords_refusal(
    module: cst.Module, reached: list[tuple[cst.Call, _Binding]], positions: Positions, call_scopes: dict[int, tuple[int, ...]]
) -> str | None:
    """Why a partial's keyword named by a variable may not be the same object at a call as
    when the partial was made, if it may not: the variable is bound once, or all its
    bindings are unconditional statements of the partial's scope, the call is in that scope,
    and none lies between the partial and the call."""
    keyword_names = {k.value.value for _, b in reached for k in b.keywords if isinstance(k.value, cst.Name) and not _constant(k.value)}
    if not keyword_names:
        return None
    collector = _Collector(keyword_names)
    walk(module, collector)
    for call, binding in reached:
        start = positions.get(call)
        for keyword in binding.keywords:
            if not isinstance(keyword.value, cst.Name) or _constant(keyword.value) or bound_once(module, keyword.value.value):
                continue
            variable = keyword.value.value
            found = collector.statements.get(variable, [])
            stable = (
                start is not None
                and len(found) == bound_count(module, variable)
                and _stable_name(module, variable)
                and call_scopes.get(id(call)) == binding.scopes
                and all(scopes == binding.scopes and not conditional for _, scopes, conditional in found)
                and not any(binding.line < _line(positions, statement) <= start[0] for statement, _, _ in found)
            )
            if not stable:
                return (
                    f"its keyword `{keyword.keyword.value if keyword.keyword else variable}={variable}` names a variable bound "
                    "again between the partial and a call (or elsewhere than in the partial's scope): written into the call it "
                    "would not be proven the object the partial took"
                )
    return None


def _line(positions: Positions, node: cst.CSTNode) -> int:
    start = positions.get(node)
    return start[0] if start else 0


def _assigned_name(statement: cst.SimpleStatementLine) -> str | None:
    """``name = value`` alone on its line."""
    if len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
        return None
    return assign.targets[0].target.value


def _is_tf_callable(imports: TfImports, expression: cst.BaseExpression) -> bool:
    """``tf.nn.softplus``: a function or class of the TF1 API (not a module)."""
    path = imports.canonical(expression) if isinstance(expression, (cst.Name, cst.Attribute)) else None
    return bool(path) and (path in SAME_IN_TF2 or path in DIFFERENT_IN_TF2 or path in V1_ONLY or path in RENAMES)


def _is_partial(module: cst.Module, func: cst.BaseExpression) -> bool:
    """``partial`` imported from functools, or ``functools.partial``, its name bound by such
    imports alone (a notebook imports it again in each section that uses it)."""
    if isinstance(func, cst.Name):
        local, imported = func.value, "partial"
    elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value == "partial":
        local, imported = func.value.value, None
    else:
        return False
    found = 0
    for small in find_all(module, (cst.ImportFrom, cst.Import)):
        if imported is not None and isinstance(small, cst.ImportFrom) and _dotted(small.module) == "functools":
            names = small.names if not isinstance(small.names, cst.ImportStar) else ()
            found += sum(1 for a in names if _dotted(a.name) == imported and (a.evaluated_alias or imported) == local)
        if imported is None and isinstance(small, cst.Import):
            found += sum(1 for a in small.names if _dotted(a.name) == "functools" and (a.evaluated_alias or "functools") == local)
    return found > 0 and bound_count(module, local) == found and not _declared_or_deleted(module, local)


def _dotted(node: cst.CSTNode | None) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def _same_object(module: cst.Module, imports: TfImports, value: cst.BaseExpression) -> bool:
    """Does ``value`` evaluate to the same object wherever it is read after the partial was
    made (or, for a display of constants, an equal one): a constant, a TF attribute, a name
    bound once?"""
    if _constant(value) or isinstance(value, cst.Name):
        return True  # (a variable: whether it is rebound before a call is judged at each, _keywords_refusal)
    return isinstance(value, cst.Attribute) and imports.canonical(value) is not None


def _constant(value: cst.BaseExpression) -> bool:
    """A literal, ``True``/``False``/``None``, or a list or tuple display of constants
    (``kernel_size=[3, 3]``: each call gets a new display equal to the partial's one, and TF
    functions do not mutate their arguments)."""
    if isinstance(value, _LITERALS) or (isinstance(value, cst.Name) and value.value in ("True", "False", "None")):
        return True
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        return isinstance(value.expression, (cst.Integer, cst.Float))
    return isinstance(value, (cst.List, cst.Tuple)) and all(isinstance(e, cst.Element) and _constant(e.value) for e in value.elements)


def bound_once(module: cst.Module, name: str) -> bool:
    """Bound once in the module, not a parameter anywhere, never declared global or
    nonlocal, never deleted, never read as ``name.attribute``."""
    return bound_count(module, name) == 1 and _stable_name(module, name)


def bound_count(module: cst.Module, name: str) -> int:
    """How many bindings of ``name`` the module holds (assignments, loops, imports, defs, parameters)."""
    return read_and_bound(module)[1].count(name)


def _stable_name(module: cst.Module, name: str) -> bool:
    """Not a parameter anywhere, never declared global or nonlocal, never deleted, never read
    as ``name.attribute``: its bindings are the statements that bind it."""
    if any(
        isinstance(a, cst.Attribute) and isinstance(a.value, cst.Name) and a.value.value == name for a in find_all(module, cst.Attribute)
    ):
        return False
    parameters = sum(1 for p in find_all(module, cst.Param) if isinstance(p, cst.Param) and p.name.value == name)
    return parameters == 0 and not _declared_or_deleted(module, name)


def _unseen_binder(module: cst.Module, positions: Positions, first: int, last: int) -> str | None:
    """A statement after line ``first`` and before line ``last`` that may bind any name without
    naming it: a star import (``from acts import *``), ``exec(...)``, a change of ``globals()``;
    which, if one."""
    for node in find_all(module, (cst.ImportFrom, cst.Call, cst.AssignTarget)):
        start = positions.get(node)
        if start is None or not first < start[0] < last:
            continue
        if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
            return "a star import"
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "exec":
            return "`exec(...)`"
        globals_call = m.Call(func=m.Name("globals"))
        if (isinstance(node, cst.Call) and m.matches(node.func, m.Attribute(value=globals_call))) or (
            isinstance(node, cst.AssignTarget) and m.matches(node.target, m.Subscript(value=globals_call))
        ):
            return "a change of `globals()`"
    return None


def _declared_or_deleted(module: cst.Module, name: str) -> bool:
    declared = any(
        isinstance(d, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in d.names)
        for d in find_all(module, (cst.Global, cst.Nonlocal))
    )
    return declared or any(isinstance(n, cst.Name) and n.value == name for d in find_all(module, cst.Del) for n in find_all(d, cst.Name))


class _Rewriter(cst.CSTTransformer):
    """Writes the calls out and drops the partials' bindings (their leading comments move
    to the next statement)."""

    def __init__(self, calls: dict[int, tuple[_Binding, cst.Call]], dropped: set[int]) -> None:
        self.calls = calls
        self.dropped = dropped

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        found = self.calls.get(id(original_node))
        if found is None:
            return updated_node
        binding, _ = found
        func = binding.function.deep_clone()
        if not binding.keywords:
            return updated_node.with_changes(func=func)
        args = list(updated_node.args)
        given = {arg.keyword.value for arg in args if arg.keyword is not None}
        positional = [arg for arg in args if arg.keyword is None]
        keywords = [arg for arg in args if arg.keyword is not None]
        merged = [
            cst.Arg(
                value=k.value.deep_clone(),
                keyword=k.keyword,
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
            )
            for k in binding.keywords
            if k.keyword is not None and k.keyword.value not in given
        ]
        return updated_node.with_changes(func=func, args=_with_commas([*positional, *merged, *keywords]))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        body = self._without_dropped(original_node.body, updated_node.body)
        return updated_node.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])])

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=self._without_dropped(original_node.body, updated_node.body))

    def _without_dropped(self, original: Sequence[Any], updated: Sequence[Any]) -> list:
        body: list = []
        carried: list = []
        for before, after in zip(original, updated):
            if id(before) in self.dropped:
                carried.extend(after.leading_lines)
                continue
            if carried:
                after = after.with_changes(leading_lines=[*carried, *after.leading_lines])
                carried = []
            body.append(after)
        return body


def _with_commas(ordered: list[cst.Arg]) -> list[cst.Arg]:
    """The arguments, each but the last followed by a comma: the call's own keep theirs
    (with their line breaks; the last keeps a trailing comma it had)."""
    out = []
    for index, arg in enumerate(ordered):
        last = index == len(ordered) - 1
        if isinstance(arg.comma, cst.Comma):
            out.append(arg)
        elif last:
            out.append(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        else:
            out.append(arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
    return out


def with_reasons(findings: list, reasons: dict[str, str]) -> list:
    """The findings, each refusal of a call of a name in ``reasons`` saying why the name was
    not followed to its TF function."""
    out = []
    for finding in findings:
        match = PYTHON_CALL.match(finding.message) if finding.code.startswith("TFM3") else None
        if match is not None and match.group(1) in reasons:
            finding = dataclasses.replace(finding, message=f"{finding.message}; {reasons[match.group(1)]}")
        out.append(finding)
    return out
