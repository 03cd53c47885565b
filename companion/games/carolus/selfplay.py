"""Random legal games with the rules' invariants checked after every move."""

from __future__ import annotations

import itertools
import random
import time

from companion.games.api import SelfplayReport
from companion.games.carolus.game import Game
from companion.games.carolus.moves import COLOURS, CROWN, Move, Roll
from companion.games.carolus.position import GAME_ID, from_position, to_position
from companion.games.carolus.state import CASTLES, RING_SIZE, State
from companion.games.errors import PositionError

MOVE_LIMIT = 20_000  # far beyond any real game; reaching it means the engine loops


def invariant_violations(s: State) -> list[str]:
    """What is wrong with a state (empty if it obeys every invariant)."""
    bad: list[str] = []
    for c in COLOURS:
        total = (
            s.supply[c]
            + sum(r[c] for r in s.reserves.values())
            + sum(ct[c] for ct in s.courts.values())
            + sum(k[c] for k in s.knights)
        )
        if total != s.options.cubes_per_colour:
            bad.append(f"{c}: {total} cubes, not {s.options.cubes_per_colour}")
        counts = [s.supply[c]] + [r[c] for r in s.reserves.values()]
        counts += [ct[c] for ct in s.courts.values()] + [k[c] for k in s.knights]
        if min(counts) < 0:
            bad.append(f"{c}: a negative count")
        holder = s.influence[c]
        court = {p: s.courts[p][c] for p in s.players}
        if holder is None and max(court.values()) > 0:
            bad.append(f"{c}: nobody holds it though courts have {court}")
        if holder is not None and (court[holder] == 0 or court[holder] < max(court.values())):
            bad.append(f"{c}: {holder} holds it with courts {court}")
    on_board = s.castles_on_board()
    for unit in s.members:
        if on_board[unit] + s.castles_left[unit] != CASTLES[len(s.players)]:
            bad.append(f"{unit}: {on_board[unit]} castles on board + {s.castles_left[unit]} left")
    covered = sorted(t for run in s.regions for t in run)
    if covered != list(range(RING_SIZE)):
        bad.append(f"regions do not partition the ring: {s.regions}")
    for run in s.regions:
        if any((a + 1) % RING_SIZE != b for a, b in itertools.pairwise(run)):
            bad.append(f"region {run} is not a run of the ring")
    for i in range(len(s.regions)):
        owners = set(s.castles_in(i))
        if len(owners) > 1:
            bad.append(f"region {s.region_ids(i)} has castles of {sorted(owners)}")
        if len(s.regions) > 1 and s.outcome is None:
            nxt = (i + 1) % len(s.regions)
            if owners and owners == set(s.castles_in(nxt)):
                bad.append(f"regions {s.region_ids(i)} and {s.region_ids(nxt)} did not merge")
    return bad


def random_move(game: Game, rng: random.Random) -> Move:
    """Dice from the RNG like a table would roll them; any other choice uniformly at random."""
    n = game.dice_to_roll()
    if n and game.turn is not None:
        return Roll(game.turn, tuple(rng.choice((*COLOURS, CROWN)) for _ in range(n)))
    return rng.choice(list(game.legal_moves()))


def play_random(game: Game, rng: random.Random, check: bool = True) -> tuple[int, list[str]]:
    """Play to the end (or a stall); the number of moves and the first broken invariants."""
    moves = 0
    while not game.is_game_over() and not game.is_stalled():
        if moves >= MOVE_LIMIT:
            return moves, [f"no end after {MOVE_LIMIT} moves"]
        move = random_move(game, rng)
        game.push(move)
        moves += 1
        if check:
            bad = invariant_violations(game.state)
            if bad:
                return moves, [f"after move {moves} ({move}): {b}" for b in bad]
    return moves, []


def selfplay(players: int, games: int, seed: int) -> SelfplayReport:
    if players not in (2, 3, 4):
        raise PositionError("--players", f"{players}: Carolus Magnus is for 2 to 4 players")
    master = random.Random(seed)
    report = SelfplayReport(GAME_ID, players, games, 0, 0.0)
    start = time.perf_counter()
    for g in range(games):
        game_seed = master.randrange(2**31)
        game = Game.new(players, seed=game_seed)
        moves, bad = play_random(game, random.Random(game_seed))
        report.moves += moves
        # The written position must read back to the same position.
        if to_position(from_position(to_position(game))) != to_position(game):
            bad.append("the final position does not read back the same")
        report.violations += [f"game {g} (seed {game_seed}) {b}" for b in bad]
        if not game.is_game_over() and game.is_stalled():
            report.stalled += 1
    report.seconds = time.perf_counter() - start
    return report
