"""El Grande's action cards, loaded from ``data/action_cards.json`` (rules/el-grande.md section 6).

Data over code: each entry is one kind of card (id, stack, copies, effect kind and parameters,
text). The engine knows how to carry out each *kind*; a group may retune a card's parameters or
copies for its edition without touching code.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Final

from companion.games.errors import RulesError

KINDS: Final = frozenset(
    {
        "move",
        "move_from_region",
        "move_own_out",
        "place_anywhere",
        "either",
        "veto",
        "court_to_province",
        "king_returns",
        "score_choice",
        "secret_return",
        "one_each_other",
        "score_values",
        "score_castillo",
        "score_first_only",
        "score_most",
        "score_fewest",
        "scoreboard",
        "king_adjacent",
        "king_any",
        "eviction",
        "grande",
        "power_return",
        "province_to_court",
        "secret_scoring",
    }
)

KING_STACK: Final = 5


class CardDataError(RulesError, ValueError):
    """``action_cards.json`` is malformed; the message names the entry and the problem."""


@dataclass(frozen=True)
class Card:
    """One kind of action card. ``stack`` (1-5) is also how many caballeros it lets you place."""

    id: str
    stack: int
    copies: int
    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""

    def __repr__(self) -> str:
        return f"<Card {self.id} stack {self.stack} x{self.copies}: {self.kind}>"


def parse_cards(data: object) -> dict[str, Card]:
    """Validate the JSON of an action-card file; CardDataError names what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
        raise CardDataError("action cards: expected an object with a 'cards' list")
    cards: dict[str, Card] = {}
    for i, raw in enumerate(data["cards"]):
        where = f"action cards: cards[{i}]"
        if not isinstance(raw, dict):
            raise CardDataError(f"{where}: must be an object")
        unknown = set(raw) - {"id", "stack", "copies", "kind", "params", "text"}
        if unknown:
            raise CardDataError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        cid, stack, copies, kind = (raw.get(k) for k in ("id", "stack", "copies", "kind"))
        if not isinstance(cid, str) or not cid or " " in cid:
            raise CardDataError(f"{where}: 'id' must be a word without spaces")
        if cid in cards:
            raise CardDataError(f"{where}: id {cid!r} appears twice")
        if not isinstance(stack, int) or not 1 <= stack <= KING_STACK:
            raise CardDataError(f"{where} ({cid}): 'stack' must be 1 to 5")
        if not isinstance(copies, int) or copies < 1:
            raise CardDataError(f"{where} ({cid}): 'copies' must be a positive count")
        if kind not in KINDS:
            raise CardDataError(f"{where} ({cid}): unknown kind {kind!r}")
        params = raw.get("params", {})
        if not isinstance(params, dict):
            raise CardDataError(f"{where} ({cid}): 'params' must be an object")
        cards[cid] = Card(cid, stack, copies, str(kind), params, str(raw.get("text", "")))
    return cards


def _load() -> dict[str, Card]:
    path = resources.files(__package__).joinpath("data/action_cards.json")
    return parse_cards(json.loads(path.read_text(encoding="utf-8")))


CARDS: Final[dict[str, Card]] = _load()
"""Every kind of action card by id."""

KING_CARD: Final = next(c.id for c in CARDS.values() if c.stack == KING_STACK)


def decks(*, veto: bool = True) -> dict[int, dict[str, int]]:
    """The four shuffled stacks as multisets (card id -> copies); the King card is not in them.
    With the rule option ``veto`` off the Veto cards are left out of their stack."""
    result: dict[int, dict[str, int]] = {s: {} for s in range(1, KING_STACK)}
    for card in CARDS.values():
        if card.stack == KING_STACK or (card.kind == "veto" and not veto):
            continue
        result[card.stack][card.id] = card.copies
    return result
