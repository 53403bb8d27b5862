"""TF1 semantics for the worker (imported in the subprocess only).

Graph mode via ``disable_v2_behavior``; ``import tensorflow as tf`` in a script
gives ``tensorflow.compat.v1``; and the initial values of the trainable variables
are recorded so the TF2 run can start from the very same values.
"""

from __future__ import annotations

import contextlib
import functools
import sys

from tf2migrate.verify import tf1_contrib
from tf2migrate.verify.graphs import close_interactive_sessions, seed_new_graphs
from tf2migrate.verify.records import Job, ScriptResult


class Tf1Mode:
    def __init__(self, tf):
        tf.compat.v1.disable_v2_behavior()
        self._tf = tf
        self._v1 = tf.compat.v1
        tf1_contrib.install(self._v1)
        self._recording: ScriptResult | None = None  # set until values are recorded
        self._patch_session_run()
        seed_new_graphs()

    @contextlib.contextmanager
    def running(self, job: Job, result: ScriptResult):
        """Give the script a fresh default graph and ``tensorflow`` = compat.v1.

        ``sys.modules`` is swapped (and restored) around the script only:
        ``import tensorflow.compat.v1 as tf`` then resolves to the equivalent
        ``compat.v1.compat.v1`` module, and submodule imports such as
        ``tensorflow.python.*`` still work because those are in sys.modules.
        """
        self._v1.reset_default_graph()
        self._recording = result
        saved = sys.modules["tensorflow"]
        sys.modules["tensorflow"] = self._v1
        try:
            yield
        finally:
            sys.modules["tensorflow"] = saved
            self._recording = None
            close_interactive_sessions(self._v1)

    def _patch_session_run(self) -> None:
        """Record initial values after every ``run`` until they are recorded.

        ``BaseSession.run`` is the one method that ``Session``,
        ``InteractiveSession``, ``Tensor.eval`` and ``Operation.run`` all end up in
        (patching ``Session.run`` would miss ``InteractiveSession``).
        """
        from tensorflow.python.client.session import BaseSession

        original = BaseSession.run

        @functools.wraps(original)
        def run(session, *args, **kwargs):
            fetched = original(session, *args, **kwargs)
            if self._recording is not None:
                self._record(session, original)
            return fetched

        BaseSession.run = run

    def _record(self, session, run) -> None:
        """Record ``(name, shape, value)`` of the trainable variables, in
        collection (= creation) order, once all of them are initialized.

        Fetching the variables themselves creates no op, so this also works on a
        finalized graph (MonitoredSession); while one is uninitialized the fetch
        fails and we simply try again after the script's next ``run``. ``run`` is
        the unpatched method, so this does not recurse.
        """
        variables = session.graph.get_collection(self._v1.GraphKeys.TRAINABLE_VARIABLES)
        if not variables:
            return
        try:
            values = run(session, variables)
        except self._tf.errors.FailedPreconditionError:
            return
        self._recording.initial_values = [
            (variable.name, value.shape, value) for variable, value in zip(variables, values)
        ]
        self._recording = None
