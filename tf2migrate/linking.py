"""How the files of one run see each other: the project layer reading files as the
engine reads them, and the decisions about helper modules that depend on what their
importers became (engine.py runs the phases).

A helper module (one the run's other files import) is migrated after its importers: a
session factory of it goes when nothing calls it any more, and if it stays on TF1
semantics itself (its fallback switches eager execution off when it is imported), its
importers converted to eager TF2 would break, so they are migrated again seeing its
functions as unknown.

A run naming only some files (a pre-commit hook passes the changed ones) still has to see
the files importing them: a helper module named alone is migrated for importers it cannot
see otherwise (a driver reading ``m.sess``, changing a list it gave a constructor, running
a module-level graph).  :func:`unnamed_importers` finds them in the project (the nearest
parent holding ``pyproject.toml``, ``setup.py`` or ``.git``, else the module's directory):
a cheap text scan for the module's name, then the import statements of those files only.
They are read as the run's importers, never written.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from tf2migrate.analysis.external_builds import BuildClass, ExternalBuild, build_classes, caller_facts, join, mentions
from tf2migrate.analysis.module_facts import ast_dotted_name, module_facts
from tf2migrate.analysis.project import FileContext, ModuleSummary, Project, submodule
from tf2migrate.analysis.summaries import tf_aliases
from tf2migrate.analysis.update_ops_producers import UPDATE_OPS_TEXT
from tf2migrate.analysis.summaries import SESSION, UNKNOWN, Summary
from tf2migrate.diagnostics import Diagnostic
from tf2migrate.notebook import code_cells
from tf2migrate.rewrites.compat_fallback import GRAPH_KEPT_ON_TF1
from tf2migrate.source import SourceError, read_source, resolved


class ProjectReader(Project):
    """The project layer, reading modules as the engine reads sources (encoding, BOM and
    newlines as :func:`read_source` keeps them), and each file once: the texts of the
    files the run migrates are handed over, not read again."""

    def __init__(self, run: set[Path]) -> None:
        super().__init__(run)
        self.texts: dict[Path, str] = {}

    def read(self, path: Path) -> str:
        if path not in self.texts:
            try:
                self.texts[path] = read_source(path).text
            except SourceError as exc:
                raise OSError(str(exc)) from exc
        return self.texts[path]

    def context_of(self, path: Path, text: str) -> FileContext | None:
        """None for a file without TF that imports no TF module of the run (a notebook is
        read as the program of its code cells)."""
        if path.suffix == ".ipynb":
            text = "\n".join(source for _, source in code_cells(text))
        if "tensorflow" not in text:
            # a driver without TF of its own (``from model import PINN``; ``m.sess.run(...)``)
            # still calls, reads and changes what the run's TF modules define: their importer
            context = self.context(path, text, run_tf_modules_only=True)
            return context if context.modules else None
        context = self.context(path, text)
        if UPDATE_OPS_TEXT in text:  # (the run's importers are added by the engine)
            context = replace(context, update_ops_producers=self.update_ops_producers(resolved(path), text))
        return context


# what marks a project's root directory
_ROOT_MARKERS = ("pyproject.toml", "setup.py", ".git")


def project_root(path: Path) -> Path:
    """The nearest parent of the module ``path`` holding a project marker, else its directory."""
    for parent in path.parents:
        if any((parent / marker).exists() for marker in _ROOT_MARKERS):
            return parent
    return path.parent


def unnamed_importers(
    files: list[Path], project: ProjectReader, walked: set[Path], walk: Callable[[Path, set[Path]], Iterable[Path]]
) -> list[Path]:
    """The Python files of the named modules' projects that the run does not name and that
    import one of them.  ``walked``: the directories the run walked whole (their files are
    the run's: not scanned again); ``walk``: the engine's directory walk (skipping tooling
    and virtualenvs)."""
    run = {resolved(path) for path in files}
    stems: dict[Path, set[str]] = {}
    for path in files:
        if path.suffix != ".py":
            continue
        module = resolved(path)
        name = module.parent.name if module.name == "__init__.py" else module.stem
        stems.setdefault(project_root(module), set()).add(name)
    found: list[Path] = []
    for root, names in stems.items():
        if any(root == d or d in root.parents for d in walked):
            continue  # (the run holds the whole project)
        word = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
        for candidate in walk(root, walked):
            path = resolved(candidate)
            if path in run or path.suffix != ".py" or path in found:
                continue
            try:
                text = project.read(path)
            except OSError:
                continue
            if not word.search(text):
                continue  # (the cheap test: most files of a project never name the module)
            context = project.context_of(path, text)
            if context is not None and any(m.path in run for m in context.modules.values()):
                found.append(path)
    return found


# methods that change the object they are called on (``utils.LOSSES.append(l)``)
_CHANGING_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "sort", "reverse"}
)
# a statement that may set an attribute or an item of something other than ``self``
_SETS_ATTRIBUTE = re.compile(
    r"^[ \t]*(?!self\b)\w+(?:\.\w+|\[[^\]\n]*\])+[ \t]*(?:[-+*/%@&|^]|\*\*|//|<<|>>)?=(?!=)|\.(?:"
    + "|".join(sorted(_CHANGING_METHODS))
    + r")\(|\b(?:setattr|delattr|vars|import_module|__import__)\(|\bsys\.modules\b",
    re.M,
)


def modules_changed_by(path: Path, text: str, context: FileContext | None, tree: ast.Module | None) -> frozenset[Path]:
    """The project modules whose state the file changes, anywhere in it: an attribute or
    item set through a name its top-level imports bind to the module or to one of its
    objects (``utilities.GAIN = 10.0``, ``U.CFG["scale"] = 2``, ``Config.scale = 2`` after
    ``from utilities import Config``, ``utils.LOSSES.append(l)``).  A file importing a class
    module and changing what that module's graphs read, after building them, is a driver
    the class module alone cannot see (a local rebinding such a name is not told apart)."""
    if context is None or not context.modules or not _SETS_ATTRIBUTE.search(text):
        return frozenset()
    tree = tree or parsed_or_none(text)
    if tree is None:
        return frozenset()
    bound: dict[str, Path] = {}  # local name → the module whose state it reaches
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                written = alias.name if alias.asname else alias.name.split(".")[0]
                found = context.modules.get(written)
                if found is not None and found.path != path:
                    bound[alias.asname or written] = found.path
        elif isinstance(statement, ast.ImportFrom):
            written = "." * statement.level + (statement.module or "")
            for alias in statement.names:
                # (``from pkg import utils``: the submodule when it is one, else an object of ``pkg``)
                found = context.modules.get(submodule(written, alias.name)) or context.modules.get(written)
                if found is not None and found.path != path and alias.name != "*":
                    bound[alias.asname or alias.name] = found.path

    def reached(expr: ast.expr) -> Path | None:
        """The project module ``expr`` is, or is an object of: a name bound to it, ``vars(M)``,
        ``sys.modules["m"]``, ``importlib.import_module("m")``, ``__import__("m")``."""
        while True:
            if isinstance(expr, ast.Name):
                return bound.get(expr.id)
            named = _module_named(expr)
            if named is not None:
                found = context.modules.get(named) if context is not None else None
                return found.path if found is not None and found.path != path else None
            if isinstance(expr, ast.Call) and ast_dotted_name(expr.func) == "vars" and len(expr.args) == 1:
                expr = expr.args[0]
            elif isinstance(expr, (ast.Attribute, ast.Subscript)):
                expr = expr.value
            else:
                return None

    changed: set[Path] = set()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") and node.args:
            # ``setattr(ops, "SCALE", 3.0)`` sets an attribute as ``ops.SCALE = 3.0`` does
            targets = [ast.Attribute(value=node.args[0], attr="_", ctx=ast.Store())]
        elif isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CHANGING_METHODS:
            # (``utils.LOSSES.append``: a method of a module's object; ``utils.append(...)`` is a function of it)
            if isinstance(node.func.value, (ast.Attribute, ast.Subscript, ast.Call)) or (
                isinstance(node.func.value, ast.Name) and node.func.value.id in bound and not _binds_module(tree, node.func.value.id)
            ):
                targets = [ast.Subscript(value=node.func.value, slice=ast.Constant(None))]
        for target in (t for t in targets for t in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])):
            if isinstance(target, (ast.Attribute, ast.Subscript)) and (module := reached(target.value)) is not None:
                changed.add(module)
    return frozenset(changed)


def _module_named(expr: ast.expr) -> str | None:
    """``m`` of ``sys.modules["m"]``, ``importlib.import_module("m")`` or ``__import__("m")``."""
    if isinstance(expr, ast.Subscript) and ast_dotted_name(expr.value) == "sys.modules":
        key = expr.slice
    elif (
        isinstance(expr, ast.Call)
        and (ast_dotted_name(expr.func) or "").rpartition(".")[2] in ("import_module", "__import__")
        and expr.args
    ):
        key = expr.args[0]
    else:
        return None
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def _binds_module(tree: ast.Module, name: str) -> bool:
    """Does an ``import`` statement of the file bind ``name`` to a module?"""
    return any(
        (alias.asname or alias.name.split(".")[0]) == name
        for statement in tree.body
        if isinstance(statement, ast.Import)
        for alias in statement.names
    )


def give_changed_elsewhere(contexts: list[FileContext | None], changes: list[frozenset[Path]]) -> list[FileContext | None]:
    """Each file's context told the project modules the run's other files change
    (modules_changed_by): the state its graphs may read; and those any file changes."""
    every = frozenset().union(*changes)
    out: list[FileContext | None] = []
    for i, context in enumerate(contexts):
        others = frozenset().union(*(changed for j, changed in enumerate(changes) if j != i))
        out.append(replace(context, changed_elsewhere=others, changed_by_run=every) if context is not None and every else context)
    return out


def read_only_result_findings(path: Path, text: str) -> list[Diagnostic]:
    """How the run sees an importer it reads but does not write: TF1 code stays as it is,
    on TF1 semantics (as the fallback's TFM404 says of a migrated file), so the modules it
    imports keep their graphs there too; other code is just read."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    facts = module_facts(tree, tf_aliases(tree))
    if facts.tf1 or facts.explicit_v1 or facts.graph:
        return [Diagnostic(GRAPH_KEPT_ON_TF1.code, "TF1 code this run reads, not writes", str(path))]
    return []


def importers_of(files: list[Path], contexts: list[FileContext | None]) -> dict[int, list[int]]:
    """The helper modules of the run (files other files of the run import), by index,
    each with the indices of the files that import it."""
    index = {resolved(path): i for i, path in enumerate(files)}
    importers: dict[int, list[int]] = {}
    for i, context in enumerate(contexts):
        for module in context.modules.values() if context is not None else ():
            if module.path in index:
                importers.setdefault(index[module.path], []).append(i)
    return importers


def names_read_of_module(helper: Path, text: str, context: FileContext | None, written: frozenset[str]) -> frozenset[str]:
    """The names the importer whose text is ``text`` (``written``: every identifier it
    writes) may read of the helper module's own namespace.  An importer reaching the module
    only by ``from helper import GAN, train`` reads those names of it and no other: its
    ``show_all_variables``, imported from ``utils``, is ``utils``'s, though the helper's
    ``from ops import *`` binds that name too (hwalsuklee's GAN collection).  Any other way
    (``import helper`` then ``helper.x``, a star import, ``from pkg import helper``, the module
    looked up by name through ``sys.modules``, ``__import__`` or ``import_module``), or a
    text that does not parse: every name it writes."""
    keys = {name for name, summary in (context.modules.items() if context is not None else ()) if summary.path == helper}
    if not keys or written & {"__import__", "import_module", "modules"}:
        return written
    tree = parsed_or_none(text)  # (the importer as migrated so far: not the project's tree of the original)
    if tree is None:
        return written
    named: set[str] = set()
    explicit: set[str] = set()  # (the keys reached by a ``from key import a, b``)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == k or k.startswith(a.name + ".") for a in node.names for k in keys):
            return written
        if not isinstance(node, ast.ImportFrom):
            continue
        key = "." * node.level + (node.module or "")
        if any(submodule(key, a.name) in keys for a in node.names):
            return written  # (``from pkg import helper``: the module itself, read by attribute)
        if key not in keys:
            continue
        if any(a.name == "*" for a in node.names):
            return written
        named |= {a.name for a in node.names}
        explicit.add(key)
    return frozenset(named) if explicit == keys else written


def removable_factories(summary: ModuleSummary, helper_text: str, texts: dict[Path, str]) -> frozenset[str]:
    """The session factories of a helper module that nothing calls any more: not the
    module itself, no file of the run (``texts``: as migrated, for those done), and no
    other Python file in its directory."""
    factories = {name for name, found in summary.names.items() if found.kind == SESSION}
    return frozenset(name for name in factories if not _still_named(name, summary.path, helper_text, texts))


def _still_named(name: str, helper: Path, helper_text: str, texts: dict[Path, str]) -> bool:
    word = re.compile(rf"\b{re.escape(name)}\b")
    # a file of the run calls the factory only through an import naming the helper's module
    # (``from utilities import tf_session``, or a module that re-exports it, which names both):
    # a `tf_session` of another project of the run is another name
    module = re.compile(rf"\b{re.escape(helper.stem)}\b")
    if len(word.findall(helper_text)) > 1 or any(
        word.search(text) and module.search(text) for path, text in texts.items() if path != helper
    ):
        return True
    for sibling in helper.parent.glob("*.py"):
        if resolved(sibling) not in texts:
            try:
                if word.search(sibling.read_text(encoding="utf-8", errors="replace")):
                    return True
            except OSError:
                return True
    return False


def kept_on_tf1(findings: list[Diagnostic]) -> bool:
    """Did the file's graph stay on TF1 semantics (the fallback, TFM404)?"""
    return any(d.code == GRAPH_KEPT_ON_TF1.code for d in findings)


# ``tf.compat.v1.disable_eager_execution()`` / ``tf.disable_v2_behavior()`` as a statement of
# the module's top level (any alias, any prefix)
_EAGER_OFF = re.compile(r"^[\w.]*\b(disable_eager_execution|disable_v2_behavior)\(\)", re.M)


def switches_eager_off(text: str) -> bool:
    """Does the module switch eager execution off when imported, at its top level?  A
    helper kept on TF1 by an earlier run holds the fallback's switch, and is left as it is
    (no TFM404 this time): its importers must stay on TF1 all the same."""
    return _EAGER_OFF.search(text) is not None


def seen_as_unknown(context: FileContext | None, path: Path) -> FileContext:
    """``context`` with every function of the module at ``path`` unknown: that module
    stays on TF1 semantics, so graph code calling it stays there too."""
    reason = f"{path.name} stays on TF1 semantics (graph mode) in this run"
    modules = {
        key: ModuleSummary(found.path, {n: Summary(UNKNOWN, reason=reason, module=path.name) for n in found.names})
        if found.path == path
        else found
        for key, found in (context.modules if context else {}).items()
    }
    return replace(context or FileContext(), modules=modules)


@dataclass
class Builds:
    """The build steps the run's callers prove for the classes of its other modules
    (analysis/external_builds.py), and the sessions that go with them."""

    # (module path, class) → the build step, or why it is not proved
    classes: dict[tuple[Path, str], ExternalBuild | str] = field(default_factory=dict)
    # caller index → its sessions, each with the classes whose constructions it is given to
    sessions: dict[int, dict[tuple[str, str], set[tuple[Path, str]]]] = field(default_factory=dict)

    def proved(self, keys: set[tuple[Path, str]]) -> bool:
        return all(isinstance(self.classes.get(k), ExternalBuild) for k in keys)


def find_builds(
    files: list[Path], contexts: list[FileContext | None], project: Project, texts: dict[Path, str], read_only: frozenset[int] = frozenset()
) -> Builds:
    """Each caller's proof, joined per class: a class is built outside only if every file
    of the run that names it proves it (and they agree on the method and session).  A
    caller at an index of ``read_only`` (an importer the run reads, never writes) proves
    nothing: its text stays, so its class keeps what that text calls and passes."""
    builds = Builds()
    offering: dict[Path, dict[str, BuildClass]] = {}
    for path in files:
        path = resolved(path)
        text = texts.get(path, "")
        # (cheap test first: a class making placeholders or sessions)
        if path.suffix == ".py" and "class " in text and ("placeholder" in text or "Session" in text):
            # (kept for the file's migration only if it offers a class: the run holds every
            # kept tree until its file is migrated)
            tree = project.trees.get(path) or parsed_or_none(text)
            found = build_classes(tree, tf_aliases(tree)) if tree is not None else {}
            if found and tree is not None:
                offering[path] = found
                project.trees[path] = tree
    if not offering:
        return builds
    names = {name for found in offering.values() for name in found}
    word = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
    counts: dict[str, int] = {}
    imported = {m.path for context in contexts if context is not None for m in context.modules.values()}

    def named(method: str) -> int:
        """How often the run's files name ``method`` (parsed where the text has the word;
        the trees are kept for the files' own migrations)."""
        if method not in counts:
            word, total = re.compile(rf"\b{re.escape(method)}\b"), 0
            for path in files:
                text = texts.get(resolved(path), "")
                if method in text and word.search(text):
                    tree = _tree(project, resolved(path), text) if path.suffix == ".py" else None
                    total += mentions(tree, method) if tree is not None else 2  # (unread: as good as named again)
            counts[method] = total
        return counts[method]

    for i, (path, context) in enumerate(zip(files, contexts, strict=True)):
        text = texts.get(resolved(path), "")
        # (a substring test first: the regex tries each of the run's characters, a tenth of a second on tensor2tensor)
        if path.suffix != ".py" or not any(name in text for name in names) or not word.search(text):
            continue
        if context is None:
            context = project.context(path, text)  # a caller without TensorFlow of its own
        offered = {m.path: offering[m.path] for m in context.modules.values() if m.path in offering and m.path != resolved(path)}
        tree = _tree(project, resolved(path), text) if offered else None
        if tree is None:
            continue
        classes = _imported_classes(tree, context, offered)
        for module, found in offered.items():
            for name in found:
                if all((p, c) != (module, name) for p, c, _ in classes.values()) and re.search(rf"\b{re.escape(name)}\b", text):
                    how = _named_otherwise(tree, context, module, name)
                    join(
                        builds.classes,
                        (module, name),
                        f"{path.name} {how} (a build step is followed for a class imported by `from … import {name}`)",
                    )
        facts = caller_facts(tree, tf_aliases(tree), classes, named, resolved(path) in imported)
        if i in read_only:
            for key in facts.builds:
                join(builds.classes, key, f"{path.name} builds it, and this run reads that file but does not write it: name it too")
            continue
        for key, proof in facts.builds.items():
            join(builds.classes, key, f"{proof} ({path.name})" if isinstance(proof, str) else proof)
        if facts.sessions:
            builds.sessions[i] = facts.sessions
    return builds


def _tree(project: Project, path: Path, text: str) -> ast.Module | None:
    """The caller's ``ast``, kept for its migration (parsed once)."""
    if path not in project.trees:
        tree = parsed_or_none(text)
        if tree is None:
            return None
        project.trees[path] = tree
    return project.trees[path]


def _named_otherwise(tree: ast.Module, context: FileContext, module: Path, name: str) -> str:
    """How a caller names a build class other than by ``from … import`` of it, as the user
    wrote it: a star import (``from models.GAN_models import *``), the module's attribute
    (``seq2seq_wrapper.Seq2Seq``)."""
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names):
            written = "." * statement.level + (statement.module or "")
            found = context.modules.get(written)
            if found is not None and found.path == module:
                return f"imports `{name}` by `from {written} import *`"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == name and (owner := ast_dotted_name(node.value)) is not None:
            return f"names `{name}` as `{owner}.{name}`"
    return f"names `{name}` other than as imported by `from … import`"


def _imported_classes(tree: ast.Module, context: FileContext, offered: dict[Path, dict[str, BuildClass]]) -> dict:
    """``from GAN import GAN`` (module level) of a build class: local name → (path, class, facts)."""
    out = {}
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom):
            module = context.modules.get("." * statement.level + (statement.module or ""))
            if module is None or module.path not in offered:
                continue
            for alias in statement.names:
                found = offered[module.path].get(alias.name)
                if found is not None:
                    out[alias.asname or alias.name] = (module.path, alias.name, found)
    return out


class Migrated(Protocol):
    """A file's migration result, as the engine holds it."""

    new_text: str
    findings: list[Diagnostic]


def honoured(
    session: tuple[str, str], classes: set[tuple[Path, str]], caller: Migrated, modules: Mapping[Path, Migrated], builds: Builds
) -> bool:
    """Did both sides drop the session: the caller's function names it no more, and each
    class's constructor lost the parameter (read from the migrated texts)?"""
    owner, name = session
    if kept_on_tf1(caller.findings) or _names_session(caller.new_text, owner, name):
        return False
    for path, cls in classes:
        found = builds.classes.get((path, cls))
        module = modules.get(path)
        if not isinstance(found, ExternalBuild) or module is None or kept_on_tf1(module.findings):
            return False
        params = _init_params(module.new_text, cls)
        if params is None or (found.session is not None and found.session in params):
            return False
    return True


def parsed_or_none(text: str) -> ast.Module | None:
    """The text's CPython tree, or None when it is not Python."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _names_session(text: str, owner: str, name: str) -> bool:
    tree = parsed_or_none(text)
    if tree is None:
        return True
    scopes = (
        [tree] if not owner else [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == owner]
    )
    return any(isinstance(n, ast.Name) and n.id == name for scope in scopes for n in ast.walk(scope))


def _init_params(text: str, cls: str) -> set[str] | None:
    tree = parsed_or_none(text)
    if tree is None:
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    return {a.arg for a in item.args.args}
    return None
