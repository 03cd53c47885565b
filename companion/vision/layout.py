"""Table layouts: where every area, marker and movable tile sits, in board millimetres.

A layout is a data file (``companion/vision/layouts/*.json``, format in ``docs/layouts.md``) so a
group can describe its own edition of a board. Board coordinates: origin at the board's top-left
corner, x to the right, y down (towards the player at the bottom edge), in millimetres.
Poses ``(x, y, angle)`` put a marker's centre at ``(x, y)`` with its own x axis turned by
``angle`` degrees clockwise as seen from above (y points down: the usual rotation matrix).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from companion.vision.errors import LayoutError

FORMAT = 1
GAMES = ("el-grande", "carolus-magnus")
EL_GRANDE_REGIONS = (
    "galicia",
    "pais_vasco",
    "aragon",
    "cataluna",
    "castilla_la_vieja",
    "castilla_la_nueva",
    "sevilla",
    "granada",
    "valencia",
)
CAROLUS_COLOURS = ("red", "blue", "yellow", "green", "pink")
CAROLUS_TILES = tuple(f"t{i:02d}" for i in range(1, 16))
CORNERS = ("top_left", "top_right", "bottom_right", "bottom_left")
AREA_KINDS = (
    "region",
    "castillo",
    "scoreboard_rest",
    "court",
    "reserve",
    "dice_tray",
    "castle_supply",
)
# DICT_4X4_50 has ids 0..49; the layouts say which dictionary, this is the only one supported.
DICTIONARIES = {"DICT_4X4_50": 50}

Point = tuple[float, float]


@dataclass(frozen=True)
class Pose:
    """Where a movable thing lies: its marker centre (mm) and turn (degrees clockwise)."""

    x: float
    y: float
    angle: float = 0.0

    def apply(self, point: Point) -> Point:
        """A point given in the thing's own frame, in board mm."""
        a = math.radians(self.angle)
        c, s = math.cos(a), math.sin(a)
        px, py = point
        return (self.x + c * px - s * py, self.y + s * px + c * py)

    def invert(self, point: Point) -> Point:
        """A board point in the thing's own frame."""
        a = math.radians(self.angle)
        c, s = math.cos(a), math.sin(a)
        dx, dy = point[0] - self.x, point[1] - self.y
        return (c * dx + s * dy, -s * dx + c * dy)

    def __repr__(self) -> str:
        return f"Pose({self.x:.1f}, {self.y:.1f}, {self.angle:.1f}°)"


@dataclass(frozen=True)
class Polygon:
    """A simple polygon, points in order (either direction), in millimetres."""

    points: tuple[Point, ...]

    def __repr__(self) -> str:
        x0, y0, x1, y1 = self.bbox
        return f"Polygon({len(self.points)} points, bbox=({x0:.0f}, {y0:.0f})–({x1:.0f}, {y1:.0f}))"

    def __iter__(self) -> Iterator[Point]:
        return iter(self.points)

    def __len__(self) -> int:
        return len(self.points)

    @property
    def bbox(self) -> tuple[float, float, float, float]:
        xs = [p[0] for p in self.points]
        ys = [p[1] for p in self.points]
        return (min(xs), min(ys), max(xs), max(ys))

    @property
    def area(self) -> float:
        """Unsigned area in mm²."""
        return abs(_signed_area(self.points))

    @property
    def centroid(self) -> Point:
        pts = self.points
        a = _signed_area(pts)
        cx = cy = 0.0
        for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True):
            cross = x0 * y1 - x1 * y0
            cx += (x0 + x1) * cross
            cy += (y0 + y1) * cross
        return (cx / (6 * a), cy / (6 * a))

    def contains(self, point: Point) -> bool:
        """Whether the point lies inside (even-odd rule; points on the border may go either way)."""
        x, y = point
        inside = False
        pts = self.points
        for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True):
            if (y0 > y) != (y1 > y):
                cross_x = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
                if x < cross_x:
                    inside = not inside
        return inside

    def distance(self, point: Point) -> float:
        """Distance from the point to the polygon's border (mm)."""
        return min(
            _segment_distance(point, a, b)
            for a, b in zip(self.points, self.points[1:] + self.points[:1], strict=True)
        )

    def placed(self, pose: Pose) -> Polygon:
        """This polygon (given in a thing's own frame) moved to ``pose`` on the board."""
        return Polygon(tuple(pose.apply(p) for p in self.points))


@dataclass(frozen=True)
class MarkerSpec:
    """An ArUco marker: id, centre and side length (mm) and where it is stuck."""

    id: int
    center: Point
    size: float
    where: str

    def corners(self, pose: Pose | None = None) -> tuple[Point, ...]:
        """Its four corners in ArUco order (top-left, top-right, bottom-right, bottom-left).

        Board markers use their own centre; movable markers are placed at ``pose``.
        """
        h = self.size / 2
        local = ((-h, -h), (h, -h), (h, h), (-h, h))
        if pose is None:
            return tuple((self.center[0] + x, self.center[1] + y) for x, y in local)
        return tuple(pose.apply(p) for p in local)


@dataclass(frozen=True)
class Area:
    """A fixed area of the table (region, Castillo, court zone, reserve, dice tray...)."""

    id: str
    kind: str
    label: str
    polygon: Polygon
    seat: int | None = None


@dataclass(frozen=True)
class TileShape:
    """A Carolus Magnus territory shape; outline relative to the tile's marker centre."""

    name: str
    outline: Polygon


@dataclass(frozen=True)
class TileSpec:
    """One Carolus Magnus territory tile: its id, marker id and shape."""

    id: str
    marker: int
    shape: str


@dataclass(frozen=True)
class CourtCard:
    """Carolus Magnus court card geometry, relative to its marker centre."""

    marker_size: float
    outline: Polygon
    rows: tuple[tuple[str, Polygon], ...]

    def row(self, colour: str) -> Polygon:
        for name, poly in self.rows:
            if name == colour:
                return poly
        raise LayoutError(f"court card has no row {colour!r}; rows: {[n for n, _ in self.rows]}")


@dataclass(frozen=True)
class CourtSpec:
    """A seat's court card: its marker id and its usual place on the table."""

    seat: int
    marker: int
    home: Pose


@dataclass(frozen=True)
class Ring:
    """Where the Carolus territories lie by default: a ring round ``center``."""

    center: Point
    radius: float
    tile_angle: float  # degrees of ring one tile covers, so pushed-together tiles touch

    def home(self, index: int, count: int = 15) -> Pose:
        """Home pose of the ``index``-th territory (0 = top, clockwise), tiles a little apart."""
        return self.at(360.0 * index / count)

    def at(self, angle: float) -> Pose:
        a = math.radians(angle)
        return Pose(
            self.center[0] + self.radius * math.sin(a),
            self.center[1] - self.radius * math.cos(a),
            angle,
        )


@dataclass(frozen=True)
class Layout:
    """Everything a renderer or reader needs to know about one table's geometry."""

    name: str
    game: str
    description: str
    board_size: tuple[float, float]
    dictionary: str
    board_markers: tuple[MarkerSpec, ...]
    areas: tuple[Area, ...]
    pieces: Mapping[str, Any]
    ring: Ring | None = None
    tile_marker_size: float = 0.0
    tile_shapes: tuple[TileShape, ...] = ()
    tiles: tuple[TileSpec, ...] = ()
    court_card: CourtCard | None = None
    courts: tuple[CourtSpec, ...] = ()

    def __repr__(self) -> str:
        w, h = self.board_size
        return f"<Layout {self.name!r} {self.game} {w:.0f}×{h:.0f} mm, {len(self.areas)} areas>"

    def __hash__(self) -> int:
        return hash((self.name, self.game, self.board_markers, self.areas))

    # --- lookups -------------------------------------------------------------------------------
    def area(self, area_id: str) -> Area:
        for area in self.areas:
            if area.id == area_id:
                return area
        raise LayoutError(
            f"layout {self.name!r} has no area {area_id!r}; areas: {[a.id for a in self.areas]}"
        )

    def polygon(self, area_id: str) -> Polygon:
        """An area's outline in board mm."""
        return self.area(area_id).polygon

    def areas_of_kind(self, kind: str) -> tuple[Area, ...]:
        return tuple(a for a in self.areas if a.kind == kind)

    def seat_area(self, kind: str, seat: int) -> Area:
        for area in self.areas:
            if area.kind == kind and area.seat == seat:
                return area
        raise LayoutError(f"layout {self.name!r} has no {kind} area for seat {seat}")

    def area_at(
        self,
        point: Point,
        tiles: Mapping[str, Pose] | None = None,
        courts: Mapping[int, Pose] | None = None,
    ) -> str | None:
        """The area containing a board point, or None.

        Carolus Magnus: pass where the tiles (id → marker pose) and court cards (seat → pose)
        were found; a point on a tile gives its id (``t03``), on a court card ``court_<seat>``.
        Movable things lie on the table, so they are tried before the fixed areas.
        """
        for tile_id, pose in (tiles or {}).items():
            if self.tile_polygon(tile_id, pose).contains(point):
                return tile_id
        for seat, pose in (courts or {}).items():
            if self.court_polygon(pose).contains(point):
                return f"court_{seat}"
        for area in self.areas:
            if area.polygon.contains(point):
                return area.id
        return None

    def court_row_at(self, point: Point, pose: Pose) -> str | None:
        """The colour row of a court card (marker at ``pose``) under a board point, or None."""
        local = pose.invert(point)
        for colour, row in self._card().rows:
            if row.contains(local):
                return colour
        return None

    def board_marker(self, marker_id: int) -> MarkerSpec:
        for m in self.board_markers:
            if m.id == marker_id:
                return m
        raise LayoutError(f"layout {self.name!r} has no board marker {marker_id}")

    # --- Carolus Magnus: movable tiles and court cards ----------------------------------------
    def tile(self, tile_id: str) -> TileSpec:
        for t in self.tiles:
            if t.id == tile_id:
                return t
        raise LayoutError(f"layout {self.name!r} has no territory tile {tile_id!r}")

    def tile_by_marker(self, marker_id: int) -> TileSpec | None:
        return next((t for t in self.tiles if t.marker == marker_id), None)

    def tile_shape(self, name: str) -> TileShape:
        for s in self.tile_shapes:
            if s.name == name:
                return s
        raise LayoutError(f"layout {self.name!r} has no tile shape {name!r}")

    def tile_polygon(self, tile_id: str, pose: Pose) -> Polygon:
        """The outline in board mm of territory ``tile_id`` whose marker lies at ``pose``."""
        return self.tile_shape(self.tile(tile_id).shape).outline.placed(pose)

    def tile_marker(self, tile_id: str) -> MarkerSpec:
        t = self.tile(tile_id)
        return MarkerSpec(t.marker, (0.0, 0.0), self.tile_marker_size, f"territory {t.id}")

    def court(self, seat: int) -> CourtSpec:
        for c in self.courts:
            if c.seat == seat:
                return c
        raise LayoutError(f"layout {self.name!r} has no court card for seat {seat}")

    def court_by_marker(self, marker_id: int) -> CourtSpec | None:
        return next((c for c in self.courts if c.marker == marker_id), None)

    def court_polygon(self, pose: Pose) -> Polygon:
        """A court card's outline in board mm when its marker lies at ``pose``."""
        return self._card().outline.placed(pose)

    def court_row_polygon(self, colour: str, pose: Pose) -> Polygon:
        """The row of ``colour`` on a court card whose marker lies at ``pose``, in board mm."""
        return self._card().row(colour).placed(pose)

    def court_marker(self, seat: int) -> MarkerSpec:
        c = self.court(seat)
        return MarkerSpec(c.marker, (0.0, 0.0), self._card().marker_size, f"court card seat {seat}")

    def _card(self) -> CourtCard:
        if self.court_card is None:
            raise LayoutError(f"layout {self.name!r} has no court cards")
        return self.court_card

    def all_marker_ids(self) -> tuple[int, ...]:
        return (
            tuple(m.id for m in self.board_markers)
            + tuple(t.marker for t in self.tiles)
            + tuple(c.marker for c in self.courts)
        )


# --- loading ------------------------------------------------------------------------------------
def shipped_layouts() -> tuple[str, ...]:
    """Names of the layouts that come with the companion."""
    folder = resources.files("companion.vision") / "layouts"
    return tuple(sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json")))


def load_layout(source: str | Path) -> Layout:
    """Load a layout by shipped name (``el-grande``) or from a JSON file path.

    Raises :class:`LayoutError` naming the file and the bad key.
    """
    name = str(source)
    if isinstance(source, str) and "/" not in source and not source.endswith(".json"):
        if source not in shipped_layouts():
            raise LayoutError(
                f"{source!r} is not a shipped layout ({', '.join(shipped_layouts())}) "
                "and not a path to a .json file"
            )
        text = (resources.files("companion.vision") / "layouts" / f"{source}.json").read_text(
            encoding="utf-8"
        )
    else:
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise LayoutError(f"{path}: no such layout file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise LayoutError(f"{path}: cannot read layout file: {exc}") from None
        name = str(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LayoutError(
            f"{name}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None
    return parse_layout(data, source=name)


def parse_layout(data: object, *, source: str = "layout") -> Layout:
    """Build a :class:`Layout` from decoded JSON, checking every key."""
    return _Parser(source).layout(data)


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, message: str) -> LayoutError:
        where = f"{self.source}: {path}: " if path else f"{self.source}: "
        return LayoutError(where + message)

    def obj(self, value: object, path: str, required: set[str], optional: set[str]) -> dict:
        if not isinstance(value, dict):
            raise self.fail(path, f"must be a JSON object, got {type(value).__name__}")
        for key in value:
            if key not in required | optional:
                allowed = ", ".join(sorted(required | optional))
                raise self.fail(_join(path, key), f"unknown key (allowed: {allowed})")
        for key in sorted(required):
            if key not in value:
                raise self.fail(_join(path, key), "missing")
        return value

    def number(self, value: object, path: str, *, positive: bool = False) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise self.fail(path, f"{value!r} is not a number")
        if positive and value <= 0:
            raise self.fail(path, f"{value!r} must be greater than 0")
        return float(value)

    def integer(self, value: object, path: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"{value!r} is not a whole number")
        return value

    def string(self, value: object, path: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(path, f"{value!r} is not a non-empty string")
        return value

    def point(self, value: object, path: str) -> Point:
        if not isinstance(value, list) or len(value) != 2:
            raise self.fail(path, f"{value!r} is not a point [x, y]")
        return (self.number(value[0], f"{path}[0]"), self.number(value[1], f"{path}[1]"))

    def pose(self, value: object, path: str) -> Pose:
        if not isinstance(value, list) or len(value) != 3:
            raise self.fail(path, f"{value!r} is not a pose [x, y, angle]")
        x, y, a = (self.number(v, f"{path}[{i}]") for i, v in enumerate(value))
        return Pose(x, y, a)

    def polygon(self, value: object, path: str) -> Polygon:
        if not isinstance(value, list) or len(value) < 3:
            raise self.fail(path, "needs a list of at least 3 points [x, y]")
        poly = Polygon(tuple(self.point(p, f"{path}[{i}]") for i, p in enumerate(value)))
        if poly.area < 1.0:
            raise self.fail(path, "encloses no area (points on one line or repeated)")
        if _self_intersects(poly.points):
            raise self.fail(path, "crosses itself; list the points in order round the outline")
        return poly

    def layout(self, data: object) -> Layout:
        top_required = {"format", "name", "game", "board", "marker_dictionary", "board_markers"}
        top_required |= {"areas", "pieces"}
        carolus_keys = {"ring", "tile_marker_size", "tile_shapes", "tiles", "court_card", "courts"}
        d = self.obj(data, "", top_required, {"description"} | carolus_keys)
        if d["format"] != FORMAT:
            raise self.fail("format", f"{d['format']!r} is not a supported format (use {FORMAT})")
        name = self.string(d["name"], "name")
        game = d["game"]
        if game not in GAMES:
            raise self.fail("game", f"{game!r} is not a known game ({', '.join(GAMES)})")
        description = d.get("description", "")
        if not isinstance(description, str):
            raise self.fail("description", "must be a string")
        board = self.obj(d["board"], "board", {"width", "height"}, set())
        size = (
            self.number(board["width"], "board.width", positive=True),
            self.number(board["height"], "board.height", positive=True),
        )
        dictionary = d["marker_dictionary"]
        if dictionary not in DICTIONARIES:
            raise self.fail(
                "marker_dictionary", f"{dictionary!r} is not supported (use DICT_4X4_50)"
            )
        markers = self.board_markers(d["board_markers"], size)
        areas = self.areas(d["areas"], game)
        pieces = self.obj(
            d["pieces"],
            "pieces",
            set(),
            {"cube", "grande", "king", "castle", "die"} | {"charlemagne"},
        )
        for key in ("cube", "grande", "die"):
            if key in pieces:
                self.number(pieces[key], f"pieces.{key}", positive=True)
        for key in ("king", "charlemagne", "castle"):
            if key in pieces:
                sub = self.obj(pieces[key], f"pieces.{key}", set(), {"diameter", "width", "height"})
                for k, v in sub.items():
                    self.number(v, f"pieces.{key}.{k}", positive=True)
        if "cube" not in pieces:
            raise self.fail("pieces.cube", "missing (side of a small cube in mm)")
        layout = Layout(
            name=name,
            game=game,
            description=description,
            board_size=size,
            dictionary=dictionary,
            board_markers=markers,
            areas=areas,
            pieces=pieces,
        )
        if game == "carolus-magnus":
            layout = self.carolus(d, layout)
        else:
            for key in sorted(carolus_keys):
                if key in d:
                    raise self.fail(key, "only Carolus Magnus layouts have this key")
        self.check_marker_ids(layout)
        return layout

    def board_markers(self, value: object, size: tuple[float, float]) -> tuple[MarkerSpec, ...]:
        if not isinstance(value, list) or len(value) != 4:
            raise self.fail("board_markers", "needs exactly 4 markers, one per board corner")
        out = []
        corners_seen: set[str] = set()
        for i, item in enumerate(value):
            path = f"board_markers[{i}]"
            m = self.obj(item, path, {"id", "corner", "center", "size"}, set())
            corner = m["corner"]
            if corner not in CORNERS:
                raise self.fail(f"{path}.corner", f"{corner!r} is not one of {', '.join(CORNERS)}")
            if corner in corners_seen:
                raise self.fail(f"{path}.corner", f"two markers at {corner}")
            corners_seen.add(corner)
            out.append(
                MarkerSpec(
                    id=self.integer(m["id"], f"{path}.id"),
                    center=self.point(m["center"], f"{path}.center"),
                    size=self.number(m["size"], f"{path}.size", positive=True),
                    where=f"board corner {corner.replace('_', ' ')}",
                )
            )
        return tuple(out)

    def areas(self, value: object, game: str) -> tuple[Area, ...]:
        if not isinstance(value, list):
            raise self.fail("areas", "must be a list of areas")
        out: list[Area] = []
        for i, item in enumerate(value):
            path = f"areas[{i}]"
            a = self.obj(item, path, {"id", "kind", "polygon"}, {"label", "seat"})
            area_id = self.string(a["id"], f"{path}.id")
            if any(o.id == area_id for o in out):
                raise self.fail(f"{path}.id", f"{area_id!r} appears twice")
            kind = a["kind"]
            if kind not in AREA_KINDS:
                raise self.fail(f"{path}.kind", f"{kind!r} is not one of {', '.join(AREA_KINDS)}")
            seat = None
            if kind in ("court", "reserve"):
                if "seat" not in a:
                    raise self.fail(f"{path}.seat", f"missing (a {kind} belongs to a seat 1..5)")
                seat = self.integer(a["seat"], f"{path}.seat")
                if not 1 <= seat <= 5:
                    raise self.fail(f"{path}.seat", f"{seat} is not a seat number 1..5")
            elif "seat" in a:
                raise self.fail(f"{path}.seat", "only court and reserve areas have a seat")
            label = a.get("label", area_id)
            if not isinstance(label, str):
                raise self.fail(f"{path}.label", "must be a string")
            out.append(
                Area(area_id, kind, label, self.polygon(a["polygon"], f"{path}.polygon"), seat)
            )
        ids = {a.id for a in out}
        if game == "el-grande":
            needed = (*EL_GRANDE_REGIONS, "castillo")
            for region in needed:
                if region not in ids:
                    raise self.fail(
                        "areas", f"no area {region!r} (El Grande needs all 9 regions and castillo)"
                    )
            for area in out:
                if area.kind == "region" and area.id not in EL_GRANDE_REGIONS:
                    raise self.fail("areas", f"{area.id!r} is not an El Grande region id")
            if not any(a.kind == "court" for a in out):
                raise self.fail("areas", "no court area (one per seat: kind court, seat 1..5)")
        else:
            if any(a.kind == "region" for a in out):
                raise self.fail("areas", "Carolus Magnus regions are tiles, not fixed areas")
            for kind in ("dice_tray", "castle_supply", "reserve"):
                if not any(a.kind == kind for a in out):
                    raise self.fail("areas", f"no {kind} area")
        seats = [(a.kind, a.seat) for a in out if a.seat is not None]
        if len(seats) != len(set(seats)):
            raise self.fail("areas", "two areas of the same kind for one seat")
        return tuple(out)

    def carolus(self, d: dict, layout: Layout) -> Layout:
        for key in ("ring", "tile_marker_size", "tile_shapes", "tiles", "court_card", "courts"):
            if key not in d:
                raise self.fail(key, "missing (Carolus Magnus layouts need it)")
        r = self.obj(d["ring"], "ring", {"center", "radius", "tile_angle"}, set())
        ring = Ring(
            self.point(r["center"], "ring.center"),
            self.number(r["radius"], "ring.radius", positive=True),
            self.number(r["tile_angle"], "ring.tile_angle", positive=True),
        )
        if ring.tile_angle * 15 > 360:
            raise self.fail("ring.tile_angle", "15 tiles of this angle do not fit in a ring")
        tms = self.number(d["tile_marker_size"], "tile_marker_size", positive=True)
        shapes_obj = d["tile_shapes"]
        if not isinstance(shapes_obj, dict) or not shapes_obj:
            raise self.fail("tile_shapes", "must be an object: shape name → {outline}")
        shapes = []
        for sname, sval in shapes_obj.items():
            s = self.obj(sval, f"tile_shapes.{sname}", {"outline"}, set())
            outline = self.polygon(s["outline"], f"tile_shapes.{sname}.outline")
            h = tms / 2
            for corner in ((-h, -h), (h, -h), (h, h), (-h, h)):
                if not outline.contains(corner):
                    raise self.fail(
                        f"tile_shapes.{sname}.outline",
                        "must contain the tile's marker (centred on 0, 0)",
                    )
            shapes.append(TileShape(sname, outline))
        tiles_val = d["tiles"]
        if not isinstance(tiles_val, list):
            raise self.fail("tiles", "must be a list of 15 tiles")
        tiles = []
        for i, item in enumerate(tiles_val):
            path = f"tiles[{i}]"
            t = self.obj(item, path, {"id", "marker", "shape"}, set())
            if t["shape"] not in shapes_obj:
                raise self.fail(f"{path}.shape", f"{t['shape']!r} is not in tile_shapes")
            tiles.append(
                TileSpec(
                    self.string(t["id"], f"{path}.id"),
                    self.integer(t["marker"], f"{path}.marker"),
                    t["shape"],
                )
            )
        if sorted(t.id for t in tiles) != list(CAROLUS_TILES):
            raise self.fail("tiles", "must list t01..t15, each once")
        card = self.obj(d["court_card"], "court_card", {"marker_size", "outline", "rows"}, set())
        rows_obj = self.obj(card["rows"], "court_card.rows", set(CAROLUS_COLOURS), set())
        court_card = CourtCard(
            self.number(card["marker_size"], "court_card.marker_size", positive=True),
            self.polygon(card["outline"], "court_card.outline"),
            tuple((c, self.polygon(rows_obj[c], f"court_card.rows.{c}")) for c in CAROLUS_COLOURS),
        )
        courts_val = d["courts"]
        if not isinstance(courts_val, list) or not 2 <= len(courts_val) <= 4:
            raise self.fail("courts", "must list 2 to 4 court cards (one per seat)")
        courts = []
        for i, item in enumerate(courts_val):
            path = f"courts[{i}]"
            c = self.obj(item, path, {"seat", "marker", "home"}, set())
            courts.append(
                CourtSpec(
                    self.integer(c["seat"], f"{path}.seat"),
                    self.integer(c["marker"], f"{path}.marker"),
                    self.pose(c["home"], f"{path}.home"),
                )
            )
        if sorted(c.seat for c in courts) != list(range(1, len(courts) + 1)):
            raise self.fail("courts", "seats must be 1..N, each once")
        return Layout(
            name=layout.name,
            game=layout.game,
            description=layout.description,
            board_size=layout.board_size,
            dictionary=layout.dictionary,
            board_markers=layout.board_markers,
            areas=layout.areas,
            pieces=layout.pieces,
            ring=ring,
            tile_marker_size=tms,
            tile_shapes=tuple(shapes),
            tiles=tuple(tiles),
            court_card=court_card,
            courts=tuple(courts),
        )

    def check_marker_ids(self, layout: Layout) -> None:
        ids = layout.all_marker_ids()
        limit = DICTIONARIES[layout.dictionary]
        seen: set[int] = set()
        for marker_id in ids:
            if not 0 <= marker_id < limit:
                raise self.fail(
                    "markers", f"id {marker_id} is outside {layout.dictionary} (0..{limit - 1})"
                )
            if marker_id in seen:
                raise self.fail("markers", f"id {marker_id} is used twice")
            seen.add(marker_id)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _signed_area(pts: tuple[Point, ...]) -> float:
    return 0.5 * sum(
        x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True)
    )


def _segment_distance(p: Point, a: Point, b: Point) -> float:
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / length2))
    return math.hypot(p[0] - (ax + t * dx), p[1] - (ay + t * dy))


def _self_intersects(pts: tuple[Point, ...]) -> bool:
    n = len(pts)
    segs = [(pts[i], pts[(i + 1) % n]) for i in range(n)]
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # neighbours through the closing point
            if _segments_cross(*segs[i], *segs[j]):
                return True
    return False


def _segments_cross(p1: Point, p2: Point, p3: Point, p4: Point) -> bool:
    def orient(a: Point, b: Point, c: Point) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    d1, d2 = orient(p3, p4, p1), orient(p3, p4, p2)
    d3, d4 = orient(p1, p2, p3), orient(p1, p2, p4)
    return (d1 > 0) != (d2 > 0) and (d3 > 0) != (d4 > 0) and 0 not in (d1, d2, d3, d4)
