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
    "a static property of a graph tensor (`y.shape`, `x.get_shape()`) used by ordinary Python "
    "code, not as a fetch or feed of `sess.run`/`.eval()`.",
    why="After migration the tensor is computed inside a generated function, so the name no "
    "longer exists where this code reads it. " + _LEFT_ALONE,
    example="y = tf.matmul(x, W)\nprint(y.shape)          # reads the graph tensor",
    instead="Read the value through `sess.run(y, ...)`, or compute static facts (shapes) from "
    "the placeholder's declared shape.",
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
    why="Every placeholder becomes an argument of a generated function; the argument values "
    "must be known at the call. " + _LEFT_ALONE,
    instead="Build the feed as a literal `{x: value}` at the run site.",
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
)
VARIABLE_IN_COMPUTATION = Rule(
    "TFM304",
    "variables-created-in-computation",
    "Variables are created from placeholder-dependent values.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports a statement that both creates variables (tf.Variable, tf.get_variable, "
    "tf.layers, a helper that creates them) and reads placeholders or graph tensors.",
    why="A generated function runs on every call; variables must be created once, where the "
    "TF1 program created them. " + _LEFT_ALONE,
    instead="Create the variables from constants or shapes, then use them in the computation.",
)
UNSUPPORTED_GRADIENTS = Rule(
    "TFM305",
    "unsupported-gradients",
    "A tf.gradients call that cannot be turned into a GradientTape with the same meaning.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports `tf.gradients` with `stop_gradients`, or a gradient taken inside control "
    "flow of the graph-building code.",
    why="A tape records only what runs inside it; tf2migrate never emits a tape that cannot "
    "see the computation. " + _LEFT_ALONE,
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
    "`tensorflow.python`), or fetches defined after the code that runs them.",
    why=_LEFT_ALONE,
)
CLASS_BASED_GRAPH = Rule(
    "TFM307",
    "class-based-graph",
    "A graph built on an object (self.placeholder / self.sess) that cannot be converted.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports placeholders and sessions stored on `self` when the class is not of the "
    "converted shape: a graph built in `__init__` of a module-level class (or in methods the "
    "constructor calls once, as statements of their own, that return nothing) and run by its "
    "own methods is converted (generated `compute_…` methods); one built in other methods, run "
    "by code outside the class, or whose attributes are read from outside, is not.",
    why="Class-based graphs are converted as a whole class or not at all. " + _LEFT_ALONE,
)
REINITIALIZATION = Rule(
    "TFM308",
    "variables-reinitialized",
    "Variables are initialized more than once.",
    Severity.ERROR,
    FixSafety.NONE,
    what="Reports an initializer run more than once or inside a loop.",
    why="Running an initializer again resets the variables; eager variables are initialized "
    "once, when created, so removing the second run would change the results. " + _LEFT_ALONE,
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
    "(ResourceExhaustedError). The eager equivalent is a plain computation, but the pieces it "
    "needs live in other functions, which this release does not stitch together. " + _LEFT_ALONE,
    example="def grad_u(self, X):\n    g = tf.gradients(self.u_pred, self.x_tf)[0]   # new ops per call\n"
    "    return self.sess.run(g, {self.x_tf: X})",
    instead="Build `g` once in `__init__` (`self.g = tf.gradients(self.u_pred, self.x_tf)[0]`) and "
    "fetch `self.g` in the method; tf2migrate then turns it into a tape.",
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
]
