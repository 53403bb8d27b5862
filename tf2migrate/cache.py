"""A cache of migration results keyed by file content and by tf2migrate's own code.

A re-run over an unchanged tree (the pre-commit hook, a second ``--diff``) then reads
one small file per source instead of parsing it.  The key covers the source text and a
fingerprint of every module of the installed package, so a changed rewrite never serves
a stale result.  Entries are written atomically; a corrupt or unreadable entry is a miss,
and so is an entry that does not name the SHA-256 of the very source being looked up
(a misplaced or tampered entry can never replace a file's content).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path

from tf2migrate.diagnostics import Diagnostic, Severity

ENV_DIRECTORY = "TF2MIGRATE_CACHE_DIR"


def directory() -> Path:
    configured = os.environ.get(ENV_DIRECTORY)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tf2migrate"


@functools.lru_cache(maxsize=1)
def _fingerprint() -> str:
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for module in sorted(package.rglob("*.py")):
        digest.update(module.relative_to(package).as_posix().encode())
        digest.update(module.read_bytes())
    return digest.hexdigest()


def _entry(source: str, variant: str) -> Path:
    """``variant`` names what else decides the result: the kind of file and the options."""
    key = hashlib.sha256(_fingerprint().encode() + b"\0" + variant.encode() + b"\0" + source.encode("utf-8", "surrogatepass")).hexdigest()
    return directory() / key[:2] / f"{key}.json"


def _digest(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def load(source: str, variant: str, path: str) -> tuple[str, list[Diagnostic]] | None:
    """The cached (new source, findings) of this text, findings stamped with ``path``
    (plus the cell a notebook finding names)."""
    try:
        data = json.loads(_entry(source, variant).read_text(encoding="utf-8"))
        if data["source_sha256"] != _digest(source):
            return None
        new = source if data["unchanged"] else data["new_source"]
        findings = [
            Diagnostic(f["code"], f["message"], path + f["where"], f["line"], f["column"], Severity(f["severity"]))
            for f in data["findings"]
        ]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return new, findings


def store(source: str, variant: str, path: str, new: str, findings: list[Diagnostic]) -> None:
    entry = _entry(source, variant)
    data = {
        "source_sha256": _digest(source),
        "unchanged": new == source,
        "new_source": None if new == source else new,
        "findings": [
            {
                "code": f.code,
                "message": f.message,
                "where": f.path.removeprefix(path),  # ":cell 3" in a notebook
                "line": f.line,
                "column": f.column,
                "severity": f.severity.value,
            }
            for f in findings
        ],
    }
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(temporary, entry)
    except OSError:
        pass  # a cache that cannot be written only costs time
