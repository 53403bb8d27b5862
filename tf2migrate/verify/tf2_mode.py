"""TF2 semantics for the worker (imported in the subprocess only).

Plain eager TF2, except that the trainable variables the script creates get the
initial values the TF1 run recorded, matched by shape and creation order (see
_Injector). Random initializers thus
agree by construction instead of by seed luck (TF1 and TF2 draw differently).
tf2graph_mode builds TF2's graph mode on top of this.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict, deque
from typing import Any

from tf2migrate.verify.creators import hook_default_creators
from tf2migrate.verify.final_values import ScriptFinalValues
from tf2migrate.verify.records import Job, ScriptResult


class Tf2Mode:
    side = "tf2"

    def __init__(self, tf):
        self._tf = tf
        self._injector: _Injector | None = None  # set while a script runs
        hook_default_creators(self._intercept)
        self._final = ScriptFinalValues(tf.errors.FailedPreconditionError)
        self._hook_tf_function_creator()

    @contextlib.contextmanager
    def running(self, job: Job, result: ScriptResult):
        """Run the script with ``job.initial_values`` injected (``None``: the TF1
        run failed, so there is nothing to inject).

        The global seed is reset first: op determinism refuses unseeded random
        ops, and it makes each run reproducible.
        """
        self._tf.random.set_seed(0)
        # TF2's tensor equality, which a script before may have switched off for the process
        # (``tf.compat.v1.disable_tensor_equality()``): the next one would hash variables by identity
        self._tf.compat.v1.enable_tensor_equality()
        # eager TF2 keeps TF1's collections (the global step of get_or_create_global_step) in a
        # process-wide graph: a fresh one per script, or one script's step leaks into the next
        self._tf.compat.v1.reset_default_graph()
        self._final.start()
        try:
            if job.initial_values is None:
                yield
                return
            self._injector = _Injector(self._tf, job.initial_values)
            try:
                yield
            finally:
                result.messages.extend(self._injector.problems())
                self._injector = None
        finally:
            self._final.finish()

    def final_value(self, variable):
        """A variable's value when the last script ended (see final_values)."""
        return self._final.value(variable)

    def _intercept(self, create, **kwargs):
        """Every variable creation (see creators.py), through the injector while one is set."""
        variable = create(**kwargs) if self._injector is None else self._injector(create, **kwargs)
        self._final.created(variable)
        return variable

    def _hook_tf_function_creator(self) -> None:
        """Variables first created while a ``tf.function`` traces (Keras layers built on
        their first call, optimizer slots) never reach the default creators: the
        function's own creator makes an ``UnliftedInitializerVariable``, a module global
        looked up at each creation.  A subclass passes them through the injector too."""
        from tensorflow.python.eager.polymorphic_function import polymorphic_function

        traced_variable: Any = polymorphic_function.UnliftedInitializerVariable  # a base class only known at run time
        mode = self

        class InjectedVariable(traced_variable):
            def __init__(variable, **kwargs):
                if mode._injector is None:
                    super().__init__(**kwargs)
                    return

                def create(**chosen):
                    super(InjectedVariable, variable).__init__(**chosen)
                    return variable

                mode._injector(create, **kwargs)

        polymorphic_function.UnliftedInitializerVariable = InjectedVariable


def _same_start(initial, value) -> bool:
    """Is the TF2 variable's own initial value (a tensor) TF1's (a NumPy array), to float32's
    last digits?"""
    import numpy as np  # (the worker's: importing the package imports neither TensorFlow nor NumPy)

    own = np.asarray(initial.numpy())
    return own.shape == value.shape and bool(np.allclose(own, value, rtol=1e-6, atol=1e-7, equal_nan=True))


class _Injector:
    """A variable creator that replaces the ``initial_value`` of each trainable
    variable by a recorded TF1 value.

    The matching rule: the k-th trainable variable of shape S that TF2 creates
    takes the value of the k-th trainable variable of shape S that TF1 created
    (creation order over the whole run: every graph, module and model). Per
    shape rather than overall, so that variables of other shapes made in another
    order (a Keras layer built on first call, a helper called earlier) do not
    shift the match. A TF1 variable no session initialized keeps its TF2
    counterpart's own value.

    Replacing the initial value, rather than assigning after creation, works in
    graph mode too, where an ``assign`` would only build an op that never runs.
    """

    def __init__(self, tf, recorded: list):
        self._tf = tf
        self._recorded = recorded
        self._by_shape: dict[tuple | None, deque] = defaultdict(deque)
        for entry in recorded:
            self._by_shape[tuple(entry[1])].append(entry)
        self._created: list[str | None] = []  # names of the trainable variables created
        self._problems: list[str] = []

    def __call__(self, next_creator, **kwargs):
        if not self._trainable(kwargs):
            return next_creator(**kwargs)
        index = len(self._created)
        self._created.append(kwargs.get("name"))  # until the variable's own name is known
        kwargs["initial_value"], mismatch = self._initial_value(kwargs)
        variable = next_creator(**kwargs)
        self._created[index] = variable.name
        if mismatch:
            self._problems.append(f"trainable variable #{index} {variable.name!r} {mismatch}")
        return variable

    def _initial_value(self, kwargs: dict):
        """(initial value, None): the matching TF1 value as a constant of the
        variable's dtype (or the script's own value if TF1 never initialized its
        match); or (the script's own value, why no TF1 value matches).

        Built in init_scope, as the variable builds its own; the script's value
        is evaluated once, here, so an initializer function does not run twice.
        """
        with self._tf.init_scope():
            initial = kwargs["initial_value"]
            initial = self._tf.convert_to_tensor(initial() if callable(initial) else initial, dtype=kwargs.get("dtype"))
            shape = None if initial.shape.rank is None else tuple(initial.shape.as_list())  # not Dimensions (v1 shapes)
            matches = self._by_shape.get(shape)
            if not matches:
                return initial, (
                    f"has shape {shape}, but no TF1 trainable variable of that shape is left "
                    f"to match ({self._unmatched()}): its initial value was not injected"
                )
            name, _, value, drawn = matches.popleft()
            if value is None:
                return initial, None
            dtype = initial.dtype.base_dtype
            if not drawn and self._tf.executing_eagerly() and not _same_start(initial, value):
                # an initializer of the program's text alone (zeros, ones, constants, their
                # arithmetic) starts where TF1 started: injecting TF1's value would hide a
                # migration that changed it
                return initial, f"starts at a value other than TF1's {name!r}, whose initializer draws nothing"
            return self._tf.constant(value.astype(dtype.as_numpy_dtype), dtype=dtype), None

    def _unmatched(self, limit: int = 4) -> str:
        left = [f"{name!r} {shape}" for queue in self._by_shape.values() for name, shape, _, _ in queue]
        if not left:
            return "TF1 has none left"
        return "TF1 has left " + ", ".join(left[:limit]) + (f" and {len(left) - limit} more" if len(left) > limit else "")

    def _trainable(self, kwargs) -> bool:
        """Whether the variable will be trainable: unset means "unless ON_READ"."""
        trainable = kwargs.get("trainable")
        if trainable is None:
            return kwargs.get("synchronization") != self._tf.VariableSynchronization.ON_READ
        return trainable

    def problems(self) -> list[str]:
        """The shape mismatches, plus a count mismatch if there is one."""
        if len(self._created) != len(self._recorded):
            tf1_names = [name for name, _, _, _ in self._recorded]
            return self._problems + [
                f"TF2 created {len(self._created)} trainable variables {self._created}, "
                f"TF1 had {len(self._recorded)} {tf1_names}: initial values are "
                "injected in creation order per shape, so they cannot all match"
            ]
        return self._problems
