"""Verifications raised by hedges in notes and queue rows, and resolved by later settling statements.

A hedge's subject is the topical arXiv id it names (by id, or by the paper's coined name), else
the entry's single topical id, else the name the hedged line leads with ("FooKernel「…」"), else
the entry's own title. Hedges about other topics' papers, in bare section headings, or already
settled in the same sentence raise nothing.
"""

from __future__ import annotations

import re

from tasks.model.window import EntryView
from tasks.verify.context import Context, text_ids
from tasks.verify.markers import HEDGE, HEDGE_BOILERPLATE, RELEASED, SETTLE, all_found, found, sentence_at
from tasks.verify.names import (
    distinctive,
    is_generic,
    is_name,
    lead_phrase,
    mentions_name,
    names_match,
    short_name,
)
from tasks.verify.status import Observation, Tracked, is_open

_ASCII_LETTER = re.compile(r"[A-Za-z]")


_BOILERPLATE = re.compile(rf"^[\s⚠️❗*]*(?:T\d{{1,2}}\s*)?(?:{HEDGE_BOILERPLATE})?\s*[*]*\s*[·:：]?\s*")
_NAME_RUN = re.compile(r"^([A-Za-z][\w.+-]*(?:\s+[A-Za-z0-9][\w.+-]*){0,3})(?=\s*[\u3400-\u9fff（(：:「]|$)")


def _name_in(text: str) -> str | None:
    """The name a hedged line leads with, after any "⚠️ T1 待核实 ·" boilerplate ("FooLink 报告…" -> "FooLink")."""
    rest = _BOILERPLATE.sub("", text, count=1)
    lead = lead_phrase(rest)
    if lead and _ASCII_LETTER.search(lead) and not HEDGE.search(lead) and not is_generic(lead) and distinctive(lead):
        return lead
    run = _NAME_RUN.match(rest)
    if run and is_name(run.group(1)) and not is_generic(run.group(1)):
        return run.group(1)
    return None


def _subject(ctx: Context, entry: EntryView, text: str) -> str | None:
    """What a hedged line is about, or None when it is about nothing of this topic."""
    written = text_ids(text)
    if written and not ctx.topical(written):
        return None
    for candidates in (ctx.topical(written), ctx.named_ids(text)):
        if len(candidates) == 1:
            return candidates[0]
    entry_ids = ctx.topical(entry.ids)
    if entry.ids and not entry_ids and not written:
        return None  # the entry is about another topic's paper
    about = entry_ids if not is_generic(entry.title) else []
    for candidates in ([i for i in about if i in entry.heading], ctx.named_ids(entry.title or "")):
        if len(candidates) == 1 and not written:
            return candidates[0]
    if not ctx.relevant(entry):
        return None
    name = _name_in(text)
    if name:
        return name
    if len(about) == 1 and not written:
        return about[0]
    if entry.title and not is_generic(entry.title):
        return entry.title
    return None


def _advice(entry: EntryView, hedge_text: str) -> str:
    """A "建议…" line right after the hedged line, if the source gave one."""
    lines = [line.strip(" -*>") for line in entry.text.splitlines()]
    probe = hedge_text[:30]
    at = next((k for k, line in enumerate(lines) if probe and probe in line.replace("**", "")), None)
    if at is None:
        return ""
    for line in lines[at : at + 4]:
        plain = line.replace("**", "")
        if plain.startswith("建议") and "§" not in plain:
            return plain[plain.find("建议") + 2 :].lstrip("：: ")[:200]
    return ""


def observe_hedges(ctx: Context) -> None:
    """One raised observation per (subject, source) hedged in the window's notes and queue rows."""
    for entry in ctx.data.entries:
        if entry.kind == "work_queue":
            _queue_hedge(ctx, entry)
            continue
        for hedge in entry.hedges:
            text = str(hedge.get("text", "")).strip()
            heading = entry.heading.split(" › ")[-1].strip()
            if not text or text in (entry.title or "", heading) or found(SETTLE, text):
                continue  # a section heading that says "待核实", or a hedge already settled
            subject = _subject(ctx, entry, text)
            if subject is None:
                continue
            key, subject = ctx.keyer.key("hedge", subject)
            detail = {"title": ctx.title_of(subject), "text": text[:300], "marker": str(hedge.get("marker", "")),
                      "advice": _advice(entry, text)}
            ctx.add(Observation(key, "hedge", subject, "raised", entry.path, ctx.day, detail), entry)


def _queue_hedge(ctx: Context, entry: EntryView) -> None:
    ids = ctx.topical(entry.ids)
    marker = HEDGE.search(entry.text)
    if len(ids) != 1 or marker is None:
        return
    cells = [c.strip() for c in entry.text.strip().strip("|").split("|")]
    claim = next((c for c in reversed(cells) if HEDGE.search(c)), entry.text)
    key, subject = ctx.keyer.key("hedge", ids[0])
    detail = {"title": ctx.title_of(subject), "text": claim[:300], "marker": marker.group(0), "advice": ""}
    ctx.add(Observation(key, "hedge", subject, "raised", entry.path, ctx.day, detail), entry)


def _about(ctx: Context, entry: EntryView, subject: str, sentence: str) -> bool:
    """Whether a settling entry (and its sentence, when the entry names several things) is about `subject`."""
    if text_ids(subject) == [subject]:
        name = short_name(ctx.title_of(subject))
        named = subject in entry.ids or (name is not None and name in entry.text)
        many = len(set(entry.ids)) > 1
        return named and (not many or subject in sentence or (name is not None and name in sentence))
    return bool(entry.title and names_match(entry.title, subject)) or mentions_name(sentence, subject) or (
        mentions_name(entry.text, subject) and len(set(entry.ids)) <= 1
    )


def _probe(ctx: Context, subject: str) -> list[str]:
    """Cheap lower-case substrings one of which an entry about `subject` must contain."""
    if text_ids(subject) == [subject]:
        name = short_name(ctx.title_of(subject))
        return [subject] + ([name.lower()] if name else [])
    return sorted(t for t in distinctive(subject) if len(t) >= 2) or [subject.lower()]


def named_somewhere(probes: dict[str, list[str]], texts: list[str]) -> set[str]:
    """The keys of `probes` one of whose probes is a substring of one of `texts`, found with one
    search per probe in the joined texts: a probe can span two texts only if it holds the separator,
    and such a probe is kept (the caller's own scan of each text decides)."""
    if not texts:
        return set()
    joined = "\0".join(texts)
    return {key for key, found in probes.items() if any(p in joined or "\0" in p for p in found)}


def observe_settlements(ctx: Context, tracked: list[Tracked]) -> None:
    """Resolve open verifications that a window entry settles ("已核实", "confirmed", a release)."""
    open_items = [t for t in tracked if is_open(t, ctx.day)]
    raised_today = {(o.key, o.kind, o.subject) for o in ctx.out if o.action == "raised"}
    candidates = sorted({(t.key, t.kind, t.subject) for t in open_items} | raised_today)
    probes = {subject: _probe(ctx, subject) for _, _, subject in candidates}
    entries = [(e, f"{e.heading}\n{e.text}".lower()) for e in ctx.data.entries if e.kind != "work_queue"]
    # Open items pile up over a year, and few are named on any one day: only those named somewhere
    # in the window are looked for entry by entry.
    named = named_somewhere(probes, [t for _, t in entries])
    candidates = [c for c in candidates if c[2] in named]
    for entry, lowered in entries:
        possible = [c for c in candidates if any(p in lowered for p in probes[c[2]])]
        if not possible:
            continue  # names none of the open subjects: no need to look for settling words
        settles, releases = all_found(SETTLE, entry.text), all_found(RELEASED, entry.text)
        for key, kind, subject in possible:
            if (key, entry.path, entry.ordinal) in ctx.raised_by_entry:
                continue
            for match in releases if kind == "promise" else settles:
                sentence = sentence_at(entry.text, match.start())
                if HEDGE.search(sentence) or not _about(ctx, entry, subject, sentence):
                    continue
                detail = {"title": ctx.title_of(subject), "text": sentence}
                ctx.add(Observation(key, kind, subject, "resolved", entry.path, ctx.day, detail))
                break
