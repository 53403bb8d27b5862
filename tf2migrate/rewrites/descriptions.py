"""Build-time descriptions → a trace made where they stood.

``print("one_hot:", Y_one_hot)`` or ``assert h.shape.as_list() == Y.shape.as_list()`` in
graph-building code (analysis/descriptions.py) ran once in TF1, while the graph was built,
on symbolic tensors.  After migration those tensors exist only inside generated functions;
moving the statement into them would run it at each of their traces (or, eagerly, at each
call, printing values), where TF1 ran it once.  Instead the statement becomes the body of a
``tf.function`` that builds the tensors it reads, traced at once where the statement stood:

    @tf.function(input_signature=[tf.TensorSpec([None, 1], tf.int32)])
    def describe_Y_one_hot(Y):
        Y_one_hot = tf.one_hot(Y, nb_classes)
        print("one_hot:", Y_one_hot)


    describe_Y_one_hot.get_concrete_function()

The trace gives each placeholder as a ``TensorSpec`` of its declared dtype and shape, so
the tensors have the static shapes TF1's had (the same ops, the same shape inference); it
reads the Python values the graph code reads at the moment TF1 read them, and runs no op.
It is traced with ``--no-tf-function`` too: only a trace has TF1's symbolic tensors.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import closure
from tf2migrate.analysis.descriptions import Description
from tf2migrate.analysis.model import Kind, Scope, Statement
from tf2migrate.analysis.names import fresh_name, local_name
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.rewrites.generated import Generated, SessionRewrite

DESCRIPTION_TRACED = Rule(
    "TFM113",
    "description-traced",
    "A build-time print or shape check of graph tensors → a trace made where it stood.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Rewrites a `print(...)` or `assert` in graph-building code that reads graph tensors or "
    "placeholders only for what the graph knows before it runs — their description (`print(y)`), "
    "`.shape`, `.get_shape()`, `.dtype`, a printed `.name` — into a `tf.function` that builds those "
    "tensors and runs the statement, traced at once where the statement stood "
    "(`describe_y.get_concrete_function()`). A statement that reads a tensor's value or builds ops "
    "from it stays refused (TFM301).",
    why="TF1 ran the statement once, while building the graph, on symbolic tensors. The trace runs "
    "it once, in the same place, on the symbolic tensors of a graph built by the same ops from "
    "placeholders of the same declared dtypes and shapes: the same static shapes and dtypes, and "
    "the statement's output comes where it came. A tensor's name is its name in the trace's graph "
    '(`Tensor("one_hot:0", ...)`), which may differ from the name in TF1\'s one graph; TF1 printed '
    "an unknown dimension as `?`, TF2 prints `None`. It is traced even with `--no-tf-function`: "
    "eagerly the statement would print values.",
    example="x = tf.placeholder(tf.float32, [None, 3])\ny = 2.0 * x\nprint(y)",
    instead=(
        "@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])\n"
        "def describe_y(x):\n    y = 2.0 * x\n    print(y)\n\n\ndescribe_y.get_concrete_function()"
    ),
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = 2.0 * x\n"
        "print(y.shape)\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = 2.0 * x\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [1.0]}))\n",
    ),
)
RULES = [DESCRIPTION_TRACED]


def plan_descriptions(rewrite: SessionRewrite, inputs_stable: Callable[[Scope, Statement, int], bool]) -> None:
    """A traced function for each description of the file, or a blocker saying why not.
    ``inputs_stable``: the check that a graph statement's Python inputs are not rebound
    between it and the trace, made at the given order (SessionFunctions._graph_inputs_stable)."""
    for description in rewrite.facts.descriptions:
        generated = _function(rewrite, description, inputs_stable)
        if generated is not None:
            rewrite.functions[("describe", id(description.statement.node))] = generated


def _function(
    rewrite: SessionRewrite, description: Description, inputs_stable: Callable[[Scope, Statement, int], bool]
) -> Generated | None:
    scope, statement = description.scope, description.statement
    body, placeholders = closure(scope, description.roots)
    for s in body:
        if s.kind is not Kind.TENSOR or s.layer_calls:
            what = "a Keras layer, which the trace would build" if s.layer_calls else "gradients for a train op"
            rewrite.block(statement.node, blockers.GRAPH_VALUE_OUTSIDE_RUN, f"the tensors this describes are built with {what}")
            return None
        if not inputs_stable(scope, s, statement.order):  # traced where the description stood
            return None
    described = statement
    if description.displayed:
        # the cell's output, IPython's display of the value: its repr, printed by the trace
        shown = cst.parse_expression(f"print(repr({rewrite.code(description.expression)}))")
        node = cst.ensure_type(statement.node, cst.SimpleStatementLine)
        described = dataclasses.replace(statement, node=node.with_changes(body=[cst.Expr(shown)]))
    name = fresh_name("describe_" + "_and_".join(local_name(n) for n in description.names[:2]), rewrite.names_in_use)
    rewrite.plan.note(
        statement.node,
        DESCRIPTION_TRACED.code,
        (
            f"this cell displayed a graph tensor's description (its repr) while the graph is built → {name}, traced "
            "here, prints it; tensor names are those of the trace's graph"
            if description.displayed
            else f"this describes graph tensors while the graph is built → {name}, traced here: it runs once, where TF1 "
            "ran it; tensor names are those of the trace's graph"
        ),
    )
    return Generated(
        scope,
        name,
        description.expression,
        [*body, described],
        placeholders,
        needs_tf_function=True,
        anchor=statement,
        describes=statement,
        displays=description.displayed,
    )
