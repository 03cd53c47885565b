"""``companion vision watch``: a camera's stream read, one observation each time the table
comes to rest.

Frames go through the still gate (still.py): once the table has been still for
``still_frames`` frames, their median is read and its Observation printed as one JSON line;
nothing more until something moves and the table is still again. One Reader reads the whole
stream (its geometry, tile places and, for Carolus, its side process kept between reads).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from companion.vision.cli_read import add_table_options, load_calibration, load_lens


def register_watch(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    watch = sub.add_parser(
        "watch",
        help="watch the table through a camera: an observation each time it comes to rest",
        description="Read a camera's frames; each time the table has been still for a few "
        "frames, read them and print the Observation (docs/observation.md) as one JSON line. "
        "Stop with Ctrl-C (or --frames / --observations).",
    )
    watch.add_argument(
        "--camera",
        help="file:PATH or a folder of images, video:PATH, device:N[@WxH], picamera2[@WxH], "
        "synthetic:POSITION.json[?seed=N&conditions=easy] (default: $COMPANION_CAMERA)",
    )
    add_table_options(watch, "the first frame")
    watch.add_argument("--frames", type=_positive, help="stop after this many frames")
    watch.add_argument("--observations", type=_positive, help="stop after this many observations")
    watch.set_defaults(func=cmd_watch)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def _fail(message: str) -> int:
    _say(message)
    return 2


def cmd_watch(args: argparse.Namespace) -> int:
    from companion.devices.camera import open_camera
    from companion.errors import CompanionError
    from companion.vision.layout import load_layout

    try:
        layout = load_layout(args.layout)
        calibration = load_calibration(args.calibration, layout)
        lens = load_lens(args.lens)
        camera = open_camera(args.camera)
    except CompanionError as exc:
        return _fail(str(exc))
    try:
        with camera:
            return _watch(camera.frames(), layout, calibration, lens, args)
    except KeyboardInterrupt:
        return 0
    except CompanionError as exc:
        return _fail(str(exc))


def _watch(frames: Any, layout: Any, calibration: Any, lens: Any, args: argparse.Namespace) -> int:
    from companion.vision.calibration import CalibrationError
    from companion.vision.errors import VisionError
    from companion.vision.pipeline import NotAFrame, Reader
    from companion.vision.still import StillGate

    reader: Reader | None = None
    gate = StillGate()
    printed = 0
    waiting: str | None = None  # why no frame has shown the board yet
    try:
        for n, frame in enumerate(frames, 1):
            if reader is None:
                try:
                    reader = Reader(_board(frame, layout, calibration, lens), layout)
                except (NotAFrame, CalibrationError):
                    raise  # (no later frame mends these: the camera's frames are not usable)
                except VisionError as exc:
                    if str(exc) != waiting:
                        _say(f"frame {n}: {exc}; waiting for the board")
                    waiting = str(exc)
            ready = gate.push(frame).ready if reader is not None else None
            if reader is not None and ready:
                try:
                    observation = reader.read_still(ready)
                except NotAFrame:
                    raise
                except VisionError as exc:
                    _say(f"frame {n}: not read: {exc}")  # (the next still table may be)
                else:
                    print(json.dumps(observation.to_json()), flush=True)
                    printed += 1
            done = args.observations is not None and printed >= args.observations
            if done or (args.frames is not None and n >= args.frames):
                break
    finally:
        if reader is not None:
            reader.close()
    if reader is None and waiting is not None:
        return _fail(f"the board was never seen: {waiting}")
    return 0


def _board(frame: Any, layout: Any, calibration: Any, lens: Any) -> Any:
    """The calibration for the stream, from the first frame that shows the board's markers:
    the given one's homography re-estimated there (the board may have been nudged, the
    camera's resolution changed since), or the markers found and nominal colours."""
    from companion.vision.calibration import refreshed, uncalibrated

    if calibration is not None:
        return refreshed(frame, calibration, layout)
    return uncalibrated(frame, layout, lens)


def _say(message: str) -> None:
    print(f"companion vision watch: {message}", file=sys.stderr)
