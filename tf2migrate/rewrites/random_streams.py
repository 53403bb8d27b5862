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
is not refused.  So for a function drawing them (pkmital's ``corrupt(x)``, of its module or of
another module of the project): refused when its random calls, or those of the functions it
calls, pass a seed or may (``seed=``, or an argument at the seed's position:
``tf.random_normal(shape, 0.0, 1.0, tf.float32, 7)``, an op's own call so read too), or its
module or this one sets a graph seed; not refused when they are unseeded.  (``tf.nn.dropout`` shares a stream so too, but
a training step and an evaluation at ``keep_prob=1.0`` differ only in which masks later
steps draw: not refused here, a known difference of this release.)
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers, imported_calls
from tf2migrate.analysis.calls import calls_in
from tf2migrate.analysis.catalogue import GRAPH_SEEDS, RANDOM_OPS, passes_seed
from tf2migrate.rewrites.generated import SessionRewrite


def refuse_shared_random_streams(rewrite: SessionRewrite) -> None:
    imports = rewrite.facts.imports
    seeded: bool | None = None  # the module sets a graph seed (walked only when an op is shared)

    def graph_seeded() -> bool:
        nonlocal seeded
        if seeded is None:
            seeded = any(imports.call_name(c) in GRAPH_SEEDS for c in calls_in(rewrite.module, enter_defs=True))
        return seeded

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
                if drawing is not None and (drawing[1] or graph_seeded()):
                    # a function drawing seeded random numbers (``jitter(img)``): its one TF1
                    # stream would be several all the same
                    listed = ", ".join(f"`{f}`" for f in functions)
                    rewrite.block(
                        call,
                        blockers.UNSUPPORTED_GRAPH_CODE,
                        f"`{drawing[0]}(...)` makes a TF1 random op that several runs read ({listed}): TF1 drew each run's "
                        "numbers from its one stream, each generated function would restart a stream of its own",
                    )
                    return
                if name not in RANDOM_OPS:
                    continue
                if graph_seeded() or _seeded(name, call):
                    listed = ", ".join(f"`{f}`" for f in functions)
                    rewrite.block(
                        call,
                        blockers.UNSUPPORTED_GRAPH_CODE,
                        f"`tf.{name}` is a TF1 random op that several runs read ({listed}): TF1 drew each run's numbers "
                        "from its one stream, each generated function would restart a stream of its own",
                    )
                    return


def _drawing_helper(rewrite: SessionRewrite, call: cst.Call, seen: frozenset[str] = frozenset()) -> tuple[str, bool] | None:
    """The name of the function ``call`` calls when it makes a TF1 random op (a module function,
    in its body or through the module functions it calls, or another module's builder:
    analysis/summaries.py ``draws_random``), and whether one of its random calls passes a seed
    or may (``draws_seeded``, its module's graph seed included); else None."""
    imported = imported_calls.summary_of(rewrite.facts, call)
    if imported is not None and imported.draws_random:
        return rewrite.module.code_for_node(call.func), imported.draws_seeded
    if not isinstance(call.func, cst.Name):
        return None
    name = call.func.value
    helper = rewrite.facts.helpers.get(name)
    if helper is None or name in seen:
        return None
    found = seeded = False
    for inner in calls_in(helper.node.body):
        if (inner_name := rewrite.facts.imports.call_name(inner)) in RANDOM_OPS:
            found, seeded = True, seeded or _seeded(inner_name, inner)
        elif (drawing := _drawing_helper(rewrite, inner, seen | {name})) is not None:
            found, seeded = True, seeded or drawing[1]
    return (name, seeded) if found else None


def _seeded(name: str, call: cst.Call) -> bool:
    """Does this call of the random op ``name`` give it a seed (``seed=``, or at its position), or may it?"""
    keywords = [a.keyword.value if a.keyword is not None else None for a in call.args if a.keyword is not None or a.star == "**"]
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return passes_seed(name, len(positional), keywords, any(a.star == "*" for a in call.args))
