"""What a briefing reads from Postgres, as plain immutable views (filled by `tasks.window.collect`)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tasks.model.outline import Outline, PaperOutlines
from tasks.model.windows import Window

# Source kinds whose entries are notes (as opposed to cards, the queue and knowledge documents).
NOTE_KINDS = ("note", "hf_daily", "other")


@dataclass(frozen=True)
class SourceView:
    id: int
    path: str
    kind: str
    author: str | None
    observed_at: dt.datetime
    time_basis: str
    error: str | None
    later_version: dt.datetime | None = None  # only versions first seen after the cutoff are stored: the earliest's time
    limits: tuple[str, ...] = ()  # its warnings of a cap or its work budget (tasks.common.limits): named in the briefing
    feed_problem: dict[str, Any] | None = None  # a feed snapshot's empty/stale/truncated mark (tasks.feeds.health)


@dataclass(frozen=True)
class MentionView:
    source_id: int
    path: str
    kind: str
    item_ordinal: int
    label: str | None
    heading: str
    title: str | None
    arxiv_id: str | None
    raw: str
    malformed: bool
    context: str
    item_time: dt.datetime
    hedges: tuple[dict[str, Any], ...] = ()
    cells: tuple[str, ...] | None = None  # its item's `cells` (a queue row without a title column)


@dataclass(frozen=True)
class EntryView:
    """One window item, with or without arXiv mentions."""

    source_id: int
    path: str
    kind: str
    ordinal: int
    label: str | None
    heading: str
    title: str | None
    text: str
    hedges: tuple[dict[str, Any], ...]
    numbers: tuple[dict[str, Any], ...] = ()
    item_time: dt.datetime | None = None
    ids: tuple[str, ...] = ()  # canonical arXiv ids the entry names, in order
    front_matter: tuple[tuple[str, str], ...] = ()  # the note's (key, value) pairs, on its first entry only
    outline: Outline | None = None  # its text's outline, parsed at ingest (None: a queue row)
    # A queue row without a recognised title column: its cells that can name the paper, stored at ingest.
    cells: tuple[str, ...] | None = None
    paper_outlines: PaperOutlines | None = None  # its papers' own joined texts' outlines, parsed at ingest
    note_title: str | None = None  # the note's title (no entry's heading), on its first entry only
    echoed: str = ""  # the pasted briefing summary cut from `text`, plain (tasks.judge.echoes)

    @cached_property
    def id_set(self) -> frozenset[str]:
        """`ids` as one set per entry: every paper of a digest's entry asks for it, and building it per
        paper (and hashing it as a cache key) made judging an entry of n ids cost n²."""
        return frozenset(self.ids)

    def ids_with(self, arxiv_id: str) -> frozenset[str]:
        """The entry's ids and `arxiv_id`: `id_set` itself when it holds it (the usual case)."""
        return self.id_set if arxiv_id in self.id_set else self.id_set | {arxiv_id}


@dataclass(frozen=True)
class PaperLookup:
    """What the arXiv API said about an id, if it was looked up by the cutoff."""

    arxiv_id: str
    status: str  # found, unknown
    title: str | None
    looked_up_at: dt.datetime


@dataclass(frozen=True)
class AnchorView:
    arxiv_id: str
    section: str | None
    anchored_on: dt.date | None
    cited_on: dt.date | None
    reference_only: bool
    entry: str


@dataclass(frozen=True)
class KnowledgeView:
    path: str
    topic: str
    version: str | None
    updated_at: dt.datetime | None
    citations: int | None
    changelog: tuple[dict[str, Any], ...]
    anchors: tuple[AnchorView, ...]
    sections: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class CardView:
    arxiv_id: str
    path: str
    title: str | None
    primary: str | None
    secondary: tuple[str, ...]
    created_on: dt.date | None
    votes: int | None


@dataclass(frozen=True)
class ReaderVerdict:
    """A reader's verdict on an item for the briefed topic, recorded by the cutoff (`tasks.inbox.feedback_file`)."""

    path: str
    date: dt.date  # the briefing it answers: it holds from that date on
    item: str  # an arXiv id or an item key (`tasks.common.item_keys`)
    verdict: str  # ours, not-ours, settled, not-a-contradiction, not-new
    by: str
    at: dt.datetime  # when it was recorded
    reason: str = ""
    line: int = 0  # its line in the file (explain shows it)
    answered_start: dt.datetime | None = None  # the start of the answered briefing's window


@dataclass
class WindowData:
    window: Window
    sources: list[SourceView] = field(default_factory=list)  # window sources, incl. errors
    mentions: list[MentionView] = field(default_factory=list)
    entries: list[EntryView] = field(default_factory=list)
    knowledge: KnowledgeView | None = None
    cards: dict[str, list[CardView]] = field(default_factory=dict)  # every card known by the cutoff
    queue_categories: dict[str, list[tuple[str | None, str | None]]] = field(default_factory=dict)
    # Note entries of earlier windows (LOOKBACK_DAYS before the window start, as of the cutoff).
    history: list[EntryView] = field(default_factory=list)
    # Local days on which each window id was mentioned anywhere, up to the cutoff.
    mention_days: dict[str, tuple[dt.date, ...]] = field(default_factory=dict)
    lookups: dict[str, PaperLookup] = field(default_factory=dict)
    # Files seen by the cutoff with no date that can exist (path, why), in no window; how many in all.
    undated: list[tuple[str, str]] = field(default_factory=list)
    undated_count: int = 0
    # Folders the last scan by the cutoff could not list (path, error): whatever they hold is missing.
    unlistable: list[tuple[str, str]] = field(default_factory=list)
    # The briefed topic's reader verdicts recorded by the cutoff about briefings up to its date, by
    # paper, oldest first (each paper looks up its own: no scan of every verdict per paper).
    verdicts: dict[str, list[ReaderVerdict]] = field(default_factory=dict)
    # (why, verdict) of those recorded in this window that answer no briefing: named, applied nowhere.
    refused_verdicts: list[tuple[str, ReaderVerdict]] = field(default_factory=list)
    verdicts_recorded: int = 0  # the topic's feedback file's verdicts recorded by the cutoff
