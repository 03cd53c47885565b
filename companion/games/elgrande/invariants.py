"""What must hold after every El Grande move, whatever the move (checked by selfplay and tests).

Each check compares the state before and after one move and returns readable violations, so a
broken rule shows up as "after move 'red move blue galicia aragon': ..." rather than a crash.
"""

from __future__ import annotations

from companion.games.elgrande.board import AREAS, CABALLEROS_PER_PLAYER, CASTILLO
from companion.games.elgrande.moves import Act, Move, MoveKing
from companion.games.elgrande.state import State

POWER_CARDS = list(range(1, 14))


def check_state(st: State) -> list[str]:
    """What one state alone must satisfy."""
    problems: list[str] = []
    for colour in st.players:
        counts = [st.provinces[colour], st.courts[colour]]
        counts += [st.areas[a].get(colour, 0) for a in AREAS]
        if any(n < 0 for n in counts):
            problems.append(f"{colour} has a negative count of caballeros somewhere")
        if sum(counts) != CABALLEROS_PER_PLAYER:
            problems.append(
                f"{colour} has {sum(counts)} caballeros in province, court, regions and "
                f"castillo, not {CABALLEROS_PER_PLAYER}"
            )
        if sorted(st.hands[colour] + st.spent[colour]) != POWER_CARDS:
            problems.append(f"{colour}'s power cards in hand and spent are not 1-13 once each")
        if st.grandes[colour] == CASTILLO:
            problems.append(f"{colour}'s grande is in the castillo")
    played = list(st.played.values())
    if len(played) != len(set(played)):
        problems.append(f"a power card value was played twice this round: {played}")
    boards = list(st.scoreboards.values())
    if len(boards) != len(set(boards)):
        problems.append("one mobile scoreboard lies in two places")
    return problems


def check_move(before: State, after: State, move: Move) -> list[str]:
    """What one move must not break (taboo of the king's region, scores, conservation)."""
    problems = check_state(after)
    for colour in before.players:
        if after.scores[colour] < before.scores[colour]:
            problems.append(f"{colour}'s score went down")
    kings = {before.king, after.king}
    if before.king != after.king and not isinstance(move, MoveKing):
        problems.append("the king moved without a king move")
    for region in kings:
        if any(
            before.areas[region].get(c, 0) != after.areas[region].get(c, 0) for c in before.players
        ):
            problems.append(f"caballeros entered or left the king's region {region}")
        if before.scoreboards.get(region) != after.scoreboards.get(region):
            problems.append(f"a scoreboard entered or left the king's region {region}")
        for colour in before.players:
            was, now = before.grandes[colour], after.grandes[colour]
            if was != now and region in (was, now):
                problems.append(f"{colour}'s grande entered or left the king's region {region}")
    if (
        before.phase == "action"
        and before.step.get("special") == "announced"
        and not isinstance(move, Act)
        and (after.turn != before.turn or after.round != before.round)
    ):
        problems.append("the turn ended without the announced, allowed special action")
    return [f"after move '{move}': {p}" for p in problems]
