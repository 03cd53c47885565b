"""Every threshold of the reading pipeline, in one frozen value.

Lengths are in board millimetres (the layout's unit) or in multiples of a cube's side, never in
pixels, so one configuration serves every camera resolution and height.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VisionConfig:
    # Below this many image pixels a cube's side, touching cubes cannot be told apart under
    # ordinary blur and noise (see hardware/camera.md): calibration warns.
    min_cube_px: float = 8.0
    # The working image is binned (2x2, 3x3 ...) as far as a cube's side keeps at least this
    # many pixels: enough to see the seams between touching cubes, few enough to be quick.
    cube_side_px: float = 8.0
    # Lab distance (OpenCV 8-bit Lab units) beyond which a pixel is no known piece colour.
    reject_distance: float = 38.0
    # A pixel is a coloured piece's only if its Lab chroma is at least this share of the
    # colour's reference chroma (a grey mat or a shadow may lie within the reject distance of a
    # dim blue or pink, but is far less saturated).
    min_chroma_share: float = 0.6
    # ... but blue from this share: its cubes in dim light, shade or glare keep their hue but
    # lose chroma faster than the other colours (hard Carolus bench seed 1 t13: ~32 where the
    # calibration's blue has 54; hard El Grande seed 103, glared galicia: 31-37 where it has
    # 54, so most of the tops were unlabelled and three cubes read one). Hard Carolus seeds
    # 100-159: 75 -> 69 wrong counts (0.45 and 0.55: see the vision NOTES). El Grande's blue
    # sea print once kept it to Carolus (hard bench seeds 3 -> 11 wrong, session 6); with
    # the readers since, El Grande seeds 100-219 57 -> 51 wrong (0.45: 49, 0.55: 50), 400-599
    # 156 -> 141 (146, 147), and fresh 300-399 67 -> 60, 0-40 20 -> 19 (session 18).
    blue_chroma_share: float = 0.5
    # A pixel that fails only a colour's chroma share but is at least this saturated (Lab
    # chroma) is a faint pixel of the colour (colour.ColourModel.faint_chroma) ...
    faint_chroma: float = 25.0
    # ... and counts as the colour's where faint pixels make a patch at least this many cube
    # sides thick (colour.keep_faint): a whole top glare or shade took the chroma from (hard
    # Carolus seed 141: pink tops of chroma ~29 where the calibration's pink has 54, read
    # 4 -> 3 and 3 -> 1), not the thin blurred halo round a vivid cube. The same floor on
    # every pixel took hard Carolus seeds 100-159 from 59 to 77 wrong counts (halos joined
    # tops; 30: 64). Fitted there with a 3-px opening (a side is 8-10 working px): 59 -> 54
    # (floor 20: 55, 30: 59); in cube sides, 0.25: 56, 0.35: 56, 0.5: 55 (openings of 2 px
    # allowed).
    faint_width: float = 0.35
    # ... and thicker than this many working pixels however small the cubes: the halo is
    # blur's and JPEG's chroma smear, a pixel or two wide in the working image whatever the
    # cube's size (hard Carolus seed 126, cubes ~6 px unbinned: an opening of 2 px kept a
    # green halo, reserve_2 2 -> 3). Seeds 100-159 at 0.35 sides: 56 -> 55 with it.
    faint_halo_px: int = 2
    # A coloured piece's pixels may fade toward grey (blur mixing them with the board, a far
    # corner, glare) down to this share of the reference chroma at no cost: along its own hue,
    # so a faded red is still nearer red than pink.
    fade_share: float = 0.6
    # ... and in telling one coloured piece from another, lightness weighs this much against
    # hue (the plain distance weighs it 0.5): shade darkens a pink cube to a red's lightness and
    # glare lightens a red one, but neither turns its hue (hard Carolus set: 42 -> 35 wrong).
    hue_lightness_weight: float = 0.15
    # Colour fringes (fringe.py): a pixel of one piece colour this close (working pixels) to
    # another piece colour may be that piece's blurred edge.
    fringe_px: int = 2
    # A cluster of the board's colours (calibration.board_colours) this big a share of the
    # board is its print even where it lies near a coloured piece's colour: a colour's pieces
    # in a set-up (El Grande: two caballeros, a grande and a court's cubes; Carolus: a cube or
    # three) cover ~0.5 % of it. Print nearer a piece colour than the reject distance was
    # dropped as "a piece", and a dark frame's sea then read as blue cubes (hard El Grande seed
    # 205: 47 cubes in five regions, the sea at 24 from the set-up's blue). Piece clusters on
    # hard seeds 100-219 of both games: up to 0.0065; print near a piece colour: 0.012-0.23.
    # Not black's: dark print lines lie near it everywhere, and black is read by darkness.
    board_print_share: float = 0.01
    # Lab distance within which a pixel counts as board background (see ColourModel).
    background_distance: float = 22.0
    # Pixels per cube below this share of a footprint are specks (noise, a cube's shadow edge).
    # A lone cube in a far, blurred corner shows no top and reads from 0.3 (hard seeds 0-29:
    # 0.35 -> 0.3 found 11 such cubes and made 3 specks cubes).
    min_blob_cubes: float = 0.3
    # ... but a patch not black is counted from this share (the cube-top factor still goes by
    # min_blob_cubes): a faint far cube (dim pink or blue, a sliver of its top in the colour)
    # reads 0.2-0.3, where no speck that big stood apart from a counted cube (per-patch study
    # of hard Carolus seeds 100-159: wrong patches 62 -> 53; vision_errors on those seeds
    # 84 -> 75 wrong counts, none made wrong). Black specks are print as often: not for them
    # (hard El Grande seed 3 galicia/black 2 -> 3, held-out seed 20 aragon/black 2 -> 3).
    min_counted_cubes: float = 0.22
    # ... and a black patch from this share (min_blob_cubes before session 8: refitted on the
    # mended opening, whose black patches count their tops' rims the shifted one left out;
    # hard El Grande seeds 100-219, with the other session 8 black values, 103 -> 102 wrong
    # counts).
    black_min_cubes: float = 0.35
    # A black patch's top lightness (cubes._top_lightness) is read from its pixels at least
    # this deep inside its mask (cube sides; inscribed radius), where it has any: a print
    # line joined to a black cube (0.08-0.29 sides thick, see min_patch_thickness) can be
    # most of the patch's pixels, and the band round its lightness left the cube's top out
    # (held-out seed 12: a cube and a line 15 sides long read 5 cubes by area on the mended
    # opening). Hard El Grande seeds 100-219, mended opening, no other change: wrong counts
    # 120 -> 107 (0.15: 110, 0.25: 109, 0.3: 113).
    black_mode_depth: float = 0.2
    # A cube's pixels (top and lit sides) show as if from this share of its height above the
    # board: it is counted at the foot under that point (standing.feet_of), not off it (hard
    # sets: 0 -> 0.5 took wrong counts El Grande 18 -> 17, Carolus 26 -> 25 on the bench cases;
    # held-out seeds 12-29 76 -> 76 and 49 -> 47).
    cube_seen_height: float = 0.5
    # One blob of more cubes than this is no pile of cubes (a patch of print or cloth).
    max_blob_cubes: float = 60.0
    # A place's confidence from the fitted model (confidence.py: the chance none of its blobs
    # is counted wrong); off, the rule before it: its least sure blob's Blob.confidence (area
    # against tops), kept as benchmarks.vision_confidence's baseline.
    fitted_confidence: bool = True
    # A cube top's counted pixels over the model's top square, before any measurement (the
    # dark edge round each top takes its share).
    top_factor: float = 0.8
    # A bright top patch this big (share of a cube top) on its own is a whole cube's top;
    # smaller ones are glints, lit edges or a top cut by a shadow.
    min_top_cubes: float = 0.5
    # ... and at least this thick (inscribed radius over a cube's side): a lit side is a
    # thin strip however long. Blur and noise fray a small far top down to ~0.2 (hard seeds
    # 0-29, both games: 0.55 / 0.25 -> 0.5 / 0.2 took hard wrong counts 20 + 30 -> 18 + 26 on
    # the bench cases, 82 + 55 -> 74 + 51 on held-out seeds 12-29; easy Carolus 4 -> 1).
    min_top_thickness: float = 0.2
    # A blob whose area is this far (in cubes) from a whole number raises the "irregular"
    # flag (a stacked, tilted or half-hidden cube; Blob.confidence drops).
    irregular_residual: float = 0.38
    # Whether a cube counted alone from one whole top may be flagged as probably stacked on
    # another (issue #4), measured again in a window of the full-resolution frame
    # (cube_windows.py). On: hard El Grande seeds 100-219 at the thresholds below, no place
    # flagged on the 120 plain frames (3491 lone tops); with stacked=0.15 renders, 70 of 850
    # stacked cubes flagged, no other cube: 365 were read as a lone top, 90 of those measured
    # where one cube's parallax tells (70 of 91 found). (Measured in the working image
    # instead, session 17: 1 place flagged on the plain frames, 8 of 850 found.) A flag, never
    # a count. benchmarks/vision_stacks.
    stack_flag: bool = True
    # ... flagged when its shade (its top and the darker pixels of its hue joined to it)
    # reaches past its top towards the point under the camera this many times one cube's
    # parallax (ideal: 1 for one cube, 2 for two; fitted on seeds 100-159 where the parallax
    # is 0.4 sides or more: one cube's median 1.2, 99 % below 1.71; a stack's median 2.22,
    # 25 % below 2.1) ...
    stack_band_ratio: float = 2.0
    # ... and at most this many: farther, its shade ran into a neighbour of its colour ...
    stack_band_max: float = 3.0
    # ... where that parallax is at least this many cube sides: nearer the point under the
    # camera the band is a few pixels, too short to tell one cube from two. (The least
    # parallax, and the ratio, with no false flag on the 60 plain frames of seeds 100-159,
    # among 0.2-0.4 and 1.6-2.6; 31 of 37 stacks found there. At 0.35: 1 false there, 46 of
    # 56 found, 1 false on 160-219; at 0.3: 3 false, 62 of 79, 2 false. Without the upper
    # bound: 1 false there.)
    stack_min_parallax: float = 0.4
    # The games whose renders the lone-cube flags (stack_flag, tilt_flag) were fitted on; in
    # others they stay off. (Carolus hard seeds 100-159, plain frames: 7 cubes flagged as
    # stacked in 60 frames, and its 720p bench frame read 15 -> 20 ms.)
    cube_flag_games: tuple[str, ...] = ("el-grande",)
    # Whether a cube counted alone from one whole top may be flagged as probably tilted
    # (issue #4): its top, measured again in a window of the full-resolution frame
    # (cube_windows.py) and mapped to board mm on the plane of a cube's top, about a cube's
    # side one way and clearly shorter the other. Off: it does not tell a leaning top from a
    # flat one. Hard El Grande seeds 100-219 at the thresholds below: 1 place flagged on the
    # 120 plain frames; with tilted=0.15 renders 1 of 1152 tilted cubes flagged (618 read as
    # a lone top, 458 of them measured) and 4 flat ones. (Measured in the working image,
    # session 18: 1 false, 1 found.) benchmarks/vision_tilts.
    tilt_flag: bool = False
    # ... flagged when its shorter side (its pixels' spread read as a rectangle's) is at most
    # this share of its longer (a leaning top's cos 15-35° = 0.97-0.82; seeds 100-159, tops
    # measured: flat ones' 1st / 5th / 50th percentiles 0.63 / 0.73 / 0.88, tilted ones'
    # 0.53 / 0.62 / 0.80; the share and bounds below the only ones with no false flag on
    # those 60 plain frames among 0.55-0.75 (when fitted, 1 tilted cube of 232 found there; 0.65:
    # 0 and 1, then 4 false on 160-219) ...
    tilt_minor_ratio: float = 0.6
    # ... and its longer side within these shares of a cube's side (a whole top: flat tops'
    # median 1.04, 5th-90th percentiles 0.84-1.23, its edges' mix with the board in it;
    # longer, a lit side joined to it).
    tilt_major: tuple[float, float] = (0.6, 1.1)
    # A lone cube's shade in the full-resolution frame (cube_windows.of_its_hue; set by eye on
    # hard seeds 119 and 134, not fitted): pixels whose hue turns at most this far (degrees)
    # from its top's ...
    window_hue_deg: float = 30.0
    # ... whose chroma over lightness keeps at least this share of its top's (its sides are
    # its colour shaded; a pale board of its hue, or a shadow on one, keeps much less) ...
    window_shade_chroma: float = 0.6
    # ... and which are no lighter than its top by more than this share of its top's chroma.
    window_lighter: float = 0.35
    # A black patch with no whole top that is nowhere this thick (inscribed radius over a
    # cube's side) and longer than line_length sides (its enclosing rectangle) is a line: the
    # board's dark print, a piece's shaded side or rim (hard El Grande, seeds 0-40: those
    # 0.08-0.29 thick and 1-15 sides long; black cubes 0.3 and more, but fragments of a top
    # that glare left black as thin as 0.15, and shorter than 0.7 sides). Session 5: bits of
    # print 0.97-0.99 sides long, 0.16-0.17 thick, read as cubes (held-out seed 12, seed 136's
    # off any count): the bar between 0.7 and 1.0 (held-out 31 -> 30; bench, 100-159 same).
    # Session 8, refitted on the mended opening (the tops and lines a pixel fuller): 0.27 ->
    # 0.3, hard El Grande seeds 100-219 103 -> 102 with the other session 8 black values.
    min_patch_thickness: float = 0.3
    line_length: float = 0.85
    # A whole black top is at least this wide (its enclosing rectangle's short side, cube
    # sides): a dark print line's top may be as thick as a thin top, but is narrower (hard El
    # Grande seeds 0-40: one-cube tops 0.62 and over, lines' and shaded sides' 0.42-0.6).
    # Session 8, mended opening: 0.6 -> 0.65 (seeds 100-219 103 -> 102, with the rest).
    black_top_width: float = 0.65
    # ... unless too small to have its shape measured (top_shape_from; its width is then the
    # square root of its area) and thick for its width: inscribed radius at least this share
    # of it (a square's is half; a fragment of a top is ragged). Hard El Grande seeds 100-129:
    # six far cubes' tops 0.55-0.6 wide, 0.43-0.53 of it thick; one fragment 0.38 (bench seed
    # 6 and held-out 20 show two more, 0.39-0.41). Wrong counts 29 -> 27, seeds 130-159 45 ->
    # 45, bench 4 -> 4, held-out 12-40 40 -> 39.
    black_small_top_solidity: float = 0.42
    # Holes in a black top up to this share of a cube top are sensor noise (a black top's band
    # of lightness is a few noise steps wide) and are filled before its thickness and shape are
    # measured; a seam between two tops runs to the rim and is no hole (hard El Grande, wrong
    # counts: seeds 100-129 30 -> 29, bench 6 -> 4, held-out 12-40 41 -> 40; 0.05-0.2 alike).
    # Up to half a top: a top's darker middle, out of the band the blurred rims centre, is a
    # hole too when its top rings it whole (a shadow lies outside the piece, never ringed):
    # seeds 100-159 62 -> 61, held-out 32 -> 31, bench 3 -> 3 (0.25-1.0 alike).
    black_top_hole: float = 0.5
    # A black top that fills its rectangle (top_min_fill) holds at least its length over this
    # many cube sides, rounded: with no blur halo to take off (its darkest face inside bright
    # bevels), lone tops are 0.55-1.50 sides long and merged pairs 1.67-2.3 (hard El Grande
    # seeds 100-159), whose cells test often finds one cell (the band leaves a darker middle or
    # a noise dent out). Seeds 100-159: four pairs read 1 -> 2, none else changed.
    # Session 8, mended opening (tops a pixel longer than on the shifted one): 1.05 -> 1.1,
    # seeds 100-219 103 -> 102 with the rest (per black patch: 1.15-1.2 alike, 1.0 worse).
    black_top_cube_length: float = 1.1
    # A ragged black top (under top_min_fill) counts as its area over this many cube tops
    # (merged_top_cubes for the other colours): on the mended opening a black cluster's
    # ragged band takes in its rims, ~1.2 tops a cube (hard El Grande seeds 100-219, with the
    # rest: 104 -> 102; per black patch 1.15 and 1.3 worse).
    black_ragged_top_cubes: float = 1.2
    # ... and so does a ragged one (filling under top_min_fill: noise frays a pair's band into
    # a ring or a comb, 0.34-0.47 of its rectangle) when it is its patch's only whole top, at
    # most this many sides wide (a row's) and at least black_row_length long (lone black tops
    # are up to 1.5). Hard El Grande seeds 100-159, per black patch: wrong 23 -> 19 (pairs
    # 1.66-2.25 long, 1.0-1.26 wide), none made wrong; width 1.2 20, 1.4 breaks a lone top,
    # length 1.5-1.6 alike, 1.7-1.8 20-21. Only when alone: a top 1.77 long beside another
    # whole top in its patch was one cube and a neighbour's rim (held-out seed 32 court_2).
    black_row_width: float = 1.3
    black_row_length: float = 1.6
    # A bright top is that many cubes whose seams blur erased; each of them reads this many cube
    # tops (bevels and blur halo join in). On the hard renders a lone top reads at most ~1.5 and
    # two merged ones from ~1.6: the bar for two lies between.
    merged_top_cubes: float = 1.1
    # A top several cubes make (seams lost) is counted by the cells of its enclosing rectangle it
    # covers (cubes.top_shape): a cube adds this many sides to its length, this many to its
    # width (blur's halo). A top that fills less than top_min_fill of its rectangle is ragged:
    # counted by area. Measured on the labelled renders (benchmarks/vision_errors).
    top_length_sides: float = 1.05
    # ... plus this many sides once, whatever the count (blur's halo at its two ends): a lone
    # top reads up to ~1.6 sides long (per-top study of hard Carolus seeds 100-159, 4325 tops:
    # 0 -> 0.1 took wrong tops 100 -> 88; vision_errors hard Carolus: bench 21 -> 21, held-out
    # seeds 12-40 87 -> 75).
    top_length_halo: float = 0.1
    # ... only a top of at least this many model cube tops (pixels over the model's square) is
    # measured so: smaller ones are one cube's (a lone top covers ~0.4-1.1 of the square).
    top_shape_from: float = 0.6
    # A measured top's bright centres (cubes.top_peaks, read by Carolus's top model only):
    # its lightness, smoothed over this share of a side (Gaussian sigma), peaks where nothing
    # within top_peak_reach sides is lighter. A cube's top is lightest at its middle (blur
    # darkens it towards its bevels), so cubes under one top show a peak each where its cells
    # may not (a pair read one cell; four at a turn read as an L's three). Single-top patches
    # of hard Carolus seeds 100-199 (5898 tops), tops whose peaks equal their cubes: 0.2/0.4
    # 5475 (416 over), 0.3/0.6 5743 (60 over, 95 under), 0.35/0.7 5615, peaks by their height
    # over the saddle (h-maxima, 1.5-5 L) 5047-5671. Seeds 100-139 and 150-189 (4701 tops):
    # 0.3/0.6 4576 (44 over, 81 under), 0.25/0.6 4594 (66 over), 0.3/0.5 4582, 0.25/0.5 4568,
    # the rest 4394-4536 (see the vision NOTES, session 11).
    top_peak_blur: float = 0.3
    top_peak_reach: float = 0.6
    top_width_sides: float = 1.2
    top_min_fill: float = 0.5
    # ... unless it still covers this many cells or more: a cluster of cubes pushed together
    # at different turns (El Grande's courts: up to 7 of a colour) fills its rectangle poorly,
    # but its cells' centres hold; its area is no better than +-1 cube there (4-5 cubes read
    # 0.9-1.5 cube tops each). Per-patch study of hard El Grande seeds 100-159 (single-top
    # patches, not black): ragged tops of 4+ cells, cells right 10 of 11 against the area's 7.
    top_cells_trusted: int = 4
    # ... but never fewer cubes than its area over this many cube tops (a lone top reads up
    # to ~1.5; per-blob study of hard seeds 0-29: 133 -> 123 cubes miscounted outside black).
    top_area_floor: float = 1.6
    # A top of at least this many cube tops (units) is counted halfway between its shape's
    # count (above) and its area grown back by the band blur ate round it (cubes.grown_cubes):
    # two estimates that err apart. Per-top study (single-top patches, not black) of hard El
    # Grande seeds 100-159: 31 -> 24 tops miscounted with top_cells_trusted; held-out seeds
    # 12-40 18 -> 15. From 1.5 to 2.5 the same. Both rules are El Grande's only (not black;
    # cubes.count_patches' clusters): on hard Carolus they read court rows and tiles over.
    top_grown_from: float = 2.0
    # ... and a top the cells say is one cube is two when it is at least top_pair_length sides
    # long and top_pair_aspect times as long as wide: two cubes in a row read as one narrow
    # top, 1.45-1.7 sides long and 0.7-0.9 wide, lone tops as long 1.25 wide (median; 3 of 55
    # as narrow) (per-top study of
    # hard Carolus seeds 100-159, 3510 single-top patches: wrong 53 -> 45; 1.4-1.55 and
    # 1.7-1.8 all give 45-47).
    top_pair_length: float = 1.5
    top_pair_aspect: float = 1.8
    # A top three cells long and one across, at least this many sides wide, is also judged on
    # two cells across (cubes.top_shape): a brick of four, two rows of two a cube apart along,
    # read 1.66 sides wide (hard Carolus held-out seed 38, blue 4 -> 3), its one cell across
    # between the rows. Taken where the area over merged_top_cubes agrees (per-top study of
    # hard Carolus seeds 100-159: wrong tops 46 -> 45 from 1.3 to 1.6; without the area's
    # word a row of three 1.74 wide read four).
    top_stagger_width: float = 1.5
    # A top counted two that is at least top_l_width sides wide (two cubes across: a pair's is
    # ~1), fills under top_l_fill of its rectangle and reads at least top_l_area cube tops is
    # an L of three: three of the 2 x 2 rectangle's cells, whose centres a slant puts off the
    # top (a pair fills ~0.7 of its 2 x 1 rectangle). Per-top study of hard Carolus seeds
    # 100-159 (3504 single-top patches): wrong 41 -> 34, none made wrong; area 2.3-2.5 and
    # width 1.5-1.55 the same, fill 0.55 or 0.57: 35. (Width 1.5 made a pair 1.54 wide three
    # on held-out seed 18; a pair with its lit side joined, 1.69 wide, still reads three.)
    # Since Carolus counts by the top model, the rule is El Grande's (and black tops'): refitted
    # on hard El Grande seeds 100-219 (every patch, black ones too, counted alone: wrong 148 ->
    # 140 at area 2.0 and fill 0.6-0.62, 141 at 0.58 and 0.64; area 2.4 two or three more at
    # each fill; width 1.5-1.55 140, 1.45 141, 1.65 145): El Grande's Ls read fewer cube tops
    # than Carolus's (2.1-2.9), a few filling up to 0.6 of their rectangle. (Fill 0.64 turned
    # a lone top blurred 1.89 x 1.58 sides, filling 0.62, into an L: see test_stages.)
    top_l_width: float = 1.55
    top_l_fill: float = 0.6
    top_l_area: float = 2.0
    # A top whose cells say two (not an L) but that is under this many times as long as wide
    # is one cube's: blur spreads a lone far top as much across as along (1.6-1.9 sides long,
    # 1.2-1.6 wide, 1.19-1.43 times as long as wide), and its two cells' centres both find it;
    # a pair's top keeps its 2 x 1 shape (from 1.30 times as long as wide, median 2.0).
    # Per-top study of hard Carolus seeds 100-159 (single-top patches): territories' wrong
    # tops 39 -> 36, courts' 32 -> 31, none made wrong (1.2: 38; 1.35 made three pairs one).
    top_square_aspect: float = 1.25
    # A ragged top (under top_min_fill of its rectangle) of Carolus yellow or green cubes, the
    # light colours, counts by its area over this many cube tops a cube (others:
    # merged_top_cubes). Per-patch study of hard Carolus seeds 100-159: their ragged tops read
    # 1.2-2.05 tops a cube (5 of 6 over-counted at 1.1), red and blue ones 0.44-1.39; wrong
    # patches 87 -> 85 at 1.2, 84-85 at 1.3-1.4, 83 at 1.5-1.6, none made wrong. One bar for
    # all colours (1.2) took hard held-out seeds 12-40 28 -> 31 (red and blue 4 -> 3; on seeds
    # 100-159 the cubes it made wrong were red and blue too): the light colours only.
    carolus_light_colours: tuple[str, ...] = ("yellow", "green")
    light_ragged_top_cubes: float = 1.5
    # A big piece is found where the colour mask's inscribed radius passes this share of the
    # way from a cube's half side to the piece's own (minus the dark edge every piece shows).
    big_piece_radius_share: float = 0.5
    edge_px: float = 1.0
    # A pawn's blob is opened by a disc of this share of its radius (no cube holds it: cubes
    # touching the pawn and its head fall away); each part thick enough, and at most this
    # many radii thick, is a candidate foot. The pawn is the candidate with the most (how
    # well its blob, within this share of a radius round the pawn's outline, fills that
    # outline + inscribed radius / the pawn's radius - roundness x spread of the part's
    # outline's distance from its middle): a disc's outline spreads ~0.1, a box's 0.2-0.4
    # (hard and easy sets: the king 0.91-1.18 of his radius thick, the black grande
    # 0.69-1.03, clusters of black cubes up to 1.22; the king wins in all 77 frames, by 0.05
    # or more).
    figure_open: float = 0.6
    figure_hole: float = 0.5  # holes filled first, up to this share of the foot's disc
    figure_area: float = 0.45  # blobs smaller than this share of the foot's disc are no pawn
    figure_max_thickness: float = 1.4
    figure_near: float = 0.3
    figure_roundness: float = 0.5
    # ... the spread counted up to this: a pawn's foot with a cube touching it strays as far
    # as an odd blob of cubes (benchmarks/fit_big_pieces, hard seeds 100-299: feet of the king
    # up to 0.6, of Charlemagne up to 1.38 with a cube at its foot, seed 199's losing to a
    # blob of cubes by 0.003. Capped at 0.7-0.8, Charlemagne's leads over the best other
    # candidate are 0.13 or more, seed 199's 0.31; the king's are as without the cap).
    figure_spread_cap: float = 0.75
    # A black pawn found among the black pixels with a score under this, or a black grande
    # under grande_sure, is looked for among the dark pixels too (see figures.DarkSearch); a
    # grande's top among the counted patches at least grande_sure like one is taken there
    # (hard and easy sets, 41 seeds each: kings found wrong there scored 1.65 at most, right
    # ones mostly 1.7 and over; grandes found wrong 0.88 at most, right ones mostly over 1).
    figure_sure: float = 1.7
    # A coloured pawn not found among its colour's pixels is looked for among those keeping
    # this share of its colour's chroma (not min_chroma_share), the board's colours left out
    # (figures.faded_pawn_mask): glare washes Charlemagne's side out to half of yellow's
    # chroma (hard held-out Carolus seed 22: 0.49, the yellowish print of its tiles 0.3).
    faded_pawn_chroma: float = 0.4
    grande_sure: float = 1.0
    # A pawn's head is a ball, its radius this share of the pawn's diameter, on its top: seen
    # off the foot, it is taken out of the mask with the foot (it would be a cube), as far
    # as this many times where the camera's pose puts it (the focal length of a camera
    # looking straight down is a guess).
    pawn_head: float = 0.25
    pawn_lean_slack: float = 1.5
    # Where a tall piece's top shows comes from the camera's pose (standing.py): its focal
    # length is worked out from the board's outline, unless the camera looks nearly straight
    # down or the estimate is out of this range of the focal length of a camera hanging this
    # many mm over the board (an arm's length: 600-900 mm).
    camera_height: float = 750.0
    focal_range: tuple[float, float] = (0.6, 1.7)
    # Without a lens model, calibration estimates the lens's radial term k1 (camera_model.py)
    # over this range (barrel lenses down to -0.5; the hard set's go to -0.22), on a grid of this
    # many steps refined by golden sections, and keeps it only if the markers then miss by at most
    # this share of what they miss by without it (noise alone: ~0.9 on a lens that hardly
    # bends; the hard set's bent lenses: 0.1-0.5).
    estimate_lens: bool = True
    lens_k1_range: tuple[float, float] = (-0.5, 0.3)
    lens_k1_steps: int = 41
    lens_gain: float = 0.7
    # A grande is the top of its colour, at least this share of the big-piece thickness, with
    # the most (thickness - weight x |log(area / a grande top's)|): blurred pairs of cubes
    # are as thick as a grande's top but smaller, merged rows bigger.
    grande_thickness: float = 0.9
    # ... and at most this share: a block of four cubes whose seams blur erased spans two
    # cells each way as a grande's top does, but its inscribed radius is a cube's side, not
    # half a grande's (benchmarks/fit_big_pieces, hard El Grande seeds 100-299: grandes' own
    # tops 0.31-1.57, 1.41 at the 95th percentile; blocks of four not refused otherwise
    # 1.67 and 1.84, the second beating seed 136's red grande).
    grande_max_thickness: float = 1.62
    # ... and no more than this many times as long as wide (in top_shape's cube cells, along
    # over across) where it is no longer than a grande's top: a pair of cubes blurred into one
    # bar is as thick as a grande's top and as big, but twice as long as wide (hard El Grande
    # fresh seed 307: green's pair in castilla_la_nueva, thickness 0.97, size 1.01, taken for
    # the grande). benchmarks/fit_big_pieces, seeds 100-219 and 400-599: grandes' own tops
    # median 1.2, 99th percentile 1.52, none of those no longer than a grande over 1.64
    # (one lengthened by its lit side, 2.21, is longer and left to grande_thickness's rules);
    # 185 other tops of 438 refused at 1.7, none of which had been taken for a grande there.
    # Not for black's grande: its tops from the dark search run longer (with it, seeds
    # 400-599 141 -> 143, black's grande lost in 584 and 599). Fresh 300-399: 60 -> 59, big
    # pieces 480 -> 481 of 485 (307); seeds 100-219, 400-599, 0-40 and easy line for line.
    grande_max_cells_ratio: float = 1.7
    # A grande's top taken out of its patch takes with it the patch's tops within
    # figure_sliver_reach cube sides of it that are less than figure_sliver_thickness sides
    # thick: a cube touching a grande shows its top at least half a grande and half a cube
    # (1.3 sides) away, but blur splits slivers of the grande's own top or lit side off nearer
    # (hard El Grande seeds 0-40: slivers 0.6-1.3 sides off and 0.13-0.26 thick, read as a
    # black cube where the black grande stands; cubes' tops 1.3 sides off or more, 0.31 thick
    # or more).
    figure_sliver_reach: float = 1.3
    figure_sliver_thickness: float = 0.3
    grande_size_weight: float = 0.5
    # Only blobs of at least this share of a grande top's area are looked at (hard and easy
    # sets: a grande's top reads 0.77 of a nominal top and more, its blob more still).
    grande_least_area: float = 0.6
    # Black pieces (El Grande): hueless pixels (chroma once the markers' cast is off; at most
    # this share of the print's chroma along its hue, as a shadow keeps it) whose grey value
    # is at most this share of the board's print round them (the median over this many mm):
    # the black pieces 0.15-0.5 (glare lifts them), shadows 0.55 and of the print's hue. At
    # most the second share, darker than any shadow, a pixel's hue is not asked.
    dark_piece_ratio: float = 0.55
    black_piece_ratio: float = 0.4
    dark_piece_chroma: float = 14.0
    dark_piece_print_hue: float = 0.35
    dark_piece_window: float = 88.0
    # ... and at least this many cube sides wide (the print's borders and names are thinner).
    dark_piece_width: float = 0.5
    # ... whose holes this many pixels wide (after the hue and chroma tests) are filled first:
    # noise puts a pixel's hue off here and there, and a piece pricked so has no square of
    # that width whole (a black cube at lightness 17-40 under print at 195 lost whole; the
    # king in seed 549). Session 17: hard El Grande seeds 100-219 58 -> 57 wrong counts,
    # 400-599 160 -> 156 and big pieces 991 -> 992; seeds 0-40 and 300-399 line for line.
    dark_piece_hole: int = 3
    # Black cubes grey under glare (grey_tops.py): hueless pixels at most this share of the
    # grey value of the brightest print within this many cube sides round them (a
    # piece's shadow darkens the print to 0.55 of it at most, a black top under glare stays
    # under ~0.45), a plateau at least this many sides thick (inscribed radius) and of at
    # least this share of a cube top's area.
    grey_top_ratio: float = 0.52
    grey_top_reach: float = 2.5
    grey_top_thickness: float = 0.3
    grey_top_area: float = 0.4
    # ... of which at most this share is already the colour model's black (a black top the
    # model sees is counted as it is: its grey rim would merge it with its neighbours).
    grey_top_black_share: float = 0.5
    # ... whose grey value (median) is at most this share of the print's in a ring this many
    # sides round it (this percentile, the brightest: the ring also holds the cubes' own
    # shadows and sides and a cluster's other cubes; dark print such as the sea under glare is
    # no darker than the print round it), and that is at most this thick (inscribed radius,
    # sides: a black grande's top is thicker).
    grey_top_ring: float = 1.0
    grey_top_ring_percentile: float = 100.0
    grey_top_ring_ratio: float = 0.55
    grey_top_max_thickness: float = 0.87
    # The first look that finds where the full test runs (grey_tops._places, on every other
    # pixel of every other row, no Lab): luma at most this share of the brightest print luma
    # round it, both as greys (the full test's 0.52 with room for luma not being lightness
    # and for noise the medians would take away), and channels at most this far apart (the
    # most a hueless colour's are: 54 over all 2^24 colours, Lab chroma <= 14).
    grey_top_first_ratio: float = 0.572
    grey_top_spread: int = 54
    grey_top_first_black_share: float = 0.75
    # ... and its block's core (the pixels as thick as the plateau) at most this share the
    # model's black: a black cube the model sees is a black core in a dark rim (the full test
    # refuses it by grey_top_black_share: 8 of a five-player frame's 19 places, no grey top
    # in any).
    grey_top_first_core_black_share: float = 0.7
    # Castles (Carolus): hueless blobs on a tile (Lab chroma once the cast seen on the tile
    # marker's paper is taken off) ...
    castle_chroma: float = 14.0
    # ... at least this Lab distance from the tile's print round them (the median over this
    # many castle widths: light varies across a tile, and a pale tile in cold light or under
    # glare is nearly hueless too). A white castle on a pale beige tile stands out from it by
    # 10-14 (hard seed 35: at 12 only its middle passed, too thin); the chroma, print-hue and
    # thickness tests keep the rest out (hard seeds 0-40: other blobs at most 0.35 thick, at
    # 12 and at 10 alike; castles from 0.45) ...
    castle_contrast: float = 10.0
    castle_print_window: float = 4.0
    # The print round a pixel is worked out on cells this many to the window a side, each
    # cell its print pixels' mean, the median over that many cells a side, and read between
    # the cells' centres where a pixel needs it: not a median image of every pixel, a third
    # of the castles' time at 720p. Hard seeds 100-299 read the same castles as with that
    # image, seeds 100-159 made 720p fewer wrong (44 -> 38 of 219); a ninth (the old cell
    # size) costs ~1 ms more at 720p (its 11 x 11 median).
    castle_print_cells: int = 5
    # Castles are looked for on the tiles binned 2x2 (the Lab conversion, the print's median and
    # the tests at a quarter of the cost) when a castle stays at least this many pixels wide
    # there. Hard seeds 0-40 and 100-159 all read binned: from 7.05 px (castles from 14.1
    # working px) as right as unbinned; below, phantom castles at 6.95, 6.25 and 4.5 px, castles
    # lost at 6.7 and 4.7; half a pixel more kept clear of those. The speed bench's 1080p
    # frames (castles ~17 px) are binned, 720p ones (~11) are not.
    castle_bin_px: float = 7.5
    # Below that, castles are looked for on the bins too when a castle stays at least this
    # many pixels wide there (a 720p frame's ~11-px castles: 5.7), and decided on the working
    # image's own pixels in a window round each candidate only (bins for where, pixels for
    # what: the tests, holes and blobs over the tiles cost a quarter; the Lab and the print
    # round each window stay the pixels', so a blob found is measured as before but for the
    # print's typical share and the median filling cells that are not print, which come from
    # castle_print_sample). A candidate
    # is any blob on the bins at least castle_candidate_area castle squares big (a castle's
    # measured blob is from castle_min_area: a bin blob, unopened, is no smaller), its window
    # castle_window castle widths wider each way, and wider again while a blob in it at least
    # a candidate's size reaches its edge.
    castle_where_bin_px: float = 5.0
    # The print's cells away from the windows (where to look; the typical share; the median
    # that fills cells that are not print) are estimated from every this-many-th pixel each
    # way, not blurred: a ninth of the Lab. Unbiased (a cell's mean BGR made Lab reads a grey
    # level or two lighter), if noisier (a cell's L off by 5 on the speed frame, the typical
    # share by up to 0.006 on hard seeds 100-299, which read the same castles).
    castle_print_sample: int = 3
    castle_candidate_area: float = 0.4
    castle_window: float = 1.0
    # ... and with at most this share of the print's chroma along the print's hue (a shadow
    # on the tile keeps 0.4-0.75 of it, castles -0.7-0.2 once the cast is off).
    castle_print_hue: float = 0.35
    # Holes up to this many castle squares in a hueless blob are filled: the middle of a
    # castle's top may be as light as the tile round it.
    castle_hole: float = 0.5
    castle_min_area: float = 0.8  # of the castle's square (hard set: castles from 0.98)
    # ... and thick: inscribed radius at least this share of its width (hard set: castles
    # from 0.45 once holes are filled, other hueless blobs up to 0.38; hard seeds 100-219:
    # castles from 0.3965 but one half under a cube, other blobs up to 0.367 but a phantom
    # at 0.426; 0.42 missed five castles at 0.3965-0.41 there).
    castle_thickness: float = 0.39
    # Lightness is a grey value's share of the way from the tile marker's ink to its paper
    # (exposure scales grey values and glare adds to them: the share holds), of the castle's
    # body (the median over the blob's thickest part, down to this many castle widths less
    # thick), half corrected by the print beside it against the print elsewhere (see
    # CastleBlob.lightness). Under the first share black, from the second on white (hard and
    # easy sets, 41 seeds each: black up to 0.29, grey 0.40-0.50, white from 0.57). Hard seeds
    # 100-299 (benchmarks.fit_castles, session 10): black up to 0.270, grey 0.291-0.558, white
    # from 0.576; white from the middle of that last gap (was 0.53: hard seed 243's grey castle
    # at 0.558 read white). Black is left at 0.34: the middle of the fit seeds' gap, 0.28, would
    # take a black castle of hard seeds 0-40 at 0.284 for grey (three grey castles of 100-299 at
    # 0.291-0.330 read black).
    # Session 11 (hard seeds 100-299, every thick blob measured by a throw-away wrapper):
    # black bodies up to 0.269, grey from 0.305 (seeds 116, 240 and 147 at 0.305, 0.319 and
    # 0.323 read black). Under black_castle_sure (the middle of that gap) a castle is black;
    # from there to black_castle_share grey only if its whole blob (lit top, shaded side and
    # own shadow: a black castle's lit edges are thin, a grey castle's top is not) is light
    # too, its median share half corrected as the body's at least grey_castle_whole: black
    # castles' whole blobs up to 0.314 (but one merged with its neighbour, 3.2 tops, 0.45 at
    # a body of 0.23), greys' from 0.340 (the three above 0.341-0.361); the middle.
    castle_core: float = 0.2
    black_castle_share: float = 0.34
    black_castle_sure: float = 0.287
    grey_castle_whole: float = 0.327
    white_castle_share: float = 0.567
    # On a tile, a pixel this much darker than the print round it is darker than a shadow
    # gets: hueless enough to be a black castle's whatever its hue.
    castle_shadow_ratio: float = 0.45
    # A tile marker whose paper's lit pixels reach 254 in some channel on more than this
    # share of them shows the light's colour cast cut short: the cast of the markers that do
    # not is used there (hard seeds 16 and 141: the red or green channel clipped on 50-95 % of
    # the paper, white castles lavender or green by 10 past the paper's cast).
    castle_paper_clipped: float = 0.5
    # A tile marker whose paper is less than this many grey values lighter than its ink is
    # covered or not where its tile was thought to be: the other tiles' light is used.
    marker_min_contrast: float = 40.0
    # Dice (Carolus), read in the frame at full resolution; lengths in die sides. A die rises
    # above the tray's own level (measured round it over this width, so glare and shadow
    # bands do not count) by this share of the brightest die top's rise, or is this saturated
    # (OpenCV Lab chroma from the tray's; its spot, which can be as dark as the tray). With
    # less rise than die_min_rise grey levels anywhere the tray is empty.
    die_background: float = 2.5
    # Without a lens model the tray's outline may be several dice off in the image: the tray
    # (darker than the board round it) is looked for this far round its outline, by the
    # contrast (log ratio of levels) between it and a ring this wide round it, which must be
    # at least die_tray_contrast there (0.09 and more on the hard set; a frame whose
    # calibration is off by more has no tray there, and no dice are read).
    die_tray_search: float = 4.5
    die_tray_ring: float = 0.75
    die_tray_contrast: float = 0.06
    # ... then the dark plateau found there replaces the outline (the lens also turns and
    # scales it a little) if its area is within this share of the outline's and its middle
    # within a die of the outline's.
    die_tray_fit: float = 0.3
    # The tray's colour is measured this far inside its light printed outline; dice are
    # looked for this far outside it (a die's top stands out past its footprint in the image,
    # being nearer the camera, and without a lens model the outline is a few pixels off; the
    # castle supply is 2.5 dice away).
    die_tray_margin: float = 0.2
    die_reach: float = 0.75
    # A die is this wide at least (the tray's printed outline is thinner).
    die_min_width: float = 0.45
    die_body_share: float = 0.35
    # ... and (over the lighter board beside the tray) this share above the board's level.
    die_board_share: float = 0.2
    # A hole in that up to this size (die sides squared) is a die's symbol, darker than its
    # white (a symbol covers 0.34).
    die_hole: float = 0.6
    die_spot_chroma: float = 22.0
    die_min_rise: float = 15.0
    # Sensor noise is several grey levels on a symbol ~10 px wide: smoothed this much first.
    die_smooth: float = 0.05
    # A blob of die pixels smaller than this (die sides squared) is no die (a speck, the
    # tray's printed label); one die shows this much, its top and the sides in view.
    die_min_area: float = 0.8
    # ... nor a part thinner than this (its deepest pixel this far from its edge: a die's top
    # alone is half a die deep, 0.49 and more on the hard set) or longer than this over its
    # width (a die with its sides in view is at most 1.22; the tray's printed label 2).
    die_min_depth: float = 0.42
    die_max_elongation: float = 1.5
    die_image_area: float = 1.5
    # A die's white: the brightest share of its pixels (its lit top), near its symbol.
    die_white_share: float = 0.15
    die_white_radius: float = 0.75
    # A symbol pixel's colour, over the die's white, is this far from grey (a shaded side
    # is darker but not coloured); a symbol is the patch round such a peak down to this share
    # of it, and covers this much (die sides squared: a crown 0.21, a spot 0.34; a wider patch
    # is the white's own faint tint spread by noise).
    die_symbol_chromatic: float = 0.15
    die_symbol_level: float = 0.5
    die_symbol_area: tuple[float, float] = (0.1, 0.45)
    # The top face's symbol lies about half a die inside the die's outline in the image; a
    # side's lies at its rim (a third of a die or less inside, at the steepest 35° view).
    die_top_depth: float = 0.3
    # Its colour: the most coloured share of its pixels within this radius of its centre,
    # against the die's white, as a hue and a log colourfulness per darkening (both kept when
    # blur blends the symbol with the white). Each face is this far from its nominal colour
    # per unit of the score (hard set: hue within 8 degrees, colourfulness within 0.3, the
    # pale yellow's more); a best score over die_fit_max, or within die_fit_margin of the next
    # face's, leaves the die unread rather than guessed.
    die_core_radius: float = 0.3
    die_core_share: float = 0.4
    die_hue_tolerance: float = 12.0
    die_saturation_tolerance: float = 0.4
    die_saturation_floor: float = 0.05
    die_fit_max: float = 9.0
    die_fit_margin: float = 0.5
    # Between the crown and the yellow spot (the two nearest faces) only the colourfulness
    # tells (die_faces.crown_or_yellow): under the first bound a crown, over the second a
    # yellow, between them unread. Hard seeds 100-299 (session 11, the benchmark's dice, both
    # frames of a seed): crowns' symbols -0.15-0.28 and one blurred to 0.40 (seed 217: read
    # yellow by the hue and colourfulness score), yellows' from 0.75; their hues 152-168 and
    # 156-173. The score had left crowns at 0.24 and 0.28 unread (hue 168 and 162: seeds 159,
    # 121). The upper bound stays under a yellow blended half with white (0.64).
    die_crown_yellow: tuple[float, float] = (0.45, 0.6)
    # Carolus court cards: the printed colour dot at the start of each row (mm), not read.
    court_dot_mm: float = 8.0
    # A court row's cubes are counted from how far their colour runs along the row
    # (court_rows.py; lengths in cube sides): only where the colour spans court_row_width
    # across (a halo, a lit side or a neighbour's sliver is thinner), in runs joined over gaps
    # of court_row_gap and at least court_row_run long, from the first such run to the last
    # (session 10: glare's gaps inside a row are no missing cubes), within court_row_margin
    # of the row (and its cubes' lean) across. n cubes run n pitches + court_row_extra,
    # + court_lean_away of the tops' lean along the row when they lean away from the dot (the
    # first cube's side shows before it), - court_lean_toward of it when they lean towards it
    # (the dot's ignored ring hides the first cube's edge). Least squares on hard and easy
    # bench seeds 0-11 (280 rows); the renderer lines knights up 1.06 sides apart. A row never
    # reads fewer than its blobs say (tops and areas under-count rows, they do not over-count
    # them much).
    court_row_width: float = 0.4
    court_row_gap: float = 0.2
    court_row_run: float = 0.4
    court_row_margin: float = 0.3
    court_pitch: float = 1.054
    court_row_extra: float = 0.048
    court_lean_away: float = 0.55
    court_lean_toward: float = 0.19
    # A row's fractional count rounds up from this share of a cube, not a half: the read takes
    # the most of the row's count and its blobs', so a row one under is mostly taken back by
    # its blobs and one over always stands (hard Carolus seeds 100-299, every row's length
    # with its blobs' count apart, benchmarks/fit_court_rows.py: 53 of 2006 rows wrong at
    # 0.5, 41 at 0.61-0.62, 42-43 at 0.58-0.60 and 0.63, 44 at 0.57 and 0.64).
    court_row_round: float = 0.615
    # Still-scene gate: mean absolute grey difference (0-255) between consecutive small frames.
    motion_threshold: float = 2.5
    # Share of pixels that must change for a frame pair to count as "moving".
    motion_pixel_share: float = 0.004
    motion_pixel_delta: int = 24
    # Frames that must be still in a row before an observation is taken; their median is read.
    still_frames: int = 3
    # Calibration samples a piece colour from the pixels of its hue this much (Lab chroma)
    # more saturated than the area's own print, and of their clusters only those with at least
    # this share of the most saturated one's chroma (the pale print of a same-hue region is no
    # piece).
    sample_chroma_margin: float = 12.0
    sample_chroma_share: float = 0.7
    # Where none of a colour's hue stands out in its area, its cube is looked for this many
    # cube sides round the area too: its top may show over the area's edge (its lean).
    sample_reach: float = 1.0
    # A hueless colour's (El Grande's black) sample from its home region gives way to its
    # court's cubes' when those are this much darker (8-bit Lab lightness): a lamp's glare on
    # the home region. Hard El Grande fit seeds 100-219: court samples 11-15 darker on seven
    # frames without glare (192 at 15 lost its king and black grande to the court's), 20-57
    # on 194, 114, 165, 209, 135 (counts 63 -> 61).
    sample_glare_lightness: float = 18.0
    # Skin under neutral light (OpenCV 8-bit Lab a, b ranges and least L): warm, mid-light,
    # moderately saturated, from the palest to the darkest skin, lit or in the arm's shade.
    # The light's cast (from the markers' white paper) is taken off first.
    skin_a: tuple[float, float] = (133.0, 170.0)
    skin_b: tuple[float, float] = (135.0, 175.0)
    skin_l: float = 55.0
    # Skin-coloured pixels this near (Lab distance, lightness weighed half) to one of the
    # board's own colours (calibrated under the same light) are the board's print: in warm
    # light El Grande's beige frame and peach regions are skin-coloured and as big as an arm
    # (hard seeds 0-40: that print lies 1.5-4 from its colour, a hand's skin mostly 8 and
    # over; at 7 the frame in a cast shadow was still taken for a hand).
    hand_print_distance: float = 8.0
    # ... but only the print's colours: the calibration's board colours also hold the table,
    # which the lens bends up to a few cube sides inside the board's outline (a dark wooden
    # table as brown as a dark arm: hard El Grande seed 40's hand was read). A board colour
    # found more in a ring this many cube sides wide round the board than on it is the
    # table's (calibration.print_colours).
    print_inset: float = 3.0
    # Skin-like blobs bigger than this many cube footprints over the board mean a hand or arm.
    hand_min_cubes: float = 20.0
    # ... and it must reach in from off the board: within this many cube sides of the board's
    # outline (where the outline may be off) counts as off the board.
    hand_edge_cubes: float = 1.5
    # A hand reaching in is small over the board at first: a blob over the board of at least
    # this many cube footprints joined to skin over the table (the forearm, skin under neutral
    # light off the board) of hand_min_cubes or more is a hand too (hard Carolus seed 13: a
    # pale hand over the board's corner, 4-7 footprints a piece, its forearm 230 over the
    # table). Hand-free frames (seeds 0-40) join at most 5 footprints of the table to a blob.
    hand_reach_cubes: float = 5.0
    # El Grande's Castillo tower (mm tall: the renderer draws it 90 mm; measure your own)
    # leans away from the camera in the image, its brown sides and dark inside as dark as
    # black cubes: the whole tower as the camera's pose shows it (foot to top) is left
    # unread, grown by this factor for its shadow's soft edge and the pose's error.
    tower_height: float = 90.0
    tower_margin: float = 1.15
    # Its shadow falls within this many tower heights of its foot (a lamp 45 degrees up or
    # higher): black there must be darker than a shadow on the print round it
    # (figures.dark_pieces' test), or beside such pixels (a black cube's blurred rim, this many
    # cube sides).
    tower_shadow_reach: float = 1.0
    # ... and over the whole board when the set-up's black is at least this light (8-bit Lab
    # lightness, a glare over the cubes it was sampled from): that black reaches the print's
    # dark lines and shadowed sea, read as rows and blocks of black cubes (fresh hard seeds
    # 305, 321, 322: 0 -> 8, 3 -> 17, 0 -> 14; where the court's sample does not replace it,
    # see sample_glare_lightness).
    # Session 15 (the test everywhere, grey tops still read outside the tower's zone): hard El
    # Grande fit seeds 100-219 71 -> 70 wrong counts at 60 and on every frame alike; held-out
    # 0-40 21 -> 20 at 60, 21 on every frame; fresh 300-399 94 -> 81 at 60, 84 on every frame
    # (a dark frame's black cubes under glare are no darker than a shadow: 302, 336, 350, 377
    # lose one each). Set-up blacks on those seeds: 26-59 or 60 and over (fit 63-97 where
    # the test was on), none on the fit seeds between 59 and 63.
    dark_black_lightness: float = 60.0
    shadow_rim: float = 0.3
    # How far (board mm) the markers may seem to move before the homography is re-estimated.
    marker_tolerance_mm: float = 3.0
    # Threads one read may use: stages that do not depend on each other (Carolus's dice and
    # castles beside the cubes; El Grande's dark search when the last frame needed it) run on
    # a small pool beside the main chain; the results are the same whatever the timing. 1:
    # everything on the calling thread, in order; 0: one per core, at most 3 (a read has at
    # most two stages to hand off).
    read_threads: int = 0
    # Carolus's dice and castles on a second process from a stream's second read (side.py),
    # when read_threads allows a second thread: a helper thread only takes turns with the main
    # chain for Python's lock.
    read_side_process: bool = True


DEFAULT_CONFIG = VisionConfig()
