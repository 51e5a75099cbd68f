"""The judged content of one briefing, before rendering; plain data, deterministic order."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from tasks.common.item_keys import pending_key
from tasks.config.judgment import Judgment, default_judgment

# Statuses whose ids a briefing lists as citable, whichever rendering.
CITABLE = ("net_new", "adjacent", "already_anchored", "reference_list_only")


@dataclass(frozen=True)
class DensityReport:
    """The density and what the statement says about it: counts, and what was checked and found empty."""

    level: str
    score: float
    rule: str
    net_new: int
    engineering: int
    adjacent: int
    anchored: int
    reference_only: int
    checked: int
    outcomes: dict[str, int] = field(default_factory=dict)  # increments, confirmatory, off_topic, error
    empty: tuple[str, ...] = ()  # sources checked and found without increments
    errors: tuple[str, ...] = ()
    topic_cards: int = 0  # window paper cards whose primary category is the topic
    cards: int = 0
    main_source: str | None = None  # the source behind most increments
    numbers: dict[str, float] = field(default_factory=dict)  # the rule's thresholds and weights (DensityRule)
    # Feed snapshots marked empty, stale or truncated (tasks.feeds.health), each with its "path":
    # the statement names them, so a broken feed is not read as a quiet day.
    feed_problems: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class StatusAsOf:
    """A verification as it stood on one day."""

    key: str
    kind: str
    subject: str
    title: str
    claim: str
    marker: str
    sources: tuple[str, ...]
    raised_on: dt.date
    last_seen: dt.date
    status: str  # pending, stale, resolved
    age_days: int
    resolved_on: dt.date | None
    evidence: str | None
    resolved_by: str | None
    advice: str
    risk: str = ""
    # Raised, seen or resolved by a source of this window (else an earlier day's item still open).
    seen_in_window: bool = True
    keys: tuple[str, ...] = ()  # every stored verification this item stands for (one per subject)
    kinds: tuple[str, ...] = ()  # and their kinds (a hedge and a contradiction on one paper are one item)
    # A reader who settled it (`tasks.briefing.reader_items`): who, and the day they recorded it (ISO).
    confirmed_by: str = ""
    confirmed_on: str = ""

    @property
    def item_key(self) -> str:
        """The key a reader types to give a verdict on it (`tasks.common.item_keys`)."""
        return pending_key(self.key)

    @property
    def item_keys(self) -> tuple[str, ...]:
        """Its key and those of every stored verification it stands for: a verdict on any holds."""
        return tuple(dict.fromkeys(pending_key(k) for k in (self.key, *self.keys)))


@dataclass(frozen=True)
class Evidence:
    """One piece of evidence about a paper's topic: where it was read, its kind, the topic it counts for."""

    path: str
    kind: str
    topic: str
    weight: float
    detail: str = ""

    def __deepcopy__(self, memo: dict[int, Any]) -> Evidence:
        return self  # immutable: judged papers are copied often, their evidence never changes

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "kind": self.kind, "topic": self.topic, "weight": self.weight,
                "detail": self.detail}


@dataclass(frozen=True)
class EntryRef:
    path: str
    label: str | None
    heading: str


@dataclass(frozen=True)
class Reason:
    """One part of why a paper has its status: a label key (`reason_<key>` in the briefing's label
    tables) and its arguments. The judge says what decided; the renderers word it in the briefing's
    language (`tasks.render.labels.reason_text`)."""

    key: str
    args: tuple[tuple[str, str], ...] = ()


@dataclass
class Paper:
    """Every mention of one arXiv id in the window judged once; or, without an id, one engineering increment."""

    arxiv_id: str | None
    title: str
    status: str  # net_new, engineering, adjacent, already_anchored, reference_list_only, off_topic
    reason: tuple[Reason, ...]
    sources: list[str]
    entries: list[EntryRef]
    anchored_on: dt.date | None = None
    cited_on: dt.date | None = None
    given_title: str | None = None  # the title the workspace gives, where arXiv's may have replaced it
    sections: tuple[str, ...] = ()
    key_points: list[str] = field(default_factory=list)
    key_points_cut: int = 0  # key points left out (the briefing says how many)
    thesis: str = ""  # its main claim, as its own text states it (tasks.judge.points)
    headline: str = ""  # the clause of its first number with a unit, when the thesis has none
    hedges: list[dict[str, Any]] = field(default_factory=list)
    primary: str | None = None
    votes: int | None = None
    first_seen: dt.date | None = None
    days_seen: int = 0
    earlier_sources: list[str] = field(default_factory=list)
    mentioned_in: list[str] = field(default_factory=list)  # window sources that only mention it by name
    credibility: int = 0  # the best ⭐ self-rating of an entry about it (0 = none given)
    independent: int = 0  # distinct authors (cards and the queue count as one each)
    suggested_section: str | None = None
    section_basis: str = ""  # hint (the sources said so), text (BM25), anchor (where it is anchored)
    neighbours: tuple[str, ...] = ()
    relation: list[str] = field(default_factory=list)  # how the sources relate it to the document
    hint_texts: list[str] = field(default_factory=list)  # texts read for explicit section hints
    # What decided its topic: {path, kind, topic, weight, detail} per piece (tasks.judge.evidence).
    evidence: tuple[Evidence, ...] = ()
    # The topic its decision rests on: this briefing's topic when its own standing decided, else the
    # topic holding it as primary (this one has it as secondary or adjacent). Per briefing: a paper
    # can be two topics' on the same evening (tasks.judge.evidence).
    owner: str | None = None
    decision: str = ""  # the decision for this briefing's topic: "T's", "adjacent to T", "not T's"
    scores: dict[str, float] = field(default_factory=dict)  # every topic's evidence total
    # An engineering increment's key (`tasks.common.item_keys`), and those of each name it goes by.
    item_key: str | None = None
    item_keys: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """How the briefing names it: "Title（arXiv:id）" or the title alone."""
        return f"{self.title}（arXiv:{self.arxiv_id}）" if self.arxiv_id else self.title


@dataclass(frozen=True)
class Highlight:
    """The 最高价值条目: the top-ranked increment and its one-line reason's parts (tasks.judge.rank)."""

    title: str
    status: str
    sources: int
    independent: int
    thesis: str  # its main claim, from its own text
    headline: str = ""  # its headline number's clause, when the thesis does not hold it
    arxiv_id: str | None = None


@dataclass(frozen=True)
class Rating:
    """A source's credibility (tasks.window.credibility): ⭐ count and what it rests on."""

    stars: int | None  # 1..5; None when the source is reference, baseline or unrated
    basis: str  # self, kind, reference, baseline, error, empty
    low: int | None = None  # self-rated entry by entry: the lowest rating (stars is the highest)
    kind: str | None = None  # official, firsthand, digest, repost, unknown (basis "kind")
    checks: tuple[str, ...] = ()  # failed checks that lowered it: malformed, unknown_id, hedged

    def as_dict(self) -> dict[str, object]:
        return {"stars": self.stars, "basis": self.basis, "low": self.low, "kind": self.kind,
                "checks": list(self.checks)}


@dataclass(frozen=True)
class SourceTexts:
    """A source row's wording in one language."""

    credibility: str
    summary: str
    relevance: str
    conclusion: str


@dataclass(frozen=True)
class SourceCheck:
    path: str
    kind: str
    observed_at: dt.datetime
    time_basis: str
    credibility: str
    summary: str
    conclusion: str
    error: str | None
    relevance: str = ""
    outcome: str = ""  # increments, confirmatory, off_topic, error, baseline
    rating: Rating | None = None
    # The row's wording per language (tasks.render.sources_table); the fields above are the fallback.
    wording: dict[str, SourceTexts] = field(default_factory=dict, compare=False)

    def texts(self, lang: str) -> SourceTexts:
        found = self.wording.get(lang)
        return found or SourceTexts(self.credibility, self.summary, self.relevance, self.conclusion)


@dataclass(frozen=True)
class ReaderNote:
    """A reader's verdict the briefing applied to an item (settled, not-a-contradiction, not-new), or
    one it names and applies nowhere (`REFUSED`: no such item, or no briefing of the date answered)."""

    item: str  # the item key
    title: str
    verdict: str
    by: str
    at: dt.datetime
    reason: str
    path: str
    line: int
    answers: dt.date | None = None  # the date it answers, for a verdict refused for that date

    def as_dict(self) -> dict[str, object]:
        return {"item": self.item, "title": self.title, "verdict": self.verdict, "by": self.by,
                "at": self.at.isoformat(), "reason": self.reason, "path": self.path, "line": self.line,
                **({"answers": self.answers.isoformat()} if self.answers else {})}


# A reader note's verdict for a line applied nowhere: its key names no item, or no briefing has its date.
REFUSED = ("unknown", "no_briefing", "before_briefing")


@dataclass
class BriefingContent:
    topic: str
    date: dt.date
    window_start: dt.datetime
    cutoff: dt.datetime
    timezone: str
    knowledge_path: str | None
    knowledge_version: str | None
    knowledge_updated: dt.datetime | None
    knowledge_citations: int | None
    density: str
    sources: list[SourceCheck]
    papers: list[Paper]
    verifications: list[StatusAsOf]  # section 三: what this window raised, saw or resolved
    malformed: list[tuple[str, str]]  # (raw, path)
    increments: list[Paper] = field(default_factory=list)  # ranked: NET-new, engineering, adjacent
    report: DensityReport | None = None
    stale_after_days: int = 7
    highlight: Highlight | None = None  # the 最高价值条目, chosen by the ranking
    # Raised by earlier windows, still open and not mentioned since: listed apart, one line each,
    # so section 三 and its count hold what this evening's sources say, as the team writes it.
    earlier_verifications: list[StatusAsOf] = field(default_factory=list)
    merge_at: dt.datetime | None = None  # the noon update that merges its increments (tasks.model.noon_merge)
    # Why this run could not make or publish the noon merge proposal: the briefing then says so and links none.
    merge_failed: str | None = None
    # Files seen by the cutoff that have no date that can exist (path, why): listed, in no window.
    undated: list[tuple[str, str]] = field(default_factory=list)
    undated_count: int = 0
    # Folders that could not be listed (path, error) as of the cutoff: their files are in no window.
    unlistable: list[tuple[str, str]] = field(default_factory=list)
    # Readers' verdicts on items applied to this briefing (settled, dropped, not new), in item order.
    reader_notes: list[ReaderNote] = field(default_factory=list)
    # The run's judgment (the topic's): the numbers the renderers state, e.g. the credibility rule.
    judgment: Judgment = field(default_factory=default_judgment, compare=False, repr=False)

    def with_status(self, *statuses: str) -> list[Paper]:
        return [p for p in self.papers if p.status in statuses]

    def citable(self) -> list[Paper]:
        """The citable ids (section 四 of the markdown, `citations` of the JSON), in one order."""
        return self.with_status(*CITABLE)
