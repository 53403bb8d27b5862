"""Which files and findings to handle: ``[tool.tf2migrate]`` in pyproject.toml,
``--select`` / ``--ignore`` / ``--exclude`` on the command line, and
``# tf2migrate: ignore[TFMnnn]`` on a line.  ``[tool.tf2migrate.verify]`` lists the
programs ``tf2migrate verify`` checks (read here, interpreted by tf2migrate.verify.project).

Each file takes the table of the nearest pyproject.toml at or above it that has one (as
ruff does), so a monorepo's packages can differ; the command line applies on top.

``tf-function = false`` (or ``--no-tf-function``) writes generated functions as plain
eager functions instead of ``@tf.function``.

Selection filters what is reported (and so the exit status); it does not switch rewrites
off — a file's graph is converted all or nothing whatever is shown.  Codes match by
prefix, ruff-style: ``TFM4`` selects every API-rename code; a prefix that matches no
code is an error, since a typo would otherwise silently select nothing.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tf2migrate.diagnostics import Diagnostic
from tf2migrate.rules import all_rules

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SUPPRESSION = re.compile(r"#\s*tf2migrate:\s*ignore(?:\[([A-Z0-9,\s]+)\])?")


class ConfigError(ValueError):
    """A malformed [tool.tf2migrate] table, or a code that does not exist."""


@dataclass(frozen=True)
class Exclude:
    """One ``exclude`` pattern, gitignore-style, relative to ``base`` (where it was written).

    ``legacy``, ``legacy/`` and ``legacy/*`` exclude a ``legacy`` directory at any depth
    (``src/legacy/x.py`` too); a trailing ``/`` matches directories only; a leading ``/``
    anchors the pattern at ``base``; ``*`` and ``?`` stay within one path component and
    ``**`` crosses them.  Unlike .gitignore, a slash in the middle does not anchor the
    pattern: ``legacy/*`` was always meant to catch every legacy directory.
    """

    pattern: str
    base: Path

    @functools.cached_property
    def _regex(self) -> re.Pattern[str]:
        body = self.pattern.strip("/")
        head = "" if self.pattern.startswith("/") else "(?:.*/)?"
        tail = "/.*" if self.pattern.endswith("/") else "(?:/.*)?"
        return re.compile(head + _translate(body) + tail, re.DOTALL)

    def matches(self, path: Path) -> bool:
        absolute = os.path.abspath(path)
        relative = os.path.relpath(absolute, os.path.abspath(self.base))
        if relative.startswith(os.pardir):
            relative = absolute.lstrip(os.sep)  # outside base: only unanchored patterns can match
        return self._regex.fullmatch(Path(relative).as_posix()) is not None


def _translate(glob: str) -> str:
    """A glob with ``*``, ``?``, ``**`` and ``[...]`` as a regular expression over posix paths."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and "]" in glob[i + 2 :]:
            close = glob.index("]", i + 2)
            inner = glob[i + 1 : close]
            out.append("[" + ("^" + inner[1:] if inner.startswith("!") else inner).replace("\\", "\\\\") + "]")
            i = close + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


@dataclass
class Config:
    """One directory's settings; :meth:`copy` before changing a shared one."""

    select: list[str] = field(default_factory=lambda: ["TFM"])
    ignore: list[str] = field(default_factory=list)
    exclude: list[Exclude] = field(default_factory=list)  # paths to skip when walking
    tf_function: bool = True  # generated functions decorated with @tf.function

    def reports(self, code: str) -> bool:
        return any(code.startswith(p) for p in self.select) and not any(code.startswith(p) for p in self.ignore)

    def excludes(self, path: Path) -> bool:
        return any(e.matches(path) for e in self.exclude)

    def copy(self) -> Config:
        return Config(list(self.select), list(self.ignore), list(self.exclude), self.tf_function)


def parse_codes(text: str, where: str) -> list[str]:
    """Comma-separated code prefixes, each checked to select at least one code."""
    return check_codes([c.strip().upper() for c in text.split(",") if c.strip()], where)


def check_codes(prefixes: list[str], where: str) -> list[str]:
    known = [r.code for r in all_rules()]
    for prefix in prefixes:
        if not any(code.startswith(prefix) for code in known):
            raise ConfigError(f"{where}: unknown code {prefix!r} (see --list-codes)")
    return prefixes


def verify_table(start: Path) -> tuple[Path, dict] | None:
    """(pyproject.toml, its [tool.tf2migrate.verify] table) for the nearest
    pyproject.toml at or above ``start`` that has a [tool.tf2migrate] table, or None if
    it has no verify table. What the table means is tf2migrate.verify.project's business."""
    found = _nearest_table(start.resolve())
    if found is None or "verify" not in found[1]:
        return None
    from_table(found[1], str(found[0]), found[0].parent)  # the same errors as a migration run
    return found[0], found[1]["verify"]


def for_directory(directory: Path) -> Config:
    """The configuration of files in ``directory`` (absolute): the [tool.tf2migrate] table
    of the nearest pyproject.toml at or above it that has one, else the defaults."""
    found = _nearest_table(directory)
    return Config() if found is None else from_table(found[1], str(found[0]), found[0].parent)


def _nearest_table(directory: Path) -> tuple[Path, dict] | None:
    for candidate in (d / "pyproject.toml" for d in [directory, *directory.parents]):
        if candidate.is_file():
            try:
                tool = tomllib.loads(candidate.read_text(encoding="utf-8")).get("tool", {})
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise ConfigError(f"{candidate}: {exc}") from exc
            if "tf2migrate" in tool:
                return candidate, tool["tf2migrate"]
    return None


def from_table(table: dict, where: str, base: Path = Path(".")) -> Config:
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
            raise ConfigError(f"{where}: unknown key {key!r} in [tool.tf2migrate] (known: select, ignore, exclude, tf-function, verify)")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: [tool.tf2migrate] {key} must be a list of strings")
        if key == "exclude":
            config.exclude = [Exclude(v, base) for v in value]
        else:
            setattr(config, key, check_codes([v.upper() for v in value], where))
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
