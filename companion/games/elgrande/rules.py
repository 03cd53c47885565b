"""The flow of an El Grande game (rules/el-grande.md sections 1, 2 and 5.2) as pure functions of
a :class:`State`: setup, who must act, the legal moves, applying one, and why a move is illegal.

Card effects live in ``special.py``; ``game.py`` wraps all this in the python-chess style API.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from companion.games.bids import allowed_bids
from companion.games.elgrande import special
from companion.games.elgrande.board import (
    AREAS,
    CASTILLO,
    COLOURS,
    NEIGHBOURS,
    POWER_CARD_CABALLEROS,
    REGIONS,
    SETUP_COURT,
    SETUP_HOME,
    SETUP_PROVINCE,
)
from companion.games.elgrande.cards import CARDS, KING_CARD, decks
from companion.games.elgrande.moves import (
    TABLE,
    Act,
    Allow,
    Announce,
    Done,
    EndTurn,
    Intake,
    Move,
    Place,
    PlayPower,
    Recall,
    ReturnCaballero,
    Reveal,
    Secret,
    StartPlayer,
    TakeCard,
    Veto,
)
from companion.games.elgrande.options import Options
from companion.games.elgrande.state import State
from companion.games.errors import RulesError

SCORING_ROUNDS = (3, 6, 9)
POWER_CARDS = tuple(range(1, 14))


class SetupError(RulesError, ValueError):
    """A new game cannot be set up as asked (players, king, homes)."""


def rounds_for(options: Options) -> tuple[int, ...]:
    if options.short_game == "skip_1_4_7":
        return (2, 3, 5, 6, 8, 9)
    if options.short_game == "stop_after_6":
        return (1, 2, 3, 4, 5, 6)
    return tuple(range(1, 10))


def check_players(players: Sequence[str]) -> tuple[str, ...]:
    result = tuple(players)
    if not 2 <= len(result) <= 5:
        raise SetupError(f"El Grande needs 2 to 5 players, not {len(result)}")
    for colour in result:
        if colour not in COLOURS:
            raise SetupError(f"{colour!r} is not a player colour (use {', '.join(COLOURS)})")
    if len(set(result)) != len(result):
        raise SetupError("each player needs a colour of his own")
    return result


def setup(
    players: Sequence[str],
    seed: int,
    options: Options,
    *,
    king: str | None = None,
    homes: Mapping[str, str] | None = None,
) -> State:
    """Section 1: the king and the home regions from shuffled region cards (``seed``), unless
    the table says where they are (``king``, ``homes``)."""
    players = check_players(players)
    cards = list(REGIONS)
    random.Random(seed).shuffle(cards)
    king = king if king is not None else cards[0]
    if king not in REGIONS:
        raise SetupError(f"king: {king!r} is not a region")
    if homes is None:
        rest = [r for r in cards if r != king]
        homes = dict(zip(players, rest, strict=False))
    if set(homes) != set(players):
        raise SetupError("homes: give exactly one home region per player")
    if len(set(homes.values())) != len(homes) or king in homes.values():
        raise SetupError("homes: home regions differ from each other and from the king's")
    for colour, region in homes.items():
        if region not in REGIONS:
            raise SetupError(f"homes.{colour}: {region!r} is not a region")
    areas: dict[str, dict[str, int]] = {a: dict.fromkeys(players, 0) for a in AREAS}
    for colour in players:
        areas[homes[colour]][colour] = SETUP_HOME
    rounds = rounds_for(options)
    return State(
        players=players,
        options=options,
        seed=seed,
        rounds=rounds,
        round=rounds[0],
        king=king,
        grandes={c: homes[c] for c in players},
        areas=areas,
        courts=dict.fromkeys(players, SETUP_COURT),
        provinces=dict.fromkeys(players, SETUP_PROVINCE),
        scores=dict.fromkeys(players, 0),
        hands={c: list(POWER_CARDS) for c in players},
        spent={c: [] for c in players},
        stacks=decks(veto=options.veto),
    )


# --- who acts ------------------------------------------------------------------------------------


def power_order(st: State) -> list[str]:
    assert st.starter is not None
    i = st.players.index(st.starter)
    n = len(st.players)
    return [st.players[(i + k) % n] for k in range(n)]


def to_act(st: State) -> tuple[str, ...]:
    phase = st.phase
    if phase in ("reveal", "start"):
        return (TABLE,)
    if phase == "power":
        return (power_order(st)[len(st.played)],)
    if phase in ("intake", "recall", "card", "announce", "action", "special"):
        return (st.current,)
    if phase in ("veto", "returns"):
        return (st.waiting[0],)
    if phase == "secret":
        return tuple(st.waiting)
    return ()


def _next_stack(st: State) -> int | None:
    last = CARDS[st.face_up[-1]].stack if st.face_up else 0
    for s in range(last + 1, 5):
        if any(n > 0 for n in st.stacks[s].values()):
            return s
    return None


# --- legal moves ---------------------------------------------------------------------------------


def _recallable(st: State, p: str) -> list[str]:
    return [r for r in REGIONS if r != st.king and st.areas[r].get(p, 0) > 0]


def placement_targets(st: State) -> list[str]:
    return [*sorted(NEIGHBOURS[st.king]), CASTILLO]


def vetoers(st: State, p: str) -> list[str]:
    """The other players holding an unused veto (with the rule option on), in seating order
    from ``p``'s left: they are asked, one at a time, when ``p`` announces his special action."""
    if not st.vetoes or not st.options.veto:
        return []
    i = st.players.index(p)
    n = len(st.players)
    order = [st.players[(i + k) % n] for k in range(1, n)]
    return [q for q in order if any(r >= st.round for r in st.vetoes.get(q, ()))]


def legal(st: State) -> list[Move]:
    phase = st.phase
    if phase == "reveal":
        s = _next_stack(st)
        assert s is not None
        return [Reveal(TABLE, c) for c, n in st.stacks[s].items() if n > 0]
    if phase == "start":
        return [StartPlayer(TABLE, c) for c in st.players]
    if phase == "power":
        p = to_act(st)[0]
        values = allowed_bids(st.hands[p], st.played.values(), repeat_when_forced=False)
        return [PlayPower(p, v) for v in values]
    if phase == "intake":
        p = st.current
        most = min(st.step["allow"], st.provinces[p])
        return [Intake(p, k) for k in range(most + 1)]
    if phase == "recall":
        p = st.current
        return [Recall(p, r) for r in _recallable(st, p)] + [Done(p)]
    if phase == "card":
        p = st.current
        taken = set(st.taken.values())
        return [TakeCard(p, c) for c in st.face_up if c not in taken]
    if phase == "announce":
        p = st.current
        return [Announce(p, "act"), Announce(p, "skip")]
    if phase == "action":
        p = st.current
        step = st.step
        out: list[Move] = []
        left = min(step["limit"] - step["placed"], st.courts[p])
        if step["place_open"] and left > 0:
            for area in placement_targets(st):
                out.extend(Place(p, area, k) for k in range(1, left + 1))
        special_step = step["special"]
        if special_step == "todo" or special_step == "announced":
            out.append(Act(p))
        if special_step != "announced":  # an announced, allowed action must be carried out
            out.append(EndTurn(p))
        return out
    if phase == "special":
        return special.legal(st)
    if phase == "veto":
        q = st.waiting[0]
        return [Veto(q), Allow(q)]
    if phase == "returns":
        return special.legal_returns(st)
    if phase == "secret":
        return [Secret(q, r) for q in st.waiting for r in special.secret_options(st, q)]
    return []


# --- applying a move -----------------------------------------------------------------------------


def apply(st: State, move: Move) -> None:
    """Carry out a move that :func:`legal` listed."""
    phase = st.phase
    if phase == "reveal":
        assert isinstance(move, Reveal)
        s = CARDS[move.card].stack
        st.stacks[s][move.card] -= 1
        if st.stacks[s][move.card] == 0:
            del st.stacks[s][move.card]
        st.face_up.append(move.card)
        if _next_stack(st) is None:
            st.face_up.append(KING_CARD)
            st.phase = "start" if st.starter is None else "power"
    elif phase == "start":
        assert isinstance(move, StartPlayer)
        st.starter = move.starter
        st.phase = "power"
    elif phase == "power":
        assert isinstance(move, PlayPower)
        st.hands[move.player].remove(move.value)
        st.spent[move.player].append(move.value)
        st.played[move.player] = move.value
        if len(st.played) == len(st.players):
            st.order = sorted(st.players, key=lambda c: -st.played[c])
            st.turn = 0
            _start_turn(st)
    elif phase == "intake":
        assert isinstance(move, Intake)
        p = move.player
        had = st.provinces[p]
        st.provinces[p] -= move.count
        st.courts[p] += move.count
        left = st.step["allow"] - move.count
        if left > 0 and move.count == had and _recallable(st, p):
            st.step["allow"] = left
            st.phase = "recall"
        else:
            st.phase = "card"
    elif phase == "recall":
        p = move.player
        if isinstance(move, Recall):
            st.areas[move.region][p] -= 1
            st.courts[p] += 1
            st.step["allow"] -= 1
            if st.step["allow"] == 0 or not _recallable(st, p):
                st.phase = "card"
        else:
            st.phase = "card"
    elif phase == "card":
        assert isinstance(move, TakeCard)
        take_card(st, move.player, move.card)
    elif phase == "announce":
        assert isinstance(move, Announce)
        st.step["announce"] = move.choice
        if move.choice == "skip":
            st.step["special"] = "done"  # forfeited; placing is still open
            st.phase = "action"
        else:
            st.step["special"] = "announced"
            st.waiting = vetoers(st, move.player)
            st.phase = "veto" if st.waiting else "action"
    elif phase == "action":
        p = move.player
        if isinstance(move, Place):
            st.courts[p] -= move.count
            st.areas[move.area][p] = st.areas[move.area].get(p, 0) + move.count
            st.step["placed"] += move.count
        elif isinstance(move, Act):
            if st.step["placed"] > 0:
                st.step["place_open"] = False  # one is finished before the other starts
            st.step["special"] = "active"
            special.begin(st)
        else:
            assert isinstance(move, EndTurn)
            _end_turn(st)
            return
    elif phase == "special":
        special.apply(st, move)
    elif phase == "veto":
        if isinstance(move, Veto):
            held = st.vetoes[move.player]
            held.remove(min(r for r in held if r >= st.round))
            if not held:
                del st.vetoes[move.player]
            st.waiting = []
            st.log.append({"round": st.round, "reason": f"{move.player} vetoes {st.step['card']}"})
            st.step["vetoed"] = move.player
            st.step["special"] = "done"  # cancelled; placing can't be vetoed and stays open
            st.phase = "action"
        else:
            st.waiting.pop(0)
            if not st.waiting:
                st.phase = "action"  # the action stands: it must be started this turn
    elif phase == "returns":
        assert isinstance(move, ReturnCaballero)
        special.apply_return(st, move)
    elif phase == "secret":
        assert isinstance(move, Secret)
        st.secrets[move.player] = move.region
        st.waiting.remove(move.player)
        if not st.waiting:
            if st.special["kind"] == "disks":
                _general_scoring(st)
            else:
                special.resolve_card_secret(st)
    else:
        raise AssertionError(f"no moves in phase {phase}")
    if st.phase == "action":
        _maybe_end_turn(st)


def take_card(st: State, player: str, card: str) -> None:
    """``player`` takes ``card``: he announces his special action first if another player holds
    a veto (rules 6, Veto), else he places and acts."""
    st.taken[player] = card
    st.step = {
        "card": card,
        "limit": CARDS[card].stack,
        "placed": 0,
        "place_open": True,
        "special": "todo",
    }
    st.phase = "announce" if vetoers(st, player) else "action"


def _start_turn(st: State) -> None:
    p = st.current
    st.step = {"allow": POWER_CARD_CABALLEROS[st.played[p]]}
    if st.step["allow"] == 0:
        st.phase = "card"
    elif st.provinces[p] == 0:
        st.phase = "recall" if _recallable(st, p) else "card"
    else:
        st.phase = "intake"


def _maybe_end_turn(st: State) -> None:
    step = st.step
    if step["special"] != "done":
        return
    p = st.current
    if not step["place_open"] or step["placed"] >= step["limit"] or st.courts[p] == 0:
        _end_turn(st)


def _end_turn(st: State) -> None:
    st.turn += 1
    st.special = {}
    if st.turn < len(st.order):
        _start_turn(st)
        return
    st.step = {}
    if st.round in SCORING_ROUNDS:
        st.phase = "secret"
        st.special = {"kind": "disks"}
        st.waiting = list(st.players)
        st.secrets = {}
    else:
        _next_round(st)


def _general_scoring(st: State) -> None:
    """5.2: the Castillo is scored, emptied to the disks' regions (king's region: court), then
    the 9 regions are scored."""
    disks = dict(st.secrets)
    st.secrets = {}
    special.score_areas(st, [CASTILLO], "general scoring: castillo")
    st.log[-1]["disks"] = disks
    castillo = st.areas[CASTILLO]
    for colour in st.players:
        k = castillo.get(colour, 0)
        if k:
            castillo[colour] = 0
            if disks[colour] == st.king:
                st.courts[colour] += k
            else:
                st.areas[disks[colour]][colour] += k
    special.score_areas(st, REGIONS, "general scoring: regions")
    st.special = {}
    _next_round(st)


def _next_round(st: State) -> None:
    st.starter = st.order[-1]  # who acted last starts the next round's power cards
    st.face_up = []
    st.taken = {}
    st.played = {}
    st.order = []
    st.turn = 0
    st.step = {}
    st.waiting = []
    nxt = special.next_round(st)
    for colour in list(st.vetoes):
        st.vetoes[colour] = [r for r in st.vetoes[colour] if r >= nxt]
        if not st.vetoes[colour]:
            del st.vetoes[colour]
    if st.round == st.rounds[-1]:
        st.phase = "over"
        return
    st.round = nxt
    st.phase = "reveal"
    if _next_stack(st) is None:  # only if a group's card file holds too few cards for 9 rounds
        st.face_up.append(KING_CARD)
        st.phase = "power"


# --- why a move is illegal -----------------------------------------------------------------------

PHASE_HINTS = {
    "reveal": "the table turns up an action card",
    "start": "the table picks who starts the power cards",
    "power": "playing a power card",
    "intake": "taking caballeros from the province into the court",
    "recall": "taking caballeros from the board into the court",
    "card": "taking an action card",
    "announce": "announcing whether the card's special action will be used (a veto is held)",
    "action": "placing caballeros, starting the special action, or ending the turn",
    "special": "carrying out the card's special action",
    "veto": "deciding whether to veto",
    "returns": "returning caballeros to the province",
    "secret": "a secret choice of a region",
    "over": "nothing: the game is over",
}


def why_illegal(st: State, move: Move, legal_moves: Sequence[Move]) -> str:
    """The reason a move that is not in ``legal_moves`` is illegal, in words."""
    if st.phase == "over":
        return "the game is over"
    acting = to_act(st)
    if move.player not in acting:
        who = ", ".join(acting)
        return f"it is not {move.player}'s move: waiting for {who} ({PHASE_HINTS[st.phase]})"
    turn_rule = _turn_reason(st, move)
    if turn_rule:
        return turn_rule
    verbs = sorted({m.VERB for m in legal_moves if m.player == move.player})
    if move.VERB not in verbs:
        return (
            f"{move.player} cannot '{move.VERB}' now: the game is at {PHASE_HINTS[st.phase]}"
            f" (expected: {', '.join(verbs)})"
        )
    detail = _detail(st, move)
    if detail:
        return detail
    same = [str(m) for m in legal_moves if type(m) is type(move) and m.player == move.player]
    shown = "; ".join(same[:8]) + ("; ..." if len(same) > 8 else "")
    return f"not a legal '{move.VERB}' now (legal: {shown})"


def _turn_reason(st: State, move: Move) -> str | None:
    """Why the player on turn may not announce, act or end now (the veto announcement)."""
    if st.phase not in ("announce", "action") or move.player != st.current:
        return None
    p = move.player
    step = st.step
    if st.phase == "announce":
        if isinstance(move, Announce):
            if move.choice not in Announce.CHOICES["choice"]:
                return f"announce 'act' or 'skip', not {move.choice!r}"
            return None
        holders = vetoers(st, p)
        held = (
            f"{holders[0]} holds a veto"
            if len(holders) == 1
            else (f"{', '.join(holders[:-1])} and {holders[-1]} hold vetoes")
        )
        return (
            f"{p} must first announce whether he uses the special action of {step['card']}"
            f" ({held}): '{p} announce act' or '{p} announce skip'"
        )
    announced = step.get("announce")
    if isinstance(move, Announce):
        if announced is not None:
            return f"{p} already announced '{announced}' this turn"
        return f"no announcement: nobody else holds a veto, so {p} just places and acts"
    if isinstance(move, Act):
        if "vetoed" in step:
            return f"the special action of {step['card']} was vetoed by {step['vetoed']}"
        if announced == "skip":
            return f"{p} announced 'skip': the special action of {step['card']} is forfeited"
    if isinstance(move, EndTurn) and step["special"] == "announced":
        return (
            f"{p} announced his special action and nobody vetoed it: he must carry it out"
            f" ('{p} act') before his turn ends"
        )
    return None


def _detail(st: State, move: Move) -> str | None:
    p = move.player
    for name in ("area", "region", "source", "target"):
        where = getattr(move, name, None)
        if where is None or where == "court":
            continue
        if where not in AREAS:
            return f"{where!r} is not a region or the castillo"
        if where == st.king and not isinstance(move, Secret):
            return f"taboo: nothing enters or leaves the king's region ({st.king})"
    if isinstance(move, PlayPower):
        if move.value not in POWER_CARDS:
            return f"{move.value} is not a power card (1-13)"
        if move.value in st.played.values():
            return f"power card {move.value} was already played this round"
        if move.value not in st.hands[p]:
            return f"power card {move.value} is not in {p}'s hand (played earlier)"
    if isinstance(move, Intake):
        allow = st.step["allow"]
        if move.count > allow:
            return f"the power card lets {p} take at most {allow} into his court"
        if move.count > st.provinces[p]:
            return f"{p} has only {st.provinces[p]} caballeros in his province"
    if isinstance(move, TakeCard):
        if move.card in st.taken.values():
            return f"{move.card} was already taken this round"
        if move.card not in st.face_up:
            return f"{move.card} is not face up this round ({', '.join(st.face_up)})"
    if isinstance(move, Place):
        step = st.step
        if not step["place_open"]:
            return "placing is finished: the special action was started after it"
        if move.area != CASTILLO and move.area not in NEIGHBOURS[st.king]:
            targets = ", ".join(placement_targets(st))
            return f"{move.area} is not next to the king's region ({st.king}); use: {targets}"
        left = step["limit"] - step["placed"]
        if move.count > left:
            return f"the card lets {p} place {left} more caballero(s)"
        if move.count > st.courts[p]:
            return f"{p} has only {st.courts[p]} caballeros in his court"
    if isinstance(move, Act) and st.step.get("special") != "todo":
        return "the special action of this card was already used"
    if getattr(move, "source", None) == CASTILLO:
        return "nothing leaves the castillo through a card"
    return None
