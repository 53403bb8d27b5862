"""TF1 programs that ran eagerly (``tf.enable_eager_execution()``), run as TF1 ran them.

The fixture verifier runs TF1 originals in graph mode, which such a program never used;
here the original runs eagerly on ``tensorflow.compat.v1``, with ``tf.contrib.eager``'s
members taken from TensorFlow's own surviving implementations (``implicit_gradients`` was
``backprop.implicit_grad``, ``Variable`` a ``ResourceVariable``, ``Iterator`` the eager
dataset iterator), and the migrated program on TF2; both must end with the same values.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tensorflow")

CASES = [
    Path(__file__).parent / "fixtures" / "api" / name
    for name in ("tf1_eager_program", "tf1_eager_contrib_imported", "tf1_eager_with_session")
]
DRIVER = """
import json, runpy, sys, types
import numpy as np
import tensorflow as tf
side, path = sys.argv[1], sys.argv[2]
if side == "tf1":
    from tensorflow.python.data.ops import iterator_ops
    from tensorflow.python.eager import backprop
    from tensorflow.python.ops import resource_variable_ops
    v1 = tf.compat.v1
    eager = types.ModuleType("tensorflow.contrib.eager")
    eager.Variable = resource_variable_ops.ResourceVariable
    eager.implicit_gradients = backprop.implicit_grad
    eager.Iterator = iterator_ops.OwnedIterator
    eager.enable_eager_execution = v1.enable_eager_execution
    v1.contrib = types.ModuleType("tensorflow.contrib")
    v1.contrib.eager = eager
    sys.modules["tensorflow"] = v1
    # ``import tensorflow.contrib.eager as tfe`` finds these
    sys.modules["tensorflow.contrib"], sys.modules["tensorflow.contrib.eager"] = v1.contrib, eager
values = runpy.run_path(path)
print(json.dumps({k: np.asarray(values[k]).tolist() for k in ("losses", "weights", "bias")}))
"""


def _run(side: str, path: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", DRIVER, side, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_migrated_eager_program_computes_the_same_values(case: Path) -> None:
    before, after = _run("tf1", case / "before.py"), _run("tf2", case / "after.py")
    assert before.keys() == after.keys()
    for name in before:
        np.testing.assert_allclose(after[name], before[name], rtol=1e-6, atol=1e-7, err_msg=name)
    assert before["losses"][-1] < before["losses"][0]  # it trained: the comparison saw updates
