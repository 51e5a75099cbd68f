"""What a hedge says, in its source's own sentences: 现象 (what is claimed, what is missing), 风险, 建议.

A hedge's passage is its hedged text, the lines of its entry right after it (to a blank line or a
heading), and the line before it when the hedged sentence states no claim of its own. Lines are read
as the source's units and cut into whole sentences by `tasks.common.sentences`, labels stripped.
A line opening with a risk or advice label is that part whole; otherwise a sentence that advises
(`[markers] advice`) is 建议, one that warns (`risk`) 风险, the rest 现象, in the source's order.
Each part is cut at a sentence end, marked "…". Nothing is invented: a part the source does not give
stays empty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tasks.common.sentences import clip, ends_sentence, sentences
from tasks.verify.markers import Markers, strip_labels

# Markdown shapes: a list item's marker (and checkbox), and lines that head a new block.
_LIST = re.compile(r"^\s*(?:[-*+>•]|\d{1,3}[.)、])\s*(?:\[[ xX]?\]\s*)?")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*\s*$|---)")

# A hedged sentence with no number states no claim of its own ("这组数字…").
_DIGIT = re.compile(r"\d")
_TABLE = re.compile(r"^\s*\|")
# A line that opens a field or another subject ("DeepEP：…", "可信度：…") ends the passage.
_FIELD = re.compile(r"^[^：:「（(，,。]{1,16}[：:](?!//)")  # "https://…" opens no field
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


def _content(line: str) -> str:
    return _LIST.sub("", line.replace("**", "")).strip()


def _named_in(text: str) -> list[str]:
    return [m.group(0).lower() for m in _NAMED.finditer(text)]


def _labelled(m: Markers, plain: str) -> bool:
    return bool(m.advice_label.match(plain) or m.risk_label.match(plain) or m.phenomenon_label.match(plain))


def _starts_unit(m: Markers, line: str) -> bool:
    """Whether a line starts a unit of its own (a list item, a table row, a labelled or field line)
    rather than continuing the line above it."""
    plain = strip_labels(m, _content(line))
    return bool(_LIST.match(line) or _TABLE.match(line) or _labelled(m, plain) or _FIELD.match(plain))


def _passage(m: Markers, entry_text: str, hedge_text: str) -> tuple[list[str], str]:
    """(units of the passage, the line before the hedged one)."""
    lines = entry_text.splitlines()
    at: int | None = None
    # The hedged line: where the hedged text starts (its first sentence, when the parser joined
    # lines after a bare marker).
    for probe in dict.fromkeys((_content(hedge_text)[:24], (sentences(_content(hedge_text)) or [""])[0][:24])):
        at = next((k for k, line in enumerate(lines) if probe and probe in _content(line)), None)
        if at is not None:
            break
    if at is None:
        return [hedge_text], ""
    start = at  # a hedge on a wrapped line: its sentence starts on the lines above
    while start > 0 and not _starts_unit(m, lines[start]) and lines[start - 1].strip() \
            and not _HEADING.match(lines[start - 1]) and not ends_sentence(_content(lines[start - 1])):
        start -= 1
    if start < at:
        hedge_text = "\n".join(_content(line) for line in lines[start : at + 1])
    else:  # the hedged sentence and what its line says after it
        line = _content(lines[at])
        hedge_text = line[line.find(probe):]
    seen = _content(hedge_text)
    out = [hedge_text]
    for line in lines[at + 1 : at + 1 + _AFTER]:
        if not line.strip() or _HEADING.match(line):
            break
        text = _content(line)
        if not _starts_unit(m, line):
            if text and text not in seen:
                out[-1] = f"{out[-1]}\n{text}"  # a wrapped line: the segmenter joins it back
            continue
        plain = strip_labels(m, text)
        # A sibling item about another thing leads with its name ("SEIS 附录 E…", "10 月 PyTorch …").
        # A capitalised first word ("The gain…", "Wait for…") starts an English sentence, it names nothing.
        named = {n.group(0).lower() for n in _NAMED.finditer(plain) if n.start() < _LEAD
                 and not (n.start() == 0 and n.group(0)[1:].islower())} - set(_named_in(" ".join(out)))
        if not _labelled(m, plain) and (_FIELD.match(plain) or _CHECKBOX.match(line) or named):
            break  # another field, to-do or subject begins
        if text and text not in seen:
            out.append(text)
    prior = lines[start - 1] if start > 0 else ""
    before = _content(prior) if prior.strip() and not _HEADING.match(prior) else ""
    return out, before


def _sorted(m: Markers, units: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(现象, 风险, 建议) sentences of the passage's units, each in the source's order."""
    phenomenon: list[str] = []
    risk: list[str] = []
    advice: list[str] = []
    hedged = False  # the hedged sentence was read: a label line counts only after it
    for unit in units:
        plain = strip_labels(m, _content(unit))
        for label, part in ((m.advice_label, advice), (m.risk_label, risk), (m.phenomenon_label, phenomenon)):
            if label.match(plain) and (hedged or label is m.phenomenon_label):
                rest = strip_labels(m, label.sub("", plain, count=1))
                if rest and not rest.startswith("§"):
                    part.extend(sentences(rest))
                hedged = hedged or label is m.phenomenon_label  # a briefing's own "现象：…" line states the doubt
                break
        else:
            for sentence in sentences(_content(unit)):
                text = strip_labels(m, sentence)
                if not hedged and m.hedge.search(sentence):
                    hedged = True  # the hedged sentence is 现象; a bare "⚠️ 待核实。" still opens the hedge
                    if text:
                        phenomenon.append(text)
                    continue
                if not text:
                    continue
                if m.advice.search(text):
                    advice.append(text)
                elif m.risk.search(text):
                    risk.append(text)
                else:
                    phenomenon.append(text)
    return phenomenon, risk, advice


def hedge_parts(m: Markers, entry_text: str, hedge_text: str, names: tuple[str, ...] = ()) -> Parts:
    """现象/风险/建议 of a hedge from its passage in the entry; `names` are the subject's names."""
    units, before = _passage(m, entry_text, hedge_text)
    phenomenon, risk, advice = _sorted(m, units)
    first = phenomenon[0] if phenomenon else ""
    if before and first and not _DIGIT.search(first) and not any(n and n.lower() in first.lower() for n in names):
        phenomenon.insert(0, strip_labels(m, before))  # "这组数字…待核实": the claim is the line before
    return Parts(clip(phenomenon, PHENOMENON), clip(risk, PART), clip(advice, PART))
