"""A graph-building lambda bound to a module name → the same function written as a ``def``.

MorvanZhou's 503_visualize_gradient_descent builds its model with a lambda::

    tf_y_fun = lambda a, b: tf.sin(b*tf.cos(a*x))
    a, b = [tf.Variable(initial_value=p, dtype=tf.float32) for p in INIT_PARAMS]
    pred = tf_y_fun(a, b)

The analysis summarizes the module's functions (a pure graph builder may be called in graph
code: under ``tf.function`` it runs at trace time, as TF1 ran it at build time), but a lambda
is no function definition to it, so the call was refused (TFM306 "a Python call in
graph-building code").  A lambda bound to a module-level name is that function: the module
is first rewritten, TF1 to TF1, with the binding written as a one-line ``def`` (``def
tf_y_fun(a, b): return tf.sin(b*tf.cos(a*x))``: the same parameters, the same expression,
evaluated in the same module scope at each call, and the same line), and the migration of
that module then judges the function like any other.

Only when all of this holds: the statement is ``name = lambda ...: ...`` at the top of the
module, alone on its line; ``name`` is bound nowhere else in the module (no other
assignment, ``for``, ``import``, ``def``, ``class``, ``global``, ``del``, parameter of any
function or lambda, comprehension variable) and never read as ``name.attribute`` (a def's
``__name__`` differs from a lambda's).  migrate.py rewrites only lambdas a refusal names and
keeps the rewritten module only if its graph then converts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.names import read_and_bound
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.traversal import find_all

LAMBDA_HELPER = Rule(
    "TFM134",
    "lambda-helper-as-def",
    "A graph-building lambda bound to a module name → the same function as a one-line def, judged like any helper.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Writes `f = lambda a, b: tf.sin(b * tf.cos(a * x))` as `def f(a, b): return tf.sin(b * tf.cos(a * x))` when graph code "
    "calls `f` and the call was refused as a Python call in graph-building code; the function is then summarized like any "
    "def of the module (a pure builder runs at trace time, as TF1 ran it at build time).",
    why="The lambda is the same function under another syntax: the same parameters and expression, evaluated in the "
    "module's scope at each call. The conditions are in `tf2migrate/rewrites/lambda_helpers.py`.",
    example="f = lambda a: tf.sin(a)\ny = f(w)",
    instead="def f(a): return tf.sin(a)\n# graph code calling f moves into the generated function",
    invalid=(
        "import tensorflow as tf\n"
        "f = lambda a: tf.sin(a * 2.0)\n"
        "w = tf.Variable(1.0)\n"
        "y = f(w)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(y))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "f = lambda a: tf.sin(a * 2.0)\n"
        "print(f.__name__)\n"
        "w = tf.Variable(1.0)\n"
        "y = f(w)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(y))\n",
    ),
)
RULES = [LAMBDA_HELPER]

# the refusal whose names are tried (analysis/statements.py)
PYTHON_CALL = re.compile(r"`(\w+)\(\.\.\.\)` is a Python call in graph-building code")


@dataclass
class Defined:
    """The module with the lambdas written as defs (the same lines), and the notes to
    report (on the original's lines)."""

    source: str
    notes: list[tuple[int, int, str]] = field(default_factory=list)  # (line, 1-based column, message)


def define_lambdas(module: cst.Module, names: set[str]) -> Defined | None:
    """The module with the lambdas bound to ``names`` written as defs where that keeps its
    meaning; None if none is."""
    positions = Positions(module)
    body = list(module.body)
    notes: list[tuple[int, int, str]] = []
    for index, statement in enumerate(body):
        name = _lambda_name(statement)
        if name is None or name not in names or not _bound_once(module, name):
            continue
        line = cst.ensure_type(statement, cst.SimpleStatementLine)
        lam = cst.ensure_type(cst.ensure_type(line.body[0], cst.Assign).value, cst.Lambda)
        params = module.code_for_node(lam.params)
        text = f"def {name}({params}): return {module.code_for_node(lam.body)}"
        defined = cst.parse_statement(text + module.default_newline)
        body[index] = defined.with_changes(leading_lines=line.leading_lines)
        start = positions.get(statement)
        notes.append(
            (start[0] if start else 1, 1, f"the lambda `{name}` graph code calls is written as a def, summarized like any function")
        )
    if not notes:
        return None
    return Defined(module.with_changes(body=body).code, notes)


def _lambda_name(statement: cst.BaseStatement) -> str | None:
    """``name = lambda ...: ...``, alone on its line (no trailing comment either)."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    assign = statement.body[0]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.value, cst.Lambda)):
        return None
    target = assign.targets[0].target
    if not isinstance(target, cst.Name) or statement.trailing_whitespace.comment is not None:
        return None
    return target.value


def _bound_once(module: cst.Module, name: str) -> bool:
    """Bound by its lambda statement only, and never read as ``name.attribute``."""
    if any(
        isinstance(a, cst.Attribute) and isinstance(a.value, cst.Name) and a.value.value == name for a in find_all(module, cst.Attribute)
    ):
        return False
    bindings = read_and_bound(module)[1].count(name)
    parameters = sum(1 for p in find_all(module, cst.Param) if isinstance(p, cst.Param) and p.name.value == name)
    declared = any(
        isinstance(d, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in d.names)
        for d in find_all(module, (cst.Global, cst.Nonlocal))
    )
    deleted = any(isinstance(n, cst.Name) and n.value == name for d in find_all(module, cst.Del) for n in find_all(d, cst.Name))
    return bindings == 1 and parameters == 0 and not declared and not deleted
