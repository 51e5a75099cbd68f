"""Readers' verdicts on the pending items a briefing lists (`tasks.window.verdicts` gives those
recorded by the cutoff, about briefings up to its date).

- `settled` resolves the item: the evening whose window holds the verdict lists it as resolved,
  confirmed by the reader on the day they recorded it, with their reason or link as the evidence;
  later evenings no longer list it, as an item resolved by a source.
- `not-a-contradiction` drops an item that holds a contradiction of the numbers check (`conflict`).
- A verdict that names no item (a pending item's key no verification of the topic has; an
  engineering increment's key no name of the notes the answered briefing reads has) or answers a
  date with no briefing (`tasks.window.verdicts`) is named by the evening whose window holds it,
  with its file, line and why, and applied nowhere.
The latest verdict on any of the item's keys decides (`tasks.judge.reader.latest_verdict`). Every
verdict applied is a `ReaderNote` of the briefing, so it says a person overruled the tool.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence

from tasks.common.item_keys import PENDING, key_prefix, pending_key
from tasks.config.judgment import Judgment
from tasks.increments.candidates import name_keys
from tasks.judge.reader import latest_verdict
from tasks.model.judged import Paper, ReaderNote, StatusAsOf
from tasks.model.window_views import NOTE_KINDS, ReaderVerdict, WindowData
from tasks.model.windows import Window
from tasks.window.collect import LOOKBACK_DAYS

CONFLICT = "conflict"
UNKNOWN = "unknown"  # a note's verdict for a key that names no item


def _note(key: str, title: str, v: ReaderVerdict) -> ReaderNote:
    return ReaderNote(key, title, v.verdict, v.by, v.at, v.reason, v.path, v.line)


def apply_to_items(items: Sequence[StatusAsOf], verdicts: Mapping[str, Sequence[ReaderVerdict]],
                   window: Window) -> tuple[list[StatusAsOf], list[ReaderNote]]:
    """`items` (one per subject, in order) with the readers' verdicts applied, and the notes of the
    verdicts this window's briefing applied."""
    if not any(key_prefix(item) == PENDING for item in verdicts):
        return list(items), []
    out: list[StatusAsOf] = []
    notes: list[ReaderNote] = []
    for item in items:
        v = latest_verdict(verdicts, item.item_keys)
        if v is None or v.verdict not in ("settled", "not-a-contradiction") or item.status == "resolved":
            out.append(item)
            continue
        in_window = v.at > window.start
        if v.verdict == "not-a-contradiction":
            if CONFLICT not in (item.kinds or (item.kind,)):
                out.append(item)  # nothing here is a contradiction: the verdict says nothing about it
            elif in_window:
                notes.append(_note(item.item_key, item.title, v))
            continue
        if not in_window:
            continue  # settled on an earlier evening, which listed it so
        on = v.at.astimezone(window.tz).date()
        out.append(dataclasses.replace(item, status="resolved", resolved_on=on, evidence=v.reason,
                                       resolved_by=v.path, confirmed_by=v.by, confirmed_on=on.isoformat(),
                                       seen_in_window=True))
        notes.append(_note(item.item_key, item.title, v))
    return out, notes


def answered_keys(items: Sequence[StatusAsOf], verdicts: Mapping[str, Sequence[ReaderVerdict]],
                  window: Window) -> frozenset[str]:
    """The keys (`item_keys`) of the `items` a reader's verdict settled or dismissed as of `window`,
    by the rule `apply_to_items` applies: what a staleness count must not call open."""
    kept, _ = apply_to_items(items, verdicts, window)
    open_now = {item.item_key for item in kept if item.status != "resolved"}
    return frozenset(k for item in items if item.status != "resolved" and item.item_key not in open_now
                     for k in item.item_keys)


def not_new_notes(papers: Sequence[Paper], verdicts: Mapping[str, Sequence[ReaderVerdict]]) -> list[ReaderNote]:
    """A note for each engineering increment a reader called not new (`tasks.judge.reader.reader_not_new`)."""
    out = []
    for p in papers:
        v = latest_verdict(verdicts, p.item_keys) if p.status == "confirmatory" and p.item_key else None
        if v is not None and p.item_key is not None:
            out.append(_note(p.item_key, p.title, v))
    return out


def not_applied(data: WindowData, tracked: Sequence[str], papers: Sequence[Paper], j: Judgment) -> list[ReaderNote]:
    """A note for each verdict recorded in this window that is applied nowhere, in file order: those
    answering no briefing (`data.refused_verdicts`) and those whose key names no item (`tracked`: the
    topic's stored verification keys; `papers`: the window's, whose increments' keys are known)."""
    window = data.window
    out = [ReaderNote(v.item, "", why, v.by, v.at, v.reason, v.path, v.line, v.date) for why, v in data.refused_verdicts]
    fresh = [(item, v) for item, said in data.verdicts.items() if key_prefix(item) for v in said if v.at > window.start]
    if fresh:
        pending = {pending_key(k) for k in tracked}
        shown = {k for p in papers for k in p.item_keys}
        read: dict[dt.date, set[str] | None] = {}
        for item, v in fresh:
            if key_prefix(item) == PENDING:
                known = item in pending
            else:
                if v.date not in read:
                    read[v.date] = _names_read(data, v, j)
                keys = read[v.date]
                known = item in shown or keys is None or item in keys
            if not known:
                out.append(ReaderNote(item, "", UNKNOWN, v.by, v.at, v.reason, v.path, v.line))
    return sorted(out, key=lambda n: (n.path, n.line))


def _names_read(data: WindowData, v: ReaderVerdict, j: Judgment) -> set[str] | None:
    """The keys of every name the note entries of `v`'s briefing could give an increment, of those
    this window reads (dated by the end of that day); None when that briefing's window starts
    before what this one reads: then it cannot tell, and names nothing."""
    if v.answered_start is None or v.answered_start < data.window.start - dt.timedelta(days=LOOKBACK_DAYS):
        return None
    tz = data.window.tz
    read = [e for e in (*data.history, *data.entries) if e.kind in NOTE_KINDS
            and (e.item_time is None or e.item_time.astimezone(tz).date() <= v.date)]
    return name_keys(read, j)
