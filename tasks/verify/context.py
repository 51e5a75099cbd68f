"""What every verification check needs to know about a window: topical papers, names, keys."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tasks.common.arxiv_ids import find_ids
from tasks.common.limits import SourceBudgets, Unit, unbounded
from tasks.common.working_set import per_window_item
from tasks.config.topics import Topic
from tasks.judge.relevance import Verdict, judge_context
from tasks.judge.sections import DocEntry
from tasks.model.judged import Paper
from tasks.model.window_views import EntryView, WindowData
from tasks.verify.markers import Markers, markers_of
from tasks.verify.name_index import CoinedIds, NameIndex
from tasks.verify.names import Names, names_of, normalise
from tasks.verify.status import Observation, Tracked, state_on

T = TypeVar("T")
TOPICAL = ("net_new", "adjacent", "already_anchored", "reference_list_only")


def text_ids(text: str) -> list[str]:
    """Canonical arXiv ids written in `text`, in order."""
    return list(_text_ids(text))


@per_window_item(16384)
def _text_ids(text: str) -> tuple[str, ...]:
    # The same number contexts and subjects are read by every window of the lookback.
    return tuple(dict.fromkeys(m.canonical for m in find_ids(text) if m.canonical and not m.malformed))


def _unit(item: Any) -> Unit:
    """The source path and position of an entry, or of an (entry, …) pair."""
    entry: EntryView = item[0] if isinstance(item, tuple) else item
    return entry.path, entry.ordinal


class Keyer:
    """Stable keys: arXiv subjects by id, named subjects by matching names already tracked
    (`names.same_thing`), and a name that is a tracked paper's coined name by that paper's key.

    `named` only grows, and a named subject that matches nothing is appended again at each call,
    so scanning it was quadratic in a window's observations. A key is the first tracked name of
    the same kind that matches; that is the first occurrence of some (subject, key), so only
    distinct ones are scanned, and each query remembers how far it has checked (an earlier match
    stays the first, new names are only ever appended). `nm`: the run's name matching.
    """

    def __init__(self, tracked: Sequence[Tracked], nm: Names) -> None:
        self._nm = nm
        self.named: list[tuple[str, str, str]] = sorted(
            (t.kind, t.subject, t.key) for t in tracked if not text_ids(t.subject)
        )
        self._by_kind: dict[str, list[tuple[str, str]]] = {}  # distinct (subject, key) per kind, in order
        # Per kind, the positions in `_by_kind` that could be `same_thing` as a query: by what could make
        # `names_match` true (NameIndex), or by the coined head token. Trying every earlier subject
        # was quadratic in a window's named subjects.
        self._could: dict[str, tuple[NameIndex, dict[str, list[int]]]] = {}
        self._listed: set[tuple[str, str, str]] = set()
        self._memo: dict[tuple[str, str, str], tuple[int, int | None]] = {}  # query -> (checked, match)
        for kind, subject, key in self.named:
            self._list(kind, subject, key)
        # Papers tracked by id, by their coined name ("STEPQuant" -> the id of "STEPQuant: …"): a
        # later hedge naming the paper without its id joins the item.
        self.coined: dict[tuple[str, str], tuple[str, str]] = {}
        for t in sorted(tracked, key=lambda t: t.key):
            if text_ids(t.subject) == [t.subject] and t.events:
                name = nm.short_name(str(t.events[0].data().get("title") or ""))
                if name:
                    self.coined.setdefault((t.kind, normalise(name)), (t.key, t.subject))

    def _list(self, kind: str, subject: str, key: str) -> None:
        if (kind, subject, key) not in self._listed:
            self._listed.add((kind, subject, key))
            listed = self._by_kind.setdefault(kind, [])
            index, heads = self._could.setdefault(kind, (NameIndex(self._nm), {}))
            index.add(len(listed), subject)
            head = self._nm.head_token(subject)
            if head is not None:
                heads.setdefault(head, []).append(len(listed))
            listed.append((subject, key))

    def _first_same(self, kind: str, subject: str, suffix: str, checked: int) -> int | None:
        """The first position from `checked` on of a subject of `kind` ending in `suffix` that is
        `same_thing` as `subject`, tried only where the index says it could be."""
        listed = self._by_kind.get(kind, [])
        if kind not in self._could:
            return None
        index, heads = self._could[kind]
        head = self._nm.head_token(subject)
        could = index.matching(subject) | set(heads.get(head, ()) if head is not None else ())
        return next((i for i in sorted(could) if i >= checked and listed[i][1].endswith(suffix)
                     and self._nm.same_thing(listed[i][0], subject)), None)

    def key(self, kind: str, subject: str, suffix: str = "") -> tuple[str, str]:
        """(key, subject) for a new observation; a named subject reuses a matching tracked one."""
        if text_ids(subject) == [subject]:
            return f"{kind}:{subject}{suffix}", subject
        coined = self.coined.get((kind, normalise(subject))) if not suffix else None
        if coined is not None:
            return coined
        query = (kind, subject, suffix)
        listed = self._by_kind.get(kind, [])
        checked, hit = self._memo.get(query, (0, None))
        if hit is None:
            hit = self._first_same(kind, subject, suffix, checked)
            checked = len(listed)
        self._memo[query] = (checked, hit)
        if hit is not None:
            s, key = listed[hit]
            return key, s
        key = f"{kind}:{normalise(subject)}{suffix}"
        self.named.append((kind, subject, key))
        self._list(kind, subject, key)
        return key, subject


@dataclass
class Context:
    """A judged window, as the checks read it."""

    data: WindowData
    topic: Topic
    known: list[str]
    papers: dict[str, Paper]
    keyer: Keyer
    day: dt.date
    out: list[Observation] = field(default_factory=list)
    raised_by_entry: set[tuple[str, str, int]] = field(default_factory=set)  # (key, path, ordinal)
    resolved_keys: frozenset[str] = frozenset()  # stored items already resolved by the window's day
    doc_entries: list[DocEntry] | None = None  # the knowledge document's entries as of the day (tasks.verify.hedges)
    budgets: SourceBudgets = field(default_factory=unbounded)  # each window source's work budget (tasks.common.limits)
    _people: frozenset[str] | None = None
    _note_titles: dict[int, str | None] | None = None
    _coined_ids: CoinedIds | None = None

    @classmethod
    def build(cls, data: WindowData, papers: Sequence[Paper], topic: Topic, known: list[str],
              tracked: Sequence[Tracked], budgets: SourceBudgets | None = None) -> Context:
        topical = {p.arxiv_id: p for p in papers if p.arxiv_id and p.status in TOPICAL}
        day = data.window.date
        resolved = frozenset(t.key for t in tracked if state_on(t, day)[1] is not None)
        keyer = Keyer(tracked, names_of(topic.judgment))
        return cls(data, topic, known, topical, keyer, day, resolved_keys=resolved, budgets=budgets or unbounded())

    def within_budget(self, entries: Iterable[T], step: str) -> Iterator[T]:
        """The window's `entries` (or (entry, …) pairs) whose source is within its budget, each a unit
        of it for the check `step`: a source found spent is verified no further."""
        return self.budgets.each(entries, step, _unit)

    @property
    def markers(self) -> Markers:
        """The markers of the run's judgment (the topic carries it)."""
        return markers_of(self.topic.judgment)

    @property
    def names(self) -> Names:
        """The name matching of the run's judgment (the topic carries it)."""
        return names_of(self.topic.judgment)

    @property
    def people(self) -> frozenset[str]:
        """The workspace's people (its inbox/<person>/ folders): a source, never a subject."""
        if self._people is None:
            self._people = frozenset(p.split("/")[1].lower() for p in {e.path for e in (*self.data.entries, *self.data.history)}
                                     if p.startswith("inbox/") and p.count("/") >= 2)
        return self._people

    def note_title(self, source_id: int) -> str | None:
        """The title of a window note (its first entry holds it), read once per window."""
        if self._note_titles is None:
            self._note_titles = {e.source_id: e.note_title for e in self.data.entries if e.ordinal == 0}
        return self._note_titles.get(source_id)

    def topical(self, ids: Sequence[str]) -> list[str]:
        return [i for i in ids if i in self.papers]

    def named_ids(self, text: str) -> list[str]:
        """Topical ids whose coined name appears in `text` ("FooQuant" -> the id of "FooQuant: …")."""
        if self._coined_ids is None:  # searching every paper's name in every entry was quadratic in the window
            self._coined_ids = CoinedIds(((i, p.title) for i, p in self.papers.items()), self.names)
        return self._coined_ids.named(text)

    def relevant(self, entry: EntryView, line: int | None = None) -> bool:
        """Whether the entry is about the topic, or, for a claim on `line` inside a list item, its own
        top-level item is: a sibling item's statement ("ChunkRAG …，归属 rag，不进 inference")
        speaks for that item's paper, not for the claim."""
        if self._about_topic(f"{entry.heading}\n{entry.text}"):
            return True
        tree = entry.outline
        at = tree.item_at(line) if tree is not None and line is not None else None
        if tree is None or at is None:
            return False
        while tree.tree[at][3] >= 0:  # up to its top-level item
            at = tree.tree[at][3]
        start, end, _, _ = tree.tree[at]
        return self._about_topic("\n".join([entry.heading, *entry.text.split("\n")[start:end]]))

    def _about_topic(self, text: str) -> bool:
        return judge_context(text, self.topic, self.known).verdict in (Verdict.RELEVANT, Verdict.ADJACENT)

    def title_of(self, subject: str) -> str:
        paper = self.papers.get(subject)
        return paper.title if paper else subject

    def add(self, obs: Observation, entry: EntryView | None = None) -> None:
        self.out.append(obs)
        if entry is not None and obs.action == "raised":
            self.raised_by_entry.add((obs.key, entry.path, entry.ordinal))
