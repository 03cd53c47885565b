"""A stream's Carolus reads hand their dice and castles to a side process (side.py) from the
second read: the observations are the reads' on one thread, frame after frame and when the
tiles move; a lost process changes no read; a stage's error is raised on the calling side; a
single read starts no process; a script with no ``__main__`` guard reads a stream."""

from __future__ import annotations

import functools
import logging
import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.bench_vision import POSITIONS, calibrated
from benchmarks.vision_errors import hard_case
from companion.vision import pipeline
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.errors import VisionError
from companion.vision.geometry import locate_movables
from companion.vision.grey_tops import grey_tops
from companion.vision.layout import Pose, load_layout
from companion.vision.pipeline import Reader
from companion.vision.side import SideLost, SideProcess, SideReply
from companion.vision.synth import EASY, render

SERIAL = replace(DEFAULT_CONFIG, read_threads=1)
# (Two threads: the side process is used on a machine of any number of cores.)
SIDE = replace(DEFAULT_CONFIG, read_threads=2)
ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def _table() -> tuple[Any, Any, Any, dict[str, Any]]:
    """Carolus seed 2 (castles and dice on the table): calibration, layout, frame, truth."""
    layout = load_layout("carolus-magnus")
    setup, position = POSITIONS["carolus-magnus"](2)
    image, truth = render(position, layout, seed=2, conditions=EASY)
    return calibrated(layout, setup, 2, EASY), layout, image, truth


def test_a_streams_reads_on_the_side_process_are_the_serial_reads() -> None:
    cal, layout, image, truth = _table()
    tiles, courts = locate_movables(image, cal, layout)
    # A tile pushed 6 mm (past the markers' jitter): a new geometry, sent to the process.
    first = sorted(tiles)[0]
    pose = tiles[first]
    pushed = {**tiles, first: Pose(pose.x + 6.0, pose.y, pose.angle)}
    calls = [{}, {}, {"tiles": pushed, "courts": courts}, {}, {"tiles": tiles, "courts": courts}]
    with Reader(cal, layout, SERIAL) as serial, Reader(cal, layout, SIDE) as side:
        want = [serial.read(image, **call) for call in calls]
        got = []
        geometries = []
        for call in calls:
            got.append(side.read(image, **call))
            geometries.append(side._side._geometry if side._side is not None else None)
        process = side._side
        assert process is not None and not process.lost
    assert got == want
    # Started at the second read; the pushed tile's geometry and then the old one's sent.
    assert geometries[0] is None and None not in geometries[1:]
    assert geometries[2] is not geometries[1] and geometries[4] is not geometries[2]
    assert sorted(got[1].dice) == sorted(truth["dice"])
    castles = {
        p["area"]: p["colour"]
        for p in truth["pieces"]
        if p["kind"] == "castle" and p["area"] != "castle_supply"
    }
    assert castles and dict(got[1].castles) == castles
    # Closed with its Reader.
    assert process._process.wait(5) is not None


def test_an_el_grande_stream_reads_its_grey_tops_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hard El Grande seed 103 (black cubes grey under glare, found by grey_tops): a stream's
    reads start no side process (the chain needs the grey tops at once: on the side process
    the 720p reads took 2-6 ms longer) and give the serial reads' observations."""
    made, image, _ = hard_case("el-grande", 103)
    assert made is not None
    made.close()
    cal, layout = made.calibration, made.layout
    found: list[int] = []

    def spy(*args: Any) -> Any:
        out = grey_tops(*args)
        found.append(out.size)
        return out

    monkeypatch.setattr(pipeline, "grey_tops", spy)
    with Reader(cal, layout, SERIAL) as serial, Reader(cal, layout, SIDE) as side:
        want = [serial.read(image) for _ in range(3)]
        got = [side.read(image) for _ in range(3)]
        assert side._side is None
    assert got == want
    assert len(found) == 6 and min(found) > 0


def test_a_lost_side_process_changes_no_read(caplog: pytest.LogCaptureFixture) -> None:
    cal, layout, image, _ = _table()
    with Reader(cal, layout, SERIAL) as serial, Reader(cal, layout, SIDE) as side:
        want = serial.read(image)
        assert side.read(image) == want and side.read(image) == want
        assert side._side is not None
        side._side._process.kill()
        side._side._process.wait(5)
        with caplog.at_level(logging.WARNING):
            assert side.read(image) == want  # (the stages run here instead)
            assert side.read(image) == want
        assert side._side is None
    assert "side process was lost" in caplog.text


def test_a_process_lost_after_the_frame_was_handed_over_gives_the_stage_here() -> None:
    cal, layout, image, _ = _table()
    with Reader(cal, layout, SERIAL) as serial:
        want = serial.read(image).dice
        stages = serial._beside
        geo = serial.geometry()
    side = SideProcess(stages, 2 * image.nbytes)
    try:
        side.begin(geo, functools.partial(_pickled, geo))
        side.ask("dice", image)
        assert side.reply("dice").faces == want
        # (Stopped first, so it cannot answer before it is killed; the geometry was sent.)
        os.kill(side._process.pid, signal.SIGSTOP)
        side.begin(geo, functools.partial(_pickled, geo))
        side.ask("dice", image)
        side._process.kill()
        reply = SideReply(side, "dice", functools.partial(stages.dice, image))
        assert reply.result().faces == want
        assert side.lost
        with pytest.raises(SideLost):
            side.begin(geo, functools.partial(_pickled, geo))
    finally:
        side.close()


def _pickled(value: object) -> bytes:
    import pickle

    return pickle.dumps(value)


class BadTray(VisionError, ValueError):
    """Raised by the stages below, to cross from the side process."""


class Failing:
    """Stages whose dice fail on a dark frame (the error crosses, the process goes on)."""

    def set_geometry(self, geo: Any) -> None:
        if geo == "bad":
            raise BadTray("no geometry")
        self.geo = geo

    def run(self, stage: str, *args: Any) -> Any:
        if stage == "dice":
            (frame,) = args
            if int(frame.max()) == 0:
                raise BadTray("no tray in a black frame: light the table")
            return ("dice", self.geo, int(frame.sum()))
        labels, code = args
        return {"labels": int(labels.sum()), "code": code, "dtype": labels.dtype.str}


def test_a_stages_error_is_raised_on_the_calling_side_and_the_process_goes_on() -> None:
    frame = np.zeros((4, 6, 3), np.uint8)
    side = SideProcess(Failing(), 300)
    try:
        side.begin("geo 1", lambda: _pickled("geo 1"))
        side.ask("dice", frame)
        with pytest.raises(BadTray, match="light the table"):
            side.reply("dice")
        frame[1, 2] = (1, 2, 3)
        side.begin("geo 1", lambda: _pickled("never sent"))
        side.ask("dice", frame)
        # (An array of another type, and a plain value.)
        side.ask("castles", np.full((4, 6), 2, np.uint16), 7)
        # (Asked in the other order: the dice's reply is kept until asked for.)
        assert side.reply("castles") == {"labels": 48, "code": 7, "dtype": "<u2"}
        assert side.reply("dice") == ("dice", "geo 1", 6)
        with pytest.raises(SideLost, match="not asked"):
            side.reply("dice")
        side.begin("geo 1", lambda: b"")
        with pytest.raises(SideLost, match="do not fit"):
            side.ask("dice", np.zeros((11, 10, 3), np.uint8))
        assert side.lost  # (a frame larger than the room made for it: a new Reader)
    finally:
        side.close()


def test_a_geometry_the_side_process_cannot_take_ends_it() -> None:
    """The stages could not be set for the read's geometry: the process ends rather than
    read by the last one, and the next request finds it gone (the Reader then reads the
    stage itself)."""
    frame = np.ones((4, 6, 3), np.uint8)
    side = SideProcess(Failing(), 300)
    try:
        side.begin("bad", lambda: _pickled("bad"))
        assert side._process.wait(10) == 0  # (ended by itself)
        with pytest.raises(SideLost, match="gone"):
            side.ask("dice", frame)
        assert side.lost
    finally:
        side.close()


def test_one_read_starts_no_process() -> None:
    cal, layout, image, _ = _table()
    with Reader(cal, layout, SIDE) as reader:
        reader.read(image)
        assert reader._side is None
    with Reader(replace(cal), layout, replace(SIDE, read_side_process=False)) as reader:
        reader.read(image)
        reader.read(image)
        assert reader._side is None


def test_a_script_with_no_main_guard_reads_a_stream(tmp_path: Path) -> None:
    script = tmp_path / "stream.py"
    script.write_text(
        textwrap.dedent(
            """
            from dataclasses import replace

            from benchmarks.bench_vision import POSITIONS, calibrated
            from companion.vision.config import DEFAULT_CONFIG
            from companion.vision.layout import load_layout
            from companion.vision.pipeline import Reader
            from companion.vision.synth import EASY, render

            layout = load_layout("carolus-magnus")
            setup, position = POSITIONS["carolus-magnus"](2)
            image, truth = render(position, layout, seed=2, conditions=EASY)
            config = replace(DEFAULT_CONFIG, read_threads=2)
            reader = Reader(calibrated(layout, setup, 2, EASY), layout, config)
            reads = [reader.read(image) for _ in range(3)]
            assert reader._side is not None and not reader._side.lost
            assert sorted(reads[2].dice) == sorted(truth["dice"]), reads[2].dice
            print("read", len(reads))
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "read 3"


def test_a_side_process_that_imports_another_companion_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The side process must run this very code: one that found another copy of the
    package first on its path (an older checkout, say) is stopped, and the reads stay here."""
    import shutil

    from companion.vision import side

    shutil.copytree(
        ROOT / "companion", tmp_path / "companion", ignore=shutil.ignore_patterns("__pycache__")
    )
    env = side._environment()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    monkeypatch.setattr(side, "_environment", lambda: env)
    with pytest.raises(SideLost, match=f"imported {tmp_path}"):
        SideProcess(Failing(), 100)
