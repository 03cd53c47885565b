"""``companion vision read`` and ``calibrate`` as a user runs them: real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.layout import load_layout
from tests.vision.drawtable import Table, paint


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", "vision", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def table_png(tmp_path_factory: pytest.TempPathFactory) -> Path:
    layout = load_layout("el-grande")
    t = Table(layout)
    x, y = layout.polygon("granada").centroid
    t.cubes += [("green", x, y), ("green", x + 10, y), ("green", x, y + 10)]
    t.squares.append(("green", x - 25, y, 16))
    path = tmp_path_factory.mktemp("cli") / "table.png"
    cv2.imwrite(str(path), paint(t))
    return path


def test_read_prints_observation_json(table_png: Path) -> None:
    out = run("read", str(table_png), "--layout", "el-grande")
    assert out.returncode == 0, out.stderr
    obs = json.loads(out.stdout)
    assert obs["counts"]["granada"] == {"green": 3}
    assert obs["figures"]["grande:green"] == "granada"
    assert obs["occluded"] is False


def test_calibrate_then_read(table_png: Path, tmp_path: Path) -> None:
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"game": "el-grande", "grandes": {"green": "granada"}}))
    cal = tmp_path / "cal.json"
    out = run(
        "calibrate",
        str(table_png),
        "--layout",
        "el-grande",
        "--position",
        str(setup),
        "--out",
        str(cal),
    )
    assert out.returncode == 0, out.stderr
    assert "colours sampled: green" in out.stdout
    assert "lens estimated" not in out.stdout  # (a flat drawing: nothing bent)
    out = run("read", str(table_png), "--layout", "el-grande", "--calibration", str(cal))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["counts"]["granada"] == {"green": 3}


def test_calibrate_estimates_a_wide_lens_from_the_markers(tmp_path: Path) -> None:
    from benchmarks.bench_vision import POSITIONS
    from companion.vision.synth import HARD, render

    layout = load_layout("el-grande")
    setup, _ = POSITIONS["el-grande"](4)
    image, truth = render(setup, layout, seed=4, conditions=HARD)  # (a barrel lens, k1 -0.21)
    png, position, cal = tmp_path / "setup.png", tmp_path / "setup.json", tmp_path / "cal.json"
    cv2.imwrite(str(png), image)
    position.write_text(json.dumps(setup))
    out = run("calibrate", str(png), "--layout", "el-grande", "--position", str(position),
              "--out", str(cal))  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "lens estimated from the markers (radial term k1 -0." in out.stdout
    # The bend in pixels (k1 over the focal length squared) is the camera's own, to 15 %.
    saved, camera = json.loads(cal.read_text())["lens"], truth["camera"]
    bend = saved["distortion"][0] / saved["matrix"][0][0] ** 2
    assert bend == pytest.approx(camera["dist"][0] / camera["matrix"][0][0] ** 2, rel=0.15)


def test_not_an_image(tmp_path: Path) -> None:
    bad = tmp_path / "notes.png"
    bad.write_text("these are not pixels")
    out = run("read", str(bad), "--layout", "el-grande")
    assert out.returncode == 2
    assert "not an image OpenCV can read" in out.stderr
    assert out.stdout == ""


def test_truncated_image(table_png: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.png"
    cut.write_bytes(table_png.read_bytes()[:300])
    out = run("read", str(cut), "--layout", "el-grande")
    assert out.returncode == 2
    assert "not an image" in out.stderr or "markers not found" in out.stderr


def test_blank_image_names_missing_markers(tmp_path: Path) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((360, 640, 3), 128, np.uint8))
    out = run("read", str(blank), "--layout", "el-grande")
    assert out.returncode == 2
    assert "board markers not found: id 0, 1, 2, 3" in out.stderr


def test_missing_file_and_bad_layout(table_png: Path) -> None:
    out = run("read", "/nonexistent.png", "--layout", "el-grande")
    assert out.returncode == 2 and "no such file" in out.stderr
    out = run("read", str(table_png), "--layout", "monopoly")
    assert out.returncode == 2 and "not a shipped layout" in out.stderr


def test_calibrate_with_a_position_of_the_other_game(table_png: Path, tmp_path: Path) -> None:
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"game": "carolus-magnus"}))
    cal = tmp_path / "cal.json"
    out = run(
        "calibrate",
        str(table_png),
        "--layout",
        "el-grande",
        "--position",
        str(setup),
        "--out",
        str(cal),
    )
    assert out.returncode == 2
    assert "same game" in out.stderr
    assert not cal.exists()


def test_lens_file(table_png: Path, tmp_path: Path) -> None:
    lens = tmp_path / "lens.json"
    # A lens without distortion changes nothing: same counts as without.
    lens.write_text(
        json.dumps({"matrix": [[900, 0, 480], [0, 900, 360], [0, 0, 1]], "distortion": [0] * 5})
    )
    out = run("read", str(table_png), "--layout", "el-grande", "--lens", str(lens))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["counts"]["granada"] == {"green": 3}
    lens.write_text(json.dumps({"matrix": [[1, 0], [0, 1]]}))
    out = run("read", str(table_png), "--layout", "el-grande", "--lens", str(lens))
    assert out.returncode == 2
    assert "a lens is" in out.stderr and out.stdout == ""


def test_calibrate_warns_when_cubes_are_too_small(tmp_path: Path) -> None:
    """A 640x360 camera sees El Grande's cubes ~5 px across: calibration is written, but the
    user is told the reader needs more pixels and what to change."""
    from companion.vision.synth import EASY, render

    setup = {
        "game": "el-grande",
        "players": ["red", "blue", "green"],
        "king": "aragon",
        "grandes": {"red": "galicia", "blue": "granada", "green": "valencia"},
        "regions": {"galicia": {"red": 2}, "granada": {"blue": 2}, "valencia": {"green": 2}},
    }
    position = tmp_path / "setup.json"
    position.write_text(json.dumps(setup))
    for (w, h), warned in (((640, 360), True), ((1280, 720), False)):
        image, _ = render(setup, "el-grande", seed=2, conditions=EASY.with_size(w, h))
        png = tmp_path / f"setup-{w}.png"
        cv2.imwrite(str(png), image)
        cal = tmp_path / f"cal-{w}.json"
        out = run("calibrate", str(png), "--layout", "el-grande", "--position", str(position),
                  "--out", str(cal))  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert cal.exists() and "px across" in out.stdout
        sides = [float(v) for v in out.stdout.split("cubes ")[1].split(" px")[0].split("-")]
        assert (sides[0] < 8) is warned
        assert ("warning: cubes are only" in out.stderr) is warned
        assert ("hardware/camera.md" in out.stderr) is warned


def test_calibrate_warns_of_a_court_card_it_cannot_see(tmp_path: Path) -> None:
    from benchmarks.bench_vision import POSITIONS
    from companion.vision.synth import HARD, render

    # Hard Carolus seed 16 with court card 1's marker (and its margin) covered.
    setup, _ = POSITIONS["carolus-magnus"](16)
    image, truth = render(setup, load_layout("carolus-magnus"), seed=16, conditions=HARD)
    corners = np.array(next(m["corners"] for m in truth["markers"] if m["id"] == 30))
    grown = corners.mean(axis=0) + (corners - corners.mean(axis=0)) * 1.6
    cv2.fillPoly(image, [np.round(grown).astype(np.int32)], (110, 112, 115))
    png, position, cal = tmp_path / "setup.png", tmp_path / "setup.json", tmp_path / "cal.json"
    cv2.imwrite(str(png), image)
    position.write_text(json.dumps(setup))
    out = run(
        "calibrate",
        str(png),
        "--layout",
        "carolus-magnus",
        "--position",
        str(position),
        "--out",
        str(cal),
    )
    assert out.returncode == 0, out.stderr
    assert "warning: court card of seat 1 (marker 30) not found" in out.stderr
    assert "seat 2" not in out.stderr
    assert json.loads(cal.read_text())["courts_in_play"] == [1, 2]


def test_calibrate_keeps_the_players_and_refuses_a_colour_of_no_player(
    table_png: Path, tmp_path: Path
) -> None:
    setup = tmp_path / "setup.json"
    position = {"game": "el-grande", "players": ["green", "red"], "grandes": {"green": "granada"}}
    setup.write_text(json.dumps(position))
    cal = tmp_path / "cal.json"
    args = ("calibrate", str(table_png), "--layout", "el-grande", "--position", str(setup))
    out = run(*args, "--out", str(cal))
    assert out.returncode == 0, out.stderr
    assert json.loads(cal.read_text())["players"] == ["green", "red"]
    setup.write_text(json.dumps({**position, "players": ["green", "purple"]}))
    bad = tmp_path / "bad.json"
    out = run(*args, "--out", str(bad))
    assert out.returncode == 2
    assert "['purple'] are not El Grande colours" in out.stderr
    assert not bad.exists()
