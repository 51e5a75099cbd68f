"""Split a free-form inbox note into entries and pull out what each entry claims.

Segmentation: every `##`–`####` heading (ATX or setext; `#` headings after the title too) starts an
entry. A heading with no text of its own whose next heading is deeper only names a section: it
becomes part of its children's `heading_path`. A thematic break (`---`) closes open sections, so a
summary after `---` is never filed under the entry above it. Text before the first heading is the
"preamble" entry when it has content, or one entry per item when it holds a numbered list. Notes
without headings fall back to pseudo-headings (`一、…`, `增量 1 · …`) and then to top-level list items.
Fenced code never starts anything. Never raises; linear time, so garbage in gives fewer entries.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field

from predigest.arxiv_ids import find_ids
from tasks.common.frontmatter import split_front_matter

PATH_SEP = " › "


@dataclass(frozen=True)
class MentionRef:
    """One arXiv reference inside an entry, with the text that decides its topic."""

    raw: str
    canonical: str | None
    version: int | None
    malformed: bool
    context: str  # the table row alone, or heading_path + "\n" + entry text without table rows


@dataclass
class Entry:
    """One headed, numbered or listed unit of a note."""

    ordinal: int
    label: str | None  # numbering as written ("条目#4", "增量 2", "1", "#3"), "preamble", or None
    heading: str | None  # own heading (a list item's first line), as written; None for preamble
    heading_path: str  # enclosing section headings, then its own heading, joined by " › "
    title: str | None  # heading without label, separators, votes and arXiv references
    text: str  # body without the heading line
    line: int  # 1-based line in the note where the entry starts
    key_points: list[str] = field(default_factory=list)
    numbers: list[dict[str, str]] = field(default_factory=list)
    hedges: list[dict[str, str]] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    mentions: list[MentionRef] = field(default_factory=list)


@dataclass
class ParsedNote:
    """A note's front matter, title and entries."""

    front_matter: dict[str, str]
    title: str | None
    entries: list[Entry]


@dataclass
class _Block:
    label: str | None
    heading: str | None
    path: str
    head: int  # line index of the heading, or of the first body line
    start: int
    end: int


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"( {0,12})(?:[-*+]|(\d{1,3})[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(?=\S)")
_FM_LINE = re.compile(r"\s*(?:#|-\s|[A-Za-z_][\w-]*\s*[:：])|\s+\S")
_PSEUDO = (
    (2, re.compile(r"[一二三四五六七八九十]{1,3}、\S")),
    (3, re.compile(r"(?:条目\s*[#＃]?\s*\d{1,4}[a-z]?|增量\s*\d{1,4})\s*[·:：—]\s*\S")),
)
_LABEL = re.compile(
    r"\**(?P<label>(?:条目|Entry|Item)\s*[#＃]?\s*\d{1,4}[a-z]?|增量\s*\d{1,4}|信号\s*[A-Z0-9]{1,3}"
    r"|[#＃]\d{1,4}[a-z]?|\d{1,3}(?:\.\d{1,3})+(?=\.?\s)|\d{1,3}(?=[.)、]|\s*[·:：])|[A-Z](?=[.)、]\s))"
    r"(?!\w)\**[\s·:：.)、—–|-]*"
)
_VOTE = re.compile(r"[▲★]\s?\d[\d,]*\s*[·:：—–|-]*\s*")
_PARENS = re.compile(r"[（(]([^（()）\n]{0,300})[)）]")
_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?[kKM]?"
# Only numbers that carry a unit count; the lookbehind keeps v1.5.0, §1.1, H100, 2610.04646 out.
_NUMBER = re.compile(
    rf"(?<![A-Za-z0-9_.§/#\\])(?P<value>▲\s?\d[\d,]*|(?:[~≈<>≤≥±+\-−]|约)?\s?{_NUM}(?:\s?[–—~]\s?{_NUM}|-{_NUM})?\+?"
    r"(?:\s?(?P<word>tokens/s|tok/s|req/s|GB/s|TB/s|TFLOPS|TPS|QPS|ms|GB|MB|KB|TB|s)(?![A-Za-z0-9])"
    r"|(?P<sym>[×x](?![A-Za-z0-9])|[%％★▲])))"
)
_HEDGE_MARKERS = ("待核实", "待验证", "存疑", "未经验证", "未经", "需要核实", "需核实", "待确认", "不能直接信",
                  "unverified", "needs verification", "to be verified", "unconfirmed", "TBD-verify")
_HEDGE = re.compile("|".join(sorted(map(re.escape, _HEDGE_MARKERS), key=len, reverse=True)), re.IGNORECASE)
_HEDGE_CANON = {m.lower(): m for m in _HEDGE_MARKERS}
_URL = re.compile(r"https?://[^\s<>()（）\[\]{}\"'`，。；、|*]+")
_SENTENCE_END = "。！？!?；;"
_CLAUSE_BREAK = re.compile(r"[。！？!?；;，]|, ")


def _is_hr(line: str) -> bool:
    s = line.replace(" ", "").replace("\t", "")
    return len(s) >= 3 and s[0] in "-*_" and s == s[0] * len(s)


def _is_table(line: str) -> bool:
    return line.lstrip().startswith("|")


def _plain(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("**", "").replace("__", "").replace("`", "")).strip()


def _atx(line: str) -> tuple[int, str] | None:
    s = line.lstrip(" ")
    if len(line) - len(s) > 3 or not s.startswith("#"):
        return None
    level = len(s) - len(s.lstrip("#"))
    rest = s[level:]
    if level > 6 or (rest and rest[0] not in " \t"):
        return None  # "#3 foo" and "#hashtag" are text
    text = rest.strip()
    closed = text.rstrip("#")
    if closed != text and (not closed or closed[-1] in " \t"):
        text = closed.rstrip()
    return level, text


def _scan(lines: list[str]) -> tuple[list[bool], list[bool], dict[int, tuple[int, str, int]]]:
    """Mark code lines and thematic breaks; find headings as {line: (level, text, lines used)}."""
    code, hr = [False] * len(lines), [False] * len(lines)
    heads: dict[int, tuple[int, str, int]] = {}
    fence, i = "", 0
    while i < len(lines):
        line = lines[i]
        if fence:
            code[i] = True
            if line.strip().startswith(fence) and not line.strip().lstrip(fence[0]):
                fence = ""
        elif m := _FENCE.match(line):
            code[i], fence = True, m.group(1)
        elif atx := _atx(line):
            heads[i] = (atx[0], atx[1], 1)
        else:
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            # Setext only for a one-line paragraph; "text\n---" right after other text stays a break.
            if (len(nxt) >= 2 and nxt == nxt[0] * len(nxt) and nxt[0] in "=-" and line.strip()
                    and not _is_table(line) and not line.lstrip().startswith((">", "- ", "* ", "+ "))
                    and (i == 0 or not lines[i - 1].strip() or i - 1 in heads or hr[i - 1])):
                heads[i] = (1 if nxt[0] == "=" else 2, line.strip(), 2)
                i += 2
                continue
            hr[i] = _is_hr(line)
        i += 1
    return code, hr, heads


def _split_label(heading: str) -> tuple[str | None, str]:
    m = _LABEL.match(heading)
    return (m.group("label"), heading[m.end():]) if m else (None, heading)


def _title(rest: str) -> str | None:
    t = _plain(rest[:2000])  # a longer "heading" is garbage; bound the work
    t = _VOTE.sub("", t, count=1) if t.startswith(("▲", "★")) else t
    pieces, pos = [], 0
    for m in _PARENS.finditer(t):  # drop "（arXiv:…）" and "(https://arxiv.org/abs/…)" references
        ids, inner = find_ids(m.group(1)), m.group(1)
        left = "".join(inner[a.end : b.start] for a, b in zip(ids, ids[1:], strict=False))
        if ids and not re.sub(r"[\s,，;；/、:：]", "", inner[: ids[0].start] + left + inner[ids[-1].end :]):
            pieces.append(t[pos : m.start()] + " ")
            pos = m.end()
    t = ("".join(pieces) + t[pos:]).strip()
    ids = find_ids(t)
    if ids and ids[-1].end >= len(t) and re.search(r"[\s—–\-·:：,，|]$", t[: ids[-1].start] or " "):
        t = t[: ids[-1].start]  # "SlimWise … — arXiv:2607.09701"
    elif ids and ids[0].start == 0 and re.match(r"[\s—–\-·:：,，|]", t[ids[0].end :]):
        t = t[ids[0].end :]  # "arXiv:2610.04631 The Numerical Linear Algebra of LLMs"
    return re.sub(r"\s+", " ", t).strip(" ·:：—–-|,，") or None


def _front_matter(text: str) -> tuple[dict[str, str], int, str]:
    head = text[:20000].split("\n")[:200]
    first = next((k for k, line in enumerate(head) if line.strip()), None)
    if first is None or head[first].strip() != "---":
        return {}, 0, text
    close = next((k for k in range(first + 1, len(head)) if head[k].strip() in ("---", "...")), None)
    inner = [line for line in head[first + 1 : close] if line.strip()] if close else []
    # Only a block of `key: value` lines is front matter; anything else is a leading `---` rule.
    if not inner or close is None or not all(_FM_LINE.match(line) for line in inner):
        return {}, 0, text
    fields, body = split_front_matter(text)
    flat = {k: ", ".join(v) if isinstance(v, list) else v for k, v in fields.items()}
    return flat, close + 1, body


def _items(lines: list[str], code: list[bool], a: int, b: int, numbered: bool) -> list[_Block] | None:
    """One block per top-level list item in lines[a:b], plus preamble and text between lists."""
    starts: list[tuple[int, re.Match[str]]] = []
    for j in range(a, b):
        m = None if code[j] or _is_hr(lines[j]) else _ITEM.match(lines[j])
        if m and len(m.group(1)) <= 1 and (m.group(2) or not numbered):
            starts.append((j, m))
    if not starts or (numbered and len(starts) < 2):
        return None
    blocks = [_Block("preamble", None, "", a, a, starts[0][0])]
    for k, (s, m) in enumerate(starts):
        n = starts[k + 1][0] if k + 1 < len(starts) else b
        # A blank line then unindented text ends the list; that text stands alone.
        end = next((j for j in range(s + 1, n) if lines[j][:1].strip() and not lines[j - 1].strip()), n)
        heading = lines[s][m.end():].strip()
        blocks.append(_Block(m.group(2) or _split_label(heading)[0], heading, heading, s, s + 1, end))
        if end < n:
            blocks.append(_Block(None, None, "", end, end, n))
    return blocks


def _segment(lines: list[str], code: list[bool], hr: list[bool], heads: dict[int, tuple[int, str, int]],
             skip: set[int]) -> list[_Block]:
    events = [(i, lv, t, used) for i, (lv, t, used) in heads.items() if i not in skip and lv <= 4]
    if not events:
        events = [(i, lv, line.strip(), 1) for i, line in enumerate(lines) if not code[i] and line[:1].strip()
                  for lv, pat in _PSEUDO if pat.match(line)]
    first = events[0][0] if events else len(lines)
    blocks = _items(lines, code, 0, first, numbered=bool(events))
    blocks = blocks or [_Block("preamble", None, "", 0, 0, first)]
    stack: list[tuple[int, str]] = []
    for k, (i, level, heading, used) in enumerate(events):
        end = events[k + 1][0] if k + 1 < len(events) else len(lines)
        while stack and stack[-1][0] >= level:
            stack.pop()
        path = PATH_SEP.join([h for _, h in stack] + [heading])
        stack.append((level, heading))
        broken = any(hr[i + used : end])
        content = any(lines[j].strip() and not hr[j] and j not in skip for j in range(i + used, end))
        if broken:
            stack.clear()  # `---` closes every open section
        if not content and not broken and k + 1 < len(events) and events[k + 1][1] > level:
            continue  # a section name: it lives on in its children's heading_path
        blocks.append(_Block(_split_label(heading)[0], heading, path, i, i + used, end))
    return blocks


def _row(line: str) -> str:
    return " | ".join(_plain(c) for c in line.strip().strip("|").split("|"))


def _numbers(line: str, out: list[dict[str, str]], seen: set[tuple[str, str]]) -> None:
    found = list(_NUMBER.finditer(line))
    if not found:
        return
    ids, k = find_ids(line), 0
    item = _ITEM.match(line)
    # Clause breaks, found once per line so each number's clause is a pair of bisects.
    breaks = [(b.start(), b.end()) for b in _CLAUSE_BREAK.finditer(line)]
    table = _is_table(line)
    for m in found:
        while k < len(ids) and ids[k].end <= m.start():
            k += 1  # both lists are in text order: walk them together
        if k < len(ids) and ids[k].start < m.end():
            continue  # part of an arXiv id
        value = m.group("value").strip()
        unit = m.group("word") or m.group("sym") or "▲"
        unit = {"x": "×", "％": "%"}.get(unit, unit)
        if table:  # the row, or for a giant row the cells around the number
            context = _row(line if len(line) <= 300 else line[max(0, m.start() - 150) : m.end() + 150])
        else:
            b = bisect.bisect_right(breaks, (m.start(), len(line)))
            lo = max(breaks[b - 1][1] if b else 0, item.end() if item else 0, m.start() - 120)
            b = bisect.bisect_left(breaks, (m.end(), -1))
            hi = min(breaks[b][0] if b < len(breaks) else len(line), m.end() + 120)
            context = _plain(line[lo:hi]).lstrip("-*+> ")
        if len(context) > 80:  # keep the number in view
            cut = max(0, min(context.find(value) - (80 - len(value)) // 2, len(context) - 80))
            context = context[cut : cut + 80].strip()
        if (value, context) not in seen:
            seen.add((value, context))
            out.append({"value": value, "unit": unit, "context": context})


def _content(line: str) -> str:
    m = _ITEM.match(line)
    return _plain(line[m.end():] if m else line.strip().lstrip(">").strip())


def _hedges(rows: list[tuple[str, bool]]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for t, (line, is_code) in enumerate(rows):
        markers: list[str] = []
        for m in [] if is_code else _HEDGE.finditer(line):
            marker = _HEDGE_CANON[m.group(0).lower()]
            if marker not in markers:
                markers.append(marker)
        for marker in markers:
            if _is_table(line):
                text = _row(line)
            else:
                text = _content(line)
                if not _ITEM.match(line):  # prose: just the sentence holding the marker
                    at = text.lower().find(marker.lower())
                    lo = max((text.rfind(c, 0, at) for c in _SENTENCE_END), default=-1) + 1
                    ends = [k for k in (text.find(c, at) for c in _SENTENCE_END) if k >= 0]
                    text = text[lo : min(ends) + 1 if ends else len(text)].strip()
                if not re.sub(r"[\W_]", "", _HEDGE.sub("", text)):
                    # "**待核实**" alone heads the lines that follow: those are what is hedged
                    block: list[str] = []
                    for x, _ in rows[t + 1 : t + 9]:  # up to a blank line or the next hedged line
                        if not x.strip() or _HEDGE.search(x):
                            break
                        block.append(_content(x))
                    text = (text + " " + " ".join(block)).strip() if block else text
            out.append({"marker": marker, "text": text[:400]})
    return out


def _key_points(rows: list[tuple[str, bool]]) -> list[str]:
    items = [(t, m) for t, (line, is_code) in enumerate(rows) if not is_code and (m := _ITEM.match(line))]
    if not items:
        return []
    top = min(len(m.group(1)) for _, m in items)
    points: list[str] = []
    for t, m in items:
        if len(m.group(1)) > top + 1:
            continue
        parts = [rows[t][0][m.end():]]
        for line, is_code in rows[t + 1 : t + 50]:  # wrapped continuation lines of the same bullet
            if is_code or not line.strip() or _ITEM.match(line) or len(line) - len(line.lstrip()) <= top:
                break
            parts.append(line)
        point = _plain(" ".join(parts))
        if point:
            points.append(point)
    return points


def _entry(ordinal: int, block: _Block, lines: list[str], code: list[bool], skip: set[int], offset: int) -> Entry:
    body = [j for j in range(block.start, block.end) if j not in skip]
    lo, hi = 0, len(body)
    while lo < hi and (not lines[body[lo]].strip() or _is_hr(lines[body[lo]])):
        lo += 1
    while hi > lo and (not lines[body[hi - 1]].strip() or _is_hr(lines[body[hi - 1]])):
        hi -= 1
    body = body[lo:hi]
    text = "\n".join(lines[j] for j in body)
    rows = ([(block.heading, False)] if block.heading else []) + [(lines[j], code[j]) for j in body]
    numbers: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for line, is_code in rows:
        if not is_code:
            _numbers(line, numbers, seen)
    links = list(dict.fromkeys(m.group(0).rstrip(".,;:!?") for line, _ in rows for m in _URL.finditer(line)))
    scanned = f"{block.heading}\n{text}" if block.heading else text
    starts = [0, *itertools.accumulate(len(x) + 1 for x, _ in rows)][: len(rows)] if rows else [0]
    untabled = "\n".join(x for x in text.split("\n") if not _is_table(x))
    shared = f"{block.path}\n{untabled}" if block.path else untabled
    mentions = []
    for m in find_ids(scanned):
        k = bisect.bisect_right(starts, m.start) - 1
        row = scanned[starts[k] : starts[k + 1] - 1 if k + 1 < len(starts) else len(scanned)]
        context = row.strip() if _is_table(row) else shared
        mentions.append(MentionRef(m.raw, m.canonical, m.version, m.malformed, context))
    label, rest = _split_label(block.heading or "")
    return Entry(
        ordinal=ordinal, label=block.label, heading=block.heading, heading_path=block.path,
        title=_title(rest) if block.heading else None, text=text,
        line=offset + 1 + (block.head if block.heading or not body else body[0]),
        key_points=_key_points(rows[1:] if block.heading else rows), numbers=numbers,
        hedges=_hedges(rows), links=links, mentions=mentions,
    )


def _parse(text: str) -> ParsedNote:
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    front, offset, body = _front_matter(text)
    lines = body.split("\n")
    code, hr, heads = _scan(lines)
    title_at = next((i for i, (level, _, _) in heads.items() if level == 1), None)
    skip = set() if title_at is None else set(range(title_at, title_at + heads[title_at][2]))
    blocks = _segment(lines, code, hr, heads, skip)
    entries: list[Entry] = []
    for block in blocks:
        has_text = any(lines[j].strip() and not _is_hr(lines[j]) for j in range(block.start, block.end) if j not in skip)
        if block.heading is None and not has_text:
            continue  # an empty preamble or gap is not an entry
        entries.append(_entry(len(entries), block, lines, code, skip, offset))
    title = heads[title_at][1] if title_at is not None else None
    return ParsedNote(front_matter=front, title=title or None, entries=entries)


def parse_note(text: str) -> ParsedNote:
    """Parse a note's text (any line endings) into front matter, title and entries; never raises."""
    try:
        return _parse(text)
    except Exception:  # noqa: BLE001 - a note must never stop a run; keep its ids rather than nothing
        try:
            mentions = [MentionRef(m.raw, m.canonical, m.version, m.malformed, text) for m in find_ids(text)]
            return ParsedNote({}, None, [Entry(0, "preamble", None, "", None, text, 1, mentions=mentions)])
        except Exception:  # noqa: BLE001
            return ParsedNote({}, None, [])
