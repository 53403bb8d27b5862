"""Build-time descriptions of graph tensors: ``print(y)``, ``print(y.shape)``,
``assert h.shape.as_list() == Y.shape.as_list()`` in graph-building code, and a notebook
cell ending in a graph tensor (``y_pred``), which IPython displayed (its ``repr``).

TF1 ran such a statement once, while it built the graph, on the symbolic tensor: it read
what the graph knows before anything runs — the tensor's description, its static shape,
its dtype — never a value.  A ``tf.function`` trace builds the same ops from placeholders
given as ``tf.TensorSpec``s of their declared shapes, and its tensors carry the same static
facts, so the statement can run in a trace made where it stood (rewrites/descriptions.py).

This module tells which statements are such descriptions.  A statement qualifies when it is
a lone ``print(...)`` or ``assert`` and every graph tensor or placeholder it reads is read
for a static fact only: a whole argument of ``print`` (its description), or the root of
``.shape``, ``.get_shape()``, ``.dtype`` (anything computed from those is a Python value
TF1 and the trace give alike), or of ``.name`` printed (a name inside the trace's graph).
Anything else — arithmetic on the tensor, ``.numpy()``, ``bool(t)``, ``t.op`` — reads a
value or builds ops, and is refused with the expression that does it.

A notebook cell whose last statement is a graph tensor's name or one of those facts of it
(``y_pred``, ``y_pred.shape``) showed its ``repr`` as the cell's output, once, while the graph was built:
the same description, which the trace prints (``print(repr(y_pred))``).  Elsewhere such an
expression statement shows nothing; it is left to the general check.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.model import Kind, Scope, Statement, lookup_graph_name

# What a description may read from a graph tensor: facts the graph knows before it runs.
_STATIC_ATTRIBUTES = frozenset({"shape", "dtype"})
_STATIC_METHODS = frozenset({"get_shape"})
# Only printed: the name of a tensor in the trace's graph, not in TF1's one graph.
_PRINTED_ATTRIBUTES = frozenset({"name"})
# Constructs that bind names or defer evaluation: not read here as descriptions.
_SCOPING = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.NamedExpr, cst.Yield, cst.Await)


# the statement opening each code cell in the program a notebook's cells make (notebook.py)
CELL_MARKER = "__tf2migrate_cell__"


@dataclass
class Description:
    """A statement that describes graph tensors, and the graph statements it reads."""

    scope: Scope
    statement: Statement
    roots: list[Statement]
    names: list[str]  # the graph names it reads, in order
    expression: cst.BaseExpression  # the ``print(...)`` call, or the asserted test, or the displayed expression
    displayed: bool = False  # the last expression of a notebook cell, which IPython displayed


@dataclass
class Verdict:
    """What a candidate statement is: a description, or refused (the node and why)."""

    description: Description | None = None
    refused: tuple[cst.CSTNode, str] | None = None


def classify(scope: Scope, statement: Statement, skip: set[int], static_reads: frozenset[int] | set[int] = frozenset()) -> Verdict | None:
    """A verdict for a ``print``/``assert`` statement that reads graph tensors or
    placeholders, or None when the statement is none of those (other checks apply).
    ``skip``: the nodes other checks own (run sites' fetches and feed keys).  A static
    value (``w.get_shape().as_list()``, a placeholder's declared dimension) is no such
    node: the number TF1 fixed is the trace's too.  ``static_reads``: the names inside such
    values, which kept code gets as numbers (no read of a graph value: a statement reading
    graph names only there is no description)."""
    node = statement.node
    if not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1:
        return None
    small = node.body[0]
    displayed = False
    if isinstance(small, cst.Assert):
        expression: cst.BaseExpression = small.test
        uses = _uses(small.test, False) + (_uses(small.msg, False) if small.msg is not None else [])
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and m.matches(small.value.func, m.Name("print")):
        expression = small.value
        uses = [use for arg in small.value.args for use in _uses(arg.value, arg.keyword is None and arg.star == "", small.value)]
    elif isinstance(small, cst.Expr) and _displayable(small.value) and _displayed(scope, node):
        displayed = True
        expression = small.value
        uses = _uses(expression, True)
    else:
        return None
    if any(use is None for use in uses) or _touches(small, skip):
        return None  # scoping constructs, or run sites and declared dimensions: other checks
    roots: dict[int, Statement] = {}
    names: list[str] = []
    refused: tuple[cst.CSTNode, str] | None = None
    for name_node, context, static in (u for u in uses if u is not None):
        if id(name_node) in static_reads:
            continue
        found = lookup_graph_name(scope, name_node.value, statement.order)
        if found is None or found[1].kind is Kind.VARIABLE:
            continue  # a Python value, or a variable, which stays where it is
        owner, graph = found
        if owner is not scope or not holds_tensor(scope, graph):
            return None  # train ops, lists, outer graphs: the general check says why
        if not static and refused is None:
            what = "a placeholder" if graph.kind is Kind.PLACEHOLDER else "defined by graph-building code"
            refused = (
                name_node,
                f"`{name_node.value}` ({what}) is read outside a Session run for more than its description "
                f"(`{_code(context)}`); only printing it, `.shape`, `.get_shape()`, `.dtype` and a printed "
                "`.name` are known when the graph is built",
            )
        roots[graph.order] = graph
        if name_node.value not in names:
            names.append(name_node.value)
    if not roots:
        return None
    if refused is not None:
        return Verdict(refused=refused)
    return Verdict(description=Description(scope, statement, [roots[o] for o in sorted(roots)], names, expression, displayed))


def _displayable(expression: cst.BaseExpression) -> bool:
    """A name, or a static fact of one (``y.shape``, ``y.get_shape()``): what a cell shows
    of a graph tensor.  (Another call may return None, which IPython does not show.)"""
    return isinstance(expression, cst.Name) or _static_root(expression, True) is not None


def _displayed(scope: Scope, node: cst.CSTNode) -> bool:
    """Is the statement, at the module's top, the last of a notebook's code cell (followed by
    the next cell's marker, or by nothing), whose value IPython displayed?"""
    owner = scope.owner
    if scope.parent is not None or not isinstance(owner, cst.Module) or not any(_is_cell_marker(s) for s in owner.body):
        return False
    index = next((i for i, s in enumerate(owner.body) if s is node), None)
    return index is not None and (index + 1 == len(owner.body) or _is_cell_marker(owner.body[index + 1]))


def _is_cell_marker(statement: cst.BaseStatement) -> bool:
    return m.matches(statement, m.SimpleStatementLine(body=[m.Expr(value=m.Call(func=m.Name(CELL_MARKER)))]))


def holds_tensor(scope: Scope, statement: Statement) -> bool:
    """Does the name the statement binds hold one tensor (a placeholder, a TF op's result,
    or another name for one: ``d_l1 = diff``)?  Only a tensor's description is static."""
    seen: set[int] = set()
    while statement.order not in seen:
        seen.add(statement.order)
        if statement.kind is Kind.PLACEHOLDER or (statement.kind is Kind.TENSOR and statement.value_kind == "tensor"):
            return True
        node = statement.node
        small = node.body[0] if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 else None
        if statement.kind is not Kind.TENSOR or not isinstance(small, cst.Assign) or not isinstance(small.value, cst.Name):
            return False
        alias = scope.graph_statement(small.value.value, statement.order)
        if alias is None:
            return False
        statement = alias
    return False


_Use = tuple[cst.Name, cst.CSTNode, bool]  # (a name read, the expression reading it, static?)


def _uses(node: cst.CSTNode, printed: bool, parent: cst.CSTNode | None = None) -> list[_Use | None]:
    """Every name the expression reads, with the expression that reads it and whether
    that reads only a static fact of it; None in the list for a construct this module
    does not read (see _SCOPING).  ``printed``: the expression is a whole argument of
    ``print``, whose description it prints."""
    if isinstance(node, _SCOPING):
        return [None]
    root = _static_root(node, printed)
    if root is not None:
        return [(root, node, True)]
    if isinstance(node, cst.Name):
        return [(node, parent if parent is not None and not printed else node, printed)]
    if isinstance(node, cst.Attribute):
        return _uses(node.value, False, node)  # ``.attr`` names no variable
    if isinstance(node, cst.Arg):
        return _uses(node.value, False, parent)  # nor does a keyword
    if isinstance(node, cst.FormattedStringExpression):
        # ``print(f"y: {y}")``: a field that is a name, as such, prints its description
        plain = printed and node.conversion is None and node.format_spec is None
        return _uses(node.expression, plain, parent)
    if isinstance(node, cst.FormattedString):
        return [use for part in node.parts for use in _uses(part, printed, node)]
    return [use for child in node.children for use in _uses(child, False, node)]


def _static_root(node: cst.CSTNode, printed: bool) -> cst.Name | None:
    """``y`` of ``y.shape``, ``y.dtype``, ``y.get_shape()`` (and ``y.name`` printed)."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        if node.attr.value in _STATIC_ATTRIBUTES or (printed and node.attr.value in _PRINTED_ATTRIBUTES):
            return node.value
    if (
        isinstance(node, cst.Call)
        and not node.args
        and isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
        and node.func.attr.value in _STATIC_METHODS
    ):
        return node.func.value
    return None


def _touches(node: cst.CSTNode, skip: set[int]) -> bool:
    """Does the statement hold a node other checks own (a run site's fetch or feed, a
    placeholder's declared dimension)?"""
    if id(node) in skip:
        return True
    return any(_touches(child, skip) for child in node.children)


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)
