"""Verifying a multi-module program through a driver (``tf2migrate verify --driver``),
the project flow (``[tool.tf2migrate.verify]``) and ``--format json``.

The worked example, examples/verify_model, is the fixture: a model class in
model.py using helpers in utilities.py, two models in one run. Its checks and
the planted faults run in one batched ``verify_pairs`` call (two TensorFlow
workers in all); the CLI tests are served its reports.
"""

from __future__ import annotations

import json
import shutil
import sys
import types
from pathlib import Path

import pytest

from tf2migrate import migrate_source
from tf2migrate.verify import VerifyReport, verify_pairs
from tf2migrate.verify.cli import main as verify_main
from tf2migrate.verify.driver import DriverContext

EXAMPLE = Path(__file__).parent.parent / "examples" / "verify_model"

RAISING_DRIVER = """
import numpy as np


def setup(ctx):
    ctx.stub("plotting")


def drive(program, rng):
    model = program.Model(np.zeros((4, 2)), np.zeros((4, 1)), [2, 3, 1])
    return {"u": check(model)}


def check(model):
    raise RuntimeError("the driver gave up")
"""


def _plant(tree: Path, name: str, old: str, new: str) -> None:
    path = tree / name
    source = path.read_text()
    assert old in source
    path.write_text(source.replace(old, new))


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """The example, plus migrated trees with a planted fault each and a raising driver."""
    root = tmp_path_factory.mktemp("project")
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    for tree in ("constant", "none"):
        shutil.copytree(root / "migrated", root / tree)
    # A changed constant in the helper module (the input normalization).
    _plant(root / "constant", "utilities.py", "LOWER, UPPER = -1.0, 1.0", "LOWER, UPPER = -1.0, 1.01")
    # The forward pass outside the tape: u_x comes back None.
    _plant(
        root / "none",
        "model.py",
        "            tape.watch(x_tf)\n            u_pred = neural_net(x_tf, self.weights, self.biases)\n",
        "            tape.watch(x_tf)\n        u_pred = neural_net(x_tf, self.weights, self.biases)\n",
    )
    (root / "raising.py").write_text(RAISING_DRIVER)
    return root


CHECKS = {
    "equal": ("migrated", "driver.py"),
    "constant": ("constant", "driver.py"),
    "none": ("none", "driver.py"),
    "raises": ("none", "raising.py"),
}


@pytest.fixture(scope="module")
def reports(project) -> dict[str, VerifyReport]:
    triples = [(project / "original" / "model.py", project / tree / "model.py", project / driver) for tree, driver in CHECKS.values()]
    return dict(zip(CHECKS, verify_pairs(triples)))


def _failing(report: VerifyReport) -> dict[str, str]:
    return {row.name: row.status for row in report.rows if not row.ok}


def test_multi_module_program_with_two_models_is_equal(reports):
    report = reports["equal"]
    assert report.verdict == "equal", report.render()
    assert not report.messages
    names = {row.name for row in report.rows}
    for model in ("small", "deep"):
        assert {f"{model}['{value}']" for value in ("u_initial", "u_x_initial", "losses", "u", "u_x")} <= names
    # Both models start from TF1's weights: the second model's are replayed too.
    initial = [row for row in report.rows if "initial" in row.name]
    assert len(initial) == 4 and all(row.max_abs_diff == 0 for row in initial)


def test_changed_constant_in_the_helper_module_is_caught(reports):
    report = reports["constant"]
    assert report.verdict == "different"
    failing = _failing(report)
    assert len(failing) == len(report.rows) == 10
    assert all(status.startswith("values differ") for status in failing.values())


def test_missing_gradient_is_caught(reports):
    report = reports["none"]
    assert report.verdict == "different"
    assert _failing(report) == {
        f"{model}['{value}']": "TF2 value is None (a missing gradient?)" for model in ("small", "deep") for value in ("u_x_initial", "u_x")
    }


def test_raising_driver_is_an_error_with_its_traceback(reports):
    report = reports["raises"]
    assert report.verdict == "error"
    assert report.rows == []
    tf1_message = report.messages[0]
    assert tf1_message.startswith("TF1 program (driven by raising.py)")
    assert "Traceback (most recent call last)" in tf1_message
    assert 'raise RuntimeError("the driver gave up")' in tf1_message
    assert "RuntimeError: the driver gave up" in tf1_message
    # The worker's and the import machinery's frames are left out.
    assert "tf2migrate/verify" not in tf1_message


def test_example_helpers_are_tf2migrate_output():
    """The README says which files of the example tf2migrate wrote: these are."""
    for name in ("utilities.py", "plotting.py"):
        migrated, _ = migrate_source((EXAMPLE / "original" / name).read_text(), name)
        assert migrated == (EXAMPLE / "migrated" / name).read_text()


@pytest.fixture
def served(reports, monkeypatch):
    """Serve the batch's reports to the CLI instead of starting more TF workers;
    records the checks and timeout the CLI asked for."""
    by_check = {(r.before, r.after, r.driver): r for r in reports.values()}
    asked = []

    def fake(checks, timeout):
        asked.append(([tuple(None if p is None else Path(p).resolve() for p in check) for check in checks], timeout))
        return [by_check[check] for check in asked[-1][0]]

    monkeypatch.setattr("tf2migrate.verify.cli.verify_pairs", fake)
    return asked


@pytest.mark.parametrize(("key", "code"), [("equal", 0), ("constant", 1), ("none", 1), ("raises", 2)])
def test_cli_driver_exit_codes(project, reports, served, capsys, key, code):
    tree, driver = CHECKS[key]
    argv = [str(project / "original/model.py"), str(project / tree / "model.py"), "--driver", str(project / driver)]
    assert verify_main(argv) == code
    out = capsys.readouterr().out
    assert out.strip() == reports[key].render()
    if key == "raises":
        assert "RuntimeError: the driver gave up" in out


def test_cli_json(project, reports, served, capsys):
    argv = [str(project / "original/model.py"), str(project / "none/model.py"), "--driver", str(project / "driver.py")]
    assert verify_main([*argv, "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "different"
    (program,) = data["programs"]
    assert program["driver"] == str(project / "driver.py")
    rows = {row["name"]: row for row in program["values"]}
    assert rows["small['u_x']"] == {
        "name": "small['u_x']",
        "shape": [5, 2],
        "max_abs_diff": None,
        "status": "TF2 value is None (a missing gradient?)",
    }
    assert rows["small['u']"]["status"] == "ok"


def test_project_flow_runs_the_listed_programs(project, served, capsys, monkeypatch):
    """The example's own pyproject.toml, with no arguments."""
    monkeypatch.chdir(project)
    assert verify_main([]) == 0
    assert served == [([(project / "original/model.py", project / "migrated/model.py", project / "driver.py")], 1200)]
    assert capsys.readouterr().out.rstrip().endswith("verdict: equal (10 of 10 values match)")


def test_project_flow_worst_verdict_wins(project, served, capsys, monkeypatch):
    monkeypatch.chdir(project / "none")  # finds the example's pyproject.toml above: replace it
    (project / "pyproject.toml").write_text(
        '[tool.tf2migrate]\nignore = ["TFM1"]\n'
        "[tool.tf2migrate.verify]\n"
        'original = "original"\nmigrated = "none"\ntimeout = 60\n'
        'programs = [{ program = "model.py", driver = "driver.py" }, { program = "model.py", driver = "raising.py" }]\n'
    )
    try:
        assert verify_main(["--format", "json"]) == 2
    finally:
        shutil.copy(EXAMPLE / "pyproject.toml", project / "pyproject.toml")
    data = json.loads(capsys.readouterr().out)
    assert [program["verdict"] for program in data["programs"]] == ["different", "error"]
    assert data["verdict"] == "error"
    assert served[0][1] == 60


@pytest.mark.parametrize(
    ("pyproject", "error"),
    [
        (None, "no [tool.tf2migrate.verify]"),
        ('[tool.tf2migrate.verify]\nprograms = ["a.py"]\n', "needs original ="),
        ('[tool.tf2migrate.verify]\noriginal = "o"\n', "needs programs ="),
        ('[tool.tf2migrate.verify]\noriginal = "o"\nprograms = [{ script = "a.py" }]\n', "is not a path or"),
        ('[tool.tf2migrate.verify]\noriginal = "o"\nprograms = ["a.py"]\nretries = 1\n', "unknown keys ['retries']"),
        ('[tool.tf2migrate.verify]\noriginal = "o"\nprograms = ["a.py"]\n', "no such file"),
    ],
)
def test_project_flow_usage_errors(tmp_path, monkeypatch, capsys, pyproject, error):
    monkeypatch.chdir(tmp_path)
    if pyproject:
        (tmp_path / "pyproject.toml").write_text(pyproject)
    assert verify_main([]) == 2
    assert error in capsys.readouterr().err


def test_cli_usage_errors(project, capsys):
    assert verify_main([str(project / "original/model.py")]) == 2
    assert "give both ORIGINAL and MIGRATED" in capsys.readouterr().err
    assert verify_main(["--driver", str(project / "driver.py")]) == 2
    assert "--driver needs ORIGINAL and MIGRATED" in capsys.readouterr().err
    assert verify_main([str(project / "original/model.py"), str(project / "migrated/model.py"), "--driver", "nope.py"]) == 2
    assert "no such file: nope.py" in capsys.readouterr().err


def test_a_verify_table_does_not_disturb_migration_settings(tmp_path):
    from tf2migrate import config

    (tmp_path / "pyproject.toml").write_text('[tool.tf2migrate]\nignore = ["TFM1"]\n[tool.tf2migrate.verify]\noriginal = "o"\n')
    assert config.for_directory(tmp_path).ignore == ["TFM1"]
    assert config.verify_table(tmp_path) == (tmp_path / "pyproject.toml", {"original": "o"})


def test_driver_context_changes_are_undone(tmp_path):
    scipy_optimize = pytest.importorskip("scipy.optimize")
    import numpy as np

    minimize = scipy_optimize.minimize
    context = DriverContext("tf1", tmp_path / "model.py")
    stub = context.stub("plotting_for_test.figures", save=lambda: "saved")
    import plotting_for_test.figures as figures  # noqa: E402 - stubbed just above

    assert figures is stub and figures.save() == "saved" and figures.anything(1, k=2) is None
    rosenbrock = (scipy_optimize.rosen, np.array([-1.2, 1.0]))
    assert scipy_optimize.minimize(*rosenbrock, method="L-BFGS-B").nit > 20
    context.cap_scipy(maxiter=3)
    assert scipy_optimize.minimize(*rosenbrock, method="L-BFGS-B", options={"maxiter": 50}).nit <= 3
    context.restore()
    assert scipy_optimize.minimize is minimize
    assert "plotting_for_test" not in sys.modules and "plotting_for_test.figures" not in sys.modules


def test_stub_of_a_real_package_keeps_the_package(tmp_path):
    context = DriverContext("tf2", tmp_path / "model.py")
    context.stub("json.plotting")
    assert isinstance(sys.modules["json"].plotting, types.ModuleType)
    context.restore()
    assert not hasattr(sys.modules["json"], "plotting") and "json.plotting" not in sys.modules
