"""Module graph tensors a helper reads → keyword-only parameters it is passed
(analysis/helper_arguments.py says when that keeps the meaning)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.model import GraphFacts
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan

TENSORS_PASSED_TO_HELPER = Rule(
    "TFM114",
    "graph-tensors-passed-to-helper",
    "A helper that read graph tensors from the module takes them as keyword-only arguments.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Adds the module graph tensors and placeholders a function of the file reads "
    "(`def vae_loss(x_reconstructed, x_true)` reading `z_mean`, `z_std`) to its parameters, "
    "keyword-only (`*, z_mean, z_std`), and passes them at each call (`vae_loss(decoder, "
    "input_image, z_mean=z_mean, z_std=z_std)`). Only when every mention of the function is a "
    "call in the module's graph code, at which each name is a graph tensor or placeholder; else "
    "TFM301 stays.",
    why="TF1 called the helper while building the graph, and it read the tensors bound at the "
    "call. After migration they are locals of the generated functions, which the helper cannot "
    "see; passed, it gets exactly the tensors the same statements computed. Calls from other "
    "modules are not seen: a module importing the helper from this script (which builds and "
    "runs its graph when imported) would have to pass them too, and fails with a TypeError "
    "until it does.",
    example="z = tf.matmul(x, W)\ndef loss(y):\n    return tf.reduce_sum(y - z)\nl = loss(y)",
    instead="def loss(y, *, z):\n    return tf.reduce_sum(y - z)\n# in the generated function:\nl = loss(y, z=z)",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "z = 2.0 * x\n"
        "def loss(y):\n"
        "    return tf.reduce_sum(y - z)\n"
        "l = loss(3.0 * x)\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(l, {x: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "z = 2.0 * x\n"
        "def loss(y, z):\n"
        "    return tf.reduce_sum(y - z)\n"
        "l = loss(3.0 * x, z)\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(l, {x: [1.0]}))\n",
    ),
)
RULES = [TENSORS_PASSED_TO_HELPER]


def plan_helper_arguments(facts: GraphFacts, plan: Plan) -> None:
    for passed in facts.helper_arguments.values():
        names = passed.names
        plan.replace[id(passed.function)] = lambda updated, names=names: updated.with_changes(params=_with_keywords(updated.params, names))
        for call in passed.calls:
            plan.call_replacements[id(call)] = lambda updated, names=names: updated.with_changes(args=_with_arguments(updated.args, names))
        for call in passed.traced_by:
            # (one ``tf.while_loop`` may be given two such helpers, its condition and its body)
            plan.call_replacements[id(call)] = _passing_to(passed.function.name.value, names, plan.call_replacements.get(id(call)))
        listed = ", ".join(f"`{n}`" for n in names)
        plan.note(
            passed.function.name,
            TENSORS_PASSED_TO_HELPER.code,
            f"`{passed.function.name.value}` reads {listed} from the module graph; it now takes them as keyword-only "
            "arguments, passed at each call by the generated functions",
        )


def _with_keywords(params: cst.Parameters, names: tuple[str, ...]) -> cst.Parameters:
    star = params.star_arg if isinstance(params.star_arg, (cst.Param, cst.ParamStar)) else cst.ParamStar()
    return params.with_changes(star_arg=star, kwonly_params=[*params.kwonly_params, *(cst.Param(cst.Name(n)) for n in names)])


def _passing_to(helper: str, names: tuple[str, ...], before) -> Callable[[cst.Call], cst.Call]:
    """The replacement of a control-flow call given ``helper``, after ``before`` (that of
    another helper it is given), if any."""

    def replace(updated: cst.Call) -> cst.Call:
        done = before(updated) if before is not None else updated
        return done.with_changes(args=[_passing(a, helper, names) for a in done.args])

    return replace


def _passing(argument: cst.Arg, helper: str, names: tuple[str, ...]) -> cst.Arg:
    """``body`` given to ``tf.while_loop`` → ``lambda *args: body(*args, x=x)``: called with the
    loop variables (or nothing, by ``tf.cond``) as before, and the tensors it reads."""
    if not m.matches(argument.value, m.Name(helper)):
        return argument
    keywords = ", ".join(f"{n}={n}" for n in names)
    return argument.with_changes(value=cst.parse_expression(f"lambda *args: {helper}(*args, {keywords})"))


def _with_arguments(args: Sequence[cst.Arg], names: tuple[str, ...]) -> list[cst.Arg]:
    no_space = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
    return [*args, *(cst.Arg(cst.Name(n), keyword=cst.Name(n), equal=no_space) for n in names)]
