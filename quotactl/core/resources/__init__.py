"""Resources: what the configuration wants (desired), what the account holds (observed), and
the flat attributes both are compared by. A live queue with its jobs, as the scheduling
engine reads it, is ``quotactl.core.jobs.live``."""
