"""Files whose only edits are renames: only the statements that name TensorFlow are
parsed with libcst.

Most files of a large tree are libraries: no graph to convert, no gradient of NumPy to
report, just TF1 names to rename (``tf.log`` → ``tf.math.log``) and the TF import to
write.  The renamer acts only on a few words (a TF alias, ``.value``, a TF1 iterator
method: ``analysis/edit_sites.edit_words``), so a statement whose lines hold none of them
comes out as it went in — and on tensor2tensor's library files two thirds of the lines
are in such statements.  Parsing them with libcst and rendering them back (the largest
cost of a run once the rest is pruned) buys nothing.

Here CPython's tree (already parsed for the file-wide facts) cuts the file into
*fragments*: the top-level import statements (the TF imports are rewritten, and every
import tells which names are TensorFlow) and the smallest statements whose lines hold one
of the words — a compound statement is looked into when only its blocks hold them.  Each
fragment is parsed alone (a nested one under an ``if True:`` header that is dropped again),
rewritten by the same ``PlanApplier`` the whole-module path uses, rendered, and put back
in place of its lines; every other character of the file is copied.  Findings are placed
by the fragment's own positions, shifted to its first line.  A fragment whose every edit
renames a reference whole is not even parsed: ``fragment_text`` writes the same
renames over its characters, placed by CPython's positions.

Anything this path does not reproduce exactly sends the file to the whole-module path
(``None``): a graph to analyse, a possible gradient trap, a TF import that is removed or
absl imports with no ``import tensorflow as tf`` to follow, a name conflict, page breaks
or carriage returns (whose lines libcst and CPython may count apart), a TF1 program that ran eagerly
(``rewrites/tf1_eager.py`` rewrites it whole), a variable scope that may make no variable
(``rewrites/variable_free_scopes.py`` reads its block whole), a fragment libcst
will not parse alone.  ``tests/test_renames_only.py`` compares both paths on every fixture
and on odd layouts; the real trees were compared byte for byte (README, Speed).
"""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass

import libcst as cst

from tf2migrate.analysis.edit_sites import ast_statements_in, edit_words, line_offsets, quiet_among, statement_span, word_lines
from tf2migrate.analysis.lookup_tables import one_table_lookups
from tf2migrate.analysis.module_facts import module_facts
from tf2migrate.analysis.tf_imports import tf_imports_of
from tf2migrate.layout import parse_module
from tf2migrate.fragment_text import text_renames
from tf2migrate.outcome import MigrationResult, RawFinding, outcome
from tf2migrate.plan import Plan
from tf2migrate.positions import Positions, render
from tf2migrate.rewrites.apply_plan import PlanApplier
from tf2migrate.rewrites.import_edits import absl_import, absl_names, import_conflict, plan_tf_import, tf_import_index
from tf2migrate.rewrites.predict_trap import may_have_traps
from tf2migrate.rewrites.tf1_eager import may_be_tf1_eager
from tf2migrate.rewrites.variable_free_scopes import may_have_variable_free_scopes
from tf2migrate.rewrites.tf_names import imports_absent_module, kept_import_findings
from tf2migrate.rewrites.written_helpers import written_definitions, written_statements
from tf2migrate.spliced_check import NESTED_HEADER, Splice, spliced_problem

_DECORATED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
)


@dataclass
class _Fragment:
    first: int  # 1-based line of the file where it starts
    last: int
    nodes: list[ast.stmt]  # the statements it holds (one block's, in order)
    nested: bool  # inside a block: parsed under NESTED_HEADER
    module: cst.Module | None = None
    new_module: cst.Module | None = None  # rewritten
    new_text: str | None = None  # rewritten as text (fragment_text), not parsed

    def statements(self, module: cst.Module) -> list[cst.CSTNode]:
        """Its libcst statements in ``module`` (its own parse or a rewrite of it)."""
        if not self.nested:
            return list(module.body)
        header = cst.ensure_type(module.body[0], cst.If)
        return list(cst.ensure_type(header.body, cst.IndentedBlock).body)


class _Positions:
    """Positions of nodes of any fragment, in the file's lines: each fragment's own
    positions (computed when one of its nodes is asked for), shifted to its first line."""

    def __init__(self, fragments: list[_Fragment], holders: dict[int, _Fragment]) -> None:
        self._fragments = fragments
        self._holders = holders  # node id → its fragment, where known
        self._positions: dict[int, Positions] = {}

    def get(self, node: cst.CSTNode) -> tuple[int, int] | None:
        holder = self._holders.get(id(node))
        for fragment in [holder] if holder is not None else self._fragments:
            assert fragment.module is not None
            positions = self._positions.get(id(fragment))
            if positions is None:
                positions = self._positions[id(fragment)] = Positions(fragment.module)
            position = positions.get(node)
            if position is not None:
                return fragment.first + position[0] - 1 - (1 if fragment.nested else 0), position[1]
        return None


def migrate_renames_only(
    source: str, tree: ast.Module, path: str, numpy_imports: dict[str, str] | None = None, tf1_callers: bool = False
) -> MigrationResult | None:
    """The migration of a file that only needs renames, or None when the whole-module path
    must do it (see the module doc).  ``numpy_imports``: the imported functions that return
    NumPy (their gradients are traps); ``tf1_callers``: TF1 code of the run imports it."""
    if "\r" in source or "\f" in source or source.startswith("\ufeff"):
        return None
    offsets = line_offsets(source)
    head = _import_region(tree.body)
    if head is None:
        return MigrationResult(source, [])  # no import: no TensorFlow name
    if not _parse(head, source, offsets):
        return None
    assert head.module is not None
    imports = tf_imports_of(head.module.body)
    if not imports.aliases:
        return MigrationResult(source, [])
    facts = module_facts(tree, imports, tf1_callers)
    if (
        facts.graph
        or may_have_traps(source, tree, numpy_imports)
        or may_be_tf1_eager(source)
        or may_have_variable_free_scopes(source, tree, imports.aliases)
    ):
        return None
    if not (facts.tf1 or facts.explicit_v1 or imports_absent_module(imports)):
        return MigrationResult(source, [])  # TF2 code, and no trap to report
    if import_conflict(imports, facts, tree) is not None:
        return None
    words = edit_words(imports)
    lines = word_lines(source, words)
    defines_main = any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "main" for n in tree.body)
    plan = Plan(absl_names=absl_names(head.module.body, facts.names), defines_main=defines_main, root_is_tf1=facts.tf1)
    config = head.module.config_for_parsing
    plan_tf_import(config, imports, plan)
    # (what tf2migrate wrote on an earlier run is TF2 code, not renamed: rewrites/written_helpers.py)
    ours = {id(node) for node in written_statements(tree)}
    statements = [node for node in tree.body if id(node) not in ours]
    fragments = [head, *(f for f in _fragments(statements, lines, source, offsets, False) if not head.first <= f.first <= head.last)]
    fragments.sort(key=lambda f: f.first)
    targets = plan.edited_nodes()
    holders: dict[int, _Fragment] = {}  # the nodes findings are about → their fragment
    written: list[RawFinding] = []  # the findings of fragments renamed as text
    for fragment in fragments:
        if fragment is not head:
            span = (offsets[fragment.first - 1], _end(source, offsets, fragment))
            renamed = text_renames(fragment.nodes, source, offsets, span, imports, plan.root_is_tf1, plan.absl_names)
            if renamed is not None:
                fragment.new_text = renamed.text
                written += renamed.findings
                plan.renames.absl_modules |= renamed.absl_modules
                continue
            if not _parse(fragment, source, offsets):
                return None
        assert fragment.module is not None
        quiet = quiet_among(fragment.statements(fragment.module), fragment.nodes, lines, targets)
        if ours and not fragment.nested:  # (the import region may hold some)
            quiet |= {id(statement) for statement in written_definitions(fragment.module)}
        noted = len(plan.renames.findings)
        plan.one_table_lookups |= one_table_lookups(fragment.module, imports)  # (names bound in other fragments: not followed)
        fragment.new_module = fragment.module.visit(PlanApplier(plan, imports, quiet, words))
        holders.update((id(node), fragment) for node, _, _ in plan.renames.findings[noted:])
    if not _insert_absl_import(plan, head, config):
        return None
    splices = [_splice(source, offsets, f) for f in fragments]
    new_source = _spliced(source, splices)
    kept = kept_import_findings(imports)
    made = [(f.node, f.code, f.message) for f in plan.findings]
    parsed = [f for f in fragments if f.module is not None]
    positions = _Positions(parsed, holders)

    def check() -> str | None:
        return spliced_problem(tree, source, new_source, imports, splices)

    return outcome(source, new_source, tree, imports, path, positions, kept, made, [*plan.renames.findings, *written], check)


def _import_region(statements: list[ast.stmt]) -> _Fragment | None:
    """The module's statements from its first import to its last: every import tells
    which names are TensorFlow, and TF imports are rewritten or removed.  The comments of
    a removed import go to the statement after it (rewrites/apply_plan.py), so when the
    last one may be removed (it imports from TensorFlow, and is not the first to: that
    one is replaced) the region takes that statement in too; otherwise it stays out, to be cut into fragments as any other (it
    is often a long class or test case that names TF nowhere)."""
    groups = _groups(statements, nested=False)
    holding = [i for i, g in enumerate(groups) if any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in g.nodes)]
    if not holding:
        return None
    tf_imports = [n for g in groups[holding[0] : holding[-1] + 1] for n in g.nodes if _imports_tensorflow(n)]
    # (the first TF import is replaced by ``import tensorflow as tf``, never removed)
    removable = any(n in tf_imports[1:] for n in groups[holding[-1]].nodes)
    region = groups[holding[0] : holding[-1] + (2 if removable else 1)]
    return _Fragment(region[0].first, region[-1].last, [n for g in region for n in g.nodes], nested=False)


def _imports_tensorflow(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Import):
        return any(alias.name.split(".")[0] == "tensorflow" for alias in statement.names)
    return isinstance(statement, ast.ImportFrom) and (statement.module or "").split(".")[0] == "tensorflow"


def _groups(statements: list[ast.stmt], nested: bool) -> list[_Fragment]:
    """The block's statements cut into line groups: statements that share a line (``a =
    1; b = 2``) are one libcst statement, so one group."""
    groups: list[_Fragment] = []
    for node in statements:
        first, last = statement_span(node)
        if groups and first <= groups[-1].last:
            groups[-1].nodes.append(node)
            groups[-1].last = max(groups[-1].last, last)
        else:
            groups.append(_Fragment(first, last, [node], nested))
    return groups


def _fragments(statements: list[ast.stmt], lines: list[int], source: str, offsets: list[int], nested: bool) -> list[_Fragment]:
    """The smallest groups of the block whose lines hold a word (``lines``)."""
    out: list[_Fragment] = []
    for group in _groups(statements, nested):
        if not _holds_line(lines, group.first, group.last):
            continue
        blocks = _blocks(group.nodes[0]) if len(group.nodes) == 1 and isinstance(group.nodes[0], _COMPOUND) else []
        if blocks and not _header_holds_word(group, blocks, lines, source, offsets):
            for block in blocks:
                out += _fragments(block, lines, source, offsets, True)
        else:
            out.append(group)
    return out


def _blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    blocks = [getattr(node, name, None) for name in ("body", "orelse", "finalbody")]
    blocks += [handler.body for handler in getattr(node, "handlers", ())]
    return [block for block in blocks if block]


def _header_holds_word(group: _Fragment, blocks: list[list[ast.stmt]], lines: list[int], source: str, offsets: list[int]) -> bool:
    """Does a line of the compound statement outside its blocks' statements hold a word —
    or does a block begin on a line of its header (``if x: y``, ``else: y``), so that it
    cannot be cut out?"""
    covered: set[int] = set()
    for block in blocks:
        start, end = statement_span(block[0])[0], statement_span(block[-1])[1]
        if not _begins_line(block[0], source, offsets):
            return True
        covered.update(range(start, end + 1))
    return any(line not in covered for line in lines[bisect.bisect_left(lines, group.first) : bisect.bisect_right(lines, group.last)])


def _begins_line(node: ast.stmt, source: str, offsets: list[int]) -> bool:
    """Is the statement the first thing on its first line, after indentation?  (Columns
    are UTF-8 offsets; indentation is ASCII, so they count characters there.)"""
    first = node.decorator_list[0] if isinstance(node, _DECORATED) and node.decorator_list else node
    column = first.col_offset - (1 if first is not node else 0)  # a decorator's column is past its ``@``
    start = offsets[first.lineno - 1]
    return column > 0 and source[start : start + column].isspace() and not source[start + column].isspace()


def _holds_line(lines: list[int], first: int, last: int) -> bool:
    position = bisect.bisect_left(lines, first)
    return position < len(lines) and lines[position] <= last


def _end(source: str, offsets: list[int], fragment: _Fragment) -> int:
    return offsets[fragment.last] if fragment.last < len(offsets) else len(source)


def _text(source: str, offsets: list[int], fragment: _Fragment) -> str:
    return source[offsets[fragment.first - 1] : _end(source, offsets, fragment)]


def _parse(fragment: _Fragment, source: str, offsets: list[int]) -> bool:
    """Parse the fragment alone; False if libcst will not, or reads other statements than
    CPython did (the two paths would then differ)."""
    text = _text(source, offsets, fragment)
    if fragment.nested and not text[:1].isspace():
        return False
    try:
        fragment.module = parse_module(NESTED_HEADER + text if fragment.nested else text)
    except cst.ParserSyntaxError:
        return False
    statements = fragment.statements(fragment.module)
    return sum(map(ast_statements_in, statements)) == len(fragment.nodes)


def _insert_absl_import(plan: Plan, head: _Fragment, config: cst.PartialParserConfig) -> bool:
    """``from absl import …`` after ``import tensorflow as tf``, as the whole-module path
    writes it (``add_absl_imports``); False when that path would put it elsewhere."""
    assert head.new_module is not None
    body = list(head.new_module.body)
    statement = absl_import(plan, body, config)
    if statement is None:
        return True
    anchor = tf_import_index(body)
    if anchor is None:
        return False  # (that path puts it first in the module)
    body.insert(anchor + 1, statement)
    head.new_module = head.new_module.with_changes(body=body)
    return True


def _splice(source: str, offsets: list[int], fragment: _Fragment) -> Splice:
    """The fragment's old statements and place, and its new text."""
    if fragment.new_text is not None:
        text = fragment.new_text
    else:
        assert fragment.new_module is not None
        code = render(fragment.new_module)
        text = code[len(NESTED_HEADER) :] if fragment.nested else code
    return Splice(fragment.nodes, offsets[fragment.first - 1], _end(source, offsets, fragment), text, fragment.nested)


def _spliced(source: str, splices: list[Splice]) -> str:
    pieces = []
    copied = 0
    for splice in splices:
        pieces += [source[copied : splice.start], splice.new_text]
        copied = splice.end
    pieces.append(source[copied:])
    return "".join(pieces)
