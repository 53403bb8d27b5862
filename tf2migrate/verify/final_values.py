"""The values a script's graph variables hold when it ends (imported in the worker only).

A TF1 script binds its variables to globals (``W = tf.Variable(...)``), but what they
hold lives in a session, so a global that is a graph variable says nothing comparable —
and a migration that trained, reset or skipped a variable otherwise than TF1 went
unseen when the script printed the variable instead of binding its value.  Each graph
variable's value is therefore read from the session that last ran its graph: when that
session closes (``with tf.Session() as sess:`` closes it before the script's end) and,
for sessions still open, when the script ends.  An eager variable (a TF2 migration's)
is read directly; one a TF1 script made after ``tf.enable_eager_execution()`` is read
when the script ends, since the TF1 worker then switches the process back to graphs
and ``numpy()`` is no longer available.  A variable no open session had initialized has no value, as before;
nor has one that several sessions initialized (each held its own copy).
"""

from __future__ import annotations

import functools
from typing import Any


class FinalValues:
    """One script's graph variables, the sessions that ran their graphs, and the values
    read from those sessions (by the variable's id)."""

    def __init__(self, uninitialized: type[Exception]) -> None:
        self._variables: list = []
        self._sessions: list = []
        self._values: dict[int, Any] = {}
        self._holder: dict[int, int] = {}  # variable → the session its value was read from
        self._ambiguous: set[int] = set()  # variables several sessions held
        self._uninitialized = uninitialized

    def created(self, variable) -> None:
        self._variables.append(variable)

    def ran(self, session) -> None:
        if not any(known is session for known in self._sessions):
            self._sessions.append(session)

    def read(self, session, run) -> None:
        """Read the values of the variables of ``session``'s graph (``run`` is the
        unpatched ``BaseSession.run``); one at a time, as some may be uninitialized."""
        for variable in self._variables:
            if getattr(variable, "graph", None) is not session.graph:
                continue
            try:
                value = run(session, variable)
            except self._uninitialized:
                continue
            except Exception:  # noqa: BLE001 - a value that cannot be read is not compared, as before
                continue
            if self._holder.setdefault(id(variable), id(session)) != id(session):
                # each session held its own copy: which one the migration's single
                # variable stands for is not known
                self._ambiguous.add(id(variable))
            self._values[id(variable)] = value

    def finish(self, run) -> None:
        """Read what the sessions still open hold, and what the eager variables hold."""
        for variable in self._variables:
            if not getattr(variable, "_in_graph_mode", True):
                self._values[id(variable)] = variable.numpy()
        for session in self._sessions:
            if not session._closed:  # noqa: SLF001 - BaseSession has no public "is closed"
                self.read(session, run)
        self._sessions.clear()

    def value(self, variable):
        """The variable's value at the end (None if none was read)."""
        if getattr(variable, "_in_graph_mode", True):
            return None if id(variable) in self._ambiguous else self._values.get(id(variable))
        return self._values[id(variable)] if id(variable) in self._values else variable.numpy()


class ScriptFinalValues:
    """What a worker mode keeps of final values: the running (or last) script's
    :class:`FinalValues`, started and finished around each script, with the sessions
    patched once (:func:`patch_sessions`) to feed it."""

    def __init__(self, uninitialized: type[Exception]) -> None:
        self._uninitialized = uninitialized
        self._final: FinalValues | None = None
        self._tracking = False
        #: ``BaseSession.run`` as it was: reads through it are not noted as the script's runs
        self.unpatched_run = patch_sessions(lambda: self._final if self._tracking else None)

    def start(self) -> None:
        self._final, self._tracking = FinalValues(self._uninitialized), True

    def finish(self) -> None:
        """Read what the script's open sessions hold, and stop noting runs."""
        if self._final is not None:
            self._final.finish(self.unpatched_run)
        self._tracking = False

    def created(self, variable) -> None:
        if self._tracking and self._final is not None:
            self._final.created(variable)

    def value(self, variable):
        """A variable's value when the last script ended (None if none was read)."""
        return self._final.value(variable) if self._final is not None else None


def patch_sessions(current) -> Any:
    """Make ``BaseSession.run`` note its session and ``close`` read the variables first,
    into ``current()`` (the running script's :class:`FinalValues`, or None between
    scripts); return the unpatched ``run``."""
    from tensorflow.python.client.session import BaseSession

    run, close = BaseSession.run, BaseSession.close

    @functools.wraps(run)
    def noting_run(session, *args, **kwargs):
        tracker = current()
        if tracker is not None:
            tracker.ran(session)
        return run(session, *args, **kwargs)

    @functools.wraps(close)
    def reading_close(session):
        tracker = current()
        if tracker is not None and not session._closed:  # noqa: SLF001
            tracker.read(session, run)
        close(session)

    BaseSession.run, BaseSession.close = noting_run, reading_close
    return run
