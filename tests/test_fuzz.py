"""Property tests: on any Python program, migrate_source does not crash, writes only
code that parses, and a second run changes nothing."""

import ast
import warnings

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings

from tf2migrate import migrate_source

TF1_PRELUDE = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nsess = tf.Session()\n"


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # hypothesmith compiles odd code on purpose
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_any_program_with_tensorflow(source):
    for program in ("import tensorflow as tf\n" + source, TF1_PRELUDE + source):
        new, findings = migrate_source(program, "fuzz.py")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # generated code is odd on purpose
            ast.parse(new)
        again, _ = migrate_source(new, "fuzz.py")
        assert again == new
        assert all(f.code.startswith("TFM") for f in findings)
