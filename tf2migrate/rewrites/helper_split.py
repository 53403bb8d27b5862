"""A helper that makes its variables and builds ops from its tensor arguments → a function
that makes the variables, called once where TF1 called the helper, and the helper applying
them.

Tutorials build each layer with a function of the file (Hvass-Labs' ``new_conv_layer``,
``new_fc_layer``)::

    def new_fc_layer(input, num_inputs, num_outputs, use_relu=True):
        weights = new_weights(shape=[num_inputs, num_outputs])
        biases = new_biases(length=num_outputs)
        layer = tf.matmul(input, weights) + biases
        if use_relu:
            layer = tf.nn.relu(layer)
        return layer, weights

    layer_fc1, weights_fc1 = new_fc_layer(input=layer_flat, num_inputs=num_features, num_outputs=128)

The call both creates variables and computes with placeholder-dependent tensors (TFM304):
moved into a generated function it would make the variables again at each call.  TF1 ran it
once, and the variables never needed the ops, so the module is first rewritten, TF1 to TF1::

    def new_fc_layer(input, num_inputs, num_outputs, use_relu=True, *, variables):
        biases, = variables
        ...
        return layer

    def make_new_fc_layer_variables(num_inputs, num_outputs):
        weights = new_weights(shape=[num_inputs, num_outputs])
        biases = new_biases(length=num_outputs)
        return weights, biases

    weights_fc1, new_fc_layer_biases = make_new_fc_layer_variables(num_inputs=num_features, num_outputs=128)
    layer_fc1 = new_fc_layer(input=layer_flat, num_inputs=num_features, num_outputs=128, variables=(weights_fc1, new_fc_layer_biases))

``make_<helper>_variables`` takes the parameters its statements read (with their defaults)
and runs where the call stood, so the variables are made once, in TF1's order (verify pairs
initial values by creation order and shape); the helper only builds ops, so its call is graph
code that moves into the generated functions.  A variable the helper returned with its output
(``return layer, weights``, to plot the weights) is bound by the caller's own name from the
make call, so it is a variable at module level as in TF1 (``sess.run(weights_fc1)`` needs no
feed), when every call unpacks the result; the helper then returns the rest.

Why a separate function rather than variables hoisted into the caller: the helper is called
several times with other sizes, and the variables' statements read its parameters; a function
of those parameters keeps them as written, once.

The body's top-level simple statements are split as in rewrites/loop_split.py: the
variables' side holds each assignment that creates variables (a TF variable call, or a call of
a module function that makes one) and each assignment that calls no TF op and reads nothing
the ops' side binds; the ops' side the rest.  Split only when all of this holds (else nothing
changes, and TFM304 stays, with the reason appended):

- the helper is a ``def`` at the top of the module, the only binding of its name, with no
  ``*args``/``**kwargs``, no nested ``def``, ``lambda``, ``global``, ``nonlocal``, ``yield``;
- no statement of the ops' side (any block) creates variables, and the variables' side reads
  no name the ops' side binds or changes, and no parameter the ops' side rebinds (the variables
  would then depend on placeholder-dependent tensors: TF1 made them from the tensors' values),
  but for static shapes: ``int(X.get_shape()[1])``, ``h0.get_shape()[1]`` of a tensor the
  helper is given or computes.  analysis/static_shapes.py derives the shape TF1 inferred at
  each call from the file; the make function takes it as a keyword parameter (``X_shape``) and
  reads ``tf.TensorShape(X_shape)`` instead, each call passing ``X_shape=[None, 784]`` (the
  dimensions read as numbers, the others None), and a make-call argument holding a number read
  off a shape (``num_inputs=num_features``) is written as that number.  A shape as argument,
  not the number substituted: one make function serves calls of several shapes, and whatever
  the helper computes from the shape (``[1:4].num_elements()``, ``.as_list()[-1]``) a
  ``TensorShape`` of the same dimensions computes alike, in TF1 and TF2.  A dimension read that
  is not proven at some call (``None``, an op without a rule) keeps TFM304, naming it;
- each name of the variables' side is bound once in the body;
- every other mention of the name is a call that is the whole value of a statement of its own
  (``y = f(...)``, ``a, b = f(...)``, ``f(...)``), with no ``*``/``**`` arguments, passing
  the parameters the variables read as names, attributes, literals, subscripts and arithmetic
  of them (evaluated twice, they give the same values), or leaving them to their defaults.

A body ending in ``with tf.variable_scope(name):`` (DCGAN's ops.py: ``linear(input_, output_size,
scope=None)`` under ``tf.variable_scope(scope or "Linear")``) is split as if the block's statements
stood in the body; the make function makes the variables of the block in the same scope, so TF1
names them as before (``d_h2_lin/Matrix``: a trainable-variable filter on names still selects
them), and takes the parameter naming it; the ops leave the scope, which named nothing else.
Only a scope named by a string, a parameter, or ``parameter or "default"``, with no ``reuse=``,
initializer or dtype, whose block makes its variables by its own assignments or by make calls.
A network helper whose scope calls layer helpers (DCGAN's ``discriminator`` over ``linear``) is
split in two rounds: the layer helpers first, at every call, those inside the network helper
included (their make call reads the static shape of the tensor passed, ``input__shape=
x.get_shape()``, where TF1 read it: only a name is read again), then, on the split file, the
network helper, whose make calls go to its make function, in its scope; a shape passed on to a
make function that reads it as ``tf.TensorShape(P)`` reads the dimensions that function reads.
A scope that reads ``reuse=`` off a parameter (``discriminator(x, reuse=False)`` under
``tf.variable_scope("discriminator", reuse=reuse)``) is opened by its name alone in the make
function, which the calls that do not reuse run; a call passing ``reuse=True`` applies the
variables of the one earlier call given the same make arguments (as rewrites/scope_reuse.py's
reusing calls do), when every call stands at the top level of the module and passes True, False
or None.  The make calls of its layer helpers inside it, TF1 to TF1, get what its calls got.

A statement making variables by two calls, one's result passed to the other (hwalsuklee's
``net = lrelu(bn(conv2d(net, 64), is_training=is_training, scope="d_bn2"))``), is first cut in
two, the call TF1 ran first bound to a name of its own (``conv2d_output = conv2d(net, 64)``):
each statement then makes variables by one call, in TF1's order (``_HoistInnerMakers``), and the
outer helper's make call reads the static shape of a name.

migrate.py keeps the split module only if its graph then converts: a call passing a graph
tensor to a parameter the variables read (TF1 initialized them from it) keeps TFM304.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import re
from collections.abc import Callable, Set
from dataclasses import dataclass, field

import libcst as cst
from libcst.helpers import get_full_name_for_node

from tf2migrate.analysis import rnn, static_shapes
from tf2migrate.analysis.blockers import VARIABLE_IN_COMPUTATION
from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.catalogue import VARIABLE_CALLS, is_graph_op, is_unsupported_call, makes_variables
from tf2migrate.analysis.names import assigned_names, changed_in_place, fresh_name, read_and_bound, target_names
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import Diagnostic, FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.rewrites import scope_reuse
from tf2migrate.traversal import find_all

HELPER_SPLIT = Rule(
    "TFM136",
    "helper-split-variables-made-once",
    "A helper that both makes variables and builds ops → a function making its variables once, where TF1 called it, "
    "and the helper building the ops in the generated function.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Splits a function of the file that creates variables from its size parameters and builds ops on its tensor "
    "arguments (`def layer(x, n_in, n_out): W = tf.Variable(...); return tf.matmul(x, W)`) into "
    "`make_layer_variables(n_in, n_out)`, called where each call stood, and the helper taking the variables as "
    "`variables=`, whose calls then convert like any graph code.",
    why="TF1 ran the helper once per call while building the graph: its variables were made once, in this order, and "
    "its ops computed at every run. Moved whole into a generated function, the variables would be made again at each "
    "call (TFM304). The variables must not read the ops; the conditions are in `tf2migrate/rewrites/helper_split.py`.",
    example="def layer(x, n_in, n_out):\n    W = tf.Variable(tf.ones([n_in, n_out]))\n    return tf.matmul(x, W)\n\nh = layer(x, 2, 3)",
    instead="def layer(x, n_in, n_out, *, variables):\n    W = variables\n    return tf.matmul(x, W)\n\n"
    "def make_layer_variables(n_in, n_out):\n    W = tf.Variable(tf.ones([n_in, n_out]))\n    return W\n\n"
    "layer_W = make_layer_variables(n_in=2, n_out=3)\n# in the generated function:\nh = layer(x, 2, 3, variables=layer_W)",
    invalid=(
        "import tensorflow as tf\n"
        "def layer(x, n_in, n_out):\n"
        "    W = tf.Variable(tf.ones([n_in, n_out]))\n"
        "    return tf.matmul(x, W)\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "h = layer(x, 2, 3)\n"
        "out = layer(h, 3, 1)   # called twice: not written out at a call (TFM150)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(out, {x: [[1.0, 2.0]]}))\n",
    ),
    valid=(
        "import numpy as np\n"
        "import tensorflow as tf\n"
        "data = np.ones((4, 2), np.float32)\n"
        "def layer(x, n_out):\n"
        "    W = tf.Variable(tf.ones([int(x.get_shape()[1]), n_out]))   # sized by the input tensor\n"
        "    return tf.matmul(x, W)\n"
        "x = tf.placeholder(tf.float32, [None, data.shape[1]])   # a width the text does not fix\n"
        "h = layer(x, 3)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(h, {x: [[1.0, 2.0]]}))\n",
    ),
)
RULES = [HELPER_SPLIT]

# why a network helper is left whole until the layer helpers it calls in its scope are split
NESTED_HELPERS = (
    "`{name}` makes variables in its `tf.variable_scope` block by calling another helper of the file that is not split "
    "(only `tf.get_variable`/`tf.Variable` assignments and make calls in the block are split out)"
)

# the helper a TFM304 finding names: ``… `new_fc_layer(...)` creates variables``
HELPER_CALL = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)\(\.\.\.\)` creates variables")

# What an argument the variables read may be: evaluated again for the make call, it gives
# the same value (no call, no comprehension, no assignment expression).
_PURE_NODES = (
    cst.Name,
    cst.Attribute,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.List,
    cst.Tuple,
    cst.Element,
    cst.Subscript,
    cst.SubscriptElement,
    cst.Index,
    cst.Slice,
    cst.UnaryOperation,
    cst.BinaryOperation,
)
_CONDITIONAL = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.IfExp, cst.BooleanOperation)
_FORBIDDEN = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Global, cst.Nonlocal, cst.Yield, cst.Await)


@dataclass
class Split:
    """The module's text with the helpers split, the original line each of its lines comes
    from, and the notes to report (on the original's lines)."""

    source: str
    lines: list[int]
    notes: list[tuple[int, int, str]] = field(default_factory=list)
    # calls applying an earlier call's variables under variable-scope reuse (rewrites/scope_reuse.py)
    reuse_notes: list[tuple[int, int, str]] = field(default_factory=list)
    unsplit: dict[str, str] = field(default_factory=dict)  # the helpers asked for (or applied under reuse) left whole, and why
    # helpers left whole until the layer helpers they call in their variable scope are split:
    # tried again on the split file
    later: set[str] = field(default_factory=set)

    def map_line(self, line: int) -> int:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else line


@dataclass
class _Helper:
    node: cst.FunctionDef
    variables: list[cst.SimpleStatementLine]  # the statements that move to the make function
    carried: list[str]  # the names they bind that the ops read, in binding order
    made_from: list[cst.Param]  # the parameters they read, in the helper's order
    argument: str = "variables"  # the keyword-only parameter taking them
    block: cst.IndentedBlock | None = None  # the block holding them: the body, or a name scope's around it
    returned: int | None = None  # index of a returned element that is a carried variable (dropped)
    returned_name: str | None = None
    moved: set[int] = field(default_factory=set)  # ids of the body's statements the make function takes
    shape_reads: list[_ShapeRead] = field(default_factory=list)  # static shapes the variables read
    # ``with tf.variable_scope(scope or "Linear"):`` ending the body: the make function makes the
    # variables of its block in it (TF1's names), the helper's ops leave it (dedented)
    variable_scope: cst.With | None = None
    scoped: set[int] = field(default_factory=set)  # ids of the (original) statements of its block
    reuse_parameter: str | None = None  # ``tf.variable_scope(name, reuse=reuse)``: the parameter (dropped in the make function)


@dataclass
class _ShapeRead:
    """``x.get_shape()`` / ``x.shape`` in a statement of the variables: the make function
    takes the shape as ``parameter`` (a list, written at each call) and reads
    ``tf.TensorShape(parameter)`` there; ``dims`` are the dimensions read (None: all)."""

    node: cst.CSTNode
    tensor: str
    parameter: str
    dims: tuple[int | slice, ...] | None


def split_helpers(module: cst.Module, imports: TfImports, names: set[str]) -> Split | dict[str, str]:
    """The module with each helper in ``names`` split where that keeps its meaning; else,
    by helper, why it is not (appended to its TFM304 findings)."""
    makers = _variable_makers(module, imports)
    plain = _plain_makers(module, imports)
    # a helper applied again under reuse is split with them (its calls may come after another refusal)
    names = names | (scope_reuse.called_under_reuse(module, imports.call_name) & makers)
    # the layer helpers a network helper calls in its variable scope (DCGAN's ``discriminator``
    # over ``linear``) are split first, at those calls too; the network helper is split once
    # its block makes its variables by their make calls (migrate.py tries it again then)
    names = names | _layer_helpers_in_scopes(module, imports, names, plain)
    in_use = {n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name)}
    # ``lrelu(bn(conv2d(x)))``: each call making variables gets a statement of its own first
    original = module
    module = module.visit(_HoistInnerMakers(lambda c: _makes_variables(c, imports, makers), names, in_use))
    hoisted = _origins(original.code, module.code) if module.code != original.code else None
    reasons: dict[str, str] = {}
    helpers: dict[str, _Helper] = {}
    sites: dict[str, list[tuple[cst.SimpleStatementLine, cst.Call]]] = {}
    calling = {
        id(line)
        for line in find_all(module, cst.SimpleStatementLine)
        if any(isinstance(c, cst.Call) and isinstance(c.func, cst.Name) and c.func.value in names for c in find_all(line, cst.Call))
    }
    shapes = static_shapes.evaluate_module(module, imports, calling, set(names))
    for method in _methods_calling(module, calling):
        # (a method moved to the module by rewrites/method_lift.py, called in ``build_model``)
        in_method = static_shapes.evaluate_method(module, method, imports, calling, set(names))
        shapes.frames.update(in_method.frames)
        shapes.before.update(in_method.before)
    positions = Positions(module)
    shaped: dict[int, list[str]] = {}
    for name in sorted(names):
        found = _helper(module, imports, makers, plain, name)
        if isinstance(found, str):
            reasons[name] = found
            continue
        calls = _call_sites(module, imports, makers, found, name)
        if isinstance(calls, str):
            reasons[name] = calls
            continue
        given = _shape_arguments(module, found, name, calls, shapes, positions)
        if isinstance(given, str):
            reasons[name] = given
            continue
        shaped.update(given)
        _drop_returned_variable(found, calls)
        helpers[name], sites[name] = found, calls
    later = {n for n, reason in reasons.items() if reason == NESTED_HELPERS.format(name=n)}
    for outer in later:
        # the layer helpers it calls that are not split either: why
        called = {c.func.value for c in find_all(module, cst.Call) if isinstance(c, cst.Call) and isinstance(c.func, cst.Name)}
        inner = sorted(n for n in reasons if n != outer and n in called and n in _layer_helpers_in_scopes(module, imports, {outer}, plain))
        if inner:
            reasons[outer] += f"; `{inner[0]}` is not split: {reasons[inner[0]]}"
            continue
        # a helper of the file making a layer or cell object (hwalsuklee's ``bn``, a
        # ``tf.contrib.layers.batch_norm``): never split, its own call makes the variables
        body = next(f for f in module.body if isinstance(f, cst.FunctionDef) and f.name.value == outer)
        objects = sorted(
            {c.func.value for c in find_all(body, cst.Call) if isinstance(c, cst.Call) and isinstance(c.func, cst.Name)} & (makers - plain)
        )
        if objects:
            reasons[outer] += (
                f"; `{objects[0]}` makes its variables by a TF layer or cell call, which makes them at its first call: "
                "not split into variables and ops"
            )
    if not helpers:
        return reasons
    given = {
        id(call): _given(module, helper, statement, call, shapes, shaped)
        for name, helper in helpers.items()
        for statement, call in sites[name]
    }
    by_parameter: dict[int, int] = {}
    for name, helper in list(helpers.items()):
        if helper.reuse_parameter is None:
            continue
        found_reuse = _reusing_calls(module, name, helper, sites[name], given)
        if isinstance(found_reuse, str):
            reasons[name] = found_reuse
            del helpers[name], sites[name]
            continue
        by_parameter.update(found_reuse)
    if not helpers:
        return reasons
    # calls in a helper whose scope reuses by its parameter: its calls decide the reuse (above,
    # once it is split in turn); its make calls, TF1 to TF1, get what the calls got
    in_reusing_helpers = {
        id(line)
        for f in module.body
        if isinstance(f, cst.FunctionDef) and isinstance(f.body, cst.IndentedBlock)
        for scope in [_variable_scope([s for s in f.body.body if not _is_docstring(s)], imports, _parameter_names(f))]
        if scope is not None and _reuse_parameter(cst.ensure_type(scope.items[0].item, cst.Call), _parameter_names(f)) is not None
        for line in find_all(scope.body, cst.SimpleStatementLine)
    }
    reuse = scope_reuse.find_reuse(
        module,
        imports.call_name,
        {name: [(s, c) for s, c in pairs if id(s) not in in_reusing_helpers] for name, pairs in sites.items()},
        given,
        {name: _not_plain_get_variables(helper, imports) for name, helper in helpers.items()},
        lambda c: _makes_variables(c, imports, makers),
        _constants(module),
    )
    if isinstance(reuse, dict):
        # the reuse stays, and keeps the graph on TF1 whatever else is split: say why of each
        first = next(iter(reuse.values()))
        return reasons | {name: reuse.get(name, first) for name in helpers}
    for call_id, making in by_parameter.items():
        reuse.reused[call_id] = making
        name = next(n for n, pairs in sites.items() if any(id(c) == call_id for _, c in pairs))
        reuse.shared_by[call_id] = _scope_text(cst.ensure_type(helpers[name].variable_scope, cst.With))
    factories = {name: fresh_name(f"make_{name}_variables", in_use) for name in helpers}
    statement_edits: dict[int, tuple[cst.BaseStatement | None, cst.BaseStatement]] = {}
    targets: dict[int, list[str]] = {}
    reuse_notes = []
    for name, helper in helpers.items():
        for statement, call in sites[name]:
            earlier = reuse.reused.get(id(call))
            if earlier is None:
                targets[id(call)] = _targets(helper, name, statement, in_use)
            statement_edits[id(statement)] = _site(
                module,
                helper,
                factories[name],
                statement,
                call,
                targets[earlier if earlier is not None else id(call)],
                given[id(call)],
                earlier is not None,
            )
            if earlier is not None:
                line, column = positions.get(call) or (1, 0)
                line = hoisted[line - 1] if hoisted is not None else line
                reuse_notes.append(
                    (
                        line,
                        column + 1,
                        f"`{name}(...)` under the reuse of variable scope `{reuse.shared_by[id(call)]}`: applies the variables an "
                        f"earlier call made (`{', '.join(targets[earlier])}`), as TF1 found them by name; the reuse is dropped",
                    )
                )
    split = _Splitter(helpers, factories, statement_edits, reuse)
    new = module.visit(split)
    assert isinstance(new, cst.Module)
    text = new.code
    notes = []
    for name, helper in helpers.items():
        line = (positions.get(helper.node) or (1, 0))[0]
        line = hoisted[line - 1] if hoisted is not None else line
        kept = f", and returns its variable `{helper.returned_name}` no more (the callers bind it)" if helper.returned_name else ""
        if helper.block is not None and helper.block is not helper.node.body:
            kept += "; the variables are made outside its `tf.name_scope`, which still names its ops (their own names lose its prefix)"
        if helper.shape_reads:
            read = ", ".join(dict.fromkeys(f"`{r.tensor}`" for r in helper.shape_reads))
            kept += (
                f"; the static shapes of {read} its variables read are given to `{factories[name]}` as the numbers TF1's "
                "shape inference gave at each call, derived from the file (placeholders' declared shapes and the ops' shape rules)"
            )
        notes.append(
            (
                line,
                1,
                f"`{name}` both creates variables and builds ops: split into `{factories[name]}`, which makes the variables "
                f"once where each call stood, in TF1's order, and `{name}`, which builds the ops from them (`variables=`){kept}",
            )
        )
    return Split(text, _origins(original.code, text), notes, reuse_notes, unsplit=reasons, later=later)


class _HoistInnerMakers(cst.CSTTransformer):
    """A statement calling a helper to split and another call making variables, one's result
    passed to the other (hwalsuklee's ``net = lrelu(bn(conv2d(net, 64), is_training, scope=...))``):
    the call TF1 ran first is bound to a name of its own by a statement before (``conv2d_output =
    conv2d(net, 64)``), and the statement reads that name, until each statement makes variables by
    one call.  The split then puts each make call before its statement, in TF1's order (the inner
    call's variables first), and the outer helper's make call reads the static shape of a name.
    Only along a chain of calls (each maker an argument of the next): what ran before the inner call
    (the outer calls' functions, the arguments left of it) must be names, attributes and literals,
    so running the inner call first changes nothing else."""

    def __init__(self, makes_variables: Callable[[cst.CSTNode], bool], names: Set[str], in_use: set[str]) -> None:
        self.makes_variables = makes_variables
        self.names = names
        self.in_use = in_use

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return updated.with_changes(body=self._body(updated.body))

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return updated.with_changes(body=self._body(updated.body))

    def _body(self, body) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for statement in body:
            hoisted: list[cst.BaseStatement] = []
            while (first := self._first_of_two(statement)) is not None:
                name = first.func.attr.value if isinstance(first.func, cst.Attribute) else cst.ensure_type(first.func, cst.Name).value
                temporary = fresh_name(f"{name}_output", self.in_use)
                bound = cst.SimpleStatementLine(
                    [cst.Assign([cst.AssignTarget(cst.Name(temporary))], first)], leading_lines=statement.leading_lines
                )
                hoisted.append(bound)
                statement = statement.deep_replace(first, cst.Name(temporary)).with_changes(leading_lines=())
            out += [*hoisted, statement]
        return out

    def _first_of_two(self, statement: cst.BaseStatement) -> cst.Call | None:
        """The call making variables that runs first in a statement making variables by two
        calls, a helper to split one of them, if it can run first in a statement of its own."""
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
            return None
        small = statement.body[0]
        if not isinstance(small, (cst.Assign, cst.Expr, cst.Return)) or not isinstance(small.value, cst.Call):
            return None
        if isinstance(small, cst.Assign) and not all(_pure(t.target) for t in small.targets):
            return None
        makers = [c for c in find_all(small.value, cst.Call) if isinstance(c, cst.Call) and self.makes_variables(c)]
        if len(makers) < 2 or not any(isinstance(c.func, cst.Name) and c.func.value in self.names for c in makers):
            return None
        call: cst.Call = small.value
        while True:
            if not _pure(call.func):
                return None
            inner = None
            for arg in call.args:
                if any(self.makes_variables(c) for c in find_all(arg.value, cst.Call)):
                    inner = arg.value
                    break
                if not _pure(arg.value):
                    return None  # runs before the inner call
            if inner is None:
                return call if call is not small.value else None
            if not isinstance(inner, cst.Call) or any(a.star for a in call.args):
                return None  # not a chain of calls: the order of what runs is not read here
            call = inner


def _methods_calling(module: cst.Module, calling: set[int]) -> list[cst.FunctionDef]:
    """The methods of the module's classes holding a statement of ``calling`` (ids)."""
    return [
        method
        for cls in module.body
        if isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
        for method in cls.body.body
        if isinstance(method, cst.FunctionDef) and any(id(line) in calling for line in find_all(method.body, cst.SimpleStatementLine))
    ]


def _is_make_call(statement: cst.BaseStatement, call: cst.CSTNode) -> bool:
    """``a, b = make_linear_variables(...)``: the call of a module function is the whole value of
    an assignment of the statement to names (as this split writes the make calls)."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return False
    small = statement.body[0]
    if not (isinstance(small, cst.Assign) and small.value is call and len(small.targets) == 1):
        return False
    target = small.targets[0].target
    elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else [cst.Element(target)]
    return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and all(isinstance(e.value, cst.Name) for e in elements)


def _layer_helpers_in_scopes(module: cst.Module, imports: TfImports, names: set[str], plain: set[str]) -> set[str]:
    """The module's functions making plain variables that the helpers ``names`` call in the
    ``tf.variable_scope`` block ending their body."""
    parameters_of = {
        f.name.value: {p.name.value for p in [*f.params.params, *f.params.kwonly_params]}
        for f in module.body
        if isinstance(f, cst.FunctionDef)
    }
    out: set[str] = set()
    for function in module.body:
        if not (isinstance(function, cst.FunctionDef) and function.name.value in names and isinstance(function.body, cst.IndentedBlock)):
            continue
        statements = [s for s in function.body.body if not _is_docstring(s)]
        scope = _variable_scope(statements, imports, parameters_of[function.name.value])
        if scope is None:
            continue
        for statement in cst.ensure_type(scope.body, cst.IndentedBlock).body:
            for call in find_all(statement, cst.Call):
                if (
                    isinstance(call, cst.Call)
                    and isinstance(call.func, cst.Name)
                    and call.func.value in plain
                    and not _is_make_call(statement, call)  # (a make call this split wrote)
                ):
                    out.add(call.func.value)
    return out - names


def _not_plain_get_variables(helper: _Helper, imports: TfImports) -> str | None:
    """Why the helper's variables are not all made by ``tf.get_variable`` assignments (under
    reuse TF1 returned those; ``tf.Variable`` and other makers made new ones); None if they are."""
    for statement in helper.variables:
        small = statement.body[0]
        value = small.value if isinstance(small, cst.Assign) else None
        made = [c for c in find_all(statement, cst.Call) if _makes_variables(c, imports, set())]
        if made and not (isinstance(value, cst.Call) and imports.call_name(value) == "get_variable" and made == [value]):
            return f"`{helper.node.name.value}` makes a variable otherwise than by `tf.get_variable` (`tf.Variable` ignores reuse)"
    return None


def _constants(module: cst.Module) -> set[str]:
    """Names bound once in the module, at its top level, to a literal of immutable values
    (``size = 4``, ``name = "D"``): they hold the same value wherever they are read."""
    counts: dict[str, int] = {}
    for node in find_all(module, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.AsName, cst.Param, cst.FunctionDef)):
        target = getattr(node, "target", None) or getattr(node, "name", None)
        for bound in target_names(target) if target is not None else []:
            counts[bound] = counts.get(bound, 0) + 1
    out = set()
    for statement in module.body:
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)):
            continue
        name = small.targets[0].target.value
        if counts.get(name) == 1 and isinstance(small.value, (cst.Integer, cst.Float, cst.SimpleString, cst.Tuple, cst.UnaryOperation)):
            try:
                ast.literal_eval(module.code_for_node(small.value))
            except (ValueError, SyntaxError, TypeError):
                continue
            out.add(name)
    return out


def _variable_makers(module: cst.Module, imports: TfImports) -> set[str]:
    """Module-level functions that create variables, directly or through one another."""
    return set(
        _module_functions_where(
            module, lambda node, makers: any(_makes_variables(c, imports, makers) for c in find_all(node.body, cst.Call))
        )
    )


def _plain_makers(module: cst.Module, imports: TfImports) -> set[str]:
    """Module-level functions whose variables are all ``tf.Variable``/``tf.get_variable``
    calls, directly or through one another (no layer or cell object, whose variables its
    first call would make)."""

    def plain(node: cst.FunctionDef, makers: frozenset[str]) -> bool:
        calls = find_all(node.body, cst.Call)
        return not any(_makes_objects(c, imports) for c in calls) and any(_makes_variables(c, imports, makers) for c in calls)

    return set(_module_functions_where(module, plain))


def _module_functions_where(module: cst.Module, holds: Callable[[cst.FunctionDef, frozenset[str]], bool]) -> frozenset[str]:
    """The module's top-level functions for which ``holds(function, found so far)``: a
    property a function has itself or through the functions of the module it calls, so
    found again until nothing changes."""
    functions = {n.name.value: n for n in module.body if isinstance(n, cst.FunctionDef)}
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, node in functions.items():
            if name not in found and holds(node, frozenset(found)):
                found.add(name)
                changed = True
    return frozenset(found)


def _makes_objects(call: cst.CSTNode, imports: TfImports) -> bool:
    """A TF call making an object that makes its variables when first called (a layer, a cell)."""
    if not isinstance(call, cst.Call):
        return False
    name = imports.call_name(call) or imports.kept_call_name(call)
    return name is not None and makes_variables(name) and name not in VARIABLE_CALLS


def _makes_variables(call: cst.CSTNode, imports: TfImports, makers: Set[str]) -> bool:
    if not isinstance(call, cst.Call):
        return False
    if isinstance(call.func, cst.Name) and call.func.value in makers:
        return True
    name = imports.call_name(call) or imports.kept_call_name(call)
    return name is not None and makes_variables(name)


def _imported_names(module: cst.Module) -> set[str]:
    """The names the module's top-level ``import``/``from … import`` statements bind."""
    names: set[str] = set()
    for line in module.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for statement in line.body:
            if isinstance(statement, (cst.Import, cst.ImportFrom)) and not isinstance(statement.names, cst.ImportStar):
                for alias in statement.names:
                    bound = alias.asname.name if alias.asname is not None else alias.name
                    names.add((get_full_name_for_node(bound) or "").split(".")[0])
    return names


def _helper(module: cst.Module, imports: TfImports, makers: set[str], plain: set[str], name: str) -> _Helper | str:
    defs = [n for n in module.body if isinstance(n, cst.FunctionDef) and n.name.value == name]
    if not defs and name in _imported_names(module):
        # the helper is another module's function: its body is not in this file to split
        return f"`{name}` is imported from another module (only a helper defined in this file is split)"
    if not defs and any(isinstance(i, cst.ImportFrom) and isinstance(i.names, cst.ImportStar) for i in find_all(module, cst.ImportFrom)):
        return f"`{name}` is not defined in this file: a star import gives it, imported from another module (only a helper defined in this file is split)"
    if len(defs) != 1:
        return f"`{name}` is not defined once by a `def` at the top of the module"
    node = defs[0]
    params = node.params
    if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None or params.posonly_params:
        return f"`{name}` takes *args, **kwargs or positional-only parameters"
    if node.decorators or node.asynchronous is not None or not isinstance(node.body, cst.IndentedBlock):
        return f"`{name}` is decorated, async or written on one line"
    if find_all(node.body, _FORBIDDEN):
        return f"`{name}` holds a nested def, class or lambda, `global`, `nonlocal`, `yield` or `await`"
    body = list(node.body.body)
    statements = [s for s in body if not _is_docstring(s)]
    block = node.body
    scoped = _name_scope(statements, imports)
    parameters = {p.name.value for p in [*params.params, *params.kwonly_params]}
    variable_scope = None if scoped is not None else _variable_scope(statements, imports, parameters)
    if scoped is not None:
        # ``with tf.name_scope(name):`` around the whole body: it names the ops (and TF1's
        # variables); the variables are made outside it, the ops stay in it
        block = cst.ensure_type(scoped.body, cst.IndentedBlock)
        statements = list(block.body)
    elif variable_scope is not None:
        # ``with tf.variable_scope(scope or "Linear"):`` ending the body (DCGAN's ``linear``,
        # ``conv2d``): it names the variables made in it, the only thing it does there (no
        # ``reuse=``, no initializer); its statements are the body's, split alike
        inner = list(cst.ensure_type(variable_scope.body, cst.IndentedBlock).body)
        if any(
            isinstance(c, cst.Call) and isinstance(c.func, cst.Name) and c.func.value in makers and not _is_make_call(s, c)
            for s in inner
            for c in find_all(s, cst.Call)
        ):
            return NESTED_HELPERS.format(name=name)
        statements = [*statements[:-1], *inner]
    candidates = [
        s
        for s in statements
        if isinstance(s, cst.SimpleStatementLine)
        and len(s.body) == 1
        and isinstance(s.body[0], cst.Assign)
        and len(s.body[0].targets) == 1
        and (isinstance(s.body[0].targets[0].target, cst.Name) or _is_make_call(s, s.body[0].value))
    ]
    # static shapes the candidates read off the helper's tensors: given as numbers by the
    # make call, so they are no read of the tensor (``_shape_arguments`` proves them)
    own_names = {n.value for n in find_all(node, cst.Name) if isinstance(n, cst.Name)}
    tf_alias = next((a for a, path in imports.aliases.items() if path == ""), None)
    shape_reads: list[_ShapeRead] = []
    originals = {id(s): s for s in candidates}
    if tf_alias is not None:
        local = {n for s in statements for n in _bound(s)} | parameters
        replaced_candidates = []
        for statement in candidates:
            found_reads = [
                r for r in find_all(statement, (cst.Call, cst.Attribute)) if static_shapes.is_shape_read(r) and _shape_holder(r) in local
            ]
            if not found_reads:
                replaced_candidates.append(statement)
                continue
            parents = _parents(statement)
            edits: dict[int, cst.CSTNode] = {}
            for found in found_reads:
                tensor = _shape_holder(found)
                parameter = fresh_name(f"{tensor}_shape", own_names)
                own_names.add(parameter)
                dims = _dims_read(found, parents)
                if dims is None:
                    dims = _dims_of_bound_list(found, parents, node)
                if dims is None:
                    dims = _dims_passed_on(found, parents, module)
                shape_reads.append(_ShapeRead(found, tensor, parameter, dims))
                shape = cst.parse_expression(f"{tf_alias}.TensorShape({parameter})")
                subscript = parents.get(id(found))
                above = parents.get(id(subscript)) if isinstance(subscript, cst.Subscript) and subscript.value is found else None
                if isinstance(above, cst.Attribute) and above.attr.value == "value" and isinstance(subscript, cst.Subscript):
                    # ``x.get_shape()[1].value``: a TF1 Dimension's value, an int in TF1 and TF2 alike
                    edits[id(above)] = cst.Call(
                        cst.parse_expression(f"{tf_alias}.dimension_value"), [cst.Arg(subscript.with_changes(value=shape))]
                    )
                else:
                    edits[id(found)] = shape
            replacement = cst.ensure_type(statement.visit(_Replace(edits)), cst.SimpleStatementLine)
            originals[id(replacement)] = statement
            replaced_candidates.append(replacement)
        swap = {id(originals[id(r)]): r for r in replaced_candidates}
        statements = [swap.get(id(s), s) for s in statements]
        candidates = replaced_candidates
    creating = {id(s) for s in candidates if any(_makes_variables(c, imports, makers) for c in find_all(s, cst.Call))}
    if not creating:
        imported = _imported_names(module)
        through = list(
            dict.fromkeys(
                c.func.value
                for s in statements
                for c in find_all(s, cst.Call)
                if isinstance(c, cst.Call) and isinstance(c.func, cst.Name) and c.func.value in imported
            )
        )
        if through:
            # (ops.py's ``linear`` under a GAN's ``discriminator``: that module's summary says it makes variables)
            return (
                f"`{name}` creates its variables otherwise than by assignments of their own at the top of its body (it calls "
                f"{', '.join(f'`{n}`' for n in through)}, imported from another module: a helper is split only in its own file)"
            )
        return f"`{name}` creates its variables otherwise than by assignments of their own at the top of its body"
    # the variables' side: creating assignments, and assignments calling no TF op that read
    # nothing the ops' side binds (until nothing moves)
    builders = _op_builders(module, imports)
    on_variables = {id(s) for s in candidates if id(s) in creating or not _calls_graph_ops(s, imports, builders)}
    for _ in range(2 * len(statements)):  # until nothing moves
        ops_bound = {n for s in statements if id(s) not in on_variables for n in _bound(s)}
        moved = {id(s) for s in statements if id(s) in on_variables and id(s) not in creating and set(read_and_bound(s)[0]) & ops_bound}
        # an op only the variables read (``init = tf.truncated_normal(...)``, then
        # ``W = tf.Variable(init)``) is their initial value: made with them
        ops_read = {n for s in statements if id(s) not in on_variables and id(s) not in moved for n in read_and_bound(s)[0]}
        joined = {
            id(s)
            for s in candidates
            if id(s) not in on_variables and not set(_bound(s)) & ops_read and not set(read_and_bound(s)[0]) & ops_bound
        }
        if not moved and not joined:
            break
        on_variables = (on_variables - moved) | joined
    variables = [cst.ensure_type(s, cst.SimpleStatementLine) for s in statements if id(s) in on_variables]
    ops = [s for s in statements if id(s) not in on_variables]
    ops_bound = {n for s in ops for n in _bound(s)}
    ops_changed = {n for s in ops for n in changed_in_place(s)}
    if any(_makes_variables(c, imports, makers) for s in ops for c in find_all(s, cst.Call)):
        return f"`{name}` also creates variables in a block, a loop or a statement that computes with them"
    cells = _cell_statements(variables, imports)
    refused_cell = next(
        (
            refusal
            for s in variables
            for c in find_all(s, cst.Call)
            if (p := imports.call_name(cst.ensure_type(c, cst.Call))) is not None
            and rnn.is_rnn_class(p)
            and (
                refusal := rnn.cell_refusal(cst.ensure_type(c, cst.Call), p)
                or ("stacked cells are not split out" if p in rnn.MULTI_CELLS else None)
            )
        ),
        None,
    )
    if refused_cell is not None:
        return f"`{name}` makes an RNN cell that is not converted: {refused_cell}"
    if cells is not None and len(cells) != len(variables):
        return (
            f"`{name}` makes RNN cells and other variables or values in its variables' statements (split, the cells' "
            "variables, made at their first call, would no longer come between them in TF1's order)"
        )
    made_objects = next(
        (c for s in statements if cells is None or s not in cells for c in find_all(s, cst.Call) if _makes_objects(c, imports)), None
    )
    if made_objects is None:
        made_objects = next(
            (
                c
                for s in statements
                for c in find_all(s, cst.Call)
                if isinstance(c, cst.Call) and isinstance(c.func, cst.Name) and c.func.value in makers and c.func.value not in plain
            ),
            None,
        )
    if made_objects is not None:
        return (
            f"`{name}` makes `{module.code_for_node(cst.ensure_type(made_objects, cst.Call).func)}(...)`, an object (a layer, an RNN "
            "cell) whose variables its first call makes, inside the ops: only `tf.Variable`/`tf.get_variable` variables are split out"
        )
    unsupported = next(
        (
            p
            for s in ops
            for c in find_all(s, cst.Call)
            if (p := imports.call_name(cst.ensure_type(c, cst.Call)) or imports.kept_call_name(cst.ensure_type(c, cst.Call))) is not None
            and is_unsupported_call(p)
            and not (cells and p in rnn.RUNS)  # the cells' runs: converted or refused once split (analysis/rnn.py)
        ),
        None,
    )
    if unsupported is not None:
        return f"the ops of `{name}` call `tf.{unsupported}`, which this release does not convert"
    for statement in variables:
        shaped = next((a for a in find_all(statement, cst.Attribute) if _static_shape(a, parameters)), None)
        if shaped is not None:
            return (
                f"`{name}` sizes its variables by the static shape of its argument (`{module.code_for_node(shaped)}`): TF1 "
                "read it off the tensor the ops before it computed, which exists only inside the generated functions"
            )
        read = set(read_and_bound(statement)[0])
        needed = sorted(read & (ops_bound | ops_changed))
        if needed:
            what = "" if id(statement) in creating else " (which a variable reads)"
            return (
                f"a statement of `{name}` that makes variables{what} reads `{needed[0]}`, which its ops compute: TF1 made "
                "the variables from graph values (a tensor's value or static shape), known only once the ops are built"
            )
    if all(_returns_names(s) for s in ops):
        return f"`{name}` builds no ops"
    variables_bound = [n for s in variables for n in _bound(s)]
    ops_read = {n for s in ops for n in read_and_bound(s)[0]}
    carried = [n for n in dict.fromkeys(variables_bound) if n in ops_read]
    if len(variables_bound) != len(set(variables_bound)) or set(variables_bound) & (ops_bound | parameters):
        return f"`{name}` binds a name of its variables' statements more than once"
    if not carried:
        return f"`{name}`'s ops read none of its variables"
    variable_reads = {n for s in variables for n in read_and_bound(s)[0]}
    scoped_ids: set[int] = set()
    if variable_scope is not None:
        header = cst.ensure_type(variable_scope.items[0].item, cst.Call)
        read_by_scope = {n.value for n in find_all(header.args[0], cst.Name) if isinstance(n, cst.Name)}
        if read_by_scope & (ops_bound | ops_changed):
            return f"`{name}`'s variable scope is named by a value its ops compute"
        variable_reads |= read_by_scope
        scoped_ids = {id(s) for s in cst.ensure_type(variable_scope.body, cst.IndentedBlock).body}
    made_from = [p for p in [*params.params, *params.kwonly_params] if p.name.value in variable_reads]
    own = {n.value for n in find_all(node, cst.Name) if isinstance(n, cst.Name)}
    moved = {id(originals.get(id(s), s)) for s in variables}
    used = {n.value for s in variables for n in find_all(s, cst.Name) if isinstance(n, cst.Name)}
    kept_reads = [r for r in shape_reads if r.parameter in used]
    return _Helper(
        node,
        variables,
        carried,
        made_from,
        fresh_name("variables", own | {r.parameter for r in kept_reads}),
        block=cst.ensure_type(block, cst.IndentedBlock),
        moved=moved,
        shape_reads=kept_reads,
        variable_scope=variable_scope,
        scoped={id(s) for s in variables if id(originals.get(id(s), s)) in scoped_ids},
        reuse_parameter=_reuse_parameter(cst.ensure_type(variable_scope.items[0].item, cst.Call), parameters)
        if variable_scope is not None
        else None,
    )


def _call_sites(
    module: cst.Module, imports: TfImports, makers: set[str], helper: _Helper, name: str
) -> list[tuple[cst.SimpleStatementLine, cst.Call]] | str:
    """Each statement calling the helper, and its call; or why a use is not such a call.
    The make call goes before the statement, so the call must run exactly once when the
    statement does (not in a lambda, comprehension, conditional expression or ``and``/``or``)
    and nothing else in the statement may make variables (they would be made in another order)."""
    # (``tf.nn.conv2d``'s attribute is no use of a helper named ``conv2d``)
    attributes = {id(a.attr) for a in find_all(module, cst.Attribute) if isinstance(a, cst.Attribute)}
    uses = sum(1 for n in find_all(module, cst.Name) if isinstance(n, cst.Name) and n.value == name and id(n) not in attributes) - 1
    parameters = tuple(p.name.value for p in [*helper.node.params.params, *helper.node.params.kwonly_params])
    required = {p.name.value for p in helper.made_from if p.default is None}
    sites = []
    for line in find_all(module, cst.SimpleStatementLine):
        assert isinstance(line, cst.SimpleStatementLine)
        calls = [c for c in find_all(line, cst.Call) if isinstance(c, cst.Call) and isinstance(c.func, cst.Name) and c.func.value == name]
        if not calls:
            continue
        if len(line.body) != 1 or len(calls) != 1:
            return f"`{name}` is called twice in one statement, or in a line of several statements"
        call = calls[0]
        if any(any(c is call for c in find_all(n, cst.Call)) for n in find_all(line, _CONDITIONAL)):
            return f"`{name}` is called in a lambda, a comprehension, a conditional expression or `and`/`or`, which may run it another number of times"
        other = next((c for c in find_all(line, cst.Call) if c is not call and _makes_variables(c, imports, makers)), None)
        if other is not None:
            # (naming the other maker: hwalsuklee's ``bn(conv2d(...))``, a ``tf.contrib.layers.batch_norm``)
            called = get_full_name_for_node(cst.ensure_type(other, cst.Call).func) or "another call"
            return (
                f"a statement calling `{name}` also makes other variables, by `{called}(...)` (split, they would be made in another order)"
            )
        bound = bind_arguments(call, parameters)
        if bound is None or set(bound) - set(parameters):
            return f"a call of `{name}` passes *args, **kwargs or unknown arguments"
        for param in helper.made_from:
            argument = bound.get(param.name.value)
            if argument is None and param.name.value in required:
                return f"a call of `{name}` leaves out `{param.name.value}`"
            if argument is not None and not _pure(argument.value):
                return (
                    f"the argument of `{name}`'s `{param.name.value}`, which its variables read, calls or binds something "
                    "(evaluated again to make the variables, it might not give the same value)"
                )
        sites.append((line, call))
    if len(sites) != uses:
        return f"`{name}` is used otherwise than called in a simple statement (passed on, or in a compound statement's header): the split helper takes its variables as an argument"
    return sites


def _drop_returned_variable(helper: _Helper, sites: list[tuple[cst.SimpleStatementLine, cst.Call]]) -> None:
    """``return layer, weights`` with ``weights`` a variable of the helper, and every call
    unpacking the result into names: the callers bind that element from the make call."""
    returns = [r for r in find_all(helper.node.body, cst.Return) if isinstance(r, cst.Return)]
    if not returns or any(not isinstance(r.value, cst.Tuple) for r in returns):
        return
    tuples = [r.value for r in returns if isinstance(r.value, cst.Tuple)]
    size = len(tuples[0].elements)
    if (
        any(len(t.elements) != size for t in tuples)
        or any(isinstance(e, cst.StarredElement) for t in tuples for e in t.elements)
        or size < 2
    ):
        return
    for small, call in ((s.body[0], c) for s, c in sites):
        if not (
            isinstance(small, cst.Assign)
            and small.value is call
            and isinstance(small.targets[0].target, (cst.Tuple, cst.List))
            and len(small.targets[0].target.elements) == size
            and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in small.targets[0].target.elements)
        ):
            return
    for index in range(size):
        values = {e.value.value if isinstance(e.value, cst.Name) else None for e in (t.elements[index] for t in tuples)}
        if len(values) == 1 and (only := values.pop()) in helper.carried:
            helper.returned, helper.returned_name = index, only
            return


def _shape_arguments(
    module: cst.Module,
    helper: _Helper,
    name: str,
    sites: list[tuple[cst.SimpleStatementLine, cst.Call]],
    shapes: static_shapes.ModuleShapes,
    positions: Positions,
) -> dict[int, list[str]] | str:
    """The shapes each call gives its make function (by id of the call: ``parameter=[...]``
    texts), each dimension the variables read as the number TF1's shape inference gave there
    and the others as None; or why one is not proven."""
    out: dict[int, list[str]] = {}
    in_functions = {id(line) for f in module.body if isinstance(f, cst.FunctionDef) for line in find_all(f.body, cst.SimpleStatementLine)}
    parameters = tuple(p.name.value for p in [*helper.node.params.params, *helper.node.params.kwonly_params])
    for statement, call in sites:
        text = module.code_for_node(call)
        line = f"`{text if len(text) <= 60 else text[:56] + '...)'}`"  # the call, not its line: notebooks number lines otherwise
        frame = shapes.frames.get(id(call))
        if frame is None and id(statement) in in_functions and helper.shape_reads:
            # a call in a function of the file (a network helper calling a layer helper): the
            # make call reads the static shape of the tensor passed, there, as TF1 did; that
            # function is split in turn, reading the shapes its own calls give
            bound = bind_arguments(call, parameters) or {}
            given = []
            for read in helper.shape_reads:
                argument = bound.get(read.tensor)
                if argument is None or not isinstance(argument.value, cst.Name):
                    return (
                        f"`{name}` sizes its variables by the static shape of `{read.tensor}`, and the call {line} in a "
                        "function of the file does not pass it as a name (only a name's shape is read again for the make call)"
                    )
                given.append(f"{read.parameter}={argument.value.value}.get_shape()")
            out[id(call)] = given
            continue
        given = []
        for read in helper.shape_reads:
            written = module.code_for_node(read.node)
            shape = frame.reads.get(id(read.node)) if frame is not None else None
            if (shape is None or shape.dims is None) and frame is not None and frame.clash is not None:
                # a broken TF1 program, not a shape these rules do not follow
                return (
                    f"`{name}` sizes its variables by `{written}`, and at the call {line} TF1's shape inference rejects an op "
                    f"before it ({frame.clash}): the TF1 program raises there"
                )
            if shape is None or shape.dims is None:
                where = "" if frame is not None else " (not a call of the module's straight-line graph code)"
                return (
                    f"`{name}` sizes its variables by `{written}`, and the call {line}{where} gives `{read.tensor}` a shape "
                    "the file does not fix (only placeholders' declared shapes and literal reshapes, convolutions, pools, "
                    "matmuls and element-wise ops are followed)"
                )
            rank = len(shape.dims)
            read_dims = range(rank) if read.dims is None else sorted({i for d in read.dims for i in _indices(d, rank)})
            before = shapes.before.get(id(statement), {})
            for index in read_dims:
                dim = shape.dims[index]
                if isinstance(dim, static_shapes.Symbol) and not static_shapes.holds(before, dim):
                    return (
                        f"`{name}` sizes its variables by `{written}`, which reads dimension {index} of `{read.tensor}`, "
                        f"`{dim.key}` when the tensor was made: at the call {line} the object may have changed since"
                    )
                if not isinstance(dim, (int, static_shapes.Symbol)):
                    return (
                        f"`{name}` sizes its variables by `{written}`, which reads dimension {index} of `{read.tensor}`: at the call "
                        f"{line} it is not known statically (None, or not derived from the file)"
                    )
            # (a dimension held by an attribute of the method's object: read there again, in the same state)
            dims = [_dimension_text(shape.dims[i]) if i in read_dims else "None" for i in range(rank)]
            given.append(f"{read.parameter}=[{', '.join(dims)}]")
        out[id(call)] = given
    return out


def _dimension_text(dim: object) -> str:
    return dim.key if isinstance(dim, static_shapes.Symbol) else str(dim)


def _indices(read: int | slice, rank: int) -> range:
    if isinstance(read, slice):
        return range(rank)[read]
    return range(rank)[read : read + 1 or None] if -rank <= read < rank else range(rank)


def _shape_holder(node: cst.CSTNode) -> str:
    holder = cst.ensure_type(node.func, cst.Attribute).value if isinstance(node, cst.Call) else cst.ensure_type(node, cst.Attribute).value
    return cst.ensure_type(holder, cst.Name).value


def _parents(root: cst.CSTNode) -> dict[int, cst.CSTNode]:
    out: dict[int, cst.CSTNode] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.children:
            out[id(child)] = node
            stack.append(child)
    return out


def _dims_read(read: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> tuple[int | slice, ...] | None:
    """The dimensions an expression reads of a shape: ``s[i]``, ``s[a:b]``, ``s.as_list()[i]``
    with literal bounds, ``s.ndims``/``len(s)`` (none); None (all of them) for anything else,
    the shape passed on whole included."""
    node = read
    parent = parents.get(id(node))
    if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value == "ndims":
        return ()
    if isinstance(parent, cst.Arg) and isinstance(call := parents.get(id(parent)), cst.Call) and len(call.args) == 1:
        if isinstance(call.func, cst.Name) and call.func.value == "len":
            return ()
    if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value == "as_list":
        call = parents.get(id(parent))
        if isinstance(call, cst.Call) and not call.args:
            node, parent = call, parents.get(id(call))
    if isinstance(parent, cst.Subscript) and parent.value is node and len(parent.slice) == 1:
        index = parent.slice[0].slice
        if isinstance(index, cst.Index):
            number = _literal_int(index.value)
            return (number,) if number is not None else None
        if isinstance(index, cst.Slice) and index.step is None:
            bounds = [None if b is None else _literal_int(b) for b in (index.lower, index.upper)]
            if all(b is not None or e is None for b, e in zip(bounds, (index.lower, index.upper))):
                return (slice(bounds[0], bounds[1]),)
    return None


def _dims_of_bound_list(read: cst.CSTNode, parents: dict[int, cst.CSTNode], helper: cst.FunctionDef) -> tuple[int, ...] | None:
    """The dimensions read of ``shape = x.get_shape().as_list()`` (DCGAN's ``linear``) when the
    helper reads ``shape`` nowhere but as ``shape[i]`` with literal ``i`` and binds it once:
    those ``i``; None otherwise (all of them)."""
    attribute = parents.get(id(read))
    call = parents.get(id(attribute)) if isinstance(attribute, cst.Attribute) and attribute.attr.value == "as_list" else None
    assign = parents.get(id(call)) if isinstance(call, cst.Call) and not call.args else None
    if not (isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1):
        return None
    target = assign.targets[0].target
    if not isinstance(target, cst.Name):
        return None
    body_parents = _parents(helper.body)
    dims: list[int] = []
    for name in find_all(helper.body, cst.Name):
        if not isinstance(name, cst.Name) or name.value != target.value:
            continue
        holder = body_parents.get(id(name))
        if isinstance(holder, cst.AssignTarget) and holder.target is name and holder is assign.targets[0]:
            continue  # the binding itself
        if not (isinstance(holder, cst.Subscript) and holder.value is name and len(holder.slice) == 1):
            return None
        index = holder.slice[0].slice
        number = _literal_int(index.value) if isinstance(index, cst.Index) else None
        if number is None:
            return None
        dims.append(number)
    return tuple(dict.fromkeys(dims))


def _dims_passed_on(read: cst.CSTNode, parents: dict[int, cst.CSTNode], module: cst.Module) -> tuple[int | slice, ...] | None:
    """The dimensions read of ``input__shape=x.get_shape()`` passed to a function of the module
    (a make function this split wrote) that reads its parameter only as ``tf.TensorShape(P)``:
    the dimensions that function reads of it; None otherwise (all of them)."""
    argument = parents.get(id(read))
    call = parents.get(id(argument))
    if not (isinstance(argument, cst.Arg) and argument.value is read and argument.keyword is not None and isinstance(call, cst.Call)):
        return None
    if not isinstance(call.func, cst.Name):
        return None
    functions = [f for f in module.body if isinstance(f, cst.FunctionDef) and f.name.value == call.func.value]
    if len(functions) != 1:
        return None
    function, parameter = functions[0], argument.keyword.value
    if parameter not in {p.name.value for p in [*function.params.params, *function.params.kwonly_params]}:
        return None
    inner = _parents(function.body)
    dims: list[int | slice] = []
    for name in find_all(function.body, cst.Name):
        if not isinstance(name, cst.Name) or name.value != parameter:
            continue
        held = inner.get(id(name))
        shape = inner.get(id(held))
        if not (
            isinstance(held, cst.Arg)
            and isinstance(shape, cst.Call)
            and len(shape.args) == 1
            and isinstance(shape.func, cst.Attribute)
            and shape.func.attr.value == "TensorShape"
        ):
            return None
        read_there = _dims_read(shape, inner)
        if read_there is None:
            read_there = _dims_of_bound_list(shape, inner, function)
        if read_there is None:
            return None
        dims += read_there
    return tuple(dict.fromkeys(dims))


def _literal_int(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Integer):
        return -int(node.expression.value, 0)
    return None


class _Replace(cst.CSTTransformer):
    """Nodes replaced by id."""

    def __init__(self, edits: dict[int, cst.CSTNode]) -> None:
        self.edits = edits

    def on_leave(self, original_node, updated_node):
        return self.edits.get(id(original_node), updated_node)


def _targets(helper: _Helper, name: str, statement: cst.SimpleStatementLine, in_use: set[str]) -> list[str]:
    """The names the make call binds the variables to: the caller's own for a returned one."""
    small = statement.body[0]
    targets: list[str] = []
    for carried in helper.carried:
        if helper.returned is not None and carried == helper.returned_name:
            assert isinstance(small, cst.Assign)
            unpacked = small.targets[0].target
            assert isinstance(unpacked, (cst.Tuple, cst.List))
            element = unpacked.elements[helper.returned].value
            assert isinstance(element, cst.Name)
            targets.append(element.value)
        else:
            targets.append(fresh_name(f"{name}_{carried}", in_use))
    return targets


def _given(
    module: cst.Module,
    helper: _Helper,
    statement: cst.SimpleStatementLine,
    call: cst.Call,
    shapes: static_shapes.ModuleShapes,
    shaped: dict[int, list[str]],
) -> list[str]:
    """The make call's arguments for one call of the helper (``n_out=3``, ``x_shape=[None, 4]``)."""
    parameters = tuple(p.name.value for p in [*helper.node.params.params, *helper.node.params.kwonly_params])
    bound = bind_arguments(call, parameters) or {}
    given = [
        f"{p.name.value}={_argument(module, shapes, statement, bound[p.name.value].value)}"
        for p in helper.made_from
        if p.name.value in bound
    ]
    return given + shaped.get(id(call), [])


def _site(
    module: cst.Module,
    helper: _Helper,
    factory: str,
    statement: cst.SimpleStatementLine,
    call: cst.Call,
    targets: list[str],
    given: list[str],
    reused: bool,
) -> tuple[cst.BaseStatement | None, cst.BaseStatement]:
    """The make statement put before a call's statement (None when the call reuses an earlier
    call's variables), and the statement passing the variables."""
    small = statement.body[0]
    left = ", ".join(targets) if len(targets) > 1 else targets[0]
    make = cst.parse_statement(f"{left} = {factory}({', '.join(given)})\n", config=module.config_for_parsing)
    make = make.with_changes(leading_lines=statement.leading_lines)
    passed = f"({', '.join(targets)})" if len(targets) > 1 else targets[0]
    equal = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
    args = list(call.args)
    if args:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    new_call = call.with_changes(args=[*args, cst.Arg(cst.parse_expression(passed), keyword=cst.Name(helper.argument), equal=equal)])
    new_small: cst.BaseSmallStatement
    if not (isinstance(small, (cst.Assign, cst.Expr)) and small.value is call):
        replaced = small.deep_replace(call, new_call)
        assert isinstance(replaced, cst.BaseSmallStatement)
        new_small = replaced
    elif isinstance(small, cst.Assign):
        target: cst.CSTNode = small.targets[0].target
        if helper.returned is not None:
            assert isinstance(target, (cst.Tuple, cst.List))
            rest = [e for i, e in enumerate(target.elements) if i != helper.returned]
            if len(rest) == 1:
                target = rest[0].value
            else:
                rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                target = target.with_changes(elements=rest)
        new_small = small.with_changes(targets=[small.targets[0].with_changes(target=target)], value=new_call)
    else:
        assert isinstance(small, cst.Expr)
        new_small = small.with_changes(value=new_call)
    if reused:
        return None, statement.with_changes(body=[new_small])
    return make, statement.with_changes(body=[new_small], leading_lines=())


def _argument(module: cst.Module, shapes: static_shapes.ModuleShapes, statement: cst.CSTNode, argument: cst.BaseExpression) -> str:
    """An argument of the make call: as written, or the number it holds when the module read
    it off a static shape (``num_features`` of ``layer.get_shape()[1:4].num_elements()``):
    TF1 fixed it while building the graph, and the tensor it was read from exists only in
    the generated functions."""
    value = shapes.value(statement, argument)
    if isinstance(value, static_shapes.Derived):
        return str(value.value)
    return module.code_for_node(argument)


class _Splitter(cst.CSTTransformer):
    def __init__(self, helpers: dict[str, _Helper], factories: dict[str, str], edits, reuse: scope_reuse.Reuse) -> None:
        self.helpers = {id(h.node): (n, h) for n, h in helpers.items()}
        self.blocks = {id(h.block): h for h in helpers.values() if h.block is not None}
        self.factories = factories
        self.edits = edits
        self.reuse = reuse

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if id(original) not in self.reuse.unreused:
            return updated
        return scope_reuse.without_reuse(updated, self.reuse.unreused[id(original)])

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return updated.with_changes(body=self._body(original.body, updated.body))

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body = self._body(original.body, updated.body)
        helper = self.blocks.get(id(original))
        if helper is not None:
            # the variables' statements go to the make function; the ops start from its variables
            moved = helper.moved
            kept: list[cst.BaseStatement] = []
            for before, after in zip(original.body, body):
                if before is helper.variable_scope:
                    # the ops leave the variable scope, which named nothing else
                    inner = zip(
                        cst.ensure_type(before.body, cst.IndentedBlock).body,
                        cst.ensure_type(cst.ensure_type(after, cst.With).body, cst.IndentedBlock).body,
                    )
                    kept += [a for b, a in inner if id(b) not in moved]
                elif id(before) not in moved:
                    kept.append(after)
            first = next((i for i, s in enumerate(kept) if not _is_docstring(s)), len(kept))
            carried = helper.carried
            left = ", ".join(carried) if len(carried) > 1 else carried[0]
            body = [*kept[:first], cst.parse_statement(f"{left} = {helper.argument}\n"), *kept[first:]]
        return updated.with_changes(body=body)

    def _body(self, original, updated) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for before, after in zip(original, updated):
            if id(before) in self.reuse.dropped:
                continue  # ``scope.reuse_variables()``: nothing under it makes variables any more
            if id(before) in self.edits:
                made, passing = self.edits[id(before)]
                out += [passing] if made is None else [made, passing]
            elif id(before) in self.helpers:
                name, helper = self.helpers[id(before)]
                out += self._split(name, helper, after)
            else:
                out.append(after)
        return out

    def _split(self, name: str, helper: _Helper, node: cst.FunctionDef) -> list[cst.BaseStatement]:
        carried = helper.carried
        body = list(cst.ensure_type(node.body, cst.IndentedBlock).body)
        if helper.returned is not None:
            body = [s.visit(_DropReturned(helper.returned)) for s in body]  # type: ignore[misc]
        params = node.params
        variables_param = cst.Param(cst.Name(helper.argument))
        star = params.star_arg if params.kwonly_params else cst.ParamStar()
        helper_node = node.with_changes(
            body=node.body.with_changes(body=body),
            params=params.with_changes(star_arg=star, kwonly_params=[*params.kwonly_params, variables_param]),
        )
        made_params = [p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in helper.made_from]
        returned = ", ".join(carried) if len(carried) > 1 else carried[0]
        variables: list[cst.BaseStatement] = [
            s.with_changes(leading_lines=[line.with_changes(indent=True) for line in s.leading_lines]) for s in helper.variables
        ]
        if helper.variable_scope is not None:
            # the variables of the scope's block made in it, as TF1 named them
            outside = [v for v, s in zip(variables, helper.variables) if id(s) not in helper.scoped]
            inside = [v for v, s in zip(variables, helper.variables) if id(s) in helper.scoped]
            scope = helper.variable_scope.with_changes(
                body=cst.ensure_type(helper.variable_scope.body, cst.IndentedBlock).with_changes(body=inside), leading_lines=()
            )
            if helper.reuse_parameter is not None:
                # made only by the calls that do not reuse: the scope's name alone
                header = cst.ensure_type(scope.items[0].item, cst.Call)
                named = header.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                scope = scope.with_changes(items=[scope.items[0].with_changes(item=header.with_changes(args=[named]))])
            variables = [*outside, scope] if inside else outside
        factory = cst.parse_statement(
            f"def {self.factories[name]}():\n"
            f'    """The variables `{name}` reads, made once where TF1 made them (each call of `{name}`)."""\n'
            f"    return {returned}\n"
        )
        assert isinstance(factory, cst.FunctionDef)
        factory_body = list(factory.body.body)
        # (a keyword-only parameter stays one: ``self_batch_size`` of a method moved to the module)
        keyword_only = {id(p) for p in helper.node.params.kwonly_params}
        shape_params = [
            *(p for p, q in zip(made_params, helper.made_from) if id(q) in keyword_only),
            *(cst.Param(cst.Name(r.parameter)) for r in helper.shape_reads),
        ]
        made_params = [p for p, q in zip(made_params, helper.made_from) if id(q) not in keyword_only]
        factory = factory.with_changes(
            params=cst.Parameters(
                params=made_params, star_arg=cst.ParamStar() if shape_params else cst.MaybeSentinel.DEFAULT, kwonly_params=shape_params
            ),
            body=factory.body.with_changes(body=[factory_body[0], *variables, factory_body[1]]),
            leading_lines=[cst.EmptyLine(indent=False)] * 2,
        )
        return [helper_node, factory]


class _DropReturned(cst.CSTTransformer):
    def __init__(self, index: int) -> None:
        self.index = index

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        value = updated.value
        assert isinstance(value, cst.Tuple)
        rest = [e for i, e in enumerate(value.elements) if i != self.index]
        if len(rest) == 1:
            return updated.with_changes(value=rest[0].value)
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(value=value.with_changes(elements=rest))


def _cell_statements(variables: list[cst.SimpleStatementLine], imports: TfImports) -> list[cst.SimpleStatementLine] | None:
    """The variables' statements that make converted TF1 RNN cells (``cell =
    rnn.BasicLSTMCell(n)``, analysis/rnn.py), each its own assignment; None when there are none.
    Split out, they make a cell factory (``make_RNN_variables``) that TFM413 writes out: the
    cell makes its variables at its first call, in the ops, where TF1's did."""
    cells = []
    for statement in variables:
        value = statement.body[0].value if isinstance(statement.body[0], cst.Assign) else None
        path = imports.call_name(value) if isinstance(value, cst.Call) else None
        if (
            path is not None
            and path in rnn.CELLS
            and path not in rnn.MULTI_CELLS
            and rnn.cell_refusal(cst.ensure_type(value, cst.Call), path) is None
        ):
            cells.append(statement)
    return cells or None


def _name_scope(statements: list[cst.BaseStatement], imports: TfImports) -> cst.With | None:
    """The ``with tf.name_scope(...):`` that is the whole body, if it is."""
    if len(statements) != 1 or not isinstance(statements[0], cst.With):
        return None
    scope = statements[0]
    if len(scope.items) != 1 or scope.items[0].asname is not None or not isinstance(scope.body, cst.IndentedBlock):
        return None
    item = scope.items[0].item
    return scope if isinstance(item, cst.Call) and imports.call_name(item) in ("name_scope", "compat.v1.name_scope") else None


def _variable_scope(statements: list[cst.BaseStatement], imports: TfImports, parameters: set[str]) -> cst.With | None:
    """The ``with tf.variable_scope(name):`` ending the body, if it does: one scope, no ``as``,
    its name a string, a parameter, or ``parameter or "default"`` (nothing but the name: a
    ``reuse=``, an initializer or a dtype does more than name the variables)."""
    if not statements or not isinstance(statements[-1], cst.With):
        return None
    scope = statements[-1]
    if len(scope.items) != 1 or scope.items[0].asname is not None or not isinstance(scope.body, cst.IndentedBlock):
        return None
    item = scope.items[0].item
    if not (isinstance(item, cst.Call) and imports.call_name(item) in ("variable_scope", "compat.v1.variable_scope")):
        return None
    if not item.args or item.args[0].keyword is not None or item.args[0].star:
        return None
    if len(item.args) > 2 or (len(item.args) == 2 and _reuse_parameter(item, parameters) is None):
        return None
    named = item.args[0].value
    if isinstance(named, cst.BooleanOperation) and isinstance(named.operator, cst.Or):
        if not (isinstance(named.right, cst.SimpleString) and isinstance(named.right.evaluated_value, str) and named.right.evaluated_value):
            return None
        named = named.left
    if isinstance(named, cst.SimpleString) or (isinstance(named, cst.Name) and named.value in parameters):
        return scope
    return None


def _parameter_names(function: cst.FunctionDef) -> set[str]:
    return {p.name.value for p in [*function.params.params, *function.params.kwonly_params]}


def _scope_text(scope: cst.With) -> str:
    """The name a helper's ``with tf.variable_scope(...)`` is written with, for notes."""
    named = cst.ensure_type(scope.items[0].item, cst.Call).args[0].value
    return cst.Module([]).code_for_node(named).strip("'\"")


def _reuse_parameter(scope: cst.Call, parameters: set[str]) -> str | None:
    """``tf.variable_scope(name, reuse=reuse)``: the helper's parameter that ``reuse=`` reads."""
    argument = next((a for a in scope.args if a.keyword is not None and a.keyword.value == "reuse"), None)
    if argument is None or not isinstance(argument.value, cst.Name) or argument.value.value not in parameters:
        return None
    return argument.value.value


def _reusing_calls(
    module: cst.Module,
    name: str,
    helper: _Helper,
    sites: list[tuple[cst.SimpleStatementLine, cst.Call]],
    given: dict[int, list[str]],
) -> dict[int, int] | str:
    """For a helper whose scope reads ``reuse=`` off its parameter (a GAN's ``discriminator(x,
    reuse=False)``): each call passing ``reuse=True`` → the one earlier call, not reusing, given
    the same make arguments, whose variables TF1 returned to it; or why that is not certain."""
    parameter = helper.reuse_parameter
    assert parameter is not None
    parameters = tuple(p.name.value for p in [*helper.node.params.params, *helper.node.params.kwonly_params])
    default = next(p.default for p in [*helper.node.params.params, *helper.node.params.kwonly_params] if p.name.value == parameter)
    # the calls run once each, in the text's order: statements at the top of the module, or
    # all at the top of one method's body (``build_model``, which the class analysis converts
    # only where the constructor calls it once)
    bodies = [list(module.body)] + [
        list(cst.ensure_type(method.body, cst.IndentedBlock).body) for method in _methods_calling(module, {id(s) for s, _ in sites})
    ]
    top = next(({id(s) for s in body} for body in bodies if all(any(s is t for t in body) for s, _ in sites)), set())
    makers: list[tuple[int, list[str]]] = []
    out: dict[int, int] = {}
    for statement, call in sites:
        if id(statement) not in top:
            return (
                f"a call of `{name}`, whose variable scope reads `reuse={parameter}`, stands in a block, a loop or a function "
                "(not all its calls at the top of the module or of one method's body)"
            )
        argument = (bind_arguments(call, parameters) or {}).get(parameter)
        value = argument.value if argument is not None else default
        flag = value.value if isinstance(value, cst.Name) and value.value in ("True", "False", "None") else None
        if flag is None:
            return f"a call of `{name}` passes `{parameter}=` other than True, False or None (which calls reuse is not followed)"
        arguments = [g for g in given[id(call)] if not g.startswith(f"{parameter}=")]
        if flag != "True":
            makers.append((id(call), arguments))
            continue
        earlier = [maker for maker, made_with in makers if made_with == arguments]
        if len(earlier) != 1:
            return (
                f"the call `{module.code_for_node(call)[:60]}` reuses the variables of `{name}`'s scope, and "
                f"{'no' if not earlier else 'more than one'} earlier call of it made them with the same arguments"
            )
        out[id(call)] = earlier[0]
    return out


def _returns_names(statement: cst.BaseStatement) -> bool:
    """``return W, b``: what a make function ends with, no op."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and isinstance(statement.body[0], cst.Return)):
        return False
    value = statement.body[0].value
    elements = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
    return all(isinstance(e, cst.Name) for e in elements)


def _static_shape(node: cst.CSTNode, parameters: set[str]) -> bool:
    """``X.get_shape`` or ``X.shape`` of a parameter ``X``."""
    return (
        isinstance(node, cst.Attribute)
        and node.attr.value in ("get_shape", "shape")
        and isinstance(node.value, cst.Name)
        and node.value.value in parameters
    )


def _calls_graph_ops(statement: cst.CSTNode, imports: TfImports, builders: frozenset[str] = frozenset()) -> bool:
    """Does the statement build TF ops, itself or by calling a function of the module that does?"""
    return any(
        ((name := imports.call_name(c)) is not None and is_graph_op(name)) or (isinstance(c.func, cst.Name) and c.func.value in builders)
        for c in find_all(statement, cst.Call)
        if isinstance(c, cst.Call)
    )


def _op_builders(module: cst.Module, imports: TfImports) -> frozenset[str]:
    """The module's top-level functions that build TF ops, themselves or through one another
    (``lrelu``, a split layer helper): a statement calling one computes in the graph."""
    return _module_functions_where(module, lambda node, builders: _calls_graph_ops(node.body, imports, builders))


def _bound(statement: cst.CSTNode) -> list[str]:
    return list(dict.fromkeys([*assigned_names(statement), *read_and_bound(statement)[1]]))


def _pure(expression: cst.BaseExpression) -> bool:
    return all(not isinstance(n, cst.BaseExpression) or isinstance(n, _PURE_NODES) for n in find_all(expression, cst.CSTNode))


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _origins(before: str, after: str) -> list[int]:
    """The original line of each line of ``after``: its own where unchanged, else the line of
    the nearest unchanged line before it (the statement it was split from)."""
    old, new = before.splitlines(), after.splitlines()
    origins = [0] * len(new)
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        for offset in range(b2 - b1):
            if tag == "equal":
                origins[b1 + offset] = a1 + offset + 1
            else:
                origins[b1 + offset] = min(a1 + offset, max(a2 - 1, a1)) + 1 if a2 > a1 else max(a1, 1)
    return origins


def with_reasons(findings: list[Diagnostic], reasons: dict[str, str]) -> list[Diagnostic]:
    """The findings, with why each helper was not split appended to the TFM304 findings naming it."""
    out = []
    for finding in findings:
        found = HELPER_CALL.search(finding.message) if finding.code == VARIABLE_IN_COMPUTATION.code else None
        if found is not None and found.group(1) in reasons:
            finding = dataclasses.replace(
                finding, message=f"{finding.message} (not split into variables and ops: {reasons[found.group(1)]})"
            )
        out.append(finding)
    return out
