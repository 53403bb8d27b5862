"""The default op names tf1_summaries.SCOPE_OP_NAMES gives each TF1 function are those TF builds.

A summary's tag is its name made unique among the graph's names (in any letter case): TF1
would have tagged ``tf.summary.scalar("lowerbound", loss)`` ``lowerbound_1`` after an op of
type ``LowerBound``.  The rule refuses a summary name a TF op may have taken, judged by the
ops the file's TF functions build in the caller's scope.  Here each function of the table
is called in a TF1 graph (a subprocess in graph mode) and the names of the new ops outside
the scopes they open (their first path component, ``_1`` suffixes taken off, lower case)
must be among the table's: a function building an op the table leaves out would let a
summary keep a tag TF1 made unique.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tf2migrate.rewrites.tf1_summaries import SCOPE_OP_NAMES

pytest.importorskip("tensorflow")

# a call of each function of the table, on ``x`` (a float32 placeholder of shape [2, 2]),
# ``x0`` (a vector), ``scalar`` (a scalar summary), ``logdir`` (a directory)
CALLS = {
    "reduce_sum": "v1.reduce_sum(x, reduction_indices=1)",
    "reduce_mean": "v1.reduce_mean(x)",
    "reduce_max": "v1.reduce_max(x, 1)",
    "reduce_min": "v1.reduce_min(x, axis=[0, 1])",
    "multiply": "v1.multiply(x, x)",
    "subtract": "v1.subtract(x, 1.0)",
    "divide": "v1.divide(x, x)",
    "constant": "v1.constant(0.1, shape=[2])",
    "Variable": "v1.Variable(x0)",
    "zeros": "v1.zeros([2])",
    "ones": "v1.ones([2], v1.float32)",
    "random_normal": "v1.random_normal([2], stddev=0.5)",
    "random_uniform": "v1.random_uniform([2], -1.0, 1.0)",
    "truncated_normal": "v1.truncated_normal([2], stddev=0.1)",
    "nn.sigmoid_cross_entropy_with_logits": "v1.nn.sigmoid_cross_entropy_with_logits(logits=x, labels=x)",
    "global_variables_initializer": "v1.global_variables_initializer()",
    "train.Saver": "v1.train.Saver()",
    "Session": "v1.Session()",
    "train.AdamOptimizer": "v1.train.AdamOptimizer(0.01)",
    "train.GradientDescentOptimizer": "v1.train.GradientDescentOptimizer(0.5)",
    "summary.FileWriter": "v1.summary.FileWriter(logdir)",
    "summary.merge": "v1.summary.merge([scalar])",
    "summary.merge_all": "v1.summary.merge_all()",
    "searchsorted": "v1.searchsorted(x0, x0)",
}

PROGRAM = """
import json, re, sys, tempfile
import tensorflow as tf
v1 = tf.compat.v1
v1.disable_v2_behavior()
logdir = tempfile.mkdtemp()
result = {}
for name, code in json.loads(sys.argv[1]).items():
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2, 2], name="input")
        x0 = v1.placeholder_with_default([1.0, 2.0], [2], name="start")
        keep = v1.Variable(1.0, name="kept")  # for the Saver and the initializer
        scalar = v1.summary.scalar("s", v1.reduce_sum(x))  # for the merges
        before = {op.name for op in graph.get_operations()}
        eval(code)
        new = [op.name for op in graph.get_operations() if op.name not in before]
        result[name] = sorted({re.sub(r"_\\d+$", "", n.split("/")[0]).lower() for n in new})
print(json.dumps(result))
"""


def test_table_holds_the_ops_tf_builds() -> None:
    assert set(CALLS) == set(SCOPE_OP_NAMES)
    run = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps(CALLS)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    built = json.loads(run.stdout.strip().splitlines()[-1])
    for name, ops in built.items():
        assert set(ops) <= SCOPE_OP_NAMES[name], (name, ops)
