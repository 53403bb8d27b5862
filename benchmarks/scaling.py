"""How migrate_source's time and memory grow with the size of a file.

    python benchmarks/scaling.py [--sizes 45,90,180] [--rename-kb 500,1000,2000]

Generates two kinds of files at three sizes each and migrates each in a fresh process
(so a size's peak memory is its own), printing wall time, peak RSS of the process, and
the same per KB of source:

- session blocks: a placeholder, a variable, a tensor and its ``tf.gradients``, and a
  ``with tf.Session()`` block that initializes the variable and runs both (every block
  is converted: placeholders become arguments, runs become calls, gradients tapes);
- rename-only: functions of TF2 graph-free code using TF1 names (``tf.log``,
  ``keep_dims=``, ``tf.random_normal``), which only the renaming pass rewrites.

Cost should grow linearly: doubling a size should about double the time and memory
above the interpreter's own (the ``baseline`` row: Python, libcst and tf2migrate imported).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

_SESSION_BLOCK = """\
# block {i}: one hidden layer and its input derivative
x_{i} = tf.placeholder(tf.float32, shape=[None, 1])
W_{i} = tf.Variable(tf.truncated_normal([1, 8], stddev=0.1))
y_{i} = tf.tanh(tf.matmul(x_{i}, W_{i}))
dy_{i} = tf.gradients(y_{i}, x_{i})[0]
with tf.Session() as sess:
    sess.run(tf.variables_initializer([W_{i}]))
    y_val_{i}, dy_val_{i} = sess.run([y_{i}, dy_{i}], feed_dict={{x_{i}: data}})

"""

_RENAME_FUNCTION = """\
def loss_{i}(logits, labels):
    # a TF1 loss: renamed names and keywords only
    probabilities = tf.nn.softmax(logits)
    entropy = -tf.reduce_sum(labels * tf.log(probabilities + 1e-8), axis=1, keep_dims=True)
    noise = tf.random_normal(tf.shape(entropy), stddev=0.01)
    return tf.reduce_mean(entropy + noise) + tf.to_float(tf.argmax(logits, dimension=1))[0]


"""

_HEADER = "import numpy as np\nimport tensorflow as tf\n\ndata = np.ones((4, 1), np.float32)\n\n"

_MEASURE = """\
import resource, sys, time
from tf2migrate import migrate_source
source = open(sys.argv[1], encoding="utf-8").read() if len(sys.argv) > 1 else ""
start = time.perf_counter()
new, findings = migrate_source(source, "scaling.py")
seconds = time.perf_counter() - start
assert not any(f.code in ("TFM002", "TFM404") for f in findings), [f for f in findings if f.code in ("TFM002", "TFM404")][:3]
print(seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, len(new))
"""


def session_blocks(count: int) -> str:
    return _HEADER + "".join(_SESSION_BLOCK.format(i=i) for i in range(count))


def rename_only(kilobytes: int) -> str:
    count = max(1, kilobytes * 1024 // len(_RENAME_FUNCTION.format(i=0)))
    return "import tensorflow as tf\n\n\n" + "".join(_RENAME_FUNCTION.format(i=i) for i in range(count))


def _measure(path: Path | None) -> tuple[float, float]:
    """Seconds in migrate_source and peak RSS (MB) of a fresh process migrating ``path``."""
    command = [sys.executable, "-c", _MEASURE, *([str(path)] if path else [])]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds, peak, _ = out.stdout.split()
    return float(seconds), float(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="45,90,180", help="session blocks per file")
    parser.add_argument("--rename-kb", default="500,1000,2000", help="sizes of the rename-only files, KB")
    parser.add_argument("--out", type=Path, default=Path("/tmp/tf2migrate-scaling"), help="where the files are written")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    _, baseline = _measure(None)
    print(f"{'file':<28} {'KB':>7} {'seconds':>8} {'peak MB':>8} {'ms/KB':>7} {'MB/KB above baseline':>21}")
    print(f"{'baseline (imports only)':<28} {'':>7} {'':>8} {baseline:>8.0f}")
    files = [(f"{n} session blocks", session_blocks(n)) for n in map(int, args.sizes.split(","))]
    files += [(f"rename-only {kb} KB", rename_only(kb)) for kb in map(int, args.rename_kb.split(","))]
    for name, source in files:
        path = args.out / (name.replace(" ", "_") + ".py")
        path.write_text(source, encoding="utf-8")
        kb = len(source.encode()) / 1024
        seconds, peak = _measure(path)
        print(f"{name:<28} {kb:>7.0f} {seconds:>8.2f} {peak:>8.0f} {seconds * 1000 / kb:>7.1f} {(peak - baseline) / kb:>21.2f}")


if __name__ == "__main__":
    main()
