"""Byte-exact reading and atomic writing of source files."""

from __future__ import annotations

import os
import stat

import pytest

from tf2migrate import source
from tf2migrate.source import SourceError, SourceText, read_source, write_atomic


@pytest.mark.parametrize(
    ("data", "encoding", "text"),
    [
        (b"\xef\xbb\xbfx = 1\n", "utf-8-sig", "x = 1\n"),
        (b"x = 1\r\ny = 2\r\n", "utf-8", "x = 1\r\ny = 2\r\n"),
        (b"x = 1\ry = 2\r", "utf-8", "x = 1\ry = 2\r"),
        (b"# coding: latin-1\ns = '\xe9'\n", "iso-8859-1", "# coding: latin-1\ns = '\u00e9'\n"),
        (b"x = 1", "utf-8", "x = 1"),
        (b"if x:\n\ty = 1\n\x0c\n", "utf-8", "if x:\n\ty = 1\n\x0c\n"),
        (b"s = '\xc3\xa9'\r\n", "utf-8", "s = '\u00e9'\r\n"),
        (b"", "utf-8", ""),
    ],
    ids=["bom", "crlf", "cr", "latin1-cookie", "no-final-newline", "tabs-formfeed", "utf8-crlf", "empty"],
)
def test_round_trip_is_byte_exact(tmp_path, data, encoding, text):
    path = tmp_path / "m.py"
    path.write_bytes(data)
    src = read_source(path)
    assert src == SourceText(text, encoding)
    assert src.encode() == data


@pytest.mark.parametrize(
    ("data", "message", "line"),
    [
        (b"x = 1\ny = '\xff'\n", "not valid utf-8", 2),
        (b"# coding: no-such-codec\n", "bad encoding declaration", 1),
        (b"\xef\xbb\xbf# coding: latin-1\n", "bad encoding declaration", 1),
    ],
    ids=["invalid-utf8", "unknown-codec", "bom-contradicts-cookie"],
)
def test_undecodable_file(tmp_path, data, message, line):
    path = tmp_path / "m.py"
    path.write_bytes(data)
    with pytest.raises(SourceError, match=message) as info:
        read_source(path)
    assert info.value.line == line


def test_missing_file(tmp_path):
    with pytest.raises(SourceError, match="cannot read"):
        read_source(tmp_path / "gone.py")


def test_directory_is_not_a_source(tmp_path):
    with pytest.raises(SourceError):
        read_source(tmp_path)


def test_symlinks_are_refused(tmp_path):
    target = tmp_path / "real.py"
    target.write_text("x = 1\n")
    (tmp_path / "link.py").symlink_to(target)
    (tmp_path / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    for name in ("link.py", "dangling.py"):
        with pytest.raises(SourceError, match="symbolic link"):
            read_source(tmp_path / name)


def test_write_atomic_keeps_mode(tmp_path):
    path = tmp_path / "script.py"
    path.write_bytes(b"old\n")
    path.chmod(0o755)
    write_atomic(path, b"new\r\n")
    assert path.read_bytes() == b"new\r\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert os.listdir(tmp_path) == ["script.py"]


@pytest.mark.parametrize("step", ["fsync", "replace"])
def test_write_atomic_failure_leaves_original(tmp_path, monkeypatch, step):
    path = tmp_path / "m.py"
    path.write_bytes(b"original\n")

    def boom(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(source.os, step, boom)
    with pytest.raises(OSError, match="No space"):
        write_atomic(path, b"new\n")
    monkeypatch.undo()
    assert path.read_bytes() == b"original\n"
    assert os.listdir(tmp_path) == ["m.py"]


def test_owner_that_cannot_be_given_is_kept_by_writing_in_place(tmp_path, monkeypatch):
    """Not root: a rename would hand the file to the writer; the inode is rewritten instead."""
    path = tmp_path / "m.py"
    path.write_bytes(b"old text, longer than the new one\n")
    inode = path.stat().st_ino

    def refused(fd, uid, gid):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(source.os, "fstat", lambda fd: os.stat_result((0,) * 4 + (-1, -1) + (0,) * 4))
    monkeypatch.setattr(source.os, "fchown", refused)
    write_atomic(path, b"new\n")
    monkeypatch.undo()
    assert path.read_bytes() == b"new\n"  # truncated to the new length
    assert path.stat().st_ino == inode
    assert os.listdir(tmp_path) == ["m.py"]


def test_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    with pytest.raises(SourceError, match="is a FIFO, not a regular file"):
        read_source(tmp_path / "pipe.py")
