"""Drivers: ``tf2migrate verify ORIGINAL MIGRATED --driver DRIVER.py``.

Research code computes its values through an API (a model class in ``model.py``,
helpers in ``utilities.py``), not in module globals. A driver is one small file,
run unchanged on both sides, that calls that API::

    def setup(ctx):                  # optional; runs before the program is imported
        ctx.stub("plotting")         # a module that needs matplotlib or data files
        ctx.cap_scipy(maxiter=20)    # SciPy optimizers stop after 20 iterations

    def drive(program, rng):         # program: the imported main module
        model = program.Model(rng.randn(8, 2), layers=[2, 8, 1])
        return {"losses": model.train(5), "prediction": model.predict(rng.randn(4, 2))}

The program's main module is imported by path under its own name (``model``), with
its directory first on ``sys.path``, so its siblings come from the same tree and
its ``if __name__ == "__main__":`` block does not run. ``rng`` is
``numpy.random.RandomState(0)``. ``drive`` returns a dict (nested dicts and lists
allowed) of arrays and scalars: the values compared. Used by the worker
(subprocess); imports neither TensorFlow nor numpy at import time.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from pathlib import Path


class DriverContext:
    """What ``setup(ctx)`` may change; every change is undone after the program ran."""

    def __init__(self, side: str, program: Path):
        self.side = side  # "tf1" or "tf2"; a driver that needs it is rarely a fair check
        self.program = program  # the main module's path
        self._undo: list = []

    def stub(self, name: str, **attributes) -> types.ModuleType:
        """Make ``import name`` give a stand-in module: ``attributes`` as given, any
        other attribute a function that accepts anything and returns None.

        A missing parent package (``matplotlib`` for ``matplotlib.pyplot``) is
        stubbed too; a parent that imports gets the stub as its attribute.
        """
        module = types.ModuleType(name, "a stand-in made by a tf2migrate verify driver")
        module.__dict__.update(attributes, __getattr__=_ignore)
        parent_name, _, child = name.rpartition(".")
        if parent_name:
            try:
                parent = importlib.import_module(parent_name)
            except ImportError:
                parent = self.stub(parent_name)
            self.patch(parent, child, module)
        self.set_module(name, module)
        return module

    def cap_scipy(self, maxiter: int) -> None:
        """Cap ``scipy.optimize.minimize`` at ``maxiter`` iterations (and function
        evaluations for L-BFGS-B and TNC): full L-BFGS-B runs take minutes, and a few
        iterations compare the same code paths. Both sides are capped alike; set up
        before the program is imported, so ``from scipy.optimize import minimize``
        gets the capped one too."""
        import scipy.optimize

        minimize = scipy.optimize.minimize

        def capped(*args, **kwargs):
            options = dict(kwargs.get("options") or {})
            counts_calls = str(kwargs.get("method", "")).upper() in ("L-BFGS-B", "TNC")
            for key in ("maxiter", "maxfun") if counts_calls else ("maxiter",):
                options[key] = min(options.get(key, maxiter), maxiter)
            kwargs["options"] = options
            return minimize(*args, **kwargs)

        self.patch(scipy.optimize, "minimize", capped)

    def patch(self, target, attribute: str, value) -> None:
        """``setattr(target, attribute, value)`` for this program's run only."""
        missing = object()
        saved = getattr(target, attribute, missing)
        setattr(target, attribute, value)
        self._undo.append(lambda: delattr(target, attribute) if saved is missing else setattr(target, attribute, saved))

    def set_module(self, name: str, module: types.ModuleType) -> None:
        """``sys.modules[name] = module`` for this program's run only."""
        self.patch(_Modules(), name, module)

    def restore(self) -> None:
        while self._undo:
            self._undo.pop()()


class _Modules:
    """``sys.modules`` as attributes, so that :meth:`DriverContext.patch` undoes module entries too."""

    def __getattr__(self, name):
        try:
            return sys.modules[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        sys.modules[name] = value

    def __delattr__(self, name):
        del sys.modules[name]


def _ignore(name: str):
    if name.startswith("__"):  # keep the import machinery's probes honest
        raise AttributeError(name)
    return lambda *args, **kwargs: None


def run_driver(program: Path, driver: Path, side: str) -> dict:
    """Load ``driver``, run its ``setup``, import ``program`` and return ``drive``'s dict.

    Raises whatever the driver or the program raises (the worker records it).
    """
    import numpy as np

    hooks = _load(driver, "tf2migrate_verify_driver")
    if not callable(getattr(hooks, "drive", None)):
        raise TypeError(f"{driver} defines no drive(program, rng) function")
    context = DriverContext(side, program)
    try:
        if callable(getattr(hooks, "setup", None)):
            hooks.setup(context)
        module = _load(program, program.stem, context)
        values = hooks.drive(module, np.random.RandomState(0))
    finally:
        context.restore()
    if not isinstance(values, dict):
        raise TypeError(f"drive() must return a dict of values, not {type(values).__name__}")
    return {str(key): value for key, value in values.items()}


def _load(path: Path, name: str, context: DriverContext | None = None) -> types.ModuleType:
    """Import the file ``path`` as module ``name``; registered in ``sys.modules``
    (for the run of ``context``) when given one, as siblings may import it by name."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    if context is not None:
        context.set_module(name, module)
    spec.loader.exec_module(module)
    return module
