"""Parent side of the equivalence check.

All TF1 programs run in one worker subprocess, then the TF2 programs in one worker
per TF2 mode (eager, or graph for the compat fallback), each fed the initial
variable values recorded for its TF1 program; then the values they computed (the
globals of a script, or what a driver's ``drive`` returned) are compared.
TensorFlow runs only in the workers (see worker.py), so this module is cheap to
import.
"""

from __future__ import annotations

import math
import os
import pickle
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import tf2migrate
from tf2migrate.analysis.project import imported_names, resolve, search_directories
from tf2migrate.verify.compare import Row, compare_values
from tf2migrate.verify.records import Job, ScriptResult

#: Environment of all workers: deterministic CPU kernels, quiet C++ logging.
_WORKER_ENV = {
    "TF_ENABLE_ONEDNN_OPTS": "0",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "CUDA_VISIBLE_DEVICES": "",
    "PYTHONHASHSEED": "0",
    "PYTHONUNBUFFERED": "1",  # keeps a script's stdout and stderr in order
}
_PACKAGE_PARENT = str(Path(tf2migrate.__file__).resolve().parent.parent)
_TAIL = 3000  # characters of a log shown with an error


@dataclass
class VerifyReport:
    """The outcome for one (TF1 script, TF2 script) pair."""

    before: Path
    after: Path
    verdict: str  # "equal", "different" or "error" (could not run or compare)
    rows: list[Row] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    tf1_stdout: str = ""  # the script's stdout and stderr, interleaved
    tf2_stdout: str = ""
    driver: Path | None = None
    #: how many TF2 variables' own initial values were compared with TF1's (tf2_mode)
    starts_checked: int = 0

    def render(self) -> str:
        """A per-value table, the messages and the verdict line."""
        lines = [f"{self.before} -> {self.after}" + (f" (driver {self.driver})" if self.driver else "")]
        if self.rows:
            table = [("value", "shape", "max |diff|", "status")] + [
                (
                    row.name,
                    "-" if row.shape is None else str(row.shape),
                    "-" if row.max_abs_diff is None else f"{row.max_abs_diff:.3g}",
                    row.status,
                )
                for row in self.rows
            ]
            widths = [max(len(cells[i]) for cells in table) for i in range(3)] + [0]
            lines += ["  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip() for cells in table]
        lines += self.messages
        if self.verdict == "error":
            for side, output in (("TF1", self.tf1_stdout), ("TF2", self.tf2_stdout)):
                if output.strip():
                    lines.append(f"--- {side} output (tail) ---\n{output[-_TAIL:].rstrip()}")
        failed = sum(not row.ok for row in self.rows)
        summary = {
            "equal": f"{len(self.rows)} of {len(self.rows)} values match",
            "different": f"{failed} of {len(self.rows)} values differ",
            "error": "could not run or compare",
        }[self.verdict]
        lines.append(f"verdict: {self.verdict} ({summary})")
        return "\n".join(lines)

    def as_json(self) -> dict:
        """The report as JSON data; a non-finite difference is a string ("inf", "nan")."""
        return {
            "original": str(self.before),
            "migrated": str(self.after),
            "driver": None if self.driver is None else str(self.driver),
            "verdict": self.verdict,
            "values": [
                {
                    "name": row.name,
                    "shape": None if row.shape is None else list(row.shape),
                    "max_abs_diff": _json_number(row.max_abs_diff),
                    "status": row.status,
                }
                for row in self.rows
            ],
            "messages": self.messages,
            "tf1_output": self.tf1_stdout,
            "tf2_output": self.tf2_stdout,
        }


def _json_number(value: float | None) -> float | str | None:
    return value if value is None or math.isfinite(value) else str(value)


def verify_pair(before: Path, after: Path, timeout: float = 1200, driver: Path | None = None) -> VerifyReport:
    """Check one TF1 program against its TF2 migration (see verify_pairs)."""
    return verify_pairs([(before, after, driver)], timeout)[0]


def verify_pairs(pairs: list[tuple], timeout: float = 1200) -> list[VerifyReport]:
    """Run each TF1 program and its TF2 migration and compare the values they compute.

    ``pairs`` holds ``(original, migrated)`` scripts, whose globals are compared,
    or ``(original, migrated, driver)``: the programs are imported and the
    driver's ``drive`` says what to compare (see driver.py; a None driver is a
    script pair). One tf1 worker runs every distinct TF1 (program, driver), then
    one worker per TF2 mode (see _tf2_mode) its TF2 programs. ``timeout`` is in
    seconds, for each program on each side; a timed-out or dead worker makes the
    affected pairs' verdict "error".
    """
    triples = [(Path(pair[0]).resolve(), Path(pair[1]).resolve(), _resolved(pair[2] if len(pair) > 2 else None)) for pair in pairs]
    tf1_keys = list(dict.fromkeys((before, driver) for before, _, driver in triples))
    tf1_jobs = [Job(str(before), driver=_str(driver)) for before, driver in tf1_keys]
    tf1 = dict(zip(tf1_keys, _run_batch("tf1", tf1_jobs, timeout)))
    tf2_jobs = [
        Job(str(after), None if tf1[before, driver].error else tf1[before, driver].initial_values, _str(driver))
        for before, after, driver in triples
    ]
    batches: dict[str, list[int]] = {}  # TF2 mode -> indices of its pairs
    for index, (_, after, _) in enumerate(triples):
        batches.setdefault(_tf2_mode(after), []).append(index)
    tf2: dict[int, ScriptResult] = {}
    for mode, indices in batches.items():
        tf2.update(zip(indices, _run_batch(mode, [tf2_jobs[index] for index in indices], timeout)))
    return [_report(before, after, driver, tf1[before, driver], tf2[index]) for index, (before, after, driver) in enumerate(triples)]


def _resolved(path) -> Path | None:
    return None if path is None else Path(path).resolve()


def _str(path: Path | None) -> str | None:
    return None if path is None else str(path)


def _tf2_mode(after: Path) -> str:
    """The worker mode for a TF2 program: "tf2graph" if it stays on TF1 graph
    semantics (the compat fallback disables eager execution, a process-global
    switch), in its own file or in a sibling module it imports, else "tf2".

    A text check, so the parent needs no TensorFlow; an unreadable program goes
    to "tf2", whose worker reports why it cannot run it.
    """
    graph = ("disable_eager_execution()", "disable_v2_behavior()")
    return "tf2graph" if any(switch in source for source in _local_sources(after) for switch in graph) else "tf2"


def _local_sources(program: Path) -> list[str]:
    """The text of ``program`` and of the project modules it imports, transitively: found
    as the migration finds them (analysis.project), in the program's directory, the
    directories it puts on ``sys.path``, and packages (``pkg/model.py``, its
    ``__init__.py``, relative imports) — a compat fallback in ``pkg/utils.py`` switches
    eager execution off for the whole worker too."""
    try:
        directories = search_directories(program, program.read_text(errors="replace"))
    except OSError:
        directories = [program.parent]
    sources, seen, todo = [], {program.resolve()}, [program.resolve()]
    while todo:
        path = todo.pop()
        try:
            source = path.read_text(errors="replace")
        except OSError:
            continue
        sources.append(source)
        for name in imported_names(source):
            # ``import pkg.model`` runs ``pkg/__init__.py`` too
            dots = len(name) - len(name.lstrip("."))
            parts = name[dots:].split(".") if name[dots:] else []
            for count in range(len(parts), 0 if parts else -1, -1):
                found = resolve(name[:dots] + ".".join(parts[:count]), path, directories)
                if found is not None and found not in seen:
                    seen.add(found)
                    todo.append(found)
    return sources


def _report(before: Path, after: Path, driver: Path | None, tf1: ScriptResult, tf2: ScriptResult) -> VerifyReport:
    report = VerifyReport(before, after, "error", tf1_stdout=tf1.output, tf2_stdout=tf2.output, driver=driver)
    what = "script" if driver is None else f"program (driven by {driver.name})"
    for side, result in (("TF1", tf1), ("TF2", tf2)):
        if result.error:
            report.messages.append(f"{side} {what} {result.script} failed:\n{result.error.rstrip()}")
    if report.messages:
        return report
    report.rows = compare_values(tf1.values, tf2.values)
    report.messages += tf2.messages
    report.starts_checked = tf2.starts_checked
    if not report.rows:
        if driver is None:
            report.messages.append("the TF1 script bound no numeric value to a global: nothing to compare")
        else:
            report.messages.append("drive() returned no numeric value on TF1: nothing to compare")
        return report
    failed = tf2.messages or not all(row.ok for row in report.rows)
    report.verdict = "different" if failed else "equal"
    return report


def _run_batch(mode: str, jobs: list[Job], timeout: float) -> list[ScriptResult]:
    """Run ``jobs`` in ``mode`` workers, one result per job, failures included.

    Each script has ``timeout`` seconds (the first also TensorFlow's import): a
    worker that dies or runs out of time costs only the script it was running, and
    a fresh worker takes the scripts after it. A worker that dies or runs out of
    time before its first script fails all the remaining scripts.
    """
    results: list[ScriptResult] = []
    with tempfile.TemporaryDirectory(prefix="tf2migrate-verify-") as tmp:
        while len(results) < len(jobs):
            pending = jobs[len(results) :]
            finished, failure, fatal = _run_worker(mode, pending, Path(tmp), timeout)
            results += finished
            if len(finished) < len(pending):
                results.append(failure)
                if fatal:
                    results += [ScriptResult(job.script, error=f"not run: {failure.error.splitlines()[0]}") for job in jobs[len(results) :]]
    return results


def _run_worker(mode: str, jobs: list[Job], tmp: Path, timeout: float):
    """One worker process over ``jobs``, ``timeout`` seconds for each.

    Returns the results it wrote, a failed ScriptResult for the job it was
    running if it did not finish them all, and whether the failure should end
    the batch (death or timeout before the first script).
    """
    jobs_file, out_file, log_file = (tmp / f"{mode}.{name}" for name in ("jobs", "results", "log"))
    output_file = Path(f"{out_file}.output")  # the running script's output
    for stale in (out_file, output_file):
        stale.unlink(missing_ok=True)
    jobs_file.write_bytes(pickle.dumps(jobs))
    command = [sys.executable, "-m", "tf2migrate.verify.worker", "--mode", mode]
    command += ["--jobs", str(jobs_file), "--out", str(out_file)]
    with open(log_file, "wb") as log:
        process = subprocess.Popen(command, env=_worker_env(mode), cwd=tmp, stdout=log, stderr=subprocess.STDOUT)
        code = wait_for_progress(process, out_file, timeout)
    how = "timed out" if code is None else f"exited with code {code}"
    results = _read_results(out_file)
    if len(results) == len(jobs):
        return results, None, False
    started = output_file.exists()
    what = "while running this script" if started else "before running any script"
    log_tail = log_file.read_text(errors="replace")[-_TAIL:]
    failure = ScriptResult(
        jobs[len(results)].script,
        output=output_file.read_text(errors="replace") if started else "",
        error=f"the {mode} worker process {how} {what}\n--- worker log (tail) ---\n{log_tail}",
    )
    return results, failure, not started


def wait_for_progress(process: subprocess.Popen, out_file: Path, timeout: float) -> int | None:
    """The worker's exit code, waiting ``timeout`` seconds for each result it appends to
    ``out_file`` (the clock starts again at each); None if one took longer (the worker is
    killed). A per-script time, not one for the batch: a batch of hundreds of programs on a
    loaded machine would run out of a batch's time and fail every program after it."""
    size, progressed = -1, time.monotonic()
    while True:
        try:
            return process.wait(timeout=min(_POLL_SECONDS, max(progressed + timeout - time.monotonic(), 0.0)))
        except subprocess.TimeoutExpired:
            pass
        written = out_file.stat().st_size if out_file.exists() else 0
        if written != size:
            size, progressed = written, time.monotonic()
        elif time.monotonic() >= progressed + timeout:
            process.kill()
            process.wait()
            return None


_POLL_SECONDS = 1.0  # how often a worker's progress is looked at


def _read_results(path: Path) -> list[ScriptResult]:
    """The complete pickles in ``path`` (the last one may be cut off by a crash)."""
    results = []
    if path.exists():
        with open(path, "rb") as file:
            while True:
                try:
                    results.append(pickle.load(file))
                except (EOFError, pickle.UnpicklingError):
                    break
    return results


def _worker_env(mode: str) -> dict[str, str]:
    env = {**os.environ, **_WORKER_ENV}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_PARENT, env.get("PYTHONPATH")]))
    if mode in ("tf1", "tf2graph"):
        env["TF_USE_LEGACY_KERAS"] = "1"  # tf.compat.v1.layers and tf.compat.v1.keras need tf-keras
    else:
        env.pop("TF_USE_LEGACY_KERAS", None)
    return env
