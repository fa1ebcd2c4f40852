"""Placeholder until its owner lands the real commands; registers nothing."""

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to app."""
