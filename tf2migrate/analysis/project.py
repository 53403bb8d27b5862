"""Project-wide analysis: the modules a run's files import, and a summary of each of
their functions and classes.

Research code keeps its graph-building helpers in sibling modules (``from utilities
import neural_net, fwd_gradients, tf_session``).  Deciding whether a call of such a helper
may move into a generated function needs to know what the helper does; this module says
it once per run, for every module some file of the run imports:

builder, variables (a net object), session factory, numpy or unknown
(analysis/summaries.py).

Modules are read with CPython's ``ast`` (several times cheaper than libcst), once per
run; a module the run also migrates hands its tree on (:attr:`Project.trees`) so it is
not parsed again.  Imports resolve the way the researcher ran the code: relative to the
importing file's directory, to directories it puts on ``sys.path`` (``sys.path.insert(0,
'../Utilities')``), and relative imports to its package.  Only what exists on disk is
read; nothing is written here.  This module never imports TensorFlow.
"""

from __future__ import annotations

import ast
import hashlib
import re
import symtable
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from tf2migrate.analysis.external_builds import ExternalBuild
from tf2migrate.analysis.module_facts import module_facts
from tf2migrate.analysis.summaries import BUILDER, SESSION, UNKNOWN, VARIABLES, Summary, summarize_module, tf_aliases
from tf2migrate.analysis.update_ops_producers import update_ops_producers


@dataclass
class ModuleSummary:
    """The summaries of one module's top-level functions and classes."""

    path: Path
    names: dict[str, Summary] = field(default_factory=dict)
    exported: frozenset[str] = frozenset()  # what ``from module import *`` binds
    # the modules of the project it imports, directly or through them: whose state its
    # functions may read (``cfg.SCALE`` in a builder of ``utils``, which imports ``cfg``)
    reaches: frozenset[Path] = frozenset()
    # the text of its top-level functions that make variables or build ops (defined once, by a
    # ``def``), and its top-level imports by the name each binds (``tf`` → ``import tensorflow
    # as tf``): what an importer needs to take such a helper in (rewrites/helper_copy.py)
    functions: dict[str, str] = field(default_factory=dict)
    imports: dict[str, str] = field(default_factory=dict)
    # what ``from module import *`` binds in Python: ``__all__``, else every name of its scope
    # not starting with ``_``, its imports' included (and what its own star imports bind);
    # None when unknown (a star import of a module the run cannot read)
    star_names: frozenset[str] | None = frozenset()
    # the digest of its text: importers follow its functions' bodies (analysis/imported_helpers.py),
    # so an edit anywhere in it is an edit of what they computed
    text_digest: str = ""

    def digest(self) -> str:
        text = repr((sorted(self.names.items()), sorted(self.exported), sorted(map(str, self.reaches)), self.text_digest))
        text += repr((sorted(self.functions.items()), sorted(self.imports.items()), sorted(self.star_names or ())))
        return hashlib.sha256(f"{self.path}\0{text}".encode()).hexdigest()


@dataclass
class FileContext:
    """What the per-file migration of one file knows about the project: the modules it
    imports, by the dotted name its import statements write (``utilities``, ``.utils``)."""

    modules: dict[str, ModuleSummary] = field(default_factory=dict)
    # session factories of this module that no file of the run calls any more: removed
    removable: frozenset[str] = frozenset()
    # a file of the run that imports this module builds a TF1 graph or is TF1 by evidence:
    # the module's names ran with TF1's meaning (``tf.nn.dropout(h, keep_prob)``), even
    # where the module alone could be TF2 code
    tf1_callers: bool = False
    # this module's classes whose build method its callers run right after constructing
    # them (analysis/external_builds.py), and why the others' callers do not prove it
    external_builds: dict[str, ExternalBuild] = field(default_factory=dict)
    build_refusals: dict[str, str] = field(default_factory=dict)
    # (function, session name) of this module: sessions made for such objects only, which go
    given_sessions: frozenset[tuple[str, str]] = frozenset()
    # (function, session name, why): a session kept because a class it is given to stays on TF1
    session_notes: frozenset[tuple[str, str, str]] = frozenset()
    # the names the run's files importing this module write (``predictor.predict(...)``): a
    # method named there is called, though nothing in this module names it
    importer_names: frozenset[str] = frozenset()
    # the names those files may read of this module's own namespace: those their ``from M
    # import a, b`` name, or, for one reaching the module otherwise, every name it writes
    # (linking.names_read_of_module): what a rewrite of the module's imports must keep binding
    importer_module_names: frozenset[str] = frozenset()
    # the attributes those files read of objects that are not modules (``model.sess``,
    # ``m.loss``): a class of this module whose graph attributes become methods must keep them
    importer_attributes: frozenset[str] = frozenset()
    # the names those files call with an object they change in place (``Model(ks)`` … ``ks[0] = 2.5``):
    # a class of this module storing that argument would read the changed object, TF1 built with the first
    importer_changed_arguments: frozenset[str] = frozenset()
    # the project modules whose state another file of the run changes (``utilities.GAIN = 10.0``
    # in a driver importing this file's class module): a graph of this file reading that state
    # captured the value of the moment it was built, wherever that file's change stands
    changed_elsewhere: frozenset[Path] = frozenset()
    # the project modules whose state any file of the run changes, this one included
    # (``ops.SCALE = 3.0`` after ``from ops import *``): a helper of such a module copied into
    # this file (rewrites/helper_copy.py) would read the names the import bound, not the new ones
    changed_by_run: frozenset[Path] = frozenset()
    # modules of the run this one imports or is imported by that stay on TF1 semantics (their
    # fallback switches eager execution off, for the whole process): its own graph stays there too
    graph_mode_modules: tuple[str, ...] = ()
    # what the modules it imports (directly or through others) and the run's files importing
    # it hold that may add to TF1's UPDATE_OPS collection (analysis/update_ops_producers.py),
    # as ``module:line: text``: given to a file reading the collection only
    update_ops_producers: tuple[str, ...] = ()

    @property
    def linked(self) -> bool:
        """Does the file see more of the project than what it imports?"""
        return bool(
            self.external_builds
            or self.build_refusals
            or self.given_sessions
            or self.session_notes
            or self.importer_names
            or self.importer_module_names
            or self.importer_attributes
            or self.importer_changed_arguments
            or self.changed_elsewhere
            or self.changed_by_run
            or self.graph_mode_modules
        )

    def digest(self) -> str:
        """Part of the result cache key: editing an imported module invalidates this file."""
        text = "".join(f"{k}={m.digest()};" for k, m in sorted(self.modules.items())) + ",".join(sorted(self.removable))
        text += ";tf1" if self.tf1_callers else ""
        if self.linked:  # (what its callers proved: editing them invalidates this file)
            links = (
                self.external_builds.items(),
                self.build_refusals.items(),
                self.given_sessions,
                self.session_notes,
                self.importer_names,
                self.importer_module_names,
                self.importer_attributes,
                self.importer_changed_arguments,
                self.graph_mode_modules,
                map(str, self.changed_elsewhere),
                map(str, self.changed_by_run),
            )
            text += repr([sorted(part) for part in links])
        text += repr(self.update_ops_producers) if self.update_ops_producers else ""
        return hashlib.sha256(text.encode()).hexdigest()


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import\b([ \t(]*[\w \t,]*)|import[ \t]+([\w. \t,]+))", re.MULTILINE)
_SYS_PATH = re.compile(r"sys\.path\.(?:insert|append)\s*\((?:\s*\d+\s*,)?\s*[rR]?(['\"])([^'\"\n]+)\1")


def imported_names(text: str) -> list[str]:
    """The dotted module names a file's import statements write (a cheap text scan:
    a name that is not a module of the project only costs a failed look-up)."""
    names = []
    for match in _IMPORT.finditer(text):
        if match.group(1) is not None:
            names.append(match.group(1))
            # ``from . import layers``, ``from pkg import layers``: the names may be submodules
            names += [submodule(match.group(1), part.split()[0]) for part in match.group(2).strip(" \t(").split(",") if part.split()]
        else:
            names += [part.split()[0] for part in match.group(3).split(",") if part.split()]
    return names


def submodule(package: str, name: str) -> str:
    """The dotted name of module ``name`` of ``package`` (``.layers`` of ``.``, ``pkg.layers``)."""
    return package + name if package.endswith(".") else f"{package}.{name}"


def search_directories(path: Path, text: str) -> list[Path]:
    """Where ``path``'s absolute imports are found: its own directory, then the
    directories it adds to ``sys.path`` (relative ones are taken from its directory,
    where research scripts are run from), then, for a module of a package, the directory
    holding its outermost package: the program importing the package runs from there, and
    the module's ``from pkg.utils import f`` names its own package from there."""
    here = path.parent
    top = here
    while (top / "__init__.py").is_file():
        top = top.parent
    return [here] + [(here / match.group(2)) for match in _SYS_PATH.finditer(text)] + ([top] if top != here else [])


def resolve(name: str, path: Path, directories: list[Path]) -> Path | None:
    """The file a module name imported by ``path`` stands for, if it is on disk."""
    if name.startswith("."):
        dots = len(name) - len(name.lstrip("."))
        base = path.parent
        for _ in range(dots - 1):
            base = base.parent
        candidates = [base]
        rest = name[dots:]
    else:
        candidates, rest = directories, name
    parts = rest.split(".") if rest else []
    for directory in candidates:
        stem = directory.joinpath(*parts) if parts else directory
        for candidate in (stem.with_name(stem.name + ".py") if parts else None, stem / "__init__.py"):
            if candidate is not None and candidate.is_file():
                return candidate.resolve()
    return None


def local_summaries(tree: ast.Module, context: FileContext) -> dict[str, Summary]:
    """The summaries a file's code reaches by name: ``neural_net`` for ``from utilities
    import neural_net``, ``U.fwd_gradients`` for ``import utils as U`` (module-level
    imports only, as for TensorFlow's)."""
    out: dict[str, Summary] = {}
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom):
            package = "." * statement.level + (statement.module or "")
            module = context.modules.get(package)
            for alias in statement.names:
                local = alias.asname or alias.name
                if alias.name == "*":
                    if module is not None:
                        # ``from tools import *``: its public functions and classes, unless
                        # the file binds the name itself
                        wanted = module.exported - _top_level_names(tree)
                        out.update({n: f for n, f in module.names.items() if n in wanted})
                    continue
                found = module.names.get(alias.name) if module is not None else None
                child = context.modules.get(submodule(package, alias.name))
                if found is not None:
                    out[local] = found
                    # a class's methods (``Dense.forward``), which a net object's calls name
                    methods = {n: f for n, f in module.names.items() if n.startswith(f"{alias.name}.")}  # type: ignore[union-attr]
                    out.update({local + n[len(alias.name) :]: f for n, f in methods.items()})
                elif child is not None:
                    # ``from . import layers``, ``from pkg import layers``: ``layers.dense`` is that module's
                    out.update({f"{local}.{name}": f for name, f in child.names.items()})
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                module = context.modules.get(alias.name)
                if module is None or (alias.asname is None and "." in alias.name):
                    continue
                local = alias.asname or alias.name
                out.update({f"{local}.{name}": found for name, found in module.names.items()})
    return out


def own_net_objects(
    tree: ast.Module, imported: dict[str, Summary], module: str, summarize: Callable[[], dict[str, Summary]] | None = None
) -> dict[str, Summary]:
    """The file's own net-object classes (``__init__`` makes the variables, ``__call__``
    or another method only builds ops from them) and their methods (``Dense.forward``),
    seen as an imported one is: an instance made in graph code is made once where it
    stood, and its calls of builder methods move into the generated functions (a call of
    another method is refused with its summary's reason)."""
    classes = {s.name for s in tree.body if isinstance(s, ast.ClassDef)}
    # (cheap test first: summarizing walks every function of the file; a class the file
    # never calls by name, such as a test case, makes no instance here)
    if not classes or not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in classes for n in ast.walk(tree)):
        return {}
    found = summarize() if summarize is not None else summarize_module(tree, imported)
    classes = {name for name, summary in found.items() if "." not in name and summary.kind == VARIABLES and _is_class(tree, name)}
    return {name: replace(summary, module=module) for name, summary in found.items() if name.split(".")[0] in classes}


def own_session_factories(
    tree: ast.Module,
    imported: dict[str, Summary],
    module: str,
    exported: frozenset[str],
    summarize: Callable[[], dict[str, Summary]] | None = None,
) -> dict[str, Summary]:
    """The file's own session factories (``def tf_session(): sess = tf.Session(config=...);
    return sess``) that only its own assignments call (``self.sess = tf_session()``), seen as
    an imported one is: the session they make goes with the call, and the factory, which
    nothing calls any more, goes too.  A factory named otherwise (passed, stored, read by
    ``exported``: the names files importing this one may read of it) is not one here."""
    candidates = {
        s.name
        for s in tree.body
        if isinstance(s, ast.FunctionDef) and any(isinstance(n, ast.Call) and _called_name(n.func) in _SESSION_NAMES for n in ast.walk(s))
    } - exported
    if not candidates:
        return {}
    defined = [s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    nodes = list(ast.walk(tree))
    called = {id(n.value.func) for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call)}
    for node in nodes:
        if isinstance(node, ast.Name) and node.id in candidates and id(node) not in called:
            candidates.discard(node.id)  # (read otherwise, or bound again)
    candidates = {name for name in candidates if defined.count(name) == 1 and name != "__all__"}
    if not candidates:
        return {}
    found = summarize() if summarize is not None else summarize_module(tree, imported)
    return {name: replace(found[name], module=module) for name in sorted(candidates) if name in found and found[name].kind == SESSION}


_SESSION_NAMES = frozenset({"Session", "InteractiveSession"})


def _called_name(func: ast.expr) -> str | None:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _is_class(tree: ast.Module, name: str) -> bool:
    return any(isinstance(s, ast.ClassDef) and s.name == name for s in tree.body)


class Project:
    """The modules a run's files import, each read and summarized once."""

    def __init__(self, run: set[Path] | None = None) -> None:
        self.trees: dict[Path, ast.Module] = {}  # parsed here; the file's own migration reuses them
        self._summaries: dict[Path, ModuleSummary | None] = {}
        self._resolved: dict[tuple[str, Path | tuple[Path, ...]], Path | None] = {}  # (name, where it is looked up) → its file
        # the (resolved) files the run migrates; other modules are read, never written
        self.run: set[Path] = run or set()

    def context(self, path: Path, text: str, run_tf_modules_only: bool = False) -> FileContext:
        """The project as the file ``path`` (whose text is ``text``) sees it; with
        ``run_tf_modules_only``, only the modules of the run that use TensorFlow."""
        directories = search_directories(path, text)
        modules = {}
        itself = path.resolve()
        for name in dict.fromkeys(imported_names(text)):
            # (what a name resolves to depends on these alone: the run's files in one
            # directory import the same modules, each looked up on disk once)
            key = (name, path.parent) if name.startswith(".") else (name, tuple(directories))
            if key not in self._resolved:
                self._resolved[key] = resolve(name, path, directories)
            target = self._resolved[key]
            if target is None or target == itself:
                continue
            if run_tf_modules_only and (target not in self.run or "tensorflow" not in self.read(target)):
                continue
            summary = self.summary(target)
            if summary is not None:
                modules[name] = summary
        return FileContext(modules)

    def update_ops_producers(self, path: Path, text: str, skip: frozenset[Path] = frozenset()) -> tuple[str, ...]:
        """What the modules ``path`` (whose text is ``text``) imports, directly or through
        others, hold that may add to TF1's UPDATE_OPS collection, as ``module:line: text``
        (analysis/update_ops_producers.py); the modules in ``skip`` are not read."""
        found: list[str] = []
        seen = {path.resolve(), *skip}
        pending = [(path, text)]
        while pending:
            current, current_text = pending.pop()
            for summary in self.context(current, current_text).modules.values():
                if summary.path in seen:
                    continue
                seen.add(summary.path)
                tree = self.trees.get(summary.path)
                if tree is not None:
                    found += [f"{summary.path.name}:{p}" for p in update_ops_producers(tree)]
                    pending.append((summary.path, self.read(summary.path)))
        return tuple(found)

    def summary(self, path: Path) -> ModuleSummary | None:
        if path not in self._summaries:
            self._summaries[path] = None  # an import cycle sees an unknown module
            self._summaries[path] = self._summarize(path)
        return self._summaries[path]

    def read(self, path: Path) -> str:
        """A module's text (the engine reads as it reads sources)."""
        return path.read_text(encoding="utf-8")

    def _summarize(self, path: Path) -> ModuleSummary | None:
        try:
            text = self.read(path)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        self.trees[path] = tree
        context = self.context(path, text)
        names = summarize_module(tree, local_summaries(tree, context))
        reaches = frozenset(m.path for m in context.modules.values()).union(*(m.reaches for m in context.modules.values()))
        if path not in self.run:
            facts = module_facts(tree, tf_aliases(tree))
            if facts.tf1 or facts.explicit_v1:
                # code that is still TF1 and that this run does not migrate: not callable from TF2
                # graph code.  What else its summary says stays (the module is read anyway): a
                # plain statement calling a function that makes a TF1 iterator, creates variables
                # or changes what it is given is refused or ordered as in a run naming the module
                # (``xb, yb = make_batches(...)`` kept as Python would take one batch for good)
                reason = f"{path.name} is TF1 code this run does not migrate: name it too"
                names = {name: _unmigrated(found, reason) for name, found in names.items()}
        functions, imports = _helper_texts(tree, text, names)
        exported = _exported(tree)
        listed = any(isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in s.targets) for s in tree.body)
        star: frozenset[str] | None = exported if listed else _module_scope_names(text)
        for statement in tree.body if not listed else ():
            if isinstance(statement, ast.ImportFrom) and any(a.name == "*" for a in statement.names):
                given = context.modules.get("." * statement.level + (statement.module or ""))
                star = None if star is None or given is None or given.star_names is None else star | given.star_names
        return ModuleSummary(
            path,
            {name: replace(found, module=path.name) for name, found in names.items()},
            exported,
            reaches,
            functions,
            imports,
            star,
            text_digest(text),
        )


def _helper_texts(tree: ast.Module, text: str, names: dict[str, Summary]) -> tuple[dict[str, str], dict[str, str]]:
    """The text of the module's top-level functions that make variables or build ops, each the
    only top-level binding of its name, undecorated (none when no function makes variables:
    nothing an importer would take in), and its top-level imports by the name each binds."""
    imports = top_level_imports(tree)
    if not any(s.kind == VARIABLES for n, s in names.items() if "." not in n):
        return {}, imports
    counts: dict[str, int] = {}
    for statement in tree.body:
        for bound in bound_at_top(statement):
            counts[bound] = counts.get(bound, 0) + 1
    functions = {
        s.name: segment
        for s in tree.body
        if isinstance(s, ast.FunctionDef)
        and counts.get(s.name) == 1
        and not s.decorator_list
        and names.get(s.name, Summary(UNKNOWN)).kind in (VARIABLES, BUILDER)
        and (segment := ast.get_source_segment(text, s)) is not None
    }
    return functions, imports


def top_level_imports(tree: ast.Module) -> dict[str, str]:
    """The module's top-level imports by the name each binds, each written alone
    (``tf`` → ``import tensorflow as tf``); star imports left out."""
    return {
        alias.asname or alias.name.split(".")[0]: ast.unparse(
            ast.Import([alias]) if isinstance(s, ast.Import) else ast.ImportFrom(s.module, [alias], s.level)
        )
        for s in tree.body
        if isinstance(s, (ast.Import, ast.ImportFrom))
        for alias in s.names
        if alias.name != "*"
    }


def _module_scope_names(text: str) -> frozenset[str]:
    """The names the module's own scope binds (by assignment, import, ``def``, ``class``,
    wherever at its level: in an ``if`` or ``try`` too), but those starting with ``_``."""
    try:
        table = symtable.symtable(text, "<module>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    return frozenset(
        s.get_name()
        for s in table.get_symbols()
        if (s.is_assigned() or s.is_imported() or s.is_namespace()) and not s.get_name().startswith("_")
    )


def bound_at_top(statement: ast.stmt) -> list[str]:
    """The names a top-level statement binds (a function's or class's own, an import's, a target's)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [a.asname or a.name.split(".")[0] for a in statement.names]
    # (a compound statement: every name bound below it, its functions' locals too, which only
    # over-counts)
    found: list[str] = []
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.append(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found += [a.asname or a.name.split(".")[0] for a in node.names]
    return found


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _unmigrated(found: Summary, reason: str) -> Summary:
    """``found``, of a TF1 module the run does not write, as graph code calling it sees it:
    unknown, for its own reason when it had one (``MAKES_ITERATOR``), else ``reason``; its
    other facts (effects on arguments and module state, gradients) kept."""
    return replace(found, kind=UNKNOWN, reason=found.reason if found.kind == UNKNOWN and found.reason else reason)


def _exported(tree: ast.Module) -> frozenset[str]:
    """The names ``from module import *`` binds: ``__all__`` when written as a literal,
    else the module's top-level names that do not start with ``_``."""
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets):
            try:
                listed = ast.literal_eval(statement.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return frozenset()
            return frozenset(n for n in listed if isinstance(n, str))
    return frozenset(n for n in _top_level_names(tree) if not n.startswith("_"))


def _top_level_names(tree: ast.Module) -> frozenset[str]:
    """Names the module's top-level statements bind (imports aside)."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    bound = {s.name for s in tree.body if isinstance(s, functions)}
    bound |= {
        n.id
        for s in tree.body
        if not isinstance(s, functions)
        for n in ast.walk(s)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return frozenset(bound)
