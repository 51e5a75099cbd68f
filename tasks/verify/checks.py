"""Verifications the sources do not flag themselves: ids arXiv does not know or titles differently,
numbers that conflict between sources, and promised dates that have passed."""

from __future__ import annotations

import datetime as dt

from rapidfuzz import fuzz

from tasks.common.limits import CAPPED, MAX_COMPARED_SOURCES
from tasks.inbox.part_text import ITEM_MARKER
from tasks.model.window_views import NOTE_KINDS, EntryView
from tasks.verify.climb import sideways
from tasks.verify.conflicts import conflict_summaries
from tasks.verify.context import Context, text_ids
from tasks.verify.name_index import NameIndex
from tasks.verify.names import Names, normalise
from tasks.verify.promises import find_promises
from tasks.verify.readings import Reading, segment
from tasks.verify.status import Observation, Tracked, is_open
from tasks.verify.subjects import heading_thing, line_thing

TITLE_MATCH = 80  # rapidfuzz token_set_ratio at or above which two titles are the same paper's


def titles_agree(ours: str, theirs: str, nm: Names) -> bool | None:
    """Whether a source's title and arXiv's agree; None when ours is too short or not Latin to judge."""
    if len([t for t in nm.distinctive(ours) if t.isascii()]) < 2:
        return None
    name = nm.short_name(ours)
    if name and name.lower() in theirs.lower():
        return True
    return fuzz.token_set_ratio(normalise(ours), normalise(theirs)) >= TITLE_MATCH


def observe_lookups(ctx: Context, tracked: list[Tracked]) -> None:
    """Raise unknown ids and title mismatches from arXiv lookups made by the cutoff; resolve on a match."""
    open_items = {t.key: t for t in tracked if is_open(t, ctx.day)}
    # What the workspace calls each paper (the briefing may show arXiv's title instead).
    titles = {arxiv_id: paper.given_title or paper.title for arxiv_id, paper in ctx.papers.items()}
    for item in open_items.values():  # an id raised earlier may be looked up again without being mentioned
        if item.kind in ("unknown_id", "title_mismatch") and item.subject not in titles:
            titles[item.subject] = str(item.events[0].data().get("title") or item.subject)
    j = ctx.topic.judgment
    for arxiv_id, title in sorted(titles.items()):
        lookup = ctx.data.lookups.get(arxiv_id)
        if lookup is None:
            continue  # not looked up yet: never read as unknown
        when = lookup.looked_up_at.astimezone(ctx.data.window.tz).date().isoformat()
        agree = titles_agree(title, lookup.title, ctx.names) if lookup.title else None
        base = {"title": title, "advice": j.wording("lookup_advice")}
        if lookup.status == "unknown":
            kind, detail = "unknown_id", {**base, "text": j.wording("unknown_id_text", when=when, arxiv_id=arxiv_id),
                                          "marker": j.wording("unknown_id_marker")}
        elif agree is False:
            text = j.wording("title_mismatch_text", title=title, arxiv_title=lookup.title, when=when)
            kind, detail = "title_mismatch", {**base, "text": text, "marker": j.wording("title_mismatch_marker")}
        else:
            for kind in ("unknown_id", "title_mismatch"):
                key = f"{kind}:{arxiv_id}"
                if key in open_items:
                    evidence = {"title": title, "text": j.wording("title_agrees_text", when=when,
                                                                   arxiv_title=lookup.title or arxiv_id)}
                    ctx.add(Observation(key, kind, arxiv_id, "resolved", f"arxiv:{arxiv_id}", ctx.day, evidence))
            continue
        paper = ctx.papers.get(arxiv_id)
        for path in paper.sources if paper else ():
            ctx.add(Observation(f"{kind}:{arxiv_id}", kind, arxiv_id, "raised", path, ctx.day, detail))


class FirstMatch:
    """`next((n for n in names if nm.names_match(n, name)), name)` over a list of names that only grows,
    where a name that stands for itself is appended again each time (`nm`: the run's name matching).

    The list repeats names (every reading of a title that matches nothing earlier appends it again),
    so scanning it made one window's readings quadratic (4,400 names, 1.2 million comparisons on
    the 10,000-note workspace, only 15 of them distinct). The first match in the list is the first
    occurrence of some name, so scanning the distinct names in first-occurrence order finds it; a
    name's answer is remembered with how far it was checked, and an earlier match stays the first.
    """

    def __init__(self, nm: Names) -> None:
        self._nm = nm
        self.distinct: list[str] = []
        self._seen: set[str] = set()
        self._memo: dict[str, tuple[int, int | None]] = {}  # name -> (distinct names checked, match)
        # The distinct names by what could match them: trying each was quadratic in a source of
        # many differently named subjects.
        self._index = NameIndex(nm)

    def resolve(self, name: str) -> str:
        """The first earlier name that matches `name`, else `name` itself (which is then appended)."""
        checked, hit = self._memo.get(name, (0, None))
        if hit is None:
            near = sorted(i for i in self._index.matching(name) if i >= checked)
            hit = next((i for i in near if self._nm.names_match(self.distinct[i], name)), None)
            checked = len(self.distinct)
        subject = self.distinct[hit] if hit is not None else name
        if hit is None and name not in self._seen:  # a name that does not match itself is listed once
            self._index.add(len(self.distinct), name)
            self.distinct.append(name)
            self._seen.add(name)
        self._memo[name] = (checked, hit)
        return subject


def _readings(ctx: Context, entry: EntryView, in_window: bool, names: FirstMatch) -> list[Reading]:
    if entry.kind not in NOTE_KINDS or not entry.numbers:
        return []
    named = heading_thing(ctx.markers, entry.title, ctx.people) if not entry.ids else None
    if named is not None and not ctx.relevant(entry):
        named = None
    out = []
    for number in entry.numbers:
        context, value = str(number.get("context", "")), str(number.get("value", ""))
        if _quoted_from_another(ctx, entry.path, segment(context, value)):
            continue  # "和 ben 的 4,100 tok/s 对不上": ben's reading, restated to disagree with it
        written = text_ids(context)
        line = _line_holding(entry.text, context)
        # The entry's one paper, unless only a sibling item or row names it: never sideways to another
        # item; nor is another topic's paper in a sibling row a reason to drop this row's number.
        own = written or [i for i in entry.ids if not sideways(ctx.markers, entry, i, line, None)]
        ids = [i for i in own if i in ctx.papers]
        if len(ids) == 1:
            subject = ids[0]
        elif own:
            continue  # several papers, or another topic's
        else:
            # Climbing from the number: its entry's heading, else the name its own line leads with.
            thing = named or (_leading_thing(ctx, line) if ctx.relevant(entry) else None)
            if thing is None:
                continue
            subject = names.resolve(thing)
        out.append(Reading(subject, value, str(number.get("unit", "")), context, entry.path, in_window,
                           ctx.markers, line))
    return out


def _leading_thing(ctx: Context, line: str) -> str | None:
    """The thing a number's line opens with ("1) SGLang v0.5.31, Llama-3.1-70B, …"); a name met
    later in the line is one of its conditions or comparisons, not what it measures."""
    thing = line_thing(ctx.markers, line, ctx.people)
    opened = ITEM_MARKER.sub("", line.strip(), count=1).lstrip("*_| ")  # a table row opens with its first cell
    return thing if thing and opened.startswith(thing) else None


def _quoted_from_another(ctx: Context, path: str, piece: str) -> bool:
    """Whether the clause piece holding a number attributes it to another of the workspace's people:
    a reading that note restates from theirs, not one of its own."""
    words = {w.lower() for w in piece.replace("'", " ").replace("’", " ").split()}
    author = path.split("/")[1].lower() if path.startswith("inbox/") else ""
    # A folder may carry a suffix ("inbox/ben-lab"): notes still call the person by the first part.
    return any(words & {p, p.split("-")[0]} for p in ctx.people if p != author)


def _line_holding(text: str, context: str) -> str:
    """The line of `text` (a list item's line, a table row) holding a number's context: the
    conditions it was measured under are stated there, not always in its own clause. The whole
    context first: rows of one table often open alike ("SGLang v0.5.40 | Qwen3-32B, FP8, batch …")."""
    whole = context.strip()
    at = text.find(whole) if whole else -1
    probe = whole[:40]
    at = at if at >= 0 else text.find(probe) if probe else -1
    if at < 0:
        return ""
    return text[text.rfind("\n", 0, at) + 1:(text.find("\n", at) + 1 or len(text) + 1) - 1]


def observe_conflicts(ctx: Context) -> None:
    """One contradiction per (subject, unit, metric) whose readings in two sources do not overlap."""
    names = FirstMatch(ctx.names)
    readings = [r for e in ctx.within_budget(ctx.data.entries, "numbers") for r in _readings(ctx, e, True, names)]
    readings += [r for e in ctx.data.history for r in _readings(ctx, e, False, names)]
    # Per key: its subject, its paths, its least pair and that pair's rank (pa, pb, values, places).
    found: dict[str, tuple[str, set[str], tuple[Reading, Reading], tuple[str, str, str, str, int, int]]] = {}
    summed = conflict_summaries(readings, {r.path for r in readings if r.in_window}, MAX_COMPARED_SOURCES)
    for c in summed.capped:
        ctx.budgets.cap(c.path, f"{CAPPED}its numbers about {c.subject} ({c.unit}) were compared with those of "
                                f"{c.compared} of {c.of} other sources")
    for s in summed.summaries:  # keys in pair order
        key, subject = ctx.keyer.key("conflict", s.subject, f"|{s.unit}|{s.metric}")
        assert s.pair is not None and s.rank is not None
        kept = found.get(key)
        if kept is None:
            found[key] = (subject, set(s.paths), s.pair, s.rank)
        else:
            kept[1].update(s.paths)
            if s.rank < kept[3]:
                found[key] = (kept[0], kept[1], s.pair, s.rank)
    j = ctx.topic.judgment
    for key, (subject, paths, (first, second), _) in sorted(found.items()):
        text = j.wording("conflict_text", path_a=first.path, context_a=first.context, value_a=first.value,
                         path_b=second.path, context_b=second.context, value_b=second.value)
        detail = {"title": ctx.title_of(subject), "text": text[:600], "marker": j.wording("conflict_marker"),
                  "advice": j.wording("conflict_advice")}
        for path in sorted(paths):
            ctx.add(Observation(key, "conflict", subject, "raised", path, ctx.day, detail))


def observe_promises(ctx: Context) -> None:
    """Dated commitments; each is raised the day after its date passes (events dated later stay hidden until then)."""
    j = ctx.topic.judgment
    for entry in ctx.within_budget(ctx.data.entries, "promises"):
        if entry.kind not in NOTE_KINDS:
            continue
        ids = ctx.topical(entry.ids)
        if entry.ids and not ids:
            continue
        subject = ids[0] if len(ids) == 1 else heading_thing(ctx.markers, entry.title, ctx.people)
        if subject is None or (not ids and not ctx.relevant(entry)):
            continue
        for promise in find_promises(ctx.markers, entry.text):
            due_day = max(ctx.day, promise.due + dt.timedelta(days=1))
            key, subject = ctx.keyer.key("promise", subject, f"|{promise.due.isoformat()}")
            detail = {"title": ctx.title_of(subject),
                      "text": j.wording("promise_text", written=promise.written, sentence=promise.sentence),
                      "marker": j.wording("promise_marker"), "due": promise.due.isoformat(),
                      "advice": j.wording("promise_advice")}
            ctx.add(Observation(key, "promise", subject, "raised", entry.path, due_day, detail), entry)
