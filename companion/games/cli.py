"""The rules commands: ``analyze``, ``replay``, ``selfplay``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.games import jsonio
from companion.games.api import GAMES, game_api
from companion.games.errors import RecordError, RulesError
from companion.games.record import record_game


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("analyze", help="analyse a position file (spec/positions.md)")
    p.add_argument("position", help="position JSON file, or - for standard input")
    p.add_argument("--format", choices=["json", "text"], default="json")
    p.add_argument("--player", help="Carolus Magnus: the player to move")
    p.add_argument("--steps", type=int, help="Carolus Magnus: his disc (most steps)")
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser("replay", help="replay a game record, validating every move")
    p.add_argument("record", help="game record file (docs/records.md), or - for standard input")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("selfplay", help="play random legal games, checking invariants")
    p.add_argument("--game", choices=list(GAMES), default="el-grande")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_selfplay)


def _read(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RulesInputError("no such file") from None
    except UnicodeDecodeError:
        raise RulesInputError("not UTF-8 text") from None
    except OSError as exc:
        raise RulesInputError(f"cannot read ({exc.strerror})") from None


class RulesInputError(RulesError, OSError):
    """A file named on the command line cannot be read."""


def _fail(message: str) -> int:
    print(f"companion: {message}", file=sys.stderr)
    return 2


def cmd_analyze(args: argparse.Namespace) -> int:
    try:
        text = _read(args.position)
        try:
            data: Any = jsonio.loads(text)
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno}, column {exc.colno}"
            return _fail(f"{args.position}: not valid JSON ({where}: {exc.msg})")
        if not isinstance(data, dict):
            return _fail(f"{args.position}: a position must be a JSON object")
        api = game_api(data.get("game"))
        analysis = api.analyze_position(data, player=args.player, steps=args.steps)
    except RulesError as exc:
        return _fail(f"{args.position}: {exc}")
    if args.format == "text":
        print(api.format_analysis(analysis))
    else:
        print(json.dumps(analysis, indent=2, ensure_ascii=False))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        text = _read(args.record)
        game = record_game(text)
        if game is None:
            raise RecordError(
                "no readable header: a record starts with a JSON object line such as "
                '{"game": "el-grande", "players": [...], "seed": 1} (docs/records.md)'
            )
        api = game_api(game, path="header game")
        result = api.replay(text)
    except RulesError as exc:
        return _fail(f"{args.record}: {exc}")
    print(json.dumps(result.final_position, indent=2, ensure_ascii=False))
    print(f"moves applied: {result.moves_applied}")
    print("scores: " + ", ".join(f"{k} {v}" for k, v in result.scores.items()))
    if result.outcome:
        print(f"outcome: {result.outcome}")
    if not result.ok:
        print(f"illegal move: {result.error}", file=sys.stderr)
        return 1
    return 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    if args.games < 1:
        return _fail("--games must be at least 1")
    try:
        report = game_api(args.game).selfplay(args.players, args.games, args.seed)
    except RulesError as exc:
        return _fail(str(exc))
    print(
        f"{report.game}: {report.games} games, {report.players} players, {report.moves} moves "
        f"in {report.seconds:.2f} s: {report.games_per_second:.1f} games/s"
    )
    if report.stalled:
        print(
            f"{report.stalled} of them stalled: no move could change anything, so no rule ends them"
        )
    for v in report.violations:
        print(f"invariant broken: {v}", file=sys.stderr)
    return 1 if report.violations else 0
