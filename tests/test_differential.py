"""Differential test: random TF1 programs, migrated, must compute what they computed.

tests/tf1_programs.py generates valid, deterministic TF1 graph-mode programs from a
grammar of what tf2migrate rewrites (placeholders, variables, ops, ``tf.gradients``,
assign ops, optimizers, ``tf.cond``, sessions and runs in loops).  Each one is
migrated with the default options and with ``--no-tf-function``; the original runs
under TF1 and the migration under TF2 (eager, or TF2's graph mode for a file kept on
TF1), from the same initial variable values, exactly as ``tf2migrate verify ORIGINAL
MIGRATED`` runs them (tests/verify_workers.py), and every value the original fetched
must come out equal within verify's tolerance.  A project (``main.py`` and the helper
modules it imports) is migrated in one run, as ``tf2migrate DIRECTORY`` does, and its
``main.py`` runs beside its modules, as tests/test_fixtures.py runs the project cases.  A refusal (TFM3xx: the graph is kept
on TF1) is allowed, but the kept program must still compute the same values.  A
program that differs is shrunk by Hypothesis to a minimal one.

The default run is a slice that fits CI; a campaign runs more programs and prints the
conversion rate (so false refusals show) and how often each grammar feature came up:

    TF2MIGRATE_DIFFERENTIAL_EXAMPLES=500 python -m pytest tests/test_differential.py

With ``TF2MIGRATE_DIFFERENTIAL_SURVEY=FILE`` as well, a program that differs is written
to FILE (with the report and its migration) and the campaign goes on, so one run shows
every defect it meets; rerun without it to have Hypothesis shrink one.
"""

from __future__ import annotations

import ast
import itertools
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from tf1_programs import Program, tf1_programs
from verify_workers import Workers

from tf2migrate import Options, migrate_source
from tf2migrate.engine import run
from tf2migrate.rewrites import pre_1_0_api

CAMPAIGN = int(os.environ.get("TF2MIGRATE_DIFFERENTIAL_EXAMPLES", "0"))
# A survey: failing programs are appended to this file instead of failing (and shrinking),
# so one campaign shows every defect it meets.
SURVEY = os.environ.get("TF2MIGRATE_DIFFERENTIAL_SURVEY")
MODES = {"tf-function": Options(), "no-tf-function": Options(tf_function=False)}

#: distinct program source -> {mode: "converted" or "refused", then " but different" and the like in a survey}
OUTCOMES: dict[str, dict[str, str]] = {}
FEATURES: Counter = Counter()
REFUSALS: Counter = Counter()  # why programs were kept on TF1 (code and message), per program and mode
_NUMBERS = itertools.count()
PROJECT_MARK = "# --- "  # (in a project's key: its main.py, then each module after this mark and its path)


@pytest.fixture(scope="module")
def workers(request):
    pool = Workers()
    yield pool
    pool.close()
    if CAMPAIGN:
        with request.config.pluginmanager.getplugin("capturemanager").global_and_fixture_disabled():
            print("\n" + campaign_summary())


def campaign_summary() -> str:
    projects = {key for key in OUTCOMES if PROJECT_MARK in key}
    lines = [f"differential campaign: {len(OUTCOMES)} distinct programs, {len(projects)} of them projects"]
    for mode in MODES:
        for label, keys in ((mode, set(OUTCOMES)), (f"{mode} (projects)", projects)):
            outcomes = Counter(OUTCOMES[key][mode] for key in keys if mode in OUTCOMES[key])
            total = sum(outcomes.values()) or 1
            converted = sum(count for outcome, count in outcomes.items() if outcome.startswith("converted"))
            lines.append(
                f"  {label}: {converted} converted ({100 * converted / total:.0f}%); "
                + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items()))
            )
    lines.append("  refusals: " + "; ".join(f"{count}x {why}" for why, count in REFUSALS.most_common()))
    lines.append("  features: " + ", ".join(f"{name} {count}" for name, count in sorted(FEATURES.items())))
    return "\n".join(lines)


def check(program: Program, workers: Workers) -> None:
    """Migrate ``program`` in each mode and compare the values both versions compute."""
    folder = workers.root / f"p{next(_NUMBERS)}"
    folder.mkdir()
    key = program.source + "".join(f"{PROJECT_MARK}{name}\n{text}" for name, text in sorted(program.modules.items()))
    if program.modules:  # a project: its modules beside main.py, as tests/test_fixtures.py runs project cases
        before = folder / "before" / "main.py"
        for name, text in {"main.py": program.source, **program.modules}.items():
            (folder / "before" / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / "before" / name).write_text(text, encoding="utf-8")
    else:
        before = folder / "before.py"
        before.write_text(program.source, encoding="utf-8")
    original = runnable_original(program.source, before)
    new_program = key not in OUTCOMES
    if new_program:
        FEATURES.update(program.features)
    outcomes = OUTCOMES.setdefault(key, {})
    for mode, options in MODES.items():
        new, findings = migrated(program, before, options)
        internal = [f.render() for f in findings if f.code == "TFM002"]
        if SURVEY and internal:  # (a crash of the tool: recorded, and the campaign goes on)
            outcomes[mode] = "internal error"
            with open(SURVEY, "a", encoding="utf-8") as survey:
                survey.write(f"=== internal error: {'; '.join(internal)}\n--- original ---\n{key}\n")
            continue
        assert not internal, findings
        refused = [f.render() for f in findings if f.code.startswith("TFM3")]
        if new_program:
            REFUSALS.update({f"{f.code} {f.message}" for f in findings if f.code.startswith("TFM3")})
        outcomes[mode] = "refused" if refused else "converted"
        if program.modules:
            after = shutil.copytree(folder / "before", folder / f"after_{mode}") / "main.py"
            for name, text in new.items():
                (after.parent / name).write_text(text, encoding="utf-8")
        else:
            after = folder / f"after_{mode}.py"
            after.write_text(new["before.py"], encoding="utf-8")
        rerun = second_run_changes(program, after, options)
        if SURVEY and rerun:
            outcomes[mode] += " but not idempotent"
            with open(SURVEY, "a", encoding="utf-8") as survey:
                survey.write(f"=== a second run changes {rerun}\n--- original ---\n{key}\n")
            continue
        assert not rerun, f"a second run changes {rerun}\n--- original ---\n{key}"
        report = workers.verify(original, after)
        shown = "".join(f"--- {name} ---\n{text}" for name, text in sorted(new.items()))
        context = f"mode {mode}, {'kept on TF1: ' + '; '.join(refused) if refused else 'converted'}\n--- original ---\n{key}--- migrated ---\n{shown}"
        if SURVEY and report.verdict != "equal":
            invalid = report.messages and report.messages[0].startswith("TF1")  # the generator's fault
            outcomes[mode] += " but " + ("invalid" if invalid else report.verdict)
            with open(SURVEY, "a", encoding="utf-8") as survey:
                survey.write(f"=== {'project ' if program.modules else ''}{report.render()}\n{context}\n")
            continue
        assert report.verdict == "equal", f"{report.render()}\n{context}"


def migrated(program: Program, before: Path, options: Options) -> tuple[dict[str, str], list]:
    """The modules the migration changes (path relative to the program's folder -> new text)
    and its findings: a project's modules in one run, as ``tf2migrate DIRECTORY`` migrates
    them (imports between them resolve, helpers summarized once)."""
    if not program.modules:
        new, findings = migrate_source(program.source, "before.py", options)
        return {"before.py": new}, findings
    results = run([before.parent], jobs=1, options_for=lambda path: options, progress=False)
    changed = {r.path.relative_to(before.parent).as_posix(): r.new_text for r in results if r.changed}
    return changed, [f for r in results for f in r.findings]


def second_run_changes(program: Program, after: Path, options: Options) -> list[str]:
    """The migrated modules a second run would change (users keep tf2migrate as a pre-commit
    hook: its own output must be a fixed point, kept on TF1 or converted)."""
    if not program.modules:
        again, _ = migrate_source(after.read_text(encoding="utf-8"), "before.py", options)
        return [] if again == after.read_text(encoding="utf-8") else [after.name]
    results = run([after.parent], jobs=1, options_for=lambda path: options, progress=False)
    return sorted(r.path.relative_to(after.parent).as_posix() for r in results if r.changed)


def runnable_original(source: str, before: Path) -> Path:
    """What TF1 runs of the program: a TensorFlow 0.x original (``tf.mul``, ``tf.concat(1, [a, b])``)
    with its names and argument orders as TF 1.0 renamed them (rewrites/pre_1_0_api.py, held to
    0.x's meaning by tests/test_pre_1_0_api.py), as the fixtures' harness runs such originals
    (tests/test_fixtures.py ``_runnable_original``): TF 1.x cannot run 0.x's names."""
    upgraded = pre_1_0_api.upgrade(source, ast.parse(source))
    if upgraded is None or upgraded.source == source:
        return before
    if before.name == "main.py":  # a project's: the upgraded script beside its modules
        tree = shutil.copytree(before.parent, before.parent.with_name("original"))
        (tree / "main.py").write_text(upgraded.source, encoding="utf-8")
        return tree / "main.py"
    path = before.with_name("original.py")
    path.write_text(upgraded.source, encoding="utf-8")
    return path


# (the CI slice: 10 programs, about 70 s, its budget; session 25's grammar made programs longer than the 12 it ran)
@settings(max_examples=CAMPAIGN or 10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=not CAMPAIGN)
@given(program=tf1_programs())
def test_migration_computes_what_the_program_computed(program: Program, workers: Workers) -> None:
    check(program, workers)


def test_a_planted_difference_is_caught(workers: Workers) -> None:
    """The net can fail: a migration that computes another value is reported."""
    source = (
        "import tensorflow as tf\nx = tf.placeholder(tf.float32, [])\nwith tf.Session() as sess:\n    r = sess.run(x * 2.0, {x: 1.5})\n"
    )
    folder = workers.root / "planted"
    folder.mkdir()
    (folder / "before.py").write_text(source, encoding="utf-8")
    # the run gave a NumPy float32, as the migrated `.numpy()` does (verify compares dtypes)
    (folder / "after.py").write_text("import numpy as np\nr = np.float32(3.0001)\n", encoding="utf-8")
    report = workers.verify(folder / "before.py", folder / "after.py")
    assert report.verdict == "different", report.render()
    (folder / "after.py").write_text("import numpy as np\nr = np.float32(3.0)\n", encoding="utf-8")
    assert workers.verify(folder / "before.py", folder / "after.py").verdict == "equal"
