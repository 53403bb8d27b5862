"""Long-lived verify workers for the differential test (tests/test_differential.py).

``tf2migrate.verify`` starts one worker process per batch, and each start imports
TensorFlow (seconds).  Hypothesis draws and shrinks one program at a time, so the
differential test keeps one worker per mode alive instead and hands it programs one
by one: the same job runner (``worker.run_job``), the same TF1/TF2 modes and worker
environment, the same comparison and report (``runner._report``) as
``tf2migrate verify ORIGINAL MIGRATED``.

Protocol: the parent writes a pickled :class:`Job` to the worker's stdin and reads a
pickled :class:`ScriptResult` from its stdout; the worker moves its own fd 1 to
stderr first, so nothing a program prints can corrupt the stream.

    python tests/verify_workers.py MODE TMPDIR     # MODE: tf1, tf2 or tf2graph
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

from tf2migrate.verify.records import Job, ScriptResult
from tf2migrate.verify.runner import VerifyReport, _report, _tf2_mode, _worker_env


class Workers:
    """One worker process per mode, started on first use, restarted if one dies."""

    def __init__(self) -> None:
        self._processes: dict[str, subprocess.Popen] = {}
        self._tmp = tempfile.TemporaryDirectory(prefix="tf2migrate-differential-")
        self.root = Path(self._tmp.name)  # programs may be written here; removed by close()

    def verify(self, before: Path, after: Path) -> VerifyReport:
        """What ``tf2migrate verify before after`` reports."""
        tf1 = self.run("tf1", Job(str(before)))
        tf2 = self.run(_tf2_mode(after), Job(str(after), None if tf1.error else tf1.initial_values))
        return _report(before.resolve(), after.resolve(), None, tf1, tf2)

    def run(self, mode: str, job: Job) -> ScriptResult:
        process = self._processes.get(mode)
        if process is None or process.poll() is not None:
            process = self._processes[mode] = self._start(mode)
        assert process.stdin is not None and process.stdout is not None
        try:
            pickle.dump(job, process.stdin)
            process.stdin.flush()
            return pickle.load(process.stdout)
        except (BrokenPipeError, EOFError, pickle.UnpicklingError):
            process.kill()
            return ScriptResult(job.script, error=f"the {mode} worker died while running this script")

    def _start(self, mode: str) -> subprocess.Popen:
        command = [sys.executable, __file__, mode, self._tmp.name]
        return subprocess.Popen(command, env=_worker_env(mode), cwd=self._tmp.name, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def close(self) -> None:
        for process in self._processes.values():
            if process.stdin is not None:
                process.stdin.close()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:  # (seen on a loaded machine: TensorFlow's exit can take longer)
                process.kill()
                process.wait()
        self._tmp.cleanup()


def _serve(mode_name: str, tmp: str) -> None:
    from tf2migrate.verify import worker

    results = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what programs and TensorFlow print goes to stderr, not into the results
    tf = worker._import_tensorflow()
    mode = worker._mode_class(mode_name)(tf)
    output = Path(tmp, f"{mode_name}.output")
    while True:
        try:
            job = pickle.load(sys.stdin.buffer)
        except EOFError:
            return
        pickle.dump(worker.run_job(mode, tf, job, output), results)
        results.flush()


if __name__ == "__main__":
    _serve(sys.argv[1], sys.argv[2])
