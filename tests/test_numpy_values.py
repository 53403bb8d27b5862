"""analysis/numpy_values.py: which fed values are shown to be NumPy (passed as they are)
and which are not (converted to a tensor of the placeholder's dtype at the call)."""

from __future__ import annotations

import libcst as cst
import pytest

from tf2migrate.analysis.numpy_values import NumpyValues

_MODULE = """\
import numpy as np
import os
from tensorflow.examples.tutorials.mnist import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
batch_xs, batch_ys = mnist.train.next_batch(100)
other = load()
other_xs, other_ys = other.train.next_batch(100)

rng = np.random.RandomState(0)
data = rng.rand(20, 100).astype(np.float32)
keep_np = np.float32(0.7)
keep = 0.7
values = [1.0, 2.0]
mixed = np.zeros(3)
mixed = [0.0]
def f(param):
    return param


class Model:
    rate = 0.1

    def __init__(self, X):
        self.x = X[:, 0:1]
        self.u = X
        self.z = np.ones(4)
        self.rate = np.float32(0.5)


class PINN:
    def __init__(self, X, u, lr, scale=np.float32(2.0), shift=0.5):
        self.X, self.uu = X, u
        self.lr = lr
        self.scale = scale
        self.shift = shift

    def net_u(self, x):
        u = x * 2
        return u


class Passed:
    def __init__(self, v):
        self.v = v


pinn = PINN(data, np.ones(3), 0.1)
passed = Passed(data)
registry = [Passed]
"""

SHOWN = [
    "data", "keep_np", "np.zeros(3)", "np.float32(keep)", "rng.rand(5)", "rng.uniform(-1, 1, size=[2, 3])",
    "np.random.normal(0, 1, (2, 3))", "np.random.permutation(10)", "data[:10]", "data * keep", "keep * data",
    "-data", "data.T", "data.mean()", "X_star[:, 0:1]", "self.x", "self.z", "(data if keep else data)",
    "batch_xs", "batch_ys", "self.X", "self.uu", "self.scale", "mnist.test.images", "mnist.validation.labels", "mnist.train.next_batch(10)[0]",
]  # fmt: skip
NOT_SHOWN = [
    "keep", "values", "mixed", "param", "0.7", "[1.0, 2.0]", "rng.rand()", "np.random.uniform(-1, 1)",
    "np.meshgrid(data, data)", "data.tolist()", "data.item()", "float(data)", "f(data)", "self.u", "self.rate",
    "df.iloc[:, 0:1]", "'%s' % data", "np.pi", "os.getcwd()", "table[1, 2]",
    "other_xs", "self.lr", "self.shift", "self.v", "other.test.images", "mnist.train.next_batch(10)", "mnist.train.num_examples",
]  # fmt: skip


@pytest.fixture(scope="module")
def values() -> NumpyValues:
    return NumpyValues(cst.parse_module(_MODULE))


@pytest.mark.parametrize("expression", SHOWN)
def test_shown(values: NumpyValues, expression: str) -> None:
    assert values.is_numpy(cst.parse_expression(expression))


@pytest.mark.parametrize("expression", NOT_SHOWN)
def test_not_shown(values: NumpyValues, expression: str) -> None:
    assert not values.is_numpy(cst.parse_expression(expression))


def test_star_import_shows_nothing() -> None:
    values = NumpyValues(cst.parse_module(_MODULE + "from helpers import *\n"))
    assert not values.is_numpy(cst.parse_expression("data"))


def test_attribute_an_importer_names_is_not_shown() -> None:
    values = NumpyValues(cst.parse_module(_MODULE), importer_attributes=frozenset({"z"}))
    assert not values.is_numpy(cst.parse_expression("self.z"))
