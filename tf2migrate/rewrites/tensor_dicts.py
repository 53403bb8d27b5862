"""A dict display of graph names read by literal keys → the names themselves.

Model factories return their placeholders and tensors in a dict (pkmital's autoencoders,
once written out at their call by rewrites/factory_inline.py)::

    ae = {'x': x, 'z': z, 'y': y, 'cost': cost}
    optimizer = tf.train.AdamOptimizer(0.01).minimize(ae['cost'])
    sess.run(optimizer, feed_dict={ae['x']: batch})

The analysis follows placeholders and tensors by name; ``ae['x']`` names none, so the feed
was refused (TFM302, "an item of `ae`, a container whose items this release does not read as graph values").  The module is first rewritten,
TF1 to TF1, with each ``ae['x']`` written as ``x`` (the lines stay where they were), then
migrated again; the dict, read by nothing any more, is graph code no run fetches (TFM110).

The dict may live at the module's top level or at the top of a function's body (a script's
``main()`` or ``test_mnist()`` that calls the factory); "the scope" below is that one.
``ae['x']`` and ``x`` are one object at every read only where (else nothing changes):

- ``ae`` is bound once in the scope, at its top level, by ``ae = {...}``, a display whose
  keys are string literals and whose values are names (in a function: a plain local of it,
  no parameter, not declared ``global`` or ``nonlocal``);
- every other use of ``ae`` is ``ae['key']`` with a key of the display, read (not assigned,
  deleted or augmented), at the scope's top level after the binding — no function, class or
  comprehension inside the scope mentions ``ae``;
- each name a read key stands for is bound before the dict, by statements at the scope's
  top level (or as the function's parameter), and never after it: no later statement binds
  or deletes it, and no scope inside binds it (``cur`` rebound by the layer loop before
  ``ae = {'y': cur}`` is the object the dict holds at every read after it);
- the module calls none of ``globals``, ``locals``, ``vars``, ``exec``, ``eval``, ``dir``.

migrate.py makes the rewrite only for a file kept on TF1 with a refusal naming such a read,
and keeps it only if the graph then converts.
"""

from __future__ import annotations

import re
import symtable
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.names import names_bound, scope_body
from tf2migrate.analysis.symbol_tables import function_table, module_table, tables_under
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.traversal import FastTransformer, find_all

TENSOR_DICT_READ = Rule(
    "TFM151",
    "tensor-dict-read-as-name",
    "`d['key']` of a dict display of graph names → the name it holds.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Writes each read `ae['x']` of a module-level dict display of graph names (`ae = {'x': x, 'cost': cost}`, what a "
    "model factory returned) as the name the key stands for, when such a read kept the file on TF1 (a fed `ae['x']`); the "
    "graph code is then converted as the module's is, and the dict, read no more, goes with the graph code no run fetches.",
    why="The dict holds the very objects its names are bound to; the rewrite is made only when the dict and those names are "
    "each bound once, at the module's top level, and every use of the dict is a read by a literal key. The conditions are "
    "in `tf2migrate/rewrites/tensor_dicts.py`.",
    example="ae = {'x': x, 'cost': cost}\nsess.run(train, {ae['x']: batch})",
    instead="sess.run(train, {x: batch})  # then converted: train_step(x=batch)",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = x * 2.0\n"
        "net = {'x': x, 'y': y}\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(net['y'], {net['x']: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = x * 2.0\n"
        "net = {'x': x, 'y': y}\n"
        "net['y'] = y * 3.0\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(net['y'], {net['x']: [1.0]}))\n",
    ),
)
RULES = [TENSOR_DICT_READ]

# a read named by a refusal: `ae['x']`
REFUSED_READ = re.compile(r"`(\w+)\[['\"]")


@dataclass
class Resolved:
    """The module with the reads written as names (on the original's lines), and the notes."""

    source: str
    notes: list[tuple[int, int, str]] = field(default_factory=list)


def resolve_reads(module: cst.Module, source: str, dicts: set[str]) -> Resolved | None:
    """The module with the reads of each of ``dicts`` written as names, or None when none may be."""
    top = module_table(module, source)
    if top is None:
        return None
    positions = Positions(module)
    replacements: dict[int, cst.Name] = {}
    notes = []
    for name in sorted(dicts):
        for scope in _scopes_binding(module, name):
            table = top if isinstance(scope, cst.Module) else function_table(top, scope, (positions.get(scope.name) or (0, 0))[0])
            found = _resolved(scope, table, name) if table is not None else None
            if found is None:
                continue
            binding, reads = found
            replacements.update(reads)
            line = (positions.get(binding) or (1, 0))[0]
            notes.append((line, 1, f"`{name}['…']` written as the names the dict holds (what `{name}` was read for)"))
    if not replacements:
        return None
    return Resolved(module.visit(_Replace(replacements)).code, notes)


def _scopes_binding(module: cst.Module, name: str) -> list[cst.Module | cst.FunctionDef]:
    """The module and the functions whose top binds ``name`` to a dict display."""
    display = m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget(m.Name(name))], value=m.Dict())])
    scopes: list[cst.Module | cst.FunctionDef] = [module, *(f for f in find_all(module, cst.FunctionDef) if isinstance(f, cst.FunctionDef))]
    return [scope for scope in scopes if any(m.matches(s, display) for s in scope_body(scope))]


def _resolved(
    scope: cst.Module | cst.FunctionDef, table: symtable.SymbolTable, name: str
) -> tuple[cst.SimpleStatementLine, dict[int, cst.Name]] | None:
    """The dict's binding at the top of ``scope`` (the module or a function; ``table``, its
    symbol table) and, for each read ``name['key']``, the name it stands for."""
    body = list(scope_body(scope))
    bindings = [
        s for s in body if m.matches(s, m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget(m.Name(name))], value=m.Dict())]))
    ]
    if len(bindings) != 1:
        return None
    binding = bindings[0]
    assert isinstance(binding, cst.SimpleStatementLine)
    display = cst.ensure_type(cst.ensure_type(binding.body[0], cst.Assign).value, cst.Dict)
    held: dict[str, str] = {}
    for element in display.elements:
        if not m.matches(element, m.DictElement(key=m.SimpleString(), value=m.Name())):
            return None
        key = cst.ensure_type(cst.ensure_type(element, cst.DictElement).key, cst.SimpleString).evaluated_value
        if not isinstance(key, str) or key in held:
            return None
        held[key] = cst.ensure_type(cst.ensure_type(element, cst.DictElement).value, cst.Name).value
    # no other scope mentions the dict; in a function, it is the function's own local
    if any(name in {s.get_name() for s in t.get_symbols()} for t in tables_under(table)):
        return None
    if isinstance(scope, cst.FunctionDef) and not _plain_local(table, name):
        return None
    index = body.index(binding)
    reads: dict[int, cst.Name] = {}
    mentions = 0
    for position, statement in enumerate(body):
        for node in find_all(statement, cst.Name):
            if isinstance(node, cst.Name) and node.value == name:
                mentions += 1
        if position <= index:
            continue
        for subscript in find_all(statement, m.Subscript(value=m.Name(name))):
            assert isinstance(subscript, cst.Subscript)
            if len(subscript.slice) != 1 or not m.matches(subscript.slice[0].slice, m.Index(value=m.SimpleString())):
                return None
            key = cst.ensure_type(cst.ensure_type(subscript.slice[0].slice, cst.Index).value, cst.SimpleString).evaluated_value
            if key not in held:
                return None
            reads[id(subscript)] = cst.Name(held[key], lpar=subscript.lpar, rpar=subscript.rpar)
    if mentions != 1 + len(reads) or not reads:
        return None  # the dict is used otherwise (passed on, iterated, read before its binding)
    if _written(scope, reads):
        return None
    # each name read through the dict holds, at every read, what it held when the dict was made
    held_names = {n.value for n in reads.values()}
    if held_names - _not_bound_again(scope, table, body, index, held_names):
        return None
    return binding, reads


def _plain_local(table: symtable.SymbolTable, name: str, parameter: bool = False) -> bool:
    """Is ``name`` a local of the function, not declared global or nonlocal (and no parameter,
    unless ``parameter``)?"""
    try:
        symbol = table.lookup(name)
    except KeyError:
        return False
    return symbol.is_local() and (parameter or not symbol.is_parameter()) and not symbol.is_declared_global() and not symbol.is_nonlocal()


def _not_bound_again(
    scope: cst.Module | cst.FunctionDef, table: symtable.SymbolTable, body: list[cst.BaseStatement], index: int, names: set[str]
) -> set[str]:
    """Those of ``names`` bound before the dict's statement (``body[index]``) — by statements at
    the scope's top, or as a parameter of the function — and never after it, nor deleted, nor
    bound by any scope inside (a function rebinding one as a global or nonlocal could run
    between the dict and a read)."""
    bound = [set(names_bound(s)) for s in body]
    deleted = {
        n.value for d in find_all(scope, cst.Del) for n in find_all(cst.ensure_type(d, cst.Del).target, cst.Name) if isinstance(n, cst.Name)
    }
    bound_inside = {
        s.get_name()
        for inner in tables_under(table)
        for s in inner.get_symbols()
        if s.is_assigned() or s.is_declared_global() or s.is_nonlocal()
    }
    kept = names - deleted - bound_inside - {n for b in bound[index:] for n in b}
    if isinstance(scope, cst.FunctionDef):
        kept = {n for n in kept if _plain_local(table, n, parameter=True)}
        parameters = {n for n in kept if table.lookup(n).is_parameter()}
    else:
        parameters = set()
    return parameters | {n for n in kept - parameters if any(n in b for b in bound[:index])}


def _written(module: cst.Module | cst.FunctionDef, reads: dict[int, cst.Name]) -> bool:
    """Is one of the subscripts a target (assigned, augmented, deleted)?"""
    for node in find_all(module, (cst.AssignTarget, cst.AugAssign, cst.Del, cst.AnnAssign)):
        target = getattr(node, "target")  # noqa: B009 - each node's own field
        if any(id(s) in reads for s in find_all(target, cst.Subscript)):
            return True
    return False


class _Replace(FastTransformer):
    def __init__(self, replacements: dict[int, cst.Name]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):
        return self.replacements.get(id(original_node), super().on_leave(original_node, updated_node))
