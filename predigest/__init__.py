"""predigest: per-topic evening pre-digest briefings from a research workspace."""

from importlib.metadata import version

__version__ = version("predigest")
