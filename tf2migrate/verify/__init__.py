"""Execution-equivalence checker: run a TF1 script and its TF2 migration and
compare the values they compute (see runner.py).

Importing this package does not import TensorFlow or numpy: TensorFlow only
runs in the worker subprocesses.
"""

from tf2migrate.verify.compare import Row
from tf2migrate.verify.runner import VerifyReport, verify_pair, verify_pairs

__all__ = ["Row", "VerifyReport", "verify_pair", "verify_pairs"]
