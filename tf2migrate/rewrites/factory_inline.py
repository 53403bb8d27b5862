"""A module function that builds the graph and returns its tensors, called once at the top
level → its body written out at the call.

TF1 scripts often build their graph in a function and bind what it returns (pkmital's
autoencoders, TensorFlow-Examples' ``conv_net`` factories)::

    def build(n_in, n_out):
        x = tf.placeholder(tf.float32, [None, n_in])
        W = tf.Variable(tf.ones([n_in, n_out]))
        y = tf.nn.tanh(tf.matmul(x, W))
        return x, y

    x, y = build(3, 2)
    ... sess.run(y, {x: data}) ...

The analysis converts a function's graph code where the function runs it; a placeholder or
tensor that leaves its function through ``return`` is read outside any run (TFM301), so such
a file stayed on TF1.  The module is first rewritten, TF1 to TF1, with the call replaced by
the function's body, its parameters bound from the call's arguments and its result bound to
the call's targets::

    n_in = 3
    n_out = 2
    x = tf.placeholder(tf.float32, [None, n_in])
    W = tf.Variable(tf.ones([n_in, n_out]))
    y = tf.nn.tanh(tf.matmul(x, W))

and that module is then migrated like any other.  The statements run at the moment the
call ran them, in the same order, with the same values; only their names move from the
function's locals to the module's globals, so the rewrite is made only where nothing can
tell the two apart (judged on Python's symbol tables, as rewrites/main_guard.py judges the
opposite move):

- the function is defined at the module's top, undecorated, not async, with plain
  parameters (no ``*args``/``**kwargs``, no positional-only ones; keyword-only ones after a
  bare ``*`` are bound as the others), and nothing but that one
  call names it (it is a script's builder: a module that calls it at import is no library);
- the call is a statement of its own at the module's top level, or at the top of another
  module function's body (see below): ``targets = build(...)`` (names, or a tuple or list
  of names) or ``build(...)``; its arguments call nothing and read none of the function's
  locals, and each parameter it leaves out defaults to a literal (a number, string,
  ``True``/``False``/``None``, or a tuple or list display of them) or an imported module's
  member (``act=tf.nn.relu``, ``scale=settings.SCALE``: bound to the parameter's name where
  the function was defined, when Python evaluated it, not at the call: the module may assign
  the member in between);
- the body declares no ``global``/``nonlocal``, defines no function or class (lambdas and
  comprehensions may stay), and returns only by a ``return`` that is its last statement;
- no name the function binds is a name of the module's top level, unless the call binds it
  too (``x, y = build()`` with ``return x, y``), and no other scope reads or binds one as a
  global — the names the call binds excepted when the body runs no code of the module (no
  call of a function, class or object the module defines), which alone could see them
  between the body's binding and the call's;
- the module calls none of ``globals``, ``locals``, ``vars``, ``exec``, ``eval``, ``dir``.

Scripts as often call the factory from their own function (pkmital's ``test_mnist()``, a
``main()``): the body is then written out in that function, its names becoming the caller's
locals, in place of the conditions on the module's names:

- no name the function binds is one of the caller's (a local, a parameter, or a global it
  reads), unless the call binds it, and the caller declares none of them ``global`` or
  ``nonlocal``; no scope inside the caller (a nested function, lambda or comprehension)
  mentions one;
- each name the body reads from the module (and each name a left-out parameter's default
  reads) means the same in the caller: the caller does not bind it, or binds it once, before
  the call, by the same import as the module's (``import tensorflow as tf`` in both: one
  module object);
- the caller is not itself written out in the same pass (the retry writes out the next).

migrate.py makes the rewrite only for a file kept on TF1 with a refusal inside such a
function, and keeps it only if the graph then converts.
"""

from __future__ import annotations

import symtable
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.names import names_bound, read_and_bound, scope_body, variable_names
from tf2migrate.analysis.tf_imports import collect_tf_imports, dotted_name
from tf2migrate.analysis.symbol_tables import INLINE_SCOPES, function_table, module_table, reads_globals, tables_under
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import anchored_lines, Positions
from tf2migrate.traversal import find_all

FACTORY_INLINED = Rule(
    "TFM150",
    "graph-factory-inlined",
    "A module function that builds the graph and returns its tensors, called once (at the top level or in a script's "
    "function) → its body at the call.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Writes the body of a module function that builds a TF1 graph and returns its placeholders or tensors "
    "(`x, y = build(3, 2)`) at its one call, its parameters bound from the arguments and its result to the call's "
    "targets, when the returned tensors kept the file on TF1; the graph code is then converted as the module's is.",
    why="The statements run at the same moment and in the same order; only their names move from the function's locals "
    "to the module's globals, so the rewrite is made only when nothing else names the function and no other code reads "
    "or binds those names (Python's symbol tables say). The conditions are in `tf2migrate/rewrites/factory_inline.py`.",
    example="def build(n):\n    x = tf.placeholder(tf.float32, [None, n])\n    return x, x * 2.0\n\nx, y = build(3)",
    instead="n = 3\n@tf.function(...)\ndef compute_y(x):\n    y = x * 2.0\n    return y",
    invalid=(
        "import tensorflow as tf\n"
        "def build(n):\n"
        "    x = tf.placeholder(tf.float32, [None, n])\n"
        "    return x, x * 2.0\n"
        "x, y = build(3)\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [[1.0, 2.0, 3.0]]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "def build(n):\n"
        "    x = tf.placeholder(tf.float32, [None, n])\n"
        "    return x, x * 2.0\n"
        "x, y = build(3)\n"
        "x2, y2 = build(4)\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [[1.0, 2.0, 3.0]]}))\n",
    ),
)
RULES = [FACTORY_INLINED]

# what a left-out parameter may default to: evaluated once where the function was defined,
# the same value at the call
_LITERAL = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


@dataclass
class Inlined:
    """The module with the factories' bodies at their calls, and the original's line of each
    line of it (the findings of its migration are placed there)."""

    source: str
    lines: list[int]  # new line - 1 → original line
    notes: list[tuple[int, int, str]] = field(default_factory=list)
    written_out: list[tuple[int, int]] = field(default_factory=list)  # each function's first and last original lines

    def map_line(self, line: int) -> int:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else line


def inline_factories(
    module: cst.Module, source: str, refused_lines: set[int], reasons: dict[tuple[int, int], str] | None = None
) -> Inlined | None:
    """The module with each function holding a refusal line written out at its one call, or
    None when no such function may be (see the module's docstring); ``reasons`` gets, for
    each function returning a value that holds a refusal line and is not written out, why,
    by its first and last lines."""
    if not any(isinstance(statement, cst.FunctionDef) for statement in module.body):
        return None  # (before the symbol tables and positions: most test modules hold classes alone)
    top = module_table(module, source)
    if top is None:
        return None
    positions = Positions(module)
    names = variable_names(module)
    replaced: dict[int, list[tuple[cst.BaseStatement, int | None]]] = {}  # call statement → its replacement
    removed: set[int] = set()
    written_out: list[tuple[int, int]] = []
    callers: set[int] = set()  # functions a call written out in
    notes = []
    candidates = []
    for index, function in enumerate(module.body):
        if not isinstance(function, cst.FunctionDef):
            continue
        start = positions.get(function)
        end = _last_line(module, positions, index)
        found = _only_call(module, function, names)
        call_line = (positions.get(found[0]) or (0, 0))[0] if not isinstance(found, str) else 0
        # a refusal in the function, or at its call (``y = build(x)`` making variables from a placeholder)
        if start is None or not any(start[0] <= line <= end or line == call_line for line in refused_lines):
            continue
        inlined = found if isinstance(found, str) else _inlined(module, top, function, found, positions)
        if isinstance(inlined, str):
            if reasons is not None and _result_bound(module, function.name.value):
                reasons[(start[0], end)] = inlined
            continue
        assert not isinstance(found, str)
        candidates.append((function, found, inlined, start[0], end, call_line))
    # a function both written out and written into: one at a time, the outer first (the retry
    # writes out the next, into the module or function it now stands in)
    outer = {id(function) for function, *_ in candidates}
    for function, (call_statement, caller), (statements, at_definition), first, end, call_line in candidates:
        if caller is not None and id(caller) in outer:
            continue
        replaced[id(call_statement)] = [(s, line if line is not None else call_line) for s, line in statements]
        if at_definition:  # (the definition's blank lines and comments go above them)
            at_definition[0] = at_definition[0].with_changes(leading_lines=function.leading_lines)
        replaced[id(function)] = [(s, first) for s in at_definition]
        removed.add(id(function))
        written_out.append((first, end))
        if caller is not None:
            callers.add(id(caller))
        notes.append(
            (
                call_line,
                1,
                f"`{function.name.value}(...)`, called once here, written out in its place: its graph code converts as "
                + ("the module's" if caller is None else f"`{caller.name.value}`'s"),
            )
        )
    if not replaced:
        return None
    origins: dict[int, int | None] = {}  # id of a statement of the new module → its original line (None: from its place)
    body: list[cst.BaseStatement] = []
    for statement in module.body:
        if id(statement) in callers:
            caller = cst.ensure_type(statement, cst.FunctionDef)
            block = cst.ensure_type(caller.body, cst.IndentedBlock)
            new_caller = caller.with_changes(body=block.with_changes(body=_expanded(block.body, replaced, origins)))
            origins[id(new_caller)] = (positions.get(caller) or (None, 0))[0]
            body.append(new_caller)
            continue
        body += _expanded([statement], replaced, origins)
    # each line of the new module mapped to the original's: a statement carried over (from its
    # place or from the function's body) keeps its lines, one written for the call maps to the call's
    new = module.with_changes(body=body)
    result = Inlined(new.code, anchored_lines(new, positions, origins), notes)
    result.written_out = written_out
    return result


def _expanded(
    statements: Sequence[cst.BaseStatement], replaced: dict[int, list[tuple[cst.BaseStatement, int | None]]], origins: dict[int, int | None]
) -> list[cst.BaseStatement]:
    """The statements with each call written out replaced by its statements (whose lines are
    noted in ``origins``)."""
    out: list[cst.BaseStatement] = []
    for statement in statements:
        if id(statement) not in replaced:
            out.append(statement)
            continue
        for new, line in replaced[id(statement)]:
            origins[id(new)] = line
            out.append(new)
    return out


def _result_bound(module: cst.Module, name: str) -> bool:
    """Does a statement at the top of the module or of a module function bind what a call
    of ``name`` returns (a factory's use)?"""
    factory_call = m.Assign(value=m.Call(func=m.Name(name)))
    bodies = [module.body, *(scope_body(s) for s in module.body if isinstance(s, cst.FunctionDef))]
    return any(
        isinstance(s, cst.SimpleStatementLine) and any(m.matches(small, factory_call) for small in s.body) for body in bodies for s in body
    )


def _last_line(module: cst.Module, positions: Positions, index: int) -> int:
    """The last line of the module's statement ``index`` (the next one's start, less one)."""
    if index + 1 < len(module.body):
        following = positions.get(module.body[index + 1])
        if following is not None:
            return following[0] - 1
    return module.code.count("\n") + 1


def _only_call(
    module: cst.Module, function: cst.FunctionDef, names: list[cst.Name]
) -> tuple[cst.SimpleStatementLine, cst.FunctionDef | None] | str:
    """The statement that is the function's one use, ``targets = f(...)`` or ``f(...)``, at
    the module's top or at the top of another module function's body (that function, else
    None); else why there is none."""
    name = function.name.value
    uses = sum(1 for n in names if n.value == name) - 1
    if uses != 1:
        return f"`{name}` is named {uses} times besides its definition; only a function called once is"
    scopes: list[tuple[Sequence[cst.BaseStatement], cst.FunctionDef | None]] = [(module.body, None)]
    scopes += [(scope_body(s), s) for s in module.body if isinstance(s, cst.FunctionDef) and s is not function]
    for body, caller in scopes:
        for statement in body:
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            small = statement.body[0]
            call = small.value if isinstance(small, (cst.Assign, cst.Expr)) else None
            if isinstance(call, cst.Call) and m.matches(call.func, m.Name(name)):
                if isinstance(small, cst.Assign) and (len(small.targets) != 1 or not _names_target(small.targets[0].target)):
                    return f"the call of `{name}` binds other than names"
                return statement, caller
    return f"`{name}` is not called by a statement of its own at the top of the module or of a module function"


def _names_target(target: cst.BaseExpression) -> bool:
    if isinstance(target, cst.Name):
        return True
    return isinstance(target, (cst.Tuple, cst.List)) and all(
        isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement) and isinstance(e.value, cst.Name) for e in target.elements
    )


def _inlined(
    module: cst.Module,
    top: symtable.SymbolTable,
    function: cst.FunctionDef,
    found: tuple[cst.SimpleStatementLine, cst.FunctionDef | None],
    positions: Positions,
) -> tuple[list[tuple[cst.BaseStatement, int | None]], list[cst.BaseStatement]] | str:
    """The statements that replace the call (each with its original line; None: the call's)
    and those that replace the definition, or why the body may not be written there."""
    call_statement, caller = found
    name = function.name.value
    if function.decorators or function.asynchronous is not None or not isinstance(function.body, cst.IndentedBlock):
        return f"`{name}` is decorated or async"
    params = function.params
    # (a bare ``*`` only marks the keyword-only parameters that follow it)
    if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None or params.posonly_params:
        return f"`{name}` takes `*args`, `**kwargs` or positional-only parameters"
    body = list(function.body.body)
    if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString() | m.ConcatenatedString())])):
        body = body[1:]  # the docstring
    returned: cst.BaseExpression | None = None
    returned_line: int | None = None
    if body and m.matches(body[-1], m.SimpleStatementLine(body=[m.Return()])):
        returned = cst.ensure_type(cst.ensure_type(body[-1], cst.SimpleStatementLine).body[0], cst.Return).value
        returned_line = (positions.get(body[-1]) or (None, 0))[0]
        body = body[:-1]
    if find_all(
        cst.IndentedBlock(body or [cst.SimpleStatementLine([cst.Pass()])]),
        (cst.Return, cst.Yield, cst.Await, cst.FunctionDef, cst.ClassDef),
    ):
        return f"`{name}` returns other than by its last statement, or defines a function or class"
    table = function_table(top, function, (positions.get(function.name) or (0, 0))[0])
    if table is None or any(s.is_declared_global() or s.is_nonlocal() for s in table.get_symbols()):
        return f"`{name}` declares a global or nonlocal name"
    if any(c.get_name() not in INLINE_SCOPES for c in tables_under(table)):
        return f"`{name}` holds a scope other than lambdas and comprehensions"
    local_names = set(table.get_locals())
    small = call_statement.body[0]
    call = cst.ensure_type(cst.ensure_type(small, (cst.Assign, cst.Expr)).value, cst.Call)  # type: ignore[arg-type]
    target = small.targets[0].target if isinstance(small, cst.Assign) else None
    bound_by_call = {n.value for n in find_all(target, cst.Name) if isinstance(n, cst.Name)} if target is not None else set()
    imported = {s.get_name() for s in top.get_symbols() if s.is_imported()}
    arguments = _arguments(call, params, local_names, imported)
    if isinstance(arguments, str):
        return arguments
    defaults = {id(p.default) for p in (*params.params, *params.kwonly_params) if p.default is not None}
    for parameter, value in arguments:
        if caller is not None and isinstance(value, cst.List) and id(value) in defaults and not _list_only_read(parameter, body, module):
            # Python made the list once, at the definition: a caller that runs again calls the
            # function again with the same list, changed or kept by the first call
            return f"the parameter `{parameter}`, left out, defaults to a list the body may change or keep (written out in `{caller.name.value}`, which may run again, each run would make a new one)"
    # a parameter given the module's name of its own spelling (``build(dims)`` for ``dims``) is
    # that object already: it stays the module's name, unless the body binds it again
    rebound = set(read_and_bound(cst.IndentedBlock(body))[1])
    aliased = {p for p, value in arguments if isinstance(value, cst.Name) and value.value == p and p not in rebound}
    if caller is not None:
        default_reads = {
            n.value
            for p in (*params.params, *params.kwonly_params)
            if p.default is not None
            for n in find_all(p.default, cst.Name)
            if isinstance(n, cst.Name)
        }
        clash = _caller_clash(module, top, table, found, local_names - aliased, bound_by_call, default_reads, positions)
        if clash is not None:
            return clash
    else:
        # the module's names: only those the call binds may be the function's too
        module_names = {s.get_name() for s in top.get_symbols() if s.get_name() != name}
        shared = (local_names & module_names) - aliased
        if not shared <= bound_by_call:
            clashes = ", ".join(f"`{n}`" for n in sorted(shared - bound_by_call))
            return f"{clashes}, bound by `{name}`, also a name of the module's top level"
        others = [c for c in top.get_children() if c is not table]
        defined_here = {s.get_name() for s in top.get_symbols() if s.is_assigned() and not s.is_imported()}
        # (a call rooted at a local holding what imported code made, `h.get_shape()`, runs no code of the module)
        module_code = defined_here - _made_by_imports(body, local_names - {p.name.value for p in params.params}, imported)
        watched = (local_names if _calls_module_code(body, module_code) else local_names - shared) - aliased
        readers = [c.get_name() for c in others if reads_globals(c, watched)]
        if readers:
            return f"`{readers[0]}` reads or binds a name `{name}` binds, as a global"
    out: list[tuple[cst.BaseStatement, int | None]] = []
    # a default read off a module (``scale=settings.SCALE``) is the value it had where the function
    # was defined (``settings.SCALE = 4.0`` may run before the call): bound there, to the parameter's
    # name, which no other code mentions (above; in a calling function, checked below)
    at_definition: list[cst.BaseStatement] = []
    defaults = {id(p.default) for p in (*params.params, *params.kwonly_params) if p.default is not None}
    for parameter, value in arguments:
        if parameter in aliased:
            continue
        if isinstance(value, cst.Name) and value.value == parameter:
            return f"`{name}` binds its parameter `{parameter}` again, given the module's `{parameter}`"
        parameter_binding = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(parameter))], value)])
        if id(value) in defaults and not _is_literal(value):
            at_definition.append(parameter_binding)
        else:
            out.append((parameter_binding, None))
    if caller is not None and at_definition:
        # bound where the function stood, the parameter becomes a name of the module's top
        # level: one no other code may mention
        names_at_top = {
            cst.ensure_type(
                cst.ensure_type(cst.ensure_type(b, cst.SimpleStatementLine).body[0], cst.Assign).targets[0].target, cst.Name
            ).value
            for b in at_definition
        }
        module_names = {s.get_name() for s in top.get_symbols()}
        mentioned = [c.get_name() for c in top.get_children() if c is not table and names_at_top & {s.get_name() for s in c.get_symbols()}]
        if names_at_top & module_names or mentioned:
            clashes = ", ".join(f"`{n}`" for n in sorted(names_at_top))
            return f"{clashes}, the default read off a module where `{name}` is defined, is also a name of the module or of `{(mentioned or [name])[0]}`"
    out += [(statement, (positions.get(statement) or (None, 0))[0]) for statement in body]
    binding = _binding(small, target, returned)
    if binding is not None:
        out.append((binding, returned_line))
    if not out:
        return f"`{name}` computes nothing the call binds"
    # the call's comments and blank lines go above the written-out body
    out[0] = (out[0][0].with_changes(leading_lines=call_statement.leading_lines), out[0][1])
    return out, at_definition


def _caller_clash(
    module: cst.Module,
    top: symtable.SymbolTable,
    table: symtable.Function,
    found: tuple[cst.SimpleStatementLine, cst.FunctionDef | None],
    local_names: set[str],
    bound_by_call: set[str],
    defaults: set[str],
    positions: Positions,
) -> str | None:
    """Why the body may not be written out in the calling function ``caller``, if it may not:
    a name the body binds is one of the caller's other than those the call binds, or one a
    scope inside the caller mentions, or is declared global there; a name the body reads as
    a global (or a left-out parameter's default reads) is one the caller binds other than by
    the module's own import of it."""
    call_statement, caller = found
    assert caller is not None
    name, calling = table.get_name(), caller.name.value
    caller_table = function_table(top, caller, (positions.get(caller.name) or (0, 0))[0])
    if caller_table is None:
        return f"`{calling}`'s names are not known"
    caller_names = {s.get_name(): s for s in caller_table.get_symbols()}
    shared = local_names & set(caller_names)
    if not shared <= bound_by_call:
        clashes = ", ".join(f"`{n}`" for n in sorted(shared - bound_by_call))
        return f"{clashes}, bound by `{name}`, also a name of `{calling}`"
    if any(caller_names[n].is_declared_global() or caller_names[n].is_nonlocal() for n in shared):
        return f"`{calling}` declares a name `{name}` binds global"
    # a scope inside the caller may read what the call binds when it comes after the call
    # (``[sess.run(y, {x: b}) for b in batches]``): it sees those names bound, as before
    after = _last_line_of(call_statement, positions)
    inside = [
        t.get_name()
        for t in tables_under(caller_table)
        if (mentioned := local_names & {s.get_name() for s in t.get_symbols()})
        and not (mentioned <= bound_by_call and t.get_lineno() > after)
    ]
    if inside:
        return f"`{inside[0]}` in `{calling}` mentions a name `{name}` binds"
    read = {s.get_name() for s in table.get_symbols() if s.is_global()} | defaults
    for global_name in sorted(read):
        symbol = caller_names.get(global_name)
        if symbol is not None and symbol.is_local() and not _same_import(module, caller, call_statement, global_name):
            return f"`{name}` reads the module's `{global_name}`, which `{calling}` binds as its own"
    return None


def _last_line_of(statement: cst.SimpleStatementLine, positions: Positions) -> int:
    """The line a simple statement ends on (its start, and the line breaks inside it)."""
    start = (positions.get(statement) or (0, 0))[0]
    return start + cst.Module(body=[statement.with_changes(leading_lines=[])]).code.rstrip("\n").count("\n")


def _same_import(module: cst.Module, caller: cst.FunctionDef, call_statement: cst.SimpleStatementLine, name: str) -> bool:
    """Do the module and ``caller`` each bind ``name`` once, by the same import (the caller's
    before the call), so that it is one object at the call (``import tensorflow as tf`` in
    both: Python's modules are imported once)?"""
    body = list(scope_body(caller))
    binds = lambda s: s.name.value == name if isinstance(s, (cst.FunctionDef, cst.ClassDef)) else name in names_bound(s)  # noqa: E731
    in_module = [s for s in module.body if binds(s)]
    in_caller = [s for s in body if binds(s)]
    if len(in_module) != 1 or len(in_caller) != 1 or names_bound(caller).count(name) != 1:
        return False
    if call_statement not in body or body.index(in_caller[0]) > body.index(call_statement):
        return False
    module_import, caller_import = _import_of(in_module[0], name), _import_of(in_caller[0], name)
    return module_import is not None and module_import == caller_import


def _import_of(statement: cst.BaseStatement, name: str) -> tuple[str, ...] | None:
    """What a simple ``import``/``from … import`` statement binds ``name`` to, as
    (module, member) text; None for any other statement."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, (cst.Import, cst.ImportFrom)) or isinstance(small.names, cst.ImportStar):
        return None
    source = "" if isinstance(small, cst.Import) else "." * len(small.relative) + (dotted_name(small.module) or "" if small.module else "")
    for alias in small.names:
        bound = cst.ensure_type(alias.asname.name, cst.Name).value if alias.asname is not None else None
        dotted = dotted_name(alias.name) or ""
        if bound == name or bound is None and dotted.partition(".")[0] == name:
            return (source, dotted, bound or "")
    return None


def _arguments(
    call: cst.Call, params: cst.Parameters, local_names: set[str], imported: set[str]
) -> list[tuple[str, cst.BaseExpression]] | str:
    """(parameter, the expression it gets), in the parameters' order; else why not (an argument
    calls anything or reads a name of the function, a parameter left out has no literal default)."""
    ordered = [*params.params, *params.kwonly_params]
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > len(params.params):
        return "the call unpacks its arguments (`*`, `**`) or gives more than the parameters"
    given: dict[str, cst.BaseExpression] = {p.name.value: a.value for p, a in zip(params.params, positional)}
    for argument in call.args:
        if argument.keyword is not None:
            if argument.keyword.value in given or argument.keyword.value not in {p.name.value for p in ordered}:
                return f"the call's keyword `{argument.keyword.value}` names no free parameter"
            given[argument.keyword.value] = argument.value
    for value in given.values():
        if find_all(value, (cst.Call, cst.NamedExpr, cst.Lambda, cst.Await, cst.Yield)):
            return "an argument of the call calls a function (it ran before the body; written out, it would run among its statements)"
        reads = {n.value for n in find_all(value, cst.Name) if isinstance(n, cst.Name)}
        if reads & local_names - {name for name, v in given.items() if v is value and isinstance(v, cst.Name) and v.value == name}:
            return "an argument of the call reads a name the function binds"
    out = []
    for param in ordered:
        name = param.name.value
        if name in given:
            out.append((name, given[name]))
        elif param.default is not None and (_is_literal(param.default) or _imported_member(param.default, imported)):
            out.append((name, param.default))
        else:
            return f"the parameter `{name}`, left out, defaults to other than a literal or an imported module's member"
    return out


def _list_only_read(name: str, body: Sequence[cst.BaseStatement], module: cst.Module) -> bool:
    """Is the list ``name`` only read in ``body``: indexed (``shape[1]``, not assigned or
    deleted), measured (``len``) or handed to a TensorFlow function, which copies it
    (``tf.placeholder(tf.float32, shape)``)?"""
    block = cst.IndentedBlock(list(body) or [cst.SimpleStatementLine([cst.Pass()])])
    tf_aliases = collect_tf_imports(module).aliases
    changed = {id(n) for target in find_all(block, (cst.AssignTarget, cst.AugAssign, cst.Del)) for n in find_all(target, cst.Subscript)}
    read: set[int] = set()
    for node in find_all(block, (cst.Subscript, cst.Call)):
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and id(node) not in changed:
            read.add(id(node.value))
        elif isinstance(node, cst.Call):
            root = node.func
            while isinstance(root, cst.Attribute):
                root = root.value
            measured = m.matches(node.func, m.Name("len")) and len(node.args) == 1
            if measured or isinstance(root, cst.Name) and root.value in tf_aliases and root is not node.func:
                read |= {id(a.value) for a in node.args if not a.star}
    return all(id(n) in read for n in find_all(block, cst.Name) if cst.ensure_type(n, cst.Name).value == name)


def _imported_member(node: cst.BaseExpression, imported: set[str]) -> bool:
    """``tf.nn.relu`` of ``import tensorflow as tf``: the same object where the call is (the
    module binds the import once, by the symbol tables' count, and no one rebinds it)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name) and node.value in imported


def _is_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, _LITERAL) or m.matches(node, m.Name("True") | m.Name("False") | m.Name("None")):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return isinstance(node.expression, (cst.Integer, cst.Float))
    # a list display too (``input_shape=[None, 784]``): Python made one list at the definition,
    # shared by every call, but the function written out has no other call to share it with, so
    # a new list at the call is the same value, changed or not by the body
    return isinstance(node, (cst.Tuple, cst.List)) and all(isinstance(e, cst.Element) and _is_literal(e.value) for e in node.elements)


def _made_by_imports(body: Sequence[cst.BaseStatement], local_names: set[str], imported: set[str]) -> set[str]:
    """The locals among ``local_names`` (parameters left out) whose every binding in the body is
    ``name = value``, the value rooted at an imported name (``tf.placeholder(...)``,
    ``tf.nn.tanh(...)``) or at such a local (``h = x``, ``n_in = h.get_shape()[-1]``): objects of
    imported code, whose methods run no code of the module."""
    bindings: dict[str, list[cst.BaseExpression | None]] = {}
    for node in find_all(cst.IndentedBlock(list(body)), (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.With, cst.NamedExpr)):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            bindings.setdefault(node.targets[0].target.value, []).append(node.value)
            continue
        targets = [getattr(node, "target", None)] + [t.target for t in getattr(node, "targets", ())]
        targets += [item.asname.name for item in getattr(node, "items", ()) if item.asname is not None]
        for target in targets:
            for bound in find_all(target, cst.Name) if target is not None else ():
                bindings.setdefault(cst.ensure_type(bound, cst.Name).value, []).append(None)  # (bound otherwise)
    made: set[str] = set()
    grown = True
    while grown:
        grown = False
        for local in local_names - made:
            values = bindings.get(local, [])
            if values and all(value is not None and _root(value) in imported | made for value in values):
                made.add(local)
                grown = True
    return made


def _root(expression: cst.BaseExpression) -> str | None:
    """The name a chain of calls, attributes and subscripts starts from (``tf`` of ``tf.nn.tanh(x)[0]``)."""
    while isinstance(expression, (cst.Attribute, cst.Subscript, cst.Call)):
        expression = expression.func if isinstance(expression, cst.Call) else expression.value
    return expression.value if isinstance(expression, cst.Name) else None


def _calls_module_code(body: Sequence[cst.BaseStatement], defined_here: set[str]) -> bool:
    """Does the body call anything rooted at a name the module itself defines (a function,
    class or object; not an import, whose code reads its own module's globals, not a
    builtin): code that could read the module's globals between the body's bindings?"""
    for call in find_all(cst.IndentedBlock(list(body)), cst.Call):
        func = cst.ensure_type(call, cst.Call).func
        while isinstance(func, (cst.Attribute, cst.Subscript, cst.Call)):
            func = func.func if isinstance(func, cst.Call) else func.value
        if isinstance(func, cst.Name) and func.value in defined_here:
            return True
    return False


def _binding(
    small: cst.BaseSmallStatement, target: cst.BaseExpression | None, returned: cst.BaseExpression | None
) -> cst.BaseStatement | None:
    """The statement binding the call's targets to what the function returned (None when
    they are those names already, or the call binds nothing)."""
    if target is None:
        if returned is None or not find_all(returned, cst.Call):
            return None
        return cst.SimpleStatementLine([cst.Expr(returned)])
    value: cst.BaseExpression = returned if returned is not None else cst.Name("None")
    if (
        isinstance(target, (cst.Tuple, cst.List))
        and isinstance(value, (cst.Tuple, cst.List))
        and len(target.elements) == len(value.elements)
    ):
        pairs = [
            (t.value, v.value)
            for t, v in zip(target.elements, value.elements)
            if not (isinstance(v.value, cst.Name) and cst.ensure_type(t.value, cst.Name).value == v.value.value)
        ]
        if not pairs:
            return None
        if len(pairs) == 1:
            target, value = pairs[0]
        else:
            target = cst.Tuple([cst.Element(t) for t, _ in pairs], lpar=[], rpar=[])
            value = cst.Tuple([cst.Element(v) for _, v in pairs], lpar=[], rpar=[])
    elif isinstance(target, cst.Name) and isinstance(value, cst.Name) and target.value == value.value:
        return None
    assert isinstance(target, (cst.Name, cst.Tuple, cst.List))  # (_names_target)
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], value)])
