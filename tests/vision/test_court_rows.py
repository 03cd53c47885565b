"""Court rows counted from how far their colour runs along the row (court_rows.py)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.bench_vision import POSITIONS, calibrated
from benchmarks.fit_court_rows import wrong_rows
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.court_rows import CourtRow, filled_length, row_count
from companion.vision.layout import Pose, load_layout
from companion.vision.pipeline import Reader
from companion.vision.synth import HARD, render

CUBE = 10.0


def _cube_pixels(starts: list[float], width: float = CUBE) -> tuple[np.ndarray, np.ndarray]:
    """Pixel centres (u, v) every half millimetre over cubes starting at ``starts``."""
    us, vs = [], []
    for s in starts:
        u, v = np.meshgrid(np.arange(s, s + CUBE, 0.5), np.arange(0, width, 0.5))
        us.append(u.ravel())
        vs.append(v.ravel())
    return np.concatenate(us), np.concatenate(vs)


def test_a_row_of_touching_cubes_fills_its_length() -> None:
    u, v = _cube_pixels([30.0, 40.6, 51.2])
    length = filled_length(u, v, CUBE, 0.5)
    assert length == pytest.approx(31.2, abs=1.0)


def test_thin_halo_and_specks_add_no_length() -> None:
    u, v = _cube_pixels([30.0, 40.6])
    # A blurred halo one millimetre wide running on past the cubes, and a lone speck.
    halo_u = np.arange(50.6, 70.0, 0.5)
    speck_u = np.array([90.0, 90.5, 91.0])
    u2 = np.concatenate([u, halo_u, speck_u])
    v2 = np.concatenate([v, np.full(halo_u.size, 4.0), np.full(speck_u.size, 4.0)])
    assert filled_length(u2, v2, CUBE, 0.5) == pytest.approx(filled_length(u, v, CUBE, 0.5))


def test_a_row_the_glare_breaks_still_runs_from_its_first_cube_to_its_last() -> None:
    """Glare (or shade) takes the colour out of a stretch across the row, wider than the gaps
    runs are joined over: the row's cubes still stand one against the next, so its length is
    from its first run to its last, not the runs' sum (hard seeds 100-299: rows of five red
    read 4.2-4.4 cubes so)."""
    u, v = _cube_pixels([30.0, 40.6, 51.2])
    glare = (u >= 43.0) & (u < 47.0)  # 4 mm, over court_row_gap's 2 mm
    assert filled_length(u[~glare], v[~glare], CUBE, 0.5) == pytest.approx(
        filled_length(u, v, CUBE, 0.5)
    )
    # A fleck shorter than court_row_run past the row's end adds no length, nor its gap.
    fleck_u = np.arange(75.0, 77.0, 0.5)
    fleck_v = np.repeat(np.array([[0.0, 9.5]]), fleck_u.size, axis=0).ravel()
    u3 = np.concatenate([u, np.repeat(fleck_u, 2)])
    v3 = np.concatenate([v, fleck_v])
    assert filled_length(u3, v3, CUBE, 0.5) == pytest.approx(filled_length(u, v, CUBE, 0.5))


def test_row_count_is_length_over_pitch_less_the_lean() -> None:
    cfg = DEFAULT_CONFIG
    row = CourtRow(
        "court_1", "red", Pose(0, 0, 0), (20, -36, 140, -21.6), (0.0, 0.0), (0, 0, 1, 1), CUBE, 1.0
    )
    pitch = cfg.court_pitch * CUBE
    extra = cfg.court_row_extra * CUBE
    for n in range(0, 11):
        assert row_count(row, n * pitch + extra, cfg) == n
    # Tops leaning away from the dot show the first cube's side before it: no extra cube.
    away = CourtRow("court_1", "red", Pose(0, 0, 0), row.bounds, (7.0, 0.0), row.box, CUBE, 1.0)
    assert row_count(away, 5 * pitch + extra + cfg.court_lean_away * 7.0, cfg) == 5
    assert row_count(row, 5 * pitch + extra + cfg.court_lean_away * 7.0, cfg) == 5  # < half
    # A fraction rounds up only from court_row_round (0.615) of a cube: one over stands, one
    # under is taken back by the blobs' count.
    assert row_count(row, 5 * pitch + extra + 0.6 * pitch, cfg) == 5
    assert row_count(row, 5 * pitch + extra + 0.63 * pitch, cfg) == 6


@pytest.mark.parametrize(
    ("seed", "court", "colour", "n"),
    [
        (0, "court_2", "red", 5),
        (7, "court_1", "red", 3),
        (4, "court_1", "yellow", 2),
        (13, "court_2", "red", 4),
    ],
)
def test_hard_rows_whose_tops_blur_into_one_bar_are_counted_whole(
    seed: int, court: str, colour: str, n: int
) -> None:
    """Hard bench cases whose row the blobs read as 4 and 2 cubes (tops merged, the bar's
    lightness uneven along it). (Seed 1's court_1 blue row of 3, the blobs' 1, was read
    whole until calibration estimated the lens: its bar measures 2.1 cubes now.) And rows
    not read one over: seeds 4 and 13, whose colour runs 2.60 and 4.61 cubes (a lit side and
    blur at the row's end) and whose blobs read them right; rounded at a half, one over."""
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](seed)
    image, truth = render(position, layout, seed=seed, conditions=HARD)
    obs = Reader(calibrated(layout, setup, seed, HARD), layout).read(image)
    assert truth["counts"][court][colour] == n
    assert obs.count(court, colour) == n


def test_rows_read_together_count_as_each_read_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """count_rows puts every patch any row reaches on the tops' plane in one call (a colour's
    patches are reached by a row on each card): each row counts as it does alone, and the
    points are homography.unproject's to the last bit, under the calibration's lens too."""
    from companion.vision import court_rows, pipeline
    from companion.vision import homography as hg
    from companion.vision.standing import raised_view

    calls = []

    def keep(*args: object) -> object:
        calls.append(args)
        return court_rows.count_rows(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "count_rows", keep)
    layout = load_layout("carolus-magnus")
    # (Seed 1: a calibration that estimates the lens.)
    setup, position = POSITIONS["carolus-magnus"](1)
    image, _ = render(position, layout, seed=1, conditions=HARD)
    reader = Reader(calibrated(layout, setup, 1, HARD), layout)
    calls.clear()  # (the calibration reads its setup frame)
    reader.read(image)
    rows, patches, calibration, geo, cfg = calls[0]
    assert calibration.lens is not None and len(rows) == 10
    together = court_rows.count_rows(rows, patches, calibration, geo, cfg)
    alone = {}
    for row in rows:
        alone.update(court_rows.count_rows([row], patches, calibration, geo, cfg))
    assert together == alone, (together, alone)
    assert sum(together.values()) > 0
    top, lens = raised_view(calibration, rows[0].cube, cfg)
    points = np.random.default_rng(1).uniform(0, 1000, (500, 2))
    for lens_or_none in (lens, None):
        # (An array is taken as it is; a list of points as before: the same numbers.)
        want = hg.unproject(top, [tuple(p) for p in points.tolist()], lens_or_none)
        assert np.array_equal(hg.unproject(top, points, lens_or_none), want)
        parts = [hg.unproject(top, points[a:b], lens_or_none) for a, b in ((0, 7), (7, 500))]
        assert np.array_equal(np.concatenate(parts), want)
        assert hg.unproject(top, points[:0], lens_or_none).shape == (0, 2)


def test_the_rounding_fit_counts_a_row_wrong_by_the_larger_of_row_and_blobs() -> None:
    """benchmarks.fit_court_rows: a row 2.6 cubes long whose blobs read its 2 is wrong when
    its count rounds up from 0.6 or less; one 2.45 long whose blobs read 2 of its 3 is
    wrong either way (too short for its third cube); one whose blobs read 4 of its 3 stays
    wrong whatever the row says."""
    rows = [(2, 2.6, 2), (3, 2.45, 2), (3, 3.0, 4)]
    assert wrong_rows(rows, 0.5) == 3
    assert wrong_rows(rows, 0.615) == 2
    assert wrong_rows([(5, 4.7, 5)], 0.615) == 0
