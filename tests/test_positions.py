"""tf2migrate.positions (the one use of libcst's private CodegenState) gives every node
the start libcst's public PositionProvider gives it, on every fixture, before and after."""

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from tf2migrate.layout import parse_module
from tf2migrate.positions import Positions, _statements, render
from python3_sources import python3_fixture_sources

SOURCES = python3_fixture_sources("*.py")
EXTRA = [
    "@decorator\n# comment\ndef f(a, *, b=(1 +\n    2)):\n    return [x for x in a]  # trailing\n",
    "x = 1\r\nif x:\r\n    y = (x\r\n         + 1)\r\n",
    "class A:\n\n    '''doc'''\n\n    @property\n    def p(self): return self._p\n",
]


@pytest.mark.parametrize("source", [p.read_text(encoding="utf-8") for p in SOURCES] + EXTRA)
def test_positions_equal_position_provider(source: str) -> None:
    module = parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = Positions(module)
    assert expected  # the fixture has nodes to compare
    for node, code_range in expected.items():
        assert positions.get(node) == (code_range.start.line, code_range.start.column), cst.Module([]).code_for_node(node)


@pytest.mark.parametrize("source", [p.read_text(encoding="utf-8") for p in SOURCES] + EXTRA)
def test_render_equals_libcst_code(source: str) -> None:
    """The faster render writes what ``Module.code`` writes, to the character."""
    module = parse_module(source)
    assert render(module) == module.code


def _every_statement(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements below ``node``, from a walk into every node (``_statements`` enters
    no expression, small statement, parameter list or decorator)."""
    found: list[cst.CSTNode] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            found.append(current)
        stack.extend(reversed(current.children))
    return found


@pytest.mark.parametrize("source", [p.read_text(encoding="utf-8") for p in SOURCES] + EXTRA)
def test_statements_are_found_without_entering_expressions(source: str) -> None:
    module = parse_module(source)
    assert _statements(module) == _every_statement(module)
