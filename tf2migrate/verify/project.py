"""``tf2migrate verify`` with no arguments: the programs listed in pyproject.toml.

"I migrated my repository; prove it." The table names the tree before and the
tree after the migration, and the programs to check in both::

    [tool.tf2migrate.verify]
    original = "../myproject-tf1"   # the tree before migration (a copy, a git worktree)
    migrated = "."                  # the migrated tree (default: ".")
    timeout = 600                   # seconds per side (default: 1200)
    programs = [
        { program = "model.py", driver = "verify/drive_model.py" },
        "scripts/train_small.py",   # no driver: a script, its globals compared
    ]

``original``, ``migrated`` and ``driver`` are relative to the pyproject.toml's
directory; ``program`` to each tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tf2migrate.config import ConfigError

_PROGRAM_KEYS = {"program", "driver"}


@dataclass
class Project:
    checks: list[tuple[Path, Path, Path | None]]  # (original, migrated, driver)
    timeout: float | None


def from_table(pyproject: Path, table: dict) -> Project:
    """The checks a [tool.tf2migrate.verify] table lists; ConfigError if malformed."""
    where = f"{pyproject}: [tool.tf2migrate.verify]"
    unknown = set(table) - {"original", "migrated", "timeout", "programs"}
    if unknown:
        raise ConfigError(f"{where} has unknown keys {sorted(unknown)} (known: original, migrated, timeout, programs)")
    root = pyproject.parent
    if not isinstance(table.get("original"), str):
        raise ConfigError(f'{where} needs original = "the tree before migration"')
    if not isinstance(table.get("migrated", "."), str):
        raise ConfigError(f"{where} migrated must be a path")
    original, migrated = root / table["original"], root / table.get("migrated", ".")
    timeout = table.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
        raise ConfigError(f"{where} timeout must be a positive number of seconds")
    programs = table.get("programs")
    if not isinstance(programs, list) or not programs:
        raise ConfigError(f"{where} needs programs = [...]: paths, or {{ program = ..., driver = ... }} tables")
    checks = []
    for entry in programs:
        if isinstance(entry, str):
            entry = {"program": entry}
        if not (
            isinstance(entry, dict)
            and set(entry) <= _PROGRAM_KEYS
            and isinstance(entry.get("program"), str)
            and isinstance(entry.get("driver", ""), str)
        ):
            raise ConfigError(f"{where} programs: {entry!r} is not a path or a {{ program = ..., driver = ... }} table")
        driver = entry.get("driver")
        checks.append((original / entry["program"], migrated / entry["program"], None if driver is None else root / driver))
    return Project(checks, timeout)
