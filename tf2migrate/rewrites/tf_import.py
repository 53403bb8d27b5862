"""One ``import tensorflow as tf`` replaces the TF1 imports of a migrated file.

Every TF reference of the file is written ``tf.…`` (see ``tf_names``), so whichever
aliases the TF1 code imported (``T``, ``tensorflow.compat.v1``, ``from tensorflow import
placeholder``), one import serves them all; it takes the place of the first TF import.
Imports of modules outside the public TF1 API (``tensorflow.contrib.slim``,
``tensorflow.examples.tutorials``, ``tensorflow.python.ops``) are not aliases of ``tf``:
they are kept as written (see ``analysis/tf_imports.py``), and so are the other imports
that share a statement with a TF import.

A file whose TF alias is not ``tf`` but that binds ``tf`` to something else (``def
helper(tf): ...``) cannot be written with ``tf.X`` references: that is known before any
rewrite is planned (``import_conflict``), and the file is left as it is.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.plan import Plan


def import_conflict(imports: TfImports, module_names: set[str]) -> bool:
    """Does the file bind ``tf`` to something other than TensorFlow's root?"""
    return "tf" in module_names and imports.aliases.get("tf") != ""


def plan_tf_import(module: cst.Module, imports: TfImports, plan: Plan) -> None:
    placed = False
    for statement in imports.statements:
        kept = _without_tf_imports(statement, imports.replaced)
        new_import = None
        if not placed:
            placed = True
            new_import = cst.parse_statement("import tensorflow as tf\n", config=module.config_for_parsing)
            new_import = new_import.with_changes(leading_lines=statement.leading_lines)
        if kept is None:
            if new_import is not None:
                plan.replace[id(statement)] = new_import
            else:
                plan.remove.add(id(statement))
            continue
        if new_import is not None:
            kept = kept.with_changes(leading_lines=())
            plan.insert_before.setdefault(id(statement), []).append(new_import)
        plan.replace[id(statement)] = kept


def _without_tf_imports(statement: cst.SimpleStatementLine, replaced: set[int]) -> cst.SimpleStatementLine | None:
    """The statement without the imports ``import tensorflow as tf`` replaces (None: nothing left)."""
    body: list[cst.BaseSmallStatement] = []
    for small in statement.body:
        if id(small) in replaced:
            continue
        if isinstance(small, cst.Import):
            names = [a for a in small.names if id(a) not in replaced]
            if not names:
                continue
            if len(names) != len(small.names):
                names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                small = small.with_changes(names=names)
        body.append(small)
    if not body:
        return None
    if len(body) != len(statement.body):
        body[-1] = body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return statement.with_changes(body=body)
