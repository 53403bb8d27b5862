"""The last gate before migrated code leaves tf2migrate: it must not break what ran.

A rewrite that forgets a binding (an import it deleted, a name that moved into a
generated function) or names a TensorFlow symbol TF2 does not have would produce a file
that fails at run time, or worse, only on the branch a test never took.  Two checks catch
that whole class, whichever rewrite caused it:

- **names**: pyflakes' undefined names in the output that were not already undefined in
  the input;
- **TF paths**: every ``tf.a.b`` the output names must exist in TF2's namespace (or
  ``tf.compat.v1``'s), unless the input already named it (``tf.contrib`` is reported
  elsewhere, not invented here).

A failed check is an internal error (TFM002): the file is left as it was.

``spliced_check.py`` makes the same checks for the rename-only path on the statements it
replaced alone.
"""

from __future__ import annotations

import ast
import functools
import warnings
from collections.abc import Sequence

from pyflakes import checker, messages

from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.traversal import push_children
from tf2migrate.data.tf_symbols import DIFFERENT_IN_TF2, SAME_IN_TF2, V1_ONLY, V2_ONLY

# Namespaces the symbol table does not list (other distributions, version switches):
# paths below them are not checked.
_UNCHECKED = frozenset({"keras", "estimator", "test", "compat", "flags", "app", "logging", "__version__", "version", "__path__"})


def check_parses(text: str) -> None:
    """Raise SyntaxError unless the migrated text is Python: the gate where files are
    written.  The text last proven valid (parsed whole, or spliced from runs that parse:
    ``spliced_problem``) is not parsed again."""
    if text != _last_valid[0]:
        parsed_output(text)


_last_valid = [""]


def proven_valid(text: str) -> None:
    _last_valid[0] = text


@functools.lru_cache(maxsize=1)
def parsed_output(text: str) -> ast.Module:
    """CPython's tree of a migrated text (SyntaxError if it is not Python).  The last one is
    kept: the engine's gate before writing asks again for the text ``outcome`` just
    checked, and a parse is a few milliseconds per file."""
    with warnings.catch_warnings():  # the user's own oddities are not ours to report
        warnings.simplefilter("ignore")
        tree = ast.parse(text)
    proven_valid(text)
    return tree


def problem_of(original_tree: ast.Module, new_source: str, imports: TfImports) -> str | None:
    """Why the migrated text must not be written (invalid Python included), or None."""
    try:
        new_tree = parsed_output(new_source)  # CPython's parser: the output must be valid Python
    except SyntaxError as error:
        return f"rewrite produced invalid code ({error.msg})"
    return output_problem(original_tree, new_tree, imports)


def output_problem(original_tree: ast.Module, new_tree: ast.Module, imports: TfImports) -> str | None:
    """Why the migrated module must not be written, or None."""
    undefined = _undefined_names(new_tree)
    if undefined:  # the input's own undefined names are not the rewrite's doing
        undefined -= _undefined_names(original_tree)
    if undefined:
        names = ", ".join(f"`{n}`" for n in sorted(undefined))
        return f"the rewrite would leave {names} undefined"
    return paths_problem(original_tree, tf_paths([new_tree], tf_root), imports)


def paths_problem(original_tree: ast.Module, paths: set[str], imports: TfImports) -> str | None:
    """Why the output's TF ``paths`` must not be written, or None."""
    unknown = {p for p in paths if not _exists(p)}
    if unknown:  # what the input already named (tf.contrib…) is reported elsewhere
        before = {_key(p) for p in tf_paths([original_tree], imports.canonical_dotted)}
        unknown = {p for p in unknown if _key(p) not in before}
    if unknown:
        names = ", ".join(f"`tf.{p}`" for p in sorted(unknown))
        return f"the rewrite would name {names}, which TensorFlow 2 does not have"
    return None


def _undefined_names(tree: ast.Module) -> set[str]:
    found = checker.Checker(tree, filename="<migrated>")
    return {m.message_args[0] for m in found.messages if isinstance(m, messages.UndefinedName)}


def tf_root(dotted: str) -> str | None:
    head, _, rest = dotted.partition(".")
    return rest if head == "tf" else None


def tf_paths(roots: Sequence[ast.AST], canonical) -> set[str]:
    """The TF paths the trees name, relative to the root (outermost attribute chains)."""
    out: set[str] = set()
    stack: list[ast.AST] = list(roots)
    while stack:  # (the order does not matter here)
        node = stack.pop()
        if type(node) is ast.Attribute:
            parts = []
            current: ast.expr = node
            while type(current) is ast.Attribute:
                parts.append(current.attr)
                current = current.value
            if type(current) is ast.Name:
                path = canonical(".".join([current.id, *reversed(parts)]))
                if path:
                    out.add(path)
            node = current  # (what a chain starts from may name TF too: ``f(tf.x).y``)
        push_children(stack, node)
    return out


def _key(path: str) -> str:
    """``compat.v1.x`` and ``x`` name the same TF1 symbol."""
    return path[len("compat.v1.") :] if path.startswith("compat.v1.") else path


def _exists(path: str) -> bool:
    parts = path.split(".")
    if parts[:2] == ["compat", "v1"]:
        parts, leaves, namespaces = parts[2:], _v1_leaves(), _namespaces(_v1_leaves())
        if not parts or parts[0] in _UNCHECKED:
            return True
    else:
        leaves, namespaces = _v2_leaves(), _namespaces(_v2_leaves())
        if parts[0] in _UNCHECKED:
            return True
    # a symbol, then attributes of its object (``tf.float32.as_numpy_dtype``), or a namespace
    return any(".".join(parts[:i]) in leaves for i in range(1, len(parts) + 1)) or ".".join(parts) in namespaces


@functools.cache
def _v1_leaves() -> frozenset[str]:
    return frozenset(SAME_IN_TF2 | DIFFERENT_IN_TF2.keys() | V1_ONLY)


@functools.cache
def _v2_leaves() -> frozenset[str]:
    return frozenset(SAME_IN_TF2 | DIFFERENT_IN_TF2.keys() | V2_ONLY)


@functools.cache
def _namespaces(leaves: frozenset[str]) -> frozenset[str]:
    return frozenset(path.rsplit(".", i)[0] for path in leaves for i in range(1, path.count(".") + 1))
