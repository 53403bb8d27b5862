"""Notebooks: code cells migrated as one program, IPython syntax and outputs kept."""

import json

import nbformat

from tf2migrate.cli import main
from tf2migrate.notebook import migrate_notebook


def _notebook(path, cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    nbformat.write(nb, str(path))
    return path.read_text()


def _tf1_notebook(path):
    cells = [
        nbformat.v4.new_markdown_cell("# A TF1 notebook"),
        nbformat.v4.new_code_cell("%matplotlib inline\nimport numpy as np\nimport tensorflow as tf\n!pip --version"),
        nbformat.v4.new_code_cell("x = tf.placeholder(tf.float32, [None, 1])\nW = tf.Variable(tf.ones([1, 1]))\ny = tf.tanh(tf.matmul(x, W))"),
        nbformat.v4.new_code_cell(
            "%%time\nwith tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n"
            "    y_val = sess.run(y, {x: np.ones((2, 1))})\nfiles = !ls\ny_val?"
        ),
        nbformat.v4.new_code_cell("%%bash\necho hello"),
    ]
    cells[2].outputs = [nbformat.v4.new_output("stream", text="kept\n")]
    return _notebook(path, cells)


def test_cells_migrate_as_one_program_and_ipython_is_kept(tmp_path):
    text = _tf1_notebook(tmp_path / "a.ipynb")
    new, findings = migrate_notebook(text, "a.ipynb")
    cells = json.loads(new)["cells"]
    sources = ["".join(c["source"]) for c in cells]
    assert "def compute_y(x):" in sources[2] and "placeholder" not in sources[2]
    assert sources[3].startswith("%%time\n") and "compute_y(x=np.ones((2, 1))).numpy()" in sources[3]
    assert "files = !ls" in sources[3] and sources[3].endswith("y_val?")
    assert sources[1] == "%matplotlib inline\nimport numpy as np\nimport tensorflow as tf\n!pip --version"
    assert sources[4] == "%%bash\necho hello"
    assert "".join(cells[2]["outputs"][0]["text"]) == "kept\n"  # outputs untouched
    assert {f.path for f in findings} <= {"a.ipynb:cell 3", "a.ipynb:cell 4"}
    assert any(f.render().startswith("a.ipynb:cell 3:1:5: TFM101") for f in findings)
    nbformat.reads(new, as_version=4)  # still a valid notebook
    # only the changed source lines differ: the rest of the JSON is byte-for-byte the same
    changed = [line for line in new.splitlines() if line not in text.splitlines()]
    assert all(line.strip().startswith('"') for line in changed)
    again, _ = migrate_notebook(new, "a.ipynb")
    assert again == new


def test_fix_rewrites_a_notebook_through_the_cli(tmp_path, capsys):
    path = tmp_path / "b.ipynb"
    _tf1_notebook(path)
    assert main(["-j", "1", "--fix", str(path)]) == 1
    assert "def compute_y(x):" in path.read_text()
    assert main(["-j", "1", str(path)]) == 0
    assert "b.ipynb:cell" not in capsys.readouterr().out.split("\n")[-2]


def test_broken_notebook_is_a_finding(tmp_path):
    new, findings = migrate_notebook('{"cells": [', "c.ipynb")
    assert new == '{"cells": [' and [f.code for f in findings] == ["TFM004"]
