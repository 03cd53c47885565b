"""Speed and accuracy measurements; run all with ``make bench`` (``python -m benchmarks``)."""
