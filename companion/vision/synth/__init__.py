"""The synthetic table: render a position as a camera would see it, with ground truth.

``render(position, layout, seed=..., conditions=EASY|HARD, hand=...)`` → (BGR image, truth dict);
``render_sequence(...)`` → frames of a hand reaching in and out over a still table.
``still_table(...)`` → frames of a table at rest without end (the synthetic camera's).
"""

from companion.vision.synth.conditions import EASY, HARD, PRESETS, Conditions
from companion.vision.synth.render import render, render_sequence, still_table

__all__ = ["EASY", "HARD", "PRESETS", "Conditions", "render", "render_sequence", "still_table"]
