"""Where the name a refused Python call calls comes from, for its message.

A call in graph-building code that the analysis cannot see into is refused (TFM306 "a
Python call in graph-building code"): moved into a generated function it would run at each
call, where TF1 ran it once.  When the called name is not the file's own, the message says
what the user must look at instead of the call alone:

* ``from libs.activations import lrelu`` ... ``lrelu(h)``: a function of a module this run
  does not read as a file of the project (not found beside the file nor on a ``sys.path``
  it adds: a notebook importing ``libs`` from a sibling folder): what it does while the
  graph is built is unknown; naming the module tells the user which file to look at.
  (Not said of Python's own modules and NumPy's, which are no file of the project.)
* ``seq2seq.rnn_decoder(...)`` where nothing in the file binds ``seq2seq`` (no import,
  assignment, parameter or definition; no star import, ``globals()``, ``exec`` or notebook
  magic line that could):
  TF1 itself fails there with a ``NameError``; the file is kept as it is.
* ``graph_def = tf.GraphDef()`` ... ``graph_def.ParseFromString(f.read())`` ...
  ``tf.import_graph_def(graph_def)`` (a frozen model loaded from a ``.pb`` file, its
  tensors then looked up by name with ``get_tensor_by_name``): the Python call fills or
  imports a serialized graph, whose tensors exist only in a TF1 graph.  TF2 runs such a
  graph through ``tf.compat.v1.wrap_function`` and ``prune``, which this release does not
  write: the message says so, on the call filling the ``GraphDef`` or on a statement holding
  the import (``with self.graph.as_default(): ... tf.import_graph_def(...)``).

The refusal itself is unchanged; this only names its cause.
"""

from __future__ import annotations

import builtins
import sys

import libcst as cst

from tf2migrate.analysis.names import names_bound, root_name
from tf2migrate.analysis.python2_semantics import PYTHON2_NAME_TEXT
from tf2migrate.analysis.tf_imports import TfImports, dotted_name
from tf2migrate.traversal import find_all

# modules that are no file of a project: Python's own, and NumPy (the numeric library TF1 code
# computes its Python values with)
_LIBRARIES = frozenset(sys.stdlib_module_names) | {"numpy", "scipy"}
# names through which a module may bind names the text does not show; the last is what a
# notebook's IPython lines are masked as (notebook.py): ``%run tools.py``, ``files = !ls`` bind names
_DYNAMIC_BINDINGS = frozenset({"globals", "vars", "exec", "eval", "locals", "setattr", "__import__", "__tf2migrate_magic__"})


def call_origin(module: cst.Module, call: cst.Call) -> str | None:
    """Why the name ``call`` calls is unknown, when it is not the file's own: imported from
    a module this run does not follow, or bound nowhere in the file; else None."""
    root = root_name(call.func)
    if root is None:
        return None
    imported = _imported_from(module, root)
    if imported is not None:
        return (
            f"`{dotted_name(call.func) or root}` comes from `{imported}`, which this run does not read as a module of the "
            "project (none found beside this file nor on a `sys.path` it adds, or no function of that name there): what it "
            "does while the graph is built is unknown"
        )
    if _bound_nowhere(module, root):
        return f"`{root}` is bound nowhere in this file (TF1 would fail there too, with a NameError)"
    return None


# the TF names of a serialized graph and of the call adding one to the default graph
_GRAPH_DEFS = frozenset({"GraphDef", "compat.v1.GraphDef"})
_GRAPH_IMPORTS = frozenset({"import_graph_def", "graph_util.import_graph_def", "compat.v1.import_graph_def"})


def imported_graph(module: cst.Module, tf: TfImports, statement: cst.CSTNode, call: cst.Call) -> str | None:
    """Why a Python call in graph code stays on TF1 when it belongs to loading a serialized
    graph: ``call`` is a method of a name bound to ``tf.GraphDef()``, or ``statement`` holds
    a ``tf.import_graph_def`` call, in a file that imports a graph so; else None."""
    imports = [c for c in find_all(module, cst.Call) if tf.call_name(c) in _GRAPH_IMPORTS]
    if not imports:
        return None
    graph_defs = {
        target.value
        for assign in find_all(module, cst.Assign)
        if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call) and tf.call_name(assign.value) in _GRAPH_DEFS
        for target in (t.target for t in assign.targets)
        if isinstance(target, cst.Name)
    }
    func = call.func
    fills = isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in graph_defs
    held = {id(c) for c in find_all(statement, cst.Call)}
    if not fills and not any(id(c) in held for c in imports):
        return None
    return (
        "it belongs to loading a serialized graph (a `GraphDef`) that `tf.import_graph_def` adds to the TF1 graph, whose "
        "tensors are then looked up by name: they exist only in a graph; TF2 runs such a graph through "
        "`tf.compat.v1.wrap_function` and `prune`, which this release does not write"
    )


def _imported_from(module: cst.Module, name: str) -> str | None:
    """The module a top-level import binding ``name`` names (``libs.activations`` for
    ``from libs.activations import lrelu``, ``utils`` for ``import utils``), when the file
    binds ``name`` nowhere else; else None."""
    found: str | None = None
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                named = dotted_name(small.module) if small.module is not None else None
                source = "." * len(small.relative) + (named or "")
                for alias in small.names:
                    if _alias_binds(alias) == name:
                        found = source
            elif isinstance(small, cst.Import):
                for alias in small.names:
                    if _alias_binds(alias) == name:
                        found = dotted_name(alias.name)
    if found is None or found.split(".")[0] in _LIBRARIES or names_bound(module).count(name) != 1:
        return None  # (a library's function: the module's name would point at no file of the project)
    return found


def _alias_binds(alias: cst.ImportAlias) -> str | None:
    """The name an import alias binds (``a`` for ``import a.b``)."""
    target: cst.BaseExpression = alias.asname.name if alias.asname is not None else alias.name
    while isinstance(target, cst.Attribute):
        target = target.value
    return target.value if isinstance(target, cst.Name) else None


def _bound_nowhere(module: cst.Module, name: str) -> bool:
    if name in dir(builtins) or PYTHON2_NAME_TEXT.fullmatch(name) or name in names_bound(module):
        return False  # (a Python 2 builtin: TF1 ran under Python 2; TFM009 names it)
    if any(isinstance(i, cst.ImportFrom) and isinstance(i.names, cst.ImportStar) for i in find_all(module, cst.ImportFrom)):
        return False  # ``from tools import *`` may bind it
    reads = {n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name)}
    return not reads & _DYNAMIC_BINDINGS and "__builtins__" not in reads
