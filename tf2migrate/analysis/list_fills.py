"""Python lists that graph code makes and fills line by line before anything reads them.

TensorFlow-Examples' multi-GPU example collects one result per device in a list and sums
it, each fill a statement of its own inside a ``with tf.device(...)`` block:

    c1 = []
    with tf.device('/gpu:0'):
        a = tf.placeholder(tf.float32, [2, 2])
        c1.append(matpow(a, n))
        c1.append(matpow(b, n))
    sum = tf.add_n(c1)

TF1 built that list once, while building the graph.  Moved into a generated function with
the statement that makes it, in order, each trace builds the same list again: the fill
lines are graph code like assignments (a fill defines the list as much as ``c1 = c1 + [x]``
would), and the statement that makes the list moves along (StatementClassifier._take_starts).

That holds only while the list is one object of the graph code alone.  A fill that comes
after anything else named the list (``d = c1``, a run fetching it, ``print(len(c1))``)
changes what that reader holds or already ran: such a fill stays Python, and the graph
values it puts in the list are refused where it reads them (TFM301), as is a fill of a
list this scope did not make with a list display.  Compound blocks that fill a list
(``for tower in towers: grads.append(...)``) are graph code of their own and count as
fills here; calls that fill a list inside a function (a helper) are reads.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.names import changed_in_place, graph_name, read_and_bound

FILL_METHODS = frozenset({"append", "extend", "insert"})


def filled_list(node: cst.BaseStatement) -> str | None:
    """``L`` of a line ``L.append(...)`` (``extend``, ``insert``; ``L`` a name or an
    attribute of self): Python code that fills a list, which graph tensors may be put in."""
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Expr)):
        return None
    call = node.body[0].value
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value in FILL_METHODS):
        return None
    return graph_name(call.func.value)


def _list_display_target(node: cst.BaseStatement) -> str | None:
    """``L`` of ``L = [...]`` (a list display, empty or not)."""
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)):
        return None
    assign = node.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.value, cst.List):
        return None
    return graph_name(assign.targets[0].target)


def list_fills(nodes: list[cst.BaseStatement], module: cst.Module) -> tuple[set[int], dict[int, str]]:
    """Of a scope's effective statements, the fill lines that may move into generated
    functions (by id), and why each other fill line stays Python (by id)."""
    allowed: set[int] = set()
    refused: dict[int, str] = {}
    # per list: None while only its display and fills named it, else what read it first
    tracked: dict[str, str | None] = {}
    for node in nodes:
        filled = filled_list(node)
        reads, binds = read_and_bound(node)
        started = _list_display_target(node)
        if filled is not None:
            if filled not in tracked:
                refused[id(node)] = f"`{filled}` is not made by a list display (`{filled} = []`) of this graph code"
            elif (reader := tracked[filled]) is not None:
                refused[id(node)] = f"the list is filled after {reader} named it"
            else:
                allowed.add(id(node))
                reads = [n for n in reads if n != filled]  # (the fill's own mention)
        elif not isinstance(node, cst.SimpleStatementLine):
            # a block that fills a list in place (graph code of its own, or refused as such)
            in_place = set(changed_in_place(node))
            reads = [n for n in reads if n not in in_place]
        for name in dict.fromkeys([*reads, *binds]):
            if name == started or name not in tracked or tracked[name] is not None:
                continue
            if name in reads:
                tracked[name] = f"`{_headline(node, module)}`"
            else:
                del tracked[name]  # rebound: a list of its own, or no list
        if started is not None:
            tracked[started] = None
    return allowed, refused


def _headline(node: cst.BaseStatement, module: cst.Module) -> str:
    """A statement as a finding names it: its first small statement, or a block's header."""
    if isinstance(node, cst.SimpleStatementLine):
        return module.code_for_node(node.body[0]).strip()
    return module.code_for_node(node).strip().splitlines()[0].rstrip(":")
