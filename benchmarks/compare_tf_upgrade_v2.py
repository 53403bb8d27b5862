"""Run tf2migrate and TensorFlow's tf_upgrade_v2 on the same tree, in one run, and compare.

    python benchmarks/compare_tf_upgrade_v2.py TREE [TREE ...] [--jobs N]

For each tree, both tools rewrite their own copy (the tree itself is never touched), and
the script prints, for both: exit status, wall time, peak memory of the tool's largest process, files
missing from the output (a tool that stopped early), changed, emptied (a tool that failed and wrote nothing), files that fail to parse
afterwards, how many ``tf.compat.v1`` references the output still holds (fewer is better:
each one is TF1 API left in the code; tf2migrate's one ``disable_eager_execution()`` per
file kept on TF1 is counted apart, as "graph mode"), and graph machinery left behind
(``Session``, ``placeholder``, ``tf.gradients`` calls); then the time of a tf2migrate re-run
over its own output (the second of two, served by its cache), files per second, and the speed and memory
ratios.  A third row, the *floor*, is what any libcst tool pays on the tree: parse and render
every file tf2migrate reads that names TensorFlow (the code cells of notebooks joined), in as many processes as
tf2migrate runs, nothing else; tf2migrate's time is also given as a multiple of it.  Needs
TensorFlow installed (for tf_upgrade_v2); tf2migrate itself does not import it.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

COMPAT = re.compile(r"\bcompat\.v1\b")
GRAPH_MACHINERY = re.compile(r"\b(Session|InteractiveSession|placeholder|gradients)\s*\(")


def _python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if ".git" not in p.parts)


_MEASURE = (
    "import resource, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code)\n"
)


# The floor: libcst's parse and render of each file (the code cells of a notebook joined),
# in ``jobs`` processes, chunked as tf2migrate's engine chunks its files.
_FLOOR = (
    "import sys\n"
    "from concurrent.futures import ProcessPoolExecutor\n"
    "import libcst as cst\n"
    "from tf2migrate.notebook import code_cells\n"
    "def render(path):\n"
    "    text = open(path, encoding='utf-8', errors='replace').read()\n"
    "    if 'tensorflow' not in text:\n"
    "        return 0\n"
    "    if path.endswith('.ipynb'):\n"
    "        text = '\\n'.join(source for _, source in code_cells(text))\n"
    "    try:\n"
    "        return len(cst.parse_module(text).code)\n"
    "    except Exception:\n"
    "        return 0\n"
    "if __name__ == '__main__':\n"
    "    jobs, paths = int(sys.argv[1]), sys.argv[2:]\n"
    "    with ProcessPoolExecutor(max_workers=jobs) as pool:\n"
    "        sum(pool.map(render, paths, chunksize=max(1, len(paths) // (jobs * 4))))\n"
)


def _measure(command: list[str]) -> tuple[float, float, int, float]:
    """Wall seconds, peak RSS (MB) of the largest process the command ran, exit status,
    CPU seconds of all its processes (on a shared machine, where wall time depends on the
    load, the steadier figure); measured in a fresh process so each tool's figures are its own."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, *command], capture_output=True, text=True, check=True)
    seconds, cpu, peak, code = out.stdout.split()
    return float(seconds), float(peak), int(code), float(cpu)


def _scan(root: Path, original: Path) -> dict:
    changed = unparsable = emptied = compat = machinery = switched = 0
    missing = sum(1 for p in _python_files(original) if not (root / p.relative_to(original)).exists())
    for path in _python_files(root):
        data = path.read_bytes()
        text = data.decode("utf-8", errors="replace")
        source = original / path.relative_to(root)
        if source.exists() and source.read_bytes() != data:
            changed += 1
            if not data.strip() and source.read_bytes().strip():
                emptied += 1  # a tool that failed on the file and wrote nothing
        try:
            ast.parse(text)
        except SyntaxError:
            unparsable += 1
            continue
        # tf2migrate's one graph-mode switch per file kept on TF1 is counted apart
        switches = text.count("tf.compat.v1.disable_eager_execution()")
        switched += bool(switches)
        compat += len(COMPAT.findall(text)) - switches
        machinery += len(GRAPH_MACHINERY.findall(text))
    return {
        "missing": missing,
        "changed": changed,
        "emptied": emptied,
        "unparsable": unparsable,
        "compat_v1": compat,
        "switched": switched,
        "graph_machinery": machinery,
    }


def _tool_files(root: Path) -> list[str]:
    """The files tf2migrate reads in a tree (its engine's walk), for the floor."""
    from tf2migrate.engine import discover

    return [str(path) for path in discover([root])]


def _compiled_as_installed() -> None:
    """tf2migrate's bytecode written, as ``pip install`` writes it (TensorFlow's, in
    site-packages, was written so): an editable install run with ``PYTHONDONTWRITEBYTECODE``
    set compiled its 150 modules from source at every start (0.3 CPU seconds, before any
    worker starts), which no installed tool does."""
    import compileall

    import tf2migrate

    compileall.compile_dir(str(Path(tf2migrate.__file__).parent), quiet=1)


def compare(tree: Path, jobs: int) -> None:
    _compiled_as_installed()
    files = _python_files(tree)
    lines = sum(len(p.read_bytes().splitlines()) for p in files)
    with tempfile.TemporaryDirectory() as scratch:
        ours = Path(scratch) / "tf2migrate"
        theirs = Path(scratch) / "tf_upgrade_v2"
        shutil.copytree(tree, ours, symlinks=True)
        upgrade = shutil.which("tf_upgrade_v2") or str(Path(sys.executable).parent / "tf_upgrade_v2")
        rows = {
            "tf_upgrade_v2": _measure(
                [upgrade, "--intree", str(tree), "--outtree", str(theirs), "--reportfile", os.devnull, "--no_import_rename"]
            )
            if Path(upgrade).exists()
            else None,
            # the first run does not read the cache: it measures the migration itself
            "tf2migrate": _measure([sys.executable, "-m", "tf2migrate", "--fix", "--no-cache", "--jobs", str(jobs), str(ours)]),
        }
        with tempfile.NamedTemporaryFile("w", suffix=".py") as floor_script:
            floor_script.write(_FLOOR)
            floor_script.flush()
            floor = _measure([sys.executable, floor_script.name, str(jobs), *_tool_files(tree)])
        # re-runs over the migrated tree, as a pre-commit hook or a second --diff does: the
        # first fills the cache for the new contents, the second is the steady state
        _measure([sys.executable, "-m", "tf2migrate", "--jobs", str(jobs), str(ours)])
        rerun = _measure([sys.executable, "-m", "tf2migrate", "--jobs", str(jobs), str(ours)])
        print(f"\n{tree}: {len(files)} .py files, {lines} lines")
        header = ("exit", "seconds", "peak MB", "missing", "changed", "emptied", "unparsable", "compat.v1", "graph mode", "graph left")
        print(f"{'tool':<15}" + "".join(f"{h:>11}" for h in header))
        base = _scan(tree, tree)
        print(f"{'(original)':<15}" + " " * 77 + f"{base['unparsable']:>11}{base['compat_v1']:>11}{'':>11}{base['graph_machinery']:>11}")
        for name, measured in rows.items():
            if measured is None:
                print(f"{name:<15} not installed")
                continue
            seconds, peak, code, _ = measured
            stats = _scan(ours if name == "tf2migrate" else theirs, tree)
            values = (
                code,
                f"{seconds:.1f}",
                f"{peak:.0f}",
                stats["missing"],
                stats["changed"],
                stats["emptied"],
                stats["unparsable"],
                stats["compat_v1"],
                stats["switched"],
                stats["graph_machinery"],
            )
            print(f"{name:<15}" + "".join(f"{v:>11}" for v in values))
        print(f"{'re-run':<15}{rerun[2]:>11}{rerun[0]:>11.1f}{rerun[1]:>11.0f}")
        print(f"{'floor':<15}{floor[2]:>11}{floor[0]:>11.1f}{floor[1]:>11.0f}   (libcst parse + render only)")
        if rows["tf_upgrade_v2"] is not None:
            theirs_seconds = rows["tf_upgrade_v2"][0]
            ours_seconds = rows["tf2migrate"][0]
            print(
                f"files/s: tf_upgrade_v2 {len(files) / theirs_seconds:.1f}, tf2migrate {len(files) / ours_seconds:.1f}; "
                f"speed ratio (tf_upgrade_v2 time / tf2migrate time): first run {theirs_seconds / ours_seconds:.2f}x, "
                f"re-run {theirs_seconds / rerun[0]:.1f}x; peak memory ratio {rows['tf_upgrade_v2'][1] / rows['tf2migrate'][1]:.1f}x"
            )
        print(f"tf2migrate first run / floor: {rows['tf2migrate'][0] / floor[0]:.2f}x (goal <= 1.5x)")
        cpu = {name: measured[3] for name, measured in [*rows.items(), ("floor", floor)] if measured is not None}
        print(
            "CPU seconds: "
            + ", ".join(f"{name} {seconds:.1f}" for name, seconds in cpu.items())
            + "; by CPU: "
            + (f"tf_upgrade_v2 / tf2migrate {cpu['tf_upgrade_v2'] / cpu['tf2migrate']:.2f}x, " if "tf_upgrade_v2" in cpu else "")
            + f"tf2migrate / floor {cpu['tf2migrate'] / cpu['floor']:.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    for tree in args.trees:
        compare(tree, args.jobs)


if __name__ == "__main__":
    main()
