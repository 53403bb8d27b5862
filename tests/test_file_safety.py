"""File safety on real files through the command line: special files, closed pipes,
owners, hard links, read-only files and the leftovers of a killed run."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from tf2migrate.cli import main

TF1 = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nwith tf.Session() as sess:\n    v = sess.run(x * 2.0, {x: 1.0})\n"


def tf2migrate(*args, cwd, **kwargs):
    """The real command in its own process; a hang fails the test instead of blocking it."""
    return subprocess.run([sys.executable, "-m", "tf2migrate", *args], cwd=cwd, capture_output=True, text=True, timeout=120, **kwargs)


@pytest.mark.parametrize("named", [True, False], ids=["named", "walked"])
def test_fifo_is_skipped_with_a_finding_and_never_opened(tmp_path, named):
    os.mkfifo(tmp_path / "pipe.py")  # nobody writes it: opening it for reading would block
    (tmp_path / "model.py").write_text(TF1)
    proc = tf2migrate("-j", "1", "pipe.py" if named else ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "pipe.py:1:1: TFM003 [error] is a FIFO, not a regular file; skipped" in proc.stdout
    if not named:
        assert "model.py:" in proc.stdout  # the rest of the tree was still migrated


def test_closed_stdout_ends_quietly(tmp_path):
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text(TF1)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tf2migrate", "-j", "1", "."],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before the first line is written (`| head -0`)
    _, err = proc.communicate(timeout=120)
    assert err == b""
    assert proc.returncode in (0, 1)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_fix_as_root_keeps_owner_and_group(tmp_path, capsys):
    path = tmp_path / "model.py"
    path.write_text(TF1)
    os.chown(path, 4321, 8765)
    assert main(["-j", "1", "--fix", str(path)]) == 1
    assert "tf.Session" not in path.read_text()
    assert (path.stat().st_uid, path.stat().st_gid) == (4321, 8765)


def test_fix_keeps_hard_links(tmp_path, capsys):
    path = tmp_path / "model.py"
    path.write_text(TF1)
    os.link(path, tmp_path / "alias.txt")
    inode = path.stat().st_ino
    assert main(["-j", "1", "--fix", str(path)]) == 1
    assert "tf.Session" not in path.read_text()
    assert (tmp_path / "alias.txt").read_text() == path.read_text()  # still one file
    assert (path.stat().st_ino, path.stat().st_nlink) == (inode, 2)
    assert sorted(os.listdir(tmp_path)) == ["alias.txt", "model.py"]  # no temporary file left


def test_read_only_file_is_reported_and_left(tmp_path, capsys):
    path = tmp_path / "model.py"
    path.write_text(TF1)
    path.chmod(0o444)
    assert main(["-j", "1", "--fix", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:1:1: TFM003 [error] is read-only; not rewritten" in out
    assert "0 files rewritten" in out
    assert path.read_text() == TF1
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_leftovers_of_a_killed_run_are_ignored_then_removed(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(TF1)
    (tmp_path / "other.py").write_text("x = 1\n")
    leftover = tmp_path / ".model.py.k1ll3d_.tf2migrate"  # what a SIGKILL during a write leaves
    leftover.write_bytes(b"")
    foreign = tmp_path / ".model.py.keep"  # not of tf2migrate's naming: never touched
    foreign.write_bytes(b"")
    assert main(["-j", "1", "."]) == 1
    out = capsys.readouterr().out
    assert ".tf2migrate" not in out and out.splitlines()[-1].startswith("2 files checked")
    assert leftover.exists()  # a check writes (and removes) nothing
    assert main(["-j", "1", "--fix", "."]) == 1
    assert not leftover.exists() and foreign.exists()
    assert sorted(os.listdir(tmp_path)) == [".model.py.keep", "model.py", "other.py"]


@pytest.mark.parametrize("named", [True, False], ids=["named", "walked"])
def test_symlink_loop_is_reported_not_a_crash(tmp_path, capsys, named):
    (tmp_path / "loop.py").symlink_to("loop.py")  # resolving it raises: a loop
    (tmp_path / "model.py").write_text(TF1)
    assert main(["-j", "1", str(tmp_path / "loop.py") if named else str(tmp_path), str(tmp_path / "model.py")]) == 1
    out = capsys.readouterr().out
    assert "model.py:2:5: TFM101" in out  # the other file was migrated
    if named:
        assert "loop.py:1:1: TFM003 [error] is a symbolic link; not following it" in out
