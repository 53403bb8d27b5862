"""What a Python 2 file meant that Python 3 reads otherwise (TFM009).

Once its print statements are calls (rewrites/python2_prints.py) a Python 2 file parses as
Python 3, but some of its code no longer means what it did, and Python 3 does not say so:

- ``a / b`` floor-divided two integers (``7 / 2 == 3``; integer tensors and NumPy arrays
  too: ``Tensor.__div__`` was ``tf.div``); Python 3 divides truly (``3.5``, a float tensor).
  Not reported where ``from __future__ import division`` is in force, or where an operand
  is shown to be floating point, so that both divide truly: a float literal, ``float(x)``,
  ``time.time()``, ``math.sqrt(x)``, ``np.float32(x)``, ``np.mean(x)``, ``x.astype(np.float32)``,
  a TF tensor of a floating dtype (a float placeholder, ``tf.cast(x, tf.float32)``, a
  variable of a float initial value, ``tf.zeros(shape)``, and the element-wise ops and
  reductions of such tensors, whose dtype is their inputs'), its value from a session run or
  ``.eval()``, arithmetic with any of these, and a name every binding of which in the file is
  one of these.  Anything else is reported, integers that only look like sizes included,
  but for ``int(a / b)`` of operands shown to be non-negative integers (``len(x)``, a
  literal, ``mnist.train.num_examples``, their sums and products, a name every binding of
  which is one): ``int``
  truncates where Python 2 floored, which is the same for non-negative values (below
  2**53, where the true quotient rounds to no other integer part).
- ``round(x)`` rounded halves away from zero and returned a float; Python 3 rounds halves
  to even and returns an int.
- ``map``, ``filter`` and ``zip`` returned lists; they return one-shot iterators, which
  cannot be indexed or measured (``map(f, xs)[0]``, ``len(zip(a, b))``, a name bound to one),
  and ``d.keys()``/``.values()``/``.items()`` return views that cannot be indexed.
- Names and methods Python 3 lacks (``xrange``, ``unicode``, ``long``, ``raw_input``,
  ``reduce``, ``d.iteritems()``, ``d.has_key(k)`` …) fail when the line runs.

Each is reported (warning), never rewritten: whether ``n / 2`` should become ``n // 2``
depends on values the file does not show.  The check runs on the few files that were
Python 2 only, with a walk of CPython's tree of its own: the module-wide walk
(analysis/module_facts.py) serves every file and must not pay for this.
"""

from __future__ import annotations

import ast
import re
from tf2migrate.analysis.float_values import FloatValues
from tf2migrate.diagnostics import FixSafety, Rule, Severity
from tf2migrate.traversal import push_children

PYTHON2_SEMANTICS = Rule(
    "TFM009",
    "python2-semantics",
    "Python 2 code whose meaning changes under Python 3 (integer `/`, `round`, lists from `map`, …).",
    Severity.WARNING,
    FixSafety.NONE,
    what="In a file that was Python 2 (its print statements were converted, TFM008), reports each "
    "`/` between operands not shown to be floating point (Python 2 floor-divided integers, "
    "integer arrays and integer tensors), `round(...)`, an indexed or measured result of `map`, "
    "`filter`, `zip` or `d.keys()`/`.values()`/`.items()`, and names and methods Python 3 lacks "
    "(`xrange`, `unicode`, `long`, `basestring`, `raw_input`, `reduce`, `.iteritems()`, `.has_key()` …).",
    why="These lines run under Python 3 but compute something else (`7 / 2` is 3.5, not 3; "
    "`round(0.5)` is 0, not 1.0), or fail only when they run. tf2migrate cannot tell from the file "
    "which one the author meant, so it rewrites none of them.",
    example="import tensorflow as tf\nprint 'half', n / 2",
    instead="import tensorflow as tf\nprint('half', n // 2)  # or n / 2.0, whichever was meant",
    invalid=('import tensorflow as tf\nn = 7\nprint "half", n / 2\n',),
    valid=('import tensorflow as tf\nn = 7\nprint "half", n / 2.0\n', 'import tensorflow as tf\nn = 7\nprint("half", n / 2)\n'),
)
RULES = [PYTHON2_SEMANTICS]

_PYTHON2_NAMES = {
    "xrange": "`xrange` is not in Python 3 (`range` is lazy there)",
    "unicode": "`unicode` is not in Python 3 (`str` is Unicode text there; Python 2's `str` was bytes)",
    "basestring": "`basestring` is not in Python 3",
    "long": "`long` is not in Python 3 (`int` has no size limit there)",
    "raw_input": "`raw_input` is not in Python 3 (`input` reads a line there; Python 2's `input` evaluated it)",
    "reduce": "`reduce` is not a builtin in Python 3 (`functools.reduce`)",
    "unichr": "`unichr` is not in Python 3 (`chr`)",
    "execfile": "`execfile` is not in Python 3",
    "file": "`file` is not in Python 3 (`open`)",
    "cmp": "`cmp` is not in Python 3",
    "apply": "`apply` is not in Python 3",
}
_PYTHON2_METHODS = {
    "iteritems": "`.iteritems()` is not a dict method in Python 3 (`.items()`)",
    "iterkeys": "`.iterkeys()` is not a dict method in Python 3 (`.keys()`)",
    "itervalues": "`.itervalues()` is not a dict method in Python 3 (`.values()`)",
    "has_key": "`.has_key(k)` is not a dict method in Python 3 (`k in d`)",
}
_ITERATORS = frozenset({"map", "filter", "zip"})
_VIEWS = frozenset({"keys", "values", "items"})


def python2_semantics(tree: ast.Module) -> list[tuple[int, int, str]]:
    """``(line, column, message)`` of each site, 1-based columns, in file order."""
    return sorted(set(_Finder(tree).sites))


# a word of _PYTHON2_NAMES in the text: the cheap test before parsing a Python 3 file for them
PYTHON2_NAME_TEXT = re.compile(r"\b(?:" + "|".join(sorted(_PYTHON2_NAMES)) + r")\b")
# An f-string's fields read names, and one that spans lines may hold a line starting with
# ``#``: a text that may hold an f-string (a quote after ``f``, ``rf`` or ``fr``, in any case,
# standing alone) is searched whole.  (The quote is found first: a pattern starting with the
# prefix's word boundary scanned the text several times slower.)
_F_STRING = re.compile(r"[\"'](?<=\b[fF][\"'])|[\"'](?<=\b[rR][fF][\"'])|[\"'](?<=\b[fF][rR][\"'])")


def may_read_python2_names(source: str) -> bool:
    """Can ``python2_names`` find anything in the file of this text?  False when every word
    of its names stands on a line that starts with ``#`` (a comment, or a line of a string:
    neither reads a name): most files that name one name it in a comment (``file`` in the
    Apache license header: 268 of tensor2tensor's 382 files naming TF that name one), and
    the walk of their tree found nothing (``tests/test_python2.py`` holds it to that)."""
    found = PYTHON2_NAME_TEXT.search(source)
    if found is None:
        return False
    if _F_STRING.search(source):
        return True
    while found is not None:
        start = source.rfind("\n", 0, found.start()) + 1
        if not source[start : found.start()].lstrip(" \t").startswith("#"):
            return True
        found = PYTHON2_NAME_TEXT.search(source, source.find("\n", found.end()) + 1 or len(source))
    return False


def python2_names(tree: ast.Module) -> list[tuple[int, int, str]]:
    """In a file Python 3 parses (no print statement told it was Python 2): the reads of the
    names Python 3 lacks that the file binds nowhere (``xrange(n)``), which fail when their
    line runs — not under a test of the version (``if six.PY2:``, ``sys.version_info``) nor in
    a ``try`` that catches the ``NameError``.  ``(line, column, message)``, in file order."""
    bound: set[str] = set()
    reads: list[ast.Name] = []
    tests: list[ast.If | ast.IfExp | ast.Try] = []  # what may guard a part, judged once a read is found
    stack: list[ast.AST] = [tree]
    while stack:  # (one walk, in any order: every answer below is a set; ``ast.walk``'s generators cost a third of it)
        node = stack.pop()
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
            elif node.id in _PYTHON2_NAMES:
                reads.append(node)
            continue  # (its one child is its context)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {a.asname or a.name.partition(".")[0] for a in node.names}
            continue  # (its children are the aliases)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.If, ast.IfExp, ast.Try)):
            tests.append(node)
        push_children(stack, node)
    reads = [node for node in reads if node.id not in bound]
    if not reads:
        return []
    guards: list[ast.AST] = []  # the parts under a version test or a NameError-catching try
    for test in tests:
        if isinstance(test, (ast.If, ast.IfExp)) and re.search(r"version|PY2|PY3|py2|py3", ast.unparse(test.test)):
            guards.append(test)
        elif isinstance(test, ast.Try) and any(
            h.type is None or "NameError" in ast.unparse(h.type) or "Exception" in ast.unparse(h.type) for h in test.handlers
        ):
            guards += test.body
    guarded = {id(n) for guard in guards for n in ast.walk(guard)} if guards else set()
    return sorted({(node.lineno, node.col_offset + 1, _PYTHON2_NAMES[node.id]) for node in reads if id(node) not in guarded})


class _Finder(FloatValues):
    def __init__(self, tree: ast.Module) -> None:
        super().__init__(tree)
        self.sites: list[tuple[int, int, str]] = []
        division = any(
            isinstance(node, ast.ImportFrom) and node.module == "__future__" and any(a.name == "division" for a in node.names)
            for node in tree.body
        )
        # ``int(a / b)`` of non-negative integers: truncating the true quotient is the floor
        # (found in the same walk: ``ast.walk`` meets the call before the division in it)
        self.same_truncated: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and self._truncates_non_negative(node):
                self.same_truncated.add(id(node.args[0]))
            self._visit(node, division)

    def _truncates_non_negative(self, node: ast.Call) -> bool:
        return (
            isinstance(node.func, ast.Name)
            and node.func.id == "int"
            and "int" not in self.bindings
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], ast.BinOp)
            and isinstance(node.args[0].op, ast.Div)
            and self._non_negative_int(node.args[0].left)
            and self._non_negative_int(node.args[0].right)
        )

    # -- the sites --------------------------------------------------------------------
    def _visit(self, node: ast.AST, division: bool) -> None:
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.Div) and not division:
            left = node.left if isinstance(node, ast.BinOp) else node.target
            right = node.right if isinstance(node, ast.BinOp) else node.value
            if not (self._float(left) or self._float(right) or id(node) in self.same_truncated):
                text = _short(node)
                self._add(
                    node,
                    f"`{text}`: Python 2 floor-divided integers (and integer arrays and tensors) with `/`, "
                    "Python 3 divides truly; neither operand is shown to be floating point: write `//` "
                    "if floor division was meant",
                )
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name == "round" and name not in self.bindings:
                self._add(
                    node,
                    f"`{_short(node)}`: Python 2's `round` rounded halves away from zero and returned a float; Python 3's rounds them to even and returns an int when given one argument",
                )
            elif name == "len" and node.args and self._iterator(node.args[0]):
                self._add(
                    node, f"`{_short(node)}`: `{_short(node.args[0])}` is a list in Python 2, a one-shot iterator without `len` in Python 3"
                )
        elif isinstance(node, ast.Subscript) and self._iterator(node.value):
            self._add(
                node,
                f"`{_short(node)}`: `{_short(node.value)}` is a list in Python 2, an iterator or view that cannot be indexed in Python 3",
            )
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in _PYTHON2_NAMES and node.id not in self.bindings:
            self._add(node, _PYTHON2_NAMES[node.id])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PYTHON2_METHODS:
            self._add(node.func, _PYTHON2_METHODS[node.func.attr])

    def _non_negative_int(self, node: ast.expr, seen: frozenset[str] = frozenset()) -> bool:
        """``len(x)``, a non-negative int literal, the ``num_examples`` count of a data set
        (TF1's MNIST reader, ``mnist.train.num_examples``), a sum or product of these, or a
        name every binding of which is one."""
        if isinstance(node, ast.Attribute):
            return node.attr == "num_examples"
        if isinstance(node, ast.Constant):
            return type(node.value) is int and node.value >= 0
        if isinstance(node, ast.Call):
            return isinstance(node.func, ast.Name) and node.func.id == "len" and "len" not in self.bindings and len(node.args) == 1
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
            return self._non_negative_int(node.left, seen) and self._non_negative_int(node.right, seen)
        if isinstance(node, ast.Name) and node.id not in seen:
            values = self.bindings.get(node.id, [])
            return bool(values) and all(v is not None and self._non_negative_int(v, seen | {node.id}) for v in values)
        return False

    def _iterator(self, node: ast.expr, seen: frozenset[str] = frozenset()) -> bool:
        """``map(...)``/``filter(...)``/``zip(...)``/``d.keys()``…, or a name every binding of which is one."""
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                return func.id in _ITERATORS and func.id not in self.bindings
            return isinstance(func, ast.Attribute) and func.attr in _VIEWS and not node.args and not node.keywords
        if isinstance(node, ast.Name) and node.id not in seen:
            values = self.bindings.get(node.id, [])
            return bool(values) and all(v is not None and self._iterator(v, seen | {node.id}) for v in values)
        return False

    def _add(self, node: ast.AST, message: str) -> None:
        self.sites.append((node.lineno, node.col_offset + 1, message))  # type: ignore[attr-defined]


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."
