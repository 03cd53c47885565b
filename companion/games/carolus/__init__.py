"""Carolus Magnus rules engine."""
