"""Forward-mode seeds: a placeholder fed only so that a gradient of a gradient can be
taken with respect to it → ``tf.ones_like`` of the differentiated tensor.

Discrete-time physics-informed code (Raissi's PINNs, ``fwd_gradients``) takes a
Jacobian-vector product with two reverse passes through a "dummy" placeholder ``d``::

    g = tf.gradients(U, x, grad_ys=d)[0]     # g = Jᵀd, linear in d
    U_x = tf.gradients(g, d)[0]              # ∂(Σg)/∂d = J·1, whatever d holds

``g`` is linear in ``d`` (``U`` and ``x`` do not depend on it), so its derivative with
respect to ``d`` is the same for every value of ``d``: the graph that computes it reads
``d``'s shape (that of ``U``, as ``grad_ys`` must have), never its values.  The program
still has to feed ``d`` in TF1, and a run that does not (a prediction fetching only
``U``) cannot become a TF2 function that computes ``U_x`` without it.  Any tensor of
``U``'s shape gives the same derivative, so ``d`` becomes ``tf.ones_like(U)``, bound
before the first gradient, and the placeholder is read by nothing: the generated
functions no longer take it and the values fed to it are no longer needed.

Only that exact shape is rewritten, for each placeholder every reference of which (in
the whole file) is the ``grad_ys`` of such a first ``tf.gradients``, the source of the
matching second one (no ``grad_ys``, nothing between the two but ``[i]``, the first's
result bound once to a name read only there), a ``feed_dict`` key, or its own
definition.  Anything else reading it (a fetch, an op, a second gradient of a function of
``g``, which would not be linear) leaves the file to the other rewrites; if the graph then
stays on TF1, a finding says what kept such a placeholder from being a seed.

The rewrite runs before the graph analysis, on the module (as the summaries rewrite
does); each seed adds one line, which ``map_line`` takes back out of the findings'
positions.  If the graph then stays on TF1 for another reason, the original is migrated
instead.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.catalogue import GRADIENT_OPTIONS_DROPPED
from tf2migrate.analysis.names import fresh_name, local_name, self_attribute
from tf2migrate.analysis.tf_imports import TfImports, dotted_name
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.traversal import walk

FORWARD_SEED = Rule(
    "TFM204",
    "forward-mode-seed",
    "A placeholder that only seeds a forward-mode derivative (a gradient of a gradient taken with respect to it) → tf.ones_like.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Replaces a placeholder `d` used only as `grad_ys` of `g = tf.gradients(U, x, grad_ys=d)[0]` and as the "
    "source of `tf.gradients(g, d)` (the double-gradient trick for a Jacobian-vector product) by "
    "`d = tf.ones_like(U)`, bound before the first gradient; the placeholder is no longer read or fed.",
    why="`g` is linear in `d`, so its gradient with respect to `d` does not depend on the values of `d`: any "
    "tensor of `U`'s shape gives TF1's result. TF1 still needed `d` fed; a TF2 function would need it as an "
    "argument, which runs that did not feed it (a prediction) cannot pass.",
    example="g = tf.gradients(U, x, grad_ys=self.dummy_tf)[0]\nreturn tf.gradients(g, self.dummy_tf)[0]",
    instead="dummy_tf = tf.ones_like(U)\ng = tf.gradients(U, x, grad_ys=dummy_tf)[0]\nreturn tf.gradients(g, dummy_tf)[0]",
    invalid=(
        "import numpy as np\n"
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 1])\n"
        "d = tf.placeholder(tf.float32, [None, 2])\n"
        "U = tf.concat([tf.sin(x), x * x], 1)\n"
        "g = tf.gradients(U, x, grad_ys=d)[0]\n"
        "U_x = tf.gradients(g, d)[0]\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(U_x, {x: np.ones((3, 1)), d: np.ones((3, 2))}))\n",
    ),
    valid=(
        "import numpy as np\n"
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 1])\n"
        "d = tf.placeholder(tf.float32, [None, 2])\n"
        "U = tf.concat([tf.sin(x), x * x], 1)\n"
        "g = tf.gradients(U, x, grad_ys=d)[0]\n"
        "U_x = tf.gradients(g * g, d)[0]\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(U_x, {x: np.ones((3, 1)), d: np.ones((3, 2))}))\n",
    ),
)
RULES = [FORWARD_SEED]

_GRADIENTS_PARAMETERS = ("ys", "xs", "grad_ys", "name", *GRADIENT_OPTIONS_DROPPED)


@dataclass
class Seeded:
    """The module with its seeds (None: there are none), the findings about them (on its
    nodes), why the placeholders that look like seeds are not (on the original's nodes:
    reported if the graph stays on TF1), and where the lines it added stand (1-based, in
    its text)."""

    module: cst.Module | None
    notes: list[tuple[cst.CSTNode, str, str]]
    refused: list[tuple[cst.CSTNode, str, str]]
    added_lines: list[int] = field(default_factory=list)

    def map_line(self, line: int) -> int:
        """A line of the module's text (or of code migrated from it, line for line) as a
        line of the original: an added seed line counts as the statement it precedes."""
        return line - bisect.bisect_left(self.added_lines, line)


def seed_placeholders(module: cst.Module, imports: TfImports, names_in_use: set[str]) -> Seeded | None:
    """The module with every forward-mode seed placeholder replaced; None if no placeholder
    is or looks like one."""
    tf_name = next((alias for alias, path in imports.aliases.items() if path == ""), None)
    if tf_name is None:
        return None
    found_by = _Walk(imports)
    walk(module, found_by)
    pairs, refused = [], []
    for name in found_by.placeholders:
        found = _pairs(found_by, name)
        if isinstance(found, list):
            pairs.append((name, found))
        elif found is not None:
            node, reason = found
            message = (
                f"`{name}` is the `grad_ys` of a gradient and a source of gradients, as a forward-mode seed is, but {reason}: "
                "it stays a placeholder (not replaced by tf.ones_like)"
            )
            refused.append((node, FORWARD_SEED.code, message))
    if not pairs:
        return Seeded(None, [], refused) if refused else None
    seeds: dict[int, list[cst.SimpleStatementLine]] = {}  # statement → the seeds that go before it
    arguments: dict[int, str] = {}  # id of an Arg naming the placeholder → seed name
    messages: dict[int, str] = {}  # id of a seed → its finding
    for name, found in pairs:
        for first, second, statement in found:
            seed = fresh_name(local_name(name), names_in_use)
            ys = module.code_for_node(_argument(first, "ys").value)
            line = cst.parse_statement(f"{seed} = {tf_name}.ones_like({ys})\n", config=module.config_for_parsing)
            assert isinstance(line, cst.SimpleStatementLine)
            seeds.setdefault(id(statement), []).append(line)
            arguments[id(_argument(first, "grad_ys"))] = seed
            arguments[id(_argument(second, "xs"))] = seed
            messages[id(line)] = (
                f"`{name}` only seeds a forward-mode derivative (the gradient of `tf.gradients(..., grad_ys={name})` "
                f"with respect to it), which does not depend on its value: seeded with `{tf_name}.ones_like({ys})`; "
                "the placeholder is no longer fed"
            )
    inserter = _Insert(seeds, arguments)
    new = module.visit(inserter)
    positions = Positions(new)
    added = sorted(position[0] for line in inserter.placed.values() if (position := positions.get(line)) is not None)
    notes: list[tuple[cst.CSTNode, str, str]] = [(line, FORWARD_SEED.code, messages[key]) for key, line in inserter.placed.items()]
    return Seeded(new, notes, refused, added)


def _argument(call: cst.Call, parameter: str) -> cst.Arg:
    """An argument ``_pairs`` has shown the call to have."""
    bound = bind_arguments(call, _GRADIENTS_PARAMETERS)
    assert bound is not None and parameter in bound
    return bound[parameter]


# -- finding the seeds --------------------------------------------------------------------


@dataclass
class _Context:
    statement: cst.SimpleStatementLine | None  # the innermost simple statement line
    block: cst.CSTNode | None  # the Module or IndentedBlock whose body holds it
    functions: tuple[cst.FunctionDef, ...]  # the defs around it, outermost first


class _Walk(cst.CSTVisitor):
    """One walk: placeholder definitions, every reference to a graph name (a name, or an
    attribute of ``self``; not attribute names or keywords), ``tf.gradients`` calls and
    dict keys, each with the statement, block and function it stands in."""

    def __init__(self, imports: TfImports) -> None:
        self.tf = imports
        self.placeholders: dict[str, list[cst.AssignTarget]] = {}  # graph name → its definitions
        self.references: dict[str, list[cst.BaseExpression]] = {}  # graph name → every reference
        self.context: dict[int, _Context] = {}  # id of a reference or gradients call → where it stands
        self.gradients: list[cst.Call] = []
        self.dict_keys: set[int] = set()
        self._statements: list[cst.SimpleStatementLine | None] = [None]
        self._blocks: list[cst.CSTNode] = []
        self._functions: list[cst.FunctionDef] = []

    def _here(self) -> _Context:
        return _Context(self._statements[-1], self._blocks[-1] if self._blocks else None, tuple(self._functions))

    def visit_Module(self, node: cst.Module) -> None:
        self._blocks.append(node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._blocks.append(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._blocks.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._statements.append(node)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self._statements.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)
        self._statements.append(None)  # a def is not a statement of the line around it

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()
        self._statements.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.value, cst.Call) and self.tf.call_name(node.value) == "placeholder":
            target = node.targets[0].target
            name = target.value if isinstance(target, cst.Name) else self_attribute(target)
            if name is not None:
                self.placeholders.setdefault(name, []).append(node.targets[0])

    def visit_Call(self, node: cst.Call) -> None:
        if self.tf.call_name(node) == "gradients":
            self.gradients.append(node)
            self.context[id(node)] = self._here()

    def visit_DictElement(self, node: cst.DictElement) -> None:
        self.dict_keys.add(id(node.key))

    def visit_Arg(self, node: cst.Arg) -> bool:
        walk(node.value, self)  # ``keyword=`` names nothing
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        attribute = self_attribute(node)
        if attribute is not None:
            self._reference(attribute, node)
            return False
        walk(node.value, self)  # ``a.x`` reads ``a``, not a name ``x``
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self._reference(node.value, node)

    def _reference(self, name: str, node: cst.BaseExpression) -> None:
        self.references.setdefault(name, []).append(node)
        self.context[id(node)] = self._here()


# (first gradient, second gradient, the statement the seed goes before)
_Pair = tuple[cst.Call, cst.Call, cst.SimpleStatementLine]


def _pairs(walk: _Walk, name: str) -> list[_Pair] | tuple[cst.CSTNode, str] | None:
    """The gradient pairs placeholder ``name`` seeds, if that is all it does; else, if it
    looks like a seed (the ``grad_ys`` of one gradient and a source of another), where and
    why it is not one; None for any other placeholder."""
    definitions = walk.placeholders[name]
    references = walk.references.get(name, [])
    is_reference = {id(r) for r in references}
    firsts: dict[int, cst.Call] = {}  # id of the grad_ys Arg's call → call
    seconds: list[cst.Call] = []
    is_source = False
    used = {id(definitions[0].target)} | (walk.dict_keys & is_reference)
    for call in walk.gradients:
        bound = bind_arguments(call, _GRADIENTS_PARAMETERS)
        if bound is None:
            continue
        ys, grad_ys, xs = bound.get("ys"), bound.get("grad_ys"), bound.get("xs")
        if ys is None or xs is None:
            continue
        is_source = is_source or id(xs.value) in is_reference
        if grad_ys is not None and id(grad_ys.value) in is_reference:
            firsts[id(call)] = call
            used.add(id(grad_ys.value))
        elif grad_ys is None and id(xs.value) in is_reference:
            seconds.append(call)
            used.add(id(xs.value))
    if not firsts or not is_source:
        return None
    if len(definitions) != 1:
        return definitions[1], "it is bound more than once"
    other = next((r for r in references if id(r) not in used), None)
    if other is not None:
        return other, "it is read here too, so its value may matter"
    pairs = []
    for second in seconds:
        first, statement = _first_of(walk, second, firsts)
        if first is None or statement is None:
            return second, (
                "this gradient with respect to it is not taken of a gradient seeded with it alone (`g` bound once "
                "to `tf.gradients(U, x, grad_ys=d)[i]` and read only here, or that call written here), so it may "
                "depend on its value"
            )
        if not _simple(_argument(first, "ys").value):
            return first, "the seeded gradient's target is not a name (tf.ones_like of it would compute it again)"
        pairs.append((first, second, statement))
    paired = {id(first) for first, _, _ in pairs}
    unpaired = next((call for key, call in firsts.items() if key not in paired), None)
    if unpaired is not None or len(paired) != len(pairs):
        return unpaired or pairs[-1][0], "no gradient of this gradient is taken with respect to it alone, so the values fed to it matter"
    return pairs


def _first_of(walk: _Walk, second: cst.Call, firsts: dict[int, cst.Call]) -> tuple[cst.Call | None, cst.SimpleStatementLine | None]:
    """The first gradient whose result ``second`` differentiates — written in it
    (``tf.gradients(tf.gradients(U, x, grad_ys=d)[0], d)``) or bound once to a name it
    alone reads, earlier in the same block — and the statement the seed goes before."""
    ys = _without_index(_argument(second, "ys").value)
    here = walk.context[id(second)]
    if here.statement is None or len(here.statement.body) != 1:
        return None, None  # (the seed goes before a statement that does nothing else first)
    if isinstance(ys, cst.Call):
        return firsts.get(id(ys)), here.statement
    if not isinstance(ys, cst.Name):
        return None, None
    # the name's occurrences in the function of the second gradient, and in defs within it
    function = here.functions[-1] if here.functions else None
    occurrences = [r for r in walk.references.get(ys.value, []) if function is None or function in walk.context[id(r)].functions]
    bindings = [r for r in occurrences if r is not ys]
    if len(occurrences) != 2 or len(bindings) != 1:
        return None, None
    where = walk.context[id(bindings[0])]
    statement = where.statement
    if statement is None or where.block is not here.block or len(statement.body) != 1:
        return None, None
    assign = statement.body[0]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and assign.targets[0].target is bindings[0]):
        return None, None
    first = _without_index(assign.value)
    body = list(here.block.body)  # type: ignore[union-attr]
    if not isinstance(first, cst.Call) or id(first) not in firsts or not _before(body, statement, here.statement):
        return None, None
    return first, statement


def _before(body: list[cst.BaseStatement], earlier: cst.SimpleStatementLine, later: cst.SimpleStatementLine) -> bool:
    positions = {id(statement): index for index, statement in enumerate(body)}
    return id(earlier) in positions and id(later) in positions and positions[id(earlier)] < positions[id(later)]


def _without_index(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``e[0]`` → ``e``: the gradient of one entry of a list of gradients, with an integer
    written out."""
    if (
        isinstance(expr, cst.Subscript)
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
        and isinstance(expr.slice[0].slice.value, cst.Integer)
    ):
        return expr.value
    return expr


def _simple(expr: cst.BaseExpression) -> bool:
    """A name or a chain of attributes: ``tf.ones_like`` of it reads the same tensor as the
    gradient after it, and evaluates nothing twice."""
    return dotted_name(expr) is not None


# -- rewriting ----------------------------------------------------------------------------


class _Insert(cst.CSTTransformer):
    """Each seed before the statement of its first gradient (which hands it its comments),
    and the placeholder's arguments of both gradients replaced by the seed."""

    def __init__(self, seeds: dict[int, list[cst.SimpleStatementLine]], arguments: dict[int, str]) -> None:
        super().__init__()
        self.seeds = seeds
        self.arguments = arguments
        # id of a seed as made → the node the new module holds (findings and lines are found on it)
        self.placed: dict[int, cst.SimpleStatementLine] = {}

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        seed = self.arguments.get(id(original_node))
        return updated_node if seed is None else updated_node.with_changes(value=cst.Name(seed))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        return updated_node.with_changes(body=self._body(original_node.body, updated_node.body))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=self._body(original_node.body, updated_node.body))

    def _body(self, originals, updated) -> list[cst.BaseStatement]:
        body: list[cst.BaseStatement] = []
        for original, statement in zip(originals, updated):
            for index, seed in enumerate(self.seeds.get(id(original), [])):
                placed = seed.with_changes(leading_lines=statement.leading_lines) if index == 0 else seed
                self.placed[id(seed)] = placed
                body.append(placed)
                statement = statement.with_changes(leading_lines=[])
            body.append(statement)
        return body
