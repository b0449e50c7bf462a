"""The benchmark harness of benches/run.py."""
