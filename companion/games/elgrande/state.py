"""The whole El Grande game state as plain mutable data, with a fast copy and an exact JSON form.

The engine (``game.py``) mutates a State in place and keeps copies for undo; everything here is
plain dicts and lists so that copying is cheap and the JSON form is the state itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.games.elgrande.board import AREAS, CASTILLO, REGIONS, Values
from companion.games.elgrande.options import Options
from companion.games.errors import RecordError

PHASES = (
    "reveal",  # the table turns up one card of each stack 1-4
    "start",  # the table picks who plays the first power card (first round only)
    "power",  # players play power cards, one at a time
    "intake",  # the player on turn moves caballeros from province to court
    "recall",  # ... and, his province short, from the board
    "card",  # he takes an action card
    "announce",  # while another player holds a veto: he says whether he will use its action
    "action",  # he places caballeros and/or starts the special action, or ends the turn
    "special",  # he carries out the special action (sub-moves)
    "veto",  # veto holders decide, one at a time, whether to cancel the announced action
    "returns",  # "the king returns": other players return caballeros, one player at a time
    "secret",  # several players choose a region secretly at once
    "over",
)


@dataclass
class State:
    players: tuple[str, ...]
    options: Options
    seed: int
    rounds: tuple[int, ...]
    round: int
    king: str
    grandes: dict[str, str]
    areas: dict[str, dict[str, int]]
    courts: dict[str, int]
    provinces: dict[str, int]
    scores: dict[str, int]
    hands: dict[str, list[int]]
    spent: dict[str, list[int]]
    scoreboards: dict[str, Values] = field(default_factory=dict)
    stacks: dict[int, dict[str, int]] = field(default_factory=dict)
    face_up: list[str] = field(default_factory=list)
    taken: dict[str, str] = field(default_factory=dict)
    played: dict[str, int] = field(default_factory=dict)
    starter: str | None = None
    order: list[str] = field(default_factory=list)
    turn: int = 0
    phase: str = "reveal"
    step: dict[str, Any] = field(default_factory=dict)
    special: dict[str, Any] = field(default_factory=dict)
    waiting: list[str] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)
    vetoes: dict[str, list[int]] = field(default_factory=dict)
    log: list[dict[str, Any]] = field(default_factory=list)

    @property
    def current(self) -> str:
        """The player whose turn it is (phases intake to special)."""
        return self.order[self.turn]

    def copy(self) -> State:
        """A deep copy, written out by hand because undo copies the state at every move."""
        return State(
            self.players,
            self.options,
            self.seed,
            self.rounds,
            self.round,
            self.king,
            dict(self.grandes),
            {a: dict(c) for a, c in self.areas.items()},
            dict(self.courts),
            dict(self.provinces),
            dict(self.scores),
            {p: list(h) for p, h in self.hands.items()},
            {p: list(h) for p, h in self.spent.items()},
            dict(self.scoreboards),
            {s: dict(d) for s, d in self.stacks.items()},
            list(self.face_up),
            dict(self.taken),
            dict(self.played),
            self.starter,
            list(self.order),
            self.turn,
            self.phase,
            _copy_json(self.step),
            _copy_json(self.special),
            list(self.waiting),
            dict(self.secrets),
            {p: list(v) for p, v in self.vetoes.items()},
            list(self.log),  # entries are never changed once appended
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "game": "el-grande",
            "players": list(self.players),
            "options": self.options.changed(),
            "seed": self.seed,
            "rounds": list(self.rounds),
            "round": self.round,
            "king": self.king,
            "grandes": dict(self.grandes),
            "areas": {a: dict(c) for a, c in self.areas.items()},
            "courts": dict(self.courts),
            "provinces": dict(self.provinces),
            "scores": dict(self.scores),
            "hands": {p: list(h) for p, h in self.hands.items()},
            "spent": {p: list(h) for p, h in self.spent.items()},
            "scoreboards": {a: list(v) for a, v in self.scoreboards.items()},
            "stacks": {str(s): dict(d) for s, d in self.stacks.items()},
            "face_up": list(self.face_up),
            "taken": dict(self.taken),
            "played": dict(self.played),
            "starter": self.starter,
            "order": list(self.order),
            "turn": self.turn,
            "phase": self.phase,
            "step": _copy_json(self.step),
            "special": _copy_json(self.special),
            "waiting": list(self.waiting),
            "secrets": dict(self.secrets),
            "vetoes": {p: list(v) for p, v in self.vetoes.items()},
            "log": _copy_json(self.log),
        }

    @classmethod
    def from_json(cls, data: object) -> State:
        """Read the JSON of :meth:`to_json`; RecordError names a missing or malformed key."""
        if not isinstance(data, dict):
            raise RecordError("game state: must be a JSON object")
        keys = set(cls.__dataclass_fields__) | {"game"}
        for key in data:
            if key not in keys:
                raise RecordError(f"game state: unknown key {key!r}")
        if data.get("game") != "el-grande":
            raise RecordError("game state: 'game' must be 'el-grande'")
        try:
            players = tuple(data["players"])
            areas = {a: dict(data["areas"][a]) for a in AREAS}
            state = cls(
                players=players,
                options=Options.from_json(data.get("options", {})),
                seed=int(data["seed"]),
                rounds=tuple(int(r) for r in data["rounds"]),
                round=int(data["round"]),
                king=str(data["king"]),
                grandes=dict(data["grandes"]),
                areas=areas,
                courts=dict(data["courts"]),
                provinces=dict(data["provinces"]),
                scores=dict(data["scores"]),
                hands={p: list(h) for p, h in data["hands"].items()},
                spent={p: list(h) for p, h in data["spent"].items()},
                scoreboards={a: _values(v) for a, v in data["scoreboards"].items()},
                stacks={int(s): dict(d) for s, d in data["stacks"].items()},
                face_up=list(data["face_up"]),
                taken=dict(data["taken"]),
                played=dict(data["played"]),
                starter=data["starter"],
                order=list(data["order"]),
                turn=int(data["turn"]),
                phase=str(data["phase"]),
                step=_copy_json(data["step"]),
                special=_copy_json(data["special"]),
                waiting=list(data["waiting"]),
                secrets=dict(data["secrets"]),
                vetoes={p: list(v) for p, v in data["vetoes"].items()},
                log=_copy_json(data["log"]),
            )
        except KeyError as exc:
            raise RecordError(f"game state: missing key {exc.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise RecordError(f"game state: malformed ({exc})") from None
        if state.phase not in PHASES:
            raise RecordError(f"game state: unknown phase {state.phase!r}")
        if state.king not in REGIONS:
            raise RecordError(f"game state: king {state.king!r} is not a region")
        if set(state.grandes) != set(players) or CASTILLO in state.grandes.values():
            raise RecordError("game state: every player needs a grande in a region")
        return state


def _values(raw: object) -> Values:
    if not isinstance(raw, list | tuple) or len(raw) != 3:
        raise ValueError(f"{raw!r} is not three scoreboard values")
    a, b, c = (int(v) for v in raw)
    return (a, b, c)


def _copy_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_json(v) for v in value]
    return value
