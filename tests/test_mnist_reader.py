"""The port of TF 1.15's MNIST reader (rewrites/mnist_reader_port.py) that TFM414 writes into
files: decoding, one-hot labels, the validation split, and the batches next_batch draws, on
tiny idx files written here (never downloaded); and the TF1 stand-in the verification
imports as ``tensorflow.examples.tutorials.mnist.input_data``."""

from __future__ import annotations

import gzip
import sys

import numpy as np
import pytest

from tf2migrate import migrate_source
from tf2migrate.rewrites import mnist_reader_port

PORT = mnist_reader_port.port_namespace()
read_data_sets = PORT[mnist_reader_port.READ_DATA_SETS]
DataSet = PORT[mnist_reader_port.DATA_SET]
FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")


def _write_idx(path, magic: int, array: np.ndarray) -> None:
    with gzip.open(path, "wb") as f:
        f.write(np.array([magic, *array.shape], dtype=">u4").tobytes())
        f.write(array.astype(np.uint8).tobytes())


@pytest.fixture
def data_dir(tmp_path):
    """30 training and 5 test images of 4x3 pixels; image i's first pixel is i, its label i % 10."""
    pixels = np.random.RandomState(0).randint(0, 256, size=(35, 4, 3))
    pixels[:, 0, 0] = np.arange(35)
    labels = np.arange(35) % 10
    _write_idx(tmp_path / FILES[0], 2051, pixels[:30])
    _write_idx(tmp_path / FILES[1], 2049, labels[:30])
    _write_idx(tmp_path / FILES[2], 2051, pixels[30:])
    _write_idx(tmp_path / FILES[3], 2049, labels[30:])
    return tmp_path


def test_decoding_scaling_and_the_validation_split(data_dir, capsys):
    data = read_data_sets(str(data_dir), validation_size=10)
    assert capsys.readouterr().out.splitlines() == [f"Extracting {data_dir / name}" for name in FILES]
    assert data.train.images.shape == (20, 12) and data.train.images.dtype == np.float32
    assert data.validation.num_examples == 10 and data.test.num_examples == 5
    # the first examples are the validation set, in file order
    np.testing.assert_array_equal(data.validation.labels, np.arange(10) % 10)
    np.testing.assert_allclose(data.validation.images[:, 0] * 255.0, np.arange(10), rtol=1e-6)
    np.testing.assert_array_equal(data.train.labels, np.arange(10, 30) % 10)
    assert data.train.images.max() <= 1.0 and data.train.labels.dtype == np.uint8
    kept = read_data_sets(str(data_dir), dtype=np.uint8, reshape=False, validation_size=0)
    assert kept.train.images.shape == (30, 4, 3, 1) and kept.train.images.dtype == np.uint8
    with pytest.raises(ValueError, match="Validation size should be between 0 and 30"):
        read_data_sets(str(data_dir), validation_size=31)
    with pytest.raises(TypeError, match="expected uint8 or float32"):
        read_data_sets(str(data_dir), dtype=np.float64, validation_size=0)


def test_one_hot_labels_are_float64_like_tf1(data_dir):
    labels = read_data_sets(str(data_dir), one_hot=True, validation_size=0).test.labels
    assert labels.dtype == np.float64 and labels.shape == (5, 10)
    np.testing.assert_array_equal(labels.argmax(axis=1), np.arange(30, 35) % 10)
    assert labels.sum() == 5


def test_a_bad_magic_number_is_refused(data_dir):
    _write_idx(data_dir / FILES[1], 2051, np.zeros(30))
    with pytest.raises(ValueError, match="Invalid magic number 2051 in MNIST label file"):
        read_data_sets(str(data_dir))


def _tf1_order(numpy_seed, count: int, batch: int, steps: int) -> list[list[int]]:
    """The examples TF1's next_batch returned, written from its rule: numpy reseeded, the
    examples shuffled before the first batch and whenever a batch crosses an epoch's end
    (the rest of the epoch, then the start of the next)."""
    np.random.seed(numpy_seed)
    order = np.arange(count)
    perm0 = np.arange(count)
    np.random.shuffle(perm0)
    order, index, out = order[perm0], 0, []
    for _ in range(steps):
        if index + batch > count:
            rest = list(order[index:])
            perm = np.arange(count)
            np.random.shuffle(perm)
            order = order[perm]
            index = batch - len(rest)
            out.append(rest + list(order[:index]))
        else:
            out.append(list(order[index : index + batch]))
            index += batch
    return out


@pytest.mark.parametrize(
    ("seed", "graph_seed", "numpy_seed"), [(None, 7, 7), (5, 7, 5), (5, None, 5), (None, 2**31 + 2, 3), (0, 0, 2**31 - 1)]
)
def test_next_batch_draws_what_tf1_drew(data_dir, seed, graph_seed, numpy_seed):
    data = read_data_sets(str(data_dir), validation_size=10, seed=seed, graph_seed=graph_seed)
    drawn = []
    for _ in range(6):  # 20 examples, 7 a batch: two epochs' ends
        images, labels = data.train.next_batch(7)
        identities = np.rint(images[:, 0] * 255.0).astype(int) - 10  # image i of the training set
        np.testing.assert_array_equal(labels, (identities + 10) % 10)
        drawn.append(list(identities))
    assert drawn == _tf1_order(numpy_seed, 20, 7, 6)
    assert data.train.epochs_completed == 2


def test_without_shuffling_batches_come_in_file_order(data_dir):
    data = read_data_sets(str(data_dir), validation_size=10, graph_seed=1)
    labels = [data.train.next_batch(8, shuffle=False)[1] for _ in range(3)]
    np.testing.assert_array_equal(np.concatenate(labels), np.concatenate([np.arange(10, 30), np.arange(10, 14)]) % 10)


@pytest.mark.parametrize("graph_seed", [None, 0, 7, 2**31 - 1, 2**33 + 5, -3])
@pytest.mark.parametrize("op_seed", [None, 0, 3, 2**31 - 1, -1])
def test_numpy_seed_follows_tf_get_seed(graph_seed, op_seed):
    """``numpy_seed`` against TensorFlow's own ``get_seed`` in graph mode: TF1's DataSet
    seeded numpy with its first seed without an op seed, else its second."""
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.framework import random_seed

    with tf.Graph().as_default() as graph:
        graph.seed = graph_seed
        first, second = random_seed.get_seed(op_seed)
    expected = first if op_seed is None else second
    assert DataSet.numpy_seed(op_seed, graph_seed) == expected


def test_the_tf1_stand_in_reads_the_graph_seed(data_dir, monkeypatch):
    tf = pytest.importorskip("tensorflow")
    from tf2migrate.verify import tf1_mnist

    for name in [m for m in sys.modules if m.startswith("tensorflow.examples")]:
        monkeypatch.delitem(sys.modules, name)
    tf1_mnist.install(tf.compat.v1)
    from tensorflow.examples.tutorials.mnist import input_data

    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(11)
        tf1 = input_data.read_data_sets(str(data_dir), one_hot=True, validation_size=10)
    tf1_batches = [tf1.train.next_batch(6) for _ in range(4)]  # (both draw from numpy's one generator)
    port = read_data_sets(str(data_dir), one_hot=True, validation_size=10, graph_seed=11)
    for tf1_batch in tf1_batches:
        for left, right in zip(tf1_batch, port.train.next_batch(6)):
            np.testing.assert_array_equal(left, right)
    with pytest.raises(NotImplementedError):
        input_data.read_data_sets(str(data_dir), fake_data=True)
    for name in [m for m in sys.modules if m.startswith("tensorflow.examples")]:
        monkeypatch.delitem(sys.modules, name)


READER = "import tensorflow as tf\nfrom tensorflow.examples.tutorials.mnist import input_data\n"


def _migrated(body: str) -> tuple[str, list[str]]:
    new, findings = migrate_source(READER + body)
    return new, [f"{f.line} {f.code} {f.message}" for f in findings]


def test_calls_are_rewritten_with_the_seed_in_force():
    new, findings = _migrated(
        "tf.set_random_seed(1)\ntf.set_random_seed(2)\n"
        "a = input_data.read_data_sets('d', False, True, validation_size=3)\n"
        "def load():\n    return input_data.read_data_sets('d', fake_data=False)\n"
    )
    assert "from tensorflow.examples" not in new
    assert new.count("class TF1MnistDataSet:") == 1 and new.count("def tf1_mnist_read_data_sets(") == 1
    assert "a = tf1_mnist_read_data_sets('d', one_hot=True, validation_size=3, graph_seed=2)\n" in new
    assert "    return tf1_mnist_read_data_sets('d', graph_seed=2)\n" in new
    assert not any(" TFM403 " in f for f in findings)


def test_names_the_file_uses_are_not_taken():
    new, _ = _migrated("TF1MnistDataSet = 1\nm = input_data.read_data_sets('d')\n")
    assert "class TF1MnistDataSet_2:" in new and "TF1MnistDataSet_2(train_images" in new
    assert "TF1MnistDataSet = 1\n" in new


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("m = input_data.read_data_sets('d')\nd = input_data.DataSet\n", "`input_data.DataSet` is used"),
        ("m = input_data.read_data_sets('d')\ninput_data = None\n", "`input_data` is bound again"),
        ("for s in [1]:\n    tf.set_random_seed(s)\nm = input_data.read_data_sets('d')\n", "set conditionally"),
        ("tf.set_random_seed(1 + 1)\nm = input_data.read_data_sets('d')\n", "not a number or a module-level name"),
        ("def main():\n    return input_data.read_data_sets('d')\ntf.set_random_seed(1)\nmain()\n", "after the function"),
    ],
)
def test_refusals_keep_the_import_and_say_why(body, reason):
    new, findings = _migrated(body)
    assert new.startswith(READER)
    assert any(" TFM414 " in f and reason in f for f in findings), findings


def test_a_graph_reset_is_read_in_order_with_the_seeds():
    # the seed set after the reset seeds the new graph, which the read draws from; a reset after
    # the seed leaves the read's graph unseeded (TF1's DataSet then shuffled with an unseeded numpy)
    seeded, _ = _migrated("tf.reset_default_graph()\ntf.set_random_seed(1)\nm = input_data.read_data_sets('d')\n")
    assert "m = tf1_mnist_read_data_sets('d', graph_seed=1)\n" in seeded
    unseeded, _ = _migrated("tf.set_random_seed(1)\ntf.reset_default_graph()\nm = input_data.read_data_sets('d')\n")
    assert "m = tf1_mnist_read_data_sets('d')\n" in unseeded


def test_a_seed_under_the_main_test_counts_and_a_read_before_the_seed_has_none():
    new, _ = _migrated(
        "m = input_data.read_data_sets('d')\nif __name__ == '__main__':\n    tf.set_random_seed(4)\n    n = input_data.read_data_sets('e')\n"
    )
    assert "m = tf1_mnist_read_data_sets('d')\n" in new
    assert "    n = tf1_mnist_read_data_sets('e', graph_seed=4)\n" in new


def test_a_python2_file_is_read_as_the_migration_read_it():
    new, findings = _migrated("mnist = input_data.read_data_sets('d')\nprint mnist.train.num_examples\n")
    assert "mnist = tf1_mnist_read_data_sets('d')\nprint(mnist.train.num_examples)\n" in new
    assert any(f.startswith("3 TFM414 ") for f in findings) and not any(" TFM403 " in f for f in findings)


def test_an_import_in_a_function_or_the_main_block_is_written_out_at_the_top():
    source = (
        "import tensorflow as tf\n\n\n"
        "def main():\n    # the reader\n    import tensorflow.examples.tutorials.mnist.input_data as mnist_io\n"
        "    return mnist_io.read_data_sets('d', one_hot=True)\n\n\n"
        "if __name__ == '__main__':\n    from tensorflow.examples.tutorials.mnist import input_data\n    main()\n"
    )
    new, findings = migrate_source(source)
    assert "mnist_io" not in new
    assert new.index("class TF1MnistDataSet:") < new.index("def main():")
    assert "def main():\n    # the reader\n    return tf1_mnist_read_data_sets('d', one_hot=True)\n" in new
    # the first import found is written out; the unused one in the main block stays, reported
    assert "    from tensorflow.examples.tutorials.mnist import input_data\n    main()\n" in new
    assert any(f.code == "TFM414" and f.line == 7 for f in findings)


def test_an_unused_import_in_a_function_leaves_pass():
    new, findings = migrate_source(
        "import tensorflow as tf\n\n\ndef f():\n    from tensorflow.examples.tutorials.mnist import input_data\n"
    )
    assert new == "import tensorflow as tf\n\n\ndef f():\n    pass\n"
    assert [f.code for f in findings] == ["TFM414"]


def test_a_module_importing_nothing_at_its_top_keeps_the_reader():
    source = "def f():\n    import tensorflow as tf\n    from tensorflow.examples.tutorials.mnist import input_data\n    return input_data.read_data_sets('d')\n"
    new, findings = migrate_source(source)
    assert new == source
    assert any(f.code == "TFM414" and "imports nothing at its top" in f.message for f in findings), findings
