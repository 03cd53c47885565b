"""The synthetic table renderer: real OpenCV images checked against the position and the truth."""

from __future__ import annotations

import copy
import itertools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.games.errors import PositionError
from companion.vision.errors import RenderError, VisionError
from companion.vision.layout import Polygon, Pose, load_layout
from companion.vision.synth import EASY, HARD, Conditions, render, render_sequence

DATA = Path(__file__).parent.parent / "data" / "vision"
SMALL = EASY.with_size(640, 360)


def position(name: str) -> dict[str, Any]:
    return json.loads((DATA / "positions" / name).read_text())


def detect(image: np.ndarray) -> dict[int, np.ndarray]:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(image)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel(), strict=True)}


def test_same_seed_same_image_other_seed_other_image() -> None:
    pos = position("el_grande_round3.json")
    a, ta = render(pos, seed=4, conditions=SMALL)
    b, tb = render(pos, seed=4, conditions=SMALL)
    c, tc = render(pos, seed=5, conditions=SMALL)
    assert a.shape == (360, 640, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b) and ta == tb
    assert not np.array_equal(a, c)
    assert ta["cubes"] != tc["cubes"]
    json.dumps(ta)  # the truth is plain JSON


def test_el_grande_truth_counts_follow_the_position() -> None:
    pos = position("el_grande_round3.json")
    layout = load_layout("el-grande")
    _, truth = render(pos, seed=1, conditions=SMALL)
    expected = {region: counts for region, counts in pos["regions"].items()}
    for seat, player in enumerate(pos["players"], 1):
        expected[f"court_{seat}"] = {player: pos["courts"][player]}
    assert truth["counts"] == expected
    assert truth["seats"] == {"court_1": "red", "court_2": "yellow", "court_3": "blue"}
    # Every cube drawn lies inside its own area, and there are as many as counted.
    assert len(truth["cubes"]) == sum(sum(c.values()) for c in expected.values())
    for cube in truth["cubes"]:
        assert layout.polygon(cube["area"]).contains(tuple(cube["board"]))
        assert layout.area_at(tuple(cube["board"])) == cube["area"]
    # The Castillo's content is hidden: not counted, only said to be there.
    assert "castillo" not in truth["counts"]
    assert truth["hidden"] == {"castillo": "inside the tower: not visible"}
    kinds = {(p["kind"], p["colour"], p["area"]) for p in truth["pieces"]}
    assert ("king", "black", "castilla_la_nueva") in kinds
    assert {("grande", c, r) for c, r in pos["grandes"].items()} <= kinds
    assert ("tower", "tower", "castillo") in kinds
    assert truth["scoreboards"] == {"valencia": [8, 4, 0]}
    assert truth["scoreboards_resting"] == [[4, 0, 0]]


def test_el_grande_courts_default_to_the_setup_seven() -> None:
    pos = {
        "game": "el-grande",
        "players": ["green", "black"],
        "king": "aragon",
        "grandes": {"green": "galicia", "black": "sevilla"},
    }
    _, truth = render(pos, seed=0, conditions=SMALL)
    assert truth["counts"] == {"court_1": {"green": 7}, "court_2": {"black": 7}}


def test_carolus_truth_counts_tiles_courts_and_reserves() -> None:
    pos = position("carolus_two_players.json")
    layout = load_layout("carolus-magnus")
    _, truth = render(pos, seed=2, conditions=SMALL, dice=["red", "crown", "pink"])
    for tile in pos["ring"]:
        assert truth["counts"].get(tile["id"], {}) == tile["knights"]
    assert truth["counts"]["court_1"] == pos["courts"]["white"]
    assert truth["counts"]["court_2"] == pos["courts"]["black"]
    assert truth["counts"]["reserve_1"] == pos["reserves"]["white"]
    assert truth["counts"]["reserve_2"] == pos["reserves"]["black"]
    assert truth["dice"] == ["red", "crown", "pink"]
    dice = [p for p in truth["pieces"] if p["kind"] == "die"]
    assert [d["face"] for d in dice] == ["red", "crown", "pink"]
    on_tiles = {
        p["area"]: p["colour"]
        for p in truth["pieces"]
        if p["kind"] == "castle" and p["area"].startswith("t")
    }
    assert on_tiles == {t["id"]: t["castle"] for t in pos["ring"] if t["castle"]}
    supply = [p["colour"] for p in truth["pieces"] if p["area"] == "castle_supply"]
    assert sorted(supply) == ["black"] * 4 + ["white"] * 6
    assert [p["area"] for p in truth["pieces"] if p["kind"] == "charlemagne"] == ["t01"]
    # Knights lie on their own tile as placed (found through the tile's marker pose).
    for cube in truth["cubes"]:
        if cube["area"].startswith("t"):
            x, y, a = truth["tiles"][cube["area"]]["pose"]
            poly = layout.tile_polygon(cube["area"], Pose(x, y, a))
            assert poly.contains(tuple(cube["board"]))
        elif cube["area"].startswith("court_"):
            x, y, a = truth["courts"][cube["area"]]["pose"]
            row = layout.court_row_polygon(cube["colour"], Pose(x, y, a))
            assert row.contains(tuple(cube["board"]))


def _gap(a: Polygon, b: Polygon) -> float:
    return min(min(b.distance(p) for p in a), min(a.distance(p) for p in b))


@pytest.mark.parametrize("name", ["carolus_two_players.json", "carolus_teams_merged.json"])
def test_merged_regions_are_pushed_together(name: str) -> None:
    pos = position(name)
    layout = load_layout("carolus-magnus")
    _, truth = render(pos, seed=3, conditions=SMALL)
    poly = {t: layout.tile_polygon(t, Pose(*v["pose"])) for t, v in truth["tiles"].items()}
    order = [t["id"] for t in pos["ring"]]
    grouped = {frozenset(itertools.pairwise(g)) for g in pos["regions"]}
    pairs_in_groups = set().union(*grouped)
    for a, b in zip(order, order[1:] + order[:1], strict=True):
        gap = _gap(poly[a], poly[b])
        if (a, b) in pairs_in_groups:
            assert gap < 0.6, f"{a}-{b} are one region but lie {gap:.1f} mm apart"
        else:
            assert gap > 2.0, f"{a}-{b} are separate regions but touch"
    assert truth["regions"] == pos["regions"]
    if pos.get("teams"):
        colours = {p["colour"] for p in truth["pieces"] if p["kind"] == "castle"}
        assert colours == {"white", "grey"}
        assert set(truth["courts"]) == {"court_1", "court_2", "court_3", "court_4"}
        supply = [p["colour"] for p in truth["pieces"] if p["area"] == "castle_supply"]
        assert sorted(supply) == ["grey"] * 6 + ["white"] * 7  # castles_left, by team colour


@pytest.mark.parametrize(
    ("name", "seed"),
    [("el_grande_round3.json", 11), ("carolus_two_players.json", 12)],
)
def test_every_marker_is_detected_in_easy_renders(name: str, seed: int) -> None:
    image, truth = render(position(name), seed=seed, conditions=EASY)
    found = detect(image)
    expected = {m["id"]: np.array(m["corners"]) for m in truth["markers"]}
    assert set(found) == set(expected)
    for marker_id, corners in found.items():
        error = np.abs(corners - expected[marker_id]).max()
        assert error < 1.5, f"marker {marker_id}: corners {error:.2f} px from the truth"
    assert all(m["in_view"] and not m["occluded"] for m in truth["markers"])


def test_truth_camera_and_homography_agree_with_the_markers() -> None:
    _, truth = render(position("el_grande_round3.json"), seed=8, conditions=HARD)
    cam = truth["camera"]
    k = np.array(cam["matrix"])
    dist = np.array(cam["dist"])
    h = np.array(truth["homography"])
    for m in truth["markers"]:
        board = np.array(m["board_corners"], dtype=np.float64)
        pts = np.column_stack([board, np.zeros(4)])
        projected, _ = cv2.projectPoints(pts, np.array(cam["rvec"]), np.array(cam["tvec"]), k, dist)
        assert np.abs(projected.reshape(4, 2) - np.array(m["corners"])).max() < 0.05
        # The homography maps the board to the undistorted image.
        undist = cv2.undistortPoints(np.array(m["corners"]).reshape(-1, 1, 2), k, dist, P=k)
        via_h = cv2.perspectiveTransform(board.reshape(-1, 1, 2), h)
        assert np.abs(undist - via_h).max() < 0.5
    assert truth["conditions"] == "hard"
    assert abs(dist[0]) > 0 and truth["image_size"] == [1920, 1080]


def test_hand_is_drawn_and_flagged() -> None:
    pos = position("el_grande_round3.json")
    clean, t0 = render(pos, seed=6, conditions=SMALL)
    arm, t1 = render(pos, seed=6, conditions=SMALL, hand=True)
    assert not t0["occluded"] and t0["occluded_areas"] == [] and t0["hand"] is None
    assert t1["occluded"] and t1["occluded_areas"] and t1["hand"]["reach"] == 1.0
    # The same table: the hand changes part of the picture, not the scene.
    assert t0["cubes"] == [{**c, "occluded": False} for c in t1["cubes"]]
    changed = np.abs(clean.astype(int) - arm.astype(int)).max(axis=2) > 40
    assert 0.01 < changed.mean() < 0.6
    hidden = [c for c in t1["cubes"] + t1["pieces"] if c["occluded"]]
    assert hidden, "the hand reaches for a piece, so it covers at least one"
    for c in hidden:
        u, v = (round(x) for x in c["image"])
        assert changed[v, u]
        assert c["area"] in t1["occluded_areas"]


def test_sequence_hand_enters_and_leaves_over_a_still_table() -> None:
    frames = render_sequence(
        position("el_grande_round3.json"), seed=2, conditions=SMALL, frames=7, hand_frames=(2, 4)
    )
    assert [t["frame"] for _, t in frames] == list(range(7))
    assert [t["occluded"] for _, t in frames] == [False, False, True, True, True, False, False]
    reach = [t["hand"]["reach"] if t["hand"] else 0.0 for _, t in frames]
    assert reach[3] == max(reach) == 1.0
    first, last = frames[0][0], frames[6][0]
    assert not np.array_equal(first, last), "each frame has its own sensor noise"
    assert np.abs(first.astype(int) - last.astype(int)).mean() < 4
    assert frames[0][1]["cubes"] == frames[6][1]["cubes"]


def test_resolution_and_conditions() -> None:
    image, truth = render(
        position("carolus_two_players.json"), seed=1, conditions=HARD.with_size(1920, 1080)
    )
    assert image.shape == (1080, 1920, 3)
    assert truth["image_size"] == [1920, 1080]
    custom = replace(SMALL, noise=(0.0, 0.0), jpeg_quality=None)
    _, t = render(position("carolus_two_players.json"), seed=1, conditions=custom)
    assert t["conditions"]["jpeg_quality"] is None
    with pytest.raises(RenderError, match="tilt"):
        Conditions(tilt=(0.0, 50.0))
    with pytest.raises(RenderError, match="image size"):
        Conditions(width=10)


def _edit(doc: dict[str, Any], path: list[Any], value: Any, delete: bool) -> None:
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value


CASES = json.loads((DATA / "synth_bad_positions.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["error"][:40] for c in CASES])
def test_bad_position_is_refused_clearly(case: dict[str, Any]) -> None:
    doc = position(case["position"])
    good = copy.deepcopy(doc)
    _edit(doc, case["path"], case.get("value"), case.get("delete", False))
    with pytest.raises(RenderError) as info:
        render(doc, seed=0, conditions=SMALL)
    assert case["error"] in str(info.value)
    assert isinstance(info.value, VisionError) and isinstance(info.value, ValueError)
    render(good, seed=0, conditions=SMALL)  # the unedited position renders


def test_a_bad_position_gets_the_engines_message() -> None:
    # The renderer has no position rules of its own: it reads positions through the engines.
    doc = position("el_grande_round3.json")
    doc["regions"]["galicia"]["red"] = -1
    with pytest.raises(RenderError) as info:
        render(doc, seed=0, conditions=SMALL)
    assert isinstance(info.value.__cause__, PositionError)
    assert info.value.__cause__.path == "regions.galicia.red"
    assert str(info.value) == "regions.galicia.red: -1 is not a count"


def test_json_order_does_not_change_the_render() -> None:
    # Pieces are placed in the engines' order (seats, regions, colours), not the JSON's.
    pos = position("carolus_two_players.json")
    shuffled = copy.deepcopy(pos)
    for tile in shuffled["ring"]:
        tile["knights"] = dict(reversed(tile["knights"].items()))
    for key in ("courts", "reserves"):
        shuffled[key] = {p: dict(reversed(c.items())) for p, c in reversed(pos[key].items())}
    a, ta = render(pos, seed=3, conditions=SMALL)
    b, tb = render(shuffled, seed=3, conditions=SMALL)
    assert np.array_equal(a, b) and ta == tb
    eg = position("el_grande_round3.json")
    eg_shuffled = {**eg, "regions": dict(reversed(eg["regions"].items()))}
    eg_shuffled["grandes"] = dict(reversed(eg["grandes"].items()))
    a, ta = render(eg, seed=3, conditions=SMALL)
    b, tb = render(eg_shuffled, seed=3, conditions=SMALL)
    assert np.array_equal(a, b) and ta == tb


def test_a_legal_position_too_crowded_for_the_layout_is_refused() -> None:
    # The engines allow 30 caballeros of each of 5 colours in one region; the board does not
    # hold 150 cubes in Galicia.
    colours = ["yellow", "green", "blue", "red", "black"]
    crowded = {
        "game": "el-grande",
        "players": colours,
        "king": "aragon",
        "grandes": dict.fromkeys(colours, "aragon"),
        "regions": {"galicia": dict.fromkeys(colours, 30)},
    }
    with pytest.raises(RenderError, match=r"cannot fit another .* cube in galicia"):
        render(crowded, seed=0, conditions=SMALL)
    # 16 knights of each colour on one territory are within the game's cubes, not the tile's.
    cm = position("carolus_two_players.json")
    cm["ring"][0]["knights"] = {c: 16 for c in ("red", "blue", "yellow", "green", "pink")}
    with pytest.raises(RenderError, match=r"cannot fit another .* cube in t01"):
        render(cm, seed=0, conditions=SMALL)


def test_layout_of_the_other_game_is_refused() -> None:
    with pytest.raises(RenderError, match="layout 'carolus-magnus' is for carolus-magnus"):
        render(position("el_grande_round3.json"), "carolus-magnus", conditions=SMALL)


def test_die_faces_are_checked() -> None:
    with pytest.raises(RenderError, match="dice: 'purple' is not a die face"):
        render(position("carolus_two_players.json"), conditions=SMALL, dice=["purple"])


def test_pieces_do_not_overlap() -> None:
    _, truth = render(position("carolus_two_players.json"), seed=9, conditions=SMALL)
    points = [np.array(c["board"]) for c in truth["cubes"] + truth["pieces"]]
    for a, b in itertools.combinations(points, 2):
        assert np.linalg.norm(a - b) > 9.0  # cubes are 10 mm: centres never closer


def test_a_crowded_territory_is_packed_in_rows() -> None:
    pos = position("carolus_two_players.json")
    pos["ring"][0]["knights"] = {c: 5 for c in ("red", "blue", "yellow", "green", "pink")}
    pos["ring"][0]["castle"] = "white"
    _, truth = render(pos, seed=1, conditions=SMALL)
    assert truth["counts"]["t01"] == pos["ring"][0]["knights"]
    on_tile = [np.array(c["board"]) for c in truth["cubes"] if c["area"] == "t01"]
    on_tile += [np.array(p["board"]) for p in truth["pieces"] if p["area"] == "t01"]
    assert len(on_tile) == 27  # 25 knights, the castle and Charlemagne
    for a, b in itertools.combinations(on_tile, 2):
        assert np.linalg.norm(a - b) > 9.0
