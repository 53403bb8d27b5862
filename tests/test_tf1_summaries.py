"""TF1 summaries migrated (rewrites/tf1_summaries.py): the event files must hold the same
summaries.  Each case under tests/fixtures/tf1_summaries with an ``events.txt`` runs twice, in
fresh processes: ``before.py`` under TF1 semantics, ``after.py`` under TF2, each writing to
its own directory (``SUMMARY_LOGDIR``); the event files are read back and every summary
value compared — tag, step, and the value itself (a scalar's ``simple_value``, a
histogram's buckets, an image's encoded PNG), in the order written.  Events that are not
summaries (the file version, TF1's graph) are not compared; TF2 writes no graph."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "tf1_summaries"
CASES = sorted(p.parent for p in FIXTURES.rglob("events.txt"))

_TF1 = (
    "import runpy, sys\n"
    "import tensorflow as tf\n"
    "from tf2migrate.verify import tf1_pre_1_0_summaries\n"
    "tf.compat.v1.disable_v2_behavior()\n"
    "tf1_pre_1_0_summaries.install(tf.compat.v1)\n"
    "sys.modules['tensorflow'] = tf.compat.v1\n"
    "runpy.run_path(sys.argv[1], run_name='__main__')\n"
)
_TF2 = "import runpy, sys\nrunpy.run_path(sys.argv[1], run_name='__main__')\n"


def _summaries(script: Path, boot: str, logdir: Path) -> list[tuple[int, str, str, object]]:
    env = {**os.environ, "SUMMARY_LOGDIR": str(logdir), "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run(
        [sys.executable, "-c", boot, str(script)], cwd=logdir.parent, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    import tensorflow as tf

    values = []
    for path in sorted(logdir.glob("events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            values += [(event.step, value.tag, *_value(value)) for value in event.summary.value]
    return values


def _value(value) -> tuple[str, object]:
    kind = value.WhichOneof("value")
    if kind == "simple_value":
        return kind, [value.simple_value]
    if kind == "histo":
        h = value.histo
        return kind, [h.min, h.max, h.num, h.sum, h.sum_squares, *h.bucket_limit, *h.bucket]
    if kind == "image":
        return kind, (value.image.height, value.image.width, value.image.colorspace, value.image.encoded_image_string)
    return kind, value.SerializeToString(deterministic=True)


def _same(a, b) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and bool(np.allclose(a, b, rtol=1e-5, atol=1e-6))
    return a == b


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_event_files_hold_the_same_summaries(case: Path, tmp_path: Path) -> None:
    (tmp_path / "tf1").mkdir()
    (tmp_path / "tf2").mkdir()
    tf1 = _summaries(case / "before.py", _TF1, tmp_path / "tf1" / "logs")
    tf2 = _summaries(case / "after.py", _TF2, tmp_path / "tf2" / "logs")
    assert tf1, "the original wrote no summary"
    assert [(step, tag, kind) for step, tag, kind, _ in tf2] == [(step, tag, kind) for step, tag, kind, _ in tf1]
    for (step, tag, _, a), (_, _, _, b) in zip(tf1, tf2):
        assert _same(a, b), f"{tag} at step {step}: TF1 {a}, TF2 {b}"


def test_every_converted_summary_case_is_executed() -> None:
    """A converted case is compared here by its event files (the module-level values of
    tests/test_fixtures.py do not see them); its events.txt says so."""
    converted = {p.parent for p in FIXTURES.rglob("after.py") if "raw_ops" in p.read_text(encoding="utf-8")}
    assert converted and converted <= set(CASES)


_GRAPH = """import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 2])
y = tf.reduce_mean(x)
{summaries}
merged = tf.summary.merge_all()
with tf.Session() as sess:
    writer = tf.summary.FileWriter("logs")
    s = sess.run(merged, feed_dict={{x: np.ones((2, 2))}})
    {write}
"""


def _migrate(summaries: str, write: str = "writer.add_summary(s, 1)"):
    from tf2migrate import migrate_source

    return migrate_source(_GRAPH.format(summaries=summaries, write=write), "t.py")


def _tags(text: str) -> list[str]:
    import re

    return re.findall(r'tags?="([^"]*)"', text)


def test_tags_are_made_unique_as_tf1_made_them() -> None:
    """``Graph.unique_name``: a name met again in its scope, in any letter case, gets
    ``_1``, ``_2``; a scope name counts too."""
    new, _ = _migrate(
        'tf.summary.scalar("y", y)\ntf.summary.scalar("Y", y)\nwith tf.name_scope("Y"):\n    tf.summary.scalar("y", y)\n'
        'tf.summary.scalar("y_1", y)\ntf.summary.scalar("y", y)'
    )
    assert _tags(new) == ["y", "Y_1", "Y_2/y", "y_1_1", "y_3"]


def test_summary_sharing_a_line_converts_as_on_its_own() -> None:
    """Statements sharing a line are migrated apart (rewrites/one_line_suites.py): a summary
    written ``a = tf.summary.scalar("y", y); b = 1`` converts as on a line of its own."""
    shared, shared_findings = _migrate('a = tf.summary.scalar("y", y); b = 1')
    alone, alone_findings = _migrate('a = tf.summary.scalar("y", y)\nb = 1')
    assert "raw_ops" in shared and "disable_eager_execution" not in shared
    assert {f.code for f in shared_findings} == {f.code for f in alone_findings}


def test_refused_with_the_reason() -> None:
    cases = {
        "tf.summary.scalar(name_of(y), y)": "is not a literal",
        'z = tf.identity(y, name="mean")\ntf.summary.scalar("mean", z)': "may be taken by another op",
        'tf.summary.scalar("y", y, family="f")': "with collections, family",
        'tf.summary.text("t", tf.as_string(y))': "`tf.summary.text` is not converted",
        'if __debug__:\n    tf.summary.scalar("y", y)': "`tf.summary.scalar` in an `if` branch",
        'for i in range(2):\n    tf.summary.scalar("y", y)': "`tf.summary.scalar` in a `for` loop",
        'ys = [tf.summary.scalar("y", y)]': "`tf.summary.scalar` inside an expression",
        'sums = {}\nsums["y"] = tf.summary.scalar("y", y)': '`tf.summary.scalar` bound to `sums["y"]`',
        'with tf.control_dependencies([y]):\n    tf.summary.scalar("y", y)': "`tf.summary.scalar` under `with tf.control_dependencies([y])`",
        'def helper(t):\n    tf.summary.scalar("t", t)\n    return t\ntf.summary.scalar("y", helper(y))': "built in the module and `helper`",
    }
    for summaries, reason in cases.items():
        new, findings = _migrate(summaries)
        assert "raw_ops" not in new and "disable_eager_execution" in new, summaries
        assert any(f.code == "TFM312" and reason in f.message for f in findings), (summaries, [f.message for f in findings])
        assert not any("is not converted by this release" in f.message and "summary" in f.message for f in findings)


def test_writers_used_otherwise_and_hand_built_protos_are_refused() -> None:
    writes = {
        "log(writer)": "used other than by add_summary",
        'writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="a", simple_value=1.0)]), 1)': "hand-built `tf.Summary`",
    }
    for write, reason in writes.items():
        new, findings = _migrate('tf.summary.scalar("y", y)', write)
        assert "raw_ops" not in new
        assert any(f.code == "TFM312" and reason in f.message for f in findings), (write, [f.message for f in findings])


def test_converted_run_writes_at_the_step_given() -> None:
    new, findings = _migrate('tf.summary.scalar("y", y)', "writer.add_summary(s, global_step=7)")
    assert 'y_summary = tf.raw_ops.ScalarSummary(tags="y", values=y)' in new
    assert "    tf.summary.experimental.write_raw_pb(s, step=7)" in new
    assert 'writer = tf.summary.create_file_writer("logs")' in new
    assert not any(f.severity.value == "error" for f in findings)


def test_merge_all_with_no_summary_op_is_none_when_not_read() -> None:
    """TF1 returned None; unread, the value cannot matter (not even what a module this one
    imports may have built)."""
    from tf2migrate import migrate_source

    source = "import tensorflow as tf\n\nx = tf.placeholder(tf.float32, [None])\nmerged = tf.summary.merge_all()\n"
    source += 'with tf.Session() as sess:\n    w = tf.summary.FileWriter("logs", sess.graph)\n    print(sess.run(x, {x: [1.0]}))\n'
    new, findings = migrate_source(source, "t.py")
    assert "merged = None" in new and 'w = tf.summary.create_file_writer("logs")' in new
    new, findings = migrate_source(source + "    print(merged)\n", "t.py")
    assert "merged = None" not in new
    assert any(f.code == "TFM312" and "and `merged` is read" in f.message for f in findings)


def test_summaries_built_by_two_classes_constructors_are_refused() -> None:
    """Two methods of one name in two classes are two bodies: which runs first decides the tags."""
    from tf2migrate import migrate_source

    cls = 'class {0}:\n    def __init__(self, x):\n        self.s = tf.summary.scalar("{0}", tf.reduce_sum(x))\n\n\n'
    source = "import tensorflow as tf\n\n\n" + cls.format("A") + cls.format("B")
    source += "x = tf.placeholder(tf.float32, [None])\na, b = A(x), B(x)\nwith tf.Session() as sess:\n    s = sess.run(a.s, {x: [1.0]})\n"
    _, findings = migrate_source(source, "t.py")
    assert any(f.code == "TFM312" and "built in `A.__init__` and `B.__init__`" in f.message for f in findings)


def test_merge_all_in_another_function_than_the_ops_is_refused() -> None:
    from tf2migrate import migrate_source

    source = (
        "import numpy as np\nimport tensorflow as tf\n\nx = tf.placeholder(tf.float32, [None, 2])\n"
        'tf.summary.scalar("y", tf.reduce_mean(x))\n\n\ndef main():\n    merged = tf.summary.merge_all()\n'
        "    with tf.Session() as sess:\n        return sess.run(merged, feed_dict={x: np.ones((2, 2))})\n"
    )
    new, findings = migrate_source(source, "t.py")
    assert "tf.compat.v1.summary.merge_all()" in new
    assert any(f.code == "TFM312" and "in another function than the summary ops" in f.message for f in findings)


def test_findings_keep_the_lines_of_statements_written_over_several_lines() -> None:
    from tf2migrate import migrate_source

    source = (
        "import numpy as np\nimport tensorflow as tf\n\nx = tf.placeholder(tf.float32, [None, 2])\ny = tf.reduce_mean(x)\n"
        'tf.summary.scalar("y",\n                  y)\nmerged = tf.summary.merge_all()\nwith tf.Session() as sess:\n'
        '    writer = tf.summary.FileWriter("logs",\n                                   sess.graph)\n    for i in range(2):\n'
        "        s = sess.run(merged, feed_dict={x: np.ones((2, 2))})\n        writer.add_summary(s,\n                           i)\n"
        "        print(sess.run(y, feed_dict={x: np.ones((2, 2))}))\n"
    )
    _, findings = migrate_source(source, "t.py")
    lines = {(f.code, f.line) for f in findings}
    assert {("TFM126", 6), ("TFM126", 8), ("TFM126", 10), ("TFM102", 13), ("TFM126", 14), ("TFM102", 16)} <= lines


def test_merge_all_with_no_summary_op_in_a_module_tf1_code_imports_is_refused(tmp_path: Path) -> None:
    """An importer may have built summary ops first, and read the merge: kept, said why."""
    from tf2migrate.engine import run

    model = (
        "import tensorflow as tf\n\nx = tf.placeholder(tf.float32, [None])\ny = tf.reduce_sum(x)\n"
        "merged = tf.summary.merge_all()\nwith tf.Session() as sess:\n    print(sess.run(y, {x: [1.0]}))\n"
    )
    main = "import tensorflow as tf\n\nimport model\n\nwith tf.Session() as sess:\n    print(sess.run(model.y, {model.x: [2.0]}))\n"
    (tmp_path / "model.py").write_text(model, encoding="utf-8")
    (tmp_path / "main.py").write_text(main, encoding="utf-8")
    results = {r.path.name: r for r in run([tmp_path], jobs=1, progress=False)}
    assert "merged = None" not in (results["model.py"].new_text or "")
    assert any("TF1 code of this run imports the module" in f.message for f in results["model.py"].findings)


def test_scope_named_by_a_helper_parameter_takes_the_literals_its_calls_pass() -> None:
    """A helper's ``with tf.name_scope(name):`` is named by its calls' literals (or the
    parameter's default); another op's ``x.conv2d`` or a ``conv2d=`` keyword is no call of a
    helper named ``conv2d``.  Any call passing something else keeps the file's summaries on TF1."""
    helper = (
        "def conv2d(t, name='conv'):\n    with tf.name_scope(name):\n        return tf.nn.conv2d(t, tf.ones([1, 1, 2, 2]), 1, 'SAME')\n"
    )
    converted = {
        "a = conv2d(tf.reshape(y, [1, 1, 1, 1]) * tf.ones([1, 1, 1, 2]), name='first')\nb = conv2d(a)\n": ["y"],
    }
    for calls, tags in converted.items():
        new, findings = _migrate(helper + calls + 'tf.summary.scalar("y", y)')
        assert _tags(new) == tags, (calls, [f.message for f in findings])
    refused = ["a = conv2d(tf.reshape(y, [1, 1, 1, 1]) * tf.ones([1, 1, 1, 2]), name='c' + 'd')\n", "f = conv2d\n"]
    for calls in refused:
        new, findings = _migrate(helper + calls + 'tf.summary.scalar("y", y)')
        assert "raw_ops" not in new, calls
        assert any(f.code == "TFM312" and "nor a parameter every call" in f.message for f in findings), calls
    # a call's literal is the summary's name: TF1 made the tag unique (``y_1``), refused as for any literal
    new, findings = _migrate(
        helper + "a = conv2d(tf.reshape(y, [1, 1, 1, 1]) * tf.ones([1, 1, 1, 2]), 'y')\n" + 'tf.summary.scalar("y", y)'
    )
    assert "raw_ops" not in new and any(f.code == "TFM312" and "may be taken by another op" in f.message for f in findings)
