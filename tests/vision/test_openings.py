"""Openings with even kernels keep what they keep where it lies (cv2.morphologyEx's opening
dilates with its erosion's anchor: with an even kernel, a pixel down and right of it)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.colour import UNKNOWN
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.masks import opened_by


def _fitting(mask: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """The union of the kernel's placements lying wholly inside the mask (and the image)."""
    out = np.zeros(mask.shape, bool)
    ys, xs = np.nonzero(kernel)
    h, w = mask.shape
    for y in range(h - kernel.shape[0] + 1):
        for x in range(w - kernel.shape[1] + 1):
            if mask[y + ys, x + xs].all():
                out[y + ys, x + xs] = True
    return out


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("shape", [cv2.MORPH_RECT, cv2.MORPH_ELLIPSE])
def test_opened_by_is_the_union_of_the_kernels_that_fit(size: int, shape: int) -> None:
    """Squares and OpenCV's discs, odd and even (an even disc is lopsided: kept the right way
    round), away from the image's edge."""
    kernel = cv2.getStructuringElement(shape, (size, size))
    rng = np.random.default_rng(size)
    for _ in range(5):
        mask = np.zeros((30, 30), np.uint8)
        mask[size:-size, size:-size] = rng.random((30 - 2 * size, 30 - 2 * size)) < 0.7
        for y, x in rng.integers(size, 30 - 2 * size, (2, 2)):
            mask[y : y + size + 1, x : x + size] = 1  # (blocks the kernel fits in)
        got = opened_by(mask, kernel) > 0
        assert got.any()
        assert np.array_equal(got, _fitting(mask, kernel))
        if size % 2:  # (odd kernels: the same as OpenCV's opening)
            assert np.array_equal(got, cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel) > 0)


def test_cleaning_a_cubes_mask_keeps_its_blobs_in_place() -> None:
    from companion.vision.cubes import clean

    mask = np.zeros((12, 12), np.uint8)
    mask[3:7, 4:9] = 1
    mask[9, 2] = 1  # a speck
    want = np.zeros_like(mask)
    want[3:7, 4:9] = 1
    assert np.array_equal(clean(mask), want)


def _hand(
    strange: np.ndarray, skin: np.ndarray, hand_zone: np.ndarray, outside: np.ndarray
) -> str | None:
    from companion.vision.hand import hand_check

    labels = np.where(strange, UNKNOWN, 0).astype(np.uint8)
    none = np.zeros(strange.shape, bool)
    return hand_check(labels, (skin, none), hand_zone, hand_zone, outside, 40.0, DEFAULT_CONFIG)


@pytest.mark.parametrize("gap", [0, 1])
def test_a_hands_blob_reaches_the_frames_edge_only_where_it_lies(gap: int) -> None:
    """A big blob reaching the frame's last two rows (next to its edge) is a hand; one ending
    a row short of them is not."""
    strange = np.zeros((40, 40), bool)
    strange[8 : 39 - gap, 8:30] = True
    everywhere = np.ones_like(strange)
    found = _hand(strange, np.zeros_like(strange), everywhere, ~everywhere)
    assert (found is not None) == (gap == 0), found


@pytest.mark.parametrize("gap", [0, 1])
def test_a_sleeve_joins_a_blob_to_the_frames_edge_only_where_it_lies(gap: int) -> None:
    """Skin off the hand zone (a sleeve) from the blob to the frame's last two rows joins it
    to the edge; one ending a row short of them does not."""
    strange = np.zeros((40, 50), bool)
    strange[5:20, 10:40] = True
    hand_zone = np.zeros_like(strange)
    hand_zone[:20] = True
    sleeve = np.zeros_like(strange)
    sleeve[20 : 39 - gap, 15:25] = True
    found = _hand(strange, sleeve, hand_zone, np.zeros_like(strange))
    assert (found is not None) == (gap == 0), found


@pytest.mark.parametrize("across", [19, 20])
def test_an_arm_in_the_frames_corner_is_counted_whole(across: int) -> None:
    """A small blob over the board joined to skin off it (an arm) is a hand reaching in if the
    arm is hand_min_cubes footprints or more (here 200 pixels), all of it counted where it
    lies in a corner of the frame."""
    strange = np.zeros((40, 50), bool)
    strange[22:30, 5:13] = True  # 64 pixels: over hand_reach_cubes footprints, under 200
    hand_zone = np.zeros_like(strange)
    hand_zone[:30] = True
    arm = np.zeros_like(strange)
    arm[30:, :across] = True
    found = _hand(strange, arm, hand_zone, ~hand_zone)
    assert (found is not None) == (across == 20), found


def test_a_dark_piece_is_found_where_it_lies() -> None:
    """The dark pieces' opening by a square of an even side leaves a black square in place."""
    from companion.vision.figures import _dark_pixels

    lab = np.full((40, 40, 3), (200, 128, 128), np.uint8)
    lab[12:22, 15:25] = (20, 128, 128)
    print_l = np.full((40, 40), 200, np.uint8)
    cells = np.full((1, 1, 3), (200, 128, 128), np.uint8)
    board = np.ones((40, 40), bool)
    dark = _dark_pixels(
        lab, print_l, board, cells, 64, (0, 0), np.zeros(2, np.float32), 200.0, 6, DEFAULT_CONFIG
    )
    want = np.zeros((40, 40), bool)
    want[12:22, 15:25] = True
    assert np.array_equal(dark > 0, want)


def test_a_die_is_found_where_it_lies() -> None:
    """A die's pixels opened by a disc of even width (here 8 pixels) stay where the die is."""
    from companion.vision.dice import die_pixels

    side = 18.0
    assert round(DEFAULT_CONFIG.die_min_width * side) % 2 == 0
    grey = np.full((120, 120), 80.0, np.float32)
    grey[50:70, 40:60] = 200.0
    bgr = np.repeat(grey[..., None], 3, axis=2)
    tray = np.ones((120, 120), bool)
    pixels = die_pixels(bgr, grey, tray, side, DEFAULT_CONFIG, (tray, tray))
    # (Its corners rounded off by the disc.)
    assert cv2.boundingRect(pixels.astype(np.uint8)) == (40, 50, 20, 20)


def test_a_castles_hueless_pixels_are_opened_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """Easy Carolus seed 3 at 720p (castles searched unbinned): the hueless pixels' specks are
    opened away and what is kept of them is every 2x2 square of them, where it lies (the
    search's own steps seen through the module's names)."""
    import functools

    from benchmarks.bench_vision import POSITIONS, calibrated
    from companion.vision import castles
    from companion.vision.geometry import locate_movables, place_of, working_image
    from companion.vision.layout import load_layout
    from companion.vision.pipeline import Reader
    from companion.vision.synth import EASY, render

    seen: dict[str, np.ndarray] = {}
    hueless, fill = castles.hueless, castles.fill_small_holes

    def hueless_seen(*args: object) -> np.ndarray:
        seen["where"] = hueless(*args)  # type: ignore[arg-type]
        return seen["where"]

    def fill_seen(mask: np.ndarray, most: float) -> np.ndarray:
        seen["opened"] = mask.copy()
        return fill(mask, most)

    monkeypatch.setattr(castles, "hueless", hueless_seen)
    monkeypatch.setattr(castles, "fill_small_holes", fill_seen)
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](3)
    cond = EASY.with_size(1280, 720)
    image, _ = render(position, layout, seed=3, conditions=cond)
    reader = Reader(calibrated(layout, setup, 3, cond), layout)
    geo = reader.geometry(*locate_movables(image, reader.calibration, layout))
    view = castles.TileView.of(geo, layout, DEFAULT_CONFIG)
    assert view is not None and view.bin == 1
    small = working_image(image, geo)
    place_at = functools.partial(place_of, geo)
    assert castles.castle_blobs(small, view, geo, place_at, layout, DEFAULT_CONFIG)
    opened = seen["opened"]
    neutral = np.zeros(opened.size, bool)
    neutral[seen["where"]] = True
    neutral = neutral.reshape(opened.shape)
    want = _fitting(neutral, np.ones((2, 2), np.uint8))
    assert want.sum() < neutral.sum()  # (specks dropped)
    # (Away from the box's edge: a kernel hanging off an image's top or left edge fits where
    # its part inside does, as in cv2.erode.)
    assert np.array_equal(opened[1:-1, 1:-1] > 0, want[1:-1, 1:-1])
