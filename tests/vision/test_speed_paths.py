"""Short cuts taken for speed give what the long way gives (session 9's speed round)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from benchmarks.bench_vision import SpeedCase
from companion.vision import figures
from companion.vision.colour import pack_bgr, unpack_bgr
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.masks import fill_small_holes


@pytest.fixture(scope="module")
def speed_case() -> SpeedCase:
    return SpeedCase.of("el-grande", 1280, 720)


def test_grandes_are_measured_only_where_a_blob_could_hold_a_top(
    speed_case: SpeedCase, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = speed_case.layout
    geo = speed_case.reader.geometry(speed_case.tiles, speed_case.courts)
    grandes = [f for f in figures.figures_of(layout) if not f.round_][:2]
    calls: list[Any] = []
    measure = figures.measure_planes

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return measure(*args, **kwargs)

    monkeypatch.setattr(figures, "measure_planes", spy)
    lightness = np.full((120, 160), 150, np.uint8)
    masks = [np.zeros((120, 160), np.uint8) for _ in grandes]
    for k, mask in enumerate(masks):  # cube-sized blobs only
        for x in range(10, 150, 20):
            mask[20 + 30 * k : 26 + 30 * k, x : x + 6] = 255
    cfg = DEFAULT_CONFIG
    out = figures._measure_closed(masks, grandes, geo, layout, cfg, lightness, None, None)
    assert out == [[], []]
    assert not calls
    # A blob as big as a grande's top is measured, and only in its own plane.
    side = round(grandes[1].diameter * geo.mm_px)
    masks[1][60 : 60 + side, 40 : 40 + side] = 255
    out = figures._measure_closed(masks, grandes, geo, layout, cfg, lightness, None, None)
    assert len(calls) == 1
    assert out[0] == []
    assert len(out[1]) == 1 and out[1][0].bbox[:2] == (40, 60)


def test_a_mask_without_holes_comes_back_as_a_copy() -> None:
    mask = np.zeros((30, 40), np.uint8)
    mask[5:12, 5:30] = 1
    mask[20:25, 0:40] = 1  # (across the whole mask: what it parts off is no hole)
    out = fill_small_holes(mask, 100)
    assert np.array_equal(out, mask) and out is not mask
    mask[7:9, 10:12] = 0
    assert fill_small_holes(mask, 100)[7:9, 10:12].all()


def test_packed_pixels_are_the_colours_bytes() -> None:
    rng = np.random.default_rng(9)
    bgr = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)
    view = bgr[3:30, 5:50]  # (a crop, as the working image is the frame's)
    packed = pack_bgr(view)
    b, g, r = (view[..., c].astype(np.uint32) for c in range(3))
    assert packed.dtype == np.uint32
    assert np.array_equal(packed, b | g << 8 | r << 16)
    assert np.array_equal(unpack_bgr(packed), view)


def test_the_instruction_count_names_what_it_cannot_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """benchmarks.vision_instructions: an unknown game or a size not WIDTHxHEIGHT is refused
    with the form to give, and without valgrind it says what to install (exit 2 each)."""
    from benchmarks import vision_instructions

    for argv, said in (
        (["chess"], "unknown game(s) chess: give el-grande or carolus-magnus"),
        (["--size", "1280by720"], "give it as WIDTHxHEIGHT"),
        (["--reads", "0"], "--reads must be at least 1"),
    ):
        with pytest.raises(SystemExit) as stopped:
            vision_instructions.main(argv)
        assert stopped.value.code == 2
        assert said in capsys.readouterr().err
    monkeypatch.setattr(vision_instructions.shutil, "which", lambda name: None)
    assert vision_instructions.main(["el-grande"]) == 2
    assert "apt-get install valgrind" in capsys.readouterr().err


def test_the_instruction_count_sorts_functions_by_library() -> None:
    """callgrind_annotate's function names go to the library their file is in."""
    from benchmarks.vision_instructions import _library

    site = "/v/lib/python3.11/site-packages"
    assert (
        _library(f"???:PyArray_TakeFrom [{site}/numpy/_core/_multiarray_umath.cpython-311.so]")
        == "NumPy"
    )
    assert _library(f"???:0x0000000000bbe9a0 [{site}/cv2/cv2.abi3.so]") == "OpenCV"
    assert _library("ceval.c:_PyEval_EvalFrameDefault [/usr/lib/libpython3.11.so.1.0]") == "Python"
    assert _library("memmove.S:__memcpy_avx [/usr/lib/x86_64-linux-gnu/libc.so.6]") == "libc"


def _groups_every_pixel(masks: dict[str, Any], pieces: Any) -> tuple[Any, Any]:
    """Each group's first 2x2 block and least x, y in the working image, from all its
    pixels (the way pipeline._groups went before it read outlines only)."""
    import cv2

    from companion.vision.masks import block_order

    union = np.zeros(pieces.index.shape, np.uint8)
    for m in masks.values():
        union |= m
    grown = cv2.dilate(union, np.ones((5, 5), np.uint8))
    n, groups = cv2.connectedComponents(grown, connectivity=8)
    rank = np.full(n, np.iinfo(np.int64).max)
    origin = np.full((n, 2), np.iinfo(np.int64).max)
    for y, x in zip(*np.nonzero(grown), strict=True):
        at = int(pieces.index[y, x])
        if at < 0:
            continue
        wy, wx = divmod(at, pieces.width)
        g = groups[y, x]
        rank[g] = min(rank[g], int(block_order(np.array(wx), np.array(wy), pieces.width)))
        origin[g] = np.minimum(origin[g], (wx, wy))
    return rank[1:], origin[1:]


def test_a_group_inside_another_groups_hole_is_ranked_from_its_own_pixels() -> None:
    from companion.vision.mosaic import cut
    from companion.vision.pipeline import _groups

    # A ring (a region's border read as black) and a cube inside it, near enough to share
    # its cut-out: the cube's group has its outer outline inside the ring's hole.
    labels = np.zeros((60, 60), np.uint8)
    labels[5:55, 5:55] = 2
    labels[7:53, 7:53] = 0
    labels[20:40, 20:40] = 1
    pieces = cut(labels, np.zeros(labels.shape, np.uint32), 2, margin=8)
    masks = {str(c): np.where(pieces.labels == c, 255, 0).astype(np.uint8) for c in (1, 2)}
    _, rank, origin = _groups(masks, ("1", "2"), pieces)
    want_rank, want_origin = _groups_every_pixel(masks, pieces)
    assert np.array_equal(rank[1:], want_rank)
    assert np.array_equal(origin[1:], want_origin)
    assert sorted(origin[1:].tolist()) == [[3, 3], [18, 18]]


@pytest.mark.parametrize("seed", range(6))
def test_groups_are_ranked_from_their_outlines_as_from_all_their_pixels(seed: int) -> None:
    from companion.vision.mosaic import cut
    from companion.vision.pipeline import _groups

    rng = np.random.default_rng(seed)
    h, w = 91, 133  # (odd: cells and blocks cut short at the far edges)
    labels = np.zeros((h, w), np.uint8)
    for _ in range(14):
        # Blobs of two colours anywhere, the working image's edges included; some are rings
        # (a hole's rim is no pixel leftmost in its row) and some touch each other.
        y, x = int(rng.integers(-4, h)), int(rng.integers(-4, w))
        bh, bw = int(rng.integers(3, 16)), int(rng.integers(3, 16))
        labels[max(0, y) : y + bh, max(0, x) : x + bw] = rng.integers(1, 3)
        if bh > 8 and bw > 8 and rng.random() < 0.5:
            labels[max(0, y) + 3 : y + bh - 3, max(0, x) + 3 : x + bw - 3] = 0
    pieces = cut(labels, np.zeros((h, w), np.uint32), 2, margin=4)
    masks = {str(c): np.where(pieces.labels == c, 255, 0).astype(np.uint8) for c in (1, 2)}
    _, rank, origin = _groups(masks, ("1", "2"), pieces)
    want_rank, want_origin = _groups_every_pixel(masks, pieces)
    assert np.array_equal(rank[1:], want_rank)
    assert np.array_equal(origin[1:], want_origin)
