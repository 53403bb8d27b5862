"""Feeds: ``feed_dict={x: X}`` (or a variable bound to such a dict) → the keyword
arguments of a generated function's call, converted as the feed converted them."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import libcst as cst
import libcst.matchers as m

from tf2migrate.analysis import blockers
from tf2migrate.analysis.calls import bind_arguments, closure
from tf2migrate.analysis.catalogue import NUMPY_ARRAY_READS
from tf2migrate.analysis.half_precision import half_precision
from tf2migrate.analysis.model import argument_name, FeedDict, Kind, lookup_graph_name, RunSite, Scope, Statement
from tf2migrate.analysis.passed_feed_displays import is_method
from tf2migrate.analysis.names import graph_name, local_name, names_bound, read_and_bound, root_name
from tf2migrate.analysis.tf_imports import dotted_name
from tf2migrate.rewrites.function_emission import default_dtype, has_signature
from tf2migrate.rewrites.generated import Generated, SessionRewrite, UnpackedFeed
from tf2migrate.traversal import children, find_all


def call_arguments(rewrite: SessionRewrite, site: RunSite, generated: Generated, owner: Scope) -> str | None:
    params = {local_name(argument_name(p)): p for p in generated.placeholders}
    # the element of a TF1 iterator: the run takes the next one itself (rewrites/tf1_iterators.py)
    taken = {name: f"{p.placeholder.iterator.name}.get_next()" for name, p in params.items() if p.placeholder and p.placeholder.iterator}
    fed: dict[str, str] = {}
    # the arguments whose values reach the function as tensors of their dtype (see _as_fed)
    tensors: set[str] = set(taken)
    feed = site.feed
    signed = has_signature(rewrite, generated)
    if unknown := next((p for name, p in params.items() if name not in taken and not _known_dtype(_dtype(rewrite, p))), None):
        rewrite.block(
            site.call,
            blockers.UNSUPPORTED_FEED,
            f"placeholder `{local_name(argument_name(unknown))}` has the dtype `{_dtype(rewrite, unknown)}`, not written as one "
            "(`tf.float32`): TF1's feed converted the fed value to it (`np.asarray(value, dtype)`), and whether TF2 "
            "converts it alike depends on it (a Python float is rounded through float32, to a float64 or float16 too)",
        )
        return None
    # the name of NumPy at the run, for the values fed to half-precision placeholders (see _as_fed)
    numpy = None
    if half := [name for name, p in params.items() if name not in taken and half_precision(_dtype(rewrite, p))]:
        numpy = numpy_at(rewrite, site.call)
        if numpy is None:
            rewrite.block(
                site.call,
                blockers.UNSUPPORTED_FEED,
                f"placeholder `{half[0]}` has a half-precision dtype: TF1's feed rounded the fed value to it once "
                "(`np.asarray(value, dtype)`), and TF2 rounds a Python float to float32 first (2049.0001 → 2048, "
                "not 2050); the file has no `import numpy` at module level, before this run, to convert the value "
                "as TF1 did (add `import numpy as np` at the top)",
            )
            return None
    if isinstance(feed, cst.Dict):
        for element in feed.elements:
            key = graph_name(element.key) if isinstance(element, cst.DictElement) else None
            if key is None:
                rewrite.block(element, blockers.UNSUPPORTED_FEED, _unnamed_key(rewrite, element))
                return None
            placeholder = _placeholder(rewrite, key, site, owner)
            if placeholder is None:
                return None
            if local_name(placeholder.defines[0]) in params:
                fed[local_name(placeholder.defines[0])] = rewrite.code(element.value)
                if signed or rewrite.numpy_values().is_numpy(element.value):
                    tensors.add(local_name(placeholder.defines[0]))
            elif (outer := _outer_graph_read(key, owner)) is not None:
                rewrite.block(cst.ensure_type(element, cst.DictElement).key, blockers.UNSUPPORTED_GRAPH_CODE, outer)
                return None
            elif not _side_effect_free(element.value):
                rewrite.block(
                    element.value,
                    blockers.UNSUPPORTED_FEED,
                    f"the value fed to `{key}`, which the fetches do not read, is computed by code not known to be free of "
                    f"effects (`{rewrite.module.code_for_node(element.value)}`): TF1 evaluated it, and a dropped feed would not",
                )
                return None
    elif isinstance(feed, cst.Name) and (passed := _passed_feed_dicts(rewrite, site, feed.value)) is not None:
        # a feed dict the function takes as a parameter (``def save_gradients(self, tf_dict)``)
        if isinstance(passed, str):
            rewrite.block(feed, blockers.UNSUPPORTED_FEED, passed)
            return None
        converted = set(params)
        for display in passed:
            keys = _display_keys(rewrite, display, site, owner)
            if keys is None:
                return None
            if unfed := sorted(set(params) - set(keys) - set(taken)):
                rewrite.block(
                    feed,
                    blockers.UNSUPPORTED_FEED,
                    f"`{feed.value}` is a parameter, and a dict passed for it does not feed `{unfed[0]}`, which this run reads",
                )
                return None
            _rewrite_feed_dict(rewrite, display, keys, _tensor_values(rewrite, display, keys, params, signed))
            converted &= _tensors_in(rewrite, display, keys, signed)
        fed.update({key: f'{feed.value}["{key}"]' for key in params if key not in taken})
        tensors |= converted
    elif isinstance(feed, cst.Name):
        feed_dict = rewrite.facts.feed_dicts.get((id(site.function), feed.value)) or rewrite.facts.feed_dicts.get((id(None), feed.value))
        dict_node = _reaching_feed_dict(feed_dict, site, rewrite.module) if feed_dict is not None else None
        if dict_node is None:
            rewrite.block(
                feed,
                blockers.UNSUPPORTED_FEED,
                f"`{feed.value}` is not bound to a dict display keyed by placeholders before this run"
                if feed_dict is None or (feed_dict.count == 1 and not feed_dict.declared)
                else f"`{feed.value}` is declared `global` or `nonlocal` in a function, which may rebind it before this run: "
                "which dict display reaches it is not known"
                if feed_dict.declared
                else f"`{feed.value}` is bound more than once in this function, and which dict display reaches this run is "
                "not known (a loop around the run binds it again, a block before it binds it only conditionally, or the "
                "last binding is not a dict display)",
            )
            return None
        keys = _display_keys(rewrite, dict_node, site, owner)
        if keys is None:
            return None
        _rewrite_feed_dict(rewrite, dict_node, keys, _tensor_values(rewrite, dict_node, keys, params, signed))
        tensors |= _tensors_in(rewrite, dict_node, keys, signed)
        for key in keys:
            if key in params:
                fed[key] = f'{feed.value}["{key}"]'
        if (
            feed_dict is not None
            and set(keys) == set(params)
            and all(_as_fed(rewrite, params[key], feed.value, numpy=numpy) == feed.value for key in keys)
        ):
            # the dict holds exactly the arguments, none converted to an integer dtype; those
            # converted to tensors are written out unless invariant_feeds converts the dict
            keywords = "" if tensors >= set(keys) else _keywords(rewrite, params, fed, tensors, numpy)
            rewrite.unpacked_feeds.append(UnpackedFeed(feed_dict, dict_node, site, params, keywords))
            return f"**{feed.value}"
    elif feed is not None:
        rewrite.block(feed, blockers.UNSUPPORTED_FEED, "feed_dict must be a dict display or a variable bound to one")
        return None
    fed.update(taken)
    missing = [n for n, p in params.items() if n not in fed and (p.placeholder is None or p.placeholder.default is None)]
    if missing:
        rewrite.block(site.call, blockers.UNSUPPORTED_FEED, _not_fed(rewrite, generated, [params[n] for n in missing]))
        return None
    return _keywords(rewrite, params, fed, tensors, numpy)


def _keywords(rewrite: SessionRewrite, params: dict[str, Statement], fed: dict[str, str], tensors: set[str], numpy: str | None) -> str:
    """The call's keyword arguments: each fed value, converted as the feed converted it."""
    return ", ".join(f"{name}={_as_fed(rewrite, params[name], value, name in tensors, numpy)}" for name, value in fed.items())


def numpy_at(rewrite: SessionRewrite, call: cst.CSTNode) -> str | None:
    """The name of NumPy the module binds at ``call`` (analysis/numpy_values.py), or None."""
    path = _blocks_to(rewrite.module, call)
    return rewrite.numpy_values().numpy_module(path[0][1]) if path else None


def pass_unconverted_values(rewrite: SessionRewrite, converted: set[int]) -> None:
    """A run unpacking a feed dict (``train_step(**tf_dict)``) whose values are not all
    tensors of their dtype, and which invariant_feeds did not convert where it is built
    (``converted``: ids of those dict displays), passes its arguments one by one instead,
    converted at the call as TF1 converted them at the run."""
    for feed in rewrite.unpacked_feeds:
        if not feed.keywords or id(feed.dict_node) in converted:
            continue
        planned = rewrite.plan.replace.get(id(feed.site.call))
        if isinstance(planned, cst.BaseExpression):
            rewrite.plan.replace[id(feed.site.call)] = planned.visit(_Spread(feed.feed_dict.name, feed.keywords))


class _Spread(cst.CSTTransformer):
    """``f(**feeds)`` → ``f(x=feeds["x"], keep=tf.constant(feeds["keep"], "float"))``."""

    def __init__(self, name: str, keywords: str) -> None:
        super().__init__()
        self.name = name
        self.keywords = list(cst.ensure_type(cst.parse_expression(f"f({keywords})"), cst.Call).args)

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg | cst.FlattenSentinel[cst.Arg]:
        if updated_node.star != "**" or not m.matches(updated_node.value, m.Name(self.name)):
            return updated_node
        return cst.FlattenSentinel([*self.keywords[:-1], self.keywords[-1].with_changes(comma=updated_node.comma)])


def _tensor_values(
    rewrite: SessionRewrite, display: cst.Dict, keys: list[str], params: dict[str, Statement], signed: bool
) -> dict[str, str]:
    """The values of a feed dict display a call passes whole (``**feeds``) that _as_fed
    passes as tensors, converted where the dict is built: number literals fed to floating
    placeholders of a function without an input signature (``signed``: it has one).  A
    literal is the same value there as at the run; any other value is converted at the
    call, as TF1 converted it at the run (a list changed in place in between is fed changed)."""
    if signed:
        return {}
    converted = {}
    for element, key in zip(display.elements, keys):
        if (
            key in params
            and not half_precision(_dtype(rewrite, params[key]))
            and isinstance(element, cst.DictElement)
            and _number_literal(value := rewrite.module.code_for_node(element.value))
        ):
            if (as_fed := _as_fed(rewrite, params[key], value, tensor=False)) != value and as_fed.startswith("tf.constant("):
                converted[key] = as_fed
    return converted


def _tensors_in(rewrite: SessionRewrite, display: cst.Dict, keys: list[str], signed: bool) -> set[str]:
    """The keys of a feed dict display whose values reach the function as tensors of their
    placeholder's dtype when the call reads them from the dict: all of them when the
    function is ``signed``, else those shown to be NumPy (analysis/numpy_values.py) and the
    number literals _tensor_values converts (the others are converted at the call)."""
    if signed:
        return set(keys)
    numpy = rewrite.numpy_values()
    return {
        key
        for element, key in zip(display.elements, keys)
        if isinstance(element, cst.DictElement)
        and (numpy.is_numpy(element.value) or _number_literal(rewrite.module.code_for_node(element.value)))
    }


def _display_keys(rewrite: SessionRewrite, display: cst.Dict, site: RunSite, owner: Scope) -> list[str] | None:
    """The argument names a feed dict display's keys stand for (None, with a blocker, when
    a key is no placeholder the run's graph makes); the analysis keeps the displays whose
    keys are all graph names."""
    keys = []
    for element in display.elements:
        key = graph_name(cst.ensure_type(element, cst.DictElement).key)
        placeholder = _placeholder(rewrite, key, site, owner) if key is not None else None
        if placeholder is None:
            return None
        keys.append(local_name(placeholder.defines[0]))
    return keys


def _passed_feed_dicts(rewrite: SessionRewrite, site: RunSite, name: str) -> list[cst.Dict] | str | None:
    """The dict displays a function's parameter ``name`` is given, when a run of the function
    feeds it (``def save_gradients(self, tf_dict): ... sess.run(g, feed_dict=tf_dict)``,
    called ``self.save_gradients(tf_dict)`` after ``tf_dict = {self.x: X}``); a reason
    (str) when that is not proven; None when ``name`` is no parameter of a function that
    binds it nowhere else.  Proven when every mention of the function in the file is a call
    of it (``self.f(...)`` in a method, ``f(...)`` for a module function) that passes, for
    that parameter such a display or a name whose binding reaching the call is one
    (analysis/passed_feed_displays.py), no other module
    of the run writes its name, and the function reads the parameter only as runs' feeds."""
    function = site.function
    if function is None or rewrite.facts.feed_dicts.get((id(function), name)) is not None:
        return None
    parameters = function.params
    if name not in [p.name.value for p in parameters.params] or name in read_and_bound(function.body)[1]:
        return None
    method = is_method(rewrite.module, function)
    # the function's own parameters, ``self`` aside: where a call passes the dict
    own = tuple(p.name.value for p in parameters.params)[1 if method else 0 :]
    feeds = [
        s.feed
        for scope in rewrite.facts.scopes
        for s in scope.run_sites
        if s.function is function and isinstance(s.feed, cst.Name) and s.feed.value == name
    ]
    reads = [n for n in find_all(function.body, cst.Name) if isinstance(n, cst.Name) and n.value == name]
    if len(reads) != len(feeds):
        return f"`{name}` is a parameter the function reads other than as a run's feed: the dicts passed for it are not followed"
    title = function.name.value
    if title in rewrite.facts.importer_names:
        return f"`{name}` is a parameter of `{title}`, which another module of the run names: the dicts passed for it are not known"
    displays: list[cst.Dict] = []
    # a run's own ``sess.run`` is no mention of a function named ``run`` (``def run(feed):
    # return sess.run(y, feed_dict=feed)``): it calls the session's method
    session_runs = {id(s.call.func) for scope in rewrite.facts.scopes for s in scope.run_sites}
    every_attribute = [cst.ensure_type(a, cst.Attribute) for a in find_all(rewrite.module, m.Attribute(attr=m.Name(title)))]
    attributes = [a for a in every_attribute if id(a) not in session_runs]
    names = {id(a.attr) for a in every_attribute}
    mentions = [*attributes, *(n for n in find_all(rewrite.module, m.Name(title)) if id(n) not in names and n is not function.name)]
    # a call of the function: ``self.f(...)`` for a method, ``f(...)`` for a module function
    callee = m.Attribute(value=m.Name("self")) if method else m.Name()
    calls = {id(call.func): call for call in rewrite.facts.calls}
    for mention in mentions:
        call = calls.get(id(mention)) if m.matches(mention, callee) else None
        caller = rewrite.facts.function_of_call.get(id(call)) if call is not None else None
        bound = bind_arguments(call, own) if call is not None else None
        passed = bound[name].value if bound is not None and name in bound else None
        feed_dict = (
            (rewrite.facts.feed_dicts.get((id(caller), passed.value)) or rewrite.facts.feed_dicts.get((id(None), passed.value)))
            if isinstance(passed, cst.Name)
            else None
        )
        display = (
            _reaching_feed_dict(feed_dict, dataclasses.replace(site, call=call, function=caller), rewrite.module)
            if feed_dict is not None and call is not None
            else passed
            if isinstance(passed, cst.Dict) and id(passed) in rewrite.facts.passed_feed_displays  # ``f({x: X})``
            else None
        )
        if display is None:
            return (
                f"`{name}` is a parameter of `{title}`, and a use of `{title}` (`{rewrite.module.code_for_node(call or mention)[:60]}`) "
                "passes for it neither a dict display keyed by placeholders nor a name bound to one"
            )
        displays.append(display)
    return displays or f"`{name}` is a parameter of `{title}`, which nothing in this file calls: the dicts passed for it are not known"


def _not_fed(rewrite: SessionRewrite, generated: Generated, missing: list[Statement]) -> str:
    """Why the run lacks a placeholder its generated function takes.  A statement binding
    several tensors at once (``d_real, d_fake = D(real), D(fake)``) runs whole in the
    function: a fetch of one of them needs every placeholder the statement reads, though
    TF1's run of that one tensor did not."""
    names = ", ".join(f"`{local_name(argument_name(p))}`" for p in missing)
    orders = {p.order for p in missing}
    shared = next(
        (s for s in generated.body if len(s.defines) > 1 and orders & {p.order for p in closure(generated.scope, [s])[1]}),
        None,
    )
    if shared is None:
        return f"placeholder {names} is not fed here"
    bound = ", ".join(f"`{n}`" for n in shared.defines)
    return (
        f"placeholder {names}, which this run does not feed, is read by a statement binding {bound} at once: the "
        "generated function would run that statement whole, where TF1 ran only the ops the fetch needs "
        "(a tensor bound by a statement of its own is run alone)"
    )


def _as_fed(rewrite: SessionRewrite, statement: Statement, value: str, tensor: bool = True, numpy: str | None = None) -> str:
    """A feed converted any number to an integer or boolean placeholder's dtype
    (``[2.0, 1.0]`` → ``[2, 1]``, ``1`` → ``True``); a TensorSpec refuses such values,
    so the call converts them as the feed did (a literal of the right kind needs nothing).
    Unless ``tensor`` (the value reaches the function as a tensor of the placeholder's
    dtype: the function has an input signature, which converts it, or the value is shown
    to be NumPy, or was converted where its dict was built), a value fed to a floating
    placeholder is passed as ``tf.constant(value, dtype)``, which converts as TF1's
    ``np.asarray(value, dtype)`` did.  A Python number, or a list of them, would be a
    constant of the trace: Grappler folds it into the ops reading it (``x / keep``
    computed as ``x * (1 / keep)``, a different rounding), a float fed to a ``float64``
    placeholder is rounded to ``float32`` by the function's cast, and every new value
    traces again, where TF1 computed with the fed value at run time.

    A value fed to a half-precision placeholder (``float16``, ``bfloat16``) is passed as
    ``tf.constant(np.asarray(value), dtype)`` whatever it is (``np``: ``numpy``, the name the
    module binds NumPy to at the run): TF1's ``np.asarray(value, dtype)`` rounded it
    once, where TF2 rounds twice, through ``float32``, both a Python float (``tf.constant``,
    a ``TensorSpec``: 2049.0001 → 2048, not 2050) and a ``float64`` array cast in the
    function (``tf.cast``); ``tf.constant`` of a NumPy array converts it as NumPy does.
    (call_arguments refuses the run when the module binds no name to NumPy there.)"""
    dtype = _dtype(rewrite, statement)
    kind = dtype.rsplit(".", 1)[-1].strip("\"'")
    if half_precision(dtype):
        return f"tf.constant({numpy}.asarray({value}), {dtype})"
    if not kind.startswith(("int", "uint", "bool")):
        if not tensor and dtype and kind.startswith(_FLOATING):
            return f"tf.constant({value}, {dtype})"
        return value
    if (kind == "bool" and value in ("True", "False")) or (kind != "bool" and value.lstrip("-").isdigit()):
        return value
    return f"tf.cast({value}, {dtype})"


_FLOATING = ("float", "double", "half", "bfloat16")


def _dtype(rewrite: SessionRewrite, statement: Statement) -> str:
    """The placeholder's dtype as written (``tf.float16``), "" when not known."""
    placeholder = statement.placeholder
    if placeholder is not None and placeholder.dtype is not None:
        return rewrite.code(placeholder.dtype)
    if placeholder is not None and placeholder.default is not None:  # placeholder_with_default(True, [])
        return default_dtype(rewrite, placeholder.default) or ""
    return ""


# the dtypes TF1 feeds, by their names (``tf.float32``, ``"float32"``, ``np.float32``)
_DTYPE_NAMES = frozenset(
    {
        "float16", "half", "bfloat16", "float32", "float", "float64", "double", "int8", "int16", "int32", "int64",
        "uint8", "uint16", "uint32", "uint64", "bool", "bool_", "string", "complex64", "complex128",
    }
)  # fmt: skip


_DTYPE_CODE = re.compile(r"""(?:[A-Za-z_]\w*\.)*(\w+)|"(\w+)"|'(\w+)'""")


def _known_dtype(dtype: str) -> bool:
    """Is ``dtype`` (code) written as a dtype, a dotted name or a string of one, whose feed
    conversion _as_fed knows (not ``DTYPE``, ``data.dtype``, ``tf.float16 if half else
    tf.float32``)?  "" (no placeholder statement: a value the run takes itself) counts as known."""
    written = _DTYPE_CODE.fullmatch(dtype)
    return not dtype or written is not None and next(g for g in written.groups() if g) in _DTYPE_NAMES


def _number_literal(value: str) -> bool:
    """Is ``value`` (code) a number literal, possibly negated (``0.7``, ``1.``, ``-1``)?"""
    try:
        node = cst.parse_expression(value)
    except cst.ParserSyntaxError:
        return False
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Float, cst.Integer))


def _sparse_placeholder(rewrite: SessionRewrite, statement: Statement) -> bool:
    """Is the statement ``x = tf.sparse_placeholder(...)``?"""
    node = statement.node
    small = node.body[0] if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 else None
    return (
        isinstance(small, cst.Assign)
        and isinstance(small.value, cst.Call)
        and rewrite.facts.imports.call_name(small.value) == "sparse_placeholder"
    )


def _outer_graph_read(key: str, owner: Scope) -> str | None:
    """Why a fed placeholder of an enclosing scope's graph (the module's ``x``, fed by a run
    in ``main()``) is not converted, when the graph code of the run's function builds on it:
    the fetches do read it, through a graph spread over two scopes, which the generated
    functions of one scope cannot take apart.  None when that code does not read it."""
    found = lookup_graph_name(owner, key, None)
    if found is None or found[0] is owner or not isinstance(owner.owner, cst.FunctionDef):
        return None
    if not any(key in s.reads for s in owner.statements if s.kind is not Kind.PYTHON):
        return None
    return (
        f"`{key}` is a placeholder of the module's graph, on which the graph code of `{owner.owner.name.value}` builds: "
        "a graph spread over the module and a function is not converted (build it all in one of them)"
    )


def _placeholder(rewrite: SessionRewrite, name: str, site: RunSite, owner: Scope) -> Statement | None:
    found = lookup_graph_name(owner, name, site.order if site in owner.run_sites else None)
    if found is not None and found[1].kind is Kind.TENSOR and _sparse_placeholder(rewrite, found[1]):
        rewrite.block(
            site.call,
            blockers.UNSUPPORTED_FEED,
            f"`{name}` is a `tf.sparse_placeholder`, fed a sparse value: sparse placeholders are not converted by this release",
        )
        return None
    if found is not None and found[1].kind is Kind.TENSOR:
        rewrite.block(
            site.call,
            blockers.UNSUPPORTED_FEED,
            f"`{name}` is fed but is not a placeholder: graph code computes it, and TF1 replaced that value with "
            "the one fed, converted to the tensor's dtype; not converted, since the dtype of a computed tensor is "
            "not known before the graph runs (feed a placeholder it is computed from)",
        )
        return None
    if found is None or found[1].kind is not Kind.PLACEHOLDER:
        # a placeholder made by a function (``x = inputs(2)``) is not one the analysis can see:
        # say what is missing, not that the program is wrong
        unseen = found is None or found[1].kind not in (Kind.VARIABLE, Kind.PYTHON)
        message = (
            f"`{name}` is fed, but is not bound by a `tf.placeholder(...)` assignment of the graph code "
            "(a placeholder a function makes is not followed); not converted"
            if unseen
            else f"`{name}` is fed but is not a placeholder"
        )
        rewrite.block(site.call, blockers.UNSUPPORTED_FEED, message)
        return None
    placeholder = found[1].placeholder
    if placeholder is not None and placeholder.iterator is not None:
        rewrite.block(site.call, blockers.UNSUPPORTED_FEED, f"`{name}`, an element of a TF1 iterator, is fed: not converted")
        return None
    return found[1]


def rewrite_unused_feed_dicts(rewrite: SessionRewrite) -> None:
    """A feed dict no converted run reads (``feed = {x: X}`` before a run that feeds
    nothing) still names its placeholders, which the migration removes: its keys become
    the argument names as a read one's do, and its values are still computed."""
    placeholders = {name for scope in rewrite.facts.scopes for s in scope.statements if s.kind is Kind.PLACEHOLDER for name in s.defines}
    for feed_dict in rewrite.facts.feed_dicts.values():
        for _, node in feed_dict.bindings:
            keys = [graph_name(cst.ensure_type(e, cst.DictElement).key) for e in node.elements]
            if all(key in placeholders for key in keys):
                _rewrite_feed_dict(rewrite, node, [local_name(key) for key in keys if key is not None])


def _rewrite_feed_dict(rewrite: SessionRewrite, node: cst.Dict, keys: list[str], values: dict[str, str] | None = None) -> None:
    """The dict's keys → the argument names; ``values``: the code of the values a key's
    placeholder takes converted (see _as_fed)."""
    if id(node) in rewrite.rewritten_feed_dicts:
        return
    rewrite.rewritten_feed_dicts.add(id(node))
    values = values or {}

    def with_string_keys(updated: cst.Dict) -> cst.Dict:
        elements = [
            e.with_changes(key=cst.SimpleString(f'"{key}"'), value=cst.parse_expression(values[key]) if key in values else e.value)
            for e, key in zip(updated.elements, keys)
        ]
        return updated.with_changes(elements=elements)

    rewrite.plan.replace[id(node)] = with_string_keys


def _reaching_feed_dict(feed_dict: FeedDict, site: RunSite, module: cst.Module) -> cst.Dict | None:
    """The dict display the feed-dict variable holds at the run site: bound once, or
    rebound in the same function (or at module level) before each group of runs
    (PINNsNTK binds ``tf_dict`` at the top of its training loop and again, for other
    placeholders, in an ``if`` under it; a tutorial binds ``feed_dict`` for each of its
    examples in turn).  The binding that reaches the site is the last statement binding the name in
    the site's block before it, else in the enclosing blocks before theirs; unknown
    (None) when that statement binds it otherwise or only conditionally, when a loop
    around the site binds it anywhere (a later binding reaches the next iteration), as
    does a ``try`` around it (its body's binding reaches the handler), or when a statement
    around it binds it in its header (``with ... as tf_dict``), or when a def declares it
    ``global`` or ``nonlocal`` (a call may rebind it anywhere)."""
    if feed_dict.declared:
        return None
    if feed_dict.count == 1:
        return feed_dict.dict_node
    function = feed_dict.function
    if site.function is not function:
        return None
    displays = {id(assign): display for assign, display in feed_dict.bindings}

    def binds(node: cst.CSTNode) -> bool:
        return feed_dict.name in names_bound(node)

    for body, index, owner in reversed(_blocks_to(function or module, site.call)):
        for statement in reversed(body[:index]):
            if binds(statement):
                if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
                    return displays.get(id(statement.body[0]))
                return None
        if owner is module:
            return None  # the module's body: no binding before the site
        if not isinstance(owner, (cst.If, cst.With, cst.FunctionDef)) and binds(owner) or any(binds(h) for h in _headers(owner)):
            return None  # a loop's later binding, or a ``try`` body's before its handler
    return None


def _blocks_to(root: cst.FunctionDef | cst.Module, target: cst.CSTNode) -> list[tuple[Sequence[cst.BaseStatement], int, cst.CSTNode]]:
    """The blocks from the function's (or module's) body down to ``target``: each block's
    statements, the index of the one holding ``target`` and the compound statement owning
    the block (the function or module for its body)."""
    path: list[tuple[Sequence[cst.BaseStatement], int, cst.CSTNode]] = []
    owner: cst.CSTNode = root
    statements: Sequence[cst.BaseStatement] | Sequence[cst.BaseSmallStatement] = (
        root.body if isinstance(root, cst.Module) else root.body.body
    )
    while True:
        index = next((i for i, s in enumerate(statements) if s is target or find_all(s, m.MatchIfTrue(lambda n: n is target))), None)
        if index is None:
            return []
        path.append((statements, index, owner))  # type: ignore[arg-type]
        holder = statements[index]
        inner = next((b for b in _suites(holder) if find_all(b, m.MatchIfTrue(lambda n: n is target))), None)
        if inner is None:
            return path
        owner, statements = holder, inner.body


def _suites(statement: cst.CSTNode) -> list[cst.BaseSuite]:
    """The blocks of a compound statement, its ``elif``, ``else``, ``except`` and
    ``finally`` clauses' included; none for a simple statement."""
    return [part for part in _parts(statement) if isinstance(part, cst.BaseSuite)]


def _headers(statement: cst.CSTNode) -> list[cst.CSTNode]:
    """What a compound statement runs besides its blocks: tests, iterables, targets
    (``for d in ...``, ``with ... as d``, ``except E as d``)."""
    return [part for part in _parts(statement) if not isinstance(part, cst.BaseSuite)]


def _parts(statement: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    for child in children(statement):
        if isinstance(child, (cst.BaseSuite, cst.BaseExpression, cst.AsName)):
            found.append(child)
        elif not isinstance(child, cst.BaseStatement) or isinstance(child, cst.If):
            found += _parts(child)  # a clause, or an ``elif``
    return found


# NumPy functions that only build a new array from their arguments (a dummy feed's
# ``np.ones((n, q))``): not evaluating one changes nothing else (``np.random`` would)
_NUMPY_BUILDERS = frozenset(
    f"{np}.{f}"
    for np in ("np", "numpy")
    for f in ("ones", "zeros", "ones_like", "zeros_like", "full", "full_like", "array", "asarray", "float32", "float64", "reshape")
)
_ARRAY_READS = NUMPY_ARRAY_READS


def _side_effect_free(expr: cst.BaseExpression) -> bool:
    """Names, literals, attributes, subscripts, displays and arithmetic of them (``data * (i + 1)``:
    NumPy and Python numbers compute, nothing more), NumPy's array builders and an array's
    reading methods (``data.tolist()``, ``x.astype(np.float32)``) of such values; no other call."""
    if isinstance(expr, (cst.Name, cst.BaseNumber, cst.BaseString)):
        return True
    if isinstance(expr, cst.BinaryOperation):
        return _side_effect_free(expr.left) and _side_effect_free(expr.right)
    if isinstance(expr, cst.UnaryOperation):
        return _side_effect_free(expr.expression)
    if isinstance(expr, cst.Comparison):
        return _side_effect_free(expr.left) and all(_side_effect_free(c.comparator) for c in expr.comparisons)
    if isinstance(expr, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and _side_effect_free(e.value) for e in expr.elements)
    if isinstance(expr, cst.Attribute):
        return _side_effect_free(expr.value)
    if isinstance(expr, cst.Call):
        reads = dotted_name(expr.func) in _NUMPY_BUILDERS or (
            isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _ARRAY_READS and _side_effect_free(expr.func.value)
        )
        return reads and all(not a.star and _side_effect_free(a.value) for a in expr.args)
    if isinstance(expr, cst.Subscript):
        return _side_effect_free(expr.value) and all(
            isinstance(e.slice, cst.Index) and _side_effect_free(e.slice.value) or isinstance(e.slice, cst.Slice) for e in expr.slice
        )
    return False


def _unnamed_key(rewrite: SessionRewrite, element: cst.BaseDictElement) -> str:
    """Why a feed key that names no graph value is not converted."""
    if not isinstance(element, cst.DictElement):
        return "a feed dict unpacked into another (`**`) is not converted"
    key = rewrite.module.code_for_node(element.key)
    if isinstance(element.key, cst.BaseString):
        # ``{"x:0": data}``: TF1 looked the tensor up by name in the graph
        return f"a feed keyed by a tensor's name (`{key}`) is not converted: feed the placeholder's Python name"
    if isinstance(element.key, cst.Attribute) and (root := root_name(element.key)) not in (None, "self"):
        # ``{model.x: data}`` with ``model = Model()``: the key may well be a placeholder, but the
        # analysis does not read an object's attributes there; say so, not that the key is wrong
        return (
            f"`{key}` is fed, but it is an attribute of `{root}`: this release follows a fed placeholder only "
            "through a name or, in a class's methods, an attribute of `self`; not converted"
        )
    if isinstance(element.key, cst.Subscript) and (root := root_name(element.key)) is not None:
        # ``{ae['x']: data}`` of a factory's dict, ``{placeholders[0]: data}``: the item may well be a
        # placeholder (TFM151 reads only a dict display of graph names); say so, not that it is none
        return f"`{key}` is fed, but it is an item of `{root}`, a container whose items this release does not read as graph values; not converted"
    return (
        f"`{key}` is fed, but this release does not read it as a placeholder (it follows a fed placeholder "
        "through a name or an attribute of `self`); not converted"
    )
