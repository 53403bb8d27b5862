"""TensorFlow 0.x's summary functions, for the TF1 side of a verification.

``tf.scalar_summary``, ``tf.histogram_summary`` and ``tf.image_summary`` were removed in
TF 1.0; rewrites/pre_1_0_api.py renames them to ``tf.summary.*`` only where 1.x's would tag
alike (a clean literal tag, no name scope in the file), and leaves the others as written —
the summaries rewrite then gives their kernels the tag as 0.x did.  So that such an
original runs on the TF1 side at all, this gives ``tf.compat.v1`` the three functions as
TensorFlow 0.12 defined them, and 0.x's names of the functions 1.0 only renamed
(``tf.merge_all_summaries``, ``tf.merge_summary``, ``tf.train.SummaryWriter``: a 0.x program
calls them beside its summaries) (``python/ops/logging_ops.py``): the op built under
``name_scope(name, "<Kernel>")``, the tag passed to the kernel as given, the op added to the
``SUMMARIES`` collection (or the ``collections`` given).  Used by the verify worker and the
summaries' event-file tests only (the TF1 subprocess).
"""

from __future__ import annotations

# 0.x function → (kernel, its tag parameter, its value parameter, 0.x's extra parameter)
_FUNCTIONS = {
    "scalar_summary": ("ScalarSummary", "tags", "values", None),
    "histogram_summary": ("HistogramSummary", "tag", "values", None),
    "image_summary": ("ImageSummary", "tag", "tensor", "max_images"),
}


def install(v1) -> None:
    """Give ``tf.compat.v1`` the 0.x summary functions it lacks."""
    for name, (kernel, tag_parameter, value_parameter, extra) in _FUNCTIONS.items():
        if not hasattr(v1, name):
            setattr(v1, name, _summary(v1, kernel, tag_parameter, value_parameter, extra))
    # renamed in 1.0, their parameters alike
    for name, renamed in (("merge_all_summaries", v1.summary.merge_all), ("merge_summary", v1.summary.merge)):
        if not hasattr(v1, name):
            setattr(v1, name, renamed)
    if not hasattr(v1.train, "SummaryWriter"):
        v1.train.SummaryWriter = v1.summary.FileWriter


def _summary(v1, kernel: str, tag_parameter: str, value_parameter: str, extra: str | None):
    def summary(tag, value, *rest, collections=None, name=None, **keywords):
        arguments = {tag_parameter: tag, value_parameter: value}
        if extra is not None:  # ``image_summary(tag, tensor, max_images=3, collections=None, name=None)``
            if rest:
                keywords.setdefault(extra, rest[0])
                rest = rest[1:]
            arguments[extra] = keywords.pop(extra, 3)
        if rest:
            collections, *more = rest
            name = more[0] if more else name
        with v1.name_scope(name, kernel, [tag, value]) as scope:
            op = getattr(v1.raw_ops, kernel)(**arguments, name=scope)
            for key in collections if collections is not None else [v1.GraphKeys.SUMMARIES]:
                v1.add_to_collection(key, op)
        return op

    summary.__name__ = kernel
    return summary
