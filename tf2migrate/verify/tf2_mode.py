"""TF2 semantics for the worker (imported in the subprocess only).

Plain eager TF2, except that the trainable variables the script creates (and the
non-trainable ones whose value TF1 drew) get the initial values the TF1 run recorded,
matched by shape and creation order (see _Injector). Random initializers thus agree by
construction instead of by seed luck (TF1 and TF2 draw differently); TF2's own initial
values are compared with TF1's all the same (starts.py), so that the injection cannot
hide a migrated initializer that differs or fails.
tf2graph_mode builds TF2's graph mode on top of this.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict, deque
from typing import Any

from tf2migrate.verify.creators import hook_default_creators
from tf2migrate.verify.final_values import ScriptFinalValues
from tf2migrate.verify.records import Job, ScriptResult
from tf2migrate.verify.starts import drawn, same_values, unguarded_reads, unlike


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
                result.starts_checked = self._injector.starts_checked
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


class _Start:
    """A TF2 variable's own initial value, kept to be compared with TF1's at the end: an
    eager one when the variable is made, a graph one when its initializer runs."""

    def __init__(self, label: str, tf1_name: str, value, drawn: bool):
        self.label = label  # "trainable variable #3 'dense/kernel:0'"
        self.tf1_name, self.value, self.drawn = tf1_name, value, drawn
        self.own: Any = None

    def keep(self, own):
        import numpy as np  # (the worker's: importing the package imports neither TensorFlow nor NumPy)

        if self.own is None:
            self.own = np.array(own)  # (a copy: NumPy's buffer of a graph run is reused)
        return True

    def problem(self) -> str | None:
        if self.own is None:  # (a graph variable whose initializer never ran)
            return None
        why = unlike(self.value, self.own) if self.drawn else None if same_values(self.own, self.value) else "is not TF1's"
        return (
            None if why is None else f"{self.label}: its own initial value {why}, TF1's being {self.tf1_name!r}'s (injected in its place)"
        )


def _not_one_number(value) -> bool:
    """A draw is never all one number (TF1's drawn flag is "unknown" for an eager variable, and
    an eager TF2 value's ops are gone): zeros, ones and fills are taken for constants."""
    import numpy as np

    value = np.asarray(value)
    return value.size > 1 and bool((value != value.flat[0]).any())


class _Injector:
    """A variable creator that replaces the ``initial_value`` of each trainable
    variable by a recorded TF1 value, and of each non-trainable one whose TF1 value
    was drawn (a fixed random projection); TF2's own initial value is still computed,
    and compared with TF1's (see _Start and starts.py).

    The matching rule: the k-th trainable variable of shape S that TF2 creates
    takes the value of the k-th trainable variable of shape S that TF1 created
    (creation order over the whole run: every graph, module and model). Per
    shape rather than overall, so that variables of other shapes made in another
    order (a Keras layer built on first call, a helper called earlier) do not
    shift the match. A TF1 variable no session initialized keeps its TF2
    counterpart's own value. Non-trainable variables match alike, among those that
    draw and are of a floating type: the optimizers' slots and steps, the moving
    statistics and Keras' seeds, which TF1 and TF2 make differently, start from
    constants and are left alone. Both sides must pick them by one test, or a variable
    one side picks takes the value of the next one of its shape the other side picked (a
    kept graph's moving-average shadow of a constant bias took the shadow of a uniform
    draw). In a graph TF2 sees the ops and not the values: a random op, a fed value or a
    variable reaches the value, TF1's own ``drawn`` flag. In eager code it sees the value
    and not the ops: a value not all one number (see _fixed_queues).

    Replacing the initial value, rather than assigning after creation, works in
    graph mode too, where an ``assign`` would only build an op that never runs;
    there the replacement depends on the variable's own initial value (guarded as
    TensorFlow guards it), so that an initializer that fails still fails.
    """

    def __init__(self, tf, recorded: list):
        self._tf = tf
        self._trainables = [entry for entry in recorded if entry[4]]
        self._by_shape: dict[tuple | None, deque] = defaultdict(deque)
        for entry in self._trainables:
            self._by_shape[tuple(entry[1])].append(entry)
        self._drawn_fixed = [entry for entry in recorded if not entry[4] and entry[3]]  # TF1's drawn non-trainables
        self._fixed: dict[tuple | None, deque] | None = None  # those TF2 may pick: see _fixed_queues
        self._created: list[str | None] = []  # names of the trainable variables created
        self._problems: list[str] = []
        self._starts: list[_Start] = []

    def __call__(self, next_creator, **kwargs):
        trainable = self._trainable(kwargs)
        if not trainable and not self._drawn_fixed:
            return next_creator(**kwargs)
        index = len(self._created)
        if trainable:
            self._created.append(kwargs.get("name"))  # until the variable's own name is known
        start: list[_Start] = []
        kwargs["initial_value"], mismatch = self._initial_value(kwargs, trainable, start)
        variable = next_creator(**kwargs)
        label = f"trainable variable #{index} {variable.name!r}" if trainable else f"non-trainable variable {variable.name!r}"
        if trainable:
            self._created[index] = variable.name
        if mismatch:
            self._problems.append(f"{label} {mismatch}")
        for kept in start:
            kept.label = label
            self._starts.append(kept)
        return variable

    def _initial_value(self, kwargs: dict, trainable: bool, start: list):
        """(initial value, None): the matching TF1 value as a constant of the
        variable's dtype (or the script's own value if TF1 never initialized its
        match, or a non-trainable one has none); or (the script's own value, why no
        TF1 value matches). ``start`` gets the _Start that compares TF2's own value.

        Built in init_scope, as the variable builds its own; the script's value
        is evaluated once, here, so an initializer function does not run twice.
        """
        with self._tf.init_scope():
            initial = kwargs["initial_value"]
            initial = self._tf.convert_to_tensor(initial() if callable(initial) else initial, dtype=kwargs.get("dtype"))
            shape = None if initial.shape.rank is None else tuple(initial.shape.as_list())  # not Dimensions (v1 shapes)
            matches = (self._by_shape if trainable else self._fixed_queues()).get(shape)
            if not trainable:
                if not matches or not initial.dtype.is_floating or not self._draws(initial):
                    return initial, None
            elif not matches:
                return initial, (
                    f"has shape {shape}, but no TF1 trainable variable of that shape is left "
                    f"to match ({self._unmatched()}): its initial value was not injected"
                )
            name, _, value, drawn, _ = matches.popleft()
            if value is None:
                return initial, None
            dtype = initial.dtype.base_dtype
            injected = self._tf.constant(value.astype(dtype.as_numpy_dtype), dtype=dtype)
            start.append(_Start("", name, value, drawn))
            if self._tf.executing_eagerly():
                start[0].keep(initial.numpy())
                if not drawn and not same_values(start[0].own, value):
                    # an initializer of the program's text alone (zeros, ones, constants, their
                    # arithmetic) starts where TF1 started: injecting TF1's value would hide a
                    # migration that changed it
                    start.clear()
                    return initial, f"starts at a value other than TF1's {name!r}, whose initializer draws nothing"
                return injected, None
            # a graph's: the variable's own initializer runs first, as TensorFlow would run it
            # (reading other variables through their initialized values), and its value is kept
            from tensorflow.python.ops import variables

            guarded = variables._try_guard_against_uninitialized_dependencies(kwargs.get("name") or "Variable", initial)
            kept = self._tf.numpy_function(start[0].keep, [guarded], self._tf.bool)
            with self._tf.control_dependencies([kept]):
                injected = self._tf.identity(injected)
            read = unguarded_reads(guarded)
            if read:
                # whether it fails depends on the order the initializers run in, which the
                # injected graph does not keep: said here whatever the order
                return injected, (
                    f"has an initial value reading {', '.join(map(repr, read))} directly (a resource variable's "
                    "value, which no initialized value guards as TF1's reference variables' reads are): "
                    "an initializer may run before that variable's (FailedPreconditionError)"
                )
            return injected, None

    def _fixed_queues(self) -> dict:
        """TF1's drawn non-trainable variables of a floating type by shape, picked by the test
        TF2 applies to its own (_draws) in the mode of its first non-trainable variable: in a
        graph, TF1's ``drawn`` flag alone (a shadow of a constant, a variable's read, is drawn
        on both sides; its value, all one number, is TF1's to inject all the same); in eager
        code, also a value not all one number (all TF2 can see; TF1's eager variables are all
        flagged drawn: their ops are gone). A TF1 variable no session initialized has no value
        to test, in a graph it keeps its place and its match its own value."""
        if self._fixed is None:
            eager = self._tf.executing_eagerly()
            self._fixed = defaultdict(deque)
            for entry in self._drawn_fixed:
                value = entry[2]
                if value is None:
                    picked = not eager
                else:
                    picked = value.dtype.kind == "f" and (not eager or _not_one_number(value))
                if picked:
                    self._fixed[tuple(entry[1])].append(entry)
        return self._fixed

    def _draws(self, initial) -> bool:
        """Does the non-trainable variable's own initial value draw? (see the class)"""
        if not self._tf.executing_eagerly():
            return drawn(initial)
        return _not_one_number(initial.numpy())

    def _unmatched(self, limit: int = 4) -> str:
        left = [f"{name!r} {shape}" for queue in self._by_shape.values() for name, shape, _, _, _ in queue]
        if not left:
            return "TF1 has none left"
        return "TF1 has left " + ", ".join(left[:limit]) + (f" and {len(left) - limit} more" if len(left) > limit else "")

    def _trainable(self, kwargs) -> bool:
        """Whether the variable will be trainable: unset means "unless ON_READ"."""
        trainable = kwargs.get("trainable")
        if trainable is None:
            return kwargs.get("synchronization") != self._tf.VariableSynchronization.ON_READ
        return trainable

    @property
    def starts_checked(self) -> int:
        """How many TF2 variables' own initial values were compared with TF1's."""
        return sum(start.own is not None for start in self._starts)

    def problems(self) -> list[str]:
        """The shape mismatches, the initial values unlike TF1's, plus a count mismatch if
        there is one."""
        problems = self._problems + [problem for start in self._starts if (problem := start.problem())]
        if len(self._created) != len(self._trainables):
            tf1_names = [entry[0] for entry in self._trainables]
            return problems + [
                f"TF2 created {len(self._created)} trainable variables {self._created}, "
                f"TF1 had {len(self._trainables)} {tf1_names}: initial values are "
                "injected in creation order per shape, so they cannot all match"
            ]
        return problems
