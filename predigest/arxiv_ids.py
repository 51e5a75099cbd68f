"""arXiv identifiers: find them in text in every written form, canonicalise, and flag malformed ones.

Canonical form is version-stripped and lower-case (`2610.04646`, `hep-th/9901001`). Something
written as an arXiv reference that is not a valid id is reported as malformed with its raw text,
never "repaired" into another paper.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# Old-style archives (pre-2007). Subject classes (math.AG) are not part of the identifier.
OLD_ARCHIVES = frozenset(
    {
        "acc-phys", "adap-org", "alg-geom", "ao-sci", "astro-ph", "atom-ph", "bayes-an", "chao-dyn",
        "chem-ph", "cmp-lg", "comp-gas", "cond-mat", "cs", "dg-ga", "funct-an", "gr-qc", "hep-ex",
        "hep-lat", "hep-ph", "hep-th", "math", "math-ph", "mtrl-th", "nlin", "nucl-ex", "nucl-th",
        "patt-sol", "physics", "plasm-ph", "q-alg", "q-bio", "q-fin", "quant-ph", "solv-int",
        "stat", "supr-con",
    }
)

_NEW_BODY = r"\d{4}\.\d{4,5}"
_OLD_BODY = r"[a-z][a-z-]*(?:\.[A-Za-z-]+)?/\d{7}"
# An explicit arXiv reference: "arXiv:XXXX", "arXiv XXXX", "arxiv.org/abs/XXXX", "arxiv.org/pdf/XXXX".
_EXPLICIT = re.compile(
    r"(?P<prefix>arxiv\.org/(?:abs|pdf)/|arxiv\s*[:：]\s*|arxiv\s+(?=\d))(?P<token>[A-Za-z0-9./-]+)",
    re.IGNORECASE,
)
# A bare new-style id; bounded so numbers like 2.81–3.10× or 16,200 never match.
_BARE_NEW = re.compile(r"(?<![\w.\-/])(?P<token>\d{4}\.\d{4,5}(?:v\d+)?)(?![\w]|\.\d)")
_BARE_OLD = re.compile(r"(?<![\w.\-/])(?P<token>" + _OLD_BODY + r"(?:v\d+)?)(?![\w])")
_VERSION = re.compile(r"v(\d+)$")
# The scheme/host written before "arxiv.org/abs/…" belongs to the raw reference. Matched backwards
# from each hit rather than inside _EXPLICIT, whose leading literal keeps the scan fast.
_URL_HEAD = re.compile(r"(?:https?://)?(?:www\.|export\.)?\Z", re.IGNORECASE)


@dataclass(frozen=True)
class IdMatch:
    """One arXiv reference found in text."""

    raw: str  # as written, e.g. "https://arxiv.org/abs/2610.04646v2" or "arXiv:160622148"
    canonical: str | None  # None when malformed
    version: int | None
    start: int
    end: int

    @property
    def malformed(self) -> bool:
        return self.canonical is None


def canonicalize(token: str) -> tuple[str, int | None] | None:
    """Return (canonical id, version) for a valid id, or None when `token` is not a valid arXiv id."""
    token = token.strip().rstrip(".,;:)）]")
    if token.lower().endswith(".pdf"):
        token = token[:-4]
    version = None
    m = _VERSION.search(token)
    if m:
        version = int(m.group(1))
        token = token[: m.start()]
    if re.fullmatch(_NEW_BODY, token):
        yymm, number = token.split(".")
        year, month = int(yymm[:2]), int(yymm[2:])
        if not 1 <= month <= 12 or (year, month) < (7, 4):
            return None
        # Four-digit sequence numbers ended in 2014; five digits began in 2015.
        if (len(number) == 5) != (year >= 15):
            return None
        return token, version
    m_old = re.fullmatch(r"([A-Za-z][A-Za-z-]*)(?:\.[A-Za-z-]+)?/(\d{7})", token)
    if m_old:
        archive = m_old.group(1).lower()
        yymm = m_old.group(2)[:4]
        month = int(yymm[2:])
        if archive in OLD_ARCHIVES and 1 <= month <= 12:
            return f"{archive}/{m_old.group(2)}", version
    return None


def find_ids(text: str) -> list[IdMatch]:
    """Every arXiv reference in `text`, in order; explicit references win over bare ones at the same place."""
    found: list[IdMatch] = []
    taken: list[tuple[int, int]] = []

    def overlaps(start: int, end: int) -> bool:
        # `taken` holds explicit references in text order (sorted, disjoint): only the one before `end` can overlap.
        i = bisect.bisect_left(taken, (end,))
        return i > 0 and taken[i - 1][1] > start

    for m in _EXPLICIT.finditer(text):
        token = m.group("token").rstrip(".,;:)）]/-")
        start, end = m.start(), m.start("token") + len(token)
        if m.group("prefix")[5:6] == ".":  # "arxiv.org/…"
            head = _URL_HEAD.search(text[max(0, start - 16) : start])
            start -= len(head.group(0)) if head else 0
        parsed = canonicalize(token)
        raw = text[start:end]
        if parsed is None and not re.search(r"\d{4}", token):
            continue  # "arXiv: see below" and similar prose, not an attempted id
        found.append(IdMatch(raw, parsed[0] if parsed else None, parsed[1] if parsed else None, start, end))
        taken.append((start, end))
    for pattern in (_BARE_NEW, _BARE_OLD):
        for m in pattern.finditer(text):
            start, end = m.span("token")
            if overlaps(start, end):
                continue
            parsed = canonicalize(m.group("token"))
            if parsed is None:
                continue  # a bare number that is not an id is just a number
            # Bare new- and old-style tokens can never overlap each other (and finditer never overlaps
            # itself), so only explicit references need to stay in `taken`; this keeps the scan linear.
            found.append(IdMatch(m.group("token"), parsed[0], parsed[1], start, end))
    found.sort(key=lambda x: x.start)
    return found
