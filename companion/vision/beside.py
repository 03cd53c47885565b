"""Carolus's stages beside the main chain (the dice, the castles) and what they keep between
frames: where the dice tray was found, the tiles as the castle search sees them.

The same object serves a Reader on its own threads and, for a stream, on its side process
(side.py): the stages' state lives wherever they run.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy.typing as npt

from companion.vision.castles import TileView, read_castles
from companion.vision.config import VisionConfig
from companion.vision.dice import Dice, dice_again
from companion.vision.dice_tray import KnownTray
from companion.vision.geometry import Geometry, place_of
from companion.vision.layout import Layout

Image = npt.NDArray[Any]


class Beside:
    """The dice and castles of one table's frames, for the geometry last set."""

    def __init__(self, layout: Layout, config: VisionConfig) -> None:
        self.layout = layout
        self.config = config
        self.geo: Geometry | None = None
        self.tiles: TileView | None = None
        # Where the dice tray was found (per geometry: it moves only with the camera).
        self.tray: KnownTray | None = None

    def set_geometry(self, geo: Geometry) -> None:
        self.geo = geo
        self.tiles = TileView.of(geo, self.layout, self.config)
        self.tray = None

    def dice(self, frame: Image) -> Dice:
        assert self.geo is not None, "set_geometry first"
        dice, self.tray = dice_again(frame, self.geo, self.layout, self.config, self.tray)
        return dice

    def castles(self, small: Image, labels: Image) -> dict[str, str]:
        """The castles on the working image ``small`` (labels: the colour model's)."""
        geo = self.geo
        assert geo is not None, "set_geometry first"
        place_at = functools.partial(place_of, geo)
        return read_castles(small, self.tiles, geo, place_at, self.layout, self.config, labels)

    def run(self, stage: str, *args: Any) -> Any:
        """A stage by name (the side process's requests)."""
        if stage not in ("dice", "castles"):
            raise ValueError(f"no stage {stage!r} beside the main chain")
        return getattr(self, stage)(*args)
