"""Parse one paper card (`organized/paper_cards/<NNNN>-<YYMM>-<NNNNN>.md`).

Contract: `parse_card(text)` never raises on drifted or partial cards; it returns every field
it can read and lists each problem in `warnings`. It raises `ParseError` only when the text
is not a card at all (no front matter and no arXiv id anywhere). The arXiv id comes from the
front-matter `arxiv` field (any written form), else from the first valid id in the body.
Categories are lower-cased and stripped; `secondary` may be a list, a comma / 、 / ；
separated string, or missing. The body is read through its one CommonMark parse
(`tasks.inbox.document`): the TL;DR is the rest of the paragraph a `**TL;DR**` or `TL;DR:` label
opens (the next block when nothing follows the label), or the block under a `TL;DR` heading, else
the first block of text; a block that opens a list brings the whole list. Without a front-matter
title, the title is the first level-1 heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from tasks.common.arxiv_ids import canonicalize, find_ids
from tasks.common.decode import normalise_newlines
from tasks.common.frontmatter import FrontMatterValue, split_front_matter
from tasks.common.limits import parse_count
from tasks.common.text import clean_text
from tasks.config.judgment import Judgment, default_judgment
from tasks.inbox.document import Document, read_document


class ParseError(ValueError):
    """The input is not the expected kind of document at all."""


@dataclass(frozen=True)
class ParsedCard:
    """What a paper card says, as far as it could be read."""

    arxiv_id: str | None  # canonical, version-stripped
    raw_arxiv: str | None  # as written, e.g. "arXiv:2610.04631"
    title: str | None
    primary: str | None
    secondary: tuple[str, ...]
    created: date | None
    votes: int | None
    tldr: str | None
    warnings: tuple[str, ...] = ()


_CATEGORY_SEPARATORS = re.compile(r"[,，、;；/|]")
_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")


@dataclass(frozen=True, eq=False)
class CardWords:
    """A judgment's `[cards]` words, compiled (`card_words`): the placeholders people write for "no
    category", and the markers of a card's TL;DR (`**TL;DR**`, `**TL;DR:**`, `TL;DR:`, `TLDR：` at
    the start of a line, rest of line kept; or a heading whose text starts with one)."""

    empty_category: frozenset[str]
    tldr_inline: re.Pattern[str]
    tldr_heading: re.Pattern[str]


@lru_cache(maxsize=8)
def card_words(j: Judgment | None = None) -> CardWords:
    """`j`'s card words (the run's judgment; None: the packaged one), compiled once per judgment."""
    j = j if j is not None else default_judgment()
    tldr = "(?:" + "|".join(map(re.escape, j.words("cards", "tldr"))) + ")"
    return CardWords(
        frozenset(j.words("cards", "empty_category")),
        re.compile(rf"^\s*(?:\*\*|__)?\s*{tldr}\b\s*[:：]?\s*(?:\*\*|__)?\s*[:：\-—]?\s*(?P<rest>.*)$", re.I),
        re.compile(rf"^\s*{tldr}\b", re.I),
    )


# A category is a short code (cs.DC, inference); a longer "category" is cut to its column's width.
MAX_CATEGORY_CHARS = 64


def normalize_category(value: str, words: CardWords) -> str | None:
    """Lower-case and strip a category; None for empty placeholders such as `—` (`words`)."""
    cleaned = value.strip().strip("`*\"'").strip().lower()
    return None if cleaned in words.empty_category else cleaned[:MAX_CATEGORY_CHARS]


def split_categories(value: FrontMatterValue | None, words: CardWords) -> tuple[str, ...]:
    """Categories from a list or a separated string, normalised, empties dropped, order kept."""
    if value is None:
        return ()
    parts = value if isinstance(value, list) else _CATEGORY_SEPARATORS.split(value)
    out: list[str] = []
    for part in parts:
        for piece in _CATEGORY_SEPARATORS.split(part):
            cat = normalize_category(piece, words)
            if cat is not None and cat not in out:
                out.append(cat)
    return tuple(out)


def _as_text(value: FrontMatterValue | None) -> str | None:
    if value is None:
        return None
    text = ", ".join(value) if isinstance(value, list) else value
    return text.strip() or None


def _parse_date(value: str | None, warnings: list[str], field: str) -> date | None:
    if value is None:
        return None
    m = _DATE.search(value[:200])
    if m:
        try:
            day = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            pass
        else:
            if 1970 <= day.year <= 2200:  # year 1 or 9999 is no card's date (and overflows local time)
                return day
    warnings.append(f"{field}: not a date: {value!r}")
    return None


def _parse_votes(value: str | None, warnings: list[str]) -> int | None:
    """A vote count: digits (commas allowed) in 0..2^31-1; a negative or larger one is dropped with a warning."""
    if value is None:
        return None
    m = re.search(r"-?\d[\d,]*", value[:200])
    if m is None:
        warnings.append(f"votes: not a number: {value[:80]!r}")
        return None
    if m.group(0).startswith("-"):
        warnings.append(f"votes: negative count {m.group(0)[:40]!r}; ignored")
        return None
    return parse_count(m.group(0), "votes", warnings)


# Cards are named <NNNN>-<YYMM>-<NNNNN>.md: the name carries the id when the card does not.
_NAME_ID = re.compile(r"^\d{1,6}-(\d{4})-(\d{4,5})(?:v\d+)?\.md$", re.IGNORECASE)


def id_from_file_name(name: str) -> tuple[str, str] | None:
    """(raw, canonical id) from a card's file name, e.g. `0042-2610-04631.md` -> 2610.04631."""
    m = _NAME_ID.match(name)
    if m is None:
        return None
    parsed = canonicalize(f"{m.group(1)}.{m.group(2)}")
    return (name, parsed[0]) if parsed else None


def _id_from_field(value: str, warnings: list[str]) -> str | None:
    valid = [m for m in find_ids(value) if m.canonical]
    if valid:
        return valid[0].canonical
    parsed = canonicalize(value.strip().strip("`"))
    if parsed:
        return parsed[0]
    warnings.append(f"arxiv: not a valid arXiv id: {value!r}")
    return None


def _blocks(doc: Document) -> list[tuple[int, int]]:
    """The body's blocks in order, a heading as (line, -1); fenced code is none."""
    out = [(a, b) for a, b in doc.blocks if a not in doc.heads and not doc.code[a] and not doc.quoted[a]]
    out += [(line, -1) for line, _ in doc.heads.items() if not doc.quoted[line]]
    return sorted(out)


def _text(doc: Document, lines: list[str], a: int, b: int) -> str | None:
    """Lines [a, b) as one line of text; a block that starts a list item runs to the end of its list."""
    item = next((i for i in doc.items if i.start == a), None)
    if item is not None:
        siblings = [i for i in doc.items if i.parent == item.parent and i.start >= a]
        b = item.end
        for nxt in siblings[1:]:
            if any(lines[k].strip() for k in range(b, nxt.start)):
                break
            b = nxt.end
    return " ".join(lines[k].strip() for k in range(a, b) if lines[k].strip() and not doc.code[k]) or None


def extract_tldr(body: str, words: CardWords, doc: Document | None = None) -> str | None:
    """TL;DR of a card body, or its first block of text when no TL;DR marker exists (`doc`: the
    body's parse, when the caller has it)."""
    lines = body.split("\n")
    doc = doc if doc is not None else read_document(clean_text(body))
    blocks = _blocks(doc)
    for n, (a, b) in enumerate(blocks):
        after = blocks[n + 1] if n + 1 < len(blocks) else (0, -1)
        if b < 0:
            if words.tldr_heading.match(doc.heads[a][1]):
                return _text(doc, lines, *after) if after[1] >= 0 else None
            continue
        for k in range(a, b):
            m = words.tldr_inline.match(lines[k])
            if m is None:
                continue
            rest, tail = m.group("rest").strip(), _text(doc, lines, k + 1, b) if k + 1 < b else None
            if rest:
                return f"{rest} {tail}" if tail else rest
            return tail or (_text(doc, lines, *after) if after[1] >= 0 else None)
    return next((_text(doc, lines, a, b) for a, b in blocks if b >= 0), None)


def parse_card(text: str, file_name: str | None = None, words: CardWords | None = None) -> ParsedCard:
    """Parse a paper card; raise ParseError only when it has neither front matter nor any arXiv id
    (in its text or, when given, its file name). `words`: the run's `[cards]` words (`card_words`)."""
    words = words if words is not None else card_words()
    fields, body = split_front_matter(text)
    body = normalise_newlines(body)
    doc = read_document(clean_text(body))  # the body's one parse (clean: the parser takes no lone surrogate)
    warnings: list[str] = []

    raw_arxiv = _as_text(fields.get("arxiv") or fields.get("arxiv_id"))
    arxiv_id = _id_from_field(raw_arxiv, warnings) if raw_arxiv else None
    named = id_from_file_name(file_name) if file_name else None
    if arxiv_id is None:
        body_ids = [m for m in find_ids(body) if m.canonical]
        if body_ids:
            raw_arxiv, arxiv_id = body_ids[0].raw, body_ids[0].canonical
            if fields:
                warnings.append(f"arxiv: taken from the body ({raw_arxiv})")
        elif named is not None:
            raw_arxiv, arxiv_id = named
            warnings.append(f"arxiv: taken from the file name ({arxiv_id})")
        elif not fields:
            raise ParseError("not a paper card: no front matter and no arXiv id")
        else:
            warnings.append("arxiv: no valid arXiv id in front matter or body")
            if raw_arxiv is None and file_name and (shaped := _NAME_ID.match(file_name)):
                raw_arxiv = f"{shaped.group(1)}.{shaped.group(2)}"  # the name's id cannot exist (month 13)

    title = _as_text(fields.get("title"))
    if title is None:
        title = next((text for line, (level, text, _) in sorted(doc.heads.items())
                      if level == 1 and not doc.quoted[line]), None)
        if title is None:
            warnings.append("title: missing")

    primary_raw = _as_text(fields.get("primary"))
    primary = normalize_category(primary_raw, words) if primary_raw is not None else None
    if primary is None:
        warnings.append("primary: missing")

    created = _parse_date(_as_text(fields.get("created")), warnings, "created")
    if "created" not in fields:
        warnings.append("created: missing")

    return ParsedCard(
        arxiv_id=arxiv_id,
        raw_arxiv=raw_arxiv,
        title=title,
        primary=primary,
        secondary=split_categories(fields.get("secondary"), words),
        created=created,
        votes=_parse_votes(_as_text(fields.get("votes")), warnings),
        tldr=extract_tldr(body, words, doc),
        warnings=tuple(warnings),
    )
