"""What in a module may add ops to TF1's ``UPDATE_OPS`` collection.

GAN code of 2017 wraps its optimizers in the batch normalization boilerplate whether or not
anything fills the collection (hwalsuklee's collection: ``with
tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):`` around both
``minimize`` calls, its ``bn`` helper passing ``updates_collections=None``, which updates the
moving statistics in place and adds nothing).  When no module of the program adds to the
collection, the ``with`` block depends on nothing (rewrites/empty_update_ops.py drops it).

TF1 fills the collection from the batch normalizations of ``tf.layers``
(``batch_normalization``, ``BatchNormalization``) and of contrib/slim (``batch_norm`` without
``updates_collections=None``, also when a layer applies it as ``normalizer_fn``), from layers
of ``tf.layers`` calling ``add_update``, from ``tf.add_to_collection(s)``, and from networks
built by libraries (slim's ``nets``, Keras ``applications``, TF Hub modules, TFLearn,
TensorLayer, Sonnet...).  :func:`update_ops_producers` names every mention of those in a
module, read as text by identifier (an alias or a wrapper still spells the name where it
reaches TensorFlow): each one keeps the collection possibly non-empty.  A ``batch_norm`` call
passing ``updates_collections=None`` as a keyword is no producer (an ``arg_scope`` only
supplies defaults: the explicit keyword wins); nor is a function or class of the module's own
so named (its body is read like the rest), nor a read of the collection.
"""

from __future__ import annotations

import ast

# identifiers whose mention may add to the collection (attributes, names, keywords)
_PRODUCERS = frozenset(
    {
        "batch_normalization",  # tf.layers / tf.compat.v1.layers
        "BatchNormalization",  # tf.layers, Keras
        "SyncBatchNormalization",
        "BatchNorm",  # Sonnet, TensorLayer
        "batch_norm",  # contrib / slim (unless updates_collections=None, below)
        "normalizer_fn",  # contrib layers applying a normalization
        "add_to_collection",
        "add_to_collections",
        "add_update",  # a tf.layers layer's updates go to the collection
        "UPDATE_OPS",  # (but the collection's reads)
        "nets",  # slim's networks: their arg scopes apply batch_norm
        "applications",  # Keras' networks
        "quantize",  # contrib.quantize rewrites the graph
    }
)
# libraries that build TF1 graphs of their own: anything they build may fill it
_GRAPH_LIBRARIES = frozenset(
    {"tensorflow_hub", "tflearn", "tensorlayer", "sonnet", "keras", "tf_slim", "tensorpack", "tensorflow_probability", "edward", "gpflow"}
)
_COLLECTION_NAME = "update_ops"
UPDATE_OPS_TEXT = "UPDATE_OPS"  # (in the text of a file that reads the collection)  # GraphKeys.UPDATE_OPS, as a string


def update_ops_producers(tree: ast.Module) -> tuple[str, ...]:
    """The constructs of ``tree`` that may add to ``UPDATE_OPS`` (as ``line: text``), in
    order.  A read, ``tf.get_collection(tf.GraphKeys.UPDATE_OPS)``, adds nothing (it returns
    a copy); ``tf.get_collection_ref(UPDATE_OPS).append(op)`` does."""
    exempt: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _callee(node.func) == "get_collection" and node.args:
            exempt.add(id(node.args[0]))
        if isinstance(node, ast.Call) and _callee(node.func) == "batch_norm" and _updates_in_place(node):
            exempt.add(id(node.func))
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Name) and node.id in _PRODUCERS:
            name = node.id
        elif isinstance(node, ast.Attribute) and node.attr in _PRODUCERS:
            name = node.attr
        elif isinstance(node, ast.keyword) and node.arg in _PRODUCERS:
            name = f"{node.arg}="
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower() == _COLLECTION_NAME:
            name = repr(node.value)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom):
                modules += [f"{node.module}.{alias.name}" for alias in node.names]
            library = next((m for m in modules if _is_graph_library(m)), None)
            name = f"import of {library}" if library is not None else None
        if name is None or id(node) in exempt:
            continue
        found.append((getattr(node, "lineno", 0), getattr(node, "col_offset", 0), f"{getattr(node, 'lineno', '?')}: {name}"))
    return tuple(text for _, _, text in sorted(found))


def _callee(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _updates_in_place(call: ast.Call) -> bool:
    """Does a ``batch_norm`` call pass ``updates_collections=None`` (and no ``**kwargs``
    that might pass it again)?"""
    keywords = {k.arg: k.value for k in call.keywords}
    value = keywords.get("updates_collections")
    return None not in keywords and isinstance(value, ast.Constant) and value.value is None


def _is_graph_library(module: str) -> bool:
    parts = module.split(".")
    return parts[0] in _GRAPH_LIBRARIES or any(p in {"nets", "applications", "quantize"} for p in parts[1:])
