"""``companion demo``: the companion on the simulated table."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("demo", help="run the companion on the simulated table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print("companion demo: nothing to show yet")
    return 0
