"""Several visitors in one walk of a tree.

Each walk of a libcst tree costs about as much as parsing the file, so facts gathered by
independent visitors are gathered together.  libcst's own ``visit_batched`` cannot serve:
its visitors may not decline a subtree, and ours do (an import's names are not
references, an attribute name is not a variable).
"""

from __future__ import annotations

import libcst as cst


class _Together(cst.CSTVisitor):
    """Each visitor sees exactly the nodes it would see walking alone: a subtree one of
    them declines is skipped for that one only (its ``leave_`` still runs, as libcst does)."""

    def __init__(self, visitors: tuple[cst.CSTVisitor, ...]) -> None:
        super().__init__()
        self.visitors = visitors
        self.declined: list[cst.CSTNode | None] = [None] * len(visitors)  # the subtree each skips

    def on_visit(self, node: cst.CSTNode) -> bool:
        for index, visitor in enumerate(self.visitors):
            if self.declined[index] is None and not visitor.on_visit(node):
                self.declined[index] = node
        return any(declined is None for declined in self.declined)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        for index, visitor in enumerate(self.visitors):
            declined = self.declined[index]
            if declined is None:
                visitor.on_leave(original_node)
            elif declined is original_node:
                visitor.on_leave(original_node)
                self.declined[index] = None

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        for index, visitor in enumerate(self.visitors):
            if self.declined[index] is None:
                visitor.on_visit_attribute(node, attribute)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        for index, visitor in enumerate(self.visitors):
            if self.declined[index] is None:
                visitor.on_leave_attribute(original_node, attribute)


def visit_together(node: cst.CSTNode, *visitors: cst.CSTVisitor) -> None:
    node.visit(_Together(visitors))
