"""Names of things without an arXiv id: normalisation, distinctive tokens and fuzzy matching.

Two names match when they share most of their distinctive tokens (ASCII words that are not
stop words, and CJK runs), or one strong single token ("FooKernel", "BarQuant"), or are nearly
the same string. Free text names a thing when it holds a run of the name's leading tokens.
The words are data: judgment.toml `[names] stop / common` and `[markers] generic_title_regex`, as
the run's merged judgment gives them; `names_of(judgment)` compiles them once per judgment.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz

from tasks.common.text import CJK_RANGE
from tasks.common.working_set import per_window_item
from tasks.config.judgment import Judgment
from tasks.verify.markers import Markers, markers_of, strip_labels

_ASCII = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_WORD = re.compile(rf"[A-Za-z0-9]+|[{CJK_RANGE}]{{2,}}")
_BRACKETS = re.compile(r"[（(][^（()）]{0,120}[)）]")
# A release's version ("v0.5.40", "0.5.13", "v2"): not a figure ("2.7x", "1.6%") nor part of a longer token.
VERSION = re.compile(r"(?<![\w.])(?:v\d+(?:\.\d+){0,2}|\d+(?:\.\d+){1,2})(?![\w.%％×])", re.I)
# `fuzz.ratio` of two normalised names at or above which they are nearly the same string.
FUZZY_SAME = 92
# A configuration key or flag ("kv_cache_dtype", "--max-num-seqs", "spec.k=4"): a setting, not a thing in doubt.
_CONFIG_KEY = re.compile(r"^(?:--?[a-z][\w.-]*|[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+|[\w.-]+=\S*)$")


# Pure and called for the same few thousand names by every check of every window.
@per_window_item(16384)
def normalise(name: str) -> str:
    """Lower-case, brackets and markup dropped, whitespace collapsed: the stable form of a name."""
    text = _BRACKETS.sub(" ", name.replace("**", "").replace("`", ""))
    return " ".join(m.group(0).lower() for m in _WORD.finditer(text))[:200]


@dataclass(frozen=True, eq=False)
class Names:
    """One judgment's name matching (see the module docstring; `names_of`): its stop words, the
    words too common in this domain to identify a thing on their own, and its section headings."""

    markers: Markers = field(repr=False)
    stop: frozenset[str] = field(repr=False)
    common: frozenset[str] = field(repr=False)
    # `distinctive`, cached per judgment: called for the same few thousand names by every check of every window.
    distinctive: Callable[[str], frozenset[str]] = field(init=False, repr=False)
    # `distinct_words`, cached per judgment: a backfill indexes each note entry's text in the ~30
    # windows after it (tasks.increments.naming_index), and splitting it was a third of that.
    distinct_words: Callable[[str], tuple[str, ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "distinctive", per_window_item(16384)(self._distinctive))
        object.__setattr__(self, "distinct_words", per_window_item(8192)(self._distinct_words))

    def __hash__(self) -> int:
        return hash(self.markers)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Names) and other.markers == self.markers

    def _distinctive(self, name: str) -> frozenset[str]:
        """Tokens that identify a name: ASCII words (not stop words or bare numbers) and CJK runs: what
        the indexes of names key on (a version shared by many names would make their lists long)."""
        text = _BRACKETS.sub(" ", name)
        return frozenset(
            t.lower() for t in _WORD.findall(text)
            if not t.isdigit() and t.lower() not in self.stop and (len(t) > 1 or not t.isascii())
        )

    def _strong(self, token: str, original: str) -> bool:
        """A single token that names one thing: mixed case, digits or hyphen-free coinage, not a common word."""
        if token in self.common or len(token) < 4 or not token.isascii():
            return False
        for m in _ASCII.finditer(original):
            word = m.group(0)
            if word.lower() == token:
                return any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word) or (
                    word[0].isupper() and len(word) >= 6
                )
        return False

    def coined_tokens(self, name: str) -> frozenset[str]:
        """The distinctive tokens of a name that each name one thing on their own ("vllm" of "vLLM 分层 KV 卸载")."""
        return frozenset(t for t in self.distinctive(name) if self._strong(t, name))

    def is_generic(self, title: str | None) -> bool:
        """A heading that names a section of a note (summary, action items), not a thing."""
        return not title or bool(self.markers.generic_title.match(title.strip(" #*·:：")))

    def names_nothing(self, title: str | None) -> bool:
        """A heading or phrase that cannot be a pending item's subject: nothing but the note's labels
        and markers ("⚠️ T2 待核实", "Needs verification", "未解决"), a section heading ("五、摘要"),
        or a configuration key."""
        m = self.markers
        rest = strip_labels(m, title or "")
        if not rest or m.generic_title.match(rest.strip(" #*·:：")) or any(
                _CONFIG_KEY.match(t.strip("`* ")) for t in (rest, title or "")):
            return True
        return not self.distinctive(m.hedge.sub(" ", rest))

    def is_name(self, text: str) -> bool:
        """Whether a short phrase can name one thing: one strong token, or two or more distinctive ones."""
        tokens = self.distinctive(text)
        if len(tokens) == 1:
            return self._strong(next(iter(tokens)), text)
        return len(tokens) >= 2

    def head_token(self, name: str) -> str | None:
        """The coined name a title starts with ("FooCache 预告" -> "foocache"), if it is a strong token."""
        m = _ASCII.match(name.strip(" #*·"))
        if not m:
            return None
        token = m.group(0).lower()
        return token if self._strong(token, m.group(0)) and len(token) >= 5 else None

    def names_match(self, a: str, b: str) -> bool:
        """Whether two names denote the same thing."""
        ta, tb = self.distinctive(a), self.distinctive(b)
        if not ta or not tb:
            return False
        va, vb = versions(a), versions(b)
        if va and vb and not va & vb:
            return False  # two versions of one thing are two releases ("SGLang v0.5.40", "SGLang 0.5.13")
        # A stated version is part of what a name identifies: "SGLang 0.5.13" is a release, not any
        # name holding "SGLang". (A name's index lists still find every pair this accepts: a pair that
        # shares a version but one word has a side of one word, which they list by its word.)
        ta, tb = ta | va, tb | vb
        shared = ta & tb
        small = min(len(ta), len(tb))
        if len(shared) >= 2 and len(shared) / small >= 0.75:
            return True
        if len(shared) == 1 and small == 1:
            (token,) = shared
            return self._strong(token, a if len(ta) == 1 else b)
        return fuzz.ratio(normalise(a), normalise(b)) >= FUZZY_SAME

    def same_thing(self, a: str, b: str) -> bool:
        """`names_match`, or both names lead with the same coined name ("QuuxCache 调度器" and
        "QuuxCache P99 test conditions"): a pending item is about the thing, not the wording."""
        head = self.head_token(a)
        return self.names_match(a, b) or (head is not None and head == self.head_token(b))

    def text_words(self, text: str) -> list[str]:
        """The lower-cased ASCII words of free text, stop words left out, in order (what `mentions_name` reads)."""
        return [t.lower() for t in _ASCII.findall(text) if t.lower() not in self.stop]

    def _distinct_words(self, text: str) -> tuple[str, ...]:
        """The distinct words of `text` (`text_words`), in first-seen order."""
        return tuple(dict.fromkeys(self.text_words(text)))

    def mention_run(self, name: str) -> tuple[str, ...]:
        """The run of words free text must hold to name `name`: its leading ASCII tokens (3, or all if
        fewer); empty when no text can name it (no such token, or a single one that is not strong)."""
        seq = [t for t in self.text_words(_BRACKETS.sub(" ", name)) if not t.isdigit()]
        need = seq[: min(3, len(seq))]
        if len(need) == 1 and not self._strong(need[0], name):
            return ()
        return tuple(need)

    def mentions_name(self, text: str, name: str) -> bool:
        """Whether free text names `name`: a run of its leading ASCII tokens (3, or all if fewer)."""
        need = list(self.mention_run(name))
        if not need:
            return False
        words = self.text_words(text)
        n = len(need)
        return any(words[i : i + n] == need for i in range(len(words) - n + 1))

    def short_name(self, title: str) -> str | None:
        """The coined name before a colon ("FOO: A Serving System" -> "FOO"), when it is one."""
        head = re.split(r"[:：]", title, maxsplit=1)[0].strip()
        if head == title.strip() or not head or len(head) > 40:
            return None
        tokens = self.distinctive(head)
        if len(tokens) == 1 and self._strong(next(iter(tokens)), head):
            return head
        return head if len(tokens) >= 2 and head.isascii() else None


@lru_cache(maxsize=16384)
def versions(text: str) -> frozenset[str]:
    """The version numbers a name states ("v2.0" and "2.0" are the same)."""
    return frozenset(m.group(0).lower().lstrip("v") for m in VERSION.finditer(text))


@lru_cache(maxsize=8)
def names_of(j: Judgment) -> Names:
    """`j`'s name matching, compiled once per judgment (a judgment compares by its content digest)."""
    m = markers_of(j)
    return Names(m, m.stop_words, m.common_words)


def lead_phrase(text: str) -> str | None:
    """The subject a list item or table row leads with ("FooKernel「…」：…" -> "FooKernel")."""
    if " | " in text:
        first = text.split(" | ", 1)[0]
        first = re.sub(r"^[#＃]?\d{1,3}[.)、]?\s*", "", first).strip()
        return first or None
    m = re.match(r"\s*([^：:「（(|,，。；;]{2,40}?)\s*[：:「（(]", text)
    if not m:
        return None
    lead = m.group(1).strip(" *·-—").lstrip("+ ")  # a "+" list marker, never a name's trailing "++"
    return lead or None
