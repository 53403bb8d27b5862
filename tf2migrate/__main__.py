"""``python -m tf2migrate``: the same command as the ``tf2migrate`` console script.

The ``__main__`` guard matters: worker processes started with the "spawn" method
re-import this module and must not run the command again.
"""

import sys

from tf2migrate.cli import main

if __name__ == "__main__":
    sys.exit(main())
