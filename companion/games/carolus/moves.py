"""Move values and their text notation (``str(move)`` and ``Move.parse(text)`` round-trip).

Every line of a game record is one move: ``<player> <verb> <arguments>``.

==========================  ================================================================
``white roll red blue crown``  dice rolled by ``white`` (setup reserve or refill); faces are
                               colours or ``crown``
``white crown yellow``         the colour ``white`` picks for one crown rolled
``white disc 3``               ``white`` plays his number disc 3
``white knight red court``     one knight from the reserve to the court
``white knight red t04``       one knight from the reserve onto territory t04 (its region)
``white charlemagne 2``        Charlemagne moves 2 steps clockwise (a merged region is one step)
==========================  ================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from companion.games.errors import NotationError

COLOURS: tuple[str, ...] = ("red", "blue", "yellow", "green", "pink")
CROWN = "crown"
COURT = "court"


class Move:
    """Base of all move values; ``Move.parse`` reads any of them."""

    verb: ClassVar[str] = ""
    player: str

    @staticmethod
    def parse(text: str) -> Move:
        """The move written as ``text``; NotationError (a ValueError) saying what is malformed."""
        tokens = text.split()
        if len(tokens) < 3:
            raise NotationError(
                f"{text!r} is not a move: write '<player> <verb> <arguments>', "
                "e.g. 'white knight red court'"
            )
        player, verb, args = tokens[0], tokens[1], tokens[2:]
        kind = _VERBS.get(verb)
        if kind is None:
            raise NotationError(
                f"{text!r}: unknown verb {verb!r} (use one of: {', '.join(_VERBS)})"
            )
        return kind.from_args(player, args, text)

    @classmethod
    def from_args(cls, player: str, args: list[str], text: str) -> Move:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self}>"


def _colour(token: str, text: str, *, crown: bool = False) -> str:
    allowed = (*COLOURS, CROWN) if crown else COLOURS
    if token not in allowed:
        raise NotationError(f"{text!r}: {token!r} is not one of {', '.join(allowed)}")
    return token


def _number(token: str, text: str) -> int:
    if not token.isdigit():
        raise NotationError(f"{text!r}: {token!r} is not a number")
    return int(token)


def _arity(args: list[str], n: int, text: str, shape: str) -> None:
    if len(args) != n:
        raise NotationError(f"{text!r}: expected '{shape}'")


@dataclass(frozen=True, repr=False)
class Roll(Move):
    """Dice rolled: an input from the table (camera or a person) or from a seeded RNG."""

    verb: ClassVar[str] = "roll"
    player: str
    faces: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.player} roll {' '.join(self.faces)}"

    @classmethod
    def from_args(cls, player: str, args: list[str], text: str) -> Move:
        return cls(player, tuple(_colour(a, text, crown=True) for a in args))


@dataclass(frozen=True, repr=False)
class Crown(Move):
    """The colour a player takes for one crown he rolled."""

    verb: ClassVar[str] = "crown"
    player: str
    colour: str

    def __str__(self) -> str:
        return f"{self.player} crown {self.colour}"

    @classmethod
    def from_args(cls, player: str, args: list[str], text: str) -> Move:
        _arity(args, 1, text, "<player> crown <colour>")
        return cls(player, _colour(args[0], text))


@dataclass(frozen=True, repr=False)
class Disc(Move):
    """A number disc played face up in the preparation phase."""

    verb: ClassVar[str] = "disc"
    player: str
    number: int

    def __str__(self) -> str:
        return f"{self.player} disc {self.number}"

    @classmethod
    def from_args(cls, player: str, args: list[str], text: str) -> Move:
        _arity(args, 1, text, "<player> disc <1-5>")
        return cls(player, _number(args[0], text))


@dataclass(frozen=True, repr=False)
class Knight(Move):
    """One knight from the reserve to the court (``court``) or onto a territory id."""

    verb: ClassVar[str] = "knight"
    player: str
    colour: str
    to: str

    def __str__(self) -> str:
        return f"{self.player} knight {self.colour} {self.to}"

    @classmethod
    def from_args(cls, player: str, args: list[str], text: str) -> Move:
        _arity(args, 2, text, "<player> knight <colour> <court|territory>")
        return cls(player, _colour(args[0], text), args[1])


@dataclass(frozen=True, repr=False)
class Charlemagne(Move):
    """Charlemagne moved ``steps`` regions clockwise."""

    verb: ClassVar[str] = "charlemagne"
    player: str
    steps: int

    def __str__(self) -> str:
        return f"{self.player} charlemagne {self.steps}"

    @classmethod
    def from_args(cls, player: str, args: list[str], text: str) -> Move:
        _arity(args, 1, text, "<player> charlemagne <steps>")
        return cls(player, _number(args[0], text))


_VERBS: dict[str, type[Move]] = {k.verb: k for k in (Roll, Crown, Disc, Knight, Charlemagne)}
