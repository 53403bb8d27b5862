"""CLI and engine mechanics, with a fake migrate_source standing in for the real rewrites.

Runs that use the fake pass ``-j 1``/``jobs=1``: worker processes would not reliably see
a monkeypatch.
"""

from __future__ import annotations

import ast
import io
import json
import os
import stat
import subprocess
import sys
import types

import pytest

from tf2migrate import __version__, engine
from tf2migrate.cli import main
from tf2migrate.diagnostics import Diagnostic, Severity
from tf2migrate.rules import rule
from tf2migrate.migrate import MigrationResult
from tf2migrate.engine import FileResult, UsageError, apply, discover, process_file, run
from tf2migrate.source import SourceError

TF_SOURCE = "import tensorflow as tf\nsess = tf.Session()\n"
MIGRATED = "import tensorflow as tf\nsess = tf.compat.v1.Session()\n"


def fake_migrate(source: str, path: str = "<string>") -> MigrationResult:
    """Stands in for the real migration: rewrites ``tf.Session`` and says so."""
    try:
        ast.parse(source)
    except SyntaxError as exc:
        finding = Diagnostic("TFM001", exc.msg, path, exc.lineno or 1, 1, Severity.ERROR)
        return MigrationResult(source, [finding])
    findings = []
    for number, line in enumerate(source.splitlines(), 1):
        if "tf.Session" in line:
            column = line.index("tf.Session") + 1
            message = "fake: tf.Session rewritten"
            findings.append(Diagnostic("TFM002", message, path, number, column, Severity.INFO))
    return MigrationResult(source.replace("tf.Session", "tf.compat.v1.Session"), findings)


@pytest.fixture
def calls(monkeypatch):
    """Install the fake migration and record the path of every call to it."""
    seen: list[str] = []

    def recording(source, path="<string>", options=None, **_):
        seen.append(path)
        return fake_migrate(source, path)

    monkeypatch.setattr(engine, "migrate_source", recording)
    return seen


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A small project; the working directory is its root so displayed paths are relative."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text(TF_SOURCE)
    (tmp_path / "pkg" / "util.py").write_text("def f():\n    return 1\n")
    return tmp_path


def cli(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- check mode ----------------------------------------------------------------------


def test_check_clean(tree, calls, capsys):
    (tree / "pkg" / "model.py").write_text("import tensorflow as tf\nx = tf.constant(1)\n")
    status, out, _ = cli(capsys, "-j", "1", "pkg")
    assert status == 0
    assert out == "2 files checked: 0 would be rewritten, 0 findings.\n"


def test_check_reports_pending_change_and_writes_nothing(tree, calls, capsys):
    status, out, _ = cli(capsys, "-j", "1", "pkg")
    assert status == 1
    assert out.splitlines() == [
        f"{os.path.join('pkg', 'model.py')}:2:8: TFM002 [info] fake: tf.Session rewritten",
        "2 files checked: 1 would be rewritten, 1 finding.",
    ]
    assert (tree / "pkg" / "model.py").read_text() == TF_SOURCE


@pytest.mark.parametrize(
    "argv",
    [["missing"], ["--no-such-option", "pkg"], [], ["--diff", "--fix", "pkg"], ["-j", "0", "pkg"]],
    ids=["missing-path", "bad-option", "no-path", "diff-and-fix", "zero-jobs"],
)
def test_usage_errors_exit_2(tree, calls, capsys, argv):
    status, out, err = cli(capsys, *argv)
    assert status == 2
    assert out == ""
    assert "error" in err
    assert calls == []


def test_version(capsys):
    status, out, _ = cli(capsys, "--version")
    assert (status, out) == (0, f"tf2migrate {__version__}\n")


# --- diff and fix --------------------------------------------------------------------


def test_diff_prints_headers_and_writes_nothing(tree, calls, capsys):
    model = tree / "pkg" / "model.py"
    before = model.stat().st_mtime_ns
    status, out, err = cli(capsys, "--diff", "-j", "1", "pkg/model.py")
    assert status == 1
    lines = out.splitlines()
    assert lines[:2] == ["--- a/pkg/model.py", "+++ b/pkg/model.py"]
    assert "-sess = tf.Session()" in lines
    assert "+sess = tf.compat.v1.Session()" in lines
    assert "TFM002" not in out  # stdout is the patch alone
    assert err.splitlines() == [
        "pkg/model.py:2:8: TFM002 [info] fake: tf.Session rewritten",
        "1 file checked: 1 would be rewritten, 1 finding.",
    ]
    assert model.read_text() == TF_SOURCE
    assert model.stat().st_mtime_ns == before


def test_diff_marks_missing_final_newline(tree, calls, capsys):
    (tree / "pkg" / "model.py").write_text(TF_SOURCE.rstrip("\n"))
    _, out, _ = cli(capsys, "--diff", "-j", "1", "pkg/model.py")
    assert "+sess = tf.compat.v1.Session()\n\\ No newline at end of file\n" in out


def test_fix_rewrites_keeping_mode_bom_and_crlf(tree, calls, capsys):
    model = tree / "pkg" / "model.py"
    model.write_bytes(b"\xef\xbb\xbf" + TF_SOURCE.replace("\n", "\r\n").encode())
    model.chmod(0o755)
    status, out, _ = cli(capsys, "--fix", "-j", "1", "pkg")
    assert status == 1
    assert model.read_bytes() == b"\xef\xbb\xbf" + MIGRATED.replace("\n", "\r\n").encode()
    assert stat.S_IMODE(model.stat().st_mode) == 0o755
    assert out.splitlines()[-1] == "2 files checked: 1 file rewritten, 1 finding."
    assert sorted(os.listdir(tree / "pkg")) == ["model.py", "util.py"]
    # A second run has nothing left to do.
    assert cli(capsys, "--fix", "-j", "1", "pkg")[0] == 0


def test_apply_refuses_a_file_changed_since_it_was_read(tree, calls):
    model = tree / "pkg" / "model.py"
    result = process_file(model)
    model.write_text(TF_SOURCE + "edited = True\n")
    with pytest.raises(SourceError, match="changed on disk"):
        apply(result)
    assert model.read_text() == TF_SOURCE + "edited = True\n"


# --- json --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [[], ["--diff"], ["--fix"]])
def test_json_output(tree, calls, capsys, mode):
    status, out, _ = cli(capsys, "--format", "json", "-j", "1", *mode, "pkg")
    assert status == 1
    doc = json.loads(out)
    assert doc["version"] == __version__
    model, util = doc["files"]
    assert model["path"] == os.path.join("pkg", "model.py")
    assert (model["changed"], util["changed"]) == (True, False)
    assert model["findings"] == [
        {
            "code": "TFM002",
            "message": "fake: tf.Session rewritten",
            "path": model["path"],
            "line": 2,
            "column": 8,
            "severity": "info",
            "name": "internal-error",
        }
    ]
    assert doc["summary"] == {
        "checked": 2,
        "changed": 1,
        "written": 1 if mode == ["--fix"] else 0,
        "findings": 1,
        "errors": 0,
    }
    if mode:
        assert (model["new_source"], util["new_source"]) == (MIGRATED, None)
    else:
        assert "new_source" not in model


# --- codes ---------------------------------------------------------------------------


def test_explain(capsys):
    status, out, _ = cli(capsys, "--explain", "TFM001")
    assert status == 0
    assert out == rule("TFM001").explain() + "\n"
    assert out.startswith("TFM001 (parse-error):")


def test_explain_unknown_code(capsys):
    status, out, err = cli(capsys, "--explain", "TFM999")
    assert (status, out) == (2, "")
    assert "unknown code" in err


def test_list_codes(capsys):
    status, out, _ = cli(capsys, "--list-codes")
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()][:3] == ["TFM001", "TFM002", "TFM003"]


# --- per-file failures -----------------------------------------------------------------


def test_python2_file_is_reported_and_the_run_goes_on(tree, calls, capsys):
    (tree / "pkg" / "old.py").write_text('import tensorflow as tf\nprint "hello"\n')
    status, out, _ = cli(capsys, "-j", "1", "pkg")
    assert status == 1
    assert f"{os.path.join('pkg', 'old.py')}:2:1: TFM001" in out
    assert "TFM002 [info] fake: tf.Session rewritten" in out  # model.py was still processed
    assert out.splitlines()[-1] == "3 files checked: 1 would be rewritten, 2 findings (1 error)."


def test_unparsable_rewrite_becomes_tfm002_and_is_not_written(tree, monkeypatch, capsys):
    def broken(source, path, options=None, **_):
        return MigrationResult(source + "def (:\n", [])

    monkeypatch.setattr(engine, "migrate_source", broken)
    model = tree / "pkg" / "model.py"
    status, out, _ = cli(capsys, "--fix", "-j", "1", "pkg/model.py")
    assert status == 1
    assert "pkg/model.py:1:1: TFM002 [error] rewritten source does not parse" in out
    assert "0 files rewritten" in out
    assert model.read_text() == TF_SOURCE


def test_unencodable_rewrite_becomes_tfm002(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_bytes(b"# coding: latin-1\nimport tensorflow\n")

    def euro(source, path, options=None, **_):
        return MigrationResult(source + "s = '\u20ac'\n", [])

    monkeypatch.setattr(engine, "migrate_source", euro)
    result = process_file(path)
    assert not result.changed
    assert [(d.code, d.severity) for d in result.findings] == [("TFM002", Severity.ERROR)]
    assert "cannot be encoded as iso-8859-1" in result.findings[0].message


def test_crash_in_migration_becomes_tfm002(tree, monkeypatch):
    def crash(source, path, options=None, **_):
        raise RuntimeError("rewrite exploded")

    monkeypatch.setattr(engine, "migrate_source", crash)
    model, util = run(["pkg"], jobs=1)
    assert not model.changed
    assert [d.render() for d in model.findings] == [
        f"{model.path}:1:1: TFM002 migration crashed: RuntimeError: rewrite exploded; file left unchanged"
    ]
    assert util.findings == []


def test_unreadable_files_are_reported_and_the_run_goes_on(tree, calls, capsys):
    (tree / "pkg" / "bad.py").write_bytes(b"import tensorflow\ns = '\xff'\n")
    (tree / "pkg" / "dangling.py").symlink_to(tree / "nowhere.py")
    status, out, _ = cli(capsys, "-j", "1", "pkg")
    assert status == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"{os.path.join('pkg', 'bad.py')}:2:1: TFM003 [error] not valid utf-8")
    dangling = os.path.join("pkg", "dangling.py")
    assert lines[1] == f"{dangling}:1:1: TFM003 [error] is a symbolic link; not following it"
    assert "TFM002 [info] fake: tf.Session rewritten" in lines[2]
    assert lines[-1] == "4 files checked: 1 would be rewritten, 3 findings (2 errors)."


# --- discovery and the prefilter -----------------------------------------------------


def test_discover_walks_sorted_and_skips_tooling_dirs(tmp_path):
    for rel in [
        "b.py",
        "a/z.py",
        "a/b/c.py",
        "a/notes.txt",
        "myenv/lib/x.py",
        ".git/hooks/h.py",
        "build/lib/m.py",
        "pkg.egg-info/e.py",
        "node_modules/n.py",
        "a/__pycache__/c.py",
        "a/.ipynb_checkpoints/c-checkpoint.ipynb",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    (tmp_path / "myenv" / "pyvenv.cfg").write_text("home = /usr\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.py").write_text("x = 1\n")
    (tmp_path / "a" / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    script = tmp_path / "script"
    script.write_text("x = 1\n")

    found = discover([tmp_path / "a", tmp_path / "b.py", script, tmp_path / "a" / "z.py"])
    assert found == [tmp_path / "a/b/c.py", tmp_path / "a/z.py", tmp_path / "b.py", script]
    assert discover([tmp_path / "myenv"]) == [tmp_path / "myenv/lib/x.py"]  # named explicitly
    with pytest.raises(UsageError, match="no such file"):
        discover([tmp_path / "missing"])


def test_prefilter_never_migrates_files_without_tensorflow(tree, calls):
    results = run(["pkg"], jobs=1)
    assert [r.changed for r in results] == [True, False]
    assert calls == [os.path.join("pkg", "model.py")]


def test_parallel_run_keeps_discovery_order(tmp_path):
    # The real (subprocess-visible) migrate_source: no monkeypatch here.
    paths = []
    for i in range(12):
        paths.append(tmp_path / f"m{i:02}.py")
        paths[-1].write_text(f"import tensorflow as tf\nx = {i}\n")
    results = run([tmp_path], jobs=2)
    assert [r.path for r in results] == paths
    assert all(isinstance(r, FileResult) and r.old_text.endswith(f"x = {i}\n") for i, r in enumerate(results))


# --- entry points ------------------------------------------------------------------


def test_verify_subcommand_is_dispatched_lazily(monkeypatch):
    seen = []
    fake = types.ModuleType("tf2migrate.verify.cli")
    fake.main = lambda argv: seen.append(argv) or 7
    monkeypatch.setitem(sys.modules, "tf2migrate.verify.cli", fake)
    assert main(["verify", "--x", "y"]) == 7
    assert seen == [["--x", "y"]]


def python_m(*args, cwd):
    return subprocess.run([sys.executable, "-m", "tf2migrate", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_console_entry_point_end_to_end(tmp_path):
    (tmp_path / "plain.py").write_text("print('hi')\n")
    ok = python_m("plain.py", cwd=tmp_path)
    assert (ok.returncode, ok.stdout) == (0, "1 file checked: 0 would be rewritten, 0 findings.\n")
    missing = python_m("missing.py", cwd=tmp_path)
    assert missing.returncode == 2
    assert "missing.py: no such file or directory" in missing.stderr


def test_migrate_path_never_imports_tensorflow(tmp_path):
    (tmp_path / "model.py").write_text(TF_SOURCE)
    code = (
        "import sys; from tf2migrate.cli import main; "
        "status = main(['--fix', '-j', '1', 'model.py']); "
        "assert 'tensorflow' not in sys.modules, 'tensorflow imported'; "
        "assert 'tf2migrate.verify.cli' not in sys.modules; sys.exit(status)"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr


def test_sarif_output_is_a_valid_sarif_log(tmp_path, capsys):
    import json

    from tf2migrate.cli import main

    script = tmp_path / "a.py"
    script.write_text("import tensorflow as tf\nx = tf.placeholder(tf.float32)\nwith tf.Session() as s:\n    v = s.run(x, {x: 1.0})\n")
    assert main(["-j", "1", "--format", "sarif", str(script)]) == 1
    log = json.loads(capsys.readouterr().out)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    run = log["runs"][0]
    rules = {r["id"] for r in run["tool"]["driver"]["rules"]}
    assert run["results"] and all(r["ruleId"] in rules for r in run["results"])
    location = run["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("a.py") and location["region"]["startLine"] >= 1
    assert {r["level"] for r in run["results"]} <= {"error", "warning", "note"}


def test_statistics_counts_findings_per_code(tmp_path, capsys):
    from tf2migrate.cli import main

    script = tmp_path / "a.py"
    script.write_text(
        "import tensorflow as tf\nx = tf.placeholder(tf.float32)\ny = tf.placeholder(tf.float32)\nwith tf.Session() as s:\n    v = s.run(x + y, {x: 1.0, y: 2.0})\n"
    )
    main(["-j", "1", "--statistics", str(script)])
    out = capsys.readouterr().out
    assert "     2  TFM101  placeholder-to-argument" in out


# --- conventions: streams, patches, stdin ----------------------------------------------


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)


def test_diff_patch_applies_with_git_apply(tmp_path):
    """`tf2migrate --diff . > fix.patch; git apply fix.patch` gives what --fix gives,
    with names as git writes them (spaces, quotes)."""
    files = ["pkg/model.py", "my dir/space name.py", 'odd"q.py']
    for name in files:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("import tensorflow as tf\nz = tf.log(1.0)\n")
    _git("init", "-q", cwd=tmp_path)
    _git("add", ".", cwd=tmp_path)
    with open(tmp_path / "fix.patch", "w") as patch:
        proc = subprocess.run(
            [sys.executable, "-m", "tf2migrate", "--diff", "-j", "1", "."],
            cwd=tmp_path,
            stdout=patch,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 1
    assert "TFM402" in proc.stderr and proc.stderr.splitlines()[-1].startswith("3 files checked")
    headers = [line for line in (tmp_path / "fix.patch").read_text().splitlines() if line.startswith("--- ")]
    assert headers == ["--- a/my dir/space name.py\t", '--- "a/odd\\"q.py"', "--- a/pkg/model.py"]
    _git("apply", "fix.patch", cwd=tmp_path)
    assert all("tf.math.log" in (tmp_path / name).read_text() for name in files)
    (tmp_path / "fix.patch").unlink()
    assert python_m("--fix", "-j", "1", ".", cwd=tmp_path).returncode == 0  # nothing left to fix
    git_headers = [line for line in _git("diff", cwd=tmp_path).stdout.splitlines() if line.startswith("--- ")]
    assert git_headers == headers  # git itself names them the same way


def test_diff_of_an_absolute_path_has_no_double_slash(tmp_path, calls, capsys, monkeypatch):
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    (tmp_path / "m.py").write_text(TF_SOURCE)
    _, out, _ = cli(capsys, "--diff", "-j", "1", str(tmp_path / "m.py"))
    relative = (tmp_path / "m.py").as_posix().lstrip("/")
    assert out.splitlines()[:2] == [f"--- a/{relative}", f"+++ b/{relative}"]


def test_stdin_is_migrated_to_stdout(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "tf2migrate", "-"],
        cwd=tmp_path,
        input=TF_SOURCE.replace("Session()", "Session()\nz = tf.log(1.0)"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stdout.endswith("z = tf.math.log(1.0)\n")
    assert "-:3:5: TFM402 [info]" in proc.stderr and "1 file checked" in proc.stderr


def test_stdin_filename_selects_configuration(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.tf2migrate]\nexclude = ["legacy/"]\nignore = ["TFM402"]\n')
    source = "import tensorflow as tf\nz = tf.log(1.0)\n"
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(source.encode())))
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", stdout)
    assert main(["-", "--stdin-filename", "legacy/old.py"]) == 0  # excluded: passed through
    stdout.flush()
    assert stdout.buffer.getvalue() == source.encode()
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(source.encode())))
    stdout.buffer.seek(0)
    stdout.buffer.truncate()
    assert main(["-", "--stdin-filename", "src/new.py"]) == 1
    stdout.flush()
    assert stdout.buffer.getvalue() == b"import tensorflow as tf\nz = tf.math.log(1.0)\n"
    assert "TFM402" not in capsys.readouterr().err  # ignored by that file's configuration


def test_quiet_prints_findings_only(tree, calls, capsys):
    status, out, err = cli(capsys, "-q", "-j", "1", "pkg")
    assert status == 1
    assert out.splitlines() == [f"{os.path.join('pkg', 'model.py')}:2:8: TFM002 [info] fake: tf.Session rewritten"]


def test_statistics_prints_only_the_table_also_as_json(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("import tensorflow as tf\nx = tf.log(1.0)\ny = tf.log(2.0)\nz = tf.random_normal([1])\n")
    status, out, _ = cli(capsys, "--statistics", "-j", "1", "a.py")
    assert status == 1
    assert out == "     3  TFM402  api-renamed\n"
    status, out, _ = cli(capsys, "--statistics", "--format", "json", "-j", "1", "a.py")
    assert json.loads(out) == [{"code": "TFM402", "name": "api-renamed", "count": 3}]


@pytest.mark.parametrize("argv", [["--select", "TFM9"], ["--ignore", "TFM1,XYZ"], ["--select", "TFM4O2"]])
def test_unknown_code_is_a_usage_error(tree, calls, capsys, argv):
    status, out, err = cli(capsys, *argv, "pkg")
    assert (status, out) == (2, "")
    assert "unknown code" in err and calls == []


def test_help_documents_the_exit_status(capsys):
    status, out, _ = cli(capsys, "--help")
    assert status == 0
    assert "exit status:\n  0  nothing to change" in out and "  2  usage error" in out


def test_progress_line_is_cleared_before_findings(tmp_path, calls, capsys, monkeypatch):
    """With -j 1 too: the first finding starts on its own line, not after `[50/50 files]`."""
    monkeypatch.chdir(tmp_path)
    for i in range(engine._Progress.MIN_FILES):  # noqa: SLF001
        (tmp_path / f"m{i:02}.py").write_text(TF_SOURCE)
    terminal = io.StringIO()
    terminal.isatty = lambda: True
    monkeypatch.setattr(sys, "stderr", terminal)
    main(["--diff", "-j", "1", "."])  # findings go to stderr, after the progress line
    text = terminal.getvalue()
    progress, _, rest = text.rpartition("[50/50 files]")
    assert progress and rest.startswith("\r" + " " * 14 + "\r" + "m00.py:2:8: TFM002")
    terminal.truncate(0)
    main(["--diff", "-q", "-j", "1", "."])
    assert "files]" not in terminal.getvalue()  # --quiet: no progress line


@pytest.mark.parametrize(
    "line", ['exec "x = 1"', "try:\n    pass\nexcept ValueError, e:\n    pass", "mode = 0777"], ids=["exec", "except", "octal"]
)
def test_python2_file_says_so_and_how_to_convert(tmp_path, capsys, monkeypatch, line):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.py").write_text(f"import tensorflow as tf\n{line}\n")
    status, out, _ = cli(capsys, "-j", "1", "old.py")
    assert status == 1
    finding = out.splitlines()[0]
    assert finding.startswith("old.py:") and "TFM001 [error] cannot parse as Python 3" in finding
    assert "this is Python 2 code: convert it to Python 3 first (e.g. `2to3 -w FILE`" in finding


def test_plain_syntax_error_is_not_called_python_2(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text("import tensorflow as tf\ndef f(:\n")
    _, out, _ = cli(capsys, "-j", "1", "bad.py")
    assert "TFM001" in out and "Python 2" not in out
