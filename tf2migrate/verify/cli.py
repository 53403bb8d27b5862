"""``tf2migrate verify``: check a migration by running it.

``tf2migrate verify BEFORE.py AFTER.py`` compares two scripts' globals;
``--driver DRIVER.py`` imports the two programs and compares what the driver's
``drive`` returns (see driver.py); with no arguments, the programs listed in
``[tool.tf2migrate.verify]`` of the nearest pyproject.toml are checked (see
project.py).

Exit status: 0 the values are equal, 1 they differ, 2 the check could not run
(bad usage, missing file, a program or driver crashed, nothing to compare).
With several programs, the worst: 2 before 1 before 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tf2migrate import __version__, config
from tf2migrate.verify import project
from tf2migrate.verify.runner import VerifyReport, verify_pairs

EXIT_CODES = {"equal": 0, "different": 1, "error": 2}
_DEFAULT_TIMEOUT = 1200


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tf2migrate verify",
        description="Run TF1 programs and their TF2 migrations and compare the values they compute. "
        "Without arguments, check the programs of [tool.tf2migrate.verify] in pyproject.toml.",
    )
    parser.add_argument("before", type=Path, nargs="?", help="the original TF1 script or main module")
    parser.add_argument("after", type=Path, nargs="?", help="its TF2 migration")
    parser.add_argument("--driver", type=Path, help="a file with drive(program, rng): import the programs and compare what it returns")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--timeout", type=float, help=f"seconds allowed for each of the TF1 and TF2 runs (default: {_DEFAULT_TIMEOUT})")
    try:
        args = parser.parse_args(argv)
        if (args.before is None) != (args.after is None):
            parser.error("give both ORIGINAL and MIGRATED, or neither (to use pyproject.toml)")
    except SystemExit as exc:  # argparse exits on --help (0) and bad usage (2)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        checks, timeout = _checks(args)
    except (ValueError, FileNotFoundError) as exc:  # ConfigError is a ValueError
        print(f"tf2migrate verify: {exc}", file=sys.stderr)
        return 2
    reports = verify_pairs(checks, timeout=args.timeout or timeout or _DEFAULT_TIMEOUT)
    verdict = _overall(reports)
    if args.format == "json":
        data = {"version": __version__, "verdict": verdict, "programs": [report.as_json() for report in reports]}
        json.dump(data, sys.stdout, indent=2)
        print()
    else:
        print("\n\n".join(report.render() for report in reports))
        if len(reports) > 1:
            counts = {name: sum(report.verdict == name for report in reports) for name in EXIT_CODES}
            print(f"\n{len(reports)} programs: " + ", ".join(f"{n} {name}" for name, n in counts.items()))
    return EXIT_CODES[verdict]


def _checks(args: argparse.Namespace) -> tuple[list[tuple[Path, Path, Path | None]], float | None]:
    """The (original, migrated, driver) triples to check and the configured timeout."""
    if args.before is not None:
        checks, timeout = [(args.before, args.after, args.driver)], None
    else:
        if args.driver is not None:
            raise ValueError("--driver needs ORIGINAL and MIGRATED")
        found = config.verify_table(Path.cwd())
        if found is None:
            raise ValueError("no ORIGINAL and MIGRATED given, and no [tool.tf2migrate.verify] in pyproject.toml")
        listed = project.from_table(*found)
        checks, timeout = listed.checks, listed.timeout
    for check in checks:
        for path in check:
            if path is not None and not path.is_file():
                raise FileNotFoundError(f"no such file: {path}")
    return checks, timeout


def _overall(reports: list[VerifyReport]) -> str:
    return max((report.verdict for report in reports), key=EXIT_CODES.__getitem__)
