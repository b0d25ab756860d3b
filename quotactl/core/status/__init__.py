"""``status``: who uses, borrows and lends what, computed from live queues, as values."""
