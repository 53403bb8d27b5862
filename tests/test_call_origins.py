"""analysis/call_origins.py: what the refusal of a Python call says of the called name."""

from __future__ import annotations

import libcst as cst
import pytest

from tf2migrate.analysis.call_origins import call_origin, imported_graph
from tf2migrate.analysis.tf_imports import collect_tf_imports


def _origin(source: str) -> str | None:
    module = cst.parse_module(source)
    call = module.body[-1].body[0].value  # the last line: ``y = f(...)``
    assert isinstance(call, cst.Call)
    return call_origin(module, call)


def test_a_function_of_a_module_the_run_does_not_read_names_the_module() -> None:
    said = _origin("from libs.activations import lrelu\ny = lrelu(x)\n")
    assert said is not None and "`lrelu` comes from `libs.activations`" in said


def test_an_attribute_of_an_imported_module_names_the_call_and_the_module() -> None:
    said = _origin("from utils import iterator_utils\ny = iterator_utils.get_iterator(d)\n")
    assert said is not None and "`iterator_utils.get_iterator` comes from `utils`" in said


def test_a_name_bound_nowhere_is_said_so() -> None:
    said = _origin("import tensorflow as tf\ny = seq2seq.rnn_decoder(x)\n")
    assert said is not None and "`seq2seq` is bound nowhere in this file" in said


@pytest.mark.parametrize(
    "source",
    [
        "from random import gauss\ny = gauss(0, 1)\n",  # Python's own module: no file of the project
        "import numpy as np\ny = np.random.RandomState(0)\n",
        "from libs import lrelu\nlrelu = other\ny = lrelu(x)\n",  # bound twice: which one runs is not said
        "def f(x):\n    return x\ny = f(x)\n",  # the file's own function
        "y = sorted(x)\n",  # a builtin
        "y = xrange(3)\n",  # Python 2's builtin (TFM009 names it)
        "from tools import *\ny = helper(x)\n",  # a star import may bind it
        "__tf2migrate_magic__(0)\ny = helper(x)\n",  # a notebook's magic line (``%run tools.py``) may bind it
        "exec(code)\ny = helper(x)\n",
    ],
)
def test_nothing_is_said_where_the_name_may_be_known_or_bound(source: str) -> None:
    assert _origin(source) is None


def _graph_reason(source: str, line: int) -> str | None:
    module = cst.parse_module(source)
    statement = module.body[line]
    call = statement.body[0].value  # ``graph_def.ParseFromString(data)``
    assert isinstance(call, cst.Call)
    return imported_graph(module, collect_tf_imports(module), statement, call)


GRAPH_LOAD = "import tensorflow as tf\ngraph_def = tf.GraphDef()\ngraph_def.ParseFromString(data)\ntf.import_graph_def(graph_def)\n"


def test_filling_a_graph_def_that_is_imported_names_the_import() -> None:
    said = _graph_reason(GRAPH_LOAD, 2)
    assert said is not None and "`tf.import_graph_def`" in said and "wrap_function" in said


def test_a_graph_def_never_imported_or_another_call_is_not_said_to_load_a_graph() -> None:
    assert _graph_reason(GRAPH_LOAD.replace("tf.import_graph_def(graph_def)", "print(graph_def)"), 2) is None
    assert _graph_reason(GRAPH_LOAD.replace("graph_def.ParseFromString(data)", "other.ParseFromString(data)"), 2) is None
