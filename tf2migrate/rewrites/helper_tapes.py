"""``net_f``-style helpers: ``tf.gradients`` of a computation the helper performs itself → tapes.

A helper such as ``net_f(x, t)`` computes ``u = net_u(x, t)`` and then takes
``tf.gradients(u, x)``: the whole forward computation happens inside the helper, so a
tape in the helper sees it (nested tapes for ``u_xx``), and its callers no longer need a
``tf.function``.  That holds only if what the caller passes for the other parameters does
not itself depend on the sources (TF1's graph would differentiate through it; a tape in
the helper cannot), so every call of the helper in the file must pass distinct
placeholders.  Otherwise the helper keeps ``tf.gradients`` and its callers run as a
``tf.function`` (TFM203), as for ``fwd_gradients(Y, x)``, whose forward computation
happens in the caller.

A helper that takes ``tf.gradients`` and that nothing in the file calls (PINNs' discrete-time
Burgers files keep ``fwd_gradients_1`` next to the ``fwd_gradients_0`` they use) gets the same
treatment as its called twin: it keeps ``tf.gradients`` (forward-mode seeds rewritten as
everywhere, TFM204), and a note says so.  No tape: with no call to check, a caller may pass
values computed from the sources, which a tape in the helper would not see (a wrong value, not
an error).  Kept, the helper computes TF1's values wherever a tf.function traces it, and an
eager call raises (TF2 refuses ``tf.gradients`` eagerly) — and no eager form of a helper that
differentiates values computed before it was called can exist.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import calls_in

from tf2migrate.analysis.catalogue import GRADIENT_CALLS

from tf2migrate.analysis.model import GraphFacts, Helper, Kind, Scope, Statement
from tf2migrate.analysis.names import assigned_names, named_elsewhere, read_and_bound, self_attribute
from tf2migrate.layout import code_lines
from tf2migrate.plan import Plan
from tf2migrate.rewrites import gradient_tape


def plan_helper_tapes(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str]) -> None:
    converted = {key for key, helper in facts.helpers.items() if _convert(module, facts, plan, key, helper, names_in_use)}
    if converted:
        _recompute_gradient_flags(facts, converted)
    # (one that reads attributes the migration removes is reported as such, TFM112)
    reported = {id(node) for node, code, _ in facts.notes if code == blockers.UNCALLED_GRAPH_METHOD.code}
    # (a method building and running a graph of its own, a test method, is converted as a program, its gradients with it)
    programs = {id(scope.owner) for scope in facts.scopes}
    for helper in facts.helpers.values():
        if (
            helper.uses_gradients
            and id(helper.node.name) not in reported
            and id(helper.node) not in programs
            and not named_elsewhere(module, helper.node)
        ):
            name = helper.node.name
            facts.notes.append((name, gradient_tape.GRADIENTS_IN_TF_FUNCTION.code, gradient_tape.uncalled_message(name.value)))


def _convert(module, facts: GraphFacts, plan: Plan, key: str, helper: Helper, names_in_use: set[str]) -> bool:
    function = helper.node
    if not isinstance(function.body, cst.IndentedBlock):
        return False  # a one-line def: no statement to put under a tape
    body = list(function.body.body)
    docstring = body[:1] if body and _is_docstring(body[0]) else []
    body = body[len(docstring) :]
    statements: list[Statement] = []
    locals_before: set[str] = set()
    params = [p.name.value for p in function.params.params if p.name.value != "self"]
    for order, node in enumerate(body):
        calls = calls_in(node)
        gradient_calls = tuple(c for c in calls if facts.imports.call_name(c) in GRADIENT_CALLS)
        if gradient_calls:
            if not isinstance(node, cst.SimpleStatementLine):
                return False  # in control flow: keep tf.gradients (tf.function)
            for call in gradient_calls:
                targets = _target_names(call)
                # the target must be computed here, from the sources, not passed in
                if targets is None or not targets or any(t not in locals_before for t in targets):
                    return False
        reads, binds = read_and_bound(node)
        statements.append(Statement(node, order, Kind.TENSOR, tuple(assigned_names(node)), tuple(reads), gradient_calls=gradient_calls))
        locals_before |= set(binds)
    if not any(s.gradient_calls for s in statements) or not _call_sites_pass_placeholders(facts, key, len(params)):
        return False
    ctx = gradient_tape.BodyContext(
        module=module,
        imports=facts.imports,
        facts=facts,
        plan=plan,
        params=params,
        trainable_variables=set(),
        names_in_use=set(names_in_use) | locals_before | set(params),
    )
    indent = module.default_indent
    lines = gradient_tape.render_body(statements, ctx, indent)
    if lines is None or ctx.keeps_gradients:
        return False
    doc = [line for s in docstring for line in code_lines(module.code_for_node(s))]
    text = "def helper():\n" + "".join(f"{indent}{line}\n" if line else "\n" for line in doc + lines)
    new_body = cst.parse_statement(text, config=module.config_for_parsing).body
    plan.replace[id(function.body)] = new_body
    return True


def _target_names(call: cst.Call) -> list[str] | None:
    ys = gradient_tape._gradient_args(call)[0]  # noqa: SLF001 - one reading of tf.gradients' arguments
    if ys is None:
        return None
    elements = [e.value for e in ys.elements] if isinstance(ys, (cst.List, cst.Tuple)) else [ys]
    names = []
    for element in elements:
        if isinstance(element, cst.Name):
            names.append(element.value)
        else:
            return None
    return names


def _call_sites_pass_placeholders(facts: GraphFacts, key: str, n_params: int) -> bool:
    """Every call of the helper in the file is a graph statement passing distinct
    placeholders for all its parameters."""
    sites = 0
    for scope in facts.scopes:
        for statement in scope.statements:
            for call in calls_in(statement.node):
                if _callee(call) != key:
                    continue
                if statement.kind is not Kind.TENSOR or not _distinct_placeholders(scope, statement, call, n_params):
                    return False
                sites += 1
    # a helper called from elsewhere (another helper, other code) cannot be checked
    calls_anywhere = sum(
        1 for helper in facts.helpers.values() for call in calls_in(helper.node.body, enter_defs=True) if _callee(call) == key
    )
    return sites > 0 and calls_anywhere == 0


def _distinct_placeholders(scope: Scope, statement: Statement, call: cst.Call, n_params: int) -> bool:
    if len(call.args) != n_params or any(a.keyword is not None or a.star for a in call.args):
        return False
    seen = set()
    for arg in call.args:
        name = arg.value.value if isinstance(arg.value, cst.Name) else self_attribute(arg.value)
        target = scope.graph_statement(name, statement.order) if name else None
        if target is None or target.kind is not Kind.PLACEHOLDER or name in seen:
            return False
        seen.add(name)
    return True


def _recompute_gradient_flags(facts: GraphFacts, converted: set[str]) -> None:
    """Helpers that only reach tf.gradients through converted helpers, and the graph
    statements calling them, no longer need a tf.function."""
    flags = {
        key: key not in converted and any(facts.imports.call_name(c) in GRADIENT_CALLS for c in calls_in(h.node.body, enter_defs=True))
        for key, h in facts.helpers.items()
    }
    changed = True
    while changed:
        changed = False
        for key, helper in facts.helpers.items():
            if not flags[key] and any(flags.get(_callee(c) or "", False) for c in calls_in(helper.node.body, enter_defs=True)):
                flags[key] = changed = True
    for key, helper in facts.helpers.items():
        helper.uses_gradients = flags[key]
    for scope in facts.scopes:
        for statement in scope.statements:
            statement.calls_gradient_helper = any(flags.get(_callee(c) or "", False) for c in calls_in(statement.node))


def _callee(call: cst.Call) -> str | None:
    return call.func.value if isinstance(call.func, cst.Name) else self_attribute(call.func)


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.BaseString)
    )
