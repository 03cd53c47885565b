"""The stacked- and tilted-cube flags (issue #4): a lone cube's full-resolution measures judged
(cube_windows.probable_stack / probable_tilt), and rendered frames flagged where the cube is."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchmarks.bench_vision import POSITIONS, calibrated
from companion.vision.config import DEFAULT_CONFIG, VisionConfig
from companion.vision.cube_windows import (
    Seen,
    View,
    probable_stack,
    probable_tilt,
    worth_measuring,
)
from companion.vision.layout import load_layout
from companion.vision.pipeline import Reader
from companion.vision.synth import HARD, render

CUBE_MM = 10.0


def seen(parallax: float, band: float, **rest: float) -> Seen:
    """A flat-looking blue cube's measures: ``band`` parallaxes of shade towards the nadir."""
    shape: dict[str, float] = {
        "away": 0.05,
        "across": 0.1,
        "major": 0.85 * CUBE_MM,
        "minor": 0.83 * CUBE_MM,
    }
    shape.update(rest)
    return Seen("blue", (0.0, 0.0), parallax, band * parallax, **shape)


def test_a_stack_is_flagged_only_where_the_parallax_tells_and_its_band_is_a_stacks() -> None:
    cfg = DEFAULT_CONFIG
    tall = cfg.stack_min_parallax + 0.1
    middle = (cfg.stack_band_ratio + cfg.stack_band_max) / 2
    assert probable_stack(seen(tall, middle), cfg)
    assert not probable_stack(seen(tall, 1.0), cfg)  # one cube's
    # Near the nadir a band of two parallaxes is a few pixels: not told.
    assert not probable_stack(seen(cfg.stack_min_parallax / 2, middle), cfg)
    # Longer than a stack's: the shade ran into a neighbour of its colour.
    assert not probable_stack(seen(tall, cfg.stack_band_max + 0.5), cfg)
    # Not measured (a black cube, a shade out of its window): nothing said.
    assert not probable_stack(Seen("black", (0.0, 0.0), tall, 0, 0, 0, 0, 0, told=False), cfg)


def test_a_window_is_cut_only_where_a_flag_asked_for_can_be_told() -> None:
    near = View("red", (0.0, 0.0), (100.0, 100.0), (103.0, 100.0), 20.0)  # 0.15 sides
    far = replace(near, foot=(112.0, 100.0))  # 0.6 sides
    stacks = replace(DEFAULT_CONFIG, stack_flag=True, tilt_flag=False)
    assert far.parallax >= stacks.stack_min_parallax > near.parallax
    assert worth_measuring(far, stacks) and not worth_measuring(near, stacks)
    # A lean is looked for anywhere; with neither flag nothing is.
    assert worth_measuring(near, replace(stacks, tilt_flag=True))
    assert not worth_measuring(far, replace(stacks, stack_flag=False))


def test_a_tilt_wants_a_whole_top_clearly_shorter_one_way() -> None:
    cfg = DEFAULT_CONFIG
    lo, hi = cfg.tilt_major
    major = (lo + hi) / 2 * CUBE_MM
    leaning = seen(0.3, 1.0, major=major, minor=0.9 * cfg.tilt_minor_ratio * major)
    assert probable_tilt(leaning, CUBE_MM, cfg)
    assert not probable_tilt(replace(leaning, minor=0.95 * major), CUBE_MM, cfg)
    # A fragment of a top, or a top with a lit side joined to it, is not judged.
    assert not probable_tilt(replace(leaning, major=0.5 * lo * CUBE_MM), CUBE_MM, cfg)
    assert not probable_tilt(replace(leaning, major=1.2 * hi * CUBE_MM), CUBE_MM, cfg)
    # A top not measured (a black cube's) is not either.
    assert not probable_tilt(replace(leaning, major=0.0, minor=0.0), CUBE_MM, cfg)


def lone_cube_flags(
    seed: int, conditions: dict[str, float], config: VisionConfig, words: str
) -> tuple[dict[str, list[str]], dict[str, object]]:
    """Hard El Grande ``seed`` rendered with ``conditions`` and read with ``config``: the
    flags holding ``words`` by place, and the render's truth."""
    layout = load_layout("el-grande")
    setup, position = POSITIONS["el-grande"](seed)
    calibration = calibrated(layout, setup, seed, HARD)
    image, truth = render(position, layout, seed=seed, conditions=replace(HARD, **conditions))
    with Reader(calibration, layout, config) as reader:
        obs = reader.read(image)
    flagged = {
        place: [m for m in msgs if words in m]
        for place, msgs in obs.flags.items()
        if any(words in m for m in msgs)
    }
    return flagged, truth


def assert_on_marked_cubes(flagged: dict[str, list[str]], truth: dict, mark: str) -> None:
    """Every flag is in a place where the truth has a cube of its colour so marked."""
    marked = {(c["area"], c["colour"]) for c in truth["cubes"] if c.get(mark)}
    for place, msgs in flagged.items():
        for msg in msgs:
            assert (place, msg.split(":")[0]) in marked, (place, msg)


@pytest.mark.parametrize(
    ("seed", "mark", "flag", "message"),
    [
        # A yellow cube on another, well off the nadir (one cube's parallax 0.59 sides, its
        # shade 2.3 parallaxes towards the nadir when fitted).
        (119, "stacked", "stack_flag", "yellow: a cube stacked on another?"),
        # A red cube leaning, read as a lone top (its short side 0.57 of its long when fitted;
        # the flag is off by default, finding 1 of 1152 tilted cubes: VisionConfig.tilt_flag).
        (179, "tilted", "tilt_flag", "red: a cube tilted?"),
    ],
)
def test_a_rendered_stack_or_lean_is_flagged_where_it_stands_and_plain_frames_are_not(
    seed: int, mark: str, flag: str, message: str
) -> None:
    """Hard El Grande ``seed`` rendered with stacks (or leans): the cube is flagged in its
    region, and no flag is where the truth has no such cube; the same table without them is
    not flagged; and the flag says nothing when off."""
    on, off = (replace(DEFAULT_CONFIG, **{flag: value}) for value in (True, False))
    words = message.split(": ")[1]
    flagged, truth = lone_cube_flags(seed, {mark: 0.15}, on, words)
    assert any(m == message for ms in flagged.values() for m in ms), flagged
    assert_on_marked_cubes(flagged, truth, mark)
    assert lone_cube_flags(seed, {mark: 0.15}, off, words)[0] == {}
    assert lone_cube_flags(seed, {}, on, words)[0] == {}


def test_no_lone_cube_flag_where_it_was_not_fitted() -> None:
    # Hard Carolus seed 141, no cube stacked: with the stack flag judged in Carolus too (its
    # thresholds fitted on El Grande's renders), t04's yellow cube was flagged as stacked.
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](141)
    image, truth = render(position, layout, seed=141, conditions=HARD)
    assert not any(c.get("stacked") for c in truth["cubes"])
    calibration = calibrated(layout, setup, 141, HARD)
    everywhere = replace(DEFAULT_CONFIG, cube_flag_games=("el-grande", "carolus-magnus"))
    assert "yellow: a cube stacked on another?" in Reader(calibration, layout, everywhere).read(
        image
    ).flags.get("t04", ())
    obs = Reader(calibration, layout).read(image)
    assert not any("stacked" in m for ms in obs.flags.values() for m in ms)
