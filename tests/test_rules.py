"""The codes table: each code declared once, next to its rule, documented, and shown by a test."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tf2migrate import migrate_source
from tf2migrate.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent
CODE = re.compile(r"^TFM\d{3}$")
# Codes about a file as a whole (it does not parse, cannot be read, is a notebook that
# cannot be mapped back, or tf2migrate failed): shown by the API, CLI and notebook tests.
FILE_LEVEL = {"TFM001", "TFM002", "TFM003", "TFM004"}
# Codes about how a file is read or how tf2migrate fails, which no source text given to
# migrate_source shows: they have no examples.
NO_EXAMPLE = {"TFM002", "TFM003", "TFM004"}
EXAMPLES = [
    pytest.param(rule.code, example, expected, id=f"{rule.code}-{kind}{index}")
    for rule in all_rules()
    for kind, expected, examples in (("invalid", True, rule.invalid), ("valid", False, rule.valid))
    for index, example in enumerate(examples)
]


def test_no_bare_code_outside_its_rule():
    """Findings name their rule (``RULE.code``), so a code lives in one place."""
    bare = []
    for path in sorted((ROOT / "tf2migrate").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        declared = {
            id(node.args[0])
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Rule" and node.args
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.match(node.value) and id(node) not in declared:
                bare.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}")
    assert not bare, bare


def test_every_rule_is_documented():
    for rule in all_rules():
        assert rule.summary and rule.what and rule.why, rule.code
        assert rule.explain().startswith(f"{rule.code} ({rule.name})")


def test_every_code_is_shown_by_a_fixture_or_a_test():
    shown = {
        line.split()[1]
        for path in (ROOT / "tests" / "fixtures").rglob("findings.txt")
        for line in path.read_text(encoding="utf-8").splitlines()
    }
    tests_text = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").glob("test_*.py"))
    for rule in all_rules():
        if rule.code in FILE_LEVEL:
            assert rule.code in tests_text or rule.name in tests_text, rule.code
        else:
            assert rule.code in shown, f"{rule.code} has no fixture"


def test_every_code_has_an_invalid_example():
    assert {rule.code for rule in all_rules() if not rule.invalid} == NO_EXAMPLE


@pytest.mark.parametrize(("code", "example", "expected"), EXAMPLES)
def test_rule_examples(code, example, expected):
    """Fixit's rule examples: an INVALID file yields the code, a VALID one does not."""
    _, findings = migrate_source(example, "example.py")
    assert (code in {f.code for f in findings}) is expected, [f.render() for f in findings]


def test_explain_shows_the_examples():
    rule = next(r for r in all_rules() if r.invalid and r.valid)
    text = rule.explain()
    assert rule.invalid[0].rstrip() in text and rule.valid[0].rstrip() in text
