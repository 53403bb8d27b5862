"""Turn paths into per-file migration results, and write them only when asked.

Everything that can go wrong with one file (unreadable, migration crash, output that
does not parse) becomes a finding on that file, so one bad file never stops a run.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import itertools
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from collections.abc import Callable, Iterable

import libcst as cst

from tf2migrate import cache
from tf2migrate.analysis.names import changed_in_place, root_name
from tf2migrate.analysis.external_builds import ExternalBuild
from tf2migrate.analysis.project import FileContext
from tf2migrate.analysis.update_ops_producers import UPDATE_OPS_TEXT, update_ops_producers
from tf2migrate.diagnostics import INTERNAL_ERROR, UNREADABLE_FILE, Diagnostic, Rule
from tf2migrate.layout import parse_module
from tf2migrate.migrate import Options, migrate_source
from tf2migrate.linking import (
    Builds,
    ProjectReader,
    find_builds,
    give_changed_elsewhere,
    honoured,
    importers_of,
    kept_on_tf1,
    modules_changed_by,
    names_read_of_module,
    parsed_or_none,
    read_only_result_findings,
    switches_eager_off,
    unnamed_importers,
    removable_factories,
    seen_as_unknown,
)
from tf2migrate.notebook import migrate_notebook
from tf2migrate.output_check import check_parses
from tf2migrate.rewrites.tf_names import ABSENT_PACKAGES
from tf2migrate.source import SourceError, SourceText, read_source, resolved, write_atomic
from tf2migrate.traversal import find_all

# Directories that hold tooling, build output or third-party code, never the user's sources
# (Jupyter's autosaved copies of notebooks included: rewriting them would double every
# notebook's diff and findings).
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".bzr",
        "__pycache__",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "__pypackages__",
        "site-packages",
        ".eggs",
        "build",
        "dist",
        "node_modules",
        ".ipynb_checkpoints",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)


class UsageError(Exception):
    """The command line asked for something impossible (e.g. a path that does not exist)."""


@dataclass
class FileResult:
    """One file's outcome; ``new_text == old_text`` when nothing is (or may be) changed."""

    path: Path
    old_text: str
    new_text: str
    findings: list[Diagnostic]
    encoding: str = "utf-8"

    @property
    def changed(self) -> bool:
        return self.new_text != self.old_text


def discover(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Expand ``paths`` into the files to process, in a stable order, without duplicates.

    A file named explicitly is always processed, whatever its extension, and so is a
    symlink (reading it then reports TFM003).  Directories are walked for ``*.py``
    without following symlinked directories, which could loop or leave the tree.
    """
    found: dict[Path, None] = {}
    for raw in paths:
        path = Path(raw)
        if not os.path.lexists(path):
            raise UsageError(f"{raw}: no such file or directory")
        if path.is_dir() and not path.is_symlink():
            found.update(dict.fromkeys(sorted(_walk(path))))
        else:
            found[path] = None
    return list(found)


def _walk(root: Path) -> Iterable[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not _skipped(Path(dirpath, d))]
        yield from (Path(dirpath, f) for f in filenames if f.endswith((".py", ".ipynb")))


def _walk_outside(root: Path, walked: set[Path]) -> Iterable[Path]:
    """The Python files under ``root``, as :func:`discover` walks, but for the directories
    in ``walked`` (the run's own already)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not _skipped(Path(dirpath, d)) and resolved(Path(dirpath, d)) not in walked]
        yield from (Path(dirpath, f) for f in filenames if f.endswith(".py"))


def _skipped(directory: Path) -> bool:
    return (
        directory.name in SKIP_DIRS
        or directory.name.endswith(".egg-info")
        or directory.is_symlink()
        or (directory / "pyvenv.cfg").exists()  # any virtualenv, whatever its name
    )


def process_file(path: Path, use_cache: bool = False, options: Options = Options()) -> FileResult:
    """Migrate one file in memory, seeing the modules it imports; never raises for a
    problem with the file itself."""
    try:
        source = read_source(path)
    except SourceError as exc:
        return _unreadable(path, exc)
    project = ProjectReader({resolved(path)})
    project.texts[resolved(path)] = source.text
    return process_text(source, path, use_cache, options, project.context_of(path, source.text))


def _unreadable(path: Path, error: SourceError) -> FileResult:
    return FileResult(path, "", "", [_finding(UNREADABLE_FILE, str(error), str(path), error.line)])


@dataclass
class _Work:
    """One file's migration as a worker receives it: the text the run read, what the file
    sees of the project, and the tree of a module the project layer already parsed."""

    source: SourceText
    context: FileContext | None = None
    tree: ast.Module | None = None
    # an importer of the named files that the run reads, never writes (linking.unnamed_importers)
    read_only: bool = False


def process_text(
    source: SourceText,
    path: Path,
    use_cache: bool = False,
    options: Options = Options(),
    context: FileContext | None = None,
    tree: ast.Module | None = None,
) -> FileResult:
    """Migrate text already read (a file's, or standard input's named ``path``);
    ``context`` is what the file sees of the modules it imports, ``tree`` the file's
    ``ast`` when the project layer already parsed it."""
    display = str(path)
    old = source.text
    if "tensorflow" not in old:  # cheap prefilter: a file that never names TF has nothing to migrate
        return FileResult(path, old, old, [], source.encoding)
    notebook = path.suffix == ".ipynb"  # JSON, not Python; its findings name their cell
    variant = f"{'notebook' if notebook else 'python'} {options}"
    if context is not None and (context.modules or context.removable or context.linked):
        variant += f" imports {context.digest()}"  # an edited helper module invalidates its importers
    cached = cache.load(old, variant, display) if use_cache else None
    if cached is not None:
        new, findings = cached
    else:
        try:
            new, findings = (
                migrate_notebook(old, display, options, project=context)
                if notebook
                else migrate_source(old, display, options, project=context, tree=tree)
            )
        except Exception as exc:  # a bug in a rewrite must not stop the run
            return _failed(source, path, f"migration crashed: {type(exc).__name__}: {exc}")
        if use_cache:
            cache.store(old, variant, display, new, findings)
    if new != old:
        problem = _unwritable(new, source.encoding)
        if problem:
            return _failed(source, path, problem)
    if not notebook:
        findings = [replace(d, path=display) for d in findings]
    findings = sorted(findings, key=lambda d: (d.path, d.line, d.column))
    return FileResult(path, old, new, findings, source.encoding)


def _unwritable(new: str, encoding: str) -> str | None:
    """Why the rewritten text must not replace the file, or None when it is safe to.

    migrate_source already checks its own output (``check_parses`` knows the text it last
    proved valid, so asking again costs nothing); this is the gate where files are
    written, whatever path made the text, and it also covers results read back from the
    cache."""
    try:
        check_parses(new)
    except SyntaxError as exc:
        return f"rewritten source does not parse ({exc.msg}, line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"rewritten source does not parse ({type(exc).__name__}: {exc})"
    try:
        new.encode(encoding)
    except UnicodeEncodeError as exc:
        return f"rewritten source cannot be encoded as {encoding}: {exc.reason}"
    return None


def _failed(source: SourceText, path: Path, message: str) -> FileResult:
    finding = _finding(INTERNAL_ERROR, message + "; file left unchanged", str(path))
    return FileResult(path, source.text, source.text, [finding], source.encoding)


def _finding(rule: Rule, message: str, display: str, line: int = 1) -> Diagnostic:
    return Diagnostic(rule.code, message, display, line, 1, rule.severity)


def run(
    paths: Iterable[str | os.PathLike[str]],
    jobs: int | None = None,
    use_cache: bool = False,
    exclude: Callable[[Path], bool] = lambda path: False,
    options_for: Callable[[Path], Options] = lambda path: Options(),
    progress: bool = True,
) -> list[FileResult]:
    """Discover and process files, in parallel processes when it can pay off.

    Results come back in discovery order.  ``jobs`` defaults to every core; one job (or
    one file) runs in-process, which also keeps monkeypatched code visible to tests.
    ``options_for`` gives each file its options (its own configuration's).
    """
    with _collector_for_a_run():
        return _run(list(paths), jobs, use_cache, exclude, options_for, progress)


# How many new container objects CPython's cyclic collector lets pile up before it runs
# (its default, 700, suits small programs).  Migrating a file allocates millions of short-lived
# nodes (libcst's and CPython's trees, renders) and makes almost no reference cycles (its
# trees have no parent links), so each collection found next to nothing to free while the
# oldest generation's ones walked the whole heap, the imported modules and the data tables
# included: a seventh of the CPU of a run of tensor2tensor, a tenth of it at this threshold.
_YOUNG_OBJECTS = 10_000


@contextlib.contextmanager
def _collector_for_a_run():
    """The cyclic collector set for a run, and put back as it was after: what was alive when
    the run began (the imported modules, the data tables) is frozen out of its walks (and the
    worker processes forked from this one inherit that), and it runs every ``_YOUNG_OBJECTS``
    allocations.  Memory is unchanged (peak 139 → 140 MB on tensor2tensor in one process):
    what the run frees is freed by reference counting."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(_YOUNG_OBJECTS, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def _run(
    paths: list[str | os.PathLike[str]],
    jobs: int | None,
    use_cache: bool,
    exclude: Callable[[Path], bool],
    options_for: Callable[[Path], Options],
    progress: bool,
) -> list[FileResult]:
    named = {Path(p) for p in paths if not Path(p).is_dir()}  # files named explicitly always run
    walked = {resolved(Path(p)) for p in paths if Path(p).is_dir()}
    files = [f for f in discover(paths) if f in named or not exclude(f)]
    migrated = len(files)
    work, project, builds = _project_work(files, walked)  # (appends the files importing them)
    options = [options_for(f) for f in files[:migrated]] + [Options()] * (len(files) - migrated)
    importers = importers_of(files, [w.context if isinstance(w, _Work) else None for w in work])
    _give_update_ops_producers(files, work, project, importers)
    jobs = jobs or os.cpu_count() or 1
    shown = _Progress(migrated if progress else 0)
    results: list[FileResult | None] = [None] * len(files)
    # the files no other file of the run imports first: what they still call of the
    # helper modules decides how those are migrated (see _decide_helpers)
    first = [i for i in range(len(files)) if i not in importers]
    for i, result in zip(first, _map(files, work, options, first, use_cache, jobs), strict=True):
        results[i] = shown.step(result) if i < migrated else result
    # then each helper module once every file importing it is done: a helper imported by
    # another helper (main.py → model.py → utilities.py) is decided on its importer as
    # migrated (model.py no longer calling utilities' session factory), as the first ones
    # are; helpers importing each other in a cycle are done together
    done, waiting = list(first), list(importers)
    while waiting:
        finished = set(done)
        layer = [h for h in waiting if all(i in finished or i == h for i in importers[h])] or waiting
        _decide_helpers(files, work, results, project, importers, done, layer)
        for i, result in zip(layer, _map(files, work, options, layer, use_cache, jobs), strict=True):
            results[i] = shown.step(result) if i < migrated else result
        done += layer
        waiting = [h for h in waiting if h not in layer]
    while True:
        # (each step migrates files again only where the other left the sides disagreeing:
        # a class module kept by the build step's check makes importers kept, which may keep a
        # caller whose session a class had dropped; a few rounds at most)
        before = list(results)
        _settle_builds(files, work, results, builds, use_cache, options)  # type: ignore[arg-type]
        _keep_helpers_of_kept_importers(files, work, results, importers, use_cache, options)  # type: ignore[arg-type]
        _keep_importers_of_kept_helpers(files, work, results, importers, use_cache, options)  # type: ignore[arg-type]
        if all(a is b for a, b in zip(before, results, strict=True)) or not builds.sessions:
            break
    shown.done()  # the line is cleared before anything else is printed
    return results[:migrated]  # type: ignore[return-value]


def _map(files, work, options, indices: list[int], use_cache: bool, jobs: int) -> list[FileResult]:
    """Process the files at ``indices``, in parallel processes when it can pay off.

    The largest files go first, one at a time, so that no worker is left with a long file
    while the others have finished (a fixed split of tensor2tensor kept one core idle for
    a tenth of the run); results come back in ``indices`` order all the same."""
    if jobs == 1 or len(indices) < 2:
        return [_process(files[i], work[i], use_cache, options[i]) for i in indices]
    workers = min(jobs, len(indices))
    gc.freeze()  # (what the run read so far, its trees: the workers' collector need not walk it)
    largest_first = sorted(indices, key=lambda i: -_size(work[i]))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        done = pool.map(
            _process,
            [files[i] for i in largest_first],
            [work[i] for i in largest_first],
            itertools.repeat(use_cache),
            [options[i] for i in largest_first],
        )
        results = dict(zip(largest_first, done, strict=True))
    return [results[i] for i in indices]


def _size(item: _Work | FileResult) -> int:
    return len(item.source.text) if isinstance(item, _Work) else 0


def _project_work(files: list[Path], walked: set[Path]) -> tuple[list[_Work | FileResult], ProjectReader, Builds]:
    """Read every file once and analyse the project they form: each file gets the
    summaries of the modules it imports (read from disk when the run does not name
    them: they are read, never written) and, if the project layer parsed it, its tree.
    The project's files importing them that the run does not name are appended to
    ``files``, read-only (outside the directories ``walked`` whole: their files are the
    run's already).  A file that cannot be read has its result already."""
    project = ProjectReader({resolved(path) for path in files})
    work: list[_Work | FileResult] = []
    for path in files:
        try:
            source = read_source(path)
        except SourceError as exc:
            work.append(_unreadable(path, exc))
            continue
        project.texts[resolved(path)] = source.text
        work.append(_Work(source))
    for path in unnamed_importers(files, project, walked, _walk_outside):
        try:
            source = read_source(path)
        except SourceError:
            continue  # (read by the scan already: not here)
        files.append(path)
        work.append(_Work(source, read_only=True))
    for path, item in zip(files, work, strict=True):
        if isinstance(item, _Work):
            item.context = project.context_of(path, item.source.text)
    # what each file changes of the project's modules' state, told to the others
    contexts = [w.context if isinstance(w, _Work) else None for w in work]
    changes = [
        modules_changed_by(resolved(path), item.source.text, item.context, project.trees.get(resolved(path)))
        if isinstance(item, _Work)
        else frozenset()
        for path, item in zip(files, work, strict=True)
    ]
    for item, context in zip(work, give_changed_elsewhere(contexts, changes), strict=True):
        if isinstance(item, _Work):
            item.context = context
    read_only = frozenset(i for i, item in enumerate(work) if isinstance(item, _Work) and item.read_only)
    builds = find_builds(files, [w.context if isinstance(w, _Work) else None for w in work], project, project.texts, read_only)
    _give_builds(files, work, builds)
    for path, item in zip(files, work, strict=True):  # once every context is known: any may parse a file
        if isinstance(item, _Work):
            item.tree = project.trees.get(resolved(path))
    return work, project, builds


def _give_builds(files: list[Path], work: list[_Work | FileResult], builds: Builds) -> None:
    """Each class module its classes' build steps (or why not), each caller the sessions
    that go with them (analysis/external_builds.py)."""
    by_path = {resolved(path): item for path, item in zip(files, work, strict=True)}
    for groups in builds.sessions.values():
        for classes in groups.values():
            if not builds.proved(classes):  # the session stays: so do the parameters of all it is given to
                for key in classes:
                    if isinstance(builds.classes.get(key), ExternalBuild):
                        builds.classes[key] = "the session passed to it is also passed to a class that is not built this way"
    for (path, name), found in builds.classes.items():
        item = by_path.get(path)
        if not isinstance(item, _Work):
            continue
        context = item.context or FileContext()
        if isinstance(found, str):
            item.context = replace(context, build_refusals={**context.build_refusals, name: found})
        else:
            item.context = replace(context, external_builds={**context.external_builds, name: found})
    for i, groups in builds.sessions.items():
        item = work[i]
        given = frozenset(key for key, classes in groups.items() if builds.proved(classes))
        if isinstance(item, _Work) and given:
            item.context = replace(item.context or FileContext(), given_sessions=given)


def _settle_builds(files, work, results: list[FileResult], builds: Builds, use_cache: bool, options) -> None:
    """A session goes from a caller only if every class it is given to lost its parameter,
    and a class loses it only if the caller's session went.  Where a class's module stayed
    on TF1 (for reasons of its own, which its findings give), the caller is migrated again
    keeping its session; where the caller stayed, the classes that had lost the parameter
    are migrated again without the build step; until both sides agree."""
    index = {resolved(path): i for i, path in enumerate(files)}
    while True:
        withdrawn: set[tuple[Path, str]] = set()
        again: set[int] = set()
        for i, groups in builds.sessions.items():
            item = work[i]
            for key, classes in groups.items():
                if not isinstance(item, _Work) or item.context is None or key not in item.context.given_sessions:
                    continue
                modules = {path: results[index[path]] for path, _ in classes if path in index}
                if honoured(key, classes, results[i], modules, builds):
                    continue
                withdrawn |= classes
                again.add(i)
                kept = sorted(
                    f"`{name}` ({path.name})" for path, name in classes if path not in modules or kept_on_tf1(modules[path].findings)
                )
                note = (
                    (key[0], key[1], f"it is passed to {', '.join(kept)}, which {'stays' if len(kept) == 1 else 'stay'} on TF1")
                    if kept
                    else None
                )
                item.context = replace(
                    item.context,
                    given_sessions=item.context.given_sessions - {key},
                    session_notes=item.context.session_notes | ({note} if note else set()),
                )
        if not withdrawn:
            return
        for path, name in withdrawn:
            if path not in index:
                continue
            m = index[path]
            item = work[m]
            if not isinstance(item, _Work) or item.context is None or name not in item.context.external_builds:
                continue
            if kept_on_tf1(results[m].findings):
                continue  # (kept with its session parameter: its findings say why)
            reason = "its caller keeps the session it passes in (the caller stays on TF1)"
            builds.classes[(path, name)] = reason
            externals = {k: v for k, v in item.context.external_builds.items() if k != name}
            item.context = replace(item.context, external_builds=externals, build_refusals={**item.context.build_refusals, name: reason})
            again.add(m)
        for i in sorted(again):
            results[i] = _process(files[i], work[i], use_cache, options[i])


def _give_update_ops_producers(files, work, project: ProjectReader, importers: dict[int, list[int]]) -> None:
    """Tell each file reading TF1's UPDATE_OPS collection what may add to it in the run's
    files importing it (directly or through others) and in the modules those import, besides
    what the modules it imports hold (ProjectReader.context_of) (rewrites/empty_update_ops.py;
    the file's own mentions are its migration's to read)."""
    for i, item in enumerate(work):
        if not isinstance(item, _Work) or UPDATE_OPS_TEXT not in item.source.text:
            continue
        itself = resolved(files[i])
        found = list(item.context.update_ops_producers if item.context is not None else ())
        users, pending = set(), list(importers.get(i, ()))
        while pending:
            user = pending.pop()
            if user in users or user == i:
                continue
            users.add(user)
            pending += importers.get(user, ())
            importer = work[user]
            text = importer.source.text if isinstance(importer, _Work) else ""
            tree = project.trees.get(resolved(files[user])) or parsed_or_none(text)
            if tree is None:
                found.append(f"{files[user].name}: not read")
                continue
            found += [f"{files[user].name}:{p}" for p in update_ops_producers(tree)]
            found += project.update_ops_producers(resolved(files[user]), text, frozenset({itself}))
        if found:
            item.context = replace(item.context or FileContext(), update_ops_producers=tuple(dict.fromkeys(found)))


def _decide_helpers(
    files, work, results, project: ProjectReader, importers: dict[int, list[int]], done: list[int], layer: list[int]
) -> None:
    """The helper modules to migrate now (``layer``), each told which of its session factories to
    remove (linking.removable_factories; the files already done are read as migrated) and
    whether TF1 code imports it (an importer the migration changed, or a helper module TF1
    code imports, directly or through other helpers: its names then had TF1's meaning)."""
    finished = set(done)
    texts = {
        resolved(path): results[i].new_text if i in finished else (item.source.text if isinstance(item, _Work) else "")
        for i, (path, item) in enumerate(zip(files, work, strict=True))
    }
    # an importer the migration changed was TF1 code (TF2 code is left alone); a helper
    # module such code imports is TF1 too, and so are the helpers it imports in turn.  Not
    # an importer that switches eager execution off itself: it runs where ``tf`` is TF2
    # (our own output of a kept file, which a second run may still change for a while
    # before the build step keeps it again: seen as TF1, it made every module under
    # tensor2tensor's t2t_datagen.py TF1 on that run)
    tf1 = {i for i in finished if (results[i].changed or kept_on_tf1(results[i].findings)) and not switches_eager_off(results[i].old_text)}
    grown = True
    while grown:
        grown = False
        for helper, users in importers.items():
            if helper not in tf1 and any(i in tf1 for i in users):
                tf1.add(helper)
                grown = True
    read_by: dict[int, tuple[frozenset[str], frozenset[str]]] = {}  # importer → (attributes read, callees given changed objects)
    for helper in layer:
        item, summary = work[helper], project.summary(resolved(files[helper]))
        if isinstance(item, _Work) and summary is not None:
            removable = removable_factories(summary, item.source.text, texts)
            if removable:
                item.context = replace(item.context or FileContext(), removable=removable)
        if isinstance(item, _Work) and helper in tf1:
            item.context = replace(item.context or FileContext(), tf1_callers=True)
        written = {i: _names_written([texts[resolved(files[i])]]) for i in importers[helper]}
        named = frozenset().union(*written.values())
        if isinstance(item, _Work) and named:
            item.context = replace(item.context or FileContext(), importer_names=named)
        read_of_module = frozenset().union(
            *(
                names_read_of_module(
                    resolved(files[helper]), texts[resolved(files[i])], work[i].context if isinstance(work[i], _Work) else None, written[i]
                )
                for i in importers[helper]
            )
        )
        if isinstance(item, _Work) and read_of_module:
            item.context = replace(item.context or FileContext(), importer_module_names=read_of_module)
        if not isinstance(item, _Work) or "class " not in item.source.text:
            continue  # (what importers read of objects and change in place matters to the module's classes)
        for i in importers[helper]:  # (each importer read once, whatever number of helpers it imports)
            if i not in read_by:
                read_by[i] = (_attributes_read(work[i]), _called_with_changed_objects(work[i]))
        attributes = frozenset().union(*(read_by[i][0] for i in importers[helper]))
        if attributes:
            item.context = replace(item.context or FileContext(), importer_attributes=attributes)
        given_changed = frozenset().union(*(read_by[i][1] for i in importers[helper]))
        if given_changed:
            item.context = replace(item.context or FileContext(), importer_changed_arguments=given_changed)


def _names_written(texts: Iterable[str]) -> frozenset[str]:
    """The identifiers the importers write (``texts``: as migrated, for those done, which
    is what a second run reads): the helper module's methods they may call
    (``predictor.predict(x)``), which the module alone cannot see called.  Not the names
    an importer binds by importing TF's absent packages (``from tensorflow.contrib... import
    resnet_v2_152``): TF's, not the helper's, and gone once that importer's migration drops
    the import unused; counted while an importer of the same cycle was not done yet, they
    kept the helper's own unused import on a first run, and a second run removed it
    (tensor2tensor's ``vqa_layers.py``)."""
    return frozenset(name for text in texts for name in _IDENTIFIER.findall(_ABSENT_IMPORT.sub("", text)))


_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_PACKAGES = "|".join(re.escape(package) for package in ABSENT_PACKAGES)
_ABSENT_IMPORT = re.compile(
    rf"^[ \t]*(?:from[ \t]+(?:{_PACKAGES})[\w.]*[ \t]+import[ \t][^\n(\\]*|import[ \t]+(?:{_PACKAGES})[^\n\\]*)$", re.M
)


def _attributes_read(item: _Work | FileResult) -> frozenset[str]:
    """The attributes an importer reads of objects that are not modules they import
    (``model.sess.run(model.loss, {model.x: X})``: ``sess``, ``loss``, ``x``, ``run``): a
    class of the helper module whose graph attribute of such a name became a generated
    method would leave that importer reading an attribute that no longer exists."""
    found: set[str] = set()
    # (the tree the project layer parsed, when it did: a module is parsed once per run)
    tree = item.tree if isinstance(item, _Work) else None
    if tree is None:
        try:
            tree = ast.parse(item.source.text if isinstance(item, _Work) else item.old_text)
        except (SyntaxError, ValueError, RecursionError):  # (reported as the importer's own finding)
            return frozenset()
    # (a name ``from m import name`` binds may be an object: ``from nets import shared``)
    modules = {
        (alias.asname or alias.name).partition(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            root = node.value
            while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
                root = root.func if isinstance(root, ast.Call) else root.value
            if not (isinstance(root, ast.Name) and root.id in modules):
                found.add(node.attr)
    return frozenset(found)


def _called_with_changed_objects(item: _Work | FileResult) -> frozenset[str]:
    """The names an importer calls (``Model(ks)``, ``H.Model(ks)``) passing a name whose object
    they change in place anywhere (``ks[0] = 2.5``, ``ks.append(...)``): a class of the helper
    module that stores such an argument for its generated methods would read the changed object
    when they run, where TF1 built its graph with the object as it was at the construction."""
    called: set[str] = set()
    text = item.source.text if isinstance(item, _Work) else item.old_text
    if not any(change in text for change in ("[", ".")):
        return frozenset()
    try:
        module = parse_module(text)
    except (cst.ParserSyntaxError, RecursionError):  # (reported as the importer's own finding)
        return frozenset()
    changed = set(changed_in_place(module))
    for call in find_all(module, cst.Call) if changed else ():
        assert isinstance(call, cst.Call)
        callee = call.func.attr if isinstance(call.func, cst.Attribute) else call.func
        if isinstance(callee, cst.Name) and any(root_name(a.value) in changed for a in call.args):
            called.add(callee.value)
    return frozenset(called)


def _keep_helpers_of_kept_importers(files, work, results: list[FileResult], importers, use_cache: bool, options) -> None:
    """The converse of _keep_importers_of_kept_helpers: an importer that stays on TF1
    semantics switches eager execution off for the whole process, so a helper module whose
    own graph (a class with its session) was converted to eager TF2 would run in graph mode
    (``.numpy()`` of a symbolic tensor): it is migrated again, told which importers stay
    (FileContext.graph_mode_modules), and its graph is kept on TF1 too."""
    for helper, users in importers.items():
        item = work[helper]
        if not isinstance(item, _Work) or kept_on_tf1(results[helper].findings) or not results[helper].changed:
            continue
        if not any(word in item.source.text for word in ("Session", "placeholder")):
            continue  # (no graph of its own to convert: its renames hold in graph mode too; a cheap test first)
        kept = [i for i in users if kept_on_tf1(results[i].findings) or switches_eager_off(results[i].new_text)]
        if kept:
            item.context = _in_graph_mode_of(item.context, [files[i].name for i in kept])
            results[helper] = _process(files[helper], item, use_cache, options[helper])


def _in_graph_mode_of(context: FileContext | None, modules: list[str]) -> FileContext:
    """The context of a file that runs in the same process as ``modules``, which stay on TF1
    semantics (they switch eager execution off): its graph is kept on TF1 too."""
    context = context or FileContext()
    return replace(context, graph_mode_modules=tuple(sorted({*context.graph_mode_modules, *modules})))


def _keep_importers_of_kept_helpers(files, work, results: list[FileResult], importers, use_cache: bool, options) -> None:
    """A helper module that stays on TF1 semantics (its graph kept: the fallback switches
    eager execution off when it is imported) would break importers converted to eager
    TF2: those are migrated again, seeing its functions as unknown, and are kept too,
    with a finding that names the module."""
    for helper, users in importers.items():
        if not kept_on_tf1(results[helper].findings) and not switches_eager_off(results[helper].new_text):
            continue
        for i in users:
            if results[i].changed and not kept_on_tf1(results[i].findings):
                work[i].context = seen_as_unknown(work[i].context, resolved(files[helper]))
                results[i] = _process(files[i], work[i], use_cache, options[i])
                if results[i].changed and not kept_on_tf1(results[i].findings):
                    # its graph calls none of the module's functions: it stays on TF1 all the same
                    work[i].context = _in_graph_mode_of(work[i].context, [files[helper].name])
                    results[i] = _process(files[i], work[i], use_cache, options[i])
        item = work[helper]
        if item.context is not None and item.context.removable:
            # the importers kept on TF1 call its session factories again: they stay
            item.context = replace(item.context, removable=frozenset())
            results[helper] = _process(files[helper], item, use_cache, options[helper])


def _process(path: Path, work: _Work | FileResult, use_cache: bool, options: Options) -> FileResult:
    if isinstance(work, FileResult):
        return work
    if work.read_only:
        text = work.source.text
        return FileResult(path, text, text, read_only_result_findings(path, text), work.source.encoding)
    return process_text(work.source, path, use_cache, options, work.context, work.tree)


class _Progress:
    """``[k/n files]`` on stderr, only on a terminal and only for runs long enough to matter;
    :meth:`done` erases it, so the first line printed after it starts at column 0."""

    MIN_FILES = 50

    def __init__(self, total: int) -> None:
        self.total = total
        self.count = 0
        self.shown = total >= self.MIN_FILES and sys.stderr.isatty()

    def step(self, result: FileResult) -> FileResult:
        self.count += 1
        if self.shown:
            sys.stderr.write(f"\r[{self.count}/{self.total} files]")
            sys.stderr.flush()
        return result

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * (len(str(self.total)) * 2 + 10) + "\r")
            sys.stderr.flush()


def apply(result: FileResult) -> None:
    """Write a changed result back atomically in its original encoding.

    Refuses (``SourceError``) when the file changed on disk since it was read, so a
    concurrent edit is never overwritten by a migration of the older text.
    """
    if not result.changed:
        return
    try:
        current = read_source(result.path)
        if current != SourceText(result.old_text, result.encoding):
            raise SourceError("changed on disk since it was read; not overwritten")
        write_atomic(result.path, SourceText(result.new_text, result.encoding).encode())
    except OSError as exc:
        raise SourceError(f"cannot write: {exc.strerror or exc}") from exc
