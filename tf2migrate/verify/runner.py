"""Parent side of the equivalence check.

All TF1 scripts run in one worker subprocess, then the TF2 scripts in one worker
per TF2 mode (eager, or graph for the compat fallback), each fed the initial
variable values recorded for its TF1 script; then the values they bound to
globals are compared. TensorFlow runs only in the workers (see worker.py), so
this module is cheap to import.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import tf2migrate
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

    def render(self) -> str:
        """A per-value table, the messages and the verdict line."""
        lines = [f"{self.before} -> {self.after}"]
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


def verify_pair(before: Path, after: Path, timeout: float = 1200) -> VerifyReport:
    """Check one TF1 script against its TF2 migration (see verify_pairs)."""
    return verify_pairs([(before, after)], timeout)[0]


def verify_pairs(pairs: list[tuple[Path, Path]], timeout: float = 1200) -> list[VerifyReport]:
    """Run each (TF1, TF2) script pair and compare the values they compute.

    One tf1 worker runs every distinct TF1 script, then one worker per TF2 mode
    (see _tf2_mode) its TF2 scripts. ``timeout`` is in seconds, for each worker
    batch; a timed-out or dead worker makes the affected pairs' verdict "error".
    """
    pairs = [(Path(before).resolve(), Path(after).resolve()) for before, after in pairs]
    befores = list(dict.fromkeys(before for before, _ in pairs))
    tf1 = dict(zip(befores, _run_batch("tf1", [Job(str(path)) for path in befores], timeout)))
    tf2_jobs = [
        Job(str(after), None if tf1[before].error else tf1[before].initial_values)
        for before, after in pairs
    ]
    batches: dict[str, list[int]] = {}  # TF2 mode -> indices of its pairs
    for index, (_, after) in enumerate(pairs):
        batches.setdefault(_tf2_mode(after), []).append(index)
    tf2: dict[int, ScriptResult] = {}
    for mode, indices in batches.items():
        tf2.update(zip(indices, _run_batch(mode, [tf2_jobs[index] for index in indices], timeout)))
    return [_report(before, after, tf1[before], tf2[index]) for index, (before, after) in enumerate(pairs)]


def _tf2_mode(after: Path) -> str:
    """The worker mode for a TF2 script: "tf2graph" if it stays on TF1 graph
    semantics (the compat fallback disables eager execution, a process-global
    switch), else "tf2".

    A text check, so the parent needs no TensorFlow; an unreadable script goes to
    "tf2", whose worker reports why it cannot run it.
    """
    try:
        source = after.read_text(errors="replace")
    except OSError:
        return "tf2"
    graph = "disable_eager_execution()" in source or "disable_v2_behavior()" in source
    return "tf2graph" if graph else "tf2"


def _report(before: Path, after: Path, tf1: ScriptResult, tf2: ScriptResult) -> VerifyReport:
    report = VerifyReport(before, after, "error", tf1_stdout=tf1.output, tf2_stdout=tf2.output)
    for side, result in (("TF1", tf1), ("TF2", tf2)):
        if result.error:
            report.messages.append(f"{side} script {result.script} failed:\n{result.error.rstrip()}")
    if report.messages:
        return report
    report.rows = compare_values(tf1.values, tf2.values)
    report.messages += tf2.messages
    if not report.rows:
        report.messages.append("the TF1 script bound no numeric value to a global: nothing to compare")
        return report
    failed = tf2.messages or not all(row.ok for row in report.rows)
    report.verdict = "different" if failed else "equal"
    return report


def _run_batch(mode: str, jobs: list[Job], timeout: float) -> list[ScriptResult]:
    """Run ``jobs`` in ``mode`` workers, one result per job, failures included.

    A worker that dies costs only the script it was running: a fresh worker
    takes the scripts after it. A timeout (or a worker that dies before its
    first script) fails all the remaining scripts.
    """
    results: list[ScriptResult] = []
    deadline = time.monotonic() + timeout
    with tempfile.TemporaryDirectory(prefix="tf2migrate-verify-") as tmp:
        while len(results) < len(jobs):
            pending = jobs[len(results):]
            finished, failure, fatal = _run_worker(mode, pending, Path(tmp), deadline)
            results += finished
            if len(finished) < len(pending):
                results.append(failure)
                if fatal:
                    results += [
                        ScriptResult(job.script, error=f"not run: {failure.error.splitlines()[0]}")
                        for job in jobs[len(results):]
                    ]
    return results


def _run_worker(mode: str, jobs: list[Job], tmp: Path, deadline: float):
    """One worker process over ``jobs``.

    Returns the results it wrote, a failed ScriptResult for the job it was
    running if it did not finish them all, and whether the failure should end
    the batch (timeout, or death before the first script).
    """
    jobs_file, out_file, log_file = (tmp / f"{mode}.{name}" for name in ("jobs", "results", "log"))
    output_file = Path(f"{out_file}.output")  # the running script's output
    for stale in (out_file, output_file):
        stale.unlink(missing_ok=True)
    jobs_file.write_bytes(pickle.dumps(jobs))
    command = [sys.executable, "-m", "tf2migrate.verify.worker", "--mode", mode]
    command += ["--jobs", str(jobs_file), "--out", str(out_file)]
    with open(log_file, "wb") as log:
        try:
            code = subprocess.run(
                command,
                env=_worker_env(mode),
                cwd=tmp,
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=max(deadline - time.monotonic(), 0),
            ).returncode
            how, timed_out = f"exited with code {code}", False
        except subprocess.TimeoutExpired:
            how, timed_out = "timed out", True
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
    return results, failure, timed_out or not started


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
