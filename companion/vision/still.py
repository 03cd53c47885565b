"""The still-scene gate: only frames taken while nothing moves are ever read.

Motion is measured on small grey thumbnails, so the gate costs well under a millisecond per
frame. An observation is read from the per-pixel median of a few consecutive still frames, which
also removes a single-frame flicker or a passing shadow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.config import DEFAULT_CONFIG, VisionConfig

Image = npt.NDArray[Any]
THUMB_WIDTH = 160


def thumbnail(frame: Image) -> Image:
    """Small grey copy of a frame, the unit of motion measurement."""
    h, w = frame.shape[:2]
    size = (THUMB_WIDTH, max(1, round(h * THUMB_WIDTH / w)))
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    small: Image = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
    return small


def motion_share(a: Image, b: Image, config: VisionConfig = DEFAULT_CONFIG) -> float:
    """Share of thumbnail pixels that changed by more than the configured delta."""
    if a.shape != b.shape:
        return 1.0
    diff = cv2.absdiff(a, b)
    return float(np.count_nonzero(diff > config.motion_pixel_delta)) / diff.size


def is_moving(a: Image, b: Image, config: VisionConfig = DEFAULT_CONFIG) -> bool:
    return motion_share(a, b, config) > config.motion_pixel_share


def median_frame(frames: Sequence[Image]) -> Image:
    """Per-pixel median of frames of one size (three frames: a min/max network, no sort)."""
    if not frames:
        raise ValueError("median of no frames")
    if len(frames) == 1:
        return frames[0]
    if len(frames) == 3:
        a, b, c = frames
        lo = cv2.min(a, b)
        hi = cv2.max(a, b)
        out: Image = cv2.max(lo, cv2.min(hi, c))
        return out
    stack = np.stack(frames)
    med: Image = np.median(stack, axis=0).astype(np.uint8)
    return med


@dataclass(frozen=True)
class GateState:
    """What the gate says after one frame: moving now, still for how long, frames to read."""

    moving: bool
    still_for: int
    ready: tuple[Image, ...] | None = None

    def __repr__(self) -> str:
        state = "moving" if self.moving else f"still x{self.still_for}"
        return f"<GateState {state}{' ready' if self.ready else ''}>"


class StillGate:
    """Feed frames in order; once per still period it hands back the frames to read.

    A period ends with motion; the next observation comes only after the scene has been still
    for ``config.still_frames`` frames again, so a hand that rests on the board for a moment
    yields nothing new until it leaves (and the hand check in the reader catches a resting
    hand).
    """

    def __init__(self, config: VisionConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        self._last: Image | None = None
        self._run: list[Image] = []
        self._sent = False

    def push(self, frame: Image) -> GateState:
        thumb = thumbnail(frame)
        moving = self._last is not None and is_moving(self._last, thumb, self.config)
        self._last = thumb
        if moving:
            self._run = [frame]
            self._sent = False
            return GateState(moving=True, still_for=0)
        self._run.append(frame)
        self._run = self._run[-self.config.still_frames :]
        still_for = len(self._run)
        if still_for >= self.config.still_frames and not self._sent:
            self._sent = True
            return GateState(moving=False, still_for=still_for, ready=tuple(self._run))
        return GateState(moving=False, still_for=still_for)

    def reset(self) -> None:
        self._last = None
        self._run = []
        self._sent = False
