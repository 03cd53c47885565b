"""El Grande's side of the game contract (``companion.games.api.GameAPI``)."""

from __future__ import annotations

from typing import Any

from companion.games.elgrande.analysis import analyze, format_text
from companion.games.elgrande.position import position_from_json
from companion.games.errors import PositionError

GAME_ID = "el-grande"


def analyze_position(
    data: dict[str, Any], *, player: str | None = None, steps: int | None = None
) -> dict[str, Any]:
    if player is not None or steps is not None:
        raise PositionError("", "--player and --steps are for Carolus Magnus positions only")
    return analyze(position_from_json(data))


def format_analysis(analysis: dict[str, Any]) -> str:
    return format_text(analysis)
