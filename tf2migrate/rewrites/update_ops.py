"""Batch normalization with a fed training flag, its updates run by the train op → Keras.

The TF1 idiom::

    is_training = tf.placeholder(tf.bool)
    h = tf.layers.batch_normalization(h, training=is_training)
    ...
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = optimizer.minimize(loss)
    ...
    sess.run(train_op, {..., is_training: True})
    sess.run(prediction, {..., is_training: False})

TF1's layer normalizes by the batch statistics when the flag is true and by the moving ones
when it is false; it moves the moving statistics only when its update ops run, and then only
if the flag is true (with the flag false the update assigns the old values).  A Keras
BatchNormalization called with ``training=True`` moves them at every call.  The two agree
when every run that feeds the flag true also runs the update ops, i.e. fetches the train op
made under ``control_dependencies(update_ops)``, and the layer runs once per run.  Then the
file is rewritten, TF1 to TF1, without the collection and with the train op out of its
``with`` block, and migrated again with the flags named proven: the layer becomes a Keras
BatchNormalization called under ``tf.cond(flag, training=True, training=False)``.

Proven for code at the top level of the module, and for a layer helper called there (a
class is refused).  A layer whose moving statistics nothing reads -- no run computes it with
its flag False (followed from the fetched names, the runs' feeds written out), nothing in the
file saves or lists variables -- needs no rank-2 input, may be applied several times, and
neither the train ops' losses nor the runs feeding its flag True are checked for it: TF1
moved its statistics in an order it left open (a discriminator applied to the real and the
fake batch), Keras moves them at each training call, and no output shows either.  The rest:
- the flag is ``name = tf.placeholder(tf.bool...)``, the name bound nowhere else; every
  ``tf.layers.batch_normalization`` of the file has ``training=`` a flag or ``False`` (a
  ``True`` one moved its statistics with the train ops only), in a statement of its own at the top
  level (so it runs once per run); ``momentum=`` and ``epsilon=`` go to the Keras layer as
  given, and TF1's defaults are Keras' (0.99, 1e-3);
- the layers are rewrites/tf1_batch_norm.py's, which compute TF1's fused kernel on 4-D float32
  input, its non-fused ops on input of another rank, and TF1's update.  Unless its input has
  rank 2, proven from a placeholder of a written-out two-element shape through dense layers
  and element-wise activations, TF1 may have fused it (on 4-D input, whose moving variance is
  the unbiased one, n/(n-1) times the batch's): ``fused`` says so, its ``axis=`` must then be
  -1 or 3 (the kernel's NHWC layout) and the file's float type float32;
- or the batch normalization is a statement of a function of the module's top level (or of
  its one ``with`` block, a variable scope: analysis/layer_helpers.py), read by the value of
  its only ``return``, with ``training=`` one of its parameters; the function is used only by
  ``name = helper(...)`` statements at the top level (once, where the statistics are read),
  which pass the same flag for that parameter; the input
  is proven of rank 2 through the helper's statements to a parameter, and from its argument
  (or ``fused``, as above).
  The retry's analysis lets that parameter through (analysis/layer_helpers.place_call) and the
  helper applies its Keras layer under ``tf.cond`` (rewrites/layer_helpers.py);
- one ``tf.get_collection(tf.GraphKeys.UPDATE_OPS)`` without scope, read after every such
  layer (TF1 returned the update ops made so far), read only by one
  ``with tf.control_dependencies(...)`` at the top level whose body is one train op
  ``name = opt.minimize(loss...)``; the loss reaches every such layer (else the train op
  ran updates that its TF2 step would not compute);
- every run (``sess.run``, ``.eval``, ``op.run``) feeds the flags with a dict literal; a run
  feeding a flag ``True`` fetches the train op, and feeds the flags literally.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.names import names_bound
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.diagnostics import Diagnostic, FixSafety, Rule, Severity
from tf2migrate.positions import Positions
from tf2migrate.traversal import find_all, preorder

UPDATE_OPS_DROPPED = Rule(
    "TFM148",
    "update-ops-with-train-op",
    "UPDATE_OPS tied to the only train op, batch normalization with a fed flag → Keras layers updating when training.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Drops `update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)` and the `with tf.control_dependencies(update_ops):` "
    "around the train op, and converts `tf.layers.batch_normalization(x, training=flag)` of a fed flag into a Keras "
    "BatchNormalization called under `tf.cond(flag, ...)`.",
    why="TF1 moved the moving statistics when the update ops ran with the flag true; Keras moves them at every call with "
    "training true. Every run feeding the flag true ran the train op, and so the update ops: the two agree.",
    example="with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):\n    train_op = opt.minimize(loss)",
    instead="train_op = opt.minimize(loss)   # migrated: the Keras layer updates in the train step",
    invalid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "is_training = tf.placeholder(tf.bool)\n"
        "h = tf.layers.batch_normalization(x, training=is_training)\n"
        "loss = tf.reduce_sum(h * h)\n"
        "opt = tf.train.GradientDescentOptimizer(0.1)\n"
        "update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)\n"
        "with tf.control_dependencies(update_ops):\n"
        "    train_op = opt.minimize(loss)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train_op, {x: [[1.0, 2.0], [0.0, 1.0]], is_training: True})\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "is_training = tf.placeholder(tf.bool)\n"
        "h = tf.layers.batch_normalization(x, training=is_training)\n"
        "loss = tf.reduce_sum(h * h)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(loss, {x: [[1.0, 2.0], [0.0, 1.0]], is_training: True}))   # no update ops ran\n",
    ),
)
RULES = [UPDATE_OPS_DROPPED]

BATCH_NORM = "layers.batch_normalization"
UPDATE_OPS = "UPDATE_OPS"
# the refusals the retry answers (rewrites/keras_layers.py, layer helpers, variable lists)
BATCH_NORM_FLAG_REFUSAL = "`training=` of tf.layers.batch_normalization"
COLLECTION_REFUSAL = "`tf.get_collection` is not converted by this release"
# ops whose output has the rank of their first argument
_SAME_RANK = frozenset(
    {
        "layers.dense",
        "layers.dropout",
        BATCH_NORM,
        "nn.relu",
        "nn.relu6",
        "nn.elu",
        "nn.leaky_relu",
        "nn.sigmoid",
        "nn.tanh",
        "sigmoid",
        "tanh",
        "nn.softplus",
        "nn.dropout",
        "identity",
    }
)


@dataclass
class UpdatesDropped:
    """The module without the collection and the ``with`` (lines kept as far as possible),
    the flags proven, and the notes to report on the original's lines."""

    source: str
    flags: frozenset[str]
    fused: bool  # an input not proven of rank 2: TF1 may have run its fused kernel (4-D float32 only)
    notes: list[tuple[int, int, str]] = field(default_factory=list)  # (line, 1-based column, message)
    line_map: dict[int, int] = field(default_factory=dict)  # new line → original line

    def map_line(self, line: int) -> int:
        return self.line_map.get(line, line)


def drop_update_ops(module: cst.Module, imports: TfImports) -> UpdatesDropped | str:
    """The file rewritten, or why the batch normalizations' updates are not proven to run
    exactly when Keras' would."""
    body = list(module.body)
    positions = Positions(module)

    def line(node: cst.CSTNode) -> int:
        return (positions.get(node) or (0, 0))[0]

    def assigned(statement: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            return small.targets[0].target.value, small.value
        return None

    def is_update_ops(node: cst.CSTNode) -> bool:
        return (
            isinstance(node, cst.Call)
            and imports.call_name(node) == "get_collection"
            and len(node.args) >= 1
            and imports.canonical(node.args[0].value) == "GraphKeys.UPDATE_OPS"
        )

    flags = {
        name
        for statement in body
        if (bound := assigned(statement)) is not None
        and (name := bound[0])
        and imports.call_name(bound[1]) == "placeholder"
        and any(imports.canonical(a.value) == "bool" for a in cst.ensure_type(bound[1], cst.Call).args)
    }
    targets = [n.value for t in find_all(module, (cst.AssignTarget, cst.AugAssign, cst.For, cst.AsName)) for n in _names(_target(t))]
    flags = {name for name in flags if targets.count(name) == 1}  # bound once: ``training=flag`` reads the placeholder
    # the batch normalizations: each a statement of its own at the top level, or in a helper
    applied: list[tuple[cst.Call, tuple[int, ...], str, bool]] = []  # each, its top-level statements, its flag, of rank 2
    used_flags: set[str] = set()
    for call in _calls(module):
        if imports.call_name(call) != BATCH_NORM:
            continue
        index = next((i for i, s in enumerate(body) if (b := assigned(s)) is not None and b[1] is call), None)
        in_helper: _HelperNormalization | None = None
        if index is None:
            found = _in_helper(module, call, body, assigned, imports)
            if isinstance(found, str):
                return found
            in_helper = found
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if any(a.keyword is None for a in call.args[1:]) or a_star(call):
            return f"`{_code(module, call)}` passes arguments by position or *args"
        if in_helper is not None:
            keywords["training"] = in_helper.training  # the value its parameter has at the calls
        reuse = keywords.get("reuse")
        if reuse is not None and not m.matches(reuse, m.Name("False") | m.Name("None")):
            return (
                f"`{_code(module, call)}` applies an earlier call's layer again: a run updated its moving statistics twice, "
                "in an order TF1 left unspecified"
            )
        training = keywords.get("training")
        if training is not None and m.matches(training, m.Name("True")):
            return (
                f"`{_code(module, call)}` always normalizes by the batch: TF1 moved its statistics only with the train ops, "
                "Keras in every run computing it"
            )
        if training is None or m.matches(training, m.Name("False")):
            continue
        if not (isinstance(training, cst.Name) and training.value in flags):
            return f"`training=` of `{_code(module, call)}` is not a tf.bool placeholder of the top level" + (
                f" at the call `{_code(module, in_helper.calls[0])}`" if in_helper is not None else ""
            )
        if in_helper is None:
            assert index is not None  # (a top-level statement, or in_helper)
            applied.append((call, (index,), training.value, _rank_two(call.args[0].value, index, body, assigned, imports)))
        else:
            applied.append((call, in_helper.indices, training.value, in_helper.rank_two))
        axis = keywords.get("axis")
        if not applied[-1][3] and axis is not None and not m.matches(axis, m.Integer("3") | m.UnaryOperation(m.Minus(), m.Integer("1"))):
            return (
                f"`axis=` of `{_code(module, call)}`{_inside(module, call)}, whose input is not proven of rank 2, is not -1 "
                "or 3: TF1's fused kernel normalized another layout"
            )
        used_flags.add(training.value)
    if not applied:
        return "no tf.layers.batch_normalization with a fed flag at the top level"
    # Moving statistics nothing reads (no run computes the layer with its flag False, nothing
    # saves or lists the variables) may move in any order, or not at all: their layers are
    # not held to the conditions below (a GAN's discriminator, applied to the real and the
    # fake batch, only ever trained).
    read_anywhere = _statistics_readers(module, imports)
    inference = _inference_reach(module, body, assigned, used_flags, imports) if read_anywhere is None else read_anywhere
    normalizations: dict[int, cst.Call] = {}  # the layers whose moving statistics are read, by index of their statement
    observed_flags: set[str] = set()
    for call, indices, flag, _ in applied:
        if isinstance(inference, set) and not inference & set(indices):
            continue
        why = f" ({inference})" if isinstance(inference, str) else ""
        if len(indices) > 1:
            function = next(f for f in body if isinstance(f, cst.FunctionDef) and any(c is call for c in _calls(f)))
            shown = ", ".join(f"`{_code(module, body[i])}`" for i in indices[:3])
            return (
                f"`{function.name.value}`, which applies tf.layers.batch_normalization, is called {len(indices)} times ({shown}): "
                f"a run reaching two of them updated the moving statistics twice, in an order TF1 left unspecified, "
                f"and they are read{why or ' (a run computes them with the flag False)'}"
            )
        normalizations[indices[0]] = call
        observed_flags.add(flag)
    sites = sorted({i for _, indices, _, _ in applied for i in indices})
    # the collection and the one train op made under it
    collections = [c for c in _calls(module) if is_update_ops(c)]
    if not collections:
        return "no tf.get_collection(tf.GraphKeys.UPDATE_OPS) in the file: TF1 never moved the moving statistics, Keras would"
    if len(collections) > 1:
        return f"{len(collections)} reads of tf.get_collection(tf.GraphKeys.UPDATE_OPS) in the file (one is proven)"
    collection = collections[0]
    if len(collection.args) != 1:
        return f"`{_code(module, collection)}` names a scope"
    # TF1 returned the collection as a list of the update ops made so far: the later ones never ran
    read_at = next(i for i, s in enumerate(body) if any(c is collection for c in _calls(s)))
    late = next((i for i in sites if i > read_at), None)
    if late is not None:
        return (
            f"`{_code(module, collection)}` is read before `{_code(module, body[late])}` made its update ops: TF1's list held "
            "none of them and never moved those moving statistics, Keras would"
        )
    collection_index: int | None = None
    dependency: cst.BaseExpression = collection
    for i, statement in enumerate(body):
        bound = assigned(statement)
        if bound is not None and bound[1] is collection:
            collection_index, dependency = i, cst.Name(bound[0])
    withs = [
        (i, s)
        for i, s in enumerate(body)
        if isinstance(s, cst.With)
        and len(s.items) == 1
        and imports.call_name(s.items[0].item) == "control_dependencies"
        and len(cst.ensure_type(s.items[0].item, cst.Call).args) == 1
        and cst.ensure_type(s.items[0].item, cst.Call).args[0].value.deep_equals(dependency)
    ]
    if not withs:
        return "the update ops are not the control dependencies of a `with` block at the top level"
    if isinstance(dependency, cst.Name):
        readers = [n for n in _names(module) if n.value == dependency.value]
        if len(readers) != 1 + len(withs):  # its binding and the ``with`` blocks
            return f"`{dependency.value}`, the update ops, is read elsewhere than by `with tf.control_dependencies({dependency.value}):`"
    train_ops: dict[str, cst.Call] = {}  # the train ops made under the update ops: their ``minimize`` calls
    for _, block in withs:
        for held in cst.ensure_type(block.body, cst.IndentedBlock).body:
            train = assigned(held)
            minimize = train[1] if train is not None else None
            if (
                train is None
                or not isinstance(minimize, cst.Call)
                or not m.matches(minimize.func, m.Attribute(attr=m.Name("minimize")))
                or not minimize.args
            ):
                return "a `with tf.control_dependencies(<update ops>):` block holds other than train ops `name = opt.minimize(loss)`"
            train_ops[train[0]] = minimize
    for train_op, minimize in train_ops.items():
        at = next(i for i, block in withs if minimize in find_all(block, cst.Call))
        reached = _statements_reached(minimize.args[0].value, at, body, assigned)
        missed = next((i for i in normalizations if i not in reached), None)
        if missed is not None:
            return (
                f"the loss of `{train_op}` does not reach `{_code(module, body[missed])}`: TF1's train op ran its update, "
                "the TF2 train step would not compute it"
            )
    # the runs
    for call, fetches, feed in _fed_runs(module, imports):
        if not isinstance(feed, cst.Dict):
            return f"`{_code(module, call)}` feeds a dict that is not written out: which flags it feeds is not known"
        fed = {}
        for element in feed.elements:
            if not isinstance(element, cst.DictElement):
                return f"`{_code(module, call)}` feeds `**` entries"
            if isinstance(element.key, cst.Name) and element.key.value in used_flags:
                if not m.matches(element.value, m.Name("True") | m.Name("False")):
                    return f"`{_code(module, call)}` feeds `{element.key.value}` other than a literal True or False"
                fed[element.key.value] = cst.ensure_type(element.value, cst.Name).value == "True"
        fetched = [fetches] if not isinstance(fetches, (cst.List, cst.Tuple)) else [e.value for e in fetches.elements]
        if any(v for name, v in fed.items() if name in observed_flags) and not any(
            isinstance(f, cst.Name) and f.value in train_ops for f in fetched
        ):
            flag = next(name for name, value in fed.items() if value and name in observed_flags)
            return (
                f"`{_code(module, call)}` feeds `{flag}` True without a train op made under the update ops: TF1 ran no "
                "update there, Keras would move the moving statistics"
            )
    ops = ", ".join(f"`{name}`" for name in train_ops)
    notes = [
        (
            line(block),
            1,
            f"`with tf.control_dependencies(...)` of the update ops removed: the Keras batch normalizations update their moving "
            f"statistics in the steps of {ops}, whose runs were the only ones feeding the flag True"
            if normalizations
            else "`with tf.control_dependencies(...)` of the update ops removed: no run reads the moving statistics they moved "
            "(none computes the batch normalizations with the flag False, nothing saves or lists their variables)",
        )
        for _, block in withs
    ]
    if collection_index is not None:
        notes.append((line(body[collection_index]), 1, "tf.get_collection(tf.GraphKeys.UPDATE_OPS) removed: its ops ran with the train op"))
    blocks = dict(withs)
    new_body: list[cst.BaseStatement] = []
    for i, statement in enumerate(body):
        if i == collection_index:
            continue
        if i in blocks:
            inner = list(cst.ensure_type(blocks[i].body, cst.IndentedBlock).body)
            first = cst.ensure_type(inner[0], cst.SimpleStatementLine)  # a train op, proven above
            new_body += [first.with_changes(leading_lines=(*blocks[i].leading_lines, *first.leading_lines)), *inner[1:]]
            continue
        new_body.append(statement)
    rewritten = module.with_changes(body=new_body)
    # new line → original line: the lines of the collection's statement (comments above it
    # included) and the ``with`` lines are gone, the others keep their order
    removed = {line(block) for block in blocks.values()}
    if collection_index is not None:
        statement = body[collection_index]
        start = line(statement)
        span = module.code_for_node(statement.with_changes(leading_lines=())).count("\n")
        removed.update(range(start - len(statement.leading_lines), start + span))
    total = module.code.count("\n") + 1
    kept_lines = [n for n in range(1, total + 1) if n not in removed]
    line_map = {new: old for new, old in enumerate(kept_lines, start=1)}
    fused = not all(rank_two for _, _, _, rank_two in applied)
    return UpdatesDropped(rewritten.code, frozenset(used_flags), fused, notes, line_map)


@dataclass(frozen=True)
class _HelperNormalization:
    """A batch normalization in a function of the module called at the top level."""

    indices: tuple[int, ...]  # of the top-level statements ``name = helper(...)``
    calls: tuple[cst.Call, ...]  # those calls of the helper
    training: cst.BaseExpression  # ``training=`` at those calls: the argument of its parameter, the same at each
    rank_two: bool  # its input proven of rank 2 (through the helper, from the argument at each call)


def _in_helper(module: cst.Module, call: cst.Call, body, assigned, imports: TfImports) -> _HelperNormalization | str:
    """The batch normalization ``call`` in a layer helper: a function of the module's top level,
    used only by top-level ``name = helper(...)`` statements, the normalization a statement of
    its body (or of its one ``with`` block: a variable scope) whose value its return reads, its
    ``training=`` a parameter.  Then it runs exactly once in every run computing such a ``name``.
    Else why not."""
    outside = (
        f"`{_code(module, call)}`{_inside(module, call)} is not `name = tf.layers.batch_normalization(...)` at the top level "
        "of the module nor in a function called there"
    )
    holder = next((s for s in body if isinstance(s, cst.ClassDef) and any(c is call for c in _calls(s))), None)
    if holder is not None:
        # the layers, the flag and the train op are per instance, the runs feed ``obj.flag``:
        # nothing here follows an instance from its construction to the runs
        return (
            f"`{_code(module, call)}`{_inside(module, call)}, a method of class `{holder.name.value}`: batch normalization "
            "built in a class is not converted (its layers, flag and train op belong to each instance)"
        )
    helper = next(
        (s for s in body if isinstance(s, cst.FunctionDef) and any(c is call for c in _calls(s))),
        None,
    )
    if helper is None or not isinstance(helper.body, cst.IndentedBlock):
        return outside
    name = helper.name.value
    flat: list[cst.BaseStatement] = []
    for statement in helper.body.body:
        if isinstance(statement, cst.With) and isinstance(statement.body, cst.IndentedBlock):
            flat += statement.body.body
        else:
            flat.append(statement)
    held = next((i for i, s in enumerate(flat) if isinstance(s, cst.SimpleStatementLine) and any(c is call for c in _calls(s))), None)
    if held is None or find_all(flat[held], (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp)):
        return f"`{_code(module, call)}` in `{name}` is in a loop, a branch, a nested block or a lambda or comprehension"
    returns = [i for i, s in enumerate(flat) if find_all(s, cst.Return)]
    last = flat[-1]
    if (
        returns != [len(flat) - 1]
        or not isinstance(last, cst.SimpleStatementLine)
        or not isinstance(last.body[0], cst.Return)
        or last.body[0].value is None
    ):
        return f"`{name}` does not end in its only `return` of a value"
    if held != len(flat) - 1 and held not in _statements_reached(last.body[0].value, len(flat) - 1, flat, assigned):
        return f"the return value of `{name}` does not read `{_code(module, call)}`: TF1's train op ran its update, the TF2 step would not"
    uses = [n for n in _names(module) if n.value == name]
    sites = [c for c in _calls(module) if m.matches(c.func, m.Name(name))]
    indices = [next((i for i, s in enumerate(body) if (b := assigned(s)) is not None and b[1] is site), None) for site in sites]
    if len(uses) != len(sites) + 1 or not sites or None in indices:
        return f"`{name}`, which applies tf.layers.batch_normalization, is used otherwise than by `name = {name}(...)` at the top level"
    params = helper.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg is not None or params.posonly_params:
        return f"`{name}` takes *args, **kwargs or positional-only parameters"
    parameters = tuple(p.name.value for p in (*params.params, *params.kwonly_params))
    training = _keyword(call, "training")
    trainings: list[cst.BaseExpression] = []
    rank_two = True
    for site, index in zip(sites, indices):
        arguments = bind_arguments(site, parameters)
        if arguments is None or set(arguments) - set(parameters):
            return f"`{_code(module, site)}` passes *args, **kwargs or unknown arguments"
        at_site = training
        if training is not None and not m.matches(training, m.Name("True") | m.Name("False")):
            if not (isinstance(training, cst.Name) and training.value in parameters):
                return f"`training=` of `{_code(module, call)}` in `{name}` is not a parameter of `{name}`"
            if any(training.value in names_bound(s) for s in flat):
                return f"`{training.value}`, the `training=` of `{_code(module, call)}`, is bound again in `{name}`"
            if training.value not in arguments:
                return f"`{_code(module, site)}` does not pass `{training.value}`, the `training=` of `{_code(module, call)}`"
            at_site = arguments[training.value].value
            if not isinstance(at_site, cst.Name) or at_site.value in ("True", "False"):
                return f"`{_code(module, site)}` passes `{_code(module, at_site)}` as the `training=` of `{_code(module, call)}`, not a fed flag"
        trainings.append(at_site if at_site is not None else cst.Name("False"))
        assert index is not None  # (checked above)
        rank_two = rank_two and _rank_two_through(call.args[0].value, held, flat, parameters, arguments, index, body, assigned, imports)
    if any(not t.deep_equals(trainings[0]) for t in trainings):
        return f"the calls of `{name}` pass different flags as the `training=` of `{_code(module, call)}`"
    return _HelperNormalization(tuple(i for i in indices if i is not None), tuple(sites), trainings[0], rank_two)


def _rank_two_through(expression, before: int, flat, parameters, arguments, index: int, body, assigned, imports: TfImports) -> bool:
    """Is ``expression``, in a helper's statements ``flat``, proven a tensor of rank 2: through
    layers and activations that keep the rank, to a parameter whose argument at the call
    (statement ``index`` of the top level) is one?"""
    for _ in range(20):
        if not isinstance(expression, cst.Name):
            return False
        binding = _binding(expression.value, before, flat, assigned)
        if binding is None:
            if any(expression.value in names_bound(s) for s in flat[:before]) or expression.value not in parameters:
                return False
            argument = arguments.get(expression.value)
            return argument is not None and _rank_two(argument.value, index, body, assigned, imports)
        before, value = binding
        if not (isinstance(value, cst.Call) and imports.call_name(value) in _SAME_RANK and value.args and value.args[0].keyword is None):
            return False
        expression = value.args[0].value
    return False


# TF names whose calls save, restore or list the variables (moving statistics included)
_VARIABLE_READERS = (
    "train.Saver",
    "train.Checkpoint",
    "train.MonitoredTrainingSession",
    "train.export_meta_graph",
    "saved_model.",
    "global_variables",
    "all_variables",
    "local_variables",
    "model_variables",
    "moving_average_variables",
    "get_default_graph",
    "get_variable",
    "contrib.",
)


def _statistics_readers(module: cst.Module, imports: TfImports) -> str | None:
    """Why the moving statistics may be read otherwise than by the runs of the file: a call
    saving or listing variables, a collection other than UPDATE_OPS or the trainable
    variables, a name of theirs written out; None when nothing does."""
    for call in _calls(module):
        called = imports.call_name(call)
        if called is None:
            continue
        if called.startswith(_VARIABLE_READERS) and called != "global_variables_initializer":
            return f"`{_code(module, call)}` may save or list them"
        if called == "get_collection" and not (
            call.args and imports.canonical(call.args[0].value) in ("GraphKeys.UPDATE_OPS", "GraphKeys.TRAINABLE_VARIABLES")
        ):
            return f"`{_code(module, call)}` may list them"
    if "moving_" in module.code:
        return "the file names a variable `moving_...`"
    return None


def _inference_reach(module: cst.Module, body, assigned, flags: set[str], imports: TfImports) -> set[int] | str:
    """The top-level statements whose values the runs feeding a flag False compute (where the
    batch normalizations read their moving statistics), or why they are not known."""
    reached: set[int] = set()
    for call, fetches, feed in _fed_runs(module, imports):
        if not isinstance(feed, cst.Dict) or any(not isinstance(e, cst.DictElement) for e in feed.elements):
            return f"`{_code(module, call)}` feeds a dict that is not written out"
        inferring = any(
            isinstance(e, cst.DictElement)
            and isinstance(e.key, cst.Name)
            and e.key.value in flags
            and not m.matches(e.value, m.Name("True"))
            for e in feed.elements
        )
        if not inferring:
            continue
        at = next(i for i, s in enumerate(body) if any(c is call for c in _calls(s)))
        for name in {n.value for n in _names(fetches)}:
            binding = _binding(name, at, body, assigned)
            if binding is None:
                return f"`{_code(module, call)}` computes `{name}` with the flag False, not followed to its statements"
            reached |= {binding[0]} | _statements_reached(binding[1], binding[0], body, assigned)
    return reached


def _target(node: cst.CSTNode) -> cst.CSTNode:
    """What an assignment, loop or ``as`` binds."""
    if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.For)):
        return node.target
    return cst.ensure_type(node, cst.AsName).name


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    return [n for n in find_all(node, cst.Call) if isinstance(n, cst.Call)]


def _names(node: cst.CSTNode) -> list[cst.Name]:
    return [n for n in find_all(node, cst.Name) if isinstance(n, cst.Name)]


def _code(module: cst.Module, node: cst.CSTNode) -> str:
    """The node's code on one line, cut to a readable length."""
    text = " ".join(
        module.code_for_node(node.with_changes(leading_lines=()) if isinstance(node, cst.SimpleStatementLine) else node).split()
    )
    return text if len(text) <= 70 else text[:67] + "..."


def _inside(module: cst.Module, node: cst.CSTNode) -> str:
    """`` in `name``` of the innermost function or class holding the node, or nothing."""
    holders = [
        d
        for d in find_all(module, (cst.FunctionDef, cst.ClassDef))
        if isinstance(d, (cst.FunctionDef, cst.ClassDef)) and any(n is node for n in preorder(d))
    ]
    return f" in `{holders[-1].name.value}`" if holders else ""


def a_star(call: cst.Call) -> bool:
    return any(a.star for a in call.args)


def _keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _binding(name: str, before: int, body, assigned) -> tuple[int, cst.BaseExpression] | None:
    """The last top-level ``name = ...`` before statement ``before``; None when the name is
    bound otherwise (in a block, by a loop, unpacked) there or not at all.  A block that only
    reads the name (a loop summing ``tf.reduce_mean(x)``) leaves the binding as it was."""
    for i in range(before - 1, -1, -1):
        bound = assigned(body[i])
        if bound is not None and bound[0] == name:
            return i, bound[1]
        if name in names_bound(body[i]):
            return None
    return None


def _rank_two(expression: cst.BaseExpression, before: int, body, assigned, imports: TfImports, depth: int = 0) -> bool:
    """Is ``expression`` proven a tensor of rank 2: a placeholder of a two-element shape,
    through layers and activations that keep the rank of their input?"""
    if depth > 20 or not isinstance(expression, cst.Name):
        return False
    binding = _binding(expression.value, before, body, assigned)
    if binding is None or not isinstance(binding[1], cst.Call):
        return False
    index, value = binding[0], cst.ensure_type(binding[1], cst.Call)
    called = imports.call_name(value)
    if called == "placeholder":
        shape = _keyword(value, "shape") or (value.args[1].value if len(value.args) > 1 and value.args[1].keyword is None else None)
        return isinstance(shape, (cst.List, cst.Tuple)) and len(shape.elements) == 2
    if called in _SAME_RANK and value.args and value.args[0].keyword is None:
        return _rank_two(value.args[0].value, index, body, assigned, imports, depth + 1)
    return False


def _statements_reached(expression: cst.BaseExpression, before: int, body, assigned) -> set[int]:
    """The indices of the top-level statements whose bindings ``expression`` reads, transitively."""
    reached: set[int] = set()
    pending = [(expression, before)]
    while pending:
        node, at = pending.pop()
        for name in {n.value for n in _names(node)}:
            binding = _binding(name, at, body, assigned)
            if binding is not None and binding[0] not in reached:
                reached.add(binding[0])
                pending.append((binding[1], binding[0]))
    return reached


def _run(call: cst.Call, imports: TfImports) -> tuple[cst.BaseExpression, cst.BaseExpression | None] | None:
    """``(fetches, feed)`` of a ``sess.run(fetches, feed)``, ``x.eval(feed)`` or ``op.run(feed)``."""
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value not in ("run", "eval") or imports.call_name(call) is not None:
        return None
    positional = [a.value for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if call.func.attr.value == "run" and ("fetches" in keywords or (positional and not isinstance(positional[0], cst.Dict))):
        fetches = keywords.get("fetches", positional[0] if positional else None)
        feed = keywords.get("feed_dict", positional[1] if len(positional) > 1 else None)
        return (fetches, feed) if fetches is not None else None
    return call.func.value, keywords.get("feed_dict", positional[0] if positional else None)  # ``x.eval(feed)``, ``op.run(feed)``


def _fed_runs(module: cst.Module, imports: TfImports):
    """Each run of the module given a feed: (the call, its fetches, the feed)."""
    for call in _calls(module):
        run = _run(call, imports)
        if run is not None and run[1] is not None:
            yield call, run[0], run[1]


def with_reason(findings: list[Diagnostic], source: str, reason: str) -> list[Diagnostic]:
    """The findings, with why the batch normalizations' fed flags are not proven: on the
    refusals of their ``training=`` and of the UPDATE_OPS collection."""
    lines = source.splitlines()

    def about_updates(f: Diagnostic) -> bool:
        on_collection = f.message.startswith(COLLECTION_REFUSAL) and 0 < f.line <= len(lines) and UPDATE_OPS in lines[f.line - 1]
        return f.code.startswith("TFM3") and (BATCH_NORM_FLAG_REFUSAL in f.message or on_collection)

    return [
        dataclasses.replace(f, message=f"{f.message} (batch normalization with a fed flag not converted: {reason})")
        if about_updates(f)
        else f
        for f in findings
    ]
