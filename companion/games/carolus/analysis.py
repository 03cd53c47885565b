"""What the tablet shows for a position: influence, regions, reachable stops, choices, threats.

The keys of spec/positions.md come first (``influence``, ``regions``, ``reachable``,
``regions_left``); ``to_move``, ``choices`` and ``threats`` are extras the rule sheet asks for.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from companion.games.carolus.game import Game, resolve_stop
from companion.games.carolus.moves import COLOURS, COURT
from companion.games.carolus.position import GAME_ID
from companion.games.carolus.state import State
from companion.games.errors import PositionError
from companion.games.majority import sole_leader, takes_over


@dataclass(frozen=True)
class Placement:
    """Where a player's next knights go: per colour, how many to court and how many into the
    region looked at (the rest of his knights go elsewhere)."""

    court: tuple[tuple[str, int], ...]
    region: tuple[tuple[str, int], ...]
    strength: dict[str, int]
    margin: int

    def words(self, territory: str) -> list[str]:
        out = [f"{c} {COURT}" for c, n in self.court for _ in range(n)]
        out += [f"{c} {territory}" for c, n in self.region for _ in range(n)]
        return out


def _splits(n: int, reserve: dict[str, int]) -> Iterator[dict[str, int]]:
    """Every way to pick ``n`` knights (as colour -> count) from ``reserve``."""
    colours = [c for c in COLOURS if reserve[c] > 0]

    def rec(k: int, left: int) -> Iterator[dict[str, int]]:
        if k == len(colours):
            if left == 0:
                yield {}
            return
        c = colours[k]
        for take in range(min(left, reserve[c]) + 1):
            for rest in rec(k + 1, left - take):
                yield {c: take, **rest} if take else rest

    yield from rec(0, n)


def best_placement(s: State, player: str, i: int, n: int) -> Placement | None:
    """The placement of ``n`` knights from ``player``'s reserve that gives his castle colour
    the majority in region ``i`` with the widest margin, or None if none does."""
    unit = s.unit_of(player)
    knights = dict.fromkeys(COLOURS, 0)
    for t in s.regions[i]:
        for c, k in s.knights[t].items():
            knights[c] += k
    castles = dict.fromkeys(s.members, 0)
    for c, k in s.castles_in(i).items():
        castles[c] += k
    best: Placement | None = None
    for pick in _splits(n, s.reserves[player]):
        per_colour = [
            [(c, a, b) for a in range(k + 1) for b in range(k - a + 1)] for c, k in pick.items()
        ]
        for combo in itertools.product(*per_colour):
            strength = dict(castles)
            moved = {c: (a, b) for c, a, b in combo}
            for c in COLOURS:
                a, b = moved.get(c, (0, 0))
                holder = s.influence[c]
                if a and holder != player:
                    held = None if holder is None else s.courts[holder][c]
                    if takes_over(held, s.courts[player][c] + a):
                        holder = player
                if holder is not None:
                    strength[s.unit_of(holder)] += knights[c] + b
            if sole_leader(strength) != unit:
                continue
            margin = strength[unit] - max(v for u, v in strength.items() if u != unit)
            if best is None or margin > best.margin:
                best = Placement(
                    tuple((c, a) for c, a, _ in combo if a),
                    tuple((c, b) for c, _, b in combo if b),
                    strength,
                    margin,
                )
    return best


def to_move(game: Game, player: str | None, steps: int | None) -> tuple[str, int] | None:
    """Who is analysed as the mover and his most steps (spec: lowest disc not yet acted)."""
    s = game.state
    if player is not None and player not in s.players:
        raise PositionError("--player", f"{player!r} is not a player ({', '.join(s.players)})")
    if steps is not None and not 1 <= steps <= 5:
        raise PositionError("--steps", f"{steps} is not a disc (1..5)")
    if player is None:
        if s.phase in ("knights", "charlemagne"):
            player = s.turn
        elif steps is not None:
            raise PositionError("--steps", "no player is about to move: give --player too")
    if player is None:
        return None
    if steps is None:
        steps = s.discs.get(player)
        if steps is None:
            raise PositionError("--player", f"{player} has played no disc: give --steps too")
    return player, steps


def analyze(game: Game, *, player: str | None = None, steps: int | None = None) -> dict[str, Any]:
    s = game.state
    mover = to_move(game, player, steps)
    regions = []
    for i in range(len(s.regions)):
        regions.append(
            {
                "territories": s.region_ids(i),
                "castles": s.castles_in(i),
                "strength": s.strength(i),
                "majority": s.majority(i),
                "if_charlemagne_stops": s.stop_outcome(i),
                "charlemagne": s.charlemagne in s.regions[i],
            }
        )
    reachable = []
    choices = []
    if mover is not None:
        name, most = mover
        if s.turn == name and s.phase in ("knights", "charlemagne"):
            knights = s.knights_left  # some (or all) of his knights are already placed
        else:
            knights = min(s.knights_per_turn, sum(s.reserves[name].values()))
        for k in range(1, most + 1):
            i = s.stop_after(k)
            reachable.append({"steps": k, "region": s.region_ids(i), "outcome": s.stop_outcome(i)})
            choices.append(_choice(s, name, k, knights))
    return {
        "game": GAME_ID,
        "players": list(s.players),
        "teams": {u: list(p) for u, p in s.members.items()} if len(s.players) == 4 else None,
        "influence": {
            c: {"holder": s.influence[c], "courts": {p: s.courts[p][c] for p in s.players}}
            for c in COLOURS
        },
        "regions": regions,
        "reachable": reachable,
        "regions_left": len(s.regions),
        "to_move": None if mover is None else {"player": mover[0], "steps": mover[1]},
        "castles_left": dict(s.castles_left),
        "choices": choices,
        "threats": {"colours": _colour_threats(s), "regions": _region_threats(s)},
        "options": s.options.to_dict(),
    }


def _choice(s: State, player: str, k: int, knights: int) -> dict[str, Any]:
    """Stopping after ``k`` steps now (knights as they stand), and with the best placement."""
    after = s.copy()
    i = after.stop_after(k)
    outcome = after.stop_outcome(i)
    by = after.majority(i) if outcome in ("build", "take") else None
    before = len(after.regions)
    where = after.regions[i][0]
    resolve_stop(after, i)
    j = after.region_index(where)
    choice: dict[str, Any] = {
        "steps": k,
        "region": s.region_ids(i),
        "outcome": outcome,
        "by": by,
        "merged": after.region_ids(j) if len(after.regions) < before else None,
        "regions_left": len(after.regions),
        "ends_game": None if after.outcome is None else str(after.outcome),
        "with_knights": None,
    }
    unit = s.unit_of(player)
    if knights and s.majority(i) != unit:
        best = best_placement(s, player, i, knights)
        if best is not None:
            owner = s.owner(i)
            merged, ends = _stop_after_placement(s, player, i, best)
            choice["with_knights"] = {
                "knights": best.words(s.ring[s.regions[i][0]]),
                "strength": best.strength,
                "outcome": "keep" if owner == unit else ("build" if owner is None else "take"),
                "merged": merged,
                "ends_game": ends,
            }
    return choice


def _stop_after_placement(
    s: State, player: str, i: int, p: Placement
) -> tuple[list[str] | None, str | None]:
    """Place as ``p`` says, stop Charlemagne in region ``i``: what merges, how the game ends."""
    then = _with_placement(s, player, i, p)
    before = len(then.regions)
    resolve_stop(then, i)
    j = then.region_index(s.regions[i][0])
    merged = then.region_ids(j) if len(then.regions) < before else None
    return merged, None if then.outcome is None else str(then.outcome)


def _with_placement(s: State, player: str, i: int, p: Placement) -> State:
    """A copy of the state with the placement's court and region knights brought in."""
    then = s.copy()
    for c, a in p.court:
        then.reserves[player][c] -= a
        then.courts[player][c] += a
        holder = then.influence[c]
        if holder != player:
            held = None if holder is None else then.courts[holder][c]
            if takes_over(held, then.courts[player][c]):
                then.influence[c] = player
    first = then.regions[i][0]
    for c, b in p.region:
        then.reserves[player][c] -= b
        then.knights[first][c] += b
    return then


def _colour_threats(s: State) -> list[dict[str, Any]]:
    out = []
    n = s.knights_per_turn
    for c in COLOURS:
        holder = s.influence[c]
        if holder is None:
            continue
        for rival in s.players:
            if s.unit_of(rival) == s.unit_of(holder):
                continue
            have, theirs, spare = s.courts[holder][c], s.courts[rival][c], s.reserves[rival][c]
            need = have - theirs + 1
            if need <= min(spare, n):
                out.append(
                    {
                        "colour": c,
                        "holder": holder,
                        "rival": rival,
                        "courts": {holder: have, rival: theirs},
                        "reserve": spare,
                        "needs": need,
                        "message": f"{holder}'s {c} is at risk: {rival} has {spare} {c} in "
                        f"reserve ({theirs} at court against {have}; {need} more take it)",
                    }
                )
    return out


def _region_threats(s: State) -> list[dict[str, Any]]:
    out = []
    here = s.region_index(s.charlemagne)
    for i in range(len(s.regions)):
        owner = s.owner(i)
        if owner is None:
            continue
        for rival in s.players:
            if s.unit_of(rival) == owner:
                continue
            n = min(s.knights_per_turn, sum(s.reserves[rival].values()))
            best = best_placement(s, rival, i, n) if n else None
            if best is None and s.majority(i) == s.unit_of(rival):
                best = Placement((), (), s.strength(i), 0)
            if best is None:
                continue
            merged, ends = _stop_after_placement(s, rival, i, best)
            steps = (i - here) % len(s.regions) or len(s.regions)
            words = ", ".join(best.words(s.ring[s.regions[i][0]])) or "no knights needed"
            out.append(
                {
                    "region": s.region_ids(i),
                    "castles": s.castles_in(i),
                    "rival": rival,
                    "knights": best.words(s.ring[s.regions[i][0]]),
                    "strength": best.strength,
                    "steps_from_charlemagne": steps,
                    "merged": merged,
                    "ends_game": ends,
                    "message": f"{rival} could take {'+'.join(s.region_ids(i))} from {owner} "
                    f"({words}; Charlemagne {steps} step{'s' if steps > 1 else ''} away)"
                    + (f", merging into {'+'.join(merged)}" if merged else ""),
                }
            )
    return out


def format_analysis(a: dict[str, Any]) -> str:
    """The analysis as readable text tables (``companion analyze --format text``)."""
    players: list[str] = a["players"]
    lines = ["Carolus Magnus — " + ", ".join(players)]
    if a.get("teams"):
        lines[0] += (
            "  (teams: " + "; ".join(f"{u}: {' + '.join(ps)}" for u, ps in a["teams"].items()) + ")"
        )
    lines.append("")
    lines.append("colour  holder  " + "  ".join(f"{p:>6}" for p in players))
    for colour, row in a["influence"].items():
        holder = row["holder"] or "-"
        counts = "  ".join(f"{row['courts'][p]:>6}" for p in players)
        lines.append(f"{colour:<7} {holder:<7} {counts}")
    lines.append("")
    units = list(a["regions"][0]["strength"]) if a["regions"] else []
    head = "region              castles        " + "  ".join(f"{u:>5}" for u in units)
    lines.append(head + "  majority  if stops")
    for r in a["regions"]:
        name = "+".join(r["territories"]) + (" *" if r.get("charlemagne") else "")
        castles = ", ".join(f"{u} {n}" for u, n in r["castles"].items()) or "-"
        strength = "  ".join(f"{r['strength'][u]:>5}" for u in units)
        lines.append(
            f"{name:<19} {castles:<14} {strength}  {r['majority'] or '-':<8}  "
            f"{r['if_charlemagne_stops']}"
        )
    lines.append(f"regions left: {a['regions_left']}   (* = Charlemagne)")
    if a.get("castles_left"):
        left = ", ".join(f"{u} {n}" for u, n in a["castles_left"].items())
        lines.append(f"castles left: {left}")
    if a.get("to_move"):
        tm = a["to_move"]
        lines.append("")
        lines.append(f"{tm['player']} to move, 1..{tm['steps']} steps:")
        for c in a.get("choices", []):
            text = f"  {c['steps']}: {'+'.join(c['region'])} -> {c['outcome']}"
            if c["by"]:
                text += f" by {c['by']}"
            if c["merged"]:
                text += f", merges into {'+'.join(c['merged'])}"
            if c["ends_game"]:
                text += f"; ends the game: {c['ends_game']}"
            wk = c.get("with_knights")
            if wk:
                text += f"\n     with knights {', '.join(wk['knights'])}: {wk['outcome']}"
                if wk["merged"]:
                    text += f", merges into {'+'.join(wk['merged'])}"
                if wk["ends_game"]:
                    text += f"; ends the game: {wk['ends_game']}"
            lines.append(text)
    threats = a.get("threats", {})
    if threats.get("colours") or threats.get("regions"):
        lines.append("")
        lines.append("threats:")
        for t in threats.get("colours", []):
            lines.append(f"  {t['message']}")
        for t in threats.get("regions", []):
            lines.append(f"  {t['message']}")
    return "\n".join(lines)
