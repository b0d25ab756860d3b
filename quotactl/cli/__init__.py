"""Thin typer commands: parse options, call one core function, render, map errors to exit codes."""
