"""``tf.image.resize(image, [256, 256])`` where TF1 ran its resize op → that op.

TF1's ``tf.image.resize`` (TF 1.14 on) and ``tf.image.resize_images`` are one function
(``image_ops_impl.resize_images``): it batches a 3-D image, then either returns the image
itself, when the static shape it inferred already has the asked height and width
(``skip_resize_if_same``), or runs the resize op of the method with TF1's sampling grid
(``ResizeBilinear(..., align_corners=..., half_pixel_centers=False)``, and the nearest
neighbour, bicubic and area ops alike).  TF2's namesake samples at half-pixel centres:
other values, so the call stayed ``tf.compat.v1.image.resize`` (TFM401).

Which of TF1's two results a call gave depends on a static shape the call alone does not
show (the skipped image keeps its dtype, ``uint8`` of a decoded JPEG; the op returns
float32), and an eager value's shape is always known where TF1's might not have been.  The
call is written out only where the choice cannot matter:

- the image is decoded in the call or by the statement just before it in the same block
  (``image = tf.image.decode_jpeg(raw)`` then ``tf.image.resize(image, size)``, nothing
  between them mentioning ``image``; ``decode_png``, ``decode_bmp``, ``decode_gif`` too):
  TF1's shape rules for a decoded image know no height nor width, so TF1 never skipped;
- or the method is the nearest neighbour: the op at the image's own size copies every
  pixel, dtype and value, which is what the skip returned.

It becomes ``tf1_resize_images(image, size, tf.raw_ops.ResizeBilinear, align_corners=…)``,
a function emitted once per file that batches a 3-D image, runs that op with TF1's
arguments and unbatches it: TF1's kernel, its values bit for bit (fixtures).  Converted only
with a method written as a literal (``tf.image.ResizeMethod.BILINEAR`` …, TF1's integers
0-3, TF2's strings), ``align_corners`` a literal and ``preserve_aspect_ratio`` left out or
False (``name=`` only named TF1's ops); other calls keep ``tf.compat.v1.image.resize``, which
runs in TF2.  Rewritten only in files whose graph becomes eager TF2.
"""

from __future__ import annotations

import libcst as cst

from tf2migrate.analysis.calls import bind_arguments
from tf2migrate.analysis.model import GraphFacts
from tf2migrate.analysis.tf_imports import TfImports
from tf2migrate.plan import Plan
from tf2migrate.rewrites import file_helpers
from tf2migrate.rewrites.tf_names import API_RENAMED
from tf2migrate.traversal import find_all, preorder

_RESIZES = frozenset({"image.resize", "image.resize_images"})
_PARAMETERS = ("images", "size", "method", "align_corners", "preserve_aspect_ratio", "name")
# TF1's methods (``ResizeMethodV1``'s integers, ``ResizeMethod``'s names and TF2's strings) → the op
_OPS = {
    "BILINEAR": "ResizeBilinear",
    "NEAREST_NEIGHBOR": "ResizeNearestNeighbor",
    "BICUBIC": "ResizeBicubic",
    "AREA": "ResizeArea",
}
_BY_NUMBER = dict(enumerate(_OPS))
_BY_STRING = {"bilinear": "BILINEAR", "nearest": "NEAREST_NEIGHBOR", "bicubic": "BICUBIC", "area": "AREA"}
# the decoders whose static shape TF1 gave no height nor width (``decode_image`` gave no
# rank: TF1's resize raised)
_DECODERS = frozenset(f"{module}.decode_{kind}" for module in ("image", "io") for kind in ("jpeg", "png", "bmp", "gif"))

HELPER_NAME = "tf1_resize_images"
HELPER = '''def tf1_resize_images(images, size, resize, align_corners=False):
    """TF1's tf.image.resize_images where TF1 ran its resize op: a 3-D image batched for
    the op (TF1's sampling grid, not TF2's half-pixel centres) and unbatched."""
    images = tf.convert_to_tensor(images)
    if images.shape.rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    batched = images.shape.rank == 4
    if not batched:
        images = tf.expand_dims(images, 0)
    resized = resize(images=images, size=tf.convert_to_tensor(size, tf.int32), align_corners=align_corners)
    return resized if batched else tf.squeeze(resized, axis=[0])
'''


def plan_tf1_resize(module: cst.Module, facts: GraphFacts, plan: Plan, names_in_use: set[str]) -> None:
    for call in facts.calls:
        if facts.imports.call_name(call) not in _RESIZES:
            continue
        bound = bind_arguments(call, _PARAMETERS)
        if bound is None or "images" not in bound or "size" not in bound:
            continue
        method = _method(facts.imports, bound["method"].value) if "method" in bound else "BILINEAR"
        corners = bound["align_corners"].value if "align_corners" in bound else cst.Name("False")
        aspect = bound["preserve_aspect_ratio"].value if "preserve_aspect_ratio" in bound else cst.Name("False")
        name = bound["name"].value if "name" in bound else None
        if (
            method is None
            or not _is_bool(corners)
            or not (isinstance(aspect, cst.Name) and aspect.value == "False")
            or not (name is None or isinstance(name, cst.SimpleString) or (isinstance(name, cst.Name) and name.value == "None"))
        ):
            continue
        if method != "NEAREST_NEIGHBOR" and not _decoded(module, facts.imports, call, bound["images"].value):
            continue  # TF1 may have skipped the resize: its result's dtype is not shown
        helper = file_helpers.emit_once(module, facts, plan, names_in_use, HELPER_NAME, HELPER)
        plan.call_replacements[id(call)] = _replacement(helper, _OPS[method], cst.ensure_type(corners, cst.Name).value)
        plan.note(call, API_RENAMED.code, f"tf.{facts.imports.call_name(call)} → `{helper}`: the resize op TF1 ran, its sampling grid kept")


def _replacement(helper: str, op: str, corners: str):
    code = cst.Module([]).code_for_node

    def replace(updated: cst.Call) -> cst.BaseExpression:
        arguments = bind_arguments(updated, _PARAMETERS)
        assert arguments is not None  # bound before the rename; renaming keeps the arguments
        images, size = code(arguments["images"].value), code(arguments["size"].value)
        corners_text = ", align_corners=True" if corners == "True" else ""
        return cst.parse_expression(f"{helper}({images}, {size}, tf.raw_ops.{op}{corners_text})").with_changes(
            lpar=updated.lpar, rpar=updated.rpar
        )

    return replace


def _method(imports: TfImports, node: cst.BaseExpression) -> str | None:
    """The method a literal names (``tf.image.ResizeMethod.AREA``, ``1``, ``'bicubic'``), else None."""
    if isinstance(node, cst.Integer):
        return _BY_NUMBER.get(int(node.value))
    if isinstance(node, cst.SimpleString):
        return _BY_STRING.get(node.evaluated_value if isinstance(node.evaluated_value, str) else "")
    path = imports.canonical(node)
    if path is not None and path.startswith("image.ResizeMethod."):
        method = path.removeprefix("image.ResizeMethod.")
        return method if method in _OPS else None
    return None


def _is_bool(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def _decoded(module: cst.Module, imports: TfImports, call: cst.Call, images: cst.BaseExpression) -> bool:
    """Is ``images`` a decoder's output whose height and width TF1 did not know: the call
    itself, or a name the statement just before the call's bound to it alone (nothing in
    between mentions the name: a ``set_shape`` there would have told TF1 the size)?"""
    if isinstance(images, cst.Call):
        return imports.call_name(images) in _DECODERS
    if not isinstance(images, cst.Name):
        return False
    found = _statements_before(module, call)
    if found is None:
        return False
    for statement in reversed(found):
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and small.targets[0].target.value == images.value
            ):
                return isinstance(small.value, cst.Call) and imports.call_name(small.value) in _DECODERS
        if any(isinstance(n, cst.Name) and n.value == images.value for n in preorder(statement)):
            return False
    return False


def _statements_before(module: cst.Module, call: cst.Call) -> list[cst.BaseStatement] | None:
    """The statements before the simple statement holding ``call`` in its block, or None
    when the call is not in a simple statement of a block."""
    suites: list[cst.Module | cst.IndentedBlock] = [
        module,
        *(cst.ensure_type(b, cst.IndentedBlock) for b in find_all(module, cst.IndentedBlock)),
    ]
    for suite in suites:
        body = suite.body
        for index, statement in enumerate(body):
            if isinstance(statement, cst.SimpleStatementLine) and any(node is call for node in preorder(statement)):
                return list(body[:index])
    return None
