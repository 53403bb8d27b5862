"""TF 1.x's cross-entropy functions refused positional arguments; the TF1 side refuses them too.

TF 1.x's ``tf.nn.softmax_cross_entropy_with_logits``, ``sparse_softmax_cross_entropy_with_logits``
and ``sigmoid_cross_entropy_with_logits`` took a ``_sentinel`` first parameter and raised
``ValueError: Only call ... with named arguments`` when given positional ones: TensorFlow 1.0
swapped their order (0.x's ``(logits, labels)``, 1.x's keywords ``labels=..., logits=...``) and
made sure a 0.x call failed rather than read its logits as labels.  TensorFlow 2's
``tf.compat.v1`` dropped the sentinel: there ``sigmoid_cross_entropy_with_logits(y, t)`` runs,
with ``y`` as the labels.  The migration writes such a 0.x call as 0.x meant it (TFM415,
``logits=y, labels=t``), so a verification against compat.v1's reading reported a difference
that TF 1.x itself never computed.  Installed by the verify worker's TF1 side only.
"""

from __future__ import annotations

import functools

KEYWORD_ONLY = (
    "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits",
)


def install(v1) -> None:
    """Make ``v1.nn``'s cross-entropy functions refuse positional arguments, as TF 1.x's did."""
    for name in KEYWORD_ONLY:
        function = getattr(v1.nn, name)
        if not getattr(function, "_tf2migrate_keyword_only", False):
            setattr(v1.nn, name, _keyword_only(name, function))


def _keyword_only(name: str, function):
    @functools.wraps(function)
    def keywords_only(*args, **kwargs):
        if args:
            raise ValueError(f"Only call `{name}` with named arguments (labels=..., logits=..., ...)")
        return function(**kwargs)

    keywords_only._tf2migrate_keyword_only = True  # type: ignore[attr-defined]
    return keywords_only
