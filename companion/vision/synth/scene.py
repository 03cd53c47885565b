"""From a position (``spec/positions.md``) to a scene: where every piece lies, in board mm.

The scene is the renderer's ground truth before any camera: each small cube, big piece, die and
movable tile with its area. Placement is random but reproducible from the generator it is given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from companion.games.carolus.moves import COLOURS as CAROLUS_COLOURS
from companion.games.carolus.position import from_position
from companion.games.carolus.state import State as CarolusPosition
from companion.games.elgrande.board import CASTILLO, MOBILE_SCOREBOARDS, REGIONS
from companion.games.elgrande.position import Position as ElGrandePosition
from companion.games.elgrande.position import position_from_json
from companion.games.errors import PositionError
from companion.vision.errors import RenderError
from companion.vision.layout import Layout, Polygon, Pose
from companion.vision.synth.conditions import Conditions

DIE_FACES = (*CAROLUS_COLOURS, "crown")


@dataclass(frozen=True)
class Piece:
    """One thing standing on the table: a box (cube, grande, castle, die, tower) or a pawn."""

    kind: str  # cube | grande | king | charlemagne | castle | die | tower
    colour: str
    area: str
    x: float
    y: float
    angle: float  # degrees
    size: float  # side (boxes) or base diameter (pawns), mm
    height: float
    faces: tuple[str, ...] = ()  # dice: top face first, then the four sides
    lift: float = 0.0  # mm its foot stands above the board (a cube put on another cube)
    # Degrees a box leans (issue #4: tilted cubes), about its own bottom edge on the side
    # ``angle`` points to (its local +x side): that edge stays on the board, the opposite
    # bottom edge is raised and the top tips over towards ``angle``. (What holds the raised
    # side up, a neighbour's foot or the board's edge, is not drawn.)
    lean: float = 0.0

    @property
    def is_pawn(self) -> bool:
        return self.kind in ("king", "charlemagne")


@dataclass(frozen=True)
class Flat:
    """Something lying flat that is painted on the table: a tile, a court card, a scoreboard."""

    kind: str  # tile | court_card | scoreboard
    id: str
    pose: Pose
    marker: int | None = None
    label: str = ""


@dataclass
class Scene:
    game: str
    players: tuple[str, ...]
    pieces: list[Piece] = field(default_factory=list)
    flats: list[Flat] = field(default_factory=list)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    hidden: dict[str, str] = field(default_factory=dict)
    scoreboards: dict[str, list[int]] = field(default_factory=dict)
    resting_scoreboards: list[list[int]] = field(default_factory=list)
    tile_areas: dict[str, Polygon] = field(default_factory=dict)  # Carolus: placed tiles
    court_rows: dict[str, Polygon] = field(default_factory=dict)  # Carolus: "court_1.red" → row
    regions: list[list[str]] = field(default_factory=list)

    def add_count(self, area: str, colour: str, n: int) -> None:
        if n:
            self.counts.setdefault(area, {})
            self.counts[area][colour] = self.counts[area].get(colour, 0) + n


# --- the position, as the rules engines read it ---------------------------------------------------
def read_position(position: Mapping[str, Any]) -> ElGrandePosition | CarolusPosition:
    """The position read and checked by its game's engine (``spec/positions.md`` is theirs).

    The renderer has no position rules of its own: what the engine refuses, it refuses, with the
    engine's path and problem (``regions.galicia.red: -1 is not a count``) as a RenderError.
    """
    try:
        if position.get("game") == "el-grande":
            return position_from_json(position)
        return from_position(position).state
    except PositionError as exc:
        raise RenderError(str(exc)) from exc


# --- placement ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Box:
    x: float
    y: float
    half: float
    angle: float  # radians

    def corners(self) -> list[tuple[float, float]]:
        c, s = math.cos(self.angle), math.sin(self.angle)
        h = self.half
        return [
            (self.x + c * dx - s * dy, self.y + s * dx + c * dy)
            for dx, dy in ((-h, -h), (h, -h), (h, h), (-h, h))
        ]

    def overlaps(self, other: _Box, gap: float) -> bool:
        reach = (self.half + other.half) * math.sqrt(2) + gap
        if math.hypot(self.x - other.x, self.y - other.y) >= reach:
            return False
        # Separating axes of two squares (grown by half the gap each).
        a, b = (
            _Box(self.x, self.y, self.half + gap / 2, self.angle),
            _Box(other.x, other.y, other.half + gap / 2, other.angle),
        )
        ca, cb = a.corners(), b.corners()
        for box in (a, b):
            for axis in (box.angle, box.angle + math.pi / 2):
                ux, uy = math.cos(axis), math.sin(axis)
                pa = [x * ux + y * uy for x, y in ca]
                pb = [x * ux + y * uy for x, y in cb]
                if max(pa) <= min(pb) or max(pb) <= min(pa):
                    return False
        return True


class Placer:
    """Puts square footprints into an area without overlaps, some pushed against each other."""

    def __init__(
        self,
        polygon: Polygon,
        rng: np.random.Generator,
        conditions: Conditions,
        grid_angle: float = 0.0,
    ) -> None:
        self.polygon = polygon
        self.grid_angle = grid_angle  # radians: how tight rows lie when the area is crowded
        self.rng = rng
        self.conditions = conditions
        self.boxes: list[_Box] = []
        self.cubes: list[_Box] = []
        self.dense = False

    def expect(self, cubes: int, size: float) -> None:
        """Announce how many cubes will come: a crowded area is filled in tidy rows instead."""
        free = self.polygon.area - sum((2 * b.half) ** 2 for b in self.boxes)
        self.dense = cubes * (size * 1.15) ** 2 > 0.3 * free

    def block(self, x: float, y: float, size: float, angle: float = 0.0) -> None:
        """Keep a square free (a marker, a label)."""
        self.boxes.append(_Box(x, y, size / 2, angle))

    def _fits(self, box: _Box, gap: float, skip: _Box | None = None) -> bool:
        for x, y in box.corners():
            if not self.polygon.contains((x, y)) or self.polygon.distance((x, y)) < 0.8:
                return False
        return not any(b is not skip and box.overlaps(b, gap) for b in self.boxes)

    def claim(self, box: _Box, skip: _Box | None = None) -> bool:
        """Keep ``box`` free for what is placed after, if it fits in the area clear of what is
        there (but ``skip``); whether it did."""
        if not self._fits(box, 0.0, skip=skip):
            return False
        self.boxes.append(box)
        return True

    def place(
        self,
        size: float,
        *,
        touching: bool = True,
        what: str = "piece",
    ) -> tuple[float, float, float]:
        """A free spot ``(x, y, angle°)`` for a square footprint of side ``size``."""
        rng = self.rng
        if touching and not self.dense and self.cubes and rng.random() < self.conditions.touching:
            for _ in range(12):
                base = self.cubes[int(rng.integers(len(self.cubes)))]
                if abs(base.half * 2 - size) > 0.1:
                    continue
                side = rng.integers(4) * math.pi / 2 + base.angle
                d = size * rng.uniform(1.0, 1.04)
                box = _Box(
                    base.x + d * math.cos(side),
                    base.y + d * math.sin(side),
                    size / 2,
                    base.angle + rng.normal(0, 0.03),
                )
                if self._fits(box, 0.0, skip=base) and not box.overlaps(base, -0.3 * size):
                    return self._take(box, cube=True)
        x0, y0, x1, y1 = self.polygon.bbox
        for _ in range(0 if self.dense and touching else 600):
            x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
            box = _Box(x, y, size / 2, rng.uniform(0, math.pi / 2))
            if self._fits(box, 1.0):
                return self._take(box, cube=touching)
        # A crowded area: players then push cubes into tight rows. Try a lattice (turned like the
        # area, e.g. a tile) from the middle outwards.
        cx, cy = self.polygon.centroid
        c, s = math.cos(self.grid_angle), math.sin(self.grid_angle)
        pitch = size * 1.03
        reach = int(math.hypot(x1 - x0, y1 - y0) / pitch) + 1
        cells = sorted(
            ((i, j) for i in range(-reach, reach + 1) for j in range(-reach, reach + 1)),
            key=lambda ij: ij[0] ** 2 + ij[1] ** 2,
        )
        for i, j in cells:
            dx, dy = i * pitch, j * pitch
            box = _Box(cx + c * dx - s * dy, cy + s * dx + c * dy, size / 2, self.grid_angle)
            if self._fits(box, 0.2):
                return self._take(box, cube=touching)
        raise RenderError(
            f"cannot fit another {what} ({size:g} mm) into its area; "
            "the layout's area is too small for this position"
        )

    def _take(self, box: _Box, cube: bool) -> tuple[float, float, float]:
        self.boxes.append(box)
        if cube:
            self.cubes.append(box)
        return (box.x, box.y, math.degrees(box.angle))


def _piece_size(layout: Layout, key: str, sub: str | None = None, default: float = 10.0) -> float:
    value = layout.pieces.get(key)
    if value is None:
        return default
    if isinstance(value, Mapping):
        return float(value.get(sub or "", default))
    return float(value)


# --- El Grande ---------------------------------------------------------------------------------
def el_grande_scene(
    position: ElGrandePosition, layout: Layout, rng: np.random.Generator, conditions: Conditions
) -> Scene:
    """Where everything of an El Grande position lies. Pieces are placed in a fixed order
    (players' seating order, the engine's region order), so the scene depends on what the
    position holds, not on how its JSON happens to be ordered."""
    colours = position.players
    scene = Scene("el-grande", colours)
    cube = _piece_size(layout, "cube")
    placers: dict[str, Placer] = {}

    def placer(area: str) -> Placer:
        if area not in placers:
            placers[area] = Placer(layout.polygon(area), rng, conditions)
        return placers[area]

    scene.scoreboards = {area: list(values) for area, values in position.scoreboards.items()}

    # Flat scoreboards first, so pieces keep off them.
    for area, values in scene.scoreboards.items():
        if area == CASTILLO:
            cx, cy = layout.polygon(CASTILLO).centroid
            pose = Pose(cx, cy + 62, 0.0)
        else:
            x, y, a = placer(area).place(30.0, touching=False, what="mobile scoreboard")
            pose = Pose(x, y, a)
        scene.flats.append(Flat("scoreboard", area, pose, label=" ".join(map(str, values))))
    # The box's other mobile scoreboards wait on their rest, if the layout has one.
    rest = layout.areas_of_kind("scoreboard_rest")
    if rest:
        for board in MOBILE_SCOREBOARDS:
            if board in position.scoreboards.values():
                continue
            x, y, a = placer(rest[0].id).place(30.0, touching=False, what="mobile scoreboard")
            label = " ".join(map(str, board))
            scene.flats.append(Flat("scoreboard", rest[0].id, Pose(x, y, a), label=label))
            scene.resting_scoreboards.append(list(board))

    king = position.king
    size = _piece_size(layout, "king", "diameter", 22)
    x, y, a = placer(king).place(size, touching=False, what="king")
    scene.pieces.append(
        Piece("king", "black", king, x, y, a, size, _piece_size(layout, "king", "height", 40))
    )
    for colour in colours:
        region = position.grandes[colour]
        size = _piece_size(layout, "grande", default=16)
        x, y, a = placer(region).place(size, touching=False, what="grande")
        scene.pieces.append(Piece("grande", colour, region, x, y, a, size, size))

    for region in REGIONS:
        counts = position.areas.get(region, {})
        if not counts:
            continue
        placer(region).expect(sum(counts.values()), cube)
        for colour in colours:
            _cubes(scene, placer(region), region, colour, counts.get(colour, 0), cube)

    in_tower = sum(position.areas.get(CASTILLO, {}).values())
    scene.hidden[CASTILLO] = "inside the tower: not visible" if in_tower else "empty"
    cx, cy = layout.polygon(CASTILLO).centroid
    x0, y0, x1, y1 = layout.polygon(CASTILLO).bbox
    side = 0.92 * min(x1 - x0, y1 - y0)
    scene.pieces.append(Piece("tower", "tower", CASTILLO, cx, cy, 0.0, side, 1.15 * side))

    for seat, colour in enumerate(colours, 1):
        n = position.courts.get(colour, 0)
        area = layout.seat_area("court", seat).id
        placer(area).expect(n, cube)
        _cubes(scene, placer(area), area, colour, n, cube)
    return scene


def _cubes(scene: Scene, placer: Placer, area: str, colour: str, n: int, size: float) -> None:
    stacked = placer.conditions.stacked
    tilted = placer.conditions.tilted
    below: Piece | None = None  # the previous cube of this colour here, if it stands on the board
    for _ in range(n):
        # (No draw at all when stacking is off: the random stream, and so every render made
        # before stacks existed, stays as it was.)
        if stacked > 0 and below is not None and placer.rng.random() < stacked:
            rng = placer.rng
            jitter = min(1.0, placer.conditions.jitter / 3)  # mm: put on by hand, not exactly
            top = Piece(
                "cube",
                colour,
                area,
                below.x + rng.uniform(-jitter, jitter),
                below.y + rng.uniform(-jitter, jitter),
                below.angle + rng.normal(0, 6),
                size,
                size,
                lift=below.lift + size,
            )
            scene.pieces.append(top)
            below = None  # a stack is two high at most: the next cube stands on the board
            continue
        x, y, a = placer.place(size, what=f"{colour} cube in {area}")
        below = Piece("cube", colour, area, x, y, a, size, size)
        # (Likewise no draw when tilting is off.)
        if tilted > 0 and placer.rng.random() < tilted:
            below = _leaning(below, placer)
        scene.pieces.append(below)
        if below.lean:
            below = None  # nothing is stacked on a leaning cube
    scene.add_count(area, colour, n)


def _leaning(cube: Piece, placer: Placer) -> Piece:
    """The cube leaning 15-35° across one of its four edges (a random one first, then the
    next ones round), where the box it then spans on the board keeps clear of the pieces
    placed about it and of its area's edge; where none does it stands flat (and is not
    tilted). Its raised side rests on nothing drawn."""
    rng = placer.rng
    lean = float(rng.uniform(15.0, 35.0))
    first = int(rng.integers(4))
    t, h = math.radians(lean), cube.size / 2
    # Along the lean the box spans from its raised bottom edge (2h cos t behind the edge it
    # stands on) to its top's far edge (its height's sin t beyond it): a square that wide
    # about that span's middle holds it (across the lean it stays 2h wide).
    lo, hi = h - 2 * h * math.cos(t), h + cube.height * math.sin(t)
    mine = placer.boxes[-1]  # (the cube's own footprint, the box place() took last)
    for k in range(4):
        angle = cube.angle + 90.0 * ((first + k) % 4)
        a = math.radians(angle)
        mid = (lo + hi) / 2
        box = _Box(cube.x + mid * math.cos(a), cube.y + mid * math.sin(a), (hi - lo) / 2, a)
        if placer.claim(box, skip=mine):  # (pieces placed after it keep off its lean too)
            return replace(cube, angle=angle, lean=lean)
    return cube


# --- Carolus Magnus ----------------------------------------------------------------------------
def _group_angles(
    ring_ids: list[str],
    groups: list[list[str]],
    tile_angle: float,
    rng: np.random.Generator,
    jitter: float,
) -> dict[str, float]:
    """Ring angle of each territory: home spacing, merged groups pushed together."""
    n = len(ring_ids)
    index = {t: i for i, t in enumerate(ring_ids)}
    angles: dict[str, float] = {}
    for group in groups:
        positions = [index[t] for t in group]
        first = positions[0]
        # The group is a clockwise run starting at its first member (the engine's runs are).
        centre = 360.0 * first / n + 360.0 * (len(group) - 1) / (2 * n)
        centre += rng.normal(0, jitter * 0.15)
        for k, tile in enumerate(group):
            angles[tile] = centre + (k - (len(group) - 1) / 2) * tile_angle
    for t, i in index.items():
        if t not in angles:
            angles[t] = 360.0 * i / n + rng.normal(0, jitter * 0.15)
    return angles


def carolus_scene(
    position: CarolusPosition,
    layout: Layout,
    rng: np.random.Generator,
    conditions: Conditions,
    dice: tuple[str, ...] | None,
) -> Scene:
    """Where everything of a Carolus Magnus position lies. Colours are placed in the engine's
    colour order and players in seating order, whatever the order of the JSON."""
    players = position.players
    if len(players) > len(layout.courts):
        raise RenderError(
            f"players: the layout has court cards for {len(layout.courts)} seats only"
        )
    scene = Scene("carolus-magnus", players)
    cube = _piece_size(layout, "cube")
    assert layout.ring is not None and layout.court_card is not None

    ring_ids = list(position.ring)
    # Groups pushed together: the engine's clockwise runs of more than one territory.
    groups = [[ring_ids[t] for t in run] for run in position.regions if len(run) > 1]
    scene.regions = groups

    angles = _group_angles(ring_ids, groups, layout.ring.tile_angle, rng, conditions.jitter)
    tile_placers: dict[str, Placer] = {}
    for tile_id in ring_ids:
        pose = layout.ring.at(angles[tile_id])
        poly = layout.tile_polygon(tile_id, pose)
        scene.tile_areas[tile_id] = poly
        scene.flats.append(Flat("tile", tile_id, pose, layout.tile(tile_id).marker, tile_id))
        p = Placer(poly, rng, conditions, math.radians(pose.angle))
        p.block(pose.x, pose.y, layout.tile_marker_size * 4 / 3 + 4, math.radians(pose.angle))
        tile_placers[tile_id] = p

    charlemagne = ring_ids[position.charlemagne]
    size = _piece_size(layout, "charlemagne", "diameter", 20)
    x, y, a = tile_placers[charlemagne].place(size, touching=False, what="Charlemagne")
    height = _piece_size(layout, "charlemagne", "height", 36)
    scene.pieces.append(Piece("charlemagne", "yellow", charlemagne, x, y, a, size, height))
    castle_w = _piece_size(layout, "castle", "width", 13)
    castle_h = _piece_size(layout, "castle", "height", 16)
    for i, tile_id in enumerate(ring_ids):
        castle = position.castle[i]
        if castle is not None:
            x, y, a = tile_placers[tile_id].place(castle_w, touching=False, what="castle")
            scene.pieces.append(Piece("castle", castle, tile_id, x, y, a, castle_w, castle_h))
        knights = position.knights[i]
        tile_placers[tile_id].expect(sum(knights.values()), cube)
        for colour in CAROLUS_COLOURS:
            _cubes(scene, tile_placers[tile_id], tile_id, colour, knights.get(colour, 0), cube)

    for seat, name in enumerate(players, 1):
        spec = layout.court(seat)
        j = conditions.jitter
        pose = Pose(
            spec.home.x + rng.normal(0, j),
            spec.home.y + rng.normal(0, j),
            spec.home.angle + rng.normal(0, j),
        )
        scene.flats.append(Flat("court_card", f"court_{seat}", pose, spec.marker, name))
        area = f"court_{seat}"
        court = position.courts.get(name, {})
        for colour in CAROLUS_COLOURS:
            scene.court_rows[f"{area}.{colour}"] = layout.court_row_polygon(colour, pose)
            n = court.get(colour, 0)
            _court_row(scene, layout, pose, colour, n, cube, area, rng, conditions)

    for seat, name in enumerate(players, 1):
        reserve = position.reserves.get(name, {})
        if not any(reserve.values()):
            continue
        area = layout.seat_area("reserve", seat).id
        p = Placer(layout.polygon(area), rng, conditions)
        p.expect(sum(reserve.values()), cube)
        for colour in CAROLUS_COLOURS:
            _cubes(scene, p, area, colour, reserve.get(colour, 0), cube)

    # Castles not on the board wait in the supply, by castle colour (the engine fills in
    # what the position leaves out).
    supply = Placer(layout.polygon("castle_supply"), rng, conditions)
    for colour, n in position.castles_left.items():
        for _ in range(n):
            x, y, a = supply.place(castle_w, touching=False, what="castle in the supply")
            scene.pieces.append(
                Piece("castle", colour, "castle_supply", x, y, a, castle_w, castle_h)
            )

    if dice is None:
        dice = tuple(DIE_FACES[int(rng.integers(len(DIE_FACES)))] for _ in range(3))
    tray = Placer(layout.polygon("dice_tray"), rng, conditions)
    die = _piece_size(layout, "die", default=16)
    for face in dice:
        if face not in DIE_FACES:
            raise RenderError(f"dice: {face!r} is not a die face ({', '.join(DIE_FACES)})")
        x, y, a = tray.place(die, touching=False, what="die")
        others = [f for f in DIE_FACES if f != face]
        rng.shuffle(others)
        scene.pieces.append(
            Piece("die", "die", "dice_tray", x, y, a, die, die, (face, *others[:4]))
        )
    return scene


def _court_row(
    scene: Scene,
    layout: Layout,
    pose: Pose,
    colour: str,
    n: int,
    size: float,
    area: str,
    rng: np.random.Generator,
    conditions: Conditions,
) -> None:
    """Knights lined up along their colour's row, as players keep them."""
    assert layout.court_card is not None
    row = layout.court_card.row(colour)
    x0, y0, x1, y1 = row.bbox
    pitch = size * 1.06
    capacity = int((x1 - x0 - 10) // pitch)
    if n > capacity:
        raise RenderError(
            f"courts: {n} {colour} knights do not fit on a court row of this "
            f"layout (at most {capacity})"
        )
    cy = (y0 + y1) / 2
    for k in range(n):
        lx = x0 + 9 + pitch * (k + 0.5) + rng.normal(0, 0.3)
        ly = cy + rng.normal(0, 0.4)
        bx, by = pose.apply((lx, ly))
        angle = pose.angle + rng.normal(0, 3)
        scene.pieces.append(Piece("cube", colour, area, bx, by, angle, size, size))
    scene.add_count(area, colour, n)
