"""The definitions tf2migrate writes into files (optimizer classes, RNN cells, the MNIST
reader's port …), recognised when a later run reads the file.

They are TF2 code the tool wrote: when that file is kept on TF1 (a construct added since, or
the MNIST port, which a kept file gets too), the fallback's checks for TF1 semantics must not
read them, or the second run would add switches the first did not
(rewrites/compat_fallback.py); nor may the renamer, whatever the file (a TF1 name left, an
import of a module TF2 lacks: ``tf.where`` of a written ``tf1_dynamic_rnn`` is TF2's, which a
second run made ``tf.compat.v1.where``, TF1's, refusing its broadcast).  A top-level class or function is one of them when it is a
template as written out: the same name (or with a ``_2`` … suffix, analysis/names.fresh_name),
the same docstring, the same code (CPython's tree, so the module's indentation does not count,
nor a ``_2`` suffix a written-out name got).  A user's own definition of the name, or a helper
the user edited since, is read as theirs.
"""

from __future__ import annotations

import ast
import copy
import functools
import re

import libcst as cst

from tf2migrate.rewrites import (
    checkpoints,
    eager_calls,
    keras_optimizers,
    mnist_reader_port,
    rnn_cells,
    scipy_optimizer,
    streaming_metrics,
    tf1_batch_norm,
    tf1_eager,
    tf1_losses,
    tf1_resize,
)

TEMPLATES: tuple[str, ...] = (
    checkpoints.NUMBERED_SAVE,
    eager_calls.TF1_DIV,
    *(optimizer.helper for optimizer in keras_optimizers.KERAS_OPTIMIZERS.values() if optimizer.helper is not None),
    mnist_reader_port.DATA_SET_CODE,
    mnist_reader_port.READ_DATA_SETS_CODE,
    *rnn_cells.TEMPLATES,
    scipy_optimizer.helper_code(tf_function=True),
    scipy_optimizer.helper_code(tf_function=False),
    streaming_metrics.HELPER,
    tf1_batch_norm.HELPER,
    tf1_eager.IMPLICIT_GRADIENTS,
    tf1_losses.SPARSE_HELPER,
    tf1_resize.HELPER,
)

# the templates' names, read from their first lines: the test every file's definitions pass
# through (only a definition named as a template has its docstring and code read)
_TEMPLATE_NAMES = frozenset(re.match(r"(?:class|def) (\w+)", code).group(1) for code in TEMPLATES)  # type: ignore[union-attr]


def _fingerprint(definition: cst.ClassDef | cst.FunctionDef) -> tuple[str, str | None]:
    """Cheap, read first: the name without a fresh-name suffix, and the docstring (cleaned as
    ``ast.get_docstring`` cleans it: the templates' fingerprints are read by CPython's parser)."""
    return _unsuffixed(definition.name.value), definition.get_docstring()


def _unsuffixed(name: str) -> str:
    return re.sub(r"_\d+$", "", name)


def _code_shape(code: str) -> str:
    """The shape (:func:`_shape`) of the definition that ``code`` is."""
    definition = ast.parse(code).body[0]
    assert isinstance(definition, (ast.ClassDef, ast.FunctionDef))
    return _shape(definition)


def _shape(definition: ast.ClassDef | ast.FunctionDef) -> str:
    """The definition's tree without its docstrings (its own and its methods': written into a
    file indented otherwise, a docstring's continuation lines are re-indented, and its text
    changes), every name without a fresh-name suffix (the template's names and the written-out
    ones alike: ``TF1RNNCell_2`` is ``TF1RNNCell``).  ``definition`` is not changed."""
    definition = copy.deepcopy(definition)
    for node in ast.walk(definition):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and ast.get_docstring(node, clean=False) is not None:
            node.body = node.body[1:]
    for node in ast.walk(definition):
        for field in ("id", "name", "arg", "attr"):
            value = getattr(node, field, None)
            if isinstance(value, str):
                setattr(node, field, _unsuffixed(value))
    return ast.dump(definition)


@functools.cache
def _template_shapes() -> dict[tuple[str, str | None], frozenset[str]]:
    """Each template's fingerprint and code shapes, made at the first kept file that needs them
    (CPython's parser alone: a process that keeps no file pays nothing)."""
    shapes: dict[tuple[str, str | None], set[str]] = {}
    for code in TEMPLATES:
        definition = ast.parse(code).body[0]
        assert isinstance(definition, (ast.ClassDef, ast.FunctionDef)) and ast.get_docstring(definition) is not None, code[:60]
        key = (_unsuffixed(definition.name), ast.get_docstring(definition))
        shapes.setdefault(key, set()).add(_code_shape(code))
    return {key: frozenset(value) for key, value in shapes.items()}


def written_definitions(module: cst.Module) -> list[cst.BaseStatement]:
    """The module's top-level definitions that tf2migrate wrote."""
    written: list[cst.BaseStatement] = []
    for statement in module.body:
        if (
            isinstance(statement, (cst.ClassDef, cst.FunctionDef))
            and _unsuffixed(statement.name.value) in _TEMPLATE_NAMES
            and (shapes := _template_shapes().get(_fingerprint(statement)))
        ):
            # (its own text: the module's leading lines and decorators are the statement's)
            try:
                shape = _code_shape(module.code_for_node(statement.with_changes(leading_lines=[])))
            except SyntaxError:
                continue  # (what libcst reads and CPython does not: no code of ours)
            if shape in shapes:
                written.append(statement)
    return written


def written_statements(tree: ast.Module) -> list[ast.stmt]:
    """The top-level definitions of CPython's ``tree`` that tf2migrate wrote (as
    :func:`written_definitions` reads libcst's): the path that renames statements alone
    (renames_only.py) reads no libcst module."""
    return [
        node
        for node in tree.body
        if isinstance(node, (ast.ClassDef, ast.FunctionDef))
        and _unsuffixed(node.name) in _TEMPLATE_NAMES
        and (shapes := _template_shapes().get((_unsuffixed(node.name), ast.get_docstring(node))))
        and _shape(node) in shapes
    ]
