"""Figures of the results: needs matplotlib (a driver stubs this module)."""

import matplotlib.pyplot as plt


def plot_solution(X, u, path):
    plt.scatter(X[:, 0], X[:, 1], c=u[:, 0])
    plt.savefig(path)
