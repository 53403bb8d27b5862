"""migrate_source on inputs the fixtures do not show: odd bytes, broken code, no TF."""

import ast
from pathlib import Path

import pytest

from tf2migrate import migrate_source
from tf2migrate.diagnostics import Severity
from tf2migrate.rules import all_rules, rule

FIXTURES = Path(__file__).parent / "fixtures"
TF1 = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\ny = x * 2.0\nwith tf.Session() as sess:\n    v = sess.run(y, {x: 3.0})\n"


def test_returns_new_source_and_findings():
    new, findings = migrate_source(TF1, "script.py")
    assert "def compute_y(x):" in new and "compute_y(x=3.0).numpy()" in new
    assert "placeholder" not in new and "Session" not in new
    assert {f.code for f in findings} >= {"TFM101", "TFM102", "TFM103"}
    assert all(f.path == "script.py" for f in findings)


def test_crlf_and_tabs_are_kept():
    source = TF1.replace("    ", "\t").replace("\n", "\r\n")
    new, _ = migrate_source(source)
    assert "\r\n" in new and "\n" not in new.replace("\r\n", "")
    assert "\ty = x * 2.0\r\n" in new


def test_lone_cr_line_breaks_are_kept_to_the_last():
    new, _ = migrate_source(TF1.replace("\n", "\r"))
    assert "\n" not in new and new.endswith("compute_y(x=3.0).numpy()\r")


@pytest.mark.parametrize("indent", ["\f    ", "  \f  "])
def test_form_feed_in_the_first_indentation(indent):
    """libcst makes it the module's indentation, which it cannot parse generated code with."""
    source = TF1.replace("    ", indent) + "for i in range(2):\n" + indent + "print(i)\n"
    new, findings = migrate_source(source)
    assert "def compute_y(x):" in new and "TFM002" not in {f.code for f in findings}
    ast.parse(new)


@pytest.mark.parametrize("character", ["\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\v"])
def test_comment_with_a_character_str_splitlines_breaks_at(character):
    """The comment moves into the generated function; it is one line for Python."""
    comment = f"# the output{character}layer"
    new, findings = migrate_source(TF1.replace("y = x * 2.0\n", f"{comment}\ny = x * 2.0\n"))
    assert f"    {comment}\n    y = x * 2.0\n" in new, findings


def test_helpers_are_indented_as_the_file():
    """The RMSprop helper class follows a file indented with tabs."""
    source = (FIXTURES / "training" / "rmsprop" / "before.py").read_text(encoding="utf-8").replace("    ", "\t")
    new, findings = migrate_source(source)
    assert "class RMSpropFromTF1(" in new, findings
    assert not [line for line in new.splitlines() if line.startswith(" ")]


def test_one_line_session_block():
    source = TF1.replace("with tf.Session() as sess:\n    v = ", "# run once\nwith tf.Session() as sess: v = ")
    new, findings = migrate_source(source)
    assert new.endswith("\n\n# run once\nv = compute_y(x=3.0).numpy()\n"), (new, findings)


def test_an_internal_failure_is_a_finding_never_an_exception(monkeypatch):
    from tf2migrate.rewrites import session_functions

    def broken(self):
        raise KeyError("a bug in a rewrite")

    monkeypatch.setattr(session_functions.SessionFunctions, "run", broken)
    new, findings = migrate_source(TF1, "script.py")
    assert new == TF1
    assert [(f.code, f.severity) for f in findings] == [("TFM002", Severity.ERROR)]
    assert "KeyError" in findings[0].message and "left unchanged" in findings[0].message


def test_missing_final_newline():
    new, _ = migrate_source(TF1.rstrip("\n"))
    assert not new.endswith("\n") and new.endswith("compute_y(x=3.0).numpy()")


def test_python2_file_is_a_finding_and_untouched():
    source = "import tensorflow as tf\nprint 'hello'\nexec 'x = 1'\n"
    new, findings = migrate_source(source, "old.py")
    assert new == source
    assert [(f.code, f.line, f.severity) for f in findings] == [("TFM001", 3, Severity.ERROR)]
    assert "exec" in findings[0].message


def test_python2_print_statements_become_calls():
    new, findings = migrate_source("import tensorflow as tf\nprint 'hello'\n", "old.py")
    assert new == "import tensorflow as tf\nprint('hello')\n"
    assert [(f.code, f.line, f.severity) for f in findings] == [("TFM008", 2, Severity.INFO)]


def test_file_without_tensorflow_is_not_touched():
    source = "import numpy as np\nsess = object()\n"
    assert migrate_source(source) == (source, [])


def test_tf2_code_is_not_touched():
    source = "import tensorflow as tf\ny = tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]))\nprint(y.numpy())\n"
    assert migrate_source(source) == (source, [])


@pytest.mark.parametrize(
    "source, code",
    [
        (TF1 + "print(y + 1.0)\n", "TFM301"),
        (TF1 + "    w = sess.run(y, feed_dict=make_feed())\n", "TFM302"),
        (TF1 + "    saver.save(sess, 'ckpt')\n", "TFM303"),
        (TF1.replace("y = x * 2.0", "y = tf.layers.dense(x, 3, reuse=True)"), "TFM304"),
        (TF1.replace("y = x * 2.0", "y = tf.gradients(x * x, x, stop_gradients=[x])[0]"), "TFM305"),
        (TF1.replace("y = x * 2.0", "y = tf.train.ProximalAdagradOptimizer(0.1).minimize(x)"), "TFM306"),
        (
            TF1.replace("y = x * 2.0", "y = tf.train.MomentumOptimizer(tf.train.exponential_decay(0.1, 0, 1, 0.5), 0.9).minimize(x)"),
            "TFM306",
        ),
        ("import tensorflow as tf\nclass M:\n    def __init__(self):\n        self.x = tf.placeholder(tf.float32)\n", "TFM307"),
        (
            TF1.replace("y = x * 2.0", "w = tf.Variable(1.0)\ny = x * w")
            + "    sess.run(tf.global_variables_initializer())\n    sess.run(y, {x: 1.0})\n    sess.run(tf.global_variables_initializer())\n",
            "TFM308",
        ),
    ],
)
def test_blockers_keep_the_graph_on_tf1(source, code):
    """All or nothing: a blocked graph is not made eager; it stays on TF1 semantics under
    TF2 (tf.compat.v1 names, graph mode switched on once after the imports)."""
    new, findings = migrate_source(source)
    assert code in {f.code for f in findings}
    assert all(f.severity is Severity.ERROR for f in findings if f.code.startswith("TFM3"))
    assert "GradientTape" not in new and "def compute_" not in new
    if "tf.placeholder" in source:
        assert "tf.compat.v1.placeholder" in new
        assert new.count("tf.compat.v1.disable_eager_execution()") == 1
    ast.parse(new)


def test_graph_built_from_a_python_value_that_changes_is_refused():
    """Refused when a run comes after a rebinding that may or may not have run (in a
    branch): the function would read the new value."""
    built = TF1.replace("y = x * 2.0", "y = x * n").replace("x = tf", "n = 2.0\nx = tf")
    new, findings = migrate_source(built + "if v > 1:\n    n = 3.0\nwith tf.Session() as sess:\n    w = sess.run(y, {x: 3.0})\n")
    assert "TFM306" in {f.code for f in findings} and "def compute_" not in new


def test_python_value_rebound_in_straight_line_code_is_renamed():
    """A run after a rebinding in straight-line code: the first binding gets a name of its
    own (TFM129), which the function reads."""
    built = TF1.replace("y = x * 2.0", "y = x * n").replace("x = tf", "n = 2.0\nx = tf")
    new, findings = migrate_source(built + "n = 3.0\nwith tf.Session() as sess:\n    w = sess.run(y, {x: 3.0})\n")
    assert "TFM306" not in {f.code for f in findings} and "TFM129" in {f.code for f in findings}
    assert "n_1 = 2.0" in new and "y = x * n_1" in new and "\nn = 3.0" in new


def test_python_value_rebound_after_every_run_converts():
    """Every call of the function comes before the rebinding: it reads the value TF1 built with."""
    source = TF1.replace("y = x * 2.0", "y = x * n").replace("x = tf", "n = 2.0\nx = tf") + "n = 3.0\n"
    new, findings = migrate_source(source)
    assert "TFM306" not in {f.code for f in findings} and "def compute_y(x):" in new
    assert new.index("compute_y(x=3.0)") < new.index("n = 3.0")


def test_every_output_parses_and_every_code_is_documented():
    new, findings = migrate_source(TF1)
    ast.parse(new)
    for finding in findings:
        assert rule(finding.code).summary
    for r in all_rules():
        assert r.code.startswith("TFM") and len(r.code) == 6 and r.name and r.explain()


def test_method_of_a_call_result_is_not_a_tf_symbol():
    """``tf.train.AdamOptimizer(lr).minimize`` is a method call on an optimizer object,
    not a symbol ``tf.train.AdamOptimizer.minimize``: the call must survive."""
    source = "import tensorflow as tf\nstep = tf.train.AdamOptimizer(0.1).minimize(loss)\nops = tf.get_default_graph().get_operations()\n"
    new, _ = migrate_source(source)
    assert "tf.compat.v1.train.AdamOptimizer(0.1).minimize(loss)" in new
    assert "tf.compat.v1.get_default_graph().get_operations()" in new


def test_a_feed_dict_no_run_reads_gets_argument_names():
    """The placeholders it names are removed: its keys become their argument names, as a
    read feed dict's do, and its values are still computed (found by the differential
    test: ``x`` was left undefined, TFM002; session/feed_dict_read_by_no_run executes it)."""
    source = (
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [])\n"
        "v = tf.Variable(1.0)\n"
        "step = v.assign_add(1.0)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    feed = {x: 2.0}\n"
        "    sess.run(step)\n"
    )
    new, findings = migrate_source(source)
    assert not [f for f in findings if f.code == "TFM002"], findings
    assert 'feed = {"x": 2.0}\n' in new and "tf.placeholder" not in new, new


@pytest.mark.parametrize(
    ("default", "dtype"),
    [
        ("np.full((2, 3), 0.5, np.float32)", "tf.float32"),
        ("np.ones((2, 3), dtype=np.int32)", "tf.int32"),
        ("np.zeros((2, 3))", "tf.float64"),
        ("np.array([[1, 2, 3]], np.float64)", "tf.float64"),
        ("np.full((2, 3), 0.5)", None),  # NumPy picks the dtype from the value: not told
    ],
)
def test_placeholder_with_default_takes_a_numpy_arrays_dtype(default, dtype):
    source = (
        "import numpy as np\nimport tensorflow as tf\n"
        f"x = tf.placeholder_with_default({default}, [None, 3])\n"
        "y = tf.reduce_sum(x)\n"
        "with tf.Session() as sess:\n"
        "    r = sess.run(y)\n"
    )
    new, findings = migrate_source(source)
    refused = [f.message for f in findings if f.code.startswith("TFM3")]
    if dtype is None:
        assert refused == ["the dtype of this placeholder_with_default cannot be told from its default"]
    else:
        assert not refused and f"tf.TensorSpec([None, 3], {dtype})" in new, new


@pytest.mark.parametrize("dtype", ["tf.int32", "tf.bool"])
def test_a_named_feed_dict_is_converted_as_fed_for_integer_and_boolean_placeholders(dtype):
    """``**feed`` would hand floats to a TensorSpec that refuses them: each value is
    converted as the feed converted it (found by the differential test)."""
    source = (
        "import tensorflow as tf\n"
        f"x = tf.placeholder({dtype}, [None])\n"
        "y = tf.reduce_sum(tf.cast(x, tf.float32))\n"
        "with tf.Session() as sess:\n"
        "    feed = {x: [1.5, 0.0]}\n"
        "    total = sess.run(y, feed)\n"
    )
    new, _ = migrate_source(source)
    assert f'compute_y(x=tf.cast(feed["x"], {dtype}))' in new, new


@pytest.mark.parametrize(
    ("value", "dropped"),
    [
        ("data * (i + 1)", True),
        ("-0.5 * i", True),
        ("[data[0], i % 2 == 0]", True),
        ("data.tolist()", True),
        ("np.float32(i)", True),
        ("data.astype(np.float64).reshape(3, 1)", True),
        ("next_batch()", False),
        ("data.pop()", False),
        ("data.tolist(next_batch())", False),
    ],
)
def test_an_unread_feed_is_dropped_only_without_side_effects(value, dropped):
    source = (
        "import numpy as np\nimport tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "unread = tf.placeholder(tf.float32, None)\n"
        "y = tf.reduce_sum(x)\n"
        "data = np.ones(3)\n"
        "with tf.Session() as sess:\n"
        "    for i in range(2):\n"
        f"        total = sess.run(y, {{x: data, unread: {value}}})\n"
    )
    new, findings = migrate_source(source)
    refused = [f.message for f in findings if f.code.startswith("TFM3")]
    assert refused == (
        []
        if dropped
        else [
            f"the value fed to `unread`, which the fetches do not read, is computed by code not known to be free of effects (`{value}`): TF1 evaluated it, and a dropped feed would not"
        ]
    )
