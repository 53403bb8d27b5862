"""Which names of a module's graphs hold half-precision (``float16`` / ``bfloat16``) values.

TF2 converts a Python float to a half-precision tensor through ``float32`` when it runs
eagerly (2049.0001 → 2048 in float16), where TF1's graph, like a trace, made it a constant
of that dtype at once (2050).  The rules keeping that rounding need to know which code
meets half precision: a statement that names such a dtype (``tf.float16``, ``"half"``,
``np.float16``), or reads a name such a statement binds (``w2 = tf.Variable(w * 0.5)`` of a
``float16`` ``w``), in the statements' order.  Names are followed across the file's scopes
as one set: a run in a function reading the module's half-precision variable meets it too
(a name two scopes bind alike may be counted where it is not: the safe side).
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.model import GraphFacts, Statement
from tf2migrate.traversal import preorder

HALF_PRECISION = frozenset({"float16", "half", "bfloat16"})


def half_precision(dtype: str) -> bool:
    """Is ``dtype`` (code: ``tf.float16``, ``"half"``, ``np.float16``) a half-precision one?"""
    return dtype.rsplit(".", 1)[-1].strip("\"'") in HALF_PRECISION


def names_half_precision(node: cst.CSTNode) -> bool:
    """Does the code name a half-precision dtype (``tf.float16``, ``"half"``, ``np.float16``)?"""
    return any(
        isinstance(n, cst.Name) and n.value in HALF_PRECISION or isinstance(n, cst.SimpleString) and n.evaluated_value in HALF_PRECISION
        for n in preorder(node)
    )


def meets_half_precision(statement: Statement, names: set[str]) -> bool:
    """Does the statement name a half-precision dtype or read one of ``names`` (those bound
    by statements before it that do)?"""
    return bool(names.intersection(statement.reads)) or names_half_precision(statement.node)


def half_precision_names(facts: GraphFacts) -> frozenset[str]:
    """The names the file's statements meeting half precision bind, in every scope."""
    names: set[str] = set()
    for scope in facts.scopes:
        for statement in scope.statements:
            if meets_half_precision(statement, names):
                names.update(statement.defines)
    return frozenset(names)
