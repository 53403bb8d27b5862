"""The code tf2migrate writes into files (helpers, the MNIST reader's port) read back by a
later run: in a file kept on TF1 it must not ask for TF1 switches its own first run did not
add, or the second run rewrites the file again (the MNIST port's ``images.shape[0] ==``
once made 37 kept census files gain ``disable_v2_tensorshape`` on the second run)."""

from __future__ import annotations

import importlib
import pkgutil

import libcst as cst
import pytest

import tf2migrate.rewrites
from tf2migrate import migrate_source
from tf2migrate.rewrites import written_helpers

# a graph kept on TF1 (py_func is not converted): the fallback adds its switches to the file
KEPT = """import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 3])
y = tf.py_func(lambda v: v * 2.0, [x], tf.float32)
with tf.Session() as sess:
    value = sess.run(y, feed_dict={x: np.ones((2, 3), np.float32)})
"""


def _module_templates() -> dict[str, str]:
    """Every module-level template of the rewrites: a string holding a class or function."""
    templates = {}
    for info in pkgutil.iter_modules(tf2migrate.rewrites.__path__):
        module = importlib.import_module(f"tf2migrate.rewrites.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, str) and value.startswith(("class ", "def ")):
                try:
                    cst.parse_statement(value)
                except cst.ParserSyntaxError:
                    continue  # a template with fields filled per call (``{name}``)
                templates[f"{info.name}.{name}"] = value
    return templates


TEMPLATES = {f"written_helpers.TEMPLATES[{i}]": code for i, code in enumerate(written_helpers.TEMPLATES)}


def _switches(source: str) -> list[str]:
    return [line for line in source.splitlines() if line.startswith("tf.compat.v1.") and line.endswith("()")]


def test_every_template_is_recognised():
    """A template a rewrite module defines and the recogniser does not list would be read as
    the user's code on the next run."""
    found = _module_templates()
    assert {"mnist_reader_port.DATA_SET_CODE", "rnn_cells._DYNAMIC_RNN", "tf1_losses.SPARSE_HELPER"} <= set(found)
    missing = [name for name, code in found.items() if code not in written_helpers.TEMPLATES]
    assert not missing


def test_a_users_definition_of_a_helpers_name_is_read():
    """Same name, another docstring: the user's code, whose comparison of a dimension needs
    TF1's shapes."""
    own = 'def tf1_div(x, y):\n    """Mine."""\n    return x / y if x.shape[0] == 2 else y\n'
    head, _, graph = KEPT.partition("\nx = ")
    new, _ = migrate_source(f"{head}\n\n{own}\n\nx = {graph}", "kept.py")
    assert "tf.compat.v1.disable_v2_tensorshape()" in _switches(new)


def test_a_renamed_helper_is_recognised():
    """fresh_name's ``_2`` suffix, where the file used the name already."""
    code = written_helpers.TEMPLATES[0]
    name = cst.ensure_type(cst.parse_statement(code), cst.FunctionDef).name.value
    renamed = code.replace(name, f"{name}_2", 1)
    module = cst.parse_module(f"import tensorflow as tf\n\n{renamed}\n\n{code}\n")
    assert [s.name.value for s in written_helpers.written_definitions(module)] == [f"{name}_2", name]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_written_code_asks_for_no_switch(name):
    kept, _ = migrate_source(KEPT, "kept.py")
    head, _, graph = KEPT.partition("\nx = ")
    with_template, _ = migrate_source(f"{head}\n\n{TEMPLATES[name]}\n\nx = {graph}", "kept.py")
    assert _switches(kept) == ["tf.compat.v1.disable_eager_execution()"]
    assert _switches(with_template) == _switches(kept)


def test_a_helper_indented_as_its_module_is_recognised():
    """The helper is written with the module's indentation (two spaces here), docstring too."""
    from tf2migrate.layout import indented_as

    module = cst.parse_module("import tensorflow as tf\n\nif True:\n  x = 1\n")
    code = written_helpers.TEMPLATES[0]
    two_spaces = indented_as(module, code)
    assert "\n  " in two_spaces and "\n    " not in two_spaces.split('"""')[1]
    written = written_helpers.written_definitions(cst.parse_module(f"import tensorflow as tf\n\n{two_spaces}\n"))
    assert len(written) == 1


def test_a_helper_the_user_edited_is_read_as_theirs():
    """Same name and docstring, another body: the user's code now, which TF1's shapes serve."""
    code = next(c for c in written_helpers.TEMPLATES if c.startswith("def tf1_div("))
    edited = code.replace("    x = tf.convert_to_tensor(x)\n", "    x = tf.convert_to_tensor(x)\n    assert x.shape[0] == 2\n")
    assert edited != code
    head, _, graph = KEPT.partition("\nx = ")
    new, _ = migrate_source(f"{head}\n\n{edited}\n\nx = {graph}", "kept.py")
    assert "tf.compat.v1.disable_v2_tensorshape()" in _switches(new)
    assert written_helpers.written_definitions(cst.parse_module(f"import tensorflow as tf\n\n{code}\n"))
    assert not written_helpers.written_definitions(cst.parse_module(f"import tensorflow as tf\n\n{edited}\n"))


def test_every_helper_the_fixtures_write_out_is_recognised():
    """What the rewrites really emit (names renamed, parents and callees substituted,
    indented as the module) is what the recogniser knows: each definition in a fixture's
    ``after.py`` with a template's name and docstring is recognised whole."""
    from pathlib import Path

    seen = 0
    for after in sorted((Path(__file__).parent / "fixtures").glob("**/after*.py")):
        module = cst.parse_module(after.read_text(encoding="utf-8"))
        named = [
            s
            for s in module.body
            if isinstance(s, (cst.ClassDef, cst.FunctionDef)) and written_helpers._fingerprint(s) in written_helpers._template_shapes()
        ]
        assert written_helpers.written_definitions(module) == named, after
        seen += len(named)
    assert seen >= 20  # optimizer classes, RNN cells, the MNIST port, tf1_div… in the fixtures
