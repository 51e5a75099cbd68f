"""A knowledge document as lines, for editing it in place (see tasks.merge.propose).

Lines keep their own endings (`\\n`, `\\r\\n` or `\\r`) and the first keeps a BOM, so joining them
gives back the exact bytes; new lines take the document's dominant ending. Headings, the header
line, tables and rules come from the document's one CommonMark parse, the same reading
`tasks.knowledge.parse` makes (`tasks.knowledge.layout`), each with its line index. `EntryStyle` is
how the document writes an entry, read from one it has.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache

from tasks.knowledge.header import DocumentWords, changelog_columns
from tasks.knowledge.layout import read_layout
from tasks.model.noon_merge import MergeIncrement

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$")
# A heading's trailing note ("（子节，2026-10-08 新开）") is not part of its name (tasks.judge.sections).
_TITLE_NOISE = re.compile(r"[（(][^（()）]*(?:子节|新开|并入|\d{4}-\d{2}-\d{2})[^（()）]*[)）]\s*$")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its own line ending; `"".join` gives `text` back."""
    return list(_lines(text))


# Every date's merge proposal split the same knowledge document twice (to scan it, to diff it);
# a backfill reads one version on many dates. Frozen here, a new list for each caller.
@lru_cache(maxsize=8)
def _lines(text: str) -> tuple[str, ...]:
    return tuple(_LINE.findall(text))


def body(line: str) -> str:
    """A line without its ending (and without a BOM)."""
    return line.rstrip("\r\n").lstrip("\ufeff")


def newline_of(lines: list[str]) -> str:
    """The document's dominant line ending (LF when it has none)."""
    endings = Counter(line[len(line.rstrip("\r\n")):] for line in lines)
    endings.pop("", None)
    return max(sorted(endings), key=lambda e: endings[e]) if endings else "\n"


def clean_title(title: str) -> str:
    return _TITLE_NOISE.sub("", title).strip()


@dataclass(frozen=True)
class Heading:
    index: int
    level: int
    text: str  # heading text without the hashes
    number: str  # "§1.1", or ""
    label: str  # as the briefing names sections: "§1.1 框架格局", "§1.1 框架格局 › 子节"
    references: bool
    used: int = 1  # lines it takes: 2 for an underlined (setext) heading


@dataclass(frozen=True)
class DocLines:
    lines: list[str]
    headings: list[Heading]
    header: int | None  # index of the `version · updated · citations` line
    tables: list[tuple[int, int]]  # (first, end) line indexes of each table outside code and quotes
    words: DocumentWords  # the run's `[knowledge]` words
    rules: tuple[bool, ...]  # per line: a thematic break
    items: dict[int, str]  # each list item's first line by index: its text after the marker

    def section_end(self, heading: Heading) -> int:
        """Index of the first line after `heading`'s own text (the next heading of any level, or the end)."""
        later = [h.index for h in self.headings if h.index > heading.index]
        return later[0] if later else len(self.lines)

    def last_content(self, start: int, end: int) -> int | None:
        """The last line in [start, end) that is neither blank nor a rule."""
        for i in range(end - 1, start - 1, -1):
            text = body(self.lines[i])
            if text.strip() and not self.rules[i]:
                return i
        return None

    def references(self) -> Heading | None:
        return next((h for h in self.headings if h.references), None)

    def changelog(self) -> tuple[int, int, dict[str, int | None]] | None:
        """(first, end, columns) of the change-log table."""
        for first, end in self.tables:
            cols = changelog_columns([body(line) for line in self.lines[first:end]], self.words)
            if cols is not None:
                return first, end, cols
        return None


def scan(text: str, words: DocumentWords) -> DocLines:
    lines = split_lines(text)
    layout = read_layout("\n".join(body(raw) for raw in lines))
    headings: list[Heading] = []
    stack: list[tuple[int, str, str]] = []  # level, number, title of the enclosing headings
    for h in layout.heads:
        stack = [s for s in stack if s[0] < h.level] + [(h.level, h.number, clean_title(h.title))]
        numbered = [k for k, s in enumerate(stack) if s[1]]
        start = numbered[-1] if numbered else len(stack) - 1
        label = " › ".join(f"{n} {t}".strip() for _, n, t in stack[start:])
        headings.append(Heading(h.line, h.level, h.text, h.number, label, bool(words.references.match(h.text)), h.used))
    return DocLines(lines, headings, layout.header, list(layout.tables), words, layout.doc.hr, layout.items)


@dataclass(frozen=True)
class EntryStyle:
    """How the document writes an entry: `- **Name**（arXiv:ID）：statement。[anchored D]`."""

    marker: str = "- "
    bold: bool = True
    open: str = "（"  # around the id; "" when the id follows the name bare
    close: str = "）"
    sep: str = "："
    stop: str = "。"  # what ends the statement before the anchor
    gap: str = ""  # between the statement and `[anchored D]`

    def entry(self, name: str, arxiv_id: str | None, statement: str, day: str) -> str:
        named = f"**{name}**" if self.bold else name
        cited = f"{self.open or ' '}arXiv:{arxiv_id}{self.close}" if arxiv_id else ""  # open: "（", " (" or ""
        if not statement:
            return f"{self.marker}{named}{cited} [anchored {day}]"
        end = "" if statement[-1:] in "。.!?！？" else self.stop
        return f"{self.marker}{named}{cited}{self.sep}{statement}{end}{self.gap}[anchored {day}]"


_STYLED = re.compile(r"^([-*+]\s+)(\*\*[^*]+\*\*|[^（(：:*]+?)(\s*)(?:([（(])arXiv:[^)）]+([)）]))?\s*([：:]\s?)")


def entry_style(lines: list[str], start: int, end: int) -> EntryStyle | None:
    """The style of the first top-level anchored entry in [start, end), else None; the brackets
    around an id from the first entry there that puts its id right after its name."""
    styles = [s for s in (_style(body(raw)) for raw in lines[start:end]) if s is not None]
    if not styles:
        return None
    cited = next((s for s in styles if s.open), None)
    return replace(styles[0], open=cited.open, close=cited.close) if cited else styles[0]


# Every briefing of a backfill proposes against the same document, reading the style of each of its
# lines (entry_style over the whole document is the fallback): a pure function of the line, and the
# style is frozen, so it is kept per line text.
@lru_cache(maxsize=8192)
def _style(line: str) -> EntryStyle | None:
    """The style of one top-level bullet marked `[anchored D]`, else None."""
    anchor = line.find("[anchored")
    m = _STYLED.match(line) if anchor >= 0 else None  # a top-level bullet: its marker starts the line
    if m is None:
        return None
    before = line[:anchor]
    stripped = before.rstrip()
    opened = m.group(4) or ""
    return EntryStyle(marker=m.group(1), bold=m.group(2).startswith("**"), open=m.group(3) + opened if opened else "",
                      close=m.group(5) or "", sep=m.group(6), stop=stripped[-1] if stripped[-1:] in "。." else "",
                      gap=before[len(stripped):])


_REF_STYLE = re.compile(r"^([-*+]\s+)(arXiv:)?\S+?(\s*[—–-]+\s*|\s*[:：]\s*)(.*?)(\s?)([(（])cited\s")


def reference_line(lines: list[str], start: int, end: int, arxiv_id: str | None, title: str, day: str) -> str:
    """A References entry in the style of the list's first one: `- arXiv:ID — Title（cited D）`."""
    for raw in lines[start:end]:
        m = _REF_STYLE.match(body(raw))
        if m:
            marker, prefix, dash, _, gap, paren = m.groups()
            close = "）" if paren == "（" else ")"
            head = f"{marker}{prefix or ''}{arxiv_id}{dash}" if arxiv_id else marker
            return f"{head}{title}{gap}{paren}cited {day}{close}"
    head = f"- arXiv:{arxiv_id} — " if arxiv_id else "- "
    return f"{head}{title} (cited {day})"


def already_merged(doc: DocLines, inc: MergeIncrement, body_dates: dict[str, dt.date | None],
             cited: dict[str, dt.date | None]) -> str | None:
    """Why the increment is merged already (an earlier proposal, or by hand), else None."""
    def when(day: dt.date | None) -> str:
        return f"already merged on {day.isoformat()}" if day else "already in the body (undated)"

    if inc.arxiv_id:
        if inc.arxiv_id in body_dates:
            return when(body_dates[inc.arxiv_id])
        if inc.into_references and inc.arxiv_id in cited:
            day = cited[inc.arxiv_id]
            return f"already cited on {day.isoformat()}" if day else "already in References"
        return None
    if inc.into_references:  # no id: a References line naming it by title
        for raw in doc.lines:
            found = re.search(r"cited\s+(\d{4}-\d{2}-\d{2})", body(raw))
            if found and inc.title.casefold() in body(raw).casefold():
                return f"already cited on {found.group(1)}"
        return None
    name = inc.title.casefold()
    refs = doc.references()
    for i, text in doc.items.items():
        in_refs = refs is not None and refs.index < i < doc.section_end(refs)
        named = _ENTRY_NAME.match(text)
        if not in_refs and named and (named.group(1) or named.group(2) or "").strip().casefold() == name:
            found = re.search(r"\[anchored\s+(\d{4}-\d{2}-\d{2})\]", text)
            return when(dt.date.fromisoformat(found.group(1)) if found else None)
    return None


# An entry's name (on its item's first line, after the marker): its bold text, else what comes
# before its id, statement or anchor.
_ENTRY_NAME = re.compile(r"^(?:\*\*([^*]+)\*\*|([^（(：:\[]+))")
