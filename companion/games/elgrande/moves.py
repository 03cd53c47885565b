"""El Grande moves: typed frozen values with a text notation (``str(move)`` <-> ``parse_move``).

Every move names who makes it: a player colour, or ``table`` for chance events and table
decisions (turning up an action card, picking who starts round 1). The notation is
``<actor> <verb> <arguments...>``, e.g. ``red place castillo 2`` or ``table reveal move4-own``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

from companion.games.errors import NotationError

TABLE = "table"
"""The actor of chance events and table decisions."""


@dataclass(frozen=True)
class Move:
    """Base of every move; ``player`` is the actor (a colour or ``table``)."""

    player: str
    VERB: ClassVar[str] = ""
    HELP: ClassVar[str] = ""
    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {}
    """Arguments that take one of a few words (checked by ``parse_move``)."""

    def args(self) -> tuple[str, ...]:
        out: list[str] = []
        for f in fields(self)[1:]:
            value = getattr(self, f.name)
            if isinstance(value, tuple):
                out.append("-".join(str(v) for v in value))
            else:
                out.append(str(value))
        return tuple(out)

    def __str__(self) -> str:
        return " ".join((self.player, self.VERB, *self.args()))


@dataclass(frozen=True)
class Reveal(Move):
    card: str
    VERB = "reveal"
    HELP = "table reveal <card>: an action card turned up from its stack"


@dataclass(frozen=True)
class StartPlayer(Move):
    starter: str
    VERB = "start"
    HELP = "table start <colour>: who plays the first power card of the first round"


@dataclass(frozen=True)
class PlayPower(Move):
    value: int
    VERB = "power"
    HELP = "<colour> power <1-13>"


@dataclass(frozen=True)
class Intake(Move):
    count: int
    VERB = "court"
    HELP = "<colour> court <n>: caballeros from province to court"


@dataclass(frozen=True)
class Recall(Move):
    region: str
    VERB = "recall"
    HELP = "<colour> recall <region>: one own caballero from the board to the court"


@dataclass(frozen=True)
class Done(Move):
    VERB = "done"
    HELP = "<colour> done: stop the current step"


@dataclass(frozen=True)
class TakeCard(Move):
    card: str
    VERB = "card"
    HELP = "<colour> card <card>"


@dataclass(frozen=True)
class Place(Move):
    area: str
    count: int
    VERB = "place"
    HELP = "<colour> place <area> <n>: caballeros from the court"


@dataclass(frozen=True)
class Announce(Move):
    choice: str
    VERB = "announce"
    HELP = (
        "<colour> announce act|skip: whether the card's special action will be used, said right"
        " after taking the card while another player holds a veto"
    )
    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"choice": ("act", "skip")}


@dataclass(frozen=True)
class Act(Move):
    VERB = "act"
    HELP = "<colour> act: start the card's special action"


@dataclass(frozen=True)
class EndTurn(Move):
    VERB = "end"
    HELP = "<colour> end: end the turn (what is left is forfeited)"


@dataclass(frozen=True)
class Veto(Move):
    VERB = "veto"
    HELP = "<colour> veto: cancel the special action just announced (or being started)"


@dataclass(frozen=True)
class Allow(Move):
    VERB = "allow"
    HELP = "<colour> allow: let the special action happen"


@dataclass(frozen=True)
class MoveCaballero(Move):
    colour: str
    source: str
    target: str
    VERB = "move"
    HELP = "<colour> move <colour> <from> <to>"


@dataclass(frozen=True)
class Put(Move):
    area: str
    VERB = "put"
    HELP = "<colour> put <region>: one caballero from the court into any region"


@dataclass(frozen=True)
class Choose(Move):
    area: str
    VERB = "choose"
    HELP = "<colour> choose <area>"


@dataclass(frozen=True)
class Secret(Move):
    region: str
    VERB = "secret"
    HELP = "<colour> secret <region>: a secret disk choice"


@dataclass(frozen=True)
class ReturnCaballero(Move):
    source: str
    VERB = "return"
    HELP = "<colour> return <region|court>: one own caballero back to the province"


@dataclass(frozen=True)
class RemoveCaballero(Move):
    colour: str
    region: str
    VERB = "remove"
    HELP = "<colour> remove <colour> <region>"


@dataclass(frozen=True)
class MoveScoreboard(Move):
    values: tuple[int, int, int]
    area: str
    VERB = "scoreboard"
    HELP = "<colour> scoreboard <a-b-c> <area>"


@dataclass(frozen=True)
class MoveKing(Move):
    region: str
    VERB = "king"
    HELP = "<colour> king <region>"


@dataclass(frozen=True)
class MoveGrande(Move):
    region: str
    VERB = "grande"
    HELP = "<colour> grande <region>"


@dataclass(frozen=True)
class RecoverPower(Move):
    value: int
    VERB = "recover"
    HELP = "<colour> recover <1-13>: a played power card back into the hand"


MOVE_TYPES: tuple[type[Move], ...] = (
    Reveal,
    StartPlayer,
    PlayPower,
    Intake,
    Recall,
    Done,
    TakeCard,
    Place,
    Announce,
    Act,
    EndTurn,
    Veto,
    Allow,
    MoveCaballero,
    Put,
    Choose,
    Secret,
    ReturnCaballero,
    RemoveCaballero,
    MoveScoreboard,
    MoveKing,
    MoveGrande,
    RecoverPower,
)
_BY_VERB: dict[str, type[Move]] = {t.VERB: t for t in MOVE_TYPES}


def _convert(kind: object, text: str, name: str, line: str) -> object:
    if kind in (int, "int"):
        if not text.isdigit():
            raise NotationError(f"{line!r}: {name} must be a whole number, not {text!r}")
        return int(text)
    if kind in ("tuple[int, int, int]",):
        parts = text.split("-")
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise NotationError(f"{line!r}: {name} must be three numbers like 8-4-0")
        return tuple(int(p) for p in parts)
    return text


def parse_move(text: str) -> Move:
    """Read a move from its notation; NotationError says what was expected."""
    words = text.split()
    if len(words) < 2:
        raise NotationError(f"{text!r}: a move is '<actor> <verb> [arguments]'")
    actor, verb, rest = words[0], words[1], words[2:]
    cls = _BY_VERB.get(verb)
    if cls is None:
        verbs = ", ".join(_BY_VERB)
        raise NotationError(f"{text!r}: unknown verb {verb!r} (known: {verbs})")
    params = fields(cls)[1:]
    if len(rest) != len(params):
        raise NotationError(f"{text!r}: expected {cls.HELP}")
    values = [_convert(f.type, word, f.name, text) for f, word in zip(params, rest, strict=True)]
    for f, value in zip(params, values, strict=True):
        allowed = cls.CHOICES.get(f.name)
        if allowed is not None and value not in allowed:
            raise NotationError(
                f"{text!r}: {f.name} must be {' or '.join(allowed)}, not {value!r}"
                f" (expected: {cls.HELP})"
            )
    return cls(actor, *values)
