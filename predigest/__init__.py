"""predigest: per-topic evening pre-digest briefings from a research workspace."""

__version__ = "0.1.0"
