"""Subcommands of this layer (filled in by the layer's issue)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this layer's subcommands to the ``companion`` command."""
