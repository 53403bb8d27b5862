"""A loop that interleaves variable creation with ops → a loop that makes the variables,
keeping them in a list, and one that replays the loop over them with the ops.

TF1 tutorials (pkmital's 03_polynomial_regression, the autoencoders) build networks layer
by layer in one loop::

    Y_pred = tf.Variable(tf.random_normal([1]), name='bias')
    for pow_i in range(1, 5):
        W = tf.Variable(tf.random_normal([1]), name='weight_%d' % pow_i)
        Y_pred = tf.add(tf.multiply(tf.pow(X, pow_i), W), Y_pred)

The block both creates variables and computes with placeholder-dependent tensors
(TFM304): moved whole into a generated function it would make the variables again at each
call.  TF1 ran it once, and the variables' part of each iteration never needed the ops'
part, so the module is first rewritten, TF1 to TF1, into two loops over the same values::

    W_list = []
    for pow_i in range(1, 5):
        W = tf.Variable(tf.random_normal([1]), name='weight_%d' % pow_i)
        W_list.append(W)
    for pow_i, W in zip(range(1, 5), W_list):
        Y_pred = tf.add(tf.multiply(tf.pow(X, pow_i), W), Y_pred)

The first loop runs once where the original did and creates the same variables in the
same order (verify pairs initial values by creation order: tf2migrate/verify/creators.py);
the second is graph code of its own, which the migration moves into the generated function
like any loop of ops, replaying the loop over the variables kept in the list.

The body's statements are split in two: the variables' side holds each statement that
creates variables (a TF variable call, or a call of a module-level function that makes one)
and each assignment or ``name.append(...)``/``name.extend(...)`` that calls no TF op and
reads no name the ops' side binds; the ops' side holds every other statement.  The split
happens only when all of this holds (else nothing changes, and TFM304 stays):

- a plain ``for`` (no ``else``) whose body is simple statements only, or one ``with`` of
  scopes and devices (``tf.name_scope``, ``tf.variable_scope``, ``tf.device``, no ``as``)
  holding simple statements only — each side then replays the ``with``, so the variables get
  TF1's scoped names (TextCNN's ``with tf.name_scope("conv-maxpool-%s" % size):``) — with no
  ``break``, ``continue``, ``return``, ``yield``, ``del``, ``global`` or ``nonlocal``;
- the iterable is static: literals, names and subscripts, and calls of ``range``,
  ``enumerate``, ``zip``, ``reversed``, ``len``, ``list``, ``tuple`` or ``sorted`` only;
  no name it (or the ``with``'s scopes) reads is bound or changed in place in the body
  (evaluated twice, it gives the same values);
- the variables' side reads no name the ops' side binds or changes in place (it never
  needs the ops; but see the shape statements below), and the ops' side reads no name the
  variables' side changes in place;
- each name of the variables' side that the ops' side reads (carried through the list) is
  bound once in the body, before any statement of the ops' side reads it.

Shape statements.  The common MLP sizes each weight by the static shape of the layer the
ops' side computed in the iteration before (pkmital's autoencoders)::

    for layer_i, n_output in enumerate(dimensions[1:]):
        n_input = int(current_input.get_shape()[1])
        W = tf.Variable(tf.random_uniform([n_input, n_output], ...))
        current_input = tf.nn.tanh(tf.matmul(current_input, W) + b)

TF1 fixed those numbers while it built the graph, from its shape inference; they are facts
of the program text when analysis/static_shapes.py proves them.  A statement ``name = <int
expression>`` that reads the ops' names only through shape reads (``h.get_shape()``,
``h.shape``) stays with the variables when the loop sits at the top of the module or of a
function's body (or of a ``with`` there: not in a branch or another loop), and
:func:`evaluate_module` follows the module and this loop iteration by iteration and gives
the statement's value at each one as an int.  In a function, :func:`evaluate_function`
follows its body alone, its parameters and the names it reads from the module unknown: a
number proven there comes from the body's own literals and TF1's shape rules, the same at
every call (a script's ``main()``, a factory written out in it); one that depends on the
arguments is not proven, and the loop stays.  The numbers are carried to
the variables' loop as literals in its header, one list per name, zipped with the
iterable, the statement dropped::

    for (layer_i, n_output), n_input in zip(enumerate(dimensions[1:]), [784, 256]):
        W = tf.Variable(tf.random_uniform([n_input, n_output], ...))

so the output reads as the original with the numbers TF1 computed (also given in the TFM133
note), and is exact: the variables' loop binds the same ints, in the same iterations, the
last one left bound after it as before.  The statement must evaluate to a Python int in TF1
(``int(...)``, ``len(...)``, ``.value``, ``.as_list()[i]``, ``.num_elements()``, integers
and ``+ - * //`` of those; not a ``Dimension``, which behaves otherwise where it is used as
one), be the only binding of its name in the body, with no statement before it (itself
included) reading the name (bound at the top of the iteration, the name would otherwise be
read before TF1 bound it); and every iteration's value must be proven (a ``None``
dimension, an op without a shape rule, an unknown iterable: the loop stays, TFM304).  The
ops' side reads the name through the list like any name of the variables' side.  A shape
read inside a variable's statement (``tf.Variable(tf.ones([int(h.shape[1]), n]))``) is not
carried: the loop stays.

migrate.py keeps the split module only if its graph then converts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis import static_shapes
from tf2migrate.analysis.catalogue import is_graph_op, makes_variables
from tf2migrate.analysis.names import assigned_names, changed_in_place, fresh_name, read_and_bound, scope_body, target_names
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.traversal import find_all

LOOP_SPLIT = Rule(
    "TFM133",
    "loop-split-variables-made-once",
    "A loop that interleaves variable creation with ops → its variables made once, its ops replayed in the generated function.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Splits a loop over a static iterable whose body both creates variables and builds ops from placeholder-dependent "
    "tensors (`for i in range(n): W = tf.Variable(...); h = tf.matmul(h, W)`) into a loop that makes the variables, "
    "keeping them in a list, and a loop over the same values and that list that builds the ops, which then converts.",
    why="TF1 ran the loop once: its variables were made once, in this order, and its ops computed at every run. Moved "
    "whole into a generated function, the variables would be made again at each call (TFM304). The variables' part "
    "of each iteration must not read the ops' part, except for static shapes TF1 fixed while building the graph, "
    "which the variables' loop is given as the numbers they were; the conditions are in `tf2migrate/rewrites/loop_split.py`.",
    example="for i in range(3):\n    W = tf.Variable(tf.ones([4, 4]))\n    h = tf.matmul(h, W)",
    instead="W_list = []\nfor i in range(3):\n    W = tf.Variable(tf.ones([4, 4]))\n    W_list.append(W)\n"
    "# in the generated function:\nfor i, W in zip(range(3), W_list):\n    h = tf.matmul(h, W)",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "h = x\n"
        "for i in range(2):\n"
        "    W = tf.Variable(tf.ones([2, 2]))\n"
        "    h = tf.matmul(h, W)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(h, {x: [[1.0, 2.0]]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "h = x\n"
        "for i in range(2):\n"
        "    W = tf.Variable(tf.ones([2, int(h.shape[1])]))   # sized by the ops of the iteration before\n"
        "    h = tf.matmul(h, W)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(h, {x: [[1.0, 2.0]]}))\n",
    ),
)
RULES = [LOOP_SPLIT]

# Builtins a static iterable may call: their value depends on their arguments only.
_STATIC_CALLS = frozenset({"range", "enumerate", "zip", "reversed", "len", "list", "tuple", "sorted"})
_STATIC_NODES = (
    cst.Name,
    cst.Attribute,
    cst.Integer,
    cst.Float,
    cst.SimpleString,
    cst.List,
    cst.Tuple,
    cst.Element,
    cst.Subscript,
    cst.SubscriptElement,
    cst.Index,
    cst.Slice,
    cst.Call,
    cst.Arg,
    cst.UnaryOperation,
    cst.BinaryOperation,
)
# Statements that leave a loop's body or change how names bind: the body is not split.
_EXITS = (cst.Break, cst.Continue, cst.Return, cst.Yield, cst.Del, cst.Global, cst.Nonlocal, cst.Raise)
_CHANGERS = frozenset({"append", "extend"})
# Contexts a split body may sit in: they name what is made under them, nothing more.
_SCOPES = frozenset({"name_scope", "variable_scope", "device", "compat.v1.name_scope", "compat.v1.variable_scope"})


@dataclass
class Split:
    """The module's text with the loops split, the original line each of its lines comes
    from, and the notes to report (on the original's lines)."""

    source: str
    lines: list[int]  # 1-based original line of each line of ``source`` (index 0: line 1)
    notes: list[tuple[int, int, str]] = field(default_factory=list)  # (line, 1-based column, message)

    def map_line(self, line: int) -> int:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else line


def split_loops(
    module: cst.Module, imports: TfImports, lines: set[int], imported: Mapping[str, static_shapes.Imported] = static_shapes.NO_IMPORTED
) -> Split | None:
    """The module with each loop starting on one of ``lines`` split where that keeps its
    meaning; None if none is.  ``imported``: the project's graph builders the module imports,
    which the shape rules follow (analysis/imported_helpers.py)."""
    positions = Positions(module)
    makers = _variable_makers(module, imports)
    builders = _graph_builders(module, imports)
    in_use = {n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name)}
    text = module.code.splitlines(keepends=True)
    replaced: list[tuple[int, int, list[tuple[str, int]], str]] = []  # (first, last line, new lines, note)
    for block in [module, *find_all(module, cst.IndentedBlock)]:
        assert isinstance(block, (cst.Module, cst.IndentedBlock))
        for index, loop in enumerate(block.body):
            if not isinstance(loop, cst.For) or _line(positions, loop) not in lines:
                continue
            sides = _sides(module, loop, imports, makers, builders, _runs_once_in(module, block), imported=imported)
            if sides is None:
                continue
            starts = {name: _start(block.body[:index], name, imports, makers) for name in _state(sides)}
            renamed = {name: fresh_name(f"{name}_0", in_use) for name, start in starts.items() if start is not None}
            for name, start in starts.items():
                if start is not None:
                    replaced.append(_renamed_start(start, renamed[name], positions, text))
            replaced.append(_render(module, loop, sides, positions, text, in_use, renamed))
    if not replaced:
        return None
    out: list[str] = []
    origin: list[int] = []
    notes: list[tuple[int, int, str]] = []
    current = 1
    for first, last, new, note in sorted(replaced):
        for number in range(current, first):
            out.append(text[number - 1])
            origin.append(number)
        for line, number in new:
            out.append(line)
            origin.append(number)
        notes.append((first, len(text[first - 1]) - len(text[first - 1].lstrip()) + 1, note))  # (at the statement, indented or not)
        current = last + 1
    for number in range(current, len(text) + 1):
        out.append(text[number - 1])
        origin.append(number)
    return Split("".join(out), origin, notes)


@dataclass
class _Sides:
    variables: list[cst.SimpleStatementLine]
    ops: list[cst.SimpleStatementLine]
    carried: list[str]
    scope: cst.With | None = None  # the body's one ``with`` of scopes, replayed on each side
    # ``name = <number read off the ops' static shapes>`` statements: the name and its value
    # at each iteration, bound by the variables' loop's header in their place
    shaped: list[tuple[cst.SimpleStatementLine, str, list[int]]] = field(default_factory=list)


def _state(sides: _Sides) -> list[str]:
    """Names the ops' side binds and reads (``Y_pred = tf.add(..., Y_pred)``)."""
    bound = [n for s in sides.ops for n in _bound(s)]
    read = {n for s in sides.ops for n in read_and_bound(s)[0]}
    return [n for n in dict.fromkeys(bound) if n in read]


def _start(before: Sequence[cst.BaseStatement], name: str, imports: TfImports, makers: set[str]) -> cst.Name | None:
    """The target of ``name = <expression making a variable>``, the last statement before the
    loop that binds ``name``, when no statement between reads it: the ops' side starts from
    that variable (``Y_pred = tf.Variable(...)``; ``for ...: Y_pred = tf.add(..., Y_pred)``).
    Moved into a function, the loop would read a local not yet bound; the variable gets a
    name of its own and the ops' side starts from it (``Y_pred = Y_pred_0``)."""
    for index in range(len(before) - 1, -1, -1):
        statement = before[index]
        reads, binds = read_and_bound(statement)
        if name not in binds and name not in assigned_names(statement):
            if name in reads:
                return None
            continue
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
            return None
        assign = statement.body[0]
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
            return None
        if name in read_and_bound(assign.value)[0] or not any(
            _makes_variables(c, imports, makers) for c in find_all(assign.value, cst.Call)
        ):
            return None
        return assign.targets[0].target
    return None


def _renamed_start(target: cst.Name, renamed: str, positions: Positions, text: list[str]) -> tuple[int, int, list[tuple[str, int]], str]:
    line, column = positions.get(target) or (0, 0)
    original = text[line - 1]
    edited = original[:column] + renamed + original[column + len(target.value) :]
    return line, line, [(edited, line)], f"the variable `{target.value}` the loop below starts from is named `{renamed}`"


def _variable_makers(module: cst.Module, imports: TfImports) -> set[str]:
    """Module-level functions whose own body calls a TF variable constructor
    (``def weight_variable(shape): return tf.Variable(...)``)."""
    return {
        node.name.value
        for node in module.body
        if isinstance(node, cst.FunctionDef) and any(_makes_variables(c, imports, set()) for c in find_all(node.body, cst.Call))
    }


def _graph_builders(module: cst.Module, imports: TfImports) -> set[str]:
    """Module-level functions whose own body calls a TF op that builds graph ops."""
    return {
        node.name.value
        for node in module.body
        if isinstance(node, cst.FunctionDef)
        and any(
            (name := imports.call_name(c)) is not None and is_graph_op(name)
            for c in find_all(node.body, cst.Call)
            if isinstance(c, cst.Call)
        )
    }


def _makes_variables(call: cst.CSTNode, imports: TfImports, makers: set[str]) -> bool:
    if not isinstance(call, cst.Call):
        return False
    if isinstance(call.func, cst.Name) and call.func.value in makers:
        return True
    name = imports.call_name(call)
    return name is not None and makes_variables(name)


def _sides(
    module: cst.Module,
    loop: cst.For,
    imports: TfImports,
    makers: set[str],
    builders: set[str],
    top: cst.Module | cst.FunctionDef | None,
    why: list[str] | None = None,
    imported: Mapping[str, static_shapes.Imported] = static_shapes.NO_IMPORTED,
) -> _Sides | None:
    """The body's statements on the variables' side and on the ops' side, and the names
    carried from one to the other; None when the loop is not split (module docstring).
    ``top``: the module or function whose body the loop runs once in, each time it runs (not
    in a branch or another loop), or None; ``why``
    gets the reason when a number read off the ops' static shapes keeps the loop."""
    if loop.orelse is not None or loop.asynchronous is not None or not isinstance(loop.body, cst.IndentedBlock):
        return None
    body = loop.body.body
    scope = _scope(body, imports)
    if scope is not None:
        body = cst.ensure_type(scope.body, cst.IndentedBlock).body
    if not all(isinstance(s, cst.SimpleStatementLine) for s in body) or any(find_all(s, _EXITS) for s in body):
        return None
    if not _static(loop.iter):
        return None
    statements = [s for s in body if isinstance(s, cst.SimpleStatementLine)]
    creating = [any(_makes_variables(c, imports, makers) for c in find_all(s, cst.Call)) for s in statements]
    if not any(creating):
        return None
    # True: on the ops' side.  A statement reading a name the ops' side binds joins it (within
    # an iteration and across iterations: until nothing moves)
    side = [not c and not _variables_side(s, imports, builders) for s, c in zip(statements, creating)]
    # a shape statement (``n_in = int(h.get_shape()[1])``) reads the ops' names only for the
    # static shapes TF1 fixed while building the graph: it stays with the variables if those are proven
    reads = [
        _plain_reads(s) if top is not None and not c and _shape_statement(s) else read_and_bound(s)[0] for s, c in zip(statements, creating)
    ]
    ops_bound = _bound_by(statements, side)
    while moved := [i for i, s in enumerate(statements) if not side[i] and not creating[i] and set(reads[i]) & ops_bound]:
        for index in moved:
            side[index] = True
        ops_bound = _bound_by(statements, side)
    shaped_statements = [s for i, s in enumerate(statements) if not side[i] and set(read_and_bound(s)[0]) - set(reads[i]) & ops_bound]
    variables: list[cst.SimpleStatementLine] = []
    ops: list[cst.SimpleStatementLine] = []
    ops_changed = {n for s, o in zip(statements, side) if o for n in changed_in_place(s)}
    variables_changed = {n for s, o in zip(statements, side) if not o for n in changed_in_place(s)}
    for statement, on_ops in zip(statements, side):
        (ops if on_ops else variables).append(statement)
    if not ops:
        return None
    variable_reads = {n for i, s in enumerate(statements) if not side[i] for n in reads[i]}
    if variable_reads & (ops_bound | ops_changed):
        if why is not None:  # the variables need the ops: through a shape statement?
            why += [
                _shape_refusal(s, top) for i, s in enumerate(statements) if side[i] and set(_bound(s)) & variable_reads and _shape_reads(s)
            ][:1]
        return None
    shaped = (
        _shaped(module, top, loop, imports, statements, shaped_statements, ops_changed, imported)
        if top is not None and shaped_statements
        else []
    )
    if isinstance(shaped, str):
        if why is not None:
            why.append(shaped)
        return None  # a number read off the ops' shapes is not proven
    variables = [s for s in variables if not any(s is t for t, _, _ in shaped)]
    ops_reads = [n for s in ops for n in read_and_bound(s)[0]]
    if set(ops_reads) & variables_changed:
        return None
    iterable_names = set(read_and_bound(loop.iter)[0])
    if scope is not None:
        iterable_names |= {n for item in scope.items for n in read_and_bound(item.item)[0]}
    if iterable_names & ({n for s in statements for n in _bound(s)} | ops_changed | variables_changed):
        return None
    # (the shape statements' names too: the header binds them in the variables' loop only)
    variables_bound = [n for i, s in enumerate(statements) if not side[i] for n in _bound(s)]
    carried = [n for n in dict.fromkeys(variables_bound) if n in ops_reads]
    for name in carried:
        if variables_bound.count(name) != 1:
            return None
        binding = next(i for i, s in enumerate(statements) if name in _bound(s))
        first_read = next(i for i, s in enumerate(statements) if side[i] and name in read_and_bound(s)[0])
        if first_read < binding:
            return None
    return _Sides(variables, ops, carried, scope, shaped)


def unsplit_reasons(
    module: cst.Module, imports: TfImports, lines: set[int], imported: Mapping[str, static_shapes.Imported] = static_shapes.NO_IMPORTED
) -> dict[int, str]:
    """Why each loop starting on one of ``lines`` is not split, by line, when a number read
    off the ops' static shapes keeps it (appended to its TFM304)."""
    positions = Positions(module)
    makers = _variable_makers(module, imports)
    builders = _graph_builders(module, imports)
    reasons: dict[int, str] = {}
    for block in [module, *find_all(module, cst.IndentedBlock)]:
        assert isinstance(block, (cst.Module, cst.IndentedBlock))
        for loop in block.body:
            if isinstance(loop, cst.For) and (line := _line(positions, loop)) in lines:
                why: list[str] = []
                if _sides(module, loop, imports, makers, builders, _runs_once_in(module, block), why, imported) is None and why:
                    reasons[line] = why[0]
    return reasons


def _runs_once_in(module: cst.Module, block: cst.Module | cst.IndentedBlock) -> cst.Module | cst.FunctionDef | None:
    """The module or function whose body ``block`` is, or the body of a ``with`` at its top:
    a loop there runs once each time the module or function runs; else None."""
    scopes: list[cst.Module | cst.FunctionDef] = [module, *(f for f in find_all(module, cst.FunctionDef) if isinstance(f, cst.FunctionDef))]
    for scope in scopes:
        own_block = scope if isinstance(scope, cst.Module) else scope.body
        if block is own_block or any(isinstance(s, cst.With) and s.body is block for s in scope_body(scope)):
            return scope
    return None


def _shape_statement(statement: cst.SimpleStatementLine) -> bool:
    """``name = <expression with a static shape read>`` (``n_in = int(h.get_shape()[1])``)."""
    if len(statement.body) != 1 or not isinstance(assign := statement.body[0], cst.Assign):
        return False
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return False
    return bool(_shape_reads(assign.value)) and _python_int(assign.value)


def _python_int(node: cst.BaseExpression) -> bool:
    """An expression TF1 evaluated to a Python int (or None), not to a ``Dimension``:
    ``int(...)``, ``len(...)``, ``d.value``, ``shape.as_list()[i]``, ``shape.num_elements()``,
    integers and arithmetic on them.  The variables' loop is given plain ints in its place."""
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.Call):
        func = node.func
        return (
            isinstance(func, cst.Name)
            and func.value in ("int", "len")
            or isinstance(func, cst.Attribute)
            and func.attr.value == "num_elements"
        )
    if isinstance(node, cst.Attribute):
        return node.attr.value == "value"
    if isinstance(node, cst.Subscript):
        holder = node.value
        return isinstance(holder, cst.Call) and isinstance(holder.func, cst.Attribute) and holder.func.attr.value == "as_list"
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)):
        return _python_int(node.left) and _python_int(node.right)
    return False


def _shape_reads(node: cst.CSTNode) -> list[cst.CSTNode]:
    return [n for n in find_all(node, (cst.Call, cst.Attribute)) if static_shapes.is_shape_read(n)]


def _plain_reads(statement: cst.SimpleStatementLine) -> list[str]:
    """The names a statement reads other than through a shape read (``h`` of ``h.get_shape()``)."""
    plain: cst.CSTNode = statement
    for read in _shape_reads(statement):
        holder = (
            cst.ensure_type(read.func, cst.Attribute).value if isinstance(read, cst.Call) else cst.ensure_type(read, cst.Attribute).value
        )
        plain = plain.deep_replace(holder, cst.Integer("0"))
    return read_and_bound(plain)[0]


def _shaped(
    module: cst.Module,
    scope: cst.Module | cst.FunctionDef,
    loop: cst.For,
    imports: TfImports,
    statements: list[cst.SimpleStatementLine],
    shaped: list[cst.SimpleStatementLine],
    ops_changed: set[str],
    imported: Mapping[str, static_shapes.Imported],
) -> list[tuple[cst.SimpleStatementLine, str, list[int]]] | str:
    """Each shape statement's name and its value at each iteration, as TF1's shape inference
    fixed it (analysis/static_shapes.py follows the module, and this loop iteration by
    iteration); why not, unless every value is a proven int and the name may be bound at the
    top of each iteration instead (bound by this statement only, read by none before it)."""
    followed = frozenset({id(loop)})
    if isinstance(scope, cst.Module):
        found = static_shapes.evaluate_module(module, imports, {id(s) for s in shaped}, set(), followed, imported)
    else:
        found = static_shapes.evaluate_function(module, scope, imports, {id(s) for s in shaped}, followed, imported)
    runs = found.runs.get(id(loop), [])
    out: list[tuple[cst.SimpleStatementLine, str, list[int]]] = []
    for statement in shaped:
        assign = cst.ensure_type(statement.body[0], cst.Assign)
        name = cst.ensure_type(assign.targets[0].target, cst.Name).value
        index = next(i for i, s in enumerate(statements) if s is statement)
        reads = f"`{name}` is read off the static shapes the ops' side gives"
        if name in ops_changed or sum(name in _bound(s) for s in statements) != 1 or name in target_names(loop.target):
            return f"{reads}, and is bound again in the body"
        if any(name in read_and_bound(s)[0] for s in statements[: index + 1]):
            return f"{reads}, and is read in the body before it is bound (the iteration before's value)"
        envs = found.each.get(id(statement), [])
        if len(runs) != 1 or found.evaluator is None or len(envs) != runs[0]:
            # not followed, or followed more than once (nested in a followed loop)
            if isinstance(scope, cst.FunctionDef):
                return (
                    f"{reads}, and the loop's iterations are not known from `{scope.name.value}`'s own values (they depend on "
                    "its arguments or on names it reads from elsewhere: each call may give others)"
                )
            return (
                f"{reads}, and the loop's iterations are not known (an iterable of literals and builtins, nothing leaving the body early)"
            )
        values = [static_shapes.proven_int(found.evaluator.expression(assign.value, dict(env), 0)) for env in envs]
        if any(v is None for v in values):
            return (
                f"{reads}, not proven at each iteration (a `None` dimension, or an op the shape rules do not follow: only "
                "placeholders' declared shapes and literal reshapes, convolutions, pools, matmuls and element-wise ops are)"
            )
        out.append((statement, name, [v for v in values if v is not None]))
    return out


def _shape_refusal(statement: cst.SimpleStatementLine, top: cst.Module | cst.FunctionDef | None) -> str:
    """Why a statement reading the ops' static shapes did not stay with the variables."""
    names = ", ".join(f"`{n}`" for n in _bound(statement))
    if top is None:
        return (
            f"{names} is read off the static shapes the ops' side gives, in a loop that does not run once each time its "
            "module or function runs (in a branch or another loop)"
        )
    if not _shape_statement(statement):
        return f"{names} is read off the static shapes the ops' side gives, but not as a Python int (`int(...)`, `.value`, `.as_list()[i]`)"
    return f"{names} reads the ops' side other than through its static shapes"


def _scope(body: Sequence[cst.BaseStatement], imports: TfImports) -> cst.With | None:
    """The loop body's one statement when it is a ``with`` of TF scopes and devices only
    (no ``as``, no ``async``) over an indented block."""
    if len(body) != 1 or not isinstance(body[0], cst.With):
        return None
    scope = body[0]
    if scope.asynchronous is not None or not isinstance(scope.body, cst.IndentedBlock):
        return None
    for item in scope.items:
        if item.asname is not None or not isinstance(item.item, cst.Call) or imports.call_name(item.item) not in _SCOPES:
            return None
    return scope


def _variables_side(statement: cst.SimpleStatementLine, imports: TfImports, builders: set[str]) -> bool:
    """An assignment, ``name.append(...)`` or ``name.extend(...)`` that calls no TF op nor a
    module function building ops (``h = dense(h, W)``, a helper split by
    rewrites/helper_split.py): it runs with the variables, once, as in TF1 (unless it reads
    what the ops' side binds)."""
    if any(isinstance(c, cst.Call) and isinstance(c.func, cst.Name) and c.func.value in builders for c in find_all(statement, cst.Call)):
        return False
    for small in statement.body:
        if isinstance(small, cst.Expr):
            call = small.value
            if not (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and isinstance(call.func.value, cst.Name)
                and call.func.attr.value in _CHANGERS
            ):
                return False
        elif not isinstance(small, (cst.Assign, cst.AnnAssign)):
            return False
    return not any((name := imports.call_name(c)) is not None and is_graph_op(name) for c in find_all(statement, cst.Call))


def _bound_by(statements: list[cst.SimpleStatementLine], side: list[bool]) -> set[str]:
    return {n for s, on_ops in zip(statements, side) if on_ops for n in _bound(s)}


def _bound(statement: cst.SimpleStatementLine) -> list[str]:
    return list(dict.fromkeys([*assigned_names(statement), *read_and_bound(statement)[1]]))


def _static(iterable: cst.BaseExpression) -> bool:
    """Literals, names, subscripts and calls of a few builtins only (module docstring)."""
    for node in find_all(iterable, cst.CSTNode):
        if isinstance(node, cst.Call) and not (isinstance(node.func, cst.Name) and node.func.value in _STATIC_CALLS):
            return False
        if isinstance(node, cst.BaseExpression) and not isinstance(node, _STATIC_NODES):
            return False
    return True


def _render(
    module: cst.Module, loop: cst.For, sides: _Sides, positions: Positions, text: list[str], in_use: set[str], renamed: dict[str, str]
) -> tuple[int, int, list[tuple[str, int]], str]:
    """The loop's lines (first, last) and the lines that replace them, each with the
    original line it comes from; the note."""
    start = _line(positions, loop)
    indent = text[start - 1][: len(text[start - 1]) - len(text[start - 1].lstrip())]
    chunks = {id(s): _chunk(module, s, positions) for s in [*sides.variables, *sides.ops, *(s for s, _, _ in sides.shaped)]}
    body_first = min(first for first, _ in chunks.values())
    last = max(end for _, end in chunks.values())
    first_line = text[_line(positions, loop.body.body[0]) - 1]
    inner = first_line[: len(first_line) - len(first_line.lstrip())]
    # the ``with`` line(s) of the scope, replayed above the ops' side
    header = [] if sides.scope is None else [(text[number - 1], number) for number in range(_line(positions, sides.scope), body_first)]
    newline = module.default_newline
    target = module.code_for_node(loop.target)
    if isinstance(loop.target, cst.Tuple) and not loop.target.lpar:
        target = f"({target})"
    iterable = module.code_for_node(loop.iter)
    new: list[tuple[str, int]] = []
    if sides.carried:
        carried = sides.carried[0] if len(sides.carried) == 1 else f"({', '.join(sides.carried)})"
        listed = fresh_name("_".join(sides.carried) + "_list", in_use)
        new.append((f"{indent}{listed} = []{newline}", start))
        replay = f"{indent}for {target}, {carried} in zip({iterable}, {listed}):{newline}"
    else:
        listed = ""
        replay = f"{indent}for {module.code_for_node(loop.target)} in {iterable}:{newline}"
    if sides.shaped:
        # the shape statements' names bound by the header, to the numbers TF1 read at each iteration
        names = ", ".join(name for _, name, _ in sides.shaped)
        numbers = ", ".join(f"[{', '.join(map(str, values))}]" for _, _, values in sides.shaped)
        new.append((f"{indent}for {target}, {names} in zip({iterable}, {numbers}):{newline}", start))
        new += header
    else:
        new += [(text[number - 1], number) for number in range(start, body_first)]
    for statement in sides.variables:
        first, end = chunks[id(statement)]
        new += [(text[number - 1], number) for number in range(first, end + 1)]
    if sides.carried:
        new.append((f"{inner}{listed}.append({carried}){newline}", start))
    new += [(f"{indent}{name} = {variable}{newline}", start) for name, variable in renamed.items()]
    new += [(line + newline, start) for line in replay.rstrip("\r\n").split("\n")]
    new += header
    for statement in sides.ops:
        first, end = chunks[id(statement)]
        new += [(text[number - 1], number) for number in range(first, end + 1)]
    kept = f" (the variables kept in `{listed}`)" if sides.carried else ""
    shapes = "".join(
        f"; `{name}` is read off the static shape TF1 gave the ops at each iteration ({', '.join(map(str, values))})"
        for _, name, values in sides.shaped
    )
    note = (
        "this loop both creates variables and builds ops: split into a loop that makes the variables, once, in TF1's "
        f"order, and one over the same values that builds the ops{kept}{shapes}"
    )
    return start, last, new, note


def _line(positions: Positions, node: cst.CSTNode) -> int:
    found = positions.get(node)
    assert found is not None  # every node of the module has a start
    return found[0]


def _chunk(module: cst.Module, statement: cst.SimpleStatementLine, positions: Positions) -> tuple[int, int]:
    """The lines of a statement of the body, its leading comments and blank lines included."""
    start = _line(positions, statement)
    own = len(module.code_for_node(statement.with_changes(leading_lines=())).splitlines())
    return start - len(statement.leading_lines), start + own - 1
