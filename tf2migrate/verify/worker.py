"""Subprocess entry point: run a batch of programs under TF1 or TF2 semantics.

A program runs as a script (its globals are the values), or is imported and
called by a driver (see driver.py).

``python -m tf2migrate.verify.worker --mode tf1|tf2|tf2graph --jobs JOBS --out OUT``

Scripts are batched into one process because importing TensorFlow takes seconds.
TensorFlow is imported only here (in :func:`main`, not at import time), never in
the parent. Each :class:`ScriptResult` is appended to OUT as its own pickle as
soon as its script ends, and the running script's output goes to ``OUT.output``,
so if the process dies the parent still knows which script killed it and what it
printed. Results never go through stdout: scripts print.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import faulthandler
import inspect
import os
import pickle
import random
import runpy
import sys
import traceback
import types
from pathlib import Path
from typing import TYPE_CHECKING

from tf2migrate.verify.driver import run_driver
from tf2migrate.verify.records import (
    NONE,
    NUMBER,
    OTHER,
    TENSOR,
    Job,
    Leaf,
    ScriptResult,
)

if TYPE_CHECKING:
    from tf2migrate.verify.tf1_mode import Tf1Mode
    from tf2migrate.verify.tf2_mode import Tf2Mode

#: Deeper containers are recorded as opaque (this also stops self-references).
_MAX_DEPTH = 20


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tf2migrate.verify.worker")
    parser.add_argument("--mode", choices=["tf1", "tf2", "tf2graph"], required=True)
    parser.add_argument("--jobs", required=True, help="pickled list of Job")
    parser.add_argument("--out", required=True, help="ScriptResult pickles are appended here")
    args = parser.parse_args(argv)
    # A segfault's Python traceback goes to the worker log, not to a script's output.
    faulthandler.enable(file=os.fdopen(os.dup(2), "w"))
    jobs: list[Job] = pickle.loads(Path(args.jobs).read_bytes())
    tf = _import_tensorflow()
    mode = _mode_class(args.mode)(tf)
    output_path = Path(args.out + ".output")
    # Set up the devices now, so that their logs (a failing cuInit, say) go
    # to the worker log rather than into the first script's output.
    tf.config.list_logical_devices()
    with open(args.out, "wb") as out:
        for job in jobs:
            try:
                result = run_job(mode, tf, job, output_path)
            except Exception:  # noqa: BLE001 - a bug here must not cost the batch
                result = ScriptResult(job.script, error="the verify worker failed:\n" + traceback.format_exc())
            pickle.dump(result, out)
            out.flush()


def _mode_class(name: str) -> type[Tf1Mode] | type[Tf2Mode]:
    """The semantics a batch runs under; each mode's module imports TensorFlow's internals,
    so only the chosen one is imported."""
    if name == "tf1":
        from tf2migrate.verify.tf1_mode import Tf1Mode

        return Tf1Mode
    if name == "tf2graph":
        from tf2migrate.verify.tf2graph_mode import Tf2GraphMode

        return Tf2GraphMode
    from tf2migrate.verify.tf2_mode import Tf2Mode

    return Tf2Mode


def _import_tensorflow():
    """Import TF and make it deterministic and single-threaded before any op runs.

    These settings must precede the first op (hence the modes' switch to graph
    mode comes after them); TF raises if a setting is no longer allowed, which we
    tolerate.
    """
    import tensorflow as tf

    settings = (
        tf.config.experimental.enable_op_determinism,
        lambda: tf.config.threading.set_intra_op_parallelism_threads(1),
        lambda: tf.config.threading.set_inter_op_parallelism_threads(1),
    )
    for apply in settings:
        try:
            apply()
        except (RuntimeError, ValueError):
            pass
    return tf


def run_job(mode, tf, job: Job, output_path: Path) -> ScriptResult:
    """Run one script as ``python script.py`` would, or import it and call its
    driver, under ``mode``.

    The program's (and driver's) own failures are recorded in the result, not raised.
    """
    import numpy as np

    script = Path(job.script).resolve()
    result = ScriptResult(script=str(script))
    np.random.seed(0)
    random.seed(0)
    with _output_to(output_path), _as_main_script(script), _absl_flags_scope():
        with mode.running(job, result):
            if job.driver:
                values, result.error = _drive(script, Path(job.driver), mode.side)
            else:
                values, result.error = _execute(script, guard_locals=mode.side == "tf2")
    result.output = output_path.read_text(errors="replace")
    if values is not None:
        result.values = {name: _encode(value, tf, mode.final_value) for name, value in values.items()}
    return result


def _drive(script: Path, driver: Path, side: str):
    """Import ``script`` and call the driver on it (see driver.py); return (the
    dict of values or None, traceback or None)."""
    try:
        return run_driver(script, driver, side), None
    except BaseException as exc:  # noqa: BLE001 - the program's or driver's failure is data
        return None, _format(exc)


def _execute(script: Path, guard_locals: bool = False):
    """Run ``script`` as ``__main__``; return (its public data globals or None,
    traceback or None).

    ``sys.exit(0)`` (e.g. from ``tf.app.run``) counts as success; the globals are
    then taken from the traceback, since runpy only returns them on a normal end.
    ``guard_locals`` (the migration's side): when the script's ``__main__`` guard only
    calls a function of its own (the guard's statements moved there, TFM149), that
    call's locals stand for the globals the original's guard bound, where no global has
    the name.
    """
    moved: dict[str, object] = {}
    function = _guard_function(script) if guard_locals else None
    if function is not None:
        sys.setprofile(_locals_at_return(script, function, moved))
    try:
        namespace = runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            return None, _format(exc)
        frame = _script_traceback(exc, script)
        namespace = dict(frame.tb_frame.f_globals) if frame else {}
    except BaseException as exc:  # noqa: BLE001 - the script's failure is data
        return None, _format(exc)
    finally:
        if function is not None:
            sys.setprofile(None)
    return {
        name: value
        for name, value in {**moved, **namespace}.items()
        if not name.startswith("_") and not isinstance(value, (types.ModuleType, type)) and not inspect.isroutine(value)
    }, None


def _guard_function(script: Path) -> str | None:
    """The module-level function that the script's ``if __name__ == "__main__":`` calls,
    when the guard does nothing else."""
    try:
        tree = ast.parse(script.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return None
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("__name__ == '__main__'", "'__main__' == __name__"):
            statement = node.body[0] if len(node.body) == 1 and not node.orelse else None
            call = statement.value if isinstance(statement, ast.Expr) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and not call.args and not call.keywords:
                return call.func.id if call.func.id in functions else None
    return None


def _locals_at_return(script: Path, function: str, into: dict[str, object]):
    """A profile hook keeping the locals of ``function`` of ``script`` as it returns."""
    filename = str(script)

    def hook(frame, event, arg):
        if event == "return" and frame.f_code.co_name == function and frame.f_code.co_filename == filename:
            into.update(frame.f_locals)

    return hook


def _script_traceback(exc: BaseException, script: Path):
    """The traceback entry of the script's module-level frame, if any."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != str(script):
        tb = tb.tb_next
    return tb


#: Modules whose frames lead up to the user's code: left out of its tracebacks
#: (and this file's, by file name: it runs as ``__main__``, as scripts do).
_OURS = {run_driver.__module__, "runpy", "importlib._bootstrap", "importlib._bootstrap_external"}


def _format(exc: BaseException) -> str:
    """The traceback from the first frame of the user's code (script, program or
    driver) on, without the worker's, runpy's and the import machinery's."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None and _ours(tb.tb_frame):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


def _ours(frame) -> bool:
    return frame.f_code.co_filename == __file__ or frame.f_globals.get("__name__") in _OURS


def _encode(value, tf, final_value, depth: int = 0):
    """Encode a global's value as Leaf / list / dict (see records).

    A variable is the value it held when the script ended (``final_value``, see
    final_values). A list or tuple of numbers that numpy can stack becomes one array
    leaf, so a list of 1000 losses is one comparison row, not 1000.
    """
    import numpy as np

    if value is None:
        return Leaf(NONE, "None")
    if isinstance(value, tf.Variable) and (held := final_value(value)) is not None:
        array = np.asarray(held)
        if array.dtype.kind in "biufc":
            return Leaf(NUMBER, "tf.Variable", array, variable=True)
    if isinstance(value, (bool, int, float, complex, np.generic, np.ndarray)):
        array = np.asarray(value)
        if array.dtype.kind in "biufc":
            return Leaf(NUMBER, _type_name(value), array)
    elif isinstance(value, (tf.Variable, tf.__internal__.types.Tensor, tf.__internal__.CompositeTensor)):
        # Not tf.is_tensor: its Protocol check reads attributes, which for some
        # objects runs code (absl's FLAGS wrapper parses sys.argv).
        kind = "tf.Variable" if isinstance(value, tf.Variable) else "tf.Tensor"
        return Leaf(TENSOR, kind if isinstance(value, (tf.Variable, tf.Tensor)) else _type_name(value))
    elif depth < _MAX_DEPTH and isinstance(value, (list, tuple)):
        items = [_encode(item, tf, final_value, depth + 1) for item in value]
        if all(isinstance(item, Leaf) and item.kind == NUMBER for item in items):
            try:
                array = np.asarray([item.value for item in items])
            except ValueError:  # ragged
                return items
            if array.dtype.kind in "biufc":
                return Leaf(NUMBER, _type_name(value), array, variable=all(item.variable for item in items))
        return items
    elif depth < _MAX_DEPTH and isinstance(value, dict):
        # A dict keyed by tensors (a TF1 feed_dict) is not a value the program computed.
        if all(isinstance(key, (str, int, float, bool)) for key in value):
            return {key: _encode(item, tf, final_value, depth + 1) for key, item in value.items()}
    return Leaf(OTHER, _type_name(value))


def _type_name(value) -> str:
    cls = type(value)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


@contextlib.contextmanager
def _output_to(path: Path):
    """Send file descriptors 1 and 2 to ``path``: this catches ``print`` and TF's
    C++ logging (``tf.print``, ``tf.Print``) alike."""
    streams = sys.stdout, sys.stderr
    streams[0].flush()
    streams[1].flush()
    saved = os.dup(1), os.dup(2)
    with open(path, "wb") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout, sys.stderr = streams
            streams[0].flush()
            streams[1].flush()
            for fd, copy in zip((1, 2), saved):
                os.dup2(copy, fd)
                os.close(copy)


@contextlib.contextmanager
def _as_main_script(script: Path):
    """Emulate ``python script.py``: cwd, ``sys.argv`` and ``sys.path[0]``.

    Afterwards, forget the modules imported from the script's directory and from the
    directories it put on ``sys.path`` (``sys.path.insert(0, '../Utilities')``), so the
    next script of the batch imports its own helper modules, not these; and forget the
    import system's finders for the entries it added, which hold the directory a relative
    entry meant for this script.
    """
    saved = os.getcwd(), sys.argv, sys.path[:]
    known = set(sys.modules)
    os.chdir(script.parent)
    sys.argv = [str(script)]
    sys.path.insert(0, str(script.parent))
    try:
        yield
    finally:
        os.chdir(saved[0])
        sys.argv = saved[1]
        # (a relative entry is taken from the script's directory, its working directory)
        added = [p for p in sys.path if p not in saved[2]]
        directories = [script.parent] + [(script.parent / p).resolve() for p in added]
        # (before sys.path is restored: a namespace package's path is computed from it)
        for name in set(sys.modules) - known:
            if _imported_from(sys.modules[name], directories):
                del sys.modules[name]
        sys.path[:] = saved[2]
        for entry in added:
            # the finder cached for ``'../Utilities'`` holds the directory it meant from this
            # script's working directory: the next script writing the same string means its own
            sys.path_importer_cache.pop(entry, None)


def _imported_from(module: types.ModuleType, directories: list[Path]) -> bool:
    """Whether ``module`` came from under one of ``directories``: its file, or for a
    namespace package (a directory without ``__init__.py``, no file) every directory of
    its path — else the next script's ``pkg.layers`` would be looked up in this script's ``pkg``."""
    file = getattr(module, "__file__", None)
    paths = [file] if file else list(getattr(module, "__path__", None) or [])
    return bool(paths) and all(any(Path(p).resolve().is_relative_to(d) for d in directories) for p in paths)


@contextlib.contextmanager
def _absl_flags_scope():
    """Forget the absl flags a script defined (``tf.app.flags`` in TF1 code): the
    next script of the batch may define the same ones, which absl refuses."""
    from absl import flags

    known = set(flags.FLAGS)
    try:
        yield
    finally:
        for name in set(flags.FLAGS) - known:
            delattr(flags.FLAGS, name)
        flags.FLAGS.unparse_flags()


if __name__ == "__main__":
    main()
