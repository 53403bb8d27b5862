"""The graph facts' data model: statement kinds, statements, scopes, run sites, facts.

What ``analysis/graph.py`` computes once per file and every rewrite reads; no logic but
the look-ups that only follow the model (which statement binds a name, a class's methods).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from tf2migrate.analysis.summaries import Summary
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import Rule

if TYPE_CHECKING:
    from tf2migrate.analysis.descriptions import Description
    from tf2migrate.analysis.helper_arguments import HelperArguments
    from tf2migrate.analysis.layer_helpers import LayerHelper, LayerHelperCall
    from tf2migrate.analysis.layer_variable_lists import LayerVariableList
    from tf2migrate.analysis.session_parameters import SessionParameter


class Kind(enum.Enum):
    PLACEHOLDER = "placeholder"
    VARIABLE = "variable"
    TENSOR = "tensor"
    INIT = "init"
    SESSION = "session"
    CONFIG = "config"
    DROP = "drop"
    OPTIMIZER = "optimizer"  # ``opt = tf.train.AdamOptimizer(lr)`` → a Keras optimizer, kept
    TRAIN = "train op"  # ``train_op = opt.minimize(loss)`` → a train-step function
    SCIPY = "scipy optimizer"  # ``ScipyOptimizerInterface(loss, ...)`` → scipy.optimize.minimize
    GRADS = "gradients and variables"  # ``gvs = opt.compute_gradients(loss)`` → after the tape
    SAVER = "saver"  # ``saver = tf.train.Saver()`` → a tf.train.Checkpoint, kept
    PYTHON = "python"


GRAPH_KINDS = frozenset(
    {Kind.PLACEHOLDER, Kind.TENSOR, Kind.VARIABLE, Kind.INIT, Kind.TRAIN, Kind.OPTIMIZER, Kind.SCIPY, Kind.GRADS, Kind.SAVER}
)
# Kinds whose names vanish after migration: reading them from kept code is a blocker.
VANISHING_KINDS = frozenset(
    {
        Kind.PLACEHOLDER,
        Kind.TENSOR,
        Kind.INIT,
        Kind.CONFIG,
        Kind.SESSION,
        Kind.DROP,
        Kind.TRAIN,
        Kind.OPTIMIZER,
        Kind.SCIPY,
        Kind.GRADS,
    }
)


@dataclass
class TF1Iterator:
    """``it = dataset.make_one_shot_iterator()`` (or ``make_initializable_iterator``, or
    ``tf.data.make_*_iterator(dataset)``): analysis/iterators.py, rewrites/tf1_iterators.py."""

    name: str
    dataset: str  # the name of the dataset it iterates
    initializable: bool
    statement: Statement
    call: cst.Call
    scope: Scope
    get_next: list[cst.Call] = field(default_factory=list)  # its ``it.get_next()`` statements' calls


@dataclass
class Placeholder:
    name: str
    dtype: cst.BaseExpression | None
    default: cst.BaseExpression | None  # placeholder_with_default's value
    call: cst.Call
    shape: cst.BaseExpression | None = None
    # ``x, y = it.get_next()``: the element of a TF1 iterator, an argument fed by the
    # run's own ``it.get_next()`` (``name`` is the argument, the statement defines x, y)
    iterator: TF1Iterator | None = None


@dataclass
class Statement:
    node: cst.BaseStatement
    order: int
    kind: Kind
    defines: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    deps: frozenset[int] = frozenset()
    placeholder: Placeholder | None = None
    gradient_calls: tuple[cst.Call, ...] = ()
    calls_gradient_helper: bool = False
    value_kind: str = "unknown"  # of a single defined name: tensor | list | variable | unknown
    compound: bool = False
    layer_calls: tuple[cst.Call, ...] = ()  # tf.layers.* calls that become Keras layers
    # TF1 RNN cells (of a VARIABLE statement) and dynamic_rnn calls written out in TF2 ops (rewrites/rnn_cells.py)
    rnn_calls: tuple[cst.Call, ...] = ()
    # VARIABLE: the placeholders a converted ``DropoutWrapper`` it makes (or a cell it stacks)
    # reads as its keep probability, fed at each run: inputs of every function running the cell
    fed_cell_inputs: frozenset[int] = frozenset()
    # calls of the file's layer helpers, which apply layers made once (analysis/layer_helpers.py)
    layer_helper_calls: tuple[LayerHelperCall, ...] = ()
    minimize: cst.Call | None = None  # TRAIN: the ``opt.minimize(loss, ...)`` call; SAVER: ``tf.train.Saver(...)``
    schedule_calls: tuple[cst.Call, ...] = ()  # tf.train.*_decay calls that become Keras schedules
    # tf.metrics.accuracy calls whose update op alone the statement binds (rewrites/streaming_metrics.py)
    metric_calls: tuple[cst.Call, ...] = ()
    global_step: cst.Call | None = None  # VARIABLE: ``tf.train.get_or_create_global_step()``
    # Python names a graph-building block binds (its loop variables): not graph values
    loop_targets: tuple[str, ...] = ()

    def minimize_call(self) -> cst.Call:
        """``minimize`` of a statement whose kind sets it (TRAIN, GRADS, SCIPY, SAVER)."""
        assert self.minimize is not None, self.kind
        return self.minimize


class RunForm(enum.Enum):
    """How a run site runs the graph."""

    SESSION_RUN = "session.run"  # ``sess.run(fetches, feed_dict)``
    EVAL = "eval"  # ``tensor.eval(feed_dict)``
    OP_RUN = "op.run"  # ``op.run(feed_dict)``
    SCIPY = "scipy"  # ``scipy_interface.minimize(sess, feed_dict, fetches)``
    INSTANCE = "instance"  # ``model.sess.run(...)``: a converted class's session, outside the class

    @property
    def label(self) -> str:
        """The name findings give the run form."""
        return _RUN_FORM_LABELS[self]


_RUN_FORM_LABELS = {
    RunForm.SESSION_RUN: "Session.run",
    RunForm.EVAL: "Tensor.eval",
    RunForm.OP_RUN: "Operation.run",
    RunForm.SCIPY: "minimize",
    RunForm.INSTANCE: "Session.run",
}


@dataclass
class RunSite:
    """``sess.run(...)``, ``tensor.eval(...)``, ``op.run(...)``, a SciPy interface's
    ``minimize(sess)`` or a converted class's ``model.sess.run(...)``."""

    call: cst.Call
    form: RunForm
    fetch: cst.BaseExpression
    feed: cst.BaseExpression | None
    order: int | None  # effective statement of the owning scope, None inside a nested def
    in_loop: bool
    statement: cst.SimpleStatementLine | None  # set when the call is the whole statement
    function: cst.FunctionDef | None  # innermost enclosing def (for feed-dict lookup)


@dataclass
class Blocker:
    node: cst.CSTNode
    rule: Rule
    message: str


@dataclass
class Scope:
    owner: cst.Module | cst.FunctionDef
    parent: Scope | None
    statements: list[Statement] = field(default_factory=list)
    # set for a graph built in a constructor: the class, whose other methods run it
    cls: cst.ClassDef | None = None
    # with-blocks opened up (graph contexts, session blocks), by kind
    unwrapped: dict[int, tuple[cst.With, str]] = field(default_factory=dict)
    # methods the constructor calls once (``self.build()``), read as part of its graph
    # (analysis/bindings.py), and the method each of their effective statements comes from
    spliced: list[cst.FunctionDef] = field(default_factory=list)
    origin: dict[int, cst.FunctionDef] = field(default_factory=dict)
    # variables local to the constructor (or such a method) that graph code reads: stored
    # on ``self`` after their statement, read back by the generated methods (analysis/bindings.py)
    stored_locals: dict[str, Statement] = field(default_factory=dict)
    # the parameters of the constructor (or of a method it calls once, ``self.build(4, 8)``)
    # that graph code reads, stored on ``self`` when that function starts: name -> the
    # function (in the order of the first reads)
    stored_parameters: dict[str, cst.FunctionDef] = field(default_factory=dict)
    # a class built by a method its importers call (analysis/external_builds.py), which proved
    # that they call a method running the variables initializer at most once, outside loops
    initializer_methods_run_once: bool = False
    run_sites: list[RunSite] = field(default_factory=list)
    # name -> orders of effective statements that bind it (any kind)
    bindings: dict[str, list[int]] = field(default_factory=dict)
    # names bound anywhere below an effective statement (loops, nested blocks), with order
    nested_bindings: dict[str, list[int]] = field(default_factory=dict)
    # by name: the statements changing its object in place (``data[0, 0] = 1.0``, ``normalize(data)``)
    changed_in_place: dict[str, list[int]] = field(default_factory=dict)

    def resolve(self, name: str, before: int | None) -> Statement | None:
        """The effective statement whose binding of ``name`` reaches ``before``
        (None: the last binding, for code that runs later, e.g. in a nested def)."""
        orders = self.bindings.get(name)
        if not orders:
            return None
        if before is None:
            return self.statements[orders[-1]]
        reaching = [o for o in orders if o < before]
        return self.statements[reaching[-1]] if reaching else None

    def graph_statement(self, name: str, before: int | None) -> Statement | None:
        statement = self.resolve(name, before)
        if statement is not None and statement.kind in GRAPH_KINDS and name not in statement.loop_targets:
            return statement
        return None


@dataclass
class FeedDict:
    """A variable bound to a dict display keyed by placeholders (``tf_dict``); a function
    may bind it more than once (one dict per group of run sites)."""

    name: str
    assign: cst.Assign
    dict_node: cst.Dict
    function: cst.FunctionDef | None
    count: int = 1
    # every binding, in source order: (assign, dict display)
    bindings: list[tuple[cst.Assign, cst.Dict]] = field(default_factory=list)
    # a def declares the name ``global`` or ``nonlocal``: a call may rebind it between any
    # binding seen here and a run, so which dict reaches the run is not known
    declared: bool = False


@dataclass
class Helper:
    node: cst.FunctionDef
    creates_variables: bool = False
    uses_gradients: bool = False
    returns_tensor: bool = False  # every return is a TF op result (not a list)
    # ``self.x`` names its body reads (transitively through other helpers): a graph-building
    # method may read the constructor's placeholders this way (``self.dummy_x0_tf``)
    self_reads: set[str] = field(default_factory=set)
    # names its body reads from the module (not its parameters or locals), transitively:
    # TF1 read their values when it built the graph, a generated function when it runs
    free_reads: set[str] = field(default_factory=set)
    own_free_reads: frozenset[str] = frozenset()  # the same, of its own body only
    # a Python effect of its body, or of a helper it calls, that would repeat at each trace
    # (analysis/helper_effects.py): the node (in the helper that has it) and what it does
    effect: tuple[cst.CSTNode, str] | None = None
    # (member, called) it uses on objects it does not own (helper_effects.member_uses): a
    # method of the file's classes of that name lends it its effect
    member_uses: tuple[tuple[str, bool], ...] = ()
    # a call making a TF1 tf.data iterator, in its body or a helper it calls: its element
    # is an op each TF1 run advanced, which a call moved or kept as Python would not be
    iterator: cst.Call | None = None
    # a function whose only variables are its tf.layers calls' (analysis/layer_helpers.py),
    # or why it is not converted as one
    layers: LayerHelper | None = None
    layer_refusal: str | None = None
    # the classes of the file that define a method of this name differently (``Model.layer``
    # and ``Other.layer``): a ``self.layer(...)`` call is not resolved to one of them
    ambiguous: tuple[str, ...] = ()
    # the TF1 RNN runs (``static_rnn``, ``dynamic_rnn``, …) in its own body, converted or
    # refused at each call (StatementClassifier._helper_runs); and whether a function it
    # calls holds one (refused)
    rnn_runs: tuple[cst.Call, ...] = ()
    # a TF1 optimizer it makes (``tf.train.AdamOptimizer(rate)``), in its body or a function it
    # calls: a train op built by a call in graph code is refused there (StatementClassifier)
    optimizer: cst.Call | None = None
    nested_runs: bool = False


@dataclass
class GraphFacts:
    imports: TfImports
    scopes: list[Scope] = field(default_factory=list)
    helpers: dict[str, Helper] = field(default_factory=dict)
    # the fed tf.bool placeholders whose batch normalizations' updates TF1 ran in exactly the
    # runs feeding them True (proven by rewrites/update_ops.py; empty on a first migration)
    batch_norm_flags: frozenset[str] = frozenset()
    # functions and classes of other modules of the project, by the name this file calls
    # them (``neural_net``, ``U.fwd_gradients``): analysis/project.py's summaries
    imported: dict[str, Summary] = field(default_factory=dict)
    session_names: set[str] = field(default_factory=set)
    # classes given their session by the caller (``Model(sess, "m1")``): analysis/session_parameters.py
    session_parameters: list[SessionParameter] = field(default_factory=list)
    config_names: set[str] = field(default_factory=set)
    feed_dicts: dict[tuple[int, str], FeedDict] = field(default_factory=dict)
    # names passed as the feed of a run (``sess.run(t, feed)``, ``t.eval(feed_dict=feed)``)
    feed_names: set[str] = field(default_factory=set)
    # dict displays keyed by placeholders passed to a function's feed parameter
    # (``predict({x: X})``): analysis/passed_feed_displays.py
    passed_feed_displays: dict[int, cst.Dict] = field(default_factory=dict)
    blockers: list[Blocker] = field(default_factory=list)
    # Sites the rewrites report on (for the findings they emit).
    v1_switches: list[cst.Call] = field(default_factory=list)
    # session blocks nested in other code (``if __name__ == "__main__":``), opened up too
    nested_session_blocks: list[cst.With] = field(default_factory=list)
    # sessions nothing uses, with the configurations only they read, nested in Python
    # blocks (analysis/idle_sessions.py): removed; the calls in them build no graph
    idle_sessions: list[cst.SimpleStatementLine] = field(default_factory=list)
    idle_configs: list[cst.SimpleStatementLine] = field(default_factory=list)
    # calls that build no graph where a compound statement holds them: those of the idle
    # sessions, and ``tf.device(...)`` as a ``with`` item
    no_graph_calls: set[int] = field(default_factory=set)
    # the placeholders read as converted DropoutWrappers' fed keep probabilities (their Name
    # nodes): read where the cell runs, through a variable (rewrites/rnn_cells.py), not escapes
    fed_keep_probs: set[int] = field(default_factory=set)
    # the file builds or runs TF1 graphs: placeholders anywhere, sessions of any kind
    graph_evidence: bool = False
    # ``self.evaluate(fetches)`` in the test methods of a ``tf.test.TestCase`` subclass: TF1's
    # ``sess.run(fetches)`` on the test's session (analysis/graph.py ``_find_test_sessions``)
    test_runs: set[int] = field(default_factory=set)
    # the test methods of those subclasses (their defs' ids)
    test_methods: set[int] = field(default_factory=set)
    # module functions whose every use is a call in the module's top-level statements: by
    # name, the orders of those statements (None: used otherwise), computed once each
    # (analysis/escapes.py)
    top_level_calls: dict[str, tuple[int, ...] | None] = field(default_factory=dict)
    # Session.run keyword ``session=sess`` and other allowed reads of session names.
    allowed_session_reads: set[int] = field(default_factory=set)
    # sessions passed to classes of other modules that stay on TF1: why (analysis/external_builds.py)
    session_notes: dict[str, str] = field(default_factory=dict)
    # calls of other modules' session factories (``sess = make_session()``), which may run the initializer
    factory_calls: list[cst.Call] = field(default_factory=list)
    # the names the run's files importing this module write (FileContext.importer_names)
    importer_names: frozenset[str] = frozenset()
    # the names they may read of this module's namespace (FileContext.importer_module_names)
    importer_module_names: frozenset[str] = frozenset()
    # the attributes they read of objects that are not modules (FileContext.importer_attributes)
    importer_attributes: frozenset[str] = frozenset()
    # the names they call with an object they change in place (FileContext.importer_changed_arguments)
    importer_changed_arguments: frozenset[str] = frozenset()
    # each name an import binds from a module of the project: the others a change of its
    # module's state is seen through (analysis/imported_calls.py's state_links)
    names_sharing_state: dict[str, set[str]] = field(default_factory=dict)
    # each name bound to a project function: the names whose values a call of it may change,
    # when it changes module state
    names_changed_by_calls: dict[str, set[str]] = field(default_factory=dict)
    # each name reading the state of a module another file of the run changes
    # (FileContext.changed_elsewhere): the file name of that module
    names_changed_elsewhere: dict[str, str] = field(default_factory=dict)
    # modules of the run linked to this one by an import that stay on TF1 semantics (FileContext.graph_mode_modules)
    graph_mode_modules: tuple[str, ...] = ()
    # a run TF1 left unordered whose order the kept graph reproduces with reference variables
    # only (analysis/run_ordering.py's trained and rate reads): compat_fallback switches them on
    unordered_ref_reads: bool = False
    # ``saver.save(sess, path, ...)`` / ``saver.restore(sess, path)``: (call, the SAVER statement)
    saver_calls: list[tuple[cst.Call, Statement]] = field(default_factory=list)
    # findings the analysis makes about code it leaves as it is: (node, code, message)
    notes: list[tuple[cst.CSTNode, str, str]] = field(default_factory=list)

    # every call and every import statement of the module, in order (the analysis' one
    # walk): rules that ask about the whole file read these instead of walking it again
    calls: list[cst.Call] = field(default_factory=list)
    # by id of each call in a def: the innermost def it stands in (None at module level)
    function_of_call: dict[int, cst.FunctionDef] = field(default_factory=dict)
    import_nodes: list[cst.Import | cst.ImportFrom] = field(default_factory=list)
    # ``x.get_shape()[1].value`` of a placeholder declared ``[None, 3]``, by id: (the
    # expression, "3") — see analysis/static_shapes.py
    static_dimensions: dict[int, tuple[cst.BaseExpression, str]] = field(default_factory=dict)
    # ``reduce(mul, h.get_shape().as_list()[1:])``: Python values of static shapes TF1
    # fixed, by id: (the expression, its value as Python source) — analysis/static_python.py
    static_values: dict[int, tuple[cst.BaseExpression, str]] = field(default_factory=dict)
    # ``print(y)``, ``assert y.shape == x.shape`` in graph-building code: statements that
    # describe graph tensors, traced where they stood (analysis/descriptions.py)
    descriptions: list[Description] = field(default_factory=list)
    # ``self.loss`` in a method's returned tuple that every call in the file throws away
    # (analysis/discarded_returns.py): (the element, the method's name), returned as None
    discarded_returns: list[tuple[cst.Attribute, str]] = field(default_factory=list)
    # module functions that read graph tensors of the module, which they will take as
    # arguments, by id of their def (analysis/helper_arguments.py)
    helper_arguments: dict[int, HelperArguments] = field(default_factory=dict)
    helpers_not_passed: dict[str, str] = field(default_factory=dict)  # name → why not
    # TF1 tf.data iterators of the module's graph scopes (analysis/iterators.py)
    iterators: list[TF1Iterator] = field(default_factory=list)
    # lines ``L.append(...)`` that stay Python, by id: why (analysis/list_fills.py)
    refused_list_fills: dict[int, str] = field(default_factory=dict)
    # layer helpers whose calls are converted: they take their Keras layers as an argument
    layer_helpers: list[LayerHelper] = field(default_factory=list)
    # trainable-variable collections over the layer helpers' layers (analysis/layer_variable_lists.py)
    layer_variable_lists: list[LayerVariableList] = field(default_factory=list)

    def block(self, node: cst.CSTNode, rule: Rule, message: str) -> None:
        self.blockers.append(Blocker(node, rule, message))


def argument_name(statement: Statement) -> str:
    """The graph name of a placeholder statement's argument: the placeholder's, or the
    element of a TF1 iterator (several names unpacked from one argument)."""
    placeholder = statement.placeholder
    return placeholder.name if placeholder is not None and placeholder.iterator is not None else statement.defines[0]


def class_methods(scope: Scope) -> list[cst.FunctionDef]:
    """The methods of a constructor-built graph's class, other than the constructor and
    the methods read as part of it."""
    if scope.cls is None:
        return []
    spliced = {id(method) for method in scope.spliced}
    return [m_ for m_ in scope.cls.body.body if isinstance(m_, cst.FunctionDef) and m_ is not scope.owner and id(m_) not in spliced]


def rebound_around_calls(found: Scope, in_def: bool, name: str) -> str | None:
    """Why a run in a def (``in_def``: a nested def of ``found``, or a scope inside it) cannot
    read ``name`` of ``found``, or None.

    A def's ``sess.run(y)`` looks ``y`` up when the def is called: with ``y = tf.matmul(x, W)``
    and later ``y = y * 10`` at the top of the module, a call between the two fetched the
    first tensor, a call after them the second. ``lookup_graph_name`` takes the last binding
    (the generated function computes ``y * 10``, defined after the calls that come first);
    which binding each call sees is not followed, so a name the enclosing module or function
    binds more than once is refused. A class's constructor is not concerned: its methods run
    after it has bound its attributes."""
    if not in_def or found.cls is not None:
        return None
    orders = {*found.bindings.get(name, []), *found.nested_bindings.get(name, [])}
    if len(orders) < 2:
        return None
    where = "the module" if isinstance(found.owner, cst.Module) else "its enclosing function"
    return (
        f"this run, in a function, reads `{name}`, which {where} binds {len(orders)} times: "
        "TF1 fetched the binding in force when the function was called, which this release does not follow"
    )


def lookup_graph_name(scope: Scope, name: str, order: int | None) -> tuple[Scope, Statement] | None:
    current: Scope | None = scope
    before = order
    while current is not None:
        if name in current.bindings:
            statement = current.graph_statement(name, before)
            return (current, statement) if statement is not None else None
        current = current.parent
        before = None
    return None
