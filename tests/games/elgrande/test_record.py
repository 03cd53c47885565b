"""Game records: replaying committed records, stopping at the first illegal move with its line
and reason, and refusing unreadable records."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.games.elgrande.game import Game
from companion.games.elgrande.moves import parse_move
from companion.games.elgrande.record import replay, write_record
from companion.games.elgrande.selfplay import play_random_game
from companion.games.errors import RecordError

RECORDS = Path(__file__).parents[2] / "data" / "elgrande" / "records"


def move_lines(text: str) -> list[str]:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    return lines[1:]


def test_a_recorded_selfplay_game_replays_to_its_end() -> None:
    text = (RECORDS / "selfplay_4p_seed2026.txt").read_text(encoding="utf-8")
    result = replay(text)
    assert result.ok and result.error is None
    assert result.moves_applied == len(move_lines(text))
    assert result.outcome is not None and "game over after round 9" in result.outcome
    # the final scores are the sum of what every scoring in the game gave
    game = Game.new(
        ["yellow", "green", "blue", "red"],
        seed=0,
        king="valencia",
        homes={
            "yellow": "sevilla",
            "green": "castilla_la_nueva",
            "blue": "pais_vasco",
            "red": "castilla_la_vieja",
        },
    )
    for line in move_lines(text):
        game.push(parse_move(line))
    totals = dict.fromkeys(game.state.players, 0)
    for entry in game.state.log:
        for colour, points in entry.get("points", {}).items():
            totals[colour] += points
    assert result.scores == totals == game.state.scores
    assert result.final_position["game"] == "el-grande"
    assert set(result.final_position["players"]) == {"yellow", "green", "blue", "red"}


def test_a_duplicate_power_card_stops_the_replay_at_its_line() -> None:
    result = replay((RECORDS / "illegal_duplicate_power_line39.txt").read_text(encoding="utf-8"))
    assert not result.ok
    assert result.error is not None
    assert result.error.startswith("line 39: green power 5: ")
    assert "already played this round" in result.error
    assert result.moves_applied == 36  # lines 3-38 were applied
    assert result.outcome is None


def test_a_placement_into_the_kings_region_stops_the_replay() -> None:
    result = replay((RECORDS / "taboo_place_line13.txt").read_text(encoding="utf-8"))
    assert not result.ok and result.error is not None
    assert result.error.startswith("line 13: red place galicia 1: taboo")
    assert result.moves_applied == 10
    assert result.final_position["castillo"] == {"red": 2}
    assert result.final_position["king"] == "galicia"


def test_write_then_replay_gives_the_same_game() -> None:
    game, _ = play_random_game(2, 77, check=False)
    result = replay(write_record(game))
    assert result.ok and result.scores == game.state.scores
    assert result.moves_applied == len(game.move_stack)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty record"),
        ("# only a comment\n", "empty record"),
        ("not json\n", "line 1: the header is not valid JSON"),
        ("[1, 2]\n", "must be a JSON object"),
        (
            '{"game": "carolus-magnus", "players": ["red", "blue"]}\n',
            "header game must be 'el-grande'",
        ),
        ('{"game": "el-grande", "players": "red"}\n', "'players' must be a list"),
        ('{"game": "el-grande", "players": ["red", "blue"], "seed": "x"}\n', "'seed'"),
        ('{"game": "el-grande", "players": ["red", "blue"], "sead": 1}\n', "unknown header key"),
        ('{"game": "el-grande", "players": ["red"]}\n', "2 to 5 players"),
        (
            '{"game": "el-grande", "players": ["red", "blue"], "options": {"veto": 3}}\n',
            "options.veto",
        ),
    ],
)
def test_unreadable_records_are_refused_with_the_line(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        replay(text)


def test_a_move_line_that_cannot_be_read_is_the_first_illegal_move() -> None:
    # As in Carolus Magnus (games/record.replay_moves): the record stops there, exit 1.
    result = replay('{"game": "el-grande", "players": ["red", "blue"]}\n\ntable shuffle\n')
    assert not result.ok
    assert result.moves_applied == 0
    assert result.error is not None
    assert result.error.startswith("line 3: 'table shuffle': unknown verb 'shuffle'")
