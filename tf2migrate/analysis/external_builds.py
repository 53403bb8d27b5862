"""Graphs built by a method another module calls, right after constructing the object.

GAN collections keep one class per model; the constructor stores settings (and the
caller's session), ``build_model()`` makes placeholders, nets, losses and optimizers, and
the program does::

    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        gan = GAN(sess, epoch=2, batch_size=64)
        gan.build_model()
        gan.train()

TF1 ran ``build_model`` once, after the constructor and before anything else touched the
object: exactly as if the constructor's last statement had called it.  So the class is
converted as one whose constructor ends with ``self.build_model()`` (the method is read
as part of the constructor, analysis/graph.py), while the call itself stays where the
caller wrote it, which is where it ran.  And the caller's session, made for the object and
used only by passing it in, goes with the session block and its configuration: the
constructor loses the parameter and each construction its argument (as for a class of the
same file, analysis/session_parameters.py).

Every condition is proved from the project's modules (``ast``, read once by
analysis/project.py), for each class and from every module of the run that imports it:

- the caller constructs the class as a statement of its own, ``x = GAN(...)`` (or
  ``x = model(...)`` for ``model`` a loop variable over a list display of such classes,
  bound once), binds ``x`` otherwise only to ``None``, and its first use of ``x`` after
  the constructions but ``x is None`` tests is the statement ``x.build_model()``, outside
  any loop, without arguments;
- the method is named once in the run's files (that call) and by no line of the class's
  module; the class is named by the caller only to import and construct it (no subclass,
  no alias) and by its own module nowhere but its ``class`` line;
- a constructor parameter stored as ``self.sess = sess`` (and read nowhere else) that
  receives the ``as`` name of the caller's ``with tf.Session(...) as sess:`` block: that
  name is read only as such arguments.  A session given otherwise keeps the class on TF1.

What fails is said (the TFM307 of the class names the construct and the module).  A run
given the class's module without its callers, or the callers without the module, keeps
the class as before: the module is never rewritten for callers it cannot see.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tf2migrate.analysis.catalogue import INIT_CALLS, PLACEHOLDER_CALLS, SESSION_CALLS
from tf2migrate.analysis.module_facts import ast_dotted_name
from tf2migrate.analysis.tf_imports import TfImports


@dataclass(frozen=True)
class BuildClass:
    """What a module's class offers a caller's build step (read from the class's module)."""

    params: tuple[str, ...]  # the constructor's named parameters but ``self``, in order
    stored: frozenset[str]  # parameters stored as ``self.x = p`` and read nowhere else
    methods: frozenset[str]  # graph-building methods the module itself never names
    named: bool  # the module names the class other than by its ``class`` line
    # methods (but the constructor) that make an initializer: run once, they initialised
    # what eager variables get at creation; run again, TF1 reset the trained values
    initializing: frozenset[str] = frozenset()
    initializing_called: bool = False  # the module calls one of them itself (``self.train()``)
    defined: frozenset[str] = frozenset()  # the methods of its body


@dataclass(frozen=True)
class ExternalBuild:
    """A class's build step proved from its callers: the method and the session parameter."""

    method: str
    session: str | None = None


@dataclass
class CallerFacts:
    """What one caller module proved (or refused) for the classes it imports."""

    # (module path, class) → the build step this caller proves, or why it does not
    builds: dict[tuple[Path, str], ExternalBuild | str] = field(default_factory=dict)
    # (function name or "" for the module, session name): sessions made for the built
    # objects only, each with the classes it is given to
    sessions: dict[tuple[str, str], set[tuple[Path, str]]] = field(default_factory=dict)


def join(found: dict, key, proof: ExternalBuild | str) -> None:
    """Add one proof (or refusal) for a class to what is known: a refusal wins, and two
    proofs must agree."""
    known = found.get(key)
    if known is None or (isinstance(known, ExternalBuild) and isinstance(proof, str)):
        found[key] = proof
    elif isinstance(known, ExternalBuild) and proof != known:
        found[key] = "its callers build it differently"


def build_classes(tree: ast.Module, tf: TfImports) -> dict[str, BuildClass]:
    """The module's top-level classes with a constructor and a method that builds graph
    pieces (placeholders or sessions) that no line of the module names."""
    found: dict[str, BuildClass] = {}
    building = []  # (class, its defs, its constructor, its graph-building methods)
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        defs = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)}
        init = defs.get("__init__")
        if init is not None:
            graph = [name for name, method in defs.items() if name != "__init__" and _builds_graph(method, tf)]
            if graph:
                building.append((cls, defs, init, graph))
    if not building:
        return found  # (the walks of the whole module below only for the few files with such classes)
    loads = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]
    attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for cls, defs, init, graph in building:
        methods = frozenset(name for name in graph if name not in attributes and name not in loads)
        if not methods:
            continue
        params = tuple(a.arg for a in init.args.args[1:])
        initializing = frozenset(name for name, method in defs.items() if name != "__init__" and _initializes(method, tf)) - methods
        called = any(isinstance(n, ast.Attribute) and n.attr in initializing and _is_self(n.value) for n in ast.walk(tree))
        found[cls.name] = BuildClass(params, _stored(init), methods, cls.name in loads, initializing, called, frozenset(defs))
    return found


def _builds_graph(method: ast.FunctionDef, tf: TfImports) -> bool:
    for node in ast.walk(method):
        if isinstance(node, ast.Call):
            name = ast_dotted_name(node.func)
            if tf.canonical_dotted(name) in PLACEHOLDER_CALLS | SESSION_CALLS:
                return True
    return False


def _initializes(method: ast.FunctionDef, tf: TfImports) -> bool:
    return any(isinstance(n, ast.Call) and tf.canonical_dotted(ast_dotted_name(n.func)) in INIT_CALLS for n in ast.walk(method))


def _stored(init: ast.FunctionDef) -> frozenset[str]:
    """``self.sess = sess``, a statement of the constructor's own body, for a parameter
    without default that the constructor reads nowhere else."""
    args = init.args
    plain = {a.arg for a in args.args[1 : len(args.args) - len(args.defaults)]}
    reads: dict[str, int] = {}
    for node in ast.walk(init):
        if isinstance(node, ast.Name):
            reads[node.id] = reads.get(node.id, 0) + 1
    stored = set()
    for statement in init.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Attribute)
            and isinstance(statement.targets[0].value, ast.Name)
            and statement.targets[0].value.id == "self"
            and isinstance(statement.value, ast.Name)
            and statement.value.id in plain
            and reads.get(statement.value.id) == 1
        ):
            stored.add(statement.value.id)
    return frozenset(stored)


def caller_facts(
    tree: ast.Module, tf: TfImports, classes: dict[str, tuple[Path, str, BuildClass]], named: Callable[[str], int], imported: bool = False
) -> CallerFacts:
    """What ``tree`` (a caller) proves for the build classes it imports: ``classes`` maps
    the names it binds them to (``from GAN import GAN``) to (module path, class, facts);
    ``named``: how often the run's files name a method (each build method: once);
    ``imported``: other modules of the run import the caller (its module-level names are theirs too)."""
    facts = CallerFacts()
    if not classes:
        return facts
    loads: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            loads[node.id] = loads.get(node.id, 0) + 1
    scopes: list[ast.AST] = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    seen: set[str] = set()
    for scope in scopes:
        for target, built in _constructions(scope, classes).items():
            seen |= {local for local, _ in built}
            _prove(tree, scope, target, built, classes, tf, named, facts, imported)
    allowed = _construction_names(tree, classes)
    for local, (path, name, cls) in classes.items():
        key = (path, name)
        if loads.get(local, 0) > allowed.get(local, 0):
            join(facts.builds, key, f"the caller names `{local}` other than to construct it (a subclass, an alias, an argument)")
            continue
        if local not in seen:
            continue
        if cls.named:
            join(facts.builds, key, f"its module names `{name}` other than by its `class` line")
    return facts


def _construction_names(tree: ast.Module, classes) -> dict[str, int]:
    """How often each class name is read to construct it (``x = GAN(...)``) or in a list
    display of classes only (``models = [GAN, CGAN]``, ``for model in [GAN, CGAN]``)."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        names: list[ast.expr] = []
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name):
            # (a construction proved is bound to a name, alone: ``self.gan = GAN(...)`` is another use)
            names = [node.value.func] if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) else []
        elif isinstance(node, (ast.Assign, ast.For)):
            value = node.value if isinstance(node, ast.Assign) else node.iter
            if isinstance(value, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Name) and e.id in classes for e in value.elts):
                names = list(value.elts)
        for name in names:
            if isinstance(name, ast.Name) and name.id in classes:
                counts[name.id] = counts.get(name.id, 0) + 1
    return counts


def _constructions(scope: ast.AST, classes) -> dict[str, list[tuple[str, ast.Assign]]]:
    """``x = GAN(...)`` statements of the scope (not of nested defs), by target: each with
    the name of the class it may construct (every class of a loop over a list display)."""
    out: dict[str, list[tuple[str, ast.Assign]]] = {}
    lists = _class_lists(scope, classes)
    loops: dict[str, list[str]] = {}
    for node in _own_nodes(scope):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            listed = _listed(node.iter, lists, classes)
            if listed is not None:
                loops[node.target.id] = listed
    for node in _own_nodes(scope):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)):
            continue
        func = node.value.func.id
        names = [func] if func in classes else loops.get(func, [])
        if names and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out.setdefault(node.targets[0].id, []).extend((n, node) for n in names)
    return out


def _class_lists(scope: ast.AST, classes) -> dict[str, list[str]]:
    """``models = [GAN, CGAN]`` bound once in the scope: a list display of build classes."""
    bound: dict[str, list[ast.expr]] = {}
    for node in _own_nodes(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            bound.setdefault(node.target.id, []).append(node.target)
    out = {}
    for name, values in bound.items():
        if len(values) == 1 and isinstance(values[0], (ast.List, ast.Tuple)):
            listed = _listed(values[0], {}, classes)
            if listed is not None:
                out[name] = listed
    return out


def _listed(value: ast.expr, lists, classes) -> list[str] | None:
    if isinstance(value, ast.Name):
        return lists.get(value.id)
    if isinstance(value, (ast.List, ast.Tuple)) and value.elts and all(isinstance(e, ast.Name) and e.id in classes for e in value.elts):
        return [e.id for e in value.elts]  # type: ignore[attr-defined]
    return None


def _own_nodes(scope: ast.AST):
    """The nodes of a scope's own code (nested defs and classes left out)."""
    stack = list(reversed(getattr(scope, "body", [])))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _prove(
    tree: ast.Module, scope, target: str, built, classes, tf: TfImports, named: Callable[[str], int], facts: CallerFacts, imported: bool
) -> None:
    keys = {local: (classes[local][0], classes[local][1]) for local, _ in built}

    def refuse(why: str) -> None:
        for key in keys.values():
            join(facts.builds, key, why)

    where = "the module" if isinstance(scope, ast.Module) else f"`{scope.name}`"
    nodes = list(_own_nodes(scope))
    assigns = {id(a) for _, a in built}
    parents = _parents(scope)
    # every binding of the target: a construction or ``None``
    for node in nodes:
        if isinstance(node, (ast.Global, ast.Nonlocal)) and target in node.names:
            return refuse(f"`{target}` in {where} is declared global")
        if isinstance(node, ast.Name) and node.id == target and isinstance(node.ctx, (ast.Store, ast.Del)):
            statement = parents.get(id(node))
            if id(statement) in assigns:
                continue
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant) and statement.value.value is None:
                continue
            return refuse(f"`{target}` in {where} is bound other than to the object")
    nested = [n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))]
    if any(isinstance(n, ast.Name) and n.id == target for d in nested for n in ast.walk(d)):
        return refuse(f"`{target}` is named in a def or lambda of {where}")
    if not isinstance(scope, ast.Module) and target in {a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)}:
        return refuse(f"`{target}` is a parameter of {where}")
    last = max(a.lineno for _, a in built)
    uses = sorted(
        (n for n in nodes if isinstance(n, ast.Name) and n.id == target and isinstance(n.ctx, ast.Load)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    tests = {id(n) for n in nodes if isinstance(n, ast.Compare) and _none_test(n, target)}
    first = next((u for u in uses if id(parents.get(id(u), u)) not in tests or u.lineno < last), None)
    if first is not None and first.lineno < last:
        return refuse(f"`{target}` is used in {where} before its last construction")
    call = _build_statement(first, parents)
    if call is None:
        return refuse(f"the first use of `{target}` in {where} after its construction is not a call of a build method, alone")
    method = call.func.attr  # type: ignore[attr-defined]
    statement = parents[id(call)]
    if any(isinstance(a, (ast.For, ast.While, ast.AsyncFor)) for a in _ancestors(statement, parents)):
        return refuse(f"`{target}.{method}()` in {where} is in a loop")
    if call.args or call.keywords:
        return refuse(f"`{target}.{method}(...)` in {where} passes arguments")
    count = named(method)
    if count != 1:
        return refuse(f"`{method}` is named {count} times in the run's files")
    initializing = {m for local, _ in built for m in classes[local][2].initializing}
    defined = set.intersection(*(set(classes[local][2].defined) for local, _ in built))
    why = _later_uses(uses, call, target, where, initializing, defined, parents)
    if why is None and isinstance(scope, ast.Module) and imported:
        why = f"`{target}` is a module-level name of a module other modules of the run import"
    if why is None and any(classes[local][2].initializing_called for local, _ in built):
        why = "its module calls a method of it that runs the variables initializer"
    if why is not None:
        return refuse(why)
    session = _session_argument(scope, built, classes, tf, nodes, parents)
    if isinstance(session, str):
        return refuse(session)
    if session is not None:
        owner = "" if isinstance(scope, ast.Module) else scope.name
        if owner and sum(1 for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == owner) != 1:
            return refuse(f"the session `{session[0]}` is made in {where}, a name given to several functions")
        facts.sessions[(owner, session[0])] = set(keys.values())
    for local, _ in built:
        if method not in classes[local][2].methods:
            join(facts.builds, keys[local], f"`{target}.{method}()` in {where} is not a graph-building method of it")
            continue
        param = session[1].get(local) if session is not None else None
        join(facts.builds, keys[local], ExternalBuild(method, param))


def mentions(tree: ast.Module, name: str) -> int:
    """How often a module's code names ``name`` (a name or an attribute; its ``def`` lines,
    strings and comments aside)."""
    return sum(1 for n in ast.walk(tree) if (isinstance(n, ast.Name) and n.id == name) or (isinstance(n, ast.Attribute) and n.attr == name))


def _later_uses(uses, build: ast.Call, target: str, where: str, initializing: set[str], defined: set[str], parents) -> str | None:
    """After the build, the object may only have its methods called (``gan.train()``): an
    attribute set or changed from outside would be read by a generated method when it
    runs, where TF1 built the graph with the value of that moment, and an object passed
    on could meet any of that elsewhere.  A method running the variables initializer at
    most once, outside loops: TF1's values were those of its one run, which eager
    variables get when created."""
    runs = 0
    for use in uses:
        if use is build.func.value:  # type: ignore[attr-defined]
            continue
        attribute = parents.get(id(use))
        if _is_none_test(attribute, target):
            continue
        call = parents.get(id(attribute))
        if not (
            isinstance(attribute, ast.Attribute) and isinstance(call, ast.Call) and call.func is attribute and attribute.attr in defined
        ):
            return f"`{target}` is used in {where} other than by calls of its methods after its build"
        if attribute.attr in initializing:
            runs += 1
            if runs > 1 or any(isinstance(a, (ast.For, ast.While, ast.AsyncFor)) for a in _ancestors(attribute, parents)):
                return (
                    f"`{target}.{attribute.attr}`, which runs the variables initializer, is called more than once or in a loop in {where}"
                )
    return None


def _is_none_test(node, target: str) -> bool:
    return isinstance(node, ast.Compare) and _none_test(node, target)


def _session_argument(scope, built, classes, tf: TfImports, nodes, parents):
    """The caller's session each class receives, if any: ``(session name, {class: parameter})``;
    a string says why a session given in is not removable; None: no session given."""
    sessions = {}
    for node in nodes:
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if isinstance(item.optional_vars, ast.Name) and _is_session(item.context_expr, tf):
                    sessions[item.optional_vars.id] = node
    given: dict[str, str] = {}
    names = set()
    for local, assign in built:
        call = assign.value
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return "a construction passes `*args` or `**kwargs`"
        params = classes[local][2].params
        bound = dict(zip(params, call.args))
        bound.update({k.arg: k.value for k in call.keywords})
        for param, value in bound.items():
            if isinstance(value, ast.Name) and value.id in sessions:
                with_node = sessions[value.id]
                if param not in classes[local][2].stored:
                    return f"`{classes[local][1]}` receives the session `{value.id}` as `{param}`, which it does not only store"
                if len(with_node.items) != 1 or assign not in list(ast.walk(with_node)):
                    return f"the session `{value.id}` is not made by a block of its own around the construction"
                given[local] = param
                names.add(value.id)
    if not names:
        return None
    if len(names) > 1 or len(given) != len(built):
        return "the constructions are given different sessions, or not all of them one"
    (name,) = names
    arguments = {id(v) for _, a in built for v in [*a.value.args, *(k.value for k in a.value.keywords)]}
    for node in nodes:
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and id(node) not in arguments:
            return f"the session `{name}` is used other than by being passed to the constructor"
    return name, given


def _is_session(value: ast.expr, tf: TfImports) -> bool:
    if not isinstance(value, ast.Call):
        return False
    return tf.canonical_dotted(ast_dotted_name(value.func)) == "Session"


def _none_test(node: ast.Compare, target: str) -> bool:
    """``x is None`` / ``x is not None``."""
    return (
        isinstance(node.left, ast.Name)
        and node.left.id == target
        and len(node.ops) == 1
        and isinstance(node.ops[0], (ast.Is, ast.IsNot))
        and isinstance(node.comparators[0], ast.Constant)
        and node.comparators[0].value is None
    )


def _build_statement(use: ast.Name | None, parents) -> ast.Call | None:
    """The call ``x.method()`` that is a statement of its own, whose receiver is ``use``."""
    if use is None:
        return None
    attribute = parents.get(id(use))
    call = parents.get(id(attribute)) if isinstance(attribute, ast.Attribute) else None
    statement = parents.get(id(call)) if isinstance(call, ast.Call) and call.func is attribute else None
    return call if isinstance(statement, ast.Expr) else None


def _parents(scope: ast.AST) -> dict[int, ast.AST]:
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(scope):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents


def _ancestors(node: ast.AST, parents):
    node = parents.get(id(node))
    while node is not None:
        yield node
        node = parents.get(id(node))


def _is_self(node: ast.expr) -> bool:
    """``self`` (a method of the class calling another: ``self.train()``)."""
    return isinstance(node, ast.Name) and node.id == "self"
