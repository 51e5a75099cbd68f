"""Lines that head entries without being `#` headings: the same structure in another heading style.

A note without `#`–`####` headings below its title is read in whichever style it uses: 「一、」
chapters and bold "A." lines (level 2), 「（一）」 sub-chapters (level 3), marked entry lines
("条目#1 · …", "Increment 3 - …"; `[markers] entry_words`, level 3 and deeper), whole-line bold
(level 4) and numbered lines at the margin with text between them (level 4).
A bold line that is only a label, repeats the note's text, or sits between numbered entries without
their layout is a lead-in, never a heading. In a note with `#` headings, marked lines and bold
lines that name a paper, carry a number or follow a `---` head entries at level 5.
「（一）」 lines head entries in either kind of note. A bold phrase inside a line of text is never a heading. `pseudo_heads` gives the rules in full.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from tasks.common.text import word_alternation
from tasks.config.judgment import Judgment, default_judgment

CN_NUMERAL = "[一二三四五六七八九十]{1,3}"
CHAPTER = re.compile(rf"{CN_NUMERAL}、\s*\S")
SUB_CHAPTER = re.compile(rf"[（(]{CN_NUMERAL}[)）]\s*\S")
LETTERED = re.compile(r"[A-Z][.)、][ \t]+\S")  # "A. GitHub Trending": read on bold lines only
LETTERED_NUMBER = re.compile(r"[A-Z]{1,2}\d{1,3}[.)、:：][ \t]*\S")  # "A1. Ember-1": read on bold lines only
NUMBERED = re.compile(r"(?:\d{1,3}[.)][ \t]+|[(（]\d{1,3}[)）][ \t]*)\S")
DOTTED = re.compile(r"\d{1,3}(?:\.\d{1,3})+\.?[ \t]+\S")  # "1.2 Foo": one level below "1. …"
BOLD = re.compile(r" {0,3}\*\*(?P<text>[^*\n]*[^*\s:：][^*\n]*?)\s*[:：]?\s*\*\*[ \t]*"
                  r"(?P<tail>[(（][^)）\n]*[)）])?[ \t]*[:：]?[ \t]*$")
_PAPER = re.compile(r"\d{4}\.\d{4,5}")
_BRACKETS = re.compile(r"[（(][^（()）]*[)）]")
_LEAD_IN_TABLES = (("notes", "lead_in_labels"), ("markers", "note_labels"), ("markers", "phenomenon_label"),
                   ("markers", "risk_label"), ("markers", "advice_label"))


@dataclass(frozen=True)
class HeadingWords:
    """The words the note segmenter reads, compiled: the entry words of `[markers] entry_words` in
    marked lines (`marked`), in the lines worth looking at (`hints`) and in a heading's label
    (`label`, what `tasks.inbox.segment.split_label` splits off); the label words a lead-in is
    (`lead_in`: `[notes] lead_in_labels` and the labels of `[markers]`)."""

    marked: re.Pattern[str]
    lead_in: re.Pattern[str]
    hints: re.Pattern[str]
    label: re.Pattern[str]


@lru_cache(maxsize=8)
def _compiled(entry_words: tuple[str, ...], lead_in_words: tuple[str, ...]) -> HeadingWords:
    entry = word_alternation(entry_words)
    return HeadingWords(
        # "条目#3 C2C：…" needs no separator after its number: the "#" marks it a label already.
        marked=re.compile(rf"(?P<word>{entry})\s*(?:[#＃]\s*\d{{1,4}}[a-z]?\s*(?:[·:：—–|.\-]\s*)?"
                          rf"|(?:\d{{1,4}}[a-z]?|(?-i:[A-Z])(?![A-Za-z]))\s*[·:：—–|.\-]\s*)(?=\S)",
                          re.I),
        lead_in=re.compile(rf"(?:{word_alternation(lead_in_words)})\s*[:：]?\s*$", re.I),
        # Lines that may head an entry in some style: the only ones the rules above run on.
        hints=re.compile(rf"^(?: {{0,3}}\*\*|[一二三四五六七八九十（(]|\d|(?:{entry}))", re.M | re.I),
        # A heading's label: an entry word and number, "#4", "1.2", "1." / "1)" / "1、", "A.", or a
        # bracketed or Chinese numeral ("(4)", "（一）", "一、"); then its separators.
        label=re.compile(
            rf"\**(?:(?P<label>(?:{entry})\s*[#＃]?\s*(?:\d{{1,4}}[a-z]?|(?-i:[A-Z][A-Z0-9]{{0,2}}))"
            r"|[#＃]\d{1,4}[a-z]?|\d{1,3}(?:\.\d{1,3})+(?=\.?\s)|\d{1,3}(?=[.)、]|\s*[·:：])|(?-i:[A-Z](?:[A-Z]?\d{1,3})?)(?=[.)、]\s))(?!\w)"
            rf"|(?P<bracketed>[(（](?:\d{{1,3}}|{CN_NUMERAL})[)）]|{CN_NUMERAL}(?=、)))"
            r"\**[\s·:：.)、—–|-]*",
            re.I,
        ),
    )


def heading_words(j: Judgment | None = None) -> HeadingWords:
    """The segmenter's words of `j` (the ingest run's judgment; None: the packaged one, for tools
    and tests), compiled once per list."""
    j = j if j is not None else default_judgment()
    return _compiled(j.words("markers", "entry_words"), tuple(w for t, n in _LEAD_IN_TABLES for w in j.words(t, n)))


MAX_CHARS = 300  # a heading is short; a longer line is text (and never costs more than this)

Event = tuple[int, int, str, int]  # (line, level, heading text, lines it uses)


@dataclass(frozen=True)
class _Line:
    at: int
    text: str  # the heading text: the line, or what its bold holds (and a bracket after it)
    kind: str | None  # "chapter", "marked", "numbered", or None (plain bold)
    level: int
    bold: bool


def _hinted(body: str, hints: re.Pattern[str]) -> list[int]:
    out, ln, prev = [], 0, 0
    for m in hints.finditer(body):
        ln += body.count("\n", prev, m.start())
        prev = m.start()
        out.append(ln)
    return out


def _kind(text: str, bold: bool, levels: dict[str, int], marked: re.Pattern[str]) -> tuple[str, int] | None:
    """What a line's text heads as, with its level. `levels`: entry word -> its level, by first use
    (an entry word first used after another numbers entries inside the other's: 条目#1 › 信号 A);
    `marked`: `HeadingWords.marked`."""
    if CHAPTER.match(text) or (bold and LETTERED.match(text)):
        return "chapter", 2
    if SUB_CHAPTER.match(text):
        return "chapter", 3
    if m := marked.match(text):
        word = m.group("word").lower()
        return "marked", levels.setdefault(word, 3 + len(levels))
    if NUMBERED.match(text) or (bold and LETTERED_NUMBER.match(text)):
        return "numbered", 4
    if m := DOTTED.match(text):
        return "numbered", 4 + text[: m.end()].strip().rstrip(".").count(".")
    return None


def _lines(lines: list[str], body: str, code: list[bool], skip: range, headed: bool,
           words: HeadingWords) -> list[_Line]:
    out: list[_Line] = []
    levels: dict[str, int] = {}
    for i in _hinted(body, words.hints):
        line = lines[i]
        if code[i] or i in skip or len(line) > MAX_CHARS:
            continue
        m = BOLD.match(line)
        if m:
            text = m.group("text").strip() + (f" {m.group('tail')}" if m.group("tail") else "")
            name, level = _kind(text, True, levels, words.marked) or (None, 4)
            out.append(_Line(i, text, name, level, bold=True))
        elif (line[:1].strip() and (plain := _kind(line.strip(), False, levels, words.marked))
              and (not headed or plain[0] == "marked" or SUB_CHAPTER.match(line.strip()))):
            out.append(_Line(i, line.strip(), *plain, bold=False))
    return out


def _after_break(lines: list[str], hr: list[bool], i: int) -> bool:
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    return j >= 0 and hr[j]


def _closing(hr: list[bool], heads: set[int]) -> list[bool]:
    """Per line: whether it follows a `---` with no `#` heading since (a note's closing sections)."""
    out, after = [False] * len(hr), False
    for i, rule in enumerate(hr):
        after = (after or rule) and i not in heads
        out[i] = after
    return out


def pseudo_heads(lines: list[str], body: str, code: list[bool], hr: list[bool], skip: range,
                 heads: set[int], words: HeadingWords) -> list[Event]:
    """The entry headings of a note that are not `#` headings, ascending.
    `heads`: the lines of the note's `#` headings below its title; `words`: the run's (`heading_words`).
    - Marked lines: an entry word and a number or capital ("信号 A · …"), level 3, one deeper for
      each entry word first used after another (条目#1 › 信号 A).
    - Whole-line bold ("**Foo**", "**Foo:**", "**Foo** (arXiv:…)"), level 4; bold written around
      another form is that form.
    - Numbered lines at the margin ("1. Foo", "2) Bar", "(3) Baz", "1.2 Foo" one deeper), level 4,
      when they count up by one with text at the margin between them: headings whose bodies run to
      the next one, not a list (that is tasks.inbox.segment's `_items`). Bold lines that could
      head entries between them win: the numbers are then a list inside a bold entry.
    - A bold line that is only a label word or whose text the note repeats is a lead-in. When the
      note numbers its entries, an unnumbered bold line between two of them is a lead-in too,
      unless laid out like them (a blank line after it); one before or after them all heads a
      sibling section, and one right after a `---` always does.
    - With `#` headings: marked lines, 「（一）」 sub-chapter lines (a sub-heading by its shape, under
      a `## 二、…` chapter as in a note without them), and bold lines that name a paper, carry a
      number or stand after a `---` with no `#` heading since ("**明天计划**"), head entries at level 5."""
    found = _lines(lines, body, code, skip, bool(heads), words)
    if heads:
        closing = _closing(hr, heads) if any(x.bold for x in found) else []
        return [(x.at, 5, x.text, 1) for x in found if x.kind == "marked" or (x.kind == "chapter" and not x.bold)
                or (x.bold and (x.kind == "numbered" or _PAPER.search(x.text) or closing[x.at]))]
    uses: dict[str, int] = {}
    for x in found:
        if x.bold and x.kind is None:
            uses[x.text] = uses.get(x.text, 0) + 1
    # Plain bold lines that could head an entry: not a label word, not a text the note repeats.
    bold = [x for x in found if x.bold and x.kind is None and uses[x.text] == 1
            and not words.lead_in.match(_BRACKETS.sub("", x.text).strip())]
    events = [(x.at, x.level, x.text, 1) for x in found if x.kind in ("chapter", "marked") or (x.bold and x.kind)]
    counted = [x.at for x in found if x.kind == "marked" or (x.bold and x.kind == "numbered")]

    def clear(run: list[int]) -> bool:
        """No bold line that could head an entry stands between the run's first and last line: the
        run is the note's structure (else the bold lines are, and the run sits inside them)."""
        return not any(run[0] < x.at < run[-1] and not _after_break(lines, hr, x.at) for x in bold)

    if not counted:
        numbered = _numbered_heads(lines, [x for x in found if x.kind == "numbered" and not x.bold])
        if numbered and clear([e[0] for e in numbered]):
            events += numbered
            counted = [e[0] for e in numbered]
    if not counted:  # chapters with nothing bold between them are the entries themselves
        chapters = [x.at for x in found if x.kind == "chapter"]
        counted = chapters if chapters and clear(chapters) else []
    chosen = {x.at for x in bold}

    def spaced(i: int) -> bool:
        return i + 1 < len(lines) and not lines[i + 1].strip()

    # Headings written like the numbered ones (a blank line after each) are headings between them
    # too ("**口径问题（重要）**"); a lead-in is followed by its text ("**核心论点**\n- …").
    spaced_entries = bool(counted) and 2 * sum(map(spaced, counted)) > len(counted)
    # An unnumbered section before or after the numbered entries is their sibling, not a child.
    numbered_at = set(counted)
    sibling = min((level for at, level, _, _ in events if at in numbered_at), default=4)
    for x in found:
        if not x.bold or x.kind is not None:
            continue
        paper = bool(_PAPER.search(x.text))
        # In a note that numbers its entries (or whose chapters are its entries), an unnumbered bold
        # line between two of them is a lead-in of the entry it stands in; one before or after them
        # all heads a section beside them.
        inside = bool(counted) and counted[0] < x.at < counted[-1] and not (spaced_entries and spaced(x.at))
        if paper or _after_break(lines, hr, x.at) or (x.at in chosen and not inside):
            level = 5 if paper and counted else sibling if counted else x.level
            events.append((x.at, level, x.text, 1))
    return sorted(events)


def _numbered_heads(lines: list[str], numbered: list[_Line]) -> list[Event]:
    """Numbered margin lines as headings: a run counting up by one, with text at the margin between
    two of them (else they are a list, and its items end at their first unindented line)."""
    if len(numbered) < 2:
        return []
    numbers = [int(re.sub(r"\D.*", "", x.text.lstrip("(（"))) for x in numbered]  # NUMBERED: digits first
    if any(b != a + 1 for a, b in zip(numbers, numbers[1:], strict=False)):
        return []
    at = [x.at for x in numbered]
    between = any(lines[j][:1].strip() for a, b in zip(at, at[1:], strict=False) for j in range(a + 1, b))
    return [(x.at, x.level, x.text, 1) for x in numbered] if between else []
