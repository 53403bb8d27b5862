"""Graph tensors a method returns that no caller keeps (TFM111).

Research code returns a graph tensor with the values a training loop collected
(PINN-laminar-flow: ``return loss_WALL, loss_INLET, loss_OUTLET, loss_f, self.loss``),
and its one caller unpacks it into a name it never reads (``..., loss = model.train(...)``).
Once the graph code moves into generated methods the tensor no longer exists, so the read
would be refused (TFM301). When every call of the method in the file throws that element
away, nothing in the program ever looked at it: the element becomes ``None``, and the
program computes what TF1's did. Which callers exist is read from this file, by the
method's name (any ``.train(...)``, whatever the receiver): a mention that is not such a
call — the method passed on, a call whose result is kept whole or read — keeps the read
refused. Like the attributes TFM111 reports, the value is gone for code outside the file.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.names import function_facts, read_and_bound, self_attribute
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.traversal import find_all, walk

# calls that read a scope's names by their strings: a name they may read is never "unread"
_DYNAMIC_READS = frozenset({"globals", "locals", "vars", "eval", "exec"})


def discarded_returns(tf: TfImports, module: cst.Module, method: cst.FunctionDef, graph_attributes: set[str]) -> list[cst.Attribute]:
    """The ``self.<graph attribute>`` elements of ``method``'s returned tuple that every
    call of the method in ``module`` unpacks into a name read nowhere (or discards whole)."""
    returns = _returns(method)
    if len(returns) != 1 or not isinstance(returns[0].value, cst.Tuple):
        return []
    elements = returns[0].value.elements
    if any(isinstance(e, cst.StarredElement) for e in elements):
        return []
    positions = [
        i for i, e in enumerate(elements) if (name := self_attribute(e.value)) is not None and name[len("self.") :] in graph_attributes
    ]
    if not positions or any(
        m.matches(call.func, m.Name()) and call.func.value in _DYNAMIC_READS  # type: ignore[attr-defined]
        for call in find_all(module, m.Call())
    ):
        return []
    callers = _Callers(tf, method)
    walk(module, callers)
    if callers.other_mention:
        return []
    for assign, scope in callers.unpacked:
        targets = assign.targets[0].target.elements  # type: ignore[attr-defined]  # a tuple or list: _Callers
        if len(targets) != len(elements) or not all(isinstance(t.value, cst.Name) for t in targets):
            return []
        unread = [cst.ensure_type(targets[p].value, cst.Name).value for p in positions]
        if any(_read(module, scope, name) for name in unread):
            return []
    return [cst.ensure_type(elements[p].value, cst.Attribute) for p in positions]


def _returns(method: cst.FunctionDef) -> list[cst.Return]:
    """The method's own ``return`` statements (a ``yield`` makes it a generator: none)."""

    class _Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[cst.Return] = []
            self.generator = False

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is method

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            self.found.append(node)

        def visit_Yield(self, node: cst.Yield) -> None:
            self.generator = True

    finder = _Finder()
    walk(method, finder)
    return [] if finder.generator else finder.found


class _Callers(cst.CSTVisitor):
    """Every mention of the method's name: ``a, ..., z = x.<name>(...)`` statements with
    their enclosing def (None: the module), calls whose value is discarded, and anything
    else (``other_mention``) but TensorFlow's own names (``tf.train``)."""

    def __init__(self, tf: TfImports, method: cst.FunctionDef) -> None:
        self.tf = tf
        self.name = method.name.value
        self.functions: list[cst.FunctionDef] = []
        self.unpacked: list[tuple[cst.Assign, cst.FunctionDef | None]] = []
        self.allowed: set[int] = {id(method.name)}
        self.other_mention = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        for small in node.body:
            call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
            if not (isinstance(call, cst.Call) and m.matches(call.func, m.Attribute(attr=m.Name(self.name)))):
                continue
            func = cst.ensure_type(call.func, cst.Attribute)
            if isinstance(small, cst.Expr):
                self.allowed.add(id(func.attr))
            elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, (cst.Tuple, cst.List)):
                self.allowed.add(id(func.attr))
                self.unpacked.append((small, self.functions[-1] if self.functions else None))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == self.name and self.tf.canonical(node) is not None:
            self.allowed.add(id(node.attr))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self.allowed:
            self.other_mention = True


def _read(module: cst.Module, scope: cst.FunctionDef | None, name: str) -> bool:
    """May code read ``name`` as the variable a statement of ``scope`` binds?  In a def,
    any read of it there (nested defs included); at the module, a read by module-level
    code or by a def that does not bind it. ``global``/``nonlocal`` of it: yes."""
    declared = find_all(module, m.Global() | m.Nonlocal())
    if any(n.name.value == name for d in declared for n in d.names):  # type: ignore[attr-defined]
        return True
    if scope is not None:
        return name in read_and_bound(scope.body)[0]
    if name in read_and_bound(module.visit(_EmptyDefs()))[0]:
        return True
    return any(name in function_facts(cst.ensure_type(f, cst.FunctionDef)).free_reads for f in find_all(module, m.FunctionDef()))


class _EmptyDefs(cst.CSTTransformer):
    """The module with every def's body emptied: module-level code, with the decorators,
    defaults and annotations a ``def`` evaluates where it stands."""

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        return updated_node.with_changes(body=cst.IndentedBlock(body=[]))
