"""``companion vision watch`` as a user runs it (real subprocesses): a camera's frames through
the still gate, one observation each time the table comes to rest; the synthetic camera is a
table at rest with fresh sensor noise."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from benchmarks.bench_vision import POSITIONS
from companion.devices.camera import open_camera
from companion.vision.config import DEFAULT_CONFIG
from companion.vision.layout import load_layout
from companion.vision.still import is_moving, thumbnail
from companion.vision.synth import EASY, render, render_sequence, still_table


def calibrate_here(tmp_path: Path, game: str, setup: dict[str, Any], *extra: str) -> None:
    """``companion vision calibrate`` on tmp_path's setup.png and this set-up position (written
    beside it), the calibration written to tmp_path's cal.json."""
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    calibrate = ["calibrate", str(tmp_path / "setup.png"), "--layout", game]
    calibrate += ["--position", str(tmp_path / "setup.json"), "--out", str(tmp_path / "cal.json")]
    made = subprocess.run(
        [sys.executable, "-m", "companion.cli", "vision", *calibrate, *extra],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", "vision", "watch", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def counts(observation: dict[str, Any]) -> dict[str, dict[str, int]]:
    return {a: c for a, c in observation["counts"].items() if c}


def test_the_synthetic_camera_is_a_table_at_rest(tmp_path: Path) -> None:
    _, position = POSITIONS["carolus-magnus"](2)
    path = tmp_path / "position.json"
    path.write_text(json.dumps(position))
    with open_camera(f"synthetic:{path}?seed=2") as camera:
        frames = list(itertools.islice(camera.frames(), 3))
    still, _ = render(position, load_layout("carolus-magnus"), seed=2, conditions=EASY)
    for a, b in itertools.pairwise(frames):
        assert not is_moving(thumbnail(a), thumbnail(b), DEFAULT_CONFIG)
        assert not np.array_equal(a, b)  # (fresh noise each frame)
    # The same table as the renderer's picture of it: only noise apart.
    assert float(np.mean(cv2.absdiff(frames[0], still))) < 3.0


def test_watch_prints_an_observation_each_time_the_table_comes_to_rest(tmp_path: Path) -> None:
    """Three frames of the set-up, three of a later position (its tiles moved, a castle and
    dice on the table), calibrated on the set-up: two observations, each the truth."""
    game = "carolus-magnus"
    layout = load_layout(game)
    setup, position = POSITIONS[game](2)
    folder = tmp_path / "frames"
    folder.mkdir()
    truths = []
    for n, table in enumerate((setup, position)):
        _, truth = render(table, layout, seed=2, conditions=EASY)
        truths.append(truth)
        for k, frame in enumerate(itertools.islice(still_table(table, layout, seed=2), 3)):
            cv2.imwrite(str(folder / f"{n}{k}.png"), frame)
        if n == 0:
            cv2.imwrite(str(tmp_path / "setup.png"), frame)
    calibrate_here(tmp_path, game, setup)
    done = run(
        "--camera", str(folder), "--layout", game, "--calibration", str(tmp_path / "cal.json")
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    got = [json.loads(line) for line in lines]
    for observation, truth in zip(got, truths, strict=True):
        assert not observation["occluded"]
        assert observation["frames"] == DEFAULT_CONFIG.still_frames
        assert counts(observation) == truth["counts"]
    assert sorted(got[1]["dice"]) == sorted(truths[1]["dice"])
    castles = {
        p["area"]: p["colour"]
        for p in truths[1]["pieces"]
        if p["kind"] == "castle" and p["area"] != "castle_supply"
    }
    assert castles and got[1]["castles"] == castles


def test_watch_stops_after_the_observations_asked_for(tmp_path: Path) -> None:
    setup, _ = POSITIONS["el-grande"](3)
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(setup))
    done = run(
        "--camera", f"synthetic:{path}?seed=3", "--layout", "el-grande", "--observations", "1"
    )
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    assert json.loads(line)["game"] == "el-grande"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--camera", "synthetic:/nonexistent.json"], "no such position file"),
        (["--camera", "device:x"], "the device is a number"),
        (["--camera", "/nonexistent/folder/", "--frames", "0"], "at least 1"),
        (["--calibration", "/nonexistent.json"], "nonexistent.json"),
    ],
)
def test_bad_input_is_a_clear_message(args: list[str], message: str) -> None:
    done = run("--layout", "el-grande", *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""


def test_a_hand_reaching_in_and_out_gives_no_counts_only_the_table_at_rest(
    tmp_path: Path,
) -> None:
    """A clip of a still table with a hand reaching in over frames 3-8 and withdrawing:
    the table at rest before and after, never the moving hand."""
    game = "el-grande"
    layout = load_layout(game)
    _, position = POSITIONS[game](3)
    clip = render_sequence(position, layout, seed=3, frames=12, hand_frames=(3, 8))
    folder = tmp_path / "clip"
    folder.mkdir()
    for k, (frame, _) in enumerate(clip):
        cv2.imwrite(str(folder / f"{k:02d}.png"), frame)
    assert any(truth["hand"] for _, truth in clip)
    done = run("--camera", str(folder), "--layout", game)
    assert done.returncode == 0, done.stderr
    got = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(got) == 2
    for observation in got:
        assert not observation["occluded"]
        assert counts(observation) == clip[0][1]["counts"]


def test_frames_before_the_board_is_seen_are_waited_through(tmp_path: Path) -> None:
    """A camera whose first frames show no board (covered, not yet pointed at it): the watch
    says so once and reads the table once it shows; a camera that never shows it: exit 2."""
    game = "el-grande"
    layout = load_layout(game)
    _, position = POSITIONS[game](3)
    table = list(itertools.islice(still_table(position, layout, seed=3), 3))
    folder = tmp_path / "late"
    folder.mkdir()
    blank = np.full_like(table[0], 128)
    for k, frame in enumerate([blank, blank, *table]):
        cv2.imwrite(str(folder / f"{k:02d}.png"), frame)
    done = run("--camera", str(folder), "--layout", game)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    _, truth = render(position, layout, seed=3, conditions=EASY)
    assert counts(json.loads(line)) == truth["counts"]
    assert done.stderr.count("waiting for the board") == 1
    assert "frame 1: board markers not found" in done.stderr

    never = tmp_path / "never"
    never.mkdir()
    for k in range(3):
        cv2.imwrite(str(never / f"{k}.png"), blank)
    done = run("--camera", str(never), "--layout", game)
    assert done.returncode == 2
    assert "the board was never seen: board markers not found" in done.stderr
    assert done.stdout == ""


def test_a_camera_whose_resolution_changes_mid_stream_is_a_clear_error(tmp_path: Path) -> None:
    """The stream's size is the first frame's (the calibration re-estimated there): frames of
    another size later (the camera switched resolution) stop the watch with exit 2."""
    layout = load_layout("el-grande")
    setup, _ = POSITIONS["el-grande"](3)
    frames = list(itertools.islice(still_table(setup, layout, seed=3), 4))
    folder = tmp_path / "switched"
    folder.mkdir()
    cv2.imwrite(str(folder / "0.png"), frames[0])
    for k, frame in enumerate(frames[1:], 1):
        cv2.imwrite(str(folder / f"{k}.png"), cv2.resize(frame, (640, 360)))
    done = run("--camera", str(folder), "--layout", "el-grande")
    assert done.returncode == 2
    assert "frame is 640x360 but the calibration was made at 1280x720" in done.stderr
    assert done.stdout == ""


def test_a_camera_set_to_another_aspect_ratio_than_its_calibration_is_refused(
    tmp_path: Path,
) -> None:
    """A calibration file's lens model is in pixels. A 4:3 camera mode crops the sensor
    otherwise than the 16:9 one the calibration was made at: the lens's centre and focal
    length there are unknown, so the watch stops with exit 2 at once (no later frame mends
    it); a frame of the same shape at another size is read (the lens scaled)."""
    layout = load_layout("el-grande")
    setup, _ = POSITIONS["el-grande"](3)
    frames = list(itertools.islice(still_table(setup, layout, seed=3), 3))
    cv2.imwrite(str(tmp_path / "setup.png"), frames[0])
    # (The rendered camera's lens bends nothing: a lens of no distortion, in its pixels.)
    lens = {"matrix": [[1100, 0, 639.5], [0, 1100, 359.5], [0, 0, 1]], "distortion": [0] * 5}
    (tmp_path / "lens.json").write_text(json.dumps(lens))
    calibrate_here(tmp_path, "el-grande", setup, "--lens", str(tmp_path / "lens.json"))
    assert json.loads((tmp_path / "cal.json").read_text())["lens"]["matrix"] == lens["matrix"]
    modes = (("wide", (1920, 1080), slice(None)), ("square", (640, 480), slice(160, 1120)))
    for name, size, crop in modes:
        folder = tmp_path / name
        folder.mkdir()
        for k, frame in enumerate(frames):
            cv2.imwrite(str(folder / f"{k}.png"), cv2.resize(frame[:, crop], size))
        done = run(
            "--camera", str(folder), "--layout", "el-grande",
            "--calibration", str(tmp_path / "cal.json"),
        )  # fmt: skip
        if name == "wide":
            assert done.returncode == 0, done.stderr
            (line,) = done.stdout.splitlines()
            assert not json.loads(line)["occluded"]
        else:
            assert done.returncode == 2
            assert (
                "frame is 640x480 but the calibration, with its lens model, was made at 1280x720"
                in done.stderr
            )
            assert done.stdout == ""
