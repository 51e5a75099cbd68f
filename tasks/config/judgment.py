"""Judgment configuration: the word lists and weights judging reads, as data (`judgment.toml`).

Packaged defaults, then a workspace's `predigest-judgment.toml`, then PREDIGEST_JUDGMENT_FILE:
tables merge key by key, and a list in an override replaces the packaged list. The loaded
configuration is immutable and compares (and hashes) by its content digest, so judging code can
cache compiled patterns per configuration. It also carries the run's briefing language: the
sentences judging writes (`[wording.<lang>]`) are that language's.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

WORKSPACE_JUDGMENT_FILE = "predigest-judgment.toml"
DEFAULT_LANG = "zh"  # the language of the packaged sentences every other language falls back to


@dataclass(frozen=True)
class TopicTerms:
    """A known topic as evidence reads it: its name, the names it goes by, its vocabulary."""

    name: str
    names: tuple[str, ...]
    terms: tuple[str, ...]
    tags: tuple[str, ...] = ()  # short category tags a digest writes for it ("[inf]"), besides its names


@dataclass(frozen=True, eq=False)
class Judgment:
    """One judgment configuration, plus every known topic's names and vocabulary and the language
    its sentences are written in."""

    config: dict[str, Any] = field(repr=False)
    topics: tuple[TopicTerms, ...] = field(default=(), repr=False)
    digest: str = ""
    lang: str = DEFAULT_LANG

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Judgment) and other.digest == self.digest

    def __hash__(self) -> int:
        return hash(self.digest)

    def weight(self, name: str) -> float:
        return float(self.config["weights"][name])

    def words(self, table: str, name: str) -> tuple[str, ...]:
        return tuple(str(w) for w in self.config.get(table, {}).get(name, ()))

    def wording(self, name: str, **values: object) -> str:
        """A sentence judging writes, in the judgment's language (`[wording.<lang>] name`, else the
        default language's), its {placeholders} filled from `values`."""
        table = self.config["wording"]
        words = table.get(self.lang) or table[DEFAULT_LANG]
        return str(words.get(name, table[DEFAULT_LANG][name])).format(**values)

    @property
    def density(self) -> dict[str, Any]:
        return dict(self.config.get("density", {}))

    def with_topics(self, topics: tuple[TopicTerms, ...]) -> Judgment:
        return make_judgment(self.config, topics, self.lang)


def make_judgment(config: dict[str, Any], topics: tuple[TopicTerms, ...] = (), lang: str = DEFAULT_LANG) -> Judgment:
    blob = json.dumps([config, [[t.name, t.names, t.terms, t.tags] for t in topics], lang], sort_keys=True, ensure_ascii=False)
    return Judgment(config, topics, hashlib.sha256(blob.encode()).hexdigest()[:16], lang)


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Tables merge key by key; any other value in `override` replaces the base value."""
    out = dict(base)
    for key, value in override.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


@lru_cache(maxsize=1)
def packaged_config() -> dict[str, Any]:
    text = resources.files("tasks.config").joinpath("judgment.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def load_config(workspace: Path | None, extra: Path | None = None) -> dict[str, Any]:
    """Packaged defaults, then the workspace's file, then `extra` (PREDIGEST_JUDGMENT_FILE)."""
    config = packaged_config()
    for candidate in ((workspace / WORKSPACE_JUDGMENT_FILE) if workspace else None, extra):
        if candidate is not None and Path(candidate).is_file():
            with Path(candidate).open("rb") as handle:
                config = merge(config, tomllib.load(handle))
    return config


@lru_cache(maxsize=1)
def default_judgment() -> Judgment:
    """The packaged configuration, without any topic vocabulary (topics add theirs)."""
    return make_judgment(packaged_config())
