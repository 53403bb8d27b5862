"""TF1 tf.data iterators → TF2 iterators of the same dataset, advanced by the runs that read them.

TF1::

    dataset = tf.data.Dataset.from_tensor_slices((images, labels)).repeat().batch(128)
    iterator = dataset.make_initializable_iterator()
    sess.run(iterator.initializer)
    X, Y = iterator.get_next()
    ...
    sess.run(train_op)                           # one batch
    loss, acc = sess.run([loss_op, accuracy])    # the next batch, once for both

TF2::

    dataset = tf.data.Dataset.from_tensor_slices((images, labels)).repeat().batch(128)
    iterator = iter(dataset)

    @tf.function
    def train_step(iterator_element):
        X, Y = iterator_element
        ...

    train_step(iterator_element=iterator.get_next())
    loss, acc = (... compute_loss_op_accuracy(iterator_element=iterator.get_next()) ...)

What is kept, and why it holds:

- ``x, y = it.get_next()`` built one op; a run whose fetches depend on it took one element,
  however many fetched tensors read it, and a run that did not depend on it took none.
  analysis/iterators.py makes the statement a placeholder the run feeds itself: the
  generated functions reading ``x`` or ``y`` take the element as one argument (unpacked
  in their body as TF1's statement unpacked it), and each converted run passes
  ``it.get_next()`` once; functions that do not read it take nothing.
- ``iter(dataset)`` iterates the same ``tf.data`` pipeline (TF2's classes of TF1's datasets:
  ``repeat``, ``shuffle(seed=...)``, ``batch``, ``map`` are the same ops), and its
  ``get_next()`` raises ``tf.errors.OutOfRangeError`` at the end, as TF1's run did: the
  ``except tf.errors.OutOfRangeError`` loops that read a dataset to its end stay as written.
- ``make_one_shot_iterator()`` → ``iter(dataset)`` where it stood; ``make_initializable_iterator()``
  is removed and each ``sess.run(it.initializer)`` becomes ``it = iter(dataset)``: TF1
  restarted the pipeline there.

Refused (the graph stays on TF1, with the reason): an initializer run that feeds the
dataset's placeholders, is not a statement of its own, or runs in another function than
the one that made the iterator; an initializable iterator whose initializer no run of the
file runs; re-initialization (two initializer runs, or one in a loop) of a pipeline that
shuffles or draws random numbers (TF1's re-initialized iterator replayed the first order,
a new TF2 iterator reshuffles); the iterator read otherwise than by its ``get_next()``
statement and its initializer runs (passed to a function, used in ``tf.while_loop``);
``get_next()`` called twice; string handles, ``Iterator.from_structure`` and
``make_initializer`` (analysis/iterators.py).
"""

from __future__ import annotations

import builtins
import sys

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.model import GraphFacts, RunSite, Statement, TF1Iterator
from tf2migrate.analysis.names import read_and_bound
from tf2migrate.analysis.tf_imports import dotted_name
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.rewrites.fetches import fetch_leaves
from tf2migrate.rewrites.generated import SessionRewrite
from tf2migrate.traversal import find_all

ITERATOR_TO_ITER = Rule(
    "TFM127",
    "tf1-iterator-to-iter",
    "A TF1 tf.data iterator → iter(dataset); its get_next() element → an argument each run passes.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces `it = dataset.make_one_shot_iterator()` with `it = iter(dataset)` (an initializable "
    "iterator: each `sess.run(it.initializer)` with `it = iter(dataset)`), and makes the element of "
    "`x, y = it.get_next()` an argument of the generated functions that read `x` or `y`, unpacked in "
    "their body; each converted run that reads it passes `it.get_next()`.",
    why="TF1 ran the `get_next()` op once in every run whose fetches depended on it: one element per "
    "such run, none for the others. Passing `it.get_next()` at exactly those calls keeps the elements "
    "each run sees, and TF2's `get_next()` raises `tf.errors.OutOfRangeError` at the end as the run did. "
    "Refused: re-initializing a shuffled pipeline (a new TF2 iterator reshuffles where TF1 replayed), "
    "an initializer fed placeholders, the iterator used otherwise.",
    example="it = dataset.make_one_shot_iterator()\nx = it.get_next()\ny = 2 * x\nprint(sess.run(y))",
    instead="it = iter(dataset)\n\n@tf.function\ndef compute_y(x):\n    y = 2 * x\n    return y\n\n"
    "print(compute_y(x=it.get_next()).numpy())",
    invalid=(
        "import tensorflow as tf\n"
        "dataset = tf.data.Dataset.range(4)\n"
        "it = dataset.make_one_shot_iterator()\n"
        "x = it.get_next()\n"
        "y = 2 * x\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y))\n",
    ),
    valid=("import tensorflow as tf\nfor x in tf.data.Dataset.range(4):\n    print((2 * x).numpy())\n",),
)
RULES = [ITERATOR_TO_ITER]

# code of a pipeline whose order a new TF2 iterator draws again
_RANDOM_WORDS = ("shuffle", "random", "sample")
# code of a pipeline whose elements may be sparse or ragged tensors
_COMPOSITE_WORDS = ("VarLen", "SparseFeature", "sparse", "Sparse", "ragged", "Ragged")
_BUILTINS = frozenset(dir(builtins))
_KNOWN_NAMES = frozenset({"np", "numpy", "True", "False", "None"})


def initialized(facts: GraphFacts, site: RunSite) -> TF1Iterator | None:
    """The TF1 iterator of ``sess.run(it.initializer)``, else None."""
    fetch = site.fetch
    if isinstance(fetch, cst.Attribute) and fetch.attr.value == "initializer" and isinstance(fetch.value, cst.Name):
        name = fetch.value.value
        return next((i for i in facts.iterators if site in i.scope.run_sites and i.scope.resolve(name, site.order) is i.statement), None)
    return None


def plan(rewrite: SessionRewrite, initializer_runs: list[tuple[RunSite, TF1Iterator]]) -> None:
    """Plan every iterator's rewrite, or block the graph with the reason."""
    facts = rewrite.facts
    if not facts.iterators:
        return
    allowed = {id(cst.ensure_type(call.func, cst.Attribute).value) for i in facts.iterators for call in i.get_next}
    allowed |= {id(cst.ensure_type(site.fetch, cst.Attribute).value) for site, _ in initializer_runs}
    allowed |= {id(target) for i in facts.iterators for target in _targets(i)}
    # (one walk of the module for every iterator: the names read as each, and those bound)
    iterator_names = {i.name for i in facts.iterators}
    uses = [n for n in find_all(rewrite.module, cst.Name) if isinstance(n, cst.Name) and n.value in iterator_names]
    bound_in_module = set(read_and_bound(rewrite.module)[1])
    for iterator in facts.iterators:
        runs = [site for site, i in initializer_runs if i is iterator]
        refused = _refused(rewrite, iterator, runs, [n for n in uses if id(n) not in allowed], bound_in_module)
        if refused is not None:
            node, message = refused
            rewrite.block(node, blockers.UNSUPPORTED_GRAPH_CODE, message)
            continue
        new = f"iter({iterator.dataset})"
        if not iterator.initializable:
            # a call rewritten whole: the TF1 name in it gets no finding of its own
            rewrite.plan.call_replacements[id(iterator.call)] = lambda updated, new=new: cst.parse_expression(new)
            rewrite.plan.note(iterator.call, ITERATOR_TO_ITER.code, f"one-shot iterator → `{new}`")
            continue
        rewrite.plan.remove.add(id(iterator.statement.node))
        rewrite.plan.note(iterator.call, ITERATOR_TO_ITER.code, f"initializable iterator removed: each initializer run makes `{new}`")
        for site in runs:
            assert site.statement is not None  # checked by _refused
            statement = cst.parse_statement(f"{iterator.name} = {new}\n", config=rewrite.module.config_for_parsing)
            rewrite.plan.replace[id(site.statement)] = statement.with_changes(leading_lines=site.statement.leading_lines)
            rewrite.plan.note(site.call, ITERATOR_TO_ITER.code, f"initializer run → `{iterator.name} = {new}` (a new iterator)")


def _refused(
    rewrite: SessionRewrite, iterator: TF1Iterator, runs: list[RunSite], other_uses: list[cst.Name], bound_in_module: set[str]
) -> tuple[cst.CSTNode, str] | None:
    """``other_uses``: the names of iterators read other than by their ``get_next()`` and
    initializer runs; ``bound_in_module``: every name the module binds, at any depth."""
    scope = iterator.scope
    for name in other_uses:
        if name.value == iterator.name:
            return name, (
                f"the TF1 iterator `{iterator.name}` is used other than by its `get_next()` statement and its "
                "initializer runs; not converted"
            )
    fetched = _fetched_whole(rewrite, iterator)
    if fetched is not None and _pipeline_may(rewrite, iterator, _COMPOSITE_WORDS, bound_in_module):
        return fetched, (
            f"an element of `{iterator.name}` is fetched as it is, and its pipeline may hold sparse or ragged tensors (or "
            "its code is not in this file): TF1 returned SparseTensorValues, a converted fetch does not; not converted"
        )
    if not iterator.initializable:
        return None
    if not runs:
        return iterator.call, f"no run of this file initializes the iterator `{iterator.name}`: it is not converted"
    owner = None if isinstance(scope.owner, cst.Module) else scope.owner
    for site in runs:
        if site.feed is not None:
            return site.call, "an initializer run feeding the dataset's placeholders is not converted"
        if site.statement is None or site.function is not owner or scope.cls is not None:
            return site.call, (
                "an initializer run that is not a statement of the function making the iterator is not converted "
                "(the new iterator would not replace it there)"
            )
    last_run = max(site.order if site.order is not None else len(scope.statements) for site in runs)
    # a binding inside a block counts at its statement: a loop around the runs binds it
    # again between two of them (``ds = ds.map(...)`` at the end of an epoch)
    bindings = [*scope.bindings.get(iterator.dataset, []), *scope.nested_bindings.get(iterator.dataset, [])]
    if any(iterator.statement.order < o <= last_run for o in bindings):
        return iterator.call, (
            f"the dataset `{iterator.dataset}` is bound again before or between its iterator's initializer runs (TF1's "
            "iterator kept the dataset it was made from, `iter(...)` would take the new one); not converted"
        )
    if (len(runs) > 1 or any(site.in_loop for site in runs)) and _pipeline_may(rewrite, iterator, _RANDOM_WORDS, bound_in_module):
        return runs[-1].call, (
            f"the iterator `{iterator.name}` of a pipeline that shuffles or draws random numbers (or whose code this file "
            "does not show) is initialized again: TF1 replayed its first order, a new TF2 iterator draws another; not converted"
        )
    return None


def _targets(iterator: TF1Iterator) -> list[cst.BaseAssignTargetExpression]:
    """The name bound by the statement making the iterator."""
    body = cst.ensure_type(iterator.statement.node, cst.SimpleStatementLine).body
    return [t.target for s in body if isinstance(s, cst.Assign) for t in s.targets]


def _fetched_whole(rewrite: SessionRewrite, iterator: TF1Iterator) -> cst.BaseExpression | None:
    """A fetch of a converted run that is a name the ``get_next()`` statement binds, or a
    subscript of one: a value of the element as it is, turned into NumPy."""
    for generated in rewrite.functions.values():
        for element in generated.placeholders:
            if element.placeholder is None or element.placeholder.iterator is not iterator:
                continue
            for leaf in fetch_leaves(generated.fetch):
                root = leaf
                while isinstance(root, cst.Subscript):  # ``batch["ids"]``, ``d[0]``: a part of it, as it is
                    root = root.value
                if isinstance(root, cst.Name) and root.value in element.defines:
                    return leaf
    return None


def _pipeline_may(rewrite: SessionRewrite, iterator: TF1Iterator, words: tuple[str, ...], bound_in_module: set[str]) -> bool:
    """May the code building the dataset (the statements binding it and the names they
    read, back to its sources; map functions included) use one of ``words`` (shuffle or draw
    random numbers; make sparse or ragged tensors)?  Code this file does not show (a helper
    imported from another module, a parameter) may."""
    scope = iterator.scope
    seen: set[int] = set()
    pending: list[tuple[str, int]] = [(iterator.dataset, iterator.statement.order)]
    while pending:
        name, before = pending.pop()
        if name in _BUILTINS or name in rewrite.facts.imports.aliases or name in _KNOWN_NAMES:
            continue  # TensorFlow, NumPy and builtin calls are read in the code that makes them
        statement: Statement | None = scope.resolve(name, before)
        if statement is None:
            # bound inside a block (``with open(path) as f: lines = f.read()``, or the block reading it): that block
            nested = [o for o in scope.nested_bindings.get(name, []) if o <= before]
            statement = scope.statements[nested[-1]] if nested else None
        if statement is None and name not in bound_in_module:
            continue  # bound nowhere (Python 2's ``xrange``): a NameError in both versions
        if statement is None or (_imports(statement) and not _imports_standard_library(statement)):
            return True
        if statement.order in seen:
            continue
        seen.add(statement.order)
        code = rewrite.module.code_for_node(statement.node)
        if any(word in code for word in words):
            return True
        reads, bound = read_and_bound(statement.node)
        if isinstance(statement.node, cst.SimpleStatementLine):
            bound = []  # ``data = data.shuffle(...)`` reads the binding before it
        pending += [(read, statement.order) for read in reads if read not in bound]
    return False


def _imports_standard_library(statement: Statement) -> bool:
    """``import random``, ``from os import path``: modules that make no tensors (their calls
    are read in the code that makes the pipeline)."""
    modules: list[str] = []
    for small in cst.ensure_type(statement.node, cst.SimpleStatementLine).body:
        if isinstance(small, cst.Import):
            modules += [dotted_name(alias.name) or "" for alias in small.names]
        elif isinstance(small, cst.ImportFrom):
            if small.relative or small.module is None:
                return False  # a module of the project
            modules.append(dotted_name(small.module) or "")
    return all(module.split(".")[0] in sys.stdlib_module_names for module in modules)


def _imports(statement: Statement) -> bool:
    node = statement.node
    return isinstance(node, cst.SimpleStatementLine) and any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in node.body)
