"""Errors of the devices layer: one root, each subclass also a matching builtin."""

from companion.errors import CompanionError


class DeviceError(CompanionError):
    """Root of every deliberate error of a device (tower, buttons, camera source)."""


class TowerLinkError(DeviceError, ConnectionError):
    """The tower's serial port cannot be opened or used."""


class TowerNotFound(DeviceError, FileNotFoundError):
    """No tower port: the given path does not exist, or nothing under /dev/serial/by-id/ fits."""


class SimulatorError(DeviceError, RuntimeError):
    """The tower simulator cannot run (firmware sources missing, no pseudo-terminals)."""


class SimulatorScriptError(DeviceError, ValueError):
    """A simulator script line or option is not valid."""
