"""One pending item per subject: the verifications listed on a day, merged where they are about the
same thing.

Two listed verifications are about the same subject when their subjects are equal, when their
names, without entry markers (`subjects.entry_heading`), match (`names.same_thing`: shared
distinctive tokens, one coined name, the same coined name leading both, or nearly the same
string), when one is a paper and the other names it (its id, or a name matching the paper's title
or coined name), or when they share a coined name and question the same figure (one claim named
in two languages). Open items merge with open items, resolved
with resolved. The merged item keeps the first one's place, kind and 现象 (plus what another kind
of doubt says), is named by the paper when one of them is a paper, takes the first 风险 and 建议
any of them has, the union of their sources and keys, the earliest raise and the latest sighting.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from functools import lru_cache

from tasks.verify.context import text_ids
from tasks.verify.names import coined_tokens, distinctive, same_thing, short_name
from tasks.verify.status import OPEN, StatusAsOf
from tasks.verify.subjects import entry_heading


def _is_paper(v: StatusAsOf) -> bool:
    return _is_id(v.subject)


def _is_id(subject: str) -> bool:
    return text_ids(subject) == [subject]


def _names_of(subject: str, title: str) -> tuple[str, ...]:
    """The names a view goes by: its subject unless an id, its title, a paper title's coined name."""
    paper = _is_id(subject)
    coined = short_name(title) if paper else None
    # Compared without entry markers: an item stored as "Increment 1 - FooServe" is FooServe's.
    return tuple(entry_heading(n) or n for n in (None if paper else subject, title, coined) if n)


# A questioned figure: a percentage or a multiple ("40%", "2.1×", "3x", "2 倍").
_FIGURE = re.compile(r"(\d+(?:\.\d+)?)\s*(%|×|x(?![A-Za-z])|倍)")


@lru_cache(maxsize=65536)
def figures(claim: str) -> frozenset[str]:
    """The percentages and multiples a claim questions, in one spelling ("2.10x" and "2.1 倍" are "2.1×")."""
    return frozenset(f"{float(n):g}{'%' if unit == '%' else '×'}" for n, unit in _FIGURE.findall(claim))


def same_subject(a: StatusAsOf, b: StatusAsOf) -> bool:
    """Whether two listed verifications are about one thing."""
    return _same_subject(a.subject, a.title, figures(a.claim), b.subject, b.title, figures(b.claim))


# A view is compared by its subject, title and figures only, and a year of open items repeats the
# same few thousand of them on every date: the answers are kept (pure functions of their arguments).
@lru_cache(maxsize=65536)
def _same_subject(a_subject: str, a_title: str, a_figures: frozenset[str],
                  b_subject: str, b_title: str, b_figures: frozenset[str]) -> bool:
    if a_subject == b_subject:
        return True
    a_paper, b_paper = _is_id(a_subject), _is_id(b_subject)
    if a_paper and b_paper:
        return False  # two papers are two subjects
    if (a_paper and a_subject in b_subject) or (b_paper and b_subject in a_subject):
        return True
    a_names, b_names = _names_of(a_subject, a_title), _names_of(b_subject, b_title)
    if any(same_thing(x, y) for x in a_names for y in b_names):
        return True
    # Named in two languages ("vLLM 分层 KV 卸载", "Tiered KV Cache Offloading in vLLM"): the same
    # coined name questioned for the same figure is one claim.
    return bool(a_figures & b_figures) and bool(
        frozenset().union(*map(coined_tokens, a_names)) & frozenset().union(*map(coined_tokens, b_names)))


def merge_into(base: StatusAsOf, other: StatusAsOf) -> StatusAsOf:
    """`base` with `other` (about the same subject) merged in."""
    if _is_paper(other) and not _is_paper(base):
        base = dataclasses.replace(base, subject=other.subject, title=other.title)  # the paper names it best
    return dataclasses.replace(
        base,
        sources=tuple(dict.fromkeys(base.sources + other.sources)),
        keys=tuple(dict.fromkeys(base.keys + other.keys)),
        kinds=tuple(dict.fromkeys(base.kinds + other.kinds)),
        # Another kind of doubt about the same thing adds what it says; one more hedge does not.
        claim=base.claim if set(other.kinds) <= set(base.kinds) or other.claim in base.claim
        else f"{base.claim}；{other.claim}",
        raised_on=min(base.raised_on, other.raised_on),
        last_seen=max(base.last_seen, other.last_seen),
        age_days=max(base.age_days, other.age_days),
        status="stale" if "stale" in (base.status, other.status) and base.status in OPEN else base.status,
        seen_in_window=base.seen_in_window or other.seen_in_window,
        risk=base.risk or other.risk,
        advice=base.advice or other.advice,
        title=base.title if base.title != base.subject or other.title == other.subject else other.title,
    )


def _keys(v: StatusAsOf) -> frozenset[str]:
    """Index keys a view can only match a view sharing one of: its ids, and its names' distinctive
    tokens (ASCII ones by their first four letters, so "FooServe"/"FooServer" still meet)."""
    return _keys_of(v.subject, v.title)


@lru_cache(maxsize=65536)
def _keys_of(subject: str, title: str) -> frozenset[str]:
    keys = set(text_ids(subject))
    for name in _names_of(subject, title):
        keys.update(t[:4] if t.isascii() else t for t in distinctive(name))
    return frozenset(keys or {subject})


def one_per_subject(views: Sequence[StatusAsOf]) -> list[StatusAsOf]:
    """`views` in their order, each merged into the first earlier item about the same subject (as
    any of the views already merged into it names it). A year of open items is thousands of views:
    each is compared only with the items sharing an index key with it, not with all, and with each
    (subject, title, figures) merged into an item once (views with all three equal compare alike)."""
    out: list[StatusAsOf] = []
    members: list[dict[tuple[str, str, frozenset[str]], None]] = []  # per item: its views' (subject, title, figures)
    index: dict[str, set[int]] = {}
    for view in views:
        keys, figs = _keys(view), figures(view.claim)
        near = sorted(set().union(*(index.get(k, set()) for k in keys)))
        at = next((k for k in near if (out[k].status in OPEN) == (view.status in OPEN)
                   and any(_same_subject(s, t, f, view.subject, view.title, figs) for s, t, f in members[k])), None)
        if at is None:
            at = len(out)
            out.append(view)
            members.append({})
        else:
            out[at] = merge_into(out[at], view)
        members[at][(view.subject, view.title, figs)] = None
        for k in keys:
            index.setdefault(k, set()).add(at)
    return out
