"""Pure domain logic: desired/observed state, plans, the scheduling engine, simulation.

Imports nothing but the standard library and ``quotactl.errors``: no boto3, rich or typer.
"""
