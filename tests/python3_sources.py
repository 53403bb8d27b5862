"""The fixture files the tests that compare two implementations (libcst and the CPython
fast paths) run on: every ``*.py`` under tests/fixtures that parses as Python 3.  The
Python 2 fixtures (tests/fixtures/python2) do not, by design; tests/test_python2.py and
the fixture tests cover them."""

from __future__ import annotations

import ast
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


def python3_fixture_sources(pattern: str) -> list[Path]:
    return sorted(path for path in FIXTURES.rglob(pattern) if _parses(path))


def _parses(path: Path) -> bool:
    try:
        ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return False
    return True
