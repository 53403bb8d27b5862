"""Codes for the reasons a graph stays on TF1 semantics.

The rule is all-or-nothing: when any site of a file's graphs cannot be converted with
its meaning kept, none of the file's graph code becomes eager (it keeps running under
TF2 through tf.compat.v1, see TFM404) and every blocking site is reported.
"""

from tf2migrate.diagnostics import FixSafety, Rule, Severity

_LEFT_ALONE = (
    "tf2migrate converts a file's graphs all or nothing, so this file's graph keeps TF1 "
    "semantics (tf.compat.v1 names and tf.compat.v1.disable_eager_execution(), TFM404). "
    "Partial conversion of one graph is worse than none: it would mix graph tensors and "
    "eager values."
)

GRAPH_VALUE_OUTSIDE_RUN = Rule(
    "TFM301",
    "graph-value-used-outside-run",
    "A graph tensor or placeholder is used outside a Session run.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports a placeholder, a graph tensor, a loop variable of graph-building code, or "
    "a static property of a graph tensor (`n = y.shape[1]`, `x.get_shape()`) used by ordinary Python "
    "code, not as a fetch or feed of `sess.run`/`.eval()`. A `print` or `assert` that reads graph "
    "tensors only for their description, `.shape`, `.get_shape()`, `.dtype` (or a printed `.name`) "
    "is converted instead (TFM113); one that reads their value or builds ops from them "
    "(`print(y + 1.0)`) is reported here, with that expression, as is an identity test bound in "
    "graph code (`missing = grads[1] is None`: a Python bool, not a tensor a run could fetch).",
    why="After migration the tensor is computed inside a generated function, so the name no "
    "longer exists where this code reads it. " + _LEFT_ALONE,
    example="y = tf.matmul(x, W)\nn_out = int(y.shape[1])   # reads the graph tensor",
    instead="Read the value through `sess.run(y, ...)`, or compute static facts (shapes) from the placeholder's declared shape.",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = 2.0 * x\n"
        "n = int(y.shape[0] or 0)\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "y = 2.0 * x\n"
        "print(y.shape)\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(y, {x: [1.0]}))\n",
    ),
)
UNSUPPORTED_FEED = Rule(
    "TFM302",
    "unsupported-feed",
    "A feed_dict that tf2migrate cannot map to function arguments.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports a run site whose `feed_dict` is not a dict display (or a variable bound once "
    "to one) keyed by placeholders, that feeds a tensor that is not a placeholder, or that "
    "does not feed a placeholder the fetches need.",
    why="Every placeholder becomes an argument of a generated function; the argument values must be known at the call. " + _LEFT_ALONE,
    instead="Build the feed as a literal `{x: value}` at the run site.",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "W = tf.Variable(1.0)\n"
        "y = W * x\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(y, {x: [1.0], W: 3.0}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "W = tf.Variable(1.0)\n"
        "y = W * x\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(y, {x: [1.0]}))\n",
    ),
)
UNSUPPORTED_SESSION = Rule(
    "TFM303",
    "unsupported-session-use",
    "A Session is used in a way tf2migrate does not convert.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports `run` options or metadata, partial runs, a session passed to other code "
    "(for example `saver.save(sess, ...)`), `tf.get_default_session()`, or a session on an "
    "object attribute.",
    why="Only run sites whose fetches and feeds are visible can become function calls. " + _LEFT_ALONE,
    invalid=("import tensorflow as tf\ny = tf.constant([1.0]) * 2.0\nwith tf.train.MonitoredSession() as sess:\n    print(sess.run(y))\n",),
    valid=("import tensorflow as tf\ny = tf.constant([1.0]) * 2.0\nwith tf.Session() as sess:\n    print(sess.run(y))\n",),
)
VARIABLE_IN_COMPUTATION = Rule(
    "TFM304",
    "variables-created-in-computation",
    "Variables are created from placeholder-dependent values.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports a statement that both creates variables (tf.Variable, tf.get_variable, "
    "tf.layers, a helper that creates them) and reads placeholders or graph tensors.",
    why="A generated function runs on every call; variables must be created once, where the TF1 program created them. " + _LEFT_ALONE,
    instead="Create the variables from constants or shapes, then use them in the computation.",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "h = tf.layers.dense(x, 3, kernel_regularizer=lambda w: tf.nn.l2_loss(w))\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(h, {x: [[1.0, 2.0]]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "h = tf.layers.dense(x, 3)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(h, {x: [[1.0, 2.0]]}))\n",
    ),
)
UNSUPPORTED_GRADIENTS = Rule(
    "TFM305",
    "unsupported-gradients",
    "A tf.gradients call that cannot be turned into a GradientTape with the same meaning.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports `tf.gradients` with `stop_gradients`, options given by position, or a source that is not a named tensor "
    "(a gradient taken in a loop or `if` of graph code is kept as `tf.gradients` in a tf.function instead, TFM203).",
    why="A tape records only what runs inside it; tf2migrate never emits a tape that cannot see the computation. " + _LEFT_ALONE,
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "a = tf.tanh(x)\n"
        "y = a * x\n"
        "dy = tf.gradients(y, x, stop_gradients=[a])[0]\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(dy, {x: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "a = tf.stop_gradient(tf.tanh(x))\n"
        "y = a * x\n"
        "dy = tf.gradients(y, x)[0]\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(dy, {x: [1.0]}))\n",
    ),
)
UNSUPPORTED_GRAPH_CODE = Rule(
    "TFM306",
    "unsupported-graph-code",
    "Graph-building code that tf2migrate cannot move into a function.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports graph-building statements that tf2migrate cannot move into generated "
    "functions with their meaning kept: placeholders inside control flow or in a dict, a graph "
    "built from a constructor's local (generated methods cannot see it), or from "
    "a Python value that changes (or is mutated) before the graph runs, Python side effects "
    "in graph-building code (they would run on every call), training ops and optimizers this "
    "release does not convert (see TFM121), summaries, collections, queues, TF1 `tf.data` "
    "iterators, modules outside the public TF1 API (`tensorflow.contrib`, "
    "`tensorflow.python`), fetches defined after the code that runs them, or a run whose "
    "variable updates and reads TF1 left in no fixed order (an update and a read of one variable "
    "with no dependency between them; a `tf.identity(v)` fetched from a run that then updates "
    "`v`, which TF1's ref variables returned after the update).  A call of a "
    "function of another module of the run is converted when that function is a pure graph "
    "builder (it makes ops only from its arguments), and so is the call of a net object "
    "(a class whose `__init__` makes the variables and whose `__call__` is a pure builder); "
    "any other helper is named, with its module and the reason.",
    why="Under `tf.function` a function's Python runs when it is traced, once, as TF1 ran "
    "graph-building code once while building the graph: a pure builder called there makes "
    "the very ops TF1 made, so it may move; a helper that creates variables, has side "
    "effects, draws random numbers or reads module state would do so again. " + _LEFT_ALONE,
    invalid=("import tensorflow as tf\nwith tf.Session() as sess:\n    print(sess.run(tf.global_variables()))\n",),
    valid=("import tensorflow as tf\ny = tf.constant(7.0) * 2\nwith tf.Session() as sess:\n    print(sess.run(y))\n",),
)
CLASS_BASED_GRAPH = Rule(
    "TFM307",
    "class-based-graph",
    "A graph built on an object (self.placeholder / self.sess) that cannot be converted.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports placeholders and sessions stored on `self` when the class is not of the "
    "converted shape: a graph built in `__init__` of a module-level class (or in methods the "
    "constructor calls once, as statements of their own, that return nothing, or that the "
    "program, a module of the same run, calls right after constructing the object) and run by "
    "its own methods is converted (generated `compute_…` methods); one built in other methods, run "
    "by code outside the class, or whose attributes are read from outside, is not.",
    why="Class-based graphs are converted as a whole class or not at all. " + _LEFT_ALONE,
    invalid=(
        "import tensorflow as tf\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None])\n"
        "        self.y = 2.0 * self.x\n"
        "        self.sess = tf.Session()\n"
        "\n"
        "    def predict(self, x):\n"
        "        return self.sess.run(self.y, {self.x: x})\n"
        "\n"
        "m = M()\n"
        "print(m.sess.run(m.y, {m.x: [1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None])\n"
        "        self.y = 2.0 * self.x\n"
        "        self.sess = tf.Session()\n"
        "\n"
        "    def predict(self, x):\n"
        "        return self.sess.run(self.y, {self.x: x})\n"
        "\n"
        "m = M()\n"
        "print(m.predict([1.0]))\n",
    ),
)
REINITIALIZATION = Rule(
    "TFM308",
    "variables-reinitialized",
    "Variables are initialized more than once.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports initializer runs that cover a variable an earlier run already initialized in the same "
    "graph with another run of the file between them (one initializer run twice, a global initializer built "
    "after others, a run inside a loop); with no run between, nothing saw the first value and both runs go.",
    why="Running an initializer again resets the variables; eager variables are initialized "
    "once, when created, so removing the second run would change the results. " + _LEFT_ALONE,
    invalid=(
        "import tensorflow as tf\n"
        "W = tf.Variable(1.0)\n"
        "init = tf.global_variables_initializer()\n"
        "with tf.Session() as sess:\n"
        "    sess.run(init)\n"
        "    sess.run(W.assign(3.0))\n"
        "    sess.run(init)\n"
        "    print(sess.run(W))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "W = tf.Variable(1.0)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    V = tf.Variable(2.0)\n"
        "    sess.run(V.initializer)\n"
        "    print(sess.run(W + V))\n",
    ),
)
GRAPH_GROWS_PER_CALL = Rule(
    "TFM309",
    "graph-grows-per-call",
    "A function builds new graph ops from the graph's tensors every time it is called.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports TF ops (often `tf.gradients`) built from a graph's tensors inside a method or "
    "function that runs later, typically in a loop, and run in the long-lived session.",
    why="In TF1 each call adds nodes to the graph, which grows until memory runs out "
    "(ResourceExhaustedError). Pure TF ops of the constructor's tensors, fetched by the method's "
    "session runs only, are built once and converted (TFM116); these read a Python value of the call, "
    "draw random numbers, change state or leave the method, and this release does not stitch such "
    "pieces together. " + _LEFT_ALONE,
    example="def grad_u(self, X, w):\n    g = tf.gradients(self.u_pred, self.x_tf, grad_ys=w)[0]   # new ops per call\n"
    "    return self.sess.run(g, {self.x_tf: X})",
    instead="Build `g` once in `__init__` (`self.g = tf.gradients(self.u_pred, self.x_tf, grad_ys=self.w_tf)[0]`, "
    "`self.w_tf` a placeholder) and fetch `self.g` in the method, feeding `w`; tf2migrate then turns it into a tape.",
    invalid=(
        "import tensorflow as tf\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None])\n"
        "        self.y = 2.0 * self.x\n"
        "        self.sess = tf.Session()\n"
        "\n"
        "    def predict(self, x):\n"
        "        return self.sess.run(self.y, {self.x: x})\n"
        "\n"
        "    def grad(self, x, w):\n"
        "        g = tf.gradients(self.y, self.x, grad_ys=w)[0]\n"
        "        return self.sess.run(g, {self.x: x})\n"
        "\n"
        "print(M().grad([1.0], [2.0]))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None])\n"
        "        self.y = 2.0 * self.x\n"
        "        self.sess = tf.Session()\n"
        "\n"
        "    def predict(self, x):\n"
        "        return self.sess.run(self.y, {self.x: x})\n",
    ),
)
UNRUN_STATE_CHANGE = Rule(
    "TFM310",
    "state-change-tf1-did-not-run",
    "A stateful op TF1 did not run (or may not have run) would run after migration.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports an assignment, scatter update or Python function called from the graph "
    "(`tf.assign_add`, `W.assign`, `tf.scatter_add`, `tf.py_func` …) that TF1 built but did "
    "not run: its value is thrown away (a statement of its own, a helper's local nothing "
    "reads, the unfetched one of several values a statement binds, an update in a list or dict of "
    "which the run fetches one element), or it is part of the forward pass of a gradient or train step whose run fetches "
    "no value that needs it, and no gradient function of the run certainly reads its value. Certainly "
    "read, and converted: an operand of a product (`*`, `/`, `tf.matmul`, `tf.nn.conv2d`) whose other operand "
    "depends on a differentiated source, the input of `tf.square`, `tf.math.log`, `tf.maximum` …, the "
    "output of `tf.nn.relu`, `tf.sigmoid`, `tf.tanh`, `tf.nn.softmax` … (values made under "
    "`tf.control_dependencies` of the op included: a hand-written batch norm's moving averages).",
    why="A TF1 session runs only the ops its fetches need, and a gradient needs only the "
    "forward values its gradient functions read. Migrated code runs every statement it "
    "contains, and `tf.function` every stateful op of its body, so the variable would change "
    "where it did not. " + _LEFT_ALONE,
    example="y = W * x + tf.assign_add(calls, 1.0) * 0.0\ng = tf.gradients(y, x)[0]\nsess.run(g, {x: 1.0})          # TF1: calls stays 0",
    instead="Fetch the op where it should run (`sess.run([g, count])`), put it under "
    "`tf.control_dependencies` of a value the run fetches, or delete it if it was never meant "
    "to run.",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [])\n"
        "calls = tf.Variable(0.0)\n"
        "y = 3.0 * x + tf.assign_add(calls, 1.0) * 0.0\n"
        "g = tf.gradients(y, x)[0]\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(g, {x: 1.0}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [])\n"
        "calls = tf.Variable(0.0)\n"
        "count = tf.assign_add(calls, 1.0)\n"
        "y = 3.0 * x\n"
        "g = tf.gradients(y, x)[0]\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run([g, count], {x: 1.0}))\n",
    ),
)
SHARED_BY_NAME = Rule(
    "TFM311",
    "variables-shared-by-name",
    "Variables are shared by name (variable_scope reuse), which eager TF2 does not do.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports `reuse=True` or `reuse=tf.AUTO_REUSE` (in `tf.variable_scope`, `tf.get_variable`, "
    "`tf.make_template`) and `scope.reuse_variables()` in a graph that would become eager "
    "(`tf.layers`' `reuse=` is refused with the layer, TFM304).",
    why="Outside a graph, `tf.compat.v1.get_variable` creates a new variable at every call: "
    "two names that shared one variable in TF1 would hold two, and an update of one would "
    "not be seen through the other. " + _LEFT_ALONE,
    example='with tf.variable_scope("s", reuse=True):\n    b = tf.get_variable("w")   # the same variable as s/w',
    instead="Create the variable once and pass the Python object where it is reused.",
    invalid=(
        "import tensorflow as tf\n"
        'with tf.variable_scope("s"):\n'
        '    a = tf.get_variable("w", [2], initializer=tf.ones_initializer())\n'
        'with tf.variable_scope("s", reuse=True):\n'
        '    b = tf.get_variable("w", [2])\n'
        "x = tf.placeholder(tf.float32, [2])\n"
        "y = b * x\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(y, {x: [1.0, 1.0]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        'with tf.variable_scope("s"):\n'
        '    a = tf.get_variable("w", [2], initializer=tf.ones_initializer())\n'
        "x = tf.placeholder(tf.float32, [2])\n"
        "y = a * x\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(y, {x: [1.0, 1.0]}))\n",
    ),
)
# Not a blocker: the analysis drops a TFM309 blocker for a method nothing calls and says so.
UNCALLED_GRAPH_METHOD = Rule(
    "TFM112",
    "uncalled-graph-method-kept",
    "A method nothing in the file calls builds graph ops from attributes that no longer exist.",
    Severity.WARNING,
    FixSafety.SAFE,
    what="Reports a method of a converted class that would build new ops from its placeholders "
    "or tensors each time it runs (TFM309), but that no code of the file calls: it is kept as "
    "written instead of keeping the whole class on TF1.",
    why="Calling it after the migration raises AttributeError (the attributes it reads are "
    "gone) rather than computing something wrong; delete it, or rewrite it on the generated "
    "methods, if other modules call it.",
    invalid=(
        "import tensorflow as tf\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None])\n"
        "        self.y = 2.0 * self.x\n"
        "        self.sess = tf.Session()\n"
        "\n"
        "    def predict(self, x):\n"
        "        return self.sess.run(self.y, {self.x: x})\n"
        "\n"
        "    def grad(self):\n"
        "        return tf.gradients(self.y, self.x)[0]\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "class M:\n"
        "    def __init__(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None])\n"
        "        self.y = 2.0 * self.x\n"
        "        self.sess = tf.Session()\n"
        "\n"
        "    def predict(self, x):\n"
        "        return self.sess.run(self.y, {self.x: x})\n",
    ),
)

RULES = [
    UNCALLED_GRAPH_METHOD,
    GRAPH_GROWS_PER_CALL,
    GRAPH_VALUE_OUTSIDE_RUN,
    UNSUPPORTED_FEED,
    UNSUPPORTED_SESSION,
    VARIABLE_IN_COMPUTATION,
    UNSUPPORTED_GRADIENTS,
    UNSUPPORTED_GRAPH_CODE,
    CLASS_BASED_GRAPH,
    REINITIALIZATION,
    UNRUN_STATE_CHANGE,
    SHARED_BY_NAME,
]
