"""Feed dict displays passed straight to a function that runs them (``predict({x: X})``).

A function of the file that takes its run's feed as a parameter (``def predict(feed):
return sess.run(pred, feed)``) is converted when every call passes a dict keyed by
placeholders (rewrites/feeds.py, ``_passed_feed_dicts``): the dict's keys become the
generated function's argument names (``{"x": X}``) and the run reads them
(``compute_pred(x=feed["x"])``).  A call may bind the dict to a name first
(``d = {x: X}; predict(d)``) or write the display in the call itself
(``predict({x: X})``).  The display in the call names placeholders in a statement that is
otherwise plain Python; read as graph code, its result (``a = predict({x: X})``) was taken
for a tensor and refused as "defined by graph-building code" where TF1 computed a NumPy
value.

:func:`collect_passed_feed_displays` records such displays: a dict display whose keys
are all graph names (``x``, ``self.x_tf``), passed (by position or keyword) to a function of
the file defined once (``f(...)`` for a module function, ``self.f(...)`` for a method)
for a parameter that a run in that function takes as its feed.  Its keys are then no graph
reads of the statement (the statement classifier ignores them, the escape check skips
them); whether every call of the function passes such a dict, and whether its keys are
placeholders the run's graph makes, is proven at the run, as for a named dict, and
refused there with the reason when it is not.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.names import graph_name
from tf2migrate.traversal import find_all


def collect_passed_feed_displays(facts: GraphFacts, module: cst.Module, calls: list[cst.Call]) -> None:
    """Record in ``facts.passed_feed_displays`` the dict displays keyed by graph names that
    the calls pass to a file function's parameter a run in it takes as its feed."""
    if not facts.feed_names:
        return  # (no run of the file takes a name as its feed)
    for call in calls:
        for argument in call.args:
            display = argument.value
            if not isinstance(display, cst.Dict) or not keyed_by_graph_names(display):
                continue
            if _parameter_for(module, call, argument) is not None:
                facts.passed_feed_displays[id(display)] = display


def keyed_by_graph_names(display: cst.Dict) -> bool:
    """A feed dict display: its keys placeholders or other graph names (a key that is no
    placeholder of the run's graph is refused at the run, as a named dict's is)."""
    return bool(display.elements) and all(isinstance(e, cst.DictElement) and graph_name(e.key) is not None for e in display.elements)


def _parameter_for(module: cst.Module, call: cst.Call, argument: cst.Arg) -> str | None:
    """The parameter of the file's one function the call names that the argument is passed
    for; None for any other call, a starred argument or a function defined more than once."""
    if m.matches(call.func, m.Attribute(value=m.Name("self"), attr=m.Name())):
        title, method = cst.ensure_type(call.func, cst.Attribute).attr.value, True
    elif isinstance(call.func, cst.Name):
        title, method = call.func.value, False
    else:
        return None
    defs = [d for d in find_all(module, cst.FunctionDef) if isinstance(d, cst.FunctionDef) and d.name.value == title]
    if len(defs) != 1 or is_method(module, defs[0]) != method:
        return None
    params = defs[0].params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.posonly_params:
        return None
    names = tuple(p.name.value for p in params.params)[1 if method else 0 :]
    bound = bind_arguments(call, names)
    parameter = next((name for name, arg in (bound or {}).items() if arg is argument and name in names), None)
    return parameter if parameter is not None and _runs_with_feed(defs[0], parameter) else None


def is_method(module: cst.Module, function: cst.FunctionDef) -> bool:
    """Is the function a method: a def in the body of one of the module's classes?"""
    return any(
        any(statement is function for statement in cls.body.body) for cls in find_all(module, cst.ClassDef) if isinstance(cls, cst.ClassDef)
    )


def _runs_with_feed(function: cst.FunctionDef, parameter: str) -> bool:
    """Does a run in the function take the parameter as its feed (``sess.run(t, feed)``,
    ``feed_dict=feed``, ``t.eval(feed_dict=feed)``)?"""
    for call in find_all(function.body, cst.Call):
        if not (isinstance(call, cst.Call) and m.matches(call.func, m.Attribute(attr=m.Name("run") | m.Name("eval")))):
            continue
        for position, argument in enumerate(call.args):
            keyword = argument.keyword.value if argument.keyword is not None else None
            positional = keyword is None and position == 1 and cst.ensure_type(call.func, cst.Attribute).attr.value == "run"
            if (keyword == "feed_dict" or positional) and m.matches(argument.value, m.Name(parameter)):
                return True
    return False
