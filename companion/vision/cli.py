"""Vision subcommands: ``companion markers`` and ``companion vision ...``.

The rendering/markers commands live in ``cli_synth``; reading and calibration in ``cli_read``;
watching a camera in ``cli_watch``.
Heavy imports (cv2) happen inside the command functions so other commands stay fast.
"""

from __future__ import annotations

import argparse

from companion.vision import cli_read, cli_synth, cli_watch


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cli_synth.register_top(sub)
    vision = sub.add_parser("vision", help="read the table from camera images")
    vision_sub = vision.add_subparsers(dest="vision_command", metavar="VISION_COMMAND")

    def usage(args: argparse.Namespace) -> int:
        vision.print_help()
        return 2

    vision.set_defaults(func=usage)
    cli_synth.register_vision(vision_sub)
    cli_read.register_vision(vision_sub)
    cli_watch.register_watch(vision_sub)
