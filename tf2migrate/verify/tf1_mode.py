"""TF1 semantics for the worker (imported in the subprocess only).

Graph mode via ``disable_v2_behavior``; ``import tensorflow as tf`` in a script
gives ``tensorflow.compat.v1``; and the initial values of the variables (trainable or
not) are recorded so the TF2 run can start from the very same values and check its own.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from typing import Any

from tf2migrate.verify import tf1_contrib, tf1_fused_batch_norm, tf1_keyword_only, tf1_mnist, tf1_pre_1_0_summaries
from tf2migrate.verify.creators import hook_default_creators
from tf2migrate.verify.final_values import ScriptFinalValues
from tf2migrate.verify.graphs import close_interactive_sessions, seed_new_graphs
from tf2migrate.verify.records import Job, ScriptResult
from tf2migrate.verify.starts import drawn


class Tf1Mode:
    side = "tf1"

    def __init__(self, tf):
        tf.compat.v1.disable_v2_behavior()
        self._tf = tf
        self._v1 = tf.compat.v1
        self._seed_eager_programs()  # before contrib's ``tfe.enable_eager_execution`` takes the switch
        tf1_contrib.install(self._v1)
        tf1_mnist.install(self._v1)
        tf1_keyword_only.install(self._v1)
        tf1_fused_batch_norm.install(self._v1)
        tf1_pre_1_0_summaries.install(self._v1)
        self._recorder: _Recorder | None = None  # set while a script runs
        hook_default_creators(self._created)
        # first, so that its reads go to the unpatched run and are not recorded below
        self._final = ScriptFinalValues(tf.errors.FailedPreconditionError)
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
        self._recorder = _Recorder(self._tf.errors.FailedPreconditionError)
        self._final.start()
        saved = sys.modules["tensorflow"]
        sys.modules["tensorflow"] = self._v1
        try:
            yield
        finally:
            sys.modules["tensorflow"] = saved
            result.initial_values = self._recorder.initial_values()
            self._recorder = None
            close_interactive_sessions(self._v1)
            # before the switch back to graphs below: an eager variable's value is read now
            self._final.finish()
            if self._tf.executing_eagerly():
                # a TF1 program that ran eagerly (``tf.enable_eager_execution()``) switched
                # the whole process: the next script builds a graph again
                self._v1.disable_eager_execution()

    def final_value(self, variable):
        """A variable's value when the last script ended (see final_values)."""
        return self._final.value(variable)

    def _seed_eager_programs(self) -> None:
        """A TF1 program that switches eager execution on leaves the new graphs' seeds
        (graphs.py) behind: its random ops need the global seed op determinism asks for,
        set as the TF2 side sets it."""
        switch = self._v1.enable_eager_execution
        tf = self._tf

        @functools.wraps(switch)
        def enable_eager_execution(*args, **kwargs):
            switch(*args, **kwargs)
            tf.random.set_seed(0)

        self._v1.enable_eager_execution = enable_eager_execution

    def _created(self, create, **kwargs):
        variable = create(**kwargs)
        self._final.created(variable)
        if self._recorder is not None:
            self._recorder.variables.append(variable)
            if self._tf.executing_eagerly():
                # an eager program's variable holds its initial value now (no session run records it)
                self._recorder.record_eager(len(self._recorder.variables) - 1, variable)
        return variable

    def _patch_session_run(self) -> None:
        """Record initial values after every ``run``.

        ``BaseSession.run`` is the one method that ``Session``,
        ``InteractiveSession``, ``Tensor.eval`` and ``Operation.run`` all end up in
        (patching ``Session.run`` would miss ``InteractiveSession``).
        """
        from tensorflow.python.client.session import BaseSession

        original = BaseSession.run

        @functools.wraps(original)
        def run(session, *args, **kwargs):
            fetched = original(session, *args, **kwargs)
            if self._recorder is not None:
                self._recorder.record(session, original)
            return fetched

        BaseSession.run = run


class _Recorder:
    """The variables one script creates, in creation order over all its
    graphs and modules, and the initial value of each: its value in the session
    whose ``run`` first found it initialized, fetched right after that run.

    Fetching the variables themselves creates no op, so this also works on a
    finalized graph (MonitoredSession). ``run`` is the unpatched method, so
    recording does not recurse. A failed fetch costs about a millisecond: a
    variable still uninitialized after ``GIVE_UP`` runs of its graph is taken
    for one that is never initialized, and no longer tried.
    """

    GIVE_UP = 100

    def __init__(self, uninitialized: type[Exception]):
        self.variables: list = []
        self._values: dict[int, Any] = {}  # index in variables -> numpy value
        self._misses: dict[int, int] = {}  # index in variables -> failed fetches
        self._uninitialized = uninitialized

    def record(self, session, run) -> None:
        pending = [
            index
            for index, variable in enumerate(self.variables)
            if index not in self._values and self._misses.get(index, 0) < self.GIVE_UP and variable.graph is session.graph
        ]
        if not pending:
            return
        try:
            values = run(session, [self.variables[index] for index in pending])
        except self._uninitialized:
            # Some are not initialized yet: fetch one by one.
            values = [self._fetch(session, run, index) for index in pending]
        for index, value in zip(pending, values):
            if value is not None:
                self._values[index] = _array(value)

    def record_eager(self, index: int, variable) -> None:
        self._values[index] = _array(variable.numpy())

    def _fetch(self, session, run, index: int):
        try:
            return run(session, self.variables[index])
        except self._uninitialized:
            self._misses[index] = self._misses.get(index, 0) + 1
            return None

    def initial_values(self) -> list:
        """``[(name, shape, value or None, drawn, trainable)]`` in creation order (see
        ScriptResult); ``drawn``: the initial value may differ from run to run (a random op,
        a fed value or another variable's value reaches it), so the TF2 run's own value is
        not expected to equal it."""
        recorded = []
        for index, variable in enumerate(self.variables):
            value = self._values.get(index)
            shape = value.shape if value is not None else _static_shape(variable)
            recorded.append((variable.name, tuple(shape), value, _drawn(variable), bool(variable.trainable)))
        return recorded


def _drawn(variable) -> bool:
    """Does a random op, a fed value or a variable reach the variable's initial value? (True when unknown.)"""
    try:
        return drawn(variable.initial_value)
    except Exception:  # noqa: BLE001 - any variable the recorder cannot read back is taken as drawn
        return True


def _array(value):
    """A fetched value as an array (a string variable's scalar is fetched as ``bytes``)."""
    import numpy as np  # (the worker's: importing the package imports neither TensorFlow nor NumPy)

    return np.asarray(value)


def _static_shape(variable) -> tuple:
    shape = variable.shape
    return () if shape.rank is None else tuple(shape.as_list())
