"""One walk for several visitors: each must see what it sees walking alone."""

from pathlib import Path

import libcst as cst
import pytest

from tf2migrate.analysis.names import NameCollector
from tf2migrate.analysis.tf_imports import collect_tf_imports
from tf2migrate.analysis.walk import visit_together
from tf2migrate.rewrites.tf_names import EvidenceFinder

SOURCES = sorted((Path(__file__).parent / "fixtures").rglob("*.py"))


class _Recorder(cst.CSTVisitor):
    """Every visit and leave, declining the subtrees of calls (as our visitors decline some)."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, str]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", type(node).__name__))
        return not isinstance(node, cst.Call)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.events.append(("leave", type(original_node).__name__))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_visitors_walked_together_see_what_they_see_alone(path: Path) -> None:
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    imports = collect_tf_imports(module)
    alone = [NameCollector(), EvidenceFinder(imports), _Recorder()]
    for visitor in alone:
        module.visit(visitor)
    together = [NameCollector(), EvidenceFinder(imports), _Recorder()]
    visit_together(module, *together)
    assert (together[0].reads, together[0].binds) == (alone[0].reads, alone[0].binds)
    assert (together[1].found, together[1].explicit) == (alone[1].found, alone[1].explicit)
    assert together[2].events == alone[2].events


def test_a_visitor_with_per_attribute_hooks_is_refused() -> None:
    class WithHook(cst.CSTVisitor):
        def visit_Call_func(self, node: cst.Call) -> None:
            pass

    with pytest.raises(TypeError, match="visit_Call_func"):
        visit_together(cst.parse_module("f(x)\n"), NameCollector(), WithHook())
