"""Printable marker sheets: every ArUco marker of a layout at its true size, labelled.

Pages are A4 at a stated DPI. Each sheet carries a 50 mm check bar so the group can see at once
whether the printer scaled the page (it must print at 100 %).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from companion.vision.errors import VisionError
from companion.vision.layout import Layout

PAGE_MM = (210.0, 297.0)
MARGIN_MM = 12.0
CHECK_BAR_MM = 50.0
QUIET_MM = 5.0  # white space round each marker: detectors need a light border
LABEL_MM = 11.0
HEADER_MM = 34.0


class MarkerSheetError(VisionError, ValueError):
    """The marker sheet cannot be made as asked (bad DPI, unwritable file...)."""


@dataclass(frozen=True)
class SheetMarker:
    """One marker to print: id, black-square side in mm, and where it goes."""

    id: int
    size: float
    where: str


@dataclass(frozen=True)
class Placed:
    """Where a marker landed on a page (mm from the page's top-left corner)."""

    marker: SheetMarker
    page: int
    x: float  # left edge of the black square
    y: float  # top edge of the black square


def sheet_markers(layout: Layout) -> list[SheetMarker]:
    out = [SheetMarker(m.id, m.size, m.where) for m in layout.board_markers]
    for t in layout.tiles:
        out.append(SheetMarker(t.marker, layout.tile_marker_size, f"territory tile {t.id}"))
    if layout.court_card is not None:
        for c in layout.courts:
            out.append(
                SheetMarker(c.marker, layout.court_card.marker_size, f"court card of seat {c.seat}")
            )
    return out


def arrange(markers: list[SheetMarker]) -> list[Placed]:
    """Shelf packing on A4 pages, in the given order, leaving room for the header on each page."""
    width = PAGE_MM[0] - 2 * MARGIN_MM
    bottom = PAGE_MM[1] - MARGIN_MM
    placed: list[Placed] = []
    page, x, y, shelf = 0, 0.0, HEADER_MM + MARGIN_MM, 0.0
    for m in markers:
        cell_w = max(m.size + 2 * QUIET_MM, 44.0)
        cell_h = m.size + 2 * QUIET_MM + LABEL_MM
        if m.size + 2 * QUIET_MM > width or cell_h > bottom - HEADER_MM - MARGIN_MM:
            raise MarkerSheetError(
                f"marker {m.id} ({m.size:g} mm) does not fit on an A4 page; "
                "use markers of at most 150 mm"
            )
        if x + cell_w > width:
            x, y, shelf = 0.0, y + shelf, 0.0
        if y + cell_h > bottom:
            page, x, y, shelf = page + 1, 0.0, HEADER_MM + MARGIN_MM, 0.0
        left = MARGIN_MM + x + (cell_w - m.size) / 2
        placed.append(Placed(m, page, left, y + QUIET_MM))
        x += cell_w
        shelf = max(shelf, cell_h)
    return placed


def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(8, px))


def render_pages(layout: Layout, dpi: int = 300) -> tuple[list[Image.Image], list[Placed]]:
    """The sheet's pages (greyscale Pillow images at ``dpi``) and where each marker is."""
    if isinstance(dpi, bool) or not isinstance(dpi, int) or not 72 <= dpi <= 1200:
        raise MarkerSheetError(f"--dpi {dpi!r}: use a whole number from 72 to 1200 (e.g. 300)")
    px = dpi / 25.4
    placed = arrange(sheet_markers(layout))
    n_pages = max(p.page for p in placed) + 1
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    pages = []
    size = (round(PAGE_MM[0] * px), round(PAGE_MM[1] * px))
    for page in range(n_pages):
        img = Image.new("L", size, 255)
        draw = ImageDraw.Draw(img)
        title = (
            f"companion markers - layout {layout.name} ({layout.game}), page {page + 1}/{n_pages}"
        )
        draw.text((MARGIN_MM * px, MARGIN_MM * px), title, fill=0, font=_font(round(4.2 * px)))
        note = (
            "Cut each marker with its white border; stick it flat, upright as printed "
            "(text below = bottom edge). DICT_4X4_50."
        )
        draw.text((MARGIN_MM * px, (MARGIN_MM + 6) * px), note, fill=0, font=_font(round(2.8 * px)))
        # The check bar: 50 mm long, ticks every 10 mm.
        bx, by = MARGIN_MM * px, (MARGIN_MM + 13) * px
        draw.rectangle([bx, by, bx + CHECK_BAR_MM * px - 1, by + 3 * px], fill=0)
        for k in range(6):
            tx = bx + min(k * 10 * px, CHECK_BAR_MM * px - 1)
            draw.line([tx, by + 3 * px, tx, by + 5 * px], fill=0, width=max(1, round(0.3 * px)))
        draw.text(
            (bx + (CHECK_BAR_MM + 4) * px, by - 0.5 * px),
            "measure this bar: it must be 50 mm; if not, print at 100 % scale",
            fill=0,
            font=_font(round(3.2 * px)),
        )
        for p in placed:
            if p.page != page:
                continue
            side = round(p.marker.size * px)
            code = cv2.aruco.generateImageMarker(dictionary, p.marker.id, side)
            img.paste(
                Image.fromarray(np.asarray(code, np.uint8)), (round(p.x * px), round(p.y * px))
            )
            label_y = (p.y + p.marker.size + QUIET_MM * 0.6) * px
            font = _font(round(2.6 * px))
            draw.text((p.x * px, label_y), f"id {p.marker.id}", fill=0, font=_font(round(3.2 * px)))
            draw.text((p.x * px, label_y + 3.6 * px), p.marker.where, fill=0, font=font)
            # Thin grey cut guide round the white border.
            q = QUIET_MM * px
            draw.rectangle(
                [p.x * px - q, p.y * px - q, (p.x + p.marker.size) * px + q, label_y + 7 * px],
                outline=190,
            )
        pages.append(img)
    return pages, placed


def write_sheet(path: Path, layout: Layout, dpi: int = 300) -> list[Path]:
    """Write the sheet: one PDF (all pages) if ``path`` ends in .pdf, else PNG file(s).

    Several PNG pages are written as ``name.png``, ``name-2.png``...; returns the files written.
    """
    pages, _ = render_pages(layout, dpi)
    suffix = path.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise MarkerSheetError(f"{path}: the sheet is written as .png or .pdf; use one of those")
    if not path.parent.exists():
        raise MarkerSheetError(f"{path.parent}: no such folder")
    try:
        if suffix == ".pdf":
            pages[0].save(
                path, "PDF", resolution=float(dpi), save_all=True, append_images=pages[1:]
            )
            return [path]
        written = []
        for k, page in enumerate(pages):
            target = path if k == 0 else path.with_name(f"{path.stem}-{k + 1}{path.suffix}")
            page.save(target, "PNG", dpi=(dpi, dpi))
            written.append(target)
        return written
    except OSError as exc:
        raise MarkerSheetError(f"{path}: cannot write the sheet: {exc}") from None
