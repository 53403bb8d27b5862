"""``tf.train.Saver`` → ``tf.train.Checkpoint`` of what the Saver would have saved.

A TF1 Saver saved the global variables that existed when it was built.  The migration
makes a Checkpoint of the same things, by name: the variables, and the Keras layers and
optimizers (whose variables and slots TF1 kept as globals) created before the Saver.
``saver.save(sess, path)`` → ``saver.write(path)`` (the same path); with ``global_step``,
a ``tf.train.CheckpointManager`` saves ``path-<step>``, records it in the directory's
``checkpoint`` file and keeps the newest ``max_to_keep``, as TF1 did.
``saver.restore(sess, path)`` → ``saver.read(path).assert_existing_objects_matched()``.
Checkpoints are object-based now: files written by the TF1 program are name-based.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import bind_arguments, call_argument, calls_in
from tf2migrate.analysis.model import GraphFacts, Kind, Scope, Statement
from tf2migrate.analysis.names import local_name
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.plan import Plan
from tf2migrate.rewrites.tf_names import name_normalizer
from tf2migrate.rewrites import file_helpers
from tf2migrate.traversal import find_all

SAVER_TO_CHECKPOINT = Rule(
    "TFM125",
    "saver-to-checkpoint",
    "tf.train.Saver → tf.train.Checkpoint; checkpoints are object-based from now on.",
    Severity.WARNING,
    FixSafety.SAFE,
    what="Replaces `tf.train.Saver(...)` with a `tf.train.Checkpoint` of the variables, Keras "
    "layers and optimizers created before it (or of `var_list`), `saver.save(sess, path)` with "
    "`saver.write(path)`, `saver.save(sess, path, global_step=step)` with a "
    "`tf.train.CheckpointManager` save (`path-<step>`, the directory's `checkpoint` file, "
    "`max_to_keep`), and `saver.restore(sess, path)` with "
    "`saver.read(path).assert_existing_objects_matched()`.",
    why="TF2 has no Saver outside tf.compat.v1. The new checkpoints name objects, not graph "
    "variables: checkpoints the TF1 program wrote are name-based and are not read by "
    "`Checkpoint.read` — load their values with `tf.train.load_checkpoint(path).get_tensor(name)` "
    "(names from `tf.train.list_variables(path)`) and assign them, or convert them once. No "
    "`.meta` graph file is written any more.",
    example="saver = tf.train.Saver(max_to_keep=3)\nsaver.save(sess, 'ckpt/model', global_step=step)",
    instead="saver = tf.train.Checkpoint(W=W, b=b, optimizer=optimizer)\n"
    "save_numbered_checkpoint(saver, 'ckpt/model', step, max_to_keep=3)",
    invalid=(
        "import tensorflow as tf\n"
        "W = tf.Variable(1.0)\n"
        "saver = tf.train.Saver()\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    saver.save(sess, '/tmp/model')\n",
    ),
    valid=('import tensorflow as tf\nW = tf.Variable(1.0)\ntf.train.Checkpoint(W=W).write("/tmp/model")\n',),
)
RULES = [SAVER_TO_CHECKPOINT]

# TF1 Saver arguments with a TF2 counterpart; the others (sharded, builder, …) stay on TF1
_SAVER_PARAMETERS = (
    "var_list",
    "reshape",
    "sharded",
    "max_to_keep",
    "keep_checkpoint_every_n_hours",
    "name",
    "restore_sequentially",
    "saver_def",
    "builder",
    "defer_build",
    "allow_empty",
    "write_version",
    "pad_step_number",
    "save_relative_paths",
    "filename",
)
_SAVER_SUPPORTED = frozenset({"var_list", "max_to_keep", "keep_checkpoint_every_n_hours", "name", "save_relative_paths"})
_SAVE_PARAMETERS = (
    "sess",
    "save_path",
    "global_step",
    "latest_filename",
    "meta_graph_suffix",
    "write_meta_graph",
    "write_state",
    "strip_default_attrs",
    "save_debug_info",
)
# save() arguments about the .meta graph file, which TF2 does not write
_SAVE_IGNORED = frozenset({"sess", "meta_graph_suffix", "write_meta_graph", "strip_default_attrs", "save_debug_info"})
# reading the directory's ``checkpoint`` file, which Checkpoint.write does not update
_STATE_READERS = ("train.latest_checkpoint", "train.get_checkpoint_state")

NUMBERED_SAVE_NAME = "save_numbered_checkpoint"
NUMBERED_SAVE = '''def save_numbered_checkpoint(checkpoint, save_path, global_step, max_to_keep=5, keep_checkpoint_every_n_hours=None):
    """Saver.save(sess, save_path, global_step=...) on a tf.train.Checkpoint, as TF1 saved:
    to `save_path-<global_step>`, named in the directory's `checkpoint` file (so
    tf.train.latest_checkpoint finds it), only the newest `max_to_keep` kept."""
    import os

    directory, name = os.path.split(save_path)
    manager = tf.train.CheckpointManager(
        checkpoint, directory or os.curdir, max_to_keep, keep_checkpoint_every_n_hours, checkpoint_name=name
    )
    return manager.save(checkpoint_number=global_step)
'''


def plan_checkpoints(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str]) -> None:
    # a SAVER statement's ``minimize`` is its tf.train.Saver(...) call
    savers = [(scope, s, s.minimize) for scope in facts.scopes for s in scope.statements if s.kind is Kind.SAVER and s.minimize is not None]
    if not savers:
        return
    reads_state = any(facts.imports.call_name(c) in _STATE_READERS for c in facts.calls)
    if _savers_kept_for_restores(module, facts, savers):
        return
    for scope, statement, saver_call in savers:
        settings = _plan_saver(module, facts, plan, scope, statement, saver_call)
        if settings is None:
            continue
        calls = [call for call, saver in facts.saver_calls if saver is statement]
        uses = _references(module, scope, statement.defines[0])
        if uses != 1 + len(calls):
            facts.block(
                saver_call, blockers.UNSUPPORTED_GRAPH_CODE, "the saver is used other than by save(sess, ...) and restore(sess, ...)"
            )
            continue
        for call in calls:
            _plan_call(module, facts, plan, names_in_use, call, settings, reads_state)
    for call in facts.calls:
        if facts.imports.call_name(call) == "train.checkpoint_exists":
            _plan_checkpoint_exists(module, plan, call)


def _savers_kept_for_restores(module: cst.Module, facts: GraphFacts, savers: list[tuple[Scope, Statement, cst.Call]]) -> bool:
    """Refuses every Saver of a file that builds several and restores with one a path it
    does not save to itself (True then).

    A TF1 Saver found each variable in a checkpoint by its graph name, so one Saver read what
    another wrote (``save()`` and ``reload()`` each build the net and a Saver: both name the
    kernel ``dense/kernel``).  The Checkpoint replacing a Saver names its objects by this
    file's names at that Saver (``l_layer`` in one function, ``l__layer`` in the other), so a
    read by one of what another wrote would restore nothing, silently.  All the Savers stay
    on TF1: a TF1 restore of what a Checkpoint wrote is no better."""
    if len(savers) < 2:
        return False

    def path(call: cst.Call) -> str | None:
        found = call_argument(call, "save_path", 1)
        return module.code_for_node(found) if found is not None else None

    def method(call: cst.Call) -> str:
        return cst.ensure_type(call.func, cst.Attribute).attr.value

    # a restore of the path its own Saver saved to (written the same way) reads that Saver's keys
    saved = {(id(saver), path(call)) for call, saver in facts.saver_calls if method(call) == "save"}
    restores = [call for call, saver in facts.saver_calls if method(call) == "restore" and (id(saver), path(call)) not in saved]
    if not restores:
        return False
    where = ", ".join(
        f"`{module.code_for_node(call)}` in `{scope.owner.name.value}`"
        if isinstance(scope.owner, cst.FunctionDef)
        else f"`{module.code_for_node(call)}` at the top level"
        for scope, _, call in savers
    )
    restore = module.code_for_node(restores[0])
    for _, _, call in savers:
        facts.block(
            call,
            blockers.UNSUPPORTED_GRAPH_CODE,
            f"this file builds {len(savers)} tf.train.Savers ({where}), and `{restore}` reads a path its own Saver does not save to: "
            "TF1's Savers found variables by their graph names, so one read what another wrote; the tf.train.Checkpoints replacing them "
            "would name objects by this file's names at each Saver, and one would not restore what another wrote",
        )
    return True


def _plan_checkpoint_exists(module: cst.Module, plan: Plan, call: cst.Call) -> None:
    """``tf.train.checkpoint_exists(prefix)`` → what TF1 computed: does ``prefix.index``
    (a V2 checkpoint, what a Checkpoint and a CheckpointManager write) or ``prefix`` match
    a file.  Only for a prefix read without calls, which is evaluated twice."""
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star or calls_in(call.args[0].value):
        return
    _replace_call(module, plan, call, (0,), lambda prefix: f'bool(tf.io.gfile.glob({prefix} + ".index") or tf.io.gfile.glob({prefix}))')
    plan.note(
        call,
        SAVER_TO_CHECKPOINT.code,
        "tf.train.checkpoint_exists → tf.io.gfile.glob of the prefix's V2 index or the prefix itself, as TF1 looked",
    )


def _plan_saver(module, facts: GraphFacts, plan: Plan, scope: Scope, statement: Statement, call: cst.Call) -> dict[str, cst.Arg] | None:
    arguments = bind_arguments(call, _SAVER_PARAMETERS)
    unsupported = sorted(arguments.keys() - _SAVER_SUPPORTED) if arguments is not None else ["*args"]
    if arguments is None or unsupported:
        facts.block(call, blockers.UNSUPPORTED_GRAPH_CODE, f"`{unsupported[0]}` of tf.train.Saver is not converted")
        return None
    var_list = arguments.get("var_list")
    conditional: list[str] = []  # made in a branch before the Saver: held when they exist
    if var_list is None or _every_global_variable(facts, var_list.value):
        tracked = _tracked_objects(plan, scope, statement)
        conditional = _conditional_objects(scope, statement)
        if any(not name.startswith("self.") or scope.cls is None for name in conditional):
            name = next(n for n in conditional if not n.startswith("self.") or scope.cls is None)
            facts.block(
                call,
                blockers.UNSUPPORTED_GRAPH_CODE,
                f"tf.train.Saver saved the variables that existed when it was built, and `{name}` is made before it only "
                "in a branch or loop: which ones a tf.train.Checkpoint would hold is not known before the program runs",
            )
            return None
        if var_list is not None:
            # ``tf.global_variables()`` goes with the Saver call it is an argument of
            plan.call_replacements[id(var_list.value)] = lambda updated: updated
    else:
        listed = _listed_objects(var_list.value)
        if listed is None:
            facts.block(
                call,
                blockers.UNSUPPORTED_GRAPH_CODE,
                f"`var_list={module.code_for_node(var_list.value)}` of tf.train.Saver is not converted: converted when it is "
                "a list of names, a dict with identifier keys or `tf.global_variables()`",
            )
            return None
        normalizer = name_normalizer(plan, facts.imports)
        tracked = {key: module.code_for_node(value.visit(normalizer)) for key, value in listed.items()}
    code = ", ".join(f"{key}={value}" for key, value in tracked.items() if value not in conditional)
    if conditional:
        # attributes a branch of the constructor made (``if model in ['M3', 'M4']:
        # self.encoder_W = ...``): saved when they exist, as TF1's Saver found them then
        keys = ", ".join(f'"{local_name(name)}"' for name in conditional)
        made = f"**{{key: getattr(self, key) for key in ({keys},) if hasattr(self, key)}}"
        code = ", ".join(part for part in (code, made) if part)
    plan.call_replacements[id(call)] = lambda updated: cst.parse_expression(f"tf.train.Checkpoint({code})")
    plan.note(
        call,
        SAVER_TO_CHECKPOINT.code,
        "tf.train.Saver → tf.train.Checkpoint; checkpoints written by the TF1 program are name-based: "
        "read them with tf.train.load_checkpoint(path)",
    )
    return arguments


def _every_global_variable(facts: GraphFacts, var_list: cst.BaseExpression) -> bool:
    """``tf.train.Saver(tf.global_variables())``: the global variables made so far, which a
    Saver without ``var_list`` saves too, with the file's saveable objects (lookup tables,
    none when the file makes none: then the two are the same)."""
    return (
        isinstance(var_list, cst.Call)
        and not var_list.args
        and facts.imports.call_name(var_list) in ("global_variables", "all_variables")
        and not any("lookup" in (facts.imports.call_name(c) or "") for c in facts.calls)
    )


def _tracked_objects(plan: Plan, scope: Scope, saver: Statement) -> dict[str, str]:
    """What a TF1 Saver built here saved: every variable made before it, with the layers'
    and optimizers' variables — by the name the program gives each."""
    before = [s for s in scope.statements if s.order < saver.order]
    names = [name for s in before if s.kind in (Kind.VARIABLE, Kind.OPTIMIZER) for name in s.defines]
    made_here = {id(s) for s in before}
    names += [name for statement, name in plan.created if id(statement) in made_here]
    return {local_name(name): name for name in dict.fromkeys(names)}


def _conditional_objects(scope: Scope, saver: Statement) -> list[str]:
    """The variables made before the Saver by a statement that may not run: one inside an
    ``if``, a loop or a ``try`` (a ``with`` block runs its body)."""
    conditional = (cst.If, cst.For, cst.While, cst.Try)
    return [
        name
        for s in scope.statements
        if s.order < saver.order and s.kind in (Kind.VARIABLE, Kind.OPTIMIZER) and isinstance(s.node, conditional)
        for name in s.defines
    ]


def _listed_objects(var_list: cst.BaseExpression) -> dict[str, cst.BaseExpression] | None:
    if isinstance(var_list, (cst.List, cst.Tuple)):
        objects = {}
        for element in var_list.elements:
            value = element.value
            name = value.value if isinstance(value, cst.Name) else (value.attr.value if isinstance(value, cst.Attribute) else None)
            if name is None or isinstance(element, cst.StarredElement):
                return None
            objects[name] = value
        return objects
    if isinstance(var_list, cst.Dict):
        objects = {}
        for entry in var_list.elements:
            key = entry.key.evaluated_value if isinstance(entry, cst.DictElement) and isinstance(entry.key, cst.SimpleString) else None
            if not isinstance(key, str) or not key.isidentifier():
                return None
            objects[key] = entry.value
        return objects
    return None


def _plan_call(
    module, facts: GraphFacts, plan: Plan, names_in_use: set[str], call: cst.Call, settings: dict[str, cst.Arg], reads_state: bool
) -> None:
    func = cst.ensure_type(call.func, cst.Attribute)  # the analysis found `saver.save(...)` / `saver.restore(...)`
    saver = module.code_for_node(func.value)
    method = func.attr.value
    if method == "restore":
        path = call_argument(call, "save_path", 1)
        if path is None or len(call.args) != 2:
            facts.block(call, blockers.UNSUPPORTED_SESSION, "Saver.restore(sess, save_path) is converted only in that form")
            return
        _replace_call(module, plan, call, (1,), lambda path: f"{saver}.read({path}).assert_existing_objects_matched()")
        plan.note(call, SAVER_TO_CHECKPOINT.code, "Saver.restore → Checkpoint.read; a checkpoint the TF1 program wrote is not read by it")
        return
    arguments = bind_arguments(call, _SAVE_PARAMETERS)
    unsupported = sorted(arguments.keys() - _SAVE_IGNORED - {"save_path", "global_step"}) if arguments is not None else ["*args"]
    if arguments is None or unsupported or "save_path" not in arguments:
        facts.block(call, blockers.UNSUPPORTED_SESSION, f"`{(unsupported or ['save_path'])[0]}` of Saver.save is not converted")
        return
    path_index = list(call.args).index(arguments["save_path"])
    step = arguments.get("global_step")
    if step is None:
        if reads_state:
            facts.block(
                call,
                blockers.UNSUPPORTED_SESSION,
                "the file reads the directory's `checkpoint` file, which Checkpoint.write does not update",
            )
            return
        _replace_call(module, plan, call, (path_index,), lambda path: f"{saver}.write({path})")
        plan.note(call, SAVER_TO_CHECKPOINT.code, "Saver.save → Checkpoint.write, to the same path")
        return
    step_index = list(call.args).index(step)
    helper = file_helpers.emit_once(module, facts, plan, names_in_use, NUMBERED_SAVE_NAME, NUMBERED_SAVE)
    keep = [
        f"{key}={module.code_for_node(settings[key].value)}" for key in ("max_to_keep", "keep_checkpoint_every_n_hours") if key in settings
    ]

    _replace_call(module, plan, call, (path_index, step_index), lambda path, step: f"{helper}({', '.join([saver, path, step, *keep])})")
    plan.note(call, SAVER_TO_CHECKPOINT.code, "Saver.save with global_step → a CheckpointManager save (`path-<step>`, max_to_keep)")


def _replace_call(module: cst.Module, plan: Plan, call: cst.Call, indexes: tuple[int, ...], render) -> None:
    """``call`` → ``render(...)`` of the code of its arguments at ``indexes``, as rewritten
    (a path argument may itself hold renamed TF references)."""
    plan.call_replacements[id(call)] = lambda updated: cst.parse_expression(
        render(*(module.code_for_node(updated.args[i].value) for i in indexes))
    )


def _references(module: cst.Module, scope: Scope, name: str) -> int:
    """The mentions of the saver's name where it can be this saver: the function binding a
    plain name (a local of its own, unless it declares the name ``global``/``nonlocal``;
    another function's ``saver`` is another saver), else the whole module."""
    if name.startswith("self."):
        return len(find_all(module, m.Attribute(value=m.Name("self"), attr=m.Name(local_name(name)))))
    owner = scope.owner
    declared = find_all(owner, m.Global(names=[m.ZeroOrMore(), m.NameItem(m.Name(name)), m.ZeroOrMore()])) + find_all(
        owner, m.Nonlocal(names=[m.ZeroOrMore(), m.NameItem(m.Name(name)), m.ZeroOrMore()])
    )
    if isinstance(owner, cst.FunctionDef) and not declared:
        return len(find_all(owner, m.Name(name)))
    return len(find_all(module, m.Name(name)))
