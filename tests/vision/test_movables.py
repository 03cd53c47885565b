"""Carolus tiles and court cards on a still table: each marker looked for only where it lay;
the whole frame searched again when one is missing or has moved."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest

from benchmarks.bench_vision import POSITIONS
from companion.vision import homography as hg
from companion.vision import pipeline
from companion.vision.calibration import Calibration, uncalibrated
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.geometry import locate_movables, movables_in_windows
from companion.vision.layout import Pose, load_layout
from companion.vision.pipeline import Reader, _moved
from companion.vision.synth import EASY, render

LAYOUT = load_layout("carolus-magnus")
MOVED = functools.partial(_moved, config=DEFAULT_CONFIG)


@functools.cache
def table() -> tuple[Any, Calibration, dict[str, Pose]]:
    _, position = POSITIONS["carolus-magnus"](2)
    image, _ = render(position, LAYOUT, seed=2, conditions=EASY)
    image.setflags(write=False)
    cal = uncalibrated(image, LAYOUT)
    tiles, courts = locate_movables(image, cal, LAYOUT)
    poses = dict(tiles) | {f"court_{s}": p for s, p in courts.items()}
    return image, cal, poses


def test_every_marker_is_found_where_it_lay() -> None:
    image, cal, poses = table()
    assert len(poses) >= 15
    seen = movables_in_windows(image, cal, LAYOUT, poses)
    assert seen.keys() == poses.keys()
    for key, pose in seen.items():
        assert not MOVED(poses[key], pose)


def test_a_tile_moved_away_is_seen_moved_or_not_at_all() -> None:
    image, cal, poses = table()
    old = poses["t05"]
    # Where it lay 8 mm to the side the window still holds its marker, where it is now.
    near = poses | {"t05": Pose(old.x + 8.0, old.y, old.angle)}
    seen = movables_in_windows(image, cal, LAYOUT, near)
    assert MOVED(near["t05"], seen["t05"]) and not MOVED(old, seen["t05"])
    far = poses | {"t05": Pose(old.x + 120.0, old.y, old.angle)}
    assert movables_in_windows(image, cal, LAYOUT, far).keys() == poses.keys() - {"t05"}


def test_a_covered_marker_is_not_seen() -> None:
    image, cal, poses = table()
    covered = _cover(image, cal, poses["t09"], "t09")
    assert movables_in_windows(covered, cal, LAYOUT, poses).keys() == poses.keys() - {"t09"}


@pytest.mark.parametrize("shift", [0.0, 60.0])
def test_the_reader_keeps_or_finds_again_each_tiles_place(shift: float) -> None:
    image, cal, poses = table()
    old = poses["t05"]
    lay = {k: (p.x, p.y, p.angle) for k, p in poses.items()}
    lay["t05"] = (old.x + shift, old.y, old.angle)
    with Reader(replace(cal, movables=lay), LAYOUT) as reader:
        tiles, _, assumed = reader._places_now(image, None)
    assert assumed == []
    assert not MOVED(tiles["t05"], old)


def _cover(image: Any, cal: Calibration, pose: Pose, tile: str) -> Any:
    covered = image.copy()
    corners = hg.project(cal.h, list(LAYOUT.tile_marker(tile).corners(pose)), cal.lens)
    cv2.fillConvexPoly(covered, np.round(corners).astype(np.int32), (128, 128, 128))
    return covered


def test_a_marker_missing_from_an_unchanged_frame_is_not_searched_for_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image, cal, poses = table()
    covered = _cover(image, cal, poses["t09"], "t09")
    searches: list[int] = []

    def counted(*args: Any) -> Any:
        searches.append(1)
        return locate_movables(*args)

    monkeypatch.setattr(pipeline, "locate_movables", counted)
    # t09 never seen: not at calibration (its pose unknown) and now under a castle.
    lay = {k: (p.x, p.y, p.angle) for k, p in poses.items() if k != "t09"}
    with Reader(replace(cal, movables=lay), LAYOUT) as reader:
        for _ in range(3):
            tiles, _, _ = reader._places_now(covered, None)
            assert "t09" not in tiles
        assert len(searches) == 1
        # A few grey levels of sensor noise are no change.
        noisy = cv2.add(covered, np.full_like(covered, 6))
        reader._places_now(noisy, None)
        assert len(searches) == 1
        # The castle lifted: the frame changed there, so it is searched and t09 found.
        tiles, _, assumed = reader._places_now(image, None)
        assert len(searches) == 2
        assert not MOVED(tiles["t09"], poses["t09"]) and assumed == []
        # A tile moved (its marker seen off where it lay) is searched for at once.
        old = poses["t05"]
        reader._poses["t05"] = Pose(old.x + 8.0, old.y, old.angle)
        tiles, _, _ = reader._places_now(image, None)
        assert len(searches) == 3
        assert not MOVED(tiles["t05"], old)


def _marker(marker_id: int, side: int) -> Any:
    """A DICT_4X4_50 marker drawn large, then shrunk to ``side`` px as a far camera sees it."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    big = cv2.aruco.generateImageMarker(dictionary, marker_id, 60)
    return cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA)


def test_a_marker_too_small_for_the_first_look_is_found_in_the_second() -> None:
    # A court card's 26 mm marker at a wide frame's far corner (hard Carolus seed 16): 14 px
    # wide, its perimeter under OpenCV's least (0.03 of the frame's longer side) at either
    # scale unless the doubled look's least is halved with it.
    frame = np.full((1080, 1920), 200, np.uint8)
    small = _marker(30, 14)
    frame[500:524, 900:924] = 255  # its white margin
    frame[505:519, 905:919] = small
    frame = cv2.GaussianBlur(frame, (0, 0), 0.6)
    assert 30 not in hg.detect_markers(frame)
    found = hg.detect_markers(frame, want=[30])
    assert 30 in found
    assert np.allclose(found[30].mean(axis=0), (911.5, 511.5), atol=1.0)


def test_a_blurred_marker_is_found_by_the_sharper_third_look() -> None:
    # A 24 px tile marker as blurred as hard Carolus seed 34's: its cells show neither as they
    # are nor sharpened as for the second look, only sharpened more.
    frame = np.full((1080, 1920), 170, np.uint8)
    small = _marker(14, 24)
    frame[496:528, 896:928] = 235  # its white margin
    frame[500:524, 900:924] = np.where(small > 0, 235, 30)
    frame = cv2.GaussianBlur(frame, (0, 0), 1.4)
    found = hg.detect_markers(frame, want=[14])
    assert 14 in found
    assert np.allclose(found[14].mean(axis=0), (911.5, 511.5), atol=1.0)


def test_the_whole_frame_search_wants_only_the_cards_in_play(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image, cal, _ = table()
    wanted: list[set[int]] = []
    detect = hg.detect_markers

    def spied(frame: Any, want: Any = ()) -> Any:
        wanted.append(set(want))
        return detect(frame, want)

    monkeypatch.setattr(hg, "detect_markers", spied)
    cards = {c.seat: c.marker for c in LAYOUT.courts}
    tiles = {t.marker for t in LAYOUT.tiles}
    # Seats not known yet (as at calibration): every card is wanted.
    locate_movables(image, cal, LAYOUT)
    assert wanted[-1] == tiles | set(cards.values())
    # Two players: the other seats' cards are not on the table, so the sharper looks that a
    # missing wanted marker starts are not run for them.
    tiles_seen, courts_seen = locate_movables(image, replace(cal, courts_in_play=(1, 2)), LAYOUT)
    assert wanted[-1] == tiles | {cards[1], cards[2]}
    assert len(tiles_seen) == 15 and {1, 2} <= courts_seen.keys()
