"""Compare TF1's optimizers with the Keras optimizers tf2migrate emits, on identical gradients.

    python benchmarks/tf1_optimizer_steps.py [--steps 50] [--only Adam,RMSProp]

For each converted optimizer (several hyperparameter settings: defaults, Momentum with
and without Nesterov, RMSProp centered with momentum, Ftrl with l1/l2/shrinkage…), each
variable dtype (float32, float64) and each gradient kind (dense; sparse: a
``tf.IndexedSlices`` over a table, duplicate rows included), the same seeded gradient
sequence (magnitudes from 1e-12 to 10, both signs) is applied for ``--steps`` steps by
TF1's ``tf.compat.v1.train.*Optimizer`` (graph mode, its own process) and by the
optimizer tf2migrate emits for it (``KERAS_OPTIMIZERS``: the Keras class with TF1's
defaults written out, the file helper where there is one; a sparse gradient passed as it
is, as the generated train step passes it), applied by ``apply_gradients`` inside a
``tf.function`` as the generated train step does (eager, Keras 3: its own process,
without ``TF_USE_LEGACY_KERAS``, as the fixtures' execution runs it).

One line per case: the first step at which the variables differ, the largest difference
after step 1 and after the last step (absolute, and in ulps of the variable's dtype).
Exit status 1 if any case differs.  Needs TensorFlow; the comparison itself is NumPy.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

# (TF1 class, keyword arguments as TF1 takes them)
CASES = [
    ("GradientDescentOptimizer", {"learning_rate": 0.1}),
    ("AdamOptimizer", {}),
    ("AdamOptimizer", {"learning_rate": 0.01, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6}),
    ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.9}),
    ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.9, "use_nesterov": True}),
    ("RMSPropOptimizer", {"learning_rate": 0.01}),
    ("RMSPropOptimizer", {"learning_rate": 0.01, "decay": 0.8, "momentum": 0.5, "centered": True}),
    ("AdagradOptimizer", {"learning_rate": 0.1}),
    ("AdadeltaOptimizer", {"learning_rate": 1.0}),
    ("FtrlOptimizer", {"learning_rate": 0.1}),
    (
        "FtrlOptimizer",
        {
            "learning_rate": 0.1,
            "learning_rate_power": -0.6,
            "initial_accumulator_value": 0.2,
            "l1_regularization_strength": 0.01,
            "l2_regularization_strength": 0.02,
            "l2_shrinkage_regularization_strength": 0.03,
        },
    ),
    ("FtrlOptimizer", {"learning_rate": 0.1, "l2_regularization_strength": 0.01, "beta": 0.5}),
    ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.0}),
    ("RMSPropOptimizer", {"learning_rate": 0.01, "momentum": 0.9}),
]
DTYPES = ["float32", "float64"]
KINDS = ["dense", "sparse"]
DENSE_SHAPE = (1000,)
TABLE_SHAPE = (40, 5)
LOOKUPS = 12  # rows looked up per step, drawn with replacement: duplicates included


def _magnitudes(rng, shape):
    """Gradients from 1e-12 to 10 in magnitude, both signs."""
    return rng.choice([-1.0, 1.0], size=shape) * 10.0 ** rng.uniform(-12, 1, size=shape)


def gradients(steps: int, kind: str):
    rng = np.random.default_rng(1234)
    if kind == "dense":
        init = rng.normal(size=DENSE_SHAPE)
        return init, [(None, _magnitudes(rng, DENSE_SHAPE)) for _ in range(steps)]
    init = rng.normal(size=TABLE_SHAPE)
    sequence = []
    for _ in range(steps):
        indices = rng.integers(0, TABLE_SHAPE[0], size=LOOKUPS)
        sequence.append((indices, _magnitudes(rng, (LOOKUPS, TABLE_SHAPE[1]))))
    return init, sequence


def run_tf1(cases, steps):
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    results = {}
    for key, (name, kwargs, dtype, kind) in cases.items():
        init, sequence = gradients(steps, kind)
        graph = tf.Graph()
        with graph.as_default():
            var = tf.Variable(init.astype(dtype))
            values = tf.placeholder(dtype)
            if kind == "dense":
                grad = values
            else:
                indices = tf.placeholder(tf.int64, [None])
                grad = tf.IndexedSlices(values, indices, tf.constant(TABLE_SHAPE, tf.int64))
            train = getattr(tf.train, name)(**kwargs).apply_gradients([(grad, var)])
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                trace = []
                for rows, g in sequence:
                    feed = {values: g.astype(dtype)}
                    if kind == "sparse":
                        feed[indices] = rows
                    sess.run(train, feed)
                    trace.append(sess.run(var))
        results[key] = np.array(trace)
    return results


def keras_expression(name: str, kwargs: dict) -> tuple[str, str]:
    """The optimizer tf2migrate emits for ``tf.train.<name>(**kwargs)``, and its helper."""
    from tf2migrate.rewrites.keras_optimizers import KERAS_OPTIMIZERS

    keras_class, _, renames, defaults, helper = KERAS_OPTIMIZERS[f"train.{name}"]
    parts = [f"{renames.get(n, n)}={v!r}" for n, v in kwargs.items()]
    parts += [f"{n}={v}" for n, v in defaults.items() if n not in kwargs]
    constructor = keras_class if helper is not None else f"tf.keras.optimizers.{keras_class}"
    return f"{constructor}({', '.join(parts)})", helper or ""


def run_tf2(cases, steps):
    import tensorflow as tf

    results = {}
    for key, (name, kwargs, dtype, kind) in cases.items():
        init, sequence = gradients(steps, kind)
        expression, helper = keras_expression(name, kwargs)
        namespace = {"tf": tf}
        exec(helper, namespace)
        optimizer = eval(expression, namespace)
        var = tf.Variable(init.astype(dtype))

        @tf.function
        def step(rows, g, optimizer=optimizer, var=var):
            if rows is not None:  # passed as it is, as the generated train step passes it
                g = tf.IndexedSlices(g, rows, tf.constant(TABLE_SHAPE, tf.int64))
            optimizer.apply_gradients([(g, var)])

        trace = []
        for rows, g in sequence:
            step(None if rows is None else tf.constant(rows, tf.int64), tf.constant(g.astype(dtype)))
            trace.append(var.numpy())
        results[key] = np.array(trace)
    return results


def _ulps(a, b):
    """Largest distance between a and b in units in the last place of their dtype."""
    spacing = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(a.dtype))
    return float(np.max(np.abs(a - b) / spacing)) if a.size else 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--only", default="", help="comma-separated substrings of the TF1 class names")
    parser.add_argument("--worker", choices=["tf1", "tf2"], help=argparse.SUPPRESS)
    parser.add_argument("--cases", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        cases = {int(k): v for k, v in json.loads(Path(args.cases).read_text()).items()}
        run = run_tf1 if args.worker == "tf1" else run_tf2
        Path(args.out).write_bytes(pickle.dumps(run(cases, args.steps)))
        return 0
    wanted = [s for s in args.only.split(",") if s]
    cases = {
        i: (name, kwargs, dtype, kind)
        for i, (name, kwargs, dtype, kind) in enumerate(
            (name, kwargs, dtype, kind) for name, kwargs in CASES for dtype in DTYPES for kind in KINDS
        )
        if not wanted or any(w in name for w in wanted)
    }
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        case_file = Path(tmp, "cases.json")
        case_file.write_text(json.dumps(cases))
        for worker in ("tf1", "tf2"):
            env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
            env.pop("TF_USE_LEGACY_KERAS", None)
            out = Path(tmp, worker)
            command = [sys.executable, __file__, "--worker", worker, "--cases", str(case_file), "--out", str(out)]
            subprocess.run([*command, "--steps", str(args.steps)], check=True, env=env)
            results[worker] = pickle.loads(out.read_bytes())
    differs = 0
    for key, (name, kwargs, dtype, kind) in cases.items():
        tf1, tf2 = results["tf1"][key], results["tf2"][key]
        diff = np.abs(tf1 - tf2).reshape(len(tf1), -1).max(axis=1)
        first = next((i + 1 for i, d in enumerate(diff) if d != 0), None)
        differs += first is not None
        settings = ", ".join(f"{k}={v}" for k, v in kwargs.items())
        verdict = "identical" if first is None else f"differs from step {first}"
        print(
            f"{name}({settings}) {dtype} {kind}: {verdict}; step 1: {diff[0]:.2g} ({_ulps(tf1[0], tf2[0]):.0f} ulp), "
            f"step {len(tf1)}: {diff[-1]:.2g} ({_ulps(tf1[-1], tf2[-1]):.0f} ulp)"
        )
    print(f"{len(cases) - differs} of {len(cases)} cases identical")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
