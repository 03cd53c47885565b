"""The whole read on tables painted here (tests/vision/drawtable.py): counts, figures, hands."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.vision.calibration import (
    Calibration,
    CalibrationError,
    calibrate,
    markers_moved,
    uncalibrated,
)
from companion.vision.geometry import place_of, places_of
from companion.vision.homography import MarkersNotFound
from companion.vision.layout import Layout, load_layout
from companion.vision.observation import Observation, ObservationError
from companion.vision.pipeline import NotAFrame, Reader
from tests.vision.drawtable import Table, paint


@pytest.fixture(scope="module")
def eg() -> Layout:
    return load_layout("el-grande")


def centre(layout: Layout, area: str) -> tuple[float, float]:
    return layout.polygon(area).centroid


def el_grande_table(layout: Layout) -> Table:
    t = Table(layout)
    gx, gy = centre(layout, "galicia")
    t.cubes += [("red", gx - 10, gy), ("red", gx, gy), ("red", gx + 10, gy), ("blue", gx, gy + 22)]
    ax, ay = centre(layout, "aragon")
    t.cubes += [("yellow", ax + dx * 10, ay + dy * 10) for dx in range(3) for dy in range(2)]
    t.squares.append(("red", ax - 32, ay, 16))  # red grande beside the yellow block
    sx, sy = centre(layout, "sevilla")
    t.discs.append(("black", sx, sy, 22))  # the king
    t.cubes += [("black", sx + 17, sy), ("black", sx + 27, sy)]  # touching the king? no: near
    vx, vy = centre(layout, "valencia")
    t.squares.append(("blue", vx, vy, 16))
    t.cubes += [("green", vx + 14, vy - 3), ("green", vx + 14, vy + 7)]
    return t


EXPECTED = {
    "galicia": {"red": 3, "blue": 1},
    "aragon": {"yellow": 6},
    "sevilla": {"black": 2},
    "valencia": {"green": 2},
}


def test_el_grande_counts_and_figures(eg: Layout) -> None:
    img = paint(el_grande_table(eg))
    obs = Reader(uncalibrated(img, eg), eg).read(img)
    assert not obs.occluded
    got = {a: dict(c) for a, c in obs.counts.items() if c}
    assert got == EXPECTED
    assert obs.figures["king"] == "sevilla"
    assert obs.figures["grande:red"] == "aragon"
    assert obs.figures["grande:blue"] == "valencia"
    assert "grande:yellow" not in obs.figures  # a 3x2 block of cubes is no grande
    assert "castillo" in obs.unread  # hidden in the tower, never counted


def test_cube_on_a_border_goes_by_its_centre(eg: Layout) -> None:
    t = Table(eg)
    # Galicia's right edge is x=250 at y=125: a cube mostly left of it, one mostly right.
    t.cubes += [("red", 246, 125), ("red", 256, 125)]
    img = paint(t)
    obs = Reader(uncalibrated(img, eg), eg).read(img)
    assert obs.count("galicia", "red") == 1
    assert obs.count("pais_vasco", "red") == 1


def test_hand_over_the_board_gives_no_counts(eg: Layout) -> None:
    t = el_grande_table(eg)
    img_clear = paint(t)
    cal = uncalibrated(img_clear, eg)
    t.hand = (400.0, 300.0)
    img = paint(t)
    obs = Reader(cal, eg).read(img)
    assert obs.occluded
    assert not obs.counts and not obs.figures and not obs.dice
    assert "hand" in obs.unread["board"]


def test_frames_that_moved_give_an_occluded_observation(eg: Layout) -> None:
    t = el_grande_table(eg)
    a = paint(t)
    t.hand = (700.0, 500.0)
    b = paint(t)
    reader = Reader(uncalibrated(a, eg), eg)
    # The median of the three would hide the hand; the motion between frames does not.
    moved = reader.read_still([a, a, b])
    assert moved.occluded and "moved" in moved.unread["board"]
    still = reader.read_still([a, a, a])
    assert not still.occluded and still.frames == 3
    assert still.count("galicia", "red") == 3


def test_blank_image_names_the_missing_markers(eg: Layout) -> None:
    blank = np.full((480, 640, 3), 200, np.uint8)
    with pytest.raises(MarkersNotFound, match=r"id 0, 1, 2, 3") as err:
        uncalibrated(blank, eg)
    assert err.value.missing == (0, 1, 2, 3)


def test_one_covered_marker_is_named_and_the_board_still_read(eg: Layout) -> None:
    t = el_grande_table(eg)
    img = paint(t)
    # Paint over the top-left marker (id 0) as a coffee cup would.
    img[:120, :160] = 90
    obs = Reader(uncalibrated(img, eg), eg).read(img)
    assert "marker 0" in obs.unread
    assert {a: dict(c) for a, c in obs.counts.items() if c} == EXPECTED


def test_two_covered_markers_are_named(eg: Layout) -> None:
    img = paint(Table(eg))
    img[:120, :160] = 90  # id 0, top left
    img[-120:, -160:] = 90  # id 2, bottom right
    with pytest.raises(MarkersNotFound) as err:
        uncalibrated(img, eg)
    assert err.value.missing == (0, 2)


def test_frame_of_another_size_is_refused(eg: Layout) -> None:
    img = paint(Table(eg))
    reader = Reader(uncalibrated(img, eg), eg)
    with pytest.raises(NotAFrame, match="calibrate again"):
        reader.read(img[:100, :100])
    with pytest.raises(NotAFrame, match="not a colour image"):
        reader.read(img[..., 0])


def test_calibration_samples_setup_colours_and_round_trips(eg: Layout, tmp_path: Path) -> None:
    setup = {
        "game": "el-grande",
        "players": ["red", "blue"],
        "king": "sevilla",
        "grandes": {"red": "galicia", "blue": "aragon"},
        "regions": {"galicia": {"red": 2}, "aragon": {"blue": 2}},
    }
    t = Table(eg)
    for colour, area in (("red", "galicia"), ("blue", "aragon")):
        x, y = centre(eg, area)
        t.squares.append((colour, x - 20, y, 16))
        t.cubes += [(colour, x, y), (colour, x + 12, y)]
    img = paint(t)
    cal = calibrate(img, eg, setup)
    assert cal.sampled == ("blue", "red")
    path = tmp_path / "cal.json"
    cal.save(path)
    again = Calibration.load(path)
    assert again.colours.pieces == cal.colours.pieces
    assert np.allclose(again.h, cal.h)
    # The board's colours split into print and table the same way after the round trip.
    printed, table = again.print_and_table
    assert (printed, table) == cal.print_and_table
    assert set(printed) | set(table) == set(cal.colours.background) and printed
    assert not markers_moved(img, again)
    obs = Reader(again, eg).read(img)
    assert obs.count("galicia", "red") == 2 and obs.count("aragon", "blue") == 2
    assert obs.figures["grande:red"] == "galicia"


def test_markers_moved_when_the_camera_moves(eg: Layout) -> None:
    img = paint(Table(eg))
    cal = uncalibrated(img, eg)
    shifted = np.roll(img, 12, axis=1)
    assert markers_moved(shifted, cal)


def test_bad_calibration_file(tmp_path: Path) -> None:
    p = tmp_path / "cal.json"
    p.write_text(json.dumps({"format": 1, "layout": "el-grande"}))
    with pytest.raises(ValueError, match="not a calibration file"):
        Calibration.load(p)
    with pytest.raises(ValueError, match="no such calibration file"):
        Calibration.load(tmp_path / "missing.json")


def test_observation_json_round_trip_and_checks() -> None:
    obs = Observation(
        "el-grande",
        counts={"galicia": {"red": 3, "blue": 0}},
        figures={"king": "aragon"},
        confidence={"galicia": 0.9},
    )
    data = json.loads(obs.dumps())
    assert data["counts"] == {"galicia": {"red": 3}}
    assert Observation.from_json(data) == obs
    with pytest.raises(ObservationError, match="unknown key 'extra'"):
        Observation.from_json({**data, "extra": 1})
    with pytest.raises(ObservationError, match=r"counts\.galicia\.red: -1 is not a count"):
        Observation.from_json({**data, "counts": {"galicia": {"red": -1}}})
    with pytest.raises(ObservationError, match="occluded observation cannot carry"):
        Observation("el-grande", occluded=True, counts={"galicia": {"red": 1}})


def test_places_looked_up_at_once_are_those_found_one_by_one(eg: Layout) -> None:
    """The cubes' feet are placed all at once (pipeline.places_of): the place each point
    lies in, the nearest one just outside an outline, none far off the board, as
    place_of finds them one by one (points off the image and at its edges included)."""
    img = paint(el_grande_table(eg))
    geo = Reader(uncalibrated(img, eg), eg).geometry()
    w, h = geo.size
    rng = np.random.default_rng(3)
    points = np.concatenate(
        [
            rng.uniform((-30, -30), (w + 30, h + 30), (3000, 2)),
            [[-0.5, -0.5], [-1.5, 3.0], [w - 0.5, h - 0.5], [w, h], [w - 1, 0.99]],
        ]
    )
    want = [place_of(geo, x, y) for x, y in points.tolist()]
    assert places_of(geo, points) == want
    assert None in want and len({p for p in want if p is not None}) > 10


def test_only_the_players_grandes_are_looked_for(eg: Layout) -> None:
    """A grande-sized yellow square on a table whose set-up has no yellow player is no
    grande (a yellow grande of a game without yellow is none: the yellow there is something
    else); with every colour in play it is one."""
    from dataclasses import replace

    t = Table(eg)
    for colour, region in (("green", "granada"), ("yellow", "aragon")):
        x, y = eg.polygon(region).centroid
        t.squares.append((colour, x, y, 16))
    img = paint(t)
    everyone = uncalibrated(img, eg)
    assert everyone.players == ()
    obs = Reader(everyone, eg).read(img)
    assert obs.figures["grande:green"] == "granada"
    assert obs.figures["grande:yellow"] == "aragon"
    two = replace(everyone, players=("green", "red"))
    obs = Reader(two, eg).read(img)
    assert obs.figures["grande:green"] == "granada"
    assert "grande:yellow" not in obs.figures
    # (Written to the calibration file and read back; a file whose players are no colours of
    # the game is refused, not read as a game without grandes.)
    assert Calibration.from_json(two.to_json()).players == ("green", "red")
    with pytest.raises(CalibrationError, match="not a list of El Grande colours"):
        Calibration.from_json({**two.to_json(), "players": "green"})


def test_a_moved_board_keeps_what_the_calibration_measured(eg: Layout) -> None:
    """The markers moved (the board was nudged): the calibration gets the new homography
    and keeps its colours, cube factors, players and the rest."""
    from dataclasses import replace

    from companion.vision.calibration import refreshed

    img = paint(Table(eg))
    cal = replace(uncalibrated(img, eg), factors={"green": 0.9}, players=("green", "red"))
    moved = np.roll(img, (12, 20), axis=(0, 1))
    fresh = refreshed(moved, cal, eg)
    assert fresh.homography != cal.homography
    assert fresh.markers != cal.markers
    assert fresh.factors == {"green": 0.9}
    assert fresh.players == ("green", "red")
    assert fresh.colours == cal.colours
    assert refreshed(img, cal, eg) is cal  # (not moved: the same calibration)
