"""tf2migrate: migrate TensorFlow 1 graph-mode code to eager TensorFlow 2."""

from tf2migrate.migrate import MigrationResult, Options, migrate_source

__version__ = "0.1.0"
__all__ = ["MigrationResult", "Options", "__version__", "migrate_source"]
