"""One ``import tensorflow as tf`` replaces the TF1 imports of a migrated file.

Every TF reference of the file is written ``tf.…`` (see ``tf_names``), so whichever
aliases the TF1 code imported (``T``, ``tensorflow.compat.v1``, ``from tensorflow import
placeholder``), one import serves them all; it takes the place of the first TF import.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.graph import GraphFacts
from tf2migrate.analysis.tf_imports import TF_ROOT
from tf2migrate.plan import Plan


def _is_tf_alias(alias: cst.ImportAlias) -> bool:
    from libcst.helpers import get_full_name_for_node

    dotted = get_full_name_for_node(alias.name) or ""
    return dotted == TF_ROOT or dotted.startswith(TF_ROOT + ".")


def plan_tf_import(module: cst.Module, facts: GraphFacts, plan: Plan, module_names: set[str]) -> None:
    imports = facts.imports
    if "tf" in module_names and imports.aliases.get("tf") != "":
        facts.block(module, blockers.UNSUPPORTED_GRAPH_CODE, "the name `tf` is bound to something other than TensorFlow")
        return
    for index, statement in enumerate(imports.statements):
        mixed = any(
            isinstance(small, cst.Import) and not all(_is_tf_alias(a) for a in small.names)
            for small in statement.body
        ) or len(statement.body) > 1
        if mixed:
            facts.block(statement, blockers.UNSUPPORTED_GRAPH_CODE, "a TF import shares its statement with other imports")
            return
        if index == 0:
            plan.replace[id(statement)] = cst.parse_statement("import tensorflow as tf\n").with_changes(
                leading_lines=statement.leading_lines
            )
        else:
            plan.remove.add(id(statement))
