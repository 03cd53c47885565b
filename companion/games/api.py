"""What every game package offers the commands, the live session and the UI.

Each engine package (``companion.games.elgrande``, ``companion.games.carolus``) has a module
``api`` with the functions of :class:`GameAPI`. Commands and the session reach a game only through
:func:`game_api`, so both games are treated alike.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Protocol

from companion.games.errors import PositionError

GAMES: dict[str, str] = {
    "el-grande": "companion.games.elgrande.api",
    "carolus-magnus": "companion.games.carolus.api",
}


@dataclass(frozen=True)
class ReplayResult:
    """The outcome of replaying a game record."""

    ok: bool
    moves_applied: int
    final_position: dict[str, Any]
    scores: dict[str, int]
    error: str | None = None  # the first illegal move and why, with its line number
    outcome: str | None = None  # a readable summary when the game ended


@dataclass
class SelfplayReport:
    """What ``companion selfplay`` measured and checked."""

    game: str
    players: int
    games: int
    moves: int
    seconds: float
    violations: list[str] = field(default_factory=list)
    stalled: int = 0
    """Games stopped without an outcome because no rule could ever end them (Carolus Magnus:
    every cube in play and no stop of Charlemagne changes anything)."""

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")


class GameAPI(Protocol):
    GAME_ID: str

    def analyze_position(
        self, data: dict[str, Any], *, player: str | None = None, steps: int | None = None
    ) -> dict[str, Any]:
        """Validate a position (spec/positions.md) and return its analysis; PositionError if bad."""
        ...

    def format_analysis(self, analysis: dict[str, Any]) -> str:
        """The analysis as a readable text table (``--format text``)."""
        ...

    def replay(self, text: str) -> ReplayResult:
        """Replay a game record (see docs/records.md); RecordError if it cannot be read."""
        ...

    def selfplay(self, players: int, games: int, seed: int) -> SelfplayReport:
        """Play random legal games to the end, checking invariants after every move."""
        ...


def game_api(game: object, path: str = "game") -> GameAPI:
    """The API module of a game id; PositionError naming ``path`` for an unknown id."""
    if not isinstance(game, str) or game not in GAMES:
        known = ", ".join(GAMES)
        raise PositionError(path, f"{game!r} is not a known game (use one of: {known})")
    module: Any = importlib.import_module(GAMES[game])
    return module
