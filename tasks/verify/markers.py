"""The words sources use to hedge, settle, dismiss or recommend something (Chinese and English)."""

from __future__ import annotations

import re

# Same family as the note parser's hedge markers; queue notes and free text are read with it.
HEDGE = re.compile(
    r"待核实|待验证|存疑|未经验证|需要核实|需核实|待确认|不能直接信|unverified|needs verification|to be verified|unconfirmed",
    re.IGNORECASE,
)
SETTLE = re.compile(r"已核实|已确认|已验证|已证实|核实无误|确认无误|(?<![\w-])(?:confirmed|verified)(?![\w-])", re.I)
# A promise is settled by the thing happening.
RELEASED = re.compile(r"已开源|已发布|已上线|正式发布|正式开源|open[- ]sourced|(?<![\w-])released(?![\w-])|now available", re.I)
_NEGATION = re.compile(r"(?:not|n't|never|yet to be|未|没|没有|尚未|无法|不)\s*$", re.IGNORECASE)
# A source says an entry adds nothing: confirmation, already anchored, background, left out.
CONFIRMATORY = re.compile(
    r"确认性|已锚|不进|背景|不收|跳过|不算增量|无新增|没有新|无新东西|没新东西|不新增|不展开|不重复|不引用|"
    r"already anchored|background only|confirmatory|(?<![\w-])skip(?:ped)?(?![\w-])",
    re.IGNORECASE,
)
# A source recommends an entry for the evening briefing.
E1_RECOMMEND = re.compile(
    r"建议进\s*(?:\w+\s*)?E1|(?<!不)进\s*E1(?!\s*[？?])|[→>]\s*E1(?![\w])|E1\s*(?:工程新增|主推|新增|候选)|"
    r"recommend(?:ed)?\s+for\s+E1|E1\s+candidate",
    re.IGNORECASE,
)
_E1_CELL = re.compile(r"^\s*E1(?![\w])", re.IGNORECASE)
_E1_HEADER = re.compile(r"E1", re.IGNORECASE)
_YES = re.compile(r"^\s*(?:是|yes|y|✓|✔|√)\b", re.IGNORECASE)
# "条目#1 + #2", "#6", "条目1", "Entry 3": references to a note's numbered entries.
LABEL_REF = re.compile(r"(?:条目|Entry|Item|增量)?\s*[#＃]\s*(\d{1,3})(?![\d.])|(?:条目|Entry|Item|增量)\s*(\d{1,3})(?![\d.])", re.I)
MERGED_NAME = re.compile(r"(?:合成|合并为|合并成|并为|merged? into)\s*(?:一条)?\s*[「“\"]([^」”\"]{3,120})[」”\"]", re.I)
STARS = re.compile(r"可信度[^⭐\n]{0,16}?(⭐+)")


def found(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of `pattern` in `text` that is not negated just before it."""
    for m in pattern.finditer(text):
        if not _NEGATION.search(text[max(0, m.start() - 8) : m.start()]):
            return m
    return None


def all_found(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """Every match of `pattern` in `text` that is not negated just before it."""
    return [m for m in pattern.finditer(text) if not _NEGATION.search(text[max(0, m.start() - 8) : m.start()])]


def label_number(label: str | None) -> str | None:
    """The number of an entry label ("条目#4" -> "4", "增量 2" -> "2", "#3" -> "3")."""
    if not label:
        return None
    m = re.search(r"(\d{1,3})\D*$", label)
    return m.group(1) if m else None


def label_refs(text: str) -> list[str]:
    """Entry numbers a line refers to, in order."""
    refs: list[str] = []
    for m in LABEL_REF.finditer(text):
        number = m.group(1) or m.group(2)
        if number not in refs:
            refs.append(number)
    return refs


def recommends_e1(line: str, header: list[str] | None = None) -> bool:
    """Whether a line (or a table row under `header`) recommends something for the E1 briefing."""
    if found(E1_RECOMMEND, line):
        return True
    if " | " in line or line.strip().startswith("|"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if any(_E1_CELL.match(c) for c in cells[1:]):
            return True
        if header:
            for name, cell in zip(header, cells, strict=False):
                if _E1_HEADER.search(name) and _YES.match(cell):
                    return True
    return False


def sentence_at(text: str, start: int, limit: int = 300) -> str:
    """The sentence (or table row) of `text` around position `start`."""
    ends = "。！？!?；;\n"
    lo = max((text.rfind(c, 0, start) for c in ends), default=-1) + 1
    his = [k for k in (text.find(c, start) for c in ends) if k >= 0]
    hi = min(his) + 1 if his else len(text)
    return " ".join(text[lo:hi].replace("**", "").split()).strip(" -*|")[:limit]
