"""TF2 graph mode for the worker (imported in the subprocess only).

For migrations that keep TF1 graph semantics under TF2 (the compat fallback:
``tf.compat.v1.disable_eager_execution()``, placeholders, ``Session``). Eager
execution is process-global and must be disabled before any op exists, so these
scripts get a worker of their own, which disables it once, at start. Otherwise
as tf2 mode: ``tensorflow`` is TF2 itself, and the TF1 initial values are
injected.
"""

from __future__ import annotations

import contextlib

from tf2migrate.verify.graphs import close_interactive_sessions, seed_new_graphs
from tf2migrate.verify.records import Job, ScriptResult
from tf2migrate.verify.tf2_mode import Tf2Mode


class Tf2GraphMode(Tf2Mode):
    def __init__(self, tf):
        tf.compat.v1.disable_eager_execution()
        super().__init__(tf)
        seed_new_graphs()

    @contextlib.contextmanager
    def running(self, job: Job, result: ScriptResult):
        """Run the script in a fresh default graph, then close what it left open
        and undo its ``disable_v2_behavior()``, if any, for the next script."""
        self._tf.compat.v1.reset_default_graph()
        try:
            with super().running(job, result):
                yield
        finally:
            close_interactive_sessions(self._tf.compat.v1)
            _restore_v2_behavior()


def _restore_v2_behavior() -> None:
    """``enable_v2_behavior()``, except for eager execution (which stays off).

    Called as it is, it would raise: eager execution cannot come back once a
    graph exists. So it runs with that one step made a no-op; the other steps
    (resource variables, tensor equality, control flow v2, ...) stay TF's own.
    """
    from tensorflow.python.compat import v2_compat
    from tensorflow.python.framework import ops

    enable_eager_execution = ops.enable_eager_execution
    ops.enable_eager_execution = lambda: None
    try:
        v2_compat.enable_v2_behavior()
    finally:
        ops.enable_eager_execution = enable_eager_execution
