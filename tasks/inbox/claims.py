"""What an entry claims besides its numbers: its cleaned title, hedges and links (its points are
its outline's, tasks.inbox.outline_reader).

An entry is its rows (its heading, then its body lines) and `scanned`, the rows joined by "\\n". The
regexes here run once over `scanned` (or the body) rather than once per row; none of their matches
can span a "\\n", so each lies within its row. Several are spelled to start with a literal or a
character class, which lets the regex engine skip to candidates instead of trying every position;
tests/inbox/test_claims.py checks each against the plain rule it stands for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tasks.common.arxiv_ids import find_id_spans
from tasks.common.sentences import sentence_at, unwrap
from tasks.config.judgment import Judgment, default_judgment
from tasks.inbox.document import ListItem
from tasks.inbox.segment import ITEM, is_table

_VOTE = re.compile(r"[▲★]\s?\d[\d,]*\s*[·:：—–|-]*\s*")
_PARENS = re.compile(r"[（(]([^（()）\n]{0,300})[)）]")
_PAREN_FILLER = re.compile(r"[\s,，;；/、:：]")
_TRAILING_SEP = re.compile(r"[\s—–\-·:：,，|]$")
_LEADING_SEP = re.compile(r"[\s—–\-·:：,，|]")


def _any_case(c: str) -> str:
    """A class of what `c` matches under re.IGNORECASE (checked for every code point in the tests)."""
    if not c.isascii() or not c.isalpha():
        return re.escape(c)
    return "[" + c.lower() + c.upper() + {"i": "İı", "k": "K", "s": "ſ"}.get(c.lower(), "") + "]"


@dataclass(frozen=True)
class HedgeMarkers:
    """The hedge markers the note parser reads (judgment.toml `[markers] hedge` and `hedge_parser`), compiled.

    `pattern` finds them longest first. `scan` finds the same spans, spelled so the engine can skip
    to candidate characters: the class of every marker's first character, then the markers in
    `pattern`'s order, each checking that first character by lookbehind, in each case
    re.IGNORECASE accepts (i also matches İ and ı, s also ſ). Only text `scan` hits is read further."""

    markers: tuple[str, ...]
    pattern: re.Pattern[str]
    scan: re.Pattern[str]
    canon: dict[str, str]  # lower-cased marker -> the marker as listed

    def canonical(self, found: str) -> str:
        """The marker as listed, for text `pattern` matched; İ/ſ spellings do not lower() onto it, so search."""
        marker = self.canon.get(found.lower())
        if marker is None:
            marker = next(m for m in self.markers if re.fullmatch(re.escape(m), found, re.IGNORECASE))
        return marker


@lru_cache(maxsize=8)
def hedge_markers(words: tuple[str, ...]) -> HedgeMarkers:
    order = tuple(sorted(dict.fromkeys(words), key=lambda m: len(re.escape(m)), reverse=True))
    scan = re.compile(
        "[" + "".join(dict.fromkeys("".join(_any_case(m[0]).strip("[]") for m in order))) + "](?:"
        + "|".join(f"(?<={_any_case(m[0])})" + "".join(map(_any_case, m[1:])) for m in order) + ")"
    )
    pattern = re.compile("|".join(sorted(map(re.escape, dict.fromkeys(words)), key=len, reverse=True)), re.IGNORECASE)
    return HedgeMarkers(order, pattern, scan, {m.lower(): m for m in dict.fromkeys(words)})


def note_hedges(j: Judgment | None = None) -> HedgeMarkers:
    """The hedge markers of `j` (the ingest run's judgment; None: the packaged one), compiled once per list."""
    j = j if j is not None else default_judgment()
    return hedge_markers(j.words("markers", "hedge") + j.words("markers", "hedge_parser"))


_NON_WORD = re.compile(r"[\W_]")
URL = re.compile(r"https?://[^\s<>()（）\[\]{}\"'`，。；、|*]+")


def plain(s: str) -> str:
    # Same as re.sub(r"\s+", " ", …).strip(): str.split() and \s agree on what is whitespace.
    return " ".join(s.replace("**", "").replace("__", "").replace("`", "").split())


def table_row(line: str) -> str:
    """A table row as its cells, each plain, joined by " | "."""
    return " | ".join(plain(c) for c in line.strip().strip("|").split("|"))


def title(rest: str) -> str | None:
    t = plain(rest[:2000])  # a longer "heading" is garbage; bound the work
    t = _VOTE.sub("", t, count=1) if t.startswith(("▲", "★")) else t
    pieces, pos = [], 0
    # Drop "（arXiv:…）" and "(https://arxiv.org/abs/…)" references. (Spans: raw, canonical, version, start, end.)
    for m in _PARENS.finditer(t) if "(" in t or "（" in t else ():
        inner = m.group(1)
        ids = find_id_spans(inner)[0]
        left = "".join(inner[a[4] : b[3]] for a, b in zip(ids, ids[1:], strict=False)) if len(ids) > 1 else ""
        if ids and not _PAREN_FILLER.sub("", inner[: ids[0][3]] + left + inner[ids[-1][4] :]):
            pieces.append(t[pos : m.start()] + " ")
            pos = m.end()
    t = ("".join(pieces) + t[pos:]).strip() if pieces else t.strip()
    ids = find_id_spans(t)[0]
    if ids and ids[-1][4] >= len(t) and _TRAILING_SEP.search(t[: ids[-1][3]] or " "):
        t = t[: ids[-1][3]]  # "SlimWise … — arXiv:2607.09701"
    elif ids and ids[0][3] == 0 and _LEADING_SEP.match(t[ids[0][4] :]):
        t = t[ids[0][4] :]  # "arXiv:2610.04631 The Numerical Linear Algebra of LLMs"
    return " ".join(t.split()).strip(" ·:：—–-|,，") or None


def links(scanned: str) -> list[str]:
    return list(dict.fromkeys(m.group(0).rstrip(".,;:!?") for m in URL.finditer(scanned)))


def _content(line: str) -> str:
    m = ITEM.match(line)
    return plain(line[m.end():] if m else line.strip().lstrip(">").strip())


def hedges(scanned: str, rows: list[str], code: list[bool], words: HedgeMarkers,
           items: Sequence[ListItem] = (), first_line: int = 0) -> list[dict[str, Any]]:
    """Hedge markers (`words`) in the non-code rows, each with the sentence, item or row it hedges
    and its `line` (its row's index less `first_line`: a line of the entry's text; -1 for the
    heading). `items`: the entry's list items (the document's, in lines of its text), so a claim is
    the whole item, its continuation lines too, and never another item's."""
    out: list[dict[str, Any]] = []
    marked: list[tuple[int, list[str]]] = []  # (row, its markers in order), rows ascending
    row = prev = 0
    for m in words.scan.finditer(scanned):
        row += scanned.count("\n", prev, m.start())
        prev = m.start()
        if code[row]:
            continue
        marker = words.canonical(m.group(0))
        if not marked or marked[-1][0] != row:
            marked.append((row, []))
        if marker not in marked[-1][1]:
            marked[-1][1].append(marker)
    # For each row that starts a list item, the row after its own lines (made only for a hedged entry).
    own_ends = {i.start + first_line: i.own_end + first_line for i in items} if marked else {}
    for t, markers in marked:
        line = rows[t]
        for marker in markers:
            if is_table(line):
                text = table_row(line)
            else:
                end = own_ends.get(t, t + 1)
                text = unwrap("\n".join(_content(x) for x in rows[t:end] if x.strip())) if end > t + 1 else _content(line)
                if not ITEM.match(line):  # prose: just the (whole) sentence holding the marker
                    text = sentence_at(text, text.lower().find(marker.lower()))
                # A hedging heading over a list puts each item in doubt on its own (tasks.verify.hedged):
                # its items are never joined into one claim.
                over_items = t < first_line and first_line in own_ends
                if not over_items and not _NON_WORD.sub("", words.pattern.sub("", text)):
                    # "**待核实**" alone heads the lines that follow: those are what is hedged
                    block: list[str] = []
                    for x in rows[t + 1 : t + 9]:  # up to a blank line or the next hedged line
                        if not x.strip() or words.pattern.search(x):
                            break
                        block.append(_content(x))
                    text = (text + " " + " ".join(block)).strip() if block else text
            out.append({"marker": marker, "text": text[:400], "line": t - first_line})
    return out
