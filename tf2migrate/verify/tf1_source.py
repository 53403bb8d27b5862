"""What the TF1 side runs of an original this Python 3 and TF 1.x cannot run as written.

A Python 2 original (print statements) runs with its prints as calls, and its indentation
mixing tabs and spaces as Python 2 read it (rewrites/python2_tabs.py)
(rewrites/python2_prints.py, whose own tests hold it to Python 2's meaning); a TensorFlow
0.x original runs with its names and argument orders as TF 1.0 renamed them
(rewrites/pre_1_0_api.py, TFM415: TensorFlow's own 1.0 upgrade script's mapping).  These
are the migration's first steps, without which the original stops at once on TF 1.x
(``tf.mul``, a SyntaxError) or, worse, runs otherwise than its author's TensorFlow ran it:
TF2's ``tf.compat.v1.nn.sigmoid_cross_entropy_with_logits(y, t)`` reads 0.x's logits ``y``
as labels (see tf1_keyword_only.py).  The fixtures' execution check and
benchmarks/verify_real.py run originals through this; nothing else of the migration is
applied to the TF1 side.
"""

from __future__ import annotations

import ast

from tf2migrate.rewrites import pre_1_0_api
from tf2migrate.rewrites.python2_prints import convert_prints
from tf2migrate.rewrites.python2_tabs import expand_indentation


def runnable_on_tf1(text: str) -> str:
    """``text`` with Python 2's prints as calls and TF 0.x's API as TF 1.0's, where it has
    them; else ``text`` itself (also when it is neither Python 3 nor convertible Python 2:
    it then fails on the TF1 side as written)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        expanded = expand_indentation(text)  # Python 2's tabs and spaces, as Python 2 read them
        if expanded is not None:
            return runnable_on_tf1(expanded[0])
        converted = convert_prints(text)
        if converted is None:
            return text
        try:
            tree = ast.parse(converted.source)
        except SyntaxError:
            return text
        text = converted.source
    upgraded = pre_1_0_api.upgrade(text, tree)
    return text if upgraded is None else upgraded.source
