"""Python values computed from graph objects that the migration would drop (TFM301).

Graph-building code may compute plain Python values from graph objects: ``n =
len(grads)`` after ``grads = tf.gradients(loss, params)``, ``k = len(layers)``.  Such a
statement reads graph names, so it is graph code (a TENSOR statement): it moves into the
generated functions that need it, or, when no run fetches anything built from it, it is
removed.  So is every statement computed from it (``count = n``, ``norms = [... for i in
range(n)]`` after the session block): they read a graph name too.  TF1 computed these
values once, while building the graph, and the rest of the program read them as Python
values; after the migration they no longer exist, and the program silently loses them (a
module global gone, a value computed on a value that is not there).

A statement is *Python-valued* when its value is no tensor: ``len(...)`` (``isinstance``,
``type``...) of anything, a
literal, a Python name, or builtins, NumPy/math calls, arithmetic, comparisons,
subscripts, displays and comprehensions of Python-valued parts (graph names read only
when they are Python-valued themselves).  Such a statement is refused when its value is
lost: a statement of real graph code (one that builds ops) reading it moves with it, but
a Python-valued reader is lost in turn, and a module-level value that nothing reads is a
global the migration removes.  The finding names the value and the first reader losing it.
One that reads no graph value but variables (``n = len(ws)`` of a list of ``tf.Variable``s,
which stay where they are) is kept where it is instead, as plain Python, and so is what is
computed from it alone.
(Static shapes, ``.name`` and identity tests read off graph tensors are refused where
statements are classified, analysis/statements.py.)
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.catalogue import PURE_BUILTINS
from tf2migrate.analysis.model import GraphFacts, Kind, Scope, Statement
from tf2migrate.analysis.names import read_and_bound, target_names
from tf2migrate.traversal import find_all

_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Ellipsis)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_NUMERIC_MODULES = ("np", "numpy", "math")
# builtins whose result is a Python value whatever object they are given
_ABOUT_ANY_OBJECT = frozenset({"len", "isinstance", "type", "id", "callable", "hasattr"})


def find_dropped_python_values(facts: GraphFacts, module: cst.Module) -> None:
    for scope in facts.scopes:
        if scope.cls is not None:
            continue  # a class's graph: its attributes are checked where they are read (escapes.py)
        python_valued: dict[int, cst.BaseExpression] = {}
        for statement in scope.statements:
            _block_python_values_in_blocks(facts, module, scope, statement)
            value = _assigned_value(statement)
            # (one reading no graph value is a plain start a graph loop rebinds: it moves with the loop)
            if value is not None and _graph_reads(statement, scope) and _python_valued(facts, value, scope, statement.order, python_valued):
                python_valued[statement.order] = value
        for order in list(python_valued):
            statement = scope.statements[order]
            graph_reads = _graph_reads(statement, scope)
            if all(found.kind is Kind.VARIABLE for found in graph_reads):
                # ``n = len(ws)`` of a list of variables, which stays where it is: so does the
                # statement (and what it alone feeds), a Python value computed once, as in TF1;
                # graph code reading it moved into functions reads that value
                statement.kind = Kind.PYTHON
                del python_valued[order]
        for order, value in python_valued.items():
            statement = scope.statements[order]
            if _reads_only_python_values(statement, scope, python_valued):
                continue  # computed from another such value: reported at the value it comes from
            lost = _lost_by(statement, scope, python_valued, set())
            if lost is None:
                continue
            name = statement.defines[0]
            computed = module.code_for_node(value)
            if lost is statement:
                where = "it is a module global no generated function computes: the migration would remove it"
            else:
                reader = module.code_for_node(lost.node).strip().splitlines()[0]
                where = f"`{reader}` reads it as a Python value, but both move into generated functions or are removed"
            facts.block(
                statement.node,
                blockers.GRAPH_VALUE_OUTSIDE_RUN,
                f"`{name}` is a Python value computed from graph objects while the graph is built (`{computed}`); {where}",
            )


def _block_python_values_in_blocks(facts: GraphFacts, module: cst.Module, scope: Scope, statement: Statement) -> None:
    """A block of graph code (``if``/``for``/``while``/``try``/``with``) moves into generated
    functions, or is removed when no run fetches it, whole: a plain Python value it binds
    (``z = 5`` next to ``unused = y * 2.0``) would be lost with it, and the code after it
    reading ``z`` too.  Refused at the first such binding."""
    if statement.kind is not Kind.TENSOR or isinstance(statement.node, (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef)):
        return
    bound_in_block = set(read_and_bound(statement.node)[1])  # (a value of the block's own: a tensor, maybe)
    for line in find_all(statement.node, cst.SimpleStatementLine):
        assert isinstance(line, cst.SimpleStatementLine)
        for small in line.body:
            value = small.value if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)) else None
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [getattr(small, "target", None)]
            if value is None or not all(isinstance(t, cst.Name) for t in targets):
                continue
            reads = {n.value for n in find_all(value, cst.Name) if isinstance(n, cst.Name)}
            if not reads & bound_in_block and _python_valued(facts, value, scope, statement.order, {}):
                header = module.code_for_node(statement.node).strip().splitlines()[0]
                facts.block(
                    line,
                    blockers.GRAPH_VALUE_OUTSIDE_RUN,
                    f"`{module.code_for_node(small).strip()}` binds a Python value inside a block of graph-building code "
                    f"(`{header}`), which moves into generated functions or is removed whole: the value would be lost",
                )
                return


def _assigned_value(statement: Statement) -> cst.BaseExpression | None:
    """The value of a graph statement ``name = value`` (``name += value``)."""
    node = statement.node
    if statement.kind is not Kind.TENSOR or not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1:
        return None
    small = node.body[0]
    if isinstance(small, cst.Assign) and all(isinstance(t.target, cst.Name) for t in small.targets):
        return small.value
    if isinstance(small, (cst.AugAssign, cst.AnnAssign)) and isinstance(small.target, cst.Name) and small.value is not None:
        return small.value
    return None


def _python_valued(
    facts: GraphFacts, expression: cst.BaseExpression, scope: Scope, order: int, known: dict[int, cst.BaseExpression]
) -> bool:
    """Is ``expression`` a plain Python value (never a tensor), read where it stands?"""
    local = {n for c in find_all(expression, _COMPREHENSIONS) for f in _for_clauses(c) for n in target_names(f.target)}

    def valued(node: cst.BaseExpression) -> bool:
        if isinstance(node, _LITERALS):
            return True
        if isinstance(node, cst.Name):
            if node.value in local or node.value in ("None", "True", "False"):
                return True
            found = scope.graph_statement(node.value, order)
            return found is None or found.order in known
        if isinstance(node, cst.Call):
            if facts.imports.call_name(node) is not None:
                return False
            func = node.func
            if isinstance(func, cst.Name) and func.value in _ABOUT_ANY_OBJECT:
                return True  # a Python value, whatever it is about
            pure = (isinstance(func, cst.Name) and func.value in PURE_BUILTINS) or (
                isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in _NUMERIC_MODULES
            )
            return pure and all(valued(a.value) for a in node.args)
        if isinstance(node, cst.BinaryOperation):
            return valued(node.left) and valued(node.right)
        if isinstance(node, cst.UnaryOperation):
            return valued(node.expression)
        if isinstance(node, cst.BooleanOperation):
            return valued(node.left) and valued(node.right)
        if isinstance(node, cst.Comparison):
            return valued(node.left) and all(valued(c.comparator) for c in node.comparisons)
        if isinstance(node, cst.IfExp):
            return valued(node.test) and valued(node.body) and valued(node.orelse)
        if isinstance(node, cst.Subscript):
            return valued(node.value) and all(
                valued(e.slice.value)
                if isinstance(e.slice, cst.Index)
                else isinstance(e.slice, cst.Slice) and _slice_valued(e.slice, valued)
                for e in node.slice
            )
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            return all(isinstance(e, cst.Element) and valued(e.value) for e in node.elements)
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return valued(node.elt) and all(valued(f.iter) and all(valued(i.test) for i in f.ifs) for f in _for_clauses(node))
        return False

    return valued(expression)


def _slice_valued(part: cst.Slice, valued) -> bool:
    return all(valued(bound) for bound in (part.lower, part.upper, part.step) if bound is not None)


def _for_clauses(node: cst.CSTNode) -> list[cst.CompFor]:
    clauses: list[cst.CompFor] = []
    clause = getattr(node, "for_in", None)
    while clause is not None:
        clauses.append(clause)
        clause = clause.inner_for_in
    return clauses


def _graph_reads(statement: Statement, scope: Scope) -> list[Statement]:
    return [found for name in statement.reads if (found := scope.graph_statement(name, statement.order)) is not None]


def _reads_only_python_values(statement: Statement, scope: Scope, python_valued: dict[int, cst.BaseExpression]) -> bool:
    graph_reads = _graph_reads(statement, scope)
    return bool(graph_reads) and all(found.order in python_valued for found in graph_reads)


def _lost_by(statement: Statement, scope: Scope, python_valued: dict[int, cst.BaseExpression], seen: set[int]) -> Statement | None:
    """The statement through which the value of ``statement`` is lost: a Python-valued
    reader whose own value is lost, or ``statement`` itself, a module global nothing reads;
    None when every reader is graph code moving with it (or checked elsewhere)."""
    seen.add(statement.order)
    readers = [
        reader
        for reader in scope.statements[statement.order + 1 :]
        if any(name in reader.reads and scope.resolve(name, reader.order) is statement for name in statement.defines)
    ]
    for reader in readers:
        if reader.order in python_valued and reader.order not in seen:
            if _lost_by(reader, scope, python_valued, seen) is not None:
                return reader
    if not readers and isinstance(scope.owner, cst.Module):
        return statement
    return None
