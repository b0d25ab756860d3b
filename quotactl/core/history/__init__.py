"""What happened: the attempt ledger, and usage, showback and guarantee misses computed from it."""
