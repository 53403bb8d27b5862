"""Questions about names asked of Python's own symbol tables (``symtable``) and calls that
see scopes: what moving statements between a function and its module
(rewrites/main_guard.py, rewrites/factory_inline.py) may change."""

from __future__ import annotations

import re
import symtable
from collections.abc import Callable

import libcst as cst

from tf2migrate.traversal import find_all

# calls that see or change scopes: a name moved between a function and its module is no
# longer where they look
SCOPE_INSPECTION = frozenset({"globals", "locals", "vars", "exec", "eval", "dir"})
# symbol tables of scopes a function's body may hold without changing what its names mean
INLINE_SCOPES = frozenset({"lambda", "listcomp", "setcomp", "dictcomp", "genexpr"})


# one of SCOPE_INSPECTION as a word of the text: no call of one by name without it
_SCOPE_WORDS = re.compile(r"\b(?:" + "|".join(sorted(SCOPE_INSPECTION)) + r")\b")


def inspects_scopes(module: cst.Module, source: str | None = None) -> bool:
    """Does the module call one of SCOPE_INSPECTION by its builtin name?  ``source``: the
    module's text, read first (a walk of the whole tree is what most files would pay)."""
    if source is not None and _SCOPE_WORDS.search(source) is None:
        return False
    return any(
        isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in SCOPE_INSPECTION
        for call in find_all(module, cst.Call)
    )


def module_table(module: cst.Module, source: str) -> symtable.SymbolTable | None:
    """The symbol table of the module (``source`` its text), or None when its names cannot be
    judged on it: it calls a builtin that sees scopes, or does not compile."""
    if inspects_scopes(module, source):
        return None
    try:
        return symtable.symtable(source, "<module>", "exec")
    except SyntaxError:
        return None


def tables_under(table: symtable.SymbolTable) -> list[symtable.SymbolTable]:
    """Every scope inside ``table``, nested ones included."""
    out: list[symtable.SymbolTable] = []
    for child in table.get_children():
        out += [child, *tables_under(child)]
    return out


def reads_globals(table: symtable.SymbolTable, names: set[str]) -> bool:
    """Does this scope, or one inside it, read or bind any of ``names`` as a global?"""
    uses: Callable[[symtable.Symbol], bool] = lambda s: s.get_name() in names and (s.is_global() or s.is_declared_global())
    return any(uses(s) for s in table.get_symbols()) or any(reads_globals(c, names) for c in table.get_children())


def function_table(top: symtable.SymbolTable, function: cst.FunctionDef, line: int) -> symtable.Function | None:
    """The symbol table of ``function`` (its ``def`` on ``line``) among the scopes under
    ``top``; None when it is not found once."""
    tables = [t for t in tables_under(top) if t.get_type() == "function" and t.get_name() == function.name.value and t.get_lineno() == line]
    return tables[0] if len(tables) == 1 and isinstance(tables[0], symtable.Function) else None
