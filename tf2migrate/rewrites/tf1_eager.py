"""TF1 programs that ran eagerly already: ``tf.enable_eager_execution()`` at the top.

TF 1.5–1.15 could run eagerly when a program switched eager execution on first thing;
its tutorials then used ``tf.contrib.eager`` (imported as ``tfe``) for what TF2 made
core.  In TF2 every program runs eagerly, so the rest is a matter of spelling:

- ``tf.enable_eager_execution()`` goes away (it is TF2's default);
- ``tfe = tf.contrib.eager`` goes away when each use of ``tfe`` is one of: ``tfe.Variable(…)``
  → ``tf.Variable(…)`` (the same resource variable), ``tfe.Iterator(dataset)`` →
  ``iter(dataset)`` (the same eager iterator: ``next()`` gives the next element, then
  ``StopIteration``), ``tfe.implicit_gradients(f)`` → ``implicit_gradients(f)``, a helper
  written once per file that does what TF1's did: run ``f`` under a tape, and return the
  (gradient, variable) pairs of the trainable variables it read;
- ``opt = tf.train.GradientDescentOptimizer(lr)`` used only as ``opt.apply_gradients(pairs)``
  → ``tf.keras.optimizers.SGD(learning_rate=lr)``: the same update, ``var -= lr * grad``
  (sparse gradients included), when ``lr`` is a number written out or a name bound once to one.

Anything else (another ``tfe`` member such as ``tfe.Network``, another optimizer, an
optimizer used otherwise) is left as it was, with the findings the names get.
"""

from __future__ import annotations


import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.names import bound_once_at_top
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.plan import Plan
from tf2migrate.rewrites import file_helpers
from tf2migrate.rewrites.session_cleanup import V1_SWITCH_REMOVED
from tf2migrate.rewrites.tf_names import API_RENAMED
from tf2migrate.traversal import find_all

IMPLICIT_GRADIENTS_NAME = "implicit_gradients"
IMPLICIT_GRADIENTS = '''def implicit_gradients(f):
    """tf.contrib.eager.implicit_gradients: a function returning the (gradient, variable)
    pairs of f's result with respect to the trainable variables f read."""

    def gradients(*args, **kwargs):
        with tf.GradientTape() as tape:
            result = f(*args, **kwargs)
        variables = tape.watched_variables()
        if not variables:
            raise ValueError("No trainable variables were accessed while the function was being computed.")
        return list(zip(tape.gradient(result, variables), variables))

    return gradients
'''
_TFE_MEMBERS = frozenset({"Variable", "Iterator", "implicit_gradients"})


def may_be_tf1_eager(source: str) -> bool:
    """A cheap test that this rewrite has nothing to do: no text of the switch."""
    return "enable_eager_execution" in source


def enables_eager_execution(module: cst.Module, imports: TfImports) -> bool:
    """Does the module switch eager execution on at its top level?  Then it ran eagerly from
    its first op (TF1 raised when the switch came after one): its sessions and module-level
    ops are no graph to convert or keep (a kept graph's ``disable_eager_execution()`` would
    turn the program into the graph program it never was)."""
    return _enable_statement(module, imports) is not None


def plan_tf1_eager(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str], graph_objects: bool = False) -> None:
    """``graph_objects``: the file also makes what reads as a TF1 graph (a session, which
    stays ``tf.compat.v1.Session``).  The switch then stays too, as
    ``tf.compat.v1.enable_eager_execution()`` (nothing in TF2): it tells a later run that
    the program runs eagerly, which the session alone would hide."""
    enable = _enable_statement(module, facts.imports)
    if enable is None:
        return
    if graph_objects:
        # (the switch is renamed as any TF1 name is, with its TFM401 finding)
        if facts.imports.call_name(cst.ensure_type(cst.ensure_type(enable.body[0], cst.Expr).value, cst.Call)) is None:
            return  # ``tfe.enable_eager_execution()``: the ``tfe`` import stays with it
    else:
        plan.remove.add(id(enable))
        plan.note(enable, V1_SWITCH_REMOVED.code, "tf.enable_eager_execution() removed: TF2 runs eagerly")
    top_level = bound_once_at_top(module)
    names = find_all(module, cst.Name)
    for line, alias in _imported_tfe(module, facts.imports):
        # the import's uses but the switch, removed already
        switch = cst.ensure_type(cst.ensure_type(enable.body[0], cst.Expr).value, cst.Call).func
        in_switch = {id(part) for part in find_all(switch, cst.Name)}
        uses = [n for n in _uses(alias, line, names) if id(n) not in in_switch]
        _plan_tfe(module, facts, plan, names_in_use, line, alias, uses, "import tensorflow.contrib.eager as")
    for name, (statement, value) in top_level.items():
        if facts.imports.canonical(value) == "contrib.eager":
            _plan_tfe(module, facts, plan, names_in_use, statement, name, _uses(name, statement, names))
        elif isinstance(value, cst.Call) and facts.imports.call_name(value) == "train.GradientDescentOptimizer":
            _plan_optimizer(module, plan, statement, value, name, names, top_level)


def _enable_statement(module: cst.Module, imports: TfImports) -> cst.SimpleStatementLine | None:
    for statement in module.body:
        if m.matches(statement, m.SimpleStatementLine(body=[m.Expr(m.Call(args=[]))])):
            call = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Expr).value
            assert isinstance(call, cst.Call)
            # ``tf.enable_eager_execution()``, or ``tfe.enable_eager_execution()`` of ``import tensorflow.contrib.eager as tfe``
            if (
                imports.call_name(call) == "enable_eager_execution"
                or imports.kept_call_name(call) == "contrib.eager.enable_eager_execution"
            ):
                return cst.ensure_type(statement, cst.SimpleStatementLine)
    return None


def _imported_tfe(module: cst.Module, imports: TfImports) -> list[tuple[cst.SimpleStatementLine, str]]:
    """``import tensorflow.contrib.eager as tfe`` at the module's top, one alias to a line:
    (the line, the alias)."""
    # (the imports' reading kept the aliases; a line of its own holds one of them)
    aliases = {id(alias) for alias, dotted in imports.kept if dotted == "tensorflow.contrib.eager" and isinstance(alias, cst.ImportAlias)}
    found = []
    for statement in module.body:
        if m.matches(statement, m.SimpleStatementLine(body=[m.Import(names=[m.ImportAlias(asname=m.AsName(name=m.Name()))])])):
            alias = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Import).names[0]
            if id(alias) in aliases and alias.evaluated_alias is not None:
                found.append((cst.ensure_type(statement, cst.SimpleStatementLine), alias.evaluated_alias))
    return found


def _uses(name: str, statement: cst.SimpleStatementLine, names: list[cst.CSTNode]) -> list[cst.Name]:
    """Every occurrence of ``name`` outside its binding ``statement``."""
    bound = {id(n) for n in find_all(statement, cst.Name)}
    return [n for n in names if isinstance(n, cst.Name) and n.value == name and id(n) not in bound]


def _member_calls(module: cst.Module, uses: list[cst.Name], members: frozenset[str]) -> list[tuple[cst.Call, str]] | None:
    """``(call, member)`` for each use written ``alias.member(...)``; None when a use is anything else."""
    parents = {id(a.value): a for a in find_all(module, m.Attribute(value=m.Name())) if isinstance(a, cst.Attribute)}
    calls = {id(c.func): c for c in find_all(module, m.Call(func=m.Attribute(value=m.Name()))) if isinstance(c, cst.Call)}
    out = []
    for use in uses:
        attribute = parents.get(id(use))
        call = calls.get(id(attribute)) if attribute is not None else None
        if attribute is None or call is None or attribute.attr.value not in members or any(a.star for a in call.args):
            return None
        out.append((call, attribute.attr.value))
    return out


def _plan_tfe(module, facts: GraphFacts, plan: Plan, names_in_use: set[str], statement, alias: str, uses, binding="") -> None:
    """``binding``: how the statement binds the alias (``import tensorflow.contrib.eager as``),
    when it is not ``alias = tf.contrib.eager``."""
    calls = _member_calls(module, uses, _TFE_MEMBERS)
    if calls is None or any(member != "Variable" and (len(call.args) != 1 or call.args[0].keyword) for call, member in calls):
        return
    plan.remove.add(id(statement))
    if binding:
        # the import goes: its kept-import finding (TFM403) with it
        plan.remove.add(id(cst.ensure_type(statement.body[0], cst.Import).names[0]))
    written = f"{binding} {alias}" if binding else f"{alias} = tf.contrib.eager"
    plan.note(statement, API_RENAMED.code, f"`{written}` removed: its members used here are TF2 core")
    for call, member in calls:
        if member == "Variable":
            plan.call_replacements[id(call)] = lambda updated: updated.with_changes(func=cst.parse_expression("tf.Variable"))
            plan.note(call, API_RENAMED.code, f"{alias}.Variable → tf.Variable")
        elif member == "Iterator":
            plan.call_replacements[id(call)] = lambda updated: updated.with_changes(func=cst.Name("iter"))
            plan.note(call, API_RENAMED.code, f"{alias}.Iterator(dataset) → iter(dataset) (TF2 datasets iterate eagerly)")
        else:
            helper = file_helpers.emit_once(module, facts, plan, names_in_use, IMPLICIT_GRADIENTS_NAME, IMPLICIT_GRADIENTS)
            plan.call_replacements[id(call)] = lambda updated, helper=helper: updated.with_changes(func=cst.Name(helper))
            plan.note(
                call, API_RENAMED.code, f"{alias}.implicit_gradients → `{helper}`, a GradientTape over the function's trainable variables"
            )


def _plan_optimizer(module, plan: Plan, statement, call: cst.Call, name: str, names, top_level) -> None:
    if len(call.args) != 1 or call.args[0].star or (call.args[0].keyword is not None and call.args[0].keyword.value != "learning_rate"):
        return
    rate = call.args[0].value
    if isinstance(rate, cst.Name) and rate.value in top_level:
        rate = top_level[rate.value][1]  # a rate named once at the top: its number
    if not _is_number(rate):
        return  # a variable or tensor rate: TF1 read it at each step, Keras copies it once
    calls = _member_calls(module, _uses(name, statement, names), frozenset({"apply_gradients"}))
    statements = {id(e.value) for line in find_all(module, m.SimpleStatementLine(body=[m.Expr()])) for e in _expressions(line)}
    if not calls or any(len(c.args) != 1 or c.args[0].keyword or id(c) not in statements for c, _ in calls):
        return  # used otherwise (global_step=, its result read): TF1's optimizer API
    code = module.code_for_node(call.args[0].value)
    plan.call_replacements[id(call)] = lambda updated: cst.parse_expression(f"tf.keras.optimizers.SGD(learning_rate={code})")
    plan.note(call, API_RENAMED.code, "tf.train.GradientDescentOptimizer → tf.keras.optimizers.SGD (the same update, var -= lr * grad)")


def _is_number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _expressions(line: cst.CSTNode) -> list[cst.Expr]:
    """The expression statement of a line holding only it."""
    return [e for e in cst.ensure_type(line, cst.SimpleStatementLine).body if isinstance(e, cst.Expr)]
