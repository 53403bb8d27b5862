"""Small, cheap name facts about CST subtrees (no metadata providers).

A full scope analysis (libcst's ScopeProvider) costs more than the whole rewrite on
large trees; graph-building TF1 code is straight-line module or function code, so the
facts needed are which names a statement reads and which it binds.

An attribute of ``self`` (``self.x_tf``) counts as one name, ``"self.x_tf"``: a graph
built in a constructor keeps its tensors there, and they are its names.
"""

from __future__ import annotations

import libcst as cst
from tf2migrate.traversal import walk


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

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.not_references.add(id(node.name))
        self.binds.append(node.name.value)

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


def self_attribute(node: cst.CSTNode) -> str | None:
    """``"self.x"`` for the expression ``self.x``, else None."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return f"self.{node.attr.value}"
    return None


def local_name(name: str) -> str:
    """The variable a graph name becomes inside a generated function: ``self.x_tf`` → ``x_tf``."""
    return name[len("self.") :] if name.startswith("self.") else name


def names_bound(node: cst.CSTNode) -> list[str]:
    collector = NameCollector()
    walk(node, collector)
    return collector.binds


def free_reads(function: cst.FunctionDef) -> set[str]:
    """Plain names ``function`` reads that it neither takes nor binds: the module's."""
    reads, binds = read_and_bound(function.body)
    params = function.params
    taken = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    taken |= {p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)}
    return {n for n in reads if "." not in n} - set(binds) - taken


def read_and_bound(node: cst.CSTNode) -> tuple[list[str], list[str]]:
    collector = NameCollector()
    walk(node, collector)
    return collector.reads, collector.binds


def target_names(target: cst.BaseExpression) -> list[str]:
    """The plain names an assignment or loop target binds (``a``, ``a, (b, c)``)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_names(e.value)]
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
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value in MUTATING_METHODS:
            self.names.append(func.value.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Subscript) and isinstance(node.target.value, cst.Name):
            self.names.append(node.target.value.value)


def changed_in_place(node: cst.CSTNode) -> list[str]:
    """Plain names whose object a statement changes without rebinding them:
    ``fetches.append(mx)``, ``fetches.extend(...)``, ``feeds[k] = v``.  A graph-building
    block that extends a list of tensors defines that list as much as an assignment would."""
    finder = _InPlaceChanges()
    walk(node, finder)
    return list(dict.fromkeys(finder.names))
