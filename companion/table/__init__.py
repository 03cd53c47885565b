"""The live session: event queue, phase machine, reconciliation, event log (to come)."""
