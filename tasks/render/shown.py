"""What a reader is shown of a list that grows with the input: at most a fixed number of items
(`shown.toml`), and how many more there are. The markdown and the page cut with the same functions;
the JSON twin keeps every item."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Shown:
    """The bounds of `shown.toml`."""

    off_topic: int
    malformed: int
    paths: int
    sources: int
    citations: int
    source_order: tuple[str, ...]


def _load() -> Shown:
    raw = tomllib.loads(resources.files("tasks.render").joinpath("shown.toml").read_text(encoding="utf-8"))
    counts = {k: v for k, v in raw.items() if k != "source_order"}
    if any(not isinstance(v, int) or isinstance(v, bool) or v < 1 for v in counts.values()):
        raise ValueError("shown.toml: every bound must be a whole number of at least 1")
    return Shown(**counts, source_order=tuple(raw["source_order"]))


SHOWN = _load()


def first(items: Sequence[T], limit: int) -> tuple[list[T], int]:
    """The first `limit` items and how many are left out."""
    return list(items[:limit]), max(0, len(items) - limit)


def source_rows(outcomes: Sequence[str], limit: int = SHOWN.sources) -> tuple[list[int], int]:
    """The indices of the source rows a table shows, in their order, and how many it leaves out:
    all when within `limit`; else the `limit` most telling by outcome (`source_order`: an unreadable
    source, one that gave an increment, ...), earlier rows first among equals."""
    if len(outcomes) <= limit:
        return list(range(len(outcomes))), 0
    rank = {outcome: k for k, outcome in enumerate(SHOWN.source_order)}
    kept = sorted(range(len(outcomes)), key=lambda i: (rank.get(outcomes[i], len(rank)), i))[:limit]
    return sorted(kept), len(outcomes) - limit
