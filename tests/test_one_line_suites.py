"""One-line suites (rewrites/one_line_suites.py): the layout round trip, the findings'
places, and the metamorphic net over every fixture: each ``before.py`` with every block
that can be written on its header's line so written migrates to the same program (the
same CPython tree) with the same findings on the same code, never an internal error.
"""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest

from tf2migrate import migrate_source
from tf2migrate.rewrites import one_line_suites

FIXTURES = Path(__file__).parent / "fixtures"

ONE_LINERS = """\
import tensorflow as tf


class Net: pass
def f(x): return x + 1  # kept comment
for i in range(2): a = i; b = i * 2
if a: c = 1
elif b: c = 2
else: c = 3
try: d = 1
except ValueError: d = 2
finally: e = 3
while False: pass
with open(__file__) as h: text = h.read()
def g(a,
      b): return a
if True:
    if a: z = (1 +
               2)
"""


def test_expanded_layout_is_the_same_program_and_restores_exactly():
    expanded = one_line_suites.expand(ONE_LINERS, None)
    assert expanded is not None
    assert ast.dump(ast.parse(expanded.source)) == ast.dump(ast.parse(ONE_LINERS))
    assert one_line_suites.MARKER in expanded.source
    # every block on its own line now, one level deeper than its header
    assert not [s for s in _suites(expanded.source)]
    assert expanded.restore(expanded.source) == ONE_LINERS
    # a migration that changed something else: the untouched one-liners come back as written
    changed = expanded.source.replace("import tensorflow as tf", "import tensorflow as tf2")
    assert expanded.restore(changed) == ONE_LINERS.replace("import tensorflow as tf", "import tensorflow as tf2")


def test_a_block_the_migration_grew_stays_indented_without_its_marker():
    expanded = one_line_suites.expand("import tensorflow as tf\ndef f(x): return x\n", None)
    assert expanded is not None
    grown = expanded.source.replace("    return x", "    y = x\n    return y")
    assert expanded.restore(grown) == "import tensorflow as tf\ndef f(x):\n    y = x\n    return y\n"
    # a header comment a rewrite kept as a line of its own goes too
    moved = "import tensorflow as tf\n" + one_line_suites.MARKER + "\nx = 1\n"
    assert expanded.restore(moved) == "import tensorflow as tf\nx = 1\n"


def test_lines_and_columns_map_back_to_the_original():
    source = "import tensorflow as tf\nif a: x = tf.placeholder(tf.float32)\ny = 1\n"
    expanded = one_line_suites.expand(source, None)
    assert expanded is not None
    lines = expanded.source.split("\n")
    assert lines[2] == "    x = tf.placeholder(tf.float32)"
    assert expanded.map_line(3) == 2 and expanded.map_column(3, 5) == 7  # `x`
    assert expanded.map_column(3, 1) == 7  # (the indentation: the body's start)
    assert expanded.map_line(4) == 3 and expanded.map_column(4, 1) == 1
    assert expanded.map_line(2) == 2 and expanded.map_column(2, 4) == 4


def test_the_file_s_own_indentation_is_followed():
    source = "import tensorflow as tf\nif a:\n  b = 1\nif c: d = 2\n"
    expanded = one_line_suites.expand(source, None)
    assert expanded is not None and "\n  d = 2\n" in expanded.source
    tabs = "import tensorflow as tf\nif a:\n\tb = 1\n\tif c: d = 2\n"
    expanded = one_line_suites.expand(tabs, None)
    assert expanded is not None and "\n\t\td = 2\n" in expanded.source


def test_files_without_one_line_suites_are_not_expanded():
    assert one_line_suites.expand("import tensorflow as tf\nx = {'a': 1}[1:2]\nf = lambda: 1\n", None) is None
    assert one_line_suites.expand("if a:\n    b = 1\n", None) is None


class _OneLine(cst.CSTTransformer):
    """Every block of one simple line without comments → on its header's line."""

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.BaseSuite:
        body = updated_node.body
        if (
            len(body) == 1
            and isinstance(body[0], cst.SimpleStatementLine)
            and not body[0].leading_lines
            and body[0].trailing_whitespace.comment is None
            and updated_node.header.comment is None
            and not updated_node.footer
        ):
            return cst.SimpleStatementSuite(body=body[0].body)
        return updated_node


def _suites(source: str) -> list[cst.SimpleStatementSuite]:
    found: list[cst.SimpleStatementSuite] = []

    class Finder(cst.CSTVisitor):
        def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
            found.append(node)

    cst.parse_module(source).visit(Finder())
    return found


def _one_line_variants() -> list[Path]:
    return sorted(FIXTURES.rglob("before.py"))


@pytest.mark.parametrize("before", _one_line_variants(), ids=lambda p: str(p.parent.relative_to(FIXTURES)))
def test_fixture_with_one_line_suites_migrates_alike(before: Path):
    source = before.read_text()
    try:
        variant = cst.parse_module(source).visit(_OneLine()).code
    except cst.ParserSyntaxError:
        pytest.skip("not Python 3 (the Python 2 fixtures)")
    if variant == source:
        pytest.skip("no block to write on one line")
    migrated, findings = migrate_source(source, str(before))
    migrated_variant, variant_findings = migrate_source(variant, str(before))
    assert not [f for f in variant_findings if f.code == "TFM002"], variant_findings
    assert ast.dump(ast.parse(migrated_variant)) == ast.dump(ast.parse(migrated))
    # the same findings, each on the same code (a line-wide finding on the indentation of a
    # line the variant starts after a header points at the statement's start)
    lines, variant_lines = source.split("\n"), variant.split("\n")

    def placed(found, text):
        return sorted((f.code, f.message, (text[f.line - 1][f.column - 1 :].split() or [""])[0]) for f in found)

    assert placed(variant_findings, variant_lines) == placed(findings, lines)


def test_statements_sharing_a_line_are_migrated_apart_and_joined_again():
    source = "import tensorflow as tf\nif a: b = 1; c = 2\nd = 3;  e = 4; f = (5 +\n  6)  # kept\n"
    expanded = one_line_suites.expand(source, None)
    assert expanded is not None
    assert ast.dump(ast.parse(expanded.source)) == ast.dump(ast.parse(source))
    lines = expanded.source.split("\n")
    assert lines[3:7] == ["    " + one_line_suites.CONTINUED, "    c = 2", "d = 3;  " + one_line_suites.JOINED, one_line_suites.CONTINUED]
    assert expanded.map_line(8) == 3 and expanded.map_column(8, 1) == 9  # `e`
    assert expanded.map_line(10) == 3 and expanded.map_column(10, 1) == 16 and expanded.map_line(12) == 5  # `f`, the last line
    assert expanded.restore(expanded.source) == source
    # changed elsewhere: joined again (one space after each semicolon)
    changed = expanded.source.replace("import tensorflow as tf", "import tensorflow as tf2")
    assert expanded.restore(changed) == "import tensorflow as tf2\nif a: b = 1; c = 2\nd = 3; e = 4; f = (5 +\n  6)  # kept\n"
    # a statement the migration removed: the rest of its line joined again; a marked line
    # nothing simple follows any more stands alone, without its semicolon
    removed = changed.replace(one_line_suites.CONTINUED + "\ne = 4;  " + one_line_suites.JOINED + "\n", "")
    assert expanded.restore(removed) == "import tensorflow as tf2\nif a: b = 1; c = 2\nd = 3; f = (5 +\n  6)  # kept\n"
    # a statement that followed none on its line is not joined to one (a generated return)
    moved = changed.replace("  6)  # kept\n", "  6)  # kept\nreturn f\n")
    assert expanded.restore(moved).endswith("f = (5 +\n  6)  # kept\nreturn f\n")
    last = changed.replace("f = (5 +\n  6)  # kept\n", "")
    assert expanded.restore(last) == "import tensorflow as tf2\nif a: b = 1; c = 2\nd = 3; e = 4\n"
