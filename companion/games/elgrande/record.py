"""El Grande game records (docs/records.md): a JSON header line, then one move per line.

Header keys: ``game`` ("el-grande"), ``players`` (colours in seating order), ``seed`` (draws the
king and the home regions), optional ``options`` (rule options that differ from the defaults),
optional ``king`` and ``homes`` (the table's own setup, overriding the seed's).
"""

from __future__ import annotations

import json
from typing import Any

from companion.games.api import ReplayResult
from companion.games.elgrande.game import Game
from companion.games.elgrande.moves import parse_move
from companion.games.elgrande.options import Options
from companion.games.elgrande.position import position_to_json
from companion.games.errors import RecordError, RulesError
from companion.games.record import read_header, record_lines, replay_moves

HEADER_KEYS = ("game", "players", "seed", "options", "king", "homes")


def header_for(game: Game) -> dict[str, Any]:
    st = game.state
    header: dict[str, Any] = {"game": "el-grande", "players": list(st.players), "seed": st.seed}
    if st.options.changed():
        header["options"] = st.options.changed()
    return header


def write_record(game: Game, *, comment: str | None = None, setup: bool = False) -> str:
    """The record of a game from its start (``setup``: write king and homes into the header)."""
    header = header_for(game)
    if setup:
        first = game.state if not game.move_stack else game._undo[0]
        header["king"] = first.king
        header["homes"] = dict(first.grandes)
    lines = [f"# {comment}"] if comment else []
    lines.append(json.dumps(header, ensure_ascii=False))
    lines.extend(str(m) for m in game.move_stack)
    return "\n".join(lines) + "\n"


def start_game(header_line: str, number: int = 1) -> Game:
    """The game a record's header describes; RecordError names what is wrong with it."""
    header = read_header(header_line, number, "el-grande", HEADER_KEYS)
    players, seed = header.get("players"), header.get("seed", 0)
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError(f"line {number}: header 'players' must be a list of colours")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RecordError(f"line {number}: header 'seed' must be a whole number")
    try:
        options = Options.from_json(header.get("options", {}))
        return Game.new(
            players, seed=seed, options=options, king=header.get("king"), homes=header.get("homes")
        )
    except RulesError as exc:
        raise RecordError(f"line {number}: header: {exc}") from None
    except (TypeError, AttributeError):
        raise RecordError(f"line {number}: header 'king'/'homes' are malformed") from None


def replay(text: str) -> ReplayResult:
    """Replay a record, checking every move; stop at the first illegal one."""
    lines = record_lines(text)
    if not lines:
        raise RecordError("empty record: expected a JSON header line and moves")
    game = start_game(lines[0][1], lines[0][0])
    error = replay_moves(game, lines[1:], parse_move)
    outcome = game.outcome()
    return ReplayResult(
        ok=error is None,
        moves_applied=len(game.move_stack),
        final_position=position_to_json(game.to_position()),
        scores=dict(game.state.scores),
        error=error,
        outcome=str(outcome) if outcome else None,
    )
