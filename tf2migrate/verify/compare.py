"""Compare the values a TF1 script and its TF2 migration bound to globals.

The TF1 run is the reference: every global it bound to a numeric value must be
bound in the TF2 run to a value of the same structure, shape and dtype, and (close
to) the same numbers. Names only the TF2 run binds are ignored, and so are TF1 variables
(the values they held at the end) whose names the migration no longer binds. numpy is imported
lazily, so importing this module stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard

from tf2migrate.verify.records import NONE, NUMBER, TENSOR, Encoded, Leaf, is_numeric, of_variables

RTOL, ATOL = 1e-5, 1e-6


@dataclass
class Row:
    """One compared value (a global, or an element of a list/dict global)."""

    name: str
    shape: tuple | None  # the TF1 shape; None for a structure mismatch
    max_abs_diff: float | None  # None when the values could not be compared
    status: str  # "ok", or why the values do not match

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def compare_values(tf1: dict[str, Encoded], tf2: dict[str, Encoded]) -> list[Row]:
    """One row per numeric TF1 value (per element for lists and dicts)."""
    rows: list[Row] = []
    for name, expected in tf1.items():
        if not is_numeric(expected):
            continue
        if name not in tf2:
            if not of_variables(expected):  # a variable's name may go with the graph code
                rows.append(Row(name, _shape(expected), None, "missing in TF2"))
        else:
            rows.extend(_compare(name, expected, tf2[name]))
    return rows


def _compare(path: str, expected: Encoded, actual: Encoded) -> list[Row]:
    # A sequence is one array leaf if numpy could stack it (see worker._encode);
    # if only one side could be stacked, compare element by element.
    if isinstance(actual, list) and _is_stacked(expected):
        expected = _unstack(expected)
    elif isinstance(expected, list) and _is_stacked(actual):
        actual = _unstack(actual)

    if isinstance(expected, Leaf):
        if isinstance(actual, Leaf):
            return [_compare_leaf(path, expected, actual)]
        return [Row(path, _shape(expected), None, f"TF2 value is {_describe(actual)}")]
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [Row(path, None, None, f"TF2 value is {_describe(actual)}, TF1 gave a list")]
        if len(actual) != len(expected):
            return [Row(path, None, None, f"TF2 list has {len(actual)} items, TF1 {len(expected)}")]
        pairs = [(f"{path}[{index}]", item, actual[index]) for index, item in enumerate(expected)]
    else:
        if not isinstance(actual, dict):
            return [Row(path, None, None, f"TF2 value is {_describe(actual)}, TF1 gave a dict")]
        missing = [key for key in expected if key not in actual]
        if missing:
            return [Row(path, None, None, f"TF2 dict lacks the keys {missing}")]
        pairs = [(f"{path}[{key!r}]", item, actual[key]) for key, item in expected.items()]
    return [row for name, item, other in pairs for row in _compare(name, item, other)]


def _compare_leaf(path: str, expected: Leaf, actual: Leaf) -> Row:
    import numpy as np

    a, shape = expected.value, expected.value.shape
    if actual.kind == TENSOR:
        tf1 = "NumPy" if expected.type_name.startswith("numpy.") else f"a {expected.type_name}"
        return Row(path, shape, None, f"TF2 value is a {actual.type_name}, TF1 gave {tf1}")
    if actual.kind == NONE:
        return Row(path, shape, None, "TF2 value is None (a missing gradient?)")
    if actual.kind != NUMBER:
        return Row(path, shape, None, f"TF2 value is a {actual.type_name}, not a number")
    b = actual.value
    if b.shape != shape:
        return Row(path, shape, None, f"TF2 shape is {b.shape}")
    diff = _max_abs_diff(a, b)
    if a.dtype != b.dtype:
        # Equal numbers in another dtype are still another result: a float64 loss where
        # TF1 computed float32 (a placeholder's dtype lost), int64 for int32 steps.
        return Row(path, shape, diff, f"TF2 dtype is {b.dtype}, TF1 gave {a.dtype}")
    if a.dtype.kind in "biu":
        ok, how = np.array_equal(a, b), "integer values differ"
    else:
        ok = np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)
        how = f"values differ beyond rtol={RTOL:g}, atol={ATOL:g}"
    return Row(path, shape, diff, "ok" if ok else how)


def _max_abs_diff(a, b) -> float:
    """max |a - b|, counting equal infinities and NaN/NaN pairs as 0."""
    import numpy as np

    if a.size == 0:
        return 0.0
    dtype = np.result_type(a.dtype, b.dtype, np.float64)
    a, b = a.astype(dtype), b.astype(dtype)
    with np.errstate(invalid="ignore"):
        diff = np.where((a == b) | (np.isnan(a) & np.isnan(b)), 0.0, np.abs(a - b))
    return float(diff.max())


def _is_stacked(value: Encoded) -> TypeGuard[Leaf]:
    return isinstance(value, Leaf) and value.kind == NUMBER and value.type_name in ("list", "tuple")


def _unstack(value: Leaf) -> list[Leaf]:
    return [Leaf(NUMBER, f"{value.type_name} item", item) for item in value.value]


def _shape(value: Encoded) -> tuple | None:
    return value.value.shape if isinstance(value, Leaf) else None


def _describe(value: Encoded) -> str:
    if isinstance(value, Leaf):
        return "None" if value.kind == NONE else f"a {value.type_name}"
    return f"a {type(value).__name__}"
