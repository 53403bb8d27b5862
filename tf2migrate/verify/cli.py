"""``tf2migrate verify BEFORE.py AFTER.py``: check one migration by running it.

Exit status: 0 the values are equal, 1 they differ, 2 the check could not run
(bad usage, missing file, a script crashed, nothing to compare).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tf2migrate.verify.runner import verify_pair

EXIT_CODES = {"equal": 0, "different": 1, "error": 2}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tf2migrate verify",
        description="Run a TF1 script and its TF2 migration and compare the values "
        "they bind to module-level names.",
    )
    parser.add_argument("before", type=Path, help="the original TF1 script")
    parser.add_argument("after", type=Path, help="its TF2 migration")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds allowed for each of the TF1 and TF2 runs (default: 1200)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help (0) and bad usage (2)
        return exc.code if isinstance(exc.code, int) else 2
    for path in (args.before, args.after):
        if not path.is_file():
            print(f"tf2migrate verify: no such file: {path}", file=sys.stderr)
            return 2
    report = verify_pair(args.before, args.after, timeout=args.timeout)
    print(report.render())
    return EXIT_CODES[report.verdict]
