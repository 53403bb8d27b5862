"""Walking libcst trees fast: the same nodes, in the same order, as libcst's own visit.

libcst's ``node.visit(visitor)`` rebuilds every node it passes (each node's
``_visit_and_replace_children`` constructs a copy, validation included) and asks the
visitor for ``visit_<Node>``, ``visit_<Node>_<field>`` and their ``leave_`` twins by
formatted name at every node and field.  A read-only visitor needs none of that:
measured on tensor2tensor, collecting its calls took 11.8 s CPU through ``visit`` and
2.0 s here, and the graph analysis spent most of its time in such walks.

The children of a node are read from its fields in the order libcst visits them.  That
order is libcst's, not ours: it is recorded once per node type by running the type's own
``_visit_and_replace_children`` with a recorder that notes each field as libcst announces
it (``on_visit_attribute``) and enters nothing, so a libcst release that reorders a node's
fields is followed without a table to keep (``tests/test_traversal.py`` compares both
walks on every fixture and real file at hand).

- ``walk(node, visitor)`` stands in for ``node.visit(visitor)`` for a ``CSTVisitor``:
  ``visit_X`` (returning False skips the children, as in libcst; ``leave_X`` still runs),
  ``leave_X``, or the visitor's own ``on_visit``/``on_leave``.  Per-field hooks
  (``visit_Call_func``) are not supported; a visitor that defines one is walked by libcst.
- ``find_all(node, matcher)`` stands in for ``libcst.matchers.findall`` (pre-order, the
  root included).
- ``FastTransformer`` is a ``CSTTransformer`` base whose per-node hooks are looked up once
  per node type and whose per-field hooks are skipped (a transformer must rebuild what it
  changes, so it keeps libcst's walk).
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import libcst as cst
import libcst.matchers as m

_FieldsGetter = Callable[[cst.CSTNode], tuple[Any, ...]]
# A getter per node type, recorded from the first node of the type.  libcst skips some
# fields when they are absent (``format_spec`` of a ``FormattedStringExpression``, an
# annotation): a getter recorded from a node lacking them would miss them in a node that
# has them, so for such a type the getter is per presence of those fields.
_FIELDS: dict[tuple[type, tuple[bool, ...]], _FieldsGetter] = {}
_SKIPPED: dict[type, tuple[str, ...]] = {}  # fields absent and not visited in the first node
_PLAIN: dict[type, _FieldsGetter] = {}  # the types with no such field: one getter, looked up fast


class _FieldRecorder(cst.CSTVisitor):
    """Notes the fields libcst visits, in its order, without entering any of them."""

    def __init__(self) -> None:
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.fields.append(attribute)


def _absent(value: object) -> bool:
    return value is None or isinstance(value, cst.MaybeSentinel) or (type(value) in (tuple, list) and not value)


def _fields_getter(node: cst.CSTNode, key: tuple[type, tuple[bool, ...]] | None) -> _FieldsGetter:
    recorder = _FieldRecorder()
    node._visit_and_replace_children(recorder)
    fields = tuple(recorder.fields)
    if key is None:  # the first node of its type
        skipped = tuple(f.name for f in dataclasses.fields(node) if f.name not in fields and _absent(getattr(node, f.name)))
        _SKIPPED[type(node)] = skipped
        key = (type(node), (False,) * len(skipped))
    getter: _FieldsGetter
    if len(fields) > 1:
        getter = operator.attrgetter(*fields)
    elif fields:
        (name,) = fields
        getter = lambda n: (getattr(n, name),)  # noqa: E731 (attrgetter of one field returns it bare)
    else:
        getter = lambda n: ()  # noqa: E731
    _FIELDS[key] = getter
    if not _SKIPPED[type(node)]:
        _PLAIN[type(node)] = getter
    return getter


def _getter_by_presence(node: cst.CSTNode) -> _FieldsGetter:
    kind = type(node)
    skipped = _SKIPPED.get(kind)
    if skipped is None:  # the first node of its type
        return _fields_getter(node, None)
    key = (kind, tuple(not _absent(getattr(node, name)) for name in skipped))
    return _FIELDS.get(key) or _fields_getter(node, key)


_IS_NODE: dict[type, bool] = {}


def is_node(value: object) -> bool:
    """``isinstance(value, cst.CSTNode)``, answered once per type (``CSTNode`` is an
    abstract class: its ``isinstance`` goes through ``abc`` at every call)."""
    kind = type(value)
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return known


def is_a(node: cst.CSTNode, kinds: type | tuple[type, ...]) -> bool:
    """``isinstance(node, kinds)`` for node types, answered once per type and ``kinds``."""
    key = (type(node), kinds)
    known = _IS_A.get(key)
    if known is None:
        known = _IS_A[key] = issubclass(type(node), kinds)
    return known


_IS_A: dict[tuple[type, type | tuple[type, ...]], bool] = {}


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The node's children in libcst's visiting order (sentinels and ``None`` left out)."""
    out: list[cst.CSTNode] = []
    getter = _PLAIN.get(type(node)) or _getter_by_presence(node)
    known = _IS_NODE.get  # (is_node inlined: this runs at every node of every walk)
    for value in getter(node):
        kind = type(value)
        if kind is tuple or kind is list:
            out += [item for item in value if known(type(item)) or is_node(item)]
        elif known(kind) or is_node(value):
            out.append(value)
    return out


def preorder(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The node and everything under it, in the order libcst's visit enters them."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def find_all(node: cst.CSTNode, matcher: Any) -> list[cst.CSTNode]:
    """``libcst.matchers.findall(node, matcher)``, without rebuilding the tree.  A node
    type (or a tuple of them) may stand for a matcher that only names types: it is
    tested with ``isinstance``, not the matcher machinery.

    The analysis asks the same module (and the functions and statements in it) for nodes
    of one type or another thousands of times: a module asked once is laid out in pre-order
    (``_Layout``), and later questions about it or any node in it read their slice of that
    list instead of walking again."""
    nodes = _laid_out(node)
    if isinstance(matcher, (type, tuple)):
        return [n for n in nodes if is_a(n, matcher)]
    if isinstance(matcher, m.MatchIfTrue):  # (``m.matches`` does not take one at the top)
        return [n for n in nodes if matcher.func(n)]
    return [n for n in nodes if m.matches(n, matcher)]


class _Layout:
    """A module's nodes in pre-order, and where each node's own subtree lies in that list
    (a node's descendants follow it, up to its end).  The module is held: the ids are its
    nodes' as long as it lives, and a libcst tree never changes."""

    __slots__ = ("module", "order", "starts", "ends", "_body_starts")

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        order: list[cst.CSTNode] = []
        starts: dict[int, int] = {}  # node id → its index in ``order``
        ends: list[int] = []  # by index in ``order``: the end of the node's subtree
        stack: list[tuple[cst.CSTNode, int]] = [(module, -1)]  # (node, its index once entered; -1: not yet)
        while stack:
            current, start = stack.pop()
            if start >= 0:  # every node under it has been listed
                ends[start] = len(order)
                continue
            starts[id(current)] = len(order)
            stack.append((current, len(order)))
            order.append(current)
            ends.append(0)
            stack.extend((child, -1) for child in reversed(children(current)))
        self.order = order
        self.starts = starts
        self.ends = ends
        self._body_starts: dict[int, list[int]] = {}  # by a body's id: where its statements start in ``order``

    def statement_path(self, node: cst.CSTNode) -> tuple[int, ...] | None:
        """Where the innermost statement holding ``node`` stands: its index in the module's
        body, then in the body of each class or def (an indented block) it lies in (None:
        no statement of the module's body holds the node, or the module holds some node
        twice, so that its id names no one place)."""
        index = self.starts.get(id(node))
        if index is None or len(self.starts) != len(self.order):
            return None
        path: list[int] = []
        body: Sequence[cst.BaseStatement] | None = self.module.body
        while body:
            body_starts = self._body_starts.get(id(body))
            if body_starts is None:
                body_starts = self._body_starts[id(body)] = [self.starts[id(statement)] for statement in body]
            holder = bisect.bisect_right(body_starts, index) - 1
            if holder < 0 or index >= self.ends[body_starts[holder]]:
                break
            path.append(holder)
            statement = body[holder]
            inner = statement.body if isinstance(statement, (cst.ClassDef, cst.FunctionDef)) else None
            body = inner.body if isinstance(inner, cst.IndentedBlock) else None
        return tuple(path) or None


_LAYOUTS: list[_Layout] = []  # the last few modules asked about, the latest last
_LAYOUTS_KEPT = 4


def forget_layouts() -> None:
    """Drop the modules laid out so far (a file's migration is done: its trees need not stay
    in memory until later files push them out)."""
    _LAYOUTS.clear()


def _laid_out(node: cst.CSTNode) -> list[cst.CSTNode]:
    """``list(preorder(node))``, read from the layout of a module holding ``node`` when one is
    at hand (made for ``node`` itself when it is a module)."""
    held = _holding(node)
    if held is not None:
        layout, start = held
        return layout.order[start : layout.ends[start]]
    if not isinstance(node, cst.Module):
        return list(preorder(node))
    return lay_out(node).order


def _holding(node: cst.CSTNode) -> tuple[_Layout, int] | None:
    """The layout of a module holding ``node``, and the node's index in it."""
    key = id(node)
    for layout in reversed(_LAYOUTS):
        start = layout.starts.get(key)
        if start is not None:
            return layout, start
    return None


def statement_path(module: cst.Module, node: cst.CSTNode) -> tuple[int, ...] | None:
    """``_Layout.statement_path``, read from the module's layout when it was laid out (None
    otherwise): a question answered without walking."""
    held = _holding(module)
    if held is None or held[0].module is not module:
        return None
    return held[0].statement_path(node)


def lay_out(module: cst.Module) -> _Layout:
    """The module laid out now (if it is not already): ``find_all`` and ``walk`` then read
    their nodes from the layout, the walks without asking any node for its children."""
    held = _holding(module)
    if held is not None:
        return held[0]
    layout = _Layout(module)
    _LAYOUTS.append(layout)
    del _LAYOUTS[:-_LAYOUTS_KEPT]
    return layout


_Hook = Callable[..., Any] | None
_HOOKS: dict[tuple[type, type], tuple[_Hook, _Hook]] = {}
_PER_FIELD_HOOKS: dict[type, bool] = {}


def _hooks(visitor_class: type, node_class: type) -> tuple[_Hook, _Hook]:
    hooks = _HOOKS.get((visitor_class, node_class))
    if hooks is None:
        name = node_class.__name__
        hooks = _HOOKS[visitor_class, node_class] = (_own(visitor_class, f"visit_{name}"), _own(visitor_class, f"leave_{name}"))
    return hooks


def _own(visitor_class: type, name: str) -> _Hook:
    """The class's hook of that name, unless it is libcst's empty stub (every hook has one)."""
    for klass in visitor_class.__mro__:
        if klass.__module__.startswith("libcst."):
            return None
        if name in vars(klass):
            return getattr(visitor_class, name)
    return None


def _has_per_field_hooks(visitor_class: type) -> bool:
    """``visit_Call_func``-style hooks (node type names have no underscore)."""
    known = _PER_FIELD_HOOKS.get(visitor_class)
    if known is None:
        known = _PER_FIELD_HOOKS[visitor_class] = any(
            name.startswith(("visit_", "leave_")) and "_" in name.split("_", 1)[1]
            for klass in visitor_class.__mro__
            if not klass.__module__.startswith("libcst.")
            for name in vars(klass)
        )
    return known


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """``node.visit(visitor)`` for a read-only visitor: the same hooks in the same order."""
    visitor_class = type(visitor)
    own_on_visit = visitor_class.on_visit is not cst.CSTVisitor.on_visit
    own_on_leave = visitor_class.on_leave is not cst.CSTVisitor.on_leave
    if _has_per_field_hooks(visitor_class) or visitor_class.on_visit_attribute is not cst.CSTVisitor.on_visit_attribute:
        node.visit(visitor)
        return
    held = _holding(node)
    if held is not None:
        _walk_layout(held[0], held[1], visitor, own_on_visit, own_on_leave)
        return
    # (node, leaving): a node is pushed again, marked, to be left after its children
    stack: list[tuple[cst.CSTNode, bool]] = [(node, False)]
    while stack:
        current, leaving = stack.pop()
        if leaving:
            _leave(visitor, visitor_class, current, own_on_leave)
            continue
        if own_on_visit:
            enter = visitor.on_visit(current)
            stack.append((current, True))
        else:
            visit, leave = _hooks(visitor_class, type(current))
            enter = visit is None or visit(visitor, current) is not False
            if leave is not None or own_on_leave:
                stack.append((current, True))
        if enter:
            stack += [(child, False) for child in reversed(children(current))]


def _walk_layout(layout: _Layout, start: int, visitor: cst.CSTVisitor, own_on_visit: bool, own_on_leave: bool) -> None:
    """``walk`` over the node at ``start`` of a laid-out module: its subtree is the slice of
    the layout up to its end, so the same hooks run in the same order, each node left once
    the walk reaches the end of its subtree (at once when its visit skips the children)."""
    visitor_class = type(visitor)
    order, ends = layout.order, layout.ends
    index, stop = start, ends[start]
    leaving: list[tuple[int, cst.CSTNode]] = []  # (where its subtree ends, node): left there, innermost first
    while index < stop:
        while leaving and leaving[-1][0] <= index:
            _leave(visitor, visitor_class, leaving.pop()[1], own_on_leave)
        current = order[index]
        if own_on_visit:
            enter = visitor.on_visit(current)
            leaving.append((ends[index], current))
        else:
            visit, leave = _hooks(visitor_class, type(current))
            enter = visit is None or visit(visitor, current) is not False
            if leave is not None or own_on_leave:
                leaving.append((ends[index], current))
        index = index + 1 if enter else ends[index]
    while leaving:
        _leave(visitor, visitor_class, leaving.pop()[1], own_on_leave)


def _leave(visitor: cst.CSTVisitor, visitor_class: type, node: cst.CSTNode, own_on_leave: bool) -> None:
    if own_on_leave:
        visitor.on_leave(node)
    else:
        leave = _hooks(visitor_class, type(node))[1]
        if leave is not None:
            leave(visitor, node)


class FastTransformer(cst.CSTTransformer):
    """A ``CSTTransformer`` whose hooks are found once per node type, not by formatted name
    at every node and field; per-field hooks (``leave_Call_func``) are not supported, and a
    subclass that defines one is refused when it is defined, not skipped when it runs."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if _has_per_field_hooks(cls):
            raise TypeError(f"{cls.__name__}: FastTransformer does not call per-field hooks (visit_X_field / leave_X_field)")

    def on_visit(self, node: cst.CSTNode) -> bool:
        visit = _hooks(type(self), type(node))[0]
        return visit is None or visit(self, node) is not False

    def on_leave(self, original_node: Any, updated_node: Any) -> Any:
        leave = _hooks(type(self), type(original_node))[1]
        return updated_node if leave is None else leave(self, original_node, updated_node)

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None


class NodeReplacer(cst.CSTTransformer):
    """Replaces nodes of the tree (by the original node, libcst's equality) with new ones."""

    def __init__(self, replacements: dict[cst.CSTNode, cst.CSTNode]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):
        return self.replacements.get(original_node, updated_node)


def push_children(stack: list[ast.AST], node: ast.AST) -> None:
    """Put a CPython tree node's children on a walk's stack (``ast.walk``'s generators cost
    a third of a walk that only collects)."""
    for field in node._fields:
        value = getattr(node, field, None)
        if type(value) is list:
            stack.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            stack.append(value)
