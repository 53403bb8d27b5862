"""TF2 semantics for the worker (imported in the subprocess only).

Plain eager TF2, except that the trainable variables the script creates get the
initial values the TF1 run recorded, in creation order. Random initializers thus
agree by construction instead of by seed luck (TF1 and TF2 draw differently).
"""

from __future__ import annotations

import contextlib

from tf2migrate.verify.records import Job, ScriptResult


class Tf2Mode:
    def __init__(self, tf):
        self._tf = tf

    @contextlib.contextmanager
    def running(self, job: Job, result: ScriptResult):
        """Run the script under a variable creator injecting ``job.initial_values``
        (``None``: the TF1 run failed, so there is nothing to inject).

        The global seed is reset first: op determinism refuses unseeded random
        ops, and it makes each run reproducible.
        """
        self._tf.random.set_seed(0)
        if job.initial_values is None:
            yield
            return
        injector = _Injector(self._tf, job.initial_values)
        try:
            with self._tf.variable_creator_scope(injector):
                yield
        finally:
            result.messages.extend(injector.problems())


class _Injector:
    """A ``variable_creator_scope`` creator: every creation of a ``tf.Variable``
    (module-level ones, Keras layer weights, ...) passes through it."""

    def __init__(self, tf, recorded: list):
        self._tf = tf
        self._recorded = recorded
        self._created: list[str] = []  # names of the trainable variables created
        self._problems: list[str] = []

    def __call__(self, next_creator, **kwargs):
        variable = next_creator(**kwargs)
        if not variable.trainable:
            return variable
        index = len(self._created)
        self._created.append(variable.name)
        if index < len(self._recorded):
            name, shape, value = self._recorded[index]
            if tuple(variable.shape) != tuple(shape):
                self._problems.append(
                    f"trainable variable #{index} {variable.name!r} has shape "
                    f"{tuple(variable.shape)}, but TF1's {name!r} has {tuple(shape)}: "
                    "its initial value was not injected"
                )
            else:
                # init_scope: if created while tracing a tf.function, assign
                # once, eagerly, rather than on every call of the function.
                with self._tf.init_scope():
                    variable.assign(value.astype(variable.dtype.as_numpy_dtype))
        return variable

    def problems(self) -> list[str]:
        """The shape mismatches, plus a count mismatch if there is one."""
        if len(self._created) != len(self._recorded):
            tf1_names = [name for name, _, _ in self._recorded]
            return self._problems + [
                f"TF2 created {len(self._created)} trainable variables {self._created}, "
                f"TF1 had {len(self._recorded)} {tf1_names}: initial values are "
                "injected in creation order, so they cannot all match"
            ]
        return self._problems
