"""The Carolus Magnus game: legal moves, push/pop, why a move is illegal, the outcome.

Shaped like python-chess's ``Board``: ``legal_moves()``, ``push(move)``, ``pop()``,
``is_legal(move)``, ``why_illegal(move)``, ``outcome()``. Dice are moves too (``Roll``), so a
camera, a person or a seeded RNG can supply them; a crown's colour is a separate ``Crown`` move.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence

from companion.games.bids import allowed_bids
from companion.games.carolus.moves import (
    COLOURS,
    COURT,
    CROWN,
    Charlemagne,
    Crown,
    Disc,
    Knight,
    Move,
    Roll,
)
from companion.games.carolus.options import Options
from companion.games.carolus.state import (
    CASTLE_COLOURS,
    CASTLES,
    END_REGIONS,
    REFILL_DICE,
    RING_SIZE,
    SETUP_ROLLS,
    TERRITORIES,
    Outcome,
    State,
    empty_colours,
)
from companion.games.errors import IllegalMove, PositionError
from companion.games.majority import takes_over

DISC_SET: tuple[int, ...] = (1, 2, 3, 4, 5)
DEFAULT_PLAYERS: dict[int, tuple[str, ...]] = {
    2: ("white", "black"),
    3: ("white", "black", "grey"),
    4: ("ann", "ben", "cid", "dora"),
}
DEFAULT_TEAMS: dict[str, tuple[str, ...]] = {"white": ("ann", "cid"), "black": ("ben", "dora")}


def members_for(
    players: Sequence[str], teams: dict[str, Sequence[str]] | None, path: str = "teams"
) -> dict[str, tuple[str, ...]]:
    """Castle colour -> players; checks the player/team rules of spec/positions.md."""
    n = len(players)
    if n == 4:
        if not teams:
            raise PositionError(path, "4 players play as two teams: give the two teams")
        if len(teams) != 2 or any(c not in CASTLE_COLOURS for c in teams):
            raise PositionError(path, f"needs two castle colours of {', '.join(CASTLE_COLOURS)}")
        seen: list[str] = []
        for colour, pair in teams.items():
            if len(pair) != 2:
                raise PositionError(f"{path}.{colour}", "a team is two players")
            for p in pair:
                if p not in players:
                    raise PositionError(f"{path}.{colour}", f"{p!r} is not among players")
                seen.append(p)
        if len(set(seen)) != 4:
            raise PositionError(path, "every player belongs to exactly one team")
        return {c: tuple(pair) for c, pair in teams.items()}
    if teams:
        raise PositionError(path, "teams exist only with 4 players; use null")
    for i, p in enumerate(players):
        if p not in CASTLE_COLOURS:
            raise PositionError(
                f"players[{i}]",
                f"{p!r}: with 2 or 3 players a player is his castle colour "
                f"({', '.join(CASTLE_COLOURS)})",
            )
    return {p: (p,) for p in players}


class Game:
    """A game of Carolus Magnus for 2, 3 or 4 (two teams) players."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.move_stack: list[Move] = []
        self._undo: list[State] = []

    # -- creation ---------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        players: Sequence[str] | int = 2,
        *,
        teams: dict[str, Sequence[str]] | None = None,
        seed: int = 0,
        options: Options | None = None,
    ) -> Game:
        """A fresh game: the seed lays the cubes on the ring, places Charlemagne and draws the
        first chooser. Starting reserves are then rolled as ``Roll`` moves (phase ``setup``)."""
        if isinstance(players, int):
            if players not in DEFAULT_PLAYERS:
                raise PositionError("players", f"{players}: Carolus Magnus is for 2 to 4 players")
            if players == 4 and teams is None:
                teams = dict(DEFAULT_TEAMS)
            players = DEFAULT_PLAYERS[players]
        names = tuple(players)
        if not 2 <= len(names) <= 4 or len(set(names)) != len(names):
            raise PositionError("players", "give 2 to 4 different player names")
        members = members_for(names, teams)
        options = options or Options()
        rng = random.Random(seed)
        cubes = [c for c in COLOURS for _ in range(3)]
        rng.shuffle(cubes)
        knights = [empty_colours() for _ in range(RING_SIZE)]
        for t, colour in enumerate(cubes):
            knights[t][colour] = 1
        charlemagne = rng.randrange(RING_SIZE)
        first = rng.randrange(len(names))
        state = State(
            players=names,
            members=members,
            options=options,
            ring=list(TERRITORIES),
            knights=knights,
            castle=[None] * RING_SIZE,
            regions=[(t,) for t in range(RING_SIZE)],
            charlemagne=charlemagne,
            courts={p: empty_colours() for p in names},
            influence=dict.fromkeys(COLOURS),
            reserves={p: empty_colours() for p in names},
            supply=dict.fromkeys(COLOURS, options.cubes_per_colour - 3),
            castles_left=dict.fromkeys(members, CASTLES[len(names)]),
            hands=dict.fromkeys(names, DISC_SET),
            discs=dict.fromkeys(names),
            seed=seed,
            choose_order=list(names[first:] + names[:first]),
            rolls=[(p, n) for p in names for n in SETUP_ROLLS[len(names)]],
        )
        state.turn = state.rolls[0][0]
        return cls(state)

    # -- queries ----------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """setup, discs, knights, charlemagne, refill, crown or over."""
        s = self.state
        if s.phase in ("setup", "refill") and s.crowns:
            return "crown"
        return s.phase

    @property
    def turn(self) -> str | None:
        """The player who must act now (None when the game is over)."""
        return self.state.turn

    def outcome(self) -> Outcome | None:
        return self.state.outcome

    def is_game_over(self) -> bool:
        return self.state.outcome is not None

    def is_stalled(self) -> bool:
        """Nothing can ever change again: no knight can come into play (reserves and supply
        empty, no court would give any back) and every stop keeps or does nothing."""
        s = self.state
        if s.outcome is not None or any(sum(r.values()) for r in s.reserves.values()):
            return False
        for colour in COLOURS:
            if s.supply[colour] or (
                s.options.exhausted_colour_return == "min"
                and min(s.courts[p][colour] for p in s.players)
            ):
                return False
        return all(s.stop_outcome(i) in ("keep", "none") for i in range(len(s.regions)))

    def dice_to_roll(self) -> int:
        """How many dice the player to act rolls now (0 outside a roll)."""
        s = self.state
        return s.rolls[0][1] if s.rolls and not s.crowns and s.phase in ("setup", "refill") else 0

    def legal_moves(self) -> Iterator[Move]:
        """Every legal move; for a roll, every distinct set of faces (sorted)."""
        s = self.state
        p = s.turn
        if p is None or s.outcome is not None:
            return
        phase = self.phase
        if phase == "crown":
            for colour in self._crown_choices():
                yield Crown(p, colour)
        elif phase in ("setup", "refill"):
            faces = (*COLOURS, CROWN)
            for combo in itertools.combinations_with_replacement(faces, self.dice_to_roll()):
                yield Roll(p, combo)
        elif phase == "discs":
            for n in self._allowed_discs(p):
                yield Disc(p, n)
        elif phase == "knights":
            for colour in COLOURS:
                if s.reserves[p][colour] > 0:
                    yield Knight(p, colour, COURT)
                    for tid in s.ring:
                        yield Knight(p, colour, tid)
        elif phase == "charlemagne":
            disc = s.discs[p] or 1
            for steps in range(1, disc + 1):
                yield Charlemagne(p, steps)

    def is_legal(self, move: Move) -> bool:
        return self.why_illegal(move) is None

    def why_illegal(self, move: Move) -> str | None:
        """None if ``move`` is legal now, else the reason in words."""
        s = self.state
        if s.outcome is not None:
            return f"the game is over ({s.outcome})"
        if move.player not in s.players:
            return f"{move.player!r} is not playing (players: {', '.join(s.players)})"
        if move.player != s.turn:
            return f"it is {s.turn}'s turn ({self._doing()}), not {move.player}'s"
        phase = self.phase
        expected = {
            "crown": Crown,
            "setup": Roll,
            "refill": Roll,
            "discs": Disc,
            "knights": Knight,
            "charlemagne": Charlemagne,
        }[phase]
        if not isinstance(move, expected):
            return f"{move.player} must {self._doing()} now, not {type(move).verb}"
        if isinstance(move, Crown):
            choices = self._crown_choices()
            if move.colour not in choices:
                return f"the supply has no {move.colour}; pick one of {', '.join(choices)}"
        elif isinstance(move, Roll):
            n = self.dice_to_roll()
            if len(move.faces) != n:
                return f"{move.player} rolls {n} dice now, not {len(move.faces)}"
        elif isinstance(move, Disc):
            allowed = self._allowed_discs(move.player)
            if move.number not in allowed:
                if move.number not in s.hands[move.player]:
                    return (
                        f"{move.player} has already used disc {move.number} in this cycle "
                        f"(left: {', '.join(map(str, s.hands[move.player]))})"
                    )
                return (
                    f"disc {move.number} was already played this round and {move.player} "
                    f"still has a fresh one ({', '.join(map(str, allowed))})"
                )
        elif isinstance(move, Knight):
            if s.reserves[move.player][move.colour] <= 0:
                return f"{move.player} has no {move.colour} knight in his reserve"
            if move.to != COURT and move.to not in s.ring:
                return f"{move.to!r} is neither 'court' nor a territory (t01..t15)"
        elif isinstance(move, Charlemagne):
            disc = s.discs[move.player] or 1
            if not 1 <= move.steps <= disc:
                return f"Charlemagne moves 1 to {disc} steps with disc {disc}, not {move.steps}"
        return None

    # -- push / pop -------------------------------------------------------------------------

    def push(self, move: Move) -> None:
        """Apply a legal move; IllegalMove (with the reason) changes nothing."""
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMove(f"{move}: {reason}")
        self._undo.append(self.state.copy())
        try:
            self._apply(move)
        except Exception:
            self.state = self._undo.pop()
            raise
        self.move_stack.append(move)

    def pop(self) -> Move:
        """Undo the last move and return it."""
        if not self.move_stack:
            raise IllegalMove("there is no move to undo")
        self.state = self._undo.pop()
        return self.move_stack.pop()

    def copy(self) -> Game:
        """An independent game at the same state (without the undo history)."""
        return Game(self.state.copy())

    # -- rules ------------------------------------------------------------------------------

    def _doing(self) -> str:
        return {
            "crown": "choose a colour for a crown",
            "setup": "roll dice for his starting reserve",
            "refill": "roll dice to refill his reserve",
            "discs": "choose a number disc",
            "knights": "bring knights into play",
            "charlemagne": "move Charlemagne",
            "over": "nothing: the game is over",
        }[self.phase]

    def _allowed_discs(self, player: str) -> list[int]:
        s = self.state
        played = {d for d in s.discs.values() if d is not None}
        return allowed_bids(s.hands[player], played, repeat_when_forced=True)

    def _crown_choices(self) -> tuple[str, ...]:
        s = self.state
        left = tuple(c for c in COLOURS if s.supply[c] > 0)
        # With every colour exhausted, any pick may still bring knights back from the courts.
        return left or COLOURS

    def _apply(self, move: Move) -> None:
        s = self.state
        if isinstance(move, Roll):
            for face in move.faces:
                if face == CROWN:
                    s.crowns += 1
                else:
                    self._take(move.player, face)
            if not s.crowns:
                self._after_roll()
        elif isinstance(move, Crown):
            self._take(move.player, move.colour)
            s.crowns -= 1
            if not s.crowns:
                self._after_roll()
        elif isinstance(move, Disc):
            self._choose(move.player, move.number)
        elif isinstance(move, Knight):
            self._place(move.player, move.colour, move.to)
        elif isinstance(move, Charlemagne):
            self._walk(move.player, move.steps)

    def _take(self, player: str, colour: str) -> None:
        """One cube of ``colour`` from the supply to the reserve (3.3 when it has none)."""
        s = self.state
        if s.supply[colour] == 0 and s.options.exhausted_colour_return == "min":
            back = min(s.courts[p][colour] for p in s.players)
            if back:
                for p in s.players:
                    s.courts[p][colour] -= back
                s.supply[colour] += back * len(s.players)
                holder = s.influence[colour]
                if holder is not None and s.courts[holder][colour] == 0:
                    s.influence[colour] = None
        if s.supply[colour] > 0:
            s.supply[colour] -= 1
            s.reserves[player][colour] += 1

    def _after_roll(self) -> None:
        s = self.state
        s.rolls.pop(0)
        if s.rolls:
            s.turn = s.rolls[0][0]
        elif s.phase == "setup":
            self._start_round()
        else:
            s.acted += 1
            if s.acted < len(s.act_order):
                self.begin_action(s.act_order[s.acted])
            else:
                s.choose_order = list(s.act_order)
                self._start_round()

    def _start_round(self) -> None:
        s = self.state
        s.round += 1
        for p in s.players:
            if not s.hands[p]:
                s.hands[p] = DISC_SET
        s.discs = dict.fromkeys(s.players)
        s.act_order = []
        s.acted = 0
        s.phase = "discs"
        s.turn = s.choose_order[0]

    def _choose(self, player: str, number: int) -> None:
        s = self.state
        s.discs[player] = number
        s.hands[player] = tuple(d for d in s.hands[player] if d != number)
        chosen = [p for p in s.choose_order if s.discs[p] is not None]
        if len(chosen) < len(s.players):
            s.turn = s.choose_order[len(chosen)]
            return
        # Ascending discs; on a forced repeat the earlier chooser counts as lower.
        s.act_order = sorted(s.players, key=lambda p: (s.discs[p], s.choose_order.index(p)))
        s.acted = 0
        self.begin_action(s.act_order[0])

    def begin_action(self, player: str) -> None:
        s = self.state
        s.turn = player
        s.knights_left = min(s.knights_per_turn, sum(s.reserves[player].values()))
        s.phase = "knights" if s.knights_left else "charlemagne"

    def _place(self, player: str, colour: str, to: str) -> None:
        s = self.state
        s.reserves[player][colour] -= 1
        if to == COURT:
            s.courts[player][colour] += 1
            holder = s.influence[colour]
            if holder != player:
                held = None if holder is None else s.courts[holder][colour]
                if takes_over(held, s.courts[player][colour]):
                    s.influence[colour] = player
        else:
            s.knights[s.ring.index(to)][colour] += 1
        s.knights_left -= 1
        if s.knights_left == 0:
            s.phase = "charlemagne"

    def _walk(self, player: str, steps: int) -> None:
        s = self.state
        i = s.stop_after(steps)
        s.charlemagne = s.regions[i][0]
        resolve_stop(s, i)
        if s.outcome is not None:
            s.phase = "over"
            s.turn = None
            return
        s.phase = "refill"
        s.rolls = [(player, REFILL_DICE[len(s.players)])]


def resolve_stop(s: State, i: int) -> None:
    """Charlemagne stops in region ``i``: build or take over, merge, and check the end."""
    leader = s.majority(i)
    if leader is None:
        return
    owner = s.owner(i)
    if owner == leader:
        return
    run = s.regions[i]
    if owner is None:
        free = [t for t in run if s.castle[t] is None]
        if not free or s.castles_left[leader] == 0:
            return
        s.castle[free[0]] = leader
        s.castles_left[leader] -= 1
    else:
        theirs = [t for t in run if s.castle[t] == owner]
        if len(theirs) > s.castles_left[leader] and s.options.takeover_shortfall == "keep":
            return
        for t in theirs:
            s.castle[t] = None
            s.castles_left[owner] += 1
        for t in theirs[: s.castles_left[leader]]:
            s.castle[t] = leader
            s.castles_left[leader] -= 1
    merge_from(s, i)
    check_end(s, leader)


def merge_from(s: State, i: int) -> int:
    """Merge region ``i`` with every neighbour whose castles share its owner, repeatedly.

    Returns the index of the merged region."""
    owner = s.owner(i)
    if owner is None:
        return i
    while len(s.regions) > 1:
        n = len(s.regions)
        left, right = (i - 1) % n, (i + 1) % n
        if s.owner(left) == owner:
            i = _join(s, left, i)
        elif s.owner(right) == owner:
            i = _join(s, i, right)
        else:
            break
    return i


def _join(s: State, a: int, b: int) -> int:
    """Join region ``a`` with its clockwise neighbour ``b``; the index of the result."""
    merged = s.regions[a] + s.regions[b]
    rest = [r for k, r in enumerate(s.regions) if k not in (a, b)]
    rest.append(merged)
    rest.sort(key=lambda r: r[0])
    s.regions = rest
    return rest.index(merged)


def check_end(s: State, mover: str) -> None:
    """4: all castles placed wins at once; fewer than 4 regions ends with most castles."""
    if s.castles_left[mover] == 0:
        s.outcome = Outcome(
            (mover,), s.members[mover], f"{mover} has placed all {CASTLES[len(s.players)]} castles"
        )
        return
    if len(s.regions) >= END_REGIONS:
        return
    on_board = s.castles_on_board()
    best = max(on_board.values())
    leaders = [u for u, n in on_board.items() if n == best]
    counts = ", ".join(f"{u} {n}" for u, n in on_board.items())
    reason = f"only {len(s.regions)} regions left; most castles on the board ({counts})"
    if len(leaders) > 1 and s.options.end_tiebreak == "cylinders":
        cyl = {u: s.cylinders(u) for u in leaders}
        top = max(cyl.values())
        leaders = [u for u in leaders if cyl[u] == top]
        reason += (
            "; tie broken by cylinders held (" + ", ".join(f"{u} {n}" for u, n in cyl.items()) + ")"
        )
    if len(leaders) > 1:
        reason += "; a shared win"
    players = tuple(p for u in leaders for p in s.members[u])
    s.outcome = Outcome(tuple(leaders), players, reason)
