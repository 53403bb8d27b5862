"""Loop-invariant feeds: a feed dict bound once before a training loop, whose arrays no code
after it can change, holds tensors (``tf.convert_to_tensor(x_data, tf.float32)``) instead.

A generated ``tf.function`` converts each NumPy argument to its ``TensorSpec`` at every call
(``TensorSpec.cast`` → ``convert_to_tensor(value, dtype)``, ~100–270 µs for a PINN's three
arrays, a tenth of a small step); converting once, with the same function and the
placeholder's dtype, gives the same tensors. TF1 read the arrays at each ``sess.run``, so
the conversion is moved only when every statement from the dict to its last read provably
leaves NumPy arrays alone: plain name bindings, loops and ``if`` over such statements, and
calls of converted runs (whose feeds are checked too), ``print``, ``time.*`` clocks, a few
builtins and ``append`` to a list made after the dict. Anything else (a call of user code,
an augmented or subscript assignment that could write into an array in place) leaves the
dict as it was. Every read of the dict must be the feed of a converted run that unpacks it
(``train_step(**tf_dict)``): no other code sees the tensors.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.model import RunForm
from tf2migrate.analysis.names import graph_name, local_name, read_and_bound
from tf2migrate.analysis.tf_imports import dotted_name
from tf2migrate.rewrites.function_emission import PLACEHOLDER_TO_ARGUMENT
from tf2migrate.rewrites.generated import SessionRewrite, UnpackedFeed
from tf2migrate.traversal import find_all

# calls that read their arguments and change no array
_READING_CALLS = frozenset(
    {"print", "len", "range", "int", "float", "str", "bool", "abs", "min", "max", "round", "enumerate", "zip", "format"}
)
_CLOCKS = frozenset({"time.time", "time.perf_counter", "time.process_time", "time.monotonic"})


def convert(rewrite: SessionRewrite) -> set[int]:
    """Wrap the values of each loop-invariant feed dict in ``tf.convert_to_tensor``; the
    ids of the dict displays so converted."""
    by_dict: dict[int, list[UnpackedFeed]] = {}
    for feed in rewrite.unpacked_feeds:
        by_dict.setdefault(id(feed.dict_node), []).append(feed)
    sites = [s for scope in rewrite.facts.scopes for s in scope.run_sites if id(s.call) in rewrite.plan.replace]
    # a SciPy minimize calls back into user code (loss_callback=) while it runs: inert only
    # as the dict's last read, since its function converts its arguments once on entry anyway
    converted_runs = {id(s.call) for s in sites if s.form is not RunForm.SCIPY}
    scipy_runs = {id(s.call) for s in sites if s.form is RunForm.SCIPY}
    converted = set()
    for feeds in by_dict.values():
        dtypes = _dtypes(rewrite, feeds)
        if dtypes is not None and _invariant(rewrite, feeds, converted_runs, scipy_runs):
            _wrap_values(rewrite, feeds[0].feed_dict.name, feeds[0].dict_node, dtypes)
            converted.add(id(feeds[0].dict_node))
    return converted


def _dtypes(rewrite: SessionRewrite, feeds: list[UnpackedFeed]) -> dict[str, str] | None:
    """Each key's placeholder dtype, as written; None when one has none or a default."""
    dtypes: dict[str, str] = {}
    for feed in feeds:
        for key, statement in feed.placeholders.items():
            placeholder = statement.placeholder
            if placeholder is None or placeholder.dtype is None or placeholder.default is not None:
                return None
            dtypes[key] = rewrite.code(placeholder.dtype)
    return dtypes


def _invariant(rewrite: SessionRewrite, feeds: list[UnpackedFeed], converted_runs: set[int], scipy_runs: set[int]) -> bool:
    feed_dict = feeds[0].feed_dict
    if feed_dict.count != 1:
        return False
    container: cst.Module | cst.FunctionDef = feed_dict.function if feed_dict.function is not None else rewrite.module
    found = _block_of(container, feed_dict.assign)
    if found is None:
        return False
    block, index = found
    unpacked = {id(f.site.feed) for f in feeds}
    target = feed_dict.assign.targets[0].target
    reads = {id(n) for n in _names(container) if n.value == feed_dict.name and n is not target}
    if not reads or not reads <= unpacked:
        return False  # read otherwise than unpacked into a converted run
    after = block[index + 1 :]
    holding = [i for i, s in enumerate(after) if any(id(n) in reads for n in find_all(s, cst.Name))]
    span = after[: holding[-1] + 1] if holding else []
    if sum(1 for s in span for n in find_all(s, cst.Name) if id(n) in reads) != len(reads):
        return False  # read before the binding, or in another block
    in_loop = any(id(n) in reads for s in span for loop in find_all(s, (cst.For, cst.While)) for n in find_all(loop, cst.Name))
    fresh = _fresh_lists(container, span)
    # (a line of its own, not in a loop whose next turn would read the dict again)
    last_runs = converted_runs | scipy_runs if isinstance(span[-1], cst.SimpleStatementLine) else converted_runs
    return in_loop and all(_inert_statement(s, converted_runs, fresh) for s in span[:-1]) and _inert_statement(span[-1], last_runs, fresh)


def _names(node: cst.CSTNode) -> list[cst.Name]:
    return [n for n in find_all(node, cst.Name) if isinstance(n, cst.Name)]


def _block_of(container: cst.CSTNode, assign: cst.Assign) -> tuple[list[cst.BaseStatement], int] | None:
    """The statement list holding ``assign``'s line, and the line's index in it."""
    for node in find_all(container, (cst.Module, cst.IndentedBlock)):
        assert isinstance(node, (cst.Module, cst.IndentedBlock))
        body: list[cst.BaseStatement] = list(node.body)
        for index, statement in enumerate(body):
            if isinstance(statement, cst.SimpleStatementLine) and any(small is assign for small in statement.body):
                return body, index
    return None


def _fresh_lists(container: cst.CSTNode, span: list[cst.BaseStatement]) -> frozenset[str]:
    """Names bound only to a new list in ``span``: made after the dict, they hold none of its arrays.

    Every binding of the name in ``container`` counts (a parameter, a loop target, a
    ``global`` in some function): bound anywhere else, the name may hold the dict's list
    when ``append`` runs before the new list is made (a loop's first turn)."""
    inside = {id(n) for s in span for n in find_all(s, cst.Assign)}
    made: dict[str, int] = {}
    for assign in find_all(container, cst.Assign):
        assert isinstance(assign, cst.Assign)
        if id(assign) in inside and isinstance(assign.value, (cst.List, cst.ListComp)):
            for target in assign.targets:
                if isinstance(target.target, cst.Name):
                    made[target.target.value] = made.get(target.target.value, 0) + 1
    bound = read_and_bound(container)[1]
    declared = {n.value for g in find_all(container, (cst.Global, cst.Nonlocal)) for n in _names(g)}
    return frozenset(name for name, count in made.items() if bound.count(name) == count and name not in declared)


def _inert_statement(statement: cst.CSTNode, runs: set[int], fresh: frozenset[str]) -> bool:
    """Can running the statement change no NumPy array in place?"""
    inert = lambda e: _inert(e, runs, fresh)  # noqa: E731
    if isinstance(statement, cst.SimpleStatementLine):
        return all(_inert_statement(small, runs, fresh) for small in statement.body)
    if isinstance(statement, (cst.Pass, cst.Break, cst.Continue)):
        return True
    if isinstance(statement, cst.Expr):
        return inert(statement.value)
    if isinstance(statement, cst.Assign):
        return all(_plain_target(t.target) for t in statement.targets) and inert(statement.value)
    if isinstance(statement, cst.For):
        return _plain_target(statement.target) and inert(statement.iter) and _inert_blocks(statement, runs, fresh)
    if isinstance(statement, cst.While):
        return inert(statement.test) and _inert_blocks(statement, runs, fresh)
    if isinstance(statement, cst.If):
        return inert(statement.test) and _inert_blocks(statement, runs, fresh)
    return False


def _inert_blocks(statement: cst.For | cst.While | cst.If, runs: set[int], fresh: frozenset[str]) -> bool:
    blocks: list[cst.BaseSuite] = [statement.body]
    orelse = statement.orelse
    if isinstance(orelse, cst.If):
        return _inert_statement(orelse, runs, fresh) and _inert_blocks_of(blocks, runs, fresh)
    if orelse is not None:
        blocks.append(orelse.body)
    return _inert_blocks_of(blocks, runs, fresh)


def _inert_blocks_of(blocks: list[cst.BaseSuite], runs: set[int], fresh: frozenset[str]) -> bool:
    return all(isinstance(b, cst.IndentedBlock) and all(_inert_statement(s, runs, fresh) for s in b.body) for b in blocks)


def _plain_target(target: cst.BaseExpression) -> bool:
    """A name, or a tuple or list of them: binding it writes into no object."""
    if isinstance(target, cst.Name):
        return True
    return isinstance(target, (cst.Tuple, cst.List)) and all(_plain_target(e.value) for e in target.elements)


def _inert(expr: cst.CSTNode, runs: set[int], fresh: frozenset[str]) -> bool:
    """Does evaluating the expression call no code that could write into an array?"""
    if isinstance(expr, cst.Call):
        if not _reading_call(expr, runs, fresh):
            return False
        children: list[cst.CSTNode] = [a.value for a in expr.args]
    elif isinstance(expr, (cst.Name, cst.BaseNumber, cst.SimpleString, cst.Ellipsis)):
        return True
    elif isinstance(expr, cst.Lambda):
        children = [expr.body]
    elif isinstance(
        expr,
        (
            cst.Attribute,
            cst.Subscript,
            cst.BinaryOperation,
            cst.UnaryOperation,
            cst.BooleanOperation,
            cst.Comparison,
            cst.IfExp,
            cst.List,
            cst.Tuple,
            cst.Dict,
            cst.FormattedString,
            cst.ConcatenatedString,
        ),
    ):
        children = [c for c in _sub_expressions(expr)]
    else:
        return False
    return all(_inert(c, runs, fresh) for c in children)


def _sub_expressions(expr: cst.CSTNode) -> list[cst.CSTNode]:
    """The expressions an expression evaluates (operators, keys, slices and names of attributes left out)."""
    out: list[cst.CSTNode] = []
    for child in expr.children:
        if isinstance(child, (cst.BaseExpression, cst.Call)):
            if isinstance(expr, cst.Attribute) and child is expr.attr:
                continue
            out.append(child)
        elif isinstance(child, (cst.Element, cst.DictElement, cst.SubscriptElement, cst.ComparisonTarget, cst.FormattedStringExpression)):
            out += _sub_expressions(child)
        elif isinstance(child, (cst.Index, cst.Slice)):
            out += _sub_expressions(child)
    return out


def _reading_call(call: cst.Call, runs: set[int], fresh: frozenset[str]) -> bool:
    if id(call) in runs:
        return True  # a converted run: a generated function's call, a value evaluated in place
    func = call.func
    if isinstance(func, cst.Name):
        # ``min``/``max`` call the function given as ``key=``: it may be any code
        return func.value in _READING_CALLS and not any(a.keyword is not None and a.keyword.value == "key" for a in call.args)
    name = dotted_name(func)
    if name in _CLOCKS:
        return True
    return (
        isinstance(func, cst.Attribute) and func.attr.value == "append" and isinstance(func.value, cst.Name) and func.value.value in fresh
    )


def _wrap_values(rewrite: SessionRewrite, name: str, node: cst.Dict, dtypes: dict[str, str]) -> None:
    keys = [local_name(graph_name(cst.ensure_type(e, cst.DictElement).key) or "") for e in node.elements]
    with_string_keys = rewrite.plan.replace[id(node)]  # feeds._rewrite_feed_dict's
    assert callable(with_string_keys)

    def with_tensors(updated: cst.Dict) -> cst.Dict:
        updated = with_string_keys(updated)
        elements = [
            e.with_changes(value=cst.parse_expression(f"tf.convert_to_tensor({rewrite.module.code_for_node(e.value)}, {dtypes[key]})"))
            for e, key in zip(updated.elements, keys)
        ]
        return updated.with_changes(elements=elements)

    rewrite.plan.replace[id(node)] = with_tensors
    rewrite.plan.note(
        node,
        PLACEHOLDER_TO_ARGUMENT.code,
        f"the values of `{name}` → tensors, converted once before the loop: no code after it changes them",
    )
