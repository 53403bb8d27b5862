"""Function emission: a generated function's source — its decorator (``@tf.function``,
with a ``tf.TensorSpec`` input signature when every placeholder's dtype and shape are
written out), its parameters (the placeholders, cast as a feed cast them), its body and
what it returns — placed after the graph code it runs.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import call_argument, calls_in
from tf2migrate.analysis.catalogue import GRADIENT_CALLS
from tf2migrate.analysis.control_flow import reached
from tf2migrate.analysis.half_precision import half_precision, names_half_precision
from tf2migrate.analysis.model import argument_name, Kind
from tf2migrate.analysis.names import local_name, read_and_bound, root_name, self_attribute
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.layout import leading_lines
from tf2migrate.traversal import preorder, walk
from tf2migrate.rewrites import gradient_tape, inline_fetches, scipy_optimizer, train_steps
from tf2migrate.rewrites.fetches import without_operations
from tf2migrate.rewrites.generated import Generated, SessionRewrite
from tf2migrate.rewrites.tf1_iterators import ITERATOR_TO_ITER

PLACEHOLDER_TO_ARGUMENT = Rule(
    "TFM101",
    "placeholder-to-argument",
    "tf.placeholder → an argument of the generated functions that read it.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Removes `x = tf.placeholder(dtype, shape)` and makes `x` a parameter of every "
    "generated function whose computation reads it, cast to the placeholder's dtype as a "
    "feed was. `tf.placeholder_with_default(value, shape)` becomes a parameter with that default.",
    why="TF2 has no placeholders: values flow into functions as arguments.",
    example="x = tf.placeholder(tf.float32, [None, 1])\ny = tf.tanh(x)\ny_val = sess.run(y, feed_dict={x: data})",
    instead="def compute_y(x):\n    x = tf.cast(x, tf.float32)\n    y = tf.tanh(x)\n    return y\n\ny_val = compute_y(x=data).numpy()",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = 2.0 * x\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [1.0]}))\n",
    ),
    valid=("import tensorflow as tf\ny = tf.constant([1.0]) * 2.0\nwith tf.Session() as sess:\n    print(sess.run(y))\n",),
)
RULES = [PLACEHOLDER_TO_ARGUMENT]

# Python-literal defaults of placeholder_with_default → their TF dtype.
_LITERAL_DTYPES = {cst.Float: "tf.float32", cst.Integer: "tf.int32"}


def emit(rewrite: SessionRewrite, generated: Generated) -> None:
    """Write the generated function into the plan, after the graph code it runs (or as a
    method after the constructor); nothing when a part of it is refused."""
    module = rewrite.module
    indent = module.default_indent
    param_names = [local_name(argument_name(p)) for p in generated.placeholders]
    localize, trainable, value_kinds = rewrite.scope_names(generated.scope)
    ctx = gradient_tape.BodyContext(
        module=module,
        imports=rewrite.facts.imports,
        facts=rewrite.facts,
        plan=rewrite.plan,
        params=param_names,
        trainable_variables=trainable,
        names_in_use=set(rewrite.names_in_use) | set(param_names),
        value_kinds=value_kinds,
        # a description's trace shows none of the graph code's comments: they stay for the
        # functions that compute it
        commented={id(s.node) for s in generated.body} if generated.describes else rewrite.plan.commented,
        localize=localize,
    )
    grads = [st for st in generated.body if st.kind is Kind.GRADS]
    if grads:
        body = train_steps.applied_gradients_body(rewrite, generated, grads[0], ctx, indent)
    else:
        body = gradient_tape.render_body(generated.body, ctx, indent)
        if body is not None and generated.joint:
            body = train_steps.joint_step_body(rewrite, generated, body, ctx, indent)
        elif body is not None and generated.train is not None:
            body = train_steps.train_step_body(rewrite, generated, body, ctx, indent)
    if body is None:
        return
    if ctx.keeps_gradients:
        # a tape could not provably see a source's computation: tf.gradients, exact
        # TF1 semantics, inside a tf.function
        generated.needs_tf_function = True
        for s in generated.body:
            for call in s.gradient_calls:
                rewrite.plan.note(
                    call, gradient_tape.GRADIENTS_IN_TF_FUNCTION.code, gradient_tape.kept_message(generated.name, ctx.kept_reason)
                )
    untraced = not rewrite.tf_function or generated.eager
    if untraced and not generated.needs_tf_function and _differentiates_control_flow(rewrite, generated):
        generated.needs_tf_function = True
        rewrite.plan.note(
            generated.fetch,
            gradient_tape.GRADIENTS_IN_TF_FUNCTION.code,
            f"{generated.name} runs as a tf.function: its gradient goes through graph control flow, whose branch "
            "not taken gives zeros only where it is traced (run eagerly, None)",
        )
    fetched_gradients = [c for c in calls_in(generated.fetch) if rewrite.facts.imports.call_name(c) in GRADIENT_CALLS]
    if fetched_gradients:
        # ``sess.run(tf.gradients(loss, W)[0])``: taken in the returned expression, after
        # the computation; valid only where the function is traced
        generated.needs_tf_function = True
        for call in fetched_gradients:
            rewrite.plan.note(
                call,
                gradient_tape.GRADIENTS_IN_TF_FUNCTION.code,
                f"tf.gradients kept: it is taken in the fetch itself; {generated.name} runs as a tf.function, where tf.gradients is valid TF2",
            )
    if generated.eager and generated.needs_tf_function and generated.python_ints:
        # each int it reads is part of the trace's key: a traced function reads it at each call
        generated.eager = False
    if generated.eager and generated.needs_tf_function:
        rewrite.block(
            generated.fetch,
            blockers.UNSUPPORTED_GRAPH_CODE,
            "the fetch reads Python values at each run (its function is not traced) and its computation takes "
            "tf.gradients, valid only in a tf.function",
        )
        return
    if (untraced and not generated.needs_tf_function) and _computes_half_precision(rewrite, generated):
        # run eagerly, an op of a half-precision tensor and a Python float (``x * 2049.0001``)
        # converts the float through float32: rounded twice, where TF1's graph (as a trace)
        # made it a constant of the tensor's dtype, rounded once
        rewrite.block(
            generated.fetch,
            blockers.UNSUPPORTED_GRAPH_CODE,
            f"{generated.name} would run eagerly ("
            + ("it reads Python values at each run" if generated.eager else "`--no-tf-function`")
            + ") and computes in float16 or bfloat16: eagerly, TF2 rounds a Python float to float32 before the "
            "half-precision dtype (2049.0001 → 2048 in float16), where TF1's graph rounded it once (2050)",
        )
        return
    if generated.scipy is not None:
        body = scipy_optimizer.scipy_body(rewrite, generated, body, indent)
    signature, casts, specs = _parameters(rewrite, generated)
    if signature is None:
        return
    if generated.describes is not None and specs is None:
        rewrite.block(
            generated.describes.node,
            blockers.GRAPH_VALUE_OUTSIDE_RUN,
            "this describes graph tensors, but a placeholder it reads has no dtype and shape written out "
            "(literals, or names only the module's top-level assignments bind, to integers or to a display of them "
            "no code changes in place, in a module with no star import nor `globals()`, `vars()` or `exec`): "
            "a trace would not see the static shape TF1 saw",
        )
        return
    lines = []
    if (rewrite.tf_function or generated.needs_tf_function) and generated.scipy is None and not generated.eager:
        if _parameter_tf_function_renames(rewrite, generated):
            return
        # SciPy's loop is Python; the helper traces the loss and gradient itself
        if specs and not generated.python_arguments:
            # the signature converts each argument as a feed did: no casts, no retracing
            lines += _decorator(specs, indent)
            casts = []
        else:
            lines.append("@tf.function")
    casts += _placeholders_for_helpers(rewrite, generated)
    casts += [
        f"{holder}.assign({name})  # the keep probability fed to this run, as TF1's DropoutWrapper read it"
        for name, holder in rewrite.plan.fed_cell_values.items()
        if name in param_names
    ]
    stored = {*generated.scope.stored_locals, *generated.scope.stored_parameters}
    casts += [f"{name} = self.{name}" for name in sorted({n for s in generated.body for n in s.reads if n in stored})]
    if generated.needs_tf_function:
        for s in generated.body:
            if s.calls_gradient_helper:
                rewrite.plan.note(
                    s.node,
                    gradient_tape.GRADIENTS_IN_TF_FUNCTION.code,
                    f"this calls a helper that takes tf.gradients; {generated.name} runs as a tf.function, where tf.gradients is valid",
                )
    is_method = generated.scope.cls is not None
    if generated.scipy is not None:
        signature = ", ".join(p for p in (signature, "loss_callback=None", "step_callback=None") if p)
    lines.append(f"def {generated.name}({', '.join(p for p in ('self' if is_method else '', signature) if p)}):")
    operations = {name for s in generated.body if s.value_kind == "operation" for name in s.defines}
    for train in (generated.train, *generated.joint):
        if train is not None:
            operations.add(train.defines[0])
    ending = []
    if generated.scipy is None and generated.describes is None:
        returned = rewrite.code(without_operations(generated.fetch, operations), generated.scope)
        ending.append(f"return {inline_fetches.with_parameters(returned, generated.python_sources)}")
    lines += [indent + line if line else line for line in [*casts, *body, *ending]]
    function = cst.parse_statement("\n".join(lines) + "\n", config=module.config_for_parsing)
    # PEP 8 spacing: two blank lines around a module-level def, one inside a function.
    blank = 2 if isinstance(generated.scope.owner, cst.Module) else 1
    comments: list[cst.EmptyLine] = []
    if generated.describes is not None:
        # the comments above the statement describe it: they stay above, on its function
        comments = [line for line in leading_lines(generated.describes.node) if line.comment is not None]
        rewrite.plan.commented.add(id(generated.describes.node))
    function = function.with_changes(
        leading_lines=[cst.EmptyLine(indent=False)] * blank + comments,
    )
    rewrite.plan.generated[id(function)] = function
    if is_method:
        # a method of the class, after the constructor that built the graph
        rewrite.plan.add_after(generated.scope.owner, [function])
    elif generated.describes is not None:
        # in place of the statement, traced at once
        # (ending a notebook cell that displayed a value, ``;`` keeps IPython from showing the
        # concrete function in its place)
        quiet = ";" if generated.displays else ""
        trace = cst.parse_statement(f"{generated.name}.get_concrete_function(){quiet}\n", config=module.config_for_parsing)
        rewrite.plan.add_after(generated.describes.node, [function, trace])
        rewrite.plan.remove.add(id(generated.describes.node))
    elif generated.anchor is not None:
        rewrite.plan.add_after(generated.anchor.node, [function])
    else:
        first = generated.scope.statements[0].node
        rewrite.plan.insert_before.setdefault(id(first), []).append(function)


def _parameter_tf_function_renames(rewrite: SessionRewrite, generated: Generated) -> bool:
    """Does a parameter of the traced function have a name ``tf.function`` renames?  It
    takes only parameter names that start with a letter: ``_inputs`` becomes
    ``arg__inputs`` (function_type.sanitize_arg_name), so each call naming ``_inputs=``
    fails to bind.  The graph stays on TF1 (TFM306), said at the placeholder (or the fetch,
    for a Python value the run reads)."""
    for statement in generated.placeholders:
        placeholder = statement.placeholder
        assert placeholder is not None
        name = local_name(placeholder.name)
        if not name[:1].isalpha():
            rewrite.block(placeholder.call, blockers.UNSUPPORTED_GRAPH_CODE, _renamed_parameter(name, generated.name))
            return True
    for name in generated.python_arguments:
        if not name[:1].isalpha():
            rewrite.block(generated.fetch, blockers.UNSUPPORTED_GRAPH_CODE, _renamed_parameter(name, generated.name))
            return True
    return False


def _renamed_parameter(name: str, function: str) -> str:
    return (
        f"`{name}` would be a parameter of the tf.function `{function}`, and tf.function renames a parameter whose "
        f"name does not start with a letter (`arg_{name}`): the calls naming `{name}=` would fail"
    )


def _differentiates_control_flow(rewrite: SessionRewrite, generated: Generated) -> bool:
    """Does the function take a gradient (or a train step) of a computation holding
    ``tf.cond``-like control flow, written in its statements or in what they call
    (analysis/control_flow.py)?"""
    found = reached(rewrite.facts, [s.node for s in generated.body], generated.scope)
    differentiates = generated.train is not None or any(s.gradient_calls for s in generated.body) or found.gradients
    return differentiates and found.control_flow


def _parameters(rewrite: SessionRewrite, generated: Generated) -> tuple[str | None, list[str], list[str] | None]:
    """The signature, the casts a feed did, and the ``tf.TensorSpec`` of each parameter
    in signature order (None when a dtype or shape is not written out literally)."""
    required, optional, casts = [], [], []
    required_specs: list[str | None] = []
    optional_specs: list[str | None] = []
    for statement in generated.placeholders:
        placeholder = statement.placeholder
        assert placeholder is not None
        name = local_name(placeholder.name)
        if placeholder.iterator is not None:
            # the element a run takes (rewrites/tf1_iterators.py): tensors of the dataset's
            # dtypes already, unpacked as the ``get_next()`` statement unpacked it
            required.append(name)
            required_specs.append(None)
            target = cst.ensure_type(cst.ensure_type(statement.node, cst.SimpleStatementLine).body[0], cst.Assign).targets[0].target
            if not (isinstance(target, cst.Name) and target.value == name):
                casts.append(f"{rewrite.module.code_for_node(target)} = {name}")
            rewrite.plan.note(
                placeholder.call, ITERATOR_TO_ITER.code, f"element of `{placeholder.iterator.name}` → argument of {generated.name}"
            )
            continue
        rewrite.plan.note(placeholder.call, PLACEHOLDER_TO_ARGUMENT.code, f"placeholder `{name}` → argument of {generated.name}")
        if placeholder.default is None:
            dtype = rewrite.code(placeholder.dtype) if placeholder.dtype is not None else None
            required.append(name)
            specs = required_specs
        else:
            dtype = default_dtype(rewrite, placeholder.default)
            if dtype is None:
                rewrite.block(
                    placeholder.call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    "the dtype of this placeholder_with_default cannot be told from its default",
                )
                return None, [], None
            if half_precision(dtype) and not _numpy_constant(rewrite, placeholder.default):
                # TF1 built the default in the graph, from NumPy's rounding of its values
                # (once); the parameter's default is built eagerly, through float32
                rewrite.block(
                    placeholder.call,
                    blockers.UNSUPPORTED_GRAPH_CODE,
                    f"the default of this placeholder_with_default is a {dtype} made of Python numbers: TF1 rounded "
                    "them to it once, and TF2 would round them to float32 first (2049.0001 → 2048, not 2050); "
                    "build the default from a NumPy array (`tf.constant(np.array([...]), dtype)`)",
                )
                return None, [], None
            reads, _ = read_and_bound(placeholder.default)
            if any(generated.scope.graph_statement(n, statement.order) for n in reads):
                rewrite.block(
                    placeholder.call, blockers.UNSUPPORTED_GRAPH_CODE, "the default of this placeholder_with_default is a graph tensor"
                )
                return None, [], None
            optional.append(f"{name}={rewrite.code(placeholder.default)}")
            specs = optional_specs
        if dtype is None:
            rewrite.block(placeholder.call, blockers.UNSUPPORTED_GRAPH_CODE, "placeholder without a dtype")
            return None, [], None
        # a description is traced on TF1's static shape: a dimension may be a module
        # constant (``shape=[data_size]``), written as the integer it always holds
        specs.append(_tensor_spec(rewrite, placeholder, dtype, module_integers=generated.describes is not None, at=statement.node))
        if dtype in ("tf.string", "tf.dtypes.string"):
            casts.append(f"{name} = tf.convert_to_tensor({name}, dtype={dtype})")
        else:
            casts.append(f"{name} = tf.cast({name}, {dtype})")
    written = [spec for spec in required_specs + optional_specs if spec is not None]
    complete = len(written) == len(required_specs) + len(optional_specs)
    # Python values the fetch reads come before the placeholders with defaults
    return ", ".join([*required, *generated.python_arguments, *optional]), casts, written if complete else None


def has_signature(rewrite: SessionRewrite, generated: Generated) -> bool:
    """Would every parameter of the generated function have a ``tf.TensorSpec`` (its
    decorator an ``input_signature``), as :func:`_parameters` writes them?  Without one, a
    Python number passed is part of the trace's key: a constant of the graph, which
    Grappler folds (``x / keep`` becomes ``x * (1 / keep)``, rounded otherwise), where
    TF1's fed placeholder was a value at run time."""
    if generated.python_arguments or generated.scipy is not None:
        return False
    for statement in generated.placeholders:
        placeholder = statement.placeholder
        if placeholder is None or placeholder.iterator is not None:
            return False
        if placeholder.default is None:
            dtype = rewrite.code(placeholder.dtype) if placeholder.dtype is not None else None
        else:
            dtype = default_dtype(rewrite, placeholder.default)
        if dtype is None:
            return False
        spec = _tensor_spec(rewrite, placeholder, dtype, module_integers=generated.describes is not None, at=statement.node)
        if spec is None:
            return False
    return True


def _tensor_spec(
    rewrite: SessionRewrite, placeholder, dtype: str, module_integers: bool = False, at: cst.CSTNode | None = None
) -> str | None:
    """``tf.TensorSpec([None, 2], tf.float32)`` when the placeholder's dtype is a TF
    dtype and its shape is absent or written with integers and None only (with
    ``module_integers``, also names the module's straight-line code binds to integer
    literals, and a shape that is such a name for a list or tuple of those, read as they
    stood before ``at``, the module statement holding the placeholder: see _module_literal)."""
    literal_dtype = placeholder.dtype is None or rewrite.facts.imports.canonical(placeholder.dtype) is not None
    shape = placeholder.shape
    if module_integers and isinstance(shape, cst.Name) and shape.value != "None":
        shape = _module_literal(rewrite, shape.value, at, sequence=True) or shape
    if shape is None or m.matches(shape, m.Name("None")):
        shape_code = "None"
    elif isinstance(shape, (cst.List, cst.Tuple)):
        dimensions = []
        for element in shape.elements:
            value = element.value
            if isinstance(value, cst.Name) and value.value != "None" and module_integers:
                value = _module_literal(rewrite, value.value, at) or value
            if not (isinstance(value, cst.Integer) or m.matches(value, m.Name("None"))):
                return None
            dimensions.append(rewrite.module.code_for_node(value))
        shape_code = "[" + ", ".join(dimensions) + "]"
    else:
        return None
    return f"tf.TensorSpec({shape_code}, {dtype})" if literal_dtype else None


def _module_literal(rewrite: SessionRewrite, name: str, at: cst.CSTNode | None, sequence: bool = False) -> cst.BaseExpression | None:
    """The integer literal (with ``sequence``, the list or tuple display) ``name`` holds
    where TF1 read the placeholder's shape: bound by ``name = 25`` at the top of the module,
    every binding of ``name`` anywhere in the module being such a statement, so the last one
    before ``at`` (the module statement holding the placeholder; without it, the only one)
    is the binding TF1's shape read.  The spec writes the number itself, so later bindings
    (a notebook's next section rebinding ``data_size``) do not matter.  A list is taken only
    when ``name`` is never read but as a whole call argument of an imported module's
    function (``np.random.normal(size=data_size)``, which does not change it in place), so
    it holds its display.  Not in a module with a star import (``from consts import *`` may
    bind it again) or one that binds names by their strings (``globals()["n"] = 6``, ``exec``)."""
    module = rewrite.module
    if any(m.matches(s, m.SimpleStatementLine([m.ImportFrom(names=m.ImportStar())])) for s in module.body) or any(
        m.matches(call.func, m.Name()) and cst.ensure_type(call.func, cst.Name).value in _DYNAMIC_BINDINGS for call in rewrite.facts.calls
    ):
        return None
    position = _module_position(module, at) if at is not None else None
    bindings = [
        (index, small.value)
        for index, statement in enumerate(module.body)
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and m.matches(small.targets[0].target, m.Name(name))
    ]
    if not bindings or len(bindings) != rewrite.module_bindings().count(name):
        return None
    if position is None:
        if len(bindings) != 1:
            return None
        value = bindings[0][1]
    else:
        before = [value for index, value in bindings if index < position]
        if not before or any(index == position for index, _ in bindings):
            return None
        value = before[-1]
    if isinstance(value, cst.Integer):
        return value
    if not sequence or not isinstance(value, (cst.List, cst.Tuple)):
        return None
    if isinstance(value, cst.List) and not _read_as_module_call_argument(rewrite, name):
        return None
    elements = []
    for element in value.elements:
        item = element.value
        if isinstance(item, cst.Name) and item.value != "None":
            item = _module_literal(rewrite, item.value, at) or item
        if not (isinstance(item, cst.Integer) or m.matches(item, m.Name("None"))) or isinstance(element, cst.StarredElement):
            return None
        elements.append(element.with_changes(value=item))
    return value.with_changes(elements=elements)


def _module_position(module: cst.Module, node: cst.CSTNode) -> int | None:
    """The index in the module's body of the statement holding ``node``."""
    for index, statement in enumerate(module.body):
        if any(inner is node for inner in preorder(statement)):
            return index
    return None


def _read_as_module_call_argument(rewrite: SessionRewrite, name: str) -> bool:
    """Is every read of ``name`` in the module a whole argument of a call of an imported
    module's function (``np.zeros(shape)``, ``tf.placeholder(tf.float32, shape)``)?  Those
    do not change a list in place; a method (``shape.append``) or a function of the file may."""
    imported = {
        alias.evaluated_alias or cst.ensure_type(alias.name, cst.Name).value
        for statement in rewrite.module.body
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.Import)
        for alias in small.names
        if isinstance(alias.name, cst.Name)
    }
    taken = {
        id(argument.value)
        for call in rewrite.facts.calls
        if root_name(call.func) in imported and isinstance(call.func, cst.Attribute)
        for argument in call.args
        if not argument.star
    }
    uses = _NameUses(name)
    walk(rewrite.module, uses)
    return all(
        (isinstance(parent, cst.Arg) and parent.value is node and not parent.star and id(node) in taken)
        # an element of a display passed whole: ``tf.placeholder(tf.float32, [data_size])``
        or (isinstance(parent, cst.Element) and id(display) in taken)
        or (isinstance(parent, cst.Arg) and parent.keyword is node)
        or (isinstance(parent, cst.AssignTarget) and parent.target is node)
        or (isinstance(parent, cst.Attribute) and parent.attr is node)
        for node, parent, display in uses.found
    )


class _NameUses(cst.CSTVisitor):
    """Every ``Name`` node spelling ``name``, with its parent and grandparent nodes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.parents: list[cst.CSTNode] = []
        self.found: list[tuple[cst.Name, cst.CSTNode | None, cst.CSTNode | None]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name) and node.value == self.name:
            above = [None, None, *self.parents]
            self.found.append((node, above[-1], above[-2]))
        self.parents.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.parents.pop()


# calls that may bind a module name by its string
_DYNAMIC_BINDINGS = frozenset({"globals", "vars", "exec"})


def _computes_half_precision(rewrite: SessionRewrite, generated: Generated) -> bool:
    """Does the generated function take a half-precision placeholder, or do its graph code
    or fetch name a half-precision dtype (``tf.cast(x, tf.float16)``) or read a name holding
    a half-precision value (analysis/half_precision.py: a module's ``float16`` variable)?"""
    dtypes = [p.placeholder.dtype for p in generated.placeholders if p.placeholder is not None and p.placeholder.dtype is not None]
    if any(half_precision(rewrite.code(d)) for d in dtypes):
        return True
    names = rewrite.half_precision_names()
    nodes = [generated.fetch, *(s.node for s in generated.body)]
    return any(names_half_precision(node) or any(isinstance(n, cst.Name) and n.value in names for n in preorder(node)) for node in nodes)


def _numpy_constant(rewrite: SessionRewrite, default: cst.BaseExpression) -> bool:
    """Is ``default`` a ``tf.constant`` of a value shown to be NumPy (analysis/numpy_values.py)?"""
    value = (
        call_argument(default, "value", 0)
        if isinstance(default, cst.Call) and rewrite.facts.imports.call_name(default) == "constant"
        else None
    )
    return value is not None and rewrite.numpy_values().is_numpy(value)


def default_dtype(rewrite: SessionRewrite, default: cst.BaseExpression) -> str | None:
    """The dtype a ``placeholder_with_default`` takes from its default value (a literal or
    a nested list of them, a ``tf.constant``, a NumPy scalar, a NumPy array made with its
    dtype written out, or by ``np.zeros``/``np.ones``: float64), or None when the code
    does not tell it."""
    for literal, dtype in _LITERAL_DTYPES.items():
        if isinstance(default, literal):
            return dtype
    if isinstance(default, cst.Name) and default.value in ("True", "False"):
        return "tf.bool"
    if isinstance(default, cst.UnaryOperation) and isinstance(default.operator, cst.Minus):
        return default_dtype(rewrite, default.expression)
    if isinstance(default, (cst.List, cst.Tuple)) and default.elements:
        # ``[1.0, -2.0]``: the dtype TF converts the nested list to (ints with floats: float32)
        kinds = {default_dtype(rewrite, e.value) for e in default.elements}
        if kinds == {"tf.int32", "tf.float32"}:
            return "tf.float32"
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(default, cst.Call) and rewrite.facts.imports.call_name(default) == "constant":
        dtype_argument = call_argument(default, "dtype", 1)
        if dtype_argument is not None:
            return rewrite.code(dtype_argument)
        value = call_argument(default, "value", 0)
        return default_dtype(rewrite, value) if value is not None else None
    if (
        isinstance(default, cst.Call)
        and isinstance(default.func, cst.Attribute)
        and m.matches(default.func.value, m.Name("np") | m.Name("numpy"))
    ):
        kind = default.func.attr.value
        if kind in _NUMPY_DTYPES:
            return f"tf.{kind.rstrip('_')}"
        if kind in _NUMPY_CONSTRUCTORS:  # ``np.full((2, 3), 0.5, np.float32)``
            written = call_argument(default, "dtype", _NUMPY_CONSTRUCTORS[kind])
            if written is None:
                return "tf.float64" if kind in ("zeros", "ones") else None
            if (
                isinstance(written, cst.Attribute)
                and m.matches(written.value, m.Name("np") | m.Name("numpy"))
                and written.attr.value in _NUMPY_DTYPES
            ):
                return f"tf.{written.attr.value.rstrip('_')}"
    return None


_NUMPY_DTYPES = ("float32", "float64", "int32", "int64", "bool_")
# NumPy constructors of arrays, and the position of their dtype argument
_NUMPY_CONSTRUCTORS = {"full": 2, "zeros": 1, "ones": 1, "array": 1, "asarray": 1}


def _decorator(specs: list[str], indent: str) -> list[str]:
    one_line = f"@tf.function(input_signature=[{', '.join(specs)}])"
    if len(one_line) <= 100:
        return [one_line]
    return ["@tf.function(input_signature=[", *[f"{indent}{spec}," for spec in specs], "])"]


def _placeholders_for_helpers(rewrite: SessionRewrite, generated: Generated) -> list[str]:
    """Graph-building methods that read a placeholder through ``self`` find the fed
    value there while the generated method runs."""
    read_by_helpers = {
        name
        for statement in generated.body
        for call in calls_in(statement.node)
        if (helper := rewrite.facts.helpers.get(self_attribute(call.func) or "")) is not None
        for name in helper.self_reads
    }
    return [
        f"{name} = {local_name(name)}  # read by the methods this calls"
        for p in generated.placeholders
        if (name := p.defines[0]) in read_by_helpers
    ]
