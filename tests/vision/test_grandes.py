"""The black grande on hard frames where something else is as like one (figures.find_big_top)."""

from __future__ import annotations

import pytest

from benchmarks.bench_vision import POSITIONS, calibrated
from companion.vision.layout import load_layout
from companion.vision.pipeline import Reader
from companion.vision.synth import HARD, render


@pytest.mark.parametrize("seed", [4, 17])
def test_the_black_grande_is_no_block_l_or_patch_of_table(seed: int) -> None:
    """Seed 4: a row of black cubes two wide and four long, their seams blurred away, as
    thick as the grande (merged with its shadow) and thicker. Seed 17: the dark table inside
    the board's outline (the lens bends the board's edge) twice as thick as a grande, and an
    L of three black cubes as thick and as big as one."""
    layout = load_layout("el-grande")
    setup, position = POSITIONS["el-grande"](seed)
    image, truth = render(position, layout, seed=seed, conditions=HARD)
    obs = Reader(calibrated(layout, setup, seed, HARD), layout).read(image)
    assert not obs.occluded
    black = next(p for p in truth["pieces"] if p["kind"] == "grande" and p["colour"] == "black")
    assert obs.figures["grande:black"] == black["area"]
