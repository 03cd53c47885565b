"""Every threshold of the tower firmware in one place, so a builder tunes numbers, not code.

Times are in microseconds of device time. A cube (16 mm) falling past the beam after ~5 cm of fall
blocks it for roughly 4-10 ms; the numbers below leave a margin on both sides.
"""

FIRMWARE_VERSION = 1

# Beam: a blocked interval shorter than this is electrical or optical noise, not a cube.
GLITCH_US = 800
# Two blocked intervals closer than this are one pulse (a bouncing or rotating cube), and a pulse
# is only final once the beam has stayed clear this long.
MERGE_GAP_US = 1500
# A single cube blocks the beam between these two lengths (shorter: it only clipped the beam).
CUBE_MIN_US = 2500
CUBE_MAX_US = 12000
# Length of one cube inside a longer pulse: cubes falling together are counted by length.
CUBE_NOMINAL_US = 7000
# Blocked this long is not a drop any more but a jam (or a hand in the mouth of the tower).
JAM_US = 400000

# Confidence (percent) of the drops of one pulse.
CONFIDENCE_SINGLE = 100
CONFIDENCE_SHORT = 60
CONFIDENCE_DOUBLE = 50
CONFIDENCE_MANY = 30

# Colour sensor: how long a drop waits for its colour before it is sent as "unknown"; a cube slides
# down the ramp to the sensor in 100-300 ms.
COLOUR_WAIT_US = 700000
# A colour seen sooner than this after a drop's beam pulse cannot be that drop's cube (it is still
# falling): it is the late colour of a drop already sent as unknown, and it colours nothing.
COLOUR_MIN_SLIDE_US = 60000

# Link: first retransmission of an unacknowledged drop, then doubling up to the maximum while the
# host stays silent (a host that is not there must not be flooded when it comes back).
RETRANSMIT_US = 250000
RETRANSMIT_MAX_US = 2000000
HEARTBEAT_US = 1000000
# Frames written per poll, so a long backlog never starves the beam.
BURST = 32
# Drops kept until the host acknowledges them (persisted, so a reset loses none).
LOG_CAPACITY = 256
