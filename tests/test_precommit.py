"""The pre-commit hook, installed by the real ``pre-commit`` from this repository."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TF1 = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\ny = x * 2.0\nwith tf.Session() as sess:\n    v = sess.run(y, {x: 3.0})\n"

pytestmark = pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs git and a git checkout")


def _run(args, cwd, env):
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_try_repo_rewrites_a_staged_tf1_file_then_passes(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "TF2MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    _run([*git, "init", "-q"], project, env)
    (project / "model.py").write_text(TF1)
    _run([*git, "add", "model.py"], project, env)
    pre_commit = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "tf2migrate", "--files", "model.py"]

    first = _run(pre_commit, project, env)
    assert first.returncode == 1, first.stdout + first.stderr  # it rewrote the file
    migrated = (project / "model.py").read_text()
    assert "placeholder" not in migrated and "def compute_y(x):" in migrated

    second = _run(pre_commit, project, env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert (project / "model.py").read_text() == migrated
