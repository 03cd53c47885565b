"""Game records (docs/records.md): a JSON header line, then one move per line."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from companion.games.api import ReplayResult
from companion.games.carolus.game import Game
from companion.games.carolus.moves import Move
from companion.games.carolus.options import Options
from companion.games.carolus.position import GAME_ID, to_position
from companion.games.errors import PositionError, RecordError
from companion.games.record import read_header, record_lines, replay_moves

HEADER_KEYS = ("game", "players", "teams", "seed", "options")


def header_for(game: Game) -> dict[str, Any]:
    s = game.state
    return {
        "game": GAME_ID,
        "players": list(s.players),
        "teams": {u: list(p) for u, p in s.members.items()} if len(s.players) == 4 else None,
        "seed": s.seed,
        "options": s.options.to_dict(),
    }


def write_record(game: Game, moves: Iterable[Move] | None = None) -> str:
    """The record of a game started with ``Game.new``: header and every move pushed so far."""
    lines = [json.dumps(header_for(game))]
    lines += [str(m) for m in (game.move_stack if moves is None else moves)]
    return "\n".join(lines) + "\n"


def game_from_header(line: str, n: int = 1) -> Game:
    """The fresh game a record's header describes; RecordError naming the line if bad."""
    header = read_header(line, n, GAME_ID, HEADER_KEYS)
    players = header.get("players")
    seed = header.get("seed")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError(f"line {n}: header players must be a list of names")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RecordError(f"line {n}: header seed must be a whole number (it lays out the ring)")
    teams = header.get("teams")
    if teams is not None and not (
        isinstance(teams, dict)
        and all(isinstance(v, list) and all(isinstance(p, str) for p in v) for v in teams.values())
    ):
        raise RecordError(f"line {n}: header teams must map a castle colour to two player names")
    try:
        options = Options.from_dict(header.get("options"), "header options")
        return Game.new(players, teams=teams, seed=seed, options=options)
    except PositionError as exc:
        raise RecordError(f"line {n}: {exc}") from None


def replay(text: str) -> ReplayResult:
    """Replay a record, stopping at the first illegal move (with its line and reason)."""
    lines = record_lines(text)
    if not lines:
        raise RecordError("the record is empty: it needs a header line")
    game = game_from_header(lines[0][1], lines[0][0])
    error = replay_moves(game, lines[1:], Move.parse)
    outcome = game.outcome()
    return ReplayResult(
        ok=error is None,
        moves_applied=len(game.move_stack),
        final_position=to_position(game),
        scores=game.state.castles_on_board(),
        error=error,
        outcome=None if outcome is None else str(outcome),
    )
