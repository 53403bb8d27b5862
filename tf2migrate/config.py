"""Which findings to report: ``[tool.tf2migrate]`` in pyproject.toml, ``--select`` /
``--ignore`` on the command line, and ``# tf2migrate: ignore[TFMnnn]`` on a line.

``tf-function = false`` (or ``--no-tf-function``) writes generated functions as plain
eager functions instead of ``@tf.function``. ``[tool.tf2migrate.verify]`` lists the
programs ``tf2migrate verify`` checks (read here, interpreted by tf2migrate.verify.project).

Selection filters what is reported (and so the exit status); it does not switch rewrites
off — a file's graph is converted all or nothing whatever is shown.  Codes match by
prefix, ruff-style: ``TFM4`` selects every API-rename code.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tf2migrate.diagnostics import Diagnostic

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SUPPRESSION = re.compile(r"#\s*tf2migrate:\s*ignore(?:\[([A-Z0-9,\s]+)\])?")


class ConfigError(ValueError):
    """A malformed [tool.tf2migrate] table."""


@dataclass
class Config:
    select: list[str] = field(default_factory=lambda: ["TFM"])
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)  # glob patterns of paths to skip
    tf_function: bool = True  # generated functions decorated with @tf.function

    def reports(self, code: str) -> bool:
        return any(code.startswith(p) for p in self.select) and not any(code.startswith(p) for p in self.ignore)

    def excludes(self, path: Path) -> bool:
        text = path.as_posix()
        return any(fnmatch.fnmatch(text, pattern) or fnmatch.fnmatch(path.name, pattern) for pattern in self.exclude)


def load(start: Path) -> Config:
    """The [tool.tf2migrate] table of the nearest pyproject.toml at or above ``start``."""
    found = _nearest(start)
    return Config() if found is None else from_table(found[1], str(found[0]))


def verify_table(start: Path) -> tuple[Path, dict] | None:
    """(pyproject.toml, its [tool.tf2migrate.verify] table) for the nearest
    pyproject.toml at or above ``start``, or None if it has no such table. What
    the table means is tf2migrate.verify.project's business."""
    found = _nearest(start)
    if found is None or "verify" not in found[1]:
        return None
    from_table(found[1], str(found[0]))  # the same errors as a migration run
    return found[0], found[1]["verify"]


def _nearest(start: Path) -> tuple[Path, dict] | None:
    """(path, [tool.tf2migrate] table) of the nearest pyproject.toml at or above ``start``."""
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                table = tomllib.loads(candidate.read_text(encoding="utf-8")).get("tool", {}).get("tf2migrate", {})
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise ConfigError(f"{candidate}: {exc}") from exc
            return candidate, table
    return None


def from_table(table: dict, where: str) -> Config:
    config = Config()
    for key, value in table.items():
        if key == "verify":  # programs for `tf2migrate verify`, not a migration setting
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: [tool.tf2migrate] verify must be a table")
            continue
        if key == "tf-function":
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: [tool.tf2migrate] tf-function must be true or false")
            config.tf_function = value
            continue
        if key not in ("select", "ignore", "exclude"):
            raise ConfigError(
                f"{where}: unknown key {key!r} in [tool.tf2migrate] (known: select, ignore, exclude, tf-function, verify)"
            )
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: [tool.tf2migrate] {key} must be a list of strings")
        setattr(config, key, [v.upper() if key != "exclude" else v for v in value])
    return config


def suppressed(finding: Diagnostic, lines: list[str]) -> bool:
    """Is the finding's line marked ``# tf2migrate: ignore`` (for all codes or its own)?"""
    if not 1 <= finding.line <= len(lines):
        return False
    match = SUPPRESSION.search(lines[finding.line - 1])
    if match is None:
        return False
    codes = match.group(1)
    return codes is None or any(finding.code.startswith(c.strip()) for c in codes.split(",") if c.strip())
