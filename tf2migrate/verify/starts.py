"""Initial values: which ones are drawn, and whether TF2's own start is TF1's (imported in
the worker only; NumPy is imported where it is used).

The TF2 run is given TF1's drawn initial values (tf2_mode's injector), so that both sides
compute from the same numbers; its own initializer still runs and its value is kept, so
that a migration that changed the initializer is caught rather than hidden by the
injection. A value of the program's text alone (zeros, a constant) must be TF1's exactly;
a drawn one cannot be (TF1 and TF2 draw other numbers from the same seed), so it must be
of TF1's dtype and look drawn from TF1's distribution: a two-sample test of the two
samples, strict enough that a wrong scale, offset or family over a few hundred values is
caught, loose enough that two draws of one initializer never fail it (below).
"""

from __future__ import annotations

import math

# ops whose value is not the program's text alone: random draws, fed values, variables'
# states (an initial value read off another variable, itself perhaps drawn)
_DRAWN_OPS = ("Random", "TruncatedNormal", "Multinomial", "Shuffle", "Placeholder", "Variable", "VarHandle", "Stateless")

#: Above this many values a sample is thinned (every k-th value): the tests stay cheap on
#: an embedding table and are already sharp there.
_MAX_SAMPLE = 100_000

#: The tests' critical values, in standard errors. Kolmogorov-Smirnov's ``c`` of 3 is a
#: false alarm rate of 2·exp(-2·9) ≈ 3e-8 per variable; 6 standard errors of the difference
#: of the log scales and of the means, about 2e-9 for a normal statistic (measured: no false
#: alarm in 10^5 pairs of 30 normal or uniform values): thousands of variables over the
#: fixtures never fail by chance, and the scale test still tells a factor 3 over 30 values,
#: 21% over 1,000. The scale and mean tests need ``_MIN_SIZE`` values for
#: their standard errors to hold; a smaller sample has the distance alone, which cannot fail
#: below about 20 values.
_KS_C, _SE, _MIN_SIZE = 3.0, 6.0, 30


def drawn(tensor) -> bool:
    """Does an op of ``_DRAWN_OPS`` reach the graph tensor ``tensor``?"""
    seen = set()
    stack = [tensor.op]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if any(kind in op.type for kind in _DRAWN_OPS):
            return True
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return False


def unguarded_reads(tensor) -> list[str]:
    """The names of the resource variables whose value the graph tensor ``tensor`` reads
    outright: not inside a conditional (``initialized_value()``'s, which reads the
    variable only once it is initialized), nor through a variable op TensorFlow guards."""
    names, seen, stack = [], set(), [tensor.op]
    while stack:
        op = stack.pop()
        if op.name in seen or op.type in ("If", "StatelessIf") or op._get_control_flow_context() is not None:
            continue
        seen.add(op.name)
        if op.type == "ReadVariableOp" and op.inputs[0].op.type == "VarHandleOp":
            names.append(op.inputs[0].op.name)
            continue
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return sorted(set(names))


def same_values(own, value) -> bool:
    """Is TF2's own initial value (an array) TF1's (an array), to float32's last digits?"""
    import numpy as np

    own, value = np.asarray(own), np.asarray(value)
    if own.shape != value.shape:
        return False
    if own.dtype.kind not in "biufc" or value.dtype.kind not in "biufc":
        return bool(np.array_equal(own, value))  # (strings)
    return bool(np.allclose(own, value, rtol=1e-6, atol=1e-7, equal_nan=True))


def unlike(value, own) -> str | None:
    """Why TF2's own drawn initial value ``own`` cannot be a draw of TF1's initializer,
    whose draw was ``value`` (arrays of one shape); None when it can."""
    import numpy as np

    value, own = np.asarray(value), np.asarray(own)
    if own.dtype != value.dtype:
        return f"is of dtype {own.dtype.name}, TF1's of {value.dtype.name}"
    if value.dtype.kind not in "biuf" or value.size == 0 or same_values(own, value):
        return None
    a, b = (_sample(x.astype(np.float64)) for x in (value, own))
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return None  # (a drawn NaN or inf: nothing the tests can weigh)
    n, m = a.size, b.size
    distance = _ks_distance(a, b)
    limit = _KS_C * math.sqrt((n + m) / (n * m))
    why = []
    if distance > limit:
        why.append(f"Kolmogorov-Smirnov distance {distance:.3g} > {limit:.3g}")
    if min(n, m) < _MIN_SIZE:
        return _verdict(why, n, m)
    # (the scale and mean tests tell a wrong scale over fewer values than the distance)
    rms_a, rms_b = float(np.sqrt(np.mean(a * a))), float(np.sqrt(np.mean(b * b)))
    if (rms_a == 0) != (rms_b == 0) or (rms_a and rms_b and abs(math.log(rms_b / rms_a)) > _SE / math.sqrt(min(n, m))):
        why.append(f"root mean square {rms_b:.3g}, TF1's {rms_a:.3g}")
    spread = math.sqrt((float(a.var()) + float(b.var())) / min(n, m))
    if abs(float(a.mean()) - float(b.mean())) > _SE * spread + 1e-12:
        why.append(f"mean {float(b.mean()):.3g}, TF1's {float(a.mean()):.3g}")
    return _verdict(why, n, m)


def _verdict(why: list[str], n: int, m: int) -> str | None:
    return f"is not drawn as TF1's was ({'; '.join(why)}; over {m} and {n} values)" if why else None


def _sample(x):
    flat = x.ravel()
    return flat[:: math.ceil(flat.size / _MAX_SAMPLE)] if flat.size > _MAX_SAMPLE else flat


def _ks_distance(a, b) -> float:
    """The two-sample Kolmogorov-Smirnov statistic: the largest gap between the two
    empirical distribution functions."""
    import numpy as np

    a, b = np.sort(a), np.sort(b)
    points = np.concatenate([a, b])
    gap = np.searchsorted(a, points, side="right") / a.size - np.searchsorted(b, points, side="right") / b.size
    return float(np.max(np.abs(gap)))
