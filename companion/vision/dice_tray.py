"""Where the Carolus Magnus dice tray is in a frame, at the frame's full resolution.

Without a lens model the homography places mid-board outlines up to several dice off (barrel
distortion is fitted at the corner markers only, and with one corner marker lost the fit is
worse). The tray is a plain area darker than the board round it: its outline is moved to where
the board just outside it is lightest against the inside, then replaced by the dark plateau
found there. Levels are compared as ratios (log), so a cast shadow or a lamp's glare over both
does not matter, and with the dice taken off first (a grey opening wider than two dice).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import VisionConfig
from companion.vision.geometry import Geometry
from companion.vision.layout import Layout
from companion.vision.masks import dilate_ellipse, nonzero

Image = npt.NDArray[Any]


TrayZones = tuple[Image, Image]


def tray_zones(mask: Image, side: float, config: VisionConfig) -> TrayZones:
    """Where the dice search measures the tray's own colour (inside its light printed
    outline) and where it looks for dice (a die's top stands out past its footprint in the
    image, being nearer the camera), in the tray's crop (bool)."""
    margin = max(1, round(config.die_tray_margin * side))
    eroded = cv2.erode(mask.astype(np.uint8), np.ones((2 * margin + 1, 2 * margin + 1), np.uint8))
    inner = eroded > 0 if eroded.any() else mask
    reach = max(1, round(config.die_reach * side))
    search: Image = dilate_ellipse(mask.astype(np.uint8), 2 * reach + 1) > 0
    return inner, search


@dataclass(frozen=True)
class Tray:
    """A crop of the frame round the tray, the tray's own pixels in it, and sizes."""

    crop: Image  # BGR, frame resolution
    mask: Image  # bool, the tray's surface in the crop
    origin: tuple[int, int]  # the crop's top left corner in the frame
    side: float  # a die's side in frame pixels
    zones: TrayZones | None = None  # tray_zones of the mask, if made already

    def box(self) -> tuple[int, int, int, int]:
        """The crop's box (x0, y0, x1, y1) in the frame."""
        x0, y0 = self.origin
        return x0, y0, x0 + self.crop.shape[1], y0 + self.crop.shape[0]


@dataclass(frozen=True)
class KnownTray:
    """Where the tray was found once (it is printed on the mat: it moves only with the
    camera, and a camera that moved is calibrated again): its crop box and surface, and a
    sample of its pixels and of the board's just round it, to check each frame that it is
    still there."""

    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in the frame
    mask: Image  # bool, the tray's surface in the crop
    side: float
    inside: Image  # flat indices into the crop (a sample)
    ring: Image
    zones: TrayZones
    rows: Image  # the sample's rows and columns in the frame (inside's, then ring's)
    cols: Image

    @classmethod
    def of(cls, tray: Tray, config: VisionConfig) -> KnownTray:
        ring_px = max(1, round(config.die_tray_ring * tray.side))
        kernel = np.ones((2 * ring_px + 1, 2 * ring_px + 1), np.uint8)
        near = cv2.dilate(tray.mask.view(np.uint8), kernel) > 0
        ring = np.flatnonzero(near & ~tray.mask)
        inside = np.flatnonzero(tray.mask)
        # (A few thousand pixels give the medians as well as all of them.)
        step = max(1, (inside.size + ring.size) // 4000)
        zones = tray_zones(tray.mask, tray.side, config)
        inside, ring = inside[::step], ring[::step]
        rows, cols = np.divmod(np.concatenate([inside, ring]), tray.mask.shape[1])
        x0, y0 = tray.origin
        return cls(tray.box(), tray.mask, tray.side, inside, ring, zones, rows + y0, cols + x0)

    def seen_in(self, frame: Image, config: VisionConfig) -> Tray | None:
        """The tray in this frame where it was found, if it is still darker than the board
        round it by the contrast the search asks for (the dice are a few per cent of it)."""
        x0, y0, x1, y1 = self.box
        crop = frame[y0:y1, x0:x1]
        if frame.flags.c_contiguous:
            # (Taken from the frame's own pixels by flat index: the crop's, without copying
            # the crop whole or NumPy's fancy indexing of pixel rows, four times the cost.)
            at = self.rows * frame.shape[1] + self.cols
            pixels = np.take(frame.reshape(-1, 3), at, axis=0)
        else:
            pixels = crop.reshape(-1, 3)[np.concatenate([self.inside, self.ring])]
        # (As one row: OpenCV converts an N x 1 image a row, so a pixel, at a time.)
        grey = cv2.cvtColor(pixels[None], cv2.COLOR_BGR2GRAY).reshape(-1)
        dark = float(np.median(grey[: self.inside.size]))
        light = float(np.median(grey[self.inside.size :]))
        if math.log(light + 1.0) - math.log(dark + 1.0) < config.die_tray_contrast:
            return None
        return Tray(crop, self.mask, (x0, y0), self.side, self.zones)


@dataclass(frozen=True)
class NoTray:
    """The tray was looked for and not found: why, for the Observation's ``unread``."""

    why: str


def find_tray(
    frame: Image, geo: Geometry, layout: Layout, config: VisionConfig
) -> Tray | NoTray | None:
    """The tray in a frame; None when the layout has no tray (El Grande)."""
    if geo.tray is None:
        return None
    tx, ty, tw, th = geo.tray_box
    work_tray = geo.tray[ty : ty + th, tx : tx + tw] > 0
    if not work_tray.any():
        return NoTray("the dice tray's outline is outside the frame")
    # A die's side in frame pixels, from the tray's own size in the image (the lens scales
    # the middle of the board differently from its corners).
    tray_mm2 = layout.areas_of_kind("dice_tray")[0].polygon.area
    side = float(layout.pieces.get("die", 16.0)) * float(np.sqrt(work_tray.sum() / tray_mm2))
    side /= geo.scale
    # The outline in frame pixels (the working image is the frame's crop binned by 1/scale),
    # with room round it to find the tray where it is and to see the board's level there.
    pad = round((config.die_tray_search + config.die_background + config.die_reach) * side)
    x0 = round(geo.crop[0] + tx / geo.scale)
    y0 = round(geo.crop[1] + ty / geo.scale)
    w, h = round(tw / geo.scale), round(th / geo.scale)
    fx0, fy0 = max(0, x0 - pad), max(0, y0 - pad)
    fx1, fy1 = min(frame.shape[1], x0 + w + pad), min(frame.shape[0], y0 + h + pad)
    crop = frame[fy0:fy1, fx0:fx1]
    predicted: Image = np.zeros(crop.shape[:2], np.uint8)
    big = np.asarray(
        cv2.resize(work_tray.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST), np.uint8
    )
    ox, oy = x0 - fx0, y0 - fy0
    predicted[oy : oy + h, ox : ox + w] = big[: predicted.shape[0] - oy, : predicted.shape[1] - ox]
    mask = locate_tray(crop, predicted, side, config)
    if mask is None:
        return NoTray(
            "the dice tray is not where the calibration puts it (nothing there is darker than "
            "the board round it); calibrate again if the camera moved"
        )
    # Only the tray, and what the dice need round it, from here on.
    bx, by, bw, bh = cv2.boundingRect(mask.astype(np.uint8))
    margin = round((config.die_background + config.die_reach) * side)
    cx0, cy0 = max(0, bx - margin), max(0, by - margin)
    cx1, cy1 = min(crop.shape[1], bx + bw + margin), min(crop.shape[0], by + bh + margin)
    return Tray(crop[cy0:cy1, cx0:cx1], mask[cy0:cy1, cx0:cx1], (fx0 + cx0, fy0 + cy0), side)


def locate_tray(crop: Image, predicted: Image, side: float, config: VisionConfig) -> Image | None:
    """The tray's surface (bool) in a crop, given its outline where the calibration puts it
    (uint8 mask); None if nothing near there looks like the tray."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    k = max(3, round(config.die_background * side)) | 1
    # (Opened in 8 bits, several times faster than in floats and the same values: an opening
    # only picks among them.)
    opened = cv2.morphologyEx(grey, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    level = np.log(opened.astype(np.float32) + 1.0)
    x, y, w, h = cv2.boundingRect(predicted)
    ring_px = max(1, round(config.die_tray_ring * side))
    inside = np.pad(predicted[y : y + h, x : x + w], ring_px).astype(np.float32)
    ring_kernel = np.ones((2 * ring_px + 1, 2 * ring_px + 1), np.uint8)
    ring = cv2.dilate(inside.astype(np.uint8), ring_kernel).astype(np.float32) - inside
    if not inside.any() or not ring.any():
        return None
    if inside.shape[0] > level.shape[0] or inside.shape[1] > level.shape[1]:
        return None
    # Mean log level of the ring minus that of the inside, for every place of the outline
    # within the search reach (the outline's own place is (x - ring, y - ring)): the template
    # is matched on just the part of the crop those places cover.
    template = ring / ring.sum() - inside / inside.sum()
    th, tw = template.shape
    reach = round(config.die_tray_search * side)
    px, py = x - ring_px, y - ring_px
    ys0, xs0 = max(0, py - reach), max(0, px - reach)
    ys1 = min(level.shape[0] - th + 1, py + reach + 1)
    xs1 = min(level.shape[1] - tw + 1, px + reach + 1)
    if ys1 <= ys0 or xs1 <= xs0:
        return None  # the outline and its ring do not fit in the crop anywhere in reach
    window = level[ys0 : ys1 + th - 1, xs0 : xs1 + tw - 1]
    score = cv2.matchTemplate(window, template, cv2.TM_CCORR)
    _, _, _, (bx, by) = cv2.minMaxLoc(score)
    bx, by = bx + xs0, by + ys0
    return _plateau(level, _shifted(predicted, bx - px, by - py), ring_kernel, side, config)


def _shifted(mask: Image, dx: int, dy: int) -> Image:
    """The mask moved by (dx, dy) pixels; what leaves the crop is lost."""
    out = np.zeros_like(mask)
    h, w = mask.shape
    out[max(0, dy) : h + min(0, dy), max(0, dx) : w + min(0, dx)] = mask[
        max(0, -dy) : h - max(0, dy), max(0, -dx) : w - max(0, dx)
    ]
    return out


def _plateau(
    level: Image, moved: Image, ring_kernel: Image, side: float, config: VisionConfig
) -> Image | None:
    """The dark plateau under the moved outline, cut half way (in log level) between its
    inside and the ring round it, as a convex outline: that takes the lens's small turn and
    scale too. The moved outline stands if the plateau is not about the tray's size and place
    (it runs into a shadow off the tray, or a lamp's glare lights part of the tray)."""
    inside = moved > 0
    near = cv2.dilate(moved, ring_kernel) > 0
    ring = near & ~inside
    dark, light = float(np.median(level[inside])), float(np.median(level[ring]))
    if light - dark < config.die_tray_contrast:
        return None  # no tray there: the calibration is far off
    below = level < (dark + light) / 2
    n, labels = cv2.connectedComponents((below & near).astype(np.uint8), connectivity=4)
    overlap = np.bincount(labels[inside], minlength=n)
    overlap[0] = 0
    plateau = labels == int(overlap.argmax())
    ys, xs = nonzero(plateau)
    # (The hull of its outer contour: the same as of all its pixels, from far fewer points.)
    contours, _ = cv2.findContours(plateau.view(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(np.concatenate(contours))
    outline = np.zeros_like(moved)
    cv2.fillConvexPoly(outline, hull, 1)
    iy, ix = nonzero(inside)
    shift = math.hypot(xs.mean() - ix.mean(), ys.mean() - iy.mean())
    if abs(outline.sum() / inside.sum() - 1.0) > config.die_tray_fit or shift > side:
        return inside
    found: Image = outline > 0
    return found
