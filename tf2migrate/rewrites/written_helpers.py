"""The definitions tf2migrate writes into files (optimizer classes, RNN cells, the MNIST
reader's port …), recognised when a later run reads the file.

They are TF2 code the tool wrote: when that file is kept on TF1 (a construct added since, or
the MNIST port, which a kept file gets too), the fallback's checks for TF1 semantics must not
read them, or the second run would add switches the first did not
(rewrites/compat_fallback.py).  A top-level class or function is one of them when its name
is a template's (or the template's with a ``_2`` … suffix: analysis/names.fresh_name) and
its docstring is the template's: a user's own definition of the same name is read as theirs.
"""

from __future__ import annotations

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
    tf1_eager,
    tf1_losses,
)

TEMPLATES: tuple[str, ...] = (
    checkpoints.NUMBERED_SAVE,
    eager_calls.TF1_DIV,
    *(optimizer.helper for optimizer in keras_optimizers.KERAS_OPTIMIZERS.values() if optimizer.helper is not None),
    mnist_reader_port.DATA_SET_CODE,
    mnist_reader_port.READ_DATA_SETS_CODE,
    *rnn_cells.TEMPLATES,
    scipy_optimizer.HELPER,
    streaming_metrics.HELPER,
    tf1_eager.IMPLICIT_GRADIENTS,
    tf1_losses.SPARSE_HELPER,
)


def _fingerprint(definition: cst.ClassDef | cst.FunctionDef) -> tuple[str, str | None]:
    return re.sub(r"_\d+$", "", definition.name.value), definition.get_docstring()


def _template_fingerprints() -> frozenset[tuple[str, str | None]]:
    fingerprints = set()
    for code in TEMPLATES:
        definition = cst.parse_statement(code)
        assert isinstance(definition, (cst.ClassDef, cst.FunctionDef)) and definition.get_docstring() is not None, code[:60]
        fingerprints.add(_fingerprint(definition))
    return frozenset(fingerprints)


_FINGERPRINTS = _template_fingerprints()


def written_definitions(module: cst.Module) -> list[cst.BaseStatement]:
    """The module's top-level definitions that tf2migrate wrote."""
    return [
        statement
        for statement in module.body
        if isinstance(statement, (cst.ClassDef, cst.FunctionDef)) and _fingerprint(statement) in _FINGERPRINTS
    ]
