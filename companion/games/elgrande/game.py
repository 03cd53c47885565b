"""The El Grande game in the python-chess shape: ``legal_moves()``, ``push``, ``pop``,
``is_legal``/``why_illegal``, ``outcome()``; plus positions, the full state JSON and the redacted
view each player may see.

    >>> game = Game.new(["red", "blue", "green"], seed=7)
    >>> game.phase, game.to_act
    ('reveal', ('table',))
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.games.elgrande import rules
from companion.games.elgrande.board import (
    AREAS,
    CABALLEROS_PER_PLAYER,
    CASTILLO,
    SETUP_COURT,
)
from companion.games.elgrande.cards import CARDS, decks
from companion.games.elgrande.moves import Move, parse_move
from companion.games.elgrande.options import Options
from companion.games.elgrande.position import Position
from companion.games.elgrande.state import State
from companion.games.errors import IllegalMove


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: the winner(s) (several on a shared victory), final scores."""

    winners: tuple[str, ...]
    scores: Mapping[str, int]
    reason: str

    def __str__(self) -> str:
        won = " and ".join(self.winners)
        verb = "wins" if len(self.winners) == 1 else "share the victory"
        table = ", ".join(f"{c} {s}" for c, s in self.scores.items())
        return f"{won} {verb} ({table}); {self.reason}"


class Game:
    """A game of El Grande. The state knows everything; :meth:`view_for` hides what a player
    may not see."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.move_stack: list[Move] = []
        self._undo: list[State] = []
        self._legal: list[Move] | None = None
        self._legal_set: frozenset[Move] | None = None

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        *,
        seed: int = 0,
        options: Options | None = None,
        king: str | None = None,
        homes: Mapping[str, str] | None = None,
    ) -> Game:
        """Set up a new game: king and homes drawn from ``seed`` unless given."""
        return cls(rules.setup(players, seed, options or Options(), king=king, homes=homes))

    # --- what is going on ---------------------------------------------------------------------

    @property
    def phase(self) -> str:
        return self.state.phase

    @property
    def to_act(self) -> tuple[str, ...]:
        """Who must move now: one player, ``table`` for chance, several for secret choices."""
        return rules.to_act(self.state)

    @property
    def round(self) -> int:
        return self.state.round

    def legal_moves(self) -> list[Move]:
        if self._legal is None:
            self._legal = rules.legal(self.state)
        return list(self._legal)

    def _legal_moves_set(self) -> frozenset[Move]:
        if self._legal_set is None:
            if self._legal is None:
                self._legal = rules.legal(self.state)
            self._legal_set = frozenset(self._legal)
        return self._legal_set

    def is_legal(self, move: Move) -> bool:
        return move in self._legal_moves_set()

    def why_illegal(self, move: Move) -> str | None:
        """None for a legal move, else the reason in words."""
        if move in self._legal_moves_set():
            return None
        assert self._legal is not None
        return rules.why_illegal(self.state, move, self._legal)

    def push(self, move: Move) -> None:
        """Make a move; IllegalMove (with the reason) if the rules do not allow it now."""
        if move not in self._legal_moves_set():
            raise IllegalMove(f"{move}: {self.why_illegal(move)}")
        self._undo.append(self.state.copy())
        self.move_stack.append(move)
        rules.apply(self.state, move)
        self._legal = None
        self._legal_set = None

    def push_text(self, text: str) -> Move:
        move = parse_move(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        """Undo the last move and return it."""
        if not self.move_stack:
            raise IndexError("pop from a game with no moves")
        self.state = self._undo.pop()
        self._legal = None
        self._legal_set = None
        return self.move_stack.pop()

    def previous_state(self) -> State:
        """The state before the last move (kept for undo; used to check each move's effect)."""
        return self._undo[-1]

    def outcome(self) -> Outcome | None:
        st = self.state
        if st.phase != "over":
            return None
        best = max(st.scores.values())
        winners = [c for c in st.players if st.scores[c] == best]
        reason = f"game over after round {st.round}"
        if len(winners) > 1 and st.options.tie_break == "fewest_power_cards_left":
            fewest = min(len(st.hands[c]) for c in winners)
            winners = [c for c in winners if len(st.hands[c]) == fewest]
            reason += ", tie broken by fewest power cards left"
        return Outcome(tuple(winners), dict(st.scores), reason)

    # --- positions and state --------------------------------------------------------------------

    def to_position(self) -> Position:
        st = self.state
        return Position(
            players=st.players,
            king=st.king,
            grandes=dict(st.grandes),
            areas={a: {c: n for c, n in st.areas[a].items() if n > 0} for a in AREAS},
            scoreboards=dict(st.scoreboards),
            courts=dict(st.courts),
            provinces=dict(st.provinces),
            scores=dict(st.scores),
            round=st.round,
            options=st.options,
        )

    @classmethod
    def from_position(cls, position: Position, *, seed: int = 0) -> Game:
        """Continue from a position at the start of its round.

        A position does not say which power cards were spent or which action cards are gone:
        every hand is full and each stack loses ``round - 1`` cards drawn from ``seed``. The
        table picks who starts the power cards. Missing courts are the setup 7; a missing
        province is what makes 30 caballeros.
        """
        options = position.options
        players = rules.check_players(position.players)
        areas = {a: dict.fromkeys(players, 0) for a in AREAS}
        for area, counts in position.areas.items():
            for colour, n in counts.items():
                areas[area][colour] = n
        courts = {c: position.courts.get(c, SETUP_COURT) for c in players}
        provinces = {
            c: position.provinces.get(
                c, CABALLEROS_PER_PLAYER - courts[c] - sum(areas[a][c] for a in AREAS)
            )
            for c in players
        }
        rounds = rules.rounds_for(options)
        stacks = decks(veto=options.veto)
        rng = random.Random(seed)
        gone = len([r for r in rounds if r < position.round])
        for stack in stacks.values():
            for _ in range(gone):
                cards = [c for c, n in stack.items() for _ in range(n)]
                if cards:
                    card = rng.choice(cards)
                    stack[card] -= 1
                    if stack[card] == 0:
                        del stack[card]
        state = State(
            players=players,
            options=options,
            seed=seed,
            rounds=rounds,
            round=position.round,
            king=position.king,
            grandes=dict(position.grandes),
            areas=areas,
            courts=courts,
            provinces=provinces,
            scores={c: position.scores.get(c, 0) for c in players},
            hands={c: list(rules.POWER_CARDS) for c in players},
            spent={c: [] for c in players},
            scoreboards=dict(position.scoreboards),
            stacks=stacks,
        )
        return cls(state)

    def to_state_json(self) -> dict[str, Any]:
        """Everything, exactly: :meth:`from_state_json` gives back the same game state."""
        return self.state.to_json()

    @classmethod
    def from_state_json(cls, data: object) -> Game:
        return cls(State.from_json(data))

    def view_for(self, player: str | None) -> dict[str, Any]:
        """The state as ``player`` may see it (None: the shared screen).

        Hidden unless the rules reveal them: each player's Castillo content (only its total and
        one's own count are shown, unless the option ``castillo_open``), secret choices not yet
        revealed (only that a player has chosen), and - with ``power_cards_public`` off - the
        other players' hands and spent power cards.
        """
        st = self.state
        view = st.to_json()
        if not st.options.castillo_open:
            castillo = st.areas[CASTILLO]
            view["areas"][CASTILLO] = {c: n for c, n in castillo.items() if c == player}
            view["castillo_total"] = sum(castillo.values())
        view["secrets"] = {
            c: (region if c == player else "chosen") for c, region in st.secrets.items()
        }
        if not st.options.power_cards_public:
            for key in ("hands", "spent"):
                view[key] = {
                    c: (cards if c == player else len(cards)) for c, cards in view[key].items()
                }
        view["to_act"] = list(self.to_act)
        view["face_up_text"] = {c: CARDS[c].text for c in st.face_up}
        return view

    def __repr__(self) -> str:
        st = self.state
        return (
            f"<Game {'/'.join(st.players)} round {st.round} phase {st.phase} "
            f"to act {','.join(self.to_act) or '-'} after {len(self.move_stack)} moves>"
        )
