"""The generated TF symbol table matches what the installed TensorFlow says."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow not installed")
def test_symbol_table_is_current():
    from tf2migrate.data.tf_symbols import TF_VERSION

    import tensorflow as tf

    if tf.__version__ != TF_VERSION:
        pytest.skip(f"table generated from TF {TF_VERSION}, installed {tf.__version__}")
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "generate_tf_tables.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_migrate_path_reads_no_tensorflow():
    """Importing the migrate path must not import TensorFlow (speed, and no TF needed)."""
    code = "import sys, tf2migrate, tf2migrate.cli; tf2migrate.migrate_source(open(sys.argv[1]).read()); print('tensorflow' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "examples" / "seed_gradients.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "False"
