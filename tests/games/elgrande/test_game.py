"""The flow of a game: setup, power cards, intake (and the empty-province rule), general scoring,
the short game, the end and the winner, undo, state JSON, positions and what each player sees."""

from __future__ import annotations

import json
import random

import pytest

from companion.games.elgrande.board import AREAS, REGIONS
from companion.games.elgrande.game import Game
from companion.games.elgrande.invariants import check_state
from companion.games.elgrande.moves import (
    TABLE,
    EndTurn,
    Intake,
    PlayPower,
    Recall,
    Reveal,
    StartPlayer,
    TakeCard,
    parse_move,
)
from companion.games.elgrande.options import Options
from companion.games.elgrande.position import position_from_json, position_to_json
from companion.games.elgrande.rules import SetupError
from companion.games.elgrande.scenario import scenario
from companion.games.elgrande.selfplay import play_random_game, random_move
from companion.games.errors import IllegalMove

HOMES = {"red": "aragon", "blue": "sevilla", "green": "valencia"}


def new3(**kw: object) -> Game:
    return Game.new(["red", "blue", "green"], king="castilla_la_nueva", homes=HOMES, **kw)  # type: ignore[arg-type]


def reveal_all(game: Game) -> None:
    while game.phase == "reveal":
        game.push(game.legal_moves()[0])


# --- setup ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_from_a_seed(players: int) -> None:
    colours = ["yellow", "green", "blue", "red", "black"][:players]
    game = Game.new(colours, seed=11)
    st = game.state
    homes = set(st.grandes.values())
    assert len(homes) == players and st.king not in homes
    for colour in colours:
        assert st.areas[st.grandes[colour]][colour] == 2
        assert st.courts[colour] == 7 and st.provinces[colour] == 21
        assert st.hands[colour] == list(range(1, 14))
    assert sum(sum(st.areas[a].values()) for a in AREAS) == 2 * players
    assert Game.new(colours, seed=11).to_state_json() == game.to_state_json()
    assert game.phase == "reveal" and game.to_act == (TABLE,)


def test_different_seeds_give_different_setups() -> None:
    setups = {(g.state.king, tuple(g.state.grandes.values())) for g in map(_game_seed, range(8))}
    assert len(setups) > 1


def _game_seed(seed: int) -> Game:
    return Game.new(["red", "blue"], seed=seed)


@pytest.mark.parametrize(
    ("players", "message"),
    [(["red"], "2 to 5"), (["red", "red"], "colour of his own"), (["red", "pink"], "'pink'")],
)
def test_bad_players_are_refused(players: list[str], message: str) -> None:
    with pytest.raises(SetupError, match=message):
        Game.new(players)


def test_homes_may_not_be_the_kings_region() -> None:
    with pytest.raises(SetupError, match="differ"):
        Game.new(["red", "blue"], king="aragon", homes={"red": "aragon", "blue": "sevilla"})


# --- a round: action cards, power cards ----------------------------------------------------------


def test_a_round_turns_up_one_card_per_stack_and_the_king() -> None:
    game = new3()
    stacks = []
    while game.phase == "reveal":
        moves = game.legal_moves()
        assert all(isinstance(m, Reveal) for m in moves)
        stacks.append({game_card_stack(m.card) for m in moves if isinstance(m, Reveal)})
        game.push(moves[-1])
    assert stacks == [{1}, {2}, {3}, {4}]
    assert len(game.state.face_up) == 5 and game.state.face_up[-1] == "king"
    assert game.phase == "start"  # round 1: the table picks who starts


def game_card_stack(card: str) -> int:
    from companion.games.elgrande.cards import CARDS

    return CARDS[card].stack


def test_power_cards_duplicate_rule_order_and_next_starter() -> None:
    game = new3()
    reveal_all(game)
    game.push(StartPlayer(TABLE, "blue"))
    assert game.to_act == ("blue",)  # clockwise from the starter: blue, green, red
    game.push(PlayPower("blue", 13))
    assert game.to_act == ("green",)
    reason = game.why_illegal(PlayPower("green", 13))
    assert reason is not None and "already played this round" in reason
    assert "not red's move" in (game.why_illegal(PlayPower("red", 5)) or "")
    game.push(PlayPower("green", 1))
    game.push(PlayPower("red", 7))
    assert game.state.order == ["blue", "red", "green"]  # highest first
    # blue's 13 brings nobody into the court: he takes a card straight away
    assert game.phase == "card" and game.to_act == ("blue",)
    for player in ("blue", "red", "green"):
        if game.phase == "intake":
            most = {7: 3, 1: 6}[game.state.played[player]]
            assert max(m.count for m in game.legal_moves() if isinstance(m, Intake)) == most
            game.push(Intake(player, 0))
        game.push(next(m for m in game.legal_moves() if isinstance(m, TakeCard)))
        game.push(EndTurn(player))
    # round 2: the player who acted last (green) starts the power cards
    assert game.round == 2
    reveal_all(game)
    assert game.phase == "power" and game.to_act == ("green",)
    game.push(PlayPower("green", 12))
    assert game.to_act == ("red",)
    game.push(PlayPower("red", 1))
    assert "not in blue's hand" in (game.why_illegal(PlayPower("blue", 13)) or "")
    assert game.state.hands["blue"] == list(range(1, 13))


def test_a_card_is_taken_once() -> None:
    game = new3()
    reveal_all(game)
    game.push(StartPlayer(TABLE, "red"))
    for player, value in (("red", 13), ("blue", 12), ("green", 11)):
        game.push(PlayPower(player, value))
    card = game.state.face_up[0]
    game.push(TakeCard("red", card))
    game.push(EndTurn("red"))
    assert "already taken" in (game.why_illegal(TakeCard("blue", card)) or "")
    assert "not face up" in (game.why_illegal(TakeCard("blue", "veto-x")) or "")


def test_intake_and_the_empty_province_rule() -> None:
    # red's province holds 1; the power card 1 allows 6: the other 5 may come from his own
    # caballeros on the board - never from the Castillo nor the king's region.
    game = scenario(
        {
            "players": ["red", "blue"],
            "king": "castilla_la_nueva",
            "grandes": {"red": "aragon", "blue": "sevilla"},
            "areas": {
                "aragon": {"red": 2},
                "galicia": {"red": 1},
                "castilla_la_nueva": {"red": 5},
                "castillo": {"red": 14},
            },
            "courts": {"red": 7},
            "turn": {"player": "blue", "card": "king"},
        }
    )
    st = game.state
    assert st.provinces["red"] == 1
    st.played = {"blue": 13, "red": 1}
    st.order = ["blue", "red"]
    st.turn = 0
    game.push(EndTurn("blue"))
    assert game.phase == "intake" and game.to_act == ("red",)
    assert {m.count for m in game.legal_moves() if isinstance(m, Intake)} == {0, 1}
    game.push(Intake("red", 1))
    assert game.phase == "recall"
    recalls = {m.region for m in game.legal_moves() if isinstance(m, Recall)}
    assert recalls == {"aragon", "galicia"}
    assert "taboo" in (game.why_illegal(Recall("red", "castilla_la_nueva")) or "")
    for region in ("aragon", "aragon", "galicia"):
        game.push(Recall("red", region))
    # nothing else may come back: the intake is over with 4 of the 6
    assert game.phase == "card"
    assert st.courts["red"] == 11 and st.provinces["red"] == 0
    assert st.areas["castillo"]["red"] == 14 and st.areas["castilla_la_nueva"]["red"] == 5
    assert check_state(st) == []


def test_taking_fewer_than_the_province_holds_ends_the_intake() -> None:
    game = new3()
    reveal_all(game)
    game.push(StartPlayer(TABLE, "red"))
    for player, value in (("red", 1), ("blue", 12), ("green", 13)):
        game.push(PlayPower(player, value))
    game.push(TakeCard("green", game.state.face_up[0]))
    game.push(EndTurn("green"))
    game.push(TakeCard("blue", game.state.face_up[1]))
    game.push(EndTurn("blue"))
    game.push(Intake("red", 4))
    assert game.phase == "card" and game.state.courts["red"] == 11


# --- general scoring -----------------------------------------------------------------------------

SCORING_BOARD = {
    "players": ["red", "blue", "green"],
    "king": "sevilla",
    "grandes": {"red": "galicia", "blue": "granada", "green": "valencia"},
    "areas": {
        "galicia": {"red": 2},
        "aragon": {"green": 1, "blue": 1},
        "granada": {"blue": 3, "red": 1},
        "sevilla": {"red": 1},
        "castillo": {"red": 2, "blue": 1, "green": 3},
    },
    "round": 3,
    "turn": {"player": "green", "card": "king"},
}


def test_general_scoring_disks_castillo_then_regions() -> None:
    game = scenario(SCORING_BOARD)
    game.push(EndTurn("green"))  # the last turn of round 3
    assert game.phase == "secret" and game.to_act == ("red", "blue", "green")
    game.push(parse_move("blue secret sevilla"))  # the king's region: back to his court
    assert game.view_for("red")["secrets"] == {"blue": "chosen"}
    assert game.view_for("blue")["secrets"] == {"blue": "sevilla"}
    assert game.state.scores == {"red": 0, "blue": 0, "green": 0}
    game.push(parse_move("green secret aragon"))
    game.push(parse_move("red secret galicia"))
    st = game.state
    # 3 players: castillo 5/3/0 -> green 5, red 3, blue 0. Then galicia red 4 (+2 grande);
    # aragon green 5, blue 4; sevilla red 4 (+2 king); granada blue 6 (+2 grande), red 3.
    assert st.scores == {"red": 18, "blue": 12, "green": 10}
    assert sum(st.areas["castillo"].values()) == 0
    assert st.areas["galicia"]["red"] == 4 and st.areas["aragon"]["green"] == 4
    assert st.areas["sevilla"]["red"] == 1 and st.courts["blue"] == 8
    assert st.log[-2]["disks"] == {"blue": "sevilla", "green": "aragon", "red": "galicia"}
    assert game.round == 4 and game.phase == "reveal"
    assert st.starter == "green"


def test_no_general_scoring_after_other_rounds() -> None:
    game = scenario({**SCORING_BOARD, "round": 2})
    game.push(EndTurn("green"))
    assert game.phase == "reveal" and game.round == 3
    assert game.state.scores == {"red": 0, "blue": 0, "green": 0}


# --- the whole game ------------------------------------------------------------------------------


def scoring_rounds(game: Game) -> list[int]:
    return [e["round"] for e in game.state.log if e["reason"] == "general scoring: castillo"]


def test_a_full_game_has_three_general_scorings_and_an_outcome() -> None:
    game, violations = play_random_game(4, 5)
    assert violations == []
    assert scoring_rounds(game) == [3, 6, 9]
    outcome = game.outcome()
    assert outcome is not None
    best = max(game.state.scores.values())
    assert {game.state.scores[c] for c in outcome.winners} == {best}
    assert game.legal_moves() == [] and game.to_act == ()
    assert "game is over" in (game.why_illegal(EndTurn("red")) or "")


def test_short_game_skipping_rounds_1_4_7() -> None:
    game, violations = play_random_game(3, 8, options=Options(short_game="skip_1_4_7"))
    assert violations == []
    rounds = sorted({e["round"] for e in game.state.log})
    assert set(rounds) <= {2, 3, 5, 6, 8, 9}
    assert scoring_rounds(game) == [3, 6, 9]
    first = Game.new(["red", "blue"], options=Options(short_game="skip_1_4_7"))
    assert first.round == 2


def test_short_game_stopping_after_round_6() -> None:
    game, violations = play_random_game(5, 9, options=Options(short_game="stop_after_6"))
    assert violations == []
    assert scoring_rounds(game) == [3, 6]
    assert game.outcome() is not None and game.round == 6


def test_outcome_shared_victory_and_tie_break() -> None:
    game = new3()
    st = game.state
    st.phase = "over"
    st.scores = {"red": 40, "blue": 40, "green": 12}
    st.hands["red"] = [1, 2]
    st.hands["blue"] = [1]
    shared = game.outcome()
    assert shared is not None and shared.winners == ("red", "blue")
    assert "share the victory" in str(shared)
    game.state.options = Options(tie_break="fewest_power_cards_left")
    broken = game.outcome()
    assert broken is not None and broken.winners == ("blue",)


# --- undo, state JSON, positions, views ----------------------------------------------------------


def test_push_then_pop_gives_back_the_exact_state_every_move() -> None:
    rng = random.Random(4)
    game = Game.new(["red", "blue", "green", "black"], seed=4)
    while game.outcome() is None:
        before = game.to_state_json()
        move = random_move(game, rng)
        game.push(move)
        assert game.pop() == move
        assert game.to_state_json() == before
        game.push(move)
    while game.move_stack:
        game.pop()
    assert (
        game.to_state_json() == Game.new(["red", "blue", "green", "black"], seed=4).to_state_json()
    )
    with pytest.raises(IndexError):
        game.pop()


def test_an_illegal_push_changes_nothing() -> None:
    game = new3()
    before = game.to_state_json()
    with pytest.raises(IllegalMove, match="not red's move"):
        game.push(PlayPower("red", 3))
    assert game.to_state_json() == before and game.move_stack == []


def test_state_json_round_trips_exactly_and_plays_on_the_same() -> None:
    game, _ = play_random_game(5, 21, check=False)
    moves = list(game.move_stack)
    replayed = Game.new(list(game.state.players), seed=game.state.seed)
    for i, move in enumerate(moves):
        if i % 37 == 0:
            data = json.loads(json.dumps(replayed.to_state_json()))
            copy = Game.from_state_json(data)
            assert copy.to_state_json() == replayed.to_state_json()
            assert copy.legal_moves() == replayed.legal_moves()
            for later in moves[i:]:
                copy.push(later)
            assert copy.to_state_json() == game.to_state_json()
        replayed.push(move)


@pytest.mark.parametrize(
    "moves",
    [
        ["red announce act", "blue veto", "red place castillo 1"],
        ["red announce act", "blue allow", "red act", "red place castillo 1"],
        ["red announce skip", "red place castillo 2"],
    ],
)
def test_the_veto_announcement_undoes_and_round_trips_exactly(moves: list[str]) -> None:
    game = scenario(
        {
            "players": ["red", "blue", "green"],
            "king": "sevilla",
            "grandes": {"red": "galicia", "blue": "aragon", "green": "valencia"},
            "vetoes": {"blue": [3]},
            "round": 2,
            "turn": {"player": "red", "card": "score-castillo"},
        }
    )
    for text in moves:
        before = game.to_state_json()
        copy = Game.from_state_json(json.loads(json.dumps(before)))
        assert copy.legal_moves() == game.legal_moves()
        move = game.push_text(text)
        copy.push(move)
        assert copy.to_state_json() == game.to_state_json()
        assert game.pop() == move and game.to_state_json() == before
        game.push(move)
    assert game.phase == "action" and game.to_act == ("red",)


def test_a_bad_state_json_is_refused() -> None:
    from companion.games.errors import RecordError

    data = new3().to_state_json()
    with pytest.raises(RecordError, match="unknown key 'colour'"):
        Game.from_state_json({**data, "colour": 1})
    bad = dict(data)
    del bad["hands"]
    with pytest.raises(RecordError, match="missing key 'hands'"):
        Game.from_state_json(bad)
    with pytest.raises(RecordError, match="phase"):
        Game.from_state_json({**data, "phase": "lunch"})


def test_to_position_and_from_position() -> None:
    game, _ = play_random_game(3, 2, check=False)
    while game.move_stack and game.phase != "reveal":
        game.pop()
    position = game.to_position()
    data = position_to_json(position)
    assert position_from_json(data) == position
    again = Game.from_position(position_from_json(data), seed=1)
    assert again.to_position() == position
    assert again.phase == "reveal" and again.round == position.round
    left = sum(sum(s.values()) for s in again.state.stacks.values())
    assert left == 44 - 4 * (position.round - 1)
    rng = random.Random(0)
    while again.outcome() is None:
        again.push(random_move(again, rng))
        assert check_state(again.state) == []


def test_view_hides_the_castillo_per_player_unless_open() -> None:
    game = scenario(SCORING_BOARD)
    view = game.view_for("red")
    assert view["areas"]["castillo"] == {"red": 2}
    assert view["castillo_total"] == 6
    assert game.view_for(None)["areas"]["castillo"] == {}
    assert "castillo" in json.dumps(game.view_for(None))  # the total is still shown
    opened = scenario({**SCORING_BOARD, "options": {"castillo_open": True}})
    assert opened.view_for(None)["areas"]["castillo"] == {"red": 2, "blue": 1, "green": 3}
    assert game.to_state_json()["areas"]["castillo"] == {"red": 2, "blue": 1, "green": 3}


def test_view_hides_other_hands_when_power_cards_are_private() -> None:
    game = scenario({**SCORING_BOARD, "options": {"power_cards_public": False}})
    view = game.view_for("blue")
    assert isinstance(view["hands"]["blue"], list) and view["hands"]["red"] == 12
    assert view["spent"]["red"] == 1
    public = scenario(SCORING_BOARD).view_for("blue")
    assert isinstance(public["hands"]["red"], list)


def test_regions_in_scoring_order_are_all_in_the_state() -> None:
    assert list(new3().state.areas) == ["castillo", *REGIONS]
