"""How far each checked source can be trusted, by one rule the briefing states under section 一.

A note that rates itself keeps its rating (a range when entries differ); otherwise its base is what
the note is (official / paper, firsthand, digest, repost), lowered by its checks (malformed or
unknown ids, too many pending items), never below one star. Cards, the queue and HF Daily are
reference, the knowledge document the baseline, an unreadable source unrated with the reason.
Numbers and words are data: `judgment.toml [credibility]`, read from the judgment passed in
(`CredibilityRule.of(judgment)`). docs/judgment.md ("Credibility per source") gives the rule whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

from tasks.config.judgment import Judgment
from tasks.judge.statements import word_pattern
from tasks.judge.terms import Vocabulary, kept_terms, vocabulary
from tasks.model.judged import Rating
from tasks.model.window_views import EntryView, SourceView, WindowData
from tasks.verify.markers import found, markers_of
from tasks.verify.names import names_of

KINDS = ("official", "firsthand", "digest", "repost")
# Sources that hold no author's judgment of their own: rated by what they are.
REFERENCE_KINDS = ("paper_card", "work_queue", "hf_daily", "arxiv_feed", "feedback")


@dataclass(frozen=True)
class CredibilityRule:
    """Base ⭐ per kind and what each failed check costs (`CredibilityRule.of(judgment)`)."""

    official: int
    firsthand: int
    digest: int
    repost: int
    unknown: int
    malformed_penalty: int
    unknown_id_penalty: int
    hedge_penalty: int
    hedge_share: float

    @classmethod
    def from_mapping(cls, values: dict[str, Any]) -> CredibilityRule:
        kept: dict[str, Any] = {}
        for f in fields(cls):
            kept[f.name] = float(values[f.name]) if f.name == "hedge_share" else int(values[f.name])
        return cls(**kept)

    @classmethod
    def of(cls, j: Judgment) -> CredibilityRule:
        return cls.from_mapping(j.config["credibility"])

    def base(self, kind: str) -> int:
        return int(getattr(self, kind))


@lru_cache(maxsize=8)
def _patterns(j: Judgment) -> tuple[Vocabulary, dict[str, tuple[re.Pattern[str], frozenset[str]]]]:
    """Per kind its words' pattern and the words; and all kinds' words as one vocabulary, which
    tells cheaply which words could occur in a text (a 20 MB note holds none of most)."""
    words = j.config.get("credibility", {}).get("words", {})
    per_kind = {kind: tuple(str(w) for w in words.get(kind, ())) for kind in KINDS}
    every = tuple(sorted({w for kind_words in per_kind.values() for w in kept_terms(kind_words)}))
    return vocabulary(every), {kind: (word_pattern(ws), frozenset(kept_terms(ws))) for kind, ws in per_kind.items()}


def _kinds_named(text: str, j: Judgment) -> set[str]:
    m = markers_of(j)
    words, kinds = _patterns(j)
    possible = words.could_occur(text)
    return {kind for kind, (pattern, its_words) in kinds.items()
            if not its_words.isdisjoint(possible) and found(m, pattern, text)}


def _lowest(kinds: set[str], rule: CredibilityRule) -> str:
    return min(sorted(kinds), key=rule.base)


def source_kind(path: str, entries: list[EntryView], rule: CredibilityRule, j: Judgment) -> str:
    """official, firsthand, digest, repost or unknown (see the module's rule, point 2)."""
    stem = PurePosixPath(path).stem.replace("-", " ").replace("_", " ")
    own = " ".join([stem, *(e.text for e in entries if e.label == "preamble")])
    named = _kinds_named(own, j)
    if named:
        return _lowest(named, rule)
    tally: dict[str, int] = {}
    nm = names_of(j)
    # A summary or to-do section restates the entries: it is not one more vote.
    for entry in (e for e in entries if e.label != "preamble" and not nm.is_generic(e.title or e.heading)):
        kinds = _kinds_named(f"{entry.heading}\n{entry.text}", j)
        if entry.ids:
            kinds.add("official")
        for kind in kinds:
            tally[kind] = tally.get(kind, 0) + 1
    if not tally:
        return "unknown"
    most = max(tally.values())
    return _lowest({k for k, n in tally.items() if n == most}, rule)


def _front_matter_rating(pairs: tuple[tuple[str, str], ...], j: Judgment) -> list[int]:
    """A rating the front matter gives: ⭐ marks, or a whole number of stars from 1 to 5."""
    keys = {str(k).lower() for k in j.config.get("credibility", {}).get("front_matter_keys", ())}
    out = []
    for key, value in pairs:
        if key.strip().lower() not in keys:
            continue
        stars = value.count("⭐")
        number = value.strip().split("/")[0].strip()
        if stars:
            out.append(min(stars, 5))
        elif number.isdigit() and 1 <= int(number) <= 5:
            out.append(int(number))
    return out


def rate(source: SourceView, data: WindowData, j: Judgment) -> Rating:
    """The source's rating and what it rests on (`rate_all` rates a whole window at once)."""
    entries = [e for e in data.entries if e.source_id == source.id]
    malformed = any(m.malformed and m.source_id == source.id for m in data.mentions)
    return _rate(source, entries, malformed, data, j)


def rate_all(data: WindowData, j: Judgment) -> dict[int, Rating]:
    """Every window source's rating, by source id (entries and mentions read once)."""
    entries: dict[int, list[EntryView]] = {}
    for e in data.entries:
        entries.setdefault(e.source_id, []).append(e)
    malformed = {m.source_id for m in data.mentions if m.malformed}
    return {s.id: _rate(s, entries.get(s.id, []), s.id in malformed, data, j) for s in data.sources}


def _rate(source: SourceView, entries: list[EntryView], malformed: bool, data: WindowData, j: Judgment) -> Rating:
    rule = CredibilityRule.of(j)
    if source.error:
        return Rating(None, "error")
    if source.kind == "knowledge":
        return Rating(None, "baseline")
    if source.kind in REFERENCE_KINDS:
        return Rating(None, "reference")
    if not any(e.text.strip() or e.heading.strip() for e in entries):
        return Rating(None, "empty")
    own = [n for e in entries for n in _front_matter_rating(e.front_matter, j)]
    own += [min(len(m.group(1)), 5) for e in entries for m in markers_of(j).stars.finditer(e.text)]
    if own:
        return Rating(max(own), "self", low=min(own))
    kind = source_kind(source.path, entries, rule, j)
    checks: list[str] = []
    if malformed:
        checks.append("malformed")
    ids = {i for e in entries for i in e.ids}
    if any(data.lookups[i].status == "unknown" for i in ids if i in data.lookups):
        checks.append("unknown_id")
    items = [e for e in entries if e.label != "preamble"]
    if items and sum(1 for e in items if e.hedges) / len(items) > rule.hedge_share:
        checks.append("hedged")
    penalty = {"malformed": rule.malformed_penalty, "unknown_id": rule.unknown_id_penalty,
               "hedged": rule.hedge_penalty}
    stars = max(1, rule.base(kind) - sum(penalty[c] for c in checks))
    return Rating(stars, "kind", kind=kind, checks=tuple(checks))
