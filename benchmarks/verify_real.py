"""Prove real repositories' migrations by execution: one verdict per program.

    python benchmarks/verify_real.py REPO [REPO ...] [--only TEXT] [--details] [--json]
                                     [--timeout S] [--keep DIR]

For each repository (a checkout such as /work/scratch/repos/PINNs; nothing in it is
written), the tree is copied twice into a temporary directory and one copy is migrated by
tf2migrate, all its files in one run (as ``tf2migrate TREE`` does). Every *program* — a
file that needs migration (benchmarks/census.py's classification) and has an
``if __name__ == "__main__":`` block — is then checked by ``tf2migrate verify ORIGINAL
MIGRATED --driver benchmarks/verify_real_driver.py``: the original under TF1 semantics,
the migration under TF2, both from the same initial variables, running the main block on
small synthetic data for a few iterations (see the driver for how it is shrunk). The
bundled data files need not exist. The TF1 side runs what TF 1.x could run of the original:
a Python 2 module's print statements as calls, a TensorFlow 0.x module's API as TF 1.0
renamed it (tf2migrate/verify/tf1_source.py, as the fixtures' execution check does); a
module that does not mention TensorFlow, which the migration leaves alone, runs so on the TF2
side too (a Python 2 data reader the programs import).

``--scripts`` checks the other files instead: tutorial *scripts*, whose work is module-level
code (no ``__main__`` block), each imported whole by benchmarks/verify_script_driver.py
(long ``range`` loops cut to a few steps, MNIST made up, plotting stubbed) and compared by
its module's data globals; a notebook is checked as the script its code cells make.

Programs run fully TF2 ones first, kept ones last. Prints one row per program: its path in the repository, its migration status (fully TF2
/ partial / kept / error, as census.py counts them), the verify verdict (equal, different
with the largest difference, or error with its first line) and the seconds it took.
``--details`` adds verify's own report for each program that is not equal. The exit
status is verify's: 0 all equal, 1 some different, 2 some could not run.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from census import classify  # noqa: E402 - a sibling script, found through sys.path

from tf2migrate.engine import run  # noqa: E402
from tf2migrate.notebook import notebook_program  # noqa: E402
from tf2migrate.verify.cli import EXIT_CODES  # noqa: E402
from tf2migrate.verify.runner import VerifyReport, verify_pairs  # noqa: E402
from tf2migrate.verify.tf1_source import runnable_on_tf1  # noqa: E402

DRIVER = Path(__file__).resolve().parent / "verify_real_driver.py"
SCRIPT_DRIVER = Path(__file__).resolve().parent / "verify_script_driver.py"
STATUS = {"fully": "fully TF2", "partial": "partial", "kept": "kept", "error": "error"}
NOTEBOOK_SCRIPT = ".verify.py"  # the script a notebook's code cells make, beside it
ORDER = ("fully", "partial", "error", "kept")  # fully TF2 programs first: they must be equal


def migrate_copies(repository: Path, work: Path) -> tuple[Path, Path, dict[str, str]]:
    """Copy ``repository`` to ``work/original`` and ``work/migrated``, migrate the latter
    in place and make the former's modules what TF1 runs of them (Python 2's prints as
    calls, TF 0.x's API as TF 1.0's: verify/tf1_source.py); return the two roots and each
    changed file's census category."""
    original, migrated = (work / side / repository.name for side in ("original", "migrated"))
    for root in (original, migrated):
        shutil.copytree(repository, root, ignore=shutil.ignore_patterns(".git"))
    for module in original.rglob("*.py"):
        text = module.read_text(errors="replace")
        runnable = runnable_on_tf1(text)
        if runnable != text:
            module.write_text(runnable)
    categories = {}
    for result in run([migrated], jobs=os.cpu_count() or 1, progress=False):
        verdict = classify(result)
        if verdict is None:
            continue
        categories[os.path.relpath(result.path, migrated)] = verdict.category
        if result.changed:
            Path(result.path).write_text(result.new_text)
    for module in migrated.rglob("*.py"):
        # a module the migration had no business with (no TensorFlow: a Python 2 data reader)
        # runs on the TF2 side as on the TF1 side, its prints as calls
        text = module.read_text(errors="replace")
        if "tensorflow" not in text and runnable_on_tf1(text) != text:
            module.write_text(runnable_on_tf1(text))
    return original, migrated, categories


def notebook_scripts(original: Path, migrated: Path, relative: str) -> str:
    """Write each side's notebook as the one program its code cells make (IPython lines
    masked as calls the script driver ignores) beside it; return that script's path."""
    for root in (original, migrated):
        program = notebook_program((root / relative).read_text())
        lines = (runnable_on_tf1(program) if root == original else program).split("\n")
        # (a ``from __future__`` import of a later cell: first, where Python wants it, as the
        # kernel, which runs each cell as a module of its own, allowed it)
        future = [line for line in lines if line.startswith("from __future__ import")]
        rest = [line for line in lines if not line.startswith("from __future__ import")]
        (root / (relative + NOTEBOOK_SCRIPT)).write_text("\n".join(future + rest))
    return relative + NOTEBOOK_SCRIPT


def is_program(path: Path) -> bool:
    """Whether the file has an ``if __name__ == "__main__":`` block."""
    try:
        tree = ast.parse(path.read_text())
    except (SyntaxError, ValueError):
        return False
    return any(
        isinstance(node, ast.If) and "__main__" in ast.unparse(node.test) and "__name__" in ast.unparse(node.test) for node in tree.body
    )


def verdict_cell(report: VerifyReport) -> str:
    if report.verdict == "equal":
        return f"equal ({len(report.rows)} values)"
    if report.verdict == "different":
        worst = max((row.max_abs_diff for row in report.rows if not row.ok and row.max_abs_diff is not None), default=None)
        failed = sum(not row.ok for row in report.rows)
        how = "" if worst is None else f", max |diff| {worst:.3g}" if math.isfinite(worst) else f", max |diff| {worst}"
        return f"DIFFERENT ({failed} of {len(report.rows)} values{how})"
    first = next((line for message in report.messages for line in message.splitlines()[1:] if line.strip()), "")
    last = report.messages[-1].strip().splitlines()[-1] if report.messages else ""
    return f"error: {last or first}"[:110]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repositories", nargs="+", type=Path, help="repository checkouts (read only)")
    parser.add_argument("--only", action="append", default=[], help="check only programs whose path contains TEXT")
    parser.add_argument("--details", action="store_true", help="verify's report for each program not equal")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--timeout", type=float, default=900, help="seconds for each side of each program")
    parser.add_argument("--scripts", action="store_true", help="check module-level scripts (no __main__ block) instead")
    parser.add_argument(
        "--batch", type=int, default=1, help="programs per verify run (one TF import for them all; a crash fails the batch)"
    )
    parser.add_argument("--keep", type=Path, help="copy and migrate into DIR and keep it (default: a temporary one)")
    args = parser.parse_args(argv)
    work = Path(args.keep or tempfile.mkdtemp(prefix="verify-real-"))
    rows, reports = [], []
    try:
        for repository in args.repositories:
            original, migrated, categories = migrate_copies(repository.resolve(), work)
            selected = []
            for relative in sorted(categories, key=lambda path: (ORDER.index(categories[path]), path)):
                name = f"{repository.name}/{relative}"
                if args.only and not any(t in name for t in args.only):
                    continue
                if args.scripts and relative.endswith(".ipynb"):
                    selected.append((name, notebook_scripts(original, migrated, relative)))
                elif relative.endswith(".py") and is_program(original / relative) != args.scripts:
                    selected.append((name, relative))
            driver = SCRIPT_DRIVER if args.scripts else DRIVER
            for start in range(0, len(selected), args.batch):
                batch = selected[start : start + args.batch]
                began = time.monotonic()
                pairs = [(original / script, migrated / script, driver) for _, script in batch]
                batch_reports = verify_pairs(pairs, args.timeout * len(batch))
                seconds = (time.monotonic() - began) / len(batch)
                for (name, script), report in zip(batch, batch_reports):
                    relative = script.removesuffix(NOTEBOOK_SCRIPT)
                    rows.append((name, STATUS[categories[relative]], verdict_cell(report), f"{seconds:.0f}"))
                    reports.append(report)
                    if not args.json:
                        print("  ".join(rows[-1]), file=sys.stderr, flush=True)  # progress
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        programs = [
            {
                "program": row[0],
                "migration": row[1],
                "verdict": report.verdict,
                "summary": row[2],
                "seconds": float(row[3]),
                "report": report.as_json(),
            }
            for row, report in zip(rows, reports)
        ]
        json.dump({"programs": programs}, sys.stdout, indent=2)
        print()
    else:
        table = [("program", "migration", "verify", "s"), *rows]
        widths = [max(len(cells[i]) for cells in table) for i in range(4)]
        for cells in table:
            print("  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip())
        counts = {v: sum(r.verdict == v for r in reports) for v in EXIT_CODES}
        print(f"{len(reports)} programs: " + ", ".join(f"{n} {v}" for v, n in counts.items()))
        if args.details:
            for report in reports:
                if report.verdict != "equal":
                    print("\n" + report.render())
    return max((EXIT_CODES[r.verdict] for r in reports), default=0)


if __name__ == "__main__":
    sys.exit(main())
