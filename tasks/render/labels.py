"""Fixed wording of everything a reader sees, one table per language: `labels.toml` ([zh], the default
and the seeds' wording, and [en]), read once. The markdown and JSON of a briefing, its source rows,
the static site, the feed, run-page artifacts and notifications all look their words up here
(`LABELS[lang][key]`); tasks.publish imports it from this floor.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from tasks.config.wording import label_tables
from tasks.model.judged import REFUSED, ReaderNote, Reason

DENSITY_LEVELS = ("low", "medium-low", "medium", "high")


class _Plurals(string.Formatter):
    """`str.format`, plus a count's word: `{n:source|sources}` is "source" for 1, else "sources"."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if "|" in format_spec:  # a count that is not a number (unknown: "") reads as many
            one, _, many = format_spec.partition("|")
            return one if isinstance(value, int) and value == 1 else many
        return str(super().format_field(value, format_spec))


_PLURALS = _Plurals()
_PLURAL_FIELD = re.compile(r"\{[^{}]*\|[^{}]*\}")


class Label(str):
    """A label's wording; its `format` also reads plural fields (`_Plurals`), the rest as `str.format`."""

    def format(self, *args: Any, **kwargs: Any) -> str:
        if _PLURAL_FIELD.search(self):
            return _PLURALS.vformat(self, args, kwargs)
        return str.format(self, *args, **kwargs)


def _tables() -> dict[str, dict[str, str]]:
    """The zh and en tables; a key [en] lacks is worded as in [zh] (so each has every key)."""
    raw = label_tables()
    zh, en = raw["zh"], raw["en"]
    if set(en) - set(zh) or not all(isinstance(v, str) for v in (*zh.values(), *en.values())):
        raise ValueError("labels.toml: every [en] key must also be in [zh], and every value must be text")
    zh = {k: Label(v) for k, v in zh.items()}
    return {"zh": zh, "en": {**zh, **{k: Label(v) for k, v in en.items()}}}


LABELS: dict[str, dict[str, str]] = _tables()
ZH: dict[str, str] = LABELS["zh"]
EN: dict[str, str] = LABELS["en"]
# The density levels' names, from the tables' `density_<level>` keys.
DENSITY: dict[str, dict[str, str]] = {lang: {level: L[f"density_{level}"] for level in DENSITY_LEVELS}
                                      for lang, L in LABELS.items()}


def rule_text(numbers: Mapping[str, float], L: Mapping[str, str]) -> str:
    """The density rule in the briefing's language, from its numbers (`DensityRule.numbers()`)."""
    return L["density_rule"].format(**numbers) if numbers else ""


def feed_problem_text(problem: Mapping[str, Any], L: Mapping[str, str]) -> str:
    """One feed problem (tasks.feeds.health's mark on a snapshot) in the briefing's language."""
    usual = problem.get("usual")
    return L[f"fp_{problem['problem']}"].format(**{**problem, "usual": f"{usual:g}" if usual is not None else "?"})


def feed_problems_text(problems: Sequence[Mapping[str, Any]], L: Mapping[str, str]) -> str:
    """The density statement's sentence naming every feed problem; empty when there is none."""
    if not problems:
        return ""
    return L["feed_problems"].format(items=L["sep"].join(feed_problem_text(p, L) for p in problems))


def reason_text(reason: Sequence[Reason], L: Mapping[str, str]) -> str:
    """Why a paper has its status, worded in the briefing's language."""
    return L["reason_sep"].join(L[f"reason_{part.key}"].format(**dict(part.args)) for part in reason)


def short_title(title: str) -> str:
    """A short name for lists: the part before a colon, else the title cut at a word boundary."""
    head = re.split(r"[:：（(?？]", title, maxsplit=1)[0].strip()
    if 2 <= len(head) <= 32:
        return head
    cut = head[:32]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


def reader_notes_text(notes: Sequence[ReaderNote], L: Mapping[str, str], timezone: str) -> str:
    """Section 五's line naming every reader verdict the briefing applied (what, who and when) and
    every one it could not (file and line, why)."""
    tz = ZoneInfo(timezone)
    items = [L["reader_note_unknown" if n.verdict in REFUSED else "reader_note"].format(
        title=short_title(n.title), item=n.item, by=n.by, date=n.at.astimezone(tz).date().isoformat(),
        verdict=L[f"verdict_{n.verdict.replace('-', '_')}"].format(answers=n.answers.isoformat() if n.answers else ""),
        path=n.path, line=n.line) for n in notes]
    return L["reader_notes"].format(n=len(notes), items=L["sep"].join(items))
