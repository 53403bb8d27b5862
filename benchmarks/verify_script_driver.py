"""A ``tf2migrate verify`` driver that runs a tutorial *script* — module-level code — shrunk.

Tutorial repositories (TensorFlow-Examples, DeepLearningZeroToAll, the cookbook) do their
work at the top of the module: read MNIST or make data, build a graph, train for thousands
of steps, print, plot. There is no ``__main__`` block for benchmarks/verify_real_driver.py
to call, so this driver imports the module — running all of it — after changing, on both
sides alike, only what the script gets from outside the code under test:

- ``range(n)`` called *from the script's own file* with more than :data:`LONG` items, for a
  ``for`` statement to iterate at once, gives its first :data:`CAP` (training loops:
  ``range(training_epochs)``, ``range(total_batch)``); a range a comprehension iterates
  builds a value whose length is the program's (``np.vstack([points for _ in
  range(BATCH_SIZE)])``: a batch of 64 rows, not 3), and a range kept or passed on, shorter
  ranges and every range TensorFlow or NumPy make run unchanged. A loop the migration moved into a traced ``tf.function`` whose range is
  long would run in full there, a difference this driver would show (none is known);
- MNIST's files (the reader TF1 shipped and the port TFM414 writes download them) are
  made up, not downloaded (nor read from the repository, which may ship some of them): :data:`MNIST_TRAIN` training and :data:`MNIST_TEST` test images
  of random pixels with random labels, the same on both sides; any other download fails;
- ``numpy.empty`` gives zeros: its memory is whatever the process held there, which no two
  runs share (EQDiscovery's ``Lambda_history = np.empty([40, 1])``, appended to and kept);
- ``numpy.random.seed(None)`` seeds 0: TF1's MNIST reader reseeds NumPy from the graph's
  seed, from the clock when the script sets none, which no two runs share;
- ``numpy.reshape(a, newshape=...)`` (NumPy 2.1 removed the keyword) reshapes as NumPy 1 did,
  and ``np.int``, ``np.float``, ``np.bool``, ``np.object`` (removed in 1.24) are the builtins
  they were;
- ``tf.nn.dropout`` drops a fixed pattern of elements (its keep probability of them, by
  position), not a random one: TF1's graph and TF2's eager random streams differ, and
  training through dropout would differ from the first step. Both sides keep the same
  elements for the same rate, so the rate the migration computes (``rate=1 - keep_prob``)
  is still checked;
- ``tf.layers.dropout`` and Keras' ``Dropout`` (tf-keras' on the TF1 side, Keras 3's on the
  TF2 side) drop the same fixed pattern, and so does TF1's ``DropoutWrapper`` (its dropout is
  TF2's ``tf.nn.dropout``, by rate, on either side);
- ``import random`` gives the script a generator of its own, seeded 0: TensorFlow draws
  from Python's shared one while it builds graphs, as many times as it builds ops, so
  ``random.randint`` (an MNIST sample to show) would differ with the graph's size;
- random ops in the graph (``tf.random_normal``/``tf.random.normal``, uniform, truncated
  normal) draw a fixed sample (a stateless op with one seed: the same values at every run
  of the op), and ``Dataset.shuffle`` keeps the order: TF1 drew from the graph's streams,
  TF2 from its global generator, so noise (a VAE's, a GAN's) and shuffled batches would
  differ from the first step. Initial values need no patch: verify starts the migration
  from the variables' TF1 values;
- plotting modules (matplotlib, seaborn, ``mpl_toolkits``) and all their submodules become
  stand-ins whose every attribute, call, item and iteration gives a stand-in again
  (``fig, ax = plt.subplots()`` unpacks two; ``plt.rcParams[key] = value`` sets nothing),
  and ``time.sleep`` returns at once;
- a third-party module that is not installed (``sklearn``, ``cv2``, ``skimage``, ``tqdm``;
  imported by the script or by the modules it imports) is such a stand-in too, when no
  directory above the script holds a module or package of its name (the repository's own
  modules must fail when they do not import), and so are ``scipy.misc``'s image functions
  (``imsave``, ``imread``, ``imresize``, removed in SciPy 1.2/1.3): they read and write
  pictures, not values the migration computes;
- a script inside a package (``tflib/ops/linear.py``, which imports ``tflib``) has the
  directory holding its top package on ``sys.path`` too, as running it from the
  repository's root gave it.

The values compared are the module's public data globals, as ``tf2migrate verify`` compares
a script's (graph tensors are only on the TF1 side; what the migration returns in their
place is compared where the names match). Imports neither TensorFlow nor numpy at import
time.
"""

from __future__ import annotations

import builtins
import inspect
import sys
import types

LONG = 20  # a range longer than this is a loop of steps or batches
CAP = 3  # steps run of such a loop
MNIST_TRAIN = 7000  # TF1's reader keeps the first 5,000 for validation: 2,000 train (a script
# samples 1,000 of them without replacement: the cookbook's nearest neighbours)
MNIST_TEST = 200
PLOTTING = ("matplotlib", "seaborn", "mpl_toolkits", "pylab", "IPython", "PIL")
# NumPy 1's aliases of the builtin types (``np.int``), which tutorials of TF1's time wrote
NUMPY_1_ALIASES = {"int": int, "float": float, "bool": bool, "object": object, "complex": complex, "str": str}
MNIST_FILES = {
    "train-images-idx3-ubyte.gz": ("images", MNIST_TRAIN),
    "train-labels-idx1-ubyte.gz": ("labels", MNIST_TRAIN),
    "t10k-images-idx3-ubyte.gz": ("images", MNIST_TEST),
    "t10k-labels-idx1-ubyte.gz": ("labels", MNIST_TEST),
}


class StandIn(types.ModuleType):
    """A plotting module or any value it returns: every use gives a stand-in again."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__path__: list[str] = []  # a package: its submodules import (StandInFinder)

    def __getattr__(self, name: str):
        if name.startswith("__"):  # keep the import machinery's probes honest
            raise AttributeError(name)
        return StandIn(f"{self.__name__}.{name}")

    def __call__(self, *args, **kwargs):
        return StandIn(f"{self.__name__}()")

    def __getitem__(self, key):
        return StandIn(f"{self.__name__}[]")

    def __setitem__(self, key, value) -> None:  # ``plt.rcParams["axes.labelsize"] = 14``
        pass

    def __iter__(self):
        return iter((StandIn(self.__name__), StandIn(self.__name__)))

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


class MissingModuleFinder:
    """Last on ``sys.meta_path``: a module no other finder found, whose top-level name is
    no module or package in a directory above the script, imports as a stand-in when the
    repository's code imports it (an installed library that tries an optional import,
    Keras' ``sklearn``, must keep getting its ImportError)."""

    def __init__(self, ctx, program) -> None:
        self.ctx = ctx
        self.above = list(program.resolve().parents)

    def find_spec(self, name: str, path=None, target=None):
        import importlib.util

        top = name.split(".")[0]
        if not _imported_by_the_repository() or any((d / f"{top}.py").exists() or (d / top).is_dir() for d in self.above):
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec) -> StandIn:
        module = StandIn(spec.name)
        self.ctx.set_module(spec.name, module)
        return module

    def exec_module(self, module) -> None:
        pass


def _imported_by_the_repository() -> bool:
    """Is the import statement being run in the repository's code, not in an installed
    library's or Python's own?"""
    import sysconfig

    installed = tuple({sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")})
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith("<") or frame.f_code.co_filename == __file__):
        frame = frame.f_back
    return frame is not None and not frame.f_code.co_filename.startswith(installed)


class StandInFinder:
    """Imports every submodule of a plotting module as a stand-in
    (``import matplotlib.animation``), whichever the script names, for its run only."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx

    def find_spec(self, name: str, path=None, target=None):
        import importlib.util

        if name.split(".")[0] in PLOTTING:
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec) -> StandIn:
        module = StandIn(spec.name)
        self.ctx.set_module(spec.name, module)  # (undone after the run: gone from sys.modules)
        return module

    def exec_module(self, module) -> None:
        pass


def setup(ctx) -> None:
    import os
    import time
    import urllib.request

    import numpy

    program = str(ctx.program.resolve())
    for name in PLOTTING:
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            ctx.set_module(module, StandIn(module))
        ctx.set_module(name, StandIn(name))
    for sub in ("matplotlib.pyplot", "matplotlib.cm", "matplotlib.gridspec", "mpl_toolkits.mplot3d", "PIL.Image"):
        ctx.set_module(sub, StandIn(sub))
    ctx.patch(sys, "meta_path", [StandInFinder(ctx), *sys.meta_path, MissingModuleFinder(ctx, ctx.program)])
    top_package = ctx.program.resolve().parent
    while (top_package / "__init__.py").exists():
        top_package = top_package.parent
    if top_package != ctx.program.resolve().parent:
        ctx.patch(sys, "path", [*sys.path, str(top_package)])
    try:
        import scipy.misc

        for picture in ("imsave", "imread", "imresize", "toimage"):
            if not hasattr(scipy.misc, picture):
                ctx.patch(scipy.misc, picture, StandIn(f"scipy.misc.{picture}"))
    except ImportError:
        pass
    ctx.patch(time, "sleep", lambda seconds: None)
    import tensorflow as tf  # (on the TF1 side, tensorflow.compat.v1: the module the script imports)

    ctx.patch(tf.nn, "dropout", _fixed_dropout(tf, keep_prob_first=ctx.side == "tf1"))
    # TF1's DropoutWrapper (tf-keras' legacy cell wrappers) calls TF2's ``tf.nn.dropout``, by rate
    import tensorflow.compat.v2 as tf_v2

    if tf_v2.nn is not tf.nn:
        ctx.patch(tf_v2.nn, "dropout", _fixed_dropout(tf_v2, keep_prob_first=False))
    _fix_layer_dropout(ctx, _fixed_dropout(tf, keep_prob_first=False), keras_3=ctx.side != "tf1")
    ctx.set_module("random", _own_random())
    _fix_random_ops(ctx, tf)
    ctx.patch(numpy.random, "seed", _seeded(numpy.random.seed))
    ctx.patch(numpy, "reshape", _reshape_with_newshape(numpy.reshape))
    ctx.patch(numpy, "empty", numpy.zeros)  # (the same signature)
    for alias, builtin in NUMPY_1_ALIASES.items():  # removed in NumPy 1.24
        if alias not in vars(numpy):
            ctx.patch(numpy, alias, builtin)
    ctx.patch(urllib.request, "urlretrieve", _made_up_mnist)
    ctx.patch(os.path, "exists", _mnist_missing(os.path.exists))
    for marker in ("__tf2migrate_magic__", "__tf2migrate_cell__"):  # a notebook's IPython lines, cell starts
        ctx.patch(builtins, marker, lambda *reads: None)
    ctx.patch(builtins, "range", _capped_range(builtins.range, program))


def drive(program, rng) -> dict:
    return {
        name: value
        for name, value in vars(program).items()
        if not name.startswith("_") and not isinstance(value, (types.ModuleType, type)) and not inspect.isroutine(value)
    }


def _capped_range(full: type, program: str) -> type:
    class _IsRange(type):
        # ``isinstance(x, range)`` (TensorFlow's nest asks it) must keep meaning the real range
        def __instancecheck__(cls, instance) -> bool:
            return isinstance(instance, full)

    class capped(metaclass=_IsRange):
        def __new__(cls, *args):
            items = full(*args)
            if len(items) > LONG:
                caller = sys._getframe(1)
                if caller.f_code.co_filename == program and _iterated(caller.f_code, caller.f_lasti):
                    return items[:CAP]
            return items

    return capped


_ITERATED: dict = {}  # code object -> offsets of the calls whose result a loop iterates


def _iterated(code, offset: int) -> bool:
    """Is the call at ``offset`` of ``code`` iterated at once by a ``for`` statement
    (``for i in range(n)``), not kept as a value (``np.random.choice(range(n), k)``,
    ``list(range(n))``) nor iterated by a comprehension (``[row for _ in range(n)]``)?"""
    import dis

    if code not in _ITERATED:
        # (EXTENDED_ARG before a FOR_ITER whose loop body is long is a prefix, not an instruction)
        instructions = [i for i in dis.get_instructions(code) if i.opname != "EXTENDED_ARG"]
        # a ``for`` statement: the call, GET_ITER, FOR_ITER; a comprehension calls its own
        # code object (3.11) or clears its variable (3.12's inlined ones) after GET_ITER
        _ITERATED[code] = {
            call.offset
            for call, get_iter, loop in zip(instructions, instructions[1:], instructions[2:])
            if call.opname.startswith(("CALL", "PRECALL")) and get_iter.opname == "GET_ITER" and loop.opname == "FOR_ITER"
        }
    return offset in _ITERATED[code]


def _fixed_dropout(tf, keep_prob_first: bool):
    """``tf.nn.dropout`` with TF1's signature (``keep_prob`` second) or TF2's (``rate``)."""

    def dropout(x, second=None, noise_shape=None, seed=None, name=None, rate=None, keep_prob=None):
        if keep_prob_first:
            keep_prob = second if second is not None else keep_prob
            keep = 1.0 - rate if keep_prob is None else keep_prob
        else:
            keep = 1.0 - (second if second is not None else rate)
        x = tf.convert_to_tensor(x)
        keep = tf.cast(keep, x.dtype)
        position = tf.cast(tf.reshape(tf.range(tf.size(x)), tf.shape(x)), tf.float64)
        pattern = tf.cast(tf.math.floormod(position * 0.6180339887498949, 1.0), x.dtype)
        return tf.where(pattern < keep, x / keep, tf.zeros_like(x))

    return dropout


def _fix_random_ops(ctx, tf) -> None:
    """Random ops drawing the same fixed sample on both sides (see the module docstring)."""
    import tensorflow as real_tf  # TF2's own module: its stateless ops build in either mode
    from tensorflow.python.data.ops import dataset_ops

    seed = (1, 2)

    def normal(shape, mean=0.0, stddev=1.0, dtype=real_tf.float32, seed_=None, name=None, **_):
        return real_tf.random.stateless_normal(shape, seed, mean=mean, stddev=stddev, dtype=dtype)

    def truncated(shape, mean=0.0, stddev=1.0, dtype=real_tf.float32, seed_=None, name=None, **_):
        return real_tf.random.stateless_truncated_normal(shape, seed, mean=mean, stddev=stddev, dtype=dtype)

    def uniform(shape, minval=0, maxval=None, dtype=real_tf.float32, seed_=None, name=None, **_):
        if maxval is None and real_tf.as_dtype(dtype).is_floating:
            maxval = 1
        return real_tf.random.stateless_uniform(shape, seed, minval=minval, maxval=maxval, dtype=dtype)

    made = {"normal": normal, "truncated_normal": truncated, "uniform": uniform}
    for name, stand_in in made.items():
        ctx.patch(tf.random, name, stand_in)
        if hasattr(tf, f"random_{name}"):  # TF1's ``tf.random_normal``, ``tf.random_uniform``
            ctx.patch(tf, f"random_{name}", stand_in)
    if hasattr(tf, "truncated_normal"):  # TF1's name for it
        ctx.patch(tf, "truncated_normal", truncated)
    for dataset in (dataset_ops.DatasetV2, dataset_ops.DatasetV1):
        ctx.patch(dataset, "shuffle", lambda self, *args, **kwargs: self)


def _reshape_with_newshape(reshape):
    def reshape_as_numpy_1(a, *args, newshape=None, **kwargs):
        return reshape(a, *args, **kwargs) if newshape is None else reshape(a, newshape, **kwargs)

    return reshape_as_numpy_1


def _fix_layer_dropout(ctx, dropout, keras_3: bool) -> None:
    """Keras' dropout layers through ``dropout``: tf-keras' (TF1's ``tf.layers``, and TF2's
    ``tf.keras`` where legacy Keras is on) and, on the TF2 side, Keras 3's, which imports only
    with TF2's ``tensorflow`` module."""
    if keras_3:
        try:
            from keras.src.backend import random as keras_random

            ctx.patch(keras_random, "dropout", lambda inputs, rate, noise_shape=None, seed=None: dropout(inputs, rate))
        except ImportError:
            pass
    try:
        from tf_keras.src import backend as tf_keras_backend

        ctx.patch(tf_keras_backend.RandomGenerator, "dropout", lambda self, inputs, rate, noise_shape=None: dropout(inputs, rate))
    except ImportError:
        pass


def _own_random() -> types.ModuleType:
    """A ``random`` module drawing from a generator of the script's own, seeded 0."""
    import random

    generator = random.Random(0)
    module = types.ModuleType("random")
    module.__dict__.update(vars(random))
    module.__dict__.update({name: getattr(generator, name) for name in random.__all__ if hasattr(generator, name)})
    return module


def _mnist_missing(exists):
    """``os.path.exists`` for which MNIST's files are never there: the readers make them up."""
    import os

    def exists_but_mnist(path) -> bool:
        return os.path.basename(os.fspath(path)) not in MNIST_FILES and exists(path)

    return exists_but_mnist


def _seeded(seed):
    def seed_or_zero(value=None):
        return seed(0 if value is None else value)

    return seed_or_zero


def _made_up_mnist(url: str, filename: str, *args, **kwargs):
    """``urllib.request.urlretrieve`` for MNIST's four files: made up, deterministic."""
    import gzip

    import numpy as np

    base = url.rsplit("/", 1)[-1]
    if base not in MNIST_FILES:
        raise OSError(f"verify_script_driver: no network for {url}")
    kind, count = MNIST_FILES[base]
    rng = np.random.RandomState(len(base) * 1000 + count)
    if kind == "images":
        header = np.array([2051, count, 28, 28], dtype=">u4").tobytes()
        body = rng.randint(0, 256, size=(count, 28, 28)).astype(np.uint8).tobytes()
    else:
        header = np.array([2049, count], dtype=">u4").tobytes()
        body = rng.randint(0, 10, size=count).astype(np.uint8).tobytes()
    with gzip.open(filename, "wb") as out:
        out.write(header + body)
    return filename, None
