"""What the tower link puts on the session's queue: drops and the state of the link.

``TowerStatus`` (from ``tower_protocol``) also goes on the queue when the tower answers a hello or
a snapshot request, or when its jam count changes; heartbeats only update ``TowerLink.status``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Drop:
    """One cube fell into the Castillo: delivered exactly once, in the order they fell.

    ``colour`` is None when the tower has no colour sensor or could not tell; ``confidence`` is
    1.0 for a clean single-cube pulse and lower when the count came from a long pulse.
    """

    seq: int
    boot_id: int
    device_time_us: int
    colour: str | None
    confidence: float

    def __repr__(self) -> str:
        colour = self.colour or "unknown"
        return (
            f"Drop(seq={self.seq}, boot_id={self.boot_id:08x}, t={self.device_time_us} µs, "
            f"{colour}, confidence={self.confidence:.2f})"
        )


# The states a LinkStatus reports.
CONNECTED = "connected"  # port open, hello sent
DISCONNECTED = "disconnected"  # port gone or failing; reconnecting with back-off
SILENT = "silent"  # port open but no valid frame for a while (wrong device? crashed firmware?)
DEVICE_RESET = "device_reset"  # the tower rebooted (new boot id); its unacked drops come back
LOST = "lost"  # the tower's log overflowed while the host was away: drops are missing
CLOSED = "closed"  # the link was closed by its owner


@dataclass(frozen=True, slots=True)
class LinkStatus:
    state: str
    port: str
    detail: str = ""

    def __repr__(self) -> str:
        tail = f": {self.detail}" if self.detail else ""
        return f"LinkStatus({self.state} {self.port}{tail})"
