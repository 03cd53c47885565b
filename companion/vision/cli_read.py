"""Commands that read camera images: ``companion vision read`` and ``calibrate``."""

from __future__ import annotations

import argparse


def register_vision(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``companion vision ...`` commands of the reader."""
