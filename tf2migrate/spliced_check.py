"""The output check of the rename-only path, made on the statement runs it replaced.

``renames_only.py`` cuts a file into runs of whole statements, rewrites the runs that name
TensorFlow and copies every other character.  ``output_check`` would parse the whole
output and run pyflakes over it — on a large library tree a sixth of the run's time —
to learn what the runs alone tell:

- **valid Python**: each changed run parses alone (a nested one under ``if True:``) and
  starts at its old indentation; the rest is the input's, and runs are whole statements;
- **TF paths**: outside the runs no line holds the ``tf`` alias (runs are cut wherever a
  TF alias stands), so only the runs' paths can be new;
- **undefined names**: the copied text reads its names as the input did unless a run binds
  one of them fewer times; a name a run newly reads (``app.run(main)`` for
  ``tf.app.run()``) is defined when a module-level statement before the reading one binds
  it.

When a run drops a binding that the output may still read, or newly reads a name no
earlier module-level statement binds, the whole output is checked as before, so the
verdict is always ``output_check``'s (``tests/test_spliced_check.py`` compares the two).
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.output_check import paths_problem, problem_of, proven_valid, tf_paths, tf_root
from tf2migrate.traversal import push_children

NESTED_HEADER = "if True:\n"  # what a run inside a block is parsed under


@dataclass(frozen=True)
class Splice:
    """A run of the input's statements and the text that replaces it."""

    old: Sequence[ast.stmt]  # the input's statements (CPython's tree)
    start: int  # where the run's text starts and ends in the input
    end: int
    new_text: str
    nested: bool  # inside a block: parsed under NESTED_HEADER, at its indentation


_Key = tuple[int, int]  # where a statement stands among the module's: (line, index in its run)


def spliced_problem(tree: ast.Module, source: str, new_source: str, imports: TfImports, splices: Sequence[Splice]) -> str | None:
    """``output_check.problem_of(tree, new_source, imports)``, for a ``new_source`` that
    is ``source`` with each splice's text put in place of its run (see the module doc)."""
    if "tf" not in imports.aliases:
        return problem_of(tree, new_source, imports)  # (``tf`` may then stand outside the runs)
    changed: list[tuple[Splice, list[ast.stmt]]] = []
    roots: list[ast.stmt] = []  # the runs' statements as they will be
    for splice in splices:
        if splice.new_text == source[splice.start : splice.end]:
            roots += splice.old
            continue
        try:
            new = _parsed_run(splice, source)
        except SyntaxError as error:
            return f"rewrite produced invalid code ({error.msg})"
        if new is None:
            return problem_of(tree, new_source, imports)
        changed.append((splice, new))
        roots += new
    proven_valid(new_source)
    if not _names_defined(tree, source, changed):
        return problem_of(tree, new_source, imports)
    return paths_problem(tree, tf_paths(roots, tf_root), imports)


def _parsed_run(splice: Splice, source: str) -> list[ast.stmt] | None:
    """The new run's statements, or None when it does not start at the old run's
    indentation (then only the whole file can tell whether it parses)."""
    if _indentation(splice.new_text) != _indentation(source[splice.start : splice.end]):
        return None
    with warnings.catch_warnings():  # the user's own oddities are not ours to report
        warnings.simplefilter("ignore")
        module = ast.parse(NESTED_HEADER + splice.new_text if splice.nested else splice.new_text)
    if not splice.nested:
        return module.body
    header = module.body[0]
    assert isinstance(header, ast.If)
    return header.body


def _indentation(text: str) -> str:
    return text[: len(text) - len(text.lstrip(" \t"))]


def _names_defined(tree: ast.Module, source: str, changed: list[tuple[Splice, list[ast.stmt]]]) -> bool:
    """Can the output leave no name undefined that the input defined?  (False: only
    pyflakes on the whole output can tell.)"""
    bound_at = _module_bindings(tree, changed)
    starts = [node.lineno for node in tree.body]  # (decorators aside: only the order matters)
    read: set[str] = set()  # what the changed runs read
    lost: set[str] = set()  # what they bind fewer times than before
    for splice, new in changed:
        old_reads, old_binds = _names(splice.old)
        new_binds: Counter[str] = Counter()
        first = splice.old[0].lineno
        container = starts[bisect.bisect_right(starts, first) - 1] if splice.nested else first
        for index, statement in enumerate(new):
            reads, binds = _names([statement])
            new_binds.update(binds)
            read |= reads
            here = (container, 0) if splice.nested else (first, index)
            if any(bound_at.get(name, here) >= here for name in reads - old_reads):
                return False
        lost |= {name for name, count in old_binds.items() if new_binds[name] < count}
    if not lost:
        return True
    if "*" in lost or lost & read:
        return False
    copied = "".join(_copied(source, [splice for splice, _ in changed]))
    return not re.search(r"\b(?:" + "|".join(map(re.escape, sorted(lost))) + r")\b", copied)


def _module_bindings(tree: ast.Module, changed: list[tuple[Splice, list[ast.stmt]]]) -> dict[str, _Key]:
    """Where the output's module-level statements first bind each name (imports, defs,
    classes, assignments to names; what they bind in blocks is left out)."""
    replaced = {id(node) for splice, _ in changed if not splice.nested for node in splice.old}
    statements: list[tuple[_Key, ast.stmt]] = [((node.lineno, 0), node) for node in tree.body if id(node) not in replaced]
    for splice, new in changed:
        if not splice.nested:
            statements += [((splice.old[0].lineno, index), node) for index, node in enumerate(new)]
    bound_at: dict[str, _Key] = {}
    for key, node in statements:
        for name in _bound_by(node):
            if name not in bound_at or key < bound_at[name]:
                bound_at[name] = key
    return bound_at


def _bound_by(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [alias.asname or alias.name.split(".")[0] for alias in node.names if alias.name != "*"]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)]
    return []


# the node types, other than names, that bind a name (CPython's parser makes no subclasses)
_BINDERS = frozenset(
    {
        ast.Import,
        ast.ImportFrom,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.arg,
        ast.Global,
        ast.Nonlocal,
        ast.ExceptHandler,
        ast.MatchAs,
        ast.MatchStar,
        ast.MatchMapping,
    }
)


def _names(statements: Sequence[ast.stmt]) -> tuple[set[str], Counter[str]]:
    """The names the statements read (or delete: pyflakes reports deleting an undefined
    name too) and how many times they bind each (``*`` for a star import, which hides
    undefined names from pyflakes)."""
    reads: set[str] = set()
    binds: Counter[str] = Counter()
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                binds[node.id] += 1
            else:
                reads.add(node.id)
        elif type(node) not in _BINDERS:
            pass  # (most nodes: the tests below are skipped)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            binds.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            binds[node.name] += 1
        elif isinstance(node, ast.arg):
            binds[node.arg] += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            binds.update(node.names)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            binds[node.name] += 1
        elif isinstance(node, ast.MatchMapping) and node.rest:
            binds[node.rest] += 1
        push_children(stack, node)
    return reads, binds


def _copied(source: str, runs: list[Splice]) -> list[str]:
    """The input's text outside the runs."""
    pieces, copied = [], 0
    for run in sorted(runs, key=lambda run: run.start):
        pieces.append(source[copied : run.start])
        copied = run.end
    pieces.append(source[copied:])
    return pieces
