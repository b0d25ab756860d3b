"""Resources: what the configuration wants (desired), what the account holds (observed, live),
and the flat attributes both are compared by."""
