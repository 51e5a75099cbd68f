"""The noon merge as plain data: what a briefing hands to the next noon update of its knowledge document.

A briefing's increments (NET-new papers, engineering increments, adjacent papers) become a
`MergeIncrement` each; `tasks.merge.propose.propose` places them in the document as it is in
the workspace now. The merge time is the first noon update (`HH:MM`, 12:00 by default, in the
topic's timezone) after the briefing's cutoff. The proposal's object keys sit next to the
briefing's (`briefings/<topic>/<date>.knowledge.diff|.knowledge.md`, `tasks.model.keys.proposal_keys`).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo

# Statuses a noon update merges: into the body (NET-new, engineering) or into References (adjacent).
MERGED_STATUSES = ("net_new", "engineering", "adjacent")
_HHMM = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")


@dataclass(frozen=True)
class MergeIncrement:
    """One increment as the merge needs it: what to write and where the briefing suggests it goes."""

    arxiv_id: str | None
    title: str
    status: str  # net_new, engineering (into the body) or adjacent (into References)
    statement: str = ""  # its short statement, from its own text
    section: str | None = None  # the briefing's suggested section label ("§1.1 框架格局 › 子节")
    basis: str = ""  # why that section: hint (the sources said so), text (BM25 match)
    neighbours: tuple[str, ...] = ()

    @property
    def into_references(self) -> bool:
        return self.status == "adjacent"

    @property
    def key(self) -> str:
        """How `--only`/`--skip` name it: its id, else its title."""
        return self.arxiv_id or self.title


def merge_time(cutoff: dt.datetime, timezone: str, at: str = "12:00") -> dt.datetime:
    """The first noon update (`at`, wall clock in `timezone`) strictly after `cutoff`, aware, in that timezone."""
    m = _HHMM.fullmatch(at.strip())
    if m is None:
        raise ValueError(f"merge time must be HH:MM, got {at!r}")
    tz = ZoneInfo(timezone)
    local = cutoff.astimezone(tz)
    candidate = dt.datetime.combine(local.date(), dt.time(int(m.group(1)), int(m.group(2))), tzinfo=tz)
    return candidate if candidate > local else candidate + dt.timedelta(days=1)
