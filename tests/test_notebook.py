"""Notebooks: code cells migrated as one program, IPython syntax and outputs kept."""

import json
import re

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
        nbformat.v4.new_code_cell(
            "x = tf.placeholder(tf.float32, [None, 1])\nW = tf.Variable(tf.ones([1, 1]))\ny = tf.tanh(tf.matmul(x, W))"
        ),
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


def _v3_notebook(path):
    """An nbformat 3 notebook as old IPython wrote it: worksheets, ``input``, no final newline."""
    v3 = nbformat.v3
    cells = [
        v3.new_text_cell("markdown", source="# old"),
        v3.new_code_cell(input="import tensorflow as tf\nx = tf.placeholder(tf.float32)"),
        v3.new_code_cell(input="with tf.Session() as sess:\n    v = sess.run(x * 2.0, {x: 1.0})"),
    ]
    text = v3.nbjson.writes(v3.new_notebook(worksheets=[v3.new_worksheet(cells=cells)]))
    assert not text.endswith("\n")
    path.write_text(text)
    return text


def test_nbformat_3_notebook_is_migrated_in_its_own_format(tmp_path, capsys):
    path = tmp_path / "old.ipynb"
    text = _v3_notebook(path)
    assert main(["-j", "1", "--fix", str(path)]) == 1
    out = capsys.readouterr().out
    assert "TFM002" not in out and "TFM004" not in out
    assert f"{path}:cell 2:2:5: TFM101" in out
    new = path.read_text()
    raw = json.loads(new)
    assert raw["nbformat"] == 3 and "cells" not in raw
    sources = ["".join(c.get("input", c.get("source"))) for c in raw["worksheets"][0]["cells"]]
    assert sources[0] == "# old" and "def compute_x_times(x):" in sources[1] + sources[2]
    assert "tf.Session" not in new
    assert not new.endswith("\n")  # the file's own layout: no final newline
    changed = [line for line in new.splitlines() if line not in text.splitlines()]
    assert all(line.strip().startswith('"') for line in changed)  # only source lines differ


def test_notebook_without_final_newline_is_written_back_without_one(tmp_path, capsys):
    path = tmp_path / "nl.ipynb"
    text = _tf1_notebook(path).rstrip("\n")
    path.write_text(text)
    assert main(["-j", "1", "--fix", str(path)]) == 1
    assert "TFM004" not in capsys.readouterr().out
    new = path.read_text()
    assert "def compute_y(x):" in new and new.endswith("}")


def test_diff_shows_cell_sources_and_json_keeps_the_whole_text(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "d.ipynb"
    text = _tf1_notebook(path)
    assert main(["-j", "1", "--diff", "d.ipynb"]) == 1
    out = capsys.readouterr().out
    assert "--- a/d.ipynb:cell 3\n+++ b/d.ipynb:cell 3\n" in out
    assert "+def compute_y(x):\n" in out
    assert '"cell_type"' not in out and '"source"' not in out  # cell text, not JSON
    assert "cell 2" not in out and "cell 5" not in out  # unchanged cells are not shown
    assert main(["-j", "1", "--diff", "--format", "json", "d.ipynb"]) == 1
    new_source = json.loads(capsys.readouterr().out)["files"][0]["new_source"]
    assert json.loads(new_source)["cells"][0] == json.loads(text)["cells"][0]
    assert path.read_text() == text


def test_older_nbformat_is_refused_with_tfm004(tmp_path):
    text = json.dumps({"nbformat": 2, "nbformat_minor": 0, "metadata": {}, "worksheets": []})
    new, findings = migrate_notebook(text, "v2.ipynb")
    assert new == text
    assert [f.code for f in findings] == ["TFM004"] and "nbformat 2 is not supported" in findings[0].message


def test_patch_with_notebook_cells_applies_with_git_apply_exclude(tmp_path):
    """The cell diffs are for reading; `git apply --exclude='*.ipynb:cell *'` takes the rest."""
    import subprocess
    import sys

    (tmp_path / "a.py").write_text("import tensorflow as tf\ny = tf.log(1.0)\n")
    _notebook(tmp_path / "n.ipynb", [nbformat.v4.new_code_cell("import tensorflow as tf\ny = tf.log(1.0)")])
    notebook = (tmp_path / "n.ipynb").read_text()
    with open(tmp_path / "fix.patch", "w") as patch:
        subprocess.run([sys.executable, "-m", "tf2migrate", "--diff", "-j", "1", "."], cwd=tmp_path, stdout=patch, timeout=120)
    assert "--- a/n.ipynb:cell 1\n" in (tmp_path / "fix.patch").read_text()
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "--exclude=*.ipynb:cell *", "fix.patch"], cwd=tmp_path, check=True)
    assert (tmp_path / "a.py").read_text() == "import tensorflow as tf\ny = tf.math.log(1.0)\n"
    assert (tmp_path / "n.ipynb").read_text() == notebook


def test_a_line_continuing_brackets_or_a_string_is_python_not_ipython(tmp_path):
    # ``% (...)`` continuing a print's format (Python 2-era notebooks) is the modulo
    # operator; masking it as a line magic left ``print (`` unclosed (TFM001)
    cell = (
        'x = tf.placeholder(tf.float32, [None])\ny = 2.0 * x\nnote = """\n%s doubled\n"""\n'
        "with tf.Session() as sess:\n    y_val = sess.run(y, {x: np.ones(3)})\n"
        'print ("%d values, first %s"\n       % (len(y_val), y_val[0]))\n%who'
    )
    text = _notebook(
        tmp_path / "c.ipynb", [nbformat.v4.new_code_cell("import numpy as np\nimport tensorflow as tf"), nbformat.v4.new_code_cell(cell)]
    )
    new, findings = migrate_notebook(text, "c.ipynb")
    assert not [f for f in findings if f.code == "TFM001"]
    source = "".join(json.loads(new)["cells"][1]["source"])
    assert "sess.run" not in source
    assert source.endswith('print ("%d values, first %s"\n       % (len(y_val), y_val[0]))\n%who')
    assert 'note = """\n%s doubled\n"""' in source


def _python2_notebook(path):
    cells = [
        nbformat.v4.new_code_cell("import numpy as np\nimport tensorflow as tf\n%matplotlib inline"),
        nbformat.v4.new_code_cell("x = tf.placeholder(tf.float32, [None, 2])\nW = tf.Variable(tf.ones([2, 1]))\ny = tf.matmul(x, W)"),
        nbformat.v4.new_code_cell(
            "with tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n"
            '    y_val = sess.run(y, {x: np.ones((3, 2))})\n    print "y:", y_val,  # Python 2\n    print\n'
            "    n = 7\n    print 'half', n / 2"
        ),
    ]
    return _notebook(path, cells)


def test_python2_notebook_prints_become_calls_then_it_migrates(tmp_path):
    text = _python2_notebook(tmp_path / "p.ipynb")
    new, findings = migrate_notebook(text, "p.ipynb")
    sources = ["".join(c["source"]) for c in json.loads(new)["cells"]]
    assert sources[0] == "import numpy as np\nimport tensorflow as tf\n%matplotlib inline"
    assert "def compute_y(x):" in sources[1]
    assert "print(\"y:\", y_val, end=' ')  # Python 2\nprint()\n" in sources[2] and "print('half', n / 2)" in sources[2]
    rendered = [f.render() for f in findings]
    assert (
        "p.ipynb:cell 3:4:5: TFM008 Python 2 print statements converted to calls (3 statements): the file was Python 2, and is Python 3 from here on"
        in rendered
    )
    assert any(r.startswith("p.ipynb:cell 3:7:19: TFM009 `n / 2`") for r in rendered)
    again, more = migrate_notebook(new, "p.ipynb")
    assert again == new and not [f for f in more if f.code in ("TFM008", "TFM009")]


def test_python2_notebook_computes_what_its_print_fixed_original_did(tmp_path):
    """Executed: the notebook's program with its prints as calls under TF1, its migration
    under TF2, from the same initial variables (the Python 2 text itself cannot run here)."""
    from tf2migrate.notebook import code_cells
    from tf2migrate.rewrites.python2_prints import convert_prints
    from tf2migrate.verify import verify_pairs

    def program(notebook_text):  # the cells as one script, IPython lines dropped
        lines = [source for _, source in code_cells(notebook_text)]
        return "\n".join(line for line in "\n".join(lines).splitlines() if not line.startswith("%")) + "\n"

    text = _python2_notebook(tmp_path / "p.ipynb")
    new, _ = migrate_notebook(text, "p.ipynb")
    before, after = tmp_path / "before.py", tmp_path / "after.py"
    before.write_text(convert_prints(program(text)).source)
    after.write_text(program(new))
    [report] = verify_pairs([(before, after)])
    assert report.verdict == "equal", report.render()
    assert report.tf2_stdout == report.tf1_stdout and "y: [[2.]\n [2.]\n [2.]] \n" in report.tf1_stdout


def test_ipython_lines_come_back_with_their_trailing_spaces(tmp_path):
    """A changed cell's magic lines are restored to the byte (``%matplotlib inline  ``)."""
    cells = [
        nbformat.v4.new_code_cell("%matplotlib inline  \nimport tensorflow as tf\nx = tf.placeholder(tf.float32)\n!ls -l \ny = x * 2"),
        nbformat.v4.new_code_cell("with tf.Session() as sess:\n    v = sess.run(y, {x: 1.0})"),
    ]
    new, _ = migrate_notebook(_notebook(tmp_path / "m.ipynb", cells), "m.ipynb")
    source = "".join(json.loads(new)["cells"][0]["source"])
    assert source.startswith("%matplotlib inline  \nimport tensorflow as tf\n") and "\n!ls -l \n" in source


def test_json_without_nbformat_is_refused_with_tfm004():
    # JSON that names TensorFlow but is no notebook (the migration crashed on it: TFM002)
    text = json.dumps({"cells": 5, "note": "tensorflow"})
    new, findings = migrate_notebook(text, "data.ipynb")
    assert new == text
    assert [f.code for f in findings] == ["TFM004"] and "names no nbformat version" in findings[0].message


def test_a_cell_ipython_reads_indented_migrates_and_keeps_its_indentation(tmp_path):
    """IPython takes a cell's first-line indentation off every line (``leading_indent``):
    such a cell is valid, and a changed one gets its indentation back; an unchanged one is
    kept to the byte, and findings point at the cell's own columns."""
    cells = [
        nbformat.v4.new_code_cell("  import numpy as np\n  import tensorflow as tf\n  x = tf.placeholder(tf.float32, [None, 1])\n"),
        nbformat.v4.new_code_cell("  y = x * 2.0\n\n  with tf.Session() as sess:\n      y_val = sess.run(y, {x: np.ones((2, 1))})"),
        nbformat.v4.new_code_cell("   n = 3\n   print(n)"),
    ]
    text = _notebook(tmp_path / "i.ipynb", cells)
    new, findings = migrate_notebook(text, "i.ipynb")
    assert not [f for f in findings if f.code == "TFM001"], findings
    sources = ["".join(c["source"]) for c in json.loads(new)["cells"]]
    assert "  def compute_y(x):" in sources[1] and "  y_val = compute_y(x=np.ones((2, 1))).numpy()" in sources[1]
    assert all(line.startswith("  ") for line in sources[1].splitlines() if line.strip())
    assert sources[2] == "   n = 3\n   print(n)"  # unchanged: byte for byte
    assert any(f.render().startswith("i.ipynb:cell 1:3:7: TFM101") for f in findings)  # ``x = tf.placeholder``: column 7
    again, _ = migrate_notebook(new, "i.ipynb")
    assert again == new


def test_a_shell_escape_continued_by_backslashes_is_masked_whole(tmp_path):
    """``!cmd \\`` goes on at the next line, as IPython joins it (a backslash then a space
    does not continue: IPython reads the next line as Python, and so does the migration);
    automagic aliases (``ls ./data/``) are IPython too where the line is no Python."""
    command = "!t2t-datagen \\\n  --data_dir=$DATA_DIR \\\n  --problem=$PROBLEM"
    cells = [
        nbformat.v4.new_code_cell("import tensorflow as tf\n" + command + "\nls ./data/train/\npwd = 1"),
        nbformat.v4.new_code_cell("x = tf.placeholder(tf.float32, [])\nwith tf.Session() as sess:\n    v = sess.run(x * 2.0, {x: 1.0})"),
    ]
    text = _notebook(tmp_path / "e.ipynb", cells)
    new, findings = migrate_notebook(text, "e.ipynb")
    assert not [f for f in findings if f.code == "TFM001"], findings
    sources = ["".join(c["source"]) for c in json.loads(new)["cells"]]
    assert command + "\nls ./data/train/\npwd = 1" in sources[0]
    assert "placeholder" not in sources[1]
    broken = _notebook(tmp_path / "b.ipynb", [nbformat.v4.new_code_cell("import tensorflow as tf\n!echo \\ \n  --flag")])
    assert [f.code for f in migrate_notebook(broken, "b.ipynb")[1]] == ["TFM001"]


def test_a_syntax_error_names_lines_as_the_notebook_numbers_them(tmp_path):
    """CPython names a line of the joined program (``... after 'for' statement on line 7``):
    the message names the line in its cell, as the finding's position does (an exercise left
    blank, udacity/deep-learning's face_generation notebook)."""
    cells = [
        nbformat.v4.new_code_cell("import tensorflow as tf\nx = 1\ny = 2"),
        nbformat.v4.new_code_cell("z = 3\nfor step in range(2):\n    # TODO: train\n    "),
    ]
    text = _notebook(tmp_path / "blank.ipynb", cells)
    (finding,) = migrate_notebook(text, "blank.ipynb")[1]
    assert (finding.code, finding.path, finding.line) == ("TFM001", "blank.ipynb:cell 2", 4)
    assert finding.message.endswith("expected an indented block after 'for' statement on line 2")
    # a line of another cell says which (the bracket cell 1 left open is closed in cell 2)
    opened = _notebook(
        tmp_path / "open.ipynb", [nbformat.v4.new_code_cell("import tensorflow as tf\nx = [1,"), nbformat.v4.new_code_cell("2)")]
    )
    (finding,) = migrate_notebook(opened, "open.ipynb")[1]
    assert (finding.code, finding.path, finding.line) == ("TFM001", "open.ipynb:cell 2", 1)
    assert finding.message.endswith("does not match opening parenthesis '[' on line 2 of cell 1")


def test_a_colab_notebook_keeps_its_html_safe_escapes(tmp_path):
    """Colab writes ``<``, ``>`` and ``&`` in strings as ``\\u003c``, ``\\u003e``, ``\\u0026``;
    the notebook is written back so, only its changed source lines differing."""
    text = _tf1_notebook(tmp_path / "c.ipynb")
    raw = json.loads(text)
    raw["cells"][2]["outputs"][0]["text"] = "<matplotlib.figure.Figure at 0x7f> & more\n"
    colab = json.dumps(raw, indent=2, sort_keys=True).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") + "\n"
    new, findings = migrate_notebook(colab, "c.ipynb")
    assert not [f for f in findings if f.code == "TFM004"], findings
    assert "def compute_y(x):" in new and "\\u003cmatplotlib.figure.Figure at 0x7f\\u003e \\u0026 more" in new
    changed = [line for line in new.splitlines() if line not in colab.splitlines()]
    assert changed and all(line.strip().startswith('"') for line in changed)


def test_an_ipython_line_reading_graph_names_keeps_the_graph(tmp_path):
    """A line magic's argument is Python (``%timeit sess.run(y, {x: ...})``), a shell escape
    interpolates ``{expression}`` and ``$name``: converted, the session, placeholder and tensor
    they read were gone (a NameError where the notebook ran), so the graph stays on TF1 with
    findings; an IPython line reading plain values (``!echo {steps}``) converts as before."""
    graph = "x = tf.placeholder(tf.float32, [None])\ny = x * 2.0\nsess = tf.Session()\n"
    for line, code in (
        ("%timeit sess.run(y, {x: np.ones(2)})", "TFM303"),
        ("!echo {y.name}", "TFM301"),
        ("!echo $y", "TFM301"),
        ("  %time z = x * 3.0", "TFM306"),
    ):
        if line.startswith("  "):
            line = "if True:\n" + line
        cells = [
            nbformat.v4.new_code_cell("import numpy as np\nimport tensorflow as tf\n" + graph),
            nbformat.v4.new_code_cell(line + "\nv = sess.run(y, {x: np.ones(2)})"),
        ]
        text = _notebook(tmp_path / "m.ipynb", cells)
        new, findings = migrate_notebook(text, "m.ipynb")
        assert "disable_eager_execution()" in new, line
        assert any(f.code == code and f.path == "m.ipynb:cell 2" for f in findings), (line, findings)
        assert not any("__tf2migrate" in f.message for f in findings)
        # placed at the IPython line's start (the columns of its mask are no columns of the cell)
        assert {f.column for f in findings if f.code == code} == {3 if line.startswith("if") else 1}, findings
        assert line.splitlines()[-1] in "".join(json.loads(new)["cells"][1]["source"])
    cells = [
        nbformat.v4.new_code_cell("import numpy as np\nimport tensorflow as tf\nsteps = 3\n" + graph),
        nbformat.v4.new_code_cell("!echo {steps} $steps\n%time n = steps + 1\nv = sess.run(y, {x: np.ones(2)})"),
    ]
    new, _ = migrate_notebook(_notebook(tmp_path / "p.ipynb", cells), "p.ipynb")
    assert "def compute_y(x):" in new and "disable_eager_execution" not in new
    assert "!echo {steps} $steps\\n" in new and "%time n = steps + 1" in new


def _display_notebook(path, shown):
    cells = [
        nbformat.v4.new_code_cell("import numpy as np\nimport tensorflow as tf"),
        nbformat.v4.new_code_cell(
            'X = tf.placeholder(tf.float32, [None, 3], name="X")\nW = tf.Variable(np.ones((3, 2), np.float32))\n'
            'logits = tf.matmul(X, W)\ny_pred = tf.argmax(logits, axis=1, name="y_pred")'
        ),
        nbformat.v4.new_code_cell(shown),
        nbformat.v4.new_code_cell("logits.get_shape()"),
        nbformat.v4.new_code_cell(
            "with tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n"
            "    predicted = sess.run(y_pred, {X: np.arange(6, dtype=np.float32).reshape(2, 3)})\npredicted"
        ),
    ]
    return _notebook(path, cells)


def test_a_cell_displaying_a_graph_tensor_prints_its_repr_from_a_trace(tmp_path):
    """Executed: the original's program with each displayed description printed (what
    IPython showed: its repr) under TF1, the migration under TF2: the same values, and the
    same text but for TF1's `?` for an unknown dimension."""
    from tf2migrate.notebook import code_cells
    from tf2migrate.verify import verify_pairs

    text = _display_notebook(tmp_path / "d.ipynb", "# the predicted class\ny_pred")
    new, findings = migrate_notebook(text, "d.ipynb")
    sources = ["".join(c["source"]) for c in json.loads(new)["cells"]]
    assert "placeholder" not in new and "Session" not in new
    assert "    print(repr(y_pred))\n" in sources[2] and sources[2].endswith("describe_y_pred.get_concrete_function();")
    assert sources[2].lstrip().startswith("# the predicted class\n@tf.function(input_signature=")
    assert "    print(repr(logits.get_shape()))\n" in sources[3]
    assert [f.render() for f in findings if f.code == "TFM113"] == [
        "d.ipynb:cell 3:2:1: TFM113 this cell displayed a graph tensor's description (its repr) while the graph is built → "
        "describe_y_pred, traced here, prints it; tensor names are those of the trace's graph",
        "d.ipynb:cell 4:1:1: TFM113 this cell displayed a graph tensor's description (its repr) while the graph is built → "
        "describe_logits, traced here, prints it; tensor names are those of the trace's graph",
    ]
    again, _ = migrate_notebook(new, "d.ipynb")
    assert again == new

    def program(notebook_text, shown):  # the cells as one script, each cell's display printed
        cells = [source for _, source in code_cells(notebook_text)]
        return "\n".join(f"{c}\n{shown}" if c.split("\n")[-1] in ("y_pred", "logits.get_shape()") else c for c in cells) + "\n"

    before, after = tmp_path / "before.py", tmp_path / "after.py"
    before.write_text(
        program(text, "print(repr(_))")
        .replace("\ny_pred\n", "\n_ = y_pred\n")
        .replace("\nlogits.get_shape()\n", "\n_ = logits.get_shape()\n")
    )
    after.write_text(program(new, ""))
    [report] = verify_pairs([(before, after)])
    assert report.verdict == "equal", report.render()
    assert "<tf.Tensor 'y_pred:0' shape=(" in report.tf1_stdout
    # TF1 wrote an unknown dimension `?` in a tensor's repr, `Dimension(None)` in a shape's
    tf1_text = re.sub(r"Dimension\((\w+)\)", r"\1", report.tf1_stdout.replace("?", "None"))
    assert report.tf2_stdout == tf1_text == "<tf.Tensor 'y_pred:0' shape=(None,) dtype=int64>\nTensorShape([None, 2])\n"


def test_a_cell_displaying_a_value_of_a_graph_tensor_keeps_the_graph(tmp_path):
    """Only a tensor's name or a static fact of it is a display read as a description:
    arithmetic on the tensor (a new op, whose value eager code would show), and a tensor
    named in the middle of a cell (no display) stay refused."""
    for shown in ("y_pred + 1", "y_pred\nn = 1"):
        text = _display_notebook(tmp_path / "k.ipynb", shown)
        new, findings = migrate_notebook(text, "k.ipynb")
        assert "compat.v1.placeholder" in new
        message = "`y_pred` (defined by graph-building code) is read outside a Session run;"
        assert any(f.code == "TFM301" and f.message.startswith(message) and f.path == "k.ipynb:cell 3" for f in findings), findings
