"""The ``tf2migrate`` command line.

Exit status: 0 = nothing to change and no error finding; 1 = changes pending (check,
``--diff``) or made (``--fix``), or an error finding; 2 = usage error or a failure of
the command itself.  Only ``--fix`` writes, and only through :func:`engine.apply`.
"""

from __future__ import annotations

import argparse
import difflib
import io
import json
import sys
import traceback
from collections import Counter
from pathlib import Path
from typing import Sequence

from tf2migrate import Options, __version__, config
from tf2migrate.diagnostics import (
    UNREADABLE_FILE,
    Diagnostic,
    Severity,
    all_rules,
    rule,
)
from tf2migrate.engine import FileResult, UsageError, apply, run
from tf2migrate.sarif import sarif_log
from tf2migrate.source import SourceError


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["verify"]:
        # Imported here: verification needs TensorFlow, migration must never import it.
        from tf2migrate.verify.cli import main as verify_main

        return verify_main(argv[1:])
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        if not (args.paths or args.explain or args.list_codes):
            parser.error("no PATH given")
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else 2
    try:
        if args.explain:
            return _explain(args.explain)
        if args.list_codes:
            width = max(len(r.name) for r in all_rules())
            for r in all_rules():
                print(f"{r.code}  {r.name:<{width}}  {r.summary}")
            return 0
        return _migrate(args)
    except UsageError as exc:
        print(f"tf2migrate: error: {exc}", file=sys.stderr)
        return 2
    except Exception:  # exit 1 would read as "changes pending"; a crash must not
        traceback.print_exc()
        return 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tf2migrate",
        description="Migrate TensorFlow 1 code to TensorFlow 2. "
        "Without --diff or --fix, only reports what would change.",
        epilog="Run `tf2migrate verify --help` to check a migration numerically.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or directories to migrate")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print unified diffs; write nothing")
    mode.add_argument("--fix", action="store_true", help="rewrite changed files in place")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="output format")
    p.add_argument("--statistics", action="store_true", help="after the findings, count them per code")
    p.add_argument("--select", metavar="CODES", help="report only these codes (comma-separated prefixes, e.g. TFM3,TFM501)")
    p.add_argument("--ignore", metavar="CODES", help="do not report these codes (comma-separated prefixes)")
    p.add_argument(
        "-j", "--jobs", type=_positive_int, metavar="N", help="worker processes (default: all cores)"
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="do not read or write the result cache (keyed by file content and tf2migrate's code)",
    )
    p.add_argument(
        "--tf-function",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="decorate generated functions with @tf.function (default; config key tf-function)",
    )
    p.add_argument("--explain", metavar="CODE", help="print the documentation of a finding code")
    p.add_argument("--list-codes", action="store_true", help="list every finding code")
    p.add_argument("--version", action="version", version=f"tf2migrate {__version__}")
    return p


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def _explain(code: str) -> int:
    try:
        print(rule(code.upper()).explain())
    except KeyError:
        print(f"tf2migrate: error: unknown code {code!r} (see --list-codes)", file=sys.stderr)
        return 2
    return 0


def _settings(args: argparse.Namespace) -> config.Config:
    try:
        settings = config.load(Path.cwd())
    except config.ConfigError as exc:
        raise UsageError(str(exc)) from exc
    if args.select:
        settings.select = [c.strip().upper() for c in args.select.split(",") if c.strip()]
    if args.ignore:
        settings.ignore += [c.strip().upper() for c in args.ignore.split(",") if c.strip()]
    if args.tf_function is not None:
        settings.tf_function = args.tf_function
    return settings


def _filter(results: list[FileResult], settings: config.Config) -> None:
    """Keep the findings the configuration selects and the source does not suppress."""
    for r in results:
        lines = r.old_text.splitlines()
        r.findings = [d for d in r.findings if settings.reports(d.code) and not config.suppressed(d, lines)]


def _migrate(args: argparse.Namespace) -> int:
    settings = _settings(args)
    options = Options(tf_function=settings.tf_function)
    results = run(args.paths, args.jobs, use_cache=not args.no_cache, exclude=settings.excludes, options=options)
    _filter(results, settings)
    written = _write(results) if args.fix else 0
    findings = [d for r in results for d in r.findings]
    changed = sum(r.changed for r in results)
    errors = sum(d.severity is Severity.ERROR for d in findings)
    summary = {
        "checked": len(results),
        "changed": changed,
        "written": written,
        "findings": len(findings),
        "errors": errors,
    }
    if args.format == "json":
        json.dump(_json(results, summary, with_source=args.diff or args.fix), sys.stdout, indent=2)
        print()
    elif args.format == "sarif":
        json.dump(sarif_log(findings, __version__), sys.stdout, indent=2)
        print()
    else:
        if args.diff:
            for r in results:
                if r.changed:
                    sys.stdout.write(_unified_diff(r))
        for d in findings:
            print(d.render())
        if args.statistics:
            for code, count in sorted(Counter(d.code for d in findings).items()):
                print(f"{count:6d}  {code}  {rule(code).name}")
        print(_summary_line(summary, args.fix))
    return 1 if changed or errors else 0


def _write(results: list[FileResult]) -> int:
    """Apply every change; a file that cannot be written gets a TFM003 finding instead."""
    written = 0
    for r in results:
        if not r.changed:
            continue
        try:
            apply(r)
            written += 1
        except SourceError as exc:
            r.findings.append(
                Diagnostic(UNREADABLE_FILE.code, str(exc), str(r.path), exc.line, 1, UNREADABLE_FILE.severity)
            )
    return written


def _json(results: list[FileResult], summary: dict, with_source: bool) -> dict:
    files = []
    for r in results:
        entry = {"path": str(r.path), "changed": r.changed, "findings": [d.as_json() for d in r.findings]}
        if with_source:
            entry["new_source"] = r.new_text if r.changed else None
        files.append(entry)
    return {"version": __version__, "files": files, "summary": summary}


def _unified_diff(r: FileResult) -> str:
    # StringIO(newline="") splits on \n, \r\n and \r only (str.splitlines would also split
    # on form feeds and other separators) and keeps each line's own ending.
    old = io.StringIO(r.old_text, newline="").readlines()
    new = io.StringIO(r.new_text, newline="").readlines()
    out = []
    for line in difflib.unified_diff(old, new, f"a/{r.path}", f"b/{r.path}"):
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _summary_line(s: dict, fixed: bool) -> str:
    changes = f"{_plural(s['written'], 'file')} rewritten" if fixed else f"{s['changed']} would be rewritten"
    line = f"{_plural(s['checked'], 'file')} checked: {changes}, {_plural(s['findings'], 'finding')}"
    if s["errors"]:
        line += f" ({_plural(s['errors'], 'error')})"
    return line + "."


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
