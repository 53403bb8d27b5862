"""TF1 semantics for the worker (imported in the subprocess only).

Graph mode via ``disable_v2_behavior``; ``import tensorflow as tf`` in a script
gives ``tensorflow.compat.v1``; and the initial values of the trainable variables
are recorded so the TF2 run can start from the very same values.
"""

from __future__ import annotations

import contextlib
import functools
import sys

from tf2migrate.verify.records import Job, ScriptResult


class Tf1Mode:
    def __init__(self, tf):
        tf.compat.v1.disable_v2_behavior()
        self._tf = tf
        self._v1 = tf.compat.v1
        self._recording: ScriptResult | None = None  # set until values are recorded
        self._patch_session_run()
        self._seed_new_graphs()

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
            # An open InteractiveSession stays the default session and graph,
            # which would make the next reset_default_graph() fail.
            session = self._v1.get_default_session()
            while isinstance(session, self._v1.InteractiveSession):
                session.close()
                if self._v1.get_default_session() is session:
                    break  # left as default by the script itself: not ours to unwind
                session = self._v1.get_default_session()

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

    @staticmethod
    def _seed_new_graphs() -> None:
        """Give every new graph the graph-level seed 0 (a script may override it).

        With op determinism enabled, TF refuses to create a random op unless a
        seed is set; setting it on each new graph also covers the scripts' own
        ``tf.Graph()``s, and makes each run reproducible.
        """
        from tensorflow.python.framework.ops import Graph

        original = Graph.__init__

        @functools.wraps(original)
        def __init__(graph, *args, **kwargs):
            original(graph, *args, **kwargs)
            graph.seed = 0

        Graph.__init__ = __init__

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
