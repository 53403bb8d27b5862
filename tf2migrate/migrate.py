"""One file's source in, migrated source and findings out (stub, being built)."""

from __future__ import annotations

from typing import NamedTuple

from tf2migrate.diagnostics import Diagnostic


class MigrationResult(NamedTuple):
    new_source: str
    findings: list[Diagnostic]


def migrate_source(source: str, path: str = "<string>") -> MigrationResult:
    return MigrationResult(source, [])
