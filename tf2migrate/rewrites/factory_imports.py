"""Session factories of other modules: their calls go, and so does their import.

``self.sess = tf_session()``, where ``tf_session`` (imported from ``utilities``) makes a
session, configures it and runs the variables initializer, is a session statement like
``self.sess = tf.Session()``: removed (TFM103), since TF2 has no session to make and its
variables hold their values from creation.  The name imported for it is then unused;
it is removed from its ``from … import`` too, so that the factory can be removed from its
module when no file of the run calls it any more (engine.py decides that).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.model import GraphFacts, Kind
from tf2migrate.analysis.summaries import SESSION
from tf2migrate.plan import Plan


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
    own = {id(n) for n in m.findall(alias, m.Name(local))}
    return all(id(n) in own or id(n) in removed for n in m.findall(module, m.Name(local)))


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
