"""Read and write Python source files byte-exactly.

A migration must change only what a rewrite changed: the encoding (BOM, coding
cookie), line endings (CRLF, CR, LF), tabs and a missing final newline all survive a
read/write round trip, so an unchanged file encodes back to the very same bytes.
"""

from __future__ import annotations

import contextlib
import glob
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path


class SourceError(Exception):
    """A file that cannot be read, decoded or written; the engine reports it as TFM003."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class SourceText:
    """Decoded source plus the encoding needed to turn it back into the same bytes."""

    text: str
    encoding: str

    def encode(self) -> bytes:
        return self.text.encode(self.encoding)


def resolved(path: Path) -> Path:
    """``path.resolve()``, the key of a file in a run; a symlink loop (which ``read_source``
    refuses) is its absolute path rather than an exception."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def read_source(path: str | os.PathLike[str]) -> SourceText:
    """Read ``path`` the way Python would decode it, without newline translation.

    Symlinks are refused, whether given or found: an atomic rewrite would replace the
    link by a regular file, and following it could write outside the tree being migrated.
    Anything but a regular file (a FIFO, a socket, a device) is refused before it is
    read, and opened without blocking: opening a FIFO that no one writes would wait forever.
    """
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise SourceError("is a symbolic link; not following it")
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with open(fd, "rb") as f:
            kind = _kind(os.fstat(fd).st_mode)
            if kind:
                raise SourceError(f"is {kind}, not a regular file; skipped")
            data = f.read()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from exc
    return decode(data)


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a device"


def decode(data: bytes) -> SourceText:
    """Decode a file's bytes as Python would (BOM, coding cookie, else UTF-8)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown codec in the cookie, or a cookie contradicting the BOM
        raise SourceError(f"bad encoding declaration: {exc.msg}") from exc
    try:
        return SourceText(data.decode(encoding), encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SourceError(f"not valid {encoding}: {exc.reason} at byte {exc.start}", line) from exc


TEMPORARY_SUFFIX = ".tf2migrate"


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the existing file ``path`` by ``data`` so that readers see old or new, never half.

    The new bytes go to a temporary file in the same directory (``os.replace`` is only
    atomic within one file system), flushed to disk, with the original's permission bits
    (an executable script stays executable) and, where allowed, its owner and group.
    Leftovers of a killed run on this file (``.NAME.xxxx.tf2migrate``) are removed first.

    Two cases cannot be renamed over without changing what the file *is*: a hard-linked
    file (a rename would split it from its other names) and a file whose owner or group
    this process cannot give to a new file (it would change hands).  Those are written
    in place, but only once the complete new text is on disk in the temporary file: the
    copy is one write of bytes already known to be whole, then truncate and fsync.  If
    that copy fails, the temporary file is kept and named in the error.

    A read-only file (no write bit for its owner) is refused, as black and ruff do:
    the rename would otherwise rewrite what its owner protected.
    """
    path = Path(path)
    st = os.stat(path)
    if not st.st_mode & stat.S_IWUSR:
        raise SourceError("is read-only; not rewritten")
    _remove_leftovers(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            owner_kept = _give_owner(f.fileno(), st)
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if st.st_nlink == 1 and owner_kept:
            os.replace(tmp, path)
            return
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    try:
        _overwrite(path, data)
    except OSError as exc:
        raise SourceError(f"cannot write in place ({exc.strerror or exc}); the new text is in {tmp}") from exc
    os.unlink(tmp)


def _give_owner(fd: int, st: os.stat_result) -> bool:
    """Give the open file ``st``'s owner and group; False when not allowed."""
    current = os.fstat(fd)
    if (current.st_uid, current.st_gid) == (st.st_uid, st.st_gid):
        return True
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except PermissionError:
        return False
    return True


def _overwrite(path: Path, data: bytes) -> None:
    """Write ``data`` over ``path``'s own inode (its links, owner and mode stay)."""
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_leftovers(path: Path) -> None:
    """Remove the temporary files a killed run left for ``path`` (its own naming only)."""
    for leftover in path.parent.glob(f".{glob.escape(path.name)}.*{TEMPORARY_SUFFIX}"):
        with contextlib.suppress(OSError):
            if stat.S_ISREG(leftover.lstat().st_mode):
                leftover.unlink()
