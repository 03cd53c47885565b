"""The synthetic table: a position in, a camera image and its ground truth out."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.games.elgrande.position import Position
from companion.vision.errors import RenderError
from companion.vision.layout import GAMES, Layout, MarkerSpec, Pose, load_layout
from companion.vision.synth import art, effects
from companion.vision.synth.camera import Camera, make_camera
from companion.vision.synth.conditions import EASY, PRESETS, Conditions
from companion.vision.synth.pieces import draw_pieces, draw_shadows
from companion.vision.synth.scene import Scene, carolus_scene, el_grande_scene, read_position

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]
TRUTH_FORMAT = 1
EDGES = ("top", "right", "bottom", "left")


@dataclass(frozen=True)
class _Prepared:
    """Everything of one render that does not change from frame to frame."""

    position_game: str
    layout: Layout
    scene: Scene
    camera: Camera
    image: U8  # lit, before hand and sensor
    tops: list[tuple[float, float]]
    seed: int
    conditions: Conditions
    mm_px: float
    hand_rng_seed: int


def _seeds(seed: int) -> list[np.random.Generator]:
    # Separate streams, so turning the hand on does not move a single cube.
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(5)]


def _prepare(
    position: Mapping[str, Any],
    layout: Layout | str | None,
    seed: int,
    conditions: Conditions,
    dice: Sequence[str] | None,
) -> _Prepared:
    if not isinstance(position, Mapping):
        raise RenderError(f"position: must be a JSON object, got {type(position).__name__}")
    game = position.get("game")
    if game not in GAMES:
        raise RenderError(f"game: {game!r} is not a known game ({', '.join(GAMES)})")
    if layout is None:
        layout = load_layout(str(game))
    elif isinstance(layout, str):
        layout = load_layout(layout)
    if layout.game != game:
        raise RenderError(f"layout {layout.name!r} is for {layout.game}, the position is {game}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise RenderError(f"seed: {seed!r} is not a whole number ≥ 0")
    parsed = read_position(position)
    scene_rng, camera_rng, light_rng, hand_rng, _ = _seeds(seed)
    if isinstance(parsed, Position):
        scene = el_grande_scene(parsed, layout, scene_rng, conditions)
    else:
        scene = carolus_scene(
            parsed, layout, scene_rng, conditions, None if dice is None else tuple(dice)
        )
    extent = art.table_extent(layout, margin=10.0)
    target = ((extent[0] + extent[2]) / 2, (extent[1] + extent[3]) / 2)
    camera = make_camera(extent, target, conditions, camera_rng)
    distance = float(np.linalg.norm(camera.centre - np.array([target[0], target[1], 0.0])))
    mm_px = float(camera.K[0, 0]) / distance
    scale = min(4.0, max(1.0, round(mm_px * 1.6 * 4) / 4))
    base, canvas = art.base_art(layout, scale)
    texture = base.copy()
    art.draw_flats(texture, canvas, layout, scene)
    image = _warp(texture, canvas, camera)
    draw_shadows(image, scene.pieces, camera, conditions.piece_shadows)
    tops = draw_pieces(image, scene.pieces, camera)
    image = effects.lighting(image, conditions, light_rng)
    return _Prepared(
        str(game),
        layout,
        scene,
        camera,
        image,
        tops,
        seed,
        conditions,
        mm_px,
        int(hand_rng.integers(2**31)),
    )


def _warp(texture: U8, canvas: art.Canvas, camera: Camera) -> U8:
    """Look at the flat table through the camera (distortion included)."""
    w, h = camera.width, camera.height
    step = 4
    gx = np.arange(0, w + step, step, dtype=np.float64)
    gy = np.arange(0, h + step, step, dtype=np.float64)
    px, py = np.meshgrid(gx, gy)
    board = camera.pixels_to_board(np.column_stack([px.ravel(), py.ravel()]))
    mx = ((board[:, 0] - canvas.x0) * canvas.scale).reshape(px.shape).astype(np.float32)
    my = ((board[:, 1] - canvas.y0) * canvas.scale).reshape(px.shape).astype(np.float32)
    # Node k of the coarse grid sits at pixel k·step: interpolate bilinearly at exactly x/step
    # (cv2.resize would align pixel centres instead and shift the board against the pieces).
    fx = np.tile((np.arange(w, dtype=np.float32) / step)[None, :], (h, 1))
    fy = np.tile((np.arange(h, dtype=np.float32) / step)[:, None], (1, w))
    mx_full = np.asarray(cv2.remap(mx, fx, fy, cv2.INTER_LINEAR), np.float32)
    my_full = np.asarray(cv2.remap(my, fx, fy, cv2.INTER_LINEAR), np.float32)
    border = tuple(int(v) for v in texture[0, 0])
    return np.asarray(
        cv2.remap(
            texture,
            mx_full,
            my_full,
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=border,
        ),
        np.uint8,
    )


def render(
    position: Mapping[str, Any],
    layout: Layout | str | None = None,
    *,
    seed: int = 0,
    conditions: Conditions = EASY,
    hand: bool = False,
    dice: Sequence[str] | None = None,
) -> tuple[U8, dict[str, Any]]:
    """Render ``position`` on ``layout`` (default: the game's shipped layout).

    Returns a BGR uint8 image and its ground truth (a JSON-serialisable dict, format in
    ``companion/vision/README.md``). The same arguments give the same image.
    ``dice``: Carolus Magnus top faces in the tray (default: three random faces).
    """
    prep = _prepare(position, layout, seed, conditions, dice)
    image = prep.image.copy()
    mask = np.zeros(image.shape[:2], np.float32)
    hand_info = None
    if hand:
        h_rng = np.random.default_rng(prep.hand_rng_seed)
        arm = _hand_for(prep, h_rng)
        mask = effects.draw_hand(image, arm, 1.0)
        hand_info = {"edge": EDGES[arm.edge], "reach": 1.0}
    sensor_rng = _seeds(seed)[4]
    image = effects.sensor(image, conditions, sensor_rng)
    return image, _truth(prep, mask, hand_info)


def still_table(
    position: Mapping[str, Any],
    layout: Layout | str | None = None,
    *,
    seed: int = 0,
    conditions: Conditions = EASY,
    dice: Sequence[str] | None = None,
) -> Iterator[U8]:
    """Frames of one table at rest, without end, as a camera over it gives them: the scene,
    light and camera of ``render(position, seed=seed)``, fresh sensor noise each frame."""
    prep = _prepare(position, layout, seed, conditions, dice)
    for k in itertools.count():
        yield _frame_noise(prep.image.copy(), conditions, seed, k)


def render_sequence(
    position: Mapping[str, Any],
    layout: Layout | str | None = None,
    *,
    seed: int = 0,
    conditions: Conditions = EASY,
    frames: int = 12,
    hand_frames: tuple[int, int] | None = (3, 8),
    dice: Sequence[str] | None = None,
) -> list[tuple[U8, dict[str, Any]]]:
    """A short clip of one still table: a hand reaches in during ``hand_frames`` (first and
    last frame it is seen, inclusive) and withdraws; every frame has fresh sensor noise."""
    if frames < 1:
        raise RenderError(f"frames: {frames} must be at least 1")
    prep = _prepare(position, layout, seed, conditions, dice)
    arm = _hand_for(prep, np.random.default_rng(prep.hand_rng_seed))
    out = []
    for k in range(frames):
        reach = 0.0
        if hand_frames is not None and hand_frames[0] <= k <= hand_frames[1]:
            a, b = hand_frames
            mid = (a + b) / 2
            span = max(1.0, (b - a) / 2 + 1)
            reach = max(0.15, 1 - abs(k - mid) / span)
        image = prep.image.copy()
        mask = effects.draw_hand(image, arm, reach)
        image = _frame_noise(image, conditions, seed, k)
        info = {"edge": EDGES[arm.edge], "reach": round(reach, 3)} if reach > 0 else None
        truth = _truth(prep, mask, info)
        truth["frame"] = k
        out.append((image, truth))
    return out


def _frame_noise(image: U8, conditions: Conditions, seed: int, k: int) -> U8:
    """Frame ``k`` of a clip: the sensor's noise drawn afresh (each frame its own, the same
    for a seed's frame k in every clip of it)."""
    return effects.sensor(
        image, conditions, np.random.default_rng(np.random.SeedSequence([seed, k + 1]))
    )


def _hand_for(prep: _Prepared, rng: np.random.Generator) -> effects.Hand:
    # Reach for a spot where pieces are, as a player would.
    target = None
    if prep.tops:
        u, v = prep.tops[int(rng.integers(len(prep.tops)))]
        if 0 <= u < prep.camera.width and 0 <= v < prep.camera.height:
            target = (u, v)
    return effects.random_hand(prep.camera.width, prep.camera.height, prep.mm_px, rng, target)


# --- ground truth ------------------------------------------------------------------------------
def _r(v: float) -> float:
    return round(float(v), 2)


def _covered(mask: F32, u: float, v: float) -> bool:
    x, y = round(u), round(v)
    return 0 <= y < mask.shape[0] and 0 <= x < mask.shape[1] and bool(mask[y, x] > 0.5)


def _truth(prep: _Prepared, mask: F32, hand: dict[str, Any] | None) -> dict[str, Any]:
    cam, layout, scene = prep.camera, prep.layout, prep.scene
    w, h = cam.width, cam.height
    any_hand = bool(mask.max() > 0.5)

    def in_view(pts: np.ndarray) -> bool:
        return bool(((pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)).all())

    markers = []
    specs: list[tuple[str, str, MarkerSpec, Pose | None]] = [
        ("board", m.where.replace("board corner ", "").replace(" ", "_"), m, None)
        for m in layout.board_markers
    ]
    for flat in scene.flats:
        if flat.kind == "tile":
            specs.append(("tile", flat.id, layout.tile_marker(flat.id), flat.pose))
        elif flat.kind == "court_card":
            specs.append(("court", flat.id, layout.court_marker(int(flat.id[6:])), flat.pose))
    for kind, of, spec, pose in specs:
        corners = np.array(spec.corners(pose))
        img = cam.project(np.column_stack([corners, np.zeros(4)]))
        markers.append(
            {
                "id": spec.id,
                "kind": kind,
                "of": of,
                "corners": [[_r(u), _r(v)] for u, v in img],
                "board_corners": [[_r(x), _r(y)] for x, y in corners],
                "in_view": in_view(img),
                "occluded": any(_covered(mask, u, v) for u, v in img)
                or _covered(mask, *img.mean(axis=0)),
            }
        )

    cubes, pieces = [], []
    occluded_areas: set[str] = set()
    for piece, (u, v) in zip(scene.pieces, prep.tops, strict=True):
        hidden = _covered(mask, u, v)
        if hidden:
            occluded_areas.add(piece.area)
        item: dict[str, Any] = {
            "colour": piece.colour,
            "area": piece.area,
            "board": [_r(piece.x), _r(piece.y)],
            "image": [_r(u), _r(v)],
            "occluded": hidden,
        }
        if piece.kind == "cube":
            if piece.lift > 0:
                item["stacked"] = True  # on another cube (still counted in its area)
            if piece.lean:
                item["tilted"] = True  # leaning (its top foreshortened; counted all the same)
            cubes.append(item)
        else:
            item = {"kind": piece.kind, **item}
            if piece.kind == "die":
                item["face"] = piece.faces[0]
            pieces.append(item)

    if any_hand:
        for area_id, poly in _area_polygons(prep).items():
            pts = cam.project(np.column_stack([np.array(poly), np.zeros(len(poly))]))
            area_mask = np.zeros(mask.shape, np.uint8)
            cv2.fillPoly(area_mask, [np.round(pts).astype(np.int32)], 1)
            if ((mask > 0.5) & (area_mask > 0)).any():
                occluded_areas.add(area_id)

    truth: dict[str, Any] = {
        "format": TRUTH_FORMAT,
        "game": prep.position_game,
        "layout": layout.name,
        "seed": prep.seed,
        "image_size": [w, h],
        "conditions": _conditions_name(prep.conditions),
        "camera": cam.to_json(),
        "homography": [[float(f"{v:.8g}") for v in row] for row in cam.homography()],
        "counts": {a: dict(sorted(c.items())) for a, c in sorted(scene.counts.items())},
        "pieces": pieces,
        "cubes": cubes,
        "markers": markers,
        "hidden": scene.hidden,
        "occluded": any_hand,
        "occluded_areas": sorted(occluded_areas),
        "hand": hand,
    }
    if scene.game == "el-grande":
        truth["scoreboards"] = scene.scoreboards
        truth["scoreboards_resting"] = scene.resting_scoreboards
        truth["seats"] = {f"court_{i + 1}": p for i, p in enumerate(scene.players)}
    else:
        truth["dice"] = [p.faces[0] for p in scene.pieces if p.kind == "die"]
        truth["tiles"] = {
            f.id: {"marker": f.marker, "pose": [_r(f.pose.x), _r(f.pose.y), _r(f.pose.angle)]}
            for f in scene.flats
            if f.kind == "tile"
        }
        truth["courts"] = {
            f.id: {
                "player": f.label,
                "marker": f.marker,
                "pose": [_r(f.pose.x), _r(f.pose.y), _r(f.pose.angle)],
            }
            for f in scene.flats
            if f.kind == "court_card"
        }
        truth["regions"] = scene.regions
    return truth


def _area_polygons(prep: _Prepared) -> dict[str, list[tuple[float, float]]]:
    out = {a.id: list(a.polygon.points) for a in prep.layout.areas}
    for tile_id, poly in prep.scene.tile_areas.items():
        out[tile_id] = list(poly.points)
    for flat in prep.scene.flats:
        if flat.kind == "court_card":
            out[flat.id] = list(prep.layout.court_polygon(flat.pose).points)
    return out


def _conditions_name(conditions: Conditions) -> str | dict[str, Any]:
    for name, preset in PRESETS.items():
        if conditions == preset.with_size(conditions.width, conditions.height):
            return name
    return conditions.to_json()


def pixels_per_mm(truth: Mapping[str, Any]) -> float:
    """Rough image scale at the board centre, from a truth's homography."""
    hm = np.array(truth["homography"], dtype=np.float64)
    p = hm @ np.array([0.0, 0.0, 1.0])
    q = hm @ np.array([100.0, 0.0, 1.0])
    return math.dist(p[:2] / p[2], q[:2] / q[2]) / 100.0
