"""The ``GameAPI`` contract of companion/games/api.py for Carolus Magnus."""

from __future__ import annotations

from typing import Any

from companion.games.carolus import analysis, record
from companion.games.carolus import selfplay as _selfplay
from companion.games.carolus.position import GAME_ID, from_position

__all__ = ["GAME_ID", "analyze_position", "format_analysis", "replay", "selfplay"]


def analyze_position(
    data: dict[str, Any], *, player: str | None = None, steps: int | None = None
) -> dict[str, Any]:
    """Validate a position and return its analysis; PositionError naming the path if bad."""
    return analysis.analyze(from_position(data), player=player, steps=steps)


def format_analysis(a: dict[str, Any]) -> str:
    return analysis.format_analysis(a)


replay = record.replay
selfplay = _selfplay.selfplay
