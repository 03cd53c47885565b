"""Position files: bad ones are refused with a message naming the path; good ones round-trip."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from companion.games.carolus.api import analyze_position
from companion.games.carolus.game import Game
from companion.games.carolus.moves import Disc
from companion.games.carolus.position import from_position, from_state, to_position, to_state
from companion.games.carolus.selfplay import random_move
from companion.games.errors import PositionError

DATA = Path(__file__).parents[2] / "data" / "carolus"
BAD = json.loads((DATA / "bad" / "expected.json").read_text())["cases"]


def test_every_bad_file_has_an_expected_message() -> None:
    files = {p.stem for p in (DATA / "bad").glob("*.json")} - {"expected"}
    assert files == set(BAD)


@pytest.mark.parametrize(("name", "message"), sorted(BAD.items()))
def test_bad_position(name: str, message: str) -> None:
    data = json.loads((DATA / "bad" / f"{name}.json").read_text())
    with pytest.raises(PositionError) as info:
        analyze_position(data)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, ValueError)


def test_player_and_steps_are_checked() -> None:
    data = json.loads((DATA / "worked_example.json").read_text())
    with pytest.raises(PositionError, match="--player: 'grey' is not a player"):
        analyze_position(data, player="grey")
    with pytest.raises(PositionError, match="--steps: 7 is not a disc"):
        analyze_position(data, steps=7)
    a = analyze_position(data, player="black", steps=3)
    assert a["to_move"] == {"player": "black", "steps": 3}
    # Black stands 1..3 steps from B: C, then D, then t09.
    assert [r["region"] for r in a["reachable"]] == [["t05", "t06", "t07"], ["t08"], ["t09"]]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_positions_and_states_round_trip_through_json(players: int) -> None:
    rng = random.Random(players)
    game = Game.new(players, seed=players)
    for _ in range(150):
        if game.is_game_over():
            break
        game.push(random_move(game, rng))
        pos = json.loads(json.dumps(to_position(game)))
        assert to_position(from_position(pos)) == pos
        state = json.loads(json.dumps(to_state(game)))
        again = from_state(state)
        assert to_state(again) == state
        assert list(again.legal_moves()) == list(game.legal_moves())


def test_a_position_with_every_disc_played_starts_with_the_lowest() -> None:
    data = json.loads((DATA / "worked_example.json").read_text())
    game = from_position(data)
    assert (game.phase, game.turn) == ("knights", "white")
    data["discs"] = {"white": None, "black": 3}
    game = from_position(data)
    assert (game.phase, game.turn) == ("discs", "white")
    assert "disc 3 was already played" in (game.why_illegal(Disc("white", 3)) or "")


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("phase", "dancing", "phase: 'dancing' is not one of"),
        ("turn", "grey", "turn: 'grey' is not a player"),
        ("rolls", [["white", 9]], "rolls: must be a list of [player, number of dice]"),
        ("hands", {"white": [6]}, "hands.white: must be a list of discs"),
        ("outcome", "won", "outcome: must be null or {winners, players, reason}"),
        ("extra", 1, "extra: unknown key"),
    ],
)
def test_bad_game_state(key: str, value: object, message: str) -> None:
    state = to_state(Game.new(2, seed=1))
    state[key] = value
    with pytest.raises(PositionError) as info:
        from_state(state)
    assert str(info.value).startswith(message)


def test_bad_position_inside_a_game_state_names_the_full_path() -> None:
    state = to_state(Game.new(2, seed=1))
    state["position"]["charlemagne"] = "t99"
    with pytest.raises(PositionError, match=r"^position\.charlemagne: 't99'"):
        from_state(state)
