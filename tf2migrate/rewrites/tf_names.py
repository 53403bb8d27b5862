"""Write every TensorFlow reference of a migrated file as ``tf.<TF2 name>``.

A migrated file imports TensorFlow once, as ``import tensorflow as tf``, whatever alias
the TF1 code used (``T``, ``tensorflow``, ``tensorflow.compat.v1``, ``from tensorflow
import placeholder``).  A TF1 symbol whose TF2 object is the same (generated table) is
written ``tf.X``; one whose TF2 namesake differs, or that TF2 lacks, is written
``tf.compat.v1.X``, which keeps its TF1 meaning and runs eagerly.  A few TF2 namesakes
are known to mean the same as their TF1 symbol when called with the arguments both
share; those calls get the TF2 name.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.data.tf_symbols import DIFFERENT_IN_TF2, SAME_IN_TF2

# TF2 namespaces (``tf.nn``, ``tf.math`` ...) known from the table's paths.
_TF2_NAMESPACES = frozenset(
    path.rsplit(".", i)[0] for path in SAME_IN_TF2 for i in range(1, path.count(".") + 1)
)
# TF1 symbols whose TF2 namesake only dropped deprecated arguments: a call that passes
# the leading positionals both signatures share, and keywords TF2 accepts, means the
# same under TF2.
SIGNATURE_COMPATIBLE = frozenset(
    {
        "Variable",
        "gradients",
        "constant",
        "convert_to_tensor",
        "ones_like",
        "zeros_like",
        "reduce_sum",
        "reduce_mean",
        "reduce_max",
        "reduce_min",
        "reduce_prod",
        "reduce_all",
        "reduce_any",
        "reduce_logsumexp",
        "transpose",
        "shape",
        "size",
        "expand_dims",
        "squeeze",
        "norm",
        "argmax",
        "argmin",
    }
)


def output_name(canonical: str) -> str:
    """The TF2 spelling of a canonical TF1 path (no call context)."""
    if canonical == "":
        return "tf"
    if canonical in SAME_IN_TF2 or canonical in _TF2_NAMESPACES:
        return f"tf.{canonical}"
    return f"tf.compat.v1.{canonical}"


def call_is_signature_compatible(canonical: str, call: cst.Call) -> bool:
    if canonical not in SIGNATURE_COMPATIBLE:
        return False
    v1_params, v2_params = DIFFERENT_IN_TF2.get(canonical, (None, None))
    if v1_params is None or v2_params is None:
        return False
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return False
    count = len(positional)
    # The first parameter is the input in both (sometimes renamed, ``tensor`` → ``input``).
    if count > len(v2_params) or tuple(v1_params[1:count]) != tuple(v2_params[1:count]):
        return False
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    return keywords <= set(v2_params)


class TfNameNormalizer(cst.CSTTransformer):
    """Rewrites TF references in a subtree to their TF2 spelling (see module doc)."""

    def __init__(self, imports: TfImports) -> None:
        super().__init__()
        self.tf = imports
        self._not_references: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if self.tf.canonical(node) is not None:
            return False  # the whole chain is replaced in leave_Attribute
        self._not_references.add(id(node.attr))
        return True

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_references.add(id(node.keyword))

    def visit_Param(self, node: cst.Param) -> None:
        self._not_references.add(id(node.name))

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        canonical = self.tf.canonical(original_node)
        if canonical is None:
            return updated_node
        return _expression(output_name(canonical), updated_node)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if id(original_node) in self._not_references:
            return updated_node
        canonical = self.tf.canonical(original_node)
        if canonical is None:
            return updated_node
        return _expression(output_name(canonical), updated_node)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        canonical = self.tf.canonical(original_node.func)
        if canonical is not None and call_is_signature_compatible(canonical, original_node):
            return updated_node.with_changes(func=cst.parse_expression(f"tf.{canonical}"))
        return updated_node


def _expression(code: str, like: cst.BaseExpression) -> cst.BaseExpression:
    new = cst.parse_expression(code)
    # keep parentheses around the reference, if it had any
    return new.with_changes(lpar=like.lpar, rpar=like.rpar)
