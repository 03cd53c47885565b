"""The game state and the pure rule functions that read it (strength, majority, regions).

The state is a plain mutable record owned by :class:`~companion.games.carolus.game.Game`, which
copies it before every move so that ``pop()`` can undo exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from companion.games.carolus.moves import COLOURS
from companion.games.carolus.options import Options
from companion.games.majority import sole_leader

RING_SIZE: Final = 15
TERRITORIES: Final[tuple[str, ...]] = tuple(f"t{i:02d}" for i in range(1, RING_SIZE + 1))
CASTLE_COLOURS: Final[tuple[str, ...]] = ("white", "black", "grey")
CASTLES: Final[dict[int, int]] = {2: 10, 3: 8, 4: 10}  # per player, per team with 4
KNIGHTS_PER_TURN: Final[dict[int, int]] = {2: 3, 3: 4, 4: 3}
REFILL_DICE: Final[dict[int, int]] = {2: 3, 3: 4, 4: 3}
SETUP_ROLLS: Final[dict[int, tuple[int, ...]]] = {2: (3, 3, 1), 3: (3, 3, 3), 4: (3, 3, 1)}
END_REGIONS: Final = 4  # the game ends as soon as fewer regions than this are left

PHASES: Final = ("setup", "discs", "knights", "charlemagne", "refill", "over")


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winning castle colours, their players, and why."""

    winners: tuple[str, ...]
    players: tuple[str, ...]
    reason: str

    def __str__(self) -> str:
        who = " and ".join(self.players)
        return f"{who} win{'s' if len(self.players) == 1 else ''}: {self.reason}"


def empty_colours() -> dict[str, int]:
    return dict.fromkeys(COLOURS, 0)


@dataclass
class State:
    """Everything on and around the table, plus whose turn it is."""

    players: tuple[str, ...]
    members: dict[str, tuple[str, ...]]  # castle colour -> its player(s)
    options: Options
    ring: list[str]
    knights: list[dict[str, int]]  # per ring index
    castle: list[str | None]  # per ring index: castle colour or None
    regions: list[tuple[int, ...]]  # clockwise runs of ring indices, sorted by first index
    charlemagne: int  # ring index
    courts: dict[str, dict[str, int]]
    influence: dict[str, str | None]
    reserves: dict[str, dict[str, int]]
    supply: dict[str, int]
    castles_left: dict[str, int]
    hands: dict[str, tuple[int, ...]]
    discs: dict[str, int | None]
    seed: int | None = None
    round: int = 0
    phase: str = "setup"
    turn: str | None = None
    choose_order: list[str] = field(default_factory=list)
    act_order: list[str] = field(default_factory=list)
    acted: int = 0
    knights_left: int = 0
    rolls: list[tuple[str, int]] = field(default_factory=list)  # dice still to roll
    crowns: int = 0  # crowns rolled and not yet chosen
    outcome: Outcome | None = None

    def copy(self) -> State:
        return State(
            players=self.players,
            members=self.members,
            options=self.options,
            ring=self.ring,
            knights=[dict(k) for k in self.knights],
            castle=list(self.castle),
            regions=list(self.regions),
            charlemagne=self.charlemagne,
            courts={p: dict(c) for p, c in self.courts.items()},
            influence=dict(self.influence),
            reserves={p: dict(r) for p, r in self.reserves.items()},
            supply=dict(self.supply),
            castles_left=dict(self.castles_left),
            hands=dict(self.hands),
            discs=dict(self.discs),
            seed=self.seed,
            round=self.round,
            phase=self.phase,
            turn=self.turn,
            choose_order=list(self.choose_order),
            act_order=list(self.act_order),
            acted=self.acted,
            knights_left=self.knights_left,
            rolls=list(self.rolls),
            crowns=self.crowns,
            outcome=self.outcome,
        )

    # -- who is who -----------------------------------------------------------------------

    @property
    def units(self) -> tuple[str, ...]:
        """The castle colours in play: one per player, or one per team with 4 players."""
        return tuple(self.members)

    def unit_of(self, player: str) -> str:
        for unit, players in self.members.items():
            if player in players:
                return unit
        raise KeyError(player)

    @property
    def knights_per_turn(self) -> int:
        return KNIGHTS_PER_TURN[len(self.players)]

    # -- regions ----------------------------------------------------------------------------

    def region_index(self, territory: int) -> int:
        for i, run in enumerate(self.regions):
            if territory in run:
                return i
        raise KeyError(territory)

    def region_ids(self, i: int) -> list[str]:
        return [self.ring[t] for t in self.regions[i]]

    def owner(self, i: int) -> str | None:
        """The castle colour of a region's castles (one owner at most), or None."""
        for t in self.regions[i]:
            if self.castle[t] is not None:
                return self.castle[t]
        return None

    def castles_in(self, i: int) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in self.regions[i]:
            c = self.castle[t]
            if c is not None:
                out[c] = out.get(c, 0) + 1
        return out

    def stop_after(self, steps: int) -> int:
        """The region index Charlemagne reaches with ``steps`` steps clockwise."""
        return (self.region_index(self.charlemagne) + steps) % len(self.regions)

    # -- strength and majority --------------------------------------------------------------

    def strength(self, i: int) -> dict[str, int]:
        """Each castle colour's strength in region ``i``: knights of colours its player(s) hold,
        plus its castles there (partners' strengths are added)."""
        knights = empty_colours()
        for t in self.regions[i]:
            for colour, n in self.knights[t].items():
                knights[colour] += n
        out = dict.fromkeys(self.members, 0)
        for colour, holder in self.influence.items():
            if holder is not None:
                out[self.unit_of(holder)] += knights[colour]
        for t in self.regions[i]:
            c = self.castle[t]
            if c is not None:
                out[c] += 1
        return out

    def majority(self, i: int) -> str | None:
        """The castle colour with the majority in region ``i``: strictly the strongest (with 2
        players that is a strict majority, with 3 a relative one, with 4 per team)."""
        return sole_leader(self.strength(i))

    def stop_outcome(self, i: int) -> str:
        """What Charlemagne stopping in region ``i`` would do: build, take, keep or none."""
        leader = self.majority(i)
        if leader is None:
            return "none"
        owner = self.owner(i)
        if owner is None:
            return "build"
        return "keep" if owner == leader else "take"

    def castles_on_board(self) -> dict[str, int]:
        out = dict.fromkeys(self.members, 0)
        for c in self.castle:
            if c is not None:
                out[c] += 1
        return out

    def cylinders(self, unit: str) -> int:
        return sum(1 for h in self.influence.values() if h in self.members[unit])
