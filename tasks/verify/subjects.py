"""What a heading or a line is about: the thing it names, never the note's own scaffolding.

A heading becomes text only without its entry markers (`entry_heading`): numbering ("1.", "A1.",
"条目#2 ·", "Increment 1 -", "一、"), bracketed dates ("[Sep 10]"), an appendix marker ("附："), the
note's labels ("⚠️ 待核实 ·") and a trailing bracket about the note itself ("（给 11:20 的 e1prep 用）",
"(blog)"). A heading names a thing (`heading_thing`) when what is left holds an arXiv id or a
name (one coined token such as "FooServe", or two distinctive ASCII words) that is not only a
source's name (a site, a kind of post, one of the workspace's people), a section label or template
word ("口径问题（重要）", "Summary", "Action items"); an appendix heading never does. A line's own
subject (`line_thing`) is the name it leads with, else its first coined name, under the same rule.
The words are data: judgment.toml `[markers] entry_marker_regex / appendix_regex / note_aside`,
`[names] sources / template / common`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from tasks.common.arxiv_ids import find_ids
from tasks.common.text import CJK_RANGE
from tasks.common.working_set import per_window_item
from tasks.verify.markers import Markers, strip_labels
from tasks.verify.names import Names, lead_phrase, names_of


def _starts(m: Markers, name: str) -> re.Pattern[str]:
    return re.compile("^(?:" + "|".join(f"(?:{r})" for r in m.judgment.words("markers", name)) + ")", re.IGNORECASE)


@dataclass(frozen=True)
class _Vocabulary:
    """One judgment's entry markers, appendix markers, asides and scaffolding words, compiled."""

    entry_marker: re.Pattern[str]
    appendix: re.Pattern[str]
    aside_start: re.Pattern[str]
    scaffolding: frozenset[str]


@lru_cache(maxsize=8)
def _vocabulary(m: Markers) -> _Vocabulary:
    words = m.judgment.words
    aside = "|".join(re.escape(w) for w in sorted(words("markers", "note_aside"), key=lambda w: (-len(w), w)))
    nm = names_of(m.judgment)
    sources = frozenset(t for w in words("names", "sources") for t in nm.distinctive(w)) | frozenset(
        w.lower() for w in words("names", "sources"))
    return _Vocabulary(_starts(m, "entry_marker_regex"), _starts(m, "appendix_regex"),
                       re.compile(rf"^\s*(?:{aside})(?![A-Za-z])", re.IGNORECASE),
                       sources | frozenset(w.lower() for w in words("names", "template")))


_TRAILING_BRACKET = re.compile(r"\s*[（(\[【]([^（()）\[\]【】]{1,60})[)）\]】]\s*$")
_LEAD_SEGMENT = re.compile(r"^([^:：·|｜]{1,24}?)\s*(?:[:：·|｜]|\s[—–-]\s)\s*(?=\S)")
_SENTENCE = re.compile(r"[。！？；;，]|[.!?,](?:\s|$)")
# A coined name, with the capitalised parts of a compound ("LoRA-Pool", "TRT-LLM").
_VERSION_AFTER = re.compile(r" v?\d+(?:\.\d+)+\b")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-.](?![a-z]+\b)[A-Za-z0-9]+)*")
# A name's words: the first any, the others capitalised or with a digit ("Llama 3.1 70B", "KV Cache"),
# so a sentence's verb ("DeepSeek claims …") ends it.
_NAME_RUN = re.compile(rf"^([A-Za-z][\w.+-]*(?:\s+(?=[\w.+-]*[A-Z0-9])[A-Za-z0-9][\w.+-]*){{0,3}})(?=\s*[{CJK_RANGE}（(：:「]|$)")
# A setting's key or flag ("kv-offload-backend", "max_num_seqs", "spec.k"): lower case, joined parts.
_CONFIG_KEY = re.compile(r"^-{0,2}[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+$")
_CLAUSE_BEFORE_BRACKET = re.compile(r"^\S+(?:\s+\S+){3,}\s*[（(]")
# A short coined code before a heading's separator ("C2C：…", "R2D2 -"): letters and digits mixed.
_SHORT_CODE = re.compile(r"(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Z])[A-Za-z][A-Za-z0-9-]{2,11}")
_LONG_HEADING = 8  # distinctive tokens above which a heading is a sentence, not a name


def _is_aside(m: Markers, inner: str, people: frozenset[str]) -> bool:
    if find_ids(inner):
        return False  # "（arXiv:2610.01234）" says which paper: not an aside
    return bool(_vocabulary(m).aside_start.match(inner)) or only_scaffolding(m, inner, people)


@per_window_item(16384)
def _entry_heading(m: Markers, title: str, people: frozenset[str]) -> tuple[str, bool]:
    vocabulary = _vocabulary(m)
    text = strip_labels(m, title)
    appendix = False
    while True:
        before = text
        marker = vocabulary.entry_marker.match(text)
        if marker and marker.end() < len(text):
            text = text[marker.end():]
        appendix_marker = vocabulary.appendix.match(text)
        if appendix_marker and appendix_marker.end() < len(text):
            text, appendix = text[appendix_marker.end():], True
        lead = _LEAD_SEGMENT.match(text)
        if lead and only_scaffolding(m, lead.group(1), people):
            text = text[lead.end():]  # "CSDN：DeepSeek 开源周回顾": where it was read, then what
        tail = _TRAILING_BRACKET.search(text)
        if tail and tail.start() > 0 and _is_aside(m, tail.group(1), people):
            text = text[: tail.start()]
        text = strip_labels(m, text)
        if text == before:
            return text, appendix


def entry_heading(m: Markers, title: str | None, people: Iterable[str] = ()) -> str:
    """The heading as text: without its entry markers, labels and trailing asides about the note."""
    return _entry_heading(m, title or "", frozenset(p.lower() for p in people))[0]


def only_scaffolding(m: Markers, name: str, people: Iterable[str] = ()) -> bool:
    """A name made only of source names, people, template and common words ("CSDN 博客", "Summary", "Jay")."""
    tokens = names_of(m.judgment).distinctive(name)
    lowered = {p.lower() for p in people}
    scaffolding = _vocabulary(m).scaffolding
    return all(t in scaffolding or t in m.common_words or t in lowered for t in tokens)


def _ascii_name(nm: Names, text: str) -> bool:
    """Whether a phrase names a thing by an ASCII name: one coined token, or two distinctive ASCII words."""
    if not any(t.isascii() for t in nm.distinctive(text)):
        return False
    return nm.is_name(" ".join(t.group(0) for t in _TOKEN.finditer(text))) or any(
        nm.head_token(t.group(0)) for t in _TOKEN.finditer(text))


def _names(m: Markers, text: str, people: frozenset[str]) -> bool:
    nm = names_of(m.judgment)
    if nm.names_nothing(text) or nm.is_generic(text) or only_scaffolding(m, text, people):
        return False
    scaffolding = _vocabulary(m).scaffolding
    kept = " ".join(t for t in re.split(r"\s+", m.hedge.sub(" ", text)) if t)
    return bool(find_ids(kept)) or _ascii_name(nm, " ".join(
        w for w in re.findall(r"[A-Za-z][\w.+-]*", kept) if w.lower() not in scaffolding and w.lower() not in people))


def line_thing(m: Markers, text: str, people: Iterable[str] = (), coined: bool = True) -> str | None:
    """The thing a line is about: the name it leads with, else (with `coined`) its first coined
    name, if either names a thing."""
    return _line_thing(m, text, frozenset(p.lower() for p in people), coined)


# Settling sentences are read against every open item a window names: the answers are kept.
@per_window_item(16384)
def _line_thing(m: Markers, text: str, group: frozenset[str], coined: bool) -> str | None:
    nm = names_of(m.judgment)
    rest = strip_labels(m, text)
    lead = lead_phrase(rest)
    if lead and _CLAUSE_BEFORE_BRACKET.match(rest[rest.find(lead):]):
        lead = None  # "DeepSeek claims an 85% speed-up (arXiv:…)": a clause, not a name, before the bracket
    if lead and not m.hedge.search(lead) and _names(m, strip_labels(m, lead), group):
        return strip_labels(m, lead)
    run = _NAME_RUN.match(rest)
    if run and _CONFIG_KEY.match(run.group(1)):
        return _setting(m, text, run.group(1), group)
    if run and _names(m, run.group(1), group) and nm.is_name(run.group(1)):
        return run.group(1)
    if not coined:
        return None
    plain = m.hedge.sub(" ", rest)
    for hit in _TOKEN.finditer(plain):
        token = hit.group(0)
        if nm.head_token(token) and not only_scaffolding(m, token, group) and not nm.names_nothing(token):
            version = _VERSION_AFTER.match(plain, hit.end())  # "SGLang v0.5.31": one release, not the project
            return token + version.group(0) if version else token
    return None


def _setting(m: Markers, text: str, key: str, people: frozenset[str]) -> str | None:
    """A line about a setting ("`--kv-offload-backend` 在 vLLM 0.12 …") is about that setting of
    the system it names: "vLLM --kv-offload-backend"; a bare key names nothing."""
    written = re.search(rf"-*{re.escape(key)}", text)
    flag = written.group(0) if written else key
    nm = names_of(m.judgment)
    system = next((t.group(0) for t in _TOKEN.finditer(text) if t.group(0) not in key
                   and nm.is_name(t.group(0)) and not only_scaffolding(m, t.group(0), people)), None)
    return f"{system} {flag}" if system else None


def heading_thing(m: Markers, title: str | None, people: Iterable[str] = ()) -> str | None:
    """The thing a heading names (its text without markers), or None for a label, a source's name,
    a template word, an appendix heading or a heading made only of markers. A heading that is a
    whole sentence (a list item read as one) names the thing it leads with."""
    group = frozenset(p.lower() for p in people)
    text, appendix = _entry_heading(m, title or "", group)
    if appendix or not text or not _names(m, text, group):
        return None
    raw = title or ""
    said = raw[max(raw.find(text[:8]), 0):]  # the heading from where its text starts (after the markers)
    tail = _TRAILING_BRACKET.search(text)
    core = text
    if tail and tail.start() > 0 and not find_ids(tail.group(1)):
        # A trailing bracket of its own words ("(vLLM blog, 2026-09-10)") does not make a name a sentence.
        core, said = text[: tail.start()], said.replace(tail.group(0), "")
    if _SENTENCE.search(said) or len(names_of(m.judgment).distinctive(core)) > _LONG_HEADING:
        # "C2C：Cache-to-Cache，LLM 之间直接传 KV": the name before the separator, else what it leads with.
        lead = _LEAD_SEGMENT.match(core)
        named = lead.group(1).strip() if lead else ""
        if named and not _SENTENCE.search(named) and (_names(m, named, group) or _SHORT_CODE.fullmatch(named)):
            return named
        return line_thing(m, core, group)
    return core
