"""Chores shared by the two graph-mode worker modes, tf1 and tf2graph (imported
in the subprocess only)."""

from __future__ import annotations

import functools


def seed_new_graphs() -> None:
    """Give every new graph the graph-level seed 0 (a script may override it).

    With op determinism enabled, TF refuses to create a random op unless a seed
    is set; setting it on each new graph also covers a script's own
    ``tf.Graph()`` and ``reset_default_graph()``, and makes each run reproducible.
    """
    from tensorflow.python.framework.ops import Graph

    original = Graph.__init__

    @functools.wraps(original)
    def __init__(graph, *args, **kwargs):
        original(graph, *args, **kwargs)
        graph.seed = 0

    Graph.__init__ = __init__


def close_interactive_sessions(v1) -> None:
    """Close the InteractiveSessions a script left open (``v1`` is
    ``tf.compat.v1``): one stays the default session and graph, which would make
    the next script's ``reset_default_graph()`` fail."""
    session = v1.get_default_session()
    while isinstance(session, v1.InteractiveSession):
        session.close()
        if v1.get_default_session() is session:
            break  # left as default by the script itself: not ours to unwind
        session = v1.get_default_session()
