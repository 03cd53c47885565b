"""The whole read on tables drawn by the project's renderer (companion.vision.synth).

Each case renders a set-up frame and a game frame with the same camera and light (one seed),
calibrates on the first and reads the second; counts must equal the renderer's ground truth.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest

from benchmarks.bench_vision import POSITIONS, calibrated
from companion.vision import homography as hg
from companion.vision.calibration import calibrate, missing_courts
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.layout import load_layout
from companion.vision.pipeline import Reader
from companion.vision.still import StillGate
from companion.vision.synth import EASY, HARD, Conditions, render, render_sequence

SMALL = EASY


def read_case(
    game: str, seed: int, conditions: Conditions = SMALL
) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    layout = load_layout(game)
    setup, position = POSITIONS[game](seed)
    image, truth = render(position, layout, seed=seed, conditions=conditions)
    obs = Reader(calibrated(layout, setup, seed, conditions), layout).read(image)
    return obs, truth, position


def rendered_camera(
    truth: dict[str, Any], points: list[tuple[float, float]]
) -> tuple[hg.Lens, np.ndarray]:
    """The rendered camera's lens (its truth) and where it shows these board points (mm)."""
    camera = truth["camera"]
    lens = hg.Lens(tuple(map(tuple, camera["matrix"])), tuple(camera["dist"]))
    ideal = cv2.perspectiveTransform(
        np.array(points, np.float64).reshape(-1, 1, 2), np.array(truth["homography"])
    )
    return lens, hg.distort(ideal.reshape(-1, 2), lens)


@pytest.mark.parametrize("seed", [1, 4, 7])
def test_el_grande_counts_and_figures_match_the_truth(seed: int) -> None:
    obs, truth, _ = read_case("el-grande", seed)
    assert not obs.occluded
    got = {a: dict(c) for a, c in obs.counts.items() if c}
    assert got == truth["counts"]
    for piece in truth["pieces"]:
        if piece["kind"] == "king":
            assert obs.figures["king"] == piece["area"]
        elif piece["kind"] == "grande":
            assert obs.figures[f"grande:{piece['colour']}"] == piece["area"]


@pytest.mark.parametrize("seed", [2, 4])
def test_carolus_counts_castles_charlemagne_and_dice(seed: int) -> None:
    obs, truth, _ = read_case("carolus-magnus", seed)
    assert not obs.occluded
    got = {a: dict(c) for a, c in obs.counts.items() if c}
    assert got == truth["counts"]
    castles = {
        p["area"]: p["colour"]
        for p in truth["pieces"]
        if p["kind"] == "castle" and p["area"] != "castle_supply"
    }
    assert dict(obs.castles) == castles
    charlemagne = next(p["area"] for p in truth["pieces"] if p["kind"] == "charlemagne")
    assert obs.figures["charlemagne"] == charlemagne
    assert sorted(obs.dice) == sorted(truth["dice"])


@pytest.mark.parametrize("seed", [3, 4, 11])
def test_carolus_counts_under_hard_light_blur_and_noise(seed: int) -> None:
    """Hard bench cases every count of which is right: seeds 3 and 11 since hue tells red
    from pink and frayed small tops count (each had 2-4 wrong counts before); seed 4 since a
    court row rounds up only from court_row_round of a cube (its court_1 yellow row measured
    2.6 cubes)."""
    obs, truth, _ = read_case("carolus-magnus", seed, HARD)
    assert not obs.occluded
    assert {a: dict(c) for a, c in obs.counts.items() if c} == truth["counts"]


def test_carolus_blues_in_shade_and_ragged_light_tops() -> None:
    """Hard seed 1: the Reader gives Carolus blue its lower chroma bar (court_1's and t13's
    blue cubes in shade) and the light colours' ragged tops their own share a cube (t08's
    green). (Its court_1 yellow row of 4 measures 3.57 cubes and its blobs 3: one under.)"""
    obs, truth, _ = read_case("carolus-magnus", 1, HARD)
    assert not obs.occluded
    for area, colour in (("court_1", "blue"), ("t13", "blue"), ("t08", "green")):
        assert truth["counts"][area][colour] > 0
        assert obs.count(area, colour) == truth["counts"][area][colour], (area, colour)


def test_a_dim_far_pink_pair_is_counted_by_its_faint_tops() -> None:
    """Hard Carolus seed 7: reserve_1's two pink cubes at the board's far corner are dim
    (chroma ~24-29 where the calibration's pink has 45), most of their tops under pink's
    chroma share, and half of the nearer one went to the red cube beside it as its fringe.
    Their faint tops count (colour.keep_faint): without them not one cube is seen. (Two
    were read in session 7; one since the speck opening stopped shifting the masks, session 8:
    see the vision README.)"""
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](7)
    image, truth = render(position, layout, seed=7, conditions=HARD)
    calibration = calibrated(layout, setup, 7, HARD)
    assert truth["counts"]["reserve_1"]["pink"] == 2
    counts = [
        Reader(calibration, layout, replace(DEFAULT_CONFIG, faint_width=width))
        .read(image)
        .count("reserve_1", "pink")
        for width in (DEFAULT_CONFIG.faint_width, 100.0)  # (no faint patch is 100 sides wide)
    ]
    assert counts[0] >= 1 and counts[1] == 0, counts


def test_an_el_grande_l_of_three_filling_more_of_its_rectangle_is_three_cubes() -> None:
    """Hard El Grande seed 4: three of cataluna's five yellow cubes make one top in an L, 2.0 x
    1.77 sides, 2.87 cube tops, filling 0.57 of its rectangle: the L rule fitted on Carolus's
    tops (fill under 0.56) read it as a pair; refitted on El Grande's (under 0.6, from 2.0
    cube tops) it reads three."""
    layout = load_layout("el-grande")
    setup, position = POSITIONS["el-grande"](4)
    image, truth = render(position, layout, seed=4, conditions=HARD)
    calibration = calibrated(layout, setup, 4, HARD)
    assert truth["counts"]["cataluna"]["yellow"] == 5
    assert Reader(calibration, layout).read(image).count("cataluna", "yellow") == 5
    carolus_l = replace(DEFAULT_CONFIG, top_l_fill=0.56, top_l_area=2.4)
    assert Reader(calibration, layout, carolus_l).read(image).count("cataluna", "yellow") == 4


def _cover_marker(image: Any, truth: dict[str, Any], marker_id: int) -> Any:
    """The image with a marker (and its white margin) painted over in the table's grey."""
    corners = next(m["corners"] for m in truth["markers"] if m["id"] == marker_id)
    pts = np.array(corners, np.float64)
    grown = pts.mean(axis=0) + (pts - pts.mean(axis=0)) * 1.6
    out = image.copy()
    cv2.fillPoly(out, [np.round(grown).astype(np.int32)], (110, 112, 115))
    return out


def test_a_court_card_whose_marker_is_never_seen_is_reported() -> None:
    """Hard Carolus seed 16 with court card 1's marker covered at calibration and in the
    frame: its rows cannot be read, and the user is told so instead of reading 0."""
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](16)
    setup_image, setup_truth = render(setup, layout, seed=16, conditions=HARD)
    calibration = calibrate(_cover_marker(setup_image, setup_truth, 30), layout, setup)
    assert calibration.courts_in_play == (1, 2)
    assert "court card of seat 1 (marker 30)" in missing_courts(calibration, layout)[1]
    image, truth = render(position, layout, seed=16, conditions=HARD)
    obs = Reader(calibration, layout).read(_cover_marker(image, truth, 30))
    assert "marker 30 not seen" in obs.unread["court_1"]
    assert "court_2" not in obs.unread  # seen: read as usual
    assert truth["counts"].get("court_2") == {c: n for c, n in obs.counts["court_2"].items() if n}


def test_a_court_card_marker_at_the_far_corner_is_found_and_its_rows_read() -> None:
    """Hard Carolus seed 16: court card 1's marker is 14 px wide at the table's far corner,
    under the detector's least perimeter for a 1920 px frame: it was found neither at
    calibration nor in the frame, and the card's 17 knights were read as none."""
    layout = load_layout("carolus-magnus")
    setup, _ = POSITIONS["carolus-magnus"](16)
    calibration = calibrated(layout, setup, 16, HARD)
    assert "court_1" in calibration.movables
    assert not missing_courts(calibration, layout)
    obs, truth, _ = read_case("carolus-magnus", 16, HARD)
    assert "court_1" not in obs.unread
    read = sum(obs.counts["court_1"].values())
    assert abs(read - sum(truth["counts"]["court_1"].values())) <= 2


def test_a_colour_whose_cubes_show_over_their_tiles_edges_is_sampled_from_them() -> None:
    """Hard Carolus seed 26: two of the set-up's three pink cubes stand at their tiles' edges
    and show their tops over the mat; pink was sampled from the mat's grey (chroma 17, the
    cubes' 50 and more) and pink cubes read as no colour on four territories."""
    layout = load_layout("carolus-magnus")
    setup, _ = POSITIONS["carolus-magnus"](26)
    pink = calibrated(layout, setup, 26, HARD).colours.pieces["pink"][0]
    assert np.hypot(pink[1] - 128.0, pink[2] - 128.0) > 40.0
    obs, truth, _ = read_case("carolus-magnus", 26, HARD)
    for tile in ("t11", "t13", "t14"):
        assert obs.count(tile, "pink") == truth["counts"][tile]["pink"]


@pytest.mark.parametrize("game", ["el-grande", "carolus-magnus"])
def test_a_hand_in_view_gives_no_counts(game: str) -> None:
    layout = load_layout(game)
    setup, position = POSITIONS[game](11)
    reader = Reader(calibrated(layout, setup, 11, SMALL), layout)
    clear, _ = render(position, layout, seed=11, conditions=SMALL)
    assert not reader.read(clear).occluded
    learnt = dict(reader.last_factors)
    image, truth = render(position, layout, seed=11, conditions=SMALL, hand=True)
    assert truth["occluded"]
    obs = reader.read(image)
    assert obs.occluded
    assert not obs.counts and not obs.figures and not obs.dice and not obs.castles
    assert reader.last_factors == learnt  # nothing learnt from a frame with a hand


@pytest.mark.parametrize(
    ("game", "seed"),
    [
        # Warm, magenta-tinted light and a cast shadow: the board's beige frame all round is
        # skin-coloured and reaches the board's edge; it was taken for a hand.
        ("el-grande", 16),
        # A dark arm from the right, as brown as the wooden table the lens bends inside the
        # board's outline (one of the board colours calibration finds) and as the borders'
        # ink: once taken for the board's own print, it was read as a position.
        ("el-grande", 40),
        # A pale arm from the top in a magenta cast, only the hand over the board's corner (a
        # few cube footprints a piece, its skin near the tiles' rim colour), the forearm over
        # the table: it was read as a position.
        ("carolus-magnus", 13),
    ],
)
def test_hard_light_a_hand_is_a_hand_and_a_clear_frame_is_read(game: str, seed: int) -> None:
    layout = load_layout(game)
    setup, position = POSITIONS[game](seed)
    reader = Reader(calibrated(layout, setup, seed, HARD), layout)
    clear, _ = render(position, layout, seed=seed, conditions=HARD)
    obs = reader.read(clear)
    assert not obs.occluded, obs.unread.get("board")
    image, truth = render(position, layout, seed=seed, conditions=HARD, hand=True)
    assert truth["occluded"]
    obs = reader.read(image)
    assert obs.occluded and not obs.counts


def test_an_arm_reaching_in_past_the_tower_is_a_hand() -> None:
    # Easy seed 6: the arm comes in from the right, over El Grande's tower, which the hand
    # check leaves out (its brown sides are skin-coloured): the arm still joins the hand to
    # the world off the board.
    layout = load_layout("el-grande")
    setup, position = POSITIONS["el-grande"](6)
    reader = Reader(calibrated(layout, setup, 6, SMALL), layout)
    image, truth = render(position, layout, seed=6, conditions=SMALL, hand=True)
    assert truth["occluded"] and truth["hand"]["edge"] == "right"
    obs = reader.read(image)
    assert obs.occluded and not obs.counts


@pytest.mark.parametrize(("seed", "court_4"), [(17, None), (12, {"green": 2})])
def test_the_towers_shadow_on_a_court_is_no_black_cubes(
    seed: int, court_4: dict[str, int] | None
) -> None:
    # Hard seeds 12 and 17: the Castillo tower, leaning out in the image, and its shadow on
    # the pale court zone beside it (the court's lines and name in it) were read as 4 and 9
    # black cubes in court_4. (Seed 17's two real black cubes there are an L that cubes.py
    # counts as three: not this test's.)
    obs, truth, _ = read_case("el-grande", seed, HARD)
    assert not obs.occluded
    if court_4 is not None:
        assert dict(obs.counts["court_4"]) == truth["counts"]["court_4"] == court_4
    else:
        assert obs.count("court_4", "black") <= truth["counts"]["court_4"]["black"] + 1
    # ... and no black anywhere round the tower but where black cubes stand.
    for area, counts in obs.counts.items():
        assert counts.get("black", 0) <= truth["counts"].get(area, {}).get("black", 0) + 1


def test_a_light_sampled_blacks_print_lines_are_no_black_cubes() -> None:
    # Hard seed 209 with its courts left out of the set-up (black sampled in its home
    # region only, under a lamp's glare, at lightness 67): the model's black took galicia's
    # dark border lines and the sea beside it for three black cubes where none stands. Black
    # must then be darker than a shadow everywhere on the board.
    layout = load_layout("el-grande")
    setup, position = POSITIONS["el-grande"](209)
    cal = calibrated(layout, {**setup, "courts": {}}, 209, HARD)
    assert cal.colours.pieces["black"][0][0] >= DEFAULT_CONFIG.dark_black_lightness
    reader = Reader(cal, layout)
    geo = reader.geometry()
    # The whole board, not only the tower's shadow (where grey tops are still not read).
    assert geo.dark_zone is not None and geo.shadow_zone is not None
    assert geo.dark_zone.sum() > 5 * geo.shadow_zone.sum()
    image, truth = render(position, layout, seed=209, conditions=HARD)
    obs = reader.read(image)
    assert not obs.occluded
    assert "black" not in truth["counts"]["galicia"]
    assert obs.count("galicia", "black") == 0
    for area, counts in obs.counts.items():
        assert counts.get("black", 0) <= truth["counts"].get(area, {}).get("black", 0)


def test_a_bright_frames_black_is_judged_by_darkness_round_the_tower_only() -> None:
    # Hard seed 12: the set-up's black is dark (well under dark_black_lightness): the
    # darkness test stays in the tower's shadow zone (a black cube under glare elsewhere is
    # no darker than a shadow and would be lost).
    layout = load_layout("el-grande")
    setup, _ = POSITIONS["el-grande"](12)
    cal = calibrated(layout, setup, 12, HARD)
    assert cal.colours.pieces["black"][0][0] < DEFAULT_CONFIG.dark_black_lightness
    geo = Reader(cal, layout).geometry()
    assert geo.dark_box == geo.shadow_box
    assert geo.dark_zone is geo.shadow_zone


def test_a_glared_home_regions_black_gives_way_to_its_courts() -> None:
    # Hard seed 135: a lamp's glare over cataluna, black's home region in the set-up, lifts
    # its caballeros and grande to lightness ~95; the seven black cubes of its court read
    # ~37, as the game's black tops do. Black is sampled from the court then, and the game
    # frame reads right (galicia's two black cubes were five).
    layout = load_layout("el-grande")
    setup, position = POSITIONS["el-grande"](135)
    cal = calibrated(layout, setup, 135, HARD)
    # (A set-up with empty courts: the home region's sample alone.)
    home = calibrated(layout, {**setup, "courts": {}}, 135, HARD).colours.pieces["black"][0]
    assert home[0] > 90 and cal.colours.pieces["black"][0][0] < 50
    image, truth = render(position, layout, seed=135, conditions=HARD)
    obs = Reader(cal, layout).read(image)
    assert {a: dict(c) for a, c in obs.counts.items() if c} == truth["counts"]
    # Hard seed 192: its court's black is 15 darker than its home's, no glare: the home's
    # sample stands (the court's lost the king and the black grande there).
    setup, _ = POSITIONS["el-grande"](192)
    home = calibrated(layout, {**setup, "courts": {}}, 192, HARD).colours.pieces["black"]
    assert calibrated(layout, setup, 192, HARD).colours.pieces["black"] == home


def test_a_players_grande_not_found_is_named_unread() -> None:
    # Hard seed 549: black's grande in castilla_la_vieja, its top not found. (Seed 209's blue
    # grande, the case here before, has been found since blue takes glared pixels.)
    # The players' grandes are always on the board: one not seen is said, not left out; the
    # other players' are placed, and colours nobody plays have no grande to miss.
    obs, _, position = read_case("el-grande", 549, HARD)
    assert not obs.occluded
    assert position["grandes"]["black"] == "castilla_la_vieja"
    assert obs.figures["grande:black"] is None
    assert obs.unread["grande:black"] == "not seen on the board"
    for colour, region in position["grandes"].items():
        if colour != "black":
            assert obs.figures[f"grande:{colour}"] == region
    assert {f"grande:{c}" for c in position["players"]} == {
        k for k in obs.figures if k.startswith("grande:")
    }


def test_pieces_inside_borders_read_as_black_are_counted() -> None:
    # Hard seed 462: the regions' printed borders read as black, a closed net round every
    # region; the pieces standing inside were left out of the mosaic (59 of 80 cubes read,
    # the king in the wrong region, three grandes not found).
    obs, truth, position = read_case("el-grande", 462, HARD)
    assert not obs.occluded
    assert {a: dict(c) for a, c in obs.counts.items() if c} == truth["counts"]
    assert obs.figures["king"] == position["king"]
    for colour, region in position["grandes"].items():
        assert obs.figures[f"grande:{colour}"] == region


def test_black_cubes_grey_under_glare_with_no_piece_near_are_counted() -> None:
    # Hard seed 512: six black cubes in granada under a lamp's glare (lightness ~100, the
    # set-up's black 39), no other piece within three sides of them: they read as none when
    # grey tops were looked for only round the pieces.
    obs, truth, _ = read_case("el-grande", 512, HARD)
    assert truth["counts"]["granada"]["black"] == 6
    assert {a: dict(c) for a, c in obs.counts.items() if c} == truth["counts"]


def test_a_grey_top_on_a_clusters_shaded_side_is_counted() -> None:
    # Hard seed 209: granada's six black cubes under glare, a cluster. The ring round each top
    # holds the cubes' own shadows and the cluster's other cubes: on its shaded side the
    # ring's 75th percentile was shadow, and a top there read over 0.55 of it (granada 6 ->
    # 5). The ring's brightest print is the measure now.
    obs, truth, _ = read_case("el-grande", 209, HARD)
    assert truth["counts"]["granada"]["black"] == 6
    assert {a: dict(c) for a, c in obs.counts.items() if c} == truth["counts"]


def test_a_grande_merged_with_the_cubes_beside_it_is_found() -> None:
    # Hard seed 558: black's grande in galicia, blurred into the cube beside it: its top
    # read as an L of three cells, refused as a grande's, and counted as three black cubes
    # (galicia 1 -> 4, the grande unread). A player's grande is always on the board: with no
    # other top for it, the top refused only for its shape is it.
    obs, truth, position = read_case("el-grande", 558, HARD)
    assert obs.figures["grande:black"] == position["grandes"]["black"] == "galicia"
    assert {a: dict(c) for a, c in obs.counts.items() if c} == truth["counts"]


def test_a_king_pricked_by_hue_noise_under_glare_is_found() -> None:
    # Hard seed 549: the king in pais_vasco under a lamp's glare, its pixels here and there
    # of some hue by noise; the dark test's opening took it all away (no square of its
    # width whole), so it was looked for elsewhere (castilla_la_vieja) and its own pixels
    # counted as three black cubes.
    obs, truth, position = read_case("el-grande", 549, HARD)
    assert obs.figures["king"] == position["king"] == "pais_vasco"
    assert obs.counts["pais_vasco"].get("black", 0) == truth["counts"]["pais_vasco"].get("black", 0)


def test_glared_blue_tops_are_counted_whole() -> None:
    # Hard seed 103: galicia's six blue cubes under a lamp's glare, their tops' chroma down
    # to ~31 of the calibration's 54; under 0.6 of it most of each top was unlabelled and a
    # cluster of three read as one (6 -> 4).
    obs, truth, _ = read_case("el-grande", 103, HARD)
    assert obs.counts["galicia"]["blue"] == truth["counts"]["galicia"]["blue"] == 6


def test_a_pair_of_cubes_blurred_into_a_bar_is_no_grande() -> None:
    # Hard seed 307: green's grande in valencia, merged with a cube beside it, and a pair of
    # green cubes in castilla_la_nueva blurred into one bar as thick as a grande's top and as
    # big. The bar was taken for the grande (castilla_la_nueva's green 6 -> 4); twice as long
    # as wide, it is refused now, and the grande is found where it stands.
    obs, truth, position = read_case("el-grande", 307, HARD)
    assert obs.figures["grande:green"] == position["grandes"]["green"] == "valencia"
    want = truth["counts"]["castilla_la_nueva"]["green"]
    assert obs.counts["castilla_la_nueva"]["green"] == want == 6


def test_still_gate_reads_only_after_the_hand_has_gone() -> None:
    layout = load_layout("el-grande")
    setup, position = POSITIONS["el-grande"](12)
    reader = Reader(calibrated(layout, setup, 12, SMALL), layout)
    gate = StillGate()
    seen = []
    clip = render_sequence(position, layout, seed=12, conditions=SMALL, frames=12)
    for k, (frame, truth) in enumerate(clip):
        state = gate.push(frame)
        if state.ready is not None:
            seen.append((k, reader.read_still(list(state.ready)), truth))
    assert seen, "the table was still before and after the hand: it must be read"
    for k, obs, truth in seen:
        if truth["occluded"]:
            assert obs.occluded, f"frame {k} shows a hand but was read"
        else:
            assert obs.occluded or obs.counts
    _, last, last_truth = seen[-1]
    assert not last.occluded
    assert {a: dict(c) for a, c in last.counts.items() if c} == last_truth["counts"]


def test_a_lost_corner_marker_under_a_wide_lens_keeps_the_board_in_place() -> None:
    # Hard Carolus seed 33: a wide lens (k1 -0.21) and corner marker 2 not found on the
    # set-up frame. No homography fits the other three markers' corners to 3 px there; RANSAC
    # kept one marker and a corner of another and put the board's corners 100-435 px off
    # (every tile, court, castle and die read wrong); least squares left them up to 99 px off
    # and the reserves at the board's far edge read empty. The lens's radial term, estimated
    # from the three markers' corners, puts the board within a few pixels.
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](33)
    setup_image, setup_truth = render(setup, layout, seed=33, conditions=HARD)
    cal = calibrate(setup_image, layout, setup)
    assert 2 not in cal.markers and len(cal.markers) == 3
    assert cal.lens is not None
    bw, bh = layout.board_size
    corners = [(0.0, 0.0), (bw, 0.0), (0.0, bh), (bw / 2, bh / 2), (bw / 2, bh)]
    _, want = rendered_camera(setup_truth, corners)
    assert np.linalg.norm(hg.project(cal.h, corners, cal.lens) - want, axis=1).max() < 8.0
    image, truth = render(position, layout, seed=33, conditions=HARD)
    obs = Reader(cal, layout).read(image)
    castles = {p["area"]: p["colour"] for p in truth["pieces"] if p["kind"] == "castle"}
    assert dict(obs.castles) == {a: c for a, c in castles.items() if a.startswith("t")}
    assert sorted(obs.dice) == sorted(truth["dice"])
    reserves = {a: c for a, c in truth["counts"].items() if a.startswith("reserve")}
    assert (
        reserves
        and {a: {k: v for k, v in obs.counts.get(a, {}).items() if v} for a in reserves} == reserves
    )


def test_a_dark_frames_sea_is_board_print_not_blue_cubes() -> None:
    """Hard El Grande seed 205: in its dim light the sea's print lies 24 from the set-up's blue
    (Lab), within the distance at which the board's colours were dropped as a piece's, and the
    sea read as 47 blue cubes in five regions. A cluster holding 6 % of the board is print
    (VisionConfig.board_print_share): every region's blue count right, none without it."""
    layout = load_layout("el-grande")
    setup, position = POSITIONS["el-grande"](205)
    image, truth = render(position, layout, seed=205, conditions=HARD)
    setup_image, _ = render(setup, layout, seed=205, conditions=HARD)
    want = {area: counts.get("blue", 0) for area, counts in truth["counts"].items()}
    for share, right in ((DEFAULT_CONFIG.board_print_share, True), (1.0, False)):
        config = replace(DEFAULT_CONFIG, board_print_share=share)
        obs = Reader(calibrate(setup_image, layout, setup, config=config), layout).read(image)
        got = {area: obs.count(area, "blue") for area in want}
        assert (got == want) is right, (share, got, want)


def test_a_lens_calibration_follows_the_camera_to_another_resolution() -> None:
    # A calibration made at 1920x1080 with the camera's lens model, the camera then set to
    # 1280x720 (the same view of the sensor): the lens is scaled with the frame (its focal
    # length and centre in pixels), and the board's corners fall where that camera shows
    # them. At 640x480 (another crop of the sensor) the lens's pixels are unknown: refused.
    from companion.vision.calibration import CalibrationError, refreshed

    layout = load_layout("el-grande")
    setup, position = POSITIONS["el-grande"](3)
    setup_image, setup_truth = render(setup, layout, seed=3, conditions=HARD)
    bw, bh = layout.board_size
    corners = [(0.0, 0.0), (bw, 0.0), (0.0, bh), (bw, bh), (bw / 2, bh / 2)]
    lens, _ = rendered_camera(setup_truth, corners)
    cal = calibrate(setup_image, layout, setup, lens=lens)
    h, w = setup_image.shape[:2]
    assert (w, h) == cal.image_size == (1920, 1080)
    image, truth = render(position, layout, seed=3, conditions=HARD)
    small = cv2.resize(image, (1280, 720), interpolation=cv2.INTER_AREA)
    fresh = refreshed(small, cal, layout)
    assert fresh.image_size == (1280, 720)
    assert fresh.lens is not None
    (fx, _, cx), (_, fy, cy), _ = fresh.lens.matrix
    assert (fx, fy) == pytest.approx((lens.matrix[0][0] * 2 / 3, lens.matrix[1][1] * 2 / 3))
    assert (cx + 0.5, cy + 0.5) == pytest.approx(
        ((lens.matrix[0][2] + 0.5) * 2 / 3, (lens.matrix[1][2] + 0.5) * 2 / 3)
    )
    _, shown = rendered_camera(truth, corners)
    want = (shown + 0.5) * 2 / 3 - 0.5
    assert np.linalg.norm(hg.project(fresh.h, corners, fresh.lens) - want, axis=1).max() < 3.0
    obs = Reader(fresh, layout).read(small)
    assert {a: dict(c) for a, c in obs.counts.items() if c} == truth["counts"]
    cropped = cv2.resize(image[:, 240:1680], (640, 480), interpolation=cv2.INTER_AREA)
    with pytest.raises(CalibrationError, match="640x480 but the calibration, with its lens"):
        refreshed(cropped, cal, layout)
