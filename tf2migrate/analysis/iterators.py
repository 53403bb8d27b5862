"""TF1 tf.data iterators in graph code: which statements make one, which take its elements.

``it = dataset.make_one_shot_iterator()`` (also ``make_initializable_iterator`` and the
``tf.data.make_*_iterator(dataset)`` functions) binds an iterator; ``x, y = it.get_next()``
builds ONE op, which every ``sess.run`` whose fetches depend on it runs once: the run takes
the next element, whatever number of fetched tensors read it.  That is the meaning of a
placeholder fed by the run itself, so the ``get_next()`` statement is classified as one
(its :class:`Placeholder` carries the iterator): the generated functions that read ``x``
or ``y`` take the element as an argument, unpacked in their body as TF1's statement
unpacked it, and each converted run passes ``it.get_next()`` — on the TF2 iterator
``iter(dataset)``, whose ``get_next()`` also raises ``tf.errors.OutOfRangeError`` at the
end (rewrites/tf1_iterators.py).

Only the shapes whose meaning that keeps are recognized: a plain name bound to the
iterator, a dataset that is a name and not a graph tensor (a dataset built from
placeholders was fed at its initializer run), one ``get_next()`` statement binding names.
Other iterator APIs (``Iterator.from_structure``, string handles, ``make_initializer``)
are refused with the reason.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis import blockers
from tf2migrate.analysis.model import GraphFacts, Kind, Placeholder, Scope, Statement, TF1Iterator
from tf2migrate.analysis.names import fresh_name, target_names
from tf2migrate.analysis.tf_imports import ITERATOR_FUNCTIONS, ITERATOR_METHODS, TfImports
from tf2migrate.traversal import find_all

# methods of TF1 iterators and datasets whose meaning depends on handles, structures or
# re-initialization with another dataset: refused, named
_REFUSED_METHODS = {
    "string_handle": "a string handle of a TF1 iterator (feedable iterators) is not converted",
    "make_initializer": "a reinitializable iterator (`make_initializer`) is not converted",
}
_REFUSED_PREFIX = "data.Iterator."
# Dataset methods taking a function that tf.data traces into a function of its own, once,
# when the pipeline is made (TF1 and TF2 alike): the ops it builds are not the graph's
DATASET_FUNCTION_METHODS = frozenset({"map", "filter", "flat_map", "interleave"})


def iterator_made(tf: TfImports, call: cst.Call) -> tuple[cst.BaseExpression, bool] | None:
    """(the dataset, initializable) of a call making a TF1 iterator, else None."""
    name = tf.call_name(call)
    if name in ITERATOR_FUNCTIONS:
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        dataset = positional[0] if len(positional) == 1 and len(call.args) == 1 else None
        return (dataset, ITERATOR_FUNCTIONS[name]) if dataset is not None else None
    if name is None and isinstance(call.func, cst.Attribute) and call.func.attr.value in ITERATOR_METHODS and not call.args:
        return call.func.value, call.func.attr.value == "make_initializable_iterator"
    return None


def dataset_function_calls(tf: TfImports, calls: list[cst.Call], scope: Scope, order: int) -> set[int]:
    """The ids of the calls inside a lambda given to a dataset transformation
    (``dataset.map(lambda v: tf.cast(v, tf.float32))``): tf.data traces it into a function
    of the pipeline's own in both versions, so they do not make the statement graph code.
    The receiver is a chain of calls from a ``tf.data`` call, or a name that is no graph
    value; what the lambda reads is still read by the statement."""
    found: set[int] = set()
    for call in calls:
        func = call.func
        if not (
            isinstance(func, cst.Attribute) and func.attr.value in DATASET_FUNCTION_METHODS and _is_dataset(tf, func.value, scope, order)
        ):
            continue
        for arg in call.args:
            if isinstance(arg.value, cst.Lambda):
                found |= {id(c) for c in find_all(arg.value, cst.Call)}
    return found


def _is_dataset(tf: TfImports, receiver: cst.BaseExpression, scope: Scope, order: int) -> bool:
    while isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute):
        name = tf.call_name(receiver)
        if name is not None:
            return name.startswith("data.")
        receiver = receiver.func.value  # ``tf.data.Dataset.range(5).map(f).batch(2)``: its receiver
    return isinstance(receiver, cst.Name) and receiver.value not in tf.aliases and scope.graph_statement(receiver.value, order) is None


def refused_call(tf: TfImports, call: cst.Call) -> str | None:
    """Why a call of a TF1 iterator API this release does not convert keeps the graph on TF1."""
    name = tf.call_name(call)
    if name is not None and name.startswith(_REFUSED_PREFIX):
        return f"`tf.{name}` (an iterator of a structure or a string handle, shared by datasets) is not converted"
    if name is None and isinstance(call.func, cst.Attribute) and call.func.attr.value in _REFUSED_METHODS:
        return _REFUSED_METHODS[call.func.attr.value]
    return None


def classify(facts: GraphFacts, module: cst.Module, small: cst.Assign, statement: Statement, scope: Scope) -> Statement | None:
    """The statement if it makes a TF1 iterator or takes its element (recognized, or refused
    with the reason), else None."""
    call = small.value
    if not isinstance(call, cst.Call):
        return None
    made = iterator_made(facts.imports, call)
    if made is not None:
        return _iterator(facts, small, statement, scope, call, made)
    if is_get_next(call):
        receiver = cst.ensure_type(call.func, cst.Attribute).value
        bound = scope.resolve(receiver.value, statement.order) if isinstance(receiver, cst.Name) else None
        iterator = next((i for i in facts.iterators if i.statement is bound), None)
        return _element(facts, module, small, statement, iterator, call) if iterator is not None else None
    return None


def is_get_next(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "get_next" and not call.args


def _iterator(facts: GraphFacts, small: cst.Assign, statement: Statement, scope: Scope, call: cst.Call, made) -> Statement:
    dataset, initializable = made
    targets = [t.target for t in small.targets]
    refused = None
    if len(targets) != 1 or not isinstance(targets[0], cst.Name):
        refused = "a TF1 tf.data iterator bound to something else than one name is not converted"
    elif not isinstance(dataset, cst.Name):
        refused = "a TF1 tf.data iterator of a dataset that is not a name is not converted"
    elif scope.graph_statement(dataset.value, statement.order) is not None:
        refused = (
            f"the dataset `{dataset.value}` is built from graph tensors (placeholders fed at its initializer run); "
            "its iterator is not converted"
        )
    if refused is not None:
        facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, refused)
        return statement
    assert isinstance(targets[0], cst.Name) and isinstance(dataset, cst.Name)  # checked above
    statement.defines = (targets[0].value,)
    statement.reads = (dataset.value,)
    facts.iterators.append(TF1Iterator(targets[0].value, dataset.value, initializable, statement, call, scope))
    return statement  # Python: stays where it is (rewrites/tf1_iterators.py makes it ``iter(dataset)``)


def _element(
    facts: GraphFacts, module: cst.Module, small: cst.Assign, statement: Statement, iterator: TF1Iterator, call: cst.Call
) -> Statement:
    target = small.targets[0].target if len(small.targets) == 1 else None
    names = _plain_names(target) if target is not None else None
    if names is None:
        facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, "the element of a TF1 iterator is bound to something else than names")
        return statement
    if iterator.get_next:
        facts.block(
            call,
            blockers.UNSUPPORTED_GRAPH_CODE,
            f"`{iterator.name}.get_next()` is called more than once: each call is an op that takes its own element",
        )
        return statement
    iterator.get_next.append(call)
    if isinstance(target, cst.Name):
        argument = target.value
    else:
        in_use = {n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name)}
        argument = fresh_name(f"{iterator.name}_element", in_use)
    statement.kind = Kind.PLACEHOLDER
    statement.defines = tuple(names)
    statement.value_kind = "unknown"  # a structure of tensors: NumPy by tf.nest
    statement.placeholder = Placeholder(argument, None, None, call, None, iterator)
    statement.reads = (iterator.name,)
    return statement


def _plain_names(target: cst.BaseExpression) -> list[str] | None:
    """``x`` or ``x, y`` / ``[x, (y, z)]``: the names, else None."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        if any(isinstance(e, cst.StarredElement) for e in target.elements):
            return None
        names = []
        for element in target.elements:
            inner = _plain_names(element.value)
            if inner is None:
                return None
            names += inner
        return names if names == target_names(target) else None
    return None
