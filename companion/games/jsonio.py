"""Reading position JSON strictly: duplicate keys are remembered, not silently dropped.

``json.loads`` keeps the last of two equal keys; in a position file that would hide an error
(two mobile scoreboards on one area, a colour counted twice), so objects remember their
duplicated keys and the validators report them by path.
"""

from __future__ import annotations

from typing import Any


class JsonObject(dict[str, Any]):
    """A JSON object that knows which of its keys appeared more than once."""

    duplicates: tuple[str, ...] = ()


def _pairs(pairs: list[tuple[str, Any]]) -> JsonObject:
    obj = JsonObject()
    seen: list[str] = []
    for key, value in pairs:
        if key in obj:
            seen.append(key)
        obj[key] = value
    obj.duplicates = tuple(seen)
    return obj


def loads(text: str) -> Any:
    """Parse JSON; objects come back as :class:`JsonObject` (raises json.JSONDecodeError)."""
    import json

    return json.loads(text, object_pairs_hook=_pairs)


def duplicates(obj: object) -> tuple[str, ...]:
    """The keys that appeared more than once in ``obj`` (empty for a plain dict)."""
    return getattr(obj, "duplicates", ())
