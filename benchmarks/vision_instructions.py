"""Instructions per read of the speed bench's frames, counted by valgrind's callgrind: the same
number for the same code and frame whatever else the machine is doing (seconds are not, and
this machine is shared), so two versions of the reader can be compared on a busy machine.

    python -m benchmarks.vision_instructions [GAME ...] [--size WxH] [--reads N]

Each (game, size) runs the speed bench's frame (``bench_vision speed``: easy camera, seed 3,
tile places known, one OpenCV thread) in three processes under callgrind: two warm reads only,
then N reads more, then N ``cvtColor(BGR2Lab)`` of the frame more (the speed aim's floor); the
differences over N are a read's and a floor's instructions. Also the read's instructions by
library (NumPy, OpenCV, the interpreter, libc): how much is per-pixel work in compiled code and
how much Python. Under valgrind OpenCV runs its AVX2 code (valgrind has no AVX-512), and an
instruction is not a cycle: memory-bound work (a large lookup table, copies) costs more time
per instruction than a colour conversion. For comparing versions, not for the aim's ratio.
Needs valgrind (Debian's package); ~2 minutes per (game, size) on an idle core.
"""

from __future__ import annotations

import argparse
import collections
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from benchmarks.bench_vision import POSITIONS, SpeedCase
from companion.vision.config import DEFAULT_CONFIG

_WARM = 2


def _child(case_file: str, what: str, count: int) -> None:
    """Run inside callgrind: the warm reads, then ``count`` reads or floors."""
    import cv2

    cv2.setNumThreads(1)
    case = pickle.loads(Path(case_file).read_bytes())
    for _ in range(_WARM):
        case.read()
    for _ in range(count):
        if what == "read":
            case.read()
        else:
            cv2.cvtColor(case.image, cv2.COLOR_BGR2Lab)


def _count(case_file: Path, what: str, count: int, folder: Path) -> dict[str, int]:
    """Instructions per function (callgrind_annotate's names) of one child run."""
    out = folder / f"{what}-{count}.callgrind"
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        sys.executable,
        "-m",
        "benchmarks.vision_instructions",
        "--child",
        str(case_file),
        what,
        str(count),
    ]
    subprocess.run(command, check=True, capture_output=True)
    listing = subprocess.run(
        ["callgrind_annotate", "--inclusive=no", "--threshold=100", str(out)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    counts: dict[str, int] = {}
    for line in listing.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*)$", line)
        if m and "PROGRAM TOTALS" not in m.group(2):
            counts[m.group(2)] = int(m.group(1).replace(",", ""))
    return counts


def _library(function: str) -> str:
    """The library a callgrind_annotate function name lies in, by short name."""
    m = re.search(r"\[([^\]]+)\]$", function)
    name = m.group(1).rsplit("/", 1)[-1] if m else "?"
    for short, prefix in (
        ("NumPy", "_multiarray_umath"),
        ("OpenCV", "cv2"),
        ("Python", "libpython"),
    ):
        if name.startswith(prefix):
            return short
    return name.split(".so")[0]


def measure(game: str, width: int, height: int, reads: int) -> None:
    case = SpeedCase.of(game, width, height, replace(DEFAULT_CONFIG, read_threads=1))
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        case_file = folder / "case.pickle"
        case_file.write_bytes(pickle.dumps(case))
        base = _count(case_file, "read", 0, folder)
        read = _count(case_file, "read", reads, folder)
        floor = _count(case_file, "floor", reads, folder)
    per_read = {k: (read.get(k, 0) - base.get(k, 0)) / reads for k in set(base) | set(read)}
    read_total = sum(per_read.values())
    floor_total = (sum(floor.values()) - sum(base.values())) / reads
    by_library: collections.Counter[str] = collections.Counter()
    for function, n in per_read.items():
        by_library[_library(function)] += n
    split = ", ".join(
        f"{lib} {100 * n / read_total:.0f} %" for lib, n in by_library.most_common(5) if n > 0
    )
    print(
        f"  {width}x{height} {game:<15} read {read_total / 1e6:6.1f} M instructions, "
        f"floor {floor_total / 1e6:5.1f} M: {read_total / floor_total:.2f}x ({split})",
        flush=True,
    )


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        _child(argv[1], argv[2], int(argv[3]))
        return 0
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_instructions")
    parser.add_argument("games", nargs="*", metavar="GAME", help=", ".join(POSITIONS))
    parser.add_argument("--size", action="append", help="WxH (default: 1280x720 and 1920x1080)")
    parser.add_argument("--reads", type=int, default=3)
    args = parser.parse_args(argv)
    unknown = [g for g in args.games if g not in POSITIONS]
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}: give {' or '.join(POSITIONS)}")
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        print("vision_instructions needs valgrind: `apt-get install valgrind`", file=sys.stderr)
        return 2
    sizes = []
    for size in args.size or ["1280x720", "1920x1080"]:
        m = re.fullmatch(r"(\d+)x(\d+)", size)
        if m is None:
            parser.error(f"--size {size!r}: give it as WIDTHxHEIGHT, e.g. 1280x720")
        sizes.append((int(m.group(1)), int(m.group(2))))
    if args.reads < 1:
        parser.error("--reads must be at least 1")
    for width, height in sizes:
        for game in args.games or list(POSITIONS):
            measure(game, width, height, args.reads)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
