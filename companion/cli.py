"""The ``companion`` command. Each layer registers its own subcommands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from companion import __version__
from companion.errors import CompanionError


def build_parser() -> argparse.ArgumentParser:
    from companion import demo
    from companion.devices import cli as devices_cli
    from companion.games import cli as games_cli
    from companion.vision import cli as vision_cli

    parser = argparse.ArgumentParser(
        prog="companion",
        description="Table companion for El Grande and Carolus Magnus.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    games_cli.register(sub)
    vision_cli.register(sub)
    devices_cli.register(sub)
    demo.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code: int = args.func(args)
    except CompanionError as exc:
        # Layers turn their own errors into messages; this is the last net for the rest.
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
