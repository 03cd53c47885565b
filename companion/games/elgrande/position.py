"""An El Grande position: what stands on the table (spec/positions.md), read and written as JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games.elgrande.board import (
    AREAS,
    CABALLEROS_PER_PLAYER,
    CASTILLO,
    COLOURS,
    MOBILE_SCOREBOARDS,
    REGIONS,
    SETUP_COURT,
    Values,
)
from companion.games.elgrande.options import Options
from companion.games.errors import PositionError
from companion.games.jsonio import duplicates


@dataclass(frozen=True)
class Position:
    """What stands on the table at one moment.

    ``areas`` maps every area id (the 9 regions and ``castillo``) to the caballeros per colour
    there (colours with 0 omitted). ``grandes`` maps colour -> region. ``scoreboards`` maps an
    area -> the mobile scoreboard's values lying there.
    """

    players: tuple[str, ...]
    king: str
    grandes: Mapping[str, str]
    areas: Mapping[str, Mapping[str, int]]
    scoreboards: Mapping[str, Values] = field(default_factory=dict)
    courts: Mapping[str, int] = field(default_factory=dict)
    provinces: Mapping[str, int] = field(default_factory=dict)
    scores: Mapping[str, int] = field(default_factory=dict)
    round: int = 1
    options: Options = field(default_factory=Options)


_KEYS = (
    "game",
    "players",
    "round",
    "king",
    "grandes",
    "regions",
    "castillo",
    "scoreboards",
    "courts",
    "provinces",
    "scores",
    "options",
)
_REQUIRED = ("game", "players", "king", "grandes")


def position_from_json(data: object) -> Position:
    """Read and check a position (spec/positions.md). Raises PositionError naming the path."""
    obj = _object(data, "")
    for key in obj:
        if key not in _KEYS:
            raise PositionError(key, f"unknown key (known: {', '.join(_KEYS)})")
    _no_duplicates(obj, "")
    for key in _REQUIRED:
        if key not in obj:
            raise PositionError(key, "is missing")
    if obj["game"] != "el-grande":
        raise PositionError("game", f"{obj['game']!r} is not 'el-grande'")

    players = _players(obj["players"])
    round_ = _count(obj.get("round", 1), "round")
    if not 1 <= round_ <= 9:
        raise PositionError("round", f"{round_} is not a round from 1 to 9")
    king = _region(obj["king"], "king")
    grandes = _grandes(obj["grandes"], players)

    areas: dict[str, dict[str, int]] = {area: {} for area in AREAS}
    regions = _object(obj.get("regions", {}), "regions")
    _no_duplicates(regions, "regions")
    for region, counts in regions.items():
        if region == CASTILLO:
            raise PositionError("regions.castillo", "the Castillo is not a region: use 'castillo'")
        _region(region, f"regions.{region}")
        areas[region] = _colour_counts(counts, f"regions.{region}", players)
    areas[CASTILLO] = _colour_counts(obj.get("castillo", {}), "castillo", players)

    scoreboards = _scoreboards(obj.get("scoreboards", {}))
    courts = _colour_counts(obj.get("courts", {}), "courts", players)
    provinces = _colour_counts(obj.get("provinces", {}), "provinces", players)
    scores = _colour_counts(obj.get("scores", {}), "scores", players)
    options = Options.from_json(obj.get("options", {}))

    court_default = "courts" not in obj
    province_default = "provinces" not in obj
    full_courts: dict[str, int] = {}
    full_provinces: dict[str, int] = {}
    for colour in players:
        on_board = sum(areas[area].get(colour, 0) for area in AREAS)
        court = min(SETUP_COURT, max(0, CABALLEROS_PER_PLAYER - on_board))
        full_courts[colour] = court if court_default else courts.get(colour, 0)
        rest = CABALLEROS_PER_PLAYER - on_board - full_courts[colour]
        full_provinces[colour] = max(0, rest) if province_default else provinces.get(colour, 0)
        total = on_board + full_courts[colour] + full_provinces[colour]
        if total > CABALLEROS_PER_PLAYER:
            raise PositionError(
                _where_too_many(colour, courts, provinces),
                f"{total} caballeros of {colour} in play ({on_board} in regions and Castillo, "
                f"{full_courts[colour]} in court, {full_provinces[colour]} in province); "
                f"a player has only {CABALLEROS_PER_PLAYER}",
            )
    return Position(
        players=players,
        king=king,
        grandes=grandes,
        areas={area: counts for area, counts in areas.items()},
        scoreboards=scoreboards,
        courts=full_courts,
        provinces=full_provinces,
        scores={colour: scores.get(colour, 0) for colour in players},
        round=round_,
        options=options,
    )


def position_to_json(position: Position) -> dict[str, Any]:
    """The position as spec JSON; :func:`position_from_json` reads it back unchanged."""
    return {
        "game": "el-grande",
        "players": list(position.players),
        "round": position.round,
        "king": position.king,
        "grandes": {c: position.grandes[c] for c in position.players},
        "regions": {
            r: _sorted_counts(position.areas[r], position.players)
            for r in REGIONS
            if position.areas.get(r)
        },
        "castillo": _sorted_counts(position.areas.get(CASTILLO, {}), position.players),
        "scoreboards": {a: list(v) for a, v in position.scoreboards.items()},
        "courts": dict(position.courts),
        "provinces": dict(position.provinces),
        "scores": dict(position.scores),
        "options": position.options.changed(),
    }


def _sorted_counts(counts: Mapping[str, int], players: tuple[str, ...]) -> dict[str, int]:
    return {c: counts[c] for c in players if counts.get(c, 0) > 0}


def _where_too_many(colour: str, courts: Mapping[str, int], provinces: Mapping[str, int]) -> str:
    if colour in provinces:
        return f"provinces.{colour}"
    if colour in courts:
        return f"courts.{colour}"
    return colour


def _object(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        what = path or "the position"
        raise PositionError(path, f"{what} must be a JSON object, not {_kind(value)}")
    return value


def _kind(value: object) -> str:
    return {list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def _no_duplicates(obj: object, path: str) -> None:
    for key in duplicates(obj):
        where = f"{path}.{key}" if path else key
        raise PositionError(where, "appears twice")


def _count(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PositionError(path, f"{json.dumps(value)} is not a count")
    return value


def _players(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise PositionError("players", "must be a list of player colours in seating order")
    if not 2 <= len(value) <= 5:
        raise PositionError("players", f"{len(value)} players: El Grande is for 2 to 5")
    seen: list[str] = []
    for i, colour in enumerate(value):
        if colour not in COLOURS:
            raise PositionError(
                f"players[{i}]", f"{colour!r} is not a colour (use {', '.join(COLOURS)})"
            )
        if colour in seen:
            raise PositionError(f"players[{i}]", f"{colour} is listed twice")
        seen.append(colour)
    return tuple(seen)


def _region(value: object, path: str) -> str:
    if value == CASTILLO:
        raise PositionError(path, "the Castillo is not a region")
    if not isinstance(value, str) or value not in REGIONS:
        raise PositionError(path, f"{value!r} is not a region (use {', '.join(REGIONS)})")
    return value


def _check_player(colour: str, path: str, players: tuple[str, ...]) -> None:
    if colour not in players:
        if colour in COLOURS:
            raise PositionError(path, f"{colour} is not among players ({', '.join(players)})")
        raise PositionError(path, f"{colour!r} is not a colour (use {', '.join(COLOURS)})")


def _grandes(value: object, players: tuple[str, ...]) -> dict[str, str]:
    obj = _object(value, "grandes")
    _no_duplicates(obj, "grandes")
    grandes: dict[str, str] = {}
    for colour, where in obj.items():
        path = f"grandes.{colour}"
        _check_player(colour, path, players)
        if where == CASTILLO:
            raise PositionError(path, "a grande never goes into the Castillo")
        grandes[colour] = _region(where, path)
    for colour in players:
        if colour not in grandes:
            raise PositionError(f"grandes.{colour}", "is missing: every player has a grande")
    return grandes


def _colour_counts(value: object, path: str, players: tuple[str, ...]) -> dict[str, int]:
    obj = _object(value, path)
    _no_duplicates(obj, path)
    counts: dict[str, int] = {}
    for colour, n in obj.items():
        _check_player(colour, f"{path}.{colour}", players)
        count = _count(n, f"{path}.{colour}")
        if count:
            counts[colour] = count
    return counts


def _scoreboards(value: object) -> dict[str, Values]:
    obj = _object(value, "scoreboards")
    for area in duplicates(obj):
        raise PositionError(
            f"scoreboards.{area}", "two scoreboards on one area: a scoreboard never goes on another"
        )
    boards: dict[str, Values] = {}
    unused = list(MOBILE_SCOREBOARDS)
    for area, raw in obj.items():
        path = f"scoreboards.{area}"
        if area not in AREAS:
            raise PositionError(path, f"{area!r} is not a region or the castillo")
        if (
            not isinstance(raw, list)
            or len(raw) != 3
            or any(isinstance(v, bool) or not isinstance(v, int) for v in raw)
        ):
            raise PositionError(path, f"{json.dumps(raw)} is not a scoreboard's three values")
        values: Values = (raw[0], raw[1], raw[2])
        if values not in unused:
            boards_text = " and ".join("/".join(map(str, b)) for b in MOBILE_SCOREBOARDS)
            raise PositionError(
                path,
                f"{json.dumps(raw)} is not a mobile scoreboard left over "
                f"(the game has one each of {boards_text})",
            )
        unused.remove(values)
        boards[area] = values
    return boards
