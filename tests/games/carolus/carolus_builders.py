"""Compact positions for the Carolus Magnus tests: name only what matters, the rest is empty."""

from __future__ import annotations

from typing import Any

TERRITORIES = [f"t{i:02d}" for i in range(1, 16)]
COMPACT_KEYS = {
    "players",
    "teams",
    "castles",
    "knights",
    "regions",
    "courts",
    "influence",
    "reserves",
    "discs",
    "charlemagne",
    "castles_left",
    "options",
}


def position(**kw: Any) -> dict[str, Any]:
    """A full spec position from compact keys (``castles``: territory -> colour, ``knights``:
    territory -> colour counts; everything else as in spec/positions.md)."""
    unknown = set(kw) - COMPACT_KEYS
    assert not unknown, unknown
    players = kw.get("players", ["white", "black"])
    castles = kw.get("castles", {})
    knights = kw.get("knights", {})
    out: dict[str, Any] = {
        "game": "carolus-magnus",
        "players": players,
        "teams": kw.get("teams"),
        "ring": [
            {"id": t, "knights": knights.get(t, {}), "castle": castles.get(t)} for t in TERRITORIES
        ],
        "regions": kw.get("regions", []),
        "charlemagne": kw.get("charlemagne", "t01"),
        "courts": kw.get("courts", {}),
        "influence": kw.get("influence", {}),
        "reserves": kw.get("reserves", {}),
        "discs": kw.get("discs", {}),
        "options": kw.get("options", {}),
    }
    if "castles_left" in kw:
        out["castles_left"] = kw["castles_left"]
    return out
