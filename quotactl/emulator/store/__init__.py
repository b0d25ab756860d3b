"""The emulated account on disk: one SQLite state file; typed reads and writes in a transaction."""
