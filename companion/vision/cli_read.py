"""Commands that read camera images: ``companion vision read`` and ``calibrate``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register_vision(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``companion vision ...`` commands of the reader."""
    read = sub.add_parser(
        "read",
        help="read one photo of the table: counts, figures, dice as Observation JSON",
        description="Read a photo of the table and print the Observation (docs/observation.md).",
    )
    read.add_argument("image", help="photo of the table (PNG, JPEG, ...)")
    add_table_options(read, "this image")
    read.set_defaults(func=cmd_read)

    cal = sub.add_parser(
        "calibrate",
        help="make a calibration file from a photo of the set-up table",
        description="Find the board markers and sample each piece colour from the set-up "
        "position (El Grande: the home regions; Carolus Magnus: one cube per territory).",
    )
    cal.add_argument("image", help="photo of the table in its set-up position")
    cal.add_argument("--layout", required=True, help="shipped layout name or layout JSON file")
    cal.add_argument("--position", help="the set-up position JSON (spec/positions.md)")
    cal.add_argument("--out", required=True, help="calibration JSON file to write")
    cal.add_argument(
        "--lens",
        help="camera matrix and distortion JSON from a one-time lens calibration "
        '({"matrix": [[fx,0,cx],[0,fy,cy],[0,0,1]], "distortion": [k1,k2,p1,p2,k3]})',
    )
    cal.set_defaults(func=cmd_calibrate)


def add_table_options(parser: argparse.ArgumentParser, found_in: str) -> None:
    """``--layout``, ``--calibration``, ``--lens``: what a read needs to know of the table."""
    parser.add_argument("--layout", required=True, help="shipped layout name or layout JSON file")
    parser.add_argument(
        "--calibration",
        help="calibration file from `companion vision calibrate` (default: nominal colours, "
        f"markers found in {found_in})",
    )
    parser.add_argument(
        "--lens", help="camera matrix and distortion JSON (only without --calibration)"
    )


def load_calibration(path: str | None, layout: Any) -> Any:
    """The calibration file for ``layout`` (None if no path), or a clear VisionError."""
    if path is None:
        return None
    from companion.vision.calibration import Calibration
    from companion.vision.errors import VisionError

    calibration = Calibration.load(path)
    if calibration.layout != layout.name:
        raise VisionError(
            f"{path} was made for layout {calibration.layout!r}, not {layout.name!r}; give "
            "the matching --layout or calibrate again"
        )
    return calibration


def _fail(message: str) -> int:
    print(f"companion vision: {message}", file=sys.stderr)
    return 2


def load_lens(path: str | None) -> Any:
    if path is None:
        return None
    from companion.vision.errors import VisionError
    from companion.vision.homography import Lens

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VisionError(f"{path}: no such lens file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VisionError(f"{path}: not a readable lens JSON file: {exc}") from None
    return Lens.from_json(data, path)


def load_image(path: str) -> Any:
    """A BGR image from a file, or a clear VisionError."""
    import cv2
    import numpy as np

    from companion.vision.pipeline import NotAFrame

    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise NotAFrame(f"{p}: no such file") from None
    except OSError as exc:
        raise NotAFrame(f"{p}: cannot read: {exc.strerror}") from None
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if image is None:
        raise NotAFrame(
            f"{p}: not an image OpenCV can read (empty, truncated or not a picture file); "
            "give a PNG or JPEG photo of the table"
        )
    return image


def cmd_read(args: argparse.Namespace) -> int:
    from companion.errors import CompanionError
    from companion.vision.calibration import uncalibrated
    from companion.vision.layout import load_layout
    from companion.vision.pipeline import Reader

    try:
        layout = load_layout(args.layout)
        image = load_image(args.image)
        calibration = load_calibration(args.calibration, layout)
        if calibration is not None:
            from companion.vision.calibration import refreshed

            calibration = refreshed(image, calibration, layout)
        else:
            calibration = uncalibrated(image, layout, load_lens(args.lens))
        with Reader(calibration, layout) as reader:
            observation = reader.read(image)
    except CompanionError as exc:
        return _fail(str(exc))
    print(observation.dumps())
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from companion.errors import CompanionError
    from companion.vision.calibration import (
        calibrate,
        cube_pixels,
        missing_courts,
        small_cube_warning,
    )
    from companion.vision.layout import load_layout

    try:
        layout = load_layout(args.layout)
        image = load_image(args.image)
        setup = None
        if args.position:
            try:
                setup = json.loads(Path(args.position).read_text(encoding="utf-8"))
            except FileNotFoundError:
                return _fail(f"{args.position}: no such position file")
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                return _fail(f"{args.position}: not a readable position JSON file: {exc}")
            if not isinstance(setup, dict):
                return _fail(f"{args.position}: a position is a JSON object (spec/positions.md)")
        calibration = calibrate(image, layout, setup, lens=load_lens(args.lens))
        calibration.save(args.out)
    except CompanionError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{args.out}: cannot write: {exc.strerror}")
    sampled = ", ".join(calibration.sampled) or "none (nominal colours)"
    smallest, largest = cube_pixels(calibration, layout)
    lens = ""
    if args.lens is None and calibration.lens is not None:
        k1 = calibration.lens.distortion[0]
        lens = (
            f"; lens estimated from the markers (radial term k1 {k1:+.3f}, --lens gives a "
            "chessboard calibration instead)"
        )
    print(
        f"calibration written to {args.out}: layout {layout.name}, colours sampled: {sampled}; "
        f"cubes {smallest:.1f}-{largest:.1f} px across{lens}"
    )
    warnings = [
        small_cube_warning(calibration, layout),
        *missing_courts(calibration, layout).values(),
    ]
    for warning in warnings:
        if warning is not None:
            print(f"companion vision calibrate: warning: {warning}", file=sys.stderr)
    return 0
