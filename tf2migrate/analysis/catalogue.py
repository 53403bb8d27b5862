"""The TF1 API as graph analysis sees it: which calls make placeholders, sessions,
variables, initializers and train ops, which are refused, which give Python values.

Names are canonical TF1 paths (``analysis/tf_imports.py``).  Sets that one rewrite alone
uses are named for it (``SAVER_CALL`` → rewrites/checkpoints.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from tf2migrate.data.tf_symbols import DIFFERENT_IN_TF2, SAME_IN_TF2, V1_ONLY

SCIPY_OPTIMIZER = "contrib.opt.ScipyOptimizerInterface"
# TF1 optimizers with a Keras optimizer that takes the same steps (rewrites/train_steps.py).
OPTIMIZERS = frozenset(
    {
        "train.GradientDescentOptimizer",
        "train.AdamOptimizer",
        "train.MomentumOptimizer",
        "train.RMSPropOptimizer",
        "train.AdagradOptimizer",
        "train.AdadeltaOptimizer",
        "train.FtrlOptimizer",
    }
)
# TF1 learning-rate decay functions with a Keras schedule computing the same rate: their
# parameters in positional order and the one holding the global step (rewrites/lr_schedules.py).
SCHEDULE_PARAMETERS = {
    "train.exponential_decay": (("learning_rate", "global_step", "decay_steps", "decay_rate", "staircase", "name"), "global_step"),
    "train.inverse_time_decay": (("learning_rate", "global_step", "decay_steps", "decay_rate", "staircase", "name"), "global_step"),
    "train.polynomial_decay": (
        ("learning_rate", "global_step", "decay_steps", "end_learning_rate", "power", "cycle", "name"),
        "global_step",
    ),
    "train.cosine_decay": (("learning_rate", "global_step", "decay_steps", "alpha", "name"), "global_step"),
    "train.piecewise_constant": (("x", "boundaries", "values", "name"), "x"),
}
SCHEDULE_CALLS = frozenset(SCHEDULE_PARAMETERS)
GLOBAL_STEP_CALLS = frozenset({"train.get_or_create_global_step", "train.create_global_step"})
SAVER_CALL = "train.Saver"  # → tf.train.Checkpoint (rewrites/checkpoints.py)

PLACEHOLDER_CALLS = frozenset({"placeholder", "placeholder_with_default"})
# Calls building an Operation, not a tensor: sess.run gave None for it, and a tf.function
# cannot return one.
_ASSERTIONS = (
    "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater", "assert_greater_equal",
    "assert_positive", "assert_negative", "assert_non_negative", "assert_non_positive", "assert_near", "assert_rank",
    "assert_rank_at_least", "assert_integer", "assert_type", "assert_scalar",
)  # fmt: skip
OPERATION_CALLS = frozenset(
    {
        "group", "no_op", "write_file", "io.write_file", "print", "tables_initializer",
        *_ASSERTIONS, *(f"debugging.{name}" for name in _ASSERTIONS),
    }
)  # fmt: skip
SESSION_CALLS = frozenset({"Session", "InteractiveSession"})
# Sessions tf2migrate does not convert: their graphs stay on TF1.
OTHER_SESSION_CALLS = frozenset(
    {"train.MonitoredSession", "train.SingularMonitoredSession", "train.MonitoredTrainingSession", "Session.as_default"}
)
# tf.test.TestCase's graph-mode sessions: ``with self.test_session() as sess:``
TEST_SESSION_METHODS = frozenset({"test_session", "cached_session", "session"})
# tf.test.TestCase assertions that evaluate a graph tensor they are given in the test's
# session (``_GetNdArray``: ``self.evaluate(a)``), by method: the evaluated parameters, by
# position and keyword.  Others (unittest's ``assertEqual``, ``assertNotEqual``, ...) get
# the tensor object itself.
EVALUATING_ASSERTS: dict[str, tuple[tuple[int, str], ...]] = {
    **dict.fromkeys(("assertAllEqual", "assertAllClose", "assertAllCloseAccordingToType"), ((0, "a"), (1, "b"))),
    **dict.fromkeys(("assertAllGreater", "assertAllLess", "assertAllGreaterEqual", "assertAllLessEqual"), ((0, "a"),)),
    **dict.fromkeys(("assertAllInRange", "assertAllInSet", "assertDTypeEqual"), ((0, "target"),)),
}
CONFIG_CALLS = frozenset({"ConfigProto", "GPUOptions", "GraphOptions", "OptimizerOptions"})
INIT_CALLS = frozenset(
    {
        "global_variables_initializer",
        "local_variables_initializer",
        "variables_initializer",
        "initialize_all_variables",
        "initialize_local_variables",
        "initialize_variables",
        "tables_initializer",
    }
)
# Calls that switch TF2 behaviour off; they go away once the file runs eagerly.
V1_SWITCH_CALLS = frozenset(
    {
        "disable_v2_behavior",
        "disable_eager_execution",
        "disable_v2_tensorshape",
        "disable_resource_variables",
        "disable_control_flow_v2",
    }
)
DROP_CALLS = frozenset({"reset_default_graph"}) | V1_SWITCH_CALLS
# Calls that make a file a TF1 graph file (with test-session blocks: analysis/graph.py's
# evidence, read cheaply by analysis/module_facts.py)
GRAPH_EVIDENCE_CALLS = V1_SWITCH_CALLS | PLACEHOLDER_CALLS | SESSION_CALLS | OTHER_SESSION_CALLS
# Writers of the default graph: made by a module's own top-level code (a script building a
# graph only to show it in TensorBoard, with no session), they are its graph evidence too —
# TF2's eager execution keeps no default graph, and the writer refuses to be made there.
GRAPH_WRITER_CALLS = frozenset({"summary.FileWriter", "train.SummaryWriter"})
VARIABLE_CALLS = frozenset({"Variable", "VariableV1", "get_variable", "get_local_variable"})
# Constructors of objects that create their variables when first called (layers, RNN
# cells, Keras models): like tf.Variable, they must run once, not in every generated call.
# tf.metrics.*: each makes local variables (its total and count) that its update op adds to;
# never converted (tf.compat.v1.metrics raises under eager execution)
STREAMING_METRICS = "metrics."
VARIABLE_CALL_PREFIXES = (
    "layers.",
    "keras.layers.",
    "contrib.layers.",
    "nn.rnn_cell.",
    "contrib.rnn.",
    "keras.Sequential",
    "keras.Model",
    "keras.models.",
    STREAMING_METRICS,
)
# Calls under those prefixes that are plain ops: they make no variable.  The RNN runs
# ``contrib.rnn.static_rnn`` / ``static_bidirectional_rnn`` call cells (whose statements make
# the variables, analysis/rnn.py), as ``tf.nn.static_rnn`` does; ``LSTMStateTuple`` is a
# namedtuple of the (c, h) tensors given to it (A3C feeds an LSTM's state through one).
NO_VARIABLE_CALLS = frozenset(
    {
        "contrib.layers.flatten",
        "contrib.rnn.static_rnn",
        "contrib.rnn.static_bidirectional_rnn",
        "nn.rnn_cell.LSTMStateTuple",
        "contrib.rnn.LSTMStateTuple",
    }
)
# the ``tf.layers`` (and ``tf.contrib.layers``) functions that make no variables (pooling,
# dropout, flatten)
_LAYERS_WITHOUT_VARIABLES = ("average_pooling", "max_pooling", "dropout", "flatten")


def layer_makes_no_variables(name: str) -> bool:
    """Is ``tf.<name>`` a layer function that makes no variable (``layers.dropout``,
    ``contrib.layers.flatten``)?"""
    return name.startswith(("layers.", "contrib.layers.")) and name.rsplit(".", 1)[-1].startswith(_LAYERS_WITHOUT_VARIABLES)


def makes_variables(name: str) -> bool:
    """Does the TF call (by its name under ``tf``) create variables, or an object that
    creates them when first called?"""
    return name in VARIABLE_CALLS or (name.startswith(VARIABLE_CALL_PREFIXES) and name not in NO_VARIABLE_CALLS)


def is_initializer_or_regularizer(name: str) -> bool:
    """Is ``tf.<name>`` an initializer or regularizer factory (``contrib.layers.xavier_initializer``,
    ``contrib.layers.l2_regularizer``, ``initializers.glorot_uniform``)?  What it returns
    computes a value from a shape or a tensor: calling it makes no variable."""
    last = name.rsplit(".", 1)[-1]
    return last.endswith(("_initializer", "_initializer_conv2d", "_regularizer"))


# TF1 facilities whose conversion belongs to later work (training, summaries, input
# pipelines, streaming metrics, whose local variables a generated function would make at each
# trace); graph code that uses them stays on TF1 as a whole.
UNSUPPORTED_CALL_PREFIXES = ("train.", "summary.", "contrib.", "estimator.", "data.", STREAMING_METRICS)
UNSUPPORTED_CALLS = frozenset(
    {
        "add_to_collection",
        "get_collection",
        "get_collection_ref",
        "trainable_variables",
        "global_variables",
        "local_variables",
        # read the LOSSES / REGULARIZATION_LOSSES collections, which TF2 code leaves empty
        "losses.get_losses",
        "losses.get_total_loss",
        "losses.get_regularization_loss",
        "losses.get_regularization_losses",
        "losses.add_loss",
        "get_default_graph",
        "get_default_session",
        "make_template",
        "py_func",
        "numpy_function",  # (py_func as TF2 spells it: a second run reads what the first wrote)
        "Print",
        "hessians",
        # TF1 RNNs run cells of tf.compat.v1.nn.rnn_cell (tf-keras only) in variable scopes
        "nn.static_rnn",
        "nn.dynamic_rnn",
        "nn.bidirectional_dynamic_rnn",
        "nn.static_bidirectional_rnn",
        "nn.raw_rnn",
        # a namedtuple of the (c, h) tensors given to it, but only tf-keras has it in TF2
        # (tf.compat.v1.nn.rnn_cell.LSTMStateTuple raises under Keras 3)
        "nn.rnn_cell.LSTMStateTuple",
        # a queue is state of the graph: each generated function would make a queue of its
        # own, empty (a dequeue after an enqueue of another run blocks for ever)
        *(
            f"{space}{queue}"
            for space in ("", "io.", "queue.")
            for queue in ("FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "RandomShuffleQueue")
        ),
    }
)
# TF calls that give Python objects or configure the runtime rather than build tensors.
PYTHON_VALUE_CALLS = frozenset(
    {
        "set_random_seed",
        "random.set_seed",
        "TensorShape",
        "as_dtype",
        "DType",
        # a namedtuple of indices, values and shape, fed to a sparse placeholder: no graph
        "SparseTensorValue",
        # checkpoint files on disk: paths and stored values, no graph
        "train.latest_checkpoint",
        "train.get_checkpoint_state",
        "train.checkpoint_exists",
        "train.list_variables",
        "train.load_checkpoint",
        "train.load_variable",
        # tf.Example protocol buffers, the TFRecord file writer and the feature specs a
        # parser reads: Python objects (TF2 has the same ones), no graph
        "train.Example",
        "train.SequenceExample",
        "train.Features",
        "train.Feature",
        "train.FeatureList",
        "train.FeatureLists",
        "train.Int64List",
        "train.FloatList",
        "train.BytesList",
        "io.TFRecordWriter",
        "python_io.TFRecordWriter",
        "io.FixedLenFeature",
        "io.VarLenFeature",
        "io.FixedLenSequenceFeature",
        "FixedLenFeature",
        "VarLenFeature",
        "FixedLenSequenceFeature",
    }
)
# methods of a NumPy array that read it and return a new value (``data.tolist()``,
# ``np.arange(12).reshape(6, 2)``): none changes the array or anything else
NUMPY_ARRAY_READS = frozenset({"tolist", "copy", "astype", "reshape", "ravel", "flatten", "squeeze", "transpose"})
PYTHON_VALUE_PREFIXES = (
    "app.",
    "flags.",
    "logging.",
    "gfile.",
    "io.gfile.",
    "errors.",
    "test.",
    "sysconfig.",
    "version.",
    "resource_loader.",
)
# Attributes of a graph tensor that are Python values fixed while the graph is built.
STATIC_TENSOR_ATTRIBUTES = frozenset({"shape", "get_shape", "dtype", "name", "op", "graph", "device"})
# Builtins without side effects, safe to run again on every call of a generated function.
PURE_BUILTINS = frozenset(
    {
        "range",
        "len",
        "int",
        "float",
        "bool",
        "str",
        "list",
        "tuple",
        "dict",
        "set",
        "zip",
        "enumerate",
        "min",
        "max",
        "abs",
        "sum",
        "sorted",
        "reversed",
        "isinstance",
        "round",
        "map",
        "filter",
        "any",
        "all",
        "slice",
        "complex",
        "pow",
        "divmod",
    }
)
# Contexts that only name or place graph ops: eager values do not depend on them.
NAMING_CONTEXTS = frozenset({"name_scope", "device"})
GRADIENT_CALLS = frozenset({"gradients"})
# Ops whose value is fixed by their Python arguments: made once where they stand, eagerly,
# they are the tensor TF1 built (analysis/statements.py)
EAGER_CONSTANT_CALLS = frozenset({"constant", "convert_to_tensor"})
# Calls whose value is a Python list of tensors (sess.run gave a list of arrays).
LIST_CALLS = GRADIENT_CALLS | {"unstack", "split", "meshgrid"}
# TF calls that return a tuple (or another structure) of tensors, not one tensor: their
# values come back to NumPy by walking the structure (rewrites/fetches.py)
STRUCTURE_CALLS = frozenset(
    {
        "nn.moments",
        "nn.weighted_moments",
        "nn.sufficient_statistics",
        "nn.normalize_moments",
        "nn.fused_batch_norm",
        "nn.max_pool_with_argmax",
        "nn.top_k",
        "math.top_k",
        "unique",
        "unique_with_counts",
        "setdiff1d",
        "self_adjoint_eig",
        "linalg.eigh",
        "svd",
        "linalg.svd",
        "qr",
        "linalg.qr",
        "while_loop",
        "dynamic_partition",
        "identity_n",
        "tuple",
    }
)
# TF calls whose value is a ``tf.SparseTensor`` (or a list of them): TF1's run returned a
# SparseTensorValue of arrays, which no ``.numpy()`` of the eager value gives
# (rewrites/fetches.py sparse_fetch_call)
SPARSE_VALUE_CALLS = frozenset(
    {
        "SparseTensor",
        "sparse_placeholder",
        "string_split",
        "sparse_split",
        *(
            f"{space}{name}"
            for space in ("sparse_", "sparse.")
            for name in (
                "reorder",
                "reshape",
                "concat",
                "slice",
                "retain",
                "reset_shape",
                "transpose",
                "maximum",
                "minimum",
                "add",
                "softmax",
                "merge",
                "reduce_sum_sparse",
                "reduce_max_sparse",
            )
        ),
        "sparse.SparseTensor",
        "sparse.placeholder",
        "sparse.split",
        "sparse.expand_dims",
        "sparse.from_dense",
        "sparse.eye",
        "sparse.cross",
        "sparse.cross_hashed",
        *(f"sets.{verb}" for verb in ("set_intersection", "set_union", "set_difference", "intersection", "union", "difference")),
        "nn.ctc_greedy_decoder",
        "nn.ctc_beam_search_decoder",
    }
)
# TF1 functional layers that have a Keras layer class (rewrites/keras_layers.py).
KERAS_LAYERS = frozenset(
    {
        "layers.dense",
        "layers.dropout",
        "layers.flatten",
        "layers.batch_normalization",
        "layers.conv1d",
        "layers.conv2d",
        "layers.conv3d",
        "layers.conv2d_transpose",
        "layers.max_pooling1d",
        "layers.max_pooling2d",
        "layers.max_pooling3d",
        "layers.average_pooling1d",
        "layers.average_pooling2d",
        "layers.average_pooling3d",
        "contrib.layers.fully_connected",
        "contrib.layers.flatten",
    }
)
# Calls whose gradient is an IndexedSlices (rows looked up), matched on the last part of
# the called name, whatever the object or alias (``tf.gather``, ``K.gather``,
# ``tf.gather_nd``, ``layers.Embedding``, ``v.sparse_read``): analysis/sparse_gradients.py
SPARSE_NAME_PARTS = ("gather", "embedding", "embed_sequence", "nce_loss", "sampled_softmax_loss", "sparse_read")
GRADIENT_OPTIONS_DROPPED = ("colocate_gradients_with_ops", "gate_gradients", "aggregation_method")


def is_unsupported_call(canonical: str) -> bool:
    """A TF1 facility whose conversion belongs to later work (UNSUPPORTED_CALL_PREFIXES,
    UNSUPPORTED_CALLS): graph code using it stays on TF1."""
    return canonical.startswith(UNSUPPORTED_CALL_PREFIXES) or canonical in UNSUPPORTED_CALLS


# tf.data dataset classes whose TF2 class takes the very parameters of the TF1 one (the
# generated tables' signatures: ``TFRecordDataset``, ``experimental.CsvDataset``...): TF1's
# is a subclass adding the iterator methods (rewrites/tf1_iterators.py).  Constructed, they
# describe a pipeline, as ``tf.data.Dataset.from_tensor_slices`` does: Python objects that
# stay where they are, not ops that move into generated functions.
DATASET_CLASSES = frozenset(
    path
    for path, (tf1, tf2) in DIFFERENT_IN_TF2.items()
    if path.startswith("data.") and path.endswith("Dataset") and tf1 is not None and tf1 == tf2
)


def is_graph_op(canonical: str) -> bool:
    """Does calling this TF1 path build graph ops?  Paths outside the public TF1 API
    (``tensorflow.examples`` data loaders, ``tf.keras.datasets``) give Python values, and
    so do tf.data's datasets (DATASET_CLASSES)."""
    if canonical in PYTHON_VALUE_CALLS or canonical in DROP_CALLS or canonical.startswith(PYTHON_VALUE_PREFIXES):
        return False
    if canonical in DATASET_CLASSES or is_initializer_object(canonical):
        return False
    return (
        canonical in SAME_IN_TF2 or canonical in DIFFERENT_IN_TF2 or canonical in V1_ONLY or canonical.startswith(("layers.", "contrib."))
    )


def is_initializer_object(canonical: str) -> bool:
    """``tf.ones_initializer()``, ``tf.contrib.layers.xavier_initializer()``,
    ``tf.initializers.he_normal()``: a Python object that makes initial values when a
    variable is created, no graph op (unlike ``tf.global_variables_initializer()``)."""
    last = canonical.rsplit(".", 1)[-1]
    return (last.endswith("_initializer") and not last.endswith("variables_initializer") and last != "tables_initializer") or (
        canonical.startswith(("initializers.", "keras.initializers.")) and canonical.count(".") == 1
    )


# Stateful TF1 random ops: each kernel draws from one stream, run after run (rewrites/random_streams.py).
# the calls setting TF's graph-level seed, which seeds every random op made after it
GRAPH_SEEDS = frozenset({"set_random_seed", "random.set_seed", "random.set_random_seed"})
RANDOM_OPS = frozenset(
    {
        "random_normal",
        "random_uniform",
        "truncated_normal",
        "random_shuffle",
        "random_crop",
        "random_gamma",
        "random_poisson",
        "multinomial",
        "random.normal",
        "random.uniform",
        "random.truncated_normal",
        "random.shuffle",
        "random.categorical",
        "random.gamma",
        "random.poisson",
        "random.multinomial",
    }
)

# where each random op (and dropout, which draws too) takes ``seed`` among its positional
# arguments (``tf.random_normal(shape, mean, stddev, dtype, seed)``)
_SEED_POSITIONS = {
    **dict.fromkeys(("random_normal", "random_uniform", "truncated_normal", "random_gamma"), 4),
    **dict.fromkeys(("random.normal", "random.uniform", "random.truncated_normal", "random.gamma"), 4),
    **dict.fromkeys(("random_shuffle", "random.shuffle"), 1),
    **dict.fromkeys(("random_crop", "multinomial", "random.multinomial"), 2),
    **dict.fromkeys(("random_poisson", "random.poisson", "random.categorical", "nn.dropout", "layers.dropout"), 3),
}


def passes_seed(name: str, positional: int, keywords: Iterable[str | None], starred: bool) -> bool:
    """Does a call of the TF random op ``name`` (with ``positional`` positional arguments and
    ``keywords``, None for ``**``) give it a seed, or may it (``*``/``**`` arguments)?  An op
    not listed is taken to read its seed second."""
    keywords = list(keywords)
    return starred or None in keywords or "seed" in keywords or positional > _SEED_POSITIONS.get(name, 1)


# Graph control flow: traced, both branches are in the graph and a gradient through the
# branch not taken is zeros (TF1's too); run eagerly, a tape sees only the branch taken and
# gives None there (a train step then skips the variable).
CONTROL_FLOW_CALLS = frozenset({"cond", "case", "switch_case", "while_loop"})
# the graph's collections, read by runtime code around the runs (``mv = [v for v in
# tf.global_variables() if "moving" in v.name]`` in a training loop)
GRAPH_STATE_READS = frozenset(
    {
        "get_collection",
        "get_collection_ref",
        "trainable_variables",
        "global_variables",
        "local_variables",
        "all_variables",
        "moving_average_variables",
        "model_variables",
        "get_default_graph",
    }
)
