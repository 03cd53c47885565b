"""Camera sources on real files: images, folders, a video written here, the factory."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.devices.camera import (
    CameraError,
    FileSource,
    VideoSource,
    open_camera,
)


def write_images(folder: Path, n: int) -> list[np.ndarray]:
    images = []
    for i in range(n):
        img = np.full((48, 64, 3), 40 * i, np.uint8)
        cv2.imwrite(str(folder / f"f{i:02d}.png"), img)
        images.append(img)
    return images


def test_folder_source_yields_images_in_name_order(tmp_path: Path) -> None:
    images = write_images(tmp_path, 3)
    with open_camera(str(tmp_path)) as cam:
        got = list(cam.frames())
    assert [int(f[0, 0, 0]) for f in got] == [int(i[0, 0, 0]) for i in images]


def test_file_source_repeats_one_image(tmp_path: Path) -> None:
    write_images(tmp_path, 1)
    with FileSource(tmp_path / "f00.png", repeat=4) as cam:
        assert len(list(cam.frames())) == 4


def test_video_file_source(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), 50 * i, np.uint8))
    writer.release()
    with open_camera(f"video:{path}") as cam:
        frames = list(cam.frames())
    assert isinstance(cam, VideoSource)
    assert len(frames) == 5 and frames[0].shape == (48, 64, 3)
    assert frames[4].mean() > frames[1].mean()


def test_factory_reads_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_images(tmp_path, 2)
    monkeypatch.setenv("COMPANION_CAMERA", f"file:{tmp_path}")
    with open_camera() as cam:
        assert len(list(cam.frames())) == 2


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("/nonexistent/folder.png", "no such image file or folder"),
        ("device:x", "the device is a number"),
        ("device:7@big", "is not a size WIDTHxHEIGHT"),
        ("video:/nonexistent.mp4", "no such video file"),
        ("telescope", "is not a camera"),
        ("synthetic:/nonexistent.json", "no such position file"),
    ],
)
def test_bad_specs_are_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(CameraError, match=message):
        open_camera(spec)


def test_no_camera_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMPANION_CAMERA", raising=False)
    with pytest.raises(CameraError, match="no camera chosen"):
        open_camera()


def test_picamera2_off_the_pi_says_what_to_use() -> None:
    with pytest.raises(CameraError, match="only on a Raspberry Pi"):
        open_camera("picamera2")


def test_not_an_image_in_a_folder(tmp_path: Path) -> None:
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n truncated")
    with FileSource(tmp_path) as cam, pytest.raises(CameraError, match="not an image"):
        list(cam.frames())
