"""The one transformer that applies a :class:`~tf2migrate.plan.Plan`.

It walks the module once: each node a rewrite planned an edit for is replaced, removed,
opened up or given neighbours, and every TF reference is normalised on the way (it is a
``TfNameNormalizer``), so a file costs one rewriting walk whatever the rewrites decided —
and the walk enters only statements with something to edit (analysis/edit_sites.py).
Removed statements leave their comments to the next statement kept.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection

import libcst as cst

from tf2migrate.analysis.edit_sites import entered_parts
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.layout import leading_lines
from tf2migrate.plan import Plan
from tf2migrate.traversal import is_a
from tf2migrate.rewrites.tf_names import TfNameNormalizer, plan_settings


class PlanApplier(TfNameNormalizer):
    """Applies a plan and normalises TF names in one pass over the module."""

    def __init__(self, plan: Plan, imports: TfImports, quiet: Collection[int] = (), words: frozenset[str] | None = None) -> None:
        super().__init__(imports, **plan_settings(plan))
        self.plan = plan
        # statements that hold nothing to edit (analysis/edit_sites.py): not entered
        self.quiet = quiet
        # Inside the statements entered, only the parts that hold a name the renamer acts
        # on (``words``) or a planned edit are entered (analysis/edit_sites.entered_parts);
        # ``None``: every part.
        self.words = words
        self.targets = plan.edited_nodes() if words is not None else set()
        self.entered: set[int] = set()
        # Nodes this pass creates and recognises later by identity; held here so that
        # their ids are not reused by other nodes once they leave the tree.
        self._filler_passes: dict[int, cst.CSTNode] = {}  # ``pass`` in emptied blocks
        self._removed_markers: dict[int, cst.CSTNode] = {}  # stand-ins for removed statements
        self._dropped_items: set[int] = set()  # context managers of opened-up with blocks

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.quiet:
            return False
        if self.words is not None:
            if is_a(node, cst.BaseStatement):
                self.entered |= entered_parts(node, self.words, self.targets)
            elif id(node) not in self.entered and not is_a(node, (cst.Module, cst.BaseSuite)):
                return False
        if id(node) in self.plan.remove or id(node) in self._dropped_items:
            return False  # it goes away: nothing inside it is rewritten or reported
        if isinstance(node, cst.With) and id(node) in self.plan.unwrap:
            self._dropped_items.update(id(item) for item in node.items)
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        updated = super().on_leave(original_node, updated_node)
        key = id(original_node)
        plan = self.plan
        if key in plan.replace:
            replacement = plan.replace[key]
            if callable(replacement):  # built from the updated node (keeps inner rewrites)
                replacement = replacement(updated)
            if not isinstance(original_node, cst.BaseStatement):
                if isinstance(replacement, cst.BaseExpression) and isinstance(updated, cst.BaseExpression):
                    if not replacement.lpar:
                        replacement = replacement.with_changes(lpar=updated.lpar, rpar=updated.rpar)
                return replacement
            updated = replacement  # a replaced statement can still have insertions
        if not isinstance(original_node, cst.BaseStatement):
            return updated
        before = plan.insert_before.get(key, [])
        after = plan.insert_after.get(key, [])
        if key in plan.remove:
            kept: list[cst.BaseStatement] = []
        elif key in plan.unwrap and isinstance(updated, cst.With) and isinstance(updated.body, cst.SimpleStatementSuite):
            # ``with tf.Session() as sess: print(sess.run(y))``: the body as a line of its own
            suite = updated.body
            kept = [cst.SimpleStatementLine(suite.body, leading_lines(original_node), suite.trailing_whitespace)]
        elif key in plan.unwrap and isinstance(updated, cst.With) and isinstance(updated.body, cst.IndentedBlock):
            kept = [s for s in updated.body.body if id(s) not in self._filler_passes]
            if kept and leading_lines(original_node):
                kept[0] = kept[0].with_changes(leading_lines=[*leading_lines(original_node), *leading_lines(kept[0])])
            footer = getattr(updated.body, "footer", ())  # comments closing the block
            if _has_comment(footer):
                after = [self._marker(footer), *after]
        else:
            assert isinstance(updated, cst.BaseStatement)  # a statement's replacement is a statement
            kept = [updated]
        result = [*before, *kept, *after]
        if len(result) == 1 and result[0] is updated:
            return updated
        # The blank lines and comments above a statement that goes away: comments that
        # did not move with its code into a generated function go to the next statement.
        lines = [] if kept else [line for line in leading_lines(original_node) if key not in plan.commented or line.comment is None]
        if not result:
            return self._marker(lines)
        if _has_comment(lines):
            result = [*before, self._marker(lines), *after]
        return cst.FlattenSentinel(result)

    def _marker(self, lines) -> cst.SimpleStatementLine:
        """A stand-in for removed code, folded away by the enclosing block so that the
        blank lines and comments above it survive (see _fold_markers)."""
        marker = cst.SimpleStatementLine([cst.Pass()], leading_lines=lines)
        self._removed_markers[id(marker)] = marker
        return marker

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body, comments = self._fold_markers(updated_node.body, around_defs=2)
        return updated_node.with_changes(body=body, footer=[*comments, *updated_node.footer])

    def leave_IndentedBlock(self, original_node, updated_node):
        body, comments = self._fold_markers(updated_node.body, around_defs=1)
        if not body:
            filler = cst.SimpleStatementLine([cst.Pass()])
            self._filler_passes[id(filler)] = filler
            body = [filler]
        return updated_node.with_changes(body=body, footer=[*comments, *updated_node.footer])

    def leave_FunctionDef(self, original_node, updated_node):
        # a generated def opening a function's body follows the ``def`` line directly
        body = updated_node.body
        first = body.body[0] if isinstance(body, cst.IndentedBlock) and body.body else None
        if not isinstance(first, cst.FunctionDef) or id(first) not in self.plan.generated:
            return updated_node
        lines = list(itertools.dropwhile(lambda line: line.comment is None, first.leading_lines))
        if len(lines) == len(first.leading_lines):
            return updated_node
        opened = first.with_changes(leading_lines=lines)
        self.plan.generated[id(opened)] = opened
        return updated_node.with_changes(body=body.with_changes(body=[opened, *body.body[1:]]))

    def _fold_markers(self, body, around_defs: int) -> tuple[list, list[cst.EmptyLine]]:
        """Drop removal markers, keeping one blank line where removed statements stood and
        their comments above the next statement (or, at the end of the block, as the
        comments returned for its footer), and keep PEP 8 spacing (``around_defs`` blank
        lines) after generated defs."""
        out: list = []
        pending_blank = False
        carried: list[cst.EmptyLine] = []  # comments of removed statements, with the blank lines among them
        for statement in body:
            if id(statement) in self._removed_markers:
                if _has_comment(statement.leading_lines):
                    carried += statement.leading_lines
                else:
                    pending_blank = pending_blank or any(line.comment is None for line in statement.leading_lines)
                continue
            lines = [*carried, *statement.leading_lines]
            carried = []
            if out and id(out[-1]) in self.plan.generated:
                blank = 0
                while blank < len(lines) and lines[blank].comment is None:
                    blank += 1
                lines = [cst.EmptyLine(indent=False)] * around_defs + lines[blank:]
            elif pending_blank and out and (not lines or lines[0].comment is not None):
                lines = [cst.EmptyLine(indent=False), *lines]
            if lines != list(statement.leading_lines):
                was_generated = id(statement) in self.plan.generated
                statement = statement.with_changes(leading_lines=lines)
                if was_generated:
                    self.plan.generated[id(statement)] = statement
            pending_blank = False
            out.append(statement)
        return out, carried


def _has_comment(lines) -> bool:
    return any(line.comment is not None for line in lines)
