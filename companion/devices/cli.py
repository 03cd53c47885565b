"""Subcommands of this layer: ``companion tower ...`` (the Castillo tower)."""

from __future__ import annotations

import argparse

from companion.devices import cli_tower


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this layer's subcommands to the ``companion`` command."""
    cli_tower.register(sub)
