"""The unused-absent-imports pass gives the same answer with CPython's tree at hand (which
skips libcst's parse where every such import is read) as without it, on every fixture and
on layouts chosen to tell the two apart."""

import ast

import pytest

from tf2migrate.rewrites.unused_absent_imports import may_import_absent_module, remove_unused_absent_imports
from python3_sources import python3_fixture_sources

SOURCES = [path.read_text(encoding="utf-8") for path in python3_fixture_sources("*.py")]
EXTRA = [
    # unused: removed (the tree must not stop it)
    "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\nx = tf.constant(1)\n",
    "import tensorflow as tf\nfrom tensorflow.contrib import rnn, layers as L\nx = rnn\n",
    # read only where ast has no Name: an attribute, a keyword, a parameter (libcst reads a Name)
    "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\nx = y.slim\n",
    "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\nf(slim=1)\n",
    "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\ndef f(slim):\n    pass\n",
    # read as a Name
    "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\nnet = slim.conv2d(x, 3)\n",
    "import tensorflow as tf\nimport tensorflow.contrib.slim as slim; import tensorflow.contrib.rnn as rnn\nx = rnn\n",
    "import tensorflow as tf\nfrom tensorflow.contrib import rnn\nfrom tensorflow.contrib import slim\nx = rnn\n",
    # exported: kept
    "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\n__all__ = ['slim']\n",
    "import tensorflow as tf\nimport tensorflow.contrib.slim as slim\nx = m.__all__\n",
    # what only one of the two sees as an import of an absent package
    "import tensorflow as tf\nimport tensorflow.contrib.slim\nx = 1\n",
    "import tensorflow as tf\nfrom tensorflow.contrib import *\nx = 1\n",
    "import tensorflow as tf\nfrom .tensorflow.contrib import slim\nx = 1\n",
    "import tensorflow as tf\nimport os, tensorflow.contrib.slim as slim\nx = os\n",
]


@pytest.mark.parametrize("source", [s for s in SOURCES if may_import_absent_module(s)] + EXTRA)
def test_the_tree_changes_nothing(source: str) -> None:
    assert remove_unused_absent_imports(source, tree=ast.parse(source)) == remove_unused_absent_imports(source)


def test_the_extra_cases_hold_both_answers() -> None:
    """(Otherwise the cases above would not test the shortcut.)"""
    answers = [remove_unused_absent_imports(source, tree=ast.parse(source)) for source in EXTRA]
    assert any(answer is None for answer in answers) and any(answer is not None for answer in answers)
