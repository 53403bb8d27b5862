"""The result cache: a re-run over unchanged files does not migrate them again."""

import tf2migrate.engine as engine
from tf2migrate import cache
from tf2migrate.cli import main

TF1 = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nwith tf.Session() as sess:\n    v = sess.run(x * 2.0, {x: 1.0})\n"


def _counting(monkeypatch):
    calls = []
    real = engine.migrate_source

    def counted(source, path):
        calls.append(path)
        return real(source, path)

    monkeypatch.setattr(engine, "migrate_source", counted)
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
    cache._entry(script.read_text()).write_text("{not json")  # noqa: SLF001
    result = engine.process_file(script, use_cache=True)
    assert len(calls) == 3 and result.changed
