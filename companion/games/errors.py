"""Errors of the rules layer (``companion.games``)."""

from companion.errors import CompanionError


class RulesError(CompanionError):
    """Root of every rules-engine error."""


class PositionError(RulesError, ValueError):
    """A position (file or dict) is malformed or inconsistent.

    ``path`` names the offending place, e.g. ``regions.galicia.red``.
    """

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}" if path else problem)


class IllegalMove(RulesError, ValueError):
    """A move that the rules do not allow in the current position; the message says why."""


class NotationError(RulesError, ValueError):
    """A move's text cannot be read (as python-chess's InvalidMoveError, distinct from a
    well-formed move that the position does not allow); the message says what was expected."""


class RecordError(RulesError, ValueError):
    """A game record (file of moves) cannot be read; the message names the line."""
