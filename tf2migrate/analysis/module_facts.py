"""File-wide facts read from the standard library's ``ast``: the names a file uses and
whether it uses TensorFlow as TF1.

A walk of the libcst tree costs about as much as parsing the file (and about a fifth of a
migration's time on tensor2tensor); CPython's parser and ``ast`` nodes give these two
facts several times faster.  They are the facts a libcst walk would give
(``tests/test_module_facts.py`` compares them with libcst visitors on every fixture): only
``ast`` node types differ.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tf2migrate.analysis.catalogue import GRAPH_EVIDENCE_CALLS, GRAPH_WRITER_CALLS, TEST_SESSION_METHODS
from tf2migrate.analysis.tf_imports import ITERATOR_METHODS, TfImports, tf_relative
from tf2migrate.analysis.tf_api import reference_evidence, refuses_tf2_keywords


@dataclass
class ModuleFacts:
    names: set[str]  # read or bound anywhere (``self.x`` as one name): not free for new code
    tf1: bool  # uses ``tf.X`` as TF1 by unambiguous evidence
    explicit_v1: bool  # names ``tf.compat.v1`` / ``tf.contrib`` / ``tf.estimator`` API
    # builds or runs a TF1 graph by the graph analysis' own evidence (a placeholder,
    # session or v1-switch call, a tf.test.TestCase session block, a test's
    # ``self.evaluate`` in a TF1 file): without it that analysis finds no graph, so it is
    # not run
    graph: bool
    # a TF alias is bound other than by a top-level import (a parameter, an assignment, a
    # nested import): only then can a function shadow it (``shadowed_alias``)
    alias_rebound: bool = False
    # its only graph evidence is a writer of the default graph its own top-level code makes (a
    # graph built only to be shown in TensorBoard): no summary to convert, the graph stays on TF1
    writes_graph_only: bool = False


def module_facts(tree: ast.Module, imports: TfImports, tf1_callers: bool = False) -> ModuleFacts:
    """The facts of the file CPython parsed as ``tree``; ``tf1_callers``: TF1 graph code of
    the run imports it (analysis/project.py's FileContext), which makes it TF1 too: a
    helper module whose own names are all valid TF2 (``tf.nn.dropout(h, keep_prob)``) ran
    them with TF1's meaning."""
    walker = _Walker(imports, {id(statement) for statement in tree.body})
    walker.visit(tree)
    # (a writer made by a function of the module its own top-level code calls, the body of
    # ``if __name__ == "__main__":`` moved into ``def main():`` among them: the script's own)
    walker.graph_writer |= bool(walker.writing_functions & reached_from(walker.called_at_top, walker.called_by))
    # ... unless the module writes ``tf.compat.v1.X`` through TF2's ``tensorflow``: it was
    # written for (or migrated to) an install where ``tf`` is TF2, so its plain names have
    # TF2's meaning whoever imports it.  Our own output of a helper kept partly on
    # ``compat.v1`` is such a module: read with TF1's meaning, a second run would take the
    # TF2 names the first one wrote (``softmax_cross_entropy_with_logits``, from TF1's
    # ``_v2``) for TF1's and rewrite them again.
    tf1 = walker.tf1 or (tf1_callers and not walker.compat_v1_written)
    # a TF1 test's ``self.evaluate(t)`` ran its graph (TF1's TestCase ran tests in graph mode)
    graph = walker.graph or (tf1 and walker.evaluates)
    return ModuleFacts(
        walker.names, tf1, walker.explicit, graph or walker.graph_writer, walker.alias_rebound, walker.graph_writer and not graph
    )


def reached_from(called: set[str], called_by: dict[str, set[str]]) -> set[str]:
    """The names ``called`` and those the functions of ``called_by`` they name call, at any depth."""
    reached, todo = set(called), list(called)
    while todo:
        for name in called_by.get(todo.pop(), ()):
            if name not in reached:
                reached.add(name)
                todo.append(name)
    return reached


_TEST_SESSIONS = frozenset(f"self.{method}" for method in TEST_SESSION_METHODS)


def ast_dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def is_dimension_value(node: ast.Attribute) -> bool:
    """``x.shape[i].value`` or ``x.get_shape()[i].value``: a TF1 Dimension's value."""
    if node.attr != "value" or not isinstance(node.value, ast.Subscript):
        return False
    shape = node.value.value
    if isinstance(shape, ast.Call):
        return isinstance(shape.func, ast.Attribute) and shape.func.attr == "get_shape"
    return isinstance(shape, ast.Attribute) and shape.attr == "shape"


def is_dimension_comprehension(node: ast.ListComp) -> bool:
    """``[d.value for d in x.get_shape()]`` (or ``x.shape``): the values of TF1 Dimensions."""
    if len(node.generators) != 1 or node.generators[0].ifs or not isinstance(node.generators[0].target, ast.Name):
        return False
    shape, element = node.generators[0].iter, node.elt
    if isinstance(shape, ast.Call):
        reads = not shape.args and isinstance(shape.func, ast.Attribute) and shape.func.attr == "get_shape"
    else:
        reads = isinstance(shape, ast.Attribute) and shape.attr == "shape"
    target = node.generators[0].target.id
    return reads and isinstance(element, ast.Attribute) and element.attr == "value" and ast_dotted_name(element) == f"{target}.value"


class _FastVisitor(ast.NodeVisitor):
    """``ast.NodeVisitor`` with its hook found once per node type, not by a formatted name
    at every node: this walk sees every node of every file of a run."""

    _hooks: dict[type, Callable[[Any, ast.AST], None]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._hooks = {}

    def visit(self, node: ast.AST) -> None:
        kind = type(node)
        hook = self._hooks.get(kind)
        if hook is None:
            hook = self._hooks[kind] = getattr(type(self), f"visit_{kind.__name__}", type(self).generic_visit)
        hook(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)


class _Walker(_FastVisitor):
    def __init__(self, imports: TfImports, top_level: set[int]) -> None:
        self.tf = imports
        self.top_level = top_level
        self.alias_rebound = False
        self.names: set[str] = set()
        self.tf1 = False
        self.explicit = False
        self.compat_v1_written = False  # ``tf.compat.v1.X`` through an alias of ``tensorflow``
        self.graph = False
        self.evaluates = False  # ``self.evaluate(...)`` called
        self.graph_writer = False  # the module's own code makes a writer of the default graph
        self.in_function = 0  # how many ``def`` bodies enclose the node visited (as the graph analysis counts)
        self.function: str | None = None  # the top-level ``def`` being visited
        self.writing_functions: set[str] = set()  # top-level functions making a writer
        self.called_at_top: set[str] = set()  # names the module's top-level code calls
        self.called_by: dict[str, set[str]] = {}  # top-level function → the names it calls

    # ------------------------------------------------------------------ evidence
    def _check(self, dotted: str | None) -> None:
        evidence = reference_evidence(self.tf, dotted)
        if evidence == "explicit":
            self.explicit = True
            if dotted is not None and ".compat.v1." in f".{dotted}." and dotted.partition(".")[0] not in self.tf.v1_aliases:
                self.compat_v1_written = True
        elif evidence == "tf1":
            self.tf1 = True

    # -------------------------------------------------------------------- names
    def _binds(self, name: str) -> None:
        if name in self.tf.aliases:
            self.alias_rebound = True

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.names.add(alias.asname or alias.name.split(".")[0])
            if id(node) not in self.top_level:
                self._binds(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module:
            self.names.add(node.module.split(".")[0])  # libcst's walk reads the module's root name
        for alias in node.names:
            if id(node) not in self.top_level:
                self._binds(alias.asname or alias.name.split(".")[0])
            if alias.name != "*":
                self.names.add(alias.asname or alias.name.split(".")[0])

    def visit_Name(self, node: ast.Name) -> None:
        self.names.add(node.id)
        self._check(node.id)
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._binds(node.id)

    def visit_Constant(self, node: ast.Constant) -> None:
        if node.value is None or isinstance(node.value, bool):
            self.names.add(repr(node.value))  # libcst spells None/True/False as Names

    def _name_token(self, name: str) -> None:
        """A name written in the code that ``ast`` keeps as a string (parameter, def,
        keyword, ``as`` target): bound, and checked like any libcst Name."""
        self.names.add(name)
        self._check(name)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            self.names.add(f"self.{node.attr}")  # one name; ``self`` itself is not visited
            return
        if is_dimension_value(node):
            self.tf1 = True  # TF2 shapes have no Dimension objects
        dotted = ast_dotted_name(node)
        self._check(dotted)
        if self.tf.canonical_dotted(dotted) is None:
            self.generic_visit(node)
            self._check(node.attr)  # libcst's walk meets the attribute's Name too
        elif dotted is not None:
            self.names.add(dotted.partition(".")[0])  # a TF reference reads its root name

    def visit_Call(self, node: ast.Call) -> None:
        keywords = {k.arg for k in node.keywords if k.arg is not None}
        dotted = ast_dotted_name(node.func)
        called = self.tf.canonical_dotted(dotted) if not self.graph else None
        if called in GRAPH_EVIDENCE_CALLS:
            self.graph = True
        elif called in GRAPH_WRITER_CALLS and not self.in_function:
            self.graph_writer = True
        elif called in GRAPH_WRITER_CALLS and self.function is not None:
            self.writing_functions.add(self.function)
        if isinstance(node.func, ast.Name):
            if not self.in_function:
                self.called_at_top.add(node.func.id)
            elif self.function is not None:
                self.called_by.setdefault(self.function, set()).add(node.func.id)
        if dotted == "self.evaluate":
            self.evaluates = True
        if refuses_tf2_keywords(self.tf, dotted, keywords):
            self.tf1 = True  # a keyword TF2's namesake refuses (``keep_dims=``)
        if isinstance(node.func, ast.Attribute) and node.func.attr in ITERATOR_METHODS and self.tf.canonical_dotted(dotted) is None:
            self.tf1 = True  # ``dataset.make_one_shot_iterator()``: TF2 datasets lack the method
        self.generic_visit(node)
        for keyword in node.keywords:
            if keyword.arg is not None:
                self._check(keyword.arg)

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            call = item.context_expr
            if isinstance(call, ast.Call) and ast_dotted_name(call.func) in _TEST_SESSIONS:
                self.graph = True
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def _bind_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self._name_token(node.name)
        self._binds(node.name)
        body = not isinstance(node, ast.ClassDef)  # (a class body runs where it stands)
        outer = self.function
        if body and id(node) in self.top_level:
            self.function = node.name
        self.in_function += body
        self.generic_visit(node)
        self.in_function -= body
        self.function = outer
        for keyword in getattr(node, "keywords", ()):  # class A(metaclass=M)
            if keyword.arg is not None:
                self._check(keyword.arg)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _bind_function

    def visit_arg(self, node: ast.arg) -> None:
        self._name_token(node.arg)
        self._binds(node.arg)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._name_token(node.name)
        self.generic_visit(node)

    def _bind_names(self, node: ast.Global | ast.Nonlocal) -> None:
        for name in node.names:
            self._name_token(name)

    visit_Global = visit_Nonlocal = _bind_names

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self._name_token(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self._name_token(node.name)

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        for attribute in node.kwd_attrs:  # ``Point(x=0)``: libcst keeps ``x`` as a Name
            self._name_token(attribute)
        self.generic_visit(node)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self._name_token(node.rest)
        self.generic_visit(node)


def shadowed_alias(tree: ast.Module, imports: TfImports, facts: ModuleFacts) -> tuple[str, int] | None:
    """A TF alias (``tf``) that a function or lambda binds to something else (a parameter,
    an assignment, a loop or ``with`` target, a non-TF import) and reads there, with the
    line of that binding; None if there is none.

    The aliases are module-level imports, and every rewrite reads ``tf.X`` through them:
    in such a function ``tf.log(x)`` calls the parameter's ``log``, and renaming it to
    ``tf.math.log`` would change (or break) that call."""
    if not facts.alias_rebound:
        return None  # (the common case, known from the walk that gave the facts)
    for scope in ast.walk(tree):
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        bound: dict[str, int] = {}
        read: set[str] = set()
        for node in ast.walk(scope):
            if isinstance(node, ast.arg):
                bound.setdefault(node.arg, node.lineno)
            elif isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Store):
                    bound.setdefault(node.id, node.lineno)
                else:
                    read.add(node.id)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if tf_relative(alias.name) is None:
                        bound.setdefault(alias.asname or alias.name.split(".")[0], node.lineno)
            elif isinstance(node, ast.ImportFrom) and (node.level or tf_relative(node.module or "") is None):
                for alias in node.names:
                    bound.setdefault(alias.asname or alias.name, node.lineno)
        for name, line in bound.items():
            if name in imports.aliases and name in read:
                return name, line
    return None


def module_alias_binding(tree: ast.Module, imports: TfImports, facts: ModuleFacts) -> tuple[str, int] | None:
    """A TF alias that module-level code binds again or deletes (``del tf``, ``class tf:``,
    ``tf = Fake()``), with the line of the first such statement: the ``tf.X`` after it are
    not TensorFlow's, and renaming them would change (or break) them.  Functions, lambdas,
    comprehensions and class bodies bind names of their own (``shadowed_alias``)."""
    if not facts.alias_rebound:
        return None
    found: list[tuple[int, str]] = []
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = node.name  # (its body: another scope)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound = node.id
        else:
            if not isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                pending.extend(ast.iter_child_nodes(node))
            continue
        if bound in imports.aliases:
            found.append((node.lineno, bound))
    return (min(found)[1], min(found)[0]) if found else None
