"""``companion markers``, ``companion vision render`` and ``layout-check`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

DATA = Path(__file__).parent.parent / "data" / "vision"
LAYOUTS = Path(__file__).parent.parent.parent / "companion" / "vision" / "layouts"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
    )


def test_markers_command_writes_a_detectable_sheet(tmp_path: Path) -> None:
    out = run("markers", "--out", str(tmp_path / "m.png"), "--dpi", "100")
    assert out.returncode == 0, out.stderr
    assert "4 markers (0, 1, 2, 3)" in out.stdout and "50 mm" in out.stdout
    page = cv2.imread(str(tmp_path / "m.png"), cv2.IMREAD_GRAYSCALE)
    assert page is not None
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    _, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(page)
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3]


def test_markers_command_pdf_for_carolus(tmp_path: Path) -> None:
    out = run(
        "markers", "--out", str(tmp_path / "m.pdf"), "--game", "carolus-magnus", "--dpi", "72"
    )
    assert out.returncode == 0, out.stderr
    assert "23 markers" in out.stdout and "2 A4 page(s)" in out.stdout
    assert (tmp_path / "m.pdf").read_bytes().startswith(b"%PDF")


def test_markers_bad_dpi_exits_2(tmp_path: Path) -> None:
    out = run("markers", "--out", str(tmp_path / "m.png"), "--dpi", "5")
    assert out.returncode == 2
    assert "--dpi 5: use a whole number from 72 to 1200" in out.stderr
    assert not (tmp_path / "m.png").exists()


def test_render_writes_image_and_truth(tmp_path: Path) -> None:
    target = tmp_path / "table.png"
    pos = DATA / "positions" / "carolus_two_players.json"
    out = run(
        "vision",
        "render",
        str(pos),
        "--out",
        str(target),
        "--size",
        "640x360",
        "--seed",
        "3",
        "--dice",
        "crown,green,blue",
        "--hand",
    )
    assert out.returncode == 0, out.stderr
    image = cv2.imread(str(target))
    assert image is not None and image.shape == (360, 640, 3)
    truth = json.loads((tmp_path / "table.json").read_text())
    assert truth["seed"] == 3 and truth["dice"] == ["crown", "green", "blue"]
    assert truth["occluded"] is True
    assert truth["counts"]["t02"] == {"blue": 1, "green": 2, "pink": 1, "red": 2, "yellow": 3}
    assert "hand over the table" in out.stdout and "table.json" in out.stdout


def test_render_frames_from_stdin(tmp_path: Path) -> None:
    pos = (DATA / "positions" / "el_grande_round3.json").read_text()
    out = run(
        "vision",
        "render",
        "-",
        "--out",
        str(tmp_path / "clip.jpg"),
        "--frames",
        "4",
        "--size",
        "320x180",
        stdin=pos,
    )
    assert out.returncode == 0, out.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"clip_{k:02d}.{ext}" for k in range(4) for ext in ("jpg", "json")]
    frames = [json.loads((tmp_path / f"clip_{k:02d}.json").read_text()) for k in range(4)]
    assert [f["occluded"] for f in frames] == [False, True, True, False]


def test_render_bad_position_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "game": "el-grande",
                "players": ["red", "blue"],
                "king": "aragon",
                "grandes": {"red": "galicia", "blue": "sevilla"},
                "regions": {"galicia": {"red": -2}},
            }
        )
    )
    out = run("vision", "render", str(bad), "--out", str(tmp_path / "x.png"))
    assert out.returncode == 2
    assert out.stderr.strip() == (
        f"companion vision render: {bad}: regions.galicia.red: -2 is not a count"
    )
    assert not (tmp_path / "x.png").exists() and not (tmp_path / "x.json").exists()


def test_render_not_json_and_missing_file(tmp_path: Path) -> None:
    out = run("vision", "render", "-", "--out", str(tmp_path / "x.png"), stdin="{oops")
    assert out.returncode == 2
    assert "standard input: not valid JSON (line 1, column 2)" in out.stderr
    out = run("vision", "render", str(tmp_path / "none.json"), "--out", str(tmp_path / "x.png"))
    assert out.returncode == 2 and "none.json: no such file" in out.stderr
    out = run(
        "vision",
        "render",
        str(DATA / "positions" / "el_grande_round3.json"),
        "--out",
        str(tmp_path / "x.gif"),
    )
    assert out.returncode == 2 and "use a .png or .jpg" in out.stderr
    out = run(
        "vision",
        "render",
        str(DATA / "positions" / "el_grande_round3.json"),
        "--out",
        str(tmp_path / "x.png"),
        "--size",
        "big",
    )
    assert out.returncode == 2 and "WIDTHxHEIGHT" in out.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("option", "bad"), [("stacked", "2"), ("tilted", "-1")])
def test_render_stacked_or_tilted_cubes_and_a_bad_probability(
    tmp_path: Path, option: str, bad: str
) -> None:
    pos = str(DATA / "positions" / "el_grande_round3.json")
    out = run("vision", "render", pos, "--out", str(tmp_path / "s.png"), f"--{option}", "1")
    assert out.returncode == 0, out.stderr
    truth = json.loads((tmp_path / "s.json").read_text())
    assert any(c.get(option) for c in truth["cubes"])
    assert truth["conditions"][option] == 1.0  # (not a preset: the knobs are written out)
    out = run("vision", "render", pos, "--out", str(tmp_path / "x.png"), f"--{option}", bad)
    assert out.returncode == 2
    assert (
        out.stderr.strip() == f"companion vision render: --{option} {bad}: a probability, use 0..1"
    )
    assert not (tmp_path / "x.png").exists()


def test_layout_check_ok_and_overlay_on_a_rendered_photo(tmp_path: Path) -> None:
    photo = tmp_path / "photo.png"
    pos = DATA / "positions" / "carolus_two_players.json"
    assert run("vision", "render", str(pos), "--out", str(photo), "--seed", "5").returncode == 0
    out = run(
        "vision",
        "layout-check",
        str(LAYOUTS / "carolus-magnus.json"),
        "--out",
        str(tmp_path / "o.png"),
        "--photo",
        str(photo),
    )
    assert out.returncode == 0, out.stderr
    assert "OK - layout 'carolus-magnus'" in out.stdout
    assert "board markers [0, 1, 2, 3]" in out.stdout and "t15" in out.stdout
    overlay = cv2.imread(str(tmp_path / "o.png"))
    original = cv2.imread(str(photo))
    assert overlay is not None and original is not None
    assert overlay.shape == original.shape and not np.array_equal(overlay, original)


def test_layout_check_blank_and_bad(tmp_path: Path) -> None:
    out = run("vision", "layout-check", "el-grande", "--out", str(tmp_path / "b.png"))
    assert out.returncode == 0 and "9 region" in out.stdout
    assert cv2.imread(str(tmp_path / "b.png")) is not None
    doc = json.loads((LAYOUTS / "el-grande.json").read_text())
    doc["areas"][2]["polygon"] = [[0, 0], [1, 1]]
    bad = tmp_path / "mine.json"
    bad.write_text(json.dumps(doc))
    out = run("vision", "layout-check", str(bad))
    assert out.returncode == 2
    assert "areas[2].polygon: needs a list of at least 3 points" in out.stderr
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((100, 100, 3), 255, np.uint8))
    out = run(
        "vision",
        "layout-check",
        "el-grande",
        "--out",
        str(tmp_path / "o.png"),
        "--photo",
        str(blank),
    )
    assert out.returncode == 2 and "found board markers none" in out.stderr
