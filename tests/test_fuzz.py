"""Property tests: on any Python program, migrate_source never raises, writes only code
that parses, and a second run changes nothing.

The programs come from hypothesmith (CPython's grammar).  A TF1 prelude (a placeholder,
a Session) before each and a tail that takes ``tf.gradients`` and runs it make the
migration generate functions around the generated code, in each of the layouts that
broke it: lone ``\\r`` line breaks, form feeds, tabs and spaces mixed.

The default run is a slice that fits CI; a campaign runs more examples:

    TF2MIGRATE_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz.py
"""

import ast
import os
import warnings

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings

from tf2migrate import migrate_source

CAMPAIGN = int(os.environ.get("TF2MIGRATE_FUZZ_EXAMPLES", "0"))

TF1_PRELUDE = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nsess = tf.Session()\n"
# generated code around moved code: a tape (a block), a loop moved into it, a run in a block
TF1_TAIL = (
    "y = x * x\nfor _ in range(2):\n    y = y + x\ndy = tf.gradients(y, x)[0]\nif True:\n    print(sess.run(dy, feed_dict={x: 3.0}))\n"
)


def layouts(source: str) -> dict[str, str]:
    """The prelude, the program and the tail, in each layout generated code must follow."""
    program = TF1_PRELUDE + source + "\n" + TF1_TAIL
    return {
        "newline": program,
        "lone CR": program.replace("\r\n", "\n").replace("\n", "\r"),
        # a page break between statements, and the first indentation begins with one
        "form feed": TF1_PRELUDE + "if True:\n\f    pass\n\f\n" + source + "\n\f" + TF1_TAIL.replace("    ", "\f    "),
        "form feed inside the indentation": TF1_PRELUDE + "if True:\n  \f  pass\n" + source + "\n" + TF1_TAIL.replace("    ", "  \f  "),
        "tabs first, then spaces": TF1_PRELUDE + "if True:\n\tpass\n" + source + "\n" + TF1_TAIL,
        "space and tab": TF1_PRELUDE + "if True:\n \tpass\n" + source + "\n" + TF1_TAIL.replace("    ", "\t "),
    }


def _parses(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # generated code is odd on purpose
            ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


def _check(program: str) -> None:
    new, findings = migrate_source(program, "fuzz.py")  # must not raise
    assert all(f.code.startswith("TFM") for f in findings)
    assert not [f for f in findings if f.code == "TFM002"], findings
    if _parses(program):
        assert _parses(new)
        again, _ = migrate_source(new, "fuzz.py")
        assert again == new


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")  # hypothesmith compiles odd code on purpose
@settings(max_examples=CAMPAIGN or 40, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_any_program_with_tensorflow(source):
    for program in ("import tensorflow as tf\n" + source, TF1_PRELUDE + source):
        _check(program)


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")
@settings(max_examples=CAMPAIGN or 100, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_tf1_program_in_any_layout(source):
    for program in layouts(source).values():
        _check(program)


@pytest.mark.parametrize("layout", sorted(layouts("")))
def test_the_tail_is_migrated_in_every_layout(layout):
    """The layouts are not refused: each one's tail becomes a generated function."""
    program = layouts("")[layout]
    new, findings = migrate_source(program, "fuzz.py")
    assert "def compute_dy(x):" in new and "tape.gradient(y, x)" in new, (layout, new, findings)
    assert _parses(new)
