"""``tf.gradients`` → ``tf.GradientTape`` inside the bodies of generated functions.

A tape records only what runs inside it, so the tape for a gradient statement encloses
every statement of the function body before it (the body is straight-line graph code).
Consecutive gradient statements that do not read each other's results share one tape
(persistent when it is asked more than once); a gradient of a gradient gets an outer tape
around the inner one, so the inner ``tape.gradient`` is itself recorded.

Sources that are not trainable variables are watched right after they are computed
(arguments: at the top of the tape).  ``tf.gradients`` returns a list with one entry per
source and sums over a list of targets; ``tape.gradient`` returns a bare tensor for a
single source, so ``tf.gradients(y, x)[0]`` becomes ``tape.gradient(y, x)`` and a bare
``tf.gradients(y, x)`` becomes ``[tape.gradient(y, x)]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import call_argument
from tf2migrate.analysis.catalogue import GRADIENT_OPTIONS_DROPPED
from tf2migrate.analysis.model import GraphFacts, Statement
from tf2migrate.analysis.names import fresh_name, local_name, self_attribute
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.layout import code_lines, leading_lines
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import TfNameNormalizer, name_normalizer
from tf2migrate.traversal import find_all

GRADIENTS_TO_TAPE = Rule(
    "TFM201",
    "gradients-to-tape",
    "tf.gradients → tf.GradientTape around the forward computation.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Rewrites `tf.gradients(ys, xs, grad_ys)` in graph code that becomes a generated "
    "function into a `with tf.GradientTape() as tape:` block that encloses the forward "
    "computation, `tape.watch` for sources that are not trainable variables, and "
    "`tape.gradient(ys, xs, output_gradients=grad_ys)`.",
    why="`tf.gradients` only works while building a graph; under eager execution TF2 "
    "computes gradients with a tape, which must see the computation happen.",
    example="u = net(x)\nu_x = tf.gradients(u, x)[0]\nu_xx = tf.gradients(u_x, x)[0]",
    instead="with tf.GradientTape() as tape_2:\n    tape_2.watch(x)\n"
    "    with tf.GradientTape() as tape_1:\n        tape_1.watch(x)\n        u = net(x)\n"
    "    u_x = tape_1.gradient(u, x)\nu_xx = tape_2.gradient(u_x, x)",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = x * x\n"
        "dy = tf.gradients(y, x)[0]\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(dy, {x: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.constant([1.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = x * x\n"
        "dy = tape.gradient(y, x)\n",
    ),
)
GRADIENT_OPTION_DROPPED = Rule(
    "TFM202",
    "gradient-option-dropped",
    "A tf.gradients option with no GradientTape equivalent was dropped.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Drops `colocate_gradients_with_ops`, `gate_gradients` and `aggregation_method` (and `name`) from converted `tf.gradients` calls.",
    why="They tune graph placement and scheduling; eager gradients have the same values.",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = x * x\n"
        "dy = tf.gradients(y, x, name='dy')[0]\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(dy, {x: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = x * x\n"
        "dy = tf.gradients(y, x)[0]\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(dy, {x: [1.0]}))\n",
    ),
)
GRADIENTS_IN_TF_FUNCTION = Rule(
    "TFM203",
    "gradients-kept-in-tf-function",
    "A helper takes tf.gradients of values computed by its caller; the caller became a tf.function.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Keeps `tf.gradients` in a helper such as `fwd_gradients(Y, x)` whose forward "
    "computation happens in the caller, and decorates the generated function that calls it "
    "with `@tf.function`, where `tf.gradients` is valid TF2.  The same when a source of a "
    "gradient cannot be watched before the computation that reads it: a source bound "
    "together with other values (`u, vn = forward(x)`), by a user function, or by a subscript; "
    "and for a gradient taken in a loop or `if` block of graph code (`for i in ...: "
    "grads.append(tf.gradients(loss, W[i])[0])`), where one tape would be asked once per pass.  "
    "A helper on `tf.gradients` that nothing in the file calls keeps it too (no caller to check "
    "that a tape in it would see every path to the sources), and is reported.",
    why="A tape inside the helper could not see the computation of `Y` and would return None; "
    "a `tape.watch(vn)` after `forward` ran records nothing of what `forward` computed from "
    "`vn`.  Inside a tf.function, `tf.gradients` differentiates the traced graph exactly as TF1 did.",
    example="u, vn = forward(x)\ndu = tf.gradients(u, vn)[0]",
    instead="@tf.function\ndef compute_du(x):\n    u, vn = forward(x)\n    du = tf.gradients(u, vn)[0]\n    return du",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = x * x\n"
        "xc = tf.cast(x, tf.float32)\n"
        "dy = tf.gradients(y, xc)[0]\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(dy, {x: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = x * x\n"
        "dy = tf.gradients(y, x)[0]\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(dy, {x: [1.0]}))\n",
    ),
)
RULES = [GRADIENTS_TO_TAPE, GRADIENT_OPTION_DROPPED, GRADIENTS_IN_TF_FUNCTION]


# Why a body keeps ``tf.gradients`` (BodyContext.kept_reason)
UNSEEN_SOURCE = (
    "a tape cannot be shown to see the computation of every source (one is bound with other values, by a user function or by a subscript)"
)
IN_BLOCK = "it is taken in a loop or conditional block of graph code, where one tape would be asked once per pass"


def kept_message(function: str, reason: str) -> str:
    return f"tf.gradients kept: {reason}; {function} runs as a tf.function, where tf.gradients is valid TF2"


def uncalled_message(helper: str) -> str:
    return (
        f"tf.gradients kept in `{helper}`, which nothing in this file calls: it is valid TF2 where a tf.function "
        "traces it, as in the helpers the generated functions call; called eagerly it raises RuntimeError "
        "rather than compute a value"
    )


@dataclass
class BodyContext:
    """What the tape rewrite needs to know about the function it writes."""

    module: cst.Module
    imports: TfImports
    facts: GraphFacts
    plan: Plan
    params: list[str]
    # names of statements that create trainable variables (auto-watched by tapes)
    trainable_variables: set[str]
    names_in_use: set[str]
    value_kinds: dict[str, str] = field(default_factory=dict)
    # moved statements whose comments were already emitted (shared by all functions)
    commented: set[int] = field(default_factory=set)
    # ``self.x`` graph names written as locals ``x`` in a generated method
    localize: frozenset[str] = frozenset()
    # set by render_body when a tape could not provably see a source's computation: the
    # body keeps ``tf.gradients``, which is exact TF1 semantics inside a tf.function
    keeps_gradients: bool = False
    kept_reason: str = UNSEEN_SOURCE


@dataclass
class _Tape:
    name: str
    end: int  # the tape encloses body items [0, end)
    persistent: bool
    watch_at_start: list[str] = field(default_factory=list)


def _gradient_args(call: cst.Call):
    return (
        call_argument(call, "ys", 0),
        call_argument(call, "xs", 1),
        call_argument(call, "grad_ys", 2),
    )


def _is_index_zero(node: cst.Subscript) -> bool:
    return m.matches(node, m.Subscript(slice=[m.SubscriptElement(slice=m.Index(value=m.Integer("0")))]))


class _GradientCallRewriter(TfNameNormalizer):
    """Turns the tf.gradients calls of one statement into ``tape.gradient`` calls."""

    def __init__(self, ctx: BodyContext, tape: str) -> None:
        plan = ctx.plan
        super().__init__(
            ctx.imports, plan.renames, plan.absl_names, plan.defines_main, plan.call_replacements, plan.root_is_tf1, ctx.localize
        )
        self.ctx = ctx
        self.tape = tape
        self.single_source_index0: set[int] = set()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if isinstance(node.value, cst.Call) and self.tf.call_name(node.value) == "gradients" and _is_index_zero(node):
            _, xs, _ = _gradient_args(node.value)
            if xs is not None and not isinstance(xs, (cst.List, cst.Tuple)) and self._source_kind(xs) != "list":
                self.single_source_index0.add(id(node.value))

    def leave_Subscript(self, original_node, updated_node):
        if id(original_node.value) in self.single_source_index0:
            return updated_node.value
        return updated_node

    def _source_kind(self, xs: cst.BaseExpression) -> str:
        name = _graph_name(xs)
        return self.ctx.value_kinds.get(name, "unknown") if name is not None else "unknown"

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if self.tf.call_name(original_node) != "gradients":
            return super().leave_Call(original_node, updated_node)
        ys, xs, grad_ys = _gradient_args(updated_node)
        code = self.ctx.module.code_for_node
        target = code(ys)
        if isinstance(xs, cst.Tuple):
            xs = cst.List(elements=[e.with_changes(comma=cst.MaybeSentinel.DEFAULT) for e in xs.elements])
        arguments = [target, code(xs)]
        if grad_ys is not None:
            arguments.append(f"output_gradients={code(grad_ys)}")
        unconnected = call_argument(updated_node, "unconnected_gradients", 8)
        if unconnected is not None:
            arguments.append(f"unconnected_gradients={code(unconnected)}")
        call = f"{self.tape}.gradient({', '.join(arguments)})"
        if id(original_node) in self.single_source_index0 or isinstance(xs, cst.List):
            return cst.parse_expression(call)
        kind = self._source_kind(_gradient_args(original_node)[1])
        if kind == "list":
            return cst.parse_expression(call)
        if kind in ("tensor", "variable"):
            return cst.parse_expression(f"[{call}]")
        # A source of unknown structure: tf.gradients always answers a flat list.
        return cst.parse_expression(f"tf.nest.flatten({call})")


def _statement_code(ctx: BodyContext, original: cst.BaseStatement, rewriter: cst.CSTTransformer) -> str:
    """The statement rewritten (its TF names, its gradient calls), as code."""
    node = original.visit(rewriter)
    assert isinstance(node, cst.BaseStatement)  # the rewriters replace expressions, never a statement
    # Blank lines before a moved statement belonged to its old place; its comments go
    # with it, into the first generated function that includes it (not into every one).
    first = id(original) not in ctx.commented
    ctx.commented.add(id(original))
    lines = [line for line in leading_lines(node) if line.comment is not None and first]
    node = node.with_changes(leading_lines=lines)
    return ctx.module.code_for_node(node)


def _groups(statements: list[Statement]) -> list[list[int]]:
    """Indices of gradient statements, grouped when they can share one tape.

    A statement whose gradient target is computed in the statement itself (say
    ``tf.gradients(U[:, i], x)`` in a comprehension) is a group of its own: its tape
    must enclose the statement.
    """
    groups: list[list[int]] = []
    previous = -2
    for index, statement in enumerate(statements):
        if not statement.gradient_calls:
            continue
        joinable = (
            groups
            and previous == index - 1
            and not _computes_own_target(statement)
            and not _computes_own_target(statements[groups[-1][-1]])
        )
        if joinable:
            defined = {n for i in groups[-1] for n in statements[i].defines}
            if not defined & set(statement.reads):
                groups[-1].append(index)
                previous = index
                continue
        groups.append([index])
        previous = index
    return groups


_NESTED_SCOPES = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Lambda)


def _computes_own_target(statement: Statement) -> bool:
    """Is a gradient target computed within the statement itself (an inline expression,
    or anything inside a comprehension, which may also ask the tape many times)?"""
    if any(not _is_names(_gradient_args(call)[0]) for call in statement.gradient_calls):
        return True
    nested_calls = {id(c) for scope in find_all(statement.node, _NESTED_SCOPES) for c in find_all(scope, cst.Call)}
    return any(id(call) in nested_calls for call in statement.gradient_calls)


def render_body(statements: list[Statement], ctx: BodyContext, indent: str) -> list[str] | None:
    """Lines of the function body for the statements (normalised), or None if blocked.

    Each source is watched where that provably precedes every computation that reads it
    (see ``_watch_points``); when one cannot be, the body keeps ``tf.gradients`` and
    ``ctx.keeps_gradients`` tells the caller to run it as a ``tf.function``."""
    for statement in statements:
        for call in statement.gradient_calls:
            if not _check_call(call, ctx):
                return None
    # in a block (``for i in ...: grads.append(tf.gradients(loss, W[i])[0])``) a tape
    # would be asked once per pass: kept, in a tf.function
    in_block = any(s.compound and s.gradient_calls for s in statements)
    points = None if in_block else _watch_points(statements, ctx)
    if points is None:
        if in_block:
            ctx.kept_reason = IN_BLOCK
        ctx.keeps_gradients = True
        normalizer = name_normalizer(ctx.plan, ctx.imports, ctx.localize)
        return [line for s in statements for line in code_lines(_statement_code(ctx, s.node, normalizer))]
    groups = _groups(statements)
    normalizer = name_normalizer(ctx.plan, ctx.imports, ctx.localize)
    several = len(groups) > 1
    tapes: list[_Tape] = []
    items: list[list[str]] = []  # code lines per body item
    watch_after: dict[int, list[str]] = {}
    group_of = {i: g for g, members in enumerate(groups) for i in members}
    tape_names = [fresh_name(f"tape_{k + 1}" if several else "tape", ctx.names_in_use) for k in range(len(groups))]

    runs = {run[0]: run for members in groups for run in _shared_target_runs(statements, members, ctx)}
    absorbed = {i for run in runs.values() for i in run[1:]}
    for index, statement in enumerate(statements):
        group = group_of.get(index)
        if group is None:
            code = _statement_code(ctx, statement.node, normalizer)
        else:
            tape_name = tape_names[group]
            if index == groups[group][0]:
                calls = sum(len(statements[i].gradient_calls) for i in groups[group] if i not in absorbed)
                inside = _computes_own_target(statement)
                # A tape asked inside its own block (maybe many times) must be persistent.
                tapes.append(_Tape(tape_name, len(items) + (1 if inside else 0), persistent=calls > 1 or inside))
            tape = tapes[-1]
            for call in statement.gradient_calls:
                for where, name in points[id(call)]:
                    line = f"{tape_name}.watch({local_name(name) if name in ctx.localize else name})"
                    if where is not None:
                        if line not in watch_after.setdefault(where, []):
                            watch_after[where].append(line)
                    elif line not in tape.watch_at_start:
                        tape.watch_at_start.append(line)
                ctx.plan.note(call, GRADIENTS_TO_TAPE.code, f"tf.gradients → {tape_name}.gradient")
            if index in absorbed:
                code = ""  # (asked with the first of its run)
            elif index in runs:
                code = _statement_code(ctx, _one_request(statements, runs[index], ctx), _GradientCallRewriter(ctx, tape_name))
            else:
                code = _statement_code(ctx, statement.node, _GradientCallRewriter(ctx, tape_name))
        items.append(code_lines(code) if code else [])
    return _render(items, tapes, watch_after, indent)


def _single_gradient(statement: Statement, ctx: BodyContext) -> tuple[str, str, cst.BaseExpression] | None:
    """(target, gradient target's code, source) of ``g = tf.gradients(y, x)[0]`` with
    names only and nothing else in the call or the statement; None for any other form."""
    node = statement.node
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and isinstance(node.body[0], cst.Assign)):
        return None
    assign = node.body[0]
    value = assign.value
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    if not (isinstance(value, cst.Subscript) and isinstance(value.value, cst.Call) and _is_index_zero(value)):
        return None
    call = value.value
    if ctx.imports.call_name(call) != "gradients" or len(call.args) != 2 or any(a.keyword is not None or a.star for a in call.args):
        return None
    ys, xs = call.args[0].value, call.args[1].value
    if _graph_name(ys) is None or _graph_name(xs) is None or ctx.value_kinds.get(_graph_name(xs) or "") == "list":
        return None
    return assign.targets[0].target.value, ctx.module.code_for_node(ys), xs


def _shared_target_runs(statements: list[Statement], members: list[int], ctx: BodyContext) -> list[list[int]]:
    """Runs of consecutive statements of one tape's group that each take the gradient of
    the same target with respect to one source (``u_t = tf.gradients(u, t)[0]`` then
    ``u_x = tf.gradients(u, x)[0]``).  One request of the tape for all the sources runs
    one backward pass instead of one per source, and gives the same values: a PINN's
    training step spent a tenth of its time on the second pass.  A statement with
    comments of its own is not joined (they would have no line to stay on)."""
    runs: list[list[int]] = []
    current: list[int] = []
    target = None
    for index in members:
        single = _single_gradient(statements[index], ctx)
        node = statements[index].node
        joins = (
            single is not None
            and current
            and single[1] == target
            and index == current[-1] + 1
            and not any(line.comment is not None for line in leading_lines(node))
        )
        if joins:
            current.append(index)
            continue
        if len(current) > 1:
            runs.append(current)
        current, target = ([index], single[1]) if single is not None else ([], None)
    if len(current) > 1:
        runs.append(current)
    return runs


def _one_request(statements: list[Statement], run: list[int], ctx: BodyContext) -> cst.BaseStatement:
    """``g1, g2 = tf.gradients(y, [x1, x2])`` standing for the run's statements (its first
    one's line: comments, indentation), rewritten like any other into one tape request."""
    parts = [part for part in (_single_gradient(statements[i], ctx) for i in run) if part is not None]
    first = cst.ensure_type(statements[run[0]].node, cst.SimpleStatementLine)
    assign = cst.ensure_type(first.body[0], cst.Assign)
    call = cst.ensure_type(cst.ensure_type(assign.value, cst.Subscript).value, cst.Call)
    sources = cst.List([cst.Element(source) for _, _, source in parts])
    targets = cst.Tuple([cst.Element(cst.Name(target)) for target, _, _ in parts], lpar=[], rpar=[])
    request = call.with_changes(args=[call.args[0], call.args[1].with_changes(value=sources)])
    # its comments go into the first generated function that includes it, as any statement's
    lines = () if id(first) in ctx.commented else first.leading_lines
    ctx.commented.add(id(first))
    return first.with_changes(leading_lines=lines, body=[assign.with_changes(targets=[cst.AssignTarget(targets)], value=request)])


# TF calls that may hand back their argument itself (``tf.cast`` to the same dtype,
# ``tf.convert_to_tensor`` of a tensor): watching their result could come after the
# argument was already used.
_MAY_RETURN_ARGUMENT = frozenset(
    {"convert_to_tensor", "cast", "to_float", "to_double", "to_int32", "to_int64", "to_bfloat16", "saturate_cast"}
)

_WatchPoint = tuple[int | None, str]  # (body item after which to watch, or None: at the tape's start; name)


def _watch_points(statements: list[Statement], ctx: BodyContext) -> dict[int, list[_WatchPoint]] | None:
    """Where to watch each gradient call's sources, or None if some source cannot be
    watched before everything that reads it runs.

    A tape records only what runs after a tensor is watched.  A source is watched
    - not at all: a trainable variable (tapes watch those when they are read);
    - at the tape's start: a parameter (a placeholder) or a value made outside the body;
    - right after the statement that computes it, when that statement binds it alone
      from TF operations: a fresh tensor nothing has read yet;
    - through its definition, when it is only another name for other sources
      (``inputs = [x, z]``: watch ``x`` and ``z``, not the list made after the forward pass).
    A source bound with others (``u, vn = forward(x)``: the helper used ``vn`` before
    returning it), by a user function, or by a subscript is none of these."""
    defined_at: dict[str, list[int]] = {}
    for index, statement in enumerate(statements):
        for name in statement.defines:
            defined_at.setdefault(name, []).append(index)
    points: dict[int, list[_WatchPoint]] = {}
    for index, statement in enumerate(statements):
        for call in statement.gradient_calls:
            found: list[_WatchPoint] = []
            for source in _sources(_gradient_args(call)[1], ctx.value_kinds):
                source_name = _graph_name(source)
                if source_name is None:
                    ctx.facts.block(source, blockers.UNSUPPORTED_GRADIENTS, "a gradient source must be a named tensor")
                    return None
                resolved = _resolve_source(source_name, index, statements, defined_at, ctx, depth=0)
                if resolved is None:
                    return None
                found.extend(resolved)
            points[id(call)] = found
    return points


def _resolve_source(
    name: str, before: int, statements: list[Statement], defined_at: dict[str, list[int]], ctx: BodyContext, depth: int
) -> list[_WatchPoint] | None:
    earlier = [i for i in defined_at.get(name, []) if i < before]
    if not earlier:
        return [] if name in ctx.trainable_variables else [(None, name)]
    index = earlier[-1]
    value = _sole_value(statements[index], name)
    if value is None or depth > 20:
        return None
    if isinstance(value, (cst.List, cst.Tuple)):
        elements: list[cst.BaseExpression] = [e.value for e in value.elements if not isinstance(e, cst.StarredElement)]
        if len(elements) != len(value.elements):
            return None
    elif _graph_name(value) is not None:
        elements = [value]
    else:
        return [(index, name)] if _fresh_tensor(value, ctx) else None
    out: list[_WatchPoint] = []
    for element in elements:
        alias = _graph_name(element)
        resolved = _resolve_source(alias, index, statements, defined_at, ctx, depth + 1) if alias is not None else None
        if resolved is None:
            return None
        out.extend(resolved)
    return out


def _sole_value(statement: Statement, name: str) -> cst.BaseExpression | None:
    """The expression a simple ``name = value`` statement binds, if it binds nothing else."""
    node = statement.node
    if statement.defines != (name,) or not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1:
        return None
    small = node.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and _graph_name(small.targets[0].target) == name:
        return small.value
    if isinstance(small, cst.AnnAssign) and small.value is not None and _graph_name(small.target) == name:
        return small.value
    return None


def _fresh_tensor(value: cst.BaseExpression, ctx: BodyContext) -> bool:
    """Is the value a tensor that the expression itself creates: TF operations on
    operands (never a user function, which may hand back a tensor it already used)?"""
    if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)):
        return True
    if isinstance(value, cst.Call):
        canonical = ctx.imports.call_name(value)
        return canonical is not None and canonical.rsplit(".", 1)[-1] not in _MAY_RETURN_ARGUMENT
    return False


def _render(items, tapes: list[_Tape], watch_after, indent: str) -> list[str]:
    def lines_of(lo: int, hi: int) -> list[str]:
        out: list[str] = []
        for i in range(lo, hi):
            out.extend(items[i])
            out.extend(watch_after.get(i, []))
        return out

    def render(k: int, upto: int) -> list[str]:
        if k == 0:
            return lines_of(0, upto)
        tape = tapes[k - 1]
        inner = tape.watch_at_start + render(k - 1, tape.end)
        header = f"with tf.GradientTape({'persistent=True' if tape.persistent else ''}) as {tape.name}:"
        block = [header] + [indent + line if line else line for line in (inner or ["pass"])]
        return block + lines_of(tape.end, upto)

    return render(len(tapes), len(items))


def _graph_name(expr: cst.BaseExpression | None) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    return self_attribute(expr) if expr is not None else None


def _is_names(expr: cst.BaseExpression | None) -> bool:
    if isinstance(expr, (cst.List, cst.Tuple)):
        return all(_graph_name(e.value) is not None for e in expr.elements)
    return _graph_name(expr) is not None


def _sources(xs: cst.BaseExpression | None, value_kinds: dict[str, str] | None = None) -> list[cst.BaseExpression]:
    if isinstance(xs, (cst.List, cst.Tuple)):
        return [e.value for e in xs.elements]
    if isinstance(xs, cst.BinaryOperation) and isinstance(xs.operator, cst.Add) and value_kinds is not None:
        operands = [xs.left, xs.right]
        if all(isinstance(o, (cst.List, cst.Tuple)) or value_kinds.get(_graph_name(o) or "") == "list" for o in operands):
            # ``weights + biases``: lists joined, not tensors added
            return [*_sources(xs.left, value_kinds), *_sources(xs.right, value_kinds)]
    return [xs] if xs is not None else []


def _check_call(call: cst.Call, ctx: BodyContext) -> bool:
    ys, xs, _ = _gradient_args(call)
    if ys is None or xs is None or any(a.star for a in call.args):
        ctx.facts.block(call, blockers.UNSUPPORTED_GRADIENTS, "tf.gradients call without explicit ys and xs")
        return False
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > 3:
        ctx.facts.block(call, blockers.UNSUPPORTED_GRADIENTS, "tf.gradients options given by position")
        return False
    stop = call_argument(call, "stop_gradients", 7)
    if stop is not None:
        ctx.facts.block(
            call,
            blockers.UNSUPPORTED_GRADIENTS,
            "`stop_gradients=` has no GradientTape equivalent; wrap the tensors in tf.stop_gradient where they are computed",
        )
        return False
    dropped = [a.keyword.value for a in call.args if a.keyword is not None and a.keyword.value in (*GRADIENT_OPTIONS_DROPPED, "name")]
    if dropped:
        ctx.plan.note(call, GRADIENT_OPTION_DROPPED.code, "dropped " + ", ".join(f"`{d}=`" for d in dropped))
    return True
