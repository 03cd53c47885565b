"""Every action card's effect, from data files of cases (tests/data/elgrande/cards/*.json):
a start situation, the moves, the expected counts and scores, and moves that must be refused
with the reason given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.games.elgrande.board import AREAS
from companion.games.elgrande.cards import CARDS, CardDataError, decks, parse_cards
from companion.games.elgrande.game import Game
from companion.games.elgrande.invariants import check_move
from companion.games.elgrande.moves import parse_move
from companion.games.elgrande.scenario import scenario

DATA = Path(__file__).parents[2] / "data" / "elgrande" / "cards"
BOARDS: dict[str, Any] = json.loads((DATA / "boards.json").read_text(encoding="utf-8"))
CASES = [
    case
    for path in sorted(DATA.glob("*_cards.json"))
    for case in json.loads(path.read_text(encoding="utf-8"))
]


def build(case: dict[str, Any]) -> Game:
    data = {**BOARDS[case["base"]], **case.get("scenario", {})}
    data["turn"] = {"player": data["players"][0], "card": case["card"]}
    return scenario(data)


def check_expect(game: Game, expect: dict[str, Any], where: str) -> None:
    st = game.state
    for key, value in expect.items():
        if key == "areas":
            for area, counts in value.items():
                got = {c: n for c, n in st.areas[area].items() if n}
                assert got == counts, f"{where}: {area}"
        elif key in ("courts", "provinces", "scores", "grandes"):
            got = {c: getattr(st, key)[c] for c in value}
            assert got == value, f"{where}: {key}"
        elif key == "spent":
            assert {c: st.spent[c] for c in value} == value, f"{where}: spent"
        elif key == "hand_has":
            for c, cards in value.items():
                assert set(cards) <= set(st.hands[c]), f"{where}: hand of {c}"
        elif key == "scoreboards":
            assert {a: list(v) for a, v in st.scoreboards.items()} == value, where
        elif key == "vetoes":
            assert st.vetoes == value, f"{where}: vetoes"
        elif key == "king":
            assert st.king == value, where
        elif key == "phase":
            assert game.phase == value, where
        elif key == "round":
            assert st.round == value, where
        elif key == "legal":
            assert [str(m) for m in game.legal_moves()] == value, f"{where}: legal moves"
        elif key in ("legal_has", "legal_lacks"):
            legal = {str(m) for m in game.legal_moves()}
            for text in value:
                assert (text in legal) == (key == "legal_has"), f"{where}: {key} {text}"
        elif key == "to_act":
            assert list(game.to_act) == value, f"{where}: to_act"
        else:
            raise AssertionError(f"{where}: unknown expectation {key!r}")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_card_case(case: dict[str, Any]) -> None:
    game = build(case)
    illegal: dict[int, list[dict[str, Any]]] = {}
    for item in case.get("illegal", []):
        illegal.setdefault(item["after"], []).append(item)
    after = case.get("after", {})
    for i, text in enumerate([*case["moves"], None]):
        for item in illegal.get(i, []):
            move = parse_move(item["move"])
            reason = game.why_illegal(move)
            assert reason is not None, f"{item['move']} should be illegal after {i} moves"
            assert item["reason"] in reason, reason
        if str(i) in after:
            check_expect(game, after[str(i)], f"after {i} moves")
        if text is None:
            break
        move = parse_move(text)
        assert game.why_illegal(move) is None, f"{text}: {game.why_illegal(move)}"
        game.push(move)
        assert check_move(game.previous_state(), game.state, move) == []
    check_expect(game, case["expect"], case["name"])


def test_every_card_kind_has_a_case() -> None:
    tested = {c["card"] for c in CASES}
    assert {card.id for card in CARDS.values()} <= tested


def test_the_deck_is_45_cards_in_five_stacks() -> None:
    per_stack = {s: sum(c.copies for c in CARDS.values() if c.stack == s) for s in range(1, 6)}
    assert per_stack == {1: 11, 2: 11, 3: 11, 4: 11, 5: 1}
    assert sum(decks()[2].values()) == 11
    assert sum(decks(veto=False)[2].values()) == 9
    assert "veto" not in decks(veto=False)[2]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "'cards' list"),
        ({"cards": [{"id": "x", "stack": 6, "copies": 1, "kind": "move"}]}, "'stack' must be"),
        ({"cards": [{"id": "x", "stack": 1, "copies": 1, "kind": "fly"}]}, "unknown kind"),
        ({"cards": [{"id": "x", "stack": 1, "copies": 0, "kind": "move"}]}, "'copies'"),
        ({"cards": [{"id": "x", "stack": 1, "copies": 1, "kind": "move", "cost": 2}]}, "'cost'"),
        (
            {"cards": [{"id": "x", "stack": 1, "copies": 1, "kind": "veto"}] * 2},
            "appears twice",
        ),
    ],
)
def test_a_bad_card_file_is_refused_with_the_reason(data: object, message: str) -> None:
    with pytest.raises(CardDataError, match=message):
        parse_cards(data)


def test_the_scenario_conserves_30_caballeros() -> None:
    game = build({"base": "four", "card": "king"})
    st = game.state
    for colour in st.players:
        on_board = sum(st.areas[a][colour] for a in AREAS)
        assert st.provinces[colour] + st.courts[colour] + on_board == 30
