"""The code's own rules, run with the suite: ruff's lint and the import-linter contracts
(the one-way layers written down in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("command", [["ruff", "check", "."], ["lint-imports"]], ids=["ruff", "import-linter"])
def test_code_rules_hold(command):
    executable = shutil.which(command[0])
    assert executable is not None, f"{command[0]} is not installed (it is in the test extra)"
    result = subprocess.run([executable, *command[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
