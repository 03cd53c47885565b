"""What a scoring now would give, and why (``companion analyze``, spec/positions.md)."""

from __future__ import annotations

from typing import Any

from companion.games.elgrande.board import AREAS, CASTILLO, NAMES, REGIONS
from companion.games.elgrande.position import Position
from companion.games.elgrande.scoring import AreaScore, add_totals, score_area, values_in_force


def score_position(position: Position) -> dict[str, AreaScore]:
    """Every area (the 9 regions, then the Castillo) scored as the position stands."""
    n = len(position.players)
    return {
        area: score_area(
            area,
            position.areas.get(area, {}),
            values_in_force(area, position.scoreboards, n),
            king_region=position.king,
            grandes=position.grandes,
        )
        for area in (*REGIONS, CASTILLO)
    }


def analyze(position: Position) -> dict[str, Any]:
    """The analysis JSON: each area's places, points and bonuses, and the sum as ``scoring_now``.

    The Castillo's caballeros are scored where they are: the secret disks are not known yet.
    """
    scores = score_position(position)
    return {
        "game": "el-grande",
        "areas": {area: score.as_json() for area, score in scores.items()},
        "scoring_now": add_totals(scores.values(), position.players),
    }


def format_text(analysis: dict[str, Any]) -> str:
    """A readable table: one line per area, one column per player, then the total."""
    players = list(analysis["scoring_now"])
    width = max(len(NAMES[a]) for a in AREAS)
    header = f"{'area':<{width}}  {'values':<8}" + "".join(f"{p:>10}" for p in players)
    lines = [header + "  bonus", "-" * (len(header) + 14)]
    for area, info in analysis["areas"].items():
        values = "/".join(str(v) for v in info["values"])
        cells = []
        for player in players:
            count = info["counts"].get(player, 0)
            total = info["total"].get(player, 0)
            cells.append(f"{count:>3} → {total:<4}" if count else f"{'·':>10}")
        bonuses = [
            f"{kind} {info[key]}"
            for key, kind in (("king_bonus", "king +2:"), ("grande_bonus", "grande +2:"))
            if info[key]
        ]
        lines.append(
            f"{NAMES[area]:<{width}}  {values:<8}"
            + "".join(f"{c:>10}" for c in cells)
            + ("  " + ", ".join(bonuses) if bonuses else "")
        )
    lines.append("-" * (len(header) + 14))
    total_line = f"{'scoring now':<{width}}  {'':<8}"
    total_line += "".join(f"{analysis['scoring_now'][p]:>10}" for p in players)
    lines.append(total_line)
    lines.append("(cells: caballeros → points with bonuses; the Castillo scored as it stands)")
    return "\n".join(lines)
