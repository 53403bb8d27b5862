"""A run sets CPython's cyclic collector for its work and puts it back as it was
(engine._collector_for_a_run): a library call must not leave the caller's process changed."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from tf2migrate import engine


def test_a_run_sets_the_collector_and_puts_it_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "graph.py").write_text("import tensorflow as tf\nx = tf.placeholder(tf.float32)\n", encoding="utf-8")
    before, frozen_before = gc.get_threshold(), gc.get_freeze_count()
    during = []
    run = engine._run

    def watched(*args, **kwargs):
        during.append((gc.get_threshold()[0], gc.get_freeze_count()))
        return run(*args, **kwargs)

    monkeypatch.setattr(engine, "_run", watched)
    results = engine.run([tmp_path], jobs=1, progress=False)
    assert [r.new_text != r.old_text for r in results] == [True]
    assert during[0][0] == engine._YOUNG_OBJECTS and during[0][1] > frozen_before
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen_before


def test_a_failing_run_puts_the_collector_back(monkeypatch: pytest.MonkeyPatch) -> None:
    before, frozen_before = gc.get_threshold(), gc.get_freeze_count()

    def failing(*args, **kwargs):
        raise RuntimeError("stop")

    monkeypatch.setattr(engine, "_run", failing)
    with pytest.raises(RuntimeError):
        engine.run([], jobs=1, progress=False)
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen_before
