"""tf2migrate.traversal walks libcst trees as libcst does: the same hooks on the same
nodes in the same order (``walk``), the same nodes found (``find_all``), the same tree
out of a transformer (``FastTransformer``), on every fixture and on odd sources."""

import libcst as cst
import libcst.matchers as m
import pytest

from tf2migrate.layout import parse_module
from tf2migrate.traversal import FastTransformer, find_all, forget_layouts, lay_out, walk
from python3_sources import python3_fixture_sources

SOURCES = python3_fixture_sources("before*.py")  # (the afters add no new shapes)
EXTRA = [
    "@decorator\n# comment\ndef f(a, *, b=(1 +\n    2)) -> int:\n    return [x for x in a if x]  # trailing\n",
    "async def g():\n    async with a as (b, c):\n        await d[1:2, ::3]\n    return {k: v for k, v in e.items()}\n",
    "class A(B, metaclass=M):\n    '''doc'''\n    x: int = 1\n    def f(self, *args, **kw): return lambda y=1: (yield y)\n",
    "try:\n    pass\nexcept (E, F) as e:\n    raise G from e\nelse:\n    del a[0], b.c\nfinally:\n    global q\n",
    "match p:\n    case [1, *rest] if rest:\n        f'{a!r:>{w}}'\n    case {'k': v, **kw}:\n        pass\n",
]
SOURCE_IDS = [str(p.relative_to(p.parents[2])) for p in SOURCES] + [f"extra{i}" for i in range(len(EXTRA))]
ALL_SOURCES = [p.read_text(encoding="utf-8") for p in SOURCES] + EXTRA
NODE_TYPES = [t for t in vars(cst).values() if isinstance(t, type) and issubclass(t, cst.CSTNode)]


def _recorder_class(base: type) -> type:
    """A visitor with a ``visit_``/``leave_`` hook for every node type, logging each call;
    the hooks of ``If`` return False (children skipped), as visitors do to prune."""

    def hooks(name: str):
        def visit(self, node):
            self.log.append(("visit", name, id(node)))
            return False if name == "If" else None

        def leave(self, node):
            self.log.append(("leave", name, id(node)))

        return visit, leave

    namespace: dict = {"__init__": lambda self: setattr(self, "log", [])}
    for node_type in NODE_TYPES:
        namespace[f"visit_{node_type.__name__}"], namespace[f"leave_{node_type.__name__}"] = hooks(node_type.__name__)
    return type("Recorder", (base,), namespace)


Recorder = _recorder_class(cst.CSTVisitor)


class OnVisitRecorder(cst.CSTVisitor):
    """A visitor that overrides ``on_visit``/``on_leave`` itself."""

    def __init__(self) -> None:
        self.log: list = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.log.append(("visit", id(node)))
        return not isinstance(node, cst.Call)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.log.append(("leave", id(original_node)))


@pytest.mark.parametrize("source", ALL_SOURCES, ids=SOURCE_IDS)
def test_walk_calls_the_hooks_libcst_calls(source: str) -> None:
    module = parse_module(source)
    for visitor_class in (Recorder, OnVisitRecorder):
        by_libcst, by_walk = visitor_class(), visitor_class()
        module.visit(by_libcst)
        walk(module, by_walk)
        assert len(by_libcst.log) > 2  # something was walked
        assert by_walk.log == by_libcst.log


@pytest.mark.parametrize("source", ALL_SOURCES, ids=SOURCE_IDS)
def test_walk_of_a_laid_out_module_calls_the_hooks_libcst_calls(source: str) -> None:
    """Once the module is laid out, walks of it and of its parts read the layout: the same
    hooks, in the same order, skipped children and all."""
    module = parse_module(source)
    try:
        layout = lay_out(module)
        parts = [module, *find_all(module, (cst.FunctionDef, cst.If, cst.With, cst.Call))[:40]]
        for part in parts:
            assert id(part) in layout.starts  # (walked from the layout)
            for visitor_class in (Recorder, OnVisitRecorder):
                by_libcst, by_walk = visitor_class(), visitor_class()
                part.visit(by_libcst)
                walk(part, by_walk)
                assert by_walk.log == by_libcst.log
    finally:
        forget_layouts()


MATCHERS = [
    m.Call(),
    m.Name("tf"),
    m.Attribute(value=m.Name(), attr=m.Name()),
    m.SimpleString() | m.FormattedString(),
    m.MatchIfTrue(lambda n: isinstance(n, cst.Name) and len(n.value) > 3),
]


@pytest.mark.parametrize("source", ALL_SOURCES, ids=SOURCE_IDS)
def test_find_all_finds_what_findall_finds(source: str) -> None:
    module = parse_module(source)
    for matcher in MATCHERS:
        assert [id(n) for n in find_all(module, matcher)] == [id(n) for n in m.findall(module, matcher)], matcher
    assert [id(n) for n in find_all(module, (cst.Call, cst.Name))] == [id(n) for n in m.findall(module, m.Call() | m.Name())]


def test_find_all_includes_the_root() -> None:
    call = cst.parse_expression("f(g(x))")
    assert find_all(call, cst.Call)[0] is call
    assert len(find_all(call, cst.Call)) == 2


class _Rename(cst.CSTTransformer):
    """Renames every name ``tf`` and drops every ``pass`` (a removal)."""

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        return updated_node.with_changes(value="tensorflow") if original_node.value == "tf" else updated_node

    def leave_Pass(self, original_node, updated_node):
        return cst.RemoveFromParent()

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False  # names in classes stay


class _FastRename(_Rename, FastTransformer):
    pass


@pytest.mark.parametrize("source", ALL_SOURCES, ids=SOURCE_IDS)
def test_fast_transformer_transforms_as_libcst(source: str) -> None:
    module = parse_module(source)
    expected = module.visit(_Rename()).code
    assert module.visit(_FastRename()).code == expected


def test_fast_transformer_really_transforms() -> None:
    module = parse_module("import tf\nclass A:\n    tf = 1\nif tf:\n    pass\n    x = tf\n")
    assert module.visit(_FastRename()).code == "import tensorflow\nclass A:\n    tf = 1\nif tensorflow:\n    x = tensorflow\n"


def test_fast_transformer_refuses_per_field_hooks() -> None:
    with pytest.raises(TypeError, match="per-field hooks"):

        class _PerField(FastTransformer):
            def leave_Call_func(self, node, attribute):
                pass
