"""Python effects of a graph-building helper of the file: what would run again.

TF1 called a helper once, while it built the graph.  Moved into generated functions, it
runs at every trace (each ``tf.function`` traces it once at least; the training step and
the prediction trace it each) and, with ``--no-tf-function``, at every run.  The graph ops
it builds come out the same; its Python effects do not: ``calls.append(1)`` on a list it
does not own appended once in TF1, ``global counter`` counted once, ``np.random.randn()``
drew one number every run of TF1 used (and each trace now draws its own).  A statement
calling such a helper stays on TF1 (analysis/statements.py, TFM306 naming the construct).

``print`` is not counted (it writes, and changes no value), nor are calls of TensorFlow:
stateful ops are judged where the graph code is.

An effect may sit one object away: ``log.record(name, h)`` on a module object, whose
method writes ``self.shapes[name]``, or ``hold.w`` read through a ``@property`` that counts
its reads.  ``member_uses`` lists the members a helper uses on objects it does not own;
analysis/graph.py gives the helper the effect of a method of the file's classes of that
name (called, or a property read), as it does for the helpers it calls.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.names import MUTATING_METHODS, FunctionFacts, root_name
from tf2migrate.analysis.tf_imports import TfImports, dotted_name

# beyond the list, dict and set methods: methods that change an array or write a file
_OTHER_WRITES = frozenset({"sort", "reverse", "fill", "put", "resize", "itemset", "discard", "popitem", "write", "writelines"})
# builtins that change their first argument (``next(ids)`` advances a module's counter)
_CHANGING_BUILTINS = frozenset({"next", "setattr", "delattr"})


def python_effect(function: cst.FunctionDef, tf: TfImports, facts: FunctionFacts) -> tuple[cst.CSTNode, str] | None:
    """The first statement or call of ``function``'s own body with a Python effect that
    would repeat at each call, and what it does; None when there is none.  ``facts``:
    ``function_facts(function)``, shared with the rest of the analysis."""
    owned = _owned(function, facts)
    for scope in facts.scope_statements:
        return scope, "changes module state"
    for node in facts.assignments:
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        if any(root_name(w) not in owned for t in targets for w in _written(t)):
            return node, "writes into a value it does not own"
    for call in facts.calls:
        if tf.call_name(call) is not None:
            continue
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS | _OTHER_WRITES and root_name(func.value) not in owned:
            return call, "changes a value it does not own"
        if isinstance(func, cst.Name) and func.value in _CHANGING_BUILTINS and call.args and root_name(call.args[0].value) not in owned:
            return call, "changes a value it does not own"
        name = dotted_name(func)
        if name is not None and (name.startswith("random.") or ".random." in name):
            return call, "draws random numbers"
    return None


def member_uses(function: cst.FunctionDef, tf: TfImports, facts: FunctionFacts) -> tuple[tuple[str, bool], ...]:
    """(member, called) of each ``x.member`` ``function`` reads or calls on an object it
    does not own (``self`` included; TensorFlow's modules aside)."""
    owned = _owned(function, facts) | set(tf.aliases)
    called = {id(call.func) for call in facts.calls}
    return tuple(
        dict.fromkeys(
            (attribute.attr.value, id(attribute) in called) for attribute in facts.attributes if root_name(attribute.value) not in owned
        )
    )


def is_property(function: cst.FunctionDef) -> bool:
    """``@property``: reading the attribute runs the function."""
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "property" for d in function.decorators)


def _owned(function: cst.FunctionDef, facts: FunctionFacts) -> set[str]:
    """Names whose objects a call of ``function`` makes: its locals, and the tuple and dict
    of its ``*args`` and ``**kwargs`` (its other parameters hold the caller's objects)."""
    params = function.params
    plain = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    starred = [p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return (set(facts.binds) - set(plain)) | set(starred)


def _written(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The attributes and items an assignment target writes into."""
    if isinstance(target, (cst.Attribute, cst.Subscript)):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [w for e in target.elements for w in _written(e.value)]
    if isinstance(target, cst.StarredElement):
        return _written(target.value)
    return []
