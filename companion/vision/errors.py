"""Errors of the vision layer: one root, :class:`VisionError`, and a subclass per kind of trouble.

Every subclass also inherits the builtin that fits, so callers may catch either.
"""

from __future__ import annotations

from companion.errors import CompanionError


class VisionError(CompanionError):
    """Root of every deliberate error of the vision layer."""


class LayoutError(VisionError, ValueError):
    """A layout file is missing, malformed or inconsistent (the message names the bad key)."""


class RenderError(VisionError, ValueError):
    """The synthetic renderer was given a position or settings it cannot draw."""
