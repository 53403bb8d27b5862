"""Golden fixtures: every case under tests/fixtures/<group>/<case>/.

- ``before.py`` is migrated; the result must equal ``after.py`` byte for byte, or, for a
  case without ``after.py``, equal ``before.py`` (the tool must leave it alone).  Cases
  named ``noop_*`` must never have an ``after.py``.
- ``findings.txt`` holds the rendered findings (codes, lines, columns, messages).
- A ``pyproject.toml`` in the case sets the options (``[tool.tf2migrate] tf-function``).
- Stability: migrating ``after.py`` again changes nothing.
- Execution (unless ``noexec.txt`` says why not): ``before.py`` under TF1 semantics and ``after.py`` under TF2 eager, from the
  same initial variable values, must compute the same module-level values
  (``tf2migrate.verify``).  All pairs run in one batch per TF mode.

Regenerate the goldens with ``pytest tests/test_fixtures.py --update-goldens`` and
review the diff before committing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tf2migrate import Options, config, migrate_source
from tf2migrate.diagnostics import Severity

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p.parent for p in FIXTURES.rglob("before.py"))
CHANGED = [c for c in CASES if (c / "after.py").exists()]
# A case with ``noexec.txt`` (saying why) computes nothing comparable: a library module,
# or code the installed TensorFlow cannot run in either version (tf.contrib).
EXECUTABLE = [c for c in CHANGED if not (c / "noexec.txt").exists()]


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


@pytest.fixture
def update_goldens(request) -> bool:
    return request.config.getoption("--update-goldens")


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_golden(case: Path, update_goldens: bool) -> None:
    before = (case / "before.py").read_text(encoding="utf-8")
    new, findings = migrate_source(before, "before.py", _options(case))
    after_file, findings_file = case / "after.py", case / "findings.txt"
    if update_goldens:
        if new != before:
            after_file.write_text(new, encoding="utf-8")
        elif after_file.exists():
            after_file.unlink()
        if findings:
            findings_file.write_text(_render(findings), encoding="utf-8")
        elif findings_file.exists():
            findings_file.unlink()
    expected = after_file.read_text(encoding="utf-8") if after_file.exists() else before
    assert new == expected
    expected_findings = findings_file.read_text(encoding="utf-8") if findings_file.exists() else ""
    assert _render(findings) == expected_findings
    if case.name.startswith("noop_"):
        assert not after_file.exists(), "a noop_ case must come through unchanged"
        assert not any(f.severity is Severity.ERROR for f in findings)


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
def verify_reports():
    from tf2migrate.verify import verify_pairs

    reports = verify_pairs([(c / "before.py", c / "after.py") for c in EXECUTABLE])
    return {r.before.parent: r for r in reports}


@pytest.mark.parametrize("case", EXECUTABLE, ids=_id)
def test_migration_computes_the_same_values(case: Path, verify_reports) -> None:
    report = verify_reports[case]
    assert report.verdict == "equal", report.render()
    assert report.rows, "the original binds no numeric value to compare"
