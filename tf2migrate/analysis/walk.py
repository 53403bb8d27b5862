"""Several visitors in one walk of a tree.

Each walk of a libcst tree costs about as much as parsing the file, so facts gathered by
independent visitors are gathered together.  libcst's own ``visit_batched`` cannot serve:
its visitors may not decline a subtree, and ours do (an import's names are not
references, an attribute name is not a variable).
"""

from __future__ import annotations

import functools
import re

import libcst as cst

# ``visit_Call_func``-style methods: per-attribute hooks, which this walk does not call
_ATTRIBUTE_HOOK = re.compile(r"^(visit|leave)_[A-Z]\w*?_[a-z]\w*$")


class _Together(cst.CSTVisitor):
    """Each visitor sees exactly the nodes it would see walking alone: a subtree one of
    them declines is skipped for that one only (its ``leave_`` still runs, as libcst does).

    Per-attribute hooks (``visit_Call_func``) are not called: looking them up for every
    attribute of every node for every visitor costs as much as the walk itself, and no
    visitor walked together defines one (checked here)."""

    def __init__(self, visitors: tuple[cst.CSTVisitor, ...]) -> None:
        super().__init__()
        for visitor in visitors:
            hooks = _attribute_hooks(type(visitor))
            if hooks:
                raise TypeError(f"{type(visitor).__name__} has per-attribute hooks {hooks}; walk it alone")
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
        pass

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass


@functools.lru_cache(maxsize=None)
def _attribute_hooks(visitor_type: type) -> list[str]:
    """The per-attribute hooks a visitor class overrides (libcst's base class declares
    every one as a no-op)."""
    return [
        name for name in dir(visitor_type)
        if _ATTRIBUTE_HOOK.match(name) and getattr(visitor_type, name) is not getattr(cst.CSTVisitor, name, None)
    ]


def visit_together(node: cst.CSTNode, *visitors: cst.CSTVisitor) -> None:
    node.visit(_Together(visitors))
