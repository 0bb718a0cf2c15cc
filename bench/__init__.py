"""Benchmarks (not tests): ``make bench`` or ``python -m bench.<name>``; see scripts/bench.sh."""
