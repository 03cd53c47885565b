"""The whole read: frame + calibration -> Observation, as a chain of small stages.

1. ``working_image``: crop to the board and resample so a cube is ~9 px wide (speed, and the same
   thresholds at every resolution).
2. ``labels``: Lab, then the colour model's lookup table: one label per pixel.
3. ``hand_check`` (hand.py): a big skin-coloured blob (or one of no known colour over the areas)
   reaching in from off the board means a hand or arm: the frame is occluded, nothing counted.
4. figures (figures.py) and castles (castles.py) by colour and size, cubes (cubes.py: by area,
   checked by seeds), dice faces (dice.py).
5. ``Observation``: counts per area, figures, dice, confidence, and what could not be read.

Geometry (geometry.py: area outlines projected into the working image, per-place cube
footprints) is made once per calibration and tile placement by :class:`Reader`; frames are
never warped.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
import pickle
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from types import TracebackType
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision import confidence as sure
from companion.vision import homography as hg
from companion.vision import top_model
from companion.vision.beside import Beside
from companion.vision.calibration import Calibration
from companion.vision.colour import is_neutral, keep_faint, lab_of_packed, pack_bgr
from companion.vision.config import DEFAULT_CONFIG, VisionConfig
from companion.vision.court_rows import CourtRow, count_rows, court_rows
from companion.vision.cube_windows import (
    View,
    probable_stack,
    probable_tilt,
    single_tops,
    worth_measuring,
)
from companion.vision.cube_windows import measure as measure_windows
from companion.vision.cubes import (
    Blob,
    ColourPatches,
    Patch,
    clean,
    count_colours,
    footprint_factor,
    measure_planes,
)
from companion.vision.dice import Dice
from companion.vision.errors import VisionError
from companion.vision.figures import (
    DarkSearch,
    Figure,
    faded_pawn_mask,
    figures_of,
    find_big_top,
    find_faded_grandes,
    find_figure,
    find_grandes,
    marker_light,
    take_merged_grande,
    take_top_at,
)
from companion.vision.fringe import drop_fringes
from companion.vision.geometry import (
    Geometry,
    build_geometry,
    locate_movables,
    movables_in_windows,
    place_of,
    places_of,
    working_image,
)
from companion.vision.grey_tops import grey_tops
from companion.vision.hand import SkinColours, hand_check, paper_lightness, white_cast
from companion.vision.jobs import Jobs, Later, pool_size
from companion.vision.layout import Layout, Pose
from companion.vision.masks import PerLabel, block_order
from companion.vision.mosaic import Mosaic, cut
from companion.vision.observation import Observation
from companion.vision.shadows import apply_shadows, shadow_pixels
from companion.vision.side import SideLost, SideProcess, SideReply
from companion.vision.standing import feet_of, foot_of, raised_view, top_of
from companion.vision.still import is_moving, median_frame, thumbnail

Image = npt.NDArray[Any]
log = logging.getLogger(__name__)


class NotAFrame(VisionError, ValueError):
    """Something that is not a colour camera frame of the calibrated size."""


def _groups(
    masks: Mapping[str, Image], colours: Sequence[str], pieces: Mosaic
) -> tuple[Image, npt.NDArray[Any], npt.NDArray[Any]]:
    """Groups of piece-coloured pixels (all colours at once, grown by two pixels, so a blob
    and its closing stay in one group): a label per pixel, and each group's rank and box
    origin in the working image. Blobs are measured group by group, in the order OpenCV finds
    the groups in the working image (2x2 blocks in raster order)."""
    union = np.zeros(pieces.index.shape, np.uint8)
    for colour in colours:
        m = masks.get(colour)
        if m is not None:
            cv2.bitwise_or(union, m, dst=union)
    grown = cv2.dilate(union, np.ones((5, 5), np.uint8))
    n, groups = cv2.connectedComponents(grown, connectivity=8)
    if n < 2:
        return groups, np.zeros(1, np.int64), np.zeros((1, 2), np.int64)  # no pieces
    # A group's least x and y and first block are those of its pixels leftmost in their row,
    # which lie on its outline (each group lies in one cut-out, where the working image is
    # the mosaic moved): only its outlines are looked at, those of its pixels in the working
    # image (the margin beyond the working image's edge is not in it). Every outline, the
    # holes' too: a group inside another's hole (a cube within a ring of border read as
    # black) has no external outline, and a hole's outline is its own group's pixels.
    inner = cv2.bitwise_and(grown, pieces.inside)
    outlines, _ = cv2.findContours(inner, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    points = np.concatenate(outlines).reshape(-1, 2)
    found = points[:, 1].astype(np.intp) * grown.shape[1] + points[:, 0]
    per_group = PerLabel.of(groups.ravel()[found], n)
    where = pieces.index.ravel()[found]
    y, x = where // pieces.width, where % pieces.width
    rank = per_group.min(block_order(x, y, pieces.width))
    origin = np.stack([per_group.min(x), per_group.min(y)], axis=1)
    return groups, rank, origin


def lab_of(packed: Image) -> Image:
    """Lab (N x 3) of a list of packed pixels: the frame is converted only where it is needed."""
    if not len(packed):
        return np.zeros((0, 3), np.uint8)
    return lab_of_packed(packed)


def _margin(config: VisionConfig) -> int:
    """How far round each piece the stages after the hand check look (see mosaic.py): the
    colour fringe's reach, or the pixel an opening (2x2) moves a mask plus the two that group
    blobs (5x5), whichever is more."""
    return max(config.fringe_px, 3)


def _moved(old: Pose, new: Pose, config: VisionConfig) -> bool:
    turn = abs((new.angle - old.angle + 180.0) % 360.0 - 180.0)
    return math.hypot(new.x - old.x, new.y - old.y) > config.marker_tolerance_mm or turn > 2.0


class Reader:
    """Reads frames of one calibrated table; keeps the projected geometry between frames.

    Holds a small thread pool (``config.read_threads``) for the stages that run beside the
    main chain: close it with :meth:`close` or use the Reader as a context manager."""

    def __init__(
        self,
        calibration: Calibration,
        layout: Layout,
        config: VisionConfig = DEFAULT_CONFIG,
    ) -> None:
        if calibration.game != layout.game:
            raise VisionError(
                f"calibration is for {calibration.game} but layout {layout.name!r} is for "
                f"{layout.game}; calibrate with this layout"
            )
        self.calibration = calibration
        self.layout = layout
        self.config = config
        self.colours = calibration.colours.with_config(config)
        # The counting options measured for one game only (see their VisionConfig entries):
        # on the other game each made counts worse.
        carolus = layout.game == "carolus-magnus"
        self._ragged: dict[str, float] = (
            dict.fromkeys(config.carolus_light_colours, config.light_ragged_top_cubes)
            if carolus
            else {}
        )
        # Carolus's tops are counted by the fitted model (top_model.py); El Grande's clusters
        # by top_cubes' rules, whose grown area the model fitted on them did not better.
        self._top_model = top_model.load() if carolus else None
        # (Measured on El Grande; on hard Carolus bench seeds it read court rows and some
        # territories' cubes over: 18 -> 21 wrong counts.)
        self._clusters = layout.game == "el-grande"
        self._sure = sure.load(layout.game) if config.fitted_confidence else None
        # The lone-cube flags as asked, where they were fitted (config.cube_flag_games).
        fitted_here = layout.game in config.cube_flag_games
        self._flags = replace(
            config,
            stack_flag=config.stack_flag and fitted_here,
            tilt_flag=config.tilt_flag and fitted_here,
        )
        # Without the board's colours: a glared grande's top, or pawn, looked for (figures.py).
        self._bare = replace(self.colours, background=())
        self._faded = replace(self._bare, min_chroma_share=config.faded_pawn_chroma)
        self.factors: dict[str, float] = dict(calibration.factors)
        # A calibrated factor is trusted more: a frame may move it only a little.
        self.spread = 1.15
        self.last_factors: dict[str, float] = {}
        board_print, table = calibration.print_and_table
        self._skin = SkinColours(config, board_print, table)
        self._poses: dict[str, Pose] = {k: Pose(*v) for k, v in calibration.movables.items()}
        self._geometry: Geometry | None = None
        self._rows: tuple[CourtRow, ...] = ()
        self._movables: tuple[dict[str, Pose], dict[int, Pose]] = ({}, {})
        # The stages beside the main chain, and what they keep between frames.
        self._beside = Beside(layout, config)
        # Where Carolus's run from a stream's second read, when there is a second core
        # (side.py; El Grande's grey tops ran slower there: the chain waits for them at once).
        self._side: SideProcess | None = None
        cores = pool_size(config.read_threads) > 0
        self._side_off = not (carolus and config.read_side_process and cores)
        self._reads = 0
        # The markers the last whole-frame search missed, and the frame's thumbnail then.
        self._last_search: tuple[frozenset[str], Image] | None = None
        # Whether the last read needed El Grande's dark search: then it is started beside
        # the main chain at once (a still table needs it frame after frame, or never).
        self._dark_wanted = False
        workers = pool_size(config.read_threads)
        self._pool = (
            ThreadPoolExecutor(workers, thread_name_prefix="companion-read") if workers else None
        )

    def close(self) -> None:
        """Stop the read's helper threads and side process (a read after this runs on one
        thread)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        if self._side is not None:
            self._side.close()
            self._side = None
        self._side_off = True

    def __enter__(self) -> Reader:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def geometry(
        self, tiles: Mapping[str, Pose] | None = None, courts: Mapping[int, Pose] | None = None
    ) -> Geometry:
        key = (dict(tiles or {}), dict(courts or {}))
        if self._geometry is None or key != self._movables:
            self._geometry = build_geometry(
                self.calibration, self.layout, tiles, courts, self.config
            )
            self._beside.set_geometry(self._geometry)
            self._rows = court_rows(
                self.calibration, self._geometry, self.layout, courts or {}, self.config
            )
            self._movables = key
        return self._geometry

    def check_frame(self, frame: object) -> Image:
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
            raise NotAFrame("not a colour image (expected an H x W x 3 BGR array)")
        w, h = self.calibration.image_size
        if frame.shape[:2] != (h, w):
            raise NotAFrame(
                f"frame is {frame.shape[1]}x{frame.shape[0]} but the calibration was made at "
                f"{w}x{h}; use the same camera resolution or calibrate again"
            )
        return frame.astype(np.uint8, copy=False)

    def read(
        self,
        frame: Image,
        *,
        tiles: Mapping[str, Pose] | None = None,
        courts: Mapping[int, Pose] | None = None,
        frames: int = 1,
    ) -> Observation:
        """Read one (still, median) frame. Carolus tiles/cards are located if not given."""
        frame = self.check_frame(frame)
        assumed: list[str] = []
        if self.layout.game == "carolus-magnus" and tiles is None:
            tiles, courts, assumed = self._places_now(frame, courts)
        geo = self.geometry(tiles, courts)
        jobs = Jobs(self._pool)
        try:
            obs = self._read(frame, geo, jobs, tiles, courts, frames)
        finally:
            jobs.settle()  # nothing handed off outlives the read (the frame may be reused)
        return self._with_places(obs, assumed, courts)

    def _read(
        self,
        frame: Image,
        geo: Geometry,
        jobs: Jobs,
        tiles: Mapping[str, Pose] | None,
        courts: Mapping[int, Pose] | None,
        frames: int,
    ) -> Observation:
        small = working_image(frame, geo)
        packed = pack_bgr(small)
        half = np.s_[::2, ::2]  # the hand check looks at every other pixel of every other row
        paper = lab_of(np.take(packed, geo.white))
        # Skin (for the hand check) needs only the pixels, not their labels; the dice only the
        # frame and where the tray is: both made beside the labels and what follows.
        cast = white_cast(paper)
        skin = jobs.later(
            functools.partial(self._skin.masks, packed[half], cast, paper_lightness(paper))
        )
        side = self._side_now(geo)
        if geo.tray is not None:
            dice = self._handed(jobs, side, "dice", (frame,), hand_off=True)
        else:
            dice = jobs.later(Dice)
        labels = self.colours.classify_packed(packed, faint=True)
        keep_faint(labels, len(self.colours.names), self._faint_px(geo))
        cv2.bitwise_and(labels, geo.readable, dst=labels)
        game = self.layout.game
        black = game == "el-grande" and "black" in self.colours.names
        shadows: Later[Image | None] | None = None
        if black:
            # The tower's shadow, looked for beside the hand check (both only read labels).
            shadows = jobs.later(
                functools.partial(
                    shadow_pixels,
                    small,
                    labels,
                    self.colours.label("black"),
                    geo,
                    self.config,
                    marker_light(paper, cast),
                ),
                hand_off=geo.dark_zone is not None,
            )
        hand = hand_check(
            # (Made contiguous once: each of the check's tests on a strided view costs more.)
            np.ascontiguousarray(labels[half]),
            skin.result(),
            geo.hand_zone,
            geo.area_zone,
            geo.outside,
            geo.typical_footprint,
            self.config,
        )
        if hand is not None:
            return Observation(game, occluded=True, unread={"board": hand}, frames=frames)
        castles: Later[dict[str, str]] | None = None
        if game == "carolus-magnus":
            # Castles are hueless: read on the tiles of the working image itself, told from
            # the piece-coloured pixels beside them (beside the cubes: they share nothing).
            on_tiles = self._beside.tiles is not None
            castles = self._handed(
                jobs, side if on_tiles else None, "castles", (small, labels), hand_off=on_tiles
            )
        # Black pieces under glare are grey: if the king or the black grande is not clearly
        # among the black pixels, they are looked for on the whole working image, among the
        # dark hueless pixels too (made only then: a Lab conversion and a look at every pixel).
        dark = None
        dark_ready: Later[Mosaic] | None = None
        if shadows is not None:
            # Black cubes grey under glare, looked for in the areas (grey_tops.py) on the
            # labels before the tower's shadow is taken off them: the same tops either side of
            # it on hard seeds 100-219 (its pixels, board after it, are in no grey top), and a
            # side process could read them beside the shadow (it read them slower: they are
            # needed at once; see NOTES, session 14).
            code = self.colours.label("black")
            found = grey_tops(packed, labels, code, len(self.colours.names), geo, self.config)
            apply_shadows(labels, shadows.result(), geo)
            labels.ravel()[found] = code
        pieces = cut(labels, packed, len(self.colours.names), _margin(self.config))
        if black:
            dark = DarkSearch(
                small,
                packed,
                labels,
                self.colours.label("black"),
                len(self.colours.names),
                _margin(self.config),
                geo,
                self.config,
            )
            # (Its mosaic made beside the main chain when the last frame needed it.)
            dark_ready = jobs.later(lambda: dark.pieces, hand_off=self._dark_wanted)
            self._dark_wanted = False
        return self._read_pieces(
            frame, pieces, dark, dark_ready, castles, dice, geo, tiles or {}, frames
        )

    def _with_places(
        self, obs: Observation, assumed: list[str], courts: Mapping[int, Pose] | None
    ) -> Observation:
        if obs.occluded:
            return obs
        # A court card in play never seen (not at calibration, not now) is no place at all.
        lost = [s for s in self.calibration.courts_in_play if s not in (courts or {})]
        if assumed or lost:
            unread = dict(obs.unread)
            for key in assumed:
                unread[key] = "marker not seen; read where it lay before"
            for seat in lost:
                unread[f"court_{seat}"] = (
                    f"court card marker {self.layout.court_marker(seat).id} not seen: its rows "
                    "are not read"
                )
            obs = replace(obs, unread=unread)
        return obs

    def _faint_px(self, geo: Geometry) -> int:
        """How thick (working px) faint pixels must lie to count (config.faint_width), and
        thicker than a halo (config.faint_halo_px) however small the cubes."""
        side = math.sqrt(geo.typical_footprint)
        return max(self.config.faint_halo_px + 1, round(self.config.faint_width * side))

    def _side_now(self, geo: Geometry) -> SideProcess | None:
        """The side process, told a read begins; started at a stream's second read. None:
        the stages beside the chain run here (one read, one core, or it failed)."""
        self._reads += 1
        if self._side is not None and self._side.lost:
            log.warning("the read's side process was lost: reading on this process")
            self._side, self._side_off = None, True
        if self._side is None and not self._side_off and self._reads >= 2:
            # Room for a read's arrays: the frame, the working image and the labels.
            w, h = self.calibration.image_size
            try:
                self._side = SideProcess(Beside(self.layout, self.config), 8 * w * h)
            except (SideLost, OSError, ValueError) as exc:  # (ValueError: no fd passing)
                log.warning("no side process for the reads (%s): reading on this process", exc)
                self._side_off = True
        if self._side is None:
            return None
        try:
            self._side.begin(geo, functools.partial(pickle.dumps, geo, protocol=5))
        except SideLost:
            return None
        return self._side

    def _handed(
        self,
        jobs: Jobs,
        side: SideProcess | None,
        stage: str,
        args: tuple[Any, ...],
        *,
        hand_off: bool,
    ) -> Later[Any]:
        """A stage of :class:`Beside` on ``args``: on the side process if there is one,
        else on the helper threads (``hand_off``) or here when first asked for."""
        here = functools.partial(self._beside.run, stage, *args)
        if side is not None:
            try:
                side.ask(stage, *args)
            except SideLost:
                pass
            else:
                return jobs.elsewhere(here, SideReply(side, stage, here))
        return jobs.later(here, hand_off=hand_off)

    def _places_now(
        self, frame: Image, courts: Mapping[int, Pose] | None
    ) -> tuple[dict[str, Pose], dict[int, Pose], list[str]]:
        """Tile and card places: as seen now, else where they lay before. A place that moved
        less than the markers' own jitter keeps its old value, so the geometry stays cached."""
        # Each known tile and card looked for where it lay (a still table); the whole frame
        # searched when one moved or is missing, unless the same ones were missing at the last
        # search and nothing in the frame has changed since (a marker under a castle, a seat's
        # card not on the table: searching again each frame would find nothing new).
        expected = {t.id for t in self.layout.tiles}
        expected |= {f"court_{s}" for s in self.calibration.courts_in_play}
        seen = movables_in_windows(frame, self.calibration, self.layout, self._poses)
        moved = any(_moved(self._poses[k], p, self.config) for k, p in seen.items())
        missing = frozenset(expected - seen.keys())
        if moved or (missing and not self._searched_alike(frame, missing)):
            seen_tiles, seen_courts = locate_movables(frame, self.calibration, self.layout)
            # (What the windows found stays found: a card not in play is not searched for.)
            seen.update(seen_tiles)
            seen.update({f"court_{s}": p for s, p in seen_courts.items()})
            self._last_search = (frozenset(expected - seen.keys()), thumbnail(frame))
        assumed = []
        for key in set(self._poses) | set(seen):
            new = seen.get(key)
            old = self._poses.get(key)
            if new is None:
                assumed.append(key)
            elif old is None or _moved(old, new, self.config):
                self._poses[key] = new
        tiles = {k: p for k, p in self._poses.items() if not k.startswith("court_")}
        cards = {int(k[6:]): p for k, p in self._poses.items() if k.startswith("court_")}
        return tiles, dict(courts) if courts is not None else cards, sorted(assumed)

    def _searched_alike(self, frame: Image, missing: frozenset[str]) -> bool:
        """Whether the last whole-frame search missed just these markers, in a frame that
        no grey thumbnail pixel has changed from since by more than motion_pixel_delta."""
        if self._last_search is None or self._last_search[0] != missing:
            return False
        before = self._last_search[1]
        now = thumbnail(frame)
        return (
            before.shape == now.shape
            and int(cv2.absdiff(before, now).max()) <= self.config.motion_pixel_delta
        )

    def read_still(
        self,
        frames: Sequence[Image],
        *,
        tiles: Mapping[str, Pose] | None = None,
        courts: Mapping[int, Pose] | None = None,
    ) -> Observation:
        """The median of a few frames, or an occluded observation if anything moved among them."""
        checked = [self.check_frame(f) for f in frames]
        thumbs = [thumbnail(f) for f in checked]
        for a, b in itertools.pairwise(thumbs):
            if is_moving(a, b, self.config):
                return Observation(
                    self.layout.game,
                    occluded=True,
                    unread={"board": "the scene moved between frames"},
                    frames=len(checked),
                )
        return self.read(median_frame(checked), tiles=tiles, courts=courts, frames=len(checked))

    # --- the stages after the hand check --------------------------------------------------------
    def _read_pieces(
        self,
        frame: Image,
        pieces: Mosaic,
        dark: DarkSearch | None,
        dark_ready: Later[Mosaic] | None,
        castles_later: Later[dict[str, str]] | None,
        dice_later: Later[Dice],
        geo: Geometry,
        tiles: Mapping[str, Pose],
        frames: int,
    ) -> Observation:
        cfg = self.config
        layout = self.layout
        labels = pieces.labels
        lab = cv2.cvtColor(pieces.image, cv2.COLOR_BGR2Lab)
        lightness = np.ascontiguousarray(lab[..., 0])
        counts: dict[str, dict[str, int]] = {p.id: {} for p in geo.places}
        confidence: dict[str, float] = {p.id: 1.0 for p in geo.places}
        flags: dict[str, list[str]] = {}
        unread: dict[str, str] = {}
        figures: dict[str, str | None] = {}
        castles: dict[str, str] = {}
        in_tray = pieces.gather(geo.tray) > 0 if geo.tray is not None else None
        cube_mm = float(layout.pieces["cube"])
        figure_list = figures_of(layout)
        cube_colours = (
            ("yellow", "green", "blue", "red", "black")
            if layout.game == "el-grande"
            else ("red", "blue", "yellow", "green", "pink")
        )
        drop_fringes(labels, lab, self.colours, cube_colours, cfg.fringe_px)
        # A mask per colour, stacked (the mosaic's empty first and last rows keep them apart):
        # each operation below runs once for all colours.
        names = self.colours.names
        codes = np.array([self.colours.label(n) for n in names], np.uint8)
        planes = labels[None] == codes[:, None, None]
        if in_tray is not None:
            planes &= ~in_tray
        stack = clean(planes.reshape(-1, labels.shape[1]).view(np.uint8) * np.uint8(255))
        masks: dict[str, Image] = dict(zip(names, stack.reshape(planes.shape), strict=True))

        place_at = functools.partial(place_of, geo)

        def pawn_stands(fig: Figure, x: float, y: float) -> bool:
            """Whether a figure whose foot is here stands where it may (figures.Stands): a
            point in no place (off the places' outlines) may be anywhere."""
            place = place_at(x, y)
            return not fig.stands_in or place is None or place in fig.stands_in

        def dark_search() -> DarkSearch:
            """The dark search, its mosaic made (here, or waited for if handed off)."""
            assert dark is not None and dark_ready is not None
            dark_ready.result()
            self._dark_wanted = True
            return dark

        # Pawns first: each removes its own pixels from its colour's mask.
        for fig in figure_list:
            mask = masks.get(fig.colour)
            if not fig.round_ or mask is None:
                continue

            # A pawn's head ball shows off its foot (it is tall); it is the pawn's, no cube.
            def head(foot: tuple[float, float], fig: Figure = fig) -> tuple[float, float]:
                wx, wy = pieces.to_work(*foot)
                ball = fig.height - cfg.pawn_head * fig.diameter
                hx, hy = top_of(self.calibration, geo, (wx, wy), ball, cfg)
                return foot[0] + hx - wx, foot[1] + hy - wy

            found = find_figure(mask, fig, geo, layout, cfg, head, pieces.to_work, pawn_stands)
            if found is None and fig.colour != "black":
                pale = faded_pawn_mask(self._faded, pieces, fig.colour)
                found = find_figure(pale, fig, geo, layout, cfg, head, pieces.to_work, pawn_stands)
            foot = pieces.to_work(*found.foot) if found is not None else None
            pixels = (found.corner, found.pixels) if found is not None else None
            unsure = found is None or found.score < cfg.figure_sure
            if dark is not None and fig.colour == "black" and unsure:
                search = dark_search()
                other = search.pawn(fig, self.calibration, layout, pawn_stands)
                if other is not None and (found is None or other.score > found.score):
                    foot = search.pieces.to_work(*other.foot)
                    pixels = search.take(other, pieces)
            if foot is None:
                if fig.name in ("king", "charlemagne"):
                    figures[fig.name] = None
                    unread[fig.name] = "not seen on the board"
                continue
            figures[fig.name] = place_at(*foot)
            if pixels is not None:
                # The figure's own pixels are no cubes; a sliver of edge round it stays
                # behind and is too small to count.
                (x, y), body = pixels
                grown = cv2.dilate(body, np.ones((3, 3), np.uint8)) > 0
                mask[y : y + body.shape[0], x : x + body.shape[1]][grown] = 0
                if dark is not None and fig.colour == "black":
                    dark.exclude((x, y), body, pieces)

        measured: dict[str, list[Patch]] = {}
        factors: dict[str, float] = {}
        groups = _groups(masks, cube_colours, pieces)
        # Counting by area: close the dark edge between a cube's top and its lit side, so one
        # cube is one blob (the seams still part the tops, see cubes.measure).
        closed = cv2.morphologyEx(stack, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        measure = functools.partial(
            measure_planes,
            footprint=geo.footprint,
            cube_side=geo.side,
            lightness=lightness,
            index=pieces.index,
            width=pieces.width,
            groups=groups,
            config=cfg,
        )
        # (On the calling thread: measuring is mostly Python, which holds the interpreter's
        # lock; half of it on the helper thread only took turns with the other half.)
        dark_planes = (names.index("black"),) if "black" in names else ()
        per_plane = measure(
            closed,
            len(names),
            raw=stack,
            dark_planes=dark_planes,
            outlines=self._clusters,  # (only the clusters' rule uses a top's outline)
            peaks=self._top_model is not None,  # (only the top model reads a top's peaks)
        )
        for colour in cube_colours:
            if colour in names:
                measured[colour] = per_plane[names.index(colour)]
        # Grandes: each one's top is taken out of its colour's patches.
        # (Only the players' grandes: no other colour has one on the board.)
        players = self.calibration.players
        grandes = [f for f in figure_list if not f.round_ and (not players or f.colour in players)]
        black = next((g for g in grandes if g.colour == "black"), None) if dark else None
        others = [g for g in grandes if g is not black]

        def grande_stands(fig: Figure, x: float, y: float) -> bool:
            """Whether a grande whose top shows here stands where it may (figures.Stands)."""
            return pawn_stands(fig, *foot_of(self.calibration, geo, (x, y), fig.diameter, cfg))

        tops = find_grandes(
            measured,
            masks,
            others,
            geo,
            layout,
            cfg,
            lightness,
            pieces,
            sure=cfg.grande_sure,
            stands=grande_stands,
        )
        faded = [g for g in others if g.name not in tops and g.colour in measured]
        if faded:
            tops.update(
                find_faded_grandes(
                    faded, self._bare, pieces, measured, geo, layout, cfg, lightness, grande_stands
                )
            )
        if dark is not None and black is not None and "black" in measured:
            top = find_big_top(measured["black"], black, geo, layout, cfg, grande_stands)
            if top is None or top[2] < cfg.grande_sure:
                top = dark_search().grande(black, layout, top, grande_stands)
            if top is not None:
                take_top_at(measured["black"], top[:2], black.diameter / 2 * geo.mm_px, cfg)
                tops[black.name] = top
        for grande in grandes:
            top = tops.get(grande.name)
            if top is None and players and grande.colour in measured:
                # Found nowhere else: merged by blur with the cubes beside it, perhaps.
                top = take_merged_grande(
                    measured[grande.colour], grande, layout, cfg, grande_stands
                )
            if top is not None:
                # Its top leans away from under the camera: the grande stands at its foot.
                foot = foot_of(self.calibration, geo, top[:2], grande.diameter, cfg)
                figures[grande.name] = place_at(*foot)
            elif players:
                # A player's grande is always on the board (never in the Castillo): not
                # found, it is unread, not absent (its top may be counted as cubes there).
                figures[grande.name] = None
                unread[grande.name] = "not seen on the board"
        for colour, patches in measured.items():
            factors[colour] = footprint_factor(
                patches, self.factors.get(colour, cfg.top_factor), self.spread
            )
        # A colour seen only in clusters has no single to measure; the colours agree to
        # within a third, so the median of all keeps it in line.
        typical = float(np.median(list(factors.values()))) if factors else cfg.top_factor
        to_count = []
        for colour, patches in measured.items():
            factor = min(max(factors[colour], typical / 1.35), typical * 1.35)
            self.last_factors[colour] = factor
            ragged = self._ragged.get(colour)
            to_count.append(ColourPatches(patches, factor, colour == "black", ragged))
        counted = count_colours(
            to_count,
            cfg,
            split=geo.near_border,
            clusters=self._clusters,
            model=self._top_model,
        )
        read: list[tuple[str, Blob]] = [
            (colour, blob)
            for colour, blobs in zip(measured, counted, strict=True)
            for blob in blobs
            if blob.cubes > 0
        ]
        # A cube's pixels show off its foot, away from the point under the camera (most at the
        # board's edge, where the lens bends too): a cube counts where it stands.
        centres = [c for _, blob in read for c in blob.centres[: blob.cubes]]
        feet = feet_of(
            self.calibration,
            geo,
            np.array(centres, np.float64).reshape(-1, 2),
            cfg.cube_seen_height * cube_mm,
            cfg,
        )
        stands = iter(places_of(geo, feet.reshape(-1, 2)))
        # (Each lone cube's place, by its colour and centre: its patch's centroid.)
        single_place: dict[tuple[str, tuple[float, float]], str] = {}
        # (Each blob for the confidence model: black, in a court, the places its cubes stand in.)
        doubted: list[tuple[Blob, bool, bool, tuple[str, ...]]] = []
        for colour, blob in read:
            places = [next(stands) for _ in blob.centres[: blob.cubes]]
            lone = places[0] if blob.cubes == 1 and blob.seeds == 1 else None
            if (self._flags.stack_flag or self._flags.tilt_flag) and lone is not None:
                single_place[(colour, blob.centres[0])] = lone
            for pid in places:
                if pid is not None:
                    counts[pid][colour] = counts[pid].get(colour, 0) + 1
            where = tuple(dict.fromkeys(p for p in places if p is not None))
            if self._sure is not None and where:
                doubted.append((blob, colour == "black", where[0].startswith("court_"), where))
            pid = places[0]
            if pid is not None:
                if self._sure is None:
                    confidence[pid] = min(confidence[pid], blob.confidence)
                if blob.residual > cfg.irregular_residual:
                    flags.setdefault(pid, []).append(f"irregular {colour} blob")
                if blob.seeds != round(blob.estimate):
                    flags.setdefault(pid, []).append(
                        f"{colour}: area says {round(blob.estimate)}, tops say {blob.seeds}"
                    )

        # How sure each place's counts are: the chance that none of its blobs is counted wrong.
        if self._sure is not None and doubted:
            wrong_at: dict[str, list[float]] = {}
            rows = sure.features_many(
                [d[0] for d in doubted], [d[1] for d in doubted], [d[2] for d in doubted]
            )
            chances = self._sure.wrong(rows)
            for (*_, where), p in zip(doubted, chances, strict=True):
                for pid in where:
                    wrong_at.setdefault(pid, []).append(p)
            for pid, chances_there in wrong_at.items():
                confidence[pid] = sure.place_confidence(chances_there)

        # A lone cube whose shade reaches a stack's length towards the nadir, or whose top is
        # a leaning one's, in the full-resolution frame: said, not counted (a flag for the
        # players to look at; the counts stay the tops'). (With both flags off here, see
        # config.cube_flag_games, no lone cube is kept and nothing is measured.)
        if single_place:
            for pid, message in self._lone_cube_flags(single_place, measured, geo, cube_mm, frame):
                flags.setdefault(pid, []).append(message)

        # Court rows: their cubes line up along the row, blurred into one bar that tops and
        # areas under-count; the row's filled length says how many (court_rows.py).
        for (pid, colour), n in count_rows(
            self._rows, measured, self.calibration, geo, cfg
        ).items():
            got = counts[pid].get(colour, 0)
            if n > got:
                counts[pid][colour] = n
                flags.setdefault(pid, []).append(f"{colour}: row's length says {n}, blobs {got}")

        # The stages beside the chain, asked for last: nothing above needs them, and the chain
        # goes on while they end (the castles, started after the hand check, queue behind the
        # dice on a two-core machine's one helper thread).
        if castles_later is not None:
            castles = castles_later.result()
        dice = dice_later.result()
        unread.update(dice.unread)
        for marker in layout.board_markers:
            if marker.id not in self.calibration.markers:
                unread[f"marker {marker.id}"] = (
                    f"not seen ({marker.where}); the board's place comes from the other markers"
                )
        if layout.game == "el-grande":
            unread["castillo"] = (
                "inside the tower: hidden by the rules, counted by the tower sensor"
            )
        else:
            missing = [t.id for t in layout.tiles if t.id not in tiles]
            for t in missing:
                unread[t] = "territory marker not seen"
        return Observation(
            game=layout.game,
            counts=counts,
            figures=figures,
            castles=castles,
            dice=dice.faces,
            confidence=confidence,
            unread=unread,
            flags={k: tuple(v) for k, v in flags.items()},
            frames=frames,
        )

    def _lone_cube_flags(
        self,
        single_place: dict[tuple[str, tuple[float, float]], str],
        measured: dict[str, list[Patch]],
        geo: Geometry,
        cube_mm: float,
        frame: Image,
    ) -> list[tuple[str, str]]:
        """(place, message) for each cube read alone (``single_place``: its place by its
        colour and centre) that may be two stacked or leaning, as config.stack_flag and
        config.tilt_flag ask: measured again in the full-resolution frame (cube_windows.py)."""
        cfg = self._flags
        # (Not the hueless colours: a cube's shade is told by its top's hue, and a black
        # cube's window would be cut and refused, cube_windows.classes, at a third of a read's
        # windows on the bench's El Grande frame.)
        lone_colours = [
            colour
            for colour in dict.fromkeys(colour for colour, _ in single_place)
            if not all(is_neutral(ref) for ref in self.colours.pieces[colour])
        ]
        candidates = [
            (colour, patch)
            for colour in lone_colours
            for patch in single_tops(measured[colour], [c for k, c in single_place if k == colour])
        ]
        if not candidates:
            return []
        top_plane, lens = raised_view(self.calibration, cube_mm, cfg)
        origin = np.array(geo.crop[:2], np.float64)
        tops = np.array([(p.tops[0].x, p.tops[0].y) for _, p in candidates], np.float64)
        at = tops / geo.scale + origin
        feet = feet_of(self.calibration, geo, tops, cube_mm, cfg) / geo.scale + origin
        views = [
            View(colour, (float(t[0]), float(t[1])), (a[0], a[1]), (f[0], f[1]), p.side / geo.scale)
            for (colour, p), t, a, f in zip(candidates, tops, at, feet, strict=True)
        ]
        wanted = [i for i, v in enumerate(views) if worth_measuring(v, cfg)]
        seen = measure_windows(
            [views[i] for i in wanted],
            frame,
            lambda pts: hg.unproject(top_plane, pts, lens),
            cfg,
        )
        out: list[tuple[str, str]] = []
        for one, (colour, patch) in zip(seen, [candidates[i] for i in wanted], strict=True):
            pid = single_place[(colour, patch.centroid)]
            if cfg.stack_flag and probable_stack(one, cfg):
                out.append((pid, f"{colour}: a cube stacked on another?"))
            # (A band a stack's long is no lean's: one flag for one cube.)
            elif cfg.tilt_flag and probable_tilt(one, cube_mm, cfg):
                out.append((pid, f"{colour}: a cube tilted?"))
        return out


def read_frame(
    frame: Image,
    calibration: Calibration,
    layout: Layout,
    config: VisionConfig = DEFAULT_CONFIG,
) -> Observation:
    """One frame, one observation (no still gate: for a photo of a table at rest)."""
    with Reader(calibration, layout, config) as reader:
        return reader.read(frame)
