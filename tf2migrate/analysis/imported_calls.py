"""Calls of other modules' functions and objects in graph-building code, read through
their summaries (analysis/project.py).

The per-file analysis refuses a Python call it cannot see into: moved into a generated
function, it would run on every call instead of once.  A call of a *pure builder* of
another module is the exception that research code needs: under ``tf.function`` a
builder runs when the function is traced, exactly as TF1 ran it when the graph was
built, and it only makes ops from its arguments — so the traced graph is TF1's graph.
(With ``--no-tf-function`` it runs on every call, making the same ops from the same
arguments each time: the values are the same.)  Its variables are another matter: a
function or constructor that creates variables must run once, where TF1 ran it, and a
*net object* (a class whose ``__init__`` makes the variables and whose ``__call__`` is a
builder) is made once and called in the generated function.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import libcst as cst

from tf2migrate.analysis.model import GraphFacts, Kind, Scope, lookup_graph_name
from tf2migrate.analysis.names import root_name, self_attribute
from tf2migrate.analysis.project import ModuleSummary, submodule
from tf2migrate.analysis.summaries import BUILDER, MAKES_ITERATOR, NUMPY, SESSION, UNKNOWN, VARIABLES, Summary
from tf2migrate.analysis.tf_imports import dotted_name
from tf2migrate.traversal import find_all


def summary_of(facts: GraphFacts, call: cst.Call) -> Summary | None:
    """The summary of what ``call`` calls, when it names an imported function or class."""
    if not facts.imported:
        return None
    name = dotted_name(call.func)
    return facts.imported.get(name) if name is not None else None


def arguments_changed(facts: GraphFacts, node: cst.CSTNode, sources: dict[str, str]) -> set[str]:
    """The names whose objects a statement may change through another module's function:
    each argument's root name when the function changes what it is given in place (``bump(c)``
    of ``def bump(v): v[0] = …``), the changed parameter not told apart; and when it changes
    its own module's state (``grow()`` whose ``SIZES[0] = 10.0``, ``settings.set_f(9.0)``
    whose ``global F``), every name this file imports from that module (``SIZES``,
    ``settings``): ``sources``, each imported name's module (:func:`import_sources`)."""
    if not facts.imported:
        return set()
    changed: set[str] = set()
    for call, found in _summarised_calls(facts, node):
        if found.changes_arguments:
            changed |= {root for a in call.args if (root := root_name(a.value)) is not None}
        if found.changes_module_state and (source := sources.get(root_name(call.func) or "")) is not None:
            # (its functions and classes aside: a graph calling ``build`` reads no state of theirs)
            changed |= {name for name, module in sources.items() if module == source and name not in facts.imported}
    return changed


def module_state_changed(facts: GraphFacts, node: cst.CSTNode) -> set[str]:
    """The names whose values a statement may change through a project function changing
    module state (``set_scale(4.0)`` whose ``cfg.SCALE = s``; :func:`state_links`): the names bound from its module and from any module reading one it
    imports."""
    if not facts.names_changed_by_calls:
        return set()
    changed: set[str] = set()
    for call, found in _summarised_calls(facts, node):
        if found.changes_module_state:
            changed |= facts.names_changed_by_calls.get(root_name(call.func) or "", set())
    return changed


def _summarised_calls(facts: GraphFacts, node: cst.CSTNode) -> Iterator[tuple[cst.Call, Summary]]:
    """The calls below ``node`` of other modules' functions, with their summaries."""
    for found_call in find_all(node, cst.Call):
        call = cst.ensure_type(found_call, cst.Call)
        found = summary_of(facts, call)
        if found is not None:
            yield call, found


def import_sources(module: cst.Module) -> dict[str, str]:
    """The module each name a top-level import binds comes from (``import settings as s``:
    ``s`` → ``settings``; ``from settings import SIZES``: ``SIZES`` → ``settings``)."""
    sources: dict[str, str] = {}
    for line in module.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    full = dotted_name(alias.name) or ""
                    local = (
                        alias.asname.name.value
                        if alias.asname is not None and isinstance(alias.asname.name, cst.Name)
                        else full.split(".")[0]
                    )
                    sources[local] = full if alias.asname is not None else local
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar) and small.module is not None:
                origin = "." * len(small.relative) + (dotted_name(small.module) or "")
                for alias in small.names:
                    renamed = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else None
                    sources[renamed or (dotted_name(alias.name) or "")] = origin
    return sources


class StateLinks(NamedTuple):
    """How a change of a project module's state reaches the names a file's graph reads."""

    # each name a change of whose object changes its module's state: the other names that see it
    sharing: dict[str, set[str]]
    # each name bound to a function of the project: the names a call of it may change what
    # they read, when its summary says it changes module state (its module's, or another's)
    changed_by_calls: dict[str, set[str]]
    # each name reading the state of a module another file of the run changes: that module's file name
    changed_elsewhere: dict[str, str]


def state_links(
    module: cst.Module, sources: dict[str, str], modules: dict[str, ModuleSummary], changed_elsewhere: frozenset[Path] = frozenset()
) -> StateLinks:
    """The names through which a change of a project module's state is seen: every name bound
    from the same module (``import utils as U`` besides ``import utils``; ``scaled`` and ``CONFIG``
    of ``from utils import scaled, CONFIG``, whose ``CONFIG["scale"] = 6.0`` changes what
    ``scaled`` reads; ``from utils import *``), every name bound from a module that imports it,
    directly or through others (``utils``, whose builders read ``cfg.SCALE``, for ``cfg.SCALE =
    5.0``), and the objects the module's functions and classes made (``net = nets.Net()``, whose
    ``__call__`` reads ``nets.SCALE``: a reader only, ``net.scale = 2.0`` changes no module).
    A function of the project that changes module state (``tools.set_scale`` setting
    ``cfg.SCALE``) may change any module its module imports (its own module's state is in
    its module's summaries already: a function reading it is no builder).  A graph built from one
    of them captured the module's values of that moment.  ``sources``: :func:`import_sources`;
    ``modules``: the file's project modules by the dotted name its imports write
    (FileContext.modules); ``changed_elsewhere``: the project modules another file of the run
    changes (FileContext.changed_elsewhere)."""
    located: dict[str, ModuleSummary] = {}
    for name, source in sources.items():
        # (``from pkg import model``: the submodule ``pkg.model`` when it is one)
        found = modules.get(submodule(source, name)) if source else None
        found = found or modules.get(source)
        if found is not None:
            located[name] = found
    made: dict[str, ModuleSummary] = {}
    for line in module.body:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar) and small.module is not None:
                star = modules.get("." * len(small.relative) + (dotted_name(small.module) or ""))
                located.update(dict.fromkeys(star.exported, star) if star is not None else {})
            elif isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                maker = located.get(root_name(small.value.func) or "")
                if maker is not None:
                    made.update({t.target.value: maker for t in small.targets if isinstance(t.target, cst.Name)})
    readers = {**made, **located}

    def reading(changed: set[Path]) -> set[str]:
        return {name for name, reader in readers.items() if reader.path in changed or reader.reaches & changed}

    return StateLinks(
        {name: reading({home.path}) - {name} for name, home in located.items()},
        # (not its own module's: a builder reading what a function of its module changes is none,
        # analysis/summaries.py)
        {name: reading(set(home.reaches)) for name, home in located.items()},
        {name: changed.name for changed in sorted(changed_elsewhere) for name in reading({changed})},
    )


def creates_variables(facts: GraphFacts, call: cst.Call) -> bool:
    """A function that makes variables, or the constructor of an object that does."""
    found = summary_of(facts, call)
    return found is not None and found.kind == VARIABLES


def makes_iterator(facts: GraphFacts, call: cst.Call) -> bool:
    """A function that makes a TF1 tf.data iterator (itself or through what it calls)."""
    found = summary_of(facts, call)
    return found is not None and found.reason == MAKES_ITERATOR


def is_session_factory(facts: GraphFacts, call: cst.Call) -> bool:
    """A session factory's call, removed with the session: its arguments are settings
    (``tf_session(0.3, soft=False)``), not calls whose effects would go with it."""
    found = summary_of(facts, call)
    return found is not None and found.kind == SESSION and not any(find_all(a.value, (cst.Call,)) for a in call.args)


def builder_call(facts: GraphFacts, call: cst.Call, scope: Scope, order: int | None) -> Summary | None:
    """The builder summary of a call that only makes graph ops: an imported pure builder
    (a function), or the call of a net object this graph made (``self.net(x)`` where
    ``self.net = neural_net(...)``), or of one of its builder methods (``net.forward(x)``)."""
    found = summary_of(facts, call)
    if found is not None:
        return found if found.kind == BUILDER and found.call is None else None
    if not facts.imported:
        return None
    made = _constructor(facts, call.func, scope, order)
    if made is not None:
        return made.call if made.call is not None and made.call.kind == BUILDER else None
    if not isinstance(call.func, cst.Attribute):
        return None
    owner = _constructor(facts, call.func.value, scope, order)
    if owner is None:
        return None
    method = facts.imported.get(f"{owner.module_name}.{call.func.attr.value}")
    return method if method is not None and method.kind == BUILDER else None


class _Made(NamedTuple):
    """The class summary of a net object, and the name its class is called by."""

    module_name: str
    call: Summary | None


def _constructor(facts: GraphFacts, instance: cst.BaseExpression, scope: Scope, order: int | None) -> _Made | None:
    """What made the net object ``instance`` names (``net`` or ``self.net``): a variable
    statement of this graph binding it, alone, to the call of a class that creates variables."""
    name = instance.value if isinstance(instance, cst.Name) else self_attribute(instance)
    if name is None:
        return None
    bound = lookup_graph_name(scope, name, order)
    if bound is None or bound[1].kind is not Kind.VARIABLE:
        return None
    node = bound[1].node
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)):
        return None
    value = node.body[0].value
    made = summary_of(facts, value) if isinstance(value, cst.Call) else None
    if made is None or made.kind != VARIABLES or len(node.body[0].targets) != 1:
        return None
    assert isinstance(value, cst.Call)  # as summarized
    return _Made(dotted_name(value.func) or "", made.call)


def _unknown_object_refusal(facts: GraphFacts, call: cst.Call, scope: Scope, order: int | None) -> str | None:
    """Why the call of an object made from another module's class that is no net object
    (``net = Normed(3, 1)`` … ``net(x)``, whose constructor computes a tensor from its
    variables) keeps the graph on TF1, with the class's reason; None otherwise."""
    if not isinstance(call.func, cst.Name):
        return None
    bound = scope.resolve(call.func.value, order)
    node = bound.node if bound is not None else None
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)):
        return None
    value = node.body[0].value
    made = summary_of(facts, value) if isinstance(value, cst.Call) else None
    if made is None or made.kind != UNKNOWN or not made.reason:
        return None
    assert isinstance(value, cst.Call)  # as summarized
    return (
        f"`{call.func.value}`, made by `{dotted_name(value.func)}(...)` (from {made.module}), is not a net object ({made.reason}): "
        "graph-building code calling it is not converted"
    )


def takes_gradients(facts: GraphFacts, call: cst.Call, scope: Scope | None = None, order: int | None = None) -> bool:
    """Does the imported builder (or net object) ``call`` calls take ``tf.gradients``?
    The generated function calling it then runs as a ``tf.function`` (TFM203), where
    ``tf.gradients`` is valid TF2: a tape inside the helper could not see the forward
    computation its caller made."""
    found = summary_of(facts, call)
    if found is None and scope is not None:
        found = builder_call(facts, call, scope, order)
    return found is not None and found.uses_gradients


def refusal(facts: GraphFacts, call: cst.Call) -> str | None:
    """Why a call of another module's function keeps this graph on TF1, naming the
    module and the helper; None when ``call`` does not call one."""
    found = summary_of(facts, call)
    if found is None:
        return None
    name = dotted_name(call.func)
    where = f"`{name}` (from {found.module})"
    if found.kind == NUMPY:
        return f"{where} runs a session and returns NumPy: graph-building code calling it is not converted"
    if found.kind == UNKNOWN:
        return f"{where} is not a pure graph builder ({found.reason}): graph-building code calling it is not converted"
    return f"{where} is not a pure graph builder ({found.kind}): graph-building code calling it is not converted"


def net_method_refusal(facts: GraphFacts, call: cst.Call, scope: Scope, order: int | None) -> str | None:
    """Why the call of a net object this graph made (``net(x)``, ``net.apply(x)``) that is not
    a pure builder keeps the graph on TF1 (its method appends to a module list, say: TF1 ran
    that once, a generated function at each trace or call); None when ``call`` is not one.
    Its class is the one the object was made from, never another of the same method name."""
    if not facts.imported:
        return None
    made = _constructor(facts, call.func, scope, order)
    if made is not None:
        method, found = f"{made.module_name}.__call__", made.call
    elif isinstance(call.func, cst.Attribute) and (owner := _constructor(facts, call.func.value, scope, order)) is not None:
        method = f"{owner.module_name}.{call.func.attr.value}"
        found = facts.imported.get(method)
    else:
        return _unknown_object_refusal(facts, call, scope, order)
    why = "the class defines no such method" if found is None else found.reason or found.kind
    return f"`{method}`, called on a net object, is not a pure graph builder ({why}): graph-building code calling it is not converted"
