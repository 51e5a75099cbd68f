"""The words sources use to hedge, settle, dismiss or recommend something (Chinese and English).

The words are data: tasks/config/judgment.toml `[markers]` (packaged), compiled here once per process.
"""

from __future__ import annotations

import re

from tasks.common import sentences
from tasks.config.judgment import default_judgment
from tasks.judge.statements import word_pattern

_WORDS = default_judgment()


def _words(name: str) -> tuple[str, ...]:
    return _WORDS.words("markers", name)


def _regexes(name: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{r})" for r in _words(name)), re.IGNORECASE)


def _alternation(name: str) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"\s*") for w in sorted(_words(name), key=lambda w: (-len(w), w)))


# Same family as the note parser's hedge markers (plus those it may not know); queue notes and
# free text are read with it.
HEDGE = word_pattern(_words("hedge") + _words("hedge_extra"))
SETTLE = word_pattern(_words("settle"))
# A promise is settled by the thing happening.
RELEASED = word_pattern(_words("released"))
_NEGATION = re.compile(f"(?:{_alternation('negation')})\\s*$", re.IGNORECASE)
# A source says an entry adds nothing: confirmation, already anchored, background, left out.
CONFIRMATORY = word_pattern(_words("confirmatory"))
# A source recommends an entry for the evening briefing.
E1_RECOMMEND = _regexes("e1_recommend_regex")
_E1_CELL = re.compile(r"^\s*E1(?![\w])", re.IGNORECASE)
_E1_HEADER = re.compile(r"E1", re.IGNORECASE)
_YES = re.compile(f"^\\s*(?:{_alternation('yes')})(?![A-Za-z0-9])", re.IGNORECASE)
# "条目#1 + #2", "#6", "条目1", "Entry 3": references to a note's numbered entries.
_ENTRY = _alternation("entry_words")
LABEL_REF = re.compile(f"(?:{_ENTRY})?\\s*[#＃]\\s*(\\d{{1,3}})(?![\\d.])|(?:{_ENTRY})\\s*(\\d{{1,3}})(?![\\d.])", re.I)
MERGED_NAME = re.compile(f"(?:{_alternation('merge_words')})\\s*(?:一条)?\\s*[「“\"]([^」”\"]{{3,120}})[」”\"]", re.I)
STARS = re.compile(f"(?:{_alternation('credibility')})[^⭐\\n]{{0,16}}?(⭐+)", re.I)
# Markers other verify and briefing modules read (compiled once here).
HEDGE_BOILERPLATE = _alternation("hedge_boilerplate")
TRAILING_PROGRESS = _alternation("trailing_progress")
SECTION_HINT = word_pattern(_words("section_hint"))
GENERIC_TITLE = re.compile(f"^(?:{'|'.join(_words('generic_title_regex'))})", re.IGNORECASE)
FUTURE = word_pattern(_words("future"))
ACTION = word_pattern(_words("action"))
METRICS: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern, re.IGNORECASE) for name, pattern in _WORDS.config.get("metrics_regex", {}).items()
}
RISK = word_pattern(_words("risk"))
ADVICE = word_pattern(_words("advice"))
_SEP = r"[\s·:：\-—–|*>•,，、]"
# A label word must end at a separator (or the end): "Note: …" is a label, "Notebook" is not.
_LABEL = re.compile(
    "(?:" + "|".join([f"(?:{_alternation('note_labels')})(?=$|{_SEP}|[（(「。！!；;])", *_words("note_label_regex")]) + ")",
    re.IGNORECASE,
)
_LEAD = re.compile(f"^(?:{_SEP}|[。！!；;]|[\u2600-\u27bf\ufe0f\u200d\u2b00-\u2bff\U0001f000-\U0001faff])+")
_TAIL = re.compile(f"(?:[，,；;、:：\s]+(?:{_alternation('note_labels')})[\s*]*)+[。.；;！!]?$", re.IGNORECASE)
PHENOMENON_LABEL = re.compile(f"^(?:{_alternation('phenomenon_label')})\\s*[:：]", re.IGNORECASE)
RISK_LABEL = re.compile(f"^(?:{_alternation('risk_label')})\s*[:：]", re.IGNORECASE)
ADVICE_LABEL = re.compile(f"^(?:{_alternation('advice_label')})\s*[:：]", re.IGNORECASE)
STOP_WORDS = frozenset(w.lower() for w in _WORDS.words("names", "stop"))
COMMON_WORDS = frozenset(w.lower() for w in _WORDS.words("names", "common"))


def strip_labels(text: str) -> str:
    """`text` without the note's own labels around it: emoji, "T2", "待核实 ·", "Needs verification:",
    "[ ]", list numbering and markup at the start, and a trailing "，待核实" (judgment.toml
    `note_labels`, `note_label_regex`)."""
    rest = text.replace("**", "").replace("`", "").strip()
    while True:
        lead = _LEAD.match(rest)
        if lead:
            rest = rest[lead.end():]
        label = _LABEL.match(rest)
        if label and label.end() > 0:
            rest = rest[label.end():]
            continue
        if not lead:
            break
    return _TAIL.sub("", rest).strip(" ·:：-—|*，,；;")


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
    """The sentence (or table row) of `text` around position `start`, within its line (the shared
    segmenter, `tasks.common.sentences`)."""
    lo = text.rfind("\n", 0, start) + 1
    hi = text.find("\n", start)
    line = text[lo : hi if hi >= 0 else len(text)]
    sentence = line if line.lstrip().startswith("|") else sentences.sentence_at(line, start - lo)
    return " ".join(sentence.replace("**", "").split()).strip(" -*|")[:limit]
