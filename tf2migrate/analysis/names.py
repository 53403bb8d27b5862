"""Small, cheap name facts about CST subtrees (no metadata providers).

A full scope analysis (libcst's ScopeProvider) costs more than the whole rewrite on
large trees; graph-building TF1 code is straight-line module or function code, so the
facts needed are which names a statement reads and which it binds.

An attribute of ``self`` (``self.x_tf``) counts as one name, ``"self.x_tf"``: a graph
built in a constructor keeps its tensors there, and they are its names.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from tf2migrate.traversal import find_all, walk


class NameReferences:
    """Which ``Name`` nodes a visitor meets are variable references, for visitors that
    treat every other name as a read. Attribute, keyword and parameter names and the
    targets passed to ``mark_bound`` are not. Kept as node ids filled on the way down:
    libcst's ExpressionContextProvider would answer too, at the cost of another walk."""

    def __init__(self) -> None:
        super().__init__()
        self.not_references: set[int] = set()

    def is_reference(self, node: cst.CSTNode) -> bool:
        return id(node) not in self.not_references

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.not_references.add(id(node.keyword))

    def visit_Param(self, node: cst.Param) -> None:
        self.not_references.add(id(node.name))

    def mark_bound(self, target: cst.BaseExpression) -> list[str]:
        """The names an assignment target binds (``self.x`` as one name), marked as not read
        (``u, f = sess.run([u, f])`` rebinds them)."""
        bound = self_attribute(target) or (target.value if isinstance(target, cst.Name) else None)
        if bound is not None:
            self.not_references.add(id(target))
            return [bound]
        if isinstance(target, (cst.Tuple, cst.List)):
            return [n for element in target.elements for n in self.mark_bound(element.value)]
        if isinstance(target, cst.StarredElement):
            return self.mark_bound(target.value)
        return []


class NameCollector(NameReferences, cst.CSTVisitor):
    """Names read and bound by a subtree; nested defs/lambdas/classes count as reads
    only for names they do not bind themselves (closures read the enclosing scope)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []
        self.binds: list[str] = []

    # Positions where a Name is not a variable reference.
    def visit_Attribute(self, node: cst.Attribute) -> bool:
        name = self_attribute(node)
        if name is not None:
            if self.is_reference(node):
                self.reads.append(name)
            return False
        self.not_references.add(id(node.attr))
        return True

    def visit_Param(self, node: cst.Param) -> None:
        super().visit_Param(node)
        self.binds.append(node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool | None:
        self.not_references.add(id(node.name))
        self.binds.append(node.name.value)
        return None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.not_references.add(id(node.name))
        self.binds.append(node.name.value)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> bool:
        target: cst.BaseExpression = node.asname.name if node.asname else node.name
        while isinstance(target, cst.Attribute):
            target = target.value
        if isinstance(target, cst.Name):
            self.binds.append(target.value)
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target)
        if isinstance(node.target, cst.Name):
            self.reads.append(node.target.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind_target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind_target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind_target(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target)

    def _bind_target(self, target: cst.BaseExpression) -> None:
        self.binds.extend(self.mark_bound(target))

    def visit_Name(self, node: cst.Name) -> None:
        if self.is_reference(node):
            self.reads.append(node.value)


class LoopVariables:
    """A visitor mix-in (before the visitor's base): ``is_loop_variable(name)`` says
    whether a read where the walk stands reads the target of an enclosing ``for`` of the
    walked subtree, in that loop's body — not its ``else`` (which also runs when the loop
    did not) nor a def, lambda or class nested there (which may run later) — or the target
    of an enclosing comprehension (``[sess.run(acc) for _ in range(3)]``: its own name),
    unless its first iterable reads that name too (``[x for x in x]`` reads the outer ``x``
    there)."""

    def __init__(self) -> None:
        super().__init__()
        self._loop_bodies: dict[int, frozenset[str]] = {}  # a for's body → the names its target binds
        self._open_blocks: list[tuple[cst.CSTNode, frozenset[str] | None]] = []  # None: a nested def, lambda or class

    def is_loop_variable(self, name: str) -> bool:
        for _, names in reversed(self._open_blocks):
            if names is None:
                return False
            if name in names:
                return True
        return False

    def visit_For(self, node: cst.For) -> None:
        super().visit_For(node)  # type: ignore[misc]
        self._loop_bodies[id(node.body)] = frozenset(target_names(node.target))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_body(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._leave_block(original_node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_body(node)

    def leave_SimpleStatementSuite(self, original_node: cst.SimpleStatementSuite) -> None:
        self._leave_block(original_node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool | None:
        visited = super().visit_FunctionDef(node)  # type: ignore[misc]
        self._open_blocks.append((node, None))
        return visited

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)  # type: ignore[misc]
        self._leave_block(original_node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)  # type: ignore[misc]
        self._open_blocks.append((node, None))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        super().leave_ClassDef(original_node)  # type: ignore[misc]
        self._leave_block(original_node)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        super().visit_Lambda(node)  # type: ignore[misc]
        self._open_blocks.append((node, None))

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        super().leave_Lambda(original_node)  # type: ignore[misc]
        self._leave_block(original_node)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._enter_comprehension(node)

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self._leave_block(original_node)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._enter_comprehension(node)

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self._leave_block(original_node)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._enter_comprehension(node)

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self._leave_block(original_node)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._enter_comprehension(node)

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self._leave_block(original_node)

    def _enter_comprehension(self, node: cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp) -> None:
        names: set[str] = set()
        for_in: cst.CompFor | None = node.for_in
        while for_in is not None:
            names.update(target_names(for_in.target))
            for_in = for_in.inner_for_in
        outer = {n.value for n in find_all(node.for_in.iter, cst.Name) if isinstance(n, cst.Name)}
        self._open_blocks.append((node, frozenset(names - outer)))

    def _enter_body(self, node: cst.CSTNode) -> None:
        names = self._loop_bodies.get(id(node))
        if names is not None:
            self._open_blocks.append((node, names))

    def _leave_block(self, node: cst.CSTNode) -> None:
        if self._open_blocks and self._open_blocks[-1][0] is node:
            self._open_blocks.pop()


class _LoopVariableReads(LoopVariables, NameCollector):
    """Also notes the reads that read a loop variable (LoopVariables)."""

    def __init__(self) -> None:
        super().__init__()
        self.loop_reads: list[str] = []

    def visit_Name(self, node: cst.Name) -> None:
        super().visit_Name(node)
        if self.is_reference(node) and self.is_loop_variable(node.value):
            self.loop_reads.append(node.value)


def loop_variable_names(node: cst.CSTNode) -> set[str]:
    """Names every read of which in ``node`` reads the variable of a ``for`` loop of
    ``node``, in that loop's body (``for p, y in zip(pred, y_data): print(int(y[0]))``),
    or of a comprehension of ``node`` (``[float(x) for x in xs]``): the loop binds them
    first, so no read sees a binding made before the statement."""
    collector = _LoopVariableReads()
    walk(node, collector)
    return {n for n in collector.loop_reads if collector.reads.count(n) == collector.loop_reads.count(n)}


def names_bound_before_read(node: cst.CSTNode) -> set[str]:
    """Names a ``for``/``while`` loop or a ``with`` block binds, by an assignment at the top of
    its body, before any read of them in it (``for step in range(3): action = policy(step);
    print(action)``): each read there sees the block's own value, never one bound before the
    statement (a graph tensor of the same name, built earlier).  The loop's head (its iterable,
    its test), its ``else`` and a read in the assignment binding the name (``a = f(a)``) are
    reads of the earlier value."""
    if isinstance(node, cst.For):
        head: list[cst.CSTNode] = [node.iter]
    elif isinstance(node, cst.While):
        head = [node.test]
    elif isinstance(node, cst.With):
        head = list(node.items)
    else:
        return set()
    if not isinstance(node.body, cst.IndentedBlock):
        return set()
    earlier = {n for part in head for n in read_and_bound(part)[0]}
    orelse = getattr(node, "orelse", None)
    if orelse is not None:
        earlier.update(read_and_bound(orelse)[0])
    bound: set[str] = set()
    for statement in node.body.body:
        earlier.update(n for n in read_and_bound(statement)[0] if n not in bound)
        if isinstance(statement, cst.SimpleStatementLine):
            # (an assignment only: a compound statement's bindings may not happen)
            bound.update(_plainly_assigned(statement))
    return bound - earlier


def names_bound_around(statement: cst.CSTNode, inner: cst.CSTNode) -> set[str]:
    """Names every read of which at ``inner`` sees a value the blocks of ``statement`` around it
    bound there: the variables of the ``for`` loops whose bodies hold it, and the names such a
    loop, a ``while`` loop or a ``with`` block binds before reading them
    (:func:`names_bound_before_read`: ``for s in [0.5, 1.5]: scale = s * 2.0;
    sess.run(W * scale)``)."""
    around: set[str] = set()
    for block in find_all(statement, (cst.For, cst.While, cst.With)):
        body = block.body if isinstance(block, (cst.For, cst.While, cst.With)) else None
        if body is None or not any(n is inner for n in find_all(body, type(inner))):
            continue
        if isinstance(block, cst.For):
            around.update(target_names(block.target))
        around |= names_bound_before_read(block)
    return around


def names_surely_bound(node: cst.CSTNode) -> set[str]:
    """Names a ``with`` block, a ``for`` loop over a non-empty literal range or display
    (``range(4)``, ``[0.5, 1.5]``) or a ``while True:`` loop surely binds, by assignments
    among the simple statements opening its body (before any block, ``break``, ``continue``,
    ``return`` or ``raise`` that could skip them): once it ran, a read after it sees its value.
    A ``with`` of ``suppress(...)`` is none (an exception may leave the assignment undone)."""
    if isinstance(node, cst.With):
        if any(
            isinstance(item.item, cst.Call)
            and isinstance(item.item.func, (cst.Name, cst.Attribute))
            and _last_name(item.item.func) == "suppress"
            for item in node.items
        ):
            return set()
    elif isinstance(node, cst.For):
        if not _surely_iterates(node.iter):
            return set()
    elif isinstance(node, cst.While):
        if not (isinstance(node.test, cst.Name) and node.test.value == "True"):
            return set()
    else:
        return set()
    if not isinstance(node.body, cst.IndentedBlock):
        return set()
    bound: set[str] = set()
    for statement in node.body.body:
        if not isinstance(statement, cst.SimpleStatementLine) or any(
            isinstance(small, (cst.Break, cst.Continue, cst.Return, cst.Raise)) for small in statement.body
        ):
            break
        bound.update(_plainly_assigned(statement))
    return bound


def _plainly_assigned(statement: cst.SimpleStatementLine) -> list[str]:
    """The plain names the ``=`` assignments of a simple statement bind (not ``+=``, which
    reads the name first, nor attributes and items)."""
    return [n for small in statement.body if isinstance(small, cst.Assign) for t in small.targets for n in target_names(t.target)]


def _last_name(func: cst.Name | cst.Attribute) -> str:
    return func.value if isinstance(func, cst.Name) else func.attr.value


def _surely_iterates(iterable: cst.BaseExpression) -> bool:
    """Is ``iterable`` a ``range`` of literal integers, or a list or tuple display, that is not empty?"""
    if isinstance(iterable, (cst.List, cst.Tuple)):
        return bool(iterable.elements)
    if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range"):
        return False
    if not 1 <= len(iterable.args) <= 2 or any(a.keyword is not None or a.star for a in iterable.args):
        return False
    bounds = [a.value for a in iterable.args]
    if not all(isinstance(b, cst.Integer) for b in bounds):
        return False
    numbers = [int(cst.ensure_type(b, cst.Integer).value, 0) for b in bounds]
    start, stop = (0, numbers[0]) if len(numbers) == 1 else (numbers[0], numbers[1])
    return start < stop


def self_attribute(node: cst.CSTNode) -> str | None:
    """``"self.x"`` for the expression ``self.x``, else None."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return f"self.{node.attr.value}"
    return None


def local_name(name: str) -> str:
    """The variable a graph name becomes inside a generated function: ``self.x_tf`` → ``x_tf``."""
    return name[len("self.") :] if name.startswith("self.") else name


def variable_names(node: cst.CSTNode) -> list[cst.Name]:
    """The names of a subtree that name variables: not an attribute's label (``train`` of
    ``tf.train``), not a keyword argument's (``f(train=…)``).  Counting a function's uses by
    its name alone counted ``tf.train`` as a use of a script's ``train``."""
    labels = {id(cst.ensure_type(a, cst.Attribute).attr) for a in find_all(node, cst.Attribute)}
    labels |= {id(k) for a in find_all(node, cst.Arg) if (k := cst.ensure_type(a, cst.Arg).keyword) is not None}
    return [cst.ensure_type(n, cst.Name) for n in find_all(node, cst.Name) if id(n) not in labels]


def names_bound(node: cst.CSTNode) -> list[str]:
    collector = NameCollector()
    walk(node, collector)
    return collector.binds


def bound_once_at_top(module: cst.Module) -> dict[str, tuple[cst.SimpleStatementLine, cst.BaseExpression]]:
    """The names the whole module binds once (every scope counted: a function's assignment,
    parameter, import or loop variable of the same name is a second binding), by a
    ``name = value`` statement at its top: name → (that statement, the value)."""
    counts = Counter(names_bound(module))
    found = {}
    for statement in module.body:
        if m.matches(statement, m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget(m.Name())])])):
            line = cst.ensure_type(statement, cst.SimpleStatementLine)
            assign = cst.ensure_type(line.body[0], cst.Assign)
            name = cst.ensure_type(assign.targets[0].target, cst.Name).value
            if counts[name] == 1:
                found[name] = (line, assign.value)
    return found


def scope_body(scope: cst.Module | cst.FunctionDef) -> Sequence[cst.BaseStatement]:
    """The statements at the top of a module or of a function's body (none for ``def f(): ...``
    on one line)."""
    if isinstance(scope, cst.Module):
        return scope.body
    return scope.body.body if isinstance(scope.body, cst.IndentedBlock) else ()


@dataclass
class FunctionFacts:
    """What the graph analysis asks of every module function (analysis/graph.py's
    helpers), from one walk of its body (nested defs included).  Test modules hold
    hundreds of methods: a walk for each question cost about a tenth of a tensor2tensor run."""

    calls: list[cst.Call]  # every call, in the order libcst's visit meets them
    reads: list[str]  # ``read_and_bound``'s
    binds: list[str]
    free_reads: set[str]  # plain names it reads that it neither takes nor binds: the module's
    scope_statements: list[cst.Global | cst.Nonlocal]
    assignments: list[cst.Assign | cst.AugAssign | cst.AnnAssign | cst.Del]
    attributes: list[cst.Attribute]  # every ``x.y`` read or called (members of its objects)


class _FunctionWalk(NameCollector):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[cst.Call] = []
        self.attributes: list[cst.Attribute] = []
        self.scope_statements: list[cst.Global | cst.Nonlocal] = []
        self.assignments: list[cst.Assign | cst.AugAssign | cst.AnnAssign | cst.Del] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.attributes.append(node)
        return super().visit_Attribute(node)

    def visit_Global(self, node: cst.Global) -> None:
        self.scope_statements.append(node)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.scope_statements.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.assignments.append(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        super().visit_AugAssign(node)
        self.assignments.append(node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        super().visit_AnnAssign(node)
        self.assignments.append(node)

    def visit_Del(self, node: cst.Del) -> None:
        self.assignments.append(node)


def function_facts(function: cst.FunctionDef) -> FunctionFacts:
    walker = _FunctionWalk()
    walk(function.body, walker)
    free = _free(function, walker.reads, walker.binds)
    return FunctionFacts(walker.calls, walker.reads, walker.binds, free, walker.scope_statements, walker.assignments, walker.attributes)


def _free(function: cst.FunctionDef, reads: list[str], binds: list[str]) -> set[str]:
    """Plain names ``function`` reads that it neither takes nor binds: the module's.  The
    names its parameters' defaults read are the module's too: ``def poly(c=coeffs)`` reads
    the object ``coeffs`` held when the ``def`` ran, which a later ``coeffs.append(3.0)``
    changes for every call after it."""
    params = function.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    taken = {p.name.value for p in every}
    taken |= {p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)}
    defaults = {n for p in every if p.default is not None for n in read_and_bound(p.default)[0] if "." not in n}
    return ({n for n in reads if "." not in n} - set(binds) - taken) | defaults


def read_and_bound(node: cst.CSTNode) -> tuple[list[str], list[str]]:
    collector = NameCollector()
    walk(node, collector)
    return collector.reads, collector.binds


def target_names(target: cst.CSTNode | None) -> list[str]:
    """The plain names an assignment or loop target binds (``a``, ``a, (b, c)``, ``a, *b``;
    not the roots of its subscripts and attributes)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def assigned_names(statement: cst.CSTNode) -> list[str]:
    """Names bound at the top of a simple statement (``a, b = ...``, ``a += ...``)."""
    names: list[str] = []

    def add(target: cst.BaseExpression) -> None:
        attribute = self_attribute(target)
        if attribute is not None:
            names.append(attribute)
        elif isinstance(target, cst.Name):
            names.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                add(element.value)
        elif isinstance(target, cst.StarredElement):
            add(target.value)

    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Assign):
                for t in small.targets:
                    add(t.target)
            elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
                add(small.target)
    return names


def created_name(base: str, in_class: bool, in_use: set[str]) -> str:
    """A fresh name for an object created once where a TF1 graph statement stood; on
    ``self`` when the graph is built in a constructor, since the generated methods that
    use it run later, elsewhere."""
    name = fresh_name(base.removeprefix("self."), in_use)
    return f"self.{name}" if in_class or base.startswith("self.") else name


def fresh_name(base: str, in_use: set[str]) -> str:
    """``base``, or ``base_2``, ``base_3`` …: the first not in use; it is then in use."""
    name, counter = base, 1
    while name in in_use:
        counter += 1
        name = f"{base}_{counter}"
    in_use.add(name)
    return name


def graph_name(node: cst.BaseExpression) -> str | None:
    """The graph name an expression stands for: a variable, or an attribute of self."""
    if isinstance(node, cst.Name):
        return node.value
    return self_attribute(node)


def root_name(expr: cst.BaseExpression) -> str | None:
    """The name an attribute or subscript chain starts from (``a`` of ``a.b[0].c``)."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


# Methods that change a list, dict or set in place.
MUTATING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "remove", "pop", "clear"})


class _InPlaceChanges(cst.CSTVisitor):
    """Names changed in place by statements of a subtree, outside nested defs and lambdas."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Expr(self, node: cst.Expr) -> None:
        func = node.value.func if isinstance(node.value, cst.Call) else None
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS and (name := graph_name(func.value)) is not None:
            self.names.append(name)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Subscript) and (name := graph_name(node.target.value)) is not None:
            self.names.append(name)


def changed_in_place(node: cst.CSTNode) -> list[str]:
    """Names (plain, or attributes of self) whose object a statement changes without
    rebinding them: ``fetches.append(mx)``, ``self.grads.extend(...)``, ``feeds[k] = v``.  A graph-building
    block that extends a list of tensors defines that list as much as an assignment would."""
    finder = _InPlaceChanges()
    walk(node, finder)
    return list(dict.fromkeys(finder.names))


def named_elsewhere(module: cst.Module, function: cst.FunctionDef) -> bool:
    """Does anything in the module name the function or method (``f``, ``self.f``,
    ``model.f``; ``getattr(x, "f")`` aside), other than its own ``def``?  None does: nothing
    in the file calls it (dead code here; other modules may still)."""
    name = function.name.value
    mentions = find_all(module, m.Attribute(attr=m.Name(name)) | m.Name(name))
    return any(node is not function.name for node in mentions)
