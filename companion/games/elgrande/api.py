"""El Grande's side of the game contract (``companion.games.api.GameAPI``)."""

from __future__ import annotations

from typing import Any

from companion.games.api import ReplayResult, SelfplayReport
from companion.games.elgrande.analysis import analyze, format_text
from companion.games.elgrande.position import position_from_json
from companion.games.elgrande.record import replay as replay_record
from companion.games.elgrande.selfplay import selfplay as play_random_games
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


def replay(text: str) -> ReplayResult:
    return replay_record(text)


def selfplay(players: int, games: int, seed: int) -> SelfplayReport:
    return play_random_games(players, games, seed)
