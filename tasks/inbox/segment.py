"""Structure of a note: code fences, thematic breaks, headings, front matter, and the blocks entries come from.

Rules are described in tasks.inbox.notes. Speed matters here (every line of every note passes
through): a regex over the whole body finds the few lines that can be anything but plain text, and
only those run the per-line rules; every other line is plain text by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tasks.common.frontmatter import split_front_matter
from tasks.inbox.headings import HeadingWords, pseudo_heads

PATH_SEP = " › "


@dataclass
class Block:
    label: str | None
    heading: str | None
    path: str
    head: int  # line index of the heading, or of the first body line
    start: int
    end: int
    rest: str | None = None  # the heading without its label (split_label); None for a block without one


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
ITEM = re.compile(r"( {0,12})(?:[-*+]|(\d{1,3})[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(?=\S)")
# A line led by a lettered, hashed, bracketed or 、-numbered label: "R1 …", "**C12**：…", "#4 …", "(4) …",
# "（4）…", "[4] …", "4、…". Such lines start entries only as a run (see sequence_starts).
_SEQ = re.compile(
    r" {0,3}(?:[-*+][ \t]+)?(?:\*\*)?(?P<label>(?P<prefix>[A-Za-z]{1,3}|[#＃]|[(（\[]|)(?P<n>\d{1,3})(?P<close>[)）\]]?))"
    r"(?:\*\*)?(?P<sep>[ \t]*(?:[.)、:：·—–|-][ \t]*)*)(?=\S)"
)
_FM_LINE = re.compile(r"\s*(?:#|-\s|[A-Za-z_][\w-]*\s*[:：])|\s+\S")
# Lines that may be more than plain text: an ATX heading or fence opener (<= 3 spaces, then `#`, ``` or
# ~~~), a fence closer or setext underline (only ` ~ = or - between whitespace), a thematic break
# (3+ of one of - * _ between spaces/tabs, exactly what is_hr accepts). `[^\S\n]` is \s within a
# line. _HINTS finds them after a "\n" (a literal first character lets the engine jump from line to
# line), _HINT on the first line.
_LINE_HINT = (r"(?: {0,3}(?:#|```|~~~)|[^\S\n]*(?:`{3,}|~{3,}|={2,}|-{2,})[^\S\n]*$"
              r"|[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$)")
_HINT = re.compile(_LINE_HINT, re.M)
_HR_CHARS = frozenset("-*_")
_HINTS = re.compile("\n" + _LINE_HINT, re.M)


def is_hr(line: str) -> bool:
    """A thematic break: three or more of one of - * _, and nothing else but spaces and tabs."""
    if line.lstrip(" \t")[:1] not in _HR_CHARS:  # cheap no for almost every line
        return False
    s = line.replace(" ", "").replace("\t", "")
    return len(s) >= 3 and s[0] in "-*_" and s == s[0] * len(s)


def is_table(line: str) -> bool:
    return line.lstrip().startswith("|")


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


def _line_numbers(body: str, first: re.Pattern[str], rest: re.Pattern[str]) -> list[int]:
    """Indices of the lines of `body` that `first` matches (line 0) or `rest` does after their "\\n"."""
    out = [0] if first.match(body) else []
    ln, prev = 0, 0
    for m in rest.finditer(body):
        ln += body.count("\n", prev, m.start()) + 1
        prev = m.start() + 1
        out.append(ln)
    return out


def scan(lines: list[str], body: str) -> tuple[list[bool], list[bool], dict[int, tuple[int, str, int]]]:
    """Mark code lines and thematic breaks; find headings as {line: (level, text, lines used)}.

    `body` is "\\n".join(lines). Only hinted lines and the line above each one (a setext heading's
    text) run the rules; any other line is not a fence, heading, underline or break, and inside a
    fence it cannot close it, so it is just text (or code).
    """
    code, hr = [False] * len(lines), [False] * len(lines)
    heads: dict[int, tuple[int, str, int]] = {}
    hinted = _line_numbers(body, _HINT, _HINTS)
    candidates = sorted({*hinted, *(i - 1 for i in hinted if i)})
    fence, resume, last = "", 0, -1  # resume: first line not consumed by a setext underline
    for i in candidates:
        if i < resume:
            continue
        line = lines[i]
        if fence:
            code[last + 1 : i + 1] = [True] * (i - last)  # the lines since the last candidate are code
            last = i
            if line.strip().startswith(fence) and not line.strip().lstrip(fence[0]):
                fence = ""
        elif m := _FENCE.match(line):
            code[i], fence, last = True, m.group(1), i
        elif atx := _atx(line):
            heads[i] = (atx[0], atx[1], 1)
        else:
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            # Setext only for a one-line paragraph; "text\n---" right after other text stays a break.
            if (len(nxt) >= 2 and nxt == nxt[0] * len(nxt) and nxt[0] in "=-" and line.strip()
                    and not is_table(line) and not line.lstrip().startswith((">", "- ", "* ", "+ "))
                    and (i == 0 or not lines[i - 1].strip() or i - 1 in heads or hr[i - 1])):
                heads[i] = (1 if nxt[0] == "=" else 2, line.strip(), 2)
                resume = i + 2
                continue
            hr[i] = is_hr(line)
    if fence:  # an unclosed fence runs to the end
        code[last + 1 :] = [True] * (len(lines) - last - 1)
    return code, hr, heads


def label_match(line: str) -> re.Match[str] | None:
    """The label a line opens with ("R1 ", "**C3**：", "(4) ", "4、"), if it can open a labelled run."""
    m = _SEQ.match(line)
    if m is None or (m.group("prefix") in ("(", "（", "[")) != bool(m.group("close")):
        return None
    if not m.group("prefix") and "、" not in m.group("sep"):
        return None  # "1." and "1)" are list items; a bare "12 GB …" is text
    if not m.group("sep") and not m.group("close"):
        return None  # "R1x", "#4th": a word, not a label
    return m


def sequence_starts(lines: list[str], code: list[bool] | None = None) -> dict[int, tuple[str, int]]:
    """Lines that open entries of a labelled run, as {line: (label, where its text starts)}.

    A run is two or more lines with the same label style ("R", "#", "(", "、") whose numbers go up by
    one or two each time (three or more when the first number is past 2): "R1 … R2 … R3 …" is a
    digest's list, "H100 …" then "H200 …" is not.
    """
    runs: dict[str, list[tuple[int, int, re.Match[str]]]] = {}
    for i, line in enumerate(lines):
        if code is not None and code[i]:
            continue
        m = label_match(line) if line[:1] in " -*+#＃(（[" or line[:1].isalnum() else None
        if m is not None:
            style = m.group("prefix") + ("、" if "、" in m.group("sep") and not m.group("prefix") else "")
            runs.setdefault(style, []).append((i, int(m.group("n")), m))
    out: dict[int, tuple[str, int]] = {}
    for found in runs.values():
        run: list[tuple[int, int, re.Match[str]]] = []
        for item in [*found, None]:
            if item is not None and run and 0 < item[1] - run[-1][1] <= 2:
                run.append(item)
                continue
            if run and len(run) >= (2 if run[0][1] <= 2 else 3):
                out.update({i: (m.group("label"), m.end()) for i, _, m in run})
            run = [item] if item is not None else []
    return out


def split_label(heading: str, words: HeadingWords) -> tuple[str | None, str]:
    """A heading's label ("条目#1", "1", "（一）"; `HeadingWords.label`) and the rest of it. Labels
    stacked before the name ("（三）条目#3 C2C") all go; the innermost, which numbers the entry, is its label."""
    m = words.label.match(heading)
    if not m:
        return None, heading
    label, rest = m.group("label") or m.group("bracketed"), heading[m.end():]
    while (inner := words.label.match(rest)) and inner.end() > 0:
        label, rest = inner.group("label") or inner.group("bracketed"), rest[inner.end():]
    return label, rest


def front_matter(text: str) -> tuple[dict[str, str], int, str]:
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


def _items(lines: list[str], code: list[bool], a: int, b: int, numbered: bool,
           words: HeadingWords) -> list[Block] | None:
    """One block per top-level list item in lines[a:b], plus preamble and text between lists."""
    labelled = sequence_starts(lines[a:b], code[a:b])
    starts: list[tuple[int, int, str | None]] = []  # (line, where its text starts, its label)
    for j in range(a, b):
        if j - a in labelled:
            starts.append((j, labelled[j - a][1], labelled[j - a][0]))
            continue
        m = None if code[j] or is_hr(lines[j]) else ITEM.match(lines[j])
        if m and len(m.group(1)) <= 1 and (m.group(2) or not numbered):
            starts.append((j, m.end(), m.group(2)))
    if not starts or (numbered and len(starts) < 2):
        return None
    blocks = [Block("preamble", None, "", a, a, starts[0][0])]
    for k, (s, at, number) in enumerate(starts):
        n = starts[k + 1][0] if k + 1 < len(starts) else b
        # A blank line then unindented text ends the list; that text stands alone.
        end = next((j for j in range(s + 1, n) if lines[j][:1].strip() and not lines[j - 1].strip()), n)
        if s - a in labelled:
            heading, label, rest = lines[s].strip(), number, lines[s][at:].strip()
        else:
            heading = lines[s][at:].strip()
            own, rest = split_label(heading, words)
            label = number or own
        blocks.append(Block(label, heading, heading, s, s + 1, end, rest))
        if end < n:
            blocks.append(Block(None, None, "", end, end, n))
    return blocks


# A heading led by a lettered number and a separator ("Hand-off H1 - Orthros", "C2: Forms", "Carry-over
# C1 - …"): a label when its siblings of the note share its word and letter (lettered_runs).
_LETTERED = re.compile(r"(?P<label>(?:(?P<word>[^\W\d_][\w-]{0,15})\s+)?(?P<letter>[A-Z]{1,2})(?P<n>\d{1,2}))"
                       r"\s*(?:[-–—·:：|]\s*)+(?=\S)")


def lettered_runs(headings: list[str]) -> dict[int, tuple[str, str]]:
    """Headings whose lettered number is a label, by their shape and not by a word list: two or more
    headings of the note with the same word and letter and different numbers ("Hand-off H1", "Hand-off
    H2"), or one whose letter abbreviates its compound word ("Carry-over C1 -"), as {index: (label,
    the rest)}. A lone "Kimi K3: …" is a name."""
    groups: dict[tuple[str, str], list[tuple[int, re.Match[str]]]] = {}
    for k, heading in enumerate(headings):
        m = _LETTERED.match(heading)
        if m is not None:
            groups.setdefault(((m.group("word") or "").lower(), m.group("letter")), []).append((k, m))
    out = {}
    for (word, letter), found in groups.items():
        # A run, or a lone one whose letter abbreviates the compound word before it ("Carry-over C1",
        # "Hand-off H1"): a name's letter and number stand after a name ("Kimi K3", "Qwen-Max M2").
        if len({m.group("n") for _, m in found}) >= 2 or ("-" in word.strip("-") and word[0] == letter[0].lower()):
            out.update({k: (m.group("label"), headings[k][m.end():]) for k, m in found})
    return out


def segment(lines: list[str], body: str, code: list[bool], hr: list[bool],
            heads: dict[int, tuple[int, str, int]], skip: range, words: HeadingWords) -> list[Block]:
    """The note's blocks, each an entry to be (or a preamble or gap), with the run's `words`
    (`tasks.inbox.headings.heading_words`)."""
    events = [(i, lv, t, used) for i, (lv, t, used) in heads.items() if i not in skip and lv <= 4]
    # Other heading styles (tasks.inbox.headings): all of them without `#` headings, bold ones beside them.
    taken = {i for i, _, _, used in events for i in range(i, i + used)}
    others = pseudo_heads(lines, body, code, hr, skip, {i for i, _, _, _ in events}, words)
    events = sorted([*events, *(e for e in others if e[0] not in taken)])
    first = events[0][0] if events else len(lines)
    blocks = _items(lines, code, 0, first, numbered=bool(events), words=words)
    blocks = blocks or [Block("preamble", None, "", 0, 0, first)]
    stack: list[tuple[int, str]] = []
    lettered = lettered_runs([heading for _, _, heading, _ in events])
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
        label, rest = split_label(heading, words)
        if label is None and k in lettered:
            label, rest = lettered[k]
        blocks.append(Block(label, heading, path, i, i + used, end, rest))
    return blocks
