"""Sentences of a source's text, Chinese and English: the one segmenter every quoting module uses.

A sentence ends after 。！？． or after `.`, `!`, `?` followed by the end, a CJK character, or
whitespace and anything but a lowercase letter. It never ends inside brackets, quotes or a URL, at a
`.` followed by a letter or digit (v0.6.3), after an abbreviation (`abbreviations` in sentences.toml)
or an initial, or at a semicolon. Line breaks are read as wraps (`unwrap`); a caller with separate
lines or list items segments each on its own.
Segmenting is linear and idempotent: it cuts only where no bracket is open, so each sentence starts
in the state the text started in. docs/dependencies.md says why no library is used.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import resources

_CJK_ENDS = "。！？．"
_ASCII_ENDS = ".!?"
_OPENERS = "「『“（([【《〈"
_CLOSERS = "」』”）)]】》〉"
_AFTER_END = _CJK_ENDS + _ASCII_ENDS + _CLOSERS + "'’"  # kept with the end mark before them
_NOT_URL = "\\s<>\"'`()\\[\\]\u3000-\u303f\uff00-\uffef\u201c\u201d"  # CJK and full-width punctuation end a URL
_URL = f"https?://[^{_NOT_URL}]*[^{_NOT_URL}.,;:!?]"
_MARKS = re.compile(f"{_URL}|[{re.escape(_CJK_ENDS + _ASCII_ENDS + _OPENERS + _CLOSERS)}\"]")
# The word before a ".", standing alone (after a space, a bracket or the start: "a/b." is no
# initial, and the "DR" of "TL;DR." is no "Dr.").
_WORD_BEFORE = re.compile(r"(?<![A-Za-z0-9/_;:&-])[A-Za-z][A-Za-z.]*$")
_LONGEST_WORD = 24
_INITIALS = re.compile(r"(?:[A-Za-z]\.)*[A-Za-z]")
_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")
_STARTS_CJK = re.compile(f"[\u3400-\u9fff\uf900-\ufaff{_OPENERS}]")
_CJK_PUNCT = re.compile(f"[\u3000-\u303f\uff00-\uffef{_CLOSERS[:3]}]")
_WRAP = re.compile(r"\s*\n\s*")
ELLIPSIS = "…"


@lru_cache(maxsize=1)
def _abbreviations() -> frozenset[str]:
    """The packaged abbreviations (sentences.toml): data of this module, not of the judgment, since
    where a sentence ends is the same for every workspace."""
    raw = tomllib.loads(resources.files("tasks.common").joinpath("sentences.toml").read_text(encoding="utf-8"))
    return frozenset(str(w).lower().rstrip(".") for w in raw["abbreviations"])


def is_cjk(ch: str) -> bool:
    """Whether `ch` is a CJK character or CJK/full-width punctuation (no space is written next to it)."""
    return bool(ch) and _CJK.match(ch) is not None


def _abbreviation(text: str, dot: int) -> bool:
    """Whether the `.` at `dot` closes an abbreviation ("e.g.", "vs.", "Fig.") or an initial ("J.")."""
    m = _WORD_BEFORE.search(text, max(0, dot - _LONGEST_WORD), dot)  # bounded: linear in the text
    if m is None:
        return False
    word = m.group(0).lower()
    return word in _abbreviations() or _INITIALS.fullmatch(word) is not None and len(word.replace(".", "")) <= 2


def _ends_at(text: str, mark: int, after: int) -> bool:
    """Whether an ASCII end mark at `mark`, with its trailing closers up to `after`, ends a sentence."""
    n = len(text)
    if after >= n:
        return True
    nxt = text[after]
    if text[mark] == "." and after == mark + 1 and (nxt.isascii() and nxt.isalnum()):
        return False  # v0.6.3, 1.5×, a.B: one token
    if text[mark] == "." and _abbreviation(text, mark):
        return False
    if not nxt.isspace():
        return _STARTS_CJK.match(nxt) is not None  # "H100.然后…" ends; "e.g.，" and "x.、" do not
    k = after
    while k < n and text[k].isspace():
        k += 1
    return k >= n or not text[k].islower()


def cuts(text: str) -> list[int]:
    """Offsets in `text` where a sentence ends (each sentence is text[previous cut:cut])."""
    out: list[int] = []
    depth = 0  # brackets and quotes open; a cut is made only at depth 0
    quoted = False  # inside an ASCII "…" (it opens and closes with the same mark)
    skip = 0
    for m in _MARKS.finditer(text):
        k, mark = m.start(), m.group(0)
        if k < skip or len(mark) > 1:
            continue  # taken in by the end mark before it, or a URL (nothing in it ends a sentence)
        if mark == '"' or mark in _CLOSERS:
            closes = quoted if mark == '"' else depth > 0
            if mark == '"':
                quoted = not quoted
            depth += -1 if closes else 1 if mark == '"' else 0
            # 'He said "go." Then…': an English quoted sentence's end ends the sentence around it.
            if depth or not closes or text[k - 1] not in _ASCII_ENDS:
                continue
            mark_at = k - 1
        elif mark in _OPENERS:
            depth += 1
            continue
        elif depth:
            continue
        else:
            mark_at = k
        after = k + 1
        while after < len(text) and text[after] in _AFTER_END:
            after += 1
        if text[mark_at] in _CJK_ENDS or _ends_at(text, mark_at, after):
            out.append(after)
            skip = after
    return out


def unwrap(text: str) -> str:
    """`text` with its line breaks read as wraps: no space where both sides are CJK, else one space."""
    if "\n" not in text:
        return text
    return _WRAP.sub(lambda m: "" if _joins_tight(text, m.start(), m.end()) else " ", text).strip()


def _joins_tight(text: str, start: int, end: int) -> bool:
    return start > 0 and end < len(text) and is_cjk(text[start - 1]) and is_cjk(text[end])


def sentences(text: str) -> list[str]:
    """The sentences of `text` (one line, item or paragraph), in order, stripped, wraps joined back."""
    out, at = [], 0
    for cut in [*cuts(text), len(text)]:
        piece = unwrap(text[at:cut]).strip()
        if piece:
            out.append(piece)
        at = cut
    return out


def sentence_at(text: str, position: int) -> str:
    """The sentence of one line `text` that holds `position`."""
    at = 0
    for cut in cuts(text):
        if cut > position:
            return text[at:cut].strip()
        at = cut
    return text[at:].strip()


def ends_sentence(text: str) -> bool:
    """Whether `text` ends with a sentence's end mark (closing quotes and brackets after it aside)."""
    t = text.rstrip().rstrip(_CLOSERS + "\"'’*`")
    return bool(t) and t[-1] in _CJK_ENDS + _ASCII_ENDS


def join(parts: Sequence[str]) -> str:
    """Whole sentences of one place put back together as the source wrote them: nothing after CJK
    punctuation or between two CJK characters, otherwise one space. Never a "；" the source did not
    write."""
    text = ""
    for part in (p.strip() for p in parts):
        if not part:
            continue
        tight = text and (_CJK_PUNCT.match(text[-1]) or is_cjk(text[-1]) and is_cjk(part[0]))
        text = part if not text else text + ("" if tight else " ") + part
    return text


def clip(parts: Iterable[str], limit: int) -> str:
    """Sentences joined, at most `limit` characters: cut after the last whole sentence that fits and
    marked "…" when any was left out. A first sentence longer than `limit` is cut at a space (or at
    `limit` when it has none late enough), marked."""
    items = [p.strip() for p in parts if p.strip()]
    whole = join(items)
    if len(whole) <= limit:
        return whole
    kept: list[str] = []
    for part in items:
        if len(join([*kept, part])) + len(ELLIPSIS) > limit:
            break
        kept.append(part)
    if kept:
        return join(kept) + ELLIPSIS
    head = items[0][: max(0, limit - len(ELLIPSIS))]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip() + ELLIPSIS


def clip_text(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a sentence end, marked "…" (see `clip`)."""
    return text if len(text) <= limit else clip(sentences(text), limit)
