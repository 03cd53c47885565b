"""Castles on the Carolus territories (castles.py): their colour under light the calibration
never saw, and no castle where none stands."""

from __future__ import annotations

import functools
import math
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest

from benchmarks.bench_vision import POSITIONS, calibrated
from companion.vision import castles
from companion.vision.castles import TileView, castle_blobs, castle_width
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.geometry import locate_movables, place_of, working_image
from companion.vision.layout import load_layout
from companion.vision.local_print import GREY, print_cells
from companion.vision.pipeline import Reader
from companion.vision.synth import EASY, HARD, render


def castles_on_tiles(truth: dict[str, Any]) -> dict[str, str]:
    return {
        p["area"]: p["colour"]
        for p in truth["pieces"]
        if p["kind"] == "castle" and p["area"] != "castle_supply"
    }


def glare(image: Any, centre: tuple[float, float], strength: float, radius: float) -> Any:
    """A lamp's reflection as the synthetic camera makes it: towards white, in a soft spot."""
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    d2 = ((xs - centre[0]) ** 2 + (ys - centre[1]) ** 2) / radius**2
    spot = (strength * np.exp(-d2))[..., None]
    return np.clip(image * (1 - spot) + 255.0 * spot, 0, 255).astype(np.uint8)


def test_grey_values_run_from_black_to_white() -> None:
    assert GREY[0] == 0.0
    assert abs(float(GREY[255]) - 255.0) < 1.0
    assert np.all(np.diff(GREY) >= 0)


def test_castle_colours_hold_under_glare_and_a_dimmer_exposure() -> None:
    """Each castle in turn under a lamp's glare, the whole frame a fifth darker than at
    calibration: a black castle in the glare is as light as a grey one in the shade, but
    the tile marker's ink and paper beside it are lifted alike."""
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](2)
    image, truth = render(position, layout, seed=2, conditions=EASY)
    reader = Reader(calibrated(layout, setup, 2, EASY), layout)
    want = castles_on_tiles(truth)
    assert sorted(set(want.values())) == ["black", "grey", "white"]
    dim = (image.astype(np.float32) * 0.8).astype(np.uint8)
    for piece in truth["pieces"]:
        if piece["kind"] != "castle" or piece["area"] not in want:
            continue
        lit = glare(dim, piece["image"], 0.35, 0.2 * image.shape[1])
        assert reader.read(lit).castles.get(piece["area"]) == piece["colour"], piece["area"]


@pytest.mark.parametrize("seed", [3, 8, 35, 128, 213, 153, 141, 243, 116, 240])
def test_hard_frames_show_each_castle_in_its_colour_and_no_other(seed: int) -> None:
    """Seed 3: a white castle in dim light, and the shadow of Charlemagne on a tile (dark and
    nearly hueless, but of the tile's hue); seed 8: black castles under glare; seed 35: a
    white castle on a pale beige tile, barely lighter than it; seeds 128 and 213: a grey and
    a white castle whose blobs are only 0.40 and 0.41 of a castle's width thick (inscribed
    radius; see VisionConfig.castle_thickness); seed 153: a white castle at a tile's outer
    edge, its top seen over the mat (Geometry.castle_reach); seed 141: a white castle on a
    tile whose marker's paper is clipped in the green channel (VisionConfig.
    castle_paper_clipped); seed 243: a grey castle at 0.558, the lightest grey of hard seeds
    100-299 (white_castle_share); seeds 116 and 240: grey castles whose bodies are as dark as
    0.305 and 0.319, their whole blobs lighter (black_castle_sure, grey_castle_whole)."""
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](seed)
    image, truth = render(position, layout, seed=seed, conditions=HARD)
    obs = Reader(calibrated(layout, setup, seed, HARD), layout).read(image)
    assert not obs.occluded
    assert dict(obs.castles) == castles_on_tiles(truth)


def test_castles_are_read_binned_in_a_1080p_frame_and_as_they_are_in_a_720p_one() -> None:
    """Seed 3's castles are ~16 working px wide at 1080p, ~11 at 720p: binned 2x2 only in the
    first, where they stay castle_bin_px wide."""
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](3)
    for cond, want in ((EASY, 1), (HARD, 2)):
        image, _ = render(position, layout, seed=3, conditions=cond)
        calibration = calibrated(layout, setup, 3, cond)
        reader = Reader(calibration, layout)
        view = TileView.of(
            reader.geometry(*locate_movables(image, calibration, layout)), layout, DEFAULT_CONFIG
        )
        assert view is not None and view.bin == want
        # (At 720p castles are looked for on the bins and decided on the pixels.)
        assert (view.coarse is not None and view.coarse.bin == 2) == (want == 1)


def test_a_castle_binned_is_where_and_what_it_is_at_full_resolution() -> None:
    """Hard seed 3 (1080p, castles ~16 working px wide; a white castle in dim light and
    Charlemagne's shadow on a tile) read on the tiles binned and not: each castle's blob found
    on its tile at the same working-image point (within a sixth of a castle's width: the bins'
    blob is not opened, the pixels' is), as thick, and of the same colour."""
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](3)
    image, truth = render(position, layout, seed=3, conditions=HARD)
    calibration = calibrated(layout, setup, 3, HARD)
    want = castles_on_tiles(truth)
    found = {}
    for bin_px in (0.0, 1000.0):  # always binned, never
        config = replace(DEFAULT_CONFIG, castle_bin_px=bin_px)
        reader = Reader(calibration, layout, config)
        geo = reader.geometry(*locate_movables(image, calibration, layout))
        view = TileView.of(geo, layout, config)
        assert view is not None and view.bin == (2 if bin_px == 0.0 else 1)
        blobs = castle_blobs(
            working_image(image, geo), view, geo, functools.partial(place_of, geo), layout, config
        )
        castles = {b.place: b for b in blobs if b.thickness >= config.castle_thickness}
        assert {p: b.colour(config) for p, b in castles.items()} == want
        assert dict(reader.read(image).castles) == want
        found[view.bin] = castles
        width = castle_width(geo, layout)
    for place in want:
        binned, full = found[2][place], found[1][place]
        assert math.dist(binned.centre, full.centre) <= width / 6, place
        assert abs(binned.thickness - full.thickness) < 0.15, place


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_search_lab_is_made_on_the_tiles_and_is_the_whole_boxs_where_it_is_read(
    size: tuple[int, int],
) -> None:
    """Easy seed 3 (unbinned at 720p, binned at 1080p): the Lab made on the tiles' own boxes
    is the whole box's on every tile pixel (the blur's neighbours included), and covers less
    than the box; a blob whose core is not all such pixels (forced here: none counted exact)
    is measured on the whole box's Lab, to the same blobs."""
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](3)
    cond = EASY.with_size(*size)
    image, _ = render(position, layout, seed=3, conditions=cond)
    calibration = calibrated(layout, setup, 3, cond)
    reader = Reader(calibration, layout)
    geo = reader.geometry(*locate_movables(image, calibration, layout))
    view = TileView.of(geo, layout, DEFAULT_CONFIG)
    assert view is not None and view.bin == (1 if size[0] == 1280 else 2)
    bx, by, bw, bh = view.box
    box = working_image(image, geo)[by : by + bh, bx : bx + bw]
    if view.bin > 1:
        box = cv2.resize(box, (bw // 2, bh // 2), interpolation=cv2.INTER_AREA)
    part, whole = view.lab(box), view.lab(box, every=True)
    exact = view.exact.reshape(part.shape[:2])
    assert exact[(view.on_tile > 0) | (view.over_mat > 0)].all()
    assert np.array_equal(part[exact], whole[exact])
    covered = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in view.lab_boxes)
    assert covered < 0.8 * exact.size
    place_at = functools.partial(place_of, geo)
    small = working_image(image, geo)
    blobs = castle_blobs(small, view, geo, place_at, layout, DEFAULT_CONFIG)
    inexact = replace(view, exact=np.zeros_like(view.exact))
    assert blobs and castle_blobs(small, inexact, geo, place_at, layout, DEFAULT_CONFIG) == blobs


def test_marker_samples_made_lab_as_one_row_are_each_pixels_own_lab() -> None:
    """The markers' samples are made Lab as one row of pixels (cheaper than a row each):
    every pixel's values are those it has converted on its own or in the whole image."""
    from companion.vision.castles import _lab_rows

    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)
    whole = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).reshape(-1, 3)
    pixels = image.reshape(-1, 3)
    for at in (np.arange(pixels.shape[0]), rng.integers(0, pixels.shape[0], 999), np.arange(1)):
        rows = np.take(pixels, at, axis=0)
        one_each = cv2.cvtColor(rows[:, None, :], cv2.COLOR_BGR2Lab)[:, 0, :]
        assert np.array_equal(_lab_rows(rows), one_each)
        assert np.array_equal(_lab_rows(rows), np.take(whole, at, axis=0))


def test_the_median_light_of_the_tiles_is_numpys() -> None:
    from companion.vision.castles import _median

    rng = np.random.default_rng(4)
    for n in range(1, 30):
        for scale in (1e-3, 1.0, 1e5):
            values = (rng.normal(100.0, 50.0, n) * scale).tolist()
            assert _median(values) == float(np.median(values))
            whole = [float(round(v)) for v in values]  # ties and repeated values
            assert _median(whole) == float(np.median(whole))


def _tile_case(seed: int, cond: Any = HARD) -> tuple[Any, ...]:
    """A Carolus frame of ``seed`` under ``cond``: its layout, image, truth, a reader
    calibrated on its set-up frame, and the geometry of the tiles where they lie."""
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](seed)
    image, truth = render(position, layout, seed=seed, conditions=cond)
    calibration = calibrated(layout, setup, seed, cond)
    reader = Reader(calibration, layout)
    geo = reader.geometry(*locate_movables(image, calibration, layout))
    return layout, image, truth, reader, geo


def test_the_castles_reach_is_the_bare_mat_beyond_the_tiles_outer_edges() -> None:
    """Hard seed 153: the tiles raised to a castle's height reach over the mat beyond the
    tiles' outer edges (away from the camera) and never over a place; each reach pixel carries
    its tile's place code."""
    _, _, _, _, geo = _tile_case(153)
    reach = geo.castle_reach
    assert reach is not None and geo.tile_mask is not None
    assert not (reach > 0)[geo.place_map > 0].any()
    tile_codes = {i + 1 for i, p in enumerate(geo.places) if p.id.startswith("t")}
    assert set(np.unique(reach[reach > 0]).tolist()) <= tile_codes
    # Each tile's reach touches that tile.
    for code in np.unique(reach[reach > 0]).tolist():
        grown = cv2.dilate((geo.place_map == code).astype(np.uint8), np.ones((3, 3), np.uint8))
        assert (grown[reach == code] > 0).any(), code


def _paint_over_reach(
    image: Any, geo: Any, code: int, bgr: tuple[int, int, int], side: float
) -> Any:
    """``image`` with a flat square ``side`` working px wide painted where ``code``'s reach
    over the mat is deepest (its centre on the mat)."""
    band = (geo.castle_reach == code).astype(np.uint8)
    depth = cv2.distanceTransform(
        cv2.copyMakeBorder(band, 1, 1, 1, 1, cv2.BORDER_CONSTANT), cv2.DIST_L2, 3
    )
    y, x = np.unravel_index(int(np.argmax(depth[1:-1, 1:-1])), band.shape)
    x0, y0 = geo.crop[:2]
    centre = (x0 + (x + 0.5) / geo.scale, y0 + (y + 0.5) / geo.scale)
    half = side / geo.scale / 2
    out = image.copy()
    corners = (round(centre[0] - half), round(centre[1] - half))
    far = (round(centre[0] + half), round(centre[1] + half))
    cv2.rectangle(out, corners, far, bgr, -1)
    return out


def test_a_light_top_over_the_reach_is_a_castle_and_a_dark_one_is_not() -> None:
    """Hard seed 153, on a tile with no castle: a light, hueless square painted where the
    tile's reach over the mat is deepest is read as a white castle on that tile; a square
    darker than the mat there (a shadow on the mat is as hueless as a castle) is no castle."""
    layout, image, truth, reader, geo = _tile_case(153)
    reach = geo.castle_reach
    assert reach is not None
    want = castles_on_tiles(truth)
    codes = {p.id: i + 1 for i, p in enumerate(geo.places)}
    free = [t for t in sorted(codes) if t.startswith("t") and t not in want]
    tile = max(free, key=lambda t: int((reach == codes[t]).sum()))
    width = castle_width(geo, layout)
    light = _paint_over_reach(image, geo, codes[tile], (236, 236, 236), width)
    assert dict(reader.read(light).castles) == {**want, tile: "white"}
    dark = _paint_over_reach(image, geo, codes[tile], (40, 40, 40), width)
    assert dict(reader.read(dark).castles) == want


def test_a_marker_whose_paper_is_clipped_takes_the_cast_of_the_others() -> None:
    """Hard seed 141: the light favours green, and on some markers the paper's green channel
    stops at 255 (their cast is cut short). Those take the median cast of the markers that
    are not clipped; the others keep their own."""
    from companion.vision.castles import _marker_lights, tile_lights

    _, image, _, _, geo = _tile_case(141)
    view = TileView.of(geo, load_layout("carolus-magnus"), DEFAULT_CONFIG)
    assert view is not None
    small = working_image(image, geo)
    own = dict(
        zip(view.sampled.tiles, _marker_lights(small.reshape(-1, 3), view.sampled), strict=True)
    )
    limit = DEFAULT_CONFIG.castle_paper_clipped
    clipped = {t for t, v in own.items() if v.clipped > limit}
    clear = [v.cast for t, v in own.items() if t not in clipped]
    assert clipped and clear
    lights = tile_lights(small, view, DEFAULT_CONFIG)
    middle = (float(np.median([c[0] for c in clear])), float(np.median([c[1] for c in clear])))
    for tile, light in lights.items():
        if tile in clipped:
            assert light.cast == pytest.approx(middle), tile
            # (cut short: the paper's own cast is weaker than the others')
            assert math.hypot(*own[tile].cast) < math.hypot(*middle), tile
        else:
            assert light.cast == own[tile].cast, tile


def test_the_castles_fit_report_spans_each_colour_and_lists_what_is_read_wrong() -> None:
    """benchmarks.fit_castles: per castle colour the span of its thickest blobs and of the
    thick blobs' lightness; a castle read wrong, or none where one stands, is listed."""
    from benchmarks.fit_castles import Seen, report
    from companion.vision.castles import CastleBlob

    def blob(thick: float, body: float) -> CastleBlob:
        return CastleBlob("t01", (0.0, 0.0), 1.5, thick, body, 0.8, 0.8, body + 0.05)

    seen = [
        Seen(100, "t01", "white", (blob(0.6, 0.8), blob(0.2, 0.3)), "white"),
        Seen(101, "t01", "white", (blob(0.5, 0.45),), "grey"),
        Seen(102, "t02", "grey", (), None),
        Seen(103, "t03", None, (blob(0.3, 0.5),), None),
    ]
    lines = report(seen, thickness=0.39)
    assert lines[2] == (
        "  white: 2 tiles; thickest blob 0.500-0.600; lightness of blobs from 0.39 thick "
        "0.450-0.800"
    )
    assert lines[1].startswith("  grey: 1 tiles; thickest blob 0.000-0.000;")
    assert lines[3].startswith("  no castle: 1 tiles; thickest blob 0.300-0.300;")
    assert lines[4:] == [
        "  seed 101 t01: white read grey (thick 0.500 light 0.450 whole 0.500 area 1.50)",
        "  seed 102 t02: grey read None (no blob)",
    ]


def test_a_720p_hard_frame_shows_each_castle_in_its_colour_and_no_other() -> None:
    """Hard seed 100 made 1280 x 720 (the hard set's frames are 1080p): castles ~11 working
    px wide, found on the bins and decided on the pixels, under the hard set's noise, blur
    and light."""
    layout, image, truth, reader, geo = _tile_case(100, HARD.with_size(1280, 720))
    view = TileView.of(geo, layout, DEFAULT_CONFIG)
    assert view is not None and view.bin == 1 and view.coarse is not None
    want = castles_on_tiles(truth)
    assert len(want) >= 4
    assert dict(reader.read(image).castles) == want


def test_the_print_between_cells_is_a_linear_resize_of_them() -> None:
    """The print read at a pixel between the cells' centres is what a linear resize of the
    cells to the whole image gives there (OpenCV's fixed point: within a grey level), the
    outer cells held flat beyond their centres."""
    from companion.vision.local_print import PrintCells

    rng = np.random.default_rng(5)
    for rows, cols, step in ((7, 9, 5), (1, 4, 3), (6, 1, 8)):
        lab = rng.integers(0, 256, (rows, cols, 3), dtype=np.uint8)
        cells = PrintCells(lab, np.full((rows, cols), 255, np.uint8), step)
        h, w = rows * step, cols * step
        want = cv2.resize(lab, (w, h), interpolation=cv2.INTER_LINEAR).reshape(-1, 3)
        ys, xs = np.divmod(np.arange(h * w), w)
        got = cells.at(ys, xs)
        assert np.abs(got.astype(int) - want.astype(int)).max() <= 1


def test_the_print_cells_keep_pieces_and_the_gaps_between_tiles_out() -> None:
    """A print of one colour with castle-sized pieces on it, and gaps that are no print
    (zero Lab there): the print read anywhere is the print's colour (the cells' means are of
    print pixels only; a piece fills too few cells of a window to move its median)."""
    from companion.vision.local_print import print_cells

    print_lab = (150, 140, 120)
    lab = np.zeros((120, 160, 3), np.uint8)
    lab[:] = print_lab
    mask = np.full((120, 160), 255, np.uint8)
    for x, y in ((20, 20), (70, 50), (120, 90)):
        lab[y : y + 11, x : x + 11] = (40, 128, 128)  # a black castle: print, to the mask
    lab[:, 76:83] = 0
    mask[:, 76:83] = 0  # the gap between two tiles
    cells = print_cells(lab, mask, 45, DEFAULT_CONFIG.castle_print_cells)
    ys, xs = np.divmod(np.arange(lab.shape[0] * lab.shape[1]), lab.shape[1])
    got = cells.at(ys, xs)
    assert np.abs(got.astype(int) - print_lab).max() <= 1


def test_the_errors_listing_refuses_a_size_it_cannot_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """benchmarks.vision_errors --size (the 720p castles' listing): a size that is not
    WIDTHxHEIGHT is refused with the form to give, before anything is rendered."""
    from benchmarks import vision_errors

    monkeypatch.setattr("sys.argv", ["vision_errors", "hard", "--size", "1280by720"])
    with pytest.raises(SystemExit) as stop:
        vision_errors.main()
    assert stop.value.code == 2
    assert "give WIDTHxHEIGHT, e.g. 1280x720" in capsys.readouterr().err


def test_the_errors_listing_names_a_set_up_frame_it_cannot_calibrate(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    """benchmarks.vision_errors: hard Carolus seed 221's set-up frame hides a corner marker;
    the listing names it and goes on (it stopped with a traceback at the first such frame)."""
    from benchmarks import vision_errors

    monkeypatch.setattr(vision_errors, "CACHE", tmp_path)
    argv = ["vision_errors", "hard", "carolus-magnus", "--first", "221", "--cases", "1"]
    monkeypatch.setattr("sys.argv", argv)
    vision_errors.main()
    out = capsys.readouterr().out
    assert "carolus-magnus 221 NOT CALIBRATED: board markers not found" in out
    assert "1 set-up frames not calibrated" in out


def test_a_castle_between_black_and_grey_is_grey_only_if_its_whole_blob_is_light_too() -> None:
    """Under black_castle_sure a castle is black, from black_castle_share grey; between them
    its whole blob (lit top, shaded side, own shadow) must be light too: a grey castle's
    body darkened by its side and shadow (hard seeds 116, 147, 240) against a black castle
    lifted by glare, whose lit edges are thin (hard seed 8's at 0.28)."""
    from companion.vision.castles import CastleBlob

    config = DEFAULT_CONFIG

    def colour(body: float, whole: float) -> str:
        return CastleBlob("t01", (0.0, 0.0), 1.5, 0.6, body, 0.8, 0.8, whole).colour(config)

    low, high = config.black_castle_sure, config.black_castle_share
    middle = (low + high) / 2
    assert colour(low - 0.01, 0.5) == "black"
    assert colour(middle, config.grey_castle_whole + 0.01) == "grey"
    assert colour(middle, config.grey_castle_whole - 0.01) == "black"
    assert colour(high, 0.0) == "grey"
    assert colour(config.white_castle_share, 0.0) == "white"


def _by_centre(blobs: Any) -> list[Any]:
    """Blobs in the order of their centres, rounded to 1e-9 px (a window's centroid is its
    own plus the window's place: the last bit may differ)."""
    return sorted(
        (replace(b, centre=(round(b.centre[0], 9), round(b.centre[1], 9))) for b in blobs),
        key=lambda b: b.centre,
    )


def _search(
    image: Any, view: TileView, geo: Any, layout: Any, config: Any
) -> tuple[Any, castles._Found]:
    """The unbinned search's box and what it found (print, mat, light), as castle_blobs
    makes them, to measure windows of the box with."""
    lights = castles.tile_lights(image, view, config)
    table = castles._Table.of(geo, lights)
    bx, by, bw, bh = view.box
    box = image[by : by + bh, bx : bx + bw]
    sub = view.lab(box)
    window = round(config.castle_print_window * castle_width(geo, layout))
    cells = print_cells(sub, view.on_tile, window, config.castle_print_cells)
    found = castles._Found(
        image,
        view,
        cells,
        castles._mat_reference(sub, view, table),
        table,
        castles._median_share(cells, view, table),
        geo,
        functools.partial(place_of, geo),
        config,
    )
    return box, found


def test_windows_round_the_castles_measure_them_as_the_whole_box_does() -> None:
    """Easy seed 3 at 720p with the unbinned search's own print: the castles measured in a
    window round each (their pixels side by side, each in a ring of its neighbours) are the
    whole box's, to the last bit, and none reaches its window's edge."""
    layout, image, truth, _, geo = _tile_case(3, EASY)
    config = replace(DEFAULT_CONFIG, castle_where_bin_px=1000.0)  # never on the bins
    view = TileView.of(geo, layout, config)
    assert view is not None and view.bin == 1 and view.coarse is None
    small = working_image(image, geo)
    place_at = functools.partial(place_of, geo)
    thick = [
        b
        for b in castle_blobs(small, view, geo, place_at, layout, config)
        if b.thickness >= config.castle_thickness
    ]
    assert {b.place: b.colour(config) for b in thick} == castles_on_tiles(truth)
    box, found = _search(small, view, geo, layout, config)
    width = castle_width(geo, layout)
    bx, by, bw, bh = view.box
    windows = [
        (
            max(0, round(u - bx - 2 * width)),
            max(0, round(v - by - 2 * width)),
            min(bw, round(u - bx + 2 * width)),
            min(bh, round(v - by + 2 * width)),
        )
        for u, v in (b.centre for b in thick)
    ]
    blobs, edge = found._in(box, windows, width)
    assert not edge
    assert _by_centre(b for b in blobs if b.thickness >= config.castle_thickness) == _by_centre(
        thick
    )


def test_a_window_too_small_for_its_blob_grows_until_the_blob_is_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Easy seed 3 at 720p: candidates a bin wide at each castle's middle, in windows a fifth
    of a castle wider: every castle's blob reaches its window's edge until the windows have
    grown round it, then reads as from its whole candidate."""
    layout, image, truth, _, geo = _tile_case(3, EASY)
    view = TileView.of(geo, layout, DEFAULT_CONFIG)
    assert view is not None and view.coarse is not None
    small = working_image(image, geo)
    place_at = functools.partial(place_of, geo)
    want = castle_blobs(small, view, geo, place_at, layout, DEFAULT_CONFIG)
    thick = [b for b in want if b.thickness >= DEFAULT_CONFIG.castle_thickness]
    assert {b.place: b.colour(DEFAULT_CONFIG) for b in thick} == castles_on_tiles(truth)
    bx, by, _, _ = view.box
    middles = [(int(u - bx) // 2, int(v - by) // 2) for u, v in (b.centre for b in thick)]
    monkeypatch.setattr(
        castles, "_candidates", lambda *_: [(x, y, x + 1, y + 1) for x, y in middles]
    )
    config = replace(DEFAULT_CONFIG, castle_window=0.2)
    grown = castle_blobs(small, view, geo, place_at, layout, config)
    assert _by_centre(b for b in grown if b.thickness >= config.castle_thickness) == _by_centre(
        thick
    )


def _speed_view_720p() -> tuple[Any, Any, Any]:
    """Easy seed 3 at 720p (found on the bins, decided on the pixels): the working image, the
    view and its box (BGR)."""
    layout, image, _, _, geo = _tile_case(3, EASY.with_size(1280, 720))
    view = TileView.of(geo, layout, DEFAULT_CONFIG)
    assert view is not None and view.coarse is not None and view.mat_blur is not None
    small = working_image(image, geo)
    bx, by, bw, bh = view.box
    return small, view, small[by : by + bh, bx : bx + bw]


def test_the_mats_blurred_lab_from_its_neighbours_is_the_whole_boxs() -> None:
    """The mat pixels' Lab blurred from their nine neighbours only is the tiles' Lab's (made on
    the box, blurred 3x3) on every mat pixel, to the last bit; and the mean of nine 8-bit
    values is rounded as cv2.blur rounds it, for every sum."""
    small, view, box = _speed_view_720p()
    assert view.mat_at.size
    assert view.mat_blur is not None
    whole = np.take(view.lab(box).reshape(-1, 3), view.mat_at, axis=0)
    assert np.array_equal(view.mat_blur.lab(small, view.box[:2]), whole)
    sums = np.arange(9 * 255 + 1, dtype=np.uint16)
    rounded = cv2.convertScaleAbs(sums[None], alpha=1 / 9).reshape(-1)
    assert np.array_equal(rounded, (sums + 4) // 9)


def test_the_print_made_exact_round_windows_is_the_print_of_every_pixel_there() -> None:
    """The print's cells estimated from a ninth of the pixels, then made exact round a window:
    every pixel of the window reads the print cells of every pixel (print_cells of the
    search's Lab) would give it, once the cells' medians elsewhere are the same; made exact
    over the whole box, the cells are print_cells' to the last bit."""
    _, view, box = _speed_view_720p()
    window = round(DEFAULT_CONFIG.castle_print_window * 11.4)
    cells, every = DEFAULT_CONFIG.castle_print_cells, DEFAULT_CONFIG.castle_print_sample
    whole = print_cells(view.lab(box), view.on_tile, window, cells)
    grid = castles._PrintGrid.of(box, view.on_tile, window, cells, every)
    rough = grid.cells()
    assert rough.step == whole.step and np.array_equal(rough.found, whole.found)
    assert not np.array_equal(rough.lab, whole.lab)  # (the estimate: not every pixel's)
    # A window's cells and theirs the median reads exact, the rest estimated: the window's
    # pixels read every pixel's print (the cells not print given every pixel's median).
    exact = castles._PrintGrid.of(box, view.on_tile, window, cells, every)
    exact.make_exact([(0, 0, box.shape[1], box.shape[0])])
    assert exact.exact.all()
    assert np.array_equal(exact.cells().lab, whole.lab)
    x0, y0, x1, y1 = 200, 150, 240, 190
    grid.make_exact([(x0, y0, x1, y1)])
    assert grid.exact.any() and not grid.exact.all()
    ys, xs = (a.reshape(-1) for a in np.mgrid[y0:y1, x0:x1])
    assert np.array_equal(grid.cells(exact.fill()).at(ys, xs), whole.at(ys, xs))
