"""Layer helpers of another module of the run that make variables → their definitions copied into
the importing file, TF1 to TF1, so rewrites/helper_split.py splits them there as the file's own.

GAN and DCGAN repositories keep their layer helpers in an ``ops.py`` that every model file
star-imports (hwalsuklee's generative-model collection, carpedm20's DCGAN)::

    # ops.py
    def linear(input_, output_size, scope=None, stddev=0.02, bias_start=0.0):
        shape = input_.get_shape().as_list()
        with tf.variable_scope(scope or "Linear"):
            matrix = tf.get_variable("Matrix", [shape[1], output_size], tf.float32, ...)
            ...
            return tf.matmul(input_, matrix) + bias

    # GAN.py
    from ops import *
    ...
            net = lrelu(linear(x, 8, scope="d_fc1"))     # in the GAN's discriminator

A call of ``linear`` both makes variables and builds ops from a placeholder-dependent tensor
(TFM304).  The helper split makes the variables once where TF1 called the helper and moves the
ops into the generated function, but it rewrites a helper's definition, which here is another
module's: rewriting ``ops.py`` would change what every other importer calls, and the run
migrates each file on its own (an importer kept on TF1 still calls the original).  So the file
takes in its own copy of the definitions it calls, placed right after the import that gave the
names, and ``ops.py`` is left as it is for its other importers::

    from ops import *


    def linear(input_, output_size, scope=None, stddev=0.02, bias_start=0.0):
        ...                                           # ops.py's text, as written there

    def lrelu(x, leak=0.2, name="lrelu"):
        ...

The split then makes ``make_linear_variables`` and ``linear(..., *, variables)`` in this file.
The builders the file calls (``lrelu``) are copied with the variable makers: the split derives
the static shapes the variables read through the file's own functions only (``lrelu(linear(x,
8))`` has the shape ``linear`` gives it once ``lrelu`` is the file's).

Python ran the copy's statements where it ran the original's, with the same arguments; the one
difference is the globals they read, this file's instead of the helper module's.  So a function
is copied only when each name it reads from its globals is bound to the same object in both
modules at every call (else nothing changes, and TFM304 stays, with the reason):

- a module both import by the same statement (``import tensorflow as tf``), which the file
  binds no other way (other than by a star import of a module of the run that binds it by that
  statement too, or not at all);
- a builtin neither module binds (and not ``globals``, ``locals``, ``vars``, ``eval``,
  ``exec``, ``dir``, which read the module itself);
- another function of the helper module, copied with it, or given to the file by the same
  import (``from ops import *``) and bound no other way;
- and the function is a top-level ``def`` of its module, the only binding of its name there,
  undecorated (analysis/project.py lists those), declaring no ``global``, whose defaults are
  immutable literals (evaluated where the copy stands, they give the values they gave there),
  and whose summary says it changes no module state; the file binds its name only by that
  import, in no function by ``global``.

A star import of a module of the run (``from ops import *``) is written out as the names the
file's text and the copies read (``from ops import STDDEV``; ``import ops`` when none, which
still runs the module first): the static shapes the split reads follow no file with a star
import, whose names they cannot see.  What the star bound is the module's summary
(``star_names``: its ``__all__``, else every name of its scope, what its own star imports bind
included); a name left out is one no code of the file names, which only the module-reading
builtins (refused) or another file reading it of this one (a file of the run importing this one
that names it: refused) could reach.

A module whose state a file of the run changes (``import ops; ops.SCALE = 3.0``, in this
file or another: linking.modules_changed_by) has none of its functions copied: the original
reads its globals as they are at each call, the copy reads the names the import bound here,
once, and would miss the change (the module's other functions changing its globals make its
helpers readers of module state, no builders: not copied either).

migrate.py keeps the copy only if the file's graph then converts (the split and everything
after it done); else the TFM304 refusals say what still keeps it.  The findings on the copied
lines are placed on the import's line.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import re
import symtable
from dataclasses import dataclass, field

import libcst as cst
from libcst.helpers import get_full_name_for_node

from tf2migrate.analysis.blockers import VARIABLE_IN_COMPUTATION
from tf2migrate.analysis.project import FileContext, ModuleSummary, bound_at_top, top_level_imports
from tf2migrate.analysis.summaries import BUILDER, VARIABLES
from tf2migrate.diagnostics import Diagnostic
from tf2migrate.positions import Positions, anchored_lines
from tf2migrate.traversal import find_all

# what a TFM304 refusal says of a helper another module defines (helper_split.py's and
# statements.py's reasons): the trigger of the copy
IMPORTED = "imported from another module"

_BUILTINS = frozenset(dir(builtins))
# builtins that read the module they run in: a copy would read another
_MODULE_READERS = frozenset({"globals", "locals", "vars", "eval", "exec", "dir", "__import__"})


@dataclass
class Copied:
    """The file with the helpers copied in, the original line of each of its lines, and the
    notes (on the original's lines)."""

    source: str
    lines: list[int]
    notes: list[tuple[int, int, str]] = field(default_factory=list)

    def map_line(self, line: int) -> int:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else line


@dataclass
class _Import:
    """A top-level ``from M import ...`` of the file naming a module of the run that holds helpers."""

    statement: cst.SimpleStatementLine
    node: cst.ImportFrom
    module: ModuleSummary
    names: list[str]  # what it gives the file by name (the module's ``*``: its exported names)
    renamed: list[tuple[str, str]] = field(default_factory=list)  # ``from ops import linear as fc``: (name, bound)


def copy_helpers(module: cst.Module, context: FileContext) -> Copied | str:
    """The file with the variable-making helpers it imports (and the builders it calls from the
    same modules) copied in after their imports, where that keeps their meaning; else why not."""
    modules = context.modules
    tree = ast.parse(module.code)
    bindings: dict[str, int] = {}
    for statement in tree.body:
        for name in bound_at_top(statement):
            bindings[name] = bindings.get(name, 0) + 1
    declared_global = {n for node in ast.walk(tree) if isinstance(node, ast.Global) for n in node.names}
    own_imports = top_level_imports(tree)
    star_modules = [_star_module(s, modules) for s in tree.body if isinstance(s, ast.ImportFrom) and any(a.name == "*" for a in s.names)]
    bindings.pop("*", None)
    imports = _helper_imports(module, modules)
    called = {c.func.value for c in find_all(module, cst.Call) if isinstance(c, cst.Call) and isinstance(c.func, cst.Name)}
    # what each name of the file stands for when one import gives it, bound no other way
    given: dict[str, _Import] = {}
    # a variable maker one of those imports gives, which the file may read otherwise: why
    ungiven: dict[str, str] = {}
    for found in imports:
        star = isinstance(found.node.names, cst.ImportStar)
        makes = found.module.functions.keys() & {n for n, f in found.module.names.items() if f.kind == VARIABLES}
        for name in found.names:
            if name in declared_global or bindings.get(name, 0) != (0 if star else 1):
                ungiven.update({name: f"this file binds `{name}` otherwise too"} if name in makes else {})
                continue
            # (and no other star import may bind it: one of a module the run does not see may)
            if any(m is not found.module and (m is None or m.star_names is None or name in m.star_names) for m in star_modules):
                ungiven.update({name: f"another star import of this file may bind `{name}` too"} if name in makes else {})
                continue
            given[name] = found
        ungiven.update({bound: f"`{name}` is imported as `{bound}`" for name, bound in found.renamed if name in makes})
    makers = sorted(n for n in given if n in called and n in given[n].module.functions and given[n].module.names[n].kind == VARIABLES)
    if not makers:
        return next(
            (ungiven[name] for name in sorted(called & ungiven.keys())),
            "no helper it imports is a function of a module of the run defined once by a `def` at its top",
        )
    chosen: dict[str, _Import] = {}

    def take(name: str) -> str | None:
        """Copy ``name`` (and the functions of its module it calls); why not, if not."""
        if name in chosen:
            return None
        chosen[name] = given[name]
        why = _refusal(name, given, own_imports, bindings, star_modules, take, context.changed_by_run)
        if why is not None:
            del chosen[name]
        return why

    for name in makers:
        why = take(name)
        if why is not None:
            return why
    for name in sorted(n for n in given if n in called and n in given[n].module.functions and given[n].module.names[n].kind == BUILDER):
        snapshot = dict(chosen)
        if take(name) is not None:  # (a builder is copied for the shapes it gives: not needed)
            chosen.clear()
            chosen.update(snapshot)
    return _written(module, chosen, modules, context.importer_module_names, own_imports)


def _helper_imports(module: cst.Module, modules: dict[str, ModuleSummary]) -> list[_Import]:
    found = []
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.ImportFrom) or small.module is None and not small.relative:
                continue
            dotted = "." * len(small.relative) + (get_full_name_for_node(small.module) or "" if small.module is not None else "")
            summary = modules.get(dotted)
            if summary is None or not summary.functions:
                continue
            renamed = []
            if isinstance(small.names, cst.ImportStar):
                names = sorted(summary.star_names if summary.star_names is not None else summary.exported)
            else:
                names = [a.name.value for a in small.names if isinstance(a.name, cst.Name) and a.asname is None]
                renamed = [
                    (a.name.value, a.asname.name.value)
                    for a in small.names
                    if isinstance(a.name, cst.Name) and a.asname is not None and isinstance(a.asname.name, cst.Name)
                ]
            found.append(_Import(statement, small, summary, names, renamed))
    return found


_V1_IMPORT = re.compile(r"(?:import tensorflow\.compat\.v1|from tensorflow\.compat import v1) as (?P<name>\w+)")


def _star_module(statement: ast.ImportFrom, modules: dict[str, ModuleSummary]) -> ModuleSummary | None:
    return modules.get("." * statement.level + (statement.module or ""))


def _refusal(name: str, given: dict[str, _Import], own_imports, bindings, star_modules, take, changed: frozenset) -> str | None:
    """Why the copy of ``name`` in this file would not run as its module's function does; None if it would."""
    summary = given[name].module
    if summary.names[name].changes_module_state:
        return f"`{name}` changes its module's state"
    if summary.path in changed:
        # (the original reads its module's globals as they are at each call; the copy reads the
        # names the import bound here, once: ``ops.SCALE = 3.0`` after it would not reach them)
        return (
            f"`{name}` reads the globals of {summary.path.name} as they are at each call, and a file of the run changes that module's state"
        )
    text = summary.functions[name]
    function = ast.parse(text).body[0]
    assert isinstance(function, ast.FunctionDef)
    for default in [*function.args.defaults, *(d for d in function.args.kw_defaults if d is not None)]:
        try:
            value = ast.literal_eval(default)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return f"`{name}` has a default that is not a literal (`{ast.unparse(default)}`), evaluated where it was defined"
        if isinstance(value, (list, dict, set)):
            return f"`{name}` has a mutable default (`{ast.unparse(default)}`), shared by its module's callers"
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(function)):
        return f"`{name}` declares a `global`"
    for read in sorted(_globals_read(text, name)):
        if read in _MODULE_READERS or read.startswith("__"):  # (``__name__``, ``__file__``: the module's own)
            return f"`{name}` reads `{read}`, which is its module's own"
        if read in summary.imports:
            statement = summary.imports[read]
            others = [
                m
                for m in star_modules
                if m is not summary and (m is None or m.star_names is None or read in m.star_names and m.imports.get(read) != statement)
            ]
            if _tf1_binding(own_imports.get(read)) != _tf1_binding(statement) or others:
                return f"`{name}` reads `{read}`, which this file does not bind by {summary.path.name}'s `{statement}` alone"
        elif read in given and given[read].module is summary:
            # another name of the helper module, which the same import gives this file: a
            # function of it is copied too when it can be (the split sees the file's own)
            if read in summary.functions:
                take(read)
        elif not (read in _BUILTINS and read not in summary.exported and read not in bindings):
            return f"`{name}` reads `{read}`, a name of {summary.path.name} this file does not bind to the same object"
    return None


def _tf1_binding(statement: str | None) -> str | None:
    """An import statement as the TF1 code this run migrates reads it: ``import
    tensorflow.compat.v1 as tf`` (or ``from tensorflow.compat import v1 as tf``) binds the API
    that TF1's ``import tensorflow as tf`` bound, so a helper of a module importing one runs
    alike in a file importing the other."""
    if statement is None:
        return None
    match = _V1_IMPORT.fullmatch(statement)
    return f"import tensorflow as {match.group('name')}" if match else statement


def _globals_read(text: str, name: str) -> set[str]:
    """The names function ``name`` (the only statement of ``text``) and the scopes inside it
    read from its module's globals."""
    table = symtable.symtable(text, "<helper>", "exec")
    found: set[str] = set()
    pending = [child for child in table.get_children() if child.get_name() == name]
    while pending:
        current = pending.pop()
        found |= {s.get_name() for s in current.get_symbols() if s.is_global() and s.is_referenced()}
        pending += current.get_children()
    return found


def _written(
    module: cst.Module,
    chosen: dict[str, _Import],
    modules: dict[str, ModuleSummary],
    read_of_module: frozenset[str],
    own_imports: dict[str, str],
) -> Copied | str:
    """The file with the copies after their imports, and its star imports of the run's modules
    written out as the names it reads (why not, if they cannot be)."""
    # (the names the file's code reads or binds: those naming an imported module excepted)
    in_imports = {id(n) for i in find_all(module, (cst.Import, cst.ImportFrom)) for n in find_all(i, cst.Name)}
    names = {n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name) and id(n) not in in_imports}
    names |= {a.evaluated_alias or a.evaluated_name for i in find_all(module, (cst.Import, cst.ImportFrom)) for a in _aliases(i)}
    # (and those the copies read: ``STDDEV`` of ops.py, which the star gave)
    names |= {read for name, found in chosen.items() for read in _globals_read(found.module.functions[name], name)}
    explicit = _explicit_star_imports(module, modules, names - set(chosen), read_of_module, own_imports)
    if isinstance(explicit, str):
        return explicit
    positions = Positions(module)
    origins: dict[int, int | None] = {}
    notes: list[tuple[int, int, str]] = []
    body: list[cst.BaseStatement] = []
    for original in module.body:
        statement = explicit.get(id(original), original)
        here = [(n, f) for n, f in chosen.items() if f.statement is original]
        if not here:
            body.append(statement)
            continue
        line, column = positions.get(original) or (1, 0)
        copied = {n for n, _ in here}
        kept = _without_names(cst.ensure_type(statement, cst.SimpleStatementLine), copied)
        if kept is not None:
            body.append(kept)
        helpers = here[0][1].module
        for name in [n for n in helpers.functions if n in copied]:  # (in the helper module's order)
            function = cst.parse_statement(helpers.functions[name])
            function = function.with_changes(leading_lines=[cst.EmptyLine()] * 2)
            origins[id(function)] = line
            for inner in find_all(function, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                origins[id(inner)] = line
            body.append(function)
        listed = ", ".join(f"`{n}`" for n in helpers.functions if n in copied)
        notes.append(
            (
                line,
                column + 1,
                f"{listed} of {helpers.path.name}, which this file imports and calls, copied into this file as written "
                f"there, so the helpers making variables are split into variables and ops as the file's own are; "
                f"{helpers.path.name} is left as it is for its other importers",
            )
        )
    new = module.with_changes(body=body)
    return Copied(new.code, anchored_lines(new, positions, origins), notes)


def _explicit_star_imports(
    module: cst.Module, modules: dict[str, ModuleSummary], read: set[str], read_of_module: frozenset[str], own_imports: dict[str, str]
) -> dict[int, cst.SimpleStatementLine] | str:
    """Each top-level ``from M import *`` of a module of the run, by id, as ``from M import a, b``
    naming what the star bound that the file's text names (the rest it never reads: the
    file's code reaches a global only by its name), so the file's names are its text's, which
    the static shapes the split reads need (analysis/static_shapes.py follows no module with a
    star import).  A module both import by the same ``import X as Y`` is left out: the star bound
    ``Y`` to the object the file's own statement binds (``sys.modules``' one).  Why not, where the
    star's names are unknown or read otherwise."""
    if read & _MODULE_READERS:
        return f"this file calls `{sorted(read & _MODULE_READERS)[0]}`, which reads the names a star import gives it"
    out: dict[int, cst.SimpleStatementLine] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        node = statement.body[0]
        if not isinstance(node, cst.ImportFrom) or not isinstance(node.names, cst.ImportStar):
            continue
        dotted = "." * len(node.relative) + (get_full_name_for_node(node.module) or "" if node.module is not None else "")
        summary = modules.get(dotted)
        if summary is None or summary.star_names is None:
            return f"`from {dotted} import *` gives this file names the run cannot list, which the split's static shapes need fixed"
        same = {
            n
            for n, text in own_imports.items()
            if text.startswith("import ") and _tf1_binding(summary.imports.get(n)) == _tf1_binding(text)
        }
        bound = sorted(summary.star_names & read - same)
        unread = (summary.star_names - read) & read_of_module
        if unread:
            # (a file importing this one may read it of this file (FileContext.importer_module_names), which would lose it)
            return f"`from {dotted} import *` gives this file `{sorted(unread)[0]}`, which a file of the run importing this one reads of it"
        if not bound:
            # (the file reads nothing it gave: ``import M`` still runs the module first, as the star did)
            root = dotted.split(".")[0]
            if not root or root in read | read_of_module:
                return f"`from {dotted} import *` gives this file no name it reads, and `{dotted}` is no name to import it by"
            out[id(statement)] = statement.with_changes(body=[cst.Import([cst.ImportAlias(cst.parse_expression(dotted))])])  # type: ignore[arg-type]
            continue
        aliases = [cst.ImportAlias(cst.Name(n), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for n in bound]
        aliases[-1] = aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        out[id(statement)] = statement.with_changes(body=[node.with_changes(names=aliases)])
    return out


def _aliases(node: cst.CSTNode) -> list[cst.ImportAlias]:
    names = getattr(node, "names", None)
    return list(names) if isinstance(names, (list, tuple)) else []


def _without_names(statement: cst.SimpleStatementLine, names: set[str]) -> cst.SimpleStatementLine | None:
    """The import statement without the names the copies now bind (a star import stays: it
    gives the file the module's other names); None if nothing is left."""
    small: list[cst.BaseSmallStatement] = []
    for node in statement.body:
        if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            aliases = [a for a in node.names if not (isinstance(a.name, cst.Name) and a.asname is None and a.name.value in names)]
            if not aliases:
                continue
            aliases[-1] = aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            node = node.with_changes(
                names=aliases, rpar=node.rpar if len(aliases) > 1 else None, lpar=node.lpar if len(aliases) > 1 else None
            )
        small.append(node)
    if not small:
        return None
    return statement.with_changes(body=small)


def with_reason(findings: list[Diagnostic], reason: str) -> list[Diagnostic]:
    """The findings, with why the imported helpers were not copied (or, copied, what still
    keeps the graph on TF1) appended to the TFM304 refusals that name an imported helper."""
    return [
        dataclasses.replace(f, message=f"{f.message}; not copied into this file: {reason}")
        if f.code == VARIABLE_IN_COMPUTATION.code and IMPORTED in f.message
        else f
        for f in findings
    ]
