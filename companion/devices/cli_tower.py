"""``companion tower listen`` and ``companion tower simulate``."""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from pathlib import Path
from typing import Any

from companion.devices.errors import DeviceError, SimulatorScriptError
from companion.devices.tower_events import Drop, LinkStatus
from companion.devices.tower_protocol import TowerStatus


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tower = sub.add_parser("tower", help="the Castillo tower's sensor: listen to it, simulate it")
    tower_sub = tower.add_subparsers(dest="tower_command", metavar="TOWER_COMMAND")

    def usage(args: argparse.Namespace) -> int:
        tower.print_help()
        return 2

    tower.set_defaults(func=usage)

    listen = tower_sub.add_parser(
        "listen",
        help="print the tower's drops and link events as JSON lines",
        description="Open the tower (or a simulator) and print one JSON object per event: "
        '{"event": "drop", ...}, {"event": "link", ...}, {"event": "status", ...}. '
        "Colours are hidden unless --reveal-colours: the Castillo's content is secret.",
    )
    listen.add_argument("--port", help="serial port, by-id path or pyserial URL (default: find it)")
    listen.add_argument("--count", type=int, default=0, help="stop after this many drops")
    listen.add_argument("--seconds", type=float, default=0, help="stop after this many seconds")
    listen.add_argument("--reveal-colours", action="store_true", help="print each cube's colour")
    listen.add_argument("--heartbeats", action="store_true", help="print every heartbeat too")
    listen.set_defaults(func=cmd_listen)

    sim = tower_sub.add_parser(
        "simulate",
        help="run the real firmware behind a pseudo-terminal, with scripted drops and faults",
        description="Prints the port path on the first line; open it with `companion tower "
        "listen --port PATH`. Either a script file or the options below describe what happens.",
        epilog="script commands: " + "; ".join(f"`{v}`" for v in _verbs()),
    )
    sim.add_argument("--drops", type=int, default=10, help="cubes to drop (default 10)")
    sim.add_argument("--rate", type=float, default=2.0, help="cubes per second (default 2)")
    sim.add_argument("--colour", help="colour of every cube (default random); needs --sensor")
    sim.add_argument("--sensor", action="store_true", help="the tower has a colour sensor")
    sim.add_argument("--corrupt", type=float, default=0.0, help="share of frames corrupted")
    sim.add_argument("--lose", type=float, default=0.0, help="share of frames lost")
    sim.add_argument("--garbage", type=float, default=0.0, help="share of frames after garbage")
    sim.add_argument("--unplug-every", type=int, default=0, metavar="K", help="unplug every K")
    sim.add_argument("--unplug-for", type=float, default=0.5, metavar="S", help="seconds out")
    sim.add_argument(
        "--reset-after", type=int, action="append", default=[], metavar="K", help="reset after K"
    )
    sim.add_argument("--script", type=Path, help="a script file instead of the options")
    sim.add_argument("--seed", type=int, default=0, help="random seed of faults and colours")
    sim.add_argument("--link-dir", type=Path, help="directory for the port symlink")
    sim.add_argument(
        "--linger", type=float, default=-1, help="seconds up after the script (-1: until ^C)"
    )
    sim.set_defaults(func=cmd_simulate)


def _verbs() -> list[str]:
    from companion.devices.tower_sim import VERBS

    return [v.split("  ")[0] for v in VERBS.values()]


def _json(event: object, reveal: bool) -> dict[str, Any]:
    if isinstance(event, Drop):
        colour = event.colour if reveal else ("hidden" if event.colour else None)
        return {
            "event": "drop",
            "seq": event.seq,
            "boot_id": f"{event.boot_id:08x}",
            "device_time_us": event.device_time_us,
            "colour": colour,
            "confidence": event.confidence,
        }
    if isinstance(event, LinkStatus):
        return {"event": "link", "state": event.state, "port": event.port, "detail": event.detail}
    if isinstance(event, TowerStatus):
        return {
            "event": "status",
            "reason": event.reason,
            "boot_id": f"{event.boot_id:08x}",
            "count": event.count,
            "pending": event.pending,
            "jams": event.jams,
            "overflows": event.overflows,
            "beam_blocked": event.beam_blocked,
            "colour_sensor": event.colour_sensor,
        }
    return {"event": type(event).__name__}


def cmd_listen(args: argparse.Namespace) -> int:
    import serial

    from companion.devices.tower_link import TowerLink, check_port, find_tower_port

    try:
        port = check_port(args.port) if args.port else find_tower_port()
        # Fail now, with the reason, rather than retry for ever on a port we may not open.
        serial.serial_for_url(port, timeout=0).close()
    except DeviceError as exc:
        print(f"companion tower listen: {exc}", file=sys.stderr)
        return 2
    except (serial.SerialException, OSError, ValueError) as exc:
        print(
            f"companion tower listen: cannot open {port}: {exc} (is it a serial port? "
            "is your user in the dialout group?)",
            file=sys.stderr,
        )
        return 2
    events: queue.Queue[object] = queue.Queue()
    drops = 0
    deadline = time.monotonic() + args.seconds if args.seconds > 0 else None
    with TowerLink(events, port) as link:
        while args.count <= 0 or drops < args.count:
            timeout = 0.2 if deadline is None else min(0.2, deadline - time.monotonic())
            if timeout <= 0:
                break
            try:
                event = events.get(timeout=timeout)
            except queue.Empty:
                continue
            heartbeat = isinstance(event, TowerStatus) and event.reason == "heartbeat"
            if heartbeat and not args.heartbeats:
                continue
            drops += isinstance(event, Drop)
            print(json.dumps(_json(event, args.reveal_colours)), flush=True)
        counts = dict(link.receiver.counts) | {
            f"frame_errors_{k}": v for k, v in link.decoder.errors.items()
        }
    print(json.dumps({"event": "summary", **counts}), flush=True)
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from companion.devices.tower_sim import TowerSimulator, parse_script, script_from_options

    try:
        for name in ("corrupt", "lose", "garbage"):
            if not 0 <= getattr(args, name) <= 1:
                raise SimulatorScriptError(f"--{name} must be between 0 and 1")
        if args.rate <= 0 or args.drops < 0:
            raise SimulatorScriptError("--rate must be above 0 and --drops at least 0")
        if args.script is not None:
            try:
                text = args.script.read_text(encoding="utf-8")
            except OSError as exc:
                raise SimulatorScriptError(f"cannot read {args.script}: {exc.strerror}") from None
            actions = parse_script(text, str(args.script))
        else:
            colour = args.colour.lower() if args.colour else None
            if colour is not None:
                parse_script(f"drops 1 {colour}", "--colour")  # validates the name
            actions = script_from_options(
                args.drops,
                args.rate,
                unplug_every=args.unplug_every,
                unplug_for=args.unplug_for,
                reset_after=args.reset_after,
                colour=colour,
            )
    except DeviceError as exc:
        print(f"companion tower simulate: {exc}", file=sys.stderr)
        return 2
    sim = TowerSimulator(
        seed=args.seed,
        colour_sensor=args.sensor,
        corrupt=args.corrupt,
        lose=args.lose,
        garbage=args.garbage,
        link_dir=args.link_dir,
    )
    with sim:
        print(sim.port, flush=True)
        stop = threading.Event()
        try:
            sim.play(actions, stop)
            if args.linger < 0:
                threading.Event().wait()
            else:
                time.sleep(args.linger)
        except KeyboardInterrupt:
            stop.set()
        summary = {"dropped": len(sim.colours), "boot_ids": [f"{b:08x}" for b in sim.boot_ids]}
        print(json.dumps(summary | dict(sim.stats)), flush=True)
    return 0
