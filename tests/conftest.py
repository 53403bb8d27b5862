"""Shared pytest options.

pytest tests/test_fixtures.py --update-goldens   # rewrite after.py / findings.txt
"""

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="write each fixture's after.py and findings.txt from the current tool output",
    )


@pytest.fixture(autouse=True)
def _private_result_cache(tmp_path_factory, monkeypatch):
    """Tests never read or fill the user's tf2migrate cache."""
    monkeypatch.setenv("TF2MIGRATE_CACHE_DIR", str(tmp_path_factory.mktemp("tf2migrate-cache")))
