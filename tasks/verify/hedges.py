"""Verifications raised by hedges in notes and queue rows, and resolved by later settling statements.

A hedge's subject is the thing in doubt (`tasks.verify.subjects`): the topical id the line names,
else its entry's id (unless only a sibling item names it, `tasks.verify.climb.sideways`), else the
name the line leads with, else by climbing the note's tree (`tasks.verify.climb.climbed`); never a
sibling line, and a hedge with no subject raises nothing. An entry whose heading names another
topic's paper raises nothing: its other ids are context.
Hedges about other topics' papers, settled in the same sentence, or (in an echo) already anchored,
resolved or settled in the window or lookback, raise nothing. A settling sentence resolves an item only when it
is about the same subject (`_about`). What an entry hedges is `tasks.verify.hedged`; each
observation carries 现象/风险/建议 from the hedge's passage (`tasks.verify.passage`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from tasks.common.arxiv_ids import find_ids
from tasks.common.working_set import per_window_item
from tasks.inbox.segment import PATH_SEP
from tasks.judge.own_text import echo_paths
from tasks.judge.sections import DocEntry, doc_sections
from tasks.model.outline import Outline
from tasks.model.window_views import EntryView
from tasks.verify.climb import climbed, line_of, row_key_ids, sideways
from tasks.verify.context import Context, text_ids
from tasks.verify.hedged import entry_hedges
from tasks.verify.joined import JoinedTexts, texts_naming
from tasks.verify.markers import Markers, all_found, found, sentence_at, strip_labels, without_context
from tasks.verify.names import Names
from tasks.verify.passage import hedge_parts
from tasks.verify.status import Observation, Tracked, is_open
from tasks.verify.subjects import heading_thing, line_thing


def _subject(ctx: Context, entry: EntryView, text: str, line: int | None = None) -> str | None:
    """What a hedged line is about, or None when it is about nothing of this topic (or nothing at all)."""
    # A table row is about its key cells' paper, not a baseline its claim cell names.
    written = row_key_ids(ctx.markers, entry, text, line) or text_ids(text)
    if written and not ctx.topical(written):
        return None
    said, text = text, without_context(ctx.markers, text)  # "compared with X": X is context, not the subject
    for candidates in (ctx.topical(written), ctx.named_ids(text)):
        if len(candidates) == 1:
            return candidates[0]
    entry_ids = ctx.topical(entry.ids)
    # A line with an id of its own, even one that does not parse ("(arXiv:160622148)"), is about
    # what it names, not about the entry's papers.
    own_id = bool(written) or any(m.malformed for m in find_ids(text))
    headed = text_ids(entry.heading.split(PATH_SEP)[-1]) if entry.title is not None else []
    if not own_id and ((entry.ids and not entry_ids) or (headed and not ctx.topical(headed))):
        return None  # the entry is about another topic's paper (its heading's; other ids are context)
    heading = heading_thing(ctx.markers, entry.title, ctx.people)
    if heading is not None and not own_id:
        for candidates in ([i for i in entry_ids if i in entry.heading], ctx.named_ids(heading)):
            if len(candidates) == 1:
                return candidates[0]
    if not ctx.relevant(entry, line if line is not None else line_of(ctx.markers, entry.text, said)):
        return None
    name = line_thing(ctx.markers, text, ctx.people, coined=False)
    if name:  # the heading, when it names the same thing, is its fuller name
        return heading if heading is not None and not own_id and ctx.names.same_thing(heading, name) else name
    if len(entry_ids) == 1 and not own_id and not sideways(ctx.markers, entry, entry_ids[0], said, line):
        return entry_ids[0]
    return heading or climbed(ctx, entry, said, line)


def _stored_line(hedge: dict[str, Any]) -> int | None:
    """The line of the entry's text the parser found the hedge on (None: the heading's, or a hedge
    stored before ingest recorded it, or one judging found)."""
    line = hedge.get("line")
    return line if isinstance(line, int) and line >= 0 else None


def _doc_entries(ctx: Context) -> list[DocEntry]:
    """The knowledge document's body entries anchored by the cutoff (undated ones do not count);
    found once per window (hedges and settlements both ask)."""
    if ctx.doc_entries is None:
        doc = ctx.data.knowledge
        ctx.doc_entries = [e for sec in doc_sections(doc.sections, ctx.day, False, ctx.topic.judgment) for e in sec.entries] if doc else []
    return ctx.doc_entries


def _names_subject(nm: Names, entry: DocEntry, subject: str, sentence: str | None = None) -> bool:
    """Whether a knowledge-document entry (or, given, its settling sentence) names `subject`."""
    if text_ids(subject) == [subject]:
        return subject in text_ids(entry.text)
    return nm.names_match(entry.name, subject) or nm.mentions_name(entry.text if sentence is None else sentence, subject)


def _settled_by_doc(nm: Names, entries: list[DocEntry], subject: str) -> bool:
    """Whether the knowledge document, as of the cutoff, has taken in `subject` (an entry anchored on it)."""
    return any(_names_subject(nm, e, subject) for e in entries)


@dataclass(frozen=True)
class _Settling:
    """The lookback's settling sentences (not hedged, not in a restated briefing) by entry, with the
    entries' texts joined to find those that could name a subject (`_probe`, as settlements do)."""

    entries: list[tuple[EntryView, list[str]]]
    joined: JoinedTexts


def _settling(ctx: Context, restated: set[str]) -> _Settling:
    kept = []
    for entry in ctx.data.history:
        if entry.path not in restated and (said := _settling_sentences(ctx.markers, entry.text)):
            kept.append((entry, list(said)))
    return _Settling(kept, JoinedTexts([f"{e.heading}\n{e.text}".lower() for e, _ in kept]))


@per_window_item(16384)  # every window with an echo reads its whole lookback: mostly the last one's
def _settling_sentences(m: Markers, text: str) -> tuple[str, ...]:
    """The sentences of `text` that settle something and hedge nothing."""
    sentences = [sentence_at(text, match.start()) for match in all_found(m, m.settle, text)]
    return tuple(s for s in sentences if not m.hedge.search(s))


def _settled_earlier(ctx: Context, subject: str, lookback: _Settling) -> bool:
    """Whether a note of the lookback (not itself a restated briefing) said `subject` is settled. An
    echo restates many subjects and the lookback is a month of notes: each subject is met only with
    the entries that could name it, not with every entry."""
    for i in lookback.joined.naming({subject: _probe(ctx, subject)}).get(subject, ()):
        entry, sentences = lookback.entries[i]
        if any(_about(ctx, entry, subject, sentence) for sentence in sentences):
            return True
    return False


def observe_hedges(ctx: Context) -> None:
    """One raised observation per (subject, source) hedged in the window's notes and queue rows.

    A published briefing dropped into the inbox (an echo) restates earlier items: what the knowledge
    document has anchored since, a stored item already resolved, or what a note of the lookback
    settled, is not raised again from it."""
    echoes = echo_paths(ctx.data.entries, ctx.topic.judgment)
    doc_entries = _doc_entries(ctx) if echoes else []
    restated = echoes | echo_paths(ctx.data.history, ctx.topic.judgment) if echoes else echoes
    lookback: list[_Settling] = []  # read once per window, when the first echo asks

    def settled_earlier(subject: str) -> bool:
        if not lookback:
            lookback.append(_settling(ctx, restated))
        return _settled_earlier(ctx, subject, lookback[0])

    nm = ctx.names
    for entry in ctx.within_budget(ctx.data.entries, "hedges"):
        if entry.kind == "work_queue":
            _queue_hedge(ctx, entry)
            continue
        for hedge in entry_hedges(entry, ctx.markers):
            text = str(hedge.get("text", "")).strip()
            heading = entry.heading.split(" › ")[-1].strip()
            # A heading that says "待核实" over a body hedges nothing of its own; an entry that is
            # only its heading (a list item read as one) hedges with it.
            headed = text in (entry.title or "", heading) and bool(entry.text.strip()) and text not in entry.text
            if not text or headed or nm.names_nothing(text) or found(ctx.markers, ctx.markers.settle, text):
                continue  # a section heading that says "待核实", a bare marker, or a hedge already settled
            if ctx.markers.points_back.search(text):
                continue  # "（就是上面待核实的那一点）": the point above, already raised where it was made
            about = str(hedge.get("about") or "")  # what the hedging heading names
            subject = _subject(ctx, entry, f"{about}：{text}" if about else text, _stored_line(hedge))
            if subject is None:
                continue
            key, subject = ctx.keyer.key("hedge", subject)
            if entry.path in echoes and (key in ctx.resolved_keys or _settled_by_doc(nm, doc_entries, subject)
                                         or settled_earlier(subject)):
                continue
            title = ctx.title_of(subject)
            # The claim is its list item, never a sibling's text (a wrapped line of the item before).
            line = _stored_line(hedge) if "line" in hedge else line_of(ctx.markers, entry.text, text)
            block = (entry.outline or Outline()).item_block(entry.text, line) if line is not None else None
            parts = hedge_parts(ctx.markers, block or entry.text, text,
                                tuple(n for n in (subject, nm.short_name(title) or "") if n))
            detail: dict[str, Any] = {"title": title, "text": parts.phenomenon or strip_labels(ctx.markers, text)[:300],
                      "marker": str(hedge.get("marker", "")), "risk": parts.risk, "advice": parts.advice}
            if entry.path in echoes:
                detail["echo"] = True
            ctx.add(Observation(key, "hedge", subject, "raised", entry.path, ctx.day, detail), entry)


def _queue_hedge(ctx: Context, entry: EntryView) -> None:
    ids = ctx.topical(entry.ids)
    marker = ctx.markers.hedge.search(entry.text)
    if len(ids) != 1 or marker is None:
        return
    cells = [c.strip() for c in entry.text.strip().strip("|").split("|")]
    claim = next((c for c in reversed(cells) if ctx.markers.hedge.search(c)), entry.text)
    key, subject = ctx.keyer.key("hedge", ids[0])
    parts = hedge_parts(ctx.markers, claim, claim)
    detail = {"title": ctx.title_of(subject), "text": parts.phenomenon or claim[:300], "marker": marker.group(0),
              "risk": parts.risk, "advice": parts.advice}
    ctx.add(Observation(key, "hedge", subject, "raised", entry.path, ctx.day, detail), entry)


def _about(ctx: Context, entry: EntryView, subject: str, sentence: str) -> bool:
    """Whether a settling sentence is about `subject`: it names it (its id, the paper's coined name,
    or a name matching the subject's); or it names no thing of its own and its entry is about the
    subject alone. A sentence that leads with another thing ("SGLang GitHub issues | … 已确认") is
    evidence about that thing, never about `subject`."""
    own, nm = line_thing(ctx.markers, sentence, ctx.people, coined=False), ctx.names
    if text_ids(subject) == [subject]:
        name = nm.short_name(ctx.title_of(subject))
        if subject in text_ids(sentence) or (name is not None and name in sentence):
            return True
        if own is not None and not nm.names_match(own, ctx.title_of(subject)):
            return False
        named = subject in entry.ids or (name is not None and name in entry.text)
        return named and len(set(entry.ids)) <= 1
    if own is not None:
        return nm.same_thing(own, subject) or nm.same_thing(subject, own)
    heading = heading_thing(ctx.markers, entry.title, ctx.people)
    return nm.mentions_name(sentence, subject) or (heading is not None and nm.names_match(heading, subject))


def _probe(ctx: Context, subject: str) -> list[str]:
    """Cheap lower-case substrings one of which an entry about `subject` must contain."""
    if text_ids(subject) == [subject]:
        name = ctx.names.short_name(ctx.title_of(subject))
        return [subject] + ([name.lower()] if name else [])
    return sorted(t for t in ctx.names.distinctive(subject) if len(t) >= 2) or [subject.lower()]


def _doc_settlements(ctx: Context, candidates: list[tuple[str, str, str]]) -> None:
    """The knowledge document's entries anchored in this window that name an open subject and say it
    is settled ("数字已核实", "confirmed") resolve it, with that sentence as evidence."""
    doc, m, nm = ctx.data.knowledge, ctx.markers, ctx.names
    start = ctx.data.window.start_local.date()
    for entry in _doc_entries(ctx):
        if doc is None or entry.anchored_on is None or entry.anchored_on <= start:
            continue
        for sentence in _settling_sentences(m, entry.text):
            for key, kind, subject in candidates:
                if kind == "hedge" and _names_subject(nm, entry, subject, sentence):
                    ctx.add(Observation(key, kind, subject, "resolved", doc.path, ctx.day,
                                        {"title": ctx.title_of(subject), "text": sentence}))


def observe_settlements(ctx: Context, tracked: list[Tracked]) -> None:
    """Resolve open verifications that a window entry settles ("已核实", "confirmed", a release)."""
    m = ctx.markers
    open_items = [t for t in tracked if is_open(t, ctx.day)]
    raised_today = {(o.key, o.kind, o.subject) for o in ctx.out if o.action == "raised"}
    candidates = sorted({(t.key, t.kind, t.subject) for t in open_items} | raised_today)
    probes = {subject: _probe(ctx, subject) for _, _, subject in candidates}
    entries = [(e, f"{e.heading}\n{e.text}".lower(), i)
               for i, e in enumerate(e for e in ctx.data.entries if e.kind != "work_queue")]
    _doc_settlements(ctx, candidates)
    # Open items pile up over a year, and a busy day has hundreds of entries: each entry is met only
    # with the subjects it names (a probe of theirs found in it), not with every subject.
    promised = [subject for _, kind, subject in candidates if kind == "promise"]
    doubted_promises = {subject for _, kind, subject in candidates if kind == "hedge"
                        and any(ctx.names.same_thing(subject, p) for p in promised)}
    naming = texts_naming(probes, [t for _, t, _ in entries])
    possible_at: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    for c in candidates:
        for i in naming.get(c[2], ()):
            possible_at[i].append(c)
    for entry, _, index in ctx.within_budget(entries, "settlements"):
        possible = possible_at.get(index, [])
        if not possible:
            continue  # names none of the open subjects: no need to look for settling words
        body = entry.text if entry.text.strip() else entry.title or ""  # an entry that is only its heading says it there
        settles, releases = all_found(m, m.settle, body), all_found(m, m.released, body)
        for key, kind, subject in possible:
            if (key, entry.path, entry.ordinal) in ctx.raised_by_entry:
                continue
            # A hedge on a promised release ("no tag yet, 可能跳票") is settled by the release, as the promise is.
            released = kind == "promise" or (kind == "hedge" and subject in doubted_promises)
            for match in (releases if kind == "promise" else settles + releases if released else settles):
                sentence = sentence_at(body, match.start())
                if m.hedge.search(sentence) or not _about(ctx, entry, subject, sentence):
                    continue
                detail = {"title": ctx.title_of(subject), "text": sentence}
                ctx.add(Observation(key, kind, subject, "resolved", entry.path, ctx.day, detail))
                break
