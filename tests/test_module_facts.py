"""The file-wide facts read from stdlib ``ast`` equal those a libcst walk gives: the names
NameCollector (the analysis' own visitor) finds, and the TF1 evidence of every reference
the renamer would meet, by the same rules (reference_evidence, refuses_tf2_keywords)."""

import ast

import libcst as cst
import pytest

from tf2migrate.analysis.graph import analyze
from tf2migrate.analysis.module_facts import module_facts
from tf2migrate.analysis.names import NameCollector
from tf2migrate.analysis.tf_imports import ITERATOR_METHODS, TfImports, collect_tf_imports, dotted_name
from tf2migrate.analysis.tf_api import reference_evidence, refuses_tf2_keywords
from tf2migrate.rewrites.predict_trap import TrapFacts, find_traps, may_have_traps
from tf2migrate.rewrites.tf_names import is_dimension_value
from python3_sources import python3_fixture_sources

SOURCES = python3_fixture_sources("*.py")
EXTRA = [
    "import tensorflow.compat.v1 as tf\ndef f(tf=1):\n    return tf\n",
    "import tensorflow as tf\nfrom tensorflow import placeholder\nx = obj.placeholder\ny = g(placeholder=1)\n",
    "import tensorflow as tf\nclass A(B, metaclass=M):\n    def m(self, *a, k=tf.log(2), **kw):\n        global G\n        self.x.y[0] = lambda q: q + self.z\n        try:\n            pass\n        except E as e:\n            del e\n        with open(p) as (h, i):\n            return [j async for j in k], {u: v for u, v in w}, f'{tf.nn.relu}'\n",
    "import tensorflow as tf\nd = x.shape[0].value + x.get_shape()[1].value\nz = tf.reduce_sum(a, keep_dims=True)\n",
    "import tensorflow as tf\nmatch p:\n    case {'k': v, **rest}:\n        pass\n    case [a, *others] if a:\n        pass\n    case Point(x=0) as pt:\n        pass\n",
]


class EvidenceFinder(cst.CSTVisitor):
    """The reference walk over the libcst tree: every Name and attribute chain outside
    imports, as the renamer meets them (a TF reference is not entered)."""

    def __init__(self, imports: TfImports) -> None:
        super().__init__()
        self.tf = imports
        self.found = False
        self.explicit = False

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if is_dimension_value(node):
            self.found = True
        self._check(node)
        return not self.found and self.tf.canonical(node) is None

    def visit_Name(self, node: cst.Name) -> None:
        self._check(node)

    def visit_Call(self, node: cst.Call) -> None:
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        if refuses_tf2_keywords(self.tf, dotted_name(node.func), keywords):
            self.found = True
        dotted = dotted_name(node.func)
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in ITERATOR_METHODS and self.tf.canonical_dotted(dotted) is None:
            self.found = True  # ``dataset.make_one_shot_iterator()``: TF2 datasets lack the method

    def _check(self, node: cst.BaseExpression) -> None:
        evidence = reference_evidence(self.tf, dotted_name(node))
        if evidence == "explicit":
            self.explicit = True
        elif evidence == "tf1":
            self.found = True


def _libcst_facts(source: str):
    module = cst.parse_module(source)
    imports = collect_tf_imports(module)
    names, evidence = NameCollector(), EvidenceFinder(imports)
    module.visit(names)
    module.visit(evidence)
    return imports, set(names.reads) | set(names.binds), evidence.found, evidence.explicit


@pytest.mark.parametrize("source", [p.read_text(encoding="utf-8") for p in SOURCES] + EXTRA)
def test_ast_facts_equal_the_libcst_visitors(source: str) -> None:
    imports, names, found, explicit = _libcst_facts(source)
    facts = module_facts(ast.parse(source), imports)
    assert facts.names == names
    assert facts.tf1 == found
    if not found:  # once a file is TF1, whether it also names compat.v1 is not asked
        assert facts.explicit_v1 == explicit


GRAPH_EXTRA = [
    "import tensorflow as tf\nclass T(tf.test.TestCase):\n    def test(self):\n        with self.session() as s:\n            pass\n",
    "import tensorflow as tf\nwith (tf.Session()).as_default():\n    pass\n",
    "import tensorflow as tf\nhook = tf.train.SessionRunHook()\nx = obj.placeholder()\n",
    "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n",
    "from tensorflow import placeholder as ph\nx = ph(1)\n",
    # a TF1 test's self.evaluate runs its graph; a TF2 one's evaluates eagerly
    "import tensorflow as tf\nclass T(tf.test.TestCase):\n    def test(self):\n        self.evaluate(tf.global_variables_initializer())\n",
    "import tensorflow as tf\nclass T(tf.test.TestCase):\n    def test(self):\n        self.evaluate(tf.constant(1))\n",
    # a writer of the default graph made by the module's own code is graph evidence; one a
    # function makes (a library's) is not
    "import tensorflow as tf\nx = tf.zeros([2])\nw = tf.summary.FileWriter('/tmp/g', tf.get_default_graph())\n",
    "import tensorflow as tf\nclass K:\n    w = tf.train.SummaryWriter('/tmp/g')\n",
    "import tensorflow as tf\ndef log(d):\n    return tf.summary.FileWriter(d, tf.get_default_graph())\n",
    "import tensorflow as tf\nlog = lambda d: tf.summary.FileWriter(d)\n",
]


@pytest.mark.parametrize("source", [p.read_text(encoding="utf-8") for p in SOURCES] + GRAPH_EXTRA)
def test_graph_fact_equals_the_graph_analysis(source: str) -> None:
    """The graph analysis is skipped when the ``ast`` facts say it finds no graph: they
    must agree with what it finds."""
    module = cst.parse_module(source)
    imports = collect_tf_imports(module)
    if not imports.aliases:
        return  # such files are left before any analysis
    found = module_facts(ast.parse(source), imports)
    facts = analyze(module, imports, tf1=found.tf1)
    graph = bool(facts.session_names or facts.v1_switches or facts.graph_evidence)
    assert found.graph == graph


@pytest.mark.parametrize("source", [p.read_text(encoding="utf-8") for p in SOURCES])
def test_trap_prefilter_passes_every_file_with_a_trap(source: str) -> None:
    """The trap search is skipped when ``may_have_traps`` says it cannot find one."""
    module = cst.parse_module(source)
    facts = TrapFacts()
    module.visit(facts)
    if find_traps(module, collect_tf_imports(module), facts):
        assert may_have_traps(source, ast.parse(source))


def test_trap_prefilter_reads_scopes() -> None:
    both_apart = "import numpy as np\ndef f(m, x):\n    return m.predict(x)\ndef g(y, x):\n    return tf.gradients(y, x)\n"
    assert not may_have_traps(both_apart, ast.parse(both_apart))
    through_helper = "def u(s, x):\n    return s.run(x)\ny = u(s, x)\nd = tf.gradients(y, x)\n"
    assert may_have_traps(through_helper, ast.parse(through_helper))


@pytest.mark.parametrize(
    ("source", "tf1"),
    [
        # names valid in TF2, imported by TF1 code: they ran with TF1's meaning
        ("import tensorflow as tf\ny = tf.nn.dropout(x, 0.5)\n", True),
        # ... unless the module writes `tf.compat.v1.X` itself: written for (or migrated to)
        # an install where `tf` is TF2, whoever imports it
        ("import tensorflow as tf\ns = tf.compat.v1.get_variable('s', [])\ny = tf.nn.dropout(x, 0.5)\n", False),
        # an alias of compat.v1 is TF1's API, not a sign of TF2's `tf`
        ("import tensorflow.compat.v1 as tf\ny = tf.nn.dropout(x, 0.5)\n", True),
    ],
)
def test_tf1_importers_make_a_module_tf1_unless_it_writes_compat_v1(source: str, tf1: bool) -> None:
    tree = ast.parse(source)
    imports = collect_tf_imports(cst.parse_module(source))
    assert module_facts(tree, imports, tf1_callers=True).tf1 is tf1
