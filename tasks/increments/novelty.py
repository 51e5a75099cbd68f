"""Whether note entries without an arXiv id present something new: the signals of an engineering increment.

No one phrasing decides. Each signal is read from the shape of the entry or from a word list in
`judgment.toml [engineering]` and adds its weight (`[weights] eng_*`) once per candidate: a named
thing in the heading (eng_named), a release or version (eng_release, eng_release_text), a novelty
word (eng_novelty), an official or preprint link or word (eng_official, eng_preprint), a measured
comparison of two named systems (eng_measurement); eng_background, eng_confirming and eng_hedged
count against. The caller adds eng_recommended and eng_more_sources.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from tasks.config.judgment import Judgment
from tasks.judge.statements import found_word
from tasks.judge.terms import vocabulary
from tasks.model.judged import Evidence
from tasks.model.window_views import EntryView
from tasks.verify.markers import Markers, found, markers_of
from tasks.verify.names import VERSION, names_of

# Shapes, not words: a URL or a bare domain with a path, a version number, an ASCII token.
_URL = re.compile(r"https?://[^\s<>()\[\]（）「」\"'`|]+|(?<![\w@/.])(?:[a-z0-9-]+\.)+[a-z]{2,10}/[^\s<>()\[\]（）「」\"'`|]*",
                  re.I)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9+-]*[A-Za-z0-9]|[A-Z]\d+")
FIRST_LINES = 3


def links(text: str) -> list[tuple[str, str]]:
    """(host, host + path) of each link in `text`, lower-cased, without scheme or "www."."""
    out = []
    for m in _URL.finditer(text):
        url = re.sub(r"^https?://", "", m.group(0).lower()).removeprefix("www.").rstrip(".,;:，。；）)")
        out.append((url.split("/", 1)[0], url))
    return out


def _on(url: str, hosts: Iterable[str]) -> bool:
    """Whether a link (host + path) is on one of `hosts` ("ssrn.com" also holds "papers.ssrn.com")."""
    return any(url.startswith(h.lower()) or url.split("/", 1)[0].endswith("." + h.lower()) for h in hosts)


def _first_lines(text: str) -> str:
    return "\n".join([line for line in text.splitlines() if line.strip()][:FIRST_LINES])


def _systems(m: Markers, text: str, terms: Sequence[str], heading: str = "") -> set[str]:
    """Named systems in a clause and the entry's heading: terms of the topic's vocabulary, coined
    tokens (inner capitals or digits: vLLM, SGLang, Qwen3), and capitalised words that both the
    heading and the clause hold ("Hydra")."""
    both = f"{heading}\n{text}"
    names = {t.lower() for t in vocabulary(tuple(terms)).hits(both)}
    headed = {t for t in _TOKEN.findall(heading) if t[0].isupper() and t.lower() not in m.stop_words}
    names |= {t.lower() for t in _TOKEN.findall(text) if t in headed}
    for hit in _TOKEN.finditer(both):
        word = hit.group(0)
        letters = sum(c.isalpha() for c in word)
        # "P99" or "B200" is a percentile or a part number and "TTFT" a metric; "Qwen3", "SGLang" are names.
        if word.isupper() and not any(c.isdigit() for c in word):
            continue
        if any(c.isupper() for c in word[1:]) and letters > 1 or (letters >= 3 and any(c.isdigit() for c in word)):
            names.add(word.lower())
    return names


def named_heading(title: str, m: Markers) -> bool:
    """A heading that names one thing: two distinctive words, or one coined token (not just a capital)."""
    nm = names_of(m.judgment)
    if not nm.is_name(title):
        return False
    tokens = nm.distinctive(title)
    return len(tokens) >= 2 or bool(_systems(m, title, ()))


@lru_cache(maxsize=8192)
def external_links(text: str, j: Judgment) -> tuple[str, ...]:
    """Links of `text` that are not to a paper site (arXiv, paper lists); cached: merging asks it of
    the same entries again and again."""
    paper = j.words("engineering", "paper_hosts")
    return tuple(url for _, url in links(text) if not _on(url, paper))


def _words(j: Judgment, name: str) -> tuple[str, ...]:
    return j.words("engineering", name)


def entry_signals(entry: EntryView, j: Judgment, topic: str, terms: Sequence[str]) -> list[Evidence]:
    """The signals of one entry (see the module docstring), as evidence counted for `topic`.
    `terms`: the topic's vocabulary, whose terms name systems ("vLLM", "TensorRT-LLM")."""
    title, text = entry.title or "", entry.text
    both = f"{title}\n{text}"
    out: list[tuple[str, str]] = []
    markers = markers_of(j)
    if named_heading(title, markers):
        out.append(("eng_named", title))
    version = VERSION.search(title)
    release = found_word(_words(j, "release"), title) or (version.group(0) if version else None)
    release_text = found_word(_words(j, "release"), _first_lines(text))
    if release:
        out.append(("eng_release", release))
    elif release_text:
        out.append(("eng_release_text", release_text))
    external = external_links(text, j)
    preprints = [u for u in external if _on(u, _words(j, "preprint_hosts")) or u.split("?", 1)[0].endswith(".pdf")]
    preprint = preprints[0] if preprints else found_word(_words(j, "preprint"), both)
    official = external[0] if external else found_word(_words(j, "official"), text)
    measured = next((clause for clause in (str(n.get("context", "")) for n in entry.numbers)
                     if found_word(_words(j, "comparison"), clause) and len(_systems(markers, clause, terms, title)) >= 2),
                    None)
    for kind, said in (("eng_novelty", found_word(_words(j, "novelty"), both)), ("eng_preprint", preprint),
                       ("eng_official", official), ("eng_measurement", measured and measured[:160]),
                       ("eng_background", found_word(_words(j, "background"), both)),
                       ("eng_confirming", found_word(_words(j, "confirming"), text)),
                       ("eng_hedged", "hedge" if entry.hedges or found(markers, markers.hedge, text) else None)):
        if said:
            out.append((kind, said))
    return [Evidence(entry.path, kind, topic, j.weight(kind), detail) for kind, detail in out]


def signal_score(signals: Sequence[Evidence]) -> float:
    """Each kind of signal counts once (its weight); eng_more_sources counts per further source."""
    once = {e.kind: e.weight for e in signals if e.kind != "eng_more_sources"}
    return sum(once.values()) + sum(e.weight for e in signals if e.kind == "eng_more_sources")
