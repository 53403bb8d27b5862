"""Reading calls: an argument by keyword or position, all arguments bound to
parameter names, every call below a node, and the statements a set of roots needs."""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.model import Kind, Scope, Statement
from tf2migrate.traversal import walk


def call_argument(call: cst.Call, keyword: str, position: int) -> cst.BaseExpression | None:
    """The argument given as ``keyword=`` or, failing that, as the ``position``-th positional."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    if position < len(positional):
        return positional[position].value
    return None


def bind_arguments(call: cst.Call, parameters: tuple[str, ...]) -> dict[str, cst.Arg] | None:
    """The call's arguments by parameter name (positional ones in ``parameters`` order);
    None for ``*args``/``**kwargs`` or more positional arguments than parameters."""
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > len(parameters):
        return None
    bound = dict(zip(parameters, positional))
    bound.update({a.keyword.value: a for a in call.args if a.keyword is not None})
    return bound


class _CallFinder(cst.CSTVisitor):
    """Every Call in a subtree, without entering nested function bodies."""

    def __init__(self, enter_defs: bool) -> None:
        self.calls: list[cst.Call] = []
        self.enter_defs = enter_defs

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return self.enter_defs

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def calls_in(node: cst.CSTNode, enter_defs: bool = False) -> list[cst.Call]:
    finder = _CallFinder(enter_defs)
    walk(node, finder)
    return finder.calls


def _bindings_it_may_skip(scope: Scope, statement: Statement, names: set[str]) -> list[tuple[Statement, str]]:
    """The earlier bindings of the names an ``if``, loop or ``try`` binds: it may not run the
    assignment (``if scheme == 'VPINNs': self.loss = ...`` then ``if scheme == 'PINNs':
    self.loss = ...``, hp-VPINNs), and then a read after it sees the binding before it, as
    in TF1's constructor. Both go into the function, in order.  Only the ``names`` a
    statement needing it reads of it, and its loop variables that any later statement reads
    (as a Python value, not by a graph dependency): the loop variable of ``for element in
    range(n): log_embed += ...`` that nothing after the loop reads does not need an earlier
    ``for element in ...`` over other placeholders (the cookbook's doc2vec)."""
    if not isinstance(statement.node, (cst.If, cst.For, cst.While, cst.Try)):
        return []
    read_later = {name for name in statement.loop_targets if any(name in later.reads for later in scope.statements[statement.order + 1 :])}
    return [
        (earlier, name)
        for name in statement.defines
        if (name in names or name in read_later) and (earlier := scope.resolve(name, statement.order)) is not None
    ]


def closure(scope: Scope, roots: list[Statement]) -> tuple[list[Statement], list[Statement]]:
    """Graph statements the roots need: TENSOR statements to run and PLACEHOLDERs to feed."""
    # a statement's names some statement needing it reads (a root: all it binds)
    needed: dict[int, set[str]] = {}
    stack: list[tuple[Statement, set[str]]] = [(root, set(root.defines)) for root in roots]
    while stack:
        statement, names = stack.pop()
        # membership by order: ``in scope.statements`` compares dataclasses field by field
        if statement.order >= len(scope.statements) or scope.statements[statement.order] is not statement:
            continue
        first = statement.order not in needed
        known = needed.setdefault(statement.order, set())
        new = names - known
        if not first and not new:
            continue
        known |= new
        if statement.kind in (Kind.TENSOR, Kind.TRAIN, Kind.GRADS, Kind.OPTIMIZER):  # an optimizer's deps: its fed rate
            if first:
                reads = set(statement.reads)
                for o in statement.deps:
                    dependency = scope.statements[o]
                    # the names read of it (a dependency not by name: all it binds)
                    stack.append((dependency, (reads & set(dependency.defines)) or set(dependency.defines)))
            stack.extend((earlier, {name}) for earlier, name in _bindings_it_may_skip(scope, statement, new))
        elif statement.kind is Kind.VARIABLE and first:
            # a cell made once whose dropout reads a value fed at each run (analysis/rnn.FED_KEEP_PROBS)
            stack.extend((scope.statements[o], set(scope.statements[o].defines)) for o in statement.fed_cell_inputs)
    seen = set(needed)
    ordered = [scope.statements[o] for o in sorted(seen)]
    return (
        [s for s in ordered if s.kind in (Kind.TENSOR, Kind.GRADS)],
        [s for s in ordered if s.kind is Kind.PLACEHOLDER],
    )
