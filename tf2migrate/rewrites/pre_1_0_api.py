"""TensorFlow 0.x names and signatures → TF 1.x's, the first step of a migration (TFM415).

Tutorials of 2016 (``tf.mul``, ``tf.scalar_summary``, ``tf.train.SummaryWriter``,
``tf.concat(1, [a, b])``) were written for TensorFlow 0.x, whose API 1.0 renamed and
reordered.  Such a file fails on TF 1.x already, and a migration that reads TF 1.x's API
would leave ``tf.mul`` standing, a name TF2 has not either: the migrated program stops
with an AttributeError.  So before the migration reads the file, each 0.x reference is
written as TF 1.0 renamed it, exactly as TensorFlow's own 1.0 upgrade script
(``tf_upgrade.py``) mapped it; the migration then reads a TF 1.x program.

=====================================  ==========================================  ==========================
TensorFlow 0.x                          TF 1.x                                      why it is the same
=====================================  ==========================================  ==========================
``tf.mul``, ``tf.sub``, ``tf.neg``      ``tf.multiply``, ``tf.subtract``,           renamed in 1.0, same ops
                                        ``tf.negative``
``tf.pack``, ``tf.unpack``              ``tf.stack``, ``tf.unstack``
``tf.select``, ``tf.complex_abs``,      ``tf.where``, ``tf.abs``,
``tf.inv``, ``tf.listdiff``             ``tf.reciprocal``, ``tf.setdiff1d``
``tf.batch_matmul(a, b, True)``         ``tf.matmul(a=a, b=b, adjoint_a=True)``     matmul batches in 1.0
``tf.batch_matrix_inverse`` …           ``tf.matrix_inverse`` …                     (every ``batch_`` linear
                                                                                    algebra op, FFTs)
``tf.train.SummaryWriter``              ``tf.summary.FileWriter``                   same parameters
``tf.merge_summary``,                   ``tf.summary.merge``,
``tf.merge_all_summaries``              ``tf.summary.merge_all``
``tf.scalar_summary("tag", x)``         ``tf.summary.scalar("tag", x)``             one literal tag, no name
``tf.histogram_summary`` …              ``tf.summary.histogram`` …                  scope in the file (below)
``tf.image_summary(max_images=)``       ``tf.summary.image(max_outputs=)``
``tf.image.per_image_whitening``        ``tf.image.per_image_standardization``
``tf.concat(1, [a, b])``,               ``tf.concat(axis=1, values=[a, b])``        0.x's order, by keyword
``tf.concat(dim, [a, b])``
``tf.split(1, 2, x)``                   ``tf.split(axis=1, num_or_size_splits=2,    (the first argument an
                                        value=x)``                                  integer literal, or a list
                                                                                    second)
``concat_dim=``, ``split_dim=``,        ``axis=``, ``num_or_size_splits=``
``num_split=``
``tf.nn.softmax_cross_entropy_with_     ``…(logits=y, labels=t)``                   TF 1.x takes keywords only
logits(y, t)`` (and sparse, sigmoid;
sigmoid's ``targets=``)
``tf.nn.rnn``, ``tf.nn.bidirectional_   ``tf.nn.static_rnn``, ``tf.nn.static_
rnn``                                   bidirectional_rnn``
``tf.reverse(x, [False, True])``        ``tf.reverse(x, [1])``                      booleans per dimension → axes
=====================================  ==========================================  ==========================

A name is upgraded only where TF 1.x has no such symbol (``tf.initialize_all_variables``
still exists and is migrated as TF 1.x's).  The old summary functions named the tag as
given; ``tf.summary.scalar`` prefixes it with the name scopes it is built in, and its
``tags`` could be a list: they are upgraded only for a literal tag in a file that opens
no name or variable scope.  Other 0.x constructs are left as written, each with the
reason: a name imported bare (``from tensorflow import mul``), a summary in a scoped file,
``tf.reverse`` of anything but a list of literal booleans.

Every edit stays on its line, so the migration's findings are placed on the original's
lines (their columns moved back over the edits).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from tf2migrate.analysis.module_facts import ast_dotted_name
from tf2migrate.analysis.tf_api import tf2_target
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.rewrites.line_edits import Edit, applied, line_offsets

PRE_1_0_UPGRADED = Rule(
    "TFM415",
    "pre-1-0-api-upgraded",
    "TensorFlow 0.x names and argument orders → TF 1.x's, before the migration.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Rewrites the names TensorFlow 1.0 renamed (`tf.mul` → `tf.multiply`, `tf.scalar_summary` → "
    "`tf.summary.scalar`, `tf.train.SummaryWriter` → `tf.summary.FileWriter`, `tf.pack` → `tf.stack`, "
    "`tf.batch_matmul` → `tf.matmul` …) and the calls whose arguments 1.0 reordered (`tf.concat(1, [a, b])` → "
    "`tf.concat(axis=1, values=[a, b])`, `tf.split`, the cross-entropy functions' positional logits and labels, "
    "`tf.reverse` of booleans), as TensorFlow's 1.0 upgrade script did, where TF 1.x has no such symbol; the "
    "file is then migrated as TF 1.x code. Reports the 0.x references left as written, with the reason.",
    why="A 0.x name fails on TF 1.x and TF 2 alike (AttributeError), so a migration that kept it would not run. "
    "The summary renames are limited to literal tags in files without name scopes: `tf.summary.scalar` prefixes "
    "its tag with the enclosing name scopes, which `tf.scalar_summary` did not.",
    example="y = tf.mul(x, W)\nz = tf.concat(1, [y, y])",
    instead="y = tf.multiply(x, W)\nz = tf.concat(axis=1, values=[y, y])",
    invalid=("import tensorflow as tf\ny = tf.mul(tf.constant(2.0), 3.0)\n",),
    valid=("import tensorflow as tf\ny = tf.multiply(tf.constant(2.0), 3.0)\n",),
)
RULES = [PRE_1_0_UPGRADED]

# TF 0.x path → TF 1.x path (relative to the ``tensorflow`` root), as tf_upgrade.py (1.0) renamed them
_RENAMED = {
    "mul": "multiply",
    "sub": "subtract",
    "neg": "negative",
    "inv": "reciprocal",
    "listdiff": "setdiff1d",
    "list_diff": "setdiff1d",
    "pack": "stack",
    "unpack": "unstack",
    "select": "where",
    "complex_abs": "abs",
    "batch_matmul": "matmul",
    "image.per_image_whitening": "image.per_image_standardization",
    "train.SummaryWriter": "summary.FileWriter",
    "merge_summary": "summary.merge",
    "merge_all_summaries": "summary.merge_all",
    "nn.rnn": "nn.static_rnn",
    "nn.bidirectional_rnn": "nn.static_bidirectional_rnn",
    **{
        f"batch_{name}": name
        for name in (
            "matrix_diag",
            "matrix_transpose",
            "matrix_determinant",
            "matrix_inverse",
            "cholesky",
            "cholesky_solve",
            "matrix_solve",
            "matrix_triangular_solve",
            "matrix_solve_ls",
            "self_adjoint_eig",
            "self_adjoint_eigvals",
            "svd",
            "fft",
            "ifft",
            "fft2d",
            "ifft2d",
            "fft3d",
            "ifft3d",
        )
    },
}
# the summaries of one tag: TF 1.x's prefix the tag with the name scopes
_SUMMARIES = {
    "scalar_summary": "summary.scalar",
    "histogram_summary": "summary.histogram",
    "image_summary": "summary.image",
    "audio_summary": "summary.audio",
}
_KEYWORDS = {
    "batch_matmul": {"adj_x": "adjoint_a", "adj_y": "adjoint_b"},
    "scalar_summary": {"tags": "name", "values": "tensor"},
    "histogram_summary": {"tag": "name"},
    "image_summary": {"tag": "name", "max_images": "max_outputs"},
    "audio_summary": {"tag": "name"},
    "concat": {"concat_dim": "axis"},
    "split": {"split_dim": "axis", "num_split": "num_or_size_splits"},
    "nn.sigmoid_cross_entropy_with_logits": {"targets": "labels"},
}
# 0.x's positional order, written as TF 1.x's keywords
_ORDERS = {
    "concat": ("axis", "values", "name"),
    "split": ("axis", "num_or_size_splits", "value", "name"),
    "nn.softmax_cross_entropy_with_logits": ("logits", "labels", "dim", "name"),
    "nn.sparse_softmax_cross_entropy_with_logits": ("logits", "labels", "name"),
    "nn.sigmoid_cross_entropy_with_logits": ("logits", "labels", "name"),
    # 1.x's matmul takes transpose_a third, svd full_matrices second
    "batch_matmul": ("a", "b", "adjoint_a", "adjoint_b", "name"),
    "batch_svd": ("tensor", "compute_uv", "full_matrices", "name"),
}
# the old summaries' positional parameters before ``name`` (which 1.x's take as ``family``)
_SUMMARY_POSITIONALS = {"scalar_summary": 3, "histogram_summary": 3, "image_summary": 4, "audio_summary": 5}
# 1.x's concat/split take the tensors first: 0.x's order shows by an integer literal there
_INTEGER_FIRST = frozenset({"concat", "split"})
_SCOPES = re.compile(r"\b(name_scope|variable_scope|op_scope)\b")
# a cheap test before any parsing: a word only 0.x code writes
_WORDS = re.compile(
    r"\b(mul|sub|neg|inv|list_?diff|pack|unpack|select|complex_abs|batch_\w+|per_image_whitening"
    r"|SummaryWriter|merge_summary|merge_all_summaries|rnn|bidirectional_rnn|\w+_summary|concat|split|\w*cross_entropy_with_logits"
    r"|reverse)\b"
)


@dataclass(frozen=True)
class Upgraded:
    source: str  # the text the migration reads
    edits: tuple[Edit, ...]
    notes: tuple[tuple[int, int, str], ...]  # (line, 1-based column, message) in the original


LEFT = "left as written"  # in the message of a 0.x reference not upgraded: it fails on TF 1.x and TF2 alike


def may_be_pre_1_0(source: str) -> bool:
    return _WORDS.search(source) is not None


def upgrade(source: str, tree: ast.Module) -> Upgraded | None:
    """``source`` with its TF 0.x references written as TF 1.x's, or None when it has none."""
    aliases = _root_aliases(tree)
    if not aliases:
        return None
    reader = _Reader(source, aliases, scoped=_SCOPES.search(source) is not None)
    reader.visit(tree)
    if not reader.edits and not reader.notes:
        return None
    return Upgraded(applied(source, reader.edits), tuple(sorted(reader.edits, key=lambda e: e.start)), tuple(sorted(reader.notes)))


def _root_aliases(tree: ast.Module) -> frozenset[str]:
    """The names module-level imports bind to the ``tensorflow`` root."""
    names = set()
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.name == "tensorflow":
                    names.add(alias.asname or "tensorflow")
    return frozenset(names)


def _is_integer(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _zero_x_order(path: str, positional: list[ast.expr]) -> bool:
    """0.x's ``concat(concat_dim, values)`` / ``split(split_dim, num_split, value)``: an
    integer literal first, or for concat a list written out second (1.x's axis is one number)."""
    if _is_integer(positional[0]):
        return True
    return path == "concat" and len(positional) == 2 and isinstance(positional[1], (ast.List, ast.Tuple, ast.ListComp))


def _is_text(node: ast.AST) -> bool:
    """A literal tag: a string, or a string formatted with ``%``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        node = node.left
    return isinstance(node, (ast.Constant, ast.JoinedStr)) and (isinstance(node, ast.JoinedStr) or isinstance(node.value, str))


class _Reader(ast.NodeVisitor):
    def __init__(self, source: str, aliases: frozenset[str], scoped: bool) -> None:
        self.source = source
        self.lines = source.splitlines(keepends=True) if source else []
        self.offsets = line_offsets(source)
        self.aliases = aliases
        self.scoped = scoped
        self.edits: list[Edit] = []
        self.notes: list[tuple[int, int, str]] = []
        self.called: set[int] = set()  # the ``func`` of each call: not a value passed on

    # -- positions ------------------------------------------------------------------

    def _column(self, line: int, byte_column: int) -> int:
        """CPython's columns count UTF-8 bytes; the text's count characters."""
        text = self.lines[line - 1] if line - 1 < len(self.lines) else ""
        return len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))

    def _edit(self, line: int, byte_start: int, byte_end: int, text: str) -> None:
        start, end = self._column(line, byte_start), self._column(line, byte_end)
        self.edits.append(Edit(self.offsets[line] + start, self.offsets[line] + end, text, line, start))

    def _note(self, node: ast.AST, message: str) -> None:
        line = getattr(node, "lineno", 1)
        self.notes.append((line, self._column(line, getattr(node, "col_offset", 0)) + 1, message))

    # -- references -----------------------------------------------------------------

    def _path(self, node: ast.AST) -> str | None:
        """The TF path of ``tf.a.b`` through a root alias, if TF 1.x has no such symbol."""
        dotted = ast_dotted_name(node)
        head, _, rest = (dotted or "").partition(".")
        if head not in self.aliases or not rest or tf2_target(rest).kind != "unknown":
            return None
        return rest

    def _rename(self, node: ast.expr, old: str, new: str) -> bool:
        """``tf.old`` → ``tf.new`` where it is written on one line as a plain dotted name."""
        head = ast_dotted_name(node).partition(".")[0]  # type: ignore[union-attr]
        line, end_line = node.lineno, node.end_lineno
        written = self.lines[line - 1].encode("utf-8")[node.col_offset : node.end_col_offset].decode("utf-8", errors="ignore")
        if line != end_line or written != f"{head}.{old}":
            self._note(
                node,
                f"TensorFlow 0.x's `tf.{old}` written across lines or with spaces; {LEFT} (TF 1.x calls it `tf.{new}`)",
            )
            return False
        self._edit(line, node.col_offset, node.end_col_offset or node.col_offset, f"{head}.{new}")
        return True

    def visit_Try(self, node: ast.Try) -> None:
        """A 0.x name in a ``try`` whose handlers catch its AttributeError on TF 1.x is code
        written for both (DCGAN's ``try: scalar_summary = tf.scalar_summary except:
        scalar_summary = tf.summary.scalar``): left to the handler that TF 1.x runs."""
        for part in (node.handlers, node.orelse, node.finalbody):
            for child in part:
                self.visit(child)
        if not node.handlers:
            for child in node.body:
                self.visit(child)

    visit_TryStar = visit_Try  # try/except* (Python 3.11) alike

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module == "tensorflow":
            for alias in node.names:
                new = _RENAMED.get(alias.name) or _SUMMARIES.get(alias.name)
                if new is not None and tf2_target(alias.name).kind == "unknown":
                    self._note(node, f"`{alias.name}` imported from tensorflow is TensorFlow 0.x's name: {LEFT} (TF 1.x: `tf.{new}`)")

    def visit_Call(self, node: ast.Call) -> None:
        self.called.add(id(node.func))
        dotted = ast_dotted_name(node.func)
        head, _, path = (dotted or "").partition(".")
        if head in self.aliases and path:
            self._call(node, path)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        path = self._path(node)
        if path is None:
            self.generic_visit(node)
            return
        if path in _RENAMED:
            if self._rename(node, path, _RENAMED[path]):
                self._note(node, f"`tf.{path}` → `tf.{_RENAMED[path]}`: TensorFlow 0.x's name, which 1.0 renamed")
        elif path in _SUMMARIES and id(node) not in self.called:
            self._note(node, f"`tf.{path}` (TensorFlow 0.x) read as a value: {LEFT} (TF 1.x's `tf.{_SUMMARIES[path]}` scopes its tag)")

    # -- calls ----------------------------------------------------------------------

    def _call(self, node: ast.Call, path: str) -> None:
        if path in _SUMMARIES:
            if tf2_target(path).kind == "unknown":
                self._summary(node, path)  # its keywords with its name, or neither
            return
        self._keywords(node, path)
        order = _ORDERS.get(path)
        positional = [a for a in node.args if not isinstance(a, ast.Starred)]
        if order is None or not positional or len(positional) != len(node.args) or len(positional) > len(order):
            if path == "reverse" and len(node.args) == 2:
                self._reverse(node)
            return
        if path in _INTEGER_FIRST and not _zero_x_order(path, positional):
            return  # TF 1.x's own order (the tensors first), or not known to be 0.x's
        for keyword, argument in zip(order, positional):
            self._edit(argument.lineno, argument.col_offset, argument.col_offset, f"{keyword}=")
        self._note(node, f"`tf.{path}` with TensorFlow 0.x's argument order → keywords ({', '.join(order[: len(positional)])})")

    def _keywords(self, node: ast.Call, path: str) -> None:
        renames = _KEYWORDS.get(path, {})
        for keyword in node.keywords:
            if keyword.arg in renames:
                self._edit(keyword.lineno, keyword.col_offset, keyword.col_offset + len(keyword.arg.encode("utf-8")), renames[keyword.arg])
                self._note(keyword, f"`{keyword.arg}=` of `tf.{path}` → `{renames[keyword.arg]}=`: TensorFlow 0.x's keyword")

    def _summary(self, node: ast.Call, path: str) -> None:
        new = _SUMMARIES[path]
        tag = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in ("tag", "tags")), None)
        named = any(k.arg == "name" for k in node.keywords) or len(node.args) > _SUMMARY_POSITIONALS[path]
        if self.scoped or tag is None or not _is_text(tag) or named:
            why = (
                "the file opens name scopes, which TF 1.x's summaries prefix to the tag"
                if self.scoped
                else "it names its op (1.x's summaries take a family there)"
                if named
                else "its tag is not one literal"
            )
            self._note(node, f"`tf.{path}` (TensorFlow 0.x) {LEFT}: {why} (TF 1.x: `tf.{new}`)")
            return
        if self._rename(node.func, path, new):
            self._keywords(node, path)
            self._note(node, f"`tf.{path}` → `tf.{new}`: TensorFlow 0.x's summary, with its literal tag")

    def _reverse(self, node: ast.Call) -> None:
        dims = node.args[1]
        if not isinstance(dims, (ast.List, ast.Tuple)) or not dims.elts:
            return
        flags = [e.value for e in dims.elts if isinstance(e, ast.Constant) and type(e.value) is bool]
        if len(flags) != len(dims.elts):
            return
        if dims.lineno != dims.end_lineno:
            self._note(dims, f"`tf.reverse` of TensorFlow 0.x's booleans written across lines: {LEFT}")
            return
        axes = "[" + ", ".join(str(i) for i, flag in enumerate(flags) if flag) + "]"
        self._edit(dims.lineno, dims.col_offset, dims.end_col_offset or dims.col_offset, axes)
        self._note(dims, f"`tf.reverse` of TensorFlow 0.x's booleans per dimension → the axes {axes}")
