"""``from tensorflow import *``: TensorFlow's names bound without a prefix.

tf2migrate knows TF code by the names a module's imports bind (``tf`` of ``import
tensorflow as tf``, ``placeholder`` of ``from tensorflow import placeholder``).  A star
import binds hundreds of names no statement spells out, so ``log(x)``, ``placeholder(...)``
and ``Session()`` read like any other function's calls: renamed, they would need a guess
at which bare names are TensorFlow's and at what the file defines itself; left alone, TF2
either lacks them (``placeholder``) or means something else.  The file is left as written
and reported (TFM007): at the import, and at each bare use of a TF1 name that TF2 lacks or
changed, so the user can spell the imports out and run again.

``tensorflow.compat.*`` (its names keep their TF1 meaning in TF2) and ``tensorflow.keras``
(the same in both) are not reported.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tf2migrate.analysis.tf_imports import tf_relative
from tf2migrate.data.tf_symbols import DIFFERENT_IN_TF2, V1_ONLY

_UNCHANGED_NAMESPACES = ("compat", "keras")


@dataclass(frozen=True)
class StarUse:
    """A bare TF1 name the star import at ``source`` binds, read at ``node``."""

    node: ast.Name
    path: str  # ``log``, ``nn.dropout``: its TF1 path
    source: ast.ImportFrom


def tf_star_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    """The module's top-level ``from tensorflow[.X] import *`` whose names may differ in TF2."""
    found: list[ast.ImportFrom] = []
    for statement in tree.body:
        if not (isinstance(statement, ast.ImportFrom) and statement.level == 0 and any(a.name == "*" for a in statement.names)):
            continue
        relative = tf_relative(statement.module or "")
        if relative is not None and relative.split(".")[0] not in _UNCHANGED_NAMESPACES:
            found.append(statement)
    return found


def changed_names_used(tree: ast.Module, imports: list[ast.ImportFrom]) -> list[StarUse]:
    """Each read of a name the star imports bind that TF2 lacks or changed (``placeholder``,
    ``log``, ``Session``), unless the file binds that name itself."""
    bound = _bound_names(tree)
    uses: list[StarUse] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)) or node.id in bound:
            continue
        for source in imports:
            prefix = tf_relative(source.module or "")
            path = f"{prefix}.{node.id}" if prefix else node.id
            if path in V1_ONLY or path in DIFFERENT_IN_TF2:
                uses.append(StarUse(node, path, source))
                break
    return sorted(uses, key=lambda u: (u.node.lineno, u.node.col_offset))


def _bound_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
    return names
