"""What a hedge says, in its source's own sentences: 现象 (what is claimed, what is missing), 风险, 建议.

A hedge's passage is its hedged text (a sentence, list item or row), the lines of its entry right
after the hedged line (up to a blank line or a heading), and the line just before it when the
hedged sentence states no claim of its own (no number, no name). Every sentence loses the note's
labels (`markers.strip_labels`). A line opening with a risk or advice label ("风险：", "Next
step:") is that part whole; otherwise, after the hedged sentence, a sentence with advice words
(judgment.toml `[markers] advice`) is 建议, one with risk words (`risk`) is 风险, and the rest add
to 现象. Nothing is invented: a part the source does not give stays empty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tasks.common.text import CJK_RANGE
from tasks.verify.markers import ADVICE, ADVICE_LABEL, HEDGE, PHENOMENON_LABEL, RISK, RISK_LABEL, strip_labels

# A sentence ends at these, but not inside brackets or quotes (「…；…」 is one quoted claim).
_OPEN, _CLOSE = "「“\"『（(【[", "」”\"』）)】]"
_ENDS = "。！？!?；;"
_EN_SPLIT = re.compile(r"(?<=[a-z0-9)][.])\s+(?=[A-Z])")

# Markdown shapes: a list item's marker (and checkbox), and lines that head a new block.
_LIST = re.compile(r"^\s*(?:[-*+>•]|\d{1,3}[.)、])\s*(?:\[[ xX]?\]\s*)?")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*\s*$|---)")

# A hedged sentence with no number states no claim of its own ("这组数字…"); CJK text joins with "；".
_DIGIT = re.compile(r"\d")
_CJK = re.compile(f"[{CJK_RANGE}]")
# A line that opens a field or another subject ("DeepEP：…", "可信度：…") ends the passage.
_FIELD = re.compile(r"^[^：:「（(，,。]{1,16}[：:]")
_CHECKBOX = re.compile(r"^\s*[-*+]\s*\[[ xX]?\]")
_NAMED = re.compile(r"[A-Za-z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*|[A-Z][A-Za-z0-9-]{2,}")
_AFTER = 5  # lines read after the hedged line
_LEAD = 12  # characters of a following line where a new subject's name would stand
PHENOMENON, PART = 260, 200  # characters kept


@dataclass(frozen=True)
class Parts:
    phenomenon: str
    risk: str
    advice: str


def sentences(text: str) -> list[str]:
    """`text` cut after 。！？；(and ". " before a capital), never inside brackets or quotes."""
    out: list[str] = []
    depth, start = 0, 0
    for k, ch in enumerate(text):
        if ch in _OPEN and not (ch == '"' and depth):
            depth += 1
        elif ch in _CLOSE and depth:
            depth -= 1
        elif ch in _ENDS and depth == 0:
            out.append(text[start : k + 1])
            start = k + 1
    out.append(text[start:])
    return [s.strip() for piece in out for s in _EN_SPLIT.split(piece) if s.strip()]


def _content(line: str) -> str:
    return _LIST.sub("", line.replace("**", "")).strip()


def _named_in(text: str) -> list[str]:
    return [m.group(0).lower() for m in _NAMED.finditer(text)]


def _passage(entry_text: str, hedge_text: str) -> tuple[list[str], str]:
    """(lines of the passage, the line before the hedged one)."""
    lines = entry_text.splitlines()
    probe = _content(hedge_text)[:24]
    at = next((k for k, line in enumerate(lines) if probe and probe in _content(line)), None)
    if at is None:
        return [hedge_text], ""
    seen = _content(hedge_text)
    out = [hedge_text]
    for line in lines[at + 1 : at + 1 + _AFTER]:
        if not line.strip() or _HEADING.match(line):
            break
        text = _content(line)
        plain = strip_labels(text)
        labelled = ADVICE_LABEL.match(plain) or RISK_LABEL.match(plain) or PHENOMENON_LABEL.match(plain)
        # A sibling item about another thing leads with its name ("SEIS 附录 E…", "10 月 PyTorch …").
        named = {m.group(0).lower() for m in _NAMED.finditer(plain[:_LEAD])} - set(_named_in(" ".join(out)))
        if not labelled and (_FIELD.match(plain) or _CHECKBOX.match(line) or named):
            break  # another field, to-do or subject begins
        if text and text not in seen:
            out.append(text)
    before = _content(lines[at - 1]) if at > 0 and lines[at - 1].strip() and not _HEADING.match(lines[at - 1]) else ""
    return out, before


def _join(parts: list[str], limit: int) -> str:
    text = ""
    for part in parts:
        if text and len(text) + len(part) > limit:
            break
        if text and not text.endswith(tuple(_ENDS)):
            text += "；" if _CJK.search(text[-1:] + part[:1]) else "; "
        text += part
    return text[:limit]


def hedge_parts(entry_text: str, hedge_text: str, names: tuple[str, ...] = ()) -> Parts:
    """现象/风险/建议 of a hedge from its passage in the entry; `names` are the subject's names."""
    lines, before = _passage(entry_text, hedge_text)
    phenomenon: list[str] = []
    risk: list[str] = []
    advice: list[str] = []
    hedged = False
    for line in lines:
        plain = strip_labels(_content(line))
        if ADVICE_LABEL.match(plain) and hedged:
            rest = strip_labels(ADVICE_LABEL.sub("", plain, count=1))
            if rest and not rest.startswith("§"):
                advice.append(rest)
            continue
        if PHENOMENON_LABEL.match(plain):  # a briefing's own "现象：…" line states the doubt
            phenomenon.append(strip_labels(PHENOMENON_LABEL.sub("", plain, count=1)))
            hedged = True
            continue
        if RISK_LABEL.match(plain) and hedged:
            risk.append(strip_labels(RISK_LABEL.sub("", plain, count=1)))
            continue
        for sentence in sentences(_content(line)):
            text = strip_labels(sentence)
            if not hedged:
                hedged = bool(HEDGE.search(sentence))  # a bare "⚠️ 待核实。" still opens the hedge
                if text:
                    phenomenon.append(text)
            elif not text:
                continue
            elif ADVICE.search(text):
                advice.append(text)
            elif RISK.search(text):
                risk.append(text)
            else:
                phenomenon.append(text)
    first = phenomenon[0] if phenomenon else ""
    if before and first and not _DIGIT.search(first) and not any(n and n.lower() in first.lower() for n in names):
        phenomenon.insert(0, strip_labels(before))  # "这组数字…待核实": the claim is the line before
    return Parts(_join(phenomenon, PHENOMENON), _join(risk, PART), _join(advice, PART))
