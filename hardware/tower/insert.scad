// Castillo tower sensor insert for El Grande — parametric, OpenSCAD.
//
// One printed part that sits inside the Castillo tower: a funnel under the tower's mouth narrows
// to a square throat where the IR break-beam crosses; below it a ramp carries each cube slowly
// past a window with the TCS34725 colour sensor underneath, then lets it fall into the tower.
// A tray on the back wall holds the Pico; the USB cable leaves through the slot at the bottom.
//
// Everything is one connected solid: four corner pillars stand on the tower floor and carry the
// funnel's rim, the back wall joins the two back pillars and carries the Pico tray, the throat
// carries the ramp through a short skirt, and two webs under the ramp stand on the floor.
//
// Measure your tower and cubes and change the parameters below; everything follows from them.
// Print: PLA, 0.2 mm layers, white for the ramp (the colour references assume white), standing as
// modelled (funnel up, pillars on the bed); see README.md for the overhangs.

/* [Tower and cubes] */
tower_inner   = 76;   // inside width of the (square) Castillo tower, mm
insert_height = 70;   // height of the insert, funnel top to feet
cube_size     = 10;   // El Grande caballero edge, mm
clearance     = 0.3;  // printing clearance for press fits

/* [Beam] */
throat_margin = 3;    // throat = cube diagonal + margin, so a tumbling cube never sticks
beam_d        = 5.2;  // hole for a 5 mm IR LED / receiver (Adafruit 2168 style break-beam)
beam_z        = 48;   // height of the beam above the feet
boss          = 6;    // length of the LED / receiver bosses outside the throat walls

/* [Ramp and colour sensor] */
ramp_angle    = 24;   // degrees: steep enough to slide, slow enough to be read (wood on PLA)
ramp_width    = 16;   // channel width on the ramp (the skirt chamfers the throat down to it)
ramp_run      = 40;   // length of the ramp along its slope
window        = 8;    // sensor window in the ramp (TCS34725 sees ~ a 7 mm spot at 3 mm)
sensor_board  = 20.5; // TCS34725 breakout (Adafruit 1334: 20.3 mm square)
sensor_gap    = 2.5;  // from ramp surface to sensor chip
lip_h         = 1.2;  // a low lip before the window: the cube pauses on it, then tips over

/* [Pico tray] */
pico_l = 51.5; pico_w = 21.5; pico_t = 1.2;  // Raspberry Pi Pico (W)
pico_parts = 4;       // room behind the board for its parts (USB socket, button), facing the wall
edge_grip  = 0.7;     // the grooves hold this much of the board's long edges (pads start ~0.8 in)

/* [Frame] */
pillar_d = 6;         // corner pillars (the feet), standing 1 mm off the tower walls

wall = 2;
$fn = 48;

// ---- derived -------------------------------------------------------------------------------
throat    = cube_size * sqrt(2) + throat_margin;
half_in   = tower_inner / 2 - clearance;           // half width of the insert's envelope
chimney_z = beam_z - 12;                           // bottom of the beam block (throat walls)
funnel_z  = beam_z + 6;                            // funnel starts on top of the beam block
funnel_h  = insert_height - funnel_z;
pillar_c  = half_in - pillar_d / 2 - 1;            // pillar centre, from the insert's axis
channel   = min(throat, ramp_width);               // channel width in the skirt, at ramp level
side_h    = cube_size * 0.8;                       // ramp side walls, from the floor's underside
pocket_depth = wall + sensor_gap + 1.6 + wall;     // sensor pocket below the ramp floor's underside
// The ramp's floor starts under the throat's -x wall at ramp_z (top surface) and falls towards
// +x. A cube (riding over the lip) must pass under the +x throat wall, whose bottom edge is at
// chimney_z, one throat width further on: that fixes ramp_z.
ramp_z = chimney_z - (cube_size / cos(ramp_angle) + lip_h + 1) + throat * tan(ramp_angle);
ramp_back = wall * (1 - sin(ramp_angle)) / cos(ramp_angle) - 0.1;  // floor reaches under -x wall
// The Pico stands against the back wall, parts towards it, its top end just under the funnel;
// it is put in from above through a slot in the funnel's back slope, too narrow for a cube.
pico_y = half_in - wall - pico_parts - (pico_t + clearance);        // the board's front face
pico_z = funnel_inner_z(pico_y) - 0.5 - pico_l - wall;              // bottom of the tray's floor
lip_x  = ramp_run / 2 - window / 2 - 1.6;          // along the slope, 0.4 mm before the window
pocket_x0 = ramp_run / 2 - sensor_board / 2 - wall;

// For tests/hardware/test_insert_scad.py: where the ramp is (its frame, see ramp_frame()).
echo("ramp", -throat / 2, ramp_z, ramp_angle, ramp_run, lip_x, lip_h);

assert(throat > cube_size * sqrt(2), "throat narrower than a cube's diagonal");
assert(ramp_width > cube_size + 2, "ramp channel too narrow for a cube");
assert(chimney_z - ramp_z >= (throat - channel) / 2, "no room for the skirt's chamfer");
assert(ramp_z - ramp_run * sin(ramp_angle) - pocket_depth > 1, "ramp reaches the tower floor");
assert(funnel_h > 0, "beam_z too high for insert_height");
assert(pico_parts + pico_t + clearance < cube_size * 0.8, "the Pico's slot would catch cubes");
assert(pico_z >= 6, "no room under the Pico for its USB plug: the insert is too low");

// Height of the funnel's inner surface at a distance m (|x| or |y|, the larger) from the axis.
function funnel_inner_z(m) = funnel_z + (m - throat / 2) / (half_in - wall - throat / 2) * funnel_h;

// Children placed in the ramp's own frame: x along the slope (down), y across (centred),
// z = 0 on the floor's top surface at the start of the ramp.
module ramp_frame() {
    translate([-throat / 2, 0, ramp_z]) rotate([0, ramp_angle, 0]) children();
}

module funnel_outer() {
    hull() {
        translate([-(throat + 2*wall)/2, -(throat + 2*wall)/2, funnel_z])
            cube([throat + 2*wall, throat + 2*wall, 0.01]);
        translate([-half_in, -half_in, insert_height - 0.01]) cube([2*half_in, 2*half_in, 0.01]);
    }
}

module funnel_cavity() {
    hull() {
        translate([-throat/2, -throat/2, funnel_z - 0.01]) cube([throat, throat, 0.01]);
        translate([-half_in + wall, -half_in + wall, insert_height])
            cube([2*(half_in - wall), 2*(half_in - wall), 0.02]);
    }
}

module funnel() {
    // From the whole tower width down to the throat over the top of the insert.
    difference() { funnel_outer(); funnel_cavity(); }
}

module throat_with_beam() {
    // A square chimney; the beam crosses it at beam_z through two opposite walls. The bosses'
    // undersides are chamfered at 45° so they print without supports.
    ow = throat + 2*wall;
    difference() {
        hull() {
            translate([-ow/2, -ow/2, chimney_z]) cube([ow, ow, funnel_z - chimney_z]);
            translate([-ow/2 - boss, -ow/2, chimney_z + boss])
                cube([ow + 2*boss, ow, funnel_z - chimney_z - boss]);
        }
        translate([-throat/2, -throat/2, chimney_z - 1]) cube([throat, throat, funnel_z - chimney_z + 2]);
        // LED on -x, receiver on +x: each pushed into its boss until it stops 1 mm short of the
        // channel.
        for (sx = [-1, 1])
            translate([sx * (throat/2 + 1), 0, beam_z]) rotate([0, sx * 90, 0])
                cylinder(d = beam_d, h = wall - 1 + boss + 1);
        // The emitter shines through a 3 mm hole; a 2 mm aperture keeps stray light off the
        // receiver.
        translate([-throat/2 - 1.5, 0, beam_z]) rotate([0, 90, 0]) cylinder(d = 3, h = 2, $fn = 24);
        translate([throat/2 - 0.5, -1, beam_z - 1]) cube([2, 2, 2]);
    }
}

module skirt() {
    // Carries the ramp: the throat's -x and ±y walls continue down to the ramp's floor; the +x
    // side stays open for the cube to leave. Where the ramp is narrower than the throat, a 45°
    // chamfer narrows the channel to the ramp's width (no ledge for a falling cube).
    ow = throat + 2*wall;
    big = 4 * tower_inner;
    intersection() {
        difference() {
            translate([-ow/2, -ow/2, 0]) cube([ow, ow, chimney_z + 0.01]);
            hull() {
                translate([-throat/2, -throat/2, chimney_z]) cube([throat + wall + 1, throat, 1]);
                translate([-throat/2, -channel/2, chimney_z - (throat - channel)/2])
                    cube([throat + wall + 1, channel, 1]);
            }
            translate([-throat/2, -channel/2, -1]) cube([throat + wall + 1, channel, chimney_z + 1]);
        }
        // everything above the middle of the ramp's floor
        ramp_frame() translate([-big/2, -big/2, -wall/2]) cube([big, big, big]);
    }
}

module ramp_with_sensor() {
    // The cube leaves the throat onto a ramp that ends over the open tower.
    ramp_frame()
    difference() {
        union() {
            translate([-ramp_back, -ramp_width/2 - wall, -wall])
                cube([ramp_run + ramp_back, ramp_width + 2*wall, wall]);                       // floor
            for (sy = [-1, 1])                                                            // sides
                translate([-ramp_back, sy > 0 ? ramp_width/2 : -ramp_width/2 - wall, -wall])
                    cube([ramp_run + ramp_back, wall, side_h]);
            translate([lip_x, -ramp_width/2, 0]) cube([1.2, ramp_width, lip_h]);          // lip
            // Sensor pocket under the window: the breakout slides in from the -y side.
            translate([pocket_x0, -sensor_board/2 - wall, -pocket_depth])
                difference() {
                    cube([sensor_board + 2*wall, sensor_board + 2*wall, pocket_depth - 0.01]);
                    translate([wall, -0.01, wall])
                        cube([sensor_board + clearance, sensor_board + clearance + wall, 1.6 + clearance]);
                }
        }
        translate([ramp_run/2 - window/2, -window/2, -wall - sensor_gap - 1])
            cube([window, window, wall + sensor_gap + 1.5]);
    }
}

module ramp_webs() {
    // Two upright webs under the ramp's side walls, from the tower floor to the ramp's floor
    // (and to the sensor pocket's bottom), so the ramp is not printed in mid-air.
    big = 4 * tower_inner;
    intersection() {
        for (sy = [-1, 1])
            translate([-throat/2 - wall, sy > 0 ? ramp_width/2 : -ramp_width/2 - wall, 0])
                cube([throat + wall + ramp_run, wall, insert_height]);
        ramp_frame() difference() {
            translate([-ramp_back, -big/2, -big]) cube([ramp_run + ramp_back, big, big - wall + 0.5]);
            translate([pocket_x0, -big/2, -pocket_depth + 0.5]) cube([sensor_board + 2*wall, big, big]);
        }
    }
}

module pillars() {
    // Four legs to the tower floor, up to the funnel's rim, leaving the landing area free.
    for (sx = [-1, 1], sy = [-1, 1])
        difference() {
            translate([sx * pillar_c, sy * pillar_c, 0]) cylinder(d = pillar_d, h = insert_height);
            funnel_cavity();
        }
}

module back_wall() {
    // Between the two back pillars; the USB cable leaves through the slot at its foot.
    difference() {
        translate([-pillar_c, half_in - wall, 0]) cube([2 * pillar_c, wall, insert_height]);
        translate([-6, half_in - wall - 1, -1]) cube([12, wall + 2, 8 + 1]);
    }
}

module pico_tray() {
    // Two grooved side walls standing on the tower floor hold the Pico's long edges; its front
    // (flat side) stays open for the wires, its parts face the back wall. The board stands on a
    // floor with a cut for the USB plug, which goes down into the tunnel under it and out through
    // the back wall's slot.
    x_in = (pico_w + clearance) / 2;   // half width of the board's slot
    y0 = pico_y - 1.2;                 // front of the tray (the grooves' front lips)
    difference() {
        union() {
            for (sx = [-1, 1])
                translate([sx > 0 ? x_in - edge_grip : -x_in - wall, y0, 0])
                    cube([wall + edge_grip, half_in - y0, insert_height]);
            translate([-x_in, y0, pico_z]) cube([2 * x_in, half_in - y0, wall]);          // floor
        }
        funnel_cavity();
        translate([-x_in, pico_y, pico_z + wall])
            cube([2 * x_in, pico_t + clearance, insert_height]);                          // board
        translate([-x_in + edge_grip, pico_y, pico_z + wall])
            cube([2 * (x_in - edge_grip), half_in - wall - pico_y, insert_height]);       // parts
        translate([-5, pico_y - 0.5, pico_z - 1])
            cube([10, half_in - wall - pico_y + 0.5, wall + 2]);                          // USB plug
    }
}

module pico_slot() {
    // The Pico goes in from above, through this slot in the funnel's back slope.
    x_in = (pico_w + clearance) / 2;
    translate([-x_in, pico_y, pico_z + wall]) cube([2 * x_in, half_in - wall - pico_y, insert_height]);
}

module cable_slot_marker() {
    // Cut this slot (8 x 12 mm) in the tower's back wall at floor level for the USB cable;
    // shown here for placement only.
    %translate([-6, tower_inner/2, 0]) cube([12, 2, 8]);
}

module insert() {
    difference() {
        union() {
            funnel();
            throat_with_beam();
            skirt();
            ramp_with_sensor();
            ramp_webs();
            pillars();
            back_wall();
            pico_tray();
        }
        pico_slot();
    }
    cable_slot_marker();
}

insert();
