"""Read and write Python source files byte-exactly.

A migration must change only what a rewrite changed: the encoding (BOM, coding
cookie), line endings (CRLF, CR, LF), tabs and a missing final newline all survive a
read/write round trip, so an unchanged file encodes back to the very same bytes.
"""

from __future__ import annotations

import contextlib
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


def read_source(path: str | os.PathLike[str]) -> SourceText:
    """Read ``path`` the way Python would decode it, without newline translation.

    Symlinks are refused, whether given or found: an atomic rewrite would replace the
    link by a regular file, and following it could write outside the tree being migrated.
    """
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise SourceError("is a symbolic link; not following it")
        with open(path, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise SourceError("is not a regular file")
            data = f.read()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from exc
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown codec in the cookie, or a cookie contradicting the BOM
        raise SourceError(f"bad encoding declaration: {exc.msg}") from exc
    try:
        return SourceText(data.decode(encoding), encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SourceError(f"not valid {encoding}: {exc.reason} at byte {exc.start}", line) from exc


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the existing file ``path`` by ``data`` so that readers see old or new, never half.

    The temporary file lives in the same directory (``os.replace`` is only atomic within
    one file system) and gets the original's permission bits (an executable script stays
    executable).  On any failure the temporary file is removed and the original is intact.
    """
    path = Path(path)
    mode = stat.S_IMODE(os.stat(path).st_mode)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tf2migrate")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
