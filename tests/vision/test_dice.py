"""Reading the Carolus Magnus dice: faces on rendered trays (easy and hard light and camera),
the tray found where the calibration misplaces it, dice that cannot be read named in
``unread``, and the face colour model on its own."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

import cv2
import numpy as np
import pytest

from benchmarks.bench_vision import POSITIONS
from companion.vision.calibration import Calibration, uncalibrated
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.dice import dice_in, read_dice
from companion.vision.dice_tray import KnownTray, NoTray, Tray, find_tray
from companion.vision.die_faces import DIE_WHITE, FACE_BGR, face_of
from companion.vision.geometry import build_geometry
from companion.vision.layout import load_layout
from companion.vision.pipeline import Reader
from companion.vision.synth import EASY, HARD, Conditions, render

LAYOUT = load_layout("carolus-magnus")
GAME = "carolus-magnus"


@cache
def rendered(preset: str, seed: int, dice: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
    conditions: Conditions = {"easy": EASY, "hard": HARD}[preset]
    _, position = POSITIONS[GAME](seed)
    image, truth = render(position, LAYOUT, seed=seed, conditions=conditions, dice=list(dice))
    image.setflags(write=False)
    return image, truth


def read(image: Any, calibration: Calibration | None = None) -> Any:
    cal = calibration or uncalibrated(image, LAYOUT)
    return read_dice(image, build_geometry(cal, LAYOUT), LAYOUT, DEFAULT_CONFIG)


def in_image_order(truth: dict[str, Any]) -> list[str]:
    dice = [p for p in truth["pieces"] if p["kind"] == "die"]
    return [p["face"] for p in sorted(dice, key=lambda p: (p["image"][1], p["image"][0]))]


def shifted(cal: Calibration, dx_mm: float, dy_mm: float) -> Calibration:
    """The calibration as if the board lay (dx, dy) mm from where it is."""
    move = np.array([[1, 0, -dx_mm], [0, 1, -dy_mm], [0, 0, 1]], np.float64)
    h = cal.h @ move
    return replace(cal, homography=tuple(tuple(float(v) for v in row) for row in h / h[2, 2]))


CASES = [
    ("easy", 3, ("red", "blue", "yellow")),
    ("easy", 5, ("green", "pink", "crown")),
    ("hard", 103, ("red", "blue", "yellow")),
    ("hard", 110, ("green", "pink", "crown")),
    ("hard", 143, ("crown", "yellow", "crown")),
]


@pytest.mark.parametrize(("preset", "seed", "faces"), CASES)
def test_every_face_is_read_top_to_bottom(preset: str, seed: int, faces: tuple[str, ...]) -> None:
    image, truth = rendered(preset, seed, faces)
    dice = read(image)
    assert list(dice.faces) == in_image_order(truth)
    assert dice.unread == {}


def test_an_empty_tray_has_no_dice_and_nothing_unread() -> None:
    image, _ = rendered("hard", 103, ())
    dice = read(image)
    assert dice.faces == () and dice.unread == {}


def test_the_tray_is_found_three_dice_from_where_the_calibration_puts_it() -> None:
    image, truth = rendered("hard", 110, ("green", "pink", "crown"))
    cal = shifted(uncalibrated(image, LAYOUT), 30.0, -25.0)
    tray = find_tray(image, build_geometry(cal, LAYOUT), LAYOUT, DEFAULT_CONFIG)
    assert isinstance(tray, Tray)
    # The tray's true outline, through the renderer's own camera (lens included).
    cam = truth["camera"]
    corners = [(x, y, 0.0) for x, y in LAYOUT.areas_of_kind("dice_tray")[0].polygon.points]
    pts, _ = cv2.projectPoints(
        np.array(corners),
        np.array(cam["rvec"], np.float64),
        np.array(cam["tvec"], np.float64),
        np.array(cam["matrix"], np.float64),
        np.array(cam["dist"], np.float64),
    )
    want = np.zeros(tray.mask.shape, np.uint8)
    outline = pts.reshape(-1, 2) - np.array(tray.origin, np.float64)
    cv2.fillPoly(want, [np.round(outline).astype(np.int32)], 1)
    overlap = (tray.mask & (want > 0)).sum() / (tray.mask | (want > 0)).sum()
    assert overlap > 0.9
    assert sorted(read(image, cal).faces) == ["crown", "green", "pink"]


def test_no_tray_where_the_calibration_puts_it_is_reported_not_guessed() -> None:
    image, _ = rendered("hard", 110, ("green", "pink", "crown"))
    # Nine dice off, on plain board: the search round the outline finds nothing tray-like.
    cal = shifted(uncalibrated(image, LAYOUT), 150.0, 0.0)
    assert isinstance(find_tray(image, build_geometry(cal, LAYOUT), LAYOUT, DEFAULT_CONFIG), NoTray)
    dice = read(image, cal)
    assert dice.faces == ()
    assert "dice tray is not where the calibration puts it" in dice.unread["dice"]


def blank_symbol(image: Any, truth: dict[str, Any], face: str) -> Any:
    """The frame with one die's top symbol painted over in that die's white."""
    out = image.copy()
    die = next(p for p in truth["pieces"] if p["kind"] == "die" and p["face"] == face)
    u, v = (round(c) for c in die["image"])
    window = out[v - 12 : v + 13, u - 12 : u + 13].reshape(-1, 3).astype(np.float64)
    white = window[np.argsort(window.sum(axis=1))[-15:]].mean(axis=0)
    cv2.circle(out, (u, v), 6, tuple(float(c) for c in white), -1)
    return out


def test_a_die_without_a_readable_symbol_is_named_in_unread() -> None:
    image, truth = rendered("hard", 103, ("red", "blue", "yellow"))
    order = in_image_order(truth)
    dice = read(blank_symbol(image, truth, "blue"))
    assert list(dice.faces) == [f for f in order if f != "blue"]
    key = f"die {order.index('blue') + 1}"
    assert list(dice.unread) == [key]
    assert "no symbol found on its top face" in dice.unread[key]


def test_the_observation_carries_the_dice_and_the_unread_die() -> None:
    image, truth = rendered("easy", 3, ("red", "blue", "yellow"))
    frame = blank_symbol(image, truth, "yellow")
    obs = Reader(uncalibrated(frame, LAYOUT), LAYOUT).read(frame)
    assert sorted(obs.dice) == ["blue", "red"]
    assert [k for k in obs.unread if k.startswith("die")] == [
        f"die {in_image_order(truth).index('yellow') + 1}"
    ]


def ratio_of(bgr: tuple[int, int, int], purity: float) -> list[float]:
    """A face's colour blended with the die's white (as blur does), as ratios to the white."""
    return [1.0 - purity * (1.0 - c / w) for c, w in zip(bgr, DIE_WHITE, strict=True)]


@pytest.mark.parametrize("purity", [0.45, 0.7, 1.0])
def test_every_face_keeps_its_name_however_much_it_is_blended_with_white(purity: float) -> None:
    for name, bgr in FACE_BGR.items():
        assert face_of(ratio_of(bgr, purity), DEFAULT_CONFIG) == (name, "")


def test_a_grey_or_an_unknown_colour_is_no_face() -> None:
    face, why = face_of([0.8, 0.8, 0.8], DEFAULT_CONFIG)
    assert face is None and "no die colour" in why
    face, why = face_of(ratio_of((200, 60, 120), 0.8), DEFAULT_CONFIG)  # violet
    assert face is None and "no die colour" in why


def test_between_the_crown_and_the_yellow_spot_there_is_a_band_left_unread() -> None:
    crown, yellow = ratio_of(FACE_BGR["crown"], 0.8), ratio_of(FACE_BGR["yellow"], 0.8)
    names = []
    for m in np.linspace(0.0, 1.0, 41):
        face, why = face_of(
            [(1 - m) * c + m * y for c, y in zip(crown, yellow, strict=True)], DEFAULT_CONFIG
        )
        assert face is not None or ("crown" in why and "yellow" in why)
        names.append(face)
    # crown ... crown, None ... None, yellow ... yellow: never one face on the other's side.
    first_none, last_none = names.index(None), len(names) - 1 - names[::-1].index(None)
    assert set(names[:first_none]) == {"crown"} and set(names[last_none + 1 :]) == {"yellow"}
    assert set(names[first_none : last_none + 1]) == {None}


def test_a_tray_found_once_is_checked_not_searched_on_the_next_frames() -> None:
    first, _ = rendered("hard", 110, ("green", "pink", "crown"))
    later, truth = rendered("hard", 110, ("red", "blue", "yellow"))
    cal = shifted(uncalibrated(first, LAYOUT), 30.0, -25.0)
    geo = build_geometry(cal, LAYOUT)
    found = find_tray(first, geo, LAYOUT, DEFAULT_CONFIG)
    assert isinstance(found, Tray)
    tray = KnownTray.of(found, DEFAULT_CONFIG).seen_in(later, DEFAULT_CONFIG)
    assert tray is not None
    assert tray.origin == found.origin and np.array_equal(tray.mask, found.mask)
    x0, y0, x1, y1 = found.box()
    assert np.array_equal(tray.crop, later[y0:y1, x0:x1])
    assert list(dice_in(tray, DEFAULT_CONFIG).faces) == in_image_order(truth)


def test_a_known_trays_check_samples_the_crops_pixels_from_the_frame() -> None:
    """The check of a known tray takes its sample of the tray's and the board's pixels from
    the frame by flat index (a contiguous frame) or from the crop (any other): the same grey
    values, so the same verdict, on a frame with the tray and one with it covered."""
    image, _ = rendered("hard", 110, ("green", "pink", "crown"))
    found = find_tray(
        image, build_geometry(uncalibrated(image, LAYOUT), LAYOUT), LAYOUT, DEFAULT_CONFIG
    )
    assert isinstance(found, Tray)
    known = KnownTray.of(found, DEFAULT_CONFIG)
    crop = found.crop.reshape(-1, 3)
    sample = crop[np.concatenate([known.inside, known.ring])]
    assert np.array_equal(image[known.rows, known.cols], sample)
    for frame in (image, covered_tray(image, found)):
        strided = np.zeros((frame.shape[0], frame.shape[1] + 7, 3), np.uint8)[:, 3:-4]
        strided[...] = frame
        assert frame.flags.c_contiguous and not strided.flags.c_contiguous
        seen = [known.seen_in(f, DEFAULT_CONFIG) for f in (frame, strided)]
        assert (seen[0] is None) == (seen[1] is None) == (frame is not image)


def covered_tray(image: Any, tray: Tray) -> Any:
    """The frame with the tray's surface painted in the board's colour just round it."""
    out = image.copy()
    x0, y0, x1, y1 = tray.box()
    ring = (cv2.dilate(tray.mask.view(np.uint8), np.ones((9, 9), np.uint8)) > 0) & ~tray.mask
    crop = out[y0:y1, x0:x1]
    crop[tray.mask] = np.median(crop[ring], axis=0).astype(np.uint8)
    return out


def test_a_tray_no_longer_where_it_was_found_is_looked_for_again() -> None:
    image, _ = rendered("hard", 110, ("green", "pink", "crown"))
    cal = uncalibrated(image, LAYOUT)
    found = find_tray(image, build_geometry(cal, LAYOUT), LAYOUT, DEFAULT_CONFIG)
    assert isinstance(found, Tray)
    gone = covered_tray(image, found)
    assert KnownTray.of(found, DEFAULT_CONFIG).seen_in(gone, DEFAULT_CONFIG) is None
    # The reader then searches the frame again, finds nothing and says so.
    with Reader(cal, LAYOUT) as reader:
        assert sorted(reader.read(image).dice) == ["crown", "green", "pink"]
        obs = reader.read(gone)
        assert obs.dice == ()
        assert "dice tray is not where the calibration puts it" in obs.unread["dice"]
        assert sorted(reader.read(image).dice) == ["crown", "green", "pink"]


def test_a_blobs_elongation_is_numpys_covariance_to_its_rounding() -> None:
    """``_elongation`` works the covariance out from OpenCV's moments (whole-number sums)
    and its eigenvalues in closed form: np.cov's and eigvalsh's numbers to ~1e-15 (the last
    bits differ; the elongation is only compared with a bound) on a line, a square, a slanted
    bar, random blobs and ellipses of every size and turn."""
    from companion.vision.dice import _elongation

    rng = np.random.default_rng(4)
    line = np.zeros((9, 20), bool)
    line[4, 2:18] = True
    square = np.zeros((12, 12), bool)
    square[2:10, 2:10] = True
    bar = np.zeros((30, 30), np.uint8)
    cv2.line(bar, (3, 5), (26, 22), 1, 4)
    masks = [line, square, bar > 0, rng.random((25, 17)) > 0.6, np.ones((1, 2), bool)]
    for _ in range(300):
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        blob = np.zeros((h, w), np.uint8)
        centre = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        axes = (int(rng.integers(0, 20)), int(rng.integers(0, 20)))
        cv2.ellipse(blob, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1, -1)
        masks.append((blob > 0) & (rng.random((h, w)) < 0.9))
    for mask in masks:
        ys, xs = np.nonzero(mask)
        if xs.size < 3:
            assert _elongation(mask) == 1.0
            continue
        cov = np.cov(np.vstack([xs, ys]).astype(np.float64)) + np.eye(2) / 12.0
        lo, hi = np.linalg.eigvalsh(cov)
        assert _elongation(mask) == pytest.approx(float(np.sqrt(hi / max(lo, 1e-9))), rel=1e-12)
    assert _elongation(line) > 10 and _elongation(square) < 1.01


def test_a_single_dies_heart_is_its_first_deepest_pixel() -> None:
    """``_split`` of one die takes its deepest pixel, the first in raster order (as the
    stable sort of all its pixels' depths, kept for several dice, picks it), on blobs with
    several equally deep pixels."""
    from companion.vision.dice import _depth, _split
    from companion.vision.masks import nonzero

    rng = np.random.default_rng(7)
    for _ in range(200):
        h, w = (int(v) for v in rng.integers(3, 30, 2))
        blob = np.zeros((h, w), np.uint8)
        cv2.rectangle(blob, (1, 1), (w - 2, h - 2), 1, -1)
        blob = (blob > 0) & (rng.random((h, w)) < 0.95)
        if not blob.any():
            continue
        depth = _depth(blob)
        ys, xs = nonzero(blob)
        k = int(np.argsort(-depth[ys, xs], kind="stable")[0])
        ((part, part_depth, heart),) = _split(blob, 1, 10.0)
        assert part is blob and np.array_equal(part_depth, depth)
        assert heart == (float(xs[k]), float(ys[k]))


def test_a_symbols_patch_is_the_peaks_label_of_its_level() -> None:
    """``_symbols`` takes each peak's patch by a flood from it, its centre and area from its
    moments: the same patches, centres and areas as labelling the whole level and taking the
    peak's label (NumPy's means of its pixels), on random colour on random blobs."""
    from companion.vision.dice import _peaks, _symbols
    from companion.vision.masks import nonzero

    config = DEFAULT_CONFIG
    rng = np.random.default_rng(11)
    for _ in range(100):
        h, w = (int(v) for v in rng.integers(8, 30, 2))
        comp = rng.random((h, w)) < 0.9
        chromatic = cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), 1.5) * 2
        got = _symbols(chromatic, comp, 10.0, config)
        taken = np.zeros_like(comp)
        want = []
        for cy, cx in _peaks(np.where(comp, chromatic, 0.0), config.die_symbol_chromatic):
            if taken[cy, cx]:
                continue
            level = (chromatic >= config.die_symbol_level * chromatic[cy, cx]) & comp
            _, labels = cv2.connectedComponents(level.astype(np.uint8), connectivity=8)
            blob = labels == labels[cy, cx]
            taken |= blob
            ys, xs = nonzero(blob)
            want.append((blob, (xs.mean(), ys.mean()), xs.size / 100.0))
        assert want
        assert len(got) == len(want)
        for symbol, (blob, centre, area) in zip(got, want, strict=True):
            assert np.array_equal(symbol.blob, blob)
            assert symbol.centre == centre and symbol.area == area


@pytest.mark.parametrize("sigma", [0.7, 1.06])
def test_the_crop_is_smoothed_in_place_and_its_grey_summed_in_place_alike(sigma: float) -> None:
    """The dice's crop is smoothed in place and its grey summed in place: the same numbers as
    OpenCV's blur into a new image and NumPy's sum of the three channels over three."""
    image, _ = rendered("hard", 110, ("green", "pink", "crown"))
    crop = np.ascontiguousarray(image[300:480, 500:740])
    want = np.asarray(cv2.GaussianBlur(crop.astype(np.float32), (0, 0), sigma), np.float32)
    got = crop.astype(np.float32)
    cv2.GaussianBlur(got, (0, 0), sigma, dst=got)
    assert np.array_equal(got, want)
    grey = got[..., 0] + got[..., 1]
    grey += got[..., 2]
    grey /= 3
    assert np.array_equal(grey, (want[..., 0] + want[..., 1] + want[..., 2]) / 3)


def test_the_faces_hue_and_colourfulness_are_worked_out_once_per_floor() -> None:
    """face_of compares a symbol with each face's hue and colourfulness made once per
    saturation floor: the numbers hue_saturation gives for that face under that config."""
    from dataclasses import replace

    from companion.vision.config import DEFAULT_CONFIG
    from companion.vision.die_faces import DIE_WHITE, FACE_BGR, _faces, hue_saturation

    for floor in (DEFAULT_CONFIG.die_saturation_floor, 0.02, 0.3):
        config = replace(DEFAULT_CONFIG, die_saturation_floor=floor)
        want = [
            (name, *hue_saturation([c / w for c, w in zip(bgr, DIE_WHITE, strict=True)], config))
            for name, bgr in FACE_BGR.items()
        ]
        assert list(_faces(floor)) == want
    assert _faces(0.02) is _faces(0.02)


@pytest.mark.parametrize(
    ("seed", "ratio"),
    [
        (121, [0.3732, 0.8414, 0.9278]),  # hue 162: was "could be crown or yellow"
        (159, [0.3931, 0.8634, 0.8888]),  # hue 168: the same
        (217, [0.2505, 0.8434, 0.9261]),  # colourfulness 0.40 (blurred): was read yellow
    ],
)
def test_a_crown_turned_towards_the_yellow_hue_is_a_crown(seed: int, ratio: list[float]) -> None:
    """The crowns' symbols of hard seeds 121, 159 and 217 (benchmark dice, as measured there:
    B, G, R over the die's white): their hues are the yellow's, but they are far darker for
    their colour than a yellow spot (die_faces.crown_or_yellow)."""
    assert face_of(ratio, DEFAULT_CONFIG) == ("crown", ""), seed


def test_between_the_crown_and_the_yellow_only_colourfulness_counts() -> None:
    """A hue from the crown's to past the yellow's does not move a die across: under the
    first bound a crown, over the second a yellow, between unread."""
    from companion.vision.die_faces import crown_or_yellow

    low, high = DEFAULT_CONFIG.die_crown_yellow
    assert crown_or_yellow(low - 0.01, DEFAULT_CONFIG) == ("crown", "")
    assert crown_or_yellow(high + 0.01, DEFAULT_CONFIG) == ("yellow", "")
    face, why = crown_or_yellow((low + high) / 2, DEFAULT_CONFIG)
    assert face is None and "crown or yellow" in why


def whole_crop_die_pixels(bgr: Any, grey: Any, tray: Any, side: float) -> Any:
    """The die pixels as session 11 worked them out, over the whole crop (every step's
    image the crop's): what the search box's must equal."""
    from companion.vision.dice_tray import tray_zones
    from companion.vision.local_print import median_columns, median_u8, quantile_of
    from companion.vision.masks import opened_by

    config = DEFAULT_CONFIG
    inner, search = tray_zones(tray, side, config)
    k = max(3, round(config.die_background * side)) | 1
    box = np.ones((k, k), np.uint8)
    own = np.where(tray, grey, float(median_columns(grey[inner][:, None])[0]))
    rise = grey - cv2.morphologyEx(own, cv2.MORPH_OPEN, box)
    local = grey - cv2.morphologyEx(grey, cv2.MORPH_OPEN, box)
    top = float(quantile_of(rise[search], 0.999))
    lab8 = cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.uint8), cv2.COLOR_BGR2Lab)
    ref = median_u8(lab8[inner]).astype(np.float32)
    chroma = np.hypot(lab8[..., 1] - ref[1], lab8[..., 2] - ref[2])
    lit = (rise >= config.die_body_share * top) & (local >= config.die_board_share * top)
    body = (lit | (chroma >= config.die_spot_chroma)) & search
    n, labels = cv2.connectedComponents((~body).view(np.uint8), connectivity=4)
    edge = np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
    hole = np.bincount(labels.ravel(), minlength=n) <= config.die_hole * side * side
    hole[edge] = False
    hole[0] = False
    body = body | hole[labels]
    thin = max(2, round(config.die_min_width * side))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (thin, thin))
    return opened_by(body.astype(np.uint8), disc) > 0


@pytest.mark.parametrize(("preset", "seed", "faces"), CASES)
def test_the_die_pixels_of_the_search_box_are_the_whole_crops(
    preset: str, seed: int, faces: tuple[str, ...]
) -> None:
    """The die pixels are worked out in the search zone's box only (the openings' dilation
    there, holes by a flood from the crop's edge, the tray's a/b counted under its mask, the
    rise's top quantile from the values above a sampled bound, the spot's chroma squared):
    the same pixels as every step over the whole crop, on rendered trays; and on the tray
    with a hole too big to be a symbol, cut by the crop's edge."""
    from companion.vision.dice import die_pixels

    image, _ = rendered(preset, seed, faces)
    tray = find_tray(
        image, build_geometry(uncalibrated(image, LAYOUT), LAYOUT), LAYOUT, DEFAULT_CONFIG
    )
    assert isinstance(tray, Tray)
    bgr = tray.crop.astype(np.float32)
    bgr = np.asarray(cv2.GaussianBlur(bgr, (0, 0), DEFAULT_CONFIG.die_smooth * tray.side))
    grey = (bgr[..., 0] + bgr[..., 1] + bgr[..., 2]) / 3
    want = whole_crop_die_pixels(bgr, grey, tray.mask, tray.side)
    assert want.any()
    assert np.array_equal(die_pixels(bgr, grey, tray.mask, tray.side, DEFAULT_CONFIG), want)
    # A bright ring of a die's width round a dark patch bigger than a symbol (kept open),
    # and the tray reaching the crop's left edge.
    x, y = (int(v) for v in np.argwhere(tray.mask).mean(axis=0)[::-1])
    r = round(tray.side * 1.2)
    ringed = bgr.copy()
    cv2.circle(ringed, (x, y), r, (250.0, 250.0, 250.0), max(2, round(tray.side * 0.6)))
    x0 = x - 2 * r
    cut = np.s_[:, x0:]
    ringed, mask = np.ascontiguousarray(ringed[cut]), np.ascontiguousarray(tray.mask[cut])
    grey = (ringed[..., 0] + ringed[..., 1] + ringed[..., 2]) / 3
    want = whole_crop_die_pixels(ringed, grey, mask, tray.side)
    assert mask[:, 0].any() and want[y, x - x0 + r] and not want[y, x - x0]
    assert np.array_equal(die_pixels(ringed, grey, mask, tray.side, DEFAULT_CONFIG), want)
