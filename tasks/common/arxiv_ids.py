"""arXiv identifiers: find them in text in every written form, canonicalise, and flag malformed ones.

Canonical form is version-stripped and lower-case (`2610.04646`, `hep-th/9901001`), in ASCII:
digits of any script and full-width forms (`２６１０．０４６４６`, Arabic-Indic digits) are read as
their ASCII equivalents (NFKC, then each decimal digit by its value), the raw text stays as
written. Written forms: `arXiv:ID`, `arxiv.org/abs|pdf|html/ID[vN]`, the DOI
`10.48550/arXiv.ID`, and `huggingface.co/papers/ID`; bare ids in prose. Ids are checked against
the calendar: a new-style id's YYMM needs a real month (01-12) and is not before 0704, when the
scheme began; an old-style id (`archive/YYMMNNN`) needs a known archive, a real month and a date
from 1991-08 (the first listing) to 2007-03 (the last). Whether a new-style id could exist by a
given date ("not after the briefing's month") depends on that date, which the caller passes to
`issued_by`: nothing here reads a clock, so the same text always gives the same ids.
Something written as an arXiv reference that is not a valid id is reported as malformed with its
raw text, never "repaired" into another paper.
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
import operator
import re
import unicodedata
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
# An explicit arXiv reference: "arXiv:XXXX", "arXiv XXXX", "arxiv.org/abs/XXXX", "arxiv.org/pdf/XXXX", "arxiv.org/html/XXXX".
_EXPLICIT = re.compile(
    r"(?P<prefix>arxiv\.org/(?:abs|pdf|html)/|arxiv\s*[:：]\s*|arxiv\s+(?=\d)|(?<=10\.48550/)arxiv\.(?=\d))"
    r"(?P<token>[A-Za-z0-9./-]+)",
    re.IGNORECASE,
)
# A Hugging Face paper page names its arXiv id: huggingface.co/papers/2610.04646.
_HF_PAPER = re.compile(r"(?:https?[:：]//)?(?:www\.)?huggingface\.co/papers/(?P<token>\d{4}\.\d{4,5}(?:v\d+)?)(?![\w.])",
                       re.IGNORECASE)
# What a DOI reference to arXiv starts with, before "arXiv.": belongs to the raw reference.
_DOI_HEAD = re.compile(r"(?:(?:https?[:：]//)?(?:dx\.)?doi\.org/|doi[:：]\s*)?10\.48550/\Z", re.IGNORECASE)
# A bare new-style id; bounded so numbers like 2.81–3.10× or 16,200 never match. (Scanned for as
# _BARE_NEW_AT_DOT below; kept as the plain statement of what that finds.)
_BARE_NEW = re.compile(r"(?<![\w.\-/])(?P<token>\d{4}\.\d{4,5}(?:v\d+)?)(?![\w]|\.\d)")
_BARE_OLD = re.compile(r"(?<![\w.\-/])(?P<token>" + _OLD_BODY + r"(?:v\d+)?)(?![\w])")
_VERSION = re.compile(r"v(\d+)$")
_NEW_FULL = re.compile(_NEW_BODY)
_OLD_FULL = re.compile(r"([A-Za-z][A-Za-z-]*)(?:\.[A-Za-z-]+)?/(\d{7})")
_FOUR_DIGITS = re.compile(r"\d{4}")
# The scheme/host written before "arxiv.org/abs/…" belongs to the raw reference. Matched backwards
# from each hit rather than inside _EXPLICIT, whose leading literal keeps the scan fast.
_URL_HEAD = re.compile(r"(?:https?[:：]//)?(?:www\.|export\.)?\Z", re.IGNORECASE)
# Scans that start with a rare literal or character class, so the regex engine skips ahead instead
# of trying every position (what made find_ids slow on long texts):
# - the x of every "arxiv", in each case re.IGNORECASE accepts (i also matches İ and ı): _EXPLICIT is
#   only tried where one starts, in order, exactly the matches its own finditer would give;
# - the dot of each bare new-style id: one id holds one dot, four characters after its start, and
#   two can never overlap (inside one, the lookbehind fails), so these are exactly _BARE_NEW's matches;
# - "/" and seven digits, without which _BARE_OLD cannot match.
_ARXIV_X = re.compile(r"[xX](?<=[aA][rR][xX])[iIİı][vV]")
_BARE_NEW_AT_DOT = re.compile(r"\.(?<=(?<![\w.\-/])\d{4}\.)\d{4,5}(?:v\d+)?(?![\w]|\.\d)")
_HAS_OLD = re.compile(r"/\d{7}")
_FULL_WIDTH_OFFSET = 0xFEE0  # "Ａ" is "A" + this


@functools.cache
def _non_ascii_decimals() -> tuple[int, ...]:
    """Every decimal digit outside 0-9. Found on first use (each process) by a pass over the first two
    planes, where Unicode puts every one (tests/common/test_arxiv_ids.py checks all code points), run
    in C (filter, map): no line of Python per code point for the line-counting tests to charge to
    the first text that asks."""
    return tuple(map(ord, filter(str.isdecimal, map(chr, range(0x80, 0x20000)))))


# Same-length translation (positions in the text are kept): each decimal digit to ASCII, each
# full-width ASCII form (U+FF01..U+FF5E) to its ASCII character. Built on first use.
@functools.cache
def _to_ascii_table() -> dict[int, str]:
    table = {c: str(unicodedata.decimal(chr(c))) for c in _non_ascii_decimals()}
    table.update({c: chr(c - _FULL_WIDTH_OFFSET) for c in range(0xFF01, 0xFF5F)})
    return table


# The ASCII characters the scans read as themselves; every other character they meet only as "not a
# word character, not one of .-/" (the lookarounds), which its ASCII form is as well. ':' is not
# among them: the patterns take "：" beside it themselves, as "：" is in most Chinese lines.
_READ_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./_-")


def _wide_codes() -> list[int]:
    """The characters whose ASCII form the scans would read differently: a full-width form of
    _READ_CHARS, or a decimal digit outside 0-9."""
    full_width = (c for c in range(0xFF01, 0xFF5F) if chr(c - _FULL_WIDTH_OFFSET) in _READ_CHARS)
    return sorted({*_non_ascii_decimals(), *full_width})


@functools.cache
def _wide() -> re.Pattern[str]:
    """A character of `_wide_codes`, to translate: only these are, not the full-width （，：；） of a
    Chinese note (translating a whole text, a dict lookup a character, cost more than all the scans after it)."""
    ranges: list[list[int]] = []
    for c in _wide_codes():
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    return re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]")


@functools.cache
def _wide_utf8() -> re.Pattern[bytes]:
    """`_wide`'s characters in a text's UTF-8 bytes, as a trie of their byte sequences. Whether a text
    holds one is asked of every entry: the str pattern's category test at every character of a
    Chinese note cost as much as the id scans, and a class of every script's digits is slower still;
    the engine skips the bytes that lead no such sequence (most of CJK) a byte at a time."""
    return re.compile(_byte_trie([chr(c).encode() for c in _wide_codes()]))


def _byte_trie(seqs: list[bytes]) -> bytes:
    """A bytes pattern matching exactly `seqs` (UTF-8 sequences: those sharing a first byte are as long)."""
    tails: dict[int, list[bytes]] = {}
    for seq in seqs:
        tails.setdefault(seq[0], []).append(seq[1:])
    firsts_of: dict[bytes, list[int]] = {}  # first bytes with the same tails share one alternative
    for first, rest in tails.items():
        firsts_of.setdefault(b"" if rest == [b""] else _byte_trie(rest), []).append(first)
    alternatives = [b"[" + b"".join(re.escape(bytes([b])) for b in sorted(firsts)) + b"]" + tail
                    for tail, firsts in firsts_of.items()]
    return alternatives[0] if len(alternatives) == 1 else b"(?:" + b"|".join(alternatives) + b")"


def _has_wide(text: str) -> bool:
    return not text.isascii() and _wide_utf8().search(text.encode("utf-8", "surrogatepass")) is not None


def _ascii_form(m: re.Match[str]) -> str:
    return _to_ascii_table()[ord(m.group())]


# A version number larger than this is no version (and would not fit its INTEGER column).
MAX_VERSION = 2**31 - 1
# The months each scheme was issued in, as (year, month): new-style YYMM from April 2007 on,
# old-style archive/YYMMNNN from the first listing (August 1991) to the last (March 2007).
_FIRST_NEW_STYLE = (7, 4)
_OLD_STYLE_MONTHS = ((1991, 8), (2007, 3))


# Asked for every id of every item a window reads, again for each window of a backfill: a pure
# function of the string, its answer an immutable tuple, so kept.
@functools.lru_cache(maxsize=65536)
def id_month(canonical: str) -> tuple[int, int] | None:
    """(year, month) a canonical new-style id was issued in (`2610.04646` -> (2026, 10)); None for
    an old-style id or anything else."""
    if not _NEW_FULL.fullmatch(canonical):
        return None
    return 2000 + int(canonical[:2]), int(canonical[2:4])


def issued_by(canonical: str, day: dt.date) -> bool:
    """Whether the id could exist on `day` (the briefing's date): a new-style id's YYMM is not
    after `day`'s month. Old-style ids all predate any briefing."""
    month = id_month(canonical)
    return month is None or month <= (day.year, day.month)


def _old_style_month(yymm: str) -> bool:
    """Whether an old-style id's YYMM is a real month inside the scheme's years (YY 91..99 are
    the 1990s, 00..07 the 2000s)."""
    yy, month = int(yymm[:2]), int(yymm[2:])
    year = 1900 + yy if yy >= 90 else 2000 + yy
    return 1 <= month <= 12 and _OLD_STYLE_MONTHS[0] <= (year, month) <= _OLD_STYLE_MONTHS[1]


def to_ascii(token: str) -> str:
    """`token` with full-width forms and every script's digits as ASCII (NFKC, then digit values)."""
    if token.isascii():
        return token
    return unicodedata.normalize("NFKC", token).translate(_to_ascii_table())


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
    token = to_ascii(token.strip()).rstrip(".,;:)）]")
    if not token.isascii():
        return None
    if token.lower().endswith(".pdf"):
        token = token[:-4]
    version = None
    m = _VERSION.search(token)
    if m:
        if len(m.group(1)) > 10 or int(m.group(1)) > MAX_VERSION:
            return None
        version = int(m.group(1))
        token = token[: m.start()]
    if _NEW_FULL.fullmatch(token):
        yymm, number = token.split(".")
        year, month = int(yymm[:2]), int(yymm[2:])
        if not 1 <= month <= 12 or (year, month) < _FIRST_NEW_STYLE:
            return None
        # Four-digit sequence numbers ended in 2014; five digits began in 2015.
        if (len(number) == 5) != (year >= 15):
            return None
        return token, version
    m_old = _OLD_FULL.fullmatch(token)
    if m_old:
        archive = m_old.group(1).lower()
        if archive in OLD_ARCHIVES and _old_style_month(m_old.group(2)[:4]):
            return f"{archive}/{m_old.group(2)}", version
    return None


# The same papers are cited over and over; remembering recent answers saves re-validating them.
_canonicalize = functools.lru_cache(maxsize=4096)(canonicalize)


# An IdMatch's fields (raw, canonical, version, start, end) as a plain tuple, much cheaper to build.
IdSpan = tuple[str, str | None, int | None, int, int]


def find_ids(text: str) -> list[IdMatch]:
    """Every arXiv reference in `text`, in order; explicit references win over bare ones at the same place."""
    return [IdMatch(*found) for found in find_id_spans(text)[0]]


def find_id_spans(text: str) -> tuple[list[IdSpan], bool]:
    """find_ids(text) as tuples, and whether each line's references are exactly its own find_ids, shifted.

    Only an explicit reference's prefix ("arXiv:\\n2610.04646") can run over a line break. When
    none does (the flag is True), every match lies within its line and each regex meets the same
    characters, or the same line break/end of text, as on that line alone; so a caller holding a
    text's references need not look them up again line by line.
    """
    original = text
    # Every id has four digits in a row (then each line has none either). Asked before translating:
    # every character translated to a digit is a digit (\d) already, and no other becomes one.
    if not _FOUR_DIGITS.search(text):
        return [], True
    if _has_wide(text):
        text = _wide().sub(_ascii_form, text)  # same length: every span found is the original's too
    found: list[IdSpan] = []
    taken: list[tuple[int, int]] = []
    by_line = True
    after = 0  # end of the last _EXPLICIT match: the next must start here or later, as in finditer
    for x in _ARXIV_X.finditer(text):
        if x.start() - 2 < after or not (m := _EXPLICIT.match(text, x.start() - 2)):
            continue
        after = m.end()
        prefix = m.group("prefix")
        if "\n" in prefix:
            by_line = False
        token = m.group("token").rstrip(".,;:)）]/-")
        start, end = m.start(), m.start("token") + len(token)
        if prefix[5:9].lower() == ".org":  # "arxiv.org/…"
            head = _URL_HEAD.search(text[max(0, start - 16) : start])
            start -= len(head.group(0)) if head else 0
        elif prefix[5:6] == ".":  # the DOI 10.48550/arXiv.…
            head = _DOI_HEAD.search(text[max(0, start - 40) : start])
            start -= len(head.group(0)) if head else 0
        parsed = _canonicalize(token)
        if parsed is None and not _FOUR_DIGITS.search(token):
            continue  # "arXiv: see below" and similar prose, not an attempted id
        found.append((original[start:end], *(parsed or (None, None)), start, end))
        taken.append((start, end))
    if "uggingface" in text:
        for m in _HF_PAPER.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            parsed = _canonicalize(m.group("token"))
            found.append((original[m.start() : m.end()], *(parsed or (None, None)), m.start(), m.end()))
            taken.append(m.span())
        taken.sort()
    bare = [(m.start() - 4, m.end()) for m in _BARE_NEW_AT_DOT.finditer(text)]
    if _HAS_OLD.search(text):
        bare += [m.span("token") for m in _BARE_OLD.finditer(text)]
    for start, end in bare:
        # `taken` holds explicit references in text order (sorted, disjoint): only the one before `end` can overlap.
        i = bisect.bisect_left(taken, (end,))
        if i > 0 and taken[i - 1][1] > start:
            continue
        token = text[start:end]
        parsed = _canonicalize(token)
        if parsed is None:
            if _looks_old_style(token):  # hep-th/9913001: an id that cannot exist, not a number
                found.append((original[start:end], None, None, start, end))
            continue  # a bare number that is not an id is just a number
        # Bare new- and old-style tokens can never overlap each other (and finditer never overlaps
        # itself), so only explicit references need to stay in `taken`; this keeps the scan linear.
        found.append((original[start:end], *parsed, start, end))
    if len(found) > 1:
        found.sort(key=_START)
    return found, by_line


def _looks_old_style(token: str) -> bool:
    """An old-style id of a known archive whose number is wrong (month 13): malformed, not prose."""
    m = _OLD_FULL.fullmatch(_VERSION.sub("", token))
    return m is not None and m.group(1).lower() in OLD_ARCHIVES


_START = operator.itemgetter(3)
