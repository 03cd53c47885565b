"""How the synthetic camera sees the table: one frozen value of knobs, and two presets.

Ranges are sampled per image from the seed, so one ``Conditions`` value describes a family of
pictures (``EASY`` for a well-mounted camera in good light, ``HARD`` for a tilted phone on a
tripod under a desk lamp).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from companion.vision.errors import RenderError

Range = tuple[float, float]


@dataclass(frozen=True)
class Conditions:
    """Camera, light and piece-placement knobs of the synthetic table."""

    width: int = 1280
    height: int = 720
    # camera pose
    tilt: Range = (0.0, 4.0)  # degrees off vertical
    roll: Range = (-4.0, 4.0)  # degrees the image is turned about the optical axis
    distance: Range = (700.0, 800.0)  # mm from the camera to the board centre
    fill: Range = (0.86, 0.92)  # fraction of the image the table's outline spans
    # lens: radial distortion coefficients
    k1: Range = (-0.03, 0.03)
    k2: Range = (-0.005, 0.005)
    # light
    light_gradient: Range = (0.0, 0.08)  # strength of a smooth brightness ramp (0 = flat)
    vignette: Range = (0.0, 0.08)  # darkening towards the image corners
    white_balance: Range = (0.0, 0.03)  # largest per-channel gain error
    exposure: Range = (0.97, 1.03)
    piece_shadows: float = 0.25  # how dark the pieces' own shadows are (0 = none)
    cast_shadow: Range = (0.0, 0.0)  # a soft shadow of an arm/lamp across the table (darkness)
    glare: Range = (0.0, 0.0)  # a lamp's reflection on the glossy board (added brightness 0..1)
    # sensor
    noise: Range = (1.0, 2.0)  # Gaussian noise sigma in grey levels
    blur: Range = (0.0, 0.5)  # Gaussian blur sigma in pixels
    jpeg_quality: int | None = 95  # None: no compression
    # pieces
    jitter: float = 1.5  # mm of random offset of placed things from their tidy spot
    touching: float = 0.3  # probability that a cube is pushed against the previous one
    # probability that a cube is put on top of the previous cube of its colour in its area
    # (issue #4: stacked cubes); 0 draws no random number, so renders stay as they were
    stacked: float = 0.0
    # probability that a cube standing on the board leans 15-35° across one of its edges
    # (issue #4: tilted cubes; Piece.lean), where there is room; 0 draws no random number
    tilted: float = 0.0

    def __post_init__(self) -> None:
        if not (64 <= self.width <= 4096 and 64 <= self.height <= 4096):
            raise RenderError(f"image size {self.width}×{self.height}: use 64..4096 pixels a side")
        for name in ("tilt", "roll", "distance", "fill", "k1", "k2", "light_gradient"):
            lo, hi = getattr(self, name)
            if lo > hi:
                raise RenderError(f"conditions.{name}: low end {lo} is above high end {hi}")
        if not 0.2 <= self.fill[0] <= self.fill[1] <= 1.0:
            raise RenderError(f"conditions.fill {self.fill}: use fractions in 0.2..1.0")
        if self.tilt[1] > 35:
            raise RenderError(f"conditions.tilt {self.tilt}: more than 35° is not overhead")
        if not 0.0 <= self.stacked <= 1.0:
            raise RenderError(f"conditions.stacked {self.stacked}: a probability, use 0..1")
        if not 0.0 <= self.tilted <= 1.0:
            raise RenderError(f"conditions.tilted {self.tilted}: a probability, use 0..1")
        if self.jpeg_quality is not None and not 5 <= self.jpeg_quality <= 100:
            raise RenderError(f"conditions.jpeg_quality {self.jpeg_quality}: use 5..100 or None")

    def with_size(self, width: int, height: int) -> Conditions:
        return replace(self, width=width, height=height)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


EASY = Conditions()

# At 1920x1080 every cube of the hard set is 8 px or more across (the reader's documented
# minimum, see hardware/camera.md); at 1280x720 a far camera would make Carolus cubes 5 px.
HARD = Conditions(
    width=1920,
    height=1080,
    tilt=(6.0, 18.0),
    roll=(-30.0, 30.0),
    distance=(600.0, 900.0),
    fill=(0.8, 0.95),
    k1=(-0.22, 0.08),
    k2=(-0.04, 0.04),
    light_gradient=(0.15, 0.4),
    vignette=(0.1, 0.3),
    white_balance=(0.05, 0.14),
    exposure=(0.75, 1.2),
    piece_shadows=0.45,
    cast_shadow=(0.15, 0.35),
    glare=(0.0, 0.35),
    noise=(3.0, 7.0),
    blur=(0.6, 1.4),
    jpeg_quality=70,
    jitter=3.0,
    touching=0.6,
)

PRESETS = {"easy": EASY, "hard": HARD}
