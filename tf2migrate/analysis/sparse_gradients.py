"""Where a train step's gradient can be sparse (``tf.IndexedSlices``).

The gradient of a variable read through a gather — ``tf.gather``, ``tf.nn.embedding_lookup``,
the sampled losses built on them (``nce_loss``, ``sampled_softmax_loss``), a Keras
``Embedding`` — is an ``IndexedSlices``: the rows looked up, once per lookup, duplicates
included.  It stays one through ``tf.identity``, additions and ``tf.concat``, so what
matters is whether such an op is in the computation at all, not whether it reads the
variable directly.  TF1's optimizers and Keras' apply such gradients differently
(rewrites/train_steps.py says which agree), so the rewrite must know when one can occur.

The answer is conservative: a sparse-producing call anywhere in the file counts (its
result may reach any step through a helper, a layer object or a module-level name), and
so does a step calling code imported from another module, unless the run read that
module and its summary (analysis/project.py) says it looks up no rows.
"""

from __future__ import annotations

import sys

import libcst as cst
from libcst.helpers import get_full_name_for_node

from tf2migrate.analysis import imported_calls
from tf2migrate.analysis.calls import calls_in, closure
from tf2migrate.analysis.catalogue import SPARSE_NAME_PARTS

from tf2migrate.analysis.model import GraphFacts, Scope, Statement
from tf2migrate.analysis.names import self_attribute
from tf2migrate.analysis.summaries import UNKNOWN

# Packages whose functions build no TensorFlow ops (the standard library, NumPy and kin).
_NO_TF_PACKAGES = frozenset(sys.stdlib_module_names) | {"numpy", "scipy", "pandas", "matplotlib", "sklearn", "absl", "six", "tqdm"}
_TF_PACKAGES = frozenset({"tensorflow"})


def sparse_gradient_source(module: cst.Module, facts: GraphFacts, scope: Scope, trains: list[Statement]) -> cst.Call | None:
    """A call that can make the gradient of a step of these train ops sparse: a
    sparse-producing call anywhere in the file, else a call of their computation (or of
    the file's helpers it calls) into code imported from another module.  None: every
    gradient of their steps is dense."""
    step = [*trains, *closure(scope, trains)[0]]
    for call in facts.calls:
        name = _called_name(call)
        if name is not None and any(part in name.lower() for part in SPARSE_NAME_PARTS):
            return call
    opaque = _imported_code_names(module, facts.import_nodes)
    seen: set[int] = set()
    pending = [call for statement in step for call in calls_in(statement.node)]
    while pending:
        call = pending.pop()
        if id(call) in seen:
            continue
        seen.add(id(call))
        summarized = imported_calls.summary_of(facts, call) or imported_calls.builder_call(facts, call, scope, None)
        if summarized is not None:
            if summarized.kind == UNKNOWN or summarized.reads_rows:
                return call
            continue
        if _root(call.func) in opaque:
            return call
        helper = facts.helpers.get(call.func.value) if isinstance(call.func, cst.Name) else None
        if helper is None and (method := self_attribute(call.func)) is not None:
            helper = facts.helpers.get(method)
        if helper is not None:
            pending += calls_in(helper.node.body, enter_defs=True)
    return None


def _called_name(call: cst.Call) -> str | None:
    func = call.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _root(expr: cst.BaseExpression) -> str | None:
    while isinstance(expr, (cst.Attribute, cst.Subscript, cst.Call)):
        expr = expr.func if isinstance(expr, cst.Call) else expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _imported_code_names(module: cst.Module, import_nodes: list[cst.Import | cst.ImportFrom]) -> set[str]:
    """Names bound to code of other modules that may build TensorFlow ops (a sibling
    ``model.py``, a third-party library), and module-level names bound to what such
    code returns (``net = model.build()``)."""
    names: set[str] = set()
    for node in import_nodes:
        if isinstance(node, cst.Import):
            for alias in node.names:
                dotted = get_full_name_for_node(alias.name) or ""
                if _may_build_ops(dotted):
                    names.add(_bound(alias) or dotted.split(".")[0])
        elif isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            package = "" if node.relative or node.module is None else get_full_name_for_node(node.module) or ""
            if node.relative or _may_build_ops(package):
                names.update(_bound(alias) or get_full_name_for_node(alias.name) or "" for alias in node.names)
    for statement in module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) and _root(small.value) in names:
                names.update(t.target.value for t in small.targets if isinstance(t.target, cst.Name))
    return names


def _may_build_ops(dotted: str) -> bool:
    package = dotted.split(".")[0]
    return package not in _NO_TF_PACKAGES and package not in _TF_PACKAGES


def _bound(alias: cst.ImportAlias) -> str | None:
    return alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else None
