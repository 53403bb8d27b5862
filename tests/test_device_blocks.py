"""rewrites/device_blocks.py: a top-level ``with tf.device(...):`` block around a script's
class is unwrapped when the graph then converts, and only then; comments stay."""

from tf2migrate import migrate_source

SCRIPT = """import numpy as np
import tensorflow as tf

# the whole script pinned to a device
with tf.device("/cpu:0"):  # as EQDiscovery's scripts
    class Model:
        def __init__(self):
            self.x = tf.placeholder(tf.float32, [None, 1])
            self.y = self.x * 2.0
            self.sess = tf.Session()

        def predict(self, x):
            return self.sess.run(self.y, {self.x: x})

    model = Model()
    value = model.predict(np.ones((2, 1)))
    # the end of the block
print(value)
"""


def test_the_block_is_unwrapped_and_its_comments_stay():
    new, findings = migrate_source(SCRIPT, "script.py")
    assert "tf.device" not in new and "placeholder" not in new and "Session" not in new
    assert "# the whole script pinned to a device\n# as EQDiscovery's scripts\nclass Model:" in new
    assert "# the end of the block\nprint(value)" in new
    assert [f.render() for f in findings if f.code == "TFM153"] == [
        'script.py:5:1: TFM153 `with tf.device("/cpu:0"):` unwrapped: its statements moved to the module\'s top level '
        "(eager TF2 places ops itself)"
    ]
    # findings of the moved code point at the original's lines and columns
    assert "script.py:8:22: TFM101 placeholder `x` → argument of compute_y" in [f.render() for f in findings]
    again, _ = migrate_source(new, "script.py")
    assert again == new


def test_other_blocks_are_left():
    """A device bound to a name, or beside another context, is not unwrapped; a block with
    nothing refused in it is no concern of this rewrite."""
    for opening in ('with tf.device("/cpu:0") as device:', 'with tf.device("/cpu:0"), tf.name_scope("s"):'):
        new, findings = migrate_source(SCRIPT.replace('with tf.device("/cpu:0"):', opening), "script.py")
        assert opening in new and not [f for f in findings if f.code == "TFM153"]
        assert any(f.code == "TFM307" for f in findings)
    plain = 'import tensorflow as tf\nwith tf.device("/cpu:0"):\n    y = tf.constant(2.0) * 3.0\nprint(y)\n'
    new, findings = migrate_source(plain, "plain.py")
    assert not [f for f in findings if f.code == "TFM153"]
