"""tf2migrate.positions (the one use of libcst's private CodegenState) gives every node
the start libcst's public PositionProvider gives it, on every fixture, before and after."""

import ast
import functools

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from tf2migrate.layout import parse_module
from tf2migrate.positions import Positions, _statements, render
from tf2migrate.traversal import find_all, forget_layouts, lay_out, statement_path
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


@pytest.mark.parametrize("source", [p.read_text(encoding="utf-8") for p in SOURCES] + EXTRA)
def test_positions_of_parsed_render_only_statements_and_equal_position_provider(source: str) -> None:
    """Positions made from the text a module was parsed from render only the statements
    holding the nodes asked about, and give each node the same start."""
    module = parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lay_out(module)
    positions = Positions.of_parsed(module, source, ast.parse(source), functools.partial(statement_path, module))
    for node, code_range in expected.items():
        assert positions.get(node) == (code_range.start.line, code_range.start.column), cst.Module([]).code_for_node(node)
    forget_layouts()


def test_positions_of_parsed_render_one_method() -> None:
    """A node in a method of a class is placed by rendering that method's statement alone."""
    source = "import os\n\n\nclass A:\n    x = 1\n\n    # a comment\n    @staticmethod\n    def f(a):\n        return os.path.join(a)\n"
    module = parse_module(source)
    lay_out(module)
    call = next(n for n in find_all(module, cst.Call))
    positions = Positions.of_parsed(module, source, ast.parse(source), functools.partial(statement_path, module))
    assert positions.get(call) == (10, 15)
    assert positions._rendered is None and list(positions._statements) == [(1, 1, 0)]
    forget_layouts()
