"""Selecting findings: [tool.tf2migrate], --select/--ignore, suppression comments, exclude."""

import json

import pytest

from tf2migrate.cli import main

TF1 = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\ny = tf.log(x)\nwith tf.Session() as sess:\n    v = sess.run(y, {x: 1.0})\n"
BLOCKED = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nprint(x + 1.0)  # tf2migrate: ignore[TFM301]\n"


def _codes(out: str) -> set[str]:
    return {line.split()[1] for line in out.splitlines() if ": TFM" in line}


def test_select_and_ignore_on_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(TF1)
    main(["-j", "1", "--select", "TFM4", "a.py"])
    codes = _codes(capsys.readouterr().out)
    assert "TFM402" in codes and codes <= {"TFM401", "TFM402", "TFM403", "TFM404", "TFM411"}
    main(["-j", "1", "--ignore", "TFM1,TFM4", "a.py"])
    assert all(not c.startswith(("TFM1", "TFM4")) for c in _codes(capsys.readouterr().out))


def test_pyproject_table_and_exclude(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.tf2migrate]\nignore = ["TFM1"]\nexclude = ["legacy/*"]\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "legacy").mkdir()
    (tmp_path / "src" / "a.py").write_text(TF1)
    (tmp_path / "legacy" / "old.py").write_text(TF1)
    main(["-j", "1", "."])
    out = capsys.readouterr().out
    assert "legacy" not in out and "src/a.py" in out
    assert not any(c.startswith("TFM1") for c in _codes(out))


def test_suppression_comment_silences_that_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "b.py").write_text(BLOCKED)
    main(["-j", "1", "b.py"])
    out = capsys.readouterr().out
    assert "TFM301" not in out  # suppressed on its line
    assert "TFM404" in out  # the graph still stays on TF1: suppression does not change the rewrite


def test_bad_configuration_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.tf2migrate]\nselct = ["TFM1"]\n')
    (tmp_path / "a.py").write_text(TF1)
    assert main(["a.py"]) == 2
    assert "unknown key 'selct'" in capsys.readouterr().err


def test_tf_function_setting_from_pyproject_and_command_line(tmp_path, capsys, monkeypatch):
    """Generated functions are tf.functions unless the project or the command says not."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(TF1)
    main(["-j", "1", "--no-cache", "--diff", "a.py"])
    assert "+@tf.function" in capsys.readouterr().out
    main(["-j", "1", "--no-cache", "--diff", "--no-tf-function", "a.py"])
    assert "tf.function" not in capsys.readouterr().out
    (tmp_path / "pyproject.toml").write_text("[tool.tf2migrate]\ntf-function = false\n")
    main(["-j", "1", "--no-cache", "--diff", "a.py"])
    assert "tf.function" not in capsys.readouterr().out
    main(["-j", "1", "--no-cache", "--diff", "--tf-function", "a.py"])  # the command line wins
    assert "+@tf.function" in capsys.readouterr().out
    (tmp_path / "pyproject.toml").write_text('[tool.tf2migrate]\ntf-function = "no"\n')
    assert main(["-j", "1", "a.py"]) == 2
    assert "tf-function must be true or false" in capsys.readouterr().err


def test_each_file_takes_its_nearest_configuration(tmp_path, capsys, monkeypatch):
    """A package's own pyproject.toml applies to its files, whatever the working directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.tf2migrate]\nselect = ["TFM4"]\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "pyproject.toml").write_text('[tool.tf2migrate]\nignore = ["TFM4"]\n')
    (tmp_path / "pkg" / "b.py").write_text(TF1)
    (tmp_path / "a.py").write_text(TF1)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "pyproject.toml").write_text("[project]\nname = 'tools'\n")  # no table: skipped
    (tmp_path / "tools" / "c.py").write_text(TF1)
    main(["-j", "1", "."])
    out = capsys.readouterr().out
    by_file = {
        name: _codes("\n".join(line for line in out.splitlines() if line.startswith(name))) for name in ("a.py", "pkg/b.py", "tools/c.py")
    }
    assert by_file["a.py"] and all(c.startswith("TFM4") for c in by_file["a.py"])
    assert by_file["pkg/b.py"] and not any(c.startswith("TFM4") for c in by_file["pkg/b.py"])
    assert by_file["tools/c.py"] == by_file["a.py"]
    monkeypatch.chdir(tmp_path.parent)  # from another working directory
    main(["-j", "1", str(tmp_path / "pkg" / "b.py")])
    assert not any(c.startswith("TFM4") for c in _codes(capsys.readouterr().out))


def _tree(tmp_path):
    for rel in ("src/legacy/x.py", "legacy/y.py", "src/keep.py", "src/legacy.py", "tests/test_a.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("import tensorflow as tf\nx = tf.log(1.0)\n")


def _checked(capsys, *argv) -> list[str]:
    """The files a run over the tree looks at."""
    main(["-j", "1", "--format", "json", *argv, "."])
    return sorted(f["path"] for f in json.loads(capsys.readouterr().out)["files"])


@pytest.mark.parametrize("pattern", ["legacy/*", "legacy/", "legacy"])
def test_exclude_follows_gitignore_at_any_depth(tmp_path, capsys, monkeypatch, pattern):
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f'[tool.tf2migrate]\nexclude = ["{pattern}"]\n')
    assert _checked(capsys) == ["src/keep.py", "src/legacy.py", "tests/test_a.py"]


def test_exclude_anchored_and_on_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.tf2migrate]\nexclude = ["/legacy/"]\n')
    assert _checked(capsys) == ["src/keep.py", "src/legacy.py", "src/legacy/x.py", "tests/test_a.py"]
    assert _checked(capsys, "--extend-exclude", "test_*.py") == ["src/keep.py", "src/legacy.py", "src/legacy/x.py"]
    # --exclude replaces the configured patterns
    assert _checked(capsys, "--exclude", "src/**/x.py,tests/") == ["legacy/y.py", "src/keep.py", "src/legacy.py"]


def test_unknown_code_in_the_configuration_is_an_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.tf2migrate]\nignore = ["TFM9"]\n')
    (tmp_path / "a.py").write_text(TF1)
    assert main(["a.py"]) == 2
    assert "unknown code 'TFM9'" in capsys.readouterr().err
