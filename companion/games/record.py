"""What both games' records share (docs/records.md): numbered move lines and the JSON header."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from companion.games.errors import IllegalMove, NotationError, RecordError


def record_lines(text: str) -> list[tuple[int, str]]:
    """The record's lines that matter, with their 1-based line numbers (blanks and # skipped)."""
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.strip().startswith("#")
    ]


def read_header(line: str, number: int, game_id: str, keys: Sequence[str]) -> dict[str, Any]:
    """The header object of a record of ``game_id``; RecordError naming the line if bad."""
    try:
        header = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(f"line {number}: the header is not valid JSON ({exc.msg})") from None
    if not isinstance(header, dict):
        raise RecordError(f"line {number}: the header must be a JSON object")
    for key in header:
        if key not in keys:
            raise RecordError(
                f"line {number}: unknown header key {key!r} (known: {', '.join(keys)})"
            )
    if header.get("game") != game_id:
        raise RecordError(f"line {number}: header game must be {game_id!r}")
    return header


def record_game(text: str) -> object:
    """The ``game`` named by a record's header, or None when there is no readable header."""
    lines = record_lines(text)
    if not lines:
        return None
    try:
        header = json.loads(lines[0][1])
    except json.JSONDecodeError:
        return None
    return header.get("game") if isinstance(header, dict) else None


class _Game(Protocol):
    def push(self, move: Any, /) -> None: ...


def replay_moves(
    game: _Game, lines: Iterable[tuple[int, str]], parse: Callable[[str], Any]
) -> str | None:
    """Push each numbered move line; the first that cannot be read or is not legal stops the
    replay and comes back as ``line N: <move>: <reason>`` (None when every move was played).

    A move line that cannot be read is treated like an illegal one: the record itself is
    readable, and the position up to that line is still worth showing.
    """
    for number, line in lines:
        try:
            game.push(parse(line))
        except (NotationError, IllegalMove) as exc:
            return f"line {number}: {exc}"
    return None
