"""A game set up at one player's turn from a short JSON description: for the card tests, for
teaching ("what would this card do here?") and for trying out a situation.

    {"players": ["red", "blue"], "king": "sevilla", "grandes": {"red": "galicia", ...},
     "areas": {"galicia": {"red": 3}}, "courts": {"red": 5}, "scores": {}, "scoreboards": {},
     "spent": {"red": [12]}, "vetoes": {"blue": [2]}, "round": 2, "options": {},
     "face_up": ["king", "score-4"], "turn": {"player": "red", "card": "move4-own"}}

Missing courts are 7; provinces make up 30 caballeros. The players act in seating order with
power cards 13, 12, ... this round; the named player has just taken the card (and announces
his special action first if another player holds a veto). ``face_up`` lists the round's other
face-up cards, for the players after him if the rest of the round is to be played.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.elgrande import rules
from companion.games.elgrande.board import AREAS, CABALLEROS_PER_PLAYER, CASTILLO, SETUP_COURT
from companion.games.elgrande.cards import CARDS
from companion.games.elgrande.game import Game
from companion.games.elgrande.options import Options
from companion.games.elgrande.state import State
from companion.games.errors import RecordError

KEYS = (
    "players",
    "king",
    "grandes",
    "areas",
    "courts",
    "scores",
    "scoreboards",
    "spent",
    "vetoes",
    "round",
    "options",
    "face_up",
    "turn",
)


def scenario(data: Mapping[str, Any]) -> Game:
    """Build the game; RecordError names a bad key."""
    for key in data:
        if key not in KEYS:
            raise RecordError(f"scenario: unknown key {key!r} (known: {', '.join(KEYS)})")
    players = rules.check_players(data["players"])
    options = Options.from_json(data.get("options", {}))
    st: State = rules.setup(players, 0, options)
    # Later in a game a grande may stand in the king's region, so no setup rule is checked here.
    st.king = data["king"]
    st.grandes = {c: data["grandes"][c] for c in players}
    for where in (st.king, *st.grandes.values()):
        if where not in AREAS or where == CASTILLO:
            raise RecordError(f"scenario: {where!r} is not a region")
    st.areas = {a: dict.fromkeys(players, 0) for a in AREAS}
    for area, counts in data.get("areas", {}).items():
        if area not in AREAS:
            raise RecordError(f"scenario: areas.{area} is not an area")
        st.areas[area].update(counts)
    st.courts = {c: int(data.get("courts", {}).get(c, SETUP_COURT)) for c in players}
    st.provinces = {
        c: CABALLEROS_PER_PLAYER - st.courts[c] - sum(st.areas[a][c] for a in AREAS)
        for c in players
    }
    st.scores = {c: int(data.get("scores", {}).get(c, 0)) for c in players}
    st.scoreboards = {a: (v[0], v[1], v[2]) for a, v in data.get("scoreboards", {}).items()}
    st.vetoes = {c: list(v) for c, v in data.get("vetoes", {}).items()}
    st.round = int(data.get("round", st.rounds[0]))
    turn = data["turn"]
    player, card = turn["player"], turn["card"]
    if card not in CARDS:
        raise RecordError(f"scenario: turn.card {card!r} is not an action card")
    st.played = {c: 13 - i for i, c in enumerate(players)}
    for c in players:
        spent = sorted({*data.get("spent", {}).get(c, []), st.played[c]})
        st.spent[c] = spent
        st.hands[c] = [v for v in rules.POWER_CARDS if v not in spent]
    st.starter = players[0]
    st.order = list(players)
    st.turn = players.index(player)
    st.face_up = [card]
    for other in data.get("face_up", []):
        if other not in CARDS:
            raise RecordError(f"scenario: face_up {other!r} is not an action card")
        st.face_up.append(other)
    st.taken = {}
    rules.take_card(st, player, card)
    return Game(st)
