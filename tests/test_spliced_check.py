"""The rename-only path's output check (tf2migrate/spliced_check.py) gives the whole-file
check's verdict (output_check.problem_of): on every fixture and odd layout the path
takes, and on splices made to break it — a dropped import still read, a new read nothing
binds or binds too late, a run that does not parse or sits at another indentation, a TF
path TF2 lacks.  It also really skips the whole-file check where it can."""

import ast

import libcst as cst
import pytest
from python3_sources import python3_fixture_sources
from test_renames_only import ODD

import tf2migrate.renames_only as renames_only
import tf2migrate.spliced_check as spliced_check
from tf2migrate.analysis.edit_sites import line_offsets
from tf2migrate.analysis.tf_imports import tf_imports_of
from tf2migrate.output_check import problem_of
from tf2migrate.spliced_check import Splice, spliced_problem

SOURCES = python3_fixture_sources("before*.py")


@pytest.mark.parametrize("source", [p.read_text(encoding="utf-8") for p in SOURCES] + ODD)
def test_the_rename_path_gets_the_whole_checks_verdict(source: str, monkeypatch) -> None:
    verdicts: list[tuple[str | None, str | None]] = []

    def both(tree, old, new, imports, splices):
        verdicts.append((spliced_problem(tree, old, new, imports, splices), problem_of(tree, new, imports)))
        return verdicts[-1][0]

    monkeypatch.setattr(renames_only, "spliced_problem", both)
    renames_only.migrate_renames_only(source, ast.parse(source), "f.py")
    assert all(fast == whole for fast, whole in verdicts)


LIBRARY = """import numpy as np
import tensorflow as tf


def f(x):
    return tf.log(x)


y = np.log(2.0)
"""


def _check(source: str, *runs: tuple[int, int, str]) -> tuple[str | None, str | None]:
    """Both verdicts for ``source`` with the statement on lines ``first``–``last``
    (1-based) replaced by ``text``."""
    tree = ast.parse(source)
    offsets = [*line_offsets(source), len(source)]
    splices = []
    for first, last, text in runs:
        nodes = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno == first and n.end_lineno == last]
        nested = source[offsets[first - 1]].isspace()
        splices.append(Splice(nodes[:1], offsets[first - 1], offsets[last], text, nested))
    copied = 0
    pieces = []
    for splice in splices:
        pieces += [source[copied : splice.start], splice.new_text]
        copied = splice.end
    new = "".join([*pieces, source[copied:]])
    imports = tf_imports_of(cst.parse_module(source).body)
    return spliced_problem(tree, source, new, imports, splices), problem_of(tree, new, imports)


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        ([(1, 1, "import os\n")], "the rewrite would leave `np` undefined"),  # a dropped import still read
        ([(6, 6, "    return flags.log(x)\n")], "the rewrite would leave `flags` undefined"),  # a new read
        ([(9, 9, "y = g(2.0)\n")], "the rewrite would leave `g` undefined"),
        ([(9, 9, "y = f(2.0)\n")], None),  # bound before: the fast verdict
        ([(6, 6, "    return tf.log(x\n")], "rewrite produced invalid code ('(' was never closed)"),
        ([(9, 9, "  y = np.log(2.0)\n")], "rewrite produced invalid code (unindent does not match any outer indentation level)"),
        ([(6, 6, "  return tf.math.log(x)\n")], None),  # another indentation: left to the whole parse
        ([(6, 6, "    return tf.math.logg(x)\n")], "the rewrite would name `tf.math.logg`, which TensorFlow 2 does not have"),
        ([(6, 6, "    return tf.math.log(x)\n")], None),
    ],
)
def test_splices_made_to_break_it(runs, expected) -> None:
    fast, whole = _check(LIBRARY, *runs)
    assert fast == whole == expected


def test_a_read_bound_only_later_is_left_to_the_whole_check(monkeypatch) -> None:
    source = "import tensorflow as tf\ny = tf.log(2.0)\n\n\ndef main():\n    pass\n"
    calls = []
    monkeypatch.setattr(spliced_check, "problem_of", lambda *args: calls.append(args) or problem_of(*args))
    fast, whole = _check(source, (2, 2, "y = main()\n"))
    assert fast == whole == "the rewrite would leave `main` undefined" and calls


def test_the_whole_check_is_skipped_where_the_runs_tell(monkeypatch) -> None:
    monkeypatch.setattr(spliced_check, "problem_of", lambda *args: pytest.fail("whole-file check made"))
    source = LIBRARY.replace("import numpy as np\n", "import numpy as np\nfrom tensorflow.contrib import slim\n")
    fast, whole = _check(source, (2, 2, "import os\n"), (7, 7, "    return tf.math.log(x)\n"))
    assert fast is None and whole is None  # ``slim`` is bound no more, and read nowhere
