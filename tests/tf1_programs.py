"""A Hypothesis strategy for random, valid, deterministic TF1 graph-mode programs.

The programs are built from a grammar of what tf2migrate rewrites and of the traps it
must keep (README "What it rewrites", DESIGN "Semantics that must hold"):

- placeholders of several shapes and dtypes (``[None, D]``, ``[B, D]``, unknown shape,
  float64 and int32 read through ``tf.cast``, the int32 one fed floats, scalars, a bool for
  ``tf.cond``) and ``placeholder_with_default``, fed or not;
- variables (``tf.Variable``, ``tf.get_variable``; random initializers with seeds,
  constants, ``trainable=False``);
- elementwise, matmul and reduce ops, ``tf.stop_gradient``, ``tf.cond``, a Python
  global read while the graph is built and rebound before the runs (TF1 read it once),
  ops built between runs, a graph sum started from a plain ``0`` and grown in a loop
  (hp-VPINNs' ``self.loss = 0``);
- ``tf.gradients``: ``[0]``, lists of sources, unpacking, ``grad_ys``, a list of
  targets, second derivatives, sources that are placeholders, variables or computed tensors;
- assign ops (``tf.assign``, ``assign_add``, ``v.assign``): fetched, run with
  ``.eval()`` / ``.op.run()``, dangling, or under ``tf.control_dependencies``;
- optimizers (GradientDescent, Momentum, Adam): ``minimize`` (with ``var_list=``,
  ``global_step=``) and ``compute_gradients`` / ``apply_gradients`` with clipping;
- module helpers that build ops from their arguments (``tf.gradients``, ``tf.cond``,
  ``tf.while_loop`` inside them, a PINN-style residual; a derivative helper's twin nothing
  calls) and a net object (variables made in
  ``__init__``, ops in ``__call__`` or a method, applied once or twice);
- fed hyperparameters: a learning-rate placeholder fed each step (constant or decayed by the
  loop), ``keep_prob`` of ``tf.nn.dropout`` and ``is_training`` of ``tf.layers.dropout``
  (fed 1.0 and False, the values for which dropout is deterministic);
- several ``tf.gradients(u, x_i)[0]`` of one target in a row, with ``grad_ys``, and a
  gradient of one of them again;
- TF1 ``tf.data`` iterators (one-shot, initializable) over ``from_tensor_slices``, batched
  and repeated, whose ``get_next()`` elements feed the graph;
- sessions (``with tf.Session()``, ``sess = tf.Session()``, ``InteractiveSession``, and a
  second session, which initializes the variables again) and runs in loops with single,
  list, tuple and dict fetches, unpacked or not, fetches built in the run, feed dicts built
  inline or named, with values that change per iteration, feeds of computed tensors and of
  variables (TF1 reads the fed value instead), ``.eval()`` and ``.run()``, fetches built in
  the run from Python values, assign ops built in the run (``v.assign(v * 0.5 + 0.1 * i).eval()``),
  a last run binding its value to the name of the tensor it fetches (``t5 = sess.run(t5)``), and a
  session nothing uses, with its ``ConfigProto``, in a ``with tf.device(...)`` block;
- a class whose constructor builds a graph of its own from its parameters (a scale and a loop
  count) with a sum started from ``self.loss = 0``, run by a method after the module's session;
  the scale maybe in a list the caller changes before or after the construction;
- ``tf.losses`` functions (mean squared error, absolute difference, sigmoid and softmax cross
  entropy) with TF1's defaults (converted) or weights, a reduction, label smoothing (kept);
- ``BasicLSTMCell``, ``BasicRNNCell`` (``tf.nn.rnn_cell`` or ``tf.contrib.rnn``) and
  ``MultiRNNCell`` run by ``tf.nn.dynamic_rnn`` (``dtype=`` or a ``zero_state``, time-major or
  not, maybe with a ``sequence_length`` list of 0 to 2 steps a row), their last output or state read;
- a layer helper of the file (``tf.layers.dense`` under ``tf.variable_scope(name, reuse=...)``)
  called twice sharing its weights (``reuse=True``, ``tf.AUTO_REUSE``) or once, maybe on a
  float64 input;
- TF functions passed as values (to a helper, to ``map``, bound to a name first);
- ``tf.layers.dense`` / ``conv2d`` in graph code (cut or averaged to D), maybe applied again by
  ``name=`` and ``reuse=True``, maybe under a ``tf.layers.dropout`` whose ``training`` is fed False;
- layer helpers under variable scopes of their own, each trained over its scope's variables
  (``tf.get_collection(TRAINABLE_VARIABLES, scope=...)``, ``tf.trainable_variables(scope=...)``,
  name filters of ``tf.trainable_variables()``), two of them maybe stepped by one run (disjoint
  variables, as a GAN's generator and discriminator);
- loops whose body is one ``tf.name_scope`` / ``tf.variable_scope`` block making a variable per
  iteration, chained or side by side (TextCNN), the variables maybe listed for an L2 penalty;
- ``tf.py_func`` (keeps the graph on TF1), ``exponential_decay`` of a global step the train op
  increments, a Python value the graph read rebound between two runs;
- constructor locals read by the class's graph code: rebound, a list filled in a loop, ``len``;
- TensorFlow 0.x spellings (``tf.mul``, ``tf.sub``, ``tf.neg``, ``tf.pack``/``unpack``, ``tf.select``,
  ``tf.concat(1, [a, b])``, ``concat_dim=``, ``tf.split(1, n, x)``, positional cross-entropy,
  ``tf.batch_matmul`` with adjoint flags, ``tf.reverse`` of booleans), which the migration upgrades
  first (TFM415; the harness runs the original as TF 1.0 renamed it);
- ``tf.while_loop``, ``tf.cond`` and ``tf.case`` in graph code whose body and branches read variables;
- ``tf.layers.batch_normalization`` of a dense layer of a [batch, D] placeholder, ``training=`` a fed
  ``tf.bool`` flag, trained by a train op under ``tf.control_dependencies(tf.get_collection(UPDATE_OPS))``
  (TFM148): fed True by the train op's runs, False by the others (True in a rare program: kept);
  the fed ``keep_prob``, ``is_training`` and flag placeholders are fetched too;
- a class whose method builds pure ops from the constructor's tensors at every call and runs
  them (DeepVIV's ``predict_drag_lift``, TFM116), or ops reading its argument (kept).
- loops making a layer's variables and ops per iteration, each weight sized by the static shape of
  the layer before (``n_in = int(cur.get_shape()[1])``, ``.as_list()[-1]``, ``int(cur.shape[-1])``;
  TFM133), over a list of widths, its ``enumerate`` or a slice of a named list, the width maybe read
  by the ops too; ``MomentumOptimizer`` (maybe ``use_nesterov=True``) with a fed rate, constant or
  decayed by the loop;
- the graph's first statements (maybe such a loop) built by a module function the script calls
  once at the top level, returning its tensors as a tuple, a single tensor or a dict read by literal
  keys (``net = build()``, ``net['x1']``), maybe sized by a parameter (TFM150, TFM151), or called twice
  (TF1 built the graph twice: kept); or tensors read through a dict display of them made after the
  graph's first statements or after all of it (``model3 = {"x1": x1}``, ``feed_dict={model3['x1']: ...}``;
  TFM151).  The function stays in ``main.py`` of a project.
- one of the graph's first statements under an ``if`` TF1 decided while building the graph (TFM152):
  on a flag or a mode string bound before it, or on the rank of a placeholder declared before it
  (``len(x1.get_shape()) == 2``, ``x1.get_shape()[0].value is None``); the
  branch not taken raises, maybe through an ``elif``; maybe then in a factory's body.
- session 25's: variables of ``tf.get_variable`` and ``tf.layers.dense`` kernels made by TF1's initializer objects
  with seeds (Glorot uniform and normal, variance scaling, truncated and random normal); a ``tf.keras.layers.Dense``
  made in graph code and called once or twice (rare: kept on TF1 today); two train ops of disjoint variables stepped
  by one run; ``tf.summary.scalar`` (a train op's loss) and ``histogram`` merged by ``merge_all``, run (maybe with
  the train op) and written by a ``FileWriter`` with the loop's step, the serialized summaries compared; a
  ``tf.train.Saver`` saving (maybe numbered by ``global_step=``) after one run and restoring after the last, then a
  run; fetches read by index from a list display of the graph's tensors in a loop (``sess.run(fetches[i], feed)``);
  a function of the file running fetches with the feed dict it is given (``evaluate(sess, feed)``), called with a
  dict display bound to a name; a class whose constructor calls a build method (with its parameters, or reading
  them back from ``self``).  Checkpoints and event files go to a directory of the program's own
  (``_workdir``, a name verify does not compare).

A third of the programs with helpers (or a session not opened by ``with``) are projects:
their module-level helpers, layer helpers and classes live in ``helpers.py`` or a package's
``lib/helpers.py``, imported as research code does (``from helpers import f1, Net2``,
``import helpers as H`` with ``H.f1(...)``, ``from helpers import *``), maybe with a session
factory there (``sess = make_session()``: ``tf.Session`` or ``InteractiveSession``, maybe
configured, the initializer run, returned), maybe with a second importer of the helper module
(``wrappers.py``, whose ``via_f1`` main.py calls once in place of ``f1``).

Every fetched value is bound to a module global (``r3``, ``hist2``), which is what
``tf2migrate verify`` compares.  Programs are deterministic: random ops appear only in
initializers of trainable variables, whose initial values verify replays on the TF2
side; a run never fetches a write (an assign or a train step) together with a read of
the variable it writes, whose order TF1 does not define (the loss of a train step
excepted, which tf2migrate keeps as computed before the update).

The simplest choices come first, so a failing program shrinks toward one
placeholder, one op and one run.
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass, field

from hypothesis import strategies as st

D = 3  # the feature width of every [batch, D] tensor
# read by every tensor computed through a tf.while_loop: TF1 has no gradient of a gradient through one
WHILE = "<while_loop>"

UNARY = ["tf.tanh({})", "tf.sigmoid({})", "tf.sin({})", "tf.square({})", "tf.nn.relu({})", "tf.identity({})", "({} * 0.5)"]
REDUCE = ["tf.reduce_sum({})", "tf.reduce_mean({})", "tf.reduce_sum(tf.square({}))", "tf.reduce_max({})"]


@dataclass(frozen=True)
class Tensor:
    """A named graph value: ``kind`` "BD" ([batch, D]), "S" (scalar), or, fetch
    only, "other", "variable" or "list" (a Python list of gradients); ``diff`` the leaves gradients reach it through, ``reads`` every
    placeholder and variable it reads, ``writes`` the variables running it changes."""

    name: str
    kind: str
    diff: frozenset = frozenset()
    reads: frozenset = frozenset()
    writes: frozenset = frozenset()


@dataclass
class Program:
    """A generated program: its source (the script, ``main.py`` of a project) and the grammar
    features it used; a project's other modules by their paths (``helpers.py``, ``lib/helpers.py``)."""

    source: str
    features: set[str] = field(default_factory=set)
    modules: dict[str, str] = field(default_factory=dict)


class _Builder:
    def __init__(self, draw):
        self.draw = draw
        self.graph: list[str] = []  # graph-building statements
        self.out, self.prefix = self.graph, ""  # where op() writes: the graph, or between runs
        self.session: list[str] = []  # statements of the session block
        self.features: set[str] = set()
        self.placeholders: dict[str, Tensor] = {}
        self.fed: dict[str, str] = {}  # placeholder -> kind of value to feed: "BD", "S", "bool"
        self.defaults: set[str] = set()  # placeholder_with_default
        self.variables: dict[str, tuple[str, bool]] = {}  # name -> (shape kind "DD"/"D"/"S", trainable)
        self.tensors: list[Tensor] = []  # operands (BD and S)
        self.fetchable: list[Tensor] = []
        self.writers: list[Tensor] = []  # assign and train ops
        self.defs: list[str] = []  # module functions and classes the graph code calls
        self.inits: list[str] = []  # runs after the variables' initializer (iterator initializers)
        self.hyper: dict[str, str] = {}  # role ("keep", "training") -> its placeholder
        self.counter = 0
        self.batch = draw(st.sampled_from([2, 4]))
        # widths of layer and cell variables, one per production: verify matches variables by shape
        # in creation order, which Keras layers and RNN cells (made at their first call) may change
        self.widths = iter(range(4, 40))
        # layer and cell outputs: a last run fetches them all, so that TF2 makes every variable TF1 made
        # (at their first call; verify wants as many)
        self.latest: list[Tensor] = []
        self.rnn_made = False  # tf.nn.dynamic_rnn's default scope admits one RNN
        # trainable variables no Python name holds (layers', a scoped loop's): pseudo leaves in ``reads``,
        # so that a train op's writes name them
        self.hidden: set[str] = set()
        self.global_step = False  # tf.train.get_or_create_global_step() made
        self.two_d: list[str] = []  # placeholders of a written-out two-element shape (batch normalization's input)
        # batch normalization's fed flag: its pseudo leaf of the moving statistics, which only the train op
        # made under the UPDATE_OPS control dependencies moves (fed True), and the flag's value in other runs
        self.bn_moving = ""
        self.bn_other_runs = "False"
        self.merged: Tensor | None = None  # tf.summary.merge_all() of the summaries made (session 25)
        self.summarized: set[str] = set()  # the tensors those summaries read
        self.workdir = False  # a directory of the program's own for checkpoints and event files

    # -- helpers
    def choice(self, options):
        return self.draw(st.sampled_from(options))

    def flag(self) -> bool:
        return self.draw(st.booleans())

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def feature(self, name: str) -> None:
        self.features.add(name)

    # -- graph
    def placeholder(self) -> None:
        name = self.fresh("x")
        style = self.choice(["none_d", "fixed", "unknown", "float64", "default", "scalar", "int"])
        self.feature(f"placeholder:{style}")
        shape = {"none_d": f"[None, {D}]", "fixed": f"[{self.batch}, {D}]", "float64": f"[None, {D}]"}
        use = name
        kind = "BD"
        leaf = frozenset({name})
        diff = leaf
        if style == "unknown":
            self.graph.append(f"{name} = tf.placeholder(tf.float32)")
        elif style == "float64":
            self.graph.append(f"{name} = tf.placeholder(tf.float64, {shape[style]})")
            use = self.fresh("t")
            self.graph.append(f"{use} = tf.cast({name}, tf.float32)")
        elif style == "default":
            value = self.choice(["0.5", "-0.25"])
            self.graph.append(f"{name} = tf.placeholder_with_default(np.full(({self.batch}, {D}), {value}, np.float32), [None, {D}])")
            self.defaults.add(name)
        elif style == "scalar":
            self.graph.append(f"{name} = tf.placeholder(tf.float32, [])")
            kind = "S"
        elif style == "int":  # fed floats, which the feed truncates; no gradient flows from it
            self.graph.append(f"{name} = tf.placeholder(tf.int32, [None, {D}])")
            use = self.fresh("t")
            self.graph.append(f"{use} = tf.cast({name}, tf.float32) * 0.5")
            diff = frozenset()
        else:
            self.graph.append(f"{name} = tf.placeholder(tf.float32, {shape[style]})")
            if style in ("none_d", "fixed"):
                self.two_d.append(name)
        self.fed[name] = "int" if style == "int" else kind
        self.placeholders[name] = Tensor(name, kind, diff, leaf)
        self.tensors.append(Tensor(use, kind, diff, leaf))
        self.fetchable.append(Tensor(name, "placeholder", frozenset(), leaf))

    def variable(self) -> None:
        name = self.fresh("v")
        shape = self.choice(["DD", "D", "S"])
        dims = {"DD": f"[{D}, {D}]", "D": f"[{D}]", "S": "[]"}[shape]
        trainable = self.draw(st.integers(0, 4)) > 0
        seed = self.draw(st.integers(1, 99))
        if not trainable:  # not replayed by verify: a deterministic value
            self.feature("variable:non-trainable")
            self.graph.append(f"{name} = tf.Variable(tf.ones({dims}) * 0.3, trainable=False)")
        else:
            style = self.choice(["normal", "get_variable", "uniform", "numpy", "truncated"])
            self.feature(f"variable:{style}")
            self.graph.append(
                f"{name} = "
                + {
                    "normal": f"tf.Variable(tf.random_normal({dims}, stddev=0.5, seed={seed}))",
                    "get_variable": f'tf.get_variable("{name}", {dims}, initializer=tf.random_uniform_initializer(-0.5, 0.5, seed={seed}))',
                    "uniform": f"tf.Variable(tf.random_uniform({dims}, -0.5, 0.5, seed={seed}))",
                    "numpy": f"tf.Variable(np.full({dims}, {seed / 100}, np.float32))",
                    "truncated": f"tf.Variable(tf.truncated_normal({dims}, stddev=0.3, seed={seed}))",
                }[style]
            )
        self.variables[name] = (shape, trainable)
        leaf = frozenset({name})
        if shape == "S":
            self.tensors.append(Tensor(name, "S", leaf if trainable else frozenset(), leaf))
        self.fetchable.append(Tensor(name, "variable", frozenset(), leaf))

    def operand(self, kind: str) -> Tensor | None:
        candidates = [t for t in self.tensors if t.kind == kind]
        return self.choice(candidates) if candidates else None

    def op(self) -> None:
        a = self.operand("BD")
        if a is None:
            return
        form = self.choice(
            [
                "unary",
                "matmul",
                "reduce",
                "bias",
                "binary",
                "scale",
                "stop_gradient",
                "cond",
                "python",
                "dropout",
                "layers_dropout",
                "sum",
                "function_value",
                "variable_free_scope",
            ]
        )
        if form in ("sum", "function_value", "variable_free_scope") and self.out is not self.graph:
            form = "reduce"  # (between runs: a loop there is session code; a definition is module code)
        if form == "function_value":
            self.function_value(a)
            return
        if form == "variable_free_scope":
            self.variable_free_scope(a)
            return
        if form == "sum":  # a graph sum started from a plain value (hp-VPINNs' ``self.loss = 0``)
            self.feature("op:sum-from-zero")
            name = self.fresh("s")
            # (the loop variable starts with "_": a build-time value verify does not compare)
            self.graph += [f"{name} = 0", "for _k in range(2):", f"    {name} = {name} + tf.reduce_mean({a.name}) * (_k + 1.0)"]
            tensor = Tensor(name, "S", a.diff, a.reads)  # (rebound: no gradient source itself)
            self.tensors.append(tensor)
            self.fetchable.append(tensor)
            return
        self.feature(f"op:{form}")
        name, kind, diff, reads, text = self.fresh("t"), "BD", a.diff, a.reads, ""
        if form == "unary":
            text = self.choice(UNARY).format(a.name)
        elif form == "matmul" or form == "bias":
            wanted = "DD" if form == "matmul" else "D"
            variables = [v for v, (shape, _) in self.variables.items() if shape == wanted]
            if not variables:
                form, text = "unary", self.choice(UNARY).format(a.name)
            else:
                w = self.choice(variables)
                text = f"tf.matmul({a.name}, {w})" if form == "matmul" else f"{a.name} + {w}"
                reads = reads | {w}
                diff = diff | ({w} if self.variables[w][1] else set())
        elif form == "reduce":
            kind, text = "S", self.choice(REDUCE).format(a.name)
        elif form == "binary":
            b = self.operand(self.choice(["BD", "S"])) or a
            text = f"{a.name} {self.choice(['+', '-', '*'])} {b.name}"
            diff, reads = diff | b.diff, reads | b.reads
        elif form == "scale":
            text = f"{a.name} * {self.choice(['2.0', '-0.5', 'tf.constant(1.5)'])}"
        elif form == "stop_gradient":
            text, diff = f"tf.stop_gradient({a.name})", frozenset()
        elif form == "cond":
            b = self.operand("BD") or a
            predicate = self.predicate()
            text = f"tf.cond({predicate.name}, lambda: {self.choice(UNARY).format(a.name)}, lambda: {b.name} * 2.0)"
            diff, reads = diff | b.diff, reads | b.reads | predicate.reads
        elif form == "dropout":  # keep_prob fed 1.0: the identity, as a deterministic test needs
            keep = self.hyperparameter("keep")
            text, reads = f"tf.nn.dropout({a.name}, {keep})", reads | {keep}
        elif form == "layers_dropout":  # is_training fed False
            training = self.hyperparameter("training")
            text, reads = f"tf.layers.dropout({a.name}, rate=0.5, training={training})", reads | {training}
        else:  # a Python value read while the graph is built
            self.feature("python-global")
            text = f"{a.name} * scale"
        self.out.append(f"{self.prefix}{name} = {text}")
        # a gradient may be taken with respect to this tensor itself (a source that is no leaf)
        own = {name} if diff and self.out is self.graph else set()
        tensor = Tensor(name, kind, frozenset(diff) | own, frozenset(reads))
        self.tensors.append(tensor)
        self.fetchable.append(tensor)

    def variable_free_scope(self, a: Tensor) -> None:
        """Ops named by a variable scope that makes no variable (TFM130 writes it as the name
        scope it opened): in the graph code, or in a helper whose scope name is a parameter
        with a string default (pkmital's ``lrelu``), called once or twice (``lrelu_1``)."""
        style = self.choice(["block", "helper", "helper_named"])
        self.feature(f"op:variable-free-scope:{style}")
        if style == "block":
            name = self.fresh("t")
            scope = self.fresh("block")
            self.graph += [f'with tf.variable_scope("{scope}"):', f"    {name} = {self.choice(UNARY).format(a.name)} * 0.5"]
            tensor = Tensor(name, "BD", a.diff | ({name} if a.diff else set()), a.reads)
            self.tensors.append(tensor)
            self.fetchable.append(tensor)
            return
        helper = self.fresh("lrelu")
        self.defs += [
            f'def {helper}(x, leak=0.2, name="{helper}"):',
            "    with tf.variable_scope(name):",
            "        return tf.maximum(x, leak * x)",
            "",
        ]
        text = f'{helper}({a.name}, name="{self.fresh("act")}")' if style == "helper_named" else f"{helper}({a.name})"
        self.new_tensor(self.fresh("t"), text, a.diff, a.reads)
        if self.flag():  # called again: TF1 made the scope's name unique (``lrelu_1``)
            self.new_tensor(self.fresh("t"), f"{helper}({a.name} * 2.0)", a.diff, a.reads)

    def function_value(self, a: Tensor) -> None:
        """A TF function passed around as a value: to a helper of the file, to ``map``, or
        bound to a name first (the renames must keep each one the same function)."""
        style = self.choice(["helper", "map", "alias"])
        self.feature(f"op:function-value:{style}")
        function = self.choice(["tf.nn.relu", "tf.square", "tf.tanh", "tf.nn.softmax", "tf.sigmoid"])
        if style == "helper":
            helper = self.fresh("apply")
            self.defs += [f"def {helper}(f, a):", "    return f(a) * 0.5", ""]
            self.new_tensor(self.fresh("t"), f"{helper}({function}, {a.name})", a.diff, a.reads)
        elif style == "map":
            b = self.operand("BD") or a
            first, second = self.fresh("t"), self.fresh("t")
            self.graph.append(f"{first}, {second} = map({function}, [{a.name}, {b.name}])")
            for name, operand in ((first, a), (second, b)):
                tensor = Tensor(name, "BD", operand.diff | ({name} if operand.diff else set()), operand.reads)
                self.tensors.append(tensor)
                self.fetchable.append(tensor)
        else:
            alias = self.fresh("fn")
            self.graph.append(f"{alias} = {function}")
            self.new_tensor(self.fresh("t"), f"{alias}({a.name})", a.diff, a.reads)

    # -- what the last release rewrites: tf.losses, RNN cells, layer helpers
    def loss(self) -> None:
        """A ``tf.losses`` function of two [batch, D] tensors: with TF1's default weights and
        reduction (converted, TFM402) or not (``tf.compat.v1.losses`` kept, TFM401)."""
        predictions, labels = self.operand("BD"), self.operand("BD")
        if predictions is None or labels is None:
            return
        function = self.choice(["mean_squared_error", "absolute_difference", "sigmoid_cross_entropy", "softmax_cross_entropy"])
        label_word, prediction_word = {
            "mean_squared_error": ("labels", "predictions"),
            "absolute_difference": ("labels", "predictions"),
            "sigmoid_cross_entropy": ("multi_class_labels", "logits"),
            "softmax_cross_entropy": ("onehot_labels", "logits"),
        }[function]
        extra = self.choice(["", "", "weights=0.5", "weights=2.0", "reduction=tf.losses.Reduction.SUM"])
        if function.endswith("cross_entropy") and self.draw(st.integers(0, 4)) == 0:
            extra = "label_smoothing=0.1"
        label_text = labels.name if self.flag() else f"tf.sigmoid({labels.name})"
        self.feature(f"losses:{function}{':' + extra.split('=')[0] if extra else ''}")
        arguments = (
            [f"{label_word}={label_text}", f"{prediction_word}={predictions.name}"] if self.flag() else [label_text, predictions.name]
        ) + ([extra] if extra else [])
        name = self.fresh("loss")
        self.graph.append(f"{name} = tf.losses.{function}({', '.join(arguments)})")
        # (TF1's softmax_cross_entropy stops the labels' gradient: no source reaches the loss through them)
        diff = predictions.diff | (labels.diff if function != "softmax_cross_entropy" else frozenset())
        tensor = Tensor(name, "S", diff, predictions.reads | labels.reads)
        self.tensors.append(tensor)
        self.fetchable.append(tensor)

    def rnn(self) -> None:
        """A BasicLSTMCell, BasicRNNCell or MultiRNNCell run by ``tf.nn.dynamic_rnn`` over a
        two-step sequence made of a [batch, D] tensor; its last output or state, cut to D."""
        a = self.operand("BD")
        if a is None or self.rnn_made:  # (a second one would need a scope of its own)
            return
        self.rnn_made = True
        width = next(self.widths)
        kind = self.choice(["lstm", "rnn", "multi", "contrib_lstm"])
        time_major, zero_state = self.flag(), self.draw(st.integers(0, 2)) == 0
        self.feature(f"rnn:{kind}{':time_major' if time_major else ''}{':zero_state' if zero_state else ''}")
        cell, outputs, state, sequence = self.fresh("cell"), self.fresh("outputs"), self.fresh("state"), self.fresh("seq")
        make = {
            "lstm": f"tf.nn.rnn_cell.BasicLSTMCell({width})",
            "rnn": f"tf.nn.rnn_cell.BasicRNNCell({width})",
            "multi": f"tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell({width}) for _ in range(2)])",
            "contrib_lstm": f"tf.contrib.rnn.BasicLSTMCell({width}, forget_bias=0.5)",
        }[kind]
        self.graph.append(f"{cell} = {make}")
        # (a known last dimension whatever the operand's shape: dynamic_rnn needs it)
        steps = f"tf.reshape(tf.concat([{a.name}, {a.name} * 0.5], 1), [-1, 2, {D}])"
        self.graph.append(f"{sequence} = {'tf.transpose(' + steps + ', [1, 0, 2])' if time_major else steps}")
        start = f"initial_state={cell}.zero_state({self.batch}, tf.float32)" if zero_state else "dtype=tf.float32"
        if self.flag():  # rows past their length: zero outputs, the state of their last step
            lengths = self.draw(st.lists(st.integers(0, 2), min_size=self.batch, max_size=self.batch))
            self.feature("rnn:sequence_length")
            start += f", sequence_length={lengths}"
        self.graph.append(f"{outputs}, {state} = tf.nn.dynamic_rnn({cell}, {sequence}, {start}{', time_major=True' if time_major else ''})")
        last = {"lstm": f"{state}.h", "contrib_lstm": f"{state}.c", "rnn": state, "multi": f"{state}[-1].h"}[kind]
        if self.flag():
            last = f"{outputs}[-1]" if time_major else f"{outputs}[:, -1]"
        # (a gradient of a gradient through the time loop: TF1 raises, as for tf.while_loop)
        self.new_tensor(self.fresh("t"), f"{last}[:, :{D}]", a.diff, a.reads | {WHILE})
        self.latest.append(self.tensors[-1])

    def layer_helper(self) -> None:
        """A function of the file building ``tf.layers.dense`` layers under
        ``tf.variable_scope(name, reuse=reuse)``, called twice sharing its weights (or once)."""
        a = self.operand("BD")
        if a is None:
            return
        helper, width = self.fresh("layers"), next(self.widths)
        form = self.choice(["reuse_true", "auto_reuse", "once"])
        activation = self.choice(["tf.nn.relu", "tf.nn.tanh", "tf.sigmoid", "None"])
        float64 = self.draw(st.integers(0, 5)) == 0
        self.feature(f"layers:{form}{':float64' if float64 else ''}")
        self.defs += [
            f"def {helper}(x, reuse):",
            f'    with tf.variable_scope("{helper}", reuse=reuse):',
            f"        h = tf.layers.dense(x, {width}, activation={activation})",
            f"        return tf.layers.dense(h, {D}, use_bias=False)",
            "",
        ]
        operands = [a] + ([self.operand("BD") or a] if form != "once" else [])
        for index, operand in enumerate(operands):
            # (a known last dimension whatever the operand's shape: Dense needs it)
            x = f"tf.reshape({operand.name}, [-1, {D}])"
            reuse = "False" if index == 0 else "True"
            if form == "auto_reuse":
                reuse = "tf.AUTO_REUSE"
            text = f"{helper}({x}, reuse={reuse})"
            if float64:  # TF1's layers follow their input's dtype
                text = f"tf.cast({helper}(tf.cast({x}, tf.float64), reuse={reuse}), tf.float32)"
            self.new_tensor(self.fresh("t"), text, operand.diff, operand.reads)
            self.latest.append(self.tensors[-1])

    def graph_layer(self) -> None:
        """``tf.layers.dense`` or ``tf.layers.conv2d`` in graph code (Keras layers made once after
        migration), maybe applied again by ``name=`` and ``reuse=True``, maybe followed by a
        ``tf.layers.dropout`` whose ``training`` is fed False."""
        a = self.operand("BD")
        if a is None:
            return
        width, layer = next(self.widths), self.fresh("layer")
        kind = self.choice(["dense", "conv2d", "conv2d_same"])
        activation = self.choice(["tf.nn.relu", "tf.nn.tanh", "None"])
        again = self.draw(st.integers(0, 2)) == 0
        self.feature(f"graph-layers:{kind}{':reused-by-name' if again else ''}")
        hidden = f"{layer}/*"
        self.hidden.add(hidden)
        for index, operand in enumerate([a] + ([self.operand("BD") or a] if again else [])):
            reuse = ", reuse=True" if index else ""
            if kind == "dense":  # (a width of its own, cut to D: verify matches variables by shape)
                x = f"tf.reshape({operand.name}, [-1, {D}])"
                text = f'tf.layers.dense({x}, {width}, activation={activation}, name="{layer}"{reuse})[:, :{D}]'
            else:  # [batch, D, 1, 1] images, averaged over the channels
                x = f"tf.reshape({operand.name}, [-1, {D}, 1, 1])"
                size = "1" if kind == "conv2d" else '(3, 1), padding="same"'
                conv = f'tf.layers.conv2d({x}, {width}, {size}, activation={activation}, name="{layer}"{reuse})'
                text = f"tf.reduce_mean({conv}, axis=[2, 3])"
            if not again and self.draw(st.integers(0, 2)) == 0:
                training = self.hyperparameter("training")
                self.feature("graph-layers:dropout-training-fed")
                text = f"tf.layers.dropout({text}, rate=0.3, training={training})"
                operand = Tensor(operand.name, operand.kind, operand.diff, operand.reads | {training})
            self.new_tensor(self.fresh("t"), text, operand.diff, operand.reads | {hidden})
            self.latest.append(self.tensors[-1])

    def scoped_training(self) -> None:
        """One or two layer helpers under variable scopes of their own, each trained by an optimizer
        whose ``var_list`` is its scope's variables (``tf.get_collection(TRAINABLE_VARIABLES,
        scope=...)``, ``tf.trainable_variables()`` filtered by name); two of them may be stepped by
        one run (a GAN's generator and discriminator), their losses reading disjoint variables."""
        operands = [t for t in self.tensors if t.kind == "BD" and not (t.reads & self.hidden) and WHILE not in t.reads]
        if not operands:
            return
        count = self.draw(st.integers(1, 2))
        trains = []
        for _ in range(count):
            a = self.choice(operands)
            helper = self.fresh("net")
            scope, width = f"{helper}_scope", next(self.widths)
            activation = self.choice(["tf.nn.relu", "tf.nn.tanh", "None"])
            reuse = self.flag()
            self.defs += [
                f"def {helper}(x{', reuse=False' if reuse else ''}):",
                f'    with tf.variable_scope("{scope}"{", reuse=reuse" if reuse else ""}):',
                f"        h = tf.layers.dense(x, {width}, activation={activation})",
                f"        return tf.layers.dense(h, {D})",
                "",
            ]
            hidden = f"{scope}/*"
            self.hidden.add(hidden)
            out, loss = self.fresh("t"), self.fresh("loss")
            self.new_tensor(out, f"{helper}(tf.reshape({a.name}, [-1, {D}]))", a.diff, a.reads | {hidden})
            self.latest.append(self.tensors[-1])
            if reuse and self.flag():  # applied again, sharing the variables
                self.feature("scoped-training:reused")
                b = self.choice(operands)
                self.new_tensor(self.fresh("t"), f"{helper}(tf.reshape({b.name}, [-1, {D}]), reuse=True)", b.diff, b.reads | {hidden})
            self.graph.append(f"{loss} = tf.reduce_mean(tf.square({out} - 0.5))")
            tensor = Tensor(loss, "S", frozenset(), a.reads | {hidden})
            self.tensors.append(tensor)
            self.fetchable.append(tensor)
            listing = self.choice(["collection", "trainable_scope", "name_filter", "op_name_filter"])
            self.feature(f"scoped-training:var_list:{listing}")
            variables = self.fresh("vars")
            self.graph.append(
                f"{variables} = "
                + {
                    "collection": f'tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="{scope}")',
                    "trainable_scope": f'tf.trainable_variables(scope="{scope}")',
                    "name_filter": f'[v for v in tf.trainable_variables() if v.name.startswith("{scope}/")]',
                    "op_name_filter": f'[v for v in tf.trainable_variables() if "{scope}" in v.op.name]',
                }[listing]
            )
            kind = self.choice(["GradientDescent", "Adam", "Momentum"])
            make = {
                "GradientDescent": "tf.train.GradientDescentOptimizer(0.05)",
                "Momentum": "tf.train.MomentumOptimizer(0.05, 0.9)",
                "Adam": "tf.train.AdamOptimizer(0.01)",
            }[kind]
            train = self.fresh("train")
            self.graph.append(f"{train} = {make}.minimize({loss}, var_list={variables})")
            trains.append(Tensor(train, "train", frozenset({loss}), tensor.reads, frozenset({hidden})))
        self.writers += trains
        if count == 2 and not (trains[0].reads & trains[1].writes) and not (trains[1].reads & trains[0].writes):
            self.feature("scoped-training:joint-run")
            joint = Tensor(
                f"{trains[0].name}, {trains[1].name}",
                "joint",
                frozenset({next(iter(t.diff)) for t in trains}),
                trains[0].reads | trains[1].reads,
                trains[0].writes | trains[1].writes,
            )
            self.writers += [joint, joint]

    def scoped_loop(self) -> None:
        """A loop whose body is one ``tf.name_scope`` / ``tf.variable_scope`` block making a variable
        per iteration and applying it (dennybritz's TextCNN), the variables maybe kept in a list an
        L2 penalty reads."""
        a = self.operand("BD")
        if a is None:
            return
        scope = self.choice(["name_scope", "variable_scope", "variable_scope_get"])
        listed = self.flag()
        # chained (each iteration applies its variable to the last one's output) or side by side,
        # the outputs appended to a list and summed (TextCNN's pooled outputs)
        chained = self.flag()
        self.feature(f"scoped-loop:{scope}{':list' if listed else ''}{':chained' if chained else ':side-by-side'}")
        h, ws, seed = self.fresh("h"), self.fresh("ws"), self.draw(st.integers(1, 90))
        block = f"block{self.counter}"
        made = (
            f'tf.get_variable("w", [{D}, {D}], initializer=tf.random_uniform_initializer(-0.5, 0.5, seed={seed} + _k))'
            if scope == "variable_scope_get"
            else f"tf.Variable(tf.random_normal([{D}, {D}], stddev=0.5, seed={seed} + _k))"
        )
        opener = "tf.name_scope" if scope == "name_scope" else "tf.variable_scope"
        self.graph += [f"{ws} = []"] if listed else []
        outs = self.fresh("outs")
        self.graph += [f"{h} = {a.name}"] if chained else [f"{outs} = []"]
        self.graph += [
            f"for _k in range({self.draw(st.integers(1, 3))}):",
            f'    with {opener}("{block}_%d" % _k):',
            f"        w = {made}",
            f"        {h} = tf.tanh(tf.matmul({h}, w))" if chained else f"        {outs}.append(tf.tanh(tf.matmul({a.name}, w)))",
        ]
        hidden = f"{block}/*"
        self.hidden.add(hidden)
        # (rebound: no gradient source itself)
        tensor = Tensor(h, "BD", a.diff, a.reads | {hidden})
        self.tensors.append(tensor)
        self.fetchable.append(tensor)
        if listed:
            self.graph.append(f"        {ws}.append(w)")
        if not chained:
            self.graph.append(f"{h} = tf.add_n({outs})")
        if listed:
            penalty = self.fresh("s")
            self.graph.append(f"{penalty} = tf.add_n([tf.reduce_sum(tf.square(w)) for w in {ws}]) * 0.01")
            tensor = Tensor(penalty, "S", frozenset(), frozenset({hidden}))
            self.tensors.append(tensor)
            self.fetchable.append(tensor)

    # -- session 19's: loops sized by static shapes (graph factories and dicts of tensors: _factory, _tensor_dict)
    def mlp_loop(self) -> None:
        """A loop making a layer's variables and ops per iteration, each weight sized by the static
        shape of the layer before (``n_in = int(cur.get_shape()[1])``, ``.as_list()[-1]``; pkmital's
        autoencoders, TFM133): over a list of widths, ``enumerate`` of one, or a slice of a named
        one; the width maybe read by the ops too (``tf.reshape(cur, [-1, n_in])``)."""
        a = self.operand("BD")
        if a is None:
            return
        number = self.counter + 1
        cur, w, bias, n_in, n_out = (f"{name}{number}" for name in ("h", "W", "b", "n_in", "n_out"))
        self.counter = number
        widths = [next(self.widths) for _ in range(self.draw(st.integers(0, 2)))] + [D]
        header = self.choice(["list", "enumerate", "named"])
        read = self.choice(["int_index", "as_list", "int_shape"])
        carried, biased = self.draw(st.integers(0, 3)) == 0, self.flag()
        activation = self.choice(["tf.nn.tanh", "tf.nn.relu", "tf.sigmoid"])
        self.feature(f"mlp-loop:{header}:{read}{':carried' if carried else ''}{':bias' if biased else ''}")
        seed = self.draw(st.integers(1, 90))
        # (a known last dimension whatever the operand's shape: TF1 fixed n_in from it)
        start = a.name if a.name in self.two_d else f"tf.reshape({a.name}, [-1, {D}])"
        if header == "named":
            self.graph.append(f"dims{number} = {[D, *widths]}")
        self.graph.append(f"{cur} = {start}")
        self.graph.append(
            {
                "list": f"for {n_out} in {widths}:",
                "enumerate": f"for layer{number}, {n_out} in enumerate({widths}):",
                "named": f"for layer{number}, {n_out} in enumerate(dims{number}[1:]):",
            }[header]
        )
        self.graph.append(
            "    "
            + {
                "int_index": f"{n_in} = int({cur}.get_shape()[1])",
                "as_list": f"{n_in} = {cur}.get_shape().as_list()[-1]",
                "int_shape": f"{n_in} = int({cur}.shape[-1])",
            }[read]
        )
        layer_seed = f"{seed}" if header == "list" else f"{seed} + layer{number}"
        self.graph.append(f"    {w} = tf.Variable(tf.random_normal([{n_in}, {n_out}], stddev=0.5, seed={layer_seed}))")
        if biased:
            self.graph.append(f"    {bias} = tf.Variable(tf.zeros([{n_out}]))")
        operand = f"tf.reshape({cur}, [-1, {n_in}])" if carried else cur
        self.graph.append(f"    {cur} = {activation}(tf.matmul({operand}, {w}){' + ' + bias if biased else ''})")
        hidden = f"mlp{number}/*"
        self.hidden.add(hidden)
        # (rebound: no gradient source itself)
        tensor = Tensor(cur, "BD", a.diff, a.reads | {hidden})
        self.tensors.append(tensor)
        self.fetchable.append(tensor)

    # -- session 18: TensorFlow 0.x spellings, control flow reading variables, batch normalization
    def zero_x(self) -> None:
        """An op written as TensorFlow 0.x spelled it (``tf.mul``, ``tf.concat(1, [a, b])``,
        ``tf.split(1, n, x)``, positional cross-entropy, ``tf.batch_matmul`` with adjoint flags,
        ``tf.reverse`` of booleans): the migration upgrades them first (TFM415); the harness runs
        the original as TF 1.0 renamed it."""
        a = self.operand("BD")
        if a is None:
            return
        b = self.operand("BD") or a
        style = self.choice(
            ["mul", "sub", "neg", "pack", "unpack", "concat", "concat_dim", "split", "select", "reverse"]
            + ["softmax_xent", "sigmoid_xent", "sparse_xent", "batch_matmul", "batch_matmul_positional"]
        )
        self.feature(f"pre-1.0:{style}")
        both, reads, kind = a.diff | b.diff, a.reads | b.reads, "BD"
        diff = both
        if style == "mul":
            text = f"tf.mul({a.name}, {b.name})"
        elif style == "sub":
            text = f"tf.sub({a.name}, {b.name} * 0.5)"
        elif style == "neg":
            text, diff, reads = f"tf.neg({a.name})", a.diff, a.reads
        elif style == "pack":
            text = f"tf.reduce_sum(tf.pack([{a.name}, {b.name} * 0.5]), 0)"
        elif style == "unpack":
            # (of known rank whatever the operands' shapes: TF1's unpack infers its count from the static shape)
            pair = f"tf.pack([tf.tanh(tf.reshape({a.name}, [-1, {D}])), tf.reshape({b.name}, [-1, {D}])])"
            text = f"tf.unpack({pair})[{self.choice(['0', '1'])}]"
        elif style == "concat":
            text = f"tf.concat(1, [{a.name}, {b.name}])[:, 1:{D + 1}]"
        elif style == "concat_dim":
            text = f"tf.concat(concat_dim=1, values=[{b.name}, {a.name}])[:, 2:{D + 2}]"
        elif style == "split":
            text, diff, reads = f"tf.concat(1, tf.split(1, {D}, {a.name})[::-1])", a.diff, a.reads
        elif style == "select":
            text = f"tf.select({a.name} > 0.0, {a.name}, {b.name} * 2.0)"
        elif style == "reverse":
            text, diff, reads = f"tf.reverse({a.name}, [False, True])", a.diff, a.reads
        elif style == "softmax_xent":  # (TF1 stops the labels' gradient)
            kind, diff = "S", a.diff
            text = f"tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits({a.name}, tf.nn.softmax({b.name})))"
        elif style == "sigmoid_xent":
            text = f"tf.nn.sigmoid_cross_entropy_with_logits({a.name}, {self.choice(['', 'targets='])}tf.sigmoid({b.name}))"
        elif style == "sparse_xent":  # (TF1 has no second derivative of it: read as a while loop's)
            kind, diff, reads = "S", a.diff, reads | {WHILE}
            text = f"tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits({a.name}, tf.cast(tf.argmax({b.name}, 1), tf.int32)))"
        elif style == "batch_matmul":  # [batch, D, 1] x [batch, D, 1] adjoint: [batch, D, D], summed to [batch, D]
            left, right = (f"tf.reshape({t.name}, [-1, {D}, 1])" for t in (a, b))
            text = f"tf.reduce_sum(tf.batch_matmul({left}, {right}, adj_y=True), 2)"
        else:  # [batch, 1, D] adjoint x [batch, 1, D]
            left, right = (f"tf.reshape({t.name}, [-1, 1, {D}])" for t in (a, b))
            text = f"tf.reduce_sum(tf.batch_matmul({left}, {right}, True, False), 1)"
        name = self.fresh("t")
        self.graph.append(f"{name} = {text}")
        tensor = Tensor(name, kind, frozenset(diff) | ({name} if diff else set()), frozenset(reads))
        self.tensors.append(tensor)
        self.fetchable.append(tensor)

    def control_flow(self) -> None:
        """``tf.while_loop``, ``tf.cond`` or ``tf.case`` in graph code, their branches and body reading
        variables of the file (a trainable one: gradients flow to it through the control flow)."""
        a = self.operand("BD")
        if a is None:
            return
        style = self.choice(["while", "cond", "case"])
        matrices = [v for v, (shape, _) in self.variables.items() if shape == "DD"]
        others = [v for v, (shape, _) in self.variables.items() if shape in ("D", "S")]
        read = []
        if matrices:
            read.append(self.choice(matrices))
        if others:
            read.append(self.choice(others))
        self.feature(f"control-flow:{style}:{len(read)}-variables")

        def use(z: str, index: int) -> str:
            if index < len(read) and read[index] in matrices:
                return f"tf.tanh(tf.matmul({z}, {read[index]}))"
            if index < len(read):
                return f"{z} * {read[index]} + 0.1"
            return f"tf.tanh({z}) * 0.9"

        reads = a.reads | frozenset(read)
        diff = a.diff | frozenset(v for v in read if self.variables[v][1])
        if style == "while":
            body = use("z", 0)
            if len(read) > 1:
                body = use(body, 1)
            steps = self.draw(st.integers(1, 3))
            text = f"tf.while_loop(lambda i, z: i < {steps}, lambda i, z: (i + 1, {body}), (tf.constant(0), {a.name}))[1]"
            reads = reads | {WHILE}
        elif style == "cond":
            predicate = self.predicate()
            text = f"tf.cond({predicate.name}, lambda: {use(a.name, 0)}, lambda: {use(a.name, 1)})"
            reads = reads | predicate.reads
        else:
            first, second = self.predicate(), self.predicate()
            text = (
                f"tf.case([({first.name}, lambda: {use(a.name, 0)}), ({second.name}, lambda: {use(a.name, 1)})], "
                f"default=lambda: {a.name} * 0.5)"
            )
            reads = reads | first.reads | second.reads
        self.new_tensor(self.fresh("t"), text, diff, reads)

    def batch_norm(self) -> None:
        """``tf.layers.batch_normalization`` of a dense layer of a [batch, D] placeholder, its
        ``training=`` a fed ``tf.bool`` placeholder, trained by a train op made under
        ``tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS))`` (TFM148): runs of the
        train op feed the flag True, the others False, or True in a rare program (whose moving
        statistics then do not move: kept on TF1)."""
        if self.bn_moving or not self.two_d:
            return
        x = self.choice(self.two_d)
        flag, h, normed, out = "bn_training", self.fresh("h"), self.fresh("normed"), self.fresh("t")
        width = next(self.widths)
        self.bn_moving = f"{normed}:moving"
        hidden = f"{normed}/*"
        self.hidden.add(hidden)
        self.graph.append(f"{flag} = tf.placeholder(tf.bool{', []' if self.flag() else ''})")
        self.fed[flag] = "bn"
        self.placeholders[flag] = Tensor(flag, "bn", frozenset(), frozenset({flag}))
        self.fetchable.append(Tensor(flag, "placeholder", frozenset(), frozenset({flag})))
        if self.draw(st.integers(0, 4)) == 4:  # (rare, and not the simplest choice: kept on TF1)
            self.bn_other_runs = "True"
            self.feature("batch-norm:true-without-train-op")
        arguments = self.choice(["", ", momentum=0.9", ", momentum=0.5, epsilon=0.01"])
        head = self.choice(["slice", "dense"])
        self.feature(f"batch-norm:{head}{':momentum' if arguments else ''}")
        # (a linear layer's bias before the normalization gets a gradient of rounding noise only, which Adam
        # scales to whole steps, differently in each runtime: use_bias=False, as such models write it)
        linear = self.choice(["activation=tf.nn.relu", "activation=None, use_bias=False"])
        self.graph.append(f"{h} = tf.layers.dense({x}, {width}, {linear})")
        self.graph.append(f"{normed} = tf.layers.batch_normalization({h}, training={flag}{arguments})")
        text = f"{normed}[:, :{D}]" if head == "slice" else f"tf.layers.dense(tf.nn.relu({normed}), {D})"
        reads = self.placeholders[x].reads | {flag, hidden, self.bn_moving}
        self.new_tensor(out, text, self.placeholders[x].diff, reads)
        self.latest.append(self.tensors[-1])
        loss, updates, train = self.fresh("loss"), self.fresh("update_ops"), self.fresh("train")
        self.graph.append(f"{loss} = tf.reduce_mean(tf.square({out} - 0.5))")
        loss_tensor = Tensor(loss, "S", frozenset(), frozenset(reads))
        self.tensors.append(loss_tensor)
        self.fetchable.append(loss_tensor)
        make = self.choice(
            ["tf.train.GradientDescentOptimizer(0.1)", "tf.train.AdamOptimizer(0.01)", "tf.train.MomentumOptimizer(0.05, 0.9)"]
        )
        self.graph += [
            f"{updates} = tf.get_collection(tf.GraphKeys.UPDATE_OPS)",
            f"with tf.control_dependencies({updates}):",
            f"    {train} = {make}.minimize({loss})",
        ]
        self.writers.append(Tensor(train, "train", frozenset({loss}), frozenset(reads), self.trainable() | {self.bn_moving}))

    def py_func(self) -> None:
        """``tf.py_func`` of a NumPy function of the file (``tf.numpy_function`` in TF2; the graph
        stays on TF1); no gradient flows through it."""
        a = self.operand("BD")
        if a is None:
            return
        function, style = self.fresh("np_op"), self.choice(["def", "lambda"])
        self.feature(f"py_func:{style}")
        if style == "def":
            self.defs += [f"def {function}(z):", "    return (np.tanh(z) * 0.5).astype(np.float32)", ""]
        else:
            function = "lambda z: (z * 2.0 + 1.0).astype(np.float32)"
        self.new_tensor(self.fresh("t"), f"tf.reshape(tf.py_func({function}, [{a.name}], tf.float32), [-1, {D}])", frozenset(), a.reads)

    def hyperparameter(self, role: str) -> str:
        """The fed ``keep_prob`` or ``is_training`` placeholder, made on first use; fed only the
        value that makes dropout the identity (1.0, False), since masks are random."""
        if role not in self.hyper:
            name = self.hyper[role] = {"keep": "keep_prob", "training": "is_training"}[role]
            default = self.flag()
            self.feature(f"hyper:{role}{':default' if default else ''}")
            dtype, value = ("tf.float32", "1.0") if role == "keep" else ("tf.bool", "False")
            made = f"tf.placeholder_with_default({value}, [])" if default else f"tf.placeholder({dtype}{', []' if self.flag() else ''})"
            self.graph.append(f"{name} = {made}")
            self.fed[name] = role
            if default:
                self.defaults.add(name)
            self.placeholders[name] = Tensor(name, role, frozenset(), frozenset({name}))
            self.fetchable.append(Tensor(name, "placeholder", frozenset(), frozenset({name})))
        return self.hyper[role]

    # -- module functions and a net object that build ops from their arguments
    def helper(self) -> None:
        a = self.operand("BD")
        if a is None:
            return
        form = self.choice(["builder", "residual", "derivative", "cond", "while", "net"])
        self.feature(f"helper:{form}")
        if form == "net":
            self.net(a)
            return
        if form == "derivative":  # tf.gradients inside a helper, of what its caller computed
            targets = [t for t in self.tensors if t.diff]
            if not targets:
                return
            target = self.choice(targets)
            source = self.choice(sorted(target.diff))
            helper, name = self.fresh("d_dx"), self.fresh("g")
            self.defs += [f"def {helper}(y, x):", "    return tf.gradients(y, x)[0]", ""]
            if self.flag():  # its twin nothing calls (PINNs' fwd_gradients_1): kept as tf.gradients, TFM203
                self.feature("helper:uncalled-derivative")
                self.defs += [f"def {helper}_unused(y, x):", "    return tf.gradients(y, x, grad_ys=tf.ones_like(y))[0]", ""]
            self.graph.append(f"{name} = {helper}(tf.reduce_sum(tf.tanh({target.name})), {source})")
            self.gradient_result(name, source, target)
            return
        helper, name, args, reads = self.fresh("f"), self.fresh("t"), a.name, a.reads
        if form == "builder":
            weights = [v for v, (shape, _) in self.variables.items() if shape == "DD"]
            if weights:
                w = self.choice(weights)
                self.defs += [f"def {helper}(a, w):", "    return tf.tanh(tf.matmul(a, w))", ""]
                args, reads = f"{a.name}, {w}", reads | {w}
            else:
                self.defs += [f"def {helper}(a, k):", "    return tf.sin(a * k) + a", ""]
                args = f"{a.name}, {self.choice(['0.5', 'scale'])}"
        elif form == "residual":  # a PINN's net_f: a value and its derivative in one helper
            self.defs += [f"def {helper}(x):", "    u = tf.tanh(x * 1.5) + x", "    u_x = tf.gradients(u, x)[0]", "    return u_x - u", ""]
        elif form == "cond":
            predicate = self.predicate()
            self.defs += [f"def {helper}(a, p):", "    return tf.cond(p, lambda: tf.tanh(a), lambda: a * 2.0)", ""]
            args, reads = f"{a.name}, {predicate.name}", reads | predicate.reads
        else:
            self.defs += [
                f"def {helper}(a):",
                "    i0 = tf.constant(0)",
                "    _, out = tf.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, tf.tanh(z) * 0.9 + 0.1), (i0, a))",
                "    return out",
                "",
            ]
        self.new_tensor(name, f"{helper}({args})", a.diff, reads | ({WHILE} if form == "while" else set()))

    def net(self, a: Tensor) -> None:
        """A class whose constructor makes its variables and whose ``__call__`` (or a method)
        builds ops from them, applied to one or two tensors."""
        cls, obj = self.fresh("Net"), self.fresh("net")
        method = self.choice(["__call__", "forward"])
        self.defs += [
            f"class {cls}:",
            "    def __init__(self, seed):",
            f"        self.w = tf.Variable(tf.random_normal([{D}, {D}], stddev=0.5, seed=seed))",
            f"        self.b = tf.Variable(tf.zeros([{D}]))",
            "",
            f"    def {method}(self, a):",
            "        return tf.tanh(tf.matmul(a, self.w) + self.b)",
            "",
        ]
        self.graph.append(f"{obj} = {cls}({self.draw(st.integers(1, 99))})")
        for attribute, shape in (("w", "DD"), ("b", "D")):
            variable = f"{obj}.{attribute}"
            self.variables[variable] = (shape, True)
            self.fetchable.append(Tensor(variable, "variable", frozenset(), frozenset({variable})))
        leaves = frozenset({f"{obj}.w", f"{obj}.b"})
        call = obj if method == "__call__" else f"{obj}.forward"
        for operand in [a] + ([self.operand("BD")] if self.flag() else []):  # called again: the same variables
            self.new_tensor(self.fresh("t"), f"{call}({operand.name})", operand.diff | leaves, operand.reads | leaves)

    def new_tensor(self, name: str, text: str, diff: frozenset, reads: frozenset) -> None:
        """A [batch, D] tensor of the graph code, an operand and a fetch from then on."""
        self.graph.append(f"{name} = {text}")
        tensor = Tensor(name, "BD", frozenset(diff) | ({name} if diff else set()), frozenset(reads))
        self.tensors.append(tensor)
        self.fetchable.append(tensor)

    # -- TF1 tf.data input
    def dataset(self) -> None:
        """A one-shot or initializable iterator over ``from_tensor_slices`` of [3 batch, D]
        arrays, batched and repeated; its ``get_next()`` elements are [batch, D] graph values."""
        ds, it = self.fresh("ds"), self.fresh("it")
        pair = self.flag()
        kind = self.choice(["one_shot", "initializable", "one_shot_function"])
        self.feature(f"dataset:{kind}{':pair' if pair else ''}")
        tile = "np.tile({}, (3, 1)).astype(np.float32)"
        slices = f"({tile.format('data0')}, {tile.format('data1')})" if pair else tile.format("data0")
        self.graph.append(f"{ds} = tf.data.Dataset.from_tensor_slices({slices}).batch({self.batch}).repeat()")
        make = {
            "one_shot": f"{ds}.make_one_shot_iterator()",
            "initializable": f"{ds}.make_initializable_iterator()",
            "one_shot_function": f"tf.data.make_one_shot_iterator({ds})",
        }[kind]
        self.graph.append(f"{it} = {make}")
        if kind == "initializable":
            self.inits.append(f"sess.run({it}.initializer)")
        elements = [self.fresh("e"), self.fresh("e")] if pair else [self.fresh("e")]
        self.graph.append(f"{', '.join(elements)} = {it}.get_next()")
        for element in elements:
            tensor = Tensor(element, "BD", frozenset({element}), frozenset({it}))
            self.tensors.append(tensor)
            self.fetchable.append(tensor)

    def predicate(self) -> Tensor:
        style = self.choice(["scalar", "bool", "tensor"])
        self.feature(f"cond:{style}")
        if style == "bool":
            name = self.fresh("flag")
            self.graph.append(f"{name} = tf.placeholder(tf.bool, [])")
            self.fed[name] = "bool"
            leaf = frozenset({name})
            self.placeholders[name] = Tensor(name, "bool", frozenset(), leaf)
            return self.placeholders[name]
        scalar = self.operand("S") if style == "scalar" else None
        if scalar is None:
            a = self.operand("BD")
            assert a is not None
            return Tensor(f"tf.reduce_sum({a.name}) > 0.1", "bool", frozenset(), a.reads)
        return Tensor(f"{scalar.name} > 0.1", "bool", frozenset(), scalar.reads)

    def gradient(self) -> None:
        targets = [t for t in self.tensors if t.diff]
        if not targets:
            return
        target = self.choice(targets)
        sources = sorted(target.diff)
        form = self.choice(["index", "list", "unpack", "grad_ys", "targets", "second", "consecutive", "mixed_second"])
        self.feature(f"gradients:{form}")
        name = self.fresh("g")
        ys = target.name
        if target.kind == "BD" and form != "grad_ys":
            ys = f"tf.reduce_sum({target.name})" if self.flag() else target.name
        if form in ("list", "unpack"):
            chosen = sorted(set(self.draw(st.lists(st.sampled_from(sources), min_size=1, max_size=3))))
            if form == "unpack":
                names = [f"{name}_{i}" for i in range(len(chosen))]
                self.graph.append(f"{', '.join(names)}{',' if len(names) == 1 else ''} = tf.gradients({ys}, [{', '.join(chosen)}])")
                for grad, source in zip(names, chosen):
                    self.gradient_result(grad, source, target)
            else:
                self.graph.append(f"{name} = tf.gradients({ys}, [{', '.join(chosen)}])")
                self.fetchable.append(Tensor(name, "list", frozenset(), target.reads))
            return
        if form in ("second", "mixed_second") and WHILE in target.reads:
            form = "index"  # (a gradient of the while loop's gradient: TF1 raises)
        if form == "consecutive":
            self.consecutive_gradients(target, sources)
            return
        source = self.choice(sources)
        if form == "mixed_second":  # a gradient of a gradient, with respect to any source of the target
            first = self.fresh("g")
            self.graph.append(f"{first} = tf.gradients(tf.reduce_sum(tf.tanh({target.name})), {self.choice(sources)})[0]")
            self.graph.append(f"{name} = tf.gradients({first}, {source})[0]")
            self.gradient_result(first, source, target)
        elif form == "grad_ys":
            weights = self.choice([f"tf.ones_like({target.name})", f"{target.name} * 0.0 + 2.0"])
            self.graph.append(f"{name} = tf.gradients({target.name}, {source}, grad_ys={weights})[0]")
        elif form == "targets":
            other = self.choice([t for t in self.tensors if t.kind == "S"] or [target])
            self.graph.append(f"{name} = tf.gradients([{ys}, {other.name}], {source})[0]")
            target = Tensor(target.name, target.kind, target.diff, target.reads | other.reads)
        elif form == "second" and source in self.placeholders and self.placeholders[source].kind == "BD":
            first = self.fresh("g")
            self.graph.append(f"{first} = tf.gradients(tf.reduce_sum(tf.tanh({target.name})), {source})[0]")
            self.graph.append(f"{name} = tf.gradients({first}, {source})[0]")
            self.gradient_result(first, source, target)
        else:
            self.graph.append(f"{name} = tf.gradients({ys}, {source})[0]")
        self.gradient_result(name, source, target)

    def consecutive_gradients(self, target: Tensor, sources: list[str]) -> None:
        """``tf.gradients(u, x_i)[0]`` for several sources in a row (one tape request after
        migration), maybe of a nonlinear ``u`` whose first gradient is differentiated again."""
        chosen = sorted(set(self.draw(st.lists(st.sampled_from(sources), min_size=2, max_size=3))))
        ys, second = target.name, self.flag() and WHILE not in target.reads
        if second:
            ys = self.fresh("u")
            self.graph.append(f"{ys} = tf.tanh({target.name})")
        weights = f", grad_ys=tf.ones_like({ys}) * 0.5" if self.draw(st.integers(0, 3)) == 0 else ""
        if weights:
            self.feature("gradients:consecutive:grad_ys")
        names = [self.fresh("g") for _ in chosen]
        for grad, source in zip(names, chosen):
            self.graph.append(f"{grad} = tf.gradients({ys}, {source}{weights})[0]")
            self.gradient_result(grad, source, target)
        if second:
            self.feature("gradients:consecutive:second")
            again = self.fresh("g")
            self.graph.append(f"{again} = tf.gradients({names[0]}, {chosen[0]})[0]")
            self.gradient_result(again, chosen[0], target)

    def gradient_result(self, name: str, source: str, target: Tensor) -> None:
        if source not in self.placeholders and source not in self.variables:
            self.feature("gradients:wrt-computed-tensor")
        kind = self.placeholders[source].kind if source in self.placeholders else "other"
        self.fetchable.append(Tensor(name, "other" if kind == "S" else kind, frozenset(), target.reads))

    def assign(self) -> None:
        trainable = [v for v in self.variables]
        if not trainable:
            return
        var = self.choice(trainable)
        style = self.choice(["assign_add", "method", "assign"])
        use = self.choice(["fetched", "dangling", "control"])
        self.feature(f"assign:{style}:{use}")
        name = self.fresh("update")
        self.graph.append(
            f"{name} = "
            + {
                "assign_add": f"tf.assign_add({var}, tf.ones_like({var}) * 0.1)",
                "method": f"{var}.assign({var} * 0.5)",
                "assign": f"tf.assign({var}, {var} - 0.2)",
            }[style]
        )
        writes = frozenset({var})
        if use == "fetched":
            self.writers.append(Tensor(name, "assign", frozenset(), writes, writes))
        elif use == "control":
            after = self.fresh("t")
            self.graph.append(f"with tf.control_dependencies([{name}]):")
            self.graph.append(f"    {after} = tf.reduce_sum({var}) * 1.0")
            self.fetchable.append(Tensor(after, "other", frozenset(), writes, writes))

    def optimizer(self) -> None:
        def trains(t: Tensor) -> bool:
            # (hidden variables only through a path gradients take: not after tf.py_func, whose output has no sources)
            return any(self.variables.get(leaf, ("", False))[1] for leaf in t.diff) or bool(t.reads & self.hidden and t.diff)

        losses = [t for t in self.tensors if t.kind == "S" and trains(t)]
        if not losses or self.draw(st.integers(0, 2)) == 0:  # a loss of its own: a mean square
            outputs = [t for t in self.tensors if t.kind == "BD" and trains(t)]
            if not outputs:
                return
            output = self.choice(outputs)
            losses = [Tensor(self.fresh("loss"), "S", output.diff, output.reads)]
            self.graph.append(f"{losses[0].name} = tf.reduce_mean(tf.square({output.name}))")
            self.tensors.append(losses[0])
        loss = self.choice(losses)
        trained = sorted(leaf for leaf in loss.diff if leaf in self.variables)
        kind = self.choice(["GradientDescent", "Momentum", "Adam"])
        form = self.choice(["minimize", "var_list", "compute_apply", "clipped", "global_step"])
        if not trained:  # (only variables no name holds: layers' or a scoped loop's)
            form = "minimize"
        rate, reads = {"GradientDescent": "0.05", "Momentum": "0.05", "Adam": "0.01"}[kind], loss.reads
        decay_step = ""
        if self.draw(st.integers(0, 4)) == 0:  # a rate decayed by the train op's own global step
            rate, decay_step = self.decayed_rate()
            reads = reads | {decay_step}
            form = "global_step"
        self.feature(f"optimizer:{kind}:{form}")
        # a rate fed at each step, constant or decayed by the loop (more often for Momentum: TFM121 converts it since session 19)
        if not decay_step and self.draw(st.integers(0, 1 if kind == "Momentum" else 3)) == 0:
            rate = self.fresh("lr")
            self.feature(f"optimizer:fed-rate:{kind}")
            self.graph.append(f"{rate} = tf.placeholder(tf.float32, [])")
            self.fed[rate] = "rate"
            self.placeholders[rate] = Tensor(rate, "rate", frozenset(), frozenset({rate}))
            self.fetchable.append(Tensor(rate, "placeholder", frozenset(), frozenset({rate})))
            reads = reads | {rate}
        nesterov = kind == "Momentum" and self.flag()
        if nesterov:
            self.feature("optimizer:Momentum:nesterov")
        make = {
            "GradientDescent": f"tf.train.GradientDescentOptimizer({rate})",
            "Momentum": f"tf.train.MomentumOptimizer({rate}, 0.9{', use_nesterov=True' if nesterov else ''})",
            "Adam": f"tf.train.AdamOptimizer(learning_rate={rate})",
        }[kind]
        name, opt = self.fresh("train"), self.fresh("opt")
        var_list = f"var_list=[{', '.join(trained)}]"
        self.graph.append(f"{opt} = {make}")
        if form == "minimize":
            self.graph.append(f"{name} = {opt}.minimize({loss.name})")
            writes = self.trainable()
        elif form == "var_list":
            self.graph.append(f"{name} = {opt}.minimize({loss.name}, {var_list})")
            writes = frozenset(trained)
        elif form == "global_step":
            step = decay_step or self.fresh("step")
            if not decay_step:
                self.graph.insert(0, f"{step} = tf.Variable(0, trainable=False)")
                self.fetchable.append(Tensor(step, "variable", frozenset(), frozenset({step})))
            listed = f", {var_list}" if trained and self.flag() else ""
            self.graph.append(f"{name} = {opt}.minimize({loss.name}, global_step={step}{listed})")
            writes = (frozenset(trained) if listed else self.trainable()) | {step}
        else:
            pairs = self.fresh("gvs")
            self.graph.append(f"{pairs} = {opt}.compute_gradients({loss.name}, {var_list})")
            if form == "clipped":
                self.graph.append(f"{pairs} = [(tf.clip_by_value(g, -1.0, 1.0), v) for g, v in {pairs}]")
            self.graph.append(f"{name} = {opt}.apply_gradients({pairs})")
            writes = frozenset(trained)
        self.writers.append(Tensor(name, "train", frozenset({loss.name}), reads, writes))

    def trainable(self) -> frozenset:
        """Every trainable variable, named or not (what a ``minimize`` without ``var_list`` may write)."""
        return frozenset(v for v, (_, trainable) in self.variables.items() if trainable) | self.hidden

    def decayed_rate(self) -> tuple[str, str]:
        """``tf.train.exponential_decay`` of a global step (a variable of the file or
        ``get_or_create_global_step``) that the train op increments: the rate and the step."""
        step, rate = self.fresh("step"), self.fresh("lr")
        made = "tf.Variable(0, trainable=False)"
        if not self.global_step and self.flag():
            self.global_step, made = True, "tf.train.get_or_create_global_step()"
        staircase = self.flag()
        self.feature(f"optimizer:exponential-decay:{made.split('(')[0]}{':staircase' if staircase else ''}")
        self.graph.insert(0, f"{step} = {made}")
        self.graph.append(f"{rate} = tf.train.exponential_decay(0.1, {step}, 2, 0.5{', staircase=True' if staircase else ''})")
        self.fetchable.append(Tensor(step, "variable", frozenset(), frozenset({step})))
        self.fetchable.append(Tensor(rate, "other", frozenset(), frozenset({step})))
        return rate, step

    # -- session
    def feed(self, needed: frozenset, loop: bool, indent: str, written: frozenset = frozenset()) -> str:
        """A feed dict for the placeholders in ``needed`` (and maybe some others); never
        of a variable in ``written``, which the run changes (TF1 refuses the feed)."""
        keys = [p for p in self.fed if p in needed and p not in self.defaults]
        keys += [p for p in self.fed if p not in keys and (p in self.defaults or p not in needed) and self.draw(st.integers(0, 3)) == 0]
        computed = [t.name for t in self.tensors if t.kind == "BD" and t.name.startswith("t") and t.reads <= needed]
        if computed and self.draw(st.integers(0, 7)) == 0:
            self.feature("feed:computed-tensor")
            keys.append(self.choice(computed))
        variables = [v for v in needed - written if v in self.variables]
        if variables and self.draw(st.integers(0, 7)) == 0:  # TF1 reads the fed value instead, for this run
            self.feature("feed:variable")
            keys.append(self.choice(sorted(variables)))
        if not keys:
            return ""
        values = {key: self.value(key, loop) if key in self.fed else self.replacement(key) for key in keys}
        for key in keys:  # batch normalization's flag: True with its update ops (the train op), as TF1 programs feed it
            if self.fed.get(key) == "bn":
                values[key] = "True" if self.bn_moving in written else self.bn_other_runs
        items = ", ".join(f"{key}: {value}" for key, value in values.items())
        if self.draw(st.integers(0, 3)) == 0:
            self.feature("feed:named")
            feed = self.fresh("feed")
            self.session.append(f"{indent}{feed} = {{{items}}}")
            return feed
        return f"{{{items}}}"

    def replacement(self, tensor: str) -> str:
        """A value fed to a computed tensor or a variable, of its shape."""
        if tensor not in self.variables:
            return "data1"
        return {"DD": f"np.full(({D}, {D}), 0.2)", "D": f"np.full({D}, -0.1)", "S": "0.7"}[self.variables[tensor][0]]

    def value(self, placeholder: str, loop: bool) -> str:
        kind = self.fed[placeholder]
        if kind == "bool":
            return self.choice(["True", "False"] + (["i % 2 == 0"] if loop else []))
        if kind == "rate":
            return self.choice(["0.05", "np.float32(0.02)"] + (["0.05 * 0.9 ** i"] if loop else []))
        if kind == "bn":  # (set by feed())
            return "False"
        if kind in ("keep", "training"):
            return "1.0" if kind == "keep" else "False"
        if kind == "S":
            return self.choice(["0.5", "-1.5", "np.float32(0.25)"] + (["0.1 * i"] if loop else []))
        if kind == "int":
            return self.choice(["data0 * 3", "(data1 * 4).tolist()"] + (["data0 * (i + 2)"] if loop else []))
        return self.choice(["data0", "data1", "data0.tolist()"] + (["data0 * (i + 1)", "data1 + 0.1 * i"] if loop else []))

    def run(self, indent: str, eval_ok: bool) -> None:
        """One run, or a loop of runs, of a fetch structure or a writer."""
        if self.draw(st.integers(0, 4)) == 0:  # an op built between runs (it reads Python values then)
            self.feature("op:between-runs")
            self.out, self.prefix = self.session, indent
            self.op()
            self.out, self.prefix = self.graph, ""
        loop = self.draw(st.integers(0, 2)) == 0
        inner = indent + ("    " if loop else "")
        hist = self.fresh("hist") if loop else ""
        if loop:
            self.feature("run:loop")
            self.session.append(f"{indent}{hist} = []")
            self.session.append(f"{indent}for i in range({self.draw(st.integers(1, 3))}):")
        if self.writers and self.draw(st.integers(0, 2)) == 0:
            self.run_writer(self.choice(self.writers), inner, hist, loop, eval_ok)
            return
        if self.variables and self.draw(st.integers(0, 5)) == 0:
            self.run_inline_assign(inner, hist, loop, eval_ok)
            return
        fetches = self.draw(st.lists(st.sampled_from(self.fetchable), min_size=1, max_size=3, unique_by=lambda t: t.name))
        # a write fetched with a read of what it writes: TF1 does not define the order
        written = set().union(*(t.writes for t in fetches))
        fetches = [t for t in fetches if t.writes or not (t.reads & written)]
        if any(t.writes for t in fetches):
            fetches = [next(t for t in fetches if t.writes)]
        if not fetches[0].writes and fetches[0].kind in ("BD", "S", "other") and self.draw(st.integers(0, 4)) == 0:
            wrap = self.choice(
                ["tf.reduce_sum({})", "{} * scale", "tf.square({}) + 1.0", "tf.reduce_sum({}) / (2 * data0.shape[0])"]
                + (["{} * float(i + 1)"] if loop else [])
            )
            self.feature(f"fetch:built-in-run:{wrap.split('(')[0]}")
            first = fetches[0]
            fetches[0] = Tensor(wrap.format(first.name), first.kind, first.diff, first.reads)
        needed = frozenset().union(*(t.reads for t in fetches))
        feed = self.feed(needed, loop, inner, frozenset().union(*(t.writes for t in fetches)))
        result = self.fresh("r")
        style = self.choice(
            ["single", "list", "unpack", "dict", "tuple", "eval"] if eval_ok else ["single", "list", "unpack", "dict", "tuple"]
        )
        if style == "eval" and fetches[0].kind in ("list", "variable", "placeholder"):
            style = "single"  # a list of gradients has no .eval(), a variable's takes no feed
        self.feature(f"fetch:{style}")
        feed_arg = f", feed_dict={feed}" if feed and self.flag() else (f", {feed}" if feed else "")
        names = [t.name for t in fetches]
        if style == "eval" and not names[0].isidentifier():
            names[0] = f"({names[0]})"
        if style == "single":
            line = f"{result} = sess.run({names[0]}{feed_arg})"
        elif style == "eval":
            line = f"{result} = {names[0]}.eval({'feed_dict=' + feed if feed else ''})"
        elif style == "list":
            line = f"{result} = sess.run([{', '.join(names)}]{feed_arg})"
        elif style == "tuple":
            line = f"{result} = sess.run(({', '.join(names)},){feed_arg})"
        elif style == "dict":
            items = ", ".join(f"'k{i}': {n}" for i, n in enumerate(names))
            line = f"{result} = sess.run({{{items}}}{feed_arg})"
        else:
            targets = [f"{result}_{i}" for i in range(len(names))]
            line = f"{', '.join(targets)}{',' if len(targets) == 1 else ''} = sess.run([{', '.join(names)}]{feed_arg})"
            result = f"[{', '.join(targets)}]"
        self.session.append(inner + line)
        if loop:
            self.session.append(f"{inner}{hist}.append({result})")
        elif style in ("single", "eval") and self.draw(st.integers(0, 3)) == 0:
            self.feature("python:numpy-read")
            self.session.append(f"{indent}{self.fresh('total')} = float(np.sum({result}))")

    def model_class(self) -> list[str]:
        """A class whose constructor builds a graph of its own, reading its parameters (hp-VPINNs'
        ``grid``: stored on ``self``, TFM115) and summing from a plain ``self.loss = 0``, and whose
        method runs it; made and run after the module's session: the statements doing that.  The
        scale may come in a list the caller changes before or after the construction (TF1 built
        with the value at the construction)."""
        cls, obj = self.fresh("Model"), self.fresh("model")
        self.feature("class:constructor-parameters")
        k, n = self.choice(["0.5", "1.5", "scale"]), self.draw(st.integers(1, 3))
        change = self.choice(["none", "none", "before", "after_item", "after_append", "after_rebound"])
        scale = "k[0]" if change != "none" else "k"
        body = [
            "        self.loss = 0",
            "        for e in range(n):",
            f"            self.loss = self.loss + tf.reduce_mean(tf.tanh(self.x * {scale})) * (e + 1.0)",
        ]
        local = self.choice(["none", "none", "rebound", "list_filled", "len_of_list"])
        if local != "none":  # constructor locals the graph code reads (stored on self after migration)
            self.feature(f"class:constructor-local:{local}")
            body = {
                "rebound": [
                    f"        c = {scale} * 2.0",
                    "        h = tf.tanh(self.x * c)",
                    "        c = c + 1.0",
                    "        self.loss = tf.reduce_mean(h * c)",
                    "        c = 0.0",
                ],
                "list_filled": [
                    "        ks = []",
                    "        for e in range(n):",
                    f"            ks.append({scale} * (e + 1.0))",
                    "        self.loss = 0",
                    "        for c in ks:",
                    "            self.loss = self.loss + tf.reduce_mean(tf.tanh(self.x * c))",
                ],
                "len_of_list": [
                    f"        ks = [{scale}] * n",
                    "        m = len(ks)",
                    f"        self.loss = tf.reduce_mean(tf.tanh(self.x * {scale})) * float(m)",
                ],
            }[local]
        graph = [f"        self.x = tf.placeholder(tf.float32, [None, {D}])", *body]
        build = self.choice(["none", "none", "parameters", "attributes"])
        if build == "none":
            constructor = ["    def __init__(self, k, n):", *graph]
        else:  # session 25's: the constructor calls a build method (DeepHPMs' ``idn_init``)
            self.feature(f"class:build-method:{build}")
            constructor = (
                [
                    "    def __init__(self, k, n):",
                    "        self.build(k, n)",
                    "        self.sess = tf.Session()",
                    "",
                    "    def build(self, k, n):",
                ]
                if build == "parameters"
                else [
                    "    def __init__(self, k, n):",
                    "        self.k = k",
                    "        self.n = n",
                    "        self.build()",
                    "        self.sess = tf.Session()",
                    "",
                    "    def build(self):",
                    "        k, n = self.k, self.n",
                ]
            ) + graph
        self.defs += [
            f"class {cls}:",
            *constructor,
            *(["        self.sess = tf.Session()"] if build == "none" else []),
            "",
            "    def predict(self, x):",
            "        return self.sess.run(self.loss, {self.x: x})",
            "",
        ]
        if change == "none":
            return [f"{obj} = {cls}({k}, {n})", f"{self.fresh('r')} = {obj}.predict({self.choice(['data0', 'data1'])})"]
        self.feature(f"class:constructor-argument-changed:{change}")
        values = self.fresh("ks")
        edit = {
            "before": f"{values}[0] = 2.5",
            "after_item": f"{values}[0] = 2.5",
            "after_append": f"{values}.insert(0, 2.5)",
            "after_rebound": f"{values} = [2.5]",
        }[change]
        lines = [f"{values} = [{k}]"] + ([edit] if change == "before" else []) + [f"{obj} = {cls}({values}, {n})"]
        lines += [f"{self.fresh('r')} = {obj}.predict(data0)"] + ([edit] if change != "before" else [])
        return lines + [f"{self.fresh('r')} = {obj}.predict(data1)"]

    def per_call_class(self) -> list[str]:
        """A class whose method builds pure ops from the constructor's tensors at every call and
        runs them in the class's session (DeepVIV's ``predict_drag_lift``: TFM116 builds them once
        in the constructor), called twice after the module's session: the statements doing that."""
        cls, obj = self.fresh("Predictor"), self.fresh("predictor")
        form = self.choice(["gradient", "pure", "second", "argument"])
        self.feature(f"class:per-call-ops:{form}")
        built = {
            "gradient": ["        g = tf.gradients(self.u, self.x)[0]"],
            "pure": ["        g = tf.square(self.u) * 2.0 + self.b"],
            "second": ["        g1 = tf.gradients(self.u, self.x)[0]", "        g = tf.gradients(g1, self.x)[0]"],
            # (reads its argument: built from a Python value at each call, stays refused)
            "argument": ["        g = tf.reduce_sum(self.u) * float(x.shape[0])"],
        }[form]
        self.defs += [
            f"class {cls}:",
            "    def __init__(self, k):",
            "        self.sess = tf.Session()",
            f"        self.x = tf.placeholder(tf.float32, [None, {D}])",
            # (constants: a second initializer run of the module's variables keeps the file on TF1, TFM308)
            f"        self.w = tf.ones([{D}, {D}]) * k",
            f"        self.b = tf.constant(np.linspace(-0.5, 0.5, {D}), tf.float32)",
            "        self.u = tf.tanh(tf.matmul(self.x, self.w) + self.b)",
            "",
            "    def predict(self, x):",
            *built,
            "        return self.sess.run([self.u, g], {self.x: x})",
            "",
        ]
        return [
            f"{obj} = {cls}({self.choice(['0.5', 'scale'])})",
            f"{self.fresh('r')} = {obj}.predict(data0)",
            f"{self.fresh('r')} = {obj}.predict(data1 * 2.0)",
        ]

    # -- session 25's: TF1 initializers, Keras layers, summaries, Savers, fetches indexed by a loop, feeds passed on
    def initialized_variable(self) -> None:
        """A variable of ``tf.get_variable`` made by one of TF1's initializer objects with a seed (Glorot,
        variance scaling, truncated normal, random normal) and applied at once, or a ``tf.layers.dense``
        whose ``kernel_initializer`` is one; verify replays the initial values, by shape."""
        a = self.operand("BD")
        if a is None:
            return
        seed = self.draw(st.integers(1, 99))
        initializer = self.choice(
            [
                f"tf.glorot_uniform_initializer(seed={seed})",
                f"tf.truncated_normal_initializer(stddev=0.3, seed={seed})",
                f"tf.variance_scaling_initializer(scale=2.0, seed={seed})",
                f"tf.glorot_normal_initializer(seed={seed})",
                f"tf.random_normal_initializer(stddev=0.5, seed={seed})",
            ]
        )
        kind = initializer.split("(")[0].split(".")[-1]
        if self.flag():  # a layer's kernel
            self.feature(f"initializer:{kind}:dense")
            width, layer = next(self.widths), self.fresh("layer")
            hidden = f"{layer}/*"
            self.hidden.add(hidden)
            text = f"tf.layers.dense(tf.reshape({a.name}, [-1, {D}]), {width}, kernel_initializer={initializer})[:, :{D}]"
            self.new_tensor(self.fresh("t"), text, a.diff, a.reads | {hidden})
            self.latest.append(self.tensors[-1])
            return
        self.feature(f"initializer:{kind}:get_variable")
        name, shape = self.fresh("v"), self.choice(["DD", "D"])
        dims = f"[{D}, {D}]" if shape == "DD" else f"[{D}]"
        self.graph.append(f'{name} = tf.get_variable("{name}", {dims}, initializer={initializer})')
        self.variables[name] = (shape, True)
        self.fetchable.append(Tensor(name, "variable", frozenset(), frozenset({name})))
        text = f"tf.tanh(tf.matmul({a.name}, {name}))" if shape == "DD" else f"{a.name} + {name}"
        self.new_tensor(self.fresh("t"), text, a.diff | {name}, a.reads | {name})

    def keras_layer(self) -> None:
        """A ``tf.keras.layers.Dense`` made in graph code and applied to one or two [batch, D] tensors
        (the second call sharing its weights), as TF1 code mixing Keras layers into its graph wrote it."""
        a = self.operand("BD")
        if a is None:
            return
        layer, width = self.fresh("dense"), next(self.widths)
        activation = self.choice(["None", '"relu"', "tf.nn.tanh"])
        twice = self.flag()
        self.feature(f"keras-layer:dense{':twice' if twice else ''}")
        self.graph.append(f"{layer} = tf.keras.layers.Dense({width}, activation={activation})")
        hidden = f"{layer}/*"
        self.hidden.add(hidden)
        for operand in [a] + ([self.operand("BD") or a] if twice else []):
            text = f"{layer}(tf.reshape({operand.name}, [-1, {D}]))[:, :{D}]"
            self.new_tensor(self.fresh("t"), text, operand.diff, operand.reads | {hidden})
            self.latest.append(self.tensors[-1])

    def summaries(self) -> None:
        """``tf.summary.scalar`` of a scalar (a train op's loss, if any) and maybe ``tf.summary.histogram``
        of a [batch, D] tensor, merged by ``tf.summary.merge_all()`` at the end of the graph code; runs of
        the merged op (``run_summary``) write them with a ``FileWriter``."""
        tensors = [t for t in self.tensors if self.in_graph(t)]
        losses = [t for t in tensors if t.kind == "S" and t.name in {next(iter(w.diff)) for w in self.writers if w.kind == "train"}]
        scalars = losses or [t for t in tensors if t.kind == "S" and t.name.isidentifier()]
        outputs = [t for t in tensors if t.kind == "BD" and t.name.isidentifier()]
        chosen = [self.choice(scalars)] if scalars else []
        if outputs and (not chosen or self.flag()):
            chosen.append(self.choice(outputs))
        if not chosen:
            return
        for tensor in chosen:
            function = "scalar" if tensor.kind == "S" else "histogram"
            self.feature(f"summary:{function}")
            self.graph.append(f'tf.summary.{function}("{tensor.name}_{function}", {tensor.name})')
        self.graph.append("merged = tf.summary.merge_all()")
        self.summarized = {t.name for t in chosen}
        self.merged = Tensor("merged", "summary", frozenset(), frozenset().union(*(t.reads for t in chosen)))
        self.workdir = True

    def run_summary(self, indent: str) -> None:
        """A run of the merged summaries (maybe with the train op whose loss is the only one summarized,
        in a loop), its value written by a ``FileWriter`` with the loop's step and kept (TF1's serialized
        ``Summary``: tags and values, which TF2's raw summary ops must give the same)."""
        assert self.merged is not None
        writer = self.fresh("writer")
        self.session.append(f'{indent}{writer} = tf.summary.FileWriter(os.path.join(_workdir, "logs"), sess.graph)')
        trains = [w for w in self.writers if w.kind == "train" and w.diff == frozenset(self.summarized)]
        train = self.choice(trains) if trains and self.flag() else None
        loop = self.flag()
        inner, hist, result = indent + ("    " if loop else ""), self.fresh("hist"), self.fresh("r")
        self.feature(f"summary:run{':with-train-op' if train else ''}{':loop' if loop else ''}")
        if loop:
            self.session += [f"{indent}{hist} = []", f"{indent}for i in range({self.draw(st.integers(1, 3))}):"]
        reads = self.merged.reads | (train.reads if train else frozenset())
        feed = self.feed(reads, loop, inner, train.writes if train else frozenset())
        feed_arg = f", feed_dict={feed}" if feed else ""
        if train:
            self.session.append(f"{inner}_, {result} = sess.run([{train.name}, merged]{feed_arg})")
        else:
            self.session.append(f"{inner}{result} = sess.run(merged{feed_arg})")
        self.session.append(f"{inner}{writer}.add_summary({result}, {'i' if loop else '0'})")
        if loop:
            self.session.append(f"{inner}{hist}.append({result})")
        if self.flag():
            self.session.append(f"{indent}{writer}.close()")

    def in_graph(self, tensor: Tensor) -> bool:
        """Is ``tensor`` made by the graph code (not by an op built between runs, after it)?"""
        return _mentions("\n".join(self.graph), tensor.name)

    def fetch_list(self) -> list[Tensor]:
        """Two or three fetchable values read by index from a list display of the graph code."""
        candidates = [
            t for t in self.fetchable if t.kind in ("BD", "S", "other") and t.name.isidentifier() and not t.writes and self.in_graph(t)
        ]
        if len(candidates) < 2:
            return []
        return self.draw(st.lists(st.sampled_from(candidates), min_size=2, max_size=3, unique_by=lambda t: t.name))

    def run_indexed(self, indent: str) -> None:
        """Runs in a loop fetching ``fetches[i]`` of a list display of the graph's tensors, ``i`` the
        loop's variable (GradientPathologiesPINNs' ``sess.run(self.grad_res[i], feed)``)."""
        chosen = self.fetch_list()
        if not chosen:
            return
        listed, hist, result = self.fresh("fetches"), self.fresh("hist"), self.fresh("r")
        header = self.choice(["range", "range_len", "enumerate"])
        self.feature(f"fetch:indexed-by-loop:{header}")
        self.graph.append(f"{listed} = [{', '.join(t.name for t in chosen)}]")
        loop = {
            "range": f"for i in range({len(chosen)}):",
            "range_len": f"for i in range(len({listed})):",
            "enumerate": f"for i, _fetch in enumerate({listed}):",
        }[header]
        self.session += [f"{indent}{hist} = []", f"{indent}{loop}"]
        feed = self.feed(frozenset().union(*(t.reads for t in chosen)), True, indent + "    ")
        self.session.append(f"{indent}    {result} = sess.run({listed}[i]{', ' + feed if feed else ''})")
        self.session.append(f"{indent}    {hist}.append({result})")

    def run_passed_feed(self, indent: str) -> None:
        """A function of the file running fetches with the feed dict it is given (``def evaluate(sess,
        feed): return sess.run([...], feed_dict=feed)``), called with a dict display bound to a name
        (GradientPathologiesPINNs' ``save_gradients(tf_dict)``), maybe in a loop whose values change."""
        chosen = self.fetch_list()[: self.draw(st.integers(1, 2))]
        if not chosen:
            return
        function, result = self.fresh("evaluate"), self.fresh("r")
        takes_session, listed = self.flag(), len(chosen) > 1 or self.flag()
        fetches = f"[{', '.join(t.name for t in chosen)}]" if listed else chosen[0].name
        self.feature(f"feed:passed-to-function{':session' if takes_session else ''}")
        self.graph += [
            f"def {function}({'sess, ' if takes_session else ''}feed):",
            f"    return sess.run({fetches}, feed_dict=feed)",
        ]
        loop = self.flag()
        inner, hist = indent + ("    " if loop else ""), self.fresh("hist")
        if loop:
            self.session += [f"{indent}{hist} = []", f"{indent}for i in range({self.draw(st.integers(1, 3))}):"]
        feed = self.feed(frozenset().union(*(t.reads for t in chosen)), loop, inner) or "{}"
        if not feed.isidentifier():
            name = self.fresh("feed")
            self.session.append(f"{inner}{name} = {feed}")
            feed = name
        self.session.append(f"{inner}{result} = {function}({'sess, ' if takes_session else ''}{feed})")
        if loop:
            self.session.append(f"{inner}{hist}.append({result})")

    def joint_train(self) -> None:
        """Two train ops of the optimizers stepped by one run (``sess.run([train_a, train_b], feed)``),
        when neither reads what the other writes (TF1 does not order them)."""
        trains = [w for w in self.writers if w.kind == "train"]
        pairs = [(a, b) for a, b in itertools.combinations(trains, 2) if not (a.reads & b.writes) and not (b.reads & a.writes)]
        if not pairs:
            return
        first, second = self.choice(pairs)
        self.feature("train:joint-run")
        joint = Tensor(
            f"{first.name}, {second.name}", "joint", first.diff | second.diff, first.reads | second.reads, first.writes | second.writes
        )
        self.writers += [joint, joint]

    def saver_save(self, indent: str) -> None:
        """``saver.save(sess, path)`` (maybe numbered by ``global_step=``) in the middle of the runs."""
        self.workdir = True
        numbered = self.flag()
        self.feature(f"saver:save{':numbered' if numbered else ''}")
        self.session.append(f'{indent}_saved = saver.save(sess, os.path.join(_workdir, "model"){", global_step=3" if numbered else ""})')

    def saver_restore(self, indent: str, eval_ok: bool) -> None:
        """``saver.restore(sess, path)`` after the later runs changed the variables, then a run."""
        self.session.append(f"{indent}saver.restore(sess, _saved)")
        self.run(indent, eval_ok)

    def run_latest(self, indent: str) -> None:
        """A run fetching every layer and cell output (see ``latest``)."""
        feed = self.feed(frozenset().union(*(t.reads for t in self.latest)), False, indent)
        names = ", ".join(t.name for t in self.latest)
        self.session.append(f"{indent}{self.fresh('r')} = sess.run([{names}]{', ' + feed if feed else ''})")

    def rebind_by_last_run(self, indent: str) -> bool:
        """The last run binds its value to the name of the tensor it fetches (``t5 = sess.run(t5)``,
        DeepLearningZeroToAll's ``b = sess.run(hypothesis)`` after ``b = tf.Variable(...)``: TFM129
        renames the graph's binding); nothing reads the name after it."""
        tensors = [t for t in self.tensors if t.name.isidentifier() and t.name[0] in "ts" and t.name in {f.name for f in self.fetchable}]
        if not tensors:
            return False
        tensor = self.choice(tensors)
        self.feature("python:rebound-by-run")
        feed = self.feed(tensor.reads, False, indent)
        self.session.append(f"{indent}{tensor.name} = sess.run({tensor.name}{', ' + feed if feed else ''})")
        return True

    def run_inline_assign(self, indent: str, hist: str, loop: bool, eval_ok: bool) -> None:
        """An assign op built in the run from Python values (``v.assign(v * 0.5 + 0.1 * i).eval()``)."""
        var = self.choice(sorted(self.variables))
        style = self.choice(["run", "eval"] if eval_ok else ["run"])
        self.feature(f"assign-inline:{style}")
        value = f"{var} * 0.5 + {self.choice(['0.1', 'scale'] + (['0.1 * i'] if loop else []))}"
        op = self.choice([f"tf.assign({var}, {value})", f"{var}.assign({value})"])
        result = self.fresh("r")
        self.session.append(f"{indent}{result} = " + (f"sess.run({op})" if style == "run" else f"{op}.eval()"))
        if loop:
            self.session.append(f"{indent}{hist}.append({result})")

    def run_writer(self, writer: Tensor, indent: str, hist: str, loop: bool, eval_ok: bool) -> None:
        feed = self.feed(writer.reads, loop, indent, writer.writes)
        feed_arg = f", feed_dict={feed}" if feed else ""
        if writer.kind == "joint":  # two train ops of disjoint variables in one run, maybe with their losses
            losses = sorted(writer.diff)
            if self.flag():
                result = self.fresh("r")
                self.session.append(f"{indent}_, _, {result}_0, {result}_1 = sess.run([{writer.name}, {', '.join(losses)}]{feed_arg})")
                if loop:
                    self.session.append(f"{indent}{hist}.append([{result}_0, {result}_1])")
            else:
                self.session.append(f"{indent}sess.run([{writer.name}]{feed_arg})")
            return
        if writer.kind == "train":
            loss = next(iter(writer.diff))
            style = self.choice(["with_loss", "alone", "op_run"] if eval_ok else ["with_loss", "alone"])
            if style == "with_loss" and loss in self.variables:
                style = "alone"  # a variable fetched with its own update: TF1 reads it before or after, in no fixed order
            self.feature(f"train:{style}")
            if style == "with_loss":
                result = self.fresh("r")
                self.session.append(f"{indent}_, {result} = sess.run([{writer.name}, {loss}]{feed_arg})")
                if loop:
                    self.session.append(f"{indent}{hist}.append({result})")
            elif style == "alone":
                self.session.append(f"{indent}sess.run({writer.name}{feed_arg})")
            else:
                self.session.append(f"{indent}{writer.name}.run({'feed_dict=' + feed if feed else ''})")
            return
        style = self.choice(["fetched", "eval", "op_run"] if eval_ok else ["fetched"])
        self.feature(f"assign-run:{style}")
        result = self.fresh("r")
        if style == "op_run":
            self.session.append(f"{indent}{writer.name}.op.run()")
            return
        call = f"sess.run({writer.name}{feed_arg})" if style == "fetched" else f"{writer.name}.eval()"
        self.session.append(f"{indent}{result} = {call}")
        if loop:
            self.session.append(f"{indent}{hist}.append({result})")


@st.composite
def tf1_programs(draw) -> Program:
    """A random TF1 graph-mode program (see the module docstring)."""
    b = _Builder(draw)
    for _ in range(draw(st.integers(1, 3))):
        b.placeholder()
    for _ in range(draw(st.integers(0, 3))):
        b.variable()
    if draw(st.integers(0, 4)) == 0:
        b.dataset()
    for _ in range(draw(st.integers(1, 5))):
        b.op()
    if draw(st.integers(0, 3)) == 0:  # (maybe in a graph factory's body: pkmital's autoencoder)
        b.mlp_loop()
    b.graph.append(FACTORY_END)
    builders = {
        "gradient": b.gradient,
        "assign": b.assign,
        "optimizer": b.optimizer,
        "op": b.op,
        "helper": b.helper,
    }
    for step in draw(st.lists(st.sampled_from(list(builders)), max_size=4)):
        builders[step]()
    # the last release's rewrites, drawn on their own so that each comes up often enough
    latest = {"loss": b.loss, "rnn": b.rnn, "layers": b.layer_helper}
    for step in draw(st.lists(st.sampled_from(list(latest)), max_size=2)):
        latest[step]()
    # session 17's: rewrites that landed after the grammar's last change
    recent = {"graph_layer": b.graph_layer, "scoped_training": b.scoped_training, "scoped_loop": b.scoped_loop}
    for step in draw(st.lists(st.sampled_from(list(recent)), max_size=2)):
        recent[step]()
    # session 18's: 0.x spellings, batch normalization's UPDATE_OPS and control flow; session 19's MLP loops
    newest = {"zero_x": b.zero_x, "control_flow": b.control_flow, "batch_norm": b.batch_norm, "mlp_loop": b.mlp_loop}
    for step in draw(st.lists(st.sampled_from(list(newest)), max_size=2)):
        newest[step]()
    # session 25's: TF1 initializer objects, Keras layers in graph code
    for _ in range(draw(st.integers(0, 2))):
        b.initialized_variable()
    if draw(st.integers(0, 5)) == 5:  # (kept on TF1 today, TFM306: rare, so the conversion rate shows the rest)
        b.keras_layer()
    if draw(st.integers(0, 15)) == 7:  # (keeps the graph on TF1: rare, so the conversion rate shows the rest)
        b.py_func()
    if draw(st.integers(0, 2)) == 0:
        b.optimizer()
    # session 25's: two train steps in one run, summaries, a Saver (the graph's last statements)
    if draw(st.integers(0, 2)) == 0:
        b.joint_train()
    if draw(st.integers(0, 3)) == 0:
        b.summaries()
    saver = bool(b.variables or b.hidden) and draw(st.integers(0, 3)) == 0
    if saver:
        b.graph.append(f"saver = tf.train.Saver({draw(st.sampled_from(['', 'max_to_keep=2']))})")
    if not b.fetchable:
        b.fetchable.append(b.tensors[-1])

    session = draw(st.sampled_from(["with", "plain", "interactive"]))
    b.feature(f"session:{session}")
    eval_ok = session != "plain"
    indent = "    " if session == "with" else ""
    b.session.append(
        indent
        + draw(
            st.sampled_from(
                ["sess.run(tf.global_variables_initializer())", "tf.global_variables_initializer().run()"]
                if eval_ok
                else ["sess.run(tf.global_variables_initializer())"]
            )
        )
    )
    b.session += [indent + init for init in b.inits]
    idle = []
    if draw(st.integers(0, 5)) == 0:  # a session nothing uses, with its configuration (PINN-laminar-flow)
        b.feature("session:idle-in-device")
        idle = [
            'with tf.device("/cpu:0"):',
            "    config = tf.ConfigProto()",
            "    config.gpu_options.allow_growth = True",
            "    idle = tf.Session(config=config)",
        ]
    runs = draw(st.integers(1, 4))
    # a Python value the graph read, rebound before the runs or between two of them
    rebind_at = draw(st.sampled_from([None, 0] + list(range(1, runs))))
    # session 25's runs: of the merged summaries, of a list's items by the loop's index, through a function
    # given the feed dict; a checkpoint saved after one of the runs and restored after the last
    specials = (["summary"] if b.merged else []) + (["save"] if saver else [])
    specials += [kind for kind in ("indexed", "passed") if draw(st.integers(0, 4)) == 0]
    placed = {kind: draw(st.integers(0, runs - 1)) for kind in specials}
    for index in range(runs):
        if index == rebind_at:
            b.feature(f"python:rebound-{'before' if index == 0 else 'between'}-runs")
            b.session.append(f"{indent}scale = {10.0 * (index + 1)}  # TF1 built its graph with scale = 0.5")
        b.run(indent, eval_ok)
        for kind in [kind for kind, at in placed.items() if at == index]:
            {"summary": b.run_summary, "save": b.saver_save, "indexed": b.run_indexed, "passed": b.run_passed_feed}[kind](indent)
    if saver:
        b.saver_restore(indent, eval_ok)
    if b.latest:
        b.run_latest(indent)
    rebound = draw(st.integers(0, 4)) == 0 and b.rebind_by_last_run(indent)

    opening = {"with": ["with tf.Session() as sess:"], "plain": ["sess = tf.Session()"], "interactive": ["sess = tf.InteractiveSession()"]}[
        session
    ]
    closing = ["sess.close()"] if session == "plain" and draw(st.booleans()) else []
    if not rebound and draw(st.integers(0, 3)) == 0:  # TF1 starts every variable again from its initial value
        # (before the graph is written out: an op built between its runs may add a placeholder)
        b.feature("session:second")
        closing.append("with tf.Session() as sess:")
        b.session, first = ["    sess.run(tf.global_variables_initializer())"] + ["    " + init for init in b.inits], b.session
        b.run("    ", True)
        closing += b.session
        b.session = first
    if draw(st.integers(0, 4)) == 0:
        closing += b.model_class()
    if draw(st.integers(0, 7)) == 0:
        closing += b.per_call_class()
    if draw(st.integers(0, 3)) == 0:  # session 22's: a statement under an ``if`` TF1 decided while building
        _static_branch(b, draw)
    # session 19's: the graph's first statements built by a factory the script calls, or tensors read through a dict
    later = [idle, opening, b.session, closing]
    form = draw(st.sampled_from(["none", "none", "factory", "tensor_dict"]))
    if form == "factory":
        _factory(b, draw, later)
    elif form == "tensor_dict":
        _tensor_dict(b, draw, later)
    b.graph.remove(FACTORY_END)
    modules: dict[str, str] = {}
    lines = ["import numpy as np", "import tensorflow as tf", ""]
    if (b.defs or session != "with") and draw(st.integers(0, 2)) == 0:
        # a project: the helpers, net classes and maybe a session factory in modules of their own
        opening, modules, imports = _project(b, draw, opening, session, closing)
        main_code = _qualified(b.graph + idle + opening + b.session + closing, imports)
        b.defs, b.graph, idle, opening, b.session, closing = [], main_code, [], [], [], []
        lines[2:2] = imports.lines
    if draw(st.booleans()):
        b.feature("set_random_seed")
        lines.append(f"tf.set_random_seed({draw(st.integers(0, 9))})")
    if b.workdir:  # (a name verify does not compare: each run makes its own directory)
        lines[0:0] = ["import os", "import tempfile"]
        lines.append('_workdir = tempfile.mkdtemp(dir=".")')
    lines += [
        "scale = 0.5",
        f"data0 = np.linspace(-1.0, 1.0, {b.batch * D}).reshape({b.batch}, {D})",
        f"data1 = np.cos(np.arange({b.batch * D}, dtype=np.float32)).reshape({b.batch}, {D})",
        "",
        *b.defs,
        *b.graph,
    ]
    return Program("\n".join(lines + idle + opening + b.session + closing) + "\n", b.features, modules)


# -- session 22's: branches TF1 decided while building the graph (rewrites/static_branches.py)
def _static_branch(b: _Builder, draw) -> None:
    """One of the graph's first statements put under an ``if`` whose test TF1 decided from the text:
    a flag or a mode string bound just before it, or the rank of a placeholder declared before it;
    the branch not taken raises (maybe through an ``elif``), or the statement follows a test that
    takes no branch.  Maybe then in a graph factory's body (pkmital's ``if len(x.get_shape()) == 2``,
    ``if debug:``)."""
    end = b.graph.index(FACTORY_END)
    candidates = [i for i, line in enumerate(b.graph[:end]) if _one_simple_statement(line)]
    if not candidates:
        return
    index = draw(st.sampled_from(candidates))
    ranked = [m.group(1) for line in b.graph[:index] if (m := re.match(rf"(\w+) = tf\.placeholder\(tf\.float32, \[None, {D}\]\)$", line))]
    flag, mode = b.fresh("debug"), b.fresh("mode")
    true_tests = [f"not {flag}", f"{mode} == 'train'", f"{flag} or {mode} != 'eval'"]
    false_tests = [flag, f"{mode} == 'eval'", f"{flag} and {mode} == 'train'"]
    if ranked:
        true_tests.append(f"len({ranked[-1]}.get_shape()) == 2")
        false_tests.append(f"{ranked[-1]}.get_shape()[1].value is None")  # (a known dimension)
        true_tests.append(f"{ranked[-1]}.get_shape()[0].value is None")
    test, other = draw(st.sampled_from(true_tests)), draw(st.sampled_from(false_tests))
    line = b.graph[index]
    kind = draw(st.sampled_from(["body", "else", "elif", "none"]))
    b.feature(f"static-branch:{kind}")
    raised = "    raise ValueError('unsupported input')"
    shapes = {
        "body": [f"if {test}:", f"    {line}", "else:", raised],
        "else": [f"if {other}:", raised, "else:", f"    {line}"],
        "elif": [f"if {other}:", raised, f"elif {test}:", f"    {line}", "else:", raised],
        "none": [f"if {other}:", raised, line],
    }
    b.graph[index : index + 1] = [f"{flag} = False", f"{mode} = 'train'", *shapes[kind]]


def _one_simple_statement(line: str) -> bool:
    """A line of its own that is one simple statement at the top (no block, no continuation)."""
    if not line or line[0].isspace() or line == FACTORY_END:
        return False
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return False
    return len(tree.body) == 1 and isinstance(tree.body[0], (ast.Assign, ast.AugAssign, ast.Expr))


# -- session 19's: graph factories and dicts of tensors (rewrites/factory_inline.py, rewrites/tensor_dicts.py)
FACTORY_END = "# <the end of the statements a graph factory may build>"  # (a marker in _Builder.graph, removed)


def _bound_at_top(tree: ast.AST) -> list[str]:
    """The names the module-level code of ``tree`` binds (in blocks too; not in functions, lambdas,
    comprehensions), in order, each once; a binding per occurrence in ``_bindings``."""
    return list(dict.fromkeys(_bindings(tree)))


def _bindings(tree: ast.AST) -> list[str]:
    names: list[str] = []
    scoped = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, scoped):
                visit(child)

    visit(tree)
    return names


def _read_through(lists: list[list[str]], holder: str, names: list[str]) -> None:
    """Each read of one of ``names`` in ``lists`` (in place) written as ``holder['name']``; a
    binding of the name (``t5 = sess.run(t5)``) stays."""
    for lines in lists:
        for index, line in enumerate(lines):
            for name in names:
                line = re.sub(rf"(?<![\w.'\"]){re.escape(name)}\b(?!\s*=(?!=))", f"{holder}['{name}']", line)
            lines[index] = line


def _factory(b: _Builder, draw, later: list[list[str]]) -> None:
    """The graph's first statements (placeholders, variables, ops, maybe an MLP loop) moved into a
    module function the script calls once at the top level, returning the tensors the rest reads:
    as a tuple (``x1, t3 = build5(3)``), a single tensor, or a dict (``net = build5()``, read as
    ``net['x1']``), maybe sized by a parameter; or called twice (TF1 built the graph twice: kept).
    The function stays in main.py of a project (TFM150 writes out only a function of the module)."""
    end = b.graph.index(FACTORY_END)
    body, after = b.graph[:end], b.graph[end + 1 :]
    bound = [name for name in _bound_at_top(ast.parse("\n".join(body))) if not name.startswith("_")]
    if not bound:
        return
    rest = "\n".join(after + [line for lines in later for line in lines])
    returned = [name for name in bound if _mentions(rest, name)] or bound[-1:]
    body_text = "\n".join(body)
    style = draw(st.sampled_from(["tuple", "dict", "twice"]))
    if style == "twice" and ("get_variable" in body_text or "get_or_create_global_step" in body_text):
        style = "tuple"  # (TF1 refuses a second variable of one name)
    sized = (f"[None, {D}]" in body_text or f"[{D}, {D}]" in body_text) and draw(st.booleans())
    default = sized and draw(st.booleans())
    b.feature(f"factory:{style}{':sized' if sized else ''}{':default' if default else ''}")
    function = b.fresh("build")
    lines = []
    for line in body:
        line = re.sub(r"\b_k\b", "_j", line)  # (no local of the module's: TFM150 would refuse the clash)
        if sized:
            line = line.replace(f"[None, {D}]", "[None, n_in]").replace(f"[{D}, {D}]", "[n_in, n_in]")
        lines.append("    " + line)
    parameters, arguments = ("n_in=3", "") if default else ("n_in", f"{D}") if sized else ("", "")
    if style == "dict":
        holder = b.fresh("net")
        result, target = "{" + ", ".join(f'"{name}": {name}' for name in returned) + "}", holder
        _read_through([after, *later], holder, returned)
    else:
        result = target = ", ".join(returned)
    call = [f"{target} = {function}({arguments})"]
    if style == "twice":
        call.append(f"_again = {function}({arguments})")
    b.graph[:] = [f"def {function}({parameters}):", *lines, f"    return {result}", "", "", *call, FACTORY_END, *after]


def _tensor_dict(b: _Builder, draw, later: list[list[str]]) -> None:
    """A dict display of graph names bound once at the top (``model3 = {"x1": x1, "t4": t4}``), after
    the graph's first statements or after all of it, the code after it reading them as
    ``model3['x1']`` in feeds, fetches and graph code."""
    at_end = draw(st.booleans())
    end = len(b.graph) if at_end else b.graph.index(FACTORY_END)
    before, after = b.graph[:end], b.graph[end:]
    everything = [line for line in b.graph if line != FACTORY_END] + [line for lines in later for line in lines]
    counts: dict[str, int] = {}
    for name in _bindings(ast.parse("\n".join(everything))):
        counts[name] = counts.get(name, 0) + 1
    rest = "\n".join(after + [line for lines in later for line in lines])
    candidates = [
        name
        for name in _bound_at_top(ast.parse("\n".join(line for line in before if line != FACTORY_END)))
        if counts.get(name) == 1 and not name.startswith("_") and _mentions(rest, name)
    ]
    if not candidates:
        return
    chosen = draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=3, unique=True))
    b.feature(f"tensor-dict:{'end' if at_end else 'start'}:{len(chosen)}")
    holder = b.fresh("model")
    _read_through([after, *later], holder, chosen)
    b.graph[:] = [*before, f"{holder} = {{" + ", ".join(f'"{name}": {name}' for name in chosen) + "}", *after]


# -- the project form: what research code keeps in modules of its own
@dataclass
class _Imports:
    """How ``main.py`` imports the project's modules: its import lines, and the names it must
    write qualified (``H.f1``) by their module alias (empty for ``from ... import`` forms)."""

    lines: list[str]
    qualified: dict[str, str]  # name -> the module alias main.py reaches it through
    renamed: dict[str, str] = field(default_factory=dict)  # a helper main.py calls through a wrapper: its first use


def _blocks(defs: list[str]) -> list[tuple[str, list[str]]]:
    """The top-level ``def`` and ``class`` blocks of ``defs``, by name."""
    blocks: list[tuple[str, list[str]]] = []
    for line in defs:
        if line.startswith(("def ", "class ")):
            name = line.split()[1].split("(")[0].rstrip(":")
            blocks.append((name, []))
        blocks[-1][1].append(line)
    return blocks


def _project(b: _Builder, draw, opening: list[str], session: str, closing: list[str]) -> tuple[list[str], dict[str, str], _Imports]:
    """Move the program's helpers, layer helpers and classes into a helper module (``helpers.py``
    or ``lib/helpers.py`` of a package), maybe with a session factory that runs the initializer
    (which main.py's session then comes from), maybe with a second module that imports the helper
    module too and wraps one of its functions for main.py; main.py imports them as research code
    does: ``from helpers import f, Net``, ``import helpers as H`` (``H.f(...)``) or
    ``from helpers import *``.  Returns main.py's session opening, the modules, and its imports."""
    module = draw(st.sampled_from(["helpers", "lib.helpers"]))
    style = draw(st.sampled_from(["from", "alias", "star"]))
    b.feature(f"project:{style}{':package' if '.' in module else ''}")
    blocks = _blocks(b.defs)
    helper_lines = ["import numpy as np", "import tensorflow as tf", "", *b.defs]
    if session != "with" and draw(st.booleans()):  # a session factory: TF1's session, initialized
        b.feature(f"project:session-factory:{session}")
        made = "tf.InteractiveSession" if session == "interactive" else "tf.Session"
        configured = draw(st.booleans())
        helper_lines += [
            "def make_session():",
            *(["    config = tf.ConfigProto()", "    config.gpu_options.allow_growth = True"] if configured else []),
            f"    sess = {made}({'config=config' if configured else ''})",
            "    sess.run(tf.global_variables_initializer())",
            "    return sess",
            "",
        ]
        blocks.append(("make_session", []))
        opening = ["sess = make_session()"]
        del b.session[0]  # (the initializer's run, which the factory does)
    names = [name for name, _ in blocks]
    main_code = "\n".join(b.graph + opening + b.session + closing)
    used = [name for name in names if _mentions(main_code, name)]
    modules = {module.replace(".", "/") + ".py": "\n".join(helper_lines).rstrip() + "\n"}
    if "." in module:
        modules["lib/__init__.py"] = ""
    alias = "H"
    imports = {
        "from": _Imports([f"from {module} import {', '.join(used)}"] if used else [f"import {module}"], {}),
        "alias": _Imports([f"import {module} as {alias}"], dict.fromkeys(used, alias)),
        "star": _Imports([f"from {module} import *"], {}),
    }[style]
    wrapped = [(name, block) for name, block in blocks if name in used and block and block[0].startswith("def ")]
    if wrapped and draw(st.booleans()):  # a second importer of the helper module
        name, block = draw(st.sampled_from(wrapped))
        b.feature("project:two-importers")
        signature = block[0][len("def ") + len(name) :].rstrip(":")
        arguments = ", ".join(
            p.split("=")[0].strip() + ("=" + p.split("=")[0].strip() if "=" in p else "") for p in signature[1:-1].split(",")
        )
        wrapper = f"via_{name}"
        modules["wrappers.py"] = "\n".join(
            [f"from {module} import {name}", "", "", f"def {wrapper}{signature}:", f"    return {name}({arguments})", ""]
        )
        imports.lines.append(
            {"from": f"from wrappers import {wrapper}", "alias": "import wrappers as W", "star": "from wrappers import *"}[style]
        )
        imports.renamed[name] = ("W." if style == "alias" else "") + wrapper
    return opening, modules, imports


def _mentions(code: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}\b", code) is not None


def _qualified(lines: list[str], imports: _Imports) -> list[str]:
    """main.py's code, its helpers' names qualified by their module alias, and the first use of a
    wrapped helper through its wrapper."""
    code = "\n".join(lines)
    for name, target in imports.renamed.items():
        code = re.sub(rf"(?<![\w.]){re.escape(name)}\b", target, code, count=1)
    for name, alias in imports.qualified.items():
        code = re.sub(rf"(?<![\w.]){re.escape(name)}\b", f"{alias}.{name}", code)
    return code.split("\n")
