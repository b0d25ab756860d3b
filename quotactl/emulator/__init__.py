"""The embedded AWS Batch quota-management account (wire -> handlers -> state -> errors)."""
