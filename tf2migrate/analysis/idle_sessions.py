"""Sessions that nothing uses, inside Python blocks (``if __name__ == "__main__":``, ``with
tf.device(...):``), and the device scopes around code that builds no graph there.

PINN-laminar-flow's main blocks open a session inside ``with tf.device('/device:GPU:1'):``
and never use it: the model class makes and runs its own.  TF1 created that session for
nothing (its only effect is GPU memory set aside, by its ``ConfigProto``); TF2 has no
session, so the statement and the configuration only it reads go.  A session counts as
unused only when its name is read nowhere in the module, and a configuration only when
every mention of its name is its own statements (``config = tf.ConfigProto()``,
``config.gpu_options.allow_growth = True``) or the ``config=`` of such a session, and its
settings call nothing (dropped, a call would not run).

``tf.device(...)`` as a ``with`` item is the same call in TF2: eager operations run inside
it are placed by it as TF1's were built under it (TF2 places softly when the device does
not exist, as the model's ``allow_soft_placement=True`` session did), so it does not make
the block around it graph-building code.  Graph code inside such a block still is.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.catalogue import CONFIG_CALLS
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.traversal import find_all, walk

PLACEMENT_CONTEXTS = frozenset({"device"})


def find_idle_sessions(
    module: cst.Module, imports: TfImports, lines: list[cst.SimpleStatementLine]
) -> tuple[list[cst.SimpleStatementLine], list[cst.SimpleStatementLine]]:
    """The statements that create an unused session, and those that make and set their
    configurations; ``lines``: every simple statement line of the module, in the order a
    walk meets them (the analysis' index holds them)."""
    candidates = [(line, found) for line in lines if (found := _session(line, imports)) is not None]
    if not candidates:
        return [], []  # (counting every name of the module is the costly part)
    counter = _Mentions()
    walk(module, counter)
    mentions = counter.counts
    sessions: list[cst.SimpleStatementLine] = []
    configs: list[cst.SimpleStatementLine] = []
    for line, found in candidates:
        if mentions.get(found[0], 0) != 1:
            continue  # its name is read (or bound) elsewhere
        config = found[1]
        if config is None:
            sessions.append(line)
            continue
        own = [s for s in lines if _configures(s, config, imports)]
        # every mention: its statements' own, and the session's ``config=config``
        if mentions.get(config, 0) == len(own) + 1:
            sessions.append(line)
            configs += own
    return sessions, configs


def rebound_sessions(
    lines: list[cst.SimpleStatementLine], imports: TfImports, session_names: Iterable[str]
) -> list[cst.SimpleStatementLine]:
    """``sess = tf.Session()`` binding again a name the analysis reads as a session, in a
    Python block (``if do_restore: sess = tf.Session(); saver.restore(sess, path)``).  Every
    read of a session's name is a run, save, restore or close the migration converts
    (analysis/escapes.py keeps the graph on TF1 otherwise), so in a converted file such a
    session serves nothing: it goes like an unused one (left as ``tf.compat.v1.Session()``, a
    second run of tf2migrate would read the eager program as a TF1 graph)."""
    names = set(session_names)
    found = []
    for line in lines:
        session = _session(line, imports)
        if session is not None and session[0] in names and session[1] is None:
            found.append(line)
        elif _default_session(line, imports) in names:
            found.append(line)
    return found


def _default_session(line: cst.SimpleStatementLine, imports: TfImports) -> str | None:
    """``s = s or tf.get_default_session()`` / ``s = tf.get_default_session()`` (dennybritz's
    estimators: ``def predict(self, state, sess=None)``): s, the name it binds.  The same as a
    session made again: every read of a session's name is converted, so once the runs are
    function calls the session it picks serves nothing (and TF2's eager
    ``tf.compat.v1.get_default_session()`` is None).  The right side reads only ``s``, so
    dropping the statement drops no other effect."""
    if len(line.body) != 1 or not m.matches(line.body[0], m.Assign(targets=[m.AssignTarget(target=m.Name())])):
        return None
    assign = line.body[0]
    assert isinstance(assign, cst.Assign) and isinstance(assign.targets[0].target, cst.Name)
    name = assign.targets[0].target.value
    value = assign.value
    if m.matches(value, m.BooleanOperation(left=m.Name(name), operator=m.Or())):
        assert isinstance(value, cst.BooleanOperation)
        value = value.right
    if isinstance(value, cst.Call) and not value.args and imports.call_name(value) == "get_default_session":
        return name
    return None


def placement_calls(with_items: Iterable[cst.WithItem], imports: TfImports) -> set[int]:
    """Ids of the ``tf.device(...)`` calls that are ``with`` items (see the module doc),
    among the module's ``with_items`` (the analysis' index holds them all)."""
    return {
        id(item.item)
        for item in with_items
        if isinstance(item.item, cst.Call) and item.asname is None and imports.call_name(item.item) in PLACEMENT_CONTEXTS
    }


def _session(line: cst.SimpleStatementLine, imports: TfImports) -> tuple[str, str | None] | None:
    """``s = tf.Session()`` / ``s = tf.Session(config=c)``: (s, c or None)."""
    if len(line.body) != 1 or not m.matches(line.body[0], m.Assign(targets=[m.AssignTarget(target=m.Name())], value=m.Call())):
        return None
    assign = line.body[0]
    assert isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call)
    call = assign.value
    if imports.call_name(call) != "Session":
        return None  # (an InteractiveSession is used unnamed, by ``.eval()`` and ``.run()``)
    config = None
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value != "config":
            return None
        if isinstance(arg.value, cst.Name):
            config = arg.value.value
        elif not (
            isinstance(arg.value, cst.Call)
            and imports.call_name(arg.value) in CONFIG_CALLS
            and all(a.keyword is not None and _pure_setting(a.value) for a in arg.value.args)
        ):
            return None  # a configuration that calls something: dropped, the call would be too
    target = assign.targets[0].target
    assert isinstance(target, cst.Name)
    return target.value, config


def _configures(line: cst.SimpleStatementLine, config: str, imports: TfImports) -> bool:
    """``config = tf.ConfigProto(<settings>)`` or ``config.a.b = <setting>`` (see _pure_setting)."""
    if len(line.body) != 1 or not isinstance(assign := line.body[0], cst.Assign) or len(assign.targets) != 1:
        return False
    target, value = assign.targets[0].target, assign.value
    if m.matches(target, m.Name(config)):
        return (
            isinstance(value, cst.Call)
            and imports.call_name(value) in CONFIG_CALLS
            and all(a.keyword is not None and _pure_setting(a.value) for a in value.args)
        )
    root: cst.BaseExpression = target
    while isinstance(root, cst.Attribute):
        root = root.value
    return root is not target and m.matches(root, m.Name(config)) and _pure_setting(value)


def _pure_setting(value: cst.BaseExpression) -> bool:
    """A setting whose evaluation does nothing but compute it: no call (numbers, strings,
    names, attributes and arithmetic of them), so that dropping it drops nothing else."""
    return not find_all(
        value,
        (
            cst.Call,
            cst.Lambda,
            cst.NamedExpr,
            cst.Await,
            cst.Yield,
            cst.ListComp,
            cst.SetComp,
            cst.DictComp,
            cst.GeneratorExp,
            cst.Subscript,
        ),
    )


class _Mentions(cst.CSTVisitor):
    """How often each name is mentioned as a variable (attribute names and keywords aside)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        walk(node.value, self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        walk(node.value, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.counts[node.value] = self.counts.get(node.value, 0) + 1
