"""The briefed topic's reader verdicts as of a cutoff (`tasks.inbox.feedback_file` stores them as items).

A verdict counts for a briefing when it was recorded by its cutoff and answers a briefing of its
date or before: one recorded later does not exist for that evening, so a backfill gives the bytes
the evening gave.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import Item, Source
from tasks.inbox.feedback_file import feedback_path
from tasks.model.window_views import ReaderVerdict
from tasks.model.windows import Window

FEEDBACK = "feedback"


def reader_verdicts(session: Session, in_force: Any, topic: str, window: Window) -> dict[str, list[ReaderVerdict]]:
    """`topic`'s verdicts recorded by the cutoff about briefings up to its date, by paper, oldest
    first; `in_force` selects the source versions the briefing reads (`collect.Versions.condition`)."""
    rows = session.execute(
        select(Source.path, Item.extra, Item.label)
        .join(Source, Source.id == Item.source_id)
        .where(in_force, Source.kind == FEEDBACK, Source.path == feedback_path(topic),
               Item.observed_at.is_not(None), Item.observed_at <= window.end)
        .order_by(Item.observed_at, Item.ordinal)
    ).all()
    out: dict[str, list[ReaderVerdict]] = {}
    for path, extra, label in rows:
        v = (extra or {}).get(FEEDBACK) or {}
        day = dt.date.fromisoformat(v["date"])
        if day > window.date:
            continue
        line = int(label.removeprefix("line ")) if (label or "").removeprefix("line ").isdigit() else 0
        out.setdefault(v["item"], []).append(ReaderVerdict(path, day, v["item"], v["verdict"], v["by"],
                                                           dt.datetime.fromisoformat(v["at"]), v.get("reason") or "",
                                                           line))
    return out
