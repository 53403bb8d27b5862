"""How a graph binds its placeholders, and which methods build a constructor's graph.

Research code rarely writes one ``x = tf.placeholder(...)`` per line.  It unpacks:

    [self.t_tf, self.x_tf] = [tf.placeholder(tf.float32, [None, 1]) for _ in range(2)]
    x_tf, y_tf = tf.placeholder(tf.float32, [None, 1]), tf.placeholder(tf.float32, [None, 1])

Both bind each target to a placeholder of its own, exactly as one assignment per target
would (the right-hand side makes every placeholder before any target is bound, and no
placeholder call reads a target).  :func:`placeholder_targets` reads such a statement as
its (name, call) pairs; the analysis then treats it as that many placeholder statements.
A comprehension is read only when it surely makes one placeholder per target: a single
``for`` over ``range(N)`` with a literal N equal to the number of targets, whose
variable the call does not read.

And it builds the graph of a class in methods the constructor calls (``self.build()``,
DeepHPMs' ``self.idn_init(t, x, u, ...)``).  Called once, as a statement of the
constructor, such a method runs exactly where its call stands: :func:`spliced_methods`
names the methods whose bodies the analysis reads as part of the constructor's graph.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m
from libcst.helpers import get_full_name_for_node

from tf2migrate.analysis.calls import bind_arguments, calls_in
from tf2migrate.analysis.catalogue import OPTIMIZERS, PLACEHOLDER_CALLS, SCHEDULE_PARAMETERS, SESSION_CALLS
from tf2migrate.analysis.model import Kind, Scope
from tf2migrate.analysis.names import MUTATING_METHODS, changed_in_place, names_bound, read_and_bound, root_name, self_attribute
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.traversal import find_all, walk


def placeholder_targets(tf: TfImports, node: cst.BaseStatement) -> list[tuple[str, cst.Call]] | None:
    """``[(name, placeholder call), ...]`` for a statement that binds two or more names,
    each to a placeholder of its own; None for any other statement."""
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)):
        return None
    assign = node.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, (cst.Tuple, cst.List)):
        return None
    names = [_graph_target(e) for e in assign.targets[0].target.elements]
    if len(names) < 2 or None in names or len(set(names)) != len(names):
        return None
    calls = _placeholder_calls(tf, assign.value, len(names))
    if calls is None or any(set(read_and_bound(c)[0]) & set(names) for c in calls):
        return None  # a call reading a target reads its value from before the statement
    return list(zip(names, calls))  # type: ignore[arg-type]


def _graph_target(element: cst.BaseElement) -> str | None:
    if isinstance(element, cst.StarredElement):
        return None
    if isinstance(element.value, cst.Name):
        return element.value.value
    return self_attribute(element.value)


def _placeholder_calls(tf: TfImports, value: cst.BaseExpression, count: int) -> list[cst.Call] | None:
    """The placeholder call behind each target, in target order."""
    if isinstance(value, (cst.Tuple, cst.List)):
        elements = value.elements
        if len(elements) != count or any(isinstance(e, cst.StarredElement) for e in elements):
            return None
        calls = [e.value for e in elements]
        if all(isinstance(c, cst.Call) and tf.call_name(c) in PLACEHOLDER_CALLS for c in calls):
            return calls  # type: ignore[return-value]
        return None
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        call, loop = value.elt, value.for_in
        if not (isinstance(call, cst.Call) and tf.call_name(call) in PLACEHOLDER_CALLS):
            return None
        if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
            return None
        if _range_length(loop.iter) != count or not isinstance(loop.target, cst.Name):
            return None
        if loop.target.value in read_and_bound(call)[0]:
            return None  # each placeholder would differ by the loop variable
        return [call] * count
    return None


def _range_length(iterable: cst.BaseExpression) -> int | None:
    """N for ``range(N)`` or ``range(0, N)`` written with integer literals."""
    if not (isinstance(iterable, cst.Call) and m.matches(iterable.func, m.Name("range"))):
        return None
    args = iterable.args
    if any(a.keyword is not None or a.star or not isinstance(a.value, cst.Integer) for a in args):
        return None
    bounds = [int(a.value.value, 0) for a in args]  # type: ignore[attr-defined]
    if len(bounds) == 1:
        return bounds[0]
    if len(bounds) == 2 and bounds[0] == 0:
        return bounds[1]
    return None


def refused_binding(node: cst.BaseStatement, call: cst.Call, name: str) -> str:
    """Why the placeholder ``call`` of ``node`` is not converted, in the user's terms."""
    if find_all(node, m.DictElement(value=m.MatchIfTrue(lambda v: v is call))):
        return (
            "a placeholder stored in a dict is not converted (its feed key is not a name a "
            "generated function can take as a parameter); bind it to a name or a `self.` attribute"
        )
    # a comprehension or block elsewhere in the statement (MorvanZhou's A3C: a placeholder in
    # one branch of an ``if``, a comprehension of assigns in the other) says nothing of this call
    if any(_holds(comprehension, call) for comprehension in find_all(node, (cst.ListComp, cst.GeneratorExp))):
        return (
            "placeholders made by a comprehension are converted only when unpacked one per target; write "
            "`[a, b] = [tf.placeholder(...) for _ in range(2)]` (one literal range, as many targets, a call "
            "that does not read the loop variable)"
        )
    # the outermost first; a `with` block (a session's, a scope's) only when no branch or loop holds the call
    blocks = find_all(node, tuple(k for k in _BLOCKS if k is not cst.With)) + find_all(node, cst.With)
    for block in blocks:
        if _holds(block, call):
            return (
                f"`tf.{name}` in {_BLOCKS[type(block)]} (`{block_header(block)[:60]}:`) is not converted: a placeholder is "
                "converted where it is bound at the top level of its scope"
            )
    return f"`tf.{name}` must be assigned to a name at the top level of its scope"


_BLOCKS = {
    cst.If: "an `if` branch",
    cst.For: "a `for` loop",
    cst.While: "a `while` loop",
    cst.Try: "a `try` statement",
    cst.With: "a `with` block",  # (AYLIEN's gan-intro: ``with tf.variable_scope('G'): self.z = tf.placeholder(...)``)
}


def block_header(block: cst.CSTNode) -> str:
    """``if test``, ``for x in xs``, ``while test``, ``with item``, ``try``: the block's first line, without its comment."""
    code = cst.Module([]).code_for_node
    if isinstance(block, cst.If):
        return f"if {code(block.test)}"
    if isinstance(block, cst.For):
        return f"for {code(block.target)} in {code(block.iter)}"
    if isinstance(block, cst.While):
        return f"while {code(block.test)}"
    if isinstance(block, cst.With):
        return "with " + ", ".join(code(item).rstrip(", ") for item in block.items)
    return "try"


def _holds(node: cst.CSTNode, call: cst.Call) -> bool:
    return bool(find_all(node, m.MatchIfTrue(lambda n: n is call)))


def placeholder_beside_runs(node: cst.BaseStatement, name: str) -> str:
    """Why a placeholder made in a block that also runs the graph is not converted."""
    header = cst.Module([]).code_for_node(node).strip().split("\n", 1)[0].rstrip(":")
    return (
        f"`tf.{name}` is made in a block that also runs the graph (`{header[:60]}:`): graph code is converted at the top "
        "level of a module or function; build the graph before the block, or in a function"
    )


def spliced_methods(
    tf: TfImports,
    module: cst.Module,
    cls: cst.ClassDef,
    init: cst.FunctionDef,
    calls_within: dict[int, list[cst.Call]],
    external: str | None = None,
    name_counts: Callable[[], Counter[str]] | None = None,
) -> tuple[dict[str, cst.FunctionDef], dict[str, str]]:
    """Methods of ``cls`` that build graph pieces (placeholders, sessions, or calls of
    methods that do) and may be read as part of the constructor, by name; and why each
    other such method may not.  A candidate is named once in the module (by the one call
    that runs it), a plain def without decorators that returns and yields nothing.
    Whether that one call is a statement of the constructor is known only when the
    constructor is read (``GraphAnalyzer._effective``).  ``calls_within``: the calls
    anywhere in each def, by its id (the analysis' index).  ``external``: a method the
    file never names that the callers run right after constructing the class
    (analysis/external_builds.py), read as the constructor's last statement; ``name_counts``:
    how many times each name stands in ``module`` as a ``Name`` (counted once per module by the
    analysis, for all its classes; default: counted here)."""
    methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s is not init}
    calls = {name: calls_within[id(method)] for name, method in methods.items()}
    builds = {name for name, found in calls.items() if any(tf.call_name(c) in PLACEHOLDER_CALLS | SESSION_CALLS for c in found)}
    # a method the constructor runs as a statement of its own that makes variables or ops
    # from the placeholders the constructor made before it (``self.setup()``)
    builds |= {name for name in _called_as_statements(init.body.body, methods) if any(tf.call_name(c) is not None for c in calls[name])}
    grown = True
    while grown:
        callers = {
            name
            for name, found in calls.items()
            if name not in builds and any((self_attribute(c.func) or "")[len("self.") :] in builds for c in found)
        }
        builds |= callers
        grown = bool(callers)
    candidates: dict[str, cst.FunctionDef] = {}
    refused: dict[str, str] = {}
    counts = None
    by_init = {(self_attribute(c.func) or "")[len("self.") :] for c in calls_within[id(init)]}
    for name in builds:
        method = methods[name]
        if counts is None:
            counts = name_counts() if name_counts is not None else name_counts_in(module)
        # ``self.build`` is the Name ``build`` as an attribute: one mention (its def's name,
        # a Name of the module with this value, is not one)
        mentions = counts[name] - 1
        if method.decorators or method.asynchronous is not None:
            refused[name] = "it is decorated or async"
        elif _returns_or_yields(method):
            refused[name] = "it returns or yields"
        elif name == external and mentions == 0:
            candidates[name] = method
        elif mentions > 1 and name not in by_init:
            # other code calls it (kvfrans' VAE: ``model.train()`` opens the session): the count
            # would also take in attributes of that name (``mnist.train``)
            refused[name] = "`__init__` does not call it"
        elif mentions != 1:
            refused[name] = f"it is named {mentions} times in this file"
        else:
            candidates[name] = method
    return candidates, refused


def name_counts_in(node: cst.CSTNode) -> Counter[str]:
    """How many times each name stands under ``node`` as a ``Name`` node."""
    return Counter(cst.ensure_type(n, cst.Name).value for n in find_all(node, cst.Name))


def _called_as_statements(body, methods: dict[str, cst.FunctionDef]) -> set[str]:
    """Names of the methods ``body`` calls as statements of their own (``self.m(...)``)."""
    called = set()
    for statement in body:
        method = spliced_call(statement, methods)
        if method is not None:
            called.add(method.name.value)
    return called


def spliced_call(node: cst.BaseStatement, candidates: dict[str, cst.FunctionDef]) -> cst.FunctionDef | None:
    """The method a constructor statement ``self.build(...)`` runs, if it is a candidate."""
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Expr)):
        return None
    call = node.body[0].value
    if not isinstance(call, cst.Call) or any(a.star for a in call.args):
        return None
    name = self_attribute(call.func)
    return candidates.get(name[len("self.") :]) if name is not None else None


def _returns_or_yields(method: cst.FunctionDef) -> bool:
    """A ``return`` or ``yield`` of the method itself (nested defs aside)."""

    class _Finder(cst.CSTVisitor):
        found = False

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is method

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            self.found = True

        def visit_Yield(self, node: cst.Yield) -> None:
            self.found = True

    finder = _Finder()
    walk(method, finder)
    return finder.found


def local_names(function: cst.FunctionDef) -> frozenset[str]:
    """The names local to a constructor or a method read as part of it: its parameters
    and what its body binds.  Generated methods run later, where none of them exist."""
    params = function.params
    stars = {p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)}
    bound = {n for n in names_bound(function.body) if "." not in n}  # ``self.x`` is no local
    return frozenset(parameter_names(function) | stars | bound)


def parameter_names(function: cst.FunctionDef) -> frozenset[str]:
    """A method's named parameters but ``self``."""
    params = function.params
    return frozenset(p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]) - {"self"}


# Statements whose code moves into the generated methods (a placeholder's dtype and
# default become their casts and defaults).
_MOVED = frozenset({Kind.TENSOR, Kind.TRAIN, Kind.GRADS, Kind.SCIPY, Kind.PLACEHOLDER})
# What moved code may read by a plain name of the constructor: computed with it.
_MOVED_WITH = frozenset({Kind.TENSOR, Kind.GRADS, Kind.PLACEHOLDER})


def constructor_local_reads(tf: TfImports, module: cst.Module, scope: Scope) -> list[tuple[cst.CSTNode, str]]:
    """Reads the constructor's analysis cannot convert: ``(statement, why)``.

    The generated methods run later, with ``self`` but without the constructor's locals
    (``def __init__(self, X, scale)``: ``y = tf.matmul(x, W) * scale``), but for the
    parts of a moved statement that are built where it stands (:func:`built_in_place`).
    And a method read as part of the constructor has locals of its own: a name it reads
    is not the constructor's name of the same spelling.  A local variable (``W1 =
    tf.Variable(...)``, bound once) is the exception: it is stored on ``self`` under its
    name and read back by the generated methods (``scope.stored_locals``), when nothing in
    the file names that attribute already."""
    init = scope.owner
    assert isinstance(init, cst.FunctionDef)
    locals_of = {id(f): local_names(f) for f in [init, *scope.spliced]}
    found: list[tuple[cst.CSTNode, str]] = []
    for statement in scope.statements:
        function = scope.origin.get(id(statement.node), init)
        reads = _moved_reads(statement) if statement.kind in _MOVED else statement.reads
        own = set(read_and_bound(statement.node)[1]) if statement.kind is not Kind.PLACEHOLDER else set()
        in_place = _read_in_place_only(tf, statement) if statement.kind in _MOVED else set()
        for name in dict.fromkeys(reads):
            if name.startswith("self.") or name in own:
                continue
            binding = scope.resolve(name, statement.order)
            source = scope.origin.get(id(binding.node), init) if binding is not None else None
            if binding is not None and source is not function:
                found.append(
                    (
                        statement.node,
                        (
                            f"`{name}` read in `{function.name.value}` is bound in `{source.name.value}` "  # type: ignore[union-attr]
                            "(both are read as the constructor's graph): different variables of the same name"
                        ),
                    )
                )
            elif statement.kind in _MOVED and name not in in_place and binding is not None and binding.kind is Kind.VARIABLE:
                unstorable = _unstorable(module, scope, name, binding)
                if unstorable is None:
                    scope.stored_locals[name] = binding
                else:
                    found.append(
                        (
                            statement.node,
                            f"graph code reads the variable `{name}`, a local of `{function.name.value}`: the generated "
                            f"methods run later and would read it from `self.{name}`, but {unstorable}",
                        )
                    )
            elif (
                statement.kind in _MOVED
                and name not in in_place
                and (binding is not None and binding.kind not in _MOVED_WITH or binding is None and name in locals_of[id(function)])
            ):
                unstorable = None
                if binding is not None and binding.kind is Kind.PYTHON:
                    unstorable = _unstorable_value(module, scope, name, binding)
                    if unstorable is None:
                        scope.stored_locals[name] = binding
                        continue
                elif (
                    binding is None
                    and name in parameter_names(function)
                    and (function is init or _own_parameter(locals_of, function, name))
                ):
                    # (a method the constructor calls once, ``self.build(4, 8)``: its parameters
                    # hold the call's arguments while it runs, as the constructor's do)
                    unstorable = _unstorable_parameter(module, scope, name)
                    if unstorable is None:
                        scope.stored_parameters[name] = function
                        continue
                why = f", and it is not stored there: {unstorable}" if unstorable is not None else ""
                found.append(
                    (
                        statement.node,
                        (
                            f"graph code reads `{name}`, a local of `{function.name.value}`; the generated methods run "
                            f"later and cannot see it (store it on `self`){why}"
                        ),
                    )
                )
    return found


def _own_parameter(locals_of: dict[int, frozenset[str]], function: cst.FunctionDef, name: str) -> bool:
    """Is ``name`` a local of ``function`` alone among the constructor and the methods read
    with it?  The generated methods read it back as ``self.<name>``: one object per name."""
    return not any(name in names for key, names in locals_of.items() if key != id(function))


def built_in_place(tf: TfImports, statement) -> list[cst.BaseExpression]:
    """The parts of a moved statement that are evaluated where the statement stands, once:
    a decay function's arguments but the step (its Keras schedule is created there,
    rewrites/lr_schedules.py) and the optimizer a train op is built on in the same
    statement (``tf.train.GradientDescentOptimizer(rate).minimize(loss)``: the Keras
    optimizer is created there).  A constructor's local read only in them needs no ``self``."""
    parts: list[cst.BaseExpression] = []
    for call in statement.schedule_calls:
        parameters, step = SCHEDULE_PARAMETERS[tf.call_name(call)]  # type: ignore[index]
        arguments = bind_arguments(call, parameters)
        parts += [argument.value for name, argument in (arguments or {}).items() if name != step]
    if statement.kind is Kind.TRAIN and statement.minimize is not None and isinstance(statement.minimize.func, cst.Attribute):
        optimizer = statement.minimize.func.value
        if isinstance(optimizer, cst.Call) and tf.call_name(optimizer) in OPTIMIZERS:
            parts.append(optimizer)
    return parts


def _read_in_place_only(tf: TfImports, statement) -> set[str]:
    """Names the statement reads only in :func:`built_in_place` parts."""
    parts = built_in_place(tf, statement)
    if not parts:
        return set()
    everywhere = Counter(read_and_bound(statement.node)[0])
    in_place = Counter(name for part in parts for name in read_and_bound(part)[0])
    return {name for name, count in in_place.items() if everywhere[name] == count}


def _unstorable(module: cst.Module, scope: Scope, name: str, binding) -> str | None:
    """Why a local variable read by graph code cannot be stored on ``self`` under its
    name: it must be bound once, by an assignment of its own or one unpacking into it
    (``W, b = make_layer_variables(...)``, a split layer helper's make call: ``self.W = W``
    after it stores what it bound, as for ``W = ...``), and no attribute of the file may
    have that name already (``self.W1`` would mean something else)."""
    if not isinstance(binding.node, cst.SimpleStatementLine) or not (
        binding.defines == (name,) or _assigned_by_unpacking(binding.node, name)
    ):
        return "its statement binds more than it"
    return _unstorable_binding(module, scope, name)


def _assigned_by_unpacking(statement: cst.SimpleStatementLine, name: str) -> bool:
    """Is ``statement`` one assignment that binds ``name`` as a plain element of a tuple or
    list target (``W, b = ...``, ``[W, b] = ...``; nested or starred elements not)?"""
    if len(statement.body) != 1 or not isinstance(statement.body[0], cst.Assign):
        return False
    return any(
        isinstance(target.target, (cst.Tuple, cst.List))
        and any(isinstance(e, cst.Element) and m.matches(e.value, m.Name(name)) for e in target.target.elements)
        for target in statement.body[0].targets
    )


def _unstorable_binding(module: cst.Module, scope: Scope, name: str) -> str | None:
    """Why a local cannot be stored as ``self.<name>``: bound more than once, or an
    attribute of that name in the file already."""
    if len(scope.bindings.get(name, ())) != 1 or name in scope.nested_bindings:
        return "it is bound more than once"
    return _attribute_taken(module, name, scope)


def _unstorable_parameter(module: cst.Module, scope: Scope, name: str) -> str | None:
    """Why a constructor parameter graph code reads (hp-VPINNs' ``grid``, indexed by the
    loop over elements that builds the variational loss) cannot be stored on ``self`` when
    the constructor starts: it must keep the object the caller passed, never bound again
    nor changed in place by the constructor, as a plain local bound once does
    (:func:`_unstorable_value`); TF1 built the graph with that object."""
    # (in place first: ``scales.append(10.0)`` is a nested binding too)
    if any(name in changed_in_place(s.node) for s in scope.statements):
        return "it is changed in place"
    assigned = m.Attribute(value=m.Name(name))
    for statement in scope.statements:
        # ``args.batch_size = 1`` (char-rnn's sampling model): a change in place, not a binding
        for target in find_all(statement.node, m.AssignTarget(target=assigned) | m.AugAssign(target=assigned)):
            attribute = target.target  # type: ignore[attr-defined]
            return f"it is changed in place (`{name}.{attribute.attr.value}` is assigned)"
    if name in scope.bindings or name in scope.nested_bindings:
        return "the constructor binds it again"
    return _attribute_taken(module, name, scope)


def changed_by_caller(module: cst.Module, scope: Scope, parameter: str) -> str | None:
    """Why the parameter cannot be stored: a call of the class in the file passes as
    ``parameter`` a name that the file changes in place outside the class where the change
    may run after the call (``widths.append(10)`` after ``Net(widths)``); the stored
    parameter is that object, which a generated method reads when it runs, later.  A
    change that runs before the call, in the same function or module body and outside any
    loop around the call (``F.append(e)`` … ``F = np.asarray(F)`` … ``Net(F)``), changed the
    object as TF1 saw it too; a change in another function counts unless the name is that
    function's own local (see ``_may_change_after``)."""
    init, cls = scope.owner, scope.cls
    if not isinstance(init, cst.FunctionDef) or cls is None:
        return None
    positional = tuple(p.name.value for p in [*init.params.posonly_params, *init.params.params])[1:]
    places = _Places(cls)
    walk(module, places)
    for call, call_place in places.calls:
        if not m.matches(call.func, m.Name(cls.name.value)):
            continue
        arguments = bind_arguments(call, positional)
        values = [a.value for a in call.args] if arguments is None else [arguments[parameter].value] if parameter in arguments else []
        for name in {root for value in values if (root := root_name(value)) is not None}:
            if any(changed == name and _may_change_after(place, call_place, name) for changed, place in places.changes):
                return f"a call of `{cls.name.value}` passes `{name}`, which the file changes in place (TF1 built the graph with the object as it was then)"
    return None


@dataclass(frozen=True)
class _Place:
    function: cst.FunctionDef | None  # the innermost function around it (None: the module's body)
    loops: tuple[int, ...]  # ids of the loops around it, in that function
    order: int  # its place in the file


class _Places(cst.CSTVisitor):
    """The calls of the file and the in-place changes of names outside ``skipped`` (the
    class), each with where it stands."""

    def __init__(self, skipped: cst.CSTNode) -> None:
        self.skipped = skipped
        self.functions: list[cst.FunctionDef] = []
        self.loops: list[list[int]] = [[]]
        self.order = 0
        self.calls: list[tuple[cst.Call, _Place]] = []
        self.changes: list[tuple[str, _Place]] = []

    def _place(self) -> _Place:
        self.order += 1
        return _Place(self.functions[-1] if self.functions else None, tuple(self.loops[-1]), self.order)

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return node is not self.skipped

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)
        self.loops.append([])

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()
        self.loops.pop()

    def visit_For(self, node: cst.For) -> None:
        self.loops[-1].append(id(node))

    def leave_For(self, original_node: cst.For) -> None:
        self.loops[-1].pop()

    def visit_While(self, node: cst.While) -> None:
        self.loops[-1].append(id(node))

    def leave_While(self, original_node: cst.While) -> None:
        self.loops[-1].pop()

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append((node, self._place()))

    def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        # placed after the calls it holds: a change in the statement of a call may follow it
        place = self._place()
        augmented = [a.target.value for a in node.body if isinstance(a, cst.AugAssign) and isinstance(a.target, cst.Name)]
        self.changes += [(name, place) for name in [*changed_in_place(node), *augmented]]


def _may_change_after(change: _Place, call: _Place, name: str) -> bool:
    """May a change of ``name`` at ``change`` run after the call at ``call`` passed it?"""
    if change.function is call.function:
        return change.order > call.order or bool(set(change.loops) & set(call.loops))
    if change.function is not None and name in _locals(change.function):
        return False  # another function's own variable
    if call.function is not None and name in _locals(call.function):
        return False  # the call passed its function's own variable
    return True  # the module's object, changed by a function that may run at any time (or changing a module name)


def _locals(function: cst.FunctionDef) -> set[str]:
    """The function's own names (``local_names``) but those it declares ``global`` or
    ``nonlocal``: binding those changes the enclosing name."""
    declared = {
        n.name.value
        for g in find_all(function.body, (cst.Global, cst.Nonlocal))
        if isinstance(g, (cst.Global, cst.Nonlocal))
        for n in g.names
    }
    return set(local_names(function)) - declared


def _changed_in_place_outside(module: cst.Module, outside: cst.CSTNode | None) -> list[str]:
    """Names whose object a statement of the file changes in place (``grid[0] = 7``,
    ``widths.append(10)``, ``grid *= 2``: an array changed in place; ``Net.count += 1`` or
    ``cfg.scale = 5.0``: an attribute of the object set, which graph code reading
    ``Net.count`` read when TF1 built it), but in ``outside``."""
    inside = {id(node) for node in find_all(outside, cst.SimpleStatementLine)} if outside is not None else set()
    names: list[str] = []
    for statement in find_all(module, cst.SimpleStatementLine):
        if id(statement) not in inside:
            names += changed_in_place(statement)
            names += [
                a.target.value
                for a in find_all(statement, cst.AugAssign)
                if isinstance(a, cst.AugAssign) and isinstance(a.target, cst.Name)
            ]
            targets = [a.target for a in find_all(statement, cst.AugAssign) if isinstance(a, cst.AugAssign)]
            targets += [t.target for t in find_all(statement, cst.AssignTarget) if isinstance(t, cst.AssignTarget)]
            names += [root for target in targets if (root := _attribute_root(target)) is not None and root != "self"]
    return names


def _attribute_root(target: cst.BaseExpression) -> str | None:
    """``Net`` of ``Net.count`` (and of ``Net.sizes[0]``), the object whose attribute is set."""
    if not isinstance(target, (cst.Attribute, cst.Subscript)):
        return None
    while isinstance(target, (cst.Attribute, cst.Subscript)):
        target = target.value
    return target.value if isinstance(target, cst.Name) else None


def module_values_changed(module: cst.Module) -> frozenset[str]:
    """The module's names whose value may change after a function or a class built a graph
    from it: bound more than once by the module's own statements (an import, a loop or a
    later assignment too), declared ``global`` in a function, or changed in place anywhere
    (by name, as any function's local of that name would be).  TF1 built the graph with the
    value of that moment; a generated method reads the name when it runs.  The same import
    again (``import numpy as np`` in several notebook cells) binds the same module: once."""
    bound: Counter[str] = Counter()
    imported: set[str] = set()  # the text of each top-level import statement
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            bound[statement.name.value] += 1
        elif m.matches(statement, m.SimpleStatementLine([m.Import() | m.ImportFrom()])):
            text = module.code_for_node(cst.ensure_type(statement, cst.SimpleStatementLine).body[0])
            if text not in imported:
                imported.add(text)
                bound.update(read_and_bound(statement)[1])
        else:  # (a loop binds again each time round)
            bound.update(read_and_bound(statement)[1] * (2 if isinstance(statement, (cst.For, cst.While)) else 1))
    declared = {n.name.value for g in find_all(module, cst.Global) if isinstance(g, cst.Global) for n in g.names}
    return frozenset({name for name, count in bound.items() if count > 1} | declared | set(_changed_in_place_outside(module, None)))


def _attribute_taken(module: cst.Module, name: str, scope: Scope | None = None) -> str | None:
    """``self.<name>`` would mean something else: the file names that attribute already,
    but of a module it imports (``plt.grid(True)`` is no attribute of an instance).  The
    constructor's own ``self.<name> = <name>`` (a statement of its body, and the file's only
    write of that attribute) stores the very object the generated methods read, and reads
    of ``self.<name>`` in its class read it: neither means something else."""
    modules = {
        alias.evaluated_alias or alias.evaluated_name.split(".")[0]
        for node in find_all(module, cst.Import)
        if isinstance(node, cst.Import)
        for alias in node.names
    }
    same = _same_object_attributes(scope, name) if scope is not None else set()
    for attribute in find_all(module, m.Attribute(attr=m.Name(name))):
        if id(attribute) in same:
            continue
        if not (isinstance(attribute, cst.Attribute) and isinstance(attribute.value, cst.Name) and attribute.value.value in modules):
            return f"the file uses `.{name}` already"
    return None


def _same_object_attributes(scope: Scope, name: str) -> set[int]:
    """The ``self.<name>`` nodes of the constructor's class that hold the local ``name``'s
    object: the targets of ``self.<name> = <name>`` statements of the constructor's body
    and the class's reads of ``self.<name>``; none when the class binds ``<name>`` in its
    body (a method or class attribute of that name) or writes ``self.<name>`` otherwise."""
    init, cls = scope.owner, scope.cls
    if cls is None or not isinstance(init, cst.FunctionDef) or not isinstance(init.body, cst.IndentedBlock):
        return set()
    own = m.Attribute(value=m.Name("self"), attr=m.Name(name))
    stores = {
        id(cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Assign).targets[0].target)
        for statement in init.body.body
        if m.matches(statement, m.SimpleStatementLine([m.Assign(targets=[m.AssignTarget(own)], value=m.Name(name))]))
    }
    writes = [
        target
        for node in find_all(cls, m.AssignTarget() | m.AugAssign() | m.AnnAssign() | m.Del())
        for target in find_all(node.target, own)  # type: ignore[attr-defined]
    ]
    if not stores or any(id(w) not in stores for w in writes) or name in _class_body_names(cls):
        return set()
    return {id(a) for a in find_all(cls, own)}


def _class_body_names(cls: cst.ClassDef) -> set[str]:
    """Names the class's own body binds: its methods and class attributes."""
    names: set[str] = set()
    for statement in cls.body.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            names.add(statement.name.value)
        else:
            names.update(read_and_bound(statement)[1])
    return names


def _unstorable_value(module: cst.Module, scope: Scope, name: str, binding) -> str | None:
    """Why a plain Python local graph code reads (``D1 = self.kernel_size`` in PINNsNTK's
    Wave1D; ``shape=(D1, 1)``, ``compute_ntk(J, D1, J, D1)``) cannot be stored on ``self``
    like a variable.  It must be ``name = value``, bound once, by a statement that reads
    no graph value and calls nothing, and never changed in place in the constructor: TF1
    built the graph with the value the name held there; the generated methods read the
    same object back from ``self.name`` (an object changed in place would be another value).

    Two forms keep that: a value computed by builtins that return a new number or string
    (``num_filters_total = num_filters * len(filter_sizes)`` in dennybritz's TextCNN), and a
    list filled in place only by statements that all run before the first graph code that
    reads it (the variables' list of a split loop, rewrites/loop_split.py): the generated
    methods then read the object as every TF1 build saw it, complete."""
    node = binding.node
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)):
        return "its statement is not an assignment of its own"
    assign = node.body[0]
    if len(assign.targets) != 1 or not m.matches(assign.targets[0].target, m.Name(name)):
        return "its statement binds more than it"
    if any(
        not m.matches(call.func, m.Name()) or cst.ensure_type(call.func, cst.Name).value not in _VALUE_BUILTINS
        for call in calls_in(assign.value)
    ):
        return "its value is computed by a call"
    if any(scope.graph_statement(read, binding.order) is not None for read in read_and_bound(assign.value)[0]):
        return "its value reads the graph"
    changes = {s.order: s for s in scope.statements if name in changed_in_place(s.node)}
    if isinstance(assign.value, _MUTABLE_DISPLAYS) and any(
        s.order != binding.order and s.order not in changes and s.kind not in _MOVED and name in read_and_bound(s.node)[0]
        for s in scope.statements
    ):
        # ``other = ws``, ``self.layers = ws``, ``fill(ws)``, ``ws.sort()``: the object may be
        # changed through another name, after TF1 built the graph with it
        return "other code of the constructor reads it, and may change it through another name"
    if not changes:
        return _unstorable_binding(module, scope, name)
    first_read = min((s.order for s in scope.statements if s.kind in _MOVED and name in _moved_reads(s)), default=None)
    if first_read is None or max(changes) >= first_read:
        return "it is changed in place"
    # the in-place changes count as nested bindings (analysis/graph.py); any other binding does not keep the list
    others = [o for o in scope.nested_bindings.get(name, ()) if o not in changes or name in read_and_bound(changes[o].node)[1]]
    if len(scope.bindings.get(name, ())) != 1 or others:
        return "it is bound more than once"
    return _attribute_taken(module, name, scope)


# Values that are new mutable objects: another name for them may change them in place.
_MUTABLE_DISPLAYS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)

# Builtins whose result is a new value computed from their arguments only (not ``min``/``max``:
# ``max(list_of_lists)`` is one of the lists, which other code may change in place).
_VALUE_BUILTINS = frozenset({"len", "int", "float", "bool", "str", "abs", "round", "sum"})


def _moved_reads(statement) -> tuple[str, ...]:
    """Names the moved code of a statement reads: all of it, or a placeholder's dtype and default."""
    if statement.kind is not Kind.PLACEHOLDER:
        return statement.reads
    placeholder = statement.placeholder
    parts = [p for p in (placeholder.dtype, placeholder.default) if p is not None]
    return tuple(n for part in parts for n in read_and_bound(part)[0])


def _self_alias(node: cst.CSTNode) -> str | None:
    """``self.x`` of ``name = self.x`` (or ``self.x[...]``, ``self.x.y``): the object it binds."""
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)):
        return None
    value = node.body[0].value
    while isinstance(value, (cst.Attribute, cst.Subscript)) and self_attribute(value) is None:
        value = value.value
    return self_attribute(value)


_ANY_ATTRIBUTE = "*"  # ``setattr(obj, name, v)`` of a name not written out: it may set any attribute


def attributes_set_elsewhere(module: cst.Module, scope: Scope, helper_reads: dict[str, set[str]]) -> list[tuple[cst.CSTNode, str]]:
    """Graph code of the constructor reading ``self.x`` that is not a graph value of its
    own, where the file sets ``.x`` again outside the constructor (``model.scale = 10.0``,
    ``def reset(self): self.W = tf.Variable(0.0)``): TF1 built the graph with the value of
    that moment, a generated method reads the attribute when it runs.  ``helper_reads``:
    the ``self.`` names each method (``self.net``) reads, transitively."""
    init = scope.owner
    assert isinstance(init, cst.FunctionDef)
    inside = {id(init), *map(id, scope.spliced)}
    elsewhere: set[str] = set()

    class _Setters(cst.CSTVisitor):
        """``.x = ...`` anywhere but in the constructor, and but on ``self`` of another class."""

        other_class = 0

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.other_class += node is not scope.cls

        def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
            self.other_class -= original_node is not scope.cls

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return id(node) not in inside

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            for target in _attributes_written(node.target):
                self._set(target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Attribute):
                self._set(node.target)

        def visit_Call(self, node: cst.Call) -> None:
            # ``model.sizes.append(6)``: the object TF1 built the graph from, changed in place
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS and isinstance(func.value, cst.Attribute):
                self._set(func.value)
            # ``setattr(model, "scale", 4.0)`` sets ``.scale``; of a name not written out, any attribute
            if m.matches(func, m.Name("setattr") | m.Name("delattr")):
                name = node.args[1].value if len(node.args) > 1 else None
                if isinstance(name, cst.SimpleString) and isinstance(name.evaluated_value, str):
                    elsewhere.add(name.evaluated_value)
                else:
                    elsewhere.add(_ANY_ATTRIBUTE)

        def _set(self, target: cst.Attribute) -> None:
            if not (self.other_class and m.matches(target.value, m.Name("self"))):
                elsewhere.add(target.attr.value)

    walk(module, _Setters())
    found: list[tuple[cst.CSTNode, str]] = []
    for statement in scope.statements:
        if statement.kind not in _MOVED:
            continue
        moved_reads = _moved_reads(statement)
        reads = [n for n in moved_reads if n.startswith("self.")]
        reads += [r for n in reads for r in sorted(helper_reads.get(n, ()))]
        # a constructor local the generated methods read back (TFM115) that is the attribute's
        # object (``dims = self.sizes``, ``dims = self.cfg["sizes"]``), not a value computed from it
        for n in moved_reads:
            binding = scope.resolve(n, statement.order) if not n.startswith("self.") else None
            alias = _self_alias(binding.node) if binding is not None and binding.kind not in _MOVED else None
            if alias is not None:
                reads.append(alias)
        for name in dict.fromkeys(reads):
            binding = scope.resolve(name, statement.order)
            if (
                (name[len("self.") :] in elsewhere or _ANY_ATTRIBUTE in elsewhere)
                and name not in helper_reads
                and (binding is None or binding.kind not in _MOVED)
            ):
                found.append(
                    (
                        statement.node,
                        f"graph code reads `{name}`, which the file sets again (or changes in place) outside the "
                        "constructor; TF1 built the graph with its value of that moment, a generated method would read "
                        "it when called",
                    )
                )
                break
    return found


def _attributes_written(target: cst.BaseExpression) -> list[cst.Attribute]:
    """The attributes an assignment to ``target`` sets or changes in place: ``self.x = v``
    sets ``.x`` (and changes the object ``self.a`` of ``self.a.x = v``), ``self.x[i] = v``
    changes ``.x``; not the attributes the target only reads, in an index
    (``canvas[s * self.len_code + c] = v``, infoGAN) or a receiver's call."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [a for element in target.elements for a in _attributes_written(element.value)]
    if isinstance(target, cst.StarredElement):
        return _attributes_written(target.value)
    if isinstance(target, cst.Attribute):
        return [target, *_attributes_written(target.value)]
    if isinstance(target, cst.Subscript):
        return _attributes_written(target.value)
    return []


# NumPy and ``random`` functions changing their first argument in place
_IN_PLACE_FUNCTIONS = frozenset(
    f"{prefix}.{name}"
    for prefix in ("np", "numpy")
    for name in ("random.shuffle", "copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis")
) | {"random.shuffle"}
# the builtins setting or deleting an attribute of their first argument
_ATTRIBUTE_SETTERS = frozenset({"setattr", "delattr"})
# an array's methods changing it in place (``w.fill(0.0)``, ``w.sort()``)
_ARRAY_CHANGING_METHODS = frozenset({"fill", "sort", "put", "resize", "partition", "itemset", "reverse", "setflags"})


def arguments_changed_by_callees(
    node: cst.CSTNode, functions: dict[str, cst.FunctionDef], self_changing_methods: frozenset[str] = frozenset()
) -> set[str]:
    """The names whose object a statement changes in place by a call: passed to a function
    of the file (``functions``) that changes the parameter receiving it (``a /= a.sum()``,
    ``a[0] = 0``, ``a.append(x)``, ``c.factor = 10.0``), or the module values such a function
    changes itself (``sizes[0] = 10.0`` in ``grow()``); passed to a NumPy function that changes its first argument
    (``np.random.shuffle(X)``, ``np.copyto(w, v)``) or as ``out=w``; an array method that changes
    its array (``w.fill(0.0)``, ``w.sort()``); a method of the file's classes that sets
    ``self``'s state (``self_changing_methods``: ``sc.bump()`` whose ``self.s *= 10.0`` changes
    the ``sc.s`` a graph read)."""
    changed: set[str] = set()
    statement_calls = {id(e.value) for e in find_all(node, cst.Expr) if isinstance(e, cst.Expr)}
    for call in find_all(node, cst.Call):
        if not isinstance(call, cst.Call):
            continue
        changed |= {
            root for a in call.args if a.keyword is not None and a.keyword.value == "out" and (root := root_name(a.value)) is not None
        }
        # a method called for its effect alone (``tf.image.resize(x, s)`` is a value, no ``w.resize``)
        if (
            id(call) in statement_calls
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value in (_ARRAY_CHANGING_METHODS | self_changing_methods)
        ):
            if (root := root_name(call.func.value)) is not None:
                changed.add(root)
        if (get_full_name_for_node(call.func) or "") in _IN_PLACE_FUNCTIONS and call.args:
            if (root := root_name(call.args[0].value)) is not None:
                changed.add(root)
        if not (isinstance(call.func, cst.Name) and call.func.value in functions):
            continue
        function = functions[call.func.value]
        # ``grow()`` whose ``sizes[0] = 10.0`` changes the module's list
        changed |= _module_values_changed_by(function, functions, {call.func.value}, self_changing_methods)
        changed_parameters = _parameters_changed_in_place(function)
        if not changed_parameters:
            continue
        positional = tuple(p.name.value for p in [*function.params.posonly_params, *function.params.params])
        arguments = bind_arguments(call, positional)
        if arguments is None:  # (``*args``, unknown keywords): any argument may be the changed one
            values = [a.value for a in call.args]
        else:
            values = [arguments[p].value for p in changed_parameters if p in arguments]
        changed |= {root for value in values if (root := root_name(value)) is not None}
    return changed


def _parameters_changed_in_place(function: cst.FunctionDef) -> set[str]:
    parameters = _parameters_of(function)
    # a parameter bound again (``a = a.copy()``) may be another object by the time it is changed
    bound_again = {
        t.target.value
        for t in find_all(function.body, cst.AssignTarget)
        if isinstance(t, cst.AssignTarget) and isinstance(t.target, cst.Name)
    }
    roots, augmented = changes_in_place(function.body)
    return ((roots | augmented) & parameters) - bound_again


def _parameters_of(function: cst.FunctionDef) -> set[str]:
    params = function.params
    named = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]}
    stars = [s.name.value for s in (params.star_arg, params.star_kwarg) if isinstance(s, cst.Param)]
    return named | set(stars)


def roots_changed(node: cst.CSTNode) -> set[str]:
    """The names whose objects a block changes in place, at any depth: an item or attribute
    assigned, augmented or deleted (``a[0] = 0``, ``cfg.factor = 10.0``, ``c.n += 1``,
    ``setattr(cfg, "factor", 10.0)``), a
    method that changes a list, dict or array called as a statement of its own
    (``sizes.append(3)``, ``w.fill(0.0)``)."""
    return changes_in_place(node)[0]


def changes_in_place(node: cst.CSTNode) -> tuple[set[str], set[str]]:
    """In one walk: :func:`roots_changed`, and the names augmented (``data += 1.0``, which
    changes a NumPy array in place)."""
    roots: set[str] = set()
    augmented: set[str] = set()
    for found in find_all(node, (cst.AssignTarget, cst.AugAssign, cst.Del, cst.Expr)):
        if isinstance(found, cst.Expr):
            # called for its effect alone: a ``tf.add(a, b)`` that is a value is no ``set.add``
            call = found.value if isinstance(found.value, cst.Call) else None
            func = call.func if call is not None else None
            if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS | _ARRAY_CHANGING_METHODS:
                if (root := root_name(func.value)) is not None:
                    roots.add(root)
            # ``setattr(cfg, "factor", 10.0)`` sets an attribute as ``cfg.factor = 10.0`` does
            elif call is not None and isinstance(func, cst.Name) and func.value in _ATTRIBUTE_SETTERS and call.args:
                if (root := root_name(call.args[0].value)) is not None:
                    roots.add(root)
            continue
        if isinstance(found, cst.AugAssign) and isinstance(found.target, cst.Name):
            augmented.add(found.target.value)
        for target in _target_elements(getattr(found, "target")):  # noqa: B009 - each node's own field
            # (the item or attribute set, not what its index reads: ``out[self.i] = v`` changes ``out``)
            if isinstance(target, (cst.Subscript, cst.Attribute)) and (root := root_name(target)) is not None:
                roots.add(root)
    return roots, augmented


def objects_seen_through(
    nodes: Sequence[cst.CSTNode], shared_roots: frozenset[str] = frozenset(), tf_roots: frozenset[str] = frozenset()
) -> dict[str, set[str]]:
    """For each name of a scope's statements, the other names through which a change in place
    of its object is seen: ``alias = cfg`` (either way: one object), ``cfg = {"w": inner}``
    or ``[inner]`` (``inner[0] = 6.0`` changes what ``cfg["w"][0]`` reads), at any depth; and
    ``cfg = settings.CFG`` (either way) for a name of ``shared_roots`` (the names the file's
    imports bind: ``settings.CFG["k"] = 7.0`` changes ``cfg``); ``v = arr.reshape(-1)``,
    ``a = np.asarray(arr)``, ``vals = params.values()`` (either way), a call that may return a view
    of its receiver or argument (not TensorFlow's, ``tf_roots``: its values copy what they read).  A graph built
    from ``cfg`` captured its values; ``alias[0] = 5.0`` before the run changes them as
    ``cfg[0] = 5.0`` would.  Read over the whole scope, whatever the order."""
    edges: dict[str, set[str]] = {}
    for node in nodes:
        for assign in find_all(node, cst.Assign):
            assert isinstance(assign, cst.Assign)
            targets = [t.target.value for t in assign.targets if isinstance(t.target, cst.Name)]
            value = assign.value
            shared = root_name(value) if isinstance(value, (cst.Attribute, cst.Subscript)) else None
            if isinstance(value, cst.Name) or shared in shared_roots:
                source = value.value if isinstance(value, cst.Name) else shared
                assert source is not None
                for target in targets:
                    edges.setdefault(source, set()).add(target)
                    edges.setdefault(target, set()).add(source)
            elif isinstance(value, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
                for element in value.elements:
                    held = getattr(element, "value", None)
                    if isinstance(held, cst.Name):
                        edges.setdefault(held.value, set()).update(targets)
            elif isinstance(value, cst.Call):
                # ``v = arr.reshape(-1)``, ``a = np.asarray(arr)``, ``vals = params.values()``: a NumPy
                # view, the same object or a live view of the dict (either way: one memory)
                for source in _objects_shared_by_call(value, shared_roots, tf_roots):
                    for target in targets:
                        edges.setdefault(source, set()).add(target)
                        edges.setdefault(target, set()).add(source)
    seen_through: dict[str, set[str]] = {}
    for start in edges:
        reached: set[str] = set()
        todo = [start]
        while todo:
            for other in edges.get(todo.pop(), ()):
                if other not in reached and other != start:
                    reached.add(other)
                    todo.append(other)
        seen_through[start] = reached
    return seen_through


# calls returning a new object, none of their arguments' (a copy, a number, a string)
_COPYING_FUNCTIONS = frozenset(
    {"list", "tuple", "dict", "set", "frozenset", "sorted", "float", "int", "str", "bool", "len", "sum", "min", "max", "abs",
     "round", "repr", "range", "enumerate", "deepcopy", "copy", "array", "tolist", "astype", "item", "format", "join", "mean", "std", "shape", "zeros_like", "ones_like", "isinstance", "hasattr", "open", "print"}
)  # fmt: skip


def _objects_shared_by_call(call: cst.Call, modules: frozenset[str], tf_roots: frozenset[str]) -> list[str]:
    """The names whose objects the value of ``call`` may share (NumPy views, an argument
    returned as it is, a dict's views): its receiver's root and its arguments that are names,
    unless the call is one that makes a new object (``list(...)``, ``x.copy()``, ``np.array(x)``)
    or TensorFlow's; a module it is called on (``np`` of ``np.asarray``) is none of them."""
    func = call.func
    called = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    root = root_name(func)
    if called in _COPYING_FUNCTIONS or root in tf_roots:
        return []
    shared = [a.value.value for a in call.args if isinstance(a.value, cst.Name)]
    if isinstance(func, cst.Attribute) and root is not None and root not in modules:
        shared.append(root)
    return shared


def _target_elements(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The targets a target stands for: itself, or each element of a tuple or list of them."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [t for e in target.elements for t in _target_elements(e.value)]
    return [target]


def _module_values_changed_by(
    function: cst.FunctionDef, functions: dict[str, cst.FunctionDef], seen: set[str], self_changing_methods: frozenset[str] = frozenset()
) -> set[str]:
    """The module's names whose objects a call of ``function`` changes in place (``sizes[0] =
    10.0`` in ``def grow():``, ``net.set_gain(5.0)`` of a method setting ``self``'s state), through
    the file's functions it calls too: the roots it changes that are none of its own names."""
    own = _parameters_of(function) | set(names_bound(function.body))
    changed = roots_changed(function.body) - own
    statement_calls = {id(e.value) for e in find_all(function.body, cst.Expr) if isinstance(e, cst.Expr)}
    for call in find_all(function.body, cst.Call):
        func = cst.ensure_type(call, cst.Call).func
        if id(call) in statement_calls and isinstance(func, cst.Attribute) and func.attr.value in self_changing_methods:
            if (root := root_name(func.value)) is not None and root not in own:
                changed.add(root)
        if isinstance(func, cst.Name) and func.value in functions and func.value not in seen and func.value not in own:
            seen.add(func.value)
            changed |= _module_values_changed_by(functions[func.value], functions, seen, self_changing_methods) - own
    return changed


def self_changing_methods(module: cst.Module) -> frozenset[str]:
    """The names of the methods of the module's classes that set or change ``self``'s state
    (``self.s = …``, ``self.s *= 10.0``, ``self.s[0] = …``, ``self.items.append(…)``)."""
    names = set()
    for cls in find_all(module, cst.ClassDef):
        if not isinstance(cls, cst.ClassDef):
            continue
        for method in cls.body.body:
            if not isinstance(method, cst.FunctionDef) or method.name.value == "__init__":
                continue
            targets = [
                t.target
                for t in find_all(method.body, (cst.AssignTarget, cst.AugAssign))
                if isinstance(t, (cst.AssignTarget, cst.AugAssign))
            ]
            if any(root_name(t) == "self" for t in targets if isinstance(t, (cst.Attribute, cst.Subscript))) or any(
                n.startswith("self.") for n in changed_in_place(method.body)
            ):
                names.add(method.name.value)
    return frozenset(names)
