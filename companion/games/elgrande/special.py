"""The special actions of the action cards (rules/el-grande.md section 6), one kind at a time.

``begin`` starts a card's action once no veto stopped it: simple effects happen at once; the
others open a sub-phase whose legal moves ``legal`` lists and ``apply`` carries out, one small
step at a time (one caballero per move) so that the moves stay enumerable. A finished action sets
the turn's step back to the ``action`` phase with ``step["special"] == "done"``.
"""

from __future__ import annotations

from collections.abc import Iterable

from companion.games.elgrande.board import (
    AREAS,
    CASTILLO,
    MOBILE_SCOREBOARDS,
    NEIGHBOURS,
    PRINTED_VALUES,
    REGIONS,
)
from companion.games.elgrande.cards import CARDS
from companion.games.elgrande.moves import (
    Choose,
    Done,
    Move,
    MoveCaballero,
    MoveGrande,
    MoveKing,
    MoveScoreboard,
    Put,
    RecoverPower,
    RemoveCaballero,
    ReturnCaballero,
)
from companion.games.elgrande.scoring import score_area, values_in_force
from companion.games.elgrande.state import State

SECRET_KINDS = ("disks", "secret_return", "eviction", "secret_scoring")


# --- scoring -------------------------------------------------------------------------------------


def score_areas(
    st: State, areas: Iterable[str], reason: str, *, first_only: bool = False
) -> dict[str, int]:
    """Score areas (5.1, with bonuses), add the points to the scores and log them."""
    n = len(st.players)
    gained = dict.fromkeys(st.players, 0)
    scored: list[str] = []
    for area in areas:
        values = values_in_force(area, st.scoreboards, n)
        result = score_area(
            area,
            st.areas[area],
            values,
            king_region=st.king,
            grandes=st.grandes,
            first_only=first_only,
        )
        for colour, points in result.total.items():
            gained[colour] += points
        scored.append(area)
    for colour, points in gained.items():
        st.scores[colour] += points
    st.log.append({"round": st.round, "reason": reason, "areas": scored, "points": gained})
    return gained


def first_value(st: State, area: str) -> int:
    if st.options.scoring_cards_use_printed_values:
        return PRINTED_VALUES[area][0]
    return st.scoreboards.get(area, PRINTED_VALUES[area])[0]


def _total(st: State, area: str) -> int:
    return sum(st.areas[area].values())


# --- starting and finishing ----------------------------------------------------------------------


def finish(st: State) -> None:
    st.step["special"] = "done"
    st.special = {}
    st.phase = "action"


def _others_from_left(st: State, player: str) -> list[str]:
    i = st.players.index(player)
    return [st.players[(i + k) % len(st.players)] for k in range(1, len(st.players))]


def begin(st: State) -> None:
    """Start the special action of the current player's card."""
    p = st.current
    card = CARDS[st.step["card"]]
    kind, params = card.kind, card.params
    st.special = {"kind": kind, "card": card.id}
    if kind == "veto":
        st.vetoes.setdefault(p, []).append(next_round(st))
        st.log.append({"round": st.round, "reason": f"{p} keeps a veto"})
        finish(st)
    elif kind == "court_to_province":
        limit = params.get("count")
        for q in _others_from_left(st, p):
            k = st.courts[q] if limit is None else min(int(limit), st.courts[q])
            st.courts[q] -= k
            st.provinces[q] += k
        finish(st)
    elif kind == "province_to_court":
        k = min(int(params.get("count", 2)), st.provinces[p])
        st.provinces[p] -= k
        st.courts[p] += k
        finish(st)
    elif kind == "score_values":
        wanted = set(params["first"])
        score_areas(st, [r for r in REGIONS if first_value(st, r) in wanted], card.id)
        finish(st)
    elif kind == "score_castillo":
        score_areas(st, [CASTILLO], card.id)
        finish(st)
    elif kind == "score_first_only":
        score_areas(st, REGIONS, card.id, first_only=True)
        finish(st)
    elif kind in ("score_most", "score_fewest"):
        totals = {r: _total(st, r) for r in REGIONS if _total(st, r) > 0}
        if totals:
            target = max(totals.values()) if kind == "score_most" else min(totals.values())
            score_areas(st, [r for r, t in totals.items() if t == target], card.id)
        finish(st)
    elif kind == "king_returns":
        st.special["left"] = int(params.get("count", 3))
        st.waiting = [q for q in _others_from_left(st, p) if _returnable(st, q)]
        st.phase = "returns"
        if not st.waiting:
            finish(st)
    elif kind == "secret_return":
        least = int(params.get("min", 1))
        st.special["min"] = least
        st.special["count"] = params.get("count")
        st.waiting = [q for q in st.players if secret_options(st, q)]
        st.secrets = {}
        st.phase = "secret"
        if not st.waiting:
            finish(st)
    elif kind == "secret_scoring":
        st.waiting = list(st.players)
        st.secrets = {}
        st.phase = "secret"
    elif kind == "one_each_other":
        st.special["handled"] = []
        st.phase = "special"
        if not legal(st):
            finish(st)
    else:
        # move, move_from_region, move_own_out, place_anywhere, either, score_choice,
        # scoreboard, king moves, grande, power_return, eviction: the player picks.
        st.special.update({"moved": 0, "own": 0, "others": 0, "source": None, "branch": None})
        st.phase = "special"


def next_round(st: State) -> int:
    """The round after this one in the played sequence (a veto lasts until its end)."""
    later = [r for r in st.rounds if r > st.round]
    return later[0] if later else st.round + 1


# --- the sub-phase of one card -------------------------------------------------------------------


def _move_moves(st: State, p: str, colours: Iterable[str], sources: Iterable[str]) -> list[Move]:
    king = st.king
    out: list[Move] = []
    for src in sources:
        if src in (king, CASTILLO):
            continue
        here = st.areas[src]
        for colour in colours:
            if here.get(colour, 0) <= 0:
                continue
            for dst in AREAS:
                if dst != src and dst != king:
                    out.append(MoveCaballero(p, colour, src, dst))
    return out


def _puts(st: State, p: str) -> list[Move]:
    if st.courts[p] <= 0:
        return []
    return [Put(p, r) for r in REGIONS if r != st.king]


def legal(st: State) -> list[Move]:
    """Legal moves in the ``special`` phase."""
    p = st.current
    sp = st.special
    kind = sp["kind"]
    params = CARDS[sp["card"]].params
    done: list[Move] = [Done(p)]
    if kind == "move":
        if sp["moved"] >= params["total"]:
            return done
        colours = [
            c
            for c in st.players
            if (c == p and sp["own"] < params["own"])
            or (c != p and sp["others"] < params["others"])
        ]
        return _move_moves(st, p, colours, REGIONS) + done
    if kind == "move_from_region":
        if sp["moved"] >= params["total"]:
            return done
        sources = REGIONS if sp["source"] is None else (sp["source"],)
        return _move_moves(st, p, st.players, sources) + done
    if kind == "move_own_out" or (kind == "either" and sp["branch"] == "move"):
        if sp["source"] is None:
            return _move_moves(st, p, (p,), REGIONS) + done
        return _move_moves(st, p, (p,), (sp["source"],))  # all of them: no stopping half-way
    if kind == "place_anywhere" or (kind == "either" and sp["branch"] == "put"):
        return _puts(st, p) + done
    if kind == "either":
        return _move_moves(st, p, (p,), REGIONS) + _puts(st, p) + done
    if kind == "score_choice":
        areas = AREAS if params.get("castillo") else REGIONS
        return [Choose(p, a) for a in areas] + done
    if kind == "eviction":
        return [Choose(p, r) for r in REGIONS if r != st.king] + done
    if kind == "one_each_other":
        out: list[Move] = []
        for q in st.players:
            if q == p or q in sp["handled"]:
                continue
            out.extend(
                RemoveCaballero(p, q, r)
                for r in REGIONS
                if r != st.king and st.areas[r].get(q, 0) > 0
            )
        return out
    if kind == "scoreboard":
        out = []
        where = {values: area for area, values in st.scoreboards.items()}
        for values in MOBILE_SCOREBOARDS:
            now = where.get(values)
            if now == st.king:
                continue  # nothing leaves the king's region
            out.extend(
                MoveScoreboard(p, values, a)
                for a in AREAS
                if a != st.king and a != now and a not in st.scoreboards
            )
        return out + done
    if kind == "king_adjacent":
        return [MoveKing(p, r) for r in sorted(NEIGHBOURS[st.king])] + done
    if kind == "king_any":
        return [MoveKing(p, r) for r in REGIONS if r != st.king] + done
    if kind == "grande":
        home = st.grandes[p]
        if home == st.king:
            return done
        return [MoveGrande(p, r) for r in REGIONS if r != st.king and r != home] + done
    if kind == "power_return":
        return [RecoverPower(p, v) for v in sorted(set(st.spent[p]))] + done
    raise AssertionError(f"no sub-phase for card kind {kind}")


def apply(st: State, move: Move) -> None:
    """Carry out one legal move of the ``special`` phase."""
    p = st.current
    sp = st.special
    kind = sp["kind"]
    params = CARDS[sp["card"]].params
    if isinstance(move, Done):
        finish(st)
    elif isinstance(move, MoveCaballero):
        st.areas[move.source][move.colour] -= 1
        st.areas[move.target][move.colour] = st.areas[move.target].get(move.colour, 0) + 1
        sp["moved"] = sp.get("moved", 0) + 1
        side = "own" if move.colour == p else "others"
        sp[side] = sp.get(side, 0) + 1
        if sp["source"] is None:
            sp["source"] = move.source
        if kind == "either":
            sp["branch"] = "move"
        if kind == "move_own_out" or kind == "either":
            if st.areas[move.source][p] == 0:
                finish(st)
        elif (kind == "move" and sp["moved"] >= params["total"]) or (
            kind == "move_from_region"
            and (sp["moved"] >= params["total"] or _total(st, move.source) == 0)
        ):
            finish(st)
    elif isinstance(move, Put):
        st.courts[p] -= 1
        st.areas[move.area][p] = st.areas[move.area].get(p, 0) + 1
        sp["branch"] = "put"
        sp["moved"] = sp.get("moved", 0) + 1
        if sp["moved"] >= int(params.get("count", 2)) or st.courts[p] == 0:
            finish(st)
    elif isinstance(move, Choose):
        if kind == "score_choice":
            score_areas(st, [move.area], sp["card"])
            finish(st)
        else:  # eviction
            sp["region"] = move.area
            st.waiting = [q for q in st.players if q != p and st.areas[move.area].get(q, 0) > 0]
            st.secrets = {}
            st.phase = "secret"
            if not st.waiting:
                finish(st)
    elif isinstance(move, RemoveCaballero):
        st.areas[move.region][move.colour] -= 1
        st.provinces[move.colour] += 1
        sp["handled"].append(move.colour)
        if not legal(st):
            finish(st)
    elif isinstance(move, MoveScoreboard):
        for area, values in list(st.scoreboards.items()):
            if values == move.values:
                del st.scoreboards[area]
        st.scoreboards[move.area] = move.values
        finish(st)
    elif isinstance(move, MoveKing):
        st.king = move.region
        finish(st)
    elif isinstance(move, MoveGrande):
        st.grandes[p] = move.region
        finish(st)
    elif isinstance(move, RecoverPower):
        st.spent[p].remove(move.value)
        st.hands[p].append(move.value)
        st.hands[p].sort()
        finish(st)
    else:
        raise AssertionError(f"{move} in the special phase")


# --- "the king returns" --------------------------------------------------------------------------


def _returnable(st: State, q: str) -> bool:
    return st.courts[q] > 0 or any(st.areas[r].get(q, 0) > 0 for r in REGIONS if r != st.king)


def legal_returns(st: State) -> list[Move]:
    q = st.waiting[0]
    out: list[Move] = [ReturnCaballero(q, "court")] if st.courts[q] > 0 else []
    out.extend(ReturnCaballero(q, r) for r in REGIONS if r != st.king and st.areas[r].get(q, 0) > 0)
    return out


def apply_return(st: State, move: ReturnCaballero) -> None:
    q = move.player
    if move.source == "court":
        st.courts[q] -= 1
    else:
        st.areas[move.source][q] -= 1
    st.provinces[q] += 1
    st.special["left"] -= 1
    if st.special["left"] == 0 or not _returnable(st, q):
        st.waiting.pop(0)
        st.special["left"] = int(CARDS[st.special["card"]].params.get("count", 3))
        while st.waiting and not _returnable(st, st.waiting[0]):
            st.waiting.pop(0)
    if not st.waiting:
        finish(st)


# --- secret choices by several players at once ---------------------------------------------------


def secret_options(st: State, q: str) -> list[str]:
    """The regions player ``q`` may pick secretly now."""
    kind = st.special["kind"]
    if kind in ("disks", "secret_scoring"):
        return list(REGIONS)
    if kind == "secret_return":
        least = st.special["min"]
        return [r for r in REGIONS if r != st.king and st.areas[r].get(q, 0) >= least]
    if kind == "eviction":
        return [r for r in REGIONS if r != st.king and r != st.special["region"]]
    raise AssertionError(f"no secret choice for {kind}")


def resolve_card_secret(st: State) -> None:
    """Every pick is in: reveal them and carry out the card."""
    kind = st.special["kind"]
    picks = dict(st.secrets)
    st.secrets = {}
    if kind == "secret_return":
        count = st.special["count"]
        for q, r in picks.items():
            k = st.areas[r][q] if count is None else min(int(count), st.areas[r][q])
            st.areas[r][q] -= k
            st.provinces[q] += k
        st.log.append({"round": st.round, "reason": st.special["card"], "picks": picks})
    elif kind == "eviction":
        region = st.special["region"]
        for q, r in picks.items():
            k = st.areas[region].get(q, 0)
            st.areas[region][q] = 0
            st.areas[r][q] = st.areas[r].get(q, 0) + k
        st.log.append({"round": st.round, "reason": "eviction", "region": region, "picks": picks})
    elif kind == "secret_scoring":
        counts: dict[str, int] = {}
        for r in picks.values():
            counts[r] = counts.get(r, 0) + 1
        score_areas(st, [r for r in REGIONS if counts.get(r) == 1], st.special["card"])
        st.log[-1]["picks"] = picks
    finish(st)
