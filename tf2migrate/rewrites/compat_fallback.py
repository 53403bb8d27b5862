"""A graph that cannot be converted stays on TF1 semantics, and still runs under TF2.

All or nothing: when a file's graph has a blocking site, none of it becomes eager.  The
file is still upgraded as far as names go (TF2 names where they mean the same,
``tf.compat.v1.X`` elsewhere, placeholders and sessions included) and graph mode is
switched on once, right after the imports, so the program runs as it did under TF1.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.model import GraphFacts, Kind, Scope, lookup_graph_name
from tf2migrate.analysis.names import graph_name, self_attribute
from tf2migrate.analysis.statements import singleton_branch
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.rewrites.fetches import fetch_leaves
from tf2migrate.rewrites.tf_names import value_reads_by_name
from tf2migrate.plan import Plan
from tf2migrate.rewrites.eager_calls import is_initialized_value
from tf2migrate.rewrites.kept_keras_draws import note_default_draws
from tf2migrate.traversal import find_all

GRAPH_KEPT_ON_TF1 = Rule(
    "TFM404",
    "graph-kept-on-tf1",
    "The file's graph stays on TF1 semantics: tf.compat.v1 and disable_eager_execution().",
    Severity.WARNING,
    FixSafety.SAFE,
    what="When a graph cannot be converted to eager code as a whole (see the TFM3xx "
    "findings of the file), its names are still upgraded and "
    "`tf.compat.v1.disable_eager_execution()` is added once after the imports.",
    why="A half-converted graph would mix graph tensors and eager values. The file keeps "
    "running under TF2 as it ran under TF1 until the blocking sites are rewritten.",
    invalid=("import tensorflow as tf\nwith tf.Session() as sess:\n    print(sess.run(tf.global_variables()))\n",),
    valid=("import tensorflow as tf\ny = tf.constant(7.0) * 2\nwith tf.Session() as sess:\n    print(sess.run(y))\n",),
)
RULES = [GRAPH_KEPT_ON_TF1]

SWITCH = "tf.compat.v1.disable_eager_execution()\n"
# TF1 variables were reference variables: feeding one replaces its value for that run.
# TF2's resource variables ignore such a feed, and ``tf.Variable`` makes them whatever the
# switch says; ``tf.compat.v1.Variable`` follows it.
REF_VARIABLES = "tf.compat.v1.disable_resource_variables()\n"


# TF1's cond and while_loop ran an op a branch depends on (``tf.control_dependencies`` of
# an op made outside it) whichever branch was taken; TF2's functional control flow runs it
# only with its branch.
CONTROL_FLOW_V1 = "tf.compat.v1.disable_control_flow_v2()\n"
# TF1's shapes held Dimension objects (``shape[1].value``); TF2's hold ints
TENSOR_SHAPE_V1 = "tf.compat.v1.disable_v2_tensorshape()\n"
_CONTROL_FLOW = frozenset({"cond", "while_loop", "case"})


def plan_compat_fallback(module: cst.Module, facts: GraphFacts, plan: Plan, written: Sequence[cst.BaseStatement] = ()) -> None:
    """Keep the graph on TF1 semantics, with the switches its code needs.  ``written``: the
    definitions tf2migrate wrote into the file on an earlier run (rewrites/written_helpers.py),
    TF2 code whose calls and shapes ask for no switch."""
    # (the module without them: the same nodes, so the plan's edits by node still apply; the
    # module itself when there is none, whose nodes the analysis' walks have laid out already)
    user_code = (
        module.with_changes(body=[statement for statement in module.body if all(statement is not w for w in written)])
        if written
        else module
    )
    own = {id(node) for statement in written for node in find_all(statement, cst.Call)}
    calls = [call for call in facts.calls if id(call) not in own]
    # a fed variable, ``v.initialized_value()``, a variable fetched by the run that updates
    # it, a run whose reads TF1 left unordered (a decayed rate's step updated beside the
    # train op: read before the update), a graph element read by its name (a variable's
    # ``w:0`` is its value, not a resource handle), an assign of another shape: what only
    # reference variables do
    ref_variables = (
        facts.unordered_ref_reads
        or _feeds_other_than_placeholders(facts)
        or _feeds_unnamed_keys(user_code, facts)
        or _fetches_variable_beside_update(facts)
        or any(is_initialized_value(c) for c in calls)
        or any(_reads_graph_by_name(c) or _assigns_another_shape(c) for c in calls)
        or _fetches_by_name(facts)
        or _initialized_from_variable(facts)
    )
    for call in calls if ref_variables else ():
        if facts.imports.call_name(call) == "Variable":
            plan.call_replacements[id(call)] = _compat_variable
    names = {facts.imports.call_name(c) for c in calls}
    note_default_draws(facts.imports, calls, plan)
    # TF1's shapes held Dimension objects: where the file switches TF2's shapes off, or reads a
    # Dimension through a name (which the switch then keeps working), its Dimension reads stay as
    # written (``x.shape[0].value is None`` made ``x.shape[0] is None`` would be False there)
    v2_shapes_off = bool(names & {"disable_v2_tensorshape", "disable_v2_behavior"})
    # (one walk of the file for the three checks below, in document order)
    walked = (
        []
        if v2_shapes_off
        else find_all(user_code, (cst.Call, cst.ListComp, cst.Attribute, cst.Assign, cst.For, cst.CompFor, cst.Comparison))
    )
    comparisons = [cst.ensure_type(n, cst.Comparison) for n in walked if isinstance(n, cst.Comparison)]
    dimension_read: cst.BaseExpression | None = (
        None if v2_shapes_off else _dimension_read_left(walked) or _dimension_compared(walked, comparisons)
    )
    plan.tf1_dimensions = v2_shapes_off or dimension_read is not None
    # a file that switches eager execution off, and not TF2's shapes, was written for TF2's runtime (TF1 had no
    # eager execution to switch off): its shapes hold ints and None already, and ``x.shape[0] is None`` means
    # what it says (tf2migrate's own output of a kept file is such a file: TF1's ``x.shape[0].value is None``
    # became ``x.shape[0] is None``, which a second run read as TF1's always-false test)
    tf2_shapes = "disable_eager_execution" in names and not v2_shapes_off
    if not plan.tf1_dimensions and not tf2_shapes:
        _keep_dimension_comparisons(comparisons, plan)
    for call in calls:
        if facts.imports.call_name(call) == "cond" and singleton_branch(call, facts.helpers) is not None:
            plan.call_replacements[id(call)] = _compat_cond
    switches = [] if facts.v1_switches else [SWITCH]
    if ref_variables and not names & {"disable_resource_variables", "disable_v2_behavior"}:
        switches.append(REF_VARIABLES)
    # reference variables go with TF1's control flow, as in TF1: under TF2's functional cond a
    # reference variable read in a branch is uninitialized (``v.initialized_value()``, the shadow
    # variables of ``ExponentialMovingAverage.apply``: FailedPreconditionError at the first run)
    if (names & _CONTROL_FLOW or ref_variables) and not names & {"disable_control_flow_v2", "disable_v2_behavior"}:
        switches.append(CONTROL_FLOW_V1)
    if dimension_read is not None:
        switches.append(TENSOR_SHAPE_V1)
    if not switches:
        return  # the file already switches TF2 behaviour off; its calls are kept (renamed)
    anchor = end_of_import_block(module, facts.imports.statements[0])
    plan.add_after(anchor, [cst.parse_statement(line, config=module.config_for_parsing) for line in switches])
    added = " and ".join(line.strip() for line in switches)
    plan.note(anchor, GRAPH_KEPT_ON_TF1.code, f"graph kept on TF1 semantics; {added} added")


def _dimension_read_left(walked: list[cst.CSTNode]) -> cst.Attribute | None:
    """A ``.value`` read the TF2 renames do not cover (``dim = x.get_shape()[1]`` …
    ``dim.value``, ``s[1].value`` of ``s = x.get_shape()``, ``for d in shape: d.value``): under
    TF2's shapes the name holds an int, which has no ``.value``.  A method call
    (``v.value()``) and an attribute of ``self`` are no Dimension reads.  ``walked``: the
    file's nodes in document order (a call or comprehension before the attribute it holds)."""
    for node in value_reads_by_name([n for n in walked if isinstance(n, (cst.Call, cst.ListComp, cst.Attribute))]):
        if not m.matches(cst.ensure_type(node, cst.Attribute).value, m.Name("self") | m.Name("cls")):
            return cst.ensure_type(node, cst.Attribute)
    return None


def _dimension_compared(walked: list[cst.CSTNode], comparisons: list[cst.Comparison]) -> cst.BaseExpression | None:
    """A ``Dimension`` compared with anything but None (``x.get_shape()[0] != 5``,
    ``x.shape[1] == 3.0``), or through a name bound to one (``d = x.get_shape()[0]`` … ``d is
    None``, ``for d in x.get_shape():``): TF1 compared Dimensions (None, false, for one it did not know; False with a float;
    no Dimension is None), TF2's ints compare as numbers (True; ``<`` raises with None).  A
    subscript compared with None is read through :func:`_keep_dimension_comparisons`; any other
    comparison needs TF1's shapes."""
    # (names bound to a value reading a dimension anywhere in the file, ``d = x.shape[1] * 2``:
    # a comparison of one in any scope counts; TF1's shapes are TF1's, whatever the value is)
    named = set()
    for node in walked:
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(target := node.targets[0].target, cst.Name):
            if any(_is_shape_subscript(cst.ensure_type(part, cst.Subscript)) for part in find_all(node.value, cst.Subscript)):
                named.add(target.value)
        elif isinstance(node, (cst.For, cst.CompFor)) and isinstance(node.target, cst.Name) and m.matches(node.iter, _SHAPE):
            # ``for d in x.get_shape():``, ``[d is None for d in x.shape]``: each item a Dimension
            named.add(node.target.value)
    for comparison in comparisons:
        with_none = len(comparison.comparisons) == 1 and m.matches(comparison.comparisons[0].comparator, m.Name("None"))
        for operand in (comparison.left, *(target.comparator for target in comparison.comparisons)):
            if (_is_shape_subscript(operand) and not with_none) or (isinstance(operand, cst.Name) and operand.value in named):
                return operand
    return None


def _keep_dimension_comparisons(comparisons: list[cst.Comparison], plan: Plan) -> None:
    """``x.shape[0] is None``: a TF1 shape held Dimension objects, never None (the test was
    False, ``== None`` None); TF2's shape holds None for an unknown size, graph mode too.  The
    kept comparison reads the TF1 Dimension: ``tf.compat.dimension_at_index(tf.TensorShape(x.shape), 0)``
    (a NumPy array's shape, a tuple, gives a known Dimension: ``is None`` False, as in TF1)."""
    for comparison in comparisons:
        if len(comparison.comparisons) != 1 or not m.matches(comparison.comparisons[0].comparator, m.Name("None")):
            continue
        operator = comparison.comparisons[0].operator
        left = comparison.left
        if not isinstance(operator, (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)) or not _is_shape_subscript(left):
            continue
        plan.replace[id(left)] = _dimension_at_index
        plan.note(left, GRAPH_KEPT_ON_TF1.code, "a dimension compared with None read as TF1 did: tf.compat.dimension_at_index")


_SHAPE = m.Attribute(attr=m.Name("shape")) | m.Call(func=m.Attribute(attr=m.Name("get_shape")), args=[])


def _is_shape_subscript(node: cst.BaseExpression) -> bool:
    """``x.shape[i]`` or ``x.get_shape()[i]`` with one plain index."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return False
    shape = node.value
    return m.matches(shape, _SHAPE)


def _dimension_at_index(updated: cst.Subscript) -> cst.Call:
    index = cst.ensure_type(updated.slice[0].slice, cst.Index).value
    return cst.Call(
        func=cst.parse_expression("tf.compat.dimension_at_index"),
        # (through tf.TensorShape: the receiver may be a NumPy array, whose shape is a tuple)
        args=[
            cst.Arg(
                cst.Call(func=cst.parse_expression("tf.TensorShape"), args=[cst.Arg(updated.value)]),
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
            ),
            cst.Arg(index),
        ],
    )


def _compat_cond(updated: cst.Call) -> cst.Call:
    # TF1's cond unpacks a branch's one-element list (strict=False); TF2's ``tf.cond`` keeps it
    return updated.with_changes(func=cst.parse_expression("tf.compat.v1.cond"))


def _compat_variable(updated: cst.Call) -> cst.Call:
    return updated.with_changes(func=cst.parse_expression("tf.compat.v1.Variable"))


def _feeds_other_than_placeholders(facts: GraphFacts) -> bool:
    """Does some ``feed_dict`` key name something that may not be a placeholder (a
    variable, a tensor, an expression)?  Then the kept program needs TF1's variables."""
    for scope in facts.scopes:
        for site in scope.run_sites:
            feeds = [site.feed] if isinstance(site.feed, cst.Dict) else []
            feeds += [f.dict_node for f in facts.feed_dicts.values() if site.feed is not None and _names(site.feed, f.name)]
            for feed in feeds:
                for element in feed.elements:
                    key = element.key if isinstance(element, cst.DictElement) else None
                    name = key.value if isinstance(key, cst.Name) else self_attribute(key) if key is not None else None
                    found = lookup_graph_name(scope, name, site.order) if name is not None else None
                    if found is None or found[1].kind is not Kind.PLACEHOLDER:
                        return True
    return False


def _feeds_unnamed_keys(module: cst.Module, facts: GraphFacts) -> bool:
    """Is a run's feed a name bound to a dict display with a key that is no name
    (``feed = {model['v']: value}``: a variable read through a dict, which the analysis does
    not record as a feed dict)?  Its keys may be variables: the kept program needs TF1's."""
    fed = {site.feed.value for scope in facts.scopes for site in scope.run_sites if isinstance(site.feed, cst.Name)}
    if not fed:
        return False
    for assign in find_all(module, cst.Assign):
        assert isinstance(assign, cst.Assign)
        if (
            isinstance(assign.value, cst.Dict)
            and any(isinstance(t.target, cst.Name) and t.target.value in fed for t in assign.targets)
            and any(isinstance(e, cst.DictElement) and graph_name(e.key) is None for e in assign.value.elements)
        ):
            return True
    return False


def _fetches_variable_beside_update(facts: GraphFacts) -> bool:
    """Does a run fetch a variable together with an op that may update it
    (``sess.run([train_op, w])``, ``sess.run([v.assign_add(1.0), v])``)?  A reference
    variable's fetch is read after the run's updates (TF1 returned the new value); a
    resource variable's read is not ordered after them (the old value comes back)."""
    for scope in facts.scopes:
        for site in scope.run_sites:
            fetched = list(fetch_leaves(site.fetch))
            if len(fetched) < 2:
                continue
            kinds = [_fetched_kind(scope, element, site.order) for element in fetched]
            if "variable" in kinds and any(kind not in ("variable", "placeholder") for kind in kinds):
                return True
    return False


def _fetched_kind(scope: Scope, element: cst.BaseExpression, order: int | None) -> str | None:
    """``"variable"`` or ``"placeholder"`` for a fetched name bound to one, ``"other"`` for another
    graph name, None for an expression (``v.assign(1.0)``, a sum): those may update
    variables."""
    name = element.value if isinstance(element, cst.Name) else self_attribute(element)
    found = lookup_graph_name(scope, name, order) if name is not None else None
    if found is None:
        return None
    statement = found[1]
    if statement.kind is Kind.VARIABLE and statement.value_kind == "variable":
        return "variable"
    return "placeholder" if statement.kind is Kind.PLACEHOLDER else "other"


# a graph element looked up by its name, or the graph's operations walked: a reference
# variable's tensor ``w:0`` is its value (``VariableV2``), a resource variable's is its handle
# (``VarHandleOp``, dtype resource: sess.run gives bytes, ``+ 1.0`` raises TypeError)
_GRAPH_LOOKUPS = frozenset({"get_tensor_by_name", "get_operation_by_name", "as_graph_element", "get_operations"})


def _reads_graph_by_name(call: cst.Call) -> bool:
    """``graph.get_tensor_by_name("bn/moving_mean:0")``, ``get_operation_by_name("w")``,
    ``as_graph_element``, ``get_operations()``, whatever the receiver."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in _GRAPH_LOOKUPS


def _assigns_another_shape(call: cst.Call) -> bool:
    """``tf.assign(v, grown, validate_shape=False)`` (or a variable made so): a reference
    variable takes the new shape; a resource variable keeps the shape it was made with (the
    assign raises ValueError "Shape mismatch")."""
    return any(
        arg.keyword is not None and arg.keyword.value == "validate_shape" and not m.matches(arg.value, m.Name("True")) for arg in call.args
    )


def _fetches_by_name(facts: GraphFacts) -> bool:
    """Does a run fetch a graph element by its name (``sess.run("weights:0")``,
    ``sess.run(v.name)``, ``sess.run(v.op.name + ":0")``)?  A variable's tensor named so is
    its value only with reference variables."""
    return any(_is_name_of_element(leaf) for scope in facts.scopes for site in scope.run_sites for leaf in fetch_leaves(site.fetch))


def _initialized_from_variable(facts: GraphFacts) -> bool:
    """Is a variable made from another one's value (``v = tf.Variable(w * 2.0)``,
    ``tf.get_variable("u", initializer=w + 1.0)``)?  TF1's reference variables read the other
    variable's initial value there (``_try_guard_against_uninitialized_dependencies``); a
    resource variable's initializer reads the variable itself, uninitialized while the
    global initializer runs (FailedPreconditionError at the first run)."""
    for scope in facts.scopes:
        for statement in scope.statements:
            if statement.kind is not Kind.VARIABLE or statement.value_kind != "variable":
                continue
            for name in statement.reads:
                found = lookup_graph_name(scope, name, statement.order)
                if found is not None and found[1].kind is Kind.VARIABLE and found[1].value_kind == "variable":
                    return True
    return False


def _is_name_of_element(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return True
    if isinstance(expr, cst.Attribute):
        return expr.attr.value == "name"
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return _is_name_of_element(expr.left) or _is_name_of_element(expr.right)
    return False


def _names(expr: cst.BaseExpression, name: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == name


def end_of_import_block(module: cst.Module, tf_import: cst.BaseStatement) -> cst.BaseStatement:
    """The last import of the block the TF import stands in: the switch must follow TF's
    import and should not split an import block."""
    body: list[cst.BaseStatement] = list(module.body)
    index = body.index(tf_import)
    while index + 1 < len(body) and is_import_statement(body[index + 1]):
        index += 1
    return body[index]


def is_import_statement(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)
