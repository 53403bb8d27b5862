"""Net objects that receive their session from the caller (``Model(sess, "m1")``).

Tutorial and research code often builds the graph in a class and lets the caller make
the session and initialise the variables once every model exists::

    class Model:
        def __init__(self, sess, name):
            self.sess = sess
            self._build_net()               # placeholders, layers, cost, optimizer
        def predict(self, x):
            return self.sess.run(self.logits, {self.X: x})

    sess = tf.Session()
    models = [Model(sess, "m" + str(i)) for i in range(7)]
    sess.run(tf.global_variables_initializer())

The class converts as one that makes its own session (``self.sess`` is used only by
``run``): the parameter, the statement storing it and the argument of every construction
go away with the session.  What TF1 did in between matters: its variables got their
initial values when the caller's initializer ran, after all models were built; eager
variables get theirs when created.  The two agree when every model is constructed before
that single run and nothing ran in between that could see the variables — so the
constructions must be module-level statements that precede it.  Random initial values are
drawn from the same distributions in both (the file-wide difference TFM401 reports for
``set_random_seed``), except where an op has a seed of its own: TF1 drew the *same*
values for two ops with equal seeds (every model of an ensemble started equal), eager TF2
draws new values at each call, so a class built more than once with op seeds is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import bind_arguments, calls_in
from tf2migrate.analysis.catalogue import INIT_CALLS
from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.names import self_attribute
from tf2migrate.analysis.project import FileContext
from tf2migrate.traversal import find_all


@dataclass
class SessionParameter:
    """``def __init__(self, sess, …): self.sess = sess`` of a class built with a session.

    A class built by another module has no constructions here (``arguments`` empty), and
    that module's constructions have no class (``init``, ``param`` and ``store`` None):
    analysis/external_builds.py proved both sides from the project."""

    init: cst.FunctionDef | None
    param: cst.Param | None
    store: cst.SimpleStatementLine | None  # ``self.sess = sess``
    attribute: str  # ``self.sess``
    arguments: list[tuple[cst.Call, cst.Arg]]  # each construction and its session argument


def find_session_parameters(
    module: cst.Module, facts: GraphFacts, classes: list[cst.ClassDef], links: FileContext | None = None
) -> list[SessionParameter]:
    """The classes of the module built with the caller's session, checked as the module
    docstring says; a class of that shape that cannot be converted is reported.
    ``links``: the sessions another module's callers proved (analysis/external_builds.py)."""
    found: list[SessionParameter] = _linked(module, facts, classes, links) if links is not None else []
    if not facts.session_names:
        return found
    top_level = {id(s) for s in module.body}
    for cls in classes:
        init = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
        if id(cls) not in top_level or init is None:
            continue
        calls = [c for c in facts.calls if m.matches(c.func, m.Name(cls.name.value))]
        for param, store, attribute in _stored_parameters(init) if calls else ():
            arguments = [(call, _argument(call, init, param)) for call in calls]
            given = [a.value.value for _, a in arguments if a is not None and isinstance(a.value, cst.Name)]
            if len(given) < len(calls) or not set(given) <= facts.session_names or _named_otherwise(module, cls, calls):
                continue  # not given a session (or not only, or not only here): an ordinary parameter
            problem = _order_problem(module, facts, cls, set(given), calls) or _seed_problem(module, facts, cls, calls)
            if problem is not None:
                facts.block(problem[0], blockers.UNSUPPORTED_SESSION, problem[1])
                break
            found.append(SessionParameter(init, param, store, attribute, arguments))  # type: ignore[arg-type]
            facts.session_names.add(attribute)
            facts.allowed_session_reads.update(id(a.value) for _, a in arguments)  # type: ignore[union-attr]
            break
    return found


def _linked(module: cst.Module, facts: GraphFacts, classes: list[cst.ClassDef], links: FileContext) -> list[SessionParameter]:
    """The class side (a constructor whose session parameter goes: its callers build it
    elsewhere) and the caller side (the session block's name, read only as arguments of
    those constructions, which lose them)."""
    found: list[SessionParameter] = []
    top_level = {id(s) for s in module.body}
    for cls in classes:
        build = links.external_builds.get(cls.name.value)
        init = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
        if build is None or build.session is None or init is None or id(cls) not in top_level:
            continue
        for param, store, attribute in _stored_parameters(init):
            if param.name.value == build.session:
                found.append(SessionParameter(init, param, store, attribute, []))
                facts.session_names.add(attribute)
    for _, name, why in links.session_notes:
        facts.session_notes[name] = why
    for owner, name in links.given_sessions:
        scopes = (
            [module]
            if not owner
            else [cst.ensure_type(f, cst.FunctionDef).body for f in find_all(module, m.FunctionDef(name=m.Name(owner)))]
        )
        if len(scopes) != 1:
            continue
        arguments = []
        for call in calls_in(scopes[0], enter_defs=False):
            for argument in call.args:
                if m.matches(argument.value, m.Name(name)):
                    arguments.append((call, argument))
        found.append(SessionParameter(None, None, None, name, arguments))
        facts.allowed_session_reads.update(id(a.value) for _, a in arguments)
    return found


def _stored_parameters(init: cst.FunctionDef) -> list[tuple[cst.Param, cst.SimpleStatementLine, str]]:
    """``self.sess = sess``: statements of the constructor's own body storing a plain
    parameter the constructor reads nowhere else."""
    params = {p.name.value: p for p in init.params.params[1:] if p.default is None}
    attributes = {id(a.attr) for a in find_all(init.body, cst.Attribute) if isinstance(a, cst.Attribute)}
    reads: dict[str, list[cst.CSTNode]] = {}
    for node in find_all(init.body, cst.Name):
        if id(node) not in attributes:
            reads.setdefault(cst.ensure_type(node, cst.Name).value, []).append(node)
    stored = []
    for statement in init.body.body:
        if not m.matches(statement, m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget()], value=m.Name())])):
            continue
        assign = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Assign)
        attribute = self_attribute(assign.targets[0].target)
        name = cst.ensure_type(assign.value, cst.Name).value
        if attribute is not None and name in params and reads.get(name) == [assign.value]:
            stored.append((params[name], cst.ensure_type(statement, cst.SimpleStatementLine), attribute))
    return stored


def _named_otherwise(module: cst.Module, cls: cst.ClassDef, calls: list[cst.Call]) -> bool:
    """Does the file name the class other than to call it (a subclass, an alias, an
    argument: constructions it cannot see)?"""
    called = {id(c.func) for c in calls}
    return any(n is not cls.name and id(n) not in called for n in find_all(module, m.Name(cls.name.value)))


def _argument(call: cst.Call, init: cst.FunctionDef, param: cst.Param) -> cst.Arg | None:
    if any(a.star for a in call.args):
        return None
    names = [p.name.value for p in init.params.params[1:]]
    bound = bind_arguments(call, tuple(names))
    return bound.get(param.name.value) if bound is not None else None


def _order_problem(
    module: cst.Module, facts: GraphFacts, cls: cst.ClassDef, sessions: set[str], constructions: list[cst.Call]
) -> tuple[cst.CSTNode, str] | None:
    """Why the caller's initializer run does not come once, after every construction."""
    name = cls.name.value
    if len(sessions) > 1:
        return constructions[0], f"`{name}` is given different sessions ({', '.join(sorted(sessions))}); converted with one"
    (session,) = sessions
    statements = _effective_statements(module.body, session)
    position = {id(c): i for i, s in enumerate(statements) for c in calls_in(s, enter_defs=False)}
    runs = [c for c in facts.calls if _is_initializer_run(facts, module, c, session)]
    placed = [position.get(id(c)) for c in runs]
    if len(runs) != 1 or placed[0] is None:
        site = runs[0] if runs else constructions[0]
        return site, (
            f"`{name}` gets its session `{session}` from the caller, whose variables initializer must run once, as a "
            "module-level statement, for the models' variables to be initialised as eagerly created ones are"
        )
    for call in constructions:
        where = position.get(id(call))
        if where is None or where >= placed[0]:
            return call, (
                f"`{name}` is constructed {'inside a function, not before' if where is None else 'after'} the run of "
                f"`{session}`'s variables initializer: TF1 initialised its variables at that run only, eager variables "
                "are initialised when created"
            )
    return None


def _effective_statements(body, session: str) -> list[cst.CSTNode]:
    """Module-level statements, with ``with <session>:`` blocks opened up."""
    out: list[cst.CSTNode] = []
    for statement in body:
        if isinstance(statement, cst.With) and any(
            item.asname is not None and m.matches(item.asname.name, m.Name(session)) for item in statement.items
        ):
            out += _effective_statements(statement.body.body, session)
        else:
            out.append(statement)
    return out


def _is_initializer_run(facts: GraphFacts, module: cst.Module, call: cst.Call, session: str) -> bool:
    """``sess.run(tf.global_variables_initializer())``, or of ``init`` bound once to one."""
    if not m.matches(call.func, m.Attribute(value=m.Name(session), attr=m.Name("run"))) or not call.args:
        return False
    fetch = call.args[0].value
    if isinstance(fetch, cst.Name):
        bound = [
            cst.ensure_type(a, cst.Assign).value for a in find_all(module, m.Assign(targets=[m.AssignTarget(target=m.Name(fetch.value))]))
        ]
        fetch = bound[0] if len(bound) == 1 else fetch
    return isinstance(fetch, cst.Call) and facts.imports.call_name(fetch) in INIT_CALLS


def _seed_problem(
    module: cst.Module, facts: GraphFacts, cls: cst.ClassDef, constructions: list[cst.Call]
) -> tuple[cst.CSTNode, str] | None:
    """An op seed in a class constructed more than once (or in a loop or comprehension)."""
    loops = find_all(module, (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp))
    repeated = {id(c) for loop in loops for c in calls_in(loop, enter_defs=True)}
    if len(constructions) == 1 and id(constructions[0]) not in repeated:
        return None
    for call in calls_in(cls, enter_defs=True):
        if facts.imports.call_name(call) is not None and any(a.keyword is not None and a.keyword.value == "seed" for a in call.args):
            return call, (
                f"`{cls.name.value}` is built more than once with an op seed: TF1 drew the same initial values for ops of "
                "equal seeds (every model started equal), eager TF2 draws new ones at each call"
            )
    return None
