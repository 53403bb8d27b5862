"""A ``tf2migrate verify`` driver that runs a research program's ``__main__`` block, shrunk.

Research programs (PINNs, DeepHPMs) do their work in ``if __name__ == "__main__":``:
load ``.mat`` data, build a model, train it for 50,000 iterations, predict, plot. This
driver runs that very block, on both sides alike, after changing only what the block
and its helpers get from outside the model code under test:

- ``scipy.io.loadmat`` of a missing file gives synthetic data: a dict that makes any key
  on demand (:class:`SyntheticMat`), its shape chosen by the key's name, on a grid of
  ``T`` times and ``N`` points (:data:`GRIDS`: 201 x 256, or the grid a program hard-codes or reads off the file);
  ``numpy.loadtxt`` of a missing Runge-Kutta table (``Butcher_IRK<q>.txt``) gives a
  synthetic one of the right length; ``numpy.savetxt`` (result tables) writes nothing;
- modules for plotting (matplotlib, mpl_toolkits, the repositories' ``plotting``) and
  modules that are not installed become stand-ins; ``pyDOE.lhs`` draws uniform samples;
- SciPy optimizers (the L-BFGS-B of ``ScipyOptimizerInterface``) stop after
  :data:`SCIPY_ITERATIONS` iterations; each minimization's final loss and the variables
  it moved are compared (sorted, as TF1 and TF2 may pack them in different orders; only
  those that moved, as TF1's ``ScipyOptimizerInterface`` also packs every other model's
  variables of the graph, with zero gradients; moved in float64, as L-BFGS-B moved them,
  not in float32, where a move below float32's resolution flips with the last digits);
- ``"..." % values`` formats one-element arrays as NumPy 1 did (:func:`_format`), and
  main-level code stores them into arrays as NumPy 1 did (:func:`_items`);
  ``numpy.asscalar`` (removed in NumPy 1.23) is ``array.item()``;
- *main-level code* — the main block and the module functions it calls that do not use
  TensorFlow (``main_loop`` of the ``*_systematic`` programs) — is rewritten before it
  runs (:class:`Shrink`): an integer literal (or arithmetic on literals, ``2*10**4``) of 1000 or more passed to a call is an
  iteration count and becomes :data:`ITERATIONS`; one assigned to a name (alone or in a
  list) is a sample size and becomes :data:`SAMPLES`; every ``for`` loop runs its first
  pass only; the main block stops at its first statement that plots. A block the migration
  moved into ``def main():`` (the guard then only calls it) runs that function's body so.

The values compared are those the main block binds (predictions, errors, identified
coefficients) plus the SciPy results. Classes and TensorFlow functions — the code
tf2migrate changed — run unchanged but for the formatting of printed messages. Imports neither TensorFlow nor numpy at import time.
"""

from __future__ import annotations

import ast
import importlib.util
import operator
import re
import zlib
from pathlib import Path

ITERATIONS = 2  # Adam steps, for `model.train(50000)`
SAMPLES = 200  # training points, for `N_f = 20000`
SCIPY_ITERATIONS = 3
T, N = 201, 256  # the default synthetic grid: times, points
#: A spectral element mesh's sizes ("count" keys): ``modes`` and ``nel``.
MESH = 4
#: Grids that programs hard-code for a data file: DeepHPMs' NavierStokes tiles 2310 x 151;
#: PINNs' NavierStokes reshapes a vorticity snapshot (one time) on the spectral element
#: mesh the file's own counts give, ``(modes + 1) x (modes + 1) x nel`` points.
GRIDS = {"cylinder.mat": (151, 2310), "cylinder_nektar_t0_vorticity.mat": (1, (MESH + 1) ** 2 * MESH)}
PLOTTING = ("matplotlib", "mpl_toolkits", "plotting")
#: A key's shape: "t" a time column ("t'" a row), "x" a point column, "x2" points in the
#: plane, "xt" a field over points x times (the default for other keys), "x2t" a vector field,
#: "count" a 1 x 1 integer.
KEY_SHAPES = {
    "t": "t",
    "t_star": "t",
    "tt": "t'",
    "x": "x",
    "X_star": "x2",
    "U_star": "x2t",
    "usol": "xt complex",
    "uu": "xt complex",
    "modes": "count",
    "nel": "count",
}

_minimized: list = []  # the SciPy results of the current run


def setup(ctx) -> None:
    import numpy
    import scipy.io
    import scipy.optimize

    source = ast.parse(ctx.program.read_text())
    for name in sorted(_imported_modules(source)):
        top = name.split(".")[0]
        if top in PLOTTING or not _installed(top):
            ctx.stub(name, **({"lhs": _lhs} if top == "pyDOE" else {}))
    ctx.patch(scipy.io, "loadmat", _loadmat(scipy.io.loadmat))
    ctx.patch(numpy, "loadtxt", _loadtxt(numpy.loadtxt))
    ctx.patch(numpy, "savetxt", lambda *args, **kwargs: None)  # result tables, like plots
    if not hasattr(numpy, "asscalar"):  # NumPy 1 API the programs call, gone in NumPy 1.23
        ctx.patch(numpy, "asscalar", lambda array: array.item())
    ctx.cap_scipy(maxiter=SCIPY_ITERATIONS)
    capped = scipy.optimize.minimize

    def recorded(fun, x0, *args, **kwargs):
        result = capped(fun, x0, *args, **kwargs)
        start, end = numpy.ravel(x0), numpy.ravel(result.x)
        # moved in float64, as L-BFGS-B moves them: a move below float32's resolution is a move
        moved = end[end != start].astype(numpy.float32)
        _minimized.append({"loss": float(result.fun), "variables moved (sorted)": numpy.sort(moved)})
        return result

    ctx.patch(scipy.optimize, "minimize", recorded)
    _minimized.clear()


def drive(program, rng) -> dict:
    path = Path(program.__file__)
    shrink = Shrink(ast.parse(path.read_text()))
    namespace = vars(program)
    namespace.update(__verify_first_pass__=_first_pass, __verify_format__=_format, __verify_items__=_items)
    exec(compile(shrink.module(), str(path), "exec"), namespace)  # noqa: S102 - the program under test
    values = {name: namespace[name] for name in shrink.bound() if name in namespace}
    values["scipy minimize"] = list(_minimized)
    return values


class Shrink:
    """The main-level code of a module, shrunk (see the module docstring)."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.main_test = next((node for node in tree.body if _is_main_test(node)), None)
        self.main = self.main_test.body if self.main_test else []
        moved = _moved_main(tree, self.main)
        if moved is not None:
            # the migration moved the block into ``def main():`` and has the guard call it
            # (tf2migrate/rewrites/main_guard.py, only where nothing can tell the two apart):
            # its statements run here as the block ran, binding the values compared
            self.main = moved.body
        imported_plotting = {
            alias.asname or alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in node.names
            if _module_of(node, alias).split(".")[0] in PLOTTING
        }
        functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
        plots = {f.name for f in functions if _names(f) & imported_plotting}
        self.plotting = imported_plotting | plots
        called = {n.func.id for n in ast.walk(ast.Module(self.main, [])) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        tensorflow = _tensorflow_names(tree)
        self.helpers = [f for f in functions if f.name in called and not _names(f) & tensorflow and f.name not in plots]

    def statements(self) -> list[ast.stmt]:
        """The main block up to its first statement that plots."""
        kept = []
        for statement in self.main:
            if _names(statement) & self.plotting:
                break
            kept.append(statement)
        return kept

    def module(self) -> ast.Module:
        """The whole module again, its main block shrunk and its main-level functions
        rewritten, and every ``"..." % values`` formatted as NumPy 1 did (see
        :func:`_format`); run in the imported module's namespace, it redefines the
        classes and functions the same way and then runs the shrunk main block."""
        body = []
        for node in self.tree.body:
            if node is self.main_test:
                body += [_Rewrite().visit(statement) for statement in self.statements()]
            else:
                body.append(_Rewrite().visit(node) if node in self.helpers else node)
        return ast.fix_missing_locations(_Format().visit(ast.Module(body, [])))

    def bound(self) -> list[str]:
        """The names the (shrunk) main block assigns, in order, but for clock readings
        (``elapsed = time.time() - start_time``): the values compared."""
        names, clocks = [], set()
        for statement in self.statements():
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.append(node.id)
                elif isinstance(node, (ast.Assign, ast.AugAssign)) and "time" in _names(node.value):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    clocks |= {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}
        return [name for name in dict.fromkeys(names) if name not in clocks]


class _Rewrite(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        node.args = [_cap(arg, ITERATIONS) for arg in node.args]
        for keyword in node.keywords:
            keyword.value = _cap(keyword.value, ITERATIONS)
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.Assign:
        self.generic_visit(node)
        if isinstance(node.value, (ast.List, ast.Tuple)):
            node.value.elts = [_cap(item, SAMPLES) for item in node.value.elts]
        else:
            node.value = _cap(node.value, SAMPLES)
        if any(isinstance(target, ast.Subscript) for target in ast.walk(ast.Tuple(node.targets, ast.Store()))):
            node.value = ast.Call(ast.Name("__verify_items__", ast.Load()), [node.value], [])
        return node

    def visit_For(self, node: ast.For) -> ast.For:
        self.generic_visit(node)
        node.iter = ast.Call(ast.Name("__verify_first_pass__", ast.Load()), [node.iter], [])
        return node


class _Format(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            return ast.Call(ast.Name("__verify_format__", ast.Load()), [node.left, node.right], [])
        return node


def _format(template: str, values):
    """``template % values``, a one-element NumPy array taken for its element, as NumPy
    1 did (NumPy 2 refuses ``"%.5f" % np.array([0.5])``, which PINNs print at every step:
    a failure of the environment, not of the migration)."""
    import numpy as np

    def scalar(value):
        return value.item() if isinstance(value, np.ndarray) and value.size == 1 else value

    return template % (tuple(map(scalar, values)) if isinstance(values, tuple) else scalar(values))


def _items(value):
    """What ``table[i, j] = value`` (or a tuple of such targets) stores, a one-element
    array taken for its element as NumPy 1 did (NumPy 2 refuses it: the ``*_systematic``
    programs fill their error tables so)."""
    import numpy as np

    def scalar(item):
        return item.item() if isinstance(item, np.ndarray) and item.size == 1 and item.ndim else item

    return tuple(map(scalar, value)) if isinstance(value, tuple) else scalar(value)


def _cap(node: ast.expr, value: int) -> ast.expr:
    number = _integer(node)
    return ast.copy_location(ast.Constant(value), node) if number is not None and number >= 1000 else node


def _integer(node: ast.expr) -> int | None:
    """The value of an integer literal or of arithmetic on integer literals (FBSNNs train
    for ``N_Iter = 2*10**4``), else None."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    operation = _ARITHMETIC.get(type(node.op)) if isinstance(node, ast.BinOp) else None
    if operation is None:
        return None
    left, right = _integer(node.left), _integer(node.right)  # type: ignore[attr-defined]
    if left is None or right is None or isinstance(node.op, ast.Pow) and not 0 <= right <= 64:  # type: ignore[attr-defined]
        return None
    return operation(left, right)


_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Pow: operator.pow}


def _first_pass(iterable):
    for item in iterable:
        yield item
        return


def _moved_main(tree: ast.Module, main: list[ast.stmt]) -> ast.FunctionDef | None:
    """The module function a main block only calls, without arguments (``main()``), that
    takes none and is not decorated: a block tf2migrate moved; else None."""
    if len(main) != 1 or not isinstance(main[0], ast.Expr) or not isinstance(call := main[0].value, ast.Call):
        return None
    if not isinstance(call.func, ast.Name) or call.args or call.keywords:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == call.func.id and not node.decorator_list:
            arguments = node.args
            if not (arguments.args or arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg or arguments.kwarg):
                return node
    return None


def _is_main_test(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in node.test.comparators)
    )


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _module_of(node, alias) -> str:
    return alias.name if isinstance(node, ast.Import) else (node.module or "")


def _imported_modules(tree: ast.Module) -> set[str]:
    return {
        _module_of(node, alias)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0)
        for alias in node.names
    } - {""}


def _tensorflow_names(tree: ast.Module) -> set[str]:
    return {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
        if _module_of(node, alias).split(".")[0] == "tensorflow"
    }


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _lhs(n, samples=None, **_):
    import numpy as np

    samples = n if samples is None else samples
    return np.random.RandomState(samples).uniform(size=(samples, n))


def _loadtxt(real):
    def loadtxt(fname, *args, **kwargs):
        match = re.search(r"Butcher_IRK(\d+)", str(fname))
        if Path(str(fname)).exists() or match is None:
            return real(fname, *args, **kwargs)
        import numpy as np

        q = int(match.group(1))
        return np.random.RandomState(q).uniform(0.0, 1.0 / q, size=(q * q + 2 * q, 1))

    return loadtxt


def _loadmat(real):
    def loadmat(file_name, *args, **kwargs):
        if Path(str(file_name)).exists():
            return real(file_name, *args, **kwargs)
        return SyntheticMat(Path(str(file_name)).name)

    return loadmat


class SyntheticMat(dict):
    """The contents of a missing ``.mat`` file: each key made when first read, from a
    seed of the file and key names, so both sides of a verification see the same data."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name
        self.times, self.points = GRIDS.get(name, (T, N))

    def __missing__(self, key: str):
        import numpy as np

        kind = KEY_SHAPES.get(key, "xt")
        rng = np.random.RandomState(zlib.crc32(f"{self.name}:{key}".encode()))
        t, n = self.times, self.points
        if kind in ("t", "t'"):
            value = np.linspace(0.0, 1.0, t).reshape((t, 1) if kind == "t" else (1, t))
        elif kind == "count":  # a spectral element mesh's sizes (PINNs' vorticity file)
            value = np.array([[MESH]])
        elif kind == "x":
            value = np.linspace(-1.0, 1.0, n).reshape(n, 1)
        else:
            shape = {"x2": (n, 2), "x2t": (n, 2, t)}.get(kind.split()[0], (n, t))
            value = rng.standard_normal(shape)
            if kind.endswith("complex"):
                value = value + 1j * rng.standard_normal(shape)
        self[key] = value
        return value
