"""The ``tf2migrate`` command line.

Exit status: 0 = nothing to change and no error finding; 1 = changes pending (check,
``--diff``) or made (``--fix``), or an error finding; 2 = usage error or a failure of
the command itself.  Only ``--fix`` writes, and only through :func:`engine.apply`.

Streams follow ruff and black: findings and the summary go to stdout, except when
stdout carries something a program reads — the patch of ``--diff``, the migrated text
of ``-`` (standard input) — where they go to stderr.  A reader that closes the pipe
early (``| head``) ends the output quietly.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import functools
import io
import json
import os
import sys
import traceback
from collections import Counter
from pathlib import Path
from typing import TextIO
from collections.abc import Callable, Sequence

from tf2migrate import Options, __version__, config
from tf2migrate.diagnostics import (
    UNREADABLE_FILE,
    Diagnostic,
    Severity,
)
from tf2migrate.rules import all_rules, rule
from tf2migrate.engine import FileResult, UsageError, apply, process_text, run
from tf2migrate.notebook import code_cells
from tf2migrate.sarif import sarif_log
from tf2migrate.source import SourceError, decode

EXIT_STATUS = """exit status:
  0  nothing to change and no error finding
  1  changes pending (check, --diff) or made (--fix), or an error finding
  2  usage error (bad option, unknown code, missing path, bad configuration) or internal failure

Run `tf2migrate verify --help` to check a migration numerically."""

Settings = Callable[[Path], config.Config]


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
        if "-" in args.paths and len(args.paths) > 1:
            parser.error("'-' (standard input) cannot be combined with other paths")
        if args.statistics and args.format == "sarif":
            parser.error("--statistics works with --format text or json")
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else 2
    try:
        if args.explain:
            return _explain(args.explain)
        if args.list_codes:
            width = max(len(r.name) for r in all_rules())
            for r in all_rules():
                print(f"{r.code}  {r.name:<{width}}  {r.summary}")
            sys.stdout.flush()
            return 0
        return _migrate(args)
    except BrokenPipeError:
        _detach_stdout()
        return 0
    except (UsageError, config.ConfigError) as exc:
        print(f"tf2migrate: error: {exc}", file=sys.stderr)
        return 2
    except Exception:  # exit 1 would read as "changes pending"; a crash must not
        traceback.print_exc()
        return 2


def _detach_stdout() -> None:
    """The reader closed the pipe (``tf2migrate . | head``): stop writing, as ruff does,
    and point stdout at /dev/null so the flush at exit cannot raise again."""
    with contextlib.suppress(OSError, ValueError):  # not a real file (tests capture it)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tf2migrate",
        description="Migrate TensorFlow 1 code to TensorFlow 2. Without --diff or --fix, only reports what would change.",
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or directories to migrate; - reads standard input")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a patch (git apply accepts it) on stdout; write nothing")
    mode.add_argument("--fix", action="store_true", help="rewrite changed files in place")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="output format")
    p.add_argument("--statistics", action="store_true", help="print only the count of findings per code")
    p.add_argument("-q", "--quiet", action="store_true", help="print findings (and diffs) only: no summary, no progress")
    p.add_argument("--select", metavar="CODES", help="report only these codes (comma-separated prefixes, e.g. TFM3,TFM501)")
    p.add_argument("--ignore", metavar="CODES", help="do not report these codes (comma-separated prefixes)")
    p.add_argument("--exclude", metavar="PATTERNS", action="append", help="skip these paths when walking (replaces the configured exclude)")
    p.add_argument("--extend-exclude", metavar="PATTERNS", action="append", help="skip these paths too (comma-separated patterns)")
    p.add_argument(
        "--stdin-filename", metavar="PATH", help="the name of the file read from - (for its configuration and notebook detection)"
    )
    p.add_argument("-j", "--jobs", type=_positive_int, metavar="N", help="worker processes (default: all cores)")
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


def _settings(args: argparse.Namespace) -> Settings:
    """Each file's configuration (its nearest pyproject.toml), with the command line on top."""
    select = config.parse_codes(args.select, "--select") if args.select else None
    ignore = config.parse_codes(args.ignore, "--ignore") if args.ignore else []
    cwd = Path.cwd()
    exclude = [config.Exclude(p, cwd) for p in _patterns(args.exclude)] if args.exclude else None
    extend = [config.Exclude(p, cwd) for p in _patterns(args.extend_exclude)]

    @functools.cache
    def in_directory(directory: Path) -> config.Config:
        settings = config.for_directory(directory).copy()
        if select is not None:
            settings.select = select
        settings.ignore += ignore
        if exclude is not None:
            settings.exclude = list(exclude)
        settings.exclude += extend
        if args.tf_function is not None:
            settings.tf_function = args.tf_function
        return settings

    return lambda path: in_directory(Path(os.path.abspath(path)).parent)


def _patterns(values: list[str] | None) -> list[str]:
    return [p.strip() for value in values or [] for p in value.split(",") if p.strip()]


def _filter(results: list[FileResult], settings: Settings) -> None:
    """Keep the findings the configuration selects and the source does not suppress."""
    for r in results:
        lines = r.old_text.splitlines()
        reports = settings(r.path).reports
        r.findings = [d for d in r.findings if reports(d.code) and not config.suppressed(d, lines)]


def _migrate(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if args.paths == ["-"]:
        return _migrate_stdin(args, settings)
    results = run(
        args.paths,
        args.jobs,
        use_cache=not args.no_cache,
        exclude=lambda path: settings(path).excludes(path),
        options_for=lambda path: Options(tf_function=settings(path).tf_function),
        progress=not args.quiet,
    )
    _filter(results, settings)
    written = _write(results) if args.fix else 0
    return _report(args, results, written, sys.stderr if args.diff else sys.stdout)


def _migrate_stdin(args: argparse.Namespace, settings: Settings) -> int:
    """``-``: migrate standard input and print the result (or its patch) on stdout.

    With ``--stdin-filename``, the text is treated as that file: its configuration applies
    (an excluded file passes through unchanged, as in ruff) and ``.ipynb`` means a notebook."""
    path = Path(args.stdin_filename or "-")
    data = sys.stdin.buffer.read()
    try:
        source = decode(data)
    except SourceError as exc:
        finding = Diagnostic(UNREADABLE_FILE.code, str(exc), str(path), exc.line, 1, UNREADABLE_FILE.severity)
        result, output = FileResult(path, "", "", [finding]), data  # passed through as it came
    else:
        if args.stdin_filename and settings(path).excludes(path):
            result = FileResult(path, source.text, source.text, [], source.encoding)
        else:
            options = Options(tf_function=settings(path).tf_function)
            result = process_text(source, path, use_cache=not args.no_cache, options=options)
        output = result.new_text.encode(result.encoding)
    _filter([result], settings)
    if args.format == "text" and not args.diff:
        sys.stdout.buffer.write(output)
    return _report(args, [result], 0, sys.stderr)


def _report(args: argparse.Namespace, results: list[FileResult], written: int, stream: TextIO) -> int:
    """Print the outcome (findings of the text format on ``stream``); the exit status."""
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
    status = 1 if changed or errors else 0
    try:
        if args.format == "json":
            document = _statistics(findings) if args.statistics else _json(results, summary, args.diff or args.fix)
            json.dump(document, sys.stdout, indent=2)
            print()
        elif args.format == "sarif":
            json.dump(sarif_log(findings, __version__), sys.stdout, indent=2)
            print()
        else:
            if args.diff:
                sys.stdout.writelines(_diff(r) for r in results if r.changed)
                sys.stdout.flush()
            if args.statistics:
                for entry in _statistics(findings):
                    print(f"{entry['count']:6d}  {entry['code']}  {entry['name']}", file=stream)
            else:
                for d in findings:
                    print(_render(d), file=stream)
                if not args.quiet:
                    print(_summary_line(summary, args.fix), file=stream)
        sys.stdout.flush()
    except BrokenPipeError:
        _detach_stdout()
    return status


def _render(d: Diagnostic) -> str:
    return f"{d.path}:{d.line}:{d.column}: {d.code} [{d.severity.value}] {d.message}"


def _statistics(findings: list[Diagnostic]) -> list[dict]:
    counts = sorted(Counter(d.code for d in findings).items())
    return [{"code": code, "name": rule(code).name, "count": count} for code, count in counts]


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
            r.findings.append(Diagnostic(UNREADABLE_FILE.code, str(exc), str(r.path), exc.line, 1, UNREADABLE_FILE.severity))
    return written


def _json(results: list[FileResult], summary: dict, with_source: bool) -> dict:
    files = []
    for r in results:
        entry = {"path": str(r.path), "changed": r.changed, "findings": [{**d.as_json(), "name": rule(d.code).name} for d in r.findings]}
        if with_source:
            entry["new_source"] = r.new_text if r.changed else None
        files.append(entry)
    return {"version": __version__, "files": files, "summary": summary}


def _diff(r: FileResult) -> str:
    """A file's patch; a notebook's is one diff per changed code cell (``cell N`` headers),
    for reading: ``git apply`` takes the patches of Python files."""
    name = _patch_path(r.path)
    if r.path.suffix == ".ipynb":
        old = dict(code_cells(r.old_text))
        cells = [
            _unified(_cell_text(old.get(n, "")), _cell_text(source), f"a/{name}:cell {n}", f"b/{name}:cell {n}")
            for n, source in code_cells(r.new_text)
            if source != old.get(n, "")
        ]
        if any(cells):
            return "".join(cells)
    return _unified(r.old_text, r.new_text, _git_name("a/" + name), _git_name("b/" + name))


def _cell_text(source: str) -> str:
    return source if not source or source.endswith("\n") else source + "\n"  # a cell has no "last line" marker


def _unified(old_text: str, new_text: str, old_name: str, new_name: str) -> str:
    # StringIO(newline="") splits on \n, \r\n and \r only (str.splitlines would also split
    # on form feeds and other separators) and keeps each line's own ending.
    old = io.StringIO(old_text, newline="").readlines()
    new = io.StringIO(new_text, newline="").readlines()
    out = []
    for line in difflib.unified_diff(old, new, old_name, new_name):
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _patch_path(path: Path) -> str:
    """The path as a patch names it: relative to the working directory when inside it,
    else without its root (never ``a//tmp/x.py``)."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return absolute.as_posix().lstrip("/")


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}


def _git_name(name: str) -> str:
    """A ---/+++ header name written as git writes it: C-quoted with octal bytes when it
    has quotes, backslashes, control or non-ASCII characters; a trailing tab when it has
    spaces (so the name's end is unambiguous to ``git apply`` and ``patch``)."""
    raw = name.encode("utf-8", "surrogateescape")
    if any(b < 0x20 or b >= 0x7F or chr(b) in '"\\' for b in raw):
        quoted = "".join(_ESCAPES.get(chr(b)) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in raw)
        return f'"{quoted}"'
    return name + "\t" if " " in name else name


def _summary_line(s: dict, fixed: bool) -> str:
    changes = f"{_plural(s['written'], 'file')} rewritten" if fixed else f"{s['changed']} would be rewritten"
    line = f"{_plural(s['checked'], 'file')} checked: {changes}, {_plural(s['findings'], 'finding')}"
    if s["errors"]:
        line += f" ({_plural(s['errors'], 'error')})"
    return line + "."


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
