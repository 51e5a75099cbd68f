"""A labelled evening: what a hand-written briefing says, in the format of `shared/corpus*/expected`.

One JSON file per (topic, date). Required: `topic`, `date`, `cutoff`. Every other key is optional,
and a category whose key is absent is not scored (so a team can label only what it cares about).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class LabelError(ValueError):
    """A label file that cannot be read or does not have the labelled-evening shape."""


@dataclass(frozen=True)
class PendingLabel:
    subject: str
    source: str | None
    # Lower-case names under which an item counts as this subject (empty: the subject itself).
    match: tuple[str, ...]


@dataclass(frozen=True)
class IncrementLabel:
    """An increment without an arXiv id: a name, or terms its title must hold (`all`, one of `any`)."""

    name: str
    all_terms: tuple[str, ...] = ()
    any_terms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Label:
    path: Path
    topic: str
    date: dt.date
    cutoff: str
    ids: dict[str, frozenset[str] | None] = field(default_factory=dict)
    window_files: frozenset[str] | None = None
    sources_checked: frozenset[str] | None = None
    malformed: frozenset[str] | None = None
    multi_source: dict[str, frozenset[str]] | None = None
    pending: tuple[PendingLabel, ...] | None = None
    engineering: tuple[IncrementLabel, ...] | None = None
    density: str | None = None

    @property
    def key(self) -> str:
        return f"{self.topic}/{self.date.isoformat()}"

    @property
    def labelled_in_topic(self) -> frozenset[str]:
        """Every id the label places in the topic (new, adjacent, anchored or referenced)."""
        found: set[str] = set()
        for name in ("net_new", "adjacent", "already_anchored", "reference_list_only"):
            found |= self.ids.get(name) or frozenset()
        return frozenset(found)


# Label key -> the category it fills (the labels' key for adjacent items is `adjacent_pending`).
ID_KEYS = {"net_new": "net_new", "adjacent_pending": "adjacent", "already_anchored": "already_anchored",
           "reference_list_only": "reference_list_only", "off_topic_ids": "off_topic",
           "ambiguous_ids": "ambiguous"}


def _strings(value: Any, key: str, path: Path) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LabelError(f"{path}: `{key}` must be a list of strings")
    return frozenset(value)


def _pending(value: Any, path: Path) -> tuple[PendingLabel, ...]:
    if not isinstance(value, list):
        raise LabelError(f"{path}: `pending_verification` must be a list")
    out = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("subject"), str):
            raise LabelError(f"{path}: each pending_verification entry needs a `subject` string")
        match = tuple(m.lower() for m in item.get("match") or ())
        out.append(PendingLabel(item["subject"], item.get("source"), match))
    return tuple(out)


def _engineering(value: Any, path: Path) -> tuple[IncrementLabel, ...]:
    if not isinstance(value, list):
        raise LabelError(f"{path}: `engineering_new` must be a list")
    out = []
    for item in value:
        if isinstance(item, str):
            out.append(IncrementLabel(item))
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            out.append(IncrementLabel(item["name"], tuple(t.lower() for t in item.get("all") or ()),
                                      tuple(t.lower() for t in item.get("any") or ())))
        else:
            raise LabelError(f"{path}: an engineering_new entry is a name or an object with `name`")
    return tuple(out)


def load_label(path: Path) -> Label:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LabelError(f"{path}: cannot read the label: {exc}") from exc
    if not isinstance(raw, dict) or not all(isinstance(raw.get(k), str) for k in ("topic", "date", "cutoff")):
        raise LabelError(f"{path}: a label needs `topic`, `date` and `cutoff` strings")
    try:
        date = dt.date.fromisoformat(raw["date"])
    except ValueError as exc:
        raise LabelError(f"{path}: `date` is not YYYY-MM-DD: {raw['date']!r}") from exc
    ids = {category: (_strings(raw[key], key, path) if key in raw else None) for key, category in ID_KEYS.items()}
    multi = raw.get("multi_source")
    if multi is not None and not isinstance(multi, dict):
        raise LabelError(f"{path}: `multi_source` must map ids to lists of paths")
    return Label(
        path=path, topic=raw["topic"], date=date, cutoff=raw["cutoff"], ids=ids,
        window_files=_strings(raw["window_files"], "window_files", path) if "window_files" in raw else None,
        sources_checked=_strings(raw["sources_checked"], "sources_checked", path) if "sources_checked" in raw else None,
        malformed=_strings(raw["malformed_ids"], "malformed_ids", path) if "malformed_ids" in raw else None,
        multi_source={k: _strings(v, f"multi_source.{k}", path) for k, v in multi.items()} if multi else None,
        pending=_pending(raw["pending_verification"], path) if "pending_verification" in raw else None,
        engineering=_engineering(raw["engineering_new"], path) if "engineering_new" in raw else None,
        density=raw.get("density"),
    )


def load_labels(folder: Path, topics: list[str] | None = None) -> list[Label]:
    """Every `YYYY-MM-DD.json` label in `folder` (optionally only the given topics), by date and topic."""
    if not folder.is_dir():
        raise LabelError(f"{folder}: no such folder of labelled evenings")
    labels = []
    for path in sorted(folder.glob("*.json")):
        label = load_label(path)
        if not topics or label.topic in topics:
            labels.append(label)
    if not labels:
        raise LabelError(f"{folder}: no labelled evening (*.json with topic, date and cutoff)")
    return sorted(labels, key=lambda lb: (lb.date, lb.topic))
