"""A helper applied again under variable-scope reuse → its split ops applied to the variables
its first call made.

GANs apply the discriminator to real and to generated samples, Siamese networks one tower to
two inputs; TF1 code shares the network's variables by scope name::

    with tf.variable_scope("D") as scope:
        D_real = discriminator(x, drop_out)
        scope.reuse_variables()
        D_fake = discriminator(G_z, drop_out)

The second call's ``tf.get_variable("D_w0", ...)`` returns the variable ``D/D_w0`` the first
call made.  Eager TF2 keeps no variable store: ``tf.compat.v1.get_variable`` would make new
variables.  Once the helper is split (rewrites/helper_split.py: ``make_discriminator_variables``
called where the first call stood), the reusing call is written as the helper applied to the
first call's variables, and the reuse itself is dropped (nothing under it makes variables any
more)::

    with tf.variable_scope("D") as scope:
        discriminator_D_w0, ... = make_discriminator_variables(x_shape=[None, 4], h0_shape=[None, 5])
        D_real = discriminator(x, drop_out, variables=(discriminator_D_w0, ...))
        D_fake = discriminator(G_z, drop_out, variables=(discriminator_D_w0, ...))

That is the same TF1 program (TF1 to TF1), whose graph then converts as any other.  Reuse is
followed in the module's straight-line code: ``with tf.variable_scope("name")`` blocks (nested
ones give the path of scopes), ``scope.reuse_variables()`` (or
``tf.get_variable_scope().reuse_variables()``) in the block of its scope, then the rest of that
block reuses; ``with tf.variable_scope("name" or scope, reuse=True / tf.AUTO_REUSE)``.  A call
under reuse is proven to get the variables of an earlier call when (else nothing is split, and
the reason is given with TFM304):

- exactly one earlier call of the same helper, not itself reusing, stood in the same path of
  scopes (none: TF1 raised, or the scope is not this file's; several: which one is not known);
- the helper makes every variable by ``tf.get_variable`` (``tf.Variable`` ignores reuse: TF1
  made new ones);
- the make function would be given the same arguments at both calls — literals (shapes
  derived from the file included) or names the module binds once to a literal — so the variables' names and
  shapes are the same (TF1 checked the shapes);
- nothing else under the reuse makes variables (the reuse is dropped with the calls), and no
  call of the helper stands under reuse in a loop, a branch or a function.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.traversal import find_all

SCOPE_REUSE = Rule(
    "TFM147",
    "network-shared-by-scope-reuse",
    "A helper called again under `tf.variable_scope` reuse → its ops applied to the variables its first call made.",
    Severity.INFO,
    FixSafety.SAFE,
    what="Where a helper of the file that makes its variables by `tf.get_variable` is called again under variable-scope "
    "reuse (`scope.reuse_variables()`, `tf.variable_scope(scope, reuse=True)`, `reuse=tf.AUTO_REUSE`) — a GAN's "
    "discriminator applied to real and fake samples — the split helper (TFM136) is applied to the variables the first "
    "call made, passed as `variables=`, and the reuse is dropped.",
    why="Eager TF2 keeps no variable store: `tf.compat.v1.get_variable` under reuse makes new variables where TF1 returned "
    "the existing ones. The variables are proven the same: one earlier call in the same scope, the same arguments, "
    "`tf.get_variable` only; the conditions are in `tf2migrate/rewrites/scope_reuse.py`.",
    example="with tf.variable_scope('D') as scope:\n    d_real = discriminator(x)\n    scope.reuse_variables()\n"
    "    d_fake = discriminator(g)",
    instead="with tf.variable_scope('D') as scope:\n    discriminator_w = make_discriminator_variables(x_shape=[None, 4])\n"
    "    d_real = discriminator(x, variables=discriminator_w)\n    d_fake = discriminator(g, variables=discriminator_w)",
    invalid=(
        "import tensorflow as tf\n"
        "def discriminator(x):\n"
        "    w = tf.get_variable('w', [4, 1])\n"
        "    return tf.matmul(x, w)\n"
        "x = tf.placeholder(tf.float32, [None, 4])\n"
        "g = tf.placeholder(tf.float32, [None, 4])\n"
        "with tf.variable_scope('D') as scope:\n"
        "    d_real = discriminator(x)\n"
        "    scope.reuse_variables()\n"
        "    d_fake = discriminator(g)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(d_fake, {g: [[1.0, 2.0, 3.0, 4.0]]}))\n",
    ),
    valid=(
        "import tensorflow as tf\n"
        "def discriminator(x):\n"
        "    w = tf.get_variable('w', [4, 1])\n"
        "    return tf.matmul(x, w)\n"
        "x = tf.placeholder(tf.float32, [None, 4])\n"
        "g = tf.placeholder(tf.float32, [None, 4])\n"
        "with tf.variable_scope('D', reuse=True):   # a scope no code of the file made: TF1 raised\n"
        "    d_fake = discriminator(g)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    print(sess.run(d_fake, {g: [[1.0, 2.0, 3.0, 4.0]]}))\n",
    ),
)
RULES = [SCOPE_REUSE]


@dataclass
class Reuse:
    """What the reuse in the module comes to for the split helpers."""

    reused: dict[int, int] = field(default_factory=dict)  # id(call) reusing → id(call) whose variables it takes
    dropped: set[int] = field(default_factory=set)  # ids of ``scope.reuse_variables()`` statements
    # ids of ``variable_scope`` calls whose ``reuse=`` goes → the name that re-enters the
    # scope in place of its object (None: the first argument stays)
    unreused: dict[int, str | None] = field(default_factory=dict)
    shared_by: dict[int, str] = field(default_factory=dict)  # id(reusing call) → how TF1 shared (for the note)


@dataclass
class _Block:
    path: tuple[str, ...]  # the variable scopes' names, outermost first
    handle: str | None  # the ``as`` name of its scope
    reuse: str | None  # None, "True" or "AUTO_REUSE"
    why: str | None = None  # why its scope is not followed


def find_reuse(
    module: cst.Module,
    call_name: Callable[[cst.Call], str | None],
    sites: dict[str, list[tuple[cst.SimpleStatementLine, cst.Call]]],
    given: dict[int, list[str]],
    plain: dict[str, str | None],
    makes_variables: Callable[[cst.CSTNode], bool],
    constants: set[str],
) -> Reuse | dict[str, str]:
    """Which calls of the helpers in ``sites`` take an earlier call's variables, and the reuse
    statements to drop; else, by helper, why not.  ``given`` holds each call's make-call
    arguments; ``plain`` why a helper's variables are not all ``tf.get_variable`` calls (None
    when they are); ``makes_variables(call)`` tells a call that makes variables; ``constants``
    the module's names bound once to a literal."""
    site_of = {id(statement): (name, call) for name, pairs in sites.items() for statement, call in pairs}
    walker = _Walker(call_name, site_of, given, plain, makes_variables, constants)
    walker.block(module.body, _Block((), None, None))
    if not walker.involved:
        return Reuse()
    for name, pairs in sites.items():
        if name in walker.involved and any(id(call) not in walker.seen for _, call in pairs):
            walker.reasons.setdefault(
                name, f"`{name}` is also called in a loop, a branch or a function, where the reuse of its scope is not followed"
            )
    if walker.spoiled is not None:
        for name in walker.involved:
            walker.reasons.setdefault(name, walker.spoiled)
    return walker.reasons or walker.reuse


def called_under_reuse(module: cst.Module, call_name: Callable[[cst.Call], str | None]) -> set[str]:
    """The names called (``name(...)``) in the module's straight-line statements under
    variable-scope reuse: the helpers to split with those TFM304 names (the first refusal of
    a file may hide the others)."""
    walker = _Walker(call_name, {}, {}, {}, lambda call: False, set())
    walker.block(module.body, _Block((), None, None))
    return walker.called


class _Walker:
    def __init__(
        self,
        call_name: Callable[[cst.Call], str | None],
        site_of: dict[int, tuple[str, cst.Call]],
        given: dict[int, list[str]],
        plain: dict[str, str | None],
        makes_variables: Callable[[cst.CSTNode], bool],
        constants: set[str],
    ) -> None:
        self.call_name = call_name
        self.site_of = site_of
        self.given = given
        self.plain = plain
        self.makes_variables = makes_variables
        self.constants = constants
        self.handles: dict[str, tuple[str, ...]] = {}  # ``as`` names → their scopes' paths
        self.reused_handles: set[str] = set()  # scopes told ``reuse_variables()``: they reuse wherever entered again
        self.made: dict[tuple[str, tuple[str, ...]], list[cst.Call]] = {}  # (helper, path) → creating calls
        self.reasons: dict[str, str] = {}
        self.reuse = Reuse()
        self.involved: set[str] = set()  # the helpers called under reuse
        self.called: set[str] = set()  # every name called under reuse
        self.seen: set[int] = set()
        self.spoiled: str | None = None  # why the reuse cannot be dropped

    def block(self, body: Sequence[cst.BaseStatement], block: _Block) -> None:
        for statement in body:
            if isinstance(statement, cst.With):
                inner = self.scope(statement, block)
                self.block(cst.ensure_type(statement.body, cst.IndentedBlock).body, inner)
                continue
            if isinstance(statement, cst.SimpleStatementLine):
                if block.reuse is not None:
                    self.called |= {
                        c.func.value for c in find_all(statement, cst.Call) if isinstance(c, cst.Call) and isinstance(c.func, cst.Name)
                    }
                reusing = self.reuse_statement(statement, block)
                if reusing:
                    block.reuse = "True"
                    self.reuse.dropped.add(id(statement))
                    continue
                site = self.site_of.get(id(statement))
                if site is not None:
                    self.site(*site, block)
                    continue
            if not isinstance(statement, cst.SimpleStatementLine) and self.asks_reuse(statement):
                for line in find_all(statement, cst.SimpleStatementLine):
                    if id(line) in self.site_of:
                        name, call = self.site_of[id(line)]
                        self.involved.add(name)
                        self.reasons.setdefault(
                            name,
                            f"the call `{_code(call)}` stands in a loop, a branch or a function that asks for variable-scope "
                            "reuse: which calls reuse there is not followed",
                        )
            if block.reuse is not None and any(self.makes_variables(c) for c in find_all(statement, cst.Call)):
                self.spoiled = "a statement under variable-scope reuse makes variables otherwise than by a split helper's call"

    def scope(self, statement: cst.With, block: _Block) -> _Block:
        """The block a ``with`` opens: its scope path and reuse."""
        inner = _Block(block.path, None, block.reuse, block.why)
        for item in statement.items:
            call = item.item
            name = self.call_name(call) if isinstance(call, cst.Call) else None
            if name == "name_scope":
                continue  # names ops; get_variable does not read it
            if name != "variable_scope":
                if isinstance(call, cst.Call) and any(self.makes_variables(c) for c in find_all(call, cst.Call)):
                    self.spoiled = "a `with` statement's header makes variables"
                continue
            assert isinstance(call, cst.Call)
            first = call.args[0].value if call.args and call.args[0].keyword is None else None
            others = [a for a in call.args[1:] if a.keyword is None or a.keyword.value != "reuse"]
            reuse = next((a for a in call.args if a.keyword is not None and a.keyword.value == "reuse"), None)
            if isinstance(first, cst.SimpleString) and isinstance(first.evaluated_value, str) and not others:
                path = (*inner.path, first.evaluated_value)
            elif isinstance(first, cst.Name) and first.value in self.handles and not others:
                path = self.handles[first.value]  # a scope object re-enters its own path
                if first.value in self.reused_handles:
                    inner.reuse = "True"
            else:
                inner.why = (
                    f"`{_code(call)}` is not a scope of this file's code followed here (a name written out, or the `as` name of one)"
                )
                path = (*inner.path, "\0")
            inner.path = path
            if isinstance(item.asname, cst.AsName) and isinstance(item.asname.name, cst.Name):
                inner.handle = item.asname.name.value
                self.handles[inner.handle] = path
            if reuse is not None:
                value = reuse.value
                kind = (
                    "True"
                    if isinstance(value, cst.Name) and value.value == "True"
                    else "AUTO_REUSE"
                    if self.call_name_of_attribute(value) == "AUTO_REUSE"
                    else None
                )
                if isinstance(value, cst.Name) and value.value in ("False", "None"):
                    continue
                if kind is None:
                    inner.why = f"`{_code(call)}`: its `reuse=` is not `True` or `tf.AUTO_REUSE` written out"
                    kind = "True"
                inner.reuse = kind
                # ``tf.variable_scope(scope)``: the scope object re-entered where it was made is its
                # name (no variable is made in it any more: only the ops' names read it)
                by_name = isinstance(first, cst.Name) and path[:-1] == block.path
                self.reuse.unreused[id(call)] = path[-1] if by_name else None
        return inner

    def asks_reuse(self, node: cst.CSTNode) -> bool:
        """Does ``node`` hold a ``variable_scope(..., reuse=...)`` or a ``reuse_variables()``?"""
        return any(
            (
                isinstance(c, cst.Call)
                and self.call_name(c) == "variable_scope"
                and any(a.keyword is not None and a.keyword.value == "reuse" for a in c.args)
            )
            or (isinstance(c, cst.Attribute) and c.attr.value == "reuse_variables")
            for c in find_all(node, (cst.Call, cst.Attribute))
        )

    def call_name_of_attribute(self, value: cst.BaseExpression) -> str | None:
        return value.attr.value if isinstance(value, cst.Attribute) and value.attr.value == "AUTO_REUSE" else None

    def reuse_statement(self, statement: cst.SimpleStatementLine, block: _Block) -> bool:
        """``scope.reuse_variables()`` of the block's own scope (or of the default scope)."""
        if len(statement.body) != 1 or not isinstance(statement.body[0], cst.Expr):
            return False
        call = statement.body[0].value
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "reuse_variables"):
            return False
        owner = call.func.value
        if isinstance(owner, cst.Name) and owner.value == block.handle:
            self.reused_handles.add(owner.value)
            return True
        if isinstance(owner, cst.Call) and self.call_name(owner) == "get_variable_scope" and block.path:
            return True
        self.spoiled = f"`{_code(call)}` is not the reuse of the scope of the block it stands in"
        return True

    def site(self, name: str, call: cst.Call, block: _Block) -> None:
        self.seen.add(id(call))
        key = (name, block.path)
        earlier = self.made.get(key, [])
        if block.reuse is None or (block.reuse == "AUTO_REUSE" and not earlier):
            self.made.setdefault(key, []).append(call)
            return
        self.involved.add(name)
        call_text = _code(call)
        if block.why is not None:
            self.reasons.setdefault(name, f"the call `{call_text}` reuses variables by scope name, but {block.why}")
            return
        if len(earlier) != 1:
            what = (
                "no earlier call of it made variables in that scope (TF1 found them elsewhere or raised)"
                if not earlier
                else ("several earlier calls made variables in that scope: which ones it finds is not followed")
            )
            self.reasons.setdefault(name, f"the call `{call_text}` reuses the variables of scope `{'/'.join(block.path)}`, but {what}")
            return
        if self.plain.get(name) is not None:
            self.reasons.setdefault(name, f"the call `{call_text}` reuses variables by scope name, but {self.plain[name]}")
            return
        first, again = self.given.get(id(earlier[0]), []), self.given.get(id(call), [])
        if first != again:
            self.reasons.setdefault(
                name,
                f"the call `{call_text}` reuses the variables of scope `{'/'.join(block.path)}` with other arguments or shapes "
                f"for them (`{', '.join(again)}` where the first call had `{', '.join(first)}`): not proven the same variables",
            )
            return
        unknown = next((a for a in again if not self.fixed(a.partition("=")[2])), None)
        if unknown is not None:
            self.reasons.setdefault(
                name,
                f"the call `{call_text}` reuses variables by scope name, and `{unknown}` may not hold at both calls what it held at the first",
            )
            return
        self.reuse.reused[id(call)] = id(earlier[0])
        self.reuse.shared_by[id(call)] = "/".join(block.path)

    def fixed(self, text: str) -> bool:
        """A make-call argument that gives the same value wherever it is evaluated."""
        text = text.strip()
        try:
            ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return text.isidentifier() and text in self.constants
        return True


def without_reuse(call: cst.Call, name: str | None) -> cst.Call:
    """The ``variable_scope`` call without its ``reuse=``, its scope object written as ``name``."""
    args = [a for a in call.args if a.keyword is None or a.keyword.value != "reuse"]
    if name is not None:
        args[0] = args[0].with_changes(value=cst.SimpleString(repr(name)))
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def _code(node: cst.CSTNode) -> str:
    text = cst.Module([]).code_for_node(node)
    return text if len(text) <= 60 else text[:56] + "...)"
