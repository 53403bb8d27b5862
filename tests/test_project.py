"""The project layer (analysis/project.py): module summaries, import resolution, and how
a run uses them (engine.py): the cache key, files named alone, helper modules kept."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from tf2migrate.analysis.project import local_summaries, own_session_factories, Project
from tf2migrate.analysis.summaries import BUILDER, NUMPY, SESSION, UNKNOWN, VARIABLES, summarize_module
from tf2migrate import Options
from tf2migrate.engine import run

UTILITIES = """\
import numpy as np
import tensorflow as tf

counter = []


def tf_session():
    config = tf.ConfigProto(allow_soft_placement=True)
    config.gpu_options.allow_growth = True
    sess = tf.Session(config=config)
    sess.run(tf.global_variables_initializer())
    return sess


def mean_squared_error(pred, exact):
    return tf.reduce_mean(tf.square(pred - exact))


def fwd_gradients(Y, x):
    dummy = tf.ones_like(Y)
    G = tf.gradients(Y, x, grad_ys=dummy)[0]
    return tf.gradients(G, dummy)[0]


def transport(c, t):
    return fwd_gradients(c, t) + mean_squared_error(c, 0.0)


def embed(ids, table):
    return tf.nn.embedding_lookup(table, ids)


def counted(x):
    counter.append(1)
    return x


def noisy(x):
    return x + np.random.normal()


def predict(sess, y):
    return sess.run(y)


def make_weights(n):
    return tf.Variable(tf.zeros([n, n]))


class neural_net(object):
    def __init__(self, *inputs, layers):
        X = np.concatenate(inputs, 1)
        self.X_mean = X.mean(0, keepdims=True)
        self.weights = [tf.Variable(np.random.normal(size=[a, b]), dtype=tf.float32) for a, b in zip(layers, layers[1:])]

    def __call__(self, *inputs):
        H = tf.concat(inputs, 1) - self.X_mean
        for W in self.weights:
            H = tf.tanh(tf.matmul(H, W))
        return tf.split(H, num_or_size_splits=H.shape[1], axis=1)


class Stateful(object):
    def __init__(self):
        self.W = tf.Variable(1.0)

    def __call__(self, x):
        self.last = x
        return x * self.W
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")


def test_summaries_say_what_each_function_and_class_does() -> None:
    names = summarize_module(ast.parse(UTILITIES))
    assert names["tf_session"].kind == SESSION
    assert names["mean_squared_error"].kind == BUILDER and not names["mean_squared_error"].uses_gradients
    assert names["fwd_gradients"].kind == BUILDER and names["fwd_gradients"].uses_gradients
    assert names["transport"].kind == BUILDER and names["transport"].uses_gradients  # through fwd_gradients
    assert names["embed"].reads_rows and not names["transport"].reads_rows
    assert names["counted"].kind == UNKNOWN and "counter" in names["counted"].reason
    assert names["noisy"].kind == UNKNOWN and "random" in names["noisy"].reason
    assert names["predict"].kind == NUMPY
    assert names["make_weights"].kind == VARIABLES
    net = names["neural_net"]  # a net object: variables made by __init__, ops by __call__
    assert net.kind == VARIABLES and net.call is not None and net.call.kind == BUILDER
    stateful = names["Stateful"]
    assert stateful.call is not None and stateful.call.kind == UNKNOWN
    assert names["Stateful.__init__"].kind == VARIABLES and names["neural_net.__call__"].kind == BUILDER


def test_a_factory_returning_the_session_it_makes_is_a_session_factory() -> None:
    """Audit 38: ``return tf.Session(config=config)`` is the factory ``sess = tf.Session(...);
    return sess`` is; one doing anything else with the session, or returning another call, is not."""
    names = summarize_module(
        ast.parse(
            textwrap.dedent(
                """\
                import tensorflow as tf


                def configured(frac=0.5):
                    config = tf.ConfigProto()
                    config.gpu_options.per_process_gpu_memory_fraction = frac
                    return tf.Session(config=config)


                def plain():
                    return tf.Session()


                def interactive():
                    return tf.InteractiveSession()


                def wrapped():
                    return list(tf.Session())


                def logged():
                    print("session")
                    return tf.Session()
                """
            )
        )
    )
    assert names["configured"].kind == SESSION and not names["configured"].initializes
    assert names["plain"].kind == SESSION and names["interactive"].kind == SESSION
    assert names["wrapped"].kind != SESSION and names["logged"].kind != SESSION


def test_summaries_see_state_through_aliases_setters_and_chained_calls() -> None:
    """Audit 4: a ``numpy.random`` alias draws, a constant a function rebinds or changes in
    place is state, a method of a call's result is judged by its name."""
    names = summarize_module(
        ast.parse(
            textwrap.dedent(
                """\
                import numpy as np
                import numpy.random as npr
                import tensorflow as tf

                SCALE = 2.0
                FIXED = 3.0
                CONFIG = {"scale": 2.0}


                def set_scale(s):
                    global SCALE
                    SCALE = s


                def configure(s):
                    CONFIG["scale"] = s


                def configured(x):
                    return x * CONFIG["scale"]


                def noisy(x):
                    return x + npr.normal()


                def scaled(x):
                    return x * SCALE


                def fixed(x):
                    return x * FIXED + tf.reduce_sum(x).eval()


                def shaped(x):
                    return tf.reshape(x, [-1, x.get_shape().as_list()[1]]) * FIXED


                class Net(object):
                    def __init__(self, n):
                        self.W = tf.Variable(np.linspace(0, 1, n * n).reshape(n, n), dtype=tf.float32)

                    def __call__(self, x):
                        return tf.matmul(x, self.W)
                """
            )
        )
    )
    assert names["noisy"].kind == UNKNOWN and "npr.normal" in names["noisy"].reason
    assert names["scaled"].kind == UNKNOWN and "SCALE" in names["scaled"].reason
    assert names["configured"].kind == UNKNOWN and "CONFIG" in names["configured"].reason  # changed in place
    assert names["fixed"].kind == UNKNOWN and "session" in names["fixed"].reason  # ``.eval()`` of a call's result
    assert names["shaped"].kind == BUILDER
    assert names["Net"].kind == VARIABLES and names["Net"].call is not None and names["Net"].call.kind == BUILDER


def test_summaries_see_objects_changed_by_methods_and_tensors_made_by_constructors() -> None:
    found = summarize_module(
        ast.parse(
            textwrap.dedent(
                """\
                import tensorflow as tf


                class Net(object):
                    def __init__(self):
                        self.w = tf.Variable(1.0)
                        self.b = tf.Variable(tf.zeros_like(self.w))

                    def eval_mode(self):
                        self.scale = 0.5

                    def describe(self):
                        return self.w.name

                    def __call__(self, x):
                        return x * self.w + self.b


                class Normed(object):
                    def __init__(self):
                        self.ws = [tf.Variable(2.0)]
                        self.w_n = self.ws[0] / tf.norm(self.ws[0])

                    def __call__(self, x):
                        return x * self.w_n


                def detune(net):
                    net.set_gain(3.0)


                def show(net):
                    return net.describe()
                """
            )
        )
    )
    # a method setting self's state changes the object it is called on; the constructor and readers do not
    assert found["Net.eval_mode"].changes_self and not found["Net.describe"].changes_self
    assert not found["Net.__init__"].changes_self
    # an initial value read from a variable is evaluated once in both: still a net object
    assert found["Net"].kind == VARIABLES
    # a tensor computed from the variables in the constructor is not: TF1 computed it at every run
    assert found["Normed"].kind == UNKNOWN and "self.ws[0] / tf.norm(self.ws[0])" in found["Normed"].reason
    # a method called for its effect on a parameter may change the argument
    assert found["detune"].changes_arguments and not found["show"].changes_arguments


def test_a_star_import_binds_the_public_names_or_all(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "tools.py": "import tensorflow as tf\n__all__ = ['act']\n\n\ndef act(x):\n    return tf.nn.softplus(x)\n\n\n"
            "def lin(x, W):\n    return tf.matmul(x, W)\n",
            "main.py": "from tools import *\n",
        },
    )
    project = Project({(tmp_path / "main.py").resolve()})
    context = project.context((tmp_path / "main.py").resolve(), "from tools import *\n")
    seen = local_summaries(ast.parse("from tools import *\n"), context)
    assert set(seen) == {"act"}  # ``lin`` is not in __all__


def test_imports_resolve_to_sibling_modules_directories_and_packages(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "Utilities/nets.py": "import tensorflow as tf\ndef mlp(x):\n    return tf.tanh(x)\n",
            "pkg/__init__.py": "",
            "pkg/utils.py": "import tensorflow as tf\ndef double(x):\n    return 2.0 * x\n",
            "pkg/model.py": "import tensorflow as tf\nfrom .utils import double\n",
            "main/run.py": "import sys\nsys.path.insert(0, '../Utilities/')\nimport tensorflow as tf\nimport nets as N\n",
        },
    )
    project = Project()
    script = tmp_path / "main/run.py"
    context = project.context(script, script.read_text())
    assert context.modules["nets"].names["mlp"].kind == BUILDER
    model = tmp_path / "pkg/model.py"
    context = project.context(model, model.read_text())
    assert context.modules[".utils"].names["double"].kind == BUILDER
    assert context.modules[".utils"].path == (tmp_path / "pkg/utils.py").resolve()


HELPER = """\
import tensorflow as tf


def tf_session():
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return sess


def scaled(x):
    return tf.multiply(x, 2.0)
"""
MAIN = """\
import numpy as np
import tensorflow as tf

from helper import scaled, tf_session

x = tf.placeholder(tf.float32, shape=[None, 1])
W = tf.Variable(tf.ones([1, 1]))
y = scaled(tf.matmul(x, W))
sess = tf_session()
value = sess.run(y, feed_dict={x: np.ones([2, 1])})
"""


def test_a_notebook_sees_the_modules_it_imports(tmp_path: Path) -> None:
    import json

    cells = [MAIN.replace("from helper import scaled, tf_session", "from helper import scaled").replace("tf_session()", "tf.Session()")]
    notebook = {
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": c} for c in cells],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    _write(tmp_path, {"helper.py": "import tensorflow as tf\ndef scaled(x):\n    return tf.multiply(x, 2.0)\n"})
    (tmp_path / "run.ipynb").write_text(json.dumps(notebook, indent=1) + "\n")
    (result,) = run([tmp_path / "run.ipynb"], jobs=1, progress=False)
    assert result.changed and "tf.Session" not in result.new_text
    assert "TFM404" not in {f.code for f in result.findings}


def test_a_file_named_alone_reads_the_modules_it_imports_and_writes_only_itself(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "helper.py": HELPER.replace("tf.Session()", "tf.compat.v1.Session()").replace(
                "tf.global_variables_initializer()", "tf.compat.v1.global_variables_initializer()"
            ),
            "main.py": MAIN,
        },
    )
    (result,) = run([tmp_path / "main.py"], jobs=1, progress=False)
    # helper.py is TF1 code the run does not migrate: main.py cannot call it from TF2
    assert "TFM404" in {f.code for f in result.findings}
    assert any("helper.py is TF1 code this run does not migrate" in f.message for f in result.findings)
    _write(tmp_path, {"helper.py": "import tensorflow as tf\ndef scaled(x):\n    return tf.multiply(x, 2.0)\n"})
    main = (tmp_path / "main.py").read_text().replace("from helper import scaled, tf_session", "from helper import scaled")
    main = main.replace("sess = tf_session()", "sess = tf.Session()")
    (tmp_path / "main.py").write_text(main)
    (result,) = run([tmp_path / "main.py"], jobs=1, progress=False)
    assert result.changed and "tf.Session" not in result.new_text and "scaled(" in result.new_text


def test_a_run_of_the_project_removes_the_factory_and_its_import(tmp_path: Path) -> None:
    _write(tmp_path, {"helper.py": HELPER, "main.py": MAIN})
    results = {r.path.name: r for r in run([tmp_path], jobs=1, progress=False)}
    assert "from helper import scaled\n" in results["main.py"].new_text
    assert "tf_session" not in results["main.py"].new_text
    assert "def tf_session" not in results["helper.py"].new_text
    assert "def scaled" in results["helper.py"].new_text


def test_the_factory_name_in_another_project_of_the_run_is_another_name(tmp_path: Path) -> None:
    # a notebook of another project whose stored traceback mentions TF's own ``tf_session``
    # module (as tensorflow_cookbook's do) once kept helper.py's factory, helper.py and its
    # importers on TF1 in a run over several projects
    _write(tmp_path / "project", {"helper.py": HELPER, "main.py": MAIN})
    _write(tmp_path / "other", {"nb.py": "import tensorflow as tf\n# in session.py: tf_session.TF_SessionRun_wrapper(...)\n"})
    results = {r.path.name: r for r in run([tmp_path], jobs=1, progress=False)}
    assert "def tf_session" not in results["helper.py"].new_text
    assert "TFM404" not in {f.code for f in results["main.py"].findings}


def test_a_factory_another_file_still_calls_is_kept_and_its_module_keeps_its_importers(tmp_path: Path) -> None:
    other = "import tensorflow as tf\nfrom helper import tf_session\nsess = tf_session()\nprint(sess.graph)\n"
    _write(tmp_path, {"helper.py": HELPER, "main.py": MAIN, "other.py": other})
    results = {r.path.name: r for r in run([tmp_path], jobs=1, progress=False)}
    assert "def tf_session" in results["helper.py"].new_text
    assert "TFM404" in {f.code for f in results["helper.py"].findings}
    # helper.py switches eager execution off when imported: main.py stays on TF1 with it
    assert "TFM404" in {f.code for f in results["main.py"].findings}
    assert any("helper.py stays on TF1 semantics" in f.message for f in results["main.py"].findings)


def test_a_kept_helper_keeps_the_factory_its_importers_call_again(tmp_path: Path) -> None:
    # helper.py keeps its own graph on TF1 (a placeholder in a list), so main.py stays on
    # TF1 too and calls tf_session again: the factory must stay
    kept = (
        HELPER + "\nxs = [tf.placeholder(tf.float32) for _ in range(2)]\nwith tf.Session() as s:\n    print(s.run(xs[0], {xs[0]: 1.0}))\n"
    )
    _write(tmp_path, {"helper.py": kept, "main.py": MAIN})
    results = {r.path.name: r for r in run([tmp_path], jobs=1, progress=False)}
    assert "TFM404" in {f.code for f in results["helper.py"].findings}
    assert "TFM404" in {f.code for f in results["main.py"].findings}
    assert "tf_session()" in results["main.py"].new_text and "def tf_session" in results["helper.py"].new_text


def test_editing_an_imported_module_invalidates_its_importers_cached_result(tmp_path: Path) -> None:
    helper = "import tensorflow as tf\n\n\ndef scaled(x):\n    return tf.multiply(x, 2.0)\n"
    main = MAIN.replace("from helper import scaled, tf_session", "from helper import scaled").replace("tf_session()", "tf.Session()")
    _write(tmp_path, {"helper.py": helper, "main.py": main})
    (first,) = run([tmp_path / "main.py"], jobs=1, use_cache=True, progress=False)
    assert first.changed and "TFM404" not in {f.code for f in first.findings}
    (tmp_path / "helper.py").write_text(helper.replace("return tf.multiply(x, 2.0)", "print(x)\n    return open(x)"))
    (second,) = run([tmp_path / "main.py"], jobs=1, use_cache=True, progress=False)
    assert "TFM404" in {f.code for f in second.findings}


def test_each_module_is_parsed_once_per_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {"helper.py": HELPER, "main.py": MAIN})
    sources = {(tmp_path / name).read_text() for name in ("helper.py", "main.py")}
    parsed: list[str] = []
    real = ast.parse

    def counting(source, *args, **kwargs):
        if source in sources:
            parsed.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    run([tmp_path], jobs=1, progress=False)
    # helper.py: once by the project layer, whose tree its first migration reuses; the
    # second (with its factory removed) and main.py's migration parse nothing again but main
    assert sorted(parsed) == sorted(sources)


def test_a_net_object_method_taking_gradients_runs_traced_even_without_tf_function(tmp_path: Path) -> None:
    """``net.slope(x)`` takes ``tf.gradients``: the generated function must be a
    ``tf.function`` (TFM203) even with ``--no-tf-function``; eager, it raised RuntimeError."""
    net = (
        "import tensorflow as tf\n\n\nclass Dense:\n    def __init__(self, seed):\n"
        "        self.w = tf.Variable(tf.random_normal([3, 3], seed=seed))\n\n"
        "    def slope(self, a):\n        u = tf.tanh(tf.matmul(a, self.w))\n        return tf.gradients(u, a)[0]\n"
    )
    main = (
        "import numpy as np\nimport tensorflow as tf\nfrom nets import Dense\n\n"
        "x = tf.placeholder(tf.float32, [None, 3])\nnet = Dense(7)\ny = net.slope(x)\n"
        "with tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n"
        "    out = sess.run(y, {x: np.ones((2, 3))})\n"
    )
    _write(tmp_path, {"nets.py": net, "main.py": main})
    results = {r.path.name: r for r in run([tmp_path], jobs=1, progress=False, options_for=lambda path: Options(tf_function=False))}
    assert "TFM203" in {f.code for f in results["main.py"].findings}
    assert (
        "@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])\ndef compute_y(x):\n    y = net.slope(x)\n"
        in results["main.py"].new_text
    )


# analysis/external_builds.py: a graph built by a method the program runs right after construction
GAN_MODULE = """\
import numpy as np
import tensorflow as tf


class GAN(object):
    def __init__(self, sess, width):
        self.sess = sess
        self.width = width

    def build_model(self):
        self.x = tf.placeholder(tf.float32, [None, 2])
        self.W = tf.Variable(np.ones([2, self.width], np.float32))
        self.y = tf.reduce_sum(tf.matmul(self.x, self.W), axis=1)

    def train(self, data):
        tf.global_variables_initializer().run()
        return self.sess.run(self.y, {self.x: data})
"""
GAN_MAIN = """\
import numpy as np
import tensorflow as tf
from gan import GAN

with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
    gan = GAN(sess, 3)
    gan.build_model()
    out = gan.train(np.ones([4, 2], np.float32))
"""


def test_a_build_step_the_program_runs_converts_both_modules(tmp_path: Path) -> None:
    _write(tmp_path, {"gan.py": GAN_MODULE, "main.py": GAN_MAIN})
    results = {r.path.name: r for r in run([tmp_path], jobs=1, progress=False)}
    assert not any(f.code.startswith("TFM3") for r in results.values() for f in r.findings)
    assert "def __init__(self, width):" in results["gan.py"].new_text
    assert "gan = GAN(3)" in results["main.py"].new_text and "Session" not in results["main.py"].new_text


def test_a_class_kept_for_its_own_reasons_keeps_the_programs_session(tmp_path: Path) -> None:
    kept = GAN_MODULE.replace("        self.y = ", "        self.names = [v.name for v in tf.trainable_variables()]\n        self.y = ")
    _write(tmp_path, {"gan.py": kept, "main.py": GAN_MAIN})
    results = {r.path.name: r for r in run([tmp_path], jobs=1, progress=False)}
    assert "def __init__(self, sess, width):" in results["gan.py"].new_text
    assert "GAN(sess, 3)" in results["main.py"].new_text
    # the class's own reason, not TFM307; the program's session says which class keeps it
    assert not any(f.code == "TFM307" for f in results["gan.py"].findings)
    assert any(f.code == "TFM303" and "`GAN` (gan.py)" in f.message for f in results["main.py"].findings)


def test_a_program_kept_for_its_own_reasons_keeps_the_class_on_tf1(tmp_path: Path) -> None:
    # a graph of its own that stays on TF1 (placeholders in a list)
    kept = "xs = [tf.placeholder(tf.float32) for _ in range(2)]\nwith tf.Session() as s:\n    print(s.run(xs[0], {xs[0]: 1.0}))\n"
    _write(tmp_path, {"gan.py": GAN_MODULE, "main.py": GAN_MAIN + kept})
    results = {r.path.name: r for r in run([tmp_path], jobs=1, progress=False)}
    assert "def __init__(self, sess, width):" in results["gan.py"].new_text
    assert "GAN(sess, 3)" in results["main.py"].new_text
    assert any(f.code == "TFM307" and "its caller keeps the session" in f.message for f in results["gan.py"].findings)


def test_the_class_module_alone_keeps_its_build_method_refused(tmp_path: Path) -> None:
    _write(tmp_path, {"gan.py": GAN_MODULE, "main.py": GAN_MAIN})
    (result,) = run([tmp_path / "gan.py"], jobs=1, progress=False)
    assert any(f.code == "TFM307" for f in result.findings)
    assert "def __init__(self, sess, width):" in result.new_text


def test_a_build_step_parses_each_module_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {"gan.py": GAN_MODULE, "main.py": GAN_MAIN})
    sources = {(tmp_path / name).read_text() for name in ("gan.py", "main.py")}
    parsed: list[str] = []
    real = ast.parse

    def counting(source, *args, **kwargs):
        if source in sources:
            parsed.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    run([tmp_path], jobs=1, progress=False)
    assert sorted(parsed) == sorted(sources)


IMPORTED_CLASS = """\
import tensorflow as tf


class Model:
    def __init__(self):
        self.x = tf.placeholder(tf.float32, [None])
        self.y = 2.0 * self.x
        self.sess = tf.Session()

    def predict(self, X):
        return self.sess.run(self.y, {self.x: X})
"""


def test_a_module_named_alone_sees_the_project_files_importing_it(tmp_path: Path) -> None:
    # the project's root (pyproject.toml) holds the importer in another directory, which
    # reads the class's session as an attribute: the class stays on TF1, the importer unwritten
    driver = "import sys\nsys.path.insert(0, '../src')\nfrom model import Model\nm = Model()\nv = m.sess.run(m.y, {m.x: [1.0]})\n"
    _write(tmp_path, {"pyproject.toml": "", "src/model.py": IMPORTED_CLASS, "scripts/drive.py": driver})
    (result,) = run([tmp_path / "src" / "model.py"], jobs=1, progress=False)
    assert "TFM307" in {f.code for f in result.findings}
    assert (tmp_path / "scripts" / "drive.py").read_text() == driver
    # without the marker, the project is the module's directory: the driver is not seen
    (tmp_path / "pyproject.toml").unlink()
    (result,) = run([tmp_path / "src" / "model.py"], jobs=1, progress=False)
    assert "TFM307" not in {f.code for f in result.findings}


def test_a_run_of_the_whole_project_does_not_look_for_importers_again(tmp_path: Path, monkeypatch) -> None:
    _write(tmp_path, {"pyproject.toml": "", "model.py": IMPORTED_CLASS, "main.py": "from model import Model\nm = Model()\n"})

    def walked_again(root: Path, walked: set[Path]):
        raise AssertionError(f"{root} scanned a second time")

    monkeypatch.setattr("tf2migrate.engine._walk_outside", walked_again)
    assert len(run([tmp_path], jobs=1, progress=False)) == 2


@pytest.mark.parametrize(
    ("driver", "changed"),
    [
        ("import utils\nutils.GAIN = 10.0\n", True),
        ("import utils as U\nU.CFG['scale'] = 2.0\n", True),
        ("from utils import Config\nConfig.scale = 2.0\n", True),
        ("import utils\nutils.LOSSES.append(1.0)\n", True),
        ("from utils import LOSSES\nLOSSES.append(1.0)\n", True),
        ("import utils\ndef setup():\n    utils.GAIN += 1.0\n", True),
        # by name: ``setattr``, ``vars(M)``, ``sys.modules["m"]``, ``import_module("m")``
        ("import utils\nsetattr(utils, 'GAIN', 2.0)\n", True),
        ("import utils as U\nvars(U)['GAIN'] = 2.0\n", True),
        ("import utils\nutils.__dict__.update(GAIN=2.0)\n", True),
        ("from utils import *\nimport sys\nsys.modules['utils'].GAIN = 2.0\n", True),
        ("from utils import *\nimport importlib\nsetattr(importlib.import_module('utils'), 'GAIN', 2.0)\n", True),
        ("from utils import *\nimport sys\nsys.modules['other'].GAIN = 2.0\n", False),
        # its own objects, a function of the module, a read: no module state changed
        ("import utils\nnet = utils.Net()\nnet.scale = 2.0\n", False),
        ("import utils\nutils.append(1.0)\n", False),
        ("import utils\ngain = utils.GAIN * 2\n", False),
    ],
)
def test_a_file_tells_which_project_modules_state_it_changes(tmp_path: Path, driver: str, changed: bool) -> None:
    """linking.modules_changed_by: what a driver changes of a helper module's state, which the
    graphs of the run's other files may read (a class module's graph calling ``utils.gain``)."""
    from tf2migrate.linking import ProjectReader, modules_changed_by

    (tmp_path / "utils.py").write_text("import tensorflow as tf\nGAIN = 1.0\nLOSSES = []\n")
    main = tmp_path / "main.py"
    text = "import tensorflow as tf\n" + driver
    main.write_text(text)
    project = ProjectReader({main.resolve(), (tmp_path / "utils.py").resolve()})
    found = modules_changed_by(main.resolve(), text, project.context_of(main, text), None)
    assert found == ({(tmp_path / "utils.py").resolve()} if changed else set())


@pytest.mark.parametrize(
    ("driver", "read"),
    [
        # reached only by ``from model import ...``: those names, not the ones imported elsewhere
        ("from model import GAN\nfrom utils import check_folder\ncheck_folder(GAN)\n", {"GAN"}),
        ("from model import GAN, check_folder\ncheck_folder(GAN)\n", {"GAN", "check_folder"}),
        ("from model import GAN as G\nfrom utils import check_folder\n", {"GAN"}),
        # any other way reads any name it writes
        ("import model\nfrom utils import check_folder\n", None),
        ("from model import *\nfrom utils import check_folder\n", None),
        ("from model import GAN\nimport sys\nf = sys.modules['model'].check_folder\n", None),
        ("from model import GAN\nimport importlib\nf = importlib.import_module('model').check_folder\n", None),
    ],
)
def test_an_importer_reads_of_a_module_the_names_it_imports_from_it(tmp_path: Path, driver: str, read: set[str] | None) -> None:
    """linking.names_read_of_module: what a helper's rewrite of its own star imports must keep
    binding (rewrites/helper_copy.py)."""
    from tf2migrate.engine import _names_written
    from tf2migrate.linking import ProjectReader, names_read_of_module

    (tmp_path / "utils.py").write_text("def check_folder(d):\n    return d\n")
    (tmp_path / "model.py").write_text("import tensorflow as tf\nfrom utils import *\nclass GAN(object):\n    pass\n")
    main = tmp_path / "main.py"
    text = "import tensorflow as tf\n" + driver
    main.write_text(text)
    project = ProjectReader({main.resolve(), (tmp_path / "model.py").resolve(), (tmp_path / "utils.py").resolve()})
    written = _names_written([text])
    found = names_read_of_module((tmp_path / "model.py").resolve(), text, project.context_of(main, text), written)
    assert found == (written if read is None else read)


_OWN_FACTORY = """
import tensorflow as tf


def tf_session():
    sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))
    return sess


def make():
    return tf.Session()


class Net(object):
    def __init__(self):
        self.sess = tf_session()
        self.other = make
"""


def test_own_session_factory_only_called_by_assignments():
    found = own_session_factories(ast.parse(_OWN_FACTORY), {}, "net.py", frozenset())
    # (``make`` is also read as a value: stored, it may be called anywhere)
    assert list(found) == ["tf_session"]
    assert found["tf_session"].kind == SESSION and found["tf_session"].module == "net.py"


def test_own_session_factory_an_importer_may_read_is_not_one():
    assert own_session_factories(ast.parse(_OWN_FACTORY), {}, "net.py", frozenset({"tf_session"})) == {}
