"""benchmarks/verify_real.py and its driver: a research program's main block, shrunk and
run on synthetic data, proves its migration by execution."""

import ast
import importlib.util
import sys
from pathlib import Path

import numpy as np

from tf2migrate.verify.driver import DriverContext

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


driver = _load("verify_real_driver")

PROGRAM = """\
import time
import numpy as np
import scipy.io
import tensorflow as tf
import matplotlib.pyplot as plt


def net(x):
    for _ in range(3):
        x = tf.tanh(x)
    return x


def main_loop(n):
    total = 0
    for i in range(n):
        total += i
    return total


if __name__ == "__main__":
    data = scipy.io.loadmat('../Data/missing.mat')
    N_f = 20000
    sizes = [500, 1000]
    start_time = time.time()
    model.train(nIter=50000)
    model.train(10)
    model.train(N_Iter = 2*10**4, learning_rate=1e-3)
    model.train(3*10, x * 1000)
    elapsed = time.time() - start_time
    total = main_loop(4)
    table[0, 1], other[0] = main_loop(2)
    print('It: %d, l1: %.3f' % (3, value))
    plt.figure()
    after_the_plot = 1
"""


def _shrunk():
    shrink = driver.Shrink(ast.parse(PROGRAM))
    return shrink, ast.unparse(shrink.module())


def test_main_block_is_shrunk():
    _, text = _shrunk()
    assert "N_f = 200\n" in text and "sizes = [500, 200]" in text
    assert "model.train(nIter=2)" in text and "model.train(10)" in text
    assert "model.train(N_Iter=2, learning_rate=0.001)" in text and "model.train(3 * 10, x * 1000)" in text
    assert "__verify_format__('It: %d, l1: %.3f', (3, value))" in text
    assert "table[0, 1], other[0] = __verify_items__(main_loop(2))" in text
    assert "plt.figure()" not in text and "after_the_plot" not in text


def test_only_main_level_functions_are_rewritten():
    shrink, text = _shrunk()
    assert [f.name for f in shrink.helpers] == ["main_loop"]
    assert "for i in __verify_first_pass__(range(n))" in text
    assert "for _ in range(3)" in text  # TensorFlow code runs as migrated


def test_compared_values_are_the_main_block_bindings_but_clocks():
    shrink, _ = _shrunk()
    assert shrink.bound() == ["data", "N_f", "sizes", "total"]


def test_a_main_block_moved_into_main_runs_as_the_block():
    """tf2migrate moves a graph-building main block into ``def main():`` (TFM149): its
    statements are run and compared as the original block's, not as a call's locals."""
    moved = PROGRAM.replace('if __name__ == "__main__":', "def main():") + '\n\nif __name__ == "__main__":\n    main()\n'
    original, migrated = driver.Shrink(ast.parse(PROGRAM)), driver.Shrink(ast.parse(moved))
    assert migrated.bound() == original.bound() == ["data", "N_f", "sizes", "total"]
    assert "model.train(nIter=2)" in ast.unparse(migrated.module())
    called_with_argument = driver.Shrink(ast.parse(moved.replace("    main()\n", "    main(1)\n")))
    assert called_with_argument.bound() == []


def test_synthetic_data_has_the_shapes_its_keys_name():
    data = driver.SyntheticMat("burgers.mat")
    assert data["t"].shape == (201, 1) and data["tt"].shape == (1, 201) and data["x"].shape == (256, 1)
    assert data["usol"].shape == (256, 201) and np.iscomplexobj(data["usol"])
    assert data["U_star"].shape == (256, 2, 201) and data["p_star"].shape == (256, 201)
    assert driver.SyntheticMat("cylinder.mat")["X_star"].shape == (2310, 2)
    vorticity = driver.SyntheticMat("cylinder_nektar_t0_vorticity.mat")  # PINNs' NavierStokes reshapes it on its mesh
    modes, nel = vorticity["modes"].item(), vorticity["nel"].item()
    for key in ("x", "y", "w"):
        assert np.reshape(vorticity[key], (modes + 1, modes + 1, nel), order="F").shape == (modes + 1, modes + 1, nel)
    np.testing.assert_array_equal(data["usol"], driver.SyntheticMat("burgers.mat")["usol"])
    assert not np.array_equal(data["p_star"], driver.SyntheticMat("other.mat")["p_star"])


def test_runge_kutta_tables_and_numpy_1_formatting():
    table = driver._loadtxt(np.loadtxt)("../../Utilities/IRK_weights/Butcher_IRK100.txt", ndmin=2)
    assert table.shape == (100 * 100 + 2 * 100, 1)
    assert driver._format("l1: %.2f, %d", (np.array([0.5]), 3)) == "l1: 0.50, 3"
    table = np.zeros((2, 2))
    table[0, 1], table[1, 0] = driver._items((np.array([0.5]), np.float32(2.0)))
    np.testing.assert_array_equal(table, [[0.0, 0.5], [2.0, 0.0]])


REPOSITORY_PROGRAM = """\
import sys
sys.path.insert(0, '../Utilities/')
import time
import numpy as np
import scipy.io
import tensorflow as tf
from plotting import newfig


class Model:
    def __init__(self, x, u, layers):
        self.x, self.u = x, u
        self.weights = [tf.Variable(tf.truncated_normal([m, n], stddev=0.5)) for m, n in zip(layers[:-1], layers[1:])]
        self.x_tf = tf.placeholder(tf.float32, shape=[None, 1])
        self.u_tf = tf.placeholder(tf.float32, shape=[None, 1])
        self.u_pred = self.net(self.x_tf)
        self.loss = tf.reduce_mean(tf.square(self.u_tf - self.u_pred))
        self.train_op = tf.train.AdamOptimizer(1e-3).minimize(self.loss)
        self.sess = tf.Session()
        self.sess.run(tf.global_variables_initializer())

    def net(self, x):
        h = x
        for w in self.weights[:-1]:
            h = tf.tanh(tf.matmul(h, w))
        return tf.matmul(h, self.weights[-1])

    def train(self, nIter):
        tf_dict = {self.x_tf: self.x, self.u_tf: self.u}
        for it in range(nIter):
            self.sess.run(self.train_op, tf_dict)
            loss_value = self.sess.run(self.loss, tf_dict)
            print('It: %d, Loss: %.3e' % (it, loss_value))

    def predict(self, x_star):
        return self.sess.run(self.u_pred, {self.x_tf: x_star})


if __name__ == "__main__":
    data = scipy.io.loadmat('../Data/burgers_shock.mat')
    x = data['x']
    u = np.real(data['usol'])[:, 0:1]
    N_u = 5000
    idx = np.random.choice(x.shape[0], 100, replace=False)
    model = Model(x[idx], u[idx], [1, 8, 8, 1])
    model.train(50000)
    u_pred = model.predict(x)
    error = np.linalg.norm(u - u_pred) / np.linalg.norm(u)
    fig, ax = newfig(1.0, 1.0)
"""


def test_a_repository_is_verified_program_by_program(tmp_path, capsys):
    repository = tmp_path / "Research"
    (repository / "main").mkdir(parents=True)
    (repository / "main" / "model.py").write_text(REPOSITORY_PROGRAM)
    (repository / "main" / "notes.py").write_text("import tensorflow as tf\nx = tf.constant(1.0)\n")  # no main block
    verify_real = _load("verify_real")
    status = verify_real.main([str(repository), "--keep", str(tmp_path / "work")])
    lines = capsys.readouterr().out.splitlines()
    assert status == 0, "\n".join(lines)
    assert lines[1].split()[:4] == ["Research/main/model.py", "fully", "TF2", "equal"]
    assert lines[2:] == ["1 programs: 1 equal, 0 different, 0 error"]


script_driver = _load("verify_script_driver")


TUTORIAL_SCRIPT = """\
import numpy as np
import matplotlib.pyplot as plt

steps = []
for i in range(1000):
    steps.append(i)
for j in range(1000):  # a body long enough for an EXTENDED_ARG before its FOR_ITER
    k0 = j + 0
    k1 = j + 1
    k2 = j + 2
    k3 = j + 3
    k4 = j + 4
    k5 = j + 5
    k6 = j + 6
    k7 = j + 7
    k8 = j + 8
    k9 = j + 9
    k10 = j + 10
    k11 = j + 11
    k12 = j + 12
    k13 = j + 13
    k14 = j + 14
    k15 = j + 15
    k16 = j + 16
    k17 = j + 17
    k18 = j + 18
    k19 = j + 19
    k20 = j + 20
    k21 = j + 21
    k22 = j + 22
    k23 = j + 23
    k24 = j + 24
    k25 = j + 25
    k26 = j + 26
    k27 = j + 27
    k28 = j + 28
    k29 = j + 29
    k30 = j + 30
    k31 = j + 31
    k32 = j + 32
    k33 = j + 33
    k34 = j + 34
    k35 = j + 35
    k36 = j + 36
    k37 = j + 37
    k38 = j + 38
    k39 = j + 39
    k40 = j + 40
    k41 = j + 41
    k42 = j + 42
    k43 = j + 43
    k44 = j + 44
    k45 = j + 45
    k46 = j + 46
    k47 = j + 47
    k48 = j + 48
    k49 = j + 49
    k50 = j + 50
    k51 = j + 51
    k52 = j + 52
    k53 = j + 53
    k54 = j + 54
    k55 = j + 55
    k56 = j + 56
    k57 = j + 57
    k58 = j + 58
    k59 = j + 59
    k60 = j + 60
    k61 = j + 61
    k62 = j + 62
    k63 = j + 63
    k64 = j + 64
    k65 = j + 65
    k66 = j + 66
    k67 = j + 67
    k68 = j + 68
    k69 = j + 69
    k70 = j + 70
    k71 = j + 71
    k72 = j + 72
    k73 = j + 73
    k74 = j + 74
    k75 = j + 75
    k76 = j + 76
    k77 = j + 77
    k78 = j + 78
    k79 = j + 79
    k80 = j + 80
    k81 = j + 81
    k82 = j + 82
    k83 = j + 83
    k84 = j + 84
    k85 = j + 85
    k86 = j + 86
    k87 = j + 87
    k88 = j + 88
    k89 = j + 89
    last = j
layers = [i for i in range(4)]
batch = [i for i in range(64)]
np.random.seed()
first = np.random.rand(2)
fig, ax = plt.subplots()
ax.plot(first)
plt.rcParams["axes.labelsize"] = 14
labels = np.array([1.7, 2.2]).astype(np.int)
import matplotlib.animation as animation
frames = animation.FuncAnimation(fig, None)
"""


def test_a_script_runs_its_long_loops_shortly_and_seeds_numpy(tmp_path):
    program = tmp_path / "tutorial.py"
    program.write_text(TUTORIAL_SCRIPT)
    context = DriverContext("tf2", program)
    script_driver.setup(context)
    try:
        spec = importlib.util.spec_from_file_location("tutorial", program)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        values = script_driver.drive(module, np.random.RandomState(0))
        outside = len(range(1000))  # this test's own ranges are not the program's
        assert isinstance(range(5), range)
    finally:
        context.restore()
    assert values["steps"] == [0, 1, 2] and values["last"] == 2
    assert values["layers"] == [0, 1, 2, 3]
    assert len(values["batch"]) == 64  # a comprehension's value keeps its length
    assert outside == 1000
    np.random.seed(0)
    assert np.array_equal(values["first"], np.random.rand(2))
    assert values["labels"].tolist() == [1, 2]
    assert set(values) == {"steps", "i", "j", "last", "layers", "batch", "first", "labels"} | {
        f"k{n}" for n in range(90)
    }  # plotting's stand-ins are not compared


def test_made_up_mnist_is_what_the_reader_decodes(tmp_path):
    import gzip

    path = tmp_path / "train-images-idx3-ubyte.gz"
    script_driver._made_up_mnist("https://mirror/train-images-idx3-ubyte.gz", str(path))
    with gzip.open(path) as stream:
        header = np.frombuffer(stream.read(16), dtype=">u4")
        pixels = np.frombuffer(stream.read(), dtype=np.uint8)
    assert header.tolist() == [2051, script_driver.MNIST_TRAIN, 28, 28]
    assert pixels.size == script_driver.MNIST_TRAIN * 28 * 28 and pixels.max() > 0
    again = tmp_path / "again.gz"
    script_driver._made_up_mnist("https://mirror/train-images-idx3-ubyte.gz", str(again))
    assert gzip.open(again).read() == gzip.open(path).read()


TUTORIAL_REPOSITORY_SCRIPT = """\
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 2])
W = tf.Variable(np.ones((2, 1), dtype=np.float32))
loss = tf.reduce_mean(tf.square(tf.matmul(x, W) - 1.0))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
losses = []
for step in range(5000):
    losses.append(sess.run([loss, train], {x: np.full((4, 2), 0.5 + step, np.float32)})[0])
final_W = sess.run(W)
"""


def test_a_tutorial_repository_is_verified_script_by_script(tmp_path, capsys):
    import nbformat

    repository = tmp_path / "Tutorials"
    repository.mkdir()
    (repository / "lesson.py").write_text(TUTORIAL_REPOSITORY_SCRIPT)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%matplotlib inline"),
        nbformat.v4.new_code_cell("from __future__ import print_function\n" + TUTORIAL_REPOSITORY_SCRIPT),
    ]
    nbformat.write(notebook, str(repository / "lesson.ipynb"))
    # TensorFlow 0.x: runs on the TF1 side as TF 1.0 wrote it, not as compat.v1 reads it
    (repository / "old_lesson.py").write_text(
        TUTORIAL_REPOSITORY_SCRIPT.replace("tf.square(", "tf.nn.sigmoid_cross_entropy_with_logits(").replace(
            "- 1.0))", ", tf.mul(x[:, :1], 0.5)))"
        )
    )
    verify_real = _load("verify_real")
    status = verify_real.main([str(repository), "--scripts", "--batch", "3", "--keep", str(tmp_path / "work")])
    lines = capsys.readouterr().out.splitlines()
    assert status == 0, "\n".join(lines)
    assert [line.split()[:4] for line in lines[1:4]] == [
        ["Tutorials/lesson.ipynb", "fully", "TF2", "equal"],
        ["Tutorials/lesson.py", "fully", "TF2", "equal"],
        ["Tutorials/old_lesson.py", "fully", "TF2", "equal"],
    ]
    migrated = tmp_path / "work" / "migrated" / "Tutorials"
    assert "Session" not in (migrated / "lesson.py").read_text()
    original = (tmp_path / "work" / "original" / "Tutorials" / "old_lesson.py").read_text()
    assert "with_logits(logits=tf.matmul(x, W) , labels=tf.multiply(x[:, :1], 0.5))" in original
    assert lines[4:] == ["3 programs: 3 equal, 0 different, 0 error"]


def test_a_script_pair_computing_otherwise_is_different(tmp_path):
    from tf2migrate.verify.runner import verify_pair

    (tmp_path / "before.py").write_text("import numpy as np\nvalues = np.arange(3.0)\n")
    (tmp_path / "after.py").write_text("import numpy as np\nvalues = np.arange(3.0) * 2\n")
    report = verify_pair(tmp_path / "before.py", tmp_path / "after.py", 300, BENCHMARKS / "verify_script_driver.py")
    assert report.verdict == "different"


def test_fixed_dropout_keeps_the_same_elements_for_keep_prob_and_rate():
    import tensorflow as tf

    x = tf.reshape(tf.range(1.0, 41.0), [5, 8])
    tf1 = script_driver._fixed_dropout(tf, keep_prob_first=True)
    tf2 = script_driver._fixed_dropout(tf, keep_prob_first=False)
    kept = tf1(x, 0.75).numpy()
    assert np.allclose(kept, tf2(x, 0.25).numpy())
    assert np.allclose(kept, tf2(x, rate=0.25).numpy()) and np.allclose(kept, tf1(x, keep_prob=0.75).numpy())
    dropped = kept == 0
    assert 0.15 < dropped.mean() < 0.35  # about a quarter dropped
    assert np.allclose(kept[~dropped], x.numpy()[~dropped] / 0.75)


def test_tf1_dropout_wrapper_drops_the_fixed_pattern(tmp_path):
    # TF1's DropoutWrapper (tf-keras' legacy cell wrappers) calls TF2's tf.nn.dropout by rate:
    # patched on the TF1 side too, it drops what the migration's dropout drops
    import tensorflow as tf

    program = tmp_path / "wrapped.py"
    program.write_text("")
    context = DriverContext("tf1", program)
    script_driver.setup(context)
    try:
        x = tf.reshape(tf.range(1.0, 41.0), [5, 8])
        dropped = tf.compat.v2.nn.dropout(x, rate=0.25, seed=3).numpy()
    finally:
        context.restore()
    assert np.allclose(dropped, script_driver._fixed_dropout(tf, keep_prob_first=False)(x, 0.25).numpy())


def test_a_range_kept_as_a_value_is_not_cut(tmp_path):
    program = tmp_path / "sampled.py"
    program.write_text("population = list(range(100))\nfor step in range(100):\n    pass\nchosen = sorted(range(50))\n")
    context = DriverContext("tf2", program)
    script_driver.setup(context)
    try:
        spec = importlib.util.spec_from_file_location("sampled", program)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        context.restore()
    assert len(module.population) == 100 and len(module.chosen) == 50
    assert module.step == script_driver.CAP - 1
