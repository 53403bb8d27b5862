"""Time one training step of a TF1 physics-informed network before and after tf2migrate.

    python benchmarks/pinn_training_step.py [--sizes benchmark,research] [--steps N] [--warmup N]
                                            [--points N --layers 2,20,20,20,1] [--repeats 3] [--no-tf-function]

Two sizes run by default, each printing its ratio and first-step times: ``benchmark``
(2000 collocation points, layers [2, 20, 20, 20, 1], 200 timed steps after 10 warm-up) and
``research``, the size of published PINN code (Raissi et al.'s Burgers' example: 20,000
points, layers [2, 20×8, 1], 30 timed steps after 3 warm-up). ``--points`` and
``--layers`` run one size of your own instead; ``--steps`` / ``--warmup`` override the
step counts of every size run.

The TF1 program (``PROGRAM`` below, written for this benchmark) is the usual PINN for
Burgers' equation, module-level style: placeholders ``x``, ``t``, ``u``; an MLP
(``--layers``, [2, 20, 20, 20, 1] by default) of ``tf.Variable`` weights (truncated-normal Xavier init, zero biases,
tanh); the residual ``f = u_t + u*u_x - (0.01/pi)*u_xx`` taken with ``tf.gradients`` (the
second derivative with ``tf.gradients`` of ``u_x``); ``loss = mean((u - u_data)^2) +
mean(f^2)``; ``tf.train.AdamOptimizer(1e-3).minimize(loss)``; and a session loop of
``sess.run(train_op, feed_dict)`` over fixed, seeded NumPy data.

The script migrates it with ``tf2migrate.migrate_source`` (this process never imports
TensorFlow), refuses to go on if the migration reported an error finding or left a
``Session`` / ``placeholder`` behind (that would be the TF1 fallback, not the eager
code), writes both versions to a temporary directory and runs each in its own process:
the original as written (``tensorflow.compat.v1`` with ``disable_v2_behavior()``, i.e.
graph mode), the migration as tf2migrate emitted it (plain TF2). The timing lives in the
program itself: ``time.perf_counter()`` around each training-step call of its loop, code
tf2migrate keeps as it is, so the same loop times ``sess.run(train_op, ...)`` in one
version and the generated ``train_step(...)`` in the other. W warm-up steps are excluded
(the first one is shown apart: it includes graph building or ``tf.function`` tracing),
then N steps are timed. Runs alternate between the two versions (``--repeats`` each) so
that load on the machine hits both alike; per-step median and mean are printed per run,
and, per size, the ratio migrated / original of the median over runs (goal: ≤ 1.0) and
the median first step of each version; a closing table sums the sizes up.

``--no-tf-function`` migrates with ``Options(tf_function=False)``: plain eager generated
functions, for comparison. Needs TensorFlow installed; the generated code uses
``tf.keras.optimizers.Adam``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path

from tf2migrate import Options, migrate_source

PROGRAM = '''\
"""A small TF1 physics-informed network for Burgers' equation, trained with Adam.

Usage: python PROGRAM.py STEPS WARMUP POINTS LAYERS (``2,20,20,20,1``); prints one JSON
line with the wall time of every training step and the loss before and after training.
"""
import json
import sys
import time

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

STEPS, WARMUP, POINTS = (int(a) for a in sys.argv[1:4])
layers = [int(width) for width in sys.argv[4].split(",")]
nu = 0.01 / np.pi

np.random.seed(1234)
tf.set_random_seed(1234)


def xavier_init(size):
    stddev = np.sqrt(2.0 / (size[0] + size[1]))
    return tf.Variable(tf.truncated_normal(size, stddev=stddev), dtype=tf.float32)


def neural_net(X, weights, biases):
    H = X
    for W, b in zip(weights[:-1], biases[:-1]):
        H = tf.tanh(tf.add(tf.matmul(H, W), b))
    return tf.add(tf.matmul(H, weights[-1]), biases[-1])


weights = [xavier_init([layers[l], layers[l + 1]]) for l in range(len(layers) - 1)]
biases = [tf.Variable(tf.zeros([1, layers[l + 1]], dtype=tf.float32)) for l in range(len(layers) - 1)]

x_tf = tf.placeholder(tf.float32, shape=[None, 1])
t_tf = tf.placeholder(tf.float32, shape=[None, 1])
u_tf = tf.placeholder(tf.float32, shape=[None, 1])

u = neural_net(tf.concat([x_tf, t_tf], 1), weights, biases)
u_t = tf.gradients(u, t_tf)[0]
u_x = tf.gradients(u, x_tf)[0]
u_xx = tf.gradients(u_x, x_tf)[0]
f = u_t + u * u_x - nu * u_xx

loss = tf.reduce_mean(tf.square(u - u_tf)) + tf.reduce_mean(tf.square(f))
train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)

x_data = np.random.uniform(-1.0, 1.0, (POINTS, 1)).astype(np.float32)
t_data = np.random.uniform(0.0, 1.0, (POINTS, 1)).astype(np.float32)
u_data = (-np.sin(np.pi * x_data) * np.exp(-t_data)).astype(np.float32)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    tf_dict = {x_tf: x_data, t_tf: t_data, u_tf: u_data}
    initial_loss = sess.run(loss, tf_dict)
    warmup_seconds = []
    for it in range(WARMUP):
        start = time.perf_counter()
        sess.run(train_op, tf_dict)
        warmup_seconds.append(time.perf_counter() - start)
    step_seconds = []
    for it in range(STEPS):
        start = time.perf_counter()
        sess.run(train_op, tf_dict)
        step_seconds.append(time.perf_counter() - start)
    final_loss = sess.run(loss, tf_dict)

print(json.dumps({"warmup_seconds": warmup_seconds, "step_seconds": step_seconds,
                  "initial_loss": float(initial_loss), "final_loss": float(final_loss)}))
'''

# graph machinery that must not survive an eager migration
GRAPH_LEFT = re.compile(r"\b(Session|InteractiveSession|placeholder|disable_eager_execution|disable_v2_behavior)\b")
RETRACING = re.compile(r"retracing", re.IGNORECASE)


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _load() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def migrate(tf_function: bool) -> tuple[str, list]:
    """The migrated program and tf2migrate's findings; exits if the result is not eager TF2."""
    new_source, findings = migrate_source(PROGRAM, "pinn_tf1_program.py", Options(tf_function=tf_function))
    errors = [d for d in findings if str(getattr(d.severity, "value", d.severity)).lower() == "error"]
    left = sorted(set(GRAPH_LEFT.findall(new_source)))
    if errors or left:
        for d in errors:
            print(f"  {d.code} {d.path}:{d.line}:{d.column} {d.message}")
        sys.exit(f"migration is not eager TF2 (error findings: {len(errors)}, graph machinery left: {left}); nothing benchmarked")
    return new_source, findings


def run(program: Path, steps: int, warmup: int, points: int, layers: str) -> dict:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL=os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2"))
    done = subprocess.run(
        [sys.executable, str(program), str(steps), str(warmup), str(points), layers],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=program.parent,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        sys.stderr.write(done.stderr[-4000:])
        sys.exit(f"{program.name} failed (exit status {done.returncode})")
    result = json.loads(lines[-1])
    result["retracing_warnings"] = [line for line in done.stderr.splitlines() if RETRACING.search(line)]
    return result


@dataclass(frozen=True)
class Size:
    """One problem size: collocation points, layer widths, and the step counts that time it."""

    points: int
    layers: str
    steps: int
    warmup: int


SIZES = {
    "benchmark": Size(2000, "2,20,20,20,1", steps=200, warmup=10),
    # Raissi et al.'s Burgers' example; a step is ~10x longer, tracing too, so fewer of them
    "research": Size(20000, ",".join(["2", *["20"] * 8, "1"]), steps=30, warmup=3),
}


def time_size(name: str, size: Size, programs: dict[str, Path], repeats: int) -> dict[str, tuple[float, float, float, float]]:
    """Run both programs ``repeats`` times, alternating; per version: median over runs of the
    per-step median, best run's median, median of the means, median first step (seconds)."""
    print(
        f"\n== {name}: {size.points} collocation points, layers [{size.layers}], "
        f"{size.steps} timed steps after {size.warmup} warm-up, {repeats} runs of each version"
    )
    results: dict[str, list[dict]] = {version: [] for version in programs}
    print(f"{'run':<24}{'first step ms':>14}{'median ms':>11}{'mean ms':>9}{'steps/s':>9}{'loss before':>13}{'loss after':>12}")
    for repeat in range(repeats):
        for version, path in programs.items():
            result = run(path, size.steps, size.warmup, size.points, size.layers)
            results[version].append(result)
            steps = result["step_seconds"]
            print(
                f"{version + f' #{repeat + 1}':<24}{result['warmup_seconds'][0] * 1e3:>14.1f}{statistics.median(steps) * 1e3:>11.2f}"
                f"{statistics.mean(steps) * 1e3:>9.2f}{len(steps) / sum(steps):>9.0f}{result['initial_loss']:>13.4f}{result['final_loss']:>12.4f}"
            )
    summary = {}
    for version, runs in results.items():
        medians = [statistics.median(r["step_seconds"]) for r in runs]
        summary[version] = (
            statistics.median(medians),
            min(medians),
            statistics.median(statistics.mean(r["step_seconds"]) for r in runs),
            statistics.median(r["warmup_seconds"][0] for r in runs),
        )
        retraces = sum(len(r["retracing_warnings"]) for r in runs)
        print(
            f"{version}: per-step median {summary[version][0] * 1e3:.2f} ms (best run {summary[version][1] * 1e3:.2f} ms), "
            f"mean {summary[version][2] * 1e3:.2f} ms, first step {summary[version][3] * 1e3:.0f} ms"
            + (f"; {retraces} retracing warnings" if retraces else "")
        )
        for line in dict.fromkeys(w for r in runs for w in r["retracing_warnings"]):
            print(f"  {line[:200]}")
    original, migrated = summary.values()
    ratio = migrated[0] / original[0]
    print(
        f"ratio migrated / original, per-step median: {ratio:.2f} (best runs {migrated[1] / original[1]:.2f}, "
        f"means {migrated[2] / original[2]:.2f}); goal <= 1.0: {'met' if ratio <= 1.0 else 'NOT met'}; "
        f"first step {migrated[3] / original[3]:.1f}x ({migrated[3]:.2f} s against {original[3]:.2f} s)"
    )
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="benchmark,research", help=f"comma-separated, of {', '.join(SIZES)} (default: both)")
    parser.add_argument("--points", type=int, help="collocation points fed at each step: one size of your own (with --layers)")
    parser.add_argument("--layers", help="layer widths, comma-separated: one size of your own (default 2,20,20,20,1)")
    parser.add_argument("--steps", type=int, help="timed training steps per run (default: 200 benchmark, 30 research)")
    parser.add_argument("--warmup", type=int, help="untimed warm-up steps before them (default: 10 benchmark, 3 research)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each version per size, alternating (default 3)")
    parser.add_argument("--no-tf-function", action="store_true", help="migrate with Options(tf_function=False) (eager generated functions)")
    parser.add_argument("--keep", type=Path, help="also write both programs to this directory")
    args = parser.parse_args()
    if args.points is not None or args.layers is not None:
        base = SIZES["benchmark"]
        sizes = {"custom": Size(args.points or base.points, args.layers or base.layers, base.steps, base.warmup)}
    else:
        unknown = [n for n in args.sizes.split(",") if n not in SIZES]
        if unknown:
            parser.error(f"unknown size {unknown}; the sizes are {', '.join(SIZES)}")
        sizes = {n: SIZES[n] for n in args.sizes.split(",")}
    sizes = {n: replace(s, steps=args.steps or s.steps, warmup=args.warmup or s.warmup) for n, s in sizes.items()}
    if any(v is not None and v < 1 for v in (args.steps, args.warmup, args.points)) or args.repeats < 1:
        parser.error("--steps, --warmup, --points and --repeats must be at least 1")

    print(
        f"Python {platform.python_version()}, tensorflow {_version('tensorflow') if _version('tensorflow') != 'not installed' else _version('tensorflow-cpu')}, "
        f"keras {_version('keras')}, tf2migrate {_version('tf2migrate')}, {os.cpu_count()} cores ({platform.machine()})"
    )
    print(
        f"load average before the runs: {_load()} (other work on the machine makes the figures noisy: "
        f"compare the 'best run' figures, or re-run on an idle machine)"
    )

    new_source, findings = migrate(tf_function=not args.no_tf_function)
    decorated = len(re.findall(r"^\s*@tf\.function\b", new_source, re.MULTILINE))
    generated = re.findall(r"^def ((?:train_step|compute_|minimize_)\w*)\(", new_source, re.MULTILINE)
    warnings = [d for d in findings if str(getattr(d.severity, "value", d.severity)).lower() == "warning"]
    print(
        f"migration: {len(findings)} findings ({len(warnings)} warnings, 0 errors); generated functions {generated}, "
        f"{decorated} with @tf.function"
    )
    for d in warnings:
        print(f"  {d.code} line {d.line}: {d.message}")

    with tempfile.TemporaryDirectory() as scratch:
        programs = {"original (TF1 graph)": Path(scratch) / "pinn_tf1_program.py", "migrated (TF2)": Path(scratch) / "pinn_tf2_program.py"}
        for path, text in zip(programs.values(), (PROGRAM, new_source)):
            path.write_text(text)
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                (args.keep / path.name).write_text(text)
        summaries = {name: time_size(name, size, programs, args.repeats) for name, size in sizes.items()}

    print(f"\n{'size':<11}{'TF1 step ms':>12}{'TF2 step ms':>12}{'ratio':>7}{'TF1 first s':>13}{'TF2 first s':>13}")
    for name, summary in summaries.items():
        original, migrated = summary.values()
        print(
            f"{name:<11}{original[0] * 1e3:>12.2f}{migrated[0] * 1e3:>12.2f}{migrated[0] / original[0]:>7.2f}"
            f"{original[3]:>13.2f}{migrated[3]:>13.2f}"
        )
    print(f"(per-step medians over runs; goal: ratio <= 1.0) load average after the runs: {_load()}")
    print("(losses differ between the versions: graph-mode and eager TensorFlow draw different initial weights from the same seed)")


if __name__ == "__main__":
    main()
