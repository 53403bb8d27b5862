"""The result cache: a re-run over unchanged files does not migrate them again."""

import json

import tf2migrate.engine as engine
import tf2migrate.notebook as notebook
from tf2migrate import Options, cache
from tf2migrate.cli import main

TF1 = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nwith tf.Session() as sess:\n    v = sess.run(x * 2.0, {x: 1.0})\n"


def _counting(monkeypatch):
    calls = []
    real = engine.migrate_source

    def counted(source, path, *options, **project):
        calls.append(path)
        return real(source, path, *options, **project)

    monkeypatch.setattr(engine, "migrate_source", counted)
    monkeypatch.setattr(notebook, "migrate_source", counted)
    return calls


def test_second_run_reads_the_cache(tmp_path, monkeypatch, capsys):
    script = tmp_path / "a.py"
    script.write_text(TF1)
    calls = _counting(monkeypatch)
    assert main(["-j", "1", str(script)]) == 1
    first = capsys.readouterr().out
    assert main(["-j", "1", str(script)]) == 1
    second = capsys.readouterr().out
    assert len(calls) == 1  # the second run was served from the cache
    assert first == second  # same findings, same paths


def test_no_cache_migrates_again(tmp_path, monkeypatch, capsys):
    script = tmp_path / "a.py"
    script.write_text(TF1)
    calls = _counting(monkeypatch)
    main(["-j", "1", str(script)])
    main(["-j", "1", "--no-cache", str(script)])
    assert len(calls) == 2


def test_changed_content_is_a_miss_and_a_corrupt_entry_is_ignored(tmp_path, monkeypatch):
    calls = _counting(monkeypatch)
    script = tmp_path / "a.py"
    script.write_text(TF1)
    engine.process_file(script, use_cache=True)
    script.write_text(TF1 + "print(v)\n")
    engine.process_file(script, use_cache=True)
    assert len(calls) == 2
    cache._entry(script.read_text(), f"python {Options()}").write_text("{not json")  # noqa: SLF001
    result = engine.process_file(script, use_cache=True)
    assert len(calls) == 3 and result.changed


def test_options_are_part_of_the_key(tmp_path, monkeypatch):
    """A result written with @tf.function is never served to a run without it."""
    calls = _counting(monkeypatch)
    script = tmp_path / "a.py"
    script.write_text(TF1)
    traced = engine.process_file(script, use_cache=True)
    eager = engine.process_file(script, use_cache=True, options=Options(tf_function=False))
    assert len(calls) == 2
    assert "@tf.function" in traced.new_text and "@tf.function" not in eager.new_text
    assert engine.process_file(script, use_cache=True, options=Options(tf_function=False)).new_text == eager.new_text
    assert len(calls) == 2


def test_notebooks_are_cached_with_their_cell_locations(tmp_path, monkeypatch):
    calls = _counting(monkeypatch)
    cells = [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
        for source in [
            "import tensorflow as tf\nx = tf.placeholder(tf.float32)",
            "with tf.Session() as sess:\n    v = sess.run(x * 2.0, {x: 1.0})",
        ]
    ]
    document = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    path = tmp_path / "a.ipynb"
    path.write_text(json.dumps(document, indent=1) + "\n")
    first = engine.process_file(path, use_cache=True)
    second = engine.process_file(path, use_cache=True)
    assert len(calls) == 1 and first.changed
    assert second.new_text == first.new_text
    assert [d.render() for d in second.findings] == [d.render() for d in first.findings]
    assert any(":cell 2:" in d.render() for d in second.findings)


def test_an_entry_for_other_source_text_is_never_served(tmp_path, monkeypatch, capsys):
    """A misplaced entry (here: the entry of a.py copied to b.py's key) is a miss: the
    entry names the SHA-256 of its source, and a hit must match the file being read."""
    variant = f"python {Options()}"
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(TF1)
    b.write_text(TF1.replace("x * 2.0", "x * 3.0"))
    assert main(["-j", "1", str(a)]) == 1
    wrong = cache._entry(b.read_text(), variant)  # noqa: SLF001
    wrong.parent.mkdir(parents=True, exist_ok=True)
    wrong.write_bytes(cache._entry(a.read_text(), variant).read_bytes())  # noqa: SLF001
    calls = _counting(monkeypatch)
    assert main(["-j", "1", "--fix", str(b)]) == 1
    assert calls == [str(b)]  # migrated, not served from the wrong entry
    assert "x * 3.0" in b.read_text() and "x * 2.0" not in b.read_text()
