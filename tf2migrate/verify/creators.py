"""One hook for every variable a worker's script creates, shared by the tf1 mode
(which records initial values) and the tf2 modes (which inject them). Imported in
the subprocess only.
"""

from __future__ import annotations

import functools


def hook_default_creators(intercept) -> None:
    """Make every variable through ``intercept(create, **kwargs)``, where
    ``create(**kwargs)`` is TensorFlow's own creation; ``intercept`` returns the variable.

    Not a ``tf.variable_creator_scope`` (the v1 one is the same function): its
    creator stack belongs to the default graph, so a script's
    ``reset_default_graph()``, Keras ``clear_session()`` or own ``tf.Graph()``
    would silently leave it behind. Below every such stack, each creation ends in
    the default creator of ``tf.Variable`` or of ``tf.compat.v1.Variable``
    (``get_variable``, ``tf.compat.v1.layers``), module globals looked up at each
    creation, in eager and graph mode alike.
    """
    from tensorflow.python.ops import variable_v1, variables

    def hooked(original):
        @functools.wraps(original)
        def creator(next_creator=None, **kwargs):
            return intercept(functools.partial(original, next_creator), **kwargs)

        return creator

    variables.default_variable_creator_v2 = hooked(variables.default_variable_creator_v2)
    variable_v1.default_variable_creator = hooked(variable_v1.default_variable_creator)
