"""Plain data exchanged (pickled) between the worker subprocesses and the parent.

This module imports neither TensorFlow nor numpy, so the parent can use it; the
numpy arrays inside a :class:`Leaf` are only unpickled (and numpy imported) when
the parent reads a worker's results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Kinds of :class:`Leaf`. Only ``"number"`` leaves are comparable; the others
#: exist so that the comparison can say *why* a TF2 value is not a number.
NUMBER, TENSOR, NONE, OTHER = "number", "tensor", "none", "other"


@dataclass
class Leaf:
    """One non-container value a script bound to a global (or nested in one)."""

    kind: str
    type_name: str
    value: Any = None  # a numpy array when kind == NUMBER, else None
    #: the value a variable held when the script ended (final_values): compared when the
    #: migration binds the name too, not required of it (graph-only names may vanish)
    variable: bool = False


#: A global's value: a leaf, a list (from a list or tuple) or a dict of values.
Encoded = Leaf | list | dict


@dataclass
class Job:
    """One program for a worker; ``initial_values`` only for TF2 jobs (see tf2_mode).

    Without ``driver`` the program runs as a script and its globals are compared;
    with one, it is imported and the driver's ``drive`` says the values (see driver.py).
    """

    script: str
    initial_values: list | None = None
    driver: str | None = None


@dataclass
class ScriptResult:
    """What a worker learned from running one script."""

    script: str
    output: str = ""  # the script's stdout and stderr, interleaved
    error: str | None = None  # traceback text if the script failed
    values: dict[str, Encoded] = field(default_factory=dict)
    #: tf1 mode: ``[(name, shape, array or None, drawn, trainable)]``, one per variable in
    #: creation order: its value after the first session run that initialized it
    #: (None if none did). See tf1_mode.
    initial_values: list = field(default_factory=list)
    #: tf2 mode: problems injecting the TF1 initial values, initial values unlike TF1's.
    messages: list[str] = field(default_factory=list)
    #: tf2 mode: how many variables' own initial values were compared with TF1's.
    starts_checked: int = 0


def of_variables(value: Encoded) -> bool:
    """True if every leaf of ``value`` is a variable's value (see Leaf.variable)."""
    if isinstance(value, Leaf):
        return value.variable
    items = list(value.values() if isinstance(value, dict) else value)
    return bool(items) and all(of_variables(item) for item in items)


def is_numeric(value: Encoded) -> bool:
    """True if every leaf of ``value`` is a number (empty containers qualify)."""
    if isinstance(value, Leaf):
        return value.kind == NUMBER
    items = value.values() if isinstance(value, dict) else value
    return all(is_numeric(item) for item in items)
