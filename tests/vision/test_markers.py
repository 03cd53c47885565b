"""Printable marker sheets: detected by OpenCV with the right ids, at the stated size."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from companion.vision.layout import load_layout
from companion.vision.markers import MARGIN_MM, MarkerSheetError, render_pages, write_sheet


def detect(page: np.ndarray) -> dict[int, np.ndarray]:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(page)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel(), strict=True)}


def test_el_grande_sheet_png_has_the_board_markers_at_true_size(tmp_path: Path) -> None:
    dpi = 150
    written = write_sheet(tmp_path / "sheet.png", load_layout("el-grande"), dpi)
    assert written == [tmp_path / "sheet.png"]
    with Image.open(written[0]) as img:
        assert img.info["dpi"] == pytest.approx((dpi, dpi), abs=0.05)  # stored per metre
        assert img.size == (round(210 / 25.4 * dpi), round(297 / 25.4 * dpi))
        page = np.array(img.convert("L"))
    found = detect(page)
    assert set(found) == {0, 1, 2, 3}
    for corners in found.values():
        side = np.mean([np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)])
        assert side == pytest.approx(40 / 25.4 * dpi, rel=0.02)
        # Upright as printed: corner 0 is the top-left one.
        assert corners[0][0] < corners[1][0] and corners[0][1] < corners[3][1]


def test_check_bar_is_50_mm(tmp_path: Path) -> None:
    dpi = 200
    pages, _ = render_pages(load_layout("el-grande"), dpi)
    page = np.array(pages[0])
    px = dpi / 25.4
    row = page[round((MARGIN_MM + 14.5) * px)]
    dark = np.flatnonzero(row < 128)
    # The first dark run along that row is the bar.
    gaps = np.flatnonzero(np.diff(dark) > 1)
    run_end = dark[gaps[0]] if len(gaps) else dark[-1]
    assert (run_end - dark[0] + 1) / px == pytest.approx(50, abs=0.3)


def test_carolus_sheet_has_every_marker_once_across_pages(tmp_path: Path) -> None:
    layout = load_layout("carolus-magnus")
    pages, placed = render_pages(layout, 120)
    assert len(pages) == 2
    found: dict[int, int] = {}
    for k, page in enumerate(pages):
        for marker_id, corners in detect(np.array(page)).items():
            assert marker_id not in found, f"marker {marker_id} printed twice"
            found[marker_id] = k
            expected = next(p.marker.size for p in placed if p.marker.id == marker_id)
            side = np.linalg.norm(corners[0] - corners[1])
            assert side == pytest.approx(expected / 25.4 * 120, rel=0.03)
    assert sorted(found) == sorted(layout.all_marker_ids())
    assert {p.page for p in placed} == {0, 1}


def test_pdf_holds_all_pages(tmp_path: Path) -> None:
    path = tmp_path / "markers.pdf"
    assert write_sheet(path, load_layout("carolus-magnus"), 100) == [path]
    data = path.read_bytes()
    assert data.startswith(b"%PDF")
    assert data.count(b"/Type /Page") - data.count(b"/Type /Pages") == 2
    # A4 in points (1/72 inch), so a printer at 100 % prints the markers at their true size.
    boxes = re.findall(rb"MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)
    assert len(boxes) == 2
    for w, h in boxes:
        assert float(w) / 72 * 25.4 == pytest.approx(210, abs=0.5)
        assert float(h) / 72 * 25.4 == pytest.approx(297, abs=0.5)


def test_several_png_pages_get_numbered_names(tmp_path: Path) -> None:
    written = write_sheet(tmp_path / "cm.png", load_layout("carolus-magnus"), 80)
    assert written == [tmp_path / "cm.png", tmp_path / "cm-2.png"]
    assert all(p.exists() for p in written)


@pytest.mark.parametrize("dpi", [10, 5000, 0])
def test_bad_dpi_is_refused(dpi: int, tmp_path: Path) -> None:
    with pytest.raises(MarkerSheetError, match="--dpi"):
        write_sheet(tmp_path / "x.png", load_layout("el-grande"), dpi)
    assert not (tmp_path / "x.png").exists()


def test_bad_file_type_is_refused(tmp_path: Path) -> None:
    with pytest.raises(MarkerSheetError, match=r"\.png or \.pdf"):
        write_sheet(tmp_path / "x.gif", load_layout("el-grande"), 100)
