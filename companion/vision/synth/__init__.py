"""The synthetic table: render a position as a camera would see it, with ground truth.

``render(position, layout, seed=..., conditions=EASY|HARD, hand=...)`` → (BGR image, truth dict);
``render_sequence(...)`` → frames of a hand reaching in and out over a still table.
"""

from companion.vision.synth.conditions import EASY, HARD, PRESETS, Conditions
from companion.vision.synth.render import render, render_sequence

__all__ = ["EASY", "HARD", "PRESETS", "Conditions", "render", "render_sequence"]
