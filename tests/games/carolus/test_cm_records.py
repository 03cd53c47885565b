"""Game records: the hand-written opening, whole recorded games, broken records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.games.carolus.api import replay
from companion.games.carolus.moves import Move
from companion.games.carolus.record import game_from_header, write_record
from companion.games.carolus.selfplay import invariant_violations
from companion.games.errors import RecordError

RECORDS = Path(__file__).parents[2] / "data" / "carolus" / "records"
OPENING = (RECORDS / "opening_2p.rec").read_text()
EXPECTED = json.loads((RECORDS / "opening_2p.expected.json").read_text())


def test_the_hand_written_opening_replays_to_the_hand_counted_state() -> None:
    result = replay(OPENING)
    assert result.ok and result.error is None and result.outcome is None
    assert result.moves_applied == EXPECTED["moves_applied"]
    assert result.scores == EXPECTED["scores"]
    pos = result.final_position
    for tid, owner in EXPECTED["castle_on"].items():
        assert next(t["castle"] for t in pos["ring"] if t["id"] == tid) == owner
    assert sum(1 for t in pos["ring"] if t["castle"]) == len(EXPECTED["castle_on"])
    for key in ("castles_left", "influence", "courts", "reserves", "charlemagne", "discs"):
        assert pos[key] == EXPECTED[key], key


def test_an_illegal_line_stops_the_replay_with_its_line_and_reason() -> None:
    text = OPENING + EXPECTED["illegal_next"] + "\nblack knight red court\n"
    result = replay(text)
    assert not result.ok
    line = len(OPENING.splitlines()) + 1
    assert result.error == (
        f"line {line}: {EXPECTED['illegal_next']}: {EXPECTED['illegal_reason']}"
    )
    assert result.moves_applied == EXPECTED["moves_applied"]


def test_a_garbled_move_line_is_reported_as_the_first_illegal_move() -> None:
    result = replay(OPENING + "white knigt red court\n")
    assert not result.ok
    assert result.error is not None and "unknown verb 'knigt'" in result.error


@pytest.mark.parametrize("name", ["random_3p.rec", "random_4p.rec"])
def test_recorded_whole_games_replay_to_their_end(name: str) -> None:
    text = (RECORDS / name).read_text()
    result = replay(text)
    assert result.ok, result.error
    assert result.outcome is not None
    # The record's comment names the outcome it was written with.
    assert result.outcome in text.splitlines()[1]
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    game = game_from_header(lines[0])
    for ln in lines[1:]:
        game.push(Move.parse(ln))
        assert invariant_violations(game.state) == []
    assert write_record(game) == "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the record is empty"),
        ("# only a comment\n", "the record is empty"),
        ("{not json\n", "line 1: the header is not valid JSON"),
        ('{"game": "el-grande", "players": ["white", "black"], "seed": 1}\n', "header game"),
        ('{"game": "carolus-magnus", "players": ["white", "black"]}\n', "header seed"),
        ('{"game": "carolus-magnus", "players": "white", "seed": 1}\n', "header players"),
        (
            '{"game": "carolus-magnus", "players": ["white", "black"], "seed": 1, "x": 1}\n',
            "unknown header key 'x'",
        ),
        (
            '{"game": "carolus-magnus", "players": ["white", "black"], "seed": 1, '
            '"options": {"speed": 1}}\n',
            "header options.speed: unknown rule option",
        ),
        (
            '{"game": "carolus-magnus", "players": ["ann", "ben", "cid", "dora"], "seed": 1}\n',
            "teams: 4 players play as two teams",
        ),
    ],
)
def test_unreadable_records(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        replay(text)
