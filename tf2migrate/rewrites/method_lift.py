"""A method that makes variables and builds ops, called on ``self`` by the class's own
methods → a function of the module taking the object first, so rewrites/helper_split.py
splits it as it splits the module's functions.

GAN classes build both networks with methods (hwalsuklee's generative-model collection,
carpedm20's DCGAN)::

    class GAN(object):
        def discriminator(self, x, is_training=True, reuse=False):
            with tf.variable_scope("discriminator", reuse=reuse):
                net = lrelu(linear(x, 64, scope="d_fc1"))
                ...
        def build_model(self):
            self.inputs = tf.placeholder(tf.float32, [bs, 784])
            D_real, D_real_logits = self.discriminator(self.inputs, reuse=False)
            ...
            D_fake, D_fake_logits = self.discriminator(G, reuse=True)

``self.discriminator(...)`` both makes variables and computes with placeholder-dependent
tensors (TFM304).  The split of a helper into the function making its variables once, where
TF1 called it, and the helper building the ops from them is written for functions of the
module; a method is first rewritten, TF1 to TF1, as one, taking the attributes of the object
it reads as keyword arguments::

    def GAN_discriminator(x, is_training=True, reuse=False, *, self_batch_size):
        ...                                  # the body, ``self.batch_size`` read as ``self_batch_size``

    class GAN(object):
        def build_model(self):
            ...
            D_real, D_real_logits = GAN_discriminator(self.inputs, reuse=False, self_batch_size=self.batch_size)

Python looked ``self.discriminator`` up on the object's class, found the method and ran its
body, which read ``self.batch_size`` from the object; the function given that attribute's
value where the call stands runs the same statements with the same values, when nothing
changes the attribute in between (the body stores nothing on the object) and the body reads
it unconditionally (read at the call, an attribute the body never reached might not exist).
Attributes, not the object: the generated functions then read ``self.batch_size`` as any
graph code of a class does, and the class analysis checks what changes it after the graph is
built (an object passed whole is a Python value it cannot follow).  A method is moved only
when all of this holds (else nothing changes, and TFM304 stays, with the reason):

- the class is a ``class`` at the top of the module, without decorators, keywords
  (a metaclass) or bases but ``object``, no class of the module derives from it (a
  subclass could override the method), and no other class of the module has a method of
  the same name;
- the method is a plain ``def`` of the class's body (no decorator: no ``staticmethod``,
  ``property``; not ``async``), the only binding of its name there, nothing else in the
  class body reads the name, and it takes the object as a positional first parameter;
- its body uses the object only to read its attributes outside branches, loops and
  conditional expressions (no store, no ``del``, not passed on) and to call the methods moved
  with it; it uses no name Python mangles in a class (``self.__w``: outside, another
  attribute) and neither ``super`` nor ``__class__`` (their cell is the class's);
- every other mention of the name in the module is a call ``s.name(...)`` in a method of the
  same class whose first parameter is ``s``, which that method does not rebind, and the
  files of the run importing the module read no attribute of that name (``gan.discriminator``);
- the methods of the class the moved method calls on the object are moved with it (their
  attributes passed on from its own parameters).

Left out of the proof: a subclass in a module the run does not see, overriding the method
(its objects would run the moved function in place of the override).

rewrites/helper_split.py then splits the moved function; the static shapes at its calls in
``build_model`` are derived there (analysis/static_shapes.py's ``evaluate_method``: a
dimension the object's attribute holds, ``[bs, self.z_dim]``, is written as that attribute
where the make call stands, the object unchanged since).  migrate.py keeps the moved methods only if the split then converts the graph; the findings
are placed on the original's lines.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.analysis.blockers import VARIABLE_IN_COMPUTATION
from tf2migrate.analysis.names import assigned_names, fresh_name, target_names
from tf2migrate.diagnostics import Diagnostic, FixSafety, Rule, Severity
from tf2migrate.positions import Positions, anchored_lines
from tf2migrate.traversal import FastTransformer, find_all

METHOD_LIFTED = Rule(
    "TFM156",
    "method-making-variables-moved-to-module",
    "A method that both makes variables and builds ops, called on `self` → a function of the module taking the object "
    "first, split into variables and ops as the module's helpers are.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Moves a method of a class that creates variables and computes with its tensor arguments "
    "(`def discriminator(self, x, reuse=False)`) out of the class as `GAN_discriminator(x, reuse=False, *, "
    "self_batch_size)`, taking the attributes it reads, its calls `self.discriminator(...)` becoming "
    "`GAN_discriminator(..., self_batch_size=self.batch_size)`, so that TFM136 splits it into the variables, made once "
    "where TF1 made them, and the ops.",
    why="Python's `self.method(...)` ran the class's function, which read the object's attributes; the module's "
    "function given those attributes runs the same statements. Done only where nothing else could answer the lookup (no subclass, no "
    "decorator, no other mention of the name) and only when the graph then converts; conditions in "
    "`tf2migrate/rewrites/method_lift.py`.",
    example="class GAN:\n    def discriminator(self, x, reuse=False):\n        ...\n    def build_model(self):\n"
    "        D = self.discriminator(self.x)",
    instead="def GAN_discriminator(x, reuse=False):\n    ...\n\nclass GAN:\n    def build_model(self):\n"
    "        D = GAN_discriminator(self.x)",
    invalid=(
        "import tensorflow as tf\n"
        "class Net(object):\n"
        "    def __init__(self, sess):\n"
        "        self.sess = sess\n"
        "        self.build()\n"
        "    def layer(self, x):\n"
        "        w = tf.get_variable('w', [2, 1], initializer=tf.ones_initializer())\n"
        "        return tf.matmul(x, w)\n"
        "    def build(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None, 2])\n"
        "        self.y = self.layer(self.x)\n"
        "    def predict(self, x):\n"
        "        return self.sess.run(self.y, {self.x: x})\n"
        "sess = tf.Session()\n"
        "net = Net(sess)\n"
        "sess.run(tf.global_variables_initializer())\n"
        "print(net.predict([[1.0, 2.0]]))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "class Net(object):\n"
        "    def __init__(self, sess):\n"
        "        self.sess = sess\n"
        "        self.build()\n"
        "    def layer(self, x):\n"
        "        w = tf.get_variable('w', [2, 1], initializer=tf.ones_initializer())\n"
        "        return tf.matmul(x, w)\n"
        "    def build(self):\n"
        "        self.x = tf.placeholder(tf.float32, [None, 2])\n"
        "        self.y = self.layer(self.x)\n"
        "    def predict(self, x):\n"
        "        return self.sess.run(self.y, {self.x: x})\n"
        "class Deeper(Net):   # a subclass may override `layer`: not moved\n"
        "    pass\n"
        "sess = tf.Session()\n"
        "net = Deeper(sess)\n"
        "sess.run(tf.global_variables_initializer())\n"
        "print(net.predict([[1.0, 2.0]]))\n",
    ),
)
RULES = [METHOD_LIFTED]

# the method a TFM304 finding names (statements.py's reason for a method):
# ``… `self.discriminator(...)` creates variables (not split into variables and ops: `discriminator` is a method``
METHOD_CALL = re.compile(r"`[A-Za-z_]\w*\.([A-Za-z_]\w*)\(\.\.\.\)` creates variables \(not split into variables and ops: `\1` is a method")

# a name Python rewrites inside a class body (``__w`` → ``_GAN__w``)
_MANGLED = re.compile(r"^__\w*[^_]\w*$|^__\w*[^_]$")
_MENTIONED = ("super", "__class__")


@dataclass
class Lifted:
    """The module with the methods moved out of their class, the original line of each of
    its lines, and the notes (on the original's lines)."""

    source: str
    lines: list[int]
    notes: list[tuple[int, int, str]] = field(default_factory=list)
    functions: dict[str, str] = field(default_factory=dict)  # method → the module function it became

    def map_line(self, line: int) -> int:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else line


def lift_methods(module: cst.Module, names: set[str], importer_attributes: frozenset[str] = frozenset()) -> Lifted | dict[str, str]:
    """The module with the methods ``names`` (of any class of the module) moved to module
    functions where that keeps their meaning; else, by method, why not."""
    reasons: dict[str, str] = {}
    chosen: dict[str, cst.ClassDef] = {}
    for name in sorted(names):
        owners = [c for c in module.body if isinstance(c, cst.ClassDef) and _method(c, name) is not None]
        if len(owners) != 1:
            classes = ", ".join(f"`{c.name.value}`" for c in owners)
            where = f"several classes of the module ({classes})" if owners else "no class at the top of the module"
            reasons[name] = f"`{name}` is a method of {where}"
            continue
        chosen[name] = owners[0]
    # the methods they call on the object, moved with them (their split reads those as functions)
    pending = list(chosen)
    while pending:
        name = pending.pop()
        cls = chosen[name]
        method = _method(cls, name)
        assert method is not None
        for called in _self_calls(method):
            if called not in chosen and _method(cls, called) is not None:
                chosen[called] = cls
                pending.append(called)
    for name, cls in chosen.items():
        why = _refusal(module, cls, name, set(chosen), importer_attributes)
        if why is not None:
            reasons[name] = why
    if reasons:
        # a method left in its class keeps the calls of those moved with it on ``self``: none moves
        return reasons | {n: f"`{n}` is moved only with `{next(iter(reasons))}`, which is not" for n in chosen if n not in reasons}
    if not chosen:
        return reasons
    in_use = {n.value for n in find_all(module, cst.Name) if isinstance(n, cst.Name)}
    functions = {name: fresh_name(f"{cls.name.value}_{name}", in_use) for name, cls in chosen.items()}
    # the attributes of the object each method reads, its callees' included, in order
    attributes = {name: _attributes_read(cst.ensure_type(_method(cls, name), cst.FunctionDef)) for name, cls in chosen.items()}
    changed = True
    while changed:
        changed = False
        for name, cls in chosen.items():
            for called in _self_calls(cst.ensure_type(_method(cls, name), cst.FunctionDef)):
                for attribute in attributes.get(called, []):
                    if attribute not in attributes[name]:
                        attributes[name].append(attribute)
                        changed = True
    parameters = {
        name: {a: fresh_name(f"{_self_name(cst.ensure_type(_method(cls, name), cst.FunctionDef))}_{a}", in_use) for a in attributes[name]}
        for name, cls in chosen.items()
    }
    positions = Positions(module)
    origins: dict[int, int | None] = {}
    calls = _CallsToFunctions(functions, parameters, positions, origins)
    body: list[cst.BaseStatement] = []
    notes: list[tuple[int, int, str]] = []
    for statement in module.body:
        if not (isinstance(statement, cst.ClassDef) and statement in chosen.values()):
            body.append(statement)
            continue
        moved = [n for n, c in chosen.items() if c is statement]
        kept: list[cst.BaseStatement] = []
        block = cst.ensure_type(statement.body, cst.IndentedBlock)
        for member in block.body:
            if isinstance(member, cst.FunctionDef) and member.name.value in moved:
                calls.moving = parameters[member.name.value]
                function = cst.ensure_type(member.visit(calls), cst.FunctionDef)
                calls.moving = None
                params = function.params
                taken = [cst.Param(cst.Name(p)) for p in parameters[member.name.value].values()]
                function = function.with_changes(
                    name=cst.Name(functions[member.name.value]),
                    params=params.with_changes(
                        params=params.params[1:],
                        star_arg=params.star_arg if params.star_arg != cst.MaybeSentinel.DEFAULT or not taken else cst.ParamStar(),
                        kwonly_params=[*params.kwonly_params, *taken],
                    ),
                    leading_lines=[*([cst.EmptyLine()] * 2 if body else []), *member.leading_lines],
                )
                line, column = positions.get(member) or (1, 0)
                origins[id(function)] = line
                body.append(function)
                notes.append(
                    (
                        line,
                        column + 1,
                        f"method `{member.name.value}` of `{statement.name.value}`, which both makes variables and builds ops, "
                        f"moved to the module as `{functions[member.name.value]}`, taking the attributes of the object it reads "
                        "as arguments, so it is split into variables and ops as the module's helpers are (TFM136); its calls on "
                        "the object call it",
                    )
                )
            else:
                kept.append(cst.ensure_type(member.visit(calls), (cst.SimpleStatementLine, cst.BaseCompoundStatement)))  # type: ignore[arg-type]
        if not kept:
            kept = [cst.SimpleStatementLine([cst.Pass()])]
        new_class = statement.with_changes(body=block.with_changes(body=kept), leading_lines=[cst.EmptyLine()] * 2)
        origins[id(new_class)] = (positions.get(statement) or (1, 0))[0]
        body.append(new_class)
    new = module.with_changes(body=body)
    return Lifted(new.code, anchored_lines(new, positions, origins), notes, functions)


def _method(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    block = cls.body
    if not isinstance(block, cst.IndentedBlock):
        return None
    found = [s for s in block.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return found[0] if len(found) == 1 else None


def _self_name(method: cst.FunctionDef) -> str | None:
    """The method's first parameter (the object), when it is positional."""
    params = method.params
    if params.posonly_params or not params.params:
        return None
    return params.params[0].name.value


def _self_calls(method: cst.FunctionDef) -> list[str]:
    """The names ``m`` of the calls ``self.m(...)`` in the method (``self``: its first parameter)."""
    me = _self_name(method)
    return [
        call.func.attr.value
        for call in find_all(method.body, cst.Call)
        if isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value == me
    ]


def _refusal(module: cst.Module, cls: cst.ClassDef, name: str, moved: set[str], importer_attributes: frozenset[str]) -> str | None:
    """Why moving method ``name`` of ``cls`` out of it might change what the program does; None if nothing."""
    label = f"`{cls.name.value}.{name}`"
    if cls.decorators or cls.keywords or any(not (isinstance(b.value, cst.Name) and b.value.value == "object") for b in cls.bases):
        return f"{label}: its class has a decorator, a metaclass or a base other than `object`"
    derived = [
        c.name.value
        for c in find_all(module, cst.ClassDef)
        if isinstance(c, cst.ClassDef) and any(isinstance(b.value, cst.Name) and b.value.value == cls.name.value for b in c.bases)
    ]
    if derived:
        return f"{label}: `{derived[0]}` derives from `{cls.name.value}` and may override it"
    method = _method(cls, name)
    assert method is not None
    block = cst.ensure_type(cls.body, cst.IndentedBlock)
    if method.decorators or method.asynchronous is not None:
        return f"{label} has a decorator or is `async`"
    if _self_name(method) is None:
        return f"{label} takes no positional first parameter (the object)"
    bound_elsewhere = [s for s in block.body if s is not method and name in _bound_in_class(s)]
    read_in_class = [n for s in block.body if not isinstance(s, cst.FunctionDef) for n in find_all(s, cst.Name) if _named(n, name)]
    if bound_elsewhere or read_in_class:
        return f"{label}: the class body binds or reads the name `{name}` otherwise"
    for node in find_all(method, (cst.Name, cst.Attribute)):
        word = node.value if isinstance(node, cst.Name) else cst.ensure_type(node, cst.Attribute).attr.value
        if isinstance(word, str) and (_MANGLED.match(word) or word in _MENTIONED):
            return f"{label} uses `{word}`, which means something else outside the class"
    me = _self_name(method)
    stored = _stored_attributes(method)
    calls = {id(c.func): c for c in find_all(method.body, cst.Call) if isinstance(c, cst.Call)}
    held = {id(a.value): a for a in find_all(method.body, cst.Attribute) if isinstance(a, cst.Attribute)}
    for node in find_all(method.body, cst.Name):
        if not _named(node, me):
            continue
        attribute = held.get(id(node))
        if attribute is None or id(attribute) in stored:
            return f"{label} uses its object `{me}` otherwise than by reading its attributes (`{me}.x`) and calling methods on it"
        if id(attribute) in calls and attribute.attr.value not in moved:
            return f"{label} calls `{me}.{attribute.attr.value}(...)`, which is no method of its class moved with it"
    if me in _rebound(method):
        return f"{label} binds `{me}` anew"
    conditional = (cst.If, cst.While, cst.For, cst.Try, cst.IfExp, cst.BooleanOperation, cst.Lambda, cst.ListComp, cst.SetComp)
    for part in find_all(method.body, (*conditional, cst.DictComp, cst.GeneratorExp)):
        for read in find_all(part, cst.Attribute):
            if isinstance(read, cst.Attribute) and _named(read.value, me) and id(read) not in calls:
                # (read where the call stands, an attribute the body may never have read might not exist)
                return f"{label} reads `{me}.{read.attr.value}` in a branch, a loop or an expression that may not run"
    if name in importer_attributes:
        return f"{label}: a file of the run importing the module reads an attribute `{name}`"
    on_self = _calls_on_self(cls, name)
    # (one walk of the module for the attributes, keyword arguments and names below)
    walked = find_all(module, (cst.Attribute, cst.Arg, cst.Name))
    attributes = [n for n in walked if isinstance(n, cst.Attribute)]
    for mention in attributes:
        if mention.attr.value == name and id(mention) not in on_self:
            return f"{label}: `{module.code_for_node(mention)}` names it otherwise than by a call on `self` in a method of the class"
    # (``self.discriminator``'s attribute name and a keyword argument's are no mention of the name)
    parts = {id(a.attr) for a in attributes}
    parts |= {id(a.keyword) for a in walked if isinstance(a, cst.Arg) and a.keyword is not None}
    for node in walked:
        if _named(node, name) and node is not method.name and id(node) not in parts:
            return f"{label}: the module binds or reads the name `{name}` too"
    return None


def _named(node: cst.CSTNode, name: str | None) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _stored_attributes(method: cst.FunctionDef) -> set[int]:
    """Ids of the attributes the method stores into, deletes, or stores an item or attribute
    of (``self.x = …``, ``self.x[0] = …``, ``self.x.y += …``, ``del self.x``)."""
    targets: list[cst.BaseExpression] = []
    for node in find_all(method.body, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del, cst.For, cst.WithItem)):
        if isinstance(node, cst.WithItem):
            if node.asname is not None:
                targets.append(node.asname.name)
        else:
            targets.append(node.target)  # type: ignore[attr-defined]
    out: set[int] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, cst.Attribute):
            out.add(id(target))
            targets.append(target.value)
        elif isinstance(target, cst.Subscript):
            targets.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(e.value for e in target.elements)
        elif isinstance(target, cst.StarredElement):
            targets.append(target.value)
    return out


def _attributes_read(method: cst.FunctionDef) -> list[str]:
    """The attributes ``self.x`` the method reads (not the methods it calls on it), in order."""
    me = _self_name(method)
    called = {id(c.func) for c in find_all(method.body, cst.Call) if isinstance(c, cst.Call)}
    out: list[str] = []
    for attribute in find_all(method.body, cst.Attribute):
        if (
            isinstance(attribute, cst.Attribute)
            and isinstance(attribute.value, cst.Name)
            and attribute.value.value == me
            and id(attribute) not in called
            and attribute.attr.value not in out
        ):
            out.append(attribute.attr.value)
    return out


def _bound_in_class(statement: cst.BaseStatement) -> set[str]:
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return {statement.name.value}
    return set(assigned_names(statement))


def _calls_on_self(cls: cst.ClassDef, name: str) -> set[int]:
    """Ids of the attributes ``s.name`` called in the class's methods whose first parameter
    is ``s``, not rebound there."""
    out: set[int] = set()
    for method in cst.ensure_type(cls.body, cst.IndentedBlock).body:
        if not isinstance(method, cst.FunctionDef) or method.decorators:
            continue
        me = _self_name(method)
        if me is None or me in _rebound(method):
            continue
        for call in find_all(method.body, cst.Call):
            func = cst.ensure_type(call, cst.Call).func
            if isinstance(func, cst.Attribute) and func.attr.value == name and isinstance(func.value, cst.Name) and func.value.value == me:
                out.add(id(func))
    return out


def _rebound(method: cst.FunctionDef) -> set[str]:
    """The names a method (or a scope inside it) binds anew in its body."""
    out: set[str] = set()
    for node in find_all(method.body, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.AsName, cst.NamedExpr, cst.Param)):
        target = getattr(node, "target", None) or getattr(node, "name", None)
        out |= set(target_names(target))  # (``self.x = ...`` rebinds no name)
    for node in find_all(method.body, (cst.FunctionDef, cst.ClassDef, cst.Global, cst.Nonlocal)):
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            out |= {n.name.value for n in node.names}
        else:
            out.add(cst.ensure_type(node, (cst.FunctionDef, cst.ClassDef)).name.value)  # type: ignore[arg-type]
    return out


class _CallsToFunctions(FastTransformer):
    """``self.m(args)`` → ``Cls_m(self, args)`` for the moved methods ``m``; each statement it
    rewrites keeps the original's line (``origins``)."""

    def __init__(
        self, functions: dict[str, str], parameters: dict[str, dict[str, str]], positions: Positions, origins: dict[int, int | None]
    ) -> None:
        super().__init__()
        self.functions = functions
        self.parameters = parameters  # by moved method: its attributes → the parameters taking them
        self.moving: dict[str, str] | None = None  # the parameters of the method being moved
        self.positions = positions
        self.origins = origins
        self.selves: list[str | None] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.selves.append(_self_name(node) if not self.selves else self.selves[-1])
        return True

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self.selves.pop()
        return self._placed(original, updated)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        func = original.func
        me = self.selves[-1] if self.selves else None
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in self.functions
            and isinstance(func.value, cst.Name)
            and func.value.value == me
        ):
            # the attributes it reads: read off the object where it is called, or passed on
            # by a moved method from its own parameters
            given = [
                cst.Arg(
                    cst.Name(self.moving[a]) if self.moving is not None else cst.Attribute(cst.Name(me), cst.Name(a)),
                    keyword=cst.Name(p),
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
                )
                for a, p in self.parameters[func.attr.value].items()
            ]
            args = list(updated.args)
            if args and given:
                args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            for index, arg in enumerate(given[:-1]):
                given[index] = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            return updated.with_changes(func=cst.Name(self.functions[func.attr.value]), args=[*args, *given])
        return updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        me = self.selves[-1] if self.selves else None
        if self.moving is not None and _named(original.value, me) and original.attr.value in self.moving:
            return cst.Name(self.moving[original.attr.value])  # (an attribute read in the moved body)
        return updated

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        return self._placed(original, updated)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        result = super().on_leave(original, updated)
        if isinstance(original, cst.BaseCompoundStatement) and not isinstance(original, cst.FunctionDef) and result is not original:
            self._placed(original, result)
        return result

    def _placed(self, original, updated):
        if updated is not original:
            at = self.positions.get(original)
            self.origins[id(updated)] = at[0] if at is not None else None
        return updated


def with_reasons(findings: list[Diagnostic], reasons: dict[str, str]) -> list[Diagnostic]:
    """The findings, with why each method was not moved (or, moved, what still keeps the
    graph on TF1) appended to the TFM304 findings naming it."""
    out = []
    for finding in findings:
        found = METHOD_CALL.search(finding.message) if finding.code == VARIABLE_IN_COMPUTATION.code else None
        if found is not None and found.group(1) in reasons:
            finding = dataclasses.replace(finding, message=f"{finding.message}; not moved to the module: {reasons[found.group(1)]}")
        out.append(finding)
    return out
