"""The edits the rewrites decide on, and the one transformer that applies them.

Rewrites never edit the tree themselves: each adds to a :class:`Plan` keyed by the
identity of original nodes, so they compose (a statement moved into a generated
function by one rewrite is tape-wrapped by another) and the tree is walked once to apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst


@dataclass
class RenameLog:
    """Findings and imports the renamer needs; shared by every subtree it rewrites."""

    findings: list[tuple[cst.CSTNode, str, str]] = field(default_factory=list)
    absl_modules: set[str] = field(default_factory=set)

    def note(self, node: cst.CSTNode, code: str, message: str) -> None:
        self.findings.append((node, code, message))


@dataclass
class Finding:
    node: cst.CSTNode
    code: str
    message: str


@dataclass
class Plan:
    remove: set[int] = field(default_factory=set)  # statements
    insert_after: dict[int, list[cst.BaseStatement]] = field(default_factory=dict)
    insert_before: dict[int, list[cst.BaseStatement]] = field(default_factory=dict)
    unwrap: set[int] = field(default_factory=set)  # with-statements replaced by their body
    # expressions (calls, dicts): a new node, or a function of the updated node
    replace: dict[int, object] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    generated: dict[int, cst.CSTNode] = field(default_factory=dict)  # generated defs, by id
    # How TF references are renamed, shared by every pass that writes code.
    renames: RenameLog = field(default_factory=RenameLog)
    absl_names: dict[str, str] = field(default_factory=dict)  # absl module → local name
    defines_main: bool = False  # the module has a ``main`` function (for tf.app.run)
    # TF calls rewritten whole, wherever their statement is written: id → f(updated call)
    call_replacements: dict[int, object] = field(default_factory=dict)
    # moved statements whose comments were already written (once, not in every function)
    commented: set[int] = field(default_factory=set)
    root_is_tf1: bool = True  # see TfNameNormalizer
    # the file's graph becomes eager TF2 (not kept on TF1): TF1's Keras initializers get TF2's names
    eager_graph: bool = False
    # sharded lookups (``tf.nn.embedding_lookup``) whose shards are proven one table, by id:
    # TF2's name (analysis/lookup_tables.py)
    one_table_lookups: set[int] = field(default_factory=set)
    # a kept file switches TF2's shapes off: its TF1 ``Dimension`` reads (``d.value``) stay as written
    tf1_dimensions: bool = False
    # ``d.value`` reads of names holding TF1 Dimensions, wherever their statement is written:
    # → ``tf.compat.dimension_value(d)`` (rewrites/dimension_names.py)
    dimension_name_reads: set[int] = field(default_factory=set)
    # helpers emitted once per file (rewrites/file_helpers.py): template name → name used
    file_helpers: dict[str, str] = field(default_factory=dict)
    # learning rates computed by Keras schedules: rate name → (schedule, step expression,
    # its statement) (rewrites/lr_schedules.py)
    rates: dict[str, tuple] = field(default_factory=dict)
    # objects with variables created once where a TF1 statement stood (Keras layers, inline
    # optimizers): (that statement, the name) — a Checkpoint made after it tracks them
    created: list[tuple[object, str]] = field(default_factory=list)
    # placeholders fed as a converted DropoutWrapper's keep probability → the variable holding
    # the value fed to each run, set by every generated function taking it (rewrites/rnn_cells.py)
    fed_cell_values: dict[str, str] = field(default_factory=dict)

    def note(self, node: cst.CSTNode, code: str, message: str) -> None:
        self.findings.append(Finding(node, code, message))

    def edited_nodes(self) -> set[int]:
        """Ids of the original nodes the plan edits (the walk that applies it must reach them)."""
        return {
            *self.remove,
            *self.replace,
            *self.insert_before,
            *self.insert_after,
            *self.unwrap,
            *self.call_replacements,
            *self.dimension_name_reads,
        }

    def add_after(self, statement: cst.CSTNode, new: list[cst.BaseStatement]) -> None:
        self.insert_after.setdefault(id(statement), []).extend(new)

    def create_before(self, module: cst.Module, statement, name: str, code: str, has_variables: bool = True) -> None:
        """``name = code``, run once where the TF1 ``statement`` stood (which may move into
        generated functions); the statement's comments describe it, so they move along."""
        creation = cst.parse_statement(f"{name} = {code}\n", config=module.config_for_parsing)
        if id(statement.node) not in self.commented:
            creation = creation.with_changes(leading_lines=statement.node.leading_lines)
            self.commented.add(id(statement.node))
        self.insert_before.setdefault(id(statement.node), []).append(creation)
        if has_variables:
            self.created.append((statement, name))
