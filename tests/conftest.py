"""Shared pytest options.

    pytest tests/test_fixtures.py --update-goldens   # rewrite after.py / findings.txt
"""


def pytest_addoption(parser):
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="write each fixture's after.py and findings.txt from the current tool output",
    )
