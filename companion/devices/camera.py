"""Camera sources: thin adapters that yield BGR frames; all reading happens in companion.vision.

Every source is a context manager with ``frames()`` (an iterator of frames). The factory
:func:`open_camera` picks one from a spec string, given as an argument or in the environment
variable ``COMPANION_CAMERA`` (gpiozero-style: code names no backend):

- ``file:PATH`` or a bare path to an image: that image (repeated ``repeat`` times);
  a folder: its images in name order
- ``video:PATH`` (or a path ending in .mp4/.avi/.mkv/.mov): a video file
- ``device:N``: OpenCV capture device N (USB webcam), optionally ``device:N@1280x720``
- ``picamera2`` (optionally ``picamera2@1920x1080``): the Raspberry Pi camera
- ``synthetic:POSITION.json`` (optionally ``?layout=NAME&seed=N&conditions=easy``): the renderer
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs

import numpy as np
import numpy.typing as npt

from companion.devices.errors import DeviceError

Frame = npt.NDArray[Any]
ENV = "COMPANION_CAMERA"
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".mov", ".webm"}


class CameraError(DeviceError, OSError):
    """A camera that cannot be opened or read; the message says which and what to do."""


class Source:
    """Base of every camera source: a context manager yielding frames."""

    name = "camera"

    def frames(self) -> Iterator[Frame]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the device (idempotent)."""

    def __enter__(self) -> Source:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _read_image(path: Path) -> Frame:
    import cv2

    data = np.fromfile(str(path), np.uint8) if path.is_file() else None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data is not None and data.size else None
    if image is None:
        raise CameraError(f"{path}: not an image OpenCV can read")
    return image


class FileSource(Source):
    """One image file (repeated) or every image in a folder, in name order."""

    def __init__(self, path: str | Path, repeat: int = 1) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        if self.path.is_dir():
            self.paths = sorted(
                p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES
            )
            if not self.paths:
                raise CameraError(
                    f"{self.path}: folder holds no images ({', '.join(IMAGE_SUFFIXES)})"
                )
        elif self.path.is_file():
            self.paths = [self.path] * max(1, repeat)
        else:
            raise CameraError(f"{self.path}: no such image file or folder")

    def frames(self) -> Iterator[Frame]:
        for p in self.paths:
            yield _read_image(p)


class VideoSource(Source):
    """Frames of a video file, or of an OpenCV capture device (a USB webcam)."""

    def __init__(self, target: str | int, size: tuple[int, int] | None = None) -> None:
        import cv2

        self.name = f"device {target}" if isinstance(target, int) else str(target)
        if isinstance(target, str) and not Path(target).is_file():
            raise CameraError(f"{target}: no such video file")
        self._cap = cv2.VideoCapture(target)
        if not self._cap.isOpened():
            self._cap.release()
            what = "camera device" if isinstance(target, int) else "video file"
            raise CameraError(
                f"cannot open {what} {target}; check the cable or path, or choose another "
                f"source with {ENV}"
            )
        if size is not None:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])

    def frames(self) -> Iterator[Frame]:
        while True:
            ok, frame = self._cap.read()
            if not ok:
                return
            yield frame

    def close(self) -> None:
        self._cap.release()


class Picamera2Source(Source):
    """The Raspberry Pi camera. Exposure and white balance are locked after a warm-up, so the
    colour calibration stays valid while people move around the table."""

    name = "picamera2"

    def __init__(self, size: tuple[int, int] = (1920, 1080), warmup_s: float = 2.0) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise CameraError(
                "picamera2 is not available: it exists only on a Raspberry Pi with "
                "`sudo apt install python3-picamera2`; elsewhere use a USB webcam "
                f"({ENV}=device:0) or the synthetic camera ({ENV}=synthetic:POSITION.json)"
            ) from None
        self._cam = Picamera2()
        config = self._cam.create_still_configuration(main={"size": size, "format": "BGR888"})
        self._cam.configure(config)
        self._cam.start()
        time.sleep(warmup_s)  # let auto exposure and white balance settle
        meta = self._cam.capture_metadata()
        self._cam.set_controls(
            {
                "AeEnable": False,
                "AwbEnable": False,
                "ExposureTime": meta["ExposureTime"],
                "AnalogueGain": meta["AnalogueGain"],
                "ColourGains": meta["ColourGains"],
            }
        )

    def frames(self) -> Iterator[Frame]:
        while True:
            yield self._cam.capture_array("main")

    def close(self) -> None:
        self._cam.stop()
        self._cam.close()


class SyntheticSource(Source):
    """The synthetic table: the project's renderer's picture of a position at rest, frame
    after frame, each with fresh sensor noise (the pieces, light and camera stay put, as over
    a real table between moves; ``count`` frames, or without end)."""

    def __init__(
        self,
        position: str | Path,
        layout: str | None = None,
        seed: int = 0,
        conditions: str = "easy",
        count: int | None = None,
    ) -> None:
        import json

        path = Path(position)
        try:
            self.position = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CameraError(f"{path}: no such position file") from None
        except (OSError, ValueError) as exc:
            raise CameraError(f"{path}: not a readable position JSON file: {exc}") from None
        self.name = f"synthetic {path.name}"
        self.layout = layout or str(self.position.get("game", "el-grande"))
        self.seed = seed
        self.conditions = conditions
        self.count = count

    def frames(self) -> Iterator[Frame]:
        import importlib
        import itertools

        from companion.vision.layout import load_layout

        # Imported by name: the renderer is the vision layer's, and optional on a Pi.
        synth: Any = importlib.import_module("companion.vision.synth")
        conditions_mod: Any = importlib.import_module("companion.vision.synth.conditions")
        layout = load_layout(self.layout)
        if self.conditions not in conditions_mod.PRESETS:
            raise CameraError(
                f"conditions {self.conditions!r}: use one of {', '.join(conditions_mod.PRESETS)}"
            )
        conditions = conditions_mod.PRESETS[self.conditions]
        frames = synth.still_table(self.position, layout, seed=self.seed, conditions=conditions)
        yield from itertools.islice(frames, self.count)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = text.lower().split("x")
        return int(w), int(h)
    except ValueError:
        raise CameraError(f"{text!r} is not a size WIDTHxHEIGHT, e.g. 1280x720") from None


def open_camera(spec: str | None = None) -> Source:
    """The source a spec names (see the module doc); default: ``$COMPANION_CAMERA``."""
    spec = spec if spec is not None else os.environ.get(ENV)
    if not spec:
        raise CameraError(
            f"no camera chosen: pass one or set {ENV} (file:PATH, video:PATH, device:0, "
            "picamera2, synthetic:POSITION.json)"
        )
    kind, _, rest = spec.partition(":")
    if kind == "picamera2" or kind.startswith("picamera2@"):
        at = spec.partition("@")[2]
        return Picamera2Source(_size(at)) if at else Picamera2Source()
    if kind == "device":
        index, _, at = rest.partition("@")
        if not index.isdigit():
            raise CameraError(f"{spec!r}: the device is a number, e.g. device:0")
        return VideoSource(int(index), _size(at) if at else None)
    if kind == "video":
        return VideoSource(rest)
    if kind == "file":
        return FileSource(rest)
    if kind == "synthetic":
        position, _, query = rest.partition("?")
        q = {k: v[-1] for k, v in parse_qs(query).items()}
        try:
            seed = int(q.get("seed", "0"))
        except ValueError:
            raise CameraError(f"{spec!r}: seed must be a whole number") from None
        return SyntheticSource(position, q.get("layout"), seed, q.get("conditions", "easy"))
    path = Path(spec)
    if path.suffix.lower() in VIDEO_SUFFIXES:
        return VideoSource(spec)
    if path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES:
        return FileSource(path)
    raise CameraError(
        f"{spec!r} is not a camera: use file:PATH, video:PATH, device:N, picamera2 or "
        "synthetic:POSITION.json"
    )
