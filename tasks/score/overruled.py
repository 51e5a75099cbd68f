"""Readers' verdicts as partial labels: how often readers overruled the tool, per category.

Each verdict in `organized/feedback/<topic>.md` answers the briefing of (topic, date). That
briefing, rendered as of its cutoff, is the tool's own answer: a verdict recorded after the cutoff
does not exist for it (`tasks.window.verdicts`). A verdict overrules the tool when it says
otherwise than that briefing:
- membership: `not-ours` on a paper the briefing counts as the topic's (an increment or a
  citation), `ours` on one it does not;
- pending: `settled` on an item the briefing holds open;
- conflict: `not-a-contradiction` on a contradiction the briefing lists;
- engineering: `not-new` on an engineering increment it lists.
A verdict whose item the briefing does not hold is counted apart (`unknown`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tasks.common.decode import decode_bytes
from tasks.inbox.feedback_file import FEEDBACK_DIR, FeedbackLine, parse_feedback

CATEGORY_OF = {"ours": "membership", "not-ours": "membership", "settled": "pending",
               "not-a-contradiction": "conflict", "not-new": "engineering"}
CATEGORIES = ("membership", "pending", "conflict", "engineering")


@dataclass
class Overruled:
    """Per category: verdicts given, how many overruled the tool, the tool's items they could judge."""

    verdicts: dict[str, int] = field(default_factory=dict)
    overruled: dict[str, int] = field(default_factory=dict)
    items: dict[str, int] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)  # "topic/date line N: item" the briefing does not hold


def feedback_lines(workspace: Path) -> dict[str, list[FeedbackLine]]:
    """Every well-formed verdict of the workspace, by topic (the file's name)."""
    folder = workspace.joinpath(*FEEDBACK_DIR)
    out: dict[str, list[FeedbackLine]] = {}
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
        if path.is_file() and not path.is_symlink():
            out[path.stem] = list(parse_feedback(decode_bytes(path.read_bytes()).text).lines)
    return {topic: lines for topic, lines in out.items() if lines}


def answered(lines: Mapping[str, list[FeedbackLine]]) -> list[tuple[str, dt.date]]:
    """The briefings (topic, date) the verdicts answer, in order."""
    return sorted({(topic, v.date) for topic, vs in lines.items() for v in vs})


def _category_items(twin: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Per category, the tool's items in the briefing: key -> how the tool placed it."""
    ours = {str(p["arxiv_id"]): "ours" for p in [*(twin.get("increments") or []), *(twin.get("citations") or [])]
            if p.get("arxiv_id")}
    not_ours = {str(p["arxiv_id"]): "not-ours" for p in twin.get("off_topic") or [] if p.get("arxiv_id")}
    listed = [*(twin.get("verifications") or []), *(twin.get("earlier_verifications") or [])]
    return {
        "membership": {**not_ours, **ours},
        "pending": {str(v["item_key"]): str(v["status"]) for v in listed if v.get("item_key")},
        "conflict": {str(v["item_key"]): "conflict" for v in listed
                     if v.get("item_key") and "conflict" in (v.get("kinds") or [v.get("kind")])},
        "engineering": {str(i["item_key"]): "engineering" for i in twin.get("increments") or []
                        if i.get("status") == "engineering" and i.get("item_key")},
    }


def _overrules(verdict: str, placed: str) -> bool:
    if verdict in ("ours", "not-ours"):
        return placed != verdict
    if verdict == "settled":
        return placed != "resolved"
    return True  # a listed contradiction or increment the reader says is none


def tally(lines: Mapping[str, list[FeedbackLine]], twins: Mapping[tuple[str, dt.date], Mapping[str, Any]]) -> Overruled:
    """Compare each verdict with the briefing it answers (`twins`, by topic and date)."""
    out = Overruled()
    for twin in twins.values():
        for category, items in _category_items(twin).items():
            out.items[category] = out.items.get(category, 0) + len(items)
    for topic, verdicts in sorted(lines.items()):
        latest: dict[tuple[dt.date, str], FeedbackLine] = {}
        for v in verdicts:  # of one item's verdicts on one briefing, the latest recorded counts
            if (v.date, v.item) not in latest or v.at >= latest[(v.date, v.item)].at:
                latest[(v.date, v.item)] = v
        for (day, item), v in sorted(latest.items()):
            category = CATEGORY_OF[v.verdict]
            placed = _category_items(twins.get((topic, day)) or {}).get(category, {}).get(item)
            if placed is None and category != "membership":
                out.unknown.append(f"{topic}/{day.isoformat()} line {v.line}: {item}")
                continue
            out.verdicts[category] = out.verdicts.get(category, 0) + 1
            if _overrules(v.verdict, placed or "absent"):
                out.overruled[category] = out.overruled.get(category, 0) + 1
    return out


def overruled_lines(result: Overruled) -> list[str]:
    """The table `predigest score` prints: per category, the verdicts, how many overruled the tool,
    the tool's items in the briefings answered, and the share of those items readers overruled."""
    out = ["== readers' verdicts (organized/feedback) as partial labels",
           f"  {'category':<12} {'verdicts':>8} {'overruled':>9} {'items':>6} {'overruled/items':>15}"]
    for name in CATEGORIES:
        n, k, items = result.verdicts.get(name, 0), result.overruled.get(name, 0), result.items.get(name, 0)
        share = f"{k / items:.2f}" if items else "-"
        out.append(f"  {name:<12} {n:>8} {k:>9} {items:>6} {share:>15}")
    out += [f"  - not in the briefing it answers: {u}" for u in result.unknown]
    return out
