"""Calibration: where the board is in the image and what the piece colours look like.

Made once per session (``companion vision calibrate``) from a frame of the set-up table, saved as
JSON, and re-checked cheaply on later frames: only when a board marker seems to have moved is
the homography estimated again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision import homography as hg
from companion.vision.camera_model import estimate_lens
from companion.vision.colour import (
    L_WEIGHT,
    ColourModel,
    Lab,
    is_neutral,
    lab_distance,
    nominal_model,
    sample_lab,
)
from companion.vision.config import DEFAULT_CONFIG, VisionConfig
from companion.vision.errors import VisionError
from companion.vision.layout import Layout, Polygon

FORMAT = 1
Image = npt.NDArray[Any]
FloatArray = npt.NDArray[Any]

EL_GRANDE_COLOURS = ("yellow", "green", "blue", "red", "black")
CAROLUS_CUBES = ("red", "blue", "yellow", "green", "pink")
CASTLE_COLOURS = ("black", "white", "grey")


class CalibrationError(VisionError, ValueError):
    """A calibration file or a set-up frame that cannot give a calibration."""


def piece_colours(game: str) -> tuple[str, ...]:
    """Every colour the reader must tell apart on this game's table."""
    if game == "el-grande":
        return EL_GRANDE_COLOURS
    # Castles are hueless and as grey as the mat: they are read by lightness on the tiles,
    # not by the colour model (see castles.read_castles).
    return CAROLUS_CUBES


@dataclass(frozen=True)
class Calibration:
    """Homography (board mm -> image px), marker corners it came from, and the colour model."""

    layout: str
    game: str
    image_size: tuple[int, int]
    homography: tuple[tuple[float, ...], ...]
    markers: Mapping[int, tuple[tuple[float, float], ...]]
    colours: ColourModel
    lens: hg.Lens | None = None
    sampled: tuple[str, ...] = field(default=())  # colours measured on the table, not nominal
    # Counted pixels of one cube top over the model's, per colour, measured on the set-up frame.
    factors: Mapping[str, float] = field(default_factory=dict)
    # Carolus: where each territory tile and court card lay (board mm, degrees) when calibrated:
    # a frame that does not show a marker is read with the tile where it was.
    movables: Mapping[str, tuple[float, float, float]] = field(default_factory=dict)
    # Carolus: the seats whose court cards the set-up position puts on the table (one per
    # player): a card among them whose marker is not seen is reported, not silently unread.
    courts_in_play: tuple[int, ...] = ()
    # El Grande: the colours the set-up position's players play (none: all five, as in older
    # files or a calibration made without a position); no other colour's grande is looked for.
    players: tuple[str, ...] = ()
    # Which of the colour model's board colours are the board's own print (None: all, as in
    # older files); the others are the table, which the lens bends inside the board's outline
    # (see print_colours).
    board_print: tuple[Lab, ...] | None = None

    def __repr__(self) -> str:
        w, h = self.image_size
        return (
            f"<Calibration {self.layout} {w}x{h} sampled={list(self.sampled)} "
            f"colours={list(self.colours.names)}>"
        )

    @property
    def print_and_table(self) -> tuple[tuple[Lab, ...], tuple[Lab, ...]]:
        """The colour model's board colours split into the board's print and the table's
        (the rest; see :func:`print_colours`). Files without ``board_print``: all print."""
        board = tuple(self.colours.background)
        if self.board_print is None:
            return board, ()
        # (board_print holds some of the background's own values, written alike to JSON.)
        table = tuple(c for c in board if c not in self.board_print)
        return tuple(self.board_print), table

    @property
    def h(self) -> FloatArray:
        return np.array(self.homography, dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "layout": self.layout,
            "game": self.game,
            "image_size": list(self.image_size),
            "homography": [list(r) for r in self.homography],
            "markers": {str(i): [list(p) for p in c] for i, c in self.markers.items()},
            "colours": self.colours.to_json(),
            "lens": None
            if self.lens is None
            else {
                "matrix": [list(r) for r in self.lens.matrix],
                "distortion": list(self.lens.distortion),
            },
            "sampled": list(self.sampled),
            "factors": {c: round(f, 4) for c, f in self.factors.items()},
            "movables": {k: [round(v, 2) for v in pose] for k, pose in self.movables.items()},
            "courts_in_play": list(self.courts_in_play),
            "players": list(self.players),
            **(
                {}
                if self.board_print is None
                else {"board_print": [list(ref) for ref in self.board_print]}
            ),
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: Mapping[str, Any], source: str = "calibration") -> Calibration:
        try:
            if data.get("format") != FORMAT:
                raise CalibrationError(
                    f"{source}: format {data.get('format')!r} is not {FORMAT}; "
                    "calibrate again with `companion vision calibrate`"
                )
            lens = data.get("lens")
            players = data.get("players", [])
            if not isinstance(players, list) or any(p not in EL_GRANDE_COLOURS for p in players):
                raise CalibrationError(
                    f"{source}: players {players!r} is not a list of El Grande colours "
                    f"({', '.join(EL_GRANDE_COLOURS)}); calibrate again with `companion "
                    "vision calibrate`"
                )
            hom = tuple(tuple(float(v) for v in row) for row in data["homography"])
            if len(hom) != 3 or any(len(r) != 3 for r in hom):
                raise CalibrationError(f"{source}: homography must be 3x3")
            size = data["image_size"]
            return cls(
                layout=str(data["layout"]),
                game=str(data["game"]),
                image_size=(int(size[0]), int(size[1])),
                homography=hom,
                markers={
                    int(i): tuple((float(p[0]), float(p[1])) for p in c)
                    for i, c in data["markers"].items()
                },
                colours=ColourModel.from_json(data["colours"]),
                lens=None
                if lens is None
                else hg.Lens(
                    tuple(tuple(float(v) for v in r) for r in lens["matrix"]),
                    tuple(float(v) for v in lens["distortion"]),
                ),
                sampled=tuple(data.get("sampled", ())),
                factors={str(c): float(f) for c, f in dict(data.get("factors", {})).items()},
                movables={
                    str(k): (float(v[0]), float(v[1]), float(v[2]))
                    for k, v in dict(data.get("movables", {})).items()
                },
                courts_in_play=tuple(int(s) for s in data.get("courts_in_play", ())),
                players=tuple(players),
                board_print=None
                if data.get("board_print") is None
                else tuple((float(r[0]), float(r[1]), float(r[2])) for r in data["board_print"]),
            )
        except CalibrationError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CalibrationError(
                f"{source}: not a calibration file ({type(exc).__name__}: {exc}); "
                "make one with `companion vision calibrate`"
            ) from None

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CalibrationError(f"{p}: no such calibration file") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CalibrationError(f"{p}: cannot read calibration file: {exc}") from None
        if not isinstance(data, dict):
            raise CalibrationError(f"{p}: not a calibration file (not a JSON object)")
        return cls.from_json(data, str(p))


def board_marker_corners(layout: Layout) -> dict[int, FloatArray]:
    return {m.id: np.array(m.corners(), dtype=np.float64) for m in layout.board_markers}


def locate_board(
    image: Image,
    layout: Layout,
    lens: hg.Lens | None = None,
    config: VisionConfig = DEFAULT_CONFIG,
    estimate: bool = False,
) -> tuple[FloatArray, dict[int, FloatArray], hg.Lens | None]:
    """Homography, detected markers (all of them, tiles included) and lens model of one frame.

    With ``estimate`` and no lens model given (and ``config.estimate_lens``), the lens's radial
    term is estimated from the board markers (camera_model.py) when it explains their misfit.
    """
    detected = hg.detect_markers(image)
    board = board_marker_corners(layout)
    if lens is None and estimate and config.estimate_lens:
        size = (int(image.shape[1]), int(image.shape[0]))
        lens = estimate_lens(detected, board, size, config)
    h = hg.fit_homography(detected, board, lens)
    return h, detected, lens


def polygon_mask(
    shape: tuple[int, int],
    h: FloatArray,
    poly: Polygon,
    erode: int = 0,
    lens: hg.Lens | None = None,
) -> Image:
    mask: Image = np.zeros(shape, np.uint8)
    pts = hg.project_outline(h, poly.points, lens)
    cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 255)
    if erode:
        mask = cv2.erode(mask, np.ones((2 * erode + 1, 2 * erode + 1), np.uint8))
    return mask


def cube_pixels(calibration: Calibration, layout: Layout) -> tuple[float, float]:
    """The smallest and largest side of a cube in image pixels over the board (its far and
    near corners), so a set-up can be checked against ``VisionConfig.min_cube_px``."""
    bw, bh = layout.board_size
    cube = float(layout.pieces["cube"])
    points = [(0.0, 0.0), (bw, 0.0), (bw, bh), (0.0, bh), (bw / 2, bh / 2)]
    sides = [cube * hg.local_scale(calibration.h, p, calibration.lens) for p in points]
    return min(sides), max(sides)


def small_cube_warning(
    calibration: Calibration, layout: Layout, config: VisionConfig = DEFAULT_CONFIG
) -> str | None:
    """A sentence for the user when cubes are too small for the reader, else None."""
    smallest, _ = cube_pixels(calibration, layout)
    if smallest >= config.min_cube_px:
        return None
    w, h = calibration.image_size
    return (
        f"cubes are only {smallest:.1f} px across at the board's far edge ({w}x{h}); the reader "
        f"needs {config.min_cube_px:g} px or more to count touching cubes: use a higher camera "
        "resolution (e.g. 1920x1080) or bring the camera closer (hardware/camera.md)"
    )


def players_in_play(layout: Layout, setup: Mapping[str, Any]) -> tuple[str, ...]:
    """The El Grande colours a set-up position's players play (positions.md: ``players``,
    colours); none for Carolus, whose cubes of every colour are on the table whoever plays."""
    players = setup.get("players", []) if layout.game == "el-grande" else []
    if not isinstance(players, list):
        return ()
    unknown = [p for p in players if p not in EL_GRANDE_COLOURS]
    if unknown:
        raise CalibrationError(
            f"the set-up position's players {unknown} are not El Grande colours "
            f"({', '.join(EL_GRANDE_COLOURS)}): fix the position file (spec/positions.md)"
        )
    return tuple(players)


def seats_in_play(layout: Layout, setup: Mapping[str, Any]) -> tuple[int, ...]:
    """The Carolus court cards a set-up position's players sit at (seats 1..players); none
    for El Grande."""
    players = setup.get("players", []) if layout.game == "carolus-magnus" else []
    if not isinstance(players, list):
        return ()
    return tuple(c.seat for c in layout.courts if c.seat <= len(players))


def missing_courts(calibration: Calibration, layout: Layout) -> dict[int, str]:
    """Court cards in play whose markers the calibration did not find: seat -> a sentence for
    the user."""
    out = {}
    for seat in calibration.courts_in_play:
        if f"court_{seat}" not in calibration.movables:
            marker = layout.court_marker(seat).id
            out[seat] = (
                f"court card of seat {seat} (marker {marker}) not found in the set-up frame: its "
                "rows are read only once its marker is seen; check that it is in view and "
                "uncovered, or calibrate again"
            )
    return out


def uncalibrated(
    image: Image, layout: Layout, lens: hg.Lens | None = None, config: VisionConfig = DEFAULT_CONFIG
) -> Calibration:
    """A calibration from one frame: markers found now, nominal piece colours, board sampled."""
    h, detected, lens = locate_board(image, layout, lens, config, estimate=True)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab)
    pieces = nominal_model(piece_colours(layout.game))
    mask = board_mask(lab.shape[:2], h, layout, detected, lens)
    bg = board_colours(lab, mask, pieces.pieces, print_share=config.board_print_share)
    model = ColourModel(pieces.pieces, bg, config.reject_distance, config.background_distance)
    made = _make(image, layout, h, detected, model, lens, ())
    return replace(made, board_print=_print_of(lab, mask, bg, made, layout, config))


def _print_of(
    lab: Image,
    mask: Image,
    refs: Sequence[Lab],
    calibration: Calibration,
    layout: Layout,
    config: VisionConfig,
) -> tuple[Lab, ...]:
    """:func:`print_colours` of the board but El Grande's Castillo tower (its brown is no
    print, and may be the table's wood), against a ring config.print_inset cube sides (at
    the board's middle) wide round the board."""
    bw, bh = layout.board_size
    side = float(layout.pieces["cube"]) * hg.local_scale(
        calibration.h, (bw / 2, bh / 2), calibration.lens
    )
    outline = np.zeros(mask.shape, np.uint8)
    corners = hg.project_outline(
        calibration.h, [(0, 0), (bw, 0), (bw, bh), (0, bh)], calibration.lens
    )
    cv2.fillPoly(outline, [np.round(corners).astype(np.int32)], 255)
    board = mask.copy()
    for area in layout.areas_of_kind("castillo"):
        c = np.array(area.polygon.points, np.float64)
        grown = c.mean(axis=0) + (c - c.mean(axis=0)) * 2.6  # (as the hand check leaves it out)
        pts = hg.project_outline(calibration.h, [tuple(p) for p in grown], calibration.lens)
        cv2.fillPoly(board, [np.round(pts).astype(np.int32)], 0)
    inset = max(1, round(config.print_inset * side))
    return print_colours(lab, board, outline, refs, inset, config)


def board_mask(
    shape: tuple[int, int],
    h: FloatArray,
    layout: Layout,
    detected: Mapping[int, FloatArray],
    lens: hg.Lens | None = None,
) -> Image:
    """The board in the image, without its printed markers."""
    bw, bh = layout.board_size
    mask: Image = np.zeros(shape, np.uint8)
    outline = hg.project_outline(h, [(0, 0), (bw, 0), (bw, bh), (0, bh)], lens)
    cv2.fillPoly(mask, [np.round(outline).astype(np.int32)], 255)
    for corners in detected.values():
        c = np.asarray(corners)
        m = c.mean(axis=0)
        cv2.fillConvexPoly(mask, np.round(m + (c - m) * 1.5).astype(np.int32), 0)
    return mask


def print_colours(
    lab: Image,
    mask: Image,
    outline: Image,
    refs: Sequence[Lab],
    inset: int,
    config: VisionConfig = DEFAULT_CONFIG,
) -> tuple[Lab, ...]:
    """Which board colours (``refs``, from :func:`board_colours` over ``mask``) are the board's
    own print, not the table: more of the pixels nearest them (within the background
    distance) lie on the board (``mask``) than in a ring ``inset`` px wide round its
    ``outline`` (the board's projected outline, filled). Without a lens model the outline is
    off by up to a few cube sides where the lens bends the board's edge: the table shows
    inside it, and becomes one of the board's colours; but most of the table lies outside."""
    if not refs:
        return ()
    ring = cv2.dilate(outline, np.ones((2 * inset + 1, 2 * inset + 1), np.uint8)) > 0
    ring &= outline == 0
    on = (mask > 0) | ring
    step = max(1, int(np.count_nonzero(on)) // 60000)
    pixels = lab[on][::step].astype(np.float32)
    board = (mask > 0)[on][::step]
    ref = np.array(refs, np.float32)
    d = np.stack(
        [
            np.sqrt((L_WEIGHT * (pixels[:, 0] - r[0])) ** 2 + ((pixels[:, 1:] - r[1:]) ** 2).sum(1))
            for r in ref
        ]
    )
    nearest = np.where(d.min(axis=0) <= config.background_distance, d.argmin(axis=0), -1)
    out = []
    for i, colour in enumerate(refs):
        mine = nearest == i
        if np.count_nonzero(mine & board) > np.count_nonzero(mine & ~board):
            out.append(colour)
    return tuple(out)


def board_colours(
    lab: Image,
    mask: Image,
    pieces: Mapping[str, tuple[Lab, ...]],
    clusters: int = 16,
    min_share: float = 0.004,
    piece_distance: float = DEFAULT_CONFIG.reject_distance,
    print_share: float = DEFAULT_CONFIG.board_print_share,
) -> tuple[Lab, ...]:
    """The board's own colours: the main colour clusters of the board that are no piece colour.

    The board's print, its sea, its frame, its shaded parts: whatever most of the board looks
    like. Pieces cover little of it, and clusters near a piece colour are left out, unless they
    hold more of the board (``print_share``) than a coloured piece's set-up could: print that
    light (a dark frame's sea) or glare brought near a piece colour.
    """
    pixels = lab[mask > 0].astype(np.float32)
    if pixels.shape[0] < clusters:
        return ()
    step = max(1, pixels.shape[0] // 20000)
    sample = np.ascontiguousarray(pixels[::step])
    sample[:, 0] *= L_WEIGHT
    cv2.setRNGSeed(11)
    start = np.zeros((sample.shape[0], 1), np.int32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
    _, labels, centres = cv2.kmeans(sample, clusters, start, crit, 2, cv2.KMEANS_PP_CENTERS)
    flat = np.asarray(labels).ravel()
    share = np.bincount(flat, minlength=clusters) / flat.size
    refs = []
    for centre, part in zip(centres, share, strict=True):
        if part < min_share:
            continue
        lab_c = (float(centre[0] / L_WEIGHT), float(centre[1]), float(centre[2]))
        near = [
            ref
            for group in pieces.values()
            for ref in group
            if lab_distance(lab_c, ref) < piece_distance
        ]
        coloured = not any(is_neutral(ref) for ref in near)
        if not near or (coloured and part >= print_share):
            refs.append(lab_c)
    return tuple(refs)


def _make(
    image: Image,
    layout: Layout,
    h: FloatArray,
    detected: Mapping[int, FloatArray],
    model: ColourModel,
    lens: hg.Lens | None,
    sampled: tuple[str, ...],
) -> Calibration:
    ids = {m.id for m in layout.board_markers}
    return Calibration(
        layout=layout.name,
        game=layout.game,
        image_size=(int(image.shape[1]), int(image.shape[0])),
        homography=tuple(tuple(float(v) for v in row) for row in h),
        markers={
            i: tuple((float(p[0]), float(p[1])) for p in c) for i, c in detected.items() if i in ids
        },
        colours=model,
        lens=lens,
        sampled=sampled,
    )


def calibrate(
    image: Image,
    layout: Layout,
    setup: Mapping[str, Any] | None = None,
    *,
    lens: hg.Lens | None = None,
    tile_polygons: Mapping[str, Polygon] | None = None,
    config: VisionConfig = DEFAULT_CONFIG,
) -> Calibration:
    """Calibrate from a frame of the set-up table and its position (positions.md).

    Each colour is sampled from cubes at known places: El Grande's home regions (a grande and two
    caballeros of one colour), Carolus Magnus's territories (one cube each; Charlemagne's tile is
    skipped). Colours with no known place keep their nominal value. El Grande's black is also
    sampled from its player's court, taken when far darker than the home's (glare).
    """
    base = uncalibrated(image, layout, lens, config)
    lens = base.lens  # (estimated from the markers if none was given)
    if layout.game == "carolus-magnus":
        from companion.vision.geometry import locate_movables

        tiles, courts = locate_movables(image, base, layout)
        movables = {t: (p.x, p.y, p.angle) for t, p in tiles.items()}
        movables.update({f"court_{s}": (p.x, p.y, p.angle) for s, p in courts.items()})
        base = replace(base, movables=movables)
        if tile_polygons is None:
            tile_polygons = {t: layout.tile_polygon(t, p) for t, p in tiles.items()}
    if setup is None:
        return base
    h = base.h
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab)
    places = _sample_places(layout, setup, tile_polygons)
    bg = base.colours.background
    refs: dict[str, list[Lab]] = {}
    pieces = dict(base.colours.pieces)
    reach = round(config.sample_reach * cube_pixels(base, layout)[1])

    def sample(colour: str, poly: Polygon) -> Lab | None:
        nominal = base.colours.pieces[colour][0]
        # Well inside the outline: the printed border and the region's name are no pieces.
        mask = polygon_mask(lab.shape[:2], h, poly, erode=4, lens=lens)
        fg = _foreground(lab, mask, config)
        outline = polygon_mask(lab.shape[:2], h, poly, lens=lens)
        hued = _of_hue(lab, outline, nominal, config)
        if hued is None:
            # A cube at the area's edge shows its top off its foot, away from under the
            # camera: over the edge (Carolus set-ups, hard seed 26: two of three pink cubes'
            # tops on the mat, and the mat's grey became "pink"). Looked for a reach round it.
            grown = cv2.dilate(outline, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
            hued = _of_hue(lab, grown, nominal, config)
        if hued is not None:
            fg = hued
        return _nearest_cluster(lab, fg, nominal, k=4, config=config)

    for colour, poly in places:
        if colour in pieces and (ref := sample(colour, poly)) is not None:
            refs.setdefault(colour, []).append(ref)
    for colour, samples in refs.items():
        med = np.median(np.array(samples), axis=0)
        pieces[colour] = ((float(med[0]), float(med[1]), float(med[2])),)
    # A hueless colour is read by its lightness, which a lamp's glare over its home region
    # lifts (hard El Grande seeds 135, 305, 320: black sampled at 75-97 where the game's black
    # tops lie at 17-40): its court's cubes, sampled too, replace that sample when they are
    # far darker.
    for colour, poly in _court_places(layout, setup):
        if colour not in refs or not is_neutral(home := pieces[colour][0]):
            continue
        court = sample(colour, poly)
        if court is not None and home[0] - court[0] > config.sample_glare_lightness:
            pieces[colour] = (court,)
    # The board's colours again, now keeping well clear of the colours as this light shows
    # them (a cluster of shaded cubes must not become "board").
    detected = {i: np.array(c) for i, c in base.markers.items()}
    mask = board_mask(lab.shape[:2], h, layout, detected, lens)
    bg = board_colours(
        lab,
        mask,
        pieces,
        piece_distance=config.reject_distance * 0.8,
        print_share=config.board_print_share,
    )
    model = ColourModel(pieces, bg, config.reject_distance, config.background_distance)
    made = replace(
        _make(image, layout, h, detected, model, lens, tuple(sorted(refs))),
        movables=base.movables,
        courts_in_play=seats_in_play(layout, setup),
        players=players_in_play(layout, setup),
    )
    made = replace(made, board_print=_print_of(lab, mask, bg, made, layout, config))
    # How big one cube top reads in each colour, measured where the set-up spreads them out.
    from companion.vision.pipeline import Reader

    with Reader(made, layout, config) as reader:
        reader.read(image)
        factors = dict(reader.last_factors)
    return replace(made, factors=factors)


def _nearest_cluster(
    lab: Image, fg: Image, nominal: Lab, k: int = 3, config: VisionConfig = DEFAULT_CONFIG
) -> Lab | None:
    """The colour of a piece among an area's foreground: of the main colour clusters there
    (the piece's lit top, its shaded sides, shadows), the one nearest its nominal colour."""
    pixels = lab[fg > 0].astype(np.float32)
    if pixels.shape[0] < 3 * k:
        return None  # no piece to be seen there: keep the nominal colour
    weighted = np.ascontiguousarray(pixels * np.array([L_WEIGHT, 1, 1], np.float32))
    cv2.setRNGSeed(5)
    start = np.zeros((weighted.shape[0], 1), np.int32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    _, labels, centres = cv2.kmeans(weighted, k, start, crit, 3, cv2.KMEANS_PP_CENTERS)
    flat = np.asarray(labels).ravel()
    sizes = np.bincount(flat, minlength=k)
    # Light may shift every colour; the hue survives: pick the cluster whose hue is the
    # nominal's (and most saturated), or for black/white/grey the nearest in lightness.
    nom_ab = np.array([nominal[1] - 128.0, nominal[2] - 128.0])
    nom_chroma = float(np.hypot(*nom_ab))
    best, best_d = -1, np.inf
    # The pale print of a region of the same hue is no piece: of the clusters of the hue, only
    # those nearly as saturated as the most saturated one are faces of the piece.
    chromas = [float(np.hypot(c[1] - 128.0, c[2] - 128.0)) for c in np.asarray(centres)]
    top_chroma = max(
        (ch for ch, size in zip(chromas, sizes, strict=True) if size >= 0.12 * flat.size),
        default=0.0,
    )
    for i, c in enumerate(np.asarray(centres)):
        if sizes[i] < 0.12 * flat.size:
            continue  # an edge or a glint, not a face
        if nom_chroma >= 12.0 and chromas[i] < config.sample_chroma_share * top_chroma:
            continue
        ab = np.array([c[1] - 128.0, c[2] - 128.0])
        chroma = float(np.hypot(*ab))
        if nom_chroma >= 12.0:
            cos = float(ab @ nom_ab) / max(1e-6, chroma * nom_chroma)
            if cos < 0.75 or chroma < 8.0:
                continue
            # Of the faces of that hue the top is the brightest (the light comes from above).
            d = -float(c[0])
        else:
            d = abs(float(c[0]) / L_WEIGHT - nominal[0]) * 0.5 + chroma
        if d < best_d:
            best, best_d = i, d
    if best < 0:
        return None
    med = np.median(pixels[flat == best], axis=0)
    return (float(med[0]), float(med[1]), float(med[2]))


def _of_hue(lab: Image, mask: Image, nominal: Lab, config: VisionConfig) -> Image | None:
    """Pixels of an area with a piece colour's hue and clearly more saturated than the area's
    own print: where a coloured piece stands, even when its lightness is the print's (a yellow
    cube on a yellow region in dim light). None for hueless colours or when too few are found."""
    nom_ab = np.array([nominal[1] - 128.0, nominal[2] - 128.0], np.float32)
    nom_chroma = float(np.hypot(*nom_ab))
    if nom_chroma < 12.0 or not mask.any():
        return None
    a = lab[..., 1].astype(np.float32) - 128.0
    b = lab[..., 2].astype(np.float32) - 128.0
    chroma = np.hypot(a, b)
    own = float(np.median(chroma[mask > 0]))
    cos = (a * nom_ab[0] + b * nom_ab[1]) / np.maximum(1e-3, chroma * nom_chroma)
    hued = (mask > 0) & (cos >= 0.8) & (chroma >= max(12.0, own + config.sample_chroma_margin))
    out: Image = cv2.erode(hued.astype(np.uint8) * 255, np.ones((2, 2), np.uint8))
    return out if np.count_nonzero(out) >= 12 else None


def _foreground(lab: Image, mask: Image, config: VisionConfig) -> Image:
    """Pixels of an area unlike the area's own print (its median: pieces cover little of it),
    shrunk to the pieces' cores. Shadows are the print, darker: lightness weighs half."""
    own = sample_lab(lab, mask)
    if own is None:
        return np.zeros_like(mask)
    pix = lab.astype(np.float32)
    d = np.sqrt(
        (L_WEIGHT * (pix[..., 0] - own[0])) ** 2
        + (pix[..., 1] - own[1]) ** 2
        + (pix[..., 2] - own[2]) ** 2
    )
    fg = ((mask > 0) & (d > config.background_distance * 1.4)).astype(np.uint8) * 255
    # Edges and shaded sides blur into the board; the cores hold the true colour.
    core: Image = cv2.erode(fg, np.ones((3, 3), np.uint8))
    return core if core.any() else fg


def _sample_places(
    layout: Layout, setup: Mapping[str, Any], tile_polygons: Mapping[str, Polygon] | None
) -> list[tuple[str, Polygon]]:
    game = setup.get("game")
    if game != layout.game:
        raise CalibrationError(
            f"the set-up position is for {game!r} but the layout {layout.name!r} is for "
            f"{layout.game!r}; give a position of the same game"
        )
    places: list[tuple[str, Polygon]] = []
    if game == "el-grande":
        for colour, region in dict(setup.get("grandes", {})).items():
            if region and region in {a.id for a in layout.areas}:
                places.append((colour, layout.polygon(region)))
        return places
    if tile_polygons is None:
        raise CalibrationError("Carolus Magnus calibration needs the territory tiles' places")
    skip = setup.get("charlemagne")
    for terr in setup.get("ring", []):
        knights = {c: n for c, n in dict(terr.get("knights", {})).items() if n}
        if terr["id"] == skip or len(knights) != 1 or terr["id"] not in tile_polygons:
            continue
        places.append((next(iter(knights)), tile_polygons[terr["id"]]))
    return places


def _court_places(layout: Layout, setup: Mapping[str, Any]) -> list[tuple[str, Polygon]]:
    """El Grande: each player's court zone (seats in the set-up's ``players`` order) where the
    set-up has cubes there (``courts``, else the rules' seven each); none for Carolus."""
    courts = setup.get("courts")
    places = []
    seats = {a.seat for a in layout.areas_of_kind("court")}
    for seat, colour in enumerate(players_in_play(layout, setup), start=1):
        held = courts.get(colour, 0) if isinstance(courts, Mapping) else 7
        if held and seat in seats:
            places.append((colour, layout.seat_area("court", seat).polygon))
    return places


def markers_moved(
    image: Image, calibration: Calibration, config: VisionConfig = DEFAULT_CONFIG
) -> bool:
    """Whether any board marker is missing or has moved from where the calibration saw it.

    Only a small window round each marker is searched, so this is cheap enough for every still
    frame.
    """
    h_img, w_img = image.shape[:2]
    if (w_img, h_img) != calibration.image_size:
        return True
    tol_px = config.marker_tolerance_mm * hg.local_scale(calibration.h, (0.0, 0.0))
    for marker_id, corners in calibration.markers.items():
        c = np.array(corners)
        x0, y0 = np.floor(c.min(axis=0)).astype(int)
        x1, y1 = np.ceil(c.max(axis=0)).astype(int)
        pad = max(8, (x1 - x0) // 2)
        x0, y0 = max(0, x0 - pad), max(0, y0 - pad)
        x1, y1 = min(w_img, x1 + pad), min(h_img, y1 + pad)
        found = hg.detect_markers(image[y0:y1, x0:x1])
        if marker_id not in found:
            return True
        moved = np.abs(found[marker_id] + (x0, y0) - c).max()
        if moved > max(tol_px, 1.5):
            return True
    return False


def refreshed(
    image: Image, calibration: Calibration, layout: Layout, config: VisionConfig = DEFAULT_CONFIG
) -> Calibration:
    """The calibration, with a new homography if the markers moved (everything else is
    kept: the colours, the cubes' factors, the tiles' places on the board, the players).

    A frame of another size is the camera at another resolution: the homography is found
    again, and a lens model scaled to it when the frame keeps the calibration's shape (the
    same view of the sensor). A frame of another shape with a lens model is refused
    (:class:`CalibrationError`): a camera crops its sensor differently for another aspect
    ratio, and the lens's centre and focal length in pixels are then unknown."""
    if not markers_moved(image, calibration, config):
        return calibration
    lens = calibration.lens
    h_img, w_img = image.shape[:2]
    w_cal, h_cal = calibration.image_size
    if lens is not None and (w_img, h_img) != (w_cal, h_cal):
        if abs(w_img / h_img - w_cal / h_cal) > _ASPECT_SLACK * w_cal / h_cal:
            raise CalibrationError(
                f"frame is {w_img}x{h_img} but the calibration, with its lens model, was made "
                f"at {w_cal}x{h_cal}: another aspect ratio is another crop of the camera's "
                "sensor; use the calibration's resolution or calibrate again at this one"
            )
        lens = lens.scaled(w_img / w_cal, h_img / h_cal)
    h, detected, _ = locate_board(image, layout, lens)
    fresh = _make(image, layout, h, detected, calibration.colours, lens, ())
    return replace(
        calibration,
        image_size=fresh.image_size,
        homography=fresh.homography,
        markers=fresh.markers,
        lens=lens,
    )


# How far (a share) a frame's aspect ratio may differ from the calibration's and still be the
# same view of the sensor (1280x720 and 1920x1080 are 16:9; 854x480 is 0.1 % off).
_ASPECT_SLACK = 0.01
