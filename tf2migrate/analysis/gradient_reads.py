"""Values TF1's gradient computation certainly read: proof that a forward op ran.

A run that fetches only a gradient (or a train step) executes the forward ops the
gradient computation consumes, and their inputs, nothing else (``unrun_ops.py``).  Which
forward values a gradient consumes depends on each op's gradient function; this module
knows the cases where it certainly does and answers "did TF1 run this stateful op?"
with yes only when one of them connects the op to the fetched gradient:

- an operand of a product (``*``, ``/``, ``@``, ``tf.matmul``, ``tf.multiply``,
  ``tf.nn.conv2d``…) whose *other* operand depends on a differentiated source: the
  gradient with respect to that side multiplies by (or divides by) this one;
- the input of an op whose gradient reads its inputs (``tf.square``, ``tf.math.log``,
  ``tf.maximum``, ``tf.pow``…), or the output of one whose gradient reads its output
  (``tf.nn.relu``, ``tf.sigmoid``, ``tf.tanh``, ``tf.exp``, ``tf.nn.softmax``…), when an
  input depends on a differentiated source;

each on the gradient's path: reached backwards from the differentiated value through
ops that pass a gradient on (those above, ``+``, ``-``, ``tf.reduce_mean``,
``tf.identity``, ``tf.nn.batch_normalization``…).  A value "evaluates" the stateful op
when it is the op, is computed from it through those ops, or is made inside
``tf.control_dependencies`` of a value that evaluates it (TF1 gives every op created in
the block the control inputs, or an input that has them).  The differentiated sources
are the ``xs`` of ``tf.gradients`` (one gradient fetched), or the trainable variables a
fetched ``minimize`` updates (``var_list`` when given).  Names are followed through
plain single-name assignments of the scope, in order; anything else — a helper call, a
subscript, a name bound by unpacking or in a loop — ends the proof, and the op stays
refused (TFM310).  The tables are TF1's gradient functions (``math_grad.py``,
``nn_grad.py``): an op missing from them is not wrong, only unproven.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.calls import call_argument
from tf2migrate.analysis.model import GraphFacts, Kind, Scope, Statement
from tf2migrate.analysis.names import graph_name, names_bound


class _Reads(enum.Enum):
    """What an op's gradient function reads of the forward pass."""

    NOTHING = "nothing"  # ``+``, ``tf.reduce_mean``, ``tf.identity``: only the incoming gradient (and shapes)
    OTHER = "the other operand"  # products: the gradient for one operand reads the other
    INPUTS = "its inputs"
    OUTPUT = "its output"


def _aliases(reads: _Reads, params: tuple[str, ...], *names: str) -> dict[str, tuple[_Reads, tuple[str, ...]]]:
    return {name: (reads, params) for name in names}


# Canonical TF1 path → (what its gradient reads, the keyword names of its differentiable
# inputs in positional order; ``a|b`` when TF1 and TF2 name the parameter differently).
_OPS: dict[str, tuple[_Reads, tuple[str, ...]]] = {
    **_aliases(_Reads.NOTHING, ("x", "y"), "add", "math.add", "subtract", "math.subtract"),
    **_aliases(_Reads.NOTHING, ("x",), "negative", "math.negative"),
    **_aliases(_Reads.NOTHING, ("input",), "identity", "expand_dims", "squeeze"),
    **_aliases(_Reads.NOTHING, ("tensor",), "reshape"),
    **_aliases(_Reads.NOTHING, ("a",), "transpose"),
    **_aliases(_Reads.NOTHING, ("input_tensor",), "reduce_sum", "math.reduce_sum", "reduce_mean", "math.reduce_mean"),
    **_aliases(_Reads.NOTHING, ("value", "bias"), "nn.bias_add"),
    **_aliases(_Reads.NOTHING, ("x", "mean", "variance", "offset", "scale"), "nn.batch_normalization"),
    **_aliases(_Reads.OTHER, ("x", "y"), "multiply", "math.multiply", "divide", "math.divide", "truediv", "math.truediv", "div"),
    **_aliases(_Reads.OTHER, ("a", "b"), "matmul", "linalg.matmul"),
    **_aliases(_Reads.OTHER, ("input", "filter|filters"), "nn.conv2d"),
    **_aliases(
        _Reads.INPUTS,
        ("x",),
        "square",
        "math.square",
        "log",
        "math.log",
        "log1p",
        "math.log1p",
        "abs",
        "math.abs",
        "sin",
        "math.sin",
        "cos",
        "math.cos",
    ),
    **_aliases(_Reads.INPUTS, ("x", "y"), "pow", "math.pow", "maximum", "math.maximum", "minimum", "math.minimum"),
    **_aliases(_Reads.INPUTS, ("features",), "nn.softplus", "math.softplus", "nn.softsign", "math.softsign", "nn.leaky_relu"),
    **_aliases(_Reads.INPUTS, ("t",), "nn.l2_loss"),
    **_aliases(
        _Reads.OUTPUT,
        ("x",),
        "sigmoid",
        "math.sigmoid",
        "nn.sigmoid",
        "tanh",
        "math.tanh",
        "nn.tanh",
        "exp",
        "math.exp",
        "sqrt",
        "math.sqrt",
        "rsqrt",
        "math.rsqrt",
        "reciprocal",
        "math.reciprocal",
    ),
    **_aliases(_Reads.OUTPUT, ("features",), "nn.relu", "nn.relu6", "nn.elu", "nn.selu"),
    **_aliases(_Reads.OUTPUT, ("logits",), "nn.softmax", "nn.log_softmax", "math.log_softmax"),
}
_BINARY = {
    cst.Add: _Reads.NOTHING,
    cst.Subtract: _Reads.NOTHING,
    cst.Multiply: _Reads.OTHER,
    cst.Divide: _Reads.OTHER,
    cst.MatrixMultiply: _Reads.OTHER,
    cst.Power: _Reads.INPUTS,
}
_TENSOR_SOURCES = frozenset({"placeholder", "Variable", "get_variable"})
_GRADIENTS_KEYWORDS = frozenset({"ys", "xs", "grad_ys", "name", "colocate_gradients_with_ops", "gate_gradients", "aggregation_method"})


@dataclass(eq=False)
class _Context:
    """Where an expression is evaluated: the names bound then, and the control
    dependencies (lists, each with its own context) around it."""

    env: dict[str, _Binding]
    controls: tuple[tuple[cst.BaseExpression, _Context], ...] = ()


@dataclass(eq=False)
class _Binding:
    value: cst.BaseExpression | None  # None: bound some other way (unpacking, a loop): not followed
    context: _Context
    statement: Statement


@dataclass
class _Differentiation:
    """A fetched gradient computation: the value differentiated and its sources."""

    targets: list[tuple[cst.BaseExpression, _Context]]
    sources: set[int] = field(default_factory=set)  # ids of the source bindings


class GradientReads:
    """Which stateful calls of a scope the fetched gradients and train steps certainly
    made TF1 run (see the module docstring)."""

    def __init__(self, facts: GraphFacts, scope: Scope, roots: list[Statement]) -> None:
        self.facts = facts
        self.contexts: dict[int, _Context] = {}  # statement order → context before it
        own = [r for r in roots if r.order < len(scope.statements) and scope.statements[r.order] is r]
        self._bind_scope(scope, max((r.order for r in own), default=-1))
        self.differentiations = [d for r in own if (d := self._differentiation(r)) is not None]

    # -- the names of the scope, statement by statement --------------------------------

    def _bind_scope(self, scope: Scope, last: int) -> None:
        env: dict[str, _Binding] = {}
        for statement in scope.statements[: last + 1]:
            self.contexts[statement.order] = _Context(dict(env))
            self._bind(statement, statement.node, env, ())

    def _bind(self, statement: Statement, node: cst.CSTNode, env: dict[str, _Binding], controls: tuple) -> None:
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                name = _single_target(small)
                before = _Context(dict(env), controls)  # ``h = tf.nn.relu(h)`` reads the previous ``h``
                for other in names_bound(small):
                    env[other] = _Binding(None, before, statement)
                if name is not None:
                    env[name] = _Binding(cst.ensure_type(small, cst.Assign).value, before, statement)
            return
        control = self._control_list(node)
        if control is not None:
            inner = (*controls, (control, _Context(dict(env), controls)))
            for child in cst.ensure_type(node, cst.With).body.body:
                self._bind(statement, child, env, inner)
            return
        for name in names_bound(node):
            env[name] = _Binding(None, _Context({}), statement)  # in a loop, a branch, a block: not followed

    def _control_list(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        """The list of ``with tf.control_dependencies([...]):``, alone in its ``with``."""
        if not isinstance(node, cst.With) or len(node.items) != 1 or node.items[0].asname is not None:
            return None
        call = node.items[0].item
        if not isinstance(call, cst.Call) or self.facts.imports.call_name(call) != "control_dependencies":
            return None
        return call_argument(call, "control_inputs", 0)

    # -- the fetched gradient computations ---------------------------------------------

    def _differentiation(self, root: Statement) -> _Differentiation | None:
        context = self.contexts[root.order]
        if root.kind is Kind.TRAIN:
            return self._train_step(root, context)
        value = _single_value(root.node)
        if value is None or len(root.gradient_calls) != 1:
            return None
        index = None
        if isinstance(value, cst.Subscript):  # ``tf.gradients(y, [x, t])[0]``
            index = _constant_index(value)
            value = value.value
        if value is not root.gradient_calls[0] or not isinstance(value, cst.Call):
            return None
        if any(a.star or (a.keyword is not None and a.keyword.value not in _GRADIENTS_KEYWORDS) for a in value.args):
            return None  # ``stop_gradients=``: other paths
        ys, xs = call_argument(value, "ys", 0), call_argument(value, "xs", 1)
        if isinstance(xs, (cst.List, cst.Tuple)):
            xs = xs.elements[index].value if index is not None and -len(xs.elements) <= index < len(xs.elements) else None
        source = graph_name(xs) if xs is not None else None
        binding = context.env.get(source) if source is not None else None
        if ys is None or binding is None:
            return None  # several gradients, which of them the fetch reads is not followed
        targets = [e.value for e in ys.elements] if isinstance(ys, (cst.List, cst.Tuple)) else [ys]
        return _Differentiation([(t, context) for t in targets], {id(binding)})

    def _train_step(self, root: Statement, context: _Context) -> _Differentiation | None:
        call = root.minimize_call()
        if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "minimize":
            return None
        loss, var_list = call_argument(call, "loss", 0), call_argument(call, "var_list", 2)
        if loss is None:
            return None
        if var_list is None:
            sources = [b for b in context.env.values() if self._trainable(b)]
        elif isinstance(var_list, (cst.List, cst.Tuple)):
            sources = [b for e in var_list.elements if (b := context.env.get(graph_name(e.value) or "")) is not None]
        else:
            return None
        return _Differentiation([(loss, context)], {id(b) for b in sources})

    def _trainable(self, binding: _Binding) -> bool:
        """``tf.Variable(...)`` / ``tf.get_variable(...)``, not ``trainable=False``."""
        value = binding.value
        if binding.statement.kind is not Kind.VARIABLE or not isinstance(value, cst.Call):
            return False
        if self.facts.imports.call_name(value) not in ("Variable", "get_variable"):
            return False
        keywords = {a.keyword.value: a.value for a in value.args if a.keyword is not None}
        trainable = keywords.get("trainable")
        return "collections" not in keywords and (trainable is None or (isinstance(trainable, cst.Name) and trainable.value == "True"))

    # -- the proof -----------------------------------------------------------------------

    def ran(self, call: cst.Call) -> bool:
        """Did TF1 certainly run ``call`` when it computed the fetched gradients?"""
        try:
            return any(_Proof(self, call, d).holds() for d in self.differentiations)
        except RecursionError:  # a chain of names too long to follow: unproven
            return False

    def op(self, node: cst.BaseExpression) -> tuple[_Reads, list[cst.BaseExpression]] | None:
        """An op whose gradient the tables know: what it reads, its differentiable inputs."""
        if isinstance(node, cst.BinaryOperation) and type(node.operator) in _BINARY:
            return _BINARY[type(node.operator)], [node.left, node.right]
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            return _Reads.NOTHING, [node.expression]
        if isinstance(node, cst.Call) and (entry := _OPS.get(self.facts.imports.call_name(node) or "")) is not None:
            reads, params = entry
            inputs = [_argument(node, param, position) for position, param in enumerate(params)]
            return reads, [i for i in inputs if i is not None]
        return None


class _Proof:
    """One stateful call against one fetched gradient computation."""

    def __init__(self, reads: GradientReads, call: cst.Call, differentiation: _Differentiation) -> None:
        self.reads = reads
        self.call = call
        self.differentiation = differentiation
        self._evaluates: dict[tuple[int, int], bool] = {}
        self._source: dict[tuple[int, int], bool] = {}

    def holds(self) -> bool:
        """Walk the gradient's path back from the differentiated values; true at the first
        op whose gradient function reads a value that evaluates the call."""
        seen: set[tuple[int, int]] = set()
        stack = list(self.differentiation.targets)
        while stack:
            node, context = stack.pop()
            if (id(node), id(context)) in seen:
                continue
            seen.add((id(node), id(context)))
            binding = self._binding(node, context)
            if binding is not None:
                if binding.value is not None:
                    stack.append((binding.value, binding.context))
                continue
            op = self.reads.op(node)
            if op is None:
                continue
            reads, inputs = op
            if self._reads_the_call(node, context, reads, inputs):
                return True
            stack.extend((i, context) for i in inputs)
        return False

    def _reads_the_call(self, node: cst.BaseExpression, context: _Context, reads: _Reads, inputs: list[cst.BaseExpression]) -> bool:
        if reads is _Reads.OTHER:
            return any(
                self.evaluates(a, context) and self.source(b, context) for i, a in enumerate(inputs) for j, b in enumerate(inputs) if i != j
            )
        if reads is _Reads.INPUTS:
            return any(self.evaluates(a, context) for a in inputs) and any(self.source(b, context) for b in inputs)
        if reads is _Reads.OUTPUT:
            return self.evaluates(node, context) and any(self.source(b, context) for b in inputs)
        return False

    def _binding(self, node: cst.BaseExpression, context: _Context) -> _Binding | None:
        name = graph_name(node)
        return context.env.get(name) if name is not None else None

    def evaluates(self, node: cst.BaseExpression, context: _Context) -> bool:
        """Does computing ``node`` run the call: is it the call, computed from it, or an op
        made under control dependencies on it?"""
        key = (id(node), id(context))
        if key not in self._evaluates:
            self._evaluates[key] = False  # a cycle proves nothing
            self._evaluates[key] = self._compute_evaluates(node, context)
        return self._evaluates[key]

    def _compute_evaluates(self, node: cst.BaseExpression, context: _Context) -> bool:
        if node is self.call:
            return True
        binding = self._binding(node, context)
        if binding is not None:
            return binding.value is not None and self.evaluates(binding.value, binding.context)
        if isinstance(node, cst.Call) and self.reads.facts.imports.call_name(node) == "group":
            return any(self.evaluates(a.value, context) for a in node.args)
        op = self.reads.op(node)
        if op is None:
            return False
        if any(self.evaluates(i, context) for i in op[1]):
            return True
        return self._creates_op(node, context) and any(
            self.evaluates(e.value, outer)
            for controls, outer in context.controls
            if isinstance(controls, (cst.List, cst.Tuple))
            for e in controls.elements
        )

    def _creates_op(self, node: cst.BaseExpression, context: _Context) -> bool:
        """Does evaluating ``node`` make a new op (rather than return an existing tensor,
        or compute on Python numbers)?"""
        if isinstance(node, cst.Call):
            return True  # an op of the tables
        op = self.reads.op(node)
        return op is not None and any(self._is_tensor(i, context) for i in op[1])

    def _is_tensor(self, node: cst.BaseExpression, context: _Context) -> bool:
        binding = self._binding(node, context)
        if binding is not None:
            return binding.value is not None and self._is_tensor(binding.value, binding.context)
        if isinstance(node, cst.Call) and self.reads.facts.imports.call_name(node) in _TENSOR_SOURCES:
            return True
        op = self.reads.op(node)
        return op is not None and (isinstance(node, cst.Call) or any(self._is_tensor(i, context) for i in op[1]))

    def source(self, node: cst.BaseExpression, context: _Context) -> bool:
        """Is ``node`` a differentiated source, or computed from one through ops that pass
        the gradient on?"""
        key = (id(node), id(context))
        if key not in self._source:
            self._source[key] = False
            binding = self._binding(node, context)
            if binding is not None:
                found = id(binding) in self.differentiation.sources or (
                    binding.value is not None and self.source(binding.value, binding.context)
                )
            else:
                op = self.reads.op(node)
                found = op is not None and any(self.source(i, context) for i in op[1])
            self._source[key] = found
        return self._source[key]


def _argument(call: cst.Call, param: str, position: int) -> cst.BaseExpression | None:
    for keyword in param.split("|"):
        if (found := call_argument(call, keyword, position)) is not None:
            return found
    return None


def _single_target(small: cst.BaseSmallStatement) -> str | None:
    """The name ``name = value`` binds (``self.x`` as one name), else None."""
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    return graph_name(small.targets[0].target)


def _single_value(node: cst.CSTNode) -> cst.BaseExpression | None:
    if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 and _single_target(node.body[0]) is not None:
        return cst.ensure_type(node.body[0], cst.Assign).value
    return None


def _constant_index(subscript: cst.Subscript) -> int | None:
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    value = subscript.slice[0].slice.value
    negative = isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus)
    number = value.expression if negative else value  # type: ignore[attr-defined]
    if not isinstance(number, cst.Integer):
        return None
    return -int(number.value) if negative else int(number.value)
