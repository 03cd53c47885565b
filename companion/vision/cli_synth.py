"""Commands for printable markers and the synthetic table renderer."""

from __future__ import annotations

import argparse


def register_top(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Top-level commands (``companion markers``)."""


def register_vision(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``companion vision ...`` commands of the renderer."""
