"""Every edit of a migrated file's import statements, in one module.

**The TF import.** One ``import tensorflow as tf`` replaces the TF1 imports of a migrated file.

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

**Session factories of other modules**: their calls go, and so does their import.

``self.sess = tf_session()``, where ``tf_session`` (imported from ``utilities``) makes a
session, configures it and runs the variables initializer, is a session statement like
``self.sess = tf.Session()``: removed (TFM103), since TF2 has no session to make and its
variables hold their values from creation.  The name imported for it is then unused;
it is removed from its ``from … import`` too, so that the factory can be removed from its
module when no file of the run calls it any more (engine.py decides that).

**absl.** ``tf.app.flags`` / ``tf.logging`` / ``tf.app.run`` become absl's (TFM402):
``from absl import flags, logging`` is added after the TF import, under another local name
when the file binds the plain one.  The edits are written directly rather than with
libcst's ``AddImportsVisitor`` / ``RemoveImportsVisitor``, which walk the whole module again
to find what is imported (measured: a quarter of the run time on large trees).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.model import GraphFacts, Kind
from tf2migrate.analysis.module_facts import module_alias_binding, ModuleFacts, shadowed_alias
from tf2migrate.analysis.summaries import SESSION
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.plan import Plan
from tf2migrate.traversal import find_all


def import_conflict(imports: TfImports, facts: ModuleFacts, tree: ast.Module) -> tuple[str, int] | None:
    """Why the file cannot be written with ``tf.X`` references, and the line to report:
    it binds ``tf`` to something other than TensorFlow's root, module code binds a TF alias
    again or deletes it (``module_facts.module_alias_binding``), or a function binds a TF
    alias to something else and reads it (``module_facts.shadowed_alias``); None if not."""
    if "tf" in facts.names and imports.aliases.get("tf") != "":
        message = (
            f"the file binds `tf` to something other than TensorFlow (imported here as "
            f"`{next(iter(imports.aliases))}`); migrated code writes `tf.X`: rename that binding and run again"
        )
        return message, 1
    rebound = module_alias_binding(tree, imports, facts)
    if rebound is not None:
        name, line = rebound
        message = (
            f"the module binds `{name}` (TensorFlow in this file) again or deletes it here: its `{name}.X` after this "
            "would be migrated as TensorFlow's; rename that binding and run again"
        )
        return message, line
    shadowed = shadowed_alias(tree, imports, facts)
    if shadowed is None:
        return None
    name, line = shadowed
    message = (
        f"a function binds `{name}` (TensorFlow in this file) to something else and reads it: its `{name}.X` "
        "would be migrated as TensorFlow's; rename that binding and run again"
    )
    return message, line


def plan_tf_import(config: cst.PartialParserConfig, imports: TfImports, plan: Plan) -> None:
    """``config``: the module's (its newline and indentation).

    The comment at the end of a TF import's line is the user's: it stays on the line of
    ``import tensorflow as tf`` when that import takes the statement's place, and goes
    above it when the statement is removed (or kept for its other imports, which keep it)."""
    placed: list[cst.SimpleStatementLine] = []  # the one ``import tensorflow as tf``
    replaced_whole = False  # it took the first statement's place (else it stands before it)
    orphans: list[cst.EmptyLine] = []  # trailing comments of the TF imports removed
    for statement in imports.statements:
        kept = _without_tf_imports(statement, imports.replaced)
        if not placed:
            new_import = cst.parse_statement("import tensorflow as tf\n", config=config)
            assert isinstance(new_import, cst.SimpleStatementLine)
            if kept is None:
                new_import = new_import.with_changes(
                    leading_lines=statement.leading_lines, trailing_whitespace=statement.trailing_whitespace
                )
                plan.replace[id(statement)] = new_import
                replaced_whole = True
            else:
                new_import = new_import.with_changes(leading_lines=statement.leading_lines)
                plan.insert_before.setdefault(id(statement), []).append(new_import)
                plan.replace[id(statement)] = kept.with_changes(leading_lines=())
            placed.append(new_import)
            continue
        if kept is None:
            plan.remove.add(id(statement))
            comment = statement.trailing_whitespace.comment
            if comment is not None:
                orphans.append(cst.EmptyLine(comment=comment))
        else:
            plan.replace[id(statement)] = kept
    if orphans and placed:
        moved = placed[0].with_changes(leading_lines=[*placed[0].leading_lines, *orphans])
        first = imports.statements[0]
        if replaced_whole:
            plan.replace[id(first)] = moved
        else:
            plan.insert_before[id(first)] = [moved if s is placed[0] else s for s in plan.insert_before[id(first)]]


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


def plan_factory_imports(module: cst.Module, facts: GraphFacts, plan: Plan) -> None:
    factories = {name for name, found in facts.imported.items() if found.kind == SESSION and "." not in name}
    if not factories:
        return
    removed = {
        id(s.node.body[0].value.func)
        for scope in facts.scopes
        for s in scope.statements
        if s.kind is Kind.SESSION
        and id(s.node) in plan.remove
        and isinstance(s.node, cst.SimpleStatementLine)
        and isinstance(s.node.body[0], cst.Assign)
        and isinstance(s.node.body[0].value, cst.Call)
    }
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
                continue
            unused = {
                id(alias)
                for alias in small.names
                if (local := _local(alias)) in factories and _only_removed_uses(module, alias, local, removed)
            }
            if not unused:
                continue
            if len(unused) < len(small.names):
                plan.replace[id(small)] = _without(unused, small)
            elif len(statement.body) == 1:
                plan.remove.add(id(statement))


def _local(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return alias.name.value if isinstance(alias.name, cst.Name) else ""


def _only_removed_uses(module: cst.Module, alias: cst.ImportAlias, local: str, removed: set[int]) -> bool:
    """Is every other mention of ``local`` the callee of a removed session statement?"""
    own = {id(n) for n in find_all(alias, m.Name(local))}
    return all(id(n) in own or id(n) in removed for n in find_all(module, m.Name(local)))


def _without(unused_ids: set[int], original: cst.ImportFrom):
    """The import without the unused aliases (by position: the updated node's aliases are
    new objects), its last alias without a trailing comma unless it is parenthesized."""
    aliases = original.names if not isinstance(original.names, cst.ImportStar) else ()
    keep = [i for i, alias in enumerate(aliases) if id(alias) not in unused_ids]

    def build(updated: cst.ImportFrom) -> cst.ImportFrom:
        names = [updated.names[i] for i in keep]  # type: ignore[index]
        if updated.lpar is None:
            names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=names)

    return build


def _imported_from_absl(statements: Sequence[cst.CSTNode]) -> set[str]:
    """Local names the file already imports with ``from absl import ...`` (``statements``:
    the module's own, or at least its import statements)."""
    return {
        a.evaluated_alias or a.evaluated_name
        for s in statements
        if isinstance(s, cst.SimpleStatementLine)
        for small in s.body
        if isinstance(small, cst.ImportFrom)
        and isinstance(small.module, cst.Name)
        and small.module.value == "absl"
        and not isinstance(small.names, cst.ImportStar)
        for a in small.names
    }


def absl_names(statements: Sequence[cst.CSTNode], module_names: set[str]) -> dict[str, str]:
    """Local names for absl's flags/logging/app: the plain name unless the file binds it
    to something else (``import logging``, ``flags = tf.app.flags``)."""
    from_absl = _imported_from_absl(statements)
    return {name: name if name in from_absl or name not in module_names else f"absl_{name}" for name in ("flags", "logging", "app")}


def add_absl_imports(module: cst.Module, plan: Plan) -> cst.Module:
    """``from absl import flags, logging`` right after ``import tensorflow as tf``.

    Written directly rather than with libcst's AddImportsVisitor, which walks the whole
    module again (a quarter of the run time on large trees) to find what is imported."""
    body = list(module.body)
    statement = absl_import(plan, body, module.config_for_parsing)
    if statement is None:
        return module
    anchor = tf_import_index(body)
    body.insert(anchor + 1 if anchor is not None else 0, statement)
    return module.with_changes(body=body)


def absl_import(plan: Plan, statements: Sequence[cst.CSTNode], config: cst.PartialParserConfig) -> cst.SimpleStatementLine | None:
    """The ``from absl import …`` the renamed code needs and ``statements`` (the module's
    own, or at least its import statements) do not have yet, or None."""
    if not plan.renames.absl_modules:
        return None
    imported = _imported_from_absl(statements)
    names = []
    for name in sorted(plan.renames.absl_modules):
        local = plan.absl_names.get(name, name)
        if local not in imported:
            names.append(name if local == name else f"{name} as {local}")
    if not names:
        return None
    return cst.ensure_type(cst.parse_statement(f"from absl import {', '.join(names)}\n", config=config), cst.SimpleStatementLine)


def tf_import_index(statements: Sequence[cst.CSTNode]) -> int | None:
    """Where ``import tensorflow as tf`` stands among the (rewritten) statements, written
    just so, whatever the comments above it."""
    empty = cst.Module([])
    for index, statement in enumerate(statements):
        if _imports_tensorflow_as_tf(statement):
            assert isinstance(statement, cst.SimpleStatementLine)
            if empty.code_for_node(statement.with_changes(leading_lines=())).strip() == "import tensorflow as tf":
                return index
    return None


def _imports_tensorflow_as_tf(statement: cst.CSTNode) -> bool:
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and isinstance(statement.body[0], cst.Import)):
        return False
    (alias, *others) = statement.body[0].names
    return (
        not others
        and isinstance(alias.name, cst.Attribute) is False
        and alias.evaluated_name == "tensorflow"
        and alias.evaluated_alias == "tf"
    )
