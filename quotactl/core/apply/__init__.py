"""Applying a plan: the end-to-end flow, the stack lock, preconditions, the steps in AWS's
order, their executor and its progress hooks."""
