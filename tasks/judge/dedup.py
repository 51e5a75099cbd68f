"""Dedup against the knowledge document as of a day: NET-new, already anchored, reference-list only."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from tasks.model.window import AnchorView


@dataclass(frozen=True)
class AnchorStatus:
    status: str  # already_anchored, reference_list_only
    anchored_on: dt.date | None
    cited_on: dt.date | None
    sections: tuple[str, ...]


def anchor_status_as_of(anchors: tuple[AnchorView, ...], day: dt.date) -> dict[str, AnchorStatus]:
    """Status of every id the document anchors or cites on or before `day`.

    An id is anchored when a body entry naming it carries a date on or before `day`; it is
    reference-list only when it is cited in References by then and not anchored.
    """
    body: dict[str, list[AnchorView]] = {}
    cited: dict[str, dt.date] = {}
    for anchor in anchors:
        if anchor.reference_only:
            if anchor.cited_on is not None and anchor.cited_on <= day:
                cited[anchor.arxiv_id] = min(anchor.cited_on, cited.get(anchor.arxiv_id, anchor.cited_on))
        elif anchor.anchored_on is not None and anchor.anchored_on <= day:
            body.setdefault(anchor.arxiv_id, []).append(anchor)
    result: dict[str, AnchorStatus] = {}
    for arxiv_id, entries in body.items():
        first = min(a.anchored_on for a in entries if a.anchored_on is not None)
        sections = tuple(dict.fromkeys(a.section or "" for a in entries if a.section))
        result[arxiv_id] = AnchorStatus("already_anchored", first, None, sections)
    for arxiv_id, when in cited.items():
        if arxiv_id not in result:
            result[arxiv_id] = AnchorStatus("reference_list_only", None, when, ("References",))
    return result
