"""Calls inside what the migration drops: the arguments of sessions, configurations and
the contexts it opens up.

TF2 has no session, default graph or session configuration: ``sess = tf.Session(config=...)``,
``config = tf.ConfigProto(...)`` and its settings go, and ``with tf.Session() as sess:``,
``with tf.Graph().as_default():`` and ``with tf.name_scope(...):`` are opened up.  Their
arguments go with them, and TF1 evaluated every one: a call among them of anything but
TF's own constructors (``tf.Session(config=make_config())``, ``tf.name_scope(scope_name())``,
``config.gpu_options.per_process_gpu_memory_fraction = memory_fraction()``) ran, with its
effects (a print, a counter, a file read), where the migration would drop it.  Such a
graph stays on TF1; the finding names the call, which the user can make a statement of
its own.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.tf_imports import TfImports, dotted_name
from tf2migrate.traversal import find_all

# ``g.as_default()`` of a graph, the one method call a dropped context makes
_GRAPH_METHOD = m.Call(func=m.Attribute(value=m.Name() | m.Attribute() | m.Call(), attr=m.Name("as_default")), args=[])
# calls that only read, whose dropping drops nothing (``int(os.environ.get("THREADS", 1))`` as a
# setting); not ``map``/``sorted`` and kin, which may call a function given to them
_READS = frozenset({"int", "float", "bool", "str", "len", "abs", "round", "list", "tuple", "dict"})
_READ_ATTRIBUTES = frozenset({"os.environ.get", "os.getenv", "os.cpu_count", "multiprocessing.cpu_count"})


def dropped_call(imports: TfImports, node: cst.CSTNode) -> cst.Call | None:
    """The first call in ``node`` (a dropped statement's value, a with item) that is none
    of TF's calls: dropping ``node`` would drop it."""
    for call in find_all(node, cst.Call):
        assert isinstance(call, cst.Call)
        if imports.call_name(call) is None and not m.matches(call, _GRAPH_METHOD) and not _only_reads(call):
            return call
    return None


def _only_reads(call: cst.Call) -> bool:
    func = call.func
    if isinstance(func, cst.Name):
        # (``min``/``max`` without ``key=``: the function a key names would run)
        return func.value in _READS or (func.value in ("min", "max") and all(a.keyword is None for a in call.args))
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.BaseString):
        return True  # ``"tower_{}".format(i)``: a string literal's method
    return dotted_name(func) in _READ_ATTRIBUTES


def dropped_call_message(call: cst.Call, dropped: str) -> str:
    return (
        f"`{cst.Module([]).code_for_node(call.func)}(...)` is called by {dropped}, which TF2 drops: the call would be "
        "dropped too (TF1 ran it); make it a statement of its own"
    )
