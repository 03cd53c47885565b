"""Setup, number discs, knights and dice: the turn structure of rules 2 and 3."""

from __future__ import annotations

import pytest
from carolus_builders import position

from companion.games.carolus.game import Game
from companion.games.carolus.moves import (
    Charlemagne,
    Crown,
    Disc,
    Knight,
    Move,
    Roll,
)
from companion.games.carolus.options import Options
from companion.games.carolus.position import from_position, to_position
from companion.games.errors import IllegalMove, NotationError, PositionError


def setup_done(game: Game, faces: tuple[str, ...] = ("red", "blue", "pink")) -> None:
    """Roll every starting reserve with fixed faces (the last roll of 1 die: its first face)."""
    while game.phase == "setup":
        assert game.turn is not None
        game.push(Roll(game.turn, faces[: game.dice_to_roll()]))


@pytest.mark.parametrize(("players", "reserve"), [(2, 7), (3, 9), (4, 7)])
def test_setup_ring_and_starting_reserves(players: int, reserve: int) -> None:
    game = Game.new(players, seed=7)
    pos = to_position(game)
    # Rules 2.2: 3 cubes of each colour, one per territory.
    assert all(sum(t["knights"].values()) == 1 for t in pos["ring"])
    for colour in ("red", "blue", "yellow", "green", "pink"):
        assert sum(t["knights"].get(colour, 0) for t in pos["ring"]) == 3
    setup_done(game)
    assert game.phase == "discs"
    for p in game.state.players:
        assert sum(game.state.reserves[p].values()) == reserve
    castles = {2: 10, 3: 8, 4: 10}[players]
    assert set(game.state.castles_left.values()) == {castles}
    assert len(game.state.castles_left) == (2 if players == 4 else players)


def test_same_seed_same_table_other_seed_other_table() -> None:
    a, b, c = Game.new(2, seed=1), Game.new(2, seed=1), Game.new(2, seed=2)
    assert to_position(a) == to_position(b)
    assert to_position(a)["ring"] != to_position(c)["ring"]


def test_a_crown_is_a_colour_the_roller_picks() -> None:
    game = Game.new(2, seed=3)
    first = game.turn
    assert first is not None
    game.push(Roll(first, ("crown", "crown", "red")))
    assert game.phase == "crown" and game.turn == first
    assert game.state.reserves[first]["red"] == 1
    assert {m for m in game.legal_moves()} == {
        Crown(first, c) for c in ("red", "blue", "yellow", "green", "pink")
    }
    game.push(Crown(first, "green"))
    game.push(Crown(first, "green"))
    assert game.state.reserves[first]["green"] == 2
    assert game.phase == "setup"


def test_rolling_the_wrong_number_of_dice_is_illegal() -> None:
    game = Game.new(3, seed=3)
    assert game.turn is not None
    assert (
        game.why_illegal(Roll(game.turn, ("red", "red"))) == f"{game.turn} rolls 3 dice now, not 2"
    )
    with pytest.raises(IllegalMove):
        game.push(Roll(game.turn, ("red",)))
    assert game.move_stack == []


def test_discs_no_repeat_unless_forced_and_earlier_chooser_counts_lower() -> None:
    game = Game.new(2, seed=5)
    setup_done(game)
    a, b = game.state.choose_order
    game.push(Disc(a, 3))
    assert game.why_illegal(Disc(b, 3)) is not None
    assert {m.number for m in game.legal_moves() if isinstance(m, Disc)} == {1, 2, 4, 5}
    game.push(Disc(b, 4))
    # Ascending discs: a (3) acts before b (4).
    assert game.state.act_order == [a, b]
    assert game.turn == a and game.phase == "knights"


def test_forced_repeat_acts_after_the_earlier_chooser() -> None:
    game = from_position(position(discs={}, reserves={}))
    s = game.state
    s.hands = {"white": (2,), "black": (2, 5)}
    game.push(Disc("white", 2))
    # Black still has a fresh 5, so he may not repeat the 2.
    assert "still has a fresh one" in (game.why_illegal(Disc("black", 2)) or "")
    s.hands["black"] = (2,)
    game.push(Disc("black", 2))
    assert s.act_order == ["white", "black"]


def test_a_used_disc_stays_out_until_the_set_is_used_up() -> None:
    game = Game.new(2, seed=11)
    setup_done(game)
    used: dict[str, list[int]] = {p: [] for p in game.state.players}
    for _round in range(5):
        assert game.phase == "discs"
        for _ in range(2):
            p = game.turn
            assert p is not None
            allowed = sorted(m.number for m in game.legal_moves() if isinstance(m, Disc))
            # Every disc not yet used in the cycle is allowed, the used ones never.
            assert not set(allowed) & set(used[p])
            pick = allowed[-1] if p == game.state.players[0] else allowed[0]
            for used_disc in used[p]:
                assert "already used" in (game.why_illegal(Disc(p, used_disc)) or "")
            game.push(Disc(p, pick))
            used[p].append(pick)
        play_out_round(game)
    assert all(sorted(u) == [1, 2, 3, 4, 5] for u in used.values())
    # The sixth round starts a new cycle: every disc is back.
    assert game.state.hands == dict.fromkeys(game.state.players, (1, 2, 3, 4, 5))


def play_out_round(game: Game) -> None:
    """Finish the action phase: knights to court, one step, refills of red dice."""
    start = game.state.round
    while game.state.round == start and not game.is_game_over():
        p = game.turn
        assert p is not None
        if game.phase == "knights":
            colour = next(c for c, n in game.state.reserves[p].items() if n)
            game.push(Knight(p, colour, "court"))
        elif game.phase == "charlemagne":
            game.push(Charlemagne(p, 1))
        else:
            game.push(Roll(p, ("red",) * game.dice_to_roll()))


def test_next_round_chooses_in_the_order_players_acted() -> None:
    game = Game.new(3, seed=2)
    setup_done(game)
    order = list(game.state.choose_order)
    for p, n in zip(order, (5, 1, 3), strict=True):
        game.push(Disc(p, n))
    acted = [order[1], order[2], order[0]]
    assert game.state.act_order == acted
    play_out_round(game)
    assert game.state.choose_order == acted
    assert game.turn == acted[0]


@pytest.mark.parametrize(("players", "knights", "dice"), [(2, 3, 3), (3, 4, 4), (4, 3, 3)])
def test_knights_per_turn_and_refill_dice(players: int, knights: int, dice: int) -> None:
    game = Game.new(players, seed=4)
    setup_done(game)
    for _ in game.state.players:
        p = game.turn
        assert p is not None
        game.push(next(m for m in game.legal_moves() if isinstance(m, Disc)))
    p = game.turn
    assert p is not None
    for _ in range(knights):
        assert game.phase == "knights"
        game.push(next(m for m in game.legal_moves() if isinstance(m, Knight)))
    assert game.phase == "charlemagne"
    assert "must move Charlemagne" in (game.why_illegal(Knight(p, "red", "court")) or "")
    game.push(Charlemagne(p, 1))
    assert game.phase == "refill" and game.dice_to_roll() == dice


def test_influence_strictly_more_takes_a_tie_keeps() -> None:
    pos = position(
        courts={"white": {"red": 2}, "black": {"red": 1}},
        influence={"red": "white"},
        reserves={"black": {"red": 3}},
        discs={"white": 5, "black": 1},
    )
    game = from_position(pos)
    game.push(Knight("black", "red", "court"))
    assert game.state.influence["red"] == "white"  # 2 : 2, the holder keeps it
    game.push(Knight("black", "red", "court"))
    assert game.state.influence["red"] == "black"  # 3 : 2


def test_the_first_knight_at_court_takes_an_unheld_colour() -> None:
    game = from_position(position(reserves={"black": {"pink": 3}}, discs={"black": 1, "white": 2}))
    assert game.state.influence["pink"] is None
    game.push(Knight("black", "pink", "t07"))
    assert game.state.influence["pink"] is None
    game.push(Knight("black", "pink", "court"))
    assert game.state.influence["pink"] == "black"


def test_four_players_partners_courts_are_not_added() -> None:
    pos = position(
        players=["ann", "ben", "cid", "dora"],
        teams={"white": ["ann", "cid"], "black": ["ben", "dora"]},
        courts={"ann": {"red": 3}, "cid": {"red": 3}, "ben": {"red": 3}},
        influence={"red": "ben"},
        reserves={"ann": {"red": 3}},
        discs={"ann": 1, "ben": 2, "cid": 3, "dora": 4},
    )
    game = from_position(pos)
    game.push(Knight("ann", "red", "court"))
    # ann 4 against ben 3: ann alone is ahead (partners' 3+3 would not count anyway).
    assert game.state.influence["red"] == "ann"


def test_exhausted_colour_courts_give_back_the_smallest_count() -> None:
    pos = position(
        courts={"white": {"red": 5}, "black": {"red": 3}},
        influence={"red": "white"},
        knights={"t01": {"red": 7}},
        discs={"white": 1, "black": 2},
        options={"cubes_per_colour": 15},
    )
    game = from_position(pos)
    assert game.state.supply["red"] == 0
    game.push(Charlemagne("white", 1))
    game.push(Roll("white", ("red", "red", "blue")))
    # Both courts gave back 3 (black's count): 6 into the supply, 2 taken.
    assert game.state.courts["white"]["red"] == 2 and game.state.courts["black"]["red"] == 0
    assert game.state.reserves["white"]["red"] == 2 and game.state.supply["red"] == 4
    assert game.state.influence["red"] == "white"


def test_exhausted_colour_option_none_gives_nothing() -> None:
    pos = position(
        courts={"white": {"red": 5}, "black": {"red": 3}},
        influence={"red": "white"},
        knights={"t01": {"red": 7}},
        discs={"white": 1, "black": 2},
        options={"cubes_per_colour": 15, "exhausted_colour_return": "none"},
    )
    game = from_position(pos)
    game.push(Charlemagne("white", 1))
    game.push(Roll("white", ("red", "red", "blue")))
    assert game.state.courts["white"]["red"] == 5 and game.state.reserves["white"]["red"] == 0


def test_charlemagne_steps_are_limited_by_the_disc() -> None:
    game = from_position(position(discs={"white": 2, "black": 4}))
    assert [m for m in game.legal_moves()] == [Charlemagne("white", 1), Charlemagne("white", 2)]
    assert game.why_illegal(Charlemagne("white", 3)) == (
        "Charlemagne moves 1 to 2 steps with disc 2, not 3"
    )
    assert "black's" in (game.why_illegal(Charlemagne("black", 1)) or "")


def test_a_knight_needs_a_reserve_cube_and_a_real_place() -> None:
    game = from_position(position(reserves={"white": {"red": 1}}, discs={"white": 1, "black": 2}))
    assert game.why_illegal(Knight("white", "blue", "court")) == (
        "white has no blue knight in his reserve"
    )
    assert "neither 'court' nor a territory" in (
        game.why_illegal(Knight("white", "red", "t16")) or ""
    )
    # One move per knight: a colour to the court or to one of 15 territories.
    assert len(list(game.legal_moves())) == 16


@pytest.mark.parametrize(
    "text",
    [
        "white roll red crown blue",
        "ann crown pink",
        "grey disc 5",
        "ben knight green t15",
        "white knight red court",
        "black charlemagne 4",
    ],
)
def test_notation_round_trips(text: str) -> None:
    move = Move.parse(text)
    assert str(move) == text
    assert Move.parse(str(move)) == move
    assert text in repr(move)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("white", "is not a move"),
        ("white dance 3", "unknown verb 'dance'"),
        ("white knight purple court", "'purple' is not one of"),
        ("white disc three", "'three' is not a number"),
        ("white knight red", "expected '<player> knight <colour> <court|territory>'"),
    ],
)
def test_bad_notation_says_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(NotationError, match=problem):
        Move.parse(text)


def test_unknown_rule_option_is_a_position_error() -> None:
    with pytest.raises(PositionError, match=r"options\.speed: unknown rule option"):
        Options.from_dict({"speed": 2})
    with pytest.raises(PositionError, match=r"options\.end_tiebreak: 'coin'"):
        Options.from_dict({"end_tiebreak": "coin"})


def test_a_game_with_every_cube_used_and_nothing_to_gain_is_stalled() -> None:
    # 15 cubes per colour, all on the ring, no court, no reserve, no castle: nothing can change.
    knights = {
        f"t{i:02d}": {c: 3 for c in ("red", "blue", "yellow", "green", "pink")} for i in range(1, 6)
    }
    pos = position(
        knights=knights, discs={"white": 1, "black": 2}, options={"cubes_per_colour": 15}
    )
    assert from_position(pos).is_stalled()
    # With both courts holding red, an empty red supply would bring knights back: not stalled.
    knights["t01"]["red"] = 1
    pos = position(
        knights=knights,
        courts={"white": {"red": 1}, "black": {"red": 1}},
        influence={"red": "white"},
        discs={"white": 1, "black": 2},
        options={"cubes_per_colour": 15},
    )
    assert not from_position(pos).is_stalled()
