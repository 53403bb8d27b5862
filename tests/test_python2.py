"""Python 2 files: print statements converted as 2to3 does (rewrites/python2_prints.py),
what Python 3 reads otherwise reported (analysis/python2_semantics.py)."""

from __future__ import annotations

import ast
import importlib.util
import re
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tf2migrate import migrate_source
from tf2migrate.analysis.python2_semantics import (
    _PYTHON2_NAMES,
    PYTHON2_NAME_TEXT,
    may_read_python2_names,
    python2_names,
    python2_semantics,
)
from tf2migrate.rewrites.python2_prints import convert_prints
from python3_sources import python3_fixture_sources

# Python 2 statement → the text it becomes (Python 2's meaning: 2to3's fix_print)
CASES = [
    ("print a, b\n", "print(a, b)\n"),
    ("print a,\n", "print(a, end=' ')\n"),
    ("print a, b,\n", "print(a, b, end=' ')\n"),
    ("print >>f, x\n", "print(x, file=f)\n"),
    ("print >> sys.stderr, 'x', y,\n", "print('x', y, end=' ', file=sys.stderr)\n"),
    ("print >>f\n", "print(file=f)\n"),
    ("print\n", "print()\n"),
    ("print (a, b)\n", "print((a, b))\n"),  # Python 2 printed the tuple
    ("print (a,)\n", "print((a,))\n"),
    ("print ()\n", "print(())\n"),  # Python 2 printed `()` (2to3 leaves it: an empty line)
    ("print (a)\n", "print (a)\n"),  # one value in parentheses: the same call
    ("print(a)\n", "print(a)\n"),
    ("print (a), b\n", "print((a), b)\n"),
    ("print (a) + b\n", "print((a) + b)\n"),
    ("print -1\n", "print(-1)\n"),
    ("print 'x' % (a,\n  b)  # c\n", "print('x' % (a,\n  b))  # c\n"),
    ("print 'a', \\\n    'b'\n", "print('a', \\\n    'b')\n"),
    ("print\\\n  x\n", "print(\\\n  x)\n"),
    ("if x: print y\n", "if x: print(y)\n"),
    ("x = 1; print x; y = 2\n", "x = 1; print(x); y = 2\n"),
    ("for i in r:\n    print i,\nprint\n", "for i in r:\n    print(i, end=' ')\nprint()\n"),
    ("print 'x'  # done\n", "print('x')  # done\n"),
    ("print 'no newline at the end'", "print('no newline at the end')"),
]


@pytest.mark.parametrize(("python2", "python3"), CASES)
def test_print_statement_becomes_the_call_2to3_makes(python2, python3):
    converted = convert_prints(python2)
    result = converted.source if converted is not None else python2
    assert result == python3
    assert result.count("\n") == python2.count("\n")  # every line keeps its number
    ast.parse(result)


@pytest.mark.parametrize(
    "source",
    [
        "print(a)\n",  # Python 3 already: nothing to convert
        "from __future__ import print_function\nprint 'x'\n",  # no Python 2 either
        "print >>f,\n",  # no Python 2: `print >>f,` is a syntax error there too
        "print >>f, \\\n    x\n",  # the value on another line: `>>f,` cannot just be dropped
        "obj.print x\n",  # not a statement
    ],
)
def test_not_converted(source):
    assert convert_prints(source) is None


def test_columns_of_converted_lines_map_back():
    converted = convert_prints("print a, b / c\n")
    assert converted is not None and converted.source == "print(a, b / c)\n"
    assert converted.original_column(1, converted.source.index("b") + 1) == "print a, b / c".index("b") + 1


_LIB2TO3 = importlib.util.find_spec("lib2to3") is not None  # gone in Python 3.13
_names = st.sampled_from(["a", "b", "x.y", "f(1)", "d[0]", "'s'", "1.5", "-n", "(a)", "(a, b)", "()", "[a, b]", "a if b else c", "u'x'"])


@st.composite
def _print_statements(draw) -> str:
    values = draw(st.lists(_names, max_size=4))
    target = draw(st.sampled_from(["", "sys.stderr", "f"]))
    trailing = bool(values) and draw(st.booleans())
    parts = ([f">>{target}"] if target else []) + values
    spaces = draw(st.sampled_from([" ", "  "]))
    return "print" + (spaces + ", ".join(parts) if parts else "") + ("," if trailing else "") + "\n"


@pytest.mark.skipif(not _LIB2TO3, reason="lib2to3 is not in this Python")
@settings(max_examples=300, deadline=None)
@given(_print_statements())
def test_same_call_as_lib2to3(statement):
    """Cross-check against 2to3 itself: the same call (CPython's tree), but for ``print ()``,
    where 2to3 does not keep Python 2's meaning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from lib2to3 import refactor

        tool = refactor.RefactoringTool(["lib2to3.fixes.fix_print"])
        expected = str(tool.refactor_string(statement, "<case>"))
    converted = convert_prints(statement)
    mine = converted.source if converted is not None else statement
    if statement.strip() == "print  ()" or statement.strip() == "print ()":
        assert mine.strip() == "print(())"
    else:
        assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(expected)), (statement, mine, expected)


def _messages(source: str) -> list[str]:
    return [message for _, _, message in python2_semantics(ast.parse(source))]


@pytest.mark.parametrize(
    "source",
    [
        "a = n / 255.\n",  # a float literal
        "a = float(n) / k\n",
        "import time\nstart = time.time()\nelapsed = (time.time() - start) / 60\n",
        "import numpy as np\nm = np.mean(v) / k\n",
        "import numpy as np\nx = data.astype(np.float32) / 255\n",
        "total = 0.\nfor c in cs:\n    total += c\ntotal = total / n\n",  # every binding a float
        "import tensorflow as tf\nx = tf.placeholder('float')\ncost = tf.reduce_sum(tf.pow(x - 1, 2)) / (2 * n)\n",
        "import tensorflow as tf\ny = tf.placeholder(tf.float32)\nwith tf.Session() as sess:\n    _, c = sess.run([train, tf.reduce_mean(y)])\n    avg = c / batches\n",
        "from __future__ import division\na = n / 2\n",
        # a function or method of the file that returns a float (sjchoi86's StopWatch)
        "import time\ndef seconds():\n    return time.time()\nm = seconds() / 60\n",
        "import time\nclass Watch:\n    def lap(self):\n        return time.time() - self.t\n    def show(self):\n        print(self.lap() / 60)\n",
        "import time\nclass Watch:\n    def lap(self):\n        return time.time() - self.t\nclass Plot:\n    watch = Watch()\n"
        "    def add(self):\n        total = self.watch.lap()\n        print(total / 60)\n",
        # int() of non-negative integers: truncation is the floor Python 2 took
        "ntrain = len(data)\nbatch_size = 128\nnum_batch = int(ntrain / batch_size) + 1\n",
        "batch_size = 100\ntotal_batch = int(mnist.train.num_examples / batch_size)\n",
    ],
)
def test_division_shown_floating_point_is_not_reported(source):
    assert _messages(source) == []


@pytest.mark.parametrize(
    "source",
    [
        "a = n / 2\n",
        "a = int(examples / batch)\n",
        "offset = -7\na = int(offset / 2)\n",  # int() truncates -3.5 to -3, Python 2 floored to -4
        "n = len(xs)\na = int(n / 2 + 0.5) / 2\n",  # the outer division is not under int()
        # a function that may return an int, or None, or is bound otherwise too
        "def seconds(n):\n    if n:\n        return 1.0\n    return n\nm = seconds(3) / 60\n",
        "def seconds():\n    if t:\n        return 1.0\nm = seconds() / 60\n",
        "import time\ndef seconds():\n    return time.time()\nseconds = other\nm = seconds() / 60\n",
        # a method called on an object the file does not show to be of its classes
        "import time\nclass Watch:\n    def lap(self):\n        return time.time()\nm = timer.lap() / 60\n",
        "x = 1.0\nx = k\ny = x / 2\n",  # one binding of `x` is not a float
        "import tensorflow as tf\nx = tf.placeholder(tf.int32)\ny = x / 2\n",  # an integer tensor floor-divided
        "from m import *\nx = 1.0\ny = x / 2\n",  # a star import may bind `x`
        "n /= 2\n",
        "def f(x):\n    return x / 2\n",
    ],
)
def test_division_that_may_floor_is_reported(source):
    assert [m for m in _messages(source) if "floor-divided" in m]


@pytest.mark.parametrize(
    ("source", "word"),
    [
        ("for i in xrange(3): pass\n", "`xrange`"),
        ("s = unicode(x)\n", "`unicode`"),
        ("for k, v in d.iteritems(): pass\n", "`.iteritems()`"),
        ("k = d.keys()[0]\n", "`d.keys()[0]`"),
        ("m = map(f, xs)\nfirst = m[0]\n", "`m[0]`"),
        ("n = len(zip(a, b))\n", "`len(zip(a, b))`"),
        ("r = round(x)\n", "`round(x)`"),
    ],
)
def test_python2_meanings_are_reported(source, word):
    assert any(m.startswith(word) for m in _messages(source)), _messages(source)


@pytest.mark.parametrize("source", ["def xrange(n):\n    return n\nxrange(3)\n", "m = list(map(f, xs))\nm[0]\n", "round = int\nround(x)\n"])
def test_bound_names_and_lists_are_not_reported(source):
    assert _messages(source) == []


def test_python2_file_migrates_with_its_findings():
    source = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nwith tf.Session() as sess:\n    print 'x', sess.run(x * 2, {x: 1.0}) / 2\n"
    new, findings = migrate_source(source, "old.py")
    assert "print('x', compute_" in new and "Session" not in new
    codes = [(f.code, f.line) for f in findings]
    assert ("TFM008", 4) in codes and not any(code == "TFM009" for code, _ in codes)  # a float tensor's value
    again, more = migrate_source(new, "old.py")
    assert again == new and not any(f.code in ("TFM008", "TFM009") for f in more)


def test_python2_file_left_unchanged_when_other_python2_syntax_remains():
    source = "import tensorflow as tf\nprint 'x'\nx = 0777\n"
    new, findings = migrate_source(source, "old.py")
    assert new == source
    assert [(f.code, f.line, f.column) for f in findings] == [("TFM001", 3, 5)]
    assert "leading zeros" in findings[0].message


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("x = `y`", "backtick"),
        ("if a <> b: pass", "`<>`"),
        ("s = ur'a'", "`ur''`"),
        ("if x:\n    raise E, 'm'", "`raise E, value`"),
    ],
)
def test_other_python2_syntax_is_named_where_it_stands(line, named):
    source = f"import tensorflow as tf\nprint 'x'\n{line}\n"
    new, findings = migrate_source(source, "old.py")
    assert new == source
    [finding] = findings
    assert finding.code == "TFM001" and finding.line == source.count("\n") and named in finding.message
    assert "this is Python 2 code" in finding.message


def test_a_module_imported_in_several_cells_is_still_known():
    assert _messages("import numpy as np\nimport numpy as np\nm = np.mean(v) / k\n") == []
    assert _messages("import numpy as np\nimport math as np\nm = np.mean(v) / k\n")  # two modules: unknown
    assert _messages("import numpy as np\nnp = other\nm = np.mean(v) / k\n")


def _names_by_ast_walk(tree: ast.Module) -> list[tuple[int, int, str]]:
    """``python2_names`` as first written, with ``ast.walk`` and every test unparsed: the
    reference its faster walk is compared with."""
    bound: set[str] = set()
    reads: list[ast.Name] = []
    guards: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
            elif node.id in _PYTHON2_NAMES:
                reads.append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {a.asname or a.name.partition(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.If, ast.IfExp)) and re.search(r"version|PY2|PY3|py2|py3", ast.unparse(node.test)):
            guards.append(node)
        elif isinstance(node, ast.Try) and any(
            h.type is None or "NameError" in ast.unparse(h.type) or "Exception" in ast.unparse(h.type) for h in node.handlers
        ):
            guards += node.body
    reads = [node for node in reads if node.id not in bound]
    guarded = {id(n) for guard in guards for n in ast.walk(guard)} if reads and guards else set()
    return sorted({(node.lineno, node.col_offset + 1, _PYTHON2_NAMES[node.id]) for node in reads if id(node) not in guarded})


NAME_CASES = [
    "for i in xrange(3):\n    print(unicode(i), long(i))\n",
    "import six\nif six.PY2:\n    r = xrange\nelse:\n    r = range\nx = reduce(f, [1]) if sys.version_info[0] == 2 else 0\n",
    "try:\n    u = unicode\nexcept NameError:\n    u = str\ntry:\n    f = file\nexcept (IOError, Exception):\n    pass\n",
    "def f(file, long=1):\n    return file, long\nclass cmp: pass\nfrom functools import reduce\nreduce(g, h)\napply = 1\n",
    "x = obj.xrange(3)\ny = f(file=2)\nz = [raw_input() for _ in range(2)]\nlambda unichr: unichr\n",
]


@pytest.mark.parametrize(
    "source",
    NAME_CASES + [text for path in python3_fixture_sources("*.py") if PYTHON2_NAME_TEXT.search(text := path.read_text(encoding="utf-8"))],
)
def test_python2_names_equal_the_ast_walk(source: str) -> None:
    tree = ast.parse(source)
    assert python2_names(tree) == _names_by_ast_walk(tree)


# what the cheap test must not rule out: names read on lines that look like comments to it
CHEAP_TEST_CASES = [
    "# you may not use this file except in compliance with the License\nimport tensorflow as tf\n",
    "def f():\n    # xrange was Python 2's\n    return 1\n",
    "s = '''\n# xrange\n'''\n",
    "s = f'''\n# {xrange(3)}\n'''\n",
    "s = f'a\\\n# {unicode(3)}'\n",
    's = rF"""\n  #{long(2)}\n"""\n',
]


@pytest.mark.parametrize(
    "source",
    NAME_CASES + CHEAP_TEST_CASES + [path.read_text(encoding="utf-8") for path in python3_fixture_sources("*.py")],
)
def test_the_cheap_test_rules_out_no_python2_name(source: str) -> None:
    """``may_read_python2_names`` may say yes where the walk finds nothing, never no where it finds something."""
    assert may_read_python2_names(source) or not python2_names(ast.parse(source))


def test_the_cheap_test_rules_out_comment_lines() -> None:
    """(Otherwise it would rule out nothing: the license header names ``file``.)"""
    assert not may_read_python2_names(CHEAP_TEST_CASES[0]) and not may_read_python2_names(CHEAP_TEST_CASES[1])
    assert not python2_names(ast.parse(CHEAP_TEST_CASES[2])) and not may_read_python2_names(CHEAP_TEST_CASES[2])  # (a string's line)
    assert all(python2_names(ast.parse(source)) and may_read_python2_names(source) for source in CHEAP_TEST_CASES[3:])


def test_the_name_cases_find_and_guard() -> None:
    """(Otherwise the cases above would not compare much.)"""
    found = [python2_names(ast.parse(source)) for source in NAME_CASES]
    assert found[0] and not found[1] and not found[2] and not found[3] and found[4] == [(3, 6, _PYTHON2_NAMES["raw_input"])]
