"""Golden fixtures: every case under tests/fixtures/<group>/<case>/.

- ``before.py`` is migrated; the result must equal ``after.py`` byte for byte, or, for a
  case without ``after.py``, equal ``before.py`` (the tool must leave it alone).  Cases
  named ``noop_*`` must never have an ``after.py``.
- ``findings.txt`` holds the rendered findings (codes, lines, columns, messages); they are
  compared by position, code and the facts of the message (what it quotes and names:
  `` `x` ``, ``tf.compat.v1.Session``, ``compute_y(...)``, numbers), not by its wording.
- ``messages.txt`` (one for all cases) holds the wording: every distinct message the cases
  produce.  Rewording a message changes its lines there, not every ``findings.txt``.
- A ``pyproject.toml`` in the case sets the options (``[tool.tf2migrate] tf-function``).
- Stability: migrating ``after.py`` again changes nothing.
- Execution (unless ``noexec.txt`` says why not): ``before.py`` under TF1 semantics and ``after.py`` under TF2 eager, from the
  same initial variable values, must compute the same module-level values
  (``tf2migrate.verify``).  All pairs run in one batch per TF mode.

A case may instead hold several modules (a project): ``before/`` is a directory of
modules, migrated together as one run (``tf2migrate before/``: imports between them
resolve, helpers are summarized once); ``after/`` holds the modules that changed, as they
come out, ``findings.txt`` the findings of all of them (paths relative to ``before/``).
Its program is ``main.py`` (anywhere under ``before/``): the TF1 tree runs it, and so
does the tree of ``before/`` with ``after/``'s modules in place.  A ``named.txt`` (paths
relative to ``before/``, one a line) names only those files, as a pre-commit hook passes
the changed ones: the others are read, never written.

Regenerate the goldens with ``pytest tests/test_fixtures.py --update-goldens`` and
review the diff before committing.
"""

from __future__ import annotations

import ast
import functools
import re
import dataclasses
import shutil
import tempfile
from pathlib import Path

import pytest

from tf2migrate import Options, config, migrate_source
from tf2migrate.diagnostics import Severity
from tf2migrate.engine import run
from tf2migrate.verify.tf1_source import runnable_on_tf1

FIXTURES = Path(__file__).parent / "fixtures"
MESSAGES = FIXTURES / "messages.txt"
CASES = sorted(p.parent for p in FIXTURES.rglob("before.py"))
CHANGED = [c for c in CASES if (c / "after.py").exists()]
# A case with ``noexec.txt`` (saying why) computes nothing comparable: a library module,
# or code the installed TensorFlow cannot run in either version (tf.contrib).
EXECUTABLE = [c for c in CHANGED if not (c / "noexec.txt").exists()]
# Projects: several modules migrated in one run
PROJECTS = sorted(p.parent for p in FIXTURES.rglob("before") if p.is_dir())
CHANGED_PROJECTS = [c for c in PROJECTS if (c / "after").is_dir()]
EXECUTABLE_PROJECTS = [c for c in CHANGED_PROJECTS if not (c / "noexec.txt").exists()]


def _id(case: Path) -> str:
    return str(case.relative_to(FIXTURES))


def _options(case: Path) -> Options:
    settings = case / "pyproject.toml"
    if not settings.exists():
        return Options()
    table = config.tomllib.loads(settings.read_text(encoding="utf-8"))["tool"]["tf2migrate"]
    return Options(tf_function=config.from_table(table, str(settings)).tf_function)


def _render(findings) -> str:
    return "".join(f.render() + "\n" for f in findings)


# A message's words: a quoted span (`x`), or a run of non-spaces.  Its facts are the quoted
# ones and those that look like code (dots, underscores, brackets, digits): the names and
# numbers a finding reports, which a change of behaviour changes and a rewording does not.
_WORD = re.compile(r"`[^`]*`|\S+")
_CODE_LIKE = re.compile(r"[._=\[\]\d]")


def _facts(message: str) -> list[str]:
    words = (w if w.startswith("`") else w.strip("(),;:") for w in _WORD.findall(message))
    return [w for w in words if w.startswith("`") or _CODE_LIKE.search(w)]


def _keys(rendered: str) -> list[tuple[str, str, list[str]]]:
    """``path:line:col:``, code and facts of each rendered finding."""
    keys = []
    for line in rendered.splitlines():
        location, code, message = (line.split(" ", 2) + [""])[:3]
        keys.append((location, code, _facts(message)))
    return keys


@functools.cache
def _migrated(case: Path):
    """The migration of a case, once per session (the golden and the wording tests read it)."""
    return migrate_source((case / "before.py").read_text(encoding="utf-8"), "before.py", _options(case))


@pytest.fixture
def update_goldens(request) -> bool:
    return request.config.getoption("--update-goldens")


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_golden(case: Path, update_goldens: bool) -> None:
    before = (case / "before.py").read_text(encoding="utf-8")
    new, findings = _migrated(case)
    after_file, findings_file = case / "after.py", case / "findings.txt"
    rendered = _render(findings)
    if update_goldens:
        if new != before:
            after_file.write_text(new, encoding="utf-8")
        elif after_file.exists():
            after_file.unlink()
        if not findings:
            findings_file.unlink(missing_ok=True)
        elif not findings_file.exists() or _keys(findings_file.read_text(encoding="utf-8")) != _keys(rendered):
            findings_file.write_text(rendered, encoding="utf-8")  # a rewording alone leaves it
    expected = after_file.read_text(encoding="utf-8") if after_file.exists() else before
    assert new == expected
    expected_findings = findings_file.read_text(encoding="utf-8") if findings_file.exists() else ""
    if _keys(rendered) != _keys(expected_findings):
        assert rendered == expected_findings  # fails, showing the difference as text
    if case.name.startswith("noop_"):
        assert not after_file.exists(), "a noop_ case must come through unchanged"
        assert not any(f.severity is Severity.ERROR for f in findings)


def test_message_wording(update_goldens: bool) -> None:
    """The wording of every message the cases produce, one line per distinct message."""
    messages = sorted({f"{f.code} {f.message}" for case in CASES for f in _migrated(case)[1]})
    text = "".join(message + "\n" for message in messages)
    if update_goldens:
        MESSAGES.write_text(text, encoding="utf-8")
    assert text == MESSAGES.read_text(encoding="utf-8")


def test_facts_tell_findings_apart() -> None:
    """The comparison cannot be fooled by a finding that names another placeholder, function,
    API path or line, and ignores wording."""
    same = _keys("before.py:3:5: TFM101 placeholder `x` → argument of compute_y\n")
    assert _keys("before.py:3:5: TFM101 the placeholder `x` is now an argument of compute_y\n") == same
    for changed in (
        "before.py:3:5: TFM101 placeholder `u` → argument of compute_y",
        "before.py:3:5: TFM101 placeholder `x` → argument of compute_u",
        "before.py:3:6: TFM101 placeholder `x` → argument of compute_y",
        "before.py:3:5: TFM102 placeholder `x` → argument of compute_y",
    ):
        assert _keys(changed) != same, changed
    assert _facts("tf.Session has no TF2 equivalent; kept as tf.compat.v1.Session (line 18)") == [
        "tf.Session",
        "TF2",
        "tf.compat.v1.Session",
        "18",
    ]


@pytest.mark.parametrize("case", CHANGED, ids=_id)
def test_second_run_changes_nothing(case: Path) -> None:
    after = (case / "after.py").read_text(encoding="utf-8")
    again, findings = migrate_source(after, "after.py", _options(case))
    assert again == after
    # What still cannot run on TF2 (a graph kept on TF1, tf.contrib) is reported again;
    # nothing new may appear.
    first_run = (case / "findings.txt").read_text(encoding="utf-8")
    assert {f.code for f in findings if f.severity is Severity.ERROR} <= {line.split()[1] for line in first_run.splitlines()}


@pytest.mark.parametrize("case", [c for c in CASES if (c / "noexec.txt").exists()], ids=_id)
def test_noexec_cases_say_why(case: Path) -> None:
    assert len((case / "noexec.txt").read_text(encoding="utf-8").strip()) > 20


def test_fixture_counts() -> None:
    """The suite covers the issue's forms: enough cases, enough no-op cases."""
    noop = [c for c in CASES if not (c / "after.py").exists()]
    assert len(CASES) >= 30
    assert len(noop) >= 10
    groups = {c.relative_to(FIXTURES).parts[0] for c in CASES}
    for group in groups:
        assert any(c.relative_to(FIXTURES).parts[0] == group for c in noop), f"{group} has no no-op case"


@pytest.fixture(scope="module")
def verify_reports(tmp_path_factory):
    from tf2migrate.verify import verify_pairs

    originals = [_runnable_original(c, tmp_path_factory) for c in EXECUTABLE]
    reports = verify_pairs([(original, c / "after.py") for original, c in zip(originals, EXECUTABLE)])
    return dict(zip(EXECUTABLE, reports))


def _runnable_original(case: Path, tmp_path_factory) -> Path:
    """``before.py``, or what TF1 runs of it in this Python 3 (verify/tf1_source.py): a
    Python 2 original with its print statements as calls, a TensorFlow 0.x original with its
    names and argument orders as TF 1.0 renamed them: the migration's first steps, without
    which TF 1.x cannot run it."""
    before = case / "before.py"
    text = runnable_on_tf1(before.read_text(encoding="utf-8"))
    ast.parse(text)  # a Python 2 original must be one whose prints convert
    if text == before.read_text(encoding="utf-8"):
        return before
    path = tmp_path_factory.mktemp(case.name) / "before.py"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("case", EXECUTABLE, ids=_id)
def test_migration_computes_the_same_values(case: Path, verify_reports) -> None:
    report = verify_reports[case]
    assert report.verdict == "equal", report.render()
    assert report.rows, "the original binds no numeric value to compare"


# Build-time descriptions of graph tensors (TFM113) print, in a trace made where they
# stood, what TF1 printed while building the graph: the same lines in the same order, but
# for TF1's notation (``?`` for an unknown dimension, ``float32_ref`` variables) and the
# tensors' names, which are those of the trace's graph (a placeholder is named after its
# argument).
_TF1_NOTATION = ((re.compile(r"\?"), "None"), (re.compile(r"_ref\b"), ""), (re.compile(r'Tensor\("[^"]*"'), "Tensor(…"))


def _printed(output: str) -> list[str]:
    for pattern, replacement in _TF1_NOTATION:
        output = pattern.sub(replacement, output)
    return output.splitlines()


@pytest.mark.parametrize("case", [c for c in EXECUTABLE if c.parent.name == "python2"], ids=_id)
def test_python2_programs_print_what_tf1_printed(case: Path, verify_reports) -> None:
    """Their prints are calls on both sides: the migrated program prints the same lines."""
    report = verify_reports[case]
    assert report.tf1_stdout and report.tf2_stdout == report.tf1_stdout


@pytest.mark.parametrize("case", [c for c in EXECUTABLE if c.name.startswith("describe_")], ids=_id)
def test_descriptions_print_what_tf1_printed(case: Path, verify_reports) -> None:
    report = verify_reports[case]
    assert report.tf1_stdout.strip(), "the original printed nothing to compare"
    assert _printed(report.tf2_stdout) == _printed(report.tf1_stdout)


def _migrate_project(tree: Path, options: Options, named: list[str] | None = None) -> tuple[dict[str, str], str]:
    """The modules of ``tree`` that one run changes (relative path → new text), and the
    run's findings with paths relative to ``tree``; ``named``: the files the run names
    (the whole tree without)."""
    if named and not str(tree).startswith(tempfile.gettempdir()):
        # (a copy outside this repository: the run looks for the named files' importers
        # in their project, which would otherwise be the whole repository)
        with tempfile.TemporaryDirectory() as scratch:
            return _migrate_project(Path(shutil.copytree(tree, Path(scratch) / "before")), options, named)
    paths = [tree / name for name in named] if named else [tree]
    results = run(paths, jobs=1, options_for=lambda path: options, progress=False)
    changed = {r.path.relative_to(tree).as_posix(): r.new_text for r in results if r.changed}
    findings = [dataclasses.replace(f, path=Path(f.path).relative_to(tree).as_posix()) for r in results for f in r.findings]
    return changed, _render(findings)


def _modules(directory: Path) -> dict[str, str]:
    if not directory.is_dir():
        return {}
    return {p.relative_to(directory).as_posix(): p.read_text(encoding="utf-8") for p in sorted(directory.rglob("*.py"))}


def _overlay(case: Path, target: Path) -> Path:
    """``before/`` with ``after/``'s modules in place: the migrated project."""
    shutil.copytree(case / "before", target)
    for name, text in _modules(case / "after").items():
        (target / name).write_text(text, encoding="utf-8")
    return target


def _named(case: Path) -> list[str] | None:
    """The files a case's run names (``named.txt``), or None: the whole of ``before/``."""
    listed = case / "named.txt"
    return listed.read_text(encoding="utf-8").split() if listed.exists() else None


def _program(tree: Path) -> Path:
    return next(iter(sorted(tree.rglob("main.py"))))


@pytest.mark.parametrize("case", PROJECTS, ids=_id)
def test_project_golden(case: Path, update_goldens: bool) -> None:
    changed, findings = _migrate_project(case / "before", _options(case), _named(case))
    after_dir, findings_file = case / "after", case / "findings.txt"
    if update_goldens:
        shutil.rmtree(after_dir, ignore_errors=True)
        for name, text in changed.items():
            (after_dir / name).parent.mkdir(parents=True, exist_ok=True)
            (after_dir / name).write_text(text, encoding="utf-8")
        if findings:
            findings_file.write_text(findings, encoding="utf-8")
        elif findings_file.exists():
            findings_file.unlink()
    assert changed == _modules(after_dir)
    assert findings == (findings_file.read_text(encoding="utf-8") if findings_file.exists() else "")
    if case.name.startswith("noop_"):
        assert not after_dir.exists(), "a noop_ case must come through unchanged"
        assert " [error] " not in findings


@pytest.mark.parametrize("case", CHANGED_PROJECTS, ids=_id)
def test_project_second_run_changes_nothing(case: Path, tmp_path: Path) -> None:
    migrated = _overlay(case, tmp_path / "after")
    changed, _ = _migrate_project(migrated, _options(case), _named(case))
    assert changed == {}


@pytest.fixture(scope="module")
def verify_project_reports(tmp_path_factory):
    from tf2migrate.verify import verify_pairs

    pairs = {}
    for case in EXECUTABLE_PROJECTS:
        root = tmp_path_factory.mktemp(case.name)
        before = shutil.copytree(case / "before", root / "before")
        pairs[case] = (_program(before), _program(_overlay(case, root / "after")))
    reports = verify_pairs(list(pairs.values()))
    return dict(zip(pairs, reports))


@pytest.mark.parametrize("case", EXECUTABLE_PROJECTS, ids=_id)
def test_project_computes_the_same_values(case: Path, verify_project_reports) -> None:
    report = verify_project_reports[case]
    assert report.verdict == "equal", report.render()
    assert report.rows, "the original binds no numeric value to compare"
