"""Which names in a module refer to TensorFlow, and what TF1 symbol each expression means.

Canonical names are TF1 API paths relative to the ``tensorflow`` root with any
``compat.v1.`` prefix removed: ``tf.placeholder``, ``T.placeholder``,
``tensorflow.compat.v1.placeholder`` and a bare ``placeholder`` imported with
``from tensorflow import placeholder`` all canonicalise to ``"placeholder"``; the root
module itself is ``""``.  Only module-level imports are read: TF1 code imports
TensorFlow at the top, and a name bound elsewhere is not trusted to be TensorFlow.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field

import libcst as cst
from libcst.helpers import get_full_name_for_node

TF_ROOT = "tensorflow"
# TF1 Dataset methods that TF2 datasets lack; tf.compat.v1.data has them as functions.
ITERATOR_METHODS = frozenset({"make_one_shot_iterator", "make_initializable_iterator"})
# ``tf.data.make_one_shot_iterator(dataset)`` and its initializable sibling (compat.v1
# stripped): initializable or not
ITERATOR_FUNCTIONS = {"data.make_one_shot_iterator": False, "data.make_initializable_iterator": True}
V1_PREFIX = "compat.v1"


def strip_v1(path: str) -> str:
    """``compat.v1.x`` → ``x``; ``compat.v1`` → the root."""
    if path == V1_PREFIX:
        return ""
    if path.startswith(V1_PREFIX + "."):
        return path[len(V1_PREFIX) + 1 :]
    return path


def dotted_name(node: cst.CSTNode) -> str | None:
    """``a.b.c`` for a chain of plain attributes on a name, else None.

    (libcst's get_full_name_for_node also names ``f(x).attr`` as ``f.attr``, which
    would make ``tf.train.AdamOptimizer(lr).minimize`` look like a TF symbol.)"""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def is_v1_path(path: str) -> bool:
    return path == V1_PREFIX or path.startswith(V1_PREFIX + ".")


def tf_relative(dotted: str) -> str | None:
    """``tensorflow.compat.v1.nn`` → ``compat.v1.nn``; non-TF modules → None."""
    if dotted == TF_ROOT:
        return ""
    if dotted.startswith(TF_ROOT + "."):
        return dotted[len(TF_ROOT) + 1 :]
    return None


@dataclass
class TfImports:
    """Local names bound to TensorFlow modules or symbols by module-level imports."""

    # local name -> canonical TF path it stands for ("" for the root module)
    aliases: dict[str, str] = field(default_factory=dict)
    # the import statements that bind them, so a rewrite can replace them
    statements: list[cst.SimpleStatementLine] = field(default_factory=list)
    # local names imported from ``tensorflow.compat.v1``: references through them mean
    # TF1 semantics whatever the rest of the file looks like
    v1_aliases: set[str] = field(default_factory=set)
    # True where some import of TensorFlow is something we do not model (``from
    # tensorflow import *``, ``import tensorflow.python...``): rewrites must not assume
    # they know every TF name.
    opaque: bool = False
    # the ``import``/``from`` nodes (aliases of an ``import``, whole ``from`` imports) that
    # the one ``import tensorflow as tf`` replaces: imports of the public TF1 API
    replaced: set[int] = field(default_factory=set)
    # imports of TF modules outside the public TF1 API (``tensorflow.contrib.slim``,
    # ``tensorflow.examples.tutorials``, ``tensorflow.python.ops``): kept as written, their
    # names are not TF aliases; (node, dotted module path)
    kept: list[tuple[cst.CSTNode, str]] = field(default_factory=list)
    # local names those kept imports bind -> the dotted TF path they stand for
    kept_names: dict[str, str] = field(default_factory=dict)

    def canonical(self, node: cst.BaseExpression) -> str | None:
        """The canonical TF1 path of a Name/Attribute expression, or None if not TF."""
        return self.canonical_dotted(dotted_name(node))

    def canonical_dotted(self, dotted: str | None) -> str | None:
        """The canonical TF1 path of ``a.b.c`` as written, or None if not TF."""
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        base = self.aliases.get(head)
        if base is None:
            return None
        # ``import tensorflow`` binds the local name ``tensorflow`` to the root, and
        # ``tensorflow.compat.v1.X`` must reach ``X`` through it.
        full = ".".join(p for p in (base, rest) if p)
        while True:
            stripped = strip_v1(full)
            if stripped == full:
                return full
            full = stripped

    def is_explicit_v1(self, node: cst.BaseExpression) -> bool:
        """Is this reference TF1 by how it is written (``tf.compat.v1.X``, or through an
        alias of ``tensorflow.compat.v1``)?"""
        return self.is_explicit_v1_dotted(dotted_name(node) or "")

    def is_explicit_v1_dotted(self, dotted: str) -> bool:
        return dotted.partition(".")[0] in self.v1_aliases or ".compat.v1." in f".{dotted}."

    def call_name(self, node: cst.CSTNode) -> str | None:
        """Canonical name of the function a Call calls, if it is a TF symbol."""
        if isinstance(node, cst.Call):
            return self.canonical(node.func)
        return None

    def kept_call_name(self, node: cst.Call) -> str | None:
        """The TF path a call through a kept import calls (``rnn.BasicLSTMCell(…)`` after
        ``from tensorflow.contrib import rnn`` → ``contrib.rnn.BasicLSTMCell``): not a TF
        alias, but what the call does is known all the same."""
        dotted = dotted_name(node.func)
        head, _, rest = (dotted or "").partition(".")
        kept = tf_relative(self.kept_names.get(head, ""))
        return ".".join(p for p in (kept, rest) if p) if kept else None


def collect_tf_imports(module: cst.Module) -> TfImports:
    return tf_imports_of(module.body)


def tf_imports_of(statements: Iterable[cst.CSTNode]) -> TfImports:
    """The TF imports among a module's own statements (all of them, or at least all its
    import statements)."""
    facts = TfImports()
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        touched = False
        for small in statement.body:
            if isinstance(small, cst.Import):
                touched |= _read_import(small, facts)
            elif isinstance(small, cst.ImportFrom):
                touched |= _read_import_from(small, facts)
        if touched:
            facts.statements.append(statement)
    return facts


def is_public_module(relative: str) -> bool:
    """Is ``tensorflow.<relative>`` a namespace (or symbol) of the public TF1 API, which
    ``tf.<relative>`` reaches?  ``contrib``, ``examples``, ``python``, ``core`` are not."""
    stripped = relative
    while stripped != strip_v1(stripped):  # ``compat.v1.compat.v1.nn`` reaches ``nn`` too
        stripped = strip_v1(stripped)
    return stripped == "" or stripped.split(".")[0] in _public_namespaces()


@functools.cache
def _public_namespaces() -> frozenset[str]:
    from tf2migrate.data.tf_symbols import DIFFERENT_IN_TF2, SAME_IN_TF2, V1_ONLY

    heads = {path.split(".")[0] for table in (SAME_IN_TF2, DIFFERENT_IN_TF2, V1_ONLY) for path in table}
    # namespaces the tables skip (other distributions, version switches), still TF API
    return frozenset(heads | {"keras", "estimator", "compat", "test", "flags", "app"})


def _read_import(node: cst.Import, facts: TfImports) -> bool:
    touched = False
    for alias in node.names:
        dotted = get_full_name_for_node(alias.name)
        relative = tf_relative(dotted or "")
        if relative is None:
            continue
        if not is_public_module(relative):
            facts.opaque = True
            facts.kept.append((alias, dotted or ""))
            if alias.evaluated_alias is not None:
                facts.kept_names[alias.evaluated_alias] = dotted or ""
            continue
        touched = True
        facts.replaced.add(id(alias))
        local = alias.evaluated_alias
        if local is not None:
            facts.aliases[local] = strip_v1(relative)
            if is_v1_path(relative):
                facts.v1_aliases.add(local)
        else:
            # ``import tensorflow.compat.v1`` binds ``tensorflow`` (the root).
            facts.aliases[TF_ROOT] = ""
    return touched


def _read_import_from(node: cst.ImportFrom, facts: TfImports) -> bool:
    if node.relative or node.module is None:
        return False
    dotted = get_full_name_for_node(node.module) or ""
    relative = tf_relative(dotted)
    if relative is None:
        return False
    if (not is_public_module(relative) and not _is_contrib_rnn(relative, node)) or isinstance(node.names, cst.ImportStar):
        facts.opaque = True
        facts.kept.append((node, dotted))
        for alias in node.names if not isinstance(node.names, cst.ImportStar) else ():
            name = get_full_name_for_node(alias.name) or ""
            facts.kept_names[alias.evaluated_alias or name] = f"{dotted}.{name}"
        return False
    facts.replaced.add(id(node))
    for alias in node.names:
        name = get_full_name_for_node(alias.name) or ""
        local = alias.evaluated_alias or name
        path = ".".join(p for p in (relative, name) if p)
        facts.aliases[local] = strip_v1(path)
        if is_v1_path(path):
            facts.v1_aliases.add(local)
    return True


def _is_contrib_rnn(relative: str, node: cst.ImportFrom) -> bool:
    """``from tensorflow.contrib import rnn``: the module ``tf.contrib.rnn`` names, whose
    cells and RNN functions the name tables and rewrites/rnn_cells.py know."""
    return (
        relative == "contrib"
        and not isinstance(node.names, cst.ImportStar)
        and all(get_full_name_for_node(alias.name) == "rnn" for alias in node.names)
    )
