"""Exactly once, in order: the host's half of the ack rule, without any I/O (firmware/PROTOCOL.md).

The tower numbers drops 1, 2, 3, ... within each boot and resends what is not acknowledged. The
receiver delivers drop ``s`` of boot ``b`` only when it is the next one (``delivered[b] + 1``), and
acknowledges cumulatively. Anything at or below ``delivered[b]`` is a retransmission and is only
re-acknowledged; anything beyond the next one means a frame was lost, and the receiver asks for a
resend with a HELLO (at most one outstanding) instead of delivering out of order.

A boot the receiver has never seen starts at 1, or at the oldest drop the tower still holds for it
(told by a STATUS): the ones before were acknowledged to an earlier host process.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field

from companion.devices import tower_events as ev
from companion.devices.tower_events import Drop, LinkStatus
from companion.devices.tower_protocol import (
    Ack,
    DropFrame,
    FrameError,
    Hello,
    Message,
    TowerStatus,
    encode,
)

Event = Drop | LinkStatus | TowerStatus

# How many boots' positions are remembered (a boot's retransmissions end within seconds).
KEEP_BOOTS = 16
# Messages after which an unanswered HELLO may be sent again (the first may have been corrupted).
HELLO_RETRY_AFTER = 64


@dataclass
class TowerReceiver:
    port: str = ""
    delivered: OrderedDict[int, int] = field(default_factory=OrderedDict)
    status: TowerStatus | None = None
    counts: Counter[str] = field(default_factory=Counter)
    _hello_age: int | None = field(default=None, repr=False)

    @classmethod
    def resuming(cls, delivered: Mapping[int, int], port: str = "") -> TowerReceiver:
        """A receiver that already delivered these (boot id -> last seq), e.g. after a restart."""
        return cls(port=port, delivered=OrderedDict(delivered))

    def connected(self) -> list[bytes]:
        """Bytes to send on a fresh connection: a zero to end any half frame, then a HELLO."""
        self._hello_age = 0
        return [b"\x00" + encode(Hello())]

    def handle(self, message: Message | FrameError) -> tuple[list[Event], list[bytes]]:
        """Events for the queue and bytes to send back, for one decoded message."""
        if self._hello_age is not None:
            self._hello_age += 1
        if isinstance(message, FrameError):
            self.counts["bad_frames"] += 1
            return [], []
        if isinstance(message, TowerStatus):
            return self._status(message), []
        if isinstance(message, DropFrame):
            return self._drop(message)
        self.counts["unexpected"] += 1  # host-to-device types echoed back: not from a tower
        return [], []

    def _status(self, status: TowerStatus) -> list[Event]:
        previous, self.status = self.status, status
        events: list[Event] = []
        if previous is not None and previous.boot_id != status.boot_id:
            self.counts["device_resets"] += 1
            detail = f"boot {previous.boot_id:08x} -> {status.boot_id:08x}"
            events.append(LinkStatus(ev.DEVICE_RESET, self.port, detail))
        if status.reason == "hello":
            self._hello_age = None
        if (
            status.reason != "heartbeat"
            or previous is None
            or previous.jams != status.jams
            or previous.beam_blocked != status.beam_blocked
        ):
            events.append(status)
        return events

    def _drop(self, frame: DropFrame) -> tuple[list[Event], list[bytes]]:
        b, s = frame.boot_id, frame.seq
        last = self.delivered.get(b)
        oldest = self.status is not None and (self.status.oldest_boot, self.status.oldest_seq) == (
            b,
            s,
        )
        events: list[Event] = []
        if last is None:
            if s != 1 and not oldest:
                self.counts["unknown_start"] += 1
                return [], self._ask_resend()
        elif s <= last:
            self.counts["duplicates"] += 1
            return [], [encode(Ack(b, last))]
        elif s != last + 1:
            if not oldest:
                self.counts["out_of_order"] += 1
                return [], self._ask_resend()
            # The tower no longer holds last+1 .. s-1: its log overflowed while we were away.
            missing = s - last - 1
            self.counts["lost"] += missing
            detail = f"{missing} drop(s) of boot {b:08x} lost while the host was away"
            events.append(LinkStatus(ev.LOST, self.port, detail))
        self.delivered[b] = s
        self.delivered.move_to_end(b)
        while len(self.delivered) > KEEP_BOOTS:
            self.delivered.popitem(last=False)
        self.counts["drops"] += 1
        events.append(Drop(s, b, frame.device_time_us, frame.colour, frame.confidence))
        return events, [encode(Ack(b, s))]

    def _ask_resend(self) -> list[bytes]:
        if self._hello_age is not None and self._hello_age < HELLO_RETRY_AFTER:
            return []
        self._hello_age = 0
        return [encode(Hello())]
