"""Commands for printable markers, layouts and the synthetic table renderer.

``companion markers``, ``companion vision render`` and ``companion vision layout-check``.
Bad input (a missing or malformed file, an impossible position) prints one clear line on standard
error and exits with 2, writing nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.errors import CompanionError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")


def register_top(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Top-level commands (``companion markers``)."""
    p = sub.add_parser(
        "markers",
        help="write a printable sheet of the ArUco markers (PNG or PDF)",
        description="Write the markers of a layout at true size, labelled with id and place, "
        "with a 50 mm check bar. PNG pages are name.png, name-2.png...; a .pdf holds all pages.",
    )
    p.add_argument("--out", required=True, type=Path, help="output file (.png or .pdf)")
    p.add_argument("--dpi", type=int, default=300, help="printer resolution (default 300)")
    p.add_argument(
        "--game",
        choices=("el-grande", "carolus-magnus"),
        default="el-grande",
        help="which shipped layout's markers (default el-grande)",
    )
    p.add_argument("--layout", help="a layout name or JSON file instead of --game's layout")
    p.set_defaults(func=_markers)


def register_vision(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``companion vision ...`` commands of the renderer."""
    r = sub.add_parser(
        "render",
        help="render a position as the overhead camera would see it, with ground truth",
        description="Render POSITION.json (spec/positions.md) on the synthetic table. Writes the "
        "image and, beside it, a ground-truth JSON (same name, .json).",
    )
    r.add_argument("position", help="position file (JSON), or - for standard input")
    r.add_argument("--out", required=True, type=Path, help="image file (.png or .jpg)")
    r.add_argument("--seed", type=int, default=0, help="random seed (same seed, same image)")
    r.add_argument("--hard", action="store_true", help="hard conditions (tilt, glare, noise)")
    r.add_argument("--hand", action="store_true", help="a hand and arm reach over the table")
    r.add_argument(
        "--stacked",
        type=float,
        default=0.0,
        help="probability (0..1) that a cube is put on the previous cube of its colour in its "
        "area (default 0: none stacked)",
    )
    r.add_argument(
        "--tilted",
        type=float,
        default=0.0,
        help="probability (0..1) that a cube standing on the board leans 15-35° across one of "
        "its edges, where there is room (default 0: none tilted)",
    )
    r.add_argument("--size", default="1280x720", help="image size WxH (default 1280x720)")
    r.add_argument("--layout", help="layout name or JSON file (default: the game's own)")
    r.add_argument("--dice", help="Carolus Magnus dice faces, e.g. red,crown,blue")
    r.add_argument(
        "--frames",
        type=int,
        help="write a clip of N frames (name_00.png...) with a hand reaching in and out",
    )
    r.set_defaults(func=_render)

    c = sub.add_parser(
        "layout-check",
        help="validate a layout file and draw its outlines on a blank board or a photo",
        description="Check LAYOUT (a .json file or a shipped name). With --out, draw the areas, "
        "ids and markers; with --photo as well, draw them on your photo through the board "
        "markers found in it.",
    )
    c.add_argument("layout", help="layout JSON file or shipped name")
    c.add_argument("--out", type=Path, help="overlay image to write (.png or .jpg)")
    c.add_argument("--photo", type=Path, help="a photo of your table to draw on")
    c.set_defaults(func=_layout_check)


def _error(command: str, exc: Exception | str) -> int:
    print(f"companion {command}: {exc}", file=sys.stderr)
    return 2


def _markers(args: argparse.Namespace) -> int:
    from companion.vision.layout import load_layout
    from companion.vision.markers import render_pages, write_sheet

    try:
        layout = load_layout(args.layout or args.game)
        written = write_sheet(args.out, layout, args.dpi)
        _, placed = render_pages(layout, args.dpi)
    except CompanionError as exc:
        return _error("markers", exc)
    ids = ", ".join(str(p.marker.id) for p in placed)
    files = ", ".join(map(str, written))
    pages = max(p.page for p in placed) + 1
    print(
        f"wrote {files}: {len(placed)} markers ({ids}) of layout {layout.name} "
        f"at {args.dpi} dpi, {pages} A4 page(s)"
    )
    print("print at 100 % scale and check the 50 mm bar with a ruler")
    return 0


def _load_position(source: str) -> Any:
    from companion.vision.errors import RenderError

    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RenderError(f"{_name(source)}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RenderError(f"{_name(source)}: cannot read: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RenderError(
            f"{_name(source)}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None


def _name(source: str) -> str:
    return "standard input" if source == "-" else source


def _size(text: str) -> tuple[int, int]:
    from companion.vision.errors import RenderError

    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise RenderError(f"--size {text!r}: write it as WIDTHxHEIGHT, e.g. 1920x1080") from None
    return w, h


def _render(args: argparse.Namespace) -> int:
    import cv2

    from companion.vision.errors import RenderError
    from companion.vision.synth import EASY, HARD, render, render_sequence

    # (Checked here, not by Conditions: its message would be put after the position's name.)
    if not 0.0 <= args.stacked <= 1.0:
        return _error("vision render", f"--stacked {args.stacked:g}: a probability, use 0..1")
    if not 0.0 <= args.tilted <= 1.0:
        return _error("vision render", f"--tilted {args.tilted:g}: a probability, use 0..1")
    try:
        suffix = args.out.suffix.lower()
        if suffix not in IMAGE_SUFFIXES:
            raise RenderError(f"--out {args.out}: use a .png or .jpg file name")
        if not args.out.parent.exists():
            raise RenderError(f"--out {args.out}: folder {args.out.parent} does not exist")
        position = _load_position(args.position)
        w, h = _size(args.size)
        conditions = replace(
            (HARD if args.hard else EASY).with_size(w, h),
            stacked=args.stacked,
            tilted=args.tilted,
        )
        dice = args.dice.split(",") if args.dice else None
        if args.frames is not None:
            n = args.frames
            if not 1 <= n <= 500:
                raise RenderError(f"--frames {n}: use 1..500")
            first, last = n // 4, max(n // 4, n // 2)
            clip = render_sequence(
                position,
                args.layout,
                seed=args.seed,
                conditions=conditions,
                frames=n,
                hand_frames=(first, last) if n >= 3 else None,
                dice=dice,
            )
            outputs = [
                (args.out.with_name(f"{args.out.stem}_{k:02d}{args.out.suffix}"), img, truth)
                for k, (img, truth) in enumerate(clip)
            ]
        else:
            img, truth = render(
                position,
                args.layout,
                seed=args.seed,
                conditions=conditions,
                hand=args.hand,
                dice=dice,
            )
            outputs = [(args.out, img, truth)]
    except RenderError as exc:
        where = "" if str(exc).startswith(_name(args.position)) else f"{_name(args.position)}: "
        return _error("vision render", f"{where}{exc}")
    except CompanionError as exc:
        return _error("vision render", exc)
    for path, img, truth in outputs:
        if not cv2.imwrite(str(path), img):
            return _error("vision render", f"{path}: could not write the image")
        path.with_suffix(".json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    truth = outputs[0][2]
    cubes = sum(sum(c.values()) for c in truth["counts"].values())
    seen = sum(1 for m in truth["markers"] if m["in_view"])
    first_path = outputs[0][0]
    names = str(first_path) if len(outputs) == 1 else f"{len(outputs)} frames {first_path}..."
    print(
        f"wrote {names} ({w}x{h}) and its ground truth {first_path.with_suffix('.json')}: "
        f"{cubes} cubes in {len(truth['counts'])} areas, {len(truth['pieces'])} other pieces, "
        f"{seen}/{len(truth['markers'])} markers in view, "
        f"{'hard' if args.hard else 'easy'} conditions, seed {args.seed}"
        + (", hand over the table" if truth["occluded"] else "")
    )
    return 0


def _layout_check(args: argparse.Namespace) -> int:
    from companion.vision.errors import VisionError
    from companion.vision.layout import load_layout

    try:
        layout = load_layout(args.layout)
    except CompanionError as exc:
        return _error("vision layout-check", exc)
    kinds: dict[str, int] = {}
    for a in layout.areas:
        kinds[a.kind] = kinds.get(a.kind, 0) + 1
    w, h = layout.board_size
    summary = ", ".join(f"{n} {k}" for k, n in kinds.items())
    print(
        f"{args.layout}: OK - layout {layout.name!r} for {layout.game}, board {w:g}x{h:g} mm, "
        f"areas: {summary}; markers {', '.join(map(str, layout.all_marker_ids()))}"
    )
    if args.out is None:
        if args.photo is not None:
            return _error("vision layout-check", "--photo needs --out for the overlay image")
        return 0
    try:
        from companion.vision.synth.overlay import write_overlay

        note = write_overlay(layout, args.out, args.photo)
    except VisionError as exc:
        return _error("vision layout-check", exc)
    print(f"wrote {args.out}: {note}")
    return 0
