"""El Grande rules engine."""
