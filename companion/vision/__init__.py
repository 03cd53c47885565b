"""Camera frames to Observations: pure stage functions; camera sources are thin adapters."""
