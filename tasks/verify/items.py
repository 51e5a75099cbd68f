"""One pending item per subject: the verifications listed on a day, merged where they are about the
same thing.

Two listed verifications are about the same subject when their subjects are equal, when their
names match (`names.names_match`: shared distinctive tokens, one coined name, or nearly the same
string), when one is a paper and the other names it (its id, or a name matching the paper's title),
or when one's subject is written in the other's. Open items merge with open items, resolved with
resolved. The merged item keeps the first one's place, kind and title, and its 现象 (plus what
another kind of doubt says), takes the first 风险 and 建议 any of them has, the union of their sources and keys, the earliest raise and the latest sighting.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from tasks.verify.context import text_ids
from tasks.verify.names import names_match, short_name
from tasks.verify.status import OPEN, StatusAsOf


def _is_paper(v: StatusAsOf) -> bool:
    return text_ids(v.subject) == [v.subject]


def _names(v: StatusAsOf) -> list[str]:
    """The names a view goes by: its subject unless an id, its title, a paper title's coined name."""
    coined = short_name(v.title) if _is_paper(v) else None
    return [n for n in (None if _is_paper(v) else v.subject, v.title, coined) if n]


def same_subject(a: StatusAsOf, b: StatusAsOf) -> bool:
    """Whether two listed verifications are about one thing."""
    if a.subject == b.subject:
        return True
    if _is_paper(a) and _is_paper(b):
        return False  # two papers are two subjects
    for paper, other in ((a, b), (b, a)):
        if _is_paper(paper) and paper.subject in other.subject:
            return True
    return any(names_match(x, y) for x in _names(a) for y in _names(b))


def _merge(base: StatusAsOf, other: StatusAsOf) -> StatusAsOf:
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


def one_per_subject(views: Sequence[StatusAsOf]) -> list[StatusAsOf]:
    """`views` in their order, each merged into the first earlier item about the same subject (as
    any of the views already merged into it names it)."""
    out: list[StatusAsOf] = []
    members: list[list[StatusAsOf]] = []
    for view in views:
        at = next((k for k, kept in enumerate(out) if (kept.status in OPEN) == (view.status in OPEN)
                   and any(same_subject(m, view) for m in members[k])), None)
        if at is None:
            out.append(view)
            members.append([view])
        else:
            out[at] = _merge(out[at], view)
            members[at].append(view)
    return out
