"""The pieces' surroundings cut out of the working image and packed side by side.

Pieces cover a few per cent of the board, and every stage after the labels and the hand check
(colour fringes, masks, figures, cube blobs) looks only a few pixels round each piece. So the
pieces are grouped (pixels nearer each other than twice a margin wider than any of those looks),
each group is cut out with that margin, and the cut-outs are packed into one small image with
the other groups' pixels cleared: the stages run on a fraction of the frame and find what they
would find on the whole of it. ``index`` maps every packed pixel back.

One difference: beyond the working image's edge lies background (the working image holds the
whole board), where OpenCV's morphology would take a mask at the image's edge to go on.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.masks import pack_boxes

Image = npt.NDArray[Any]


@dataclass(frozen=True)
class Mosaic:
    labels: Image  # the working image's labels, other groups' pixels and the gaps BACKGROUND
    image: Image  # its pixels, BGR and a fourth byte (anything in the gaps)
    index: Image  # flat index (y * width + x) in the working image; -1 in the gaps
    width: int  # of the working image
    inside: Image  # 255 where a working-image pixel, 0 in the gaps and beyond its edges

    def gather(self, array: Image) -> Image:
        """A working-image array (H x W) laid out as the mosaic (anything in the gaps)."""
        out: Image = np.take(array, self.index)
        return out

    def packed(self) -> Image:
        """Its pixels as colour.pack_bgr gives them (the fourth byte masked off)."""
        out: Image = self.image.view("<u4")[..., 0] & 0xFFFFFF
        return out

    def to_work(self, x: float, y: float) -> tuple[float, float]:
        """Working-image coordinates of a point of the mosaic (inside a cut-out)."""
        ix, iy = int(x), int(y)
        at = int(self.index[iy, ix])
        return x + (at % self.width - ix), y + (at // self.width - iy)


@lru_cache(maxsize=4)
def _raster(height: int, width: int) -> Image:
    """Flat index of every pixel of an image of that size (read-only, shared)."""
    out = np.arange(height * width, dtype=np.intp).reshape(height, width)
    out.flags.writeable = False
    return out


def cut(labels: Image, packed: Image, pieces: int, margin: int) -> Mosaic:
    """The mosaic of the pixels labelled 1..``pieces`` with at least ``margin`` pixels round
    them; ``packed``: the working image's pixels as colour.pack_bgr gives them.

    Pixels of two groups lie more than twice the margin apart, so anything that looks at most
    ``margin`` pixels away sees the same in the mosaic. The groups are found on 2x2 cells (a
    cell holds a piece if any of its pixels does): a quarter of the work.
    """
    h, w = labels.shape
    found = cv2.dilate(cv2.inRange(labels, 1, pieces), np.ones((2, 2), np.uint8), anchor=(0, 0))
    cells = np.ascontiguousarray(found[::2, ::2])
    reach = (margin + 1) // 2  # cells: at least ``margin`` pixels
    near = cv2.dilate(cells, np.ones((2 * reach + 1,) * 2, np.uint8))
    _, groups = cv2.connectedComponents(near, connectivity=8)
    # Every group's outer outline, those inside another group's hole too (a piece within a
    # region whose printed border reads as a piece colour): the two-level hierarchy puts
    # every outer outline at its top level, holes below.
    contours, hierarchy = cv2.findContours(near, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    # (Rows of next, previous, first child, parent; None when there are no contours.)
    parents = [] if hierarchy is None else hierarchy.reshape(-1, 4)[:, 3].tolist()
    outer = [c for c, parent in zip(contours, parents, strict=True) if parent < 0]
    boxes = []
    for contour in outer:
        x, y, bw, bh = cv2.boundingRect(contour)
        px, py = contour[0, 0]
        x, y, x1, y1 = 2 * x, 2 * y, min(w, 2 * (x + bw)), min(h, 2 * (y + bh))
        # Where a group reaches the image's edge, its cut-out gets its margin beyond the edge.
        grow = (margin * (x == 0), margin * (y == 0), margin * (x1 == w), margin * (y1 == h))
        boxes.append((int(groups[py, px]), x, y, x1 - x, y1 - y, grow))
    sizes = np.array([(b[3] + b[5][0] + b[5][2], b[4] + b[5][1] + b[5][3]) for b in boxes])
    xs, ys, size = pack_boxes(*sizes.reshape(-1, 2).T)
    places = zip(xs.tolist(), ys.tolist(), strict=True)
    index = np.full((size[1], size[0]), -1, np.intp)
    owner = np.zeros((size[1], size[0]), np.int32)
    # Each pixel's 2x2 cell, copied box by box as the indices are (in the gaps: cell 0, whose
    # group does not matter there): one gather of the groups, not two.
    cell = np.zeros((size[1], size[0]), np.intp)
    raster, cells_of = _raster(h, w), _cells(h, w)
    for (group, x, y, bw, bh, grow), (ox, oy) in zip(boxes, places, strict=True):
        ox, oy = ox + grow[0], oy + grow[1]
        index[oy : oy + bh, ox : ox + bw] = raster[y : y + bh, x : x + bw]
        cell[oy : oy + bh, ox : ox + bw] = cells_of[y : y + bh, x : x + bw]
        owner[oy : oy + bh, ox : ox + bw] = group
    # A cut-out's box may hold another group's pixels: they are that group's business.
    seen = np.take(groups, cell)
    index[(seen != owner) & (seen != 0)] = -1
    inside = (index >= 0).view(np.uint8) * np.uint8(255)
    # (colour.BACKGROUND is 0: the gaps' labels cleared by an and with the inside mask.)
    mosaic_labels = cv2.bitwise_and(np.take(labels, index), inside)
    pixels = np.take(packed, index).view(np.uint8).reshape(size[1], size[0], 4)
    return Mosaic(mosaic_labels, pixels, index, w, inside)


@lru_cache(maxsize=4)
def _cells(height: int, width: int) -> Image:
    """The flat index of each pixel's 2x2 cell in the image of cells (read-only, shared)."""
    ys, xs = np.mgrid[0:height, 0:width]
    out = ((ys // 2) * ((width + 1) // 2) + xs // 2).astype(np.intp)
    out.flags.writeable = False
    return out
