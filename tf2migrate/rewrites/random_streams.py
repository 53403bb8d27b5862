"""Refuse a TF1 random op that runs in several generated functions (TFM306).

A TF1 random op (``noise = tf.random_normal([2], seed=1)``) is one
stateful kernel in the graph: every run that reads it draws the next numbers of its one
stream, whichever fetches the run asks for.  The migration writes the op into each
generated function whose fetches need it, and each function's op has a stream of its own
(the same seed, so the same first numbers): a second run site's function starts that
stream again where TF1 went on (``out2 = sess.run(y)`` after ``sess.run([y, u])`` drew the
same numbers twice), and a training function no longer sees the draws an evaluation run
made in between.  Only one generated function may hold a seeded op (an op ``seed=``, or a
graph seed the module sets: numbers a program can reproduce); otherwise the graph stays on
TF1, naming the op and the functions.  An unseeded op draws numbers no run reproduces, and
is not refused.  (``tf.nn.dropout`` shares a stream so too, but
a training step and an evaluation at ``keep_prob=1.0`` differ only in which masks later
steps draw: not refused here, a known difference of this release.)
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers, imported_calls
from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.catalogue import RANDOM_OPS
from tf2migrate.rewrites.generated import SessionRewrite

_GLOBAL_SEEDS = frozenset({"set_random_seed", "random.set_seed"})


def refuse_shared_random_streams(rewrite: SessionRewrite) -> None:
    imports = rewrite.facts.imports
    seeded: bool | None = None  # the module sets a graph seed (walked only when an op is shared)
    holders: dict[int, list[str]] = {}
    for generated in rewrite.functions.values():
        for statement in generated.body:
            holders.setdefault(id(statement.node), []).append(generated.name)
    for scope in rewrite.facts.scopes:
        for statement in scope.statements:
            functions = holders.get(id(statement.node), [])
            if len(functions) < 2:
                continue
            for call in calls_in(statement.node):
                name = imports.call_name(call)
                drawing = _drawing_helper(rewrite, call) if name not in RANDOM_OPS else None
                if drawing is not None:
                    # a module function drawing random numbers (``jitter(img)``): whether its op
                    # is seeded is not followed; its one TF1 stream would be several all the same
                    listed = ", ".join(f"`{f}`" for f in functions)
                    rewrite.block(
                        call,
                        blockers.UNSUPPORTED_GRAPH_CODE,
                        f"`{drawing}(...)` makes a TF1 random op that several runs read ({listed}): TF1 drew each run's "
                        "numbers from its one stream, each generated function would restart a stream of its own",
                    )
                    return
                if name not in RANDOM_OPS:
                    continue
                if seeded is None:
                    seeded = any(imports.call_name(c) in _GLOBAL_SEEDS for c in calls_in(rewrite.module, enter_defs=True))
                if seeded or any(a.keyword is not None and a.keyword.value == "seed" for a in call.args):
                    listed = ", ".join(f"`{f}`" for f in functions)
                    rewrite.block(
                        call,
                        blockers.UNSUPPORTED_GRAPH_CODE,
                        f"`tf.{name}` is a TF1 random op that several runs read ({listed}): TF1 drew each run's numbers "
                        "from its one stream, each generated function would restart a stream of its own",
                    )
                    return


def _drawing_helper(rewrite: SessionRewrite, call: cst.Call, seen: frozenset[str] = frozenset()) -> str | None:
    """The name of the function ``call`` calls when it makes a TF1 random op: a module function,
    in its body or through the module functions it calls, or another module's builder
    (analysis/summaries.py ``draws_random``); else None."""
    imported = imported_calls.summary_of(rewrite.facts, call)
    if imported is not None and imported.draws_random:
        return rewrite.module.code_for_node(call.func)
    if not isinstance(call.func, cst.Name):
        return None
    name = call.func.value
    helper = rewrite.facts.helpers.get(name)
    if helper is None or name in seen:
        return None
    for inner in calls_in(helper.node.body):
        if rewrite.facts.imports.call_name(inner) in RANDOM_OPS or _drawing_helper(rewrite, inner, seen | {name}) is not None:
            return name
    return None
