"""The root of every error the companion raises on purpose.

Each layer has one root exception that inherits from :class:`CompanionError`; its subclasses also
inherit the matching builtin, so callers may catch either (``IllegalMove(RulesError, ValueError)``).
Messages say what was wrong and what to do about it.
"""


class CompanionError(Exception):
    """Base class of all deliberate companion errors."""
