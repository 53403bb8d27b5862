"""TF 1.15's MNIST reader (``tensorflow.examples.tutorials.mnist.input_data``), ported to
numpy alone: the code rewrites/mnist_input_data.py writes into a migrated file, and that the
verification's TF1 side runs in place of the module TF2 no longer ships.

A port line for line of ``tensorflow/contrib/learn/python/learn/datasets/mnist.py`` (and
``base.maybe_download``), which ``input_data`` re-exported: the four files downloaded into
``train_dir`` when missing, ``Extracting …`` printed, the idx files decoded (big-endian
magic numbers checked), images flattened and scaled to [0, 1] for float32, labels one-hot
as float64, the first ``validation_size`` training examples split off.  ``next_batch``
shuffles with numpy's global generator on the first epoch and at each epoch's end, which
TF1's ``DataSet`` reseeded from ``random_seed.get_seed(seed)``: graph mode's rules are
written out (``numpy_seed``) with the graph seed passed in (``graph_seed``), since TF2 has
no graph to read it from.  ``fake_data`` is not ported.

Each template defines its name on its first line (rewrites/file_helpers.py renames it
there when the file uses the name already); the function's template names the class.
"""

from __future__ import annotations

DATA_SET = "TF1MnistDataSet"
READ_DATA_SETS = "tf1_mnist_read_data_sets"

DATA_SET_CODE = '''class TF1MnistDataSet:
    """TF 1.15's MNIST DataSet (tensorflow.examples.tutorials.mnist), ported: next_batch
    shuffles with numpy's global generator, which the constructor reseeds as TF1's did."""

    def __init__(self, images, labels, dtype="float32", reshape=True, seed=None, graph_seed=None):
        import numpy

        numpy.random.seed(self.numpy_seed(seed, graph_seed))
        dtype = numpy.dtype(getattr(dtype, "as_numpy_dtype", dtype))
        if dtype not in (numpy.uint8, numpy.float32):
            raise TypeError("Invalid image dtype %r, expected uint8 or float32" % dtype)
        assert images.shape[0] == labels.shape[0], "images.shape: %s labels.shape: %s" % (images.shape, labels.shape)
        self._num_examples = images.shape[0]
        # [num examples, rows, columns, depth] -> [num examples, rows*columns] (depth 1)
        if reshape:
            assert images.shape[3] == 1
            images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
        if dtype == numpy.float32:
            # [0, 255] -> [0.0, 1.0]
            images = images.astype(numpy.float32)
            images = numpy.multiply(images, 1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @staticmethod
    def numpy_seed(seed, graph_seed):
        """The seed TF1 gave numpy: tf.compat.v1.get_seed(seed) in graph mode, its first
        seed (the graph's) without an op seed, else its second."""
        maxint32 = 2**31 - 1
        if graph_seed is not None:
            # (without an op seed TF1 took the graph's op count, which only the unused second seed reads)
            op_seed = seed if seed is not None else 0
            seeds = (graph_seed % maxint32, op_seed % maxint32)
        elif seed is not None:
            seeds = (87654321, seed % maxint32)  # TF1's DEFAULT_GRAPH_SEED
        else:
            seeds = (None, None)
        if seeds == (0, 0):
            seeds = (0, maxint32)
        seed1, seed2 = seeds
        return seed1 if seed is None else seed2

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self):
        return self._num_examples

    @property
    def epochs_completed(self):
        return self._epochs_completed

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next batch_size examples, as TF1's next_batch drew them."""
        import numpy

        if fake_data:
            raise NotImplementedError("TF1's fake MNIST data is not ported")
        start = self._index_in_epoch
        # shuffle for the first epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            perm0 = numpy.arange(self._num_examples)
            numpy.random.shuffle(perm0)
            self._images = self.images[perm0]
            self._labels = self.labels[perm0]
        if start + batch_size > self._num_examples:
            # the epoch is finished: the rest of it, then the start of the next one
            self._epochs_completed += 1
            rest_num_examples = self._num_examples - start
            images_rest_part = self._images[start : self._num_examples]
            labels_rest_part = self._labels[start : self._num_examples]
            if shuffle:
                perm = numpy.arange(self._num_examples)
                numpy.random.shuffle(perm)
                self._images = self.images[perm]
                self._labels = self.labels[perm]
            start = 0
            self._index_in_epoch = batch_size - rest_num_examples
            end = self._index_in_epoch
            images_new_part = self._images[start:end]
            labels_new_part = self._labels[start:end]
            return (
                numpy.concatenate((images_rest_part, images_new_part), axis=0),
                numpy.concatenate((labels_rest_part, labels_new_part), axis=0),
            )
        self._index_in_epoch += batch_size
        end = self._index_in_epoch
        return self._images[start:end], self._labels[start:end]
'''

READ_DATA_SETS_CODE = '''def tf1_mnist_read_data_sets(
    train_dir,
    one_hot=False,
    dtype="float32",
    reshape=True,
    validation_size=5000,
    seed=None,
    source_url="https://storage.googleapis.com/cvdf-datasets/mnist/",
    graph_seed=None,
):
    """TF 1.15's input_data.read_data_sets, ported (TF2 has no tensorflow.examples): the
    MNIST files downloaded into train_dir when missing, read as TF1 read them; graph_seed
    is the tf.set_random_seed in force at the call, which TF1 read from its graph."""
    import collections
    import gzip
    import os
    import urllib.request

    import numpy

    def read32(bytestream):
        dt = numpy.dtype(numpy.uint32).newbyteorder(">")
        return numpy.frombuffer(bytestream.read(4), dtype=dt)[0]

    def maybe_download(filename):
        os.makedirs(train_dir, exist_ok=True)
        filepath = os.path.join(train_dir, filename)
        if not os.path.exists(filepath):
            urllib.request.urlretrieve(source_url + filename, filepath + ".part")
            os.replace(filepath + ".part", filepath)
            print("Successfully downloaded", filename, os.path.getsize(filepath), "bytes.")
        return filepath

    def extract_images(f):
        print("Extracting", f.name)
        with gzip.GzipFile(fileobj=f) as bytestream:
            magic = read32(bytestream)
            if magic != 2051:
                raise ValueError("Invalid magic number %d in MNIST image file: %s" % (magic, f.name))
            num_images = read32(bytestream)
            rows = read32(bytestream)
            cols = read32(bytestream)
            buf = bytestream.read(rows * cols * num_images)
            data = numpy.frombuffer(buf, dtype=numpy.uint8)
            return data.reshape(num_images, rows, cols, 1)

    def extract_labels(f, num_classes=10):
        print("Extracting", f.name)
        with gzip.GzipFile(fileobj=f) as bytestream:
            magic = read32(bytestream)
            if magic != 2049:
                raise ValueError("Invalid magic number %d in MNIST label file: %s" % (magic, f.name))
            num_items = read32(bytestream)
            buf = bytestream.read(num_items)
            labels = numpy.frombuffer(buf, dtype=numpy.uint8)
            if not one_hot:
                return labels
            index_offset = numpy.arange(labels.shape[0]) * num_classes
            labels_one_hot = numpy.zeros((labels.shape[0], num_classes))
            labels_one_hot.flat[index_offset + labels.ravel()] = 1
            return labels_one_hot

    if not source_url:
        source_url = "https://storage.googleapis.com/cvdf-datasets/mnist/"
    with open(maybe_download("train-images-idx3-ubyte.gz"), "rb") as f:
        train_images = extract_images(f)
    with open(maybe_download("train-labels-idx1-ubyte.gz"), "rb") as f:
        train_labels = extract_labels(f)
    with open(maybe_download("t10k-images-idx3-ubyte.gz"), "rb") as f:
        test_images = extract_images(f)
    with open(maybe_download("t10k-labels-idx1-ubyte.gz"), "rb") as f:
        test_labels = extract_labels(f)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(
            "Validation size should be between 0 and {}. Received: {}.".format(len(train_images), validation_size)
        )
    validation_images = train_images[:validation_size]
    validation_labels = train_labels[:validation_size]
    train_images = train_images[validation_size:]
    train_labels = train_labels[validation_size:]
    options = dict(dtype=dtype, reshape=reshape, seed=seed, graph_seed=graph_seed)
    train = TF1MnistDataSet(train_images, train_labels, **options)
    validation = TF1MnistDataSet(validation_images, validation_labels, **options)
    test = TF1MnistDataSet(test_images, test_labels, **options)
    datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])
    return datasets(train=train, validation=validation, test=test)
'''


def port_namespace() -> dict:
    """The port's class and function, defined by executing the templates (the verification's
    TF1 side, and the tests, run exactly the code the migration writes)."""
    namespace: dict = {}
    exec(compile(DATA_SET_CODE + "\n\n" + READ_DATA_SETS_CODE, "<tf1 mnist reader port>", "exec"), namespace)
    return namespace
