"""Layout files: the shipped ones load and match the rules; bad ones fail with a clear message."""

from __future__ import annotations

import copy
import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from companion.errors import CompanionError
from companion.vision.errors import LayoutError, VisionError
from companion.vision.layout import (
    CAROLUS_COLOURS,
    EL_GRANDE_REGIONS,
    Layout,
    Polygon,
    Pose,
    load_layout,
    parse_layout,
    shipped_layouts,
)

DATA = Path(__file__).parent.parent / "data" / "vision"
LAYOUTS = Path(__file__).parent.parent.parent / "companion" / "vision" / "layouts"


def _touch_distance(a: Polygon, b: Polygon) -> float:
    return min(min(b.distance(p) for p in a), min(a.distance(p) for p in b))


def test_shipped_layouts_load() -> None:
    assert set(shipped_layouts()) >= {"el-grande", "carolus-magnus"}
    eg = load_layout("el-grande")
    cm = load_layout("carolus-magnus")
    assert (eg.game, cm.game) == ("el-grande", "carolus-magnus")
    assert load_layout(LAYOUTS / "el-grande.json").areas == eg.areas
    assert "el-grande" in repr(eg)


def test_el_grande_polygons_follow_the_neighbour_table() -> None:
    table = json.loads((DATA / "el_grande_neighbours.json").read_text())
    table.pop("_comment")
    layout = load_layout("el-grande")
    for a, b in itertools.combinations(EL_GRANDE_REGIONS, 2):
        gap = _touch_distance(layout.polygon(a), layout.polygon(b))
        if b in table[a]:
            assert gap < 0.5, f"{a} and {b} are neighbours but {gap:.1f} mm apart"
        else:
            assert gap > 3.0, f"{a} and {b} are not neighbours but touch ({gap:.1f} mm)"


def test_el_grande_areas_do_not_overlap_and_fit_on_the_table() -> None:
    layout = load_layout("el-grande")
    for area in layout.areas:
        # A point deep inside an area is found there and nowhere else.
        c = area.polygon.centroid
        assert area.polygon.contains(c), area.id
        assert layout.area_at(c) == area.id
    for marker in layout.board_markers:
        assert layout.area_at(marker.center) is None
    assert layout.seat_area("court", 3).id == "court_3"
    assert {a.seat for a in layout.areas_of_kind("court")} == {1, 2, 3, 4, 5}


def test_board_marker_corners_are_in_aruco_order() -> None:
    layout = load_layout("el-grande")
    m = layout.board_marker(0)
    tl, tr, br, bl = m.corners()
    assert tl[0] < tr[0] and tl[1] == tr[1] and br[1] > tr[1] and bl[0] == tl[0]
    assert math.dist(tl, tr) == pytest.approx(m.size)
    by_corner = {mk.where: mk.id for mk in layout.board_markers}
    assert by_corner["board corner top left"] == 0
    assert by_corner["board corner bottom left"] == 3


def test_pose_maps_and_inverts() -> None:
    pose = Pose(100, 50, 90)
    # Turned 90° clockwise on screen: the thing's x axis points down the board.
    assert pose.apply((10, 0)) == pytest.approx((100, 60))
    assert pose.apply((0, 10)) == pytest.approx((90, 50))
    assert pose.invert(pose.apply((7, -3))) == pytest.approx((7, -3))


def test_polygon_contains_and_area() -> None:
    square = Polygon(((0, 0), (10, 0), (10, 10), (0, 10)))
    assert square.area == 100
    assert square.contains((5, 5)) and not square.contains((15, 5))
    assert square.centroid == pytest.approx((5, 5))
    assert square.distance((5, 13)) == pytest.approx(3)


def test_carolus_tiles_placed_at_marker_poses() -> None:
    layout = load_layout("carolus-magnus")
    assert layout.ring is not None
    assert [t.id for t in layout.tiles] == [f"t{i:02d}" for i in range(1, 16)]
    assert [t.marker for t in layout.tiles] == list(range(10, 25))
    assert {t.shape for t in layout.tiles} == {"A", "B", "C"}
    homes = [layout.ring.home(i) for i in range(15)]
    polys = [layout.tile_polygon(t.id, p) for t, p in zip(layout.tiles, homes, strict=True)]
    # At home the tiles lie a little apart; each contains its own marker.
    for i, (tile, pose, poly) in enumerate(zip(layout.tiles, homes, polys, strict=True)):
        for corner in layout.tile_marker(tile.id).corners(pose):
            assert poly.contains(corner)
        gap = _touch_distance(poly, polys[(i + 1) % 15])
        assert 3 < gap < 40, f"{tile.id} lies {gap:.1f} mm from its neighbour"
    # Pushed together (one tile angle apart) two tiles share a border.
    a = layout.tile_polygon("t01", layout.ring.at(0))
    b = layout.tile_polygon("t02", layout.ring.at(layout.ring.tile_angle))
    assert _touch_distance(a, b) < 0.5
    # Tiles keep clear of the fixed areas (reserves, dice tray, castle supply) and court cards.
    fixed = [a.polygon for a in layout.areas]
    fixed += [layout.court_polygon(c.home) for c in layout.courts]
    for poly, f in itertools.product(polys, fixed):
        assert not any(f.contains(p) for p in poly) and not any(poly.contains(p) for p in f)


def test_carolus_court_rows_lie_on_the_card() -> None:
    layout = load_layout("carolus-magnus")
    court = layout.court(2)
    assert court.marker == 31
    card = layout.court_polygon(court.home)
    rows = [layout.court_row_polygon(c, court.home) for c in CAROLUS_COLOURS]
    for row in rows:
        assert all(card.contains(p) for p in row)
    for r1, r2 in itertools.combinations(rows, 2):
        assert not r1.contains(r2.centroid)
    assert layout.court_by_marker(33) == layout.court(4)
    assert layout.tile_by_marker(12) == layout.tile("t03")


def _edit(doc: dict[str, Any], path: list[Any], value: Any, delete: bool) -> None:
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value


CASES = json.loads((DATA / "bad_layouts.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["error"][:40] for c in CASES])
def test_bad_layout_gives_a_clear_error(case: dict[str, Any], tmp_path: Path) -> None:
    doc = json.loads((LAYOUTS / f"{case['layout']}.json").read_text())
    original = copy.deepcopy(doc)
    _edit(doc, case["path"], case.get("value"), case.get("delete", False))
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(LayoutError) as info:
        load_layout(path)
    assert case["error"] in str(info.value)
    assert str(path) in str(info.value)
    # The unedited file is fine: the edit is what was wrong.
    assert isinstance(parse_layout(original), Layout)


def test_layout_error_kinds() -> None:
    with pytest.raises(LayoutError, match="no such layout file"):
        load_layout("/nonexistent/layout.json")
    with pytest.raises(LayoutError, match="not a shipped layout"):
        load_layout("monopoly")
    with pytest.raises(ValueError):
        load_layout("monopoly")
    assert issubclass(LayoutError, VisionError) and issubclass(VisionError, CompanionError)


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{nope")
    with pytest.raises(LayoutError, match=r"not valid JSON \(line 1, column 2\)"):
        load_layout(path)


def test_carolus_point_lookup_through_found_poses() -> None:
    layout = load_layout("carolus-magnus")
    tiles = {"t05": Pose(300, 300, 30.0), "t06": Pose(500, 500, -60.0)}
    courts = {2: Pose(650, 300, 90.0)}
    assert layout.area_at(Pose(300, 300, 30.0).apply((0, 25)), tiles, courts) == "t05"
    assert layout.area_at((500, 500), tiles, courts) == "t06"
    on_card = Pose(650, 300, 90.0).apply((60, 0))
    assert layout.area_at(on_card, tiles, courts) == "court_2"
    assert layout.area_at(on_card) is None  # without the card's pose: bare table
    assert layout.area_at((450, 300)) == "dice_tray"
    pose = Pose(650, 300, 90.0)
    for colour in CAROLUS_COLOURS:
        centre = layout.court_row_polygon(colour, pose).centroid
        assert layout.court_row_at(centre, pose) == colour
    assert layout.court_row_at(pose.apply((0, 0)), pose) is None  # the marker itself
