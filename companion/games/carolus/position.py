"""Positions (spec/positions.md, Carolus Magnus part): read with every consistency check, write
back; plus the fuller ``state`` JSON that also records phase, hands, order and pending dice."""

from __future__ import annotations

from typing import Any

from companion.games.carolus.game import DISC_SET, Game, members_for
from companion.games.carolus.moves import COLOURS
from companion.games.carolus.options import Options
from companion.games.carolus.state import (
    CASTLE_COLOURS,
    CASTLES,
    PHASES,
    RING_SIZE,
    TERRITORIES,
    Outcome,
    State,
    empty_colours,
)
from companion.games.errors import PositionError

GAME_ID = "carolus-magnus"
REQUIRED = ("game", "players", "ring", "charlemagne", "courts", "influence")
OPTIONAL = ("teams", "regions", "reserves", "discs", "castles_left", "options")


def _count(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PositionError(path, f"{value!r} is not a count (a whole number, 0 or more)")
    return value


def _obj(value: object, path: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PositionError(path, f"must be an object ({what})")
    return value


def _colours(value: object, path: str) -> dict[str, int]:
    out = empty_colours()
    for colour, n in _obj(value, path, "colour -> count").items():
        if colour not in COLOURS:
            raise PositionError(f"{path}.{colour}", f"unknown colour (use {', '.join(COLOURS)})")
        out[colour] = _count(n, f"{path}.{colour}")
    return out


def _per_player(value: object, path: str, players: tuple[str, ...]) -> dict[str, Any]:
    raw = _obj(value, path, "player -> ...")
    for name in raw:
        if name not in players:
            raise PositionError(f"{path}.{name}", f"not a player (players: {', '.join(players)})")
    return raw


def from_position(data: object) -> Game:
    """The game at the position ``data``; PositionError naming the path if it is bad.

    The phase is what the position implies: with every disc played, the lowest disc acts and
    must bring his knights; otherwise the next player without a disc chooses one."""
    d = _obj(data, "", "a Carolus Magnus position")
    for key in d:
        if key not in REQUIRED and key not in OPTIONAL:
            raise PositionError(key, f"unknown key (known: {', '.join(REQUIRED + OPTIONAL)})")
    for key in REQUIRED:
        if key not in d:
            raise PositionError(key, "missing")
    if d["game"] != GAME_ID:
        raise PositionError("game", f"{d['game']!r} is not {GAME_ID!r}")
    options = Options.from_dict(d.get("options"))

    raw_players = d["players"]
    if (
        not isinstance(raw_players, list)
        or not 2 <= len(raw_players) <= 4
        or not all(isinstance(p, str) and p.isidentifier() for p in raw_players)
    ):
        raise PositionError("players", "must be a list of 2 to 4 names (letters, digits, _)")
    players = tuple(raw_players)
    if len(set(players)) != len(players):
        raise PositionError("players", "a name appears twice")
    teams = d.get("teams")
    if teams is not None:
        teams = _obj(teams, "teams", "castle colour -> two players")
        for colour, pair in teams.items():
            if not isinstance(pair, list):
                raise PositionError(f"teams.{colour}", "must be a list of two players")
    members = members_for(players, teams)

    ring_raw = d["ring"]
    if not isinstance(ring_raw, list) or len(ring_raw) != RING_SIZE:
        raise PositionError("ring", f"must list the {RING_SIZE} territories in clockwise order")
    ring: list[str] = []
    knights: list[dict[str, int]] = []
    castle: list[str | None] = []
    for i, item in enumerate(ring_raw):
        path = f"ring[{i}]"
        item = _obj(item, path, "id, knights, castle")
        for key in item:
            if key not in ("id", "knights", "castle"):
                raise PositionError(f"{path}.{key}", "unknown key (known: id, knights, castle)")
        tid = item.get("id")
        if tid not in TERRITORIES:
            raise PositionError(f"{path}.id", f"{tid!r} is not a territory id (t01..t15)")
        if tid in ring:
            raise PositionError(f"{path}.id", f"{tid} appears twice in the ring")
        ring.append(tid)
        knights.append(_colours(item.get("knights", {}), f"{path}.knights"))
        owner = item.get("castle")
        if isinstance(owner, list) and len(owner) > 1:
            raise PositionError(f"{path}.castle", "a territory holds at most one castle")
        if isinstance(owner, list):
            owner = owner[0] if owner else None
        if owner is not None and owner not in members:
            raise PositionError(
                f"{path}.castle", f"{owner!r} is not a castle colour in play ({', '.join(members)})"
            )
        castle.append(owner)

    regions = _regions(d.get("regions", []), ring, castle)

    cm = d["charlemagne"]
    if cm not in ring:
        raise PositionError("charlemagne", f"{cm!r} is not a territory of the ring")

    courts_raw = _per_player(d["courts"], "courts", players)
    courts = {p: _colours(courts_raw.get(p, {}), f"courts.{p}") for p in players}
    influence = _influence(d["influence"], players, courts)
    reserves_raw = _per_player(d.get("reserves", {}), "reserves", players)
    reserves = {p: _colours(reserves_raw.get(p, {}), f"reserves.{p}") for p in players}

    discs_raw = _per_player(d.get("discs", {}), "discs", players)
    discs: dict[str, int | None] = {}
    for p in players:
        disc = discs_raw.get(p)
        if disc is not None and (isinstance(disc, bool) or disc not in DISC_SET):
            raise PositionError(f"discs.{p}", f"{disc!r} is not a disc (1..5 or null)")
        discs[p] = disc

    total = CASTLES[len(players)]
    on_board = dict.fromkeys(members, 0)
    for owner in castle:
        if owner is not None:
            on_board[owner] += 1
    left_raw = _obj(d.get("castles_left", {}), "castles_left", "castle colour -> count")
    castles_left: dict[str, int] = {}
    for unit in left_raw:
        if unit not in members:
            raise PositionError(f"castles_left.{unit}", "not a castle colour in play")
    for unit in members:
        if on_board[unit] > total:
            raise PositionError("ring", f"{unit} has {on_board[unit]} castles; at most {total}")
        left = left_raw.get(unit, total - on_board[unit])
        left = _count(left, f"castles_left.{unit}")
        if left + on_board[unit] > total:
            raise PositionError(
                f"castles_left.{unit}",
                f"{left} left + {on_board[unit]} on the board is more than {total} castles",
            )
        castles_left[unit] = left

    supply: dict[str, int] = {}
    for colour in COLOURS:
        used = (
            sum(k[colour] for k in knights)
            + sum(c[colour] for c in courts.values())
            + sum(r[colour] for r in reserves.values())
        )
        if used > options.cubes_per_colour:
            raise PositionError(
                colour,
                f"{used} {colour} cubes in play but the game has {options.cubes_per_colour} "
                "(rule option cubes_per_colour)",
            )
        supply[colour] = options.cubes_per_colour - used

    state = State(
        players=players,
        members=members,
        options=options,
        ring=ring,
        knights=knights,
        castle=castle,
        regions=regions,
        charlemagne=ring.index(cm),
        courts=courts,
        influence=influence,
        reserves=reserves,
        supply=supply,
        castles_left=castles_left,
        hands={p: tuple(n for n in DISC_SET if n != discs[p]) for p in players},
        discs=discs,
        round=1,
        choose_order=list(players),
    )
    game = Game(state)
    chosen = [p for p in players if discs[p] is not None]
    if len(chosen) == len(players):
        state.act_order = sorted(players, key=lambda p: (discs[p], players.index(p)))
        game.begin_action(state.act_order[0])
    else:
        # Those who chose already chose first.
        state.choose_order = chosen + [p for p in players if discs[p] is None]
        state.phase = "discs"
        state.turn = state.choose_order[len(chosen)]
    return game


def _regions(raw: object, ring: list[str], castle: list[str | None]) -> list[tuple[int, ...]]:
    if not isinstance(raw, list):
        raise PositionError("regions", "must be a list of groups of territory ids")
    grouped: set[int] = set()
    runs: list[tuple[int, ...]] = []
    for g, group in enumerate(raw):
        path = f"regions[{g}]"
        if not isinstance(group, list) or not group:
            raise PositionError(path, "must be a non-empty list of territory ids")
        idx: list[int] = []
        for tid in group:
            if tid not in ring:
                raise PositionError(path, f"{tid!r} is not a territory of the ring")
            t = ring.index(tid)
            if t in grouped or t in idx:
                raise PositionError(path, f"{tid} is in two groups")
            idx.append(t)
        run = _as_run(idx)
        if run is None:
            raise PositionError(
                path, f"{', '.join(group)} are not consecutive territories of the ring"
            )
        owners = {o for t in run if (o := castle[t]) is not None}
        if len(owners) > 1:
            raise PositionError(
                path, f"a region's castles belong to one owner, not {', '.join(sorted(owners))}"
            )
        grouped.update(run)
        runs.append(run)
    runs.extend((t,) for t in range(RING_SIZE) if t not in grouped)
    runs.sort(key=lambda r: r[0])
    for k, run in enumerate(runs):
        nxt = runs[(k + 1) % len(runs)]
        mine = {castle[t] for t in run} - {None}
        if len(runs) > 1 and mine and mine == {castle[t] for t in nxt} - {None}:
            a, b = ring[run[-1]], ring[nxt[0]]
            raise PositionError(
                "regions",
                f"{a} and {b} are neighbours with {mine.pop()} castles on both sides, so "
                "their regions would have merged: list them as one group",
            )
    return runs


def _as_run(idx: list[int]) -> tuple[int, ...] | None:
    """The indices as one clockwise run of the ring (wrapping allowed), or None."""
    members = set(idx)
    if len(members) == RING_SIZE:
        return tuple(range(RING_SIZE))
    starts = [t for t in members if (t - 1) % RING_SIZE not in members]
    if len(starts) != 1:
        return None
    return tuple((starts[0] + k) % RING_SIZE for k in range(len(members)))


def _influence(
    raw: object, players: tuple[str, ...], courts: dict[str, dict[str, int]]
) -> dict[str, str | None]:
    table = _obj(raw, "influence", "colour -> holder or null")
    out: dict[str, str | None] = {}
    for colour in table:
        if colour not in COLOURS:
            raise PositionError(f"influence.{colour}", f"unknown colour (use {', '.join(COLOURS)})")
    for colour in COLOURS:
        holder = table.get(colour)
        path = f"influence.{colour}"
        counts = {p: courts[p][colour] for p in players}
        best = max(counts.values())
        shown = ", ".join(f"{p} {n}" for p, n in counts.items())
        if holder is None:
            if best > 0:
                raise PositionError(
                    path,
                    f"nobody holds {colour}, but courts have {shown}: the first knight at a "
                    "court takes the cylinder; name the holder",
                )
        elif holder not in players:
            raise PositionError(path, f"{holder!r} is not a player")
        elif counts[holder] == 0:
            raise PositionError(
                path, f"{holder} has no {colour} knight at court, so cannot hold it"
            )
        elif counts[holder] < best:
            raise PositionError(
                path,
                f"{holder} holds {colour} with fewer court knights than a rival ({shown}); "
                "a holder must be strictly ahead or tied",
            )
        out[colour] = holder
    return out


def to_position(game: Game) -> dict[str, Any]:
    """The spec's position JSON of the game as it stands."""
    s = game.state
    teams = {u: list(ps) for u, ps in s.members.items()} if len(s.players) == 4 else None
    groups = [[s.ring[t] for t in run] for run in s.regions if len(run) > 1]
    return {
        "game": GAME_ID,
        "players": list(s.players),
        "teams": teams,
        "ring": [
            {
                "id": tid,
                "knights": {c: n for c, n in s.knights[t].items() if n},
                "castle": s.castle[t],
            }
            for t, tid in enumerate(s.ring)
        ],
        "regions": groups,
        "charlemagne": s.ring[s.charlemagne],
        "courts": {p: {c: n for c, n in s.courts[p].items() if n} for p in s.players},
        "influence": dict(s.influence),
        "reserves": {p: {c: n for c, n in s.reserves[p].items() if n} for p in s.players},
        "discs": dict(s.discs),
        "castles_left": dict(s.castles_left),
        "options": s.options.to_dict(),
    }


def to_state(game: Game) -> dict[str, Any]:
    """The whole game state: the position plus what a position cannot say (phase, hands,
    choosing and acting order, dice still to roll, the supply check, the outcome)."""
    s = game.state
    return {
        "position": to_position(game),
        "seed": s.seed,
        "round": s.round,
        "phase": s.phase,
        "turn": s.turn,
        "hands": {p: list(h) for p, h in s.hands.items()},
        "choose_order": list(s.choose_order),
        "act_order": list(s.act_order),
        "acted": s.acted,
        "knights_left": s.knights_left,
        "rolls": [[p, n] for p, n in s.rolls],
        "crowns": s.crowns,
        "outcome": None
        if s.outcome is None
        else {
            "winners": list(s.outcome.winners),
            "players": list(s.outcome.players),
            "reason": s.outcome.reason,
        },
    }


STATE_KEYS = (
    "position",
    "seed",
    "round",
    "phase",
    "turn",
    "hands",
    "choose_order",
    "act_order",
    "acted",
    "knights_left",
    "rolls",
    "crowns",
    "outcome",
)


def from_state(data: object) -> Game:
    """A game from :func:`to_state`'s JSON; PositionError naming the path if it is bad."""
    d = _obj(data, "", "a Carolus Magnus game state")
    for key in d:
        if key not in STATE_KEYS:
            raise PositionError(key, f"unknown key (known: {', '.join(STATE_KEYS)})")
    for key in STATE_KEYS:
        if key not in d:
            raise PositionError(key, "missing")
    try:
        game = from_position(d["position"])
    except PositionError as exc:
        raise PositionError(f"position.{exc.path}".rstrip("."), exc.problem) from None
    s = game.state
    if d["phase"] not in PHASES:
        raise PositionError("phase", f"{d['phase']!r} is not one of {', '.join(PHASES)}")
    if d["turn"] is not None and d["turn"] not in s.players:
        raise PositionError("turn", f"{d['turn']!r} is not a player")
    s.seed = d["seed"]
    s.round = _count(d["round"], "round")
    s.phase = d["phase"]
    s.turn = d["turn"]
    hands = _per_player(d["hands"], "hands", s.players)
    for p, hand in hands.items():
        if not isinstance(hand, list) or any(n not in DISC_SET for n in hand):
            raise PositionError(f"hands.{p}", "must be a list of discs (1..5)")
    s.hands = {p: tuple(hands.get(p, DISC_SET)) for p in s.players}
    for key in ("choose_order", "act_order"):
        order = d[key]
        if not isinstance(order, list) or any(p not in s.players for p in order):
            raise PositionError(key, "must be a list of players")
    s.choose_order = list(d["choose_order"])
    s.act_order = list(d["act_order"])
    s.acted = _count(d["acted"], "acted")
    s.knights_left = _count(d["knights_left"], "knights_left")
    rolls = d["rolls"]
    if not isinstance(rolls, list) or not all(
        isinstance(r, list) and len(r) == 2 and r[0] in s.players and r[1] in (1, 3, 4)
        for r in rolls
    ):
        raise PositionError("rolls", "must be a list of [player, number of dice]")
    s.rolls = [(p, n) for p, n in rolls]
    s.crowns = _count(d["crowns"], "crowns")
    out = d["outcome"]
    if out is not None and (
        not isinstance(out, dict) or set(out) != {"winners", "players", "reason"}
    ):
        raise PositionError("outcome", "must be null or {winners, players, reason}")
    s.outcome = (
        None
        if out is None
        else Outcome(tuple(out["winners"]), tuple(out["players"]), str(out["reason"]))
    )
    return game


__all__ = ["CASTLE_COLOURS", "from_position", "from_state", "to_position", "to_state"]
