"""The words sources use to hedge, settle, dismiss or recommend something (Chinese and English).

The words are data: judgment.toml `[markers]`, `[metrics_regex]` and `[names] stop / common`, as the
run's merged judgment gives them (packaged, then the workspace's file, then PREDIGEST_JUDGMENT_FILE).
`markers_of(judgment)` compiles them once per judgment; every reader is handed the judgment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from tasks.common import sentences
from tasks.common.text import word_alternation
from tasks.config.judgment import Judgment
from tasks.judge import compared
from tasks.judge.statements import word_pattern

_SEP = r"[\s·:：\-—–|*>•,，、]"
_LEAD = re.compile(f"^(?:{_SEP}|[。！!；;]|[\u2600-\u27bf\ufe0f\u200d\u2b00-\u2bff\U0001f000-\U0001faff])+")
_E1_CELL = re.compile(r"^\s*E1(?![\w])", re.IGNORECASE)
_E1_HEADER = re.compile(r"E1", re.IGNORECASE)


def _regexes(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{r})" for r in words), re.IGNORECASE)


@dataclass(frozen=True, eq=False)
class Markers:
    """One judgment's markers, compiled (see the module docstring; `markers_of`)."""

    judgment: Judgment = field(repr=False)
    hedge: re.Pattern[str]
    settle: re.Pattern[str]
    released: re.Pattern[str]  # a promise is settled by the thing happening
    negation: re.Pattern[str]
    confirmatory: re.Pattern[str]  # a source says an entry adds nothing
    e1_recommend: re.Pattern[str]  # a source recommends an entry for the evening briefing
    yes: re.Pattern[str]
    label_ref: re.Pattern[str]  # "条目#1 + #2", "#6", "条目1", "Entry 3"
    merged_name: re.Pattern[str]
    stars: re.Pattern[str]
    trailing_progress: str
    section_hint: re.Pattern[str]
    generic_title: re.Pattern[str]
    future: re.Pattern[str]
    action: re.Pattern[str]
    metrics: dict[str, re.Pattern[str]]
    risk: re.Pattern[str]
    advice: re.Pattern[str]
    label: re.Pattern[str]
    tail: re.Pattern[str]
    phenomenon_label: re.Pattern[str]
    risk_label: re.Pattern[str]
    advice_label: re.Pattern[str]
    stop_words: frozenset[str]
    common_words: frozenset[str]
    context: re.Pattern[str]  # a thing named as a comparison or contrast, with its name
    points_back: re.Pattern[str]  # a line that says it is a point made above
    setup: re.Pattern[str]  # words stating the conditions a number was measured under

    def __hash__(self) -> int:
        return hash(self.judgment)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Markers) and other.judgment == self.judgment


@lru_cache(maxsize=8)
def markers_of(j: Judgment) -> Markers:
    """`j`'s markers, compiled once per judgment (a judgment compares by its content digest)."""

    def words(name: str) -> tuple[str, ...]:
        return j.words("markers", name)

    def alt(name: str) -> str:
        return word_alternation(words(name))

    entry = alt("entry_words")
    labels = alt("note_labels")
    return Markers(
        judgment=j,
        # Same family as the note parser's hedge markers (plus those it may not know); queue notes
        # and free text are read with it.
        hedge=word_pattern(words("hedge") + words("hedge_extra")),
        settle=word_pattern(words("settle")),
        released=word_pattern(words("released")),
        negation=re.compile(f"(?:{alt('negation')})\\s*$", re.IGNORECASE),
        confirmatory=word_pattern(words("confirmatory")),
        e1_recommend=_regexes(words("e1_recommend_regex")),
        yes=re.compile(f"^\\s*(?:{alt('yes')})(?![A-Za-z0-9])", re.IGNORECASE),
        label_ref=re.compile(f"(?:{entry})?\\s*[#＃]\\s*(\\d{{1,3}})(?![\\d.])|(?:{entry})\\s*(\\d{{1,3}})(?![\\d.])", re.I),
        merged_name=re.compile(f"(?:{alt('merge_words')})\\s*(?:一条)?\\s*[「“\"]([^」”\"]{{3,120}})[」”\"]", re.I),
        stars=re.compile(f"(?:{alt('credibility')})[^⭐\\n]{{0,16}}?(⭐+)", re.I),
        trailing_progress=alt("trailing_progress"),
        section_hint=word_pattern(words("section_hint")),
        generic_title=re.compile(f"^(?:{'|'.join(words('generic_title_regex'))})", re.IGNORECASE),
        future=word_pattern(words("future")),
        action=word_pattern(words("action")),
        metrics={name: re.compile(p, re.IGNORECASE) for name, p in j.config.get("metrics_regex", {}).items()},
        setup=word_pattern(words("setup")),
        risk=word_pattern(words("risk")),
        advice=word_pattern(words("advice")),
        # A label word must end at a separator (or the end): "Note: …" is a label, "Notebook" is not.
        label=re.compile(
            "(?:" + "|".join([f"(?:{labels})(?=$|{_SEP}|[（(「。！!；;])", *words("note_label_regex")]) + ")",
            re.IGNORECASE,
        ),
        tail=re.compile(f"(?:[，,；;、:：\\s]+(?:{labels})[\\s*]*)+[。.；;！!]?$", re.IGNORECASE),
        phenomenon_label=re.compile(f"^(?:{alt('phenomenon_label')})\\s*[:：]", re.IGNORECASE),
        risk_label=re.compile(f"^(?:{alt('risk_label')})\\s*[:：]", re.IGNORECASE),
        advice_label=re.compile(f"^(?:{alt('advice_label')})\\s*[:：]", re.IGNORECASE),
        stop_words=frozenset(w.lower() for w in j.words("names", "stop")),
        common_words=frozenset(w.lower() for w in j.words("names", "common")),
        context=compared.context_pattern(j),
        points_back=word_pattern(words("points_back")),
    )


def without_context(m: Markers, text: str) -> str:
    """`text` without the things it names only as a comparison or a contrast ("compared with X",
    "not to be confused with X", 「与 X 相比」): what is left says what the text is about."""
    return compared.without_context(m.context, text)


def strip_labels(m: Markers, text: str) -> str:
    """`text` without the note's own labels around it: emoji, "T2", "待核实 ·", "Needs verification:",
    "[ ]", list numbering and markup at the start, and a trailing "，待核实" (judgment.toml
    `note_labels`, `note_label_regex`)."""
    rest = text.replace("**", "").replace("`", "").strip()
    while True:
        lead = _LEAD.match(rest)
        if lead:
            rest = rest[lead.end():]
        label = m.label.match(rest)
        if label and label.end() > 0:
            rest = rest[label.end():]
            continue
        if not lead:
            break
    return m.tail.sub("", rest).strip(" ·:：-—|*，,；;")


def found(m: Markers, pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of `pattern` in `text` that is not negated just before it."""
    for hit in pattern.finditer(text):
        if not m.negation.search(text[max(0, hit.start() - 8) : hit.start()]):
            return hit
    return None


def all_found(m: Markers, pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """Every match of `pattern` in `text` that is not negated just before it."""
    return [h for h in pattern.finditer(text) if not m.negation.search(text[max(0, h.start() - 8) : h.start()])]


def label_number(label: str | None) -> str | None:
    """The number of an entry label ("条目#4" -> "4", "增量 2" -> "2", "#3" -> "3")."""
    if not label:
        return None
    m = re.search(r"(\d{1,3})\D*$", label)
    return m.group(1) if m else None


def label_refs(m: Markers, text: str) -> list[str]:
    """Entry numbers a line refers to, in order."""
    refs: list[str] = []
    for hit in m.label_ref.finditer(text):
        number = hit.group(1) or hit.group(2)
        if number not in refs:
            refs.append(number)
    return refs


def recommends_e1(m: Markers, line: str, header: list[str] | None = None) -> bool:
    """Whether a line (or a table row under `header`) recommends something for the E1 briefing."""
    if found(m, m.e1_recommend, line):
        return True
    if " | " in line or line.strip().startswith("|"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if any(_E1_CELL.match(c) for c in cells[1:]):
            return True
        if header:
            for name, cell in zip(header, cells, strict=False):
                if _E1_HEADER.search(name) and m.yes.match(cell):
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
