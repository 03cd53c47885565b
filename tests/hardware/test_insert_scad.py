"""Render the tower's printable insert with OpenSCAD and check the mesh is one printable solid.

The insert (``hardware/tower/insert.scad``) is printed as a single part, so the rendered STL must
be one connected, closed (watertight, consistently oriented) solid that fits inside the tower and
lets a cube fall through the throat and slide down the ramp. The CI installs ``openscad`` with apt;
the test fails (not skips) when the binary is missing.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCAD = ROOT / "hardware" / "tower" / "insert.scad"

# (id, -D overrides): the file's defaults and a smaller tower with smaller cubes.
CASES = [
    ("defaults", {}),
    ("small_tower", {"tower_inner": 70, "cube_size": 9}),
]

Vertex = tuple[str, str, str]  # the STL's own text: equal text <=> the same vertex


@dataclass
class Mesh:
    keys: list[tuple[Vertex, Vertex, Vertex]]  # triangles as vertex keys
    tris: list[tuple[tuple[float, float, float], ...]]  # triangles as coordinates
    echoes: list[list[str]]  # OpenSCAD ECHO lines, split on commas


def scad_params(overrides: dict[str, float]) -> dict[str, float]:
    """Numeric top-level parameters of insert.scad (``name = number;``), with the overrides."""
    text = SCAD.read_text()
    params = {
        m.group(1): float(m.group(2))
        for m in re.finditer(r"^\s*(\w+)\s*=\s*(-?\d+(?:\.\d+)?)\s*;", text, re.MULTILINE)
    }
    for name in overrides:
        assert name in params, f"{name} is not a parameter of {SCAD.name}"
    params.update({k: float(v) for k, v in overrides.items()})
    return params


def openscad() -> str:
    exe = shutil.which("openscad")
    if exe is None:
        pytest.fail(
            "the openscad binary is not on PATH: install it (apt-get install openscad) "
            "to render hardware/tower/insert.scad"
        )
    return exe


def render(out_dir: Path, overrides: dict[str, float]) -> Mesh:
    stl = out_dir / "insert.stl"
    cmd = [openscad(), "-o", str(stl)]
    for name, value in overrides.items():
        cmd += ["-D", f"{name}={value}"]
    cmd.append(str(SCAD))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"openscad failed ({proc.returncode}):\n{log}"
    problems = [line for line in log.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert not problems, "openscad reported:\n" + "\n".join(problems)
    echoes = [
        [part.strip().strip('"') for part in line[len("ECHO:") :].split(",")]
        for line in log.splitlines()
        if line.startswith("ECHO:")
    ]

    text = stl.read_text()
    assert text.startswith("solid"), "expected an ASCII STL"
    keys: list[tuple[Vertex, Vertex, Vertex]] = []
    tris = []
    corner: list[Vertex] = []
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "vertex":
            corner.append((words[1], words[2], words[3]))
            if len(corner) == 3:
                keys.append((corner[0], corner[1], corner[2]))
                tris.append(tuple(tuple(float(c) for c in v) for v in corner))
                corner = []
    assert not corner, "STL ends inside a facet"
    assert keys, "the STL is empty"
    return Mesh(keys, tris, echoes)


_rendered: dict[str, Mesh] = {}


@pytest.fixture(params=CASES, ids=[case[0] for case in CASES])
def case(request, tmp_path_factory) -> tuple[dict[str, float], Mesh]:
    name, overrides = request.param
    if name not in _rendered:
        _rendered[name] = render(tmp_path_factory.mktemp(name), overrides)
    return scad_params(overrides), _rendered[name]


# ---- geometry helpers ----------------------------------------------------------------------


def components(keys: list[tuple[Vertex, Vertex, Vertex]]) -> int:
    """Number of groups of triangles connected through shared vertices (union-find)."""
    parent: dict[Vertex, Vertex] = {}

    def find(v: Vertex) -> Vertex:
        parent.setdefault(v, v)
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for a, b, c in keys:
        ra = find(a)
        for other in (b, c):
            ro = find(other)
            if ro != ra:
                parent[ro] = ra
    return len({find(v) for v in parent})


def signed_volume(tris) -> float:
    total = 0.0
    for (ax, ay, az), (bx, by, bz), (cx, cy, cz) in tris:
        total += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
    return total / 6


def clip_hits_box(tri, lo, hi) -> bool:
    """Whether a triangle reaches into the open box lo < p < hi (Sutherland-Hodgman clipping)."""
    poly = list(tri)
    for axis in range(3):
        for bound, sign in ((lo[axis], 1.0), (hi[axis], -1.0)):
            out = []
            for i, p in enumerate(poly):
                q = poly[i - 1]
                dp, dq = sign * (p[axis] - bound), sign * (q[axis] - bound)
                if dp > 0:
                    if dq <= 0 and dq != dp:
                        t = dq / (dq - dp)
                        out.append(tuple(q[k] + t * (p[k] - q[k]) for k in range(3)))
                    out.append(p)
                elif dq > 0:
                    t = dq / (dq - dp)
                    out.append(tuple(q[k] + t * (p[k] - q[k]) for k in range(3)))
            poly = out
            if not poly:
                return False
    return True


def hits(tris, lo, hi) -> list:
    """Triangles reaching into the box lo..hi."""
    return [
        t
        for t in tris
        if all(min(v[k] for v in t) < hi[k] and max(v[k] for v in t) > lo[k] for k in range(3))
        and clip_hits_box(t, lo, hi)
    ]


def ramp_frame(mesh: Mesh) -> tuple[float, float, float, float, float, float]:
    """(x0, z0, angle, run, lip_x, lip_h) echoed by the model: the ramp's floor starts at x0, z0."""
    for echo in mesh.echoes:
        if echo[0] == "ramp":
            x0, z0, angle, run, lip_x, lip_h = (float(v) for v in echo[1:7])
            return x0, z0, angle, run, lip_x, lip_h
    pytest.fail('insert.scad no longer echoes "ramp" (its frame, used by this test)')


def to_ramp(tris, x0: float, z0: float, angle: float):
    """Triangles in the ramp's frame: x down the slope, z up from the floor's top surface."""
    ca, sa = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return [
        tuple(((x - x0) * ca - (z - z0) * sa, y, (x - x0) * sa + (z - z0) * ca) for x, y, z in t)
        for t in tris
    ]


# ---- tests ---------------------------------------------------------------------------------


def test_one_connected_solid(case):
    _, mesh = case
    bodies = components(mesh.keys)
    assert bodies == 1, f"the insert falls apart into {bodies} separate bodies: it is one print"


def test_mesh_is_closed_and_oriented(case):
    _, mesh = case
    directed = Counter()
    for a, b, c in mesh.keys:
        directed.update(((a, b), (b, c), (c, a)))
    undirected = Counter()
    for (a, b), n in directed.items():
        undirected[frozenset((a, b))] += n
    open_edges = [e for e, n in undirected.items() if n != 2]
    assert not open_edges, f"{len(open_edges)} edges not shared by exactly two triangles"
    flipped = [e for e, n in directed.items() if n != 1 or directed[(e[1], e[0])] != 1]
    assert not flipped, f"{len(flipped)} edges with inconsistently oriented triangles"
    assert signed_volume(mesh.tris) > 1000, "the solid's volume should be positive (mm³)"


def test_fits_inside_the_tower(case):
    params, mesh = case
    pts = [v for t in mesh.tris for v in t]
    lo = [min(p[k] for p in pts) for k in range(3)]
    hi = [max(p[k] for p in pts) for k in range(3)]
    half = params["tower_inner"] / 2
    for k in (0, 1):
        assert -half < lo[k] and hi[k] < half, (
            f"insert spans {lo[k]:.2f}..{hi[k]:.2f} mm across, tower_inner is "
            f"{params['tower_inner']} mm"
        )
        assert hi[k] - lo[k] <= params["tower_inner"] - 2 * params["clearance"] + 1e-6
    assert lo[2] == pytest.approx(0, abs=1e-3), "the feet should stand at z = 0"
    assert hi[2] - lo[2] == pytest.approx(params["insert_height"], abs=1e-3)


def test_throat_lets_a_cube_fall_through(case):
    params, mesh = case
    cube = params["cube_size"]
    throat = cube * math.sqrt(2) + params["throat_margin"]
    assert throat > cube * math.sqrt(2), "a cube's diagonal must fit in the throat"
    # A column as wide as a cube's diagonal (any cube orientation about the vertical) from the
    # funnel's top down to the bottom of the throat must be free of material.
    r = cube * math.sqrt(2) / 2
    bottom = params["beam_z"] - 12
    blocking = hits(mesh.tris, (-r, -r, bottom), (r, r, params["insert_height"] + 1))
    assert not blocking, f"{len(blocking)} triangles in the cube's way through the throat"


def test_ramp_carries_a_cube_out(case):
    params, mesh = case
    x0, z0, angle, run, lip_x, lip_h = ramp_frame(mesh)
    assert angle == params["ramp_angle"]
    cube = params["cube_size"]
    local = to_ramp(mesh.tris, x0, z0, angle)
    eps = 0.05
    # The floor's top surface is where the model says the ramp is (on both sides of the window).
    for y in (-cube / 2 + 1, cube / 2 - 1):
        probe = hits(local, (1, y - 0.5, -0.1), (lip_x - 1, y + 0.5, 0.1))
        assert probe, f"no ramp floor at y = {y} where the model echoes it"
    # A cube sliding down (and riding over the lip) sweeps this box, from under the throat to the
    # end of the ramp: nothing may stick into it — neither the throat's walls nor the beam block.
    sweep = hits(local, (eps, -cube / 2, lip_h + eps), (run, cube / 2, cube + lip_h))
    assert not sweep, f"{len(sweep)} triangles in the way of a cube sliding down the ramp"
    for x_lo, x_hi in ((eps, lip_x - eps), (lip_x + 1.2 + eps, run)):
        low = hits(local, (x_lo, -cube / 2, eps), (x_hi, cube / 2, lip_h + eps))
        assert not low, f"{len(low)} triangles on the ramp's floor between x' = {x_lo}..{x_hi}"
