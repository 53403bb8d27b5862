"""benchmarks/census.py classifies the files of a tree the way the README's figures count them."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("census", Path(__file__).parents[1] / "benchmarks" / "census.py")
census = importlib.util.module_from_spec(_SPEC)
sys.modules["census"] = census  # dataclasses look their module up there
_SPEC.loader.exec_module(census)

FULLY = """\
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 1])
y = 2.0 * x
with tf.Session() as sess:
    print(sess.run(y, feed_dict={x: np.ones((3, 1))}))
"""
KEPT = """\
import numpy as np
import tensorflow as tf

xs = [tf.placeholder(tf.float32, [None, 1]) for _ in range(2)]
y = xs[0] + xs[1]
with tf.Session() as sess:
    print(sess.run(y, feed_dict={xs[0]: np.ones((3, 1)), xs[1]: np.ones((3, 1))}))
"""
PYTHON2 = 'import tensorflow as tf\nprint "hello"\nexec "x = 1"\n'
TF2 = "import tensorflow as tf\n\nprint(tf.reduce_sum(tf.ones([2])))\n"


def _tree(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    return root


@pytest.fixture
def trees(tmp_path):
    return [
        _tree(tmp_path / "converts", {"model.py": FULLY, "tf2.py": TF2, "plain.py": "print(1)\n"}),
        _tree(tmp_path / "kept", {"model.py": KEPT}),
        _tree(tmp_path / "python2", {"old.py": PYTHON2}),
        _tree(tmp_path / "tf2only", {"tf2.py": TF2}),
    ]


def test_counts_per_tree(trees):
    counts = [census.counts(census.census(tree, jobs=1)) for tree in trees]
    assert counts == [
        {"files": 1, "fully": 1, "partial": 0, "kept": 0, "error": 0},
        {"files": 1, "fully": 0, "partial": 0, "kept": 1, "error": 0},
        {"files": 1, "fully": 0, "partial": 0, "kept": 0, "error": 1},
        {"files": 0, "fully": 0, "partial": 0, "kept": 0, "error": 0},
    ]


def test_json_totals_and_blocking_reasons(trees, capsys):
    census.main([*map(str, trees), "--json", "--jobs", "1"])
    document = json.loads(capsys.readouterr().out)
    assert document["total"] == {"files": 3, "fully": 1, "partial": 0, "kept": 1, "error": 1}
    kept = document["blockers"]["kept (TFM3xx findings)"]
    assert kept == [
        {"reason": "TFM306 placeholders made by a comprehension are converted only when unpacked one per target", "files": 1, "only": 1}
    ]
    assert document["blockers"]["error"][0]["reason"].startswith("TFM001 cannot parse as Python 3")


def test_tf1_left_reads_the_migrated_code_not_its_text():
    source = """\
import tensorflow as tf

def fwd(y, x):  # only traced: called from a tf.function alone
    return tf.gradients(y, x)[0]

@tf.function
def step(x):
    return fwd(x * x, x)

def eager(x):  # never called, and computes what it differentiates: a tape could
    y = x * x
    return tf.gradients(y, x)

"tf.Session() in a string"
sess = tf.compat.v1.Session()
flag = tf.compat.v1.flags.DEFINE_integer
"""
    assert census.tf1_left(source) == ["tf.gradients in a function the file never calls", "Session", "compat.v1.flags"]
    called_eagerly = "import tensorflow as tf\n\ndef eager(y):\n    return tf.gradients(y, y)\n\nprint(eager(tf.ones([1])))\n"
    assert census.tf1_left(called_eagerly) == ["tf.gradients outside tf.function"]
    method_called_eagerly = (
        "import tensorflow as tf\n\nclass M:\n    def grad(self, y):\n        return tf.gradients(y, y)\n\nprint(M().grad(tf.ones([1])))\n"
    )
    assert census.tf1_left(method_called_eagerly) == ["tf.gradients outside tf.function"]
    assert census.tf1_left("import tensorflow as tf\n\n@tf.function\ndef f(y):\n    return tf.gradients(y, y)\n") == []
    # never called, it differentiates only values its caller computed (PINNs' fwd_gradients_1):
    # no eager form exists, tf.gradients is its TF2 form (TFM203)
    forward_mode = (
        "import tensorflow as tf\n\nclass M:\n    def fwd(self, U, x):\n        seed = tf.ones_like(U)\n"
        "        g = tf.gradients(U, x, grad_ys=seed)[0]\n        return tf.gradients(g, seed)[0]\n"
    )
    assert census.tf1_left(forward_mode) == []
    assert (
        census.tf1_left(forward_mode.replace("tf.gradients(g, seed)", "tf.gradients(g * U, seed)"))
        == ["tf.gradients in a function the file never calls"] * 2
    )
    assert census.tf1_left("import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.float32)\n") == [
        "import tensorflow.compat.v1",
        "placeholder",
        "compat.v1.float32",  # every name read through the compat.v1 module
    ]


def test_tf1_left_counts_the_packages_tf2_does_not_ship():
    # the MNIST tutorials' reader: a file that still imports it cannot run on TF2
    tutorial = (
        "import tensorflow as tf\nfrom tensorflow.examples.tutorials.mnist import input_data\n\n"
        "mnist = input_data.read_data_sets('MNIST_data/', one_hot=True)\n"
        "w = tf.Variable(tf.contrib.layers.xavier_initializer()([784, 10]))\n"
    )
    assert census.tf1_left(tutorial) == [
        "examples.tutorials (not in TF2)",  # the import
        "examples.tutorials (not in TF2)",  # its use
        "contrib.layers (not in TF2)",
    ]
    assert census.tf1_left("import tensorflow.contrib.slim as slim\n") == ["contrib.slim (not in TF2)"]
    assert census.tf1_left("from tensorflow import contrib\n") == ["contrib (not in TF2)"]
    # TF2's own packages, and a user's module that merely shares a name, do not count
    assert census.tf1_left("import tensorflow as tf\nfrom examples import input_data\ntf.keras.datasets.mnist.load_data()\n") == []


def test_a_helper_module_called_only_from_traced_code_is_fully_tf2(tmp_path):
    helpers = (
        "import tensorflow as tf\n\n\ndef fwd_gradients(Y, x):\n    dummy = tf.ones_like(Y)\n"
        "    G = tf.gradients(Y, x, grad_ys=dummy, colocate_gradients_with_ops=True)[0]\n    return tf.gradients(G, dummy)[0]\n"
        # called by no module of the run, and differentiating only its arguments: traced wherever it can run
        "\n\ndef first_derivative(Y, x):\n    return tf.gradients(Y, x)[0]\n"
    )
    main = (
        "import numpy as np\nimport tensorflow as tf\n\nfrom helpers import fwd_gradients\n\n"
        "x = tf.placeholder(tf.float32, [None, 1])\ny = fwd_gradients(x * x, x)\n"
        "with tf.Session() as sess:\n    print(sess.run(y, feed_dict={x: np.ones((3, 1))}))\n"
    )
    tree = _tree(tmp_path / "repo", {"helpers.py": helpers, "main.py": main})
    verdicts = {v.path: v for v in census.census(tree, jobs=1)}
    assert verdicts["main.py"].category == "fully"
    assert verdicts["helpers.py"].category == "fully"
    # called from plain code too: that call runs tf.gradients eagerly
    (tree / "other.py").write_text(
        "import tensorflow as tf\nfrom helpers import fwd_gradients\nz = tf.Variable(1.0)\nprint(fwd_gradients(z, z))\n"
    )
    verdicts = {v.path: v for v in census.census(tree, jobs=1)}
    assert verdicts["helpers.py"].category == "partial"


def test_a_function_kept_on_an_object_and_called_only_in_traced_methods_is_traced():
    # PINNsNTK: the PDE operator is passed to the model, kept as ``self.operator`` and called
    # by ``net_r``, which only tf.functions call
    source = """\
import tensorflow as tf

def operator(u, x):
    return tf.gradients(u, x)[0]

class PINN:
    def __init__(self, operator, scale):
        self.operator = operator
        self.scale = scale

    def net_r(self, x):
        return self.operator(x * x * self.scale, x)

    @tf.function
    def compute_r(self, x):
        return self.net_r(x)

model = PINN(operator, 2.0)
"""
    assert census.tf1_left(source) == []
    # the object's attribute read elsewhere: ``model.operator(...)`` may run it eagerly
    assert census.tf1_left(source + "print(model.operator(tf.ones([1]), tf.ones([1])))\n") == ["tf.gradients outside tf.function"]
    # the constructor also calls it itself, untraced
    eager_init = source.replace("        self.operator = operator\n", "        self.operator = operator\n        operator(scale, scale)\n")
    assert census.tf1_left(eager_init) == ["tf.gradients outside tf.function"]


def test_a_notebook_is_classified_from_its_cells(tmp_path):
    """A notebook's code cells are read as the one program the migration read (IPython masked)."""
    import nbformat

    converts, kept = nbformat.v4.new_notebook(), nbformat.v4.new_notebook()
    converts.cells = [nbformat.v4.new_code_cell("%matplotlib inline\n" + FULLY)]
    kept.cells = [nbformat.v4.new_code_cell("!pip --version\n" + KEPT)]
    root = tmp_path / "notebooks"
    root.mkdir()
    nbformat.write(converts, str(root / "converts.ipynb"))
    nbformat.write(kept, str(root / "kept.ipynb"))
    assert census.counts(census.census(root, jobs=1)) == {"files": 2, "fully": 1, "partial": 0, "kept": 1, "error": 0}
