"""``tensorflow.examples.tutorials.mnist.input_data`` for the TF1 originals: TensorFlow 2
ships no ``tensorflow.examples``, so a tutorial reading MNIST could not run on the TF1 side
of a verification.  The stand-in is the very port the migration writes into files
(rewrites/mnist_reader_port.py, TFM414) behind TF1's signature, given the graph seed TF1's
``DataSet`` read from the default graph at the read.  Used by the verify worker only
(imported in the TF1 subprocess).
"""

from __future__ import annotations

import sys
import types

from tf2migrate.rewrites import mnist_reader_port

_PACKAGES = ("tensorflow.examples", "tensorflow.examples.tutorials", "tensorflow.examples.tutorials.mnist")


def install(v1) -> None:
    """Make ``from tensorflow.examples.tutorials.mnist import input_data`` import the stand-in."""
    if f"{_PACKAGES[-1]}.input_data" in sys.modules:
        return
    input_data = types.ModuleType(f"{_PACKAGES[-1]}.input_data")
    input_data.read_data_sets = _read_data_sets(v1)  # type: ignore[attr-defined]
    child: types.ModuleType = input_data
    for name in reversed(_PACKAGES):
        package = types.ModuleType(name)
        package.__path__ = []  # a package: its submodules import
        setattr(package, child.__name__.rsplit(".", 1)[1], child)
        sys.modules[child.__name__] = child
        child = package
    sys.modules[child.__name__] = child
    # ``import tensorflow.examples.tutorials.mnist.input_data as input_data`` binds the name by
    # attributes from ``tensorflow``, which is compat.v1 while a script runs: Python falls back
    # to ``sys.modules`` under that module's own name
    sys.modules[f"{v1.__name__}.examples"] = child


def _read_data_sets(v1):
    port = mnist_reader_port.port_namespace()[mnist_reader_port.READ_DATA_SETS]

    def read_data_sets(
        train_dir,
        fake_data=False,
        one_hot=False,
        dtype=v1.float32,
        reshape=True,
        validation_size=5000,
        seed=None,
        source_url=None,  # the port's default: TF1's URL
    ):
        if fake_data:
            raise NotImplementedError("TF1's fake MNIST data is not re-created for verification")
        # what TF1's random_seed.get_seed read: the default graph's seed (eagerly, the global one)
        if v1.executing_eagerly():
            from tensorflow.python.eager import context

            graph_seed = context.global_seed()
        else:
            graph_seed = v1.get_default_graph().seed
        return port(train_dir, one_hot, dtype, reshape, validation_size, seed, source_url, graph_seed=graph_seed)

    return read_data_sets
