"""Drives examples/verify_model: the same file runs against both trees, where
``program`` is that tree's model.py (see README, "Verifying your own code")."""

import numpy as np


def setup(ctx):
    # plotting.py imports matplotlib, which a check of the numbers does not need.
    ctx.stub("plotting")


def drive(program, rng):
    X = rng.uniform(-1.0, 1.0, (16, 2))
    u = np.sin(np.pi * X[:, :1]) * X[:, 1:]
    X_star = rng.uniform(-1.0, 1.0, (5, 2))

    # Two models in one run: each starts from its own TF1 initial values.
    values = {}
    for name, layers in (("small", [2, 8, 1]), ("deep", [2, 8, 8, 1])):
        model = program.Model(X, u, layers)
        u_initial, u_x_initial = model.predict(X_star)
        losses = model.train(5)
        u_star, u_x_star = model.predict(X_star)
        values[name] = {"u_initial": u_initial, "u_x_initial": u_x_initial, "losses": losses, "u": u_star, "u_x": u_x_star}
    return values
