// Castillo tower sensor insert for El Grande — parametric, OpenSCAD.
//
// One printed part that sits inside the Castillo tower: a funnel under the tower's mouth narrows
// to a square throat where the IR break-beam crosses; below it a ramp carries each cube slowly
// past a window with the TCS34725 colour sensor underneath, then lets it fall into the tower.
// A tray on the back holds the Pico; the USB cable leaves through the slot at the bottom.
//
// Measure your tower and cubes and change the parameters below; everything follows from them.
// Print: PLA, 0.2 mm layers, white for the ramp (the colour references assume white), no supports
// needed with the part standing as modelled (funnel up).

/* [Tower and cubes] */
tower_inner   = 76;   // inside width of the (square) Castillo tower, mm
insert_height = 70;   // height of the insert, funnel top to feet
cube_size     = 10;   // El Grande caballero edge, mm
clearance     = 0.3;  // printing clearance for press fits

/* [Beam] */
throat_margin = 3;    // throat = cube diagonal + margin, so a tumbling cube never sticks
beam_d        = 5.2;  // hole for a 5 mm IR LED / receiver (Adafruit 2168 style break-beam)
beam_z        = 48;   // height of the beam above the feet

/* [Ramp and colour sensor] */
ramp_angle    = 24;   // degrees: steep enough to slide, slow enough to be read (wood on PLA)
ramp_width    = 16;
window        = 8;    // sensor window in the ramp (TCS34725 sees ~ a 7 mm spot at 3 mm)
sensor_board  = 20.5; // TCS34725 breakout (Adafruit 1334: 20.3 mm square)
sensor_gap    = 2.5;  // from ramp surface to sensor chip
lip_h         = 1.2;  // a low lip before the window: the cube pauses on it, then tips over

/* [Pico tray] */
pico_l = 51.5; pico_w = 21.5; pico_t = 1.2;  // Raspberry Pi Pico (W)

wall = 2;
$fn = 48;

throat = cube_size * sqrt(2) + throat_margin;

module funnel() {
    // From the whole tower width down to the throat over the top third.
    h = insert_height - beam_z - 6;
    translate([0, 0, beam_z + 6])
    difference() {
        hull() {
            translate([-(throat + 2*wall)/2, -(throat + 2*wall)/2, 0]) cube([throat + 2*wall, throat + 2*wall, 0.01]);
            translate([-tower_inner/2 + clearance, -tower_inner/2 + clearance, h - 0.01])
                cube([tower_inner - 2*clearance, tower_inner - 2*clearance, 0.01]);
        }
        hull() {
            translate([-throat/2, -throat/2, -0.01]) cube([throat, throat, 0.01]);
            translate([-tower_inner/2 + clearance + wall, -tower_inner/2 + clearance + wall, h])
                cube([tower_inner - 2*clearance - 2*wall, tower_inner - 2*clearance - 2*wall, 0.02]);
        }
    }
}

module throat_with_beam() {
    // A square chimney; the beam crosses it at beam_z through two opposite walls.
    z0 = beam_z - 12;
    difference() {
        translate([-(throat + 2*wall)/2 - 6, -(throat + 2*wall)/2, z0])
            cube([throat + 2*wall + 12, throat + 2*wall, 18]);
        translate([-throat/2, -throat/2, z0 - 1]) cube([throat, throat, 20]);
        // LED on -x, receiver on +x, each in a 6 mm boss with a stop at 1 mm from the channel.
        translate([0, 0, beam_z]) rotate([0, 90, 0]) cylinder(d = beam_d, h = throat + 2*wall + 14, center = true);
        // Light baffles: a 2 mm slit keeps stray light off the receiver.
        translate([throat/2 - 0.5, -1, beam_z - 1]) cube([wall + 1, 2, 2]);
    }
}

module ramp_with_sensor() {
    // The cube leaves the throat onto a ramp that ends over the open tower.
    run = 40;
    z_top = beam_z - 14;
    translate([-throat/2, -ramp_width/2, z_top])
    rotate([0, ramp_angle, 0])
    difference() {
        union() {
            translate([0, 0, -wall]) cube([run, ramp_width, wall]);                 // floor
            translate([0, -wall, -wall]) cube([run, wall, cube_size * 0.8]);        // side
            translate([0, ramp_width, -wall]) cube([run, wall, cube_size * 0.8]);   // side
            translate([run/2 - window/2 - 1.2, 0, 0]) cube([1.2, ramp_width, lip_h]); // lip
            // Sensor pocket under the window: the breakout slides in from the side.
            translate([run/2 - sensor_board/2 - wall, -(sensor_board - ramp_width)/2 - wall,
                       -wall - sensor_gap - 1.6 - wall])
                difference() {
                    cube([sensor_board + 2*wall, sensor_board + 2*wall, sensor_gap + 1.6 + wall]);
                    translate([wall, wall - 0.01 - wall, wall])
                        cube([sensor_board + clearance, sensor_board + clearance + wall, 1.6 + clearance]);
                }
        }
        translate([run/2 - window/2, ramp_width/2 - window/2, -wall - sensor_gap - 1])
            cube([window, window, wall + sensor_gap + 1.01]);
    }
}

module pico_tray() {
    // On the back wall of the insert; the USB socket faces down to the cable slot.
    translate([-pico_w/2 - wall, tower_inner/2 - clearance - pico_t - 2*wall - 3, 4])
    difference() {
        cube([pico_w + 2*wall, pico_t + 2*wall + 3, pico_l + wall]);
        translate([wall, wall, wall]) cube([pico_w + clearance, pico_t + clearance, pico_l + 1]);
        translate([wall + 3, wall + pico_t, wall + 4]) cube([pico_w - 6, 4, pico_l - 8]); // parts side
        translate([pico_w/2 + wall - 5, -1, -1]) cube([10, pico_t + 2*wall + 5, wall + 2]); // USB
    }
}

module feet() {
    // Four legs to the tower floor, leaving the cubes' landing area free.
    for (sx = [-1, 1], sy = [-1, 1])
        translate([sx * (tower_inner/2 - clearance - 4), sy * (tower_inner/2 - clearance - 4), 0])
            cylinder(d = 6, h = insert_height - (insert_height - beam_z - 6) + 0.01);
}

module cable_slot_marker() {
    // Cut this slot (8 x 12 mm) in the tower's back wall at floor level for the USB cable;
    // shown here for placement only.
    %translate([-6, tower_inner/2, 0]) cube([12, 2, 8]);
}

module insert() {
    funnel();
    throat_with_beam();
    ramp_with_sensor();
    pico_tray();
    feet();
    cable_slot_marker();
}

insert();
