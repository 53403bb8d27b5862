"""The optimizers tf2migrate emits take TF1's steps to the last digit: every converted
optimizer, float32 and float64 variables, dense and sparse gradients, against TF1's own
(benchmarks/tf1_optimizer_steps.py, each side in its own process)."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[1] / "benchmarks" / "tf1_optimizer_steps.py"


def test_emitted_optimizers_are_bit_identical_to_tf1():
    run = subprocess.run([sys.executable, str(SCRIPT), "--steps", "5"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    assert run.stdout.rstrip().endswith(" cases identical")
