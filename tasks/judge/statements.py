"""Patterns compiled from the judgment word lists (`tasks/config/judgment.toml`), cached per list.

Two shapes of list:
- words ("待核实", "skip"): any of them, found with `word_pattern`;
- statement templates ("已在 {topic}.md 锚定"): `{topic}` is any name or alias of a known topic,
  found with `topic_statements`, which says which topic each statement names.
A space in a word or template matches any run of whitespace or none; an ASCII letter or digit at
either end of a word (or of a template's literal text) must sit on an ASCII word boundary, and so
must an ASCII topic name (Chinese prose runs names into the next word: "非inference主轴"); a
Chinese name must end its word ("无训练方法" says nothing about training).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from tasks.common.working_set import per_window_item
from tasks.config.judgment import Judgment
from tasks.judge.terms import term_pattern, terms_pattern, vocabulary

_NEVER = re.compile(r"(?!x)x")
_ASCII_EDGE = r"[A-Za-z0-9]"


@lru_cache(maxsize=256)
def word_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """Any of `words` (longer ones first, so "skipped" is found whole)."""
    kept = sorted((w for w in words if w.strip()), key=lambda w: (-len(w), w))
    return re.compile(terms_pattern(kept), re.I) if kept else _NEVER


def _literal(text: str) -> str:
    return re.escape(text).replace(r"\ ", r"\s*")


def _template(template: str, names: str) -> str:
    before, _, after = template.partition("{topic}")
    head = (f"(?<!{_ASCII_EDGE})" if before[:1].isascii() and before[:1].isalnum() else "") + _literal(before)
    tail = _literal(after) + (f"(?!{_ASCII_EDGE})" if after[-1:].isascii() and after[-1:].isalnum() else "")
    return f"{head}{names}{tail}" if "{topic}" in template else head


def _anchor(template: str) -> str:
    """The longest literal chunk of a template, lower-cased: a text without it cannot match."""
    chunks = [c for part in template.split("{topic}") for c in part.lower().split(" ") if c]
    return max(chunks, key=len) if chunks else ""


# Where a template says {topic}: an ASCII name (ending where ASCII letters, digits, "_" and "-"
# end) or a run of CJK characters; the name found is then looked up among the known topics'.
# (Writing every topic's names into every template made compiling them cost seconds.)
_ASCII_NAME = r"(?<![A-Za-z0-9_-])[A-Za-z][A-Za-z0-9_-]*(?![A-Za-z0-9_-])"


@lru_cache(maxsize=256)
def template_patterns(templates: tuple[str, ...], cjk_names: tuple[str, ...] = ()
                      ) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each template (with `{topic}`) as (anchor, pattern), tried only on texts holding its anchor.

    `{topic}` is any ASCII name (looked up among the known topics' afterwards) or one of the known
    Chinese names (which must end their word: "无训练方法" says nothing about training). Writing
    every name into every template, or a CJK range, made compiling them cost a second.
    """
    cjk = "|".join(re.escape(n) for n in sorted(cjk_names, key=lambda n: (-len(n), n)))
    group = f"(?P<topic>{_ASCII_NAME}" + (f"|(?:{cjk})(?![\\w-])" if cjk else "") + ")"
    return tuple((_anchor(t), re.compile(_template(t, group), re.I)) for t in templates if "{topic}" in t)


@lru_cache(maxsize=64)
def name_index(judgment: Judgment) -> tuple[tuple[str, ...], dict[str, str]]:
    """Every name and alias of a known topic, and the topic each one is (lower-cased)."""
    index: dict[str, str] = {}
    for topic in judgment.topics:
        for name in topic.names:
            index.setdefault(name.lower(), topic.name)
    return tuple(sorted(index)), index


@lru_cache(maxsize=64)
def _cjk(names: tuple[str, ...]) -> tuple[str, ...]:
    """The names that are not ASCII, sorted."""
    return tuple(sorted(n for n in names if not n.isascii()))


def topic_statements(text: str, templates: tuple[str, ...], judgment: Judgment,
                     extra: Iterable[tuple[str, str]] = (), negations: tuple[str, ...] = ()
                     ) -> list[tuple[str, str]]:
    """(topic, statement) for each statement of `templates` in `text`, in text order.

    `extra`: (name, topic) pairs of topics the judgment does not list (a topic briefed without
    configuration) that statements may also name. `negations`: words that, right before a
    statement, deny it ("不交给 rag", "not handing it to rag"): such a statement is not one.
    """
    denied = _after_negation(negations) if negations else None
    names, index = name_index(judgment)
    more = {n.lower(): t for n, t in extra if n.lower() not in index}
    folded = text.lower()
    found: list[tuple[int, str, str]] = []
    cjk = _cjk(tuple(sorted({*names, *more})) if more else names)
    for anchor, pattern in template_patterns(templates, cjk):
        if anchor not in folded:
            continue
        for m in pattern.finditer(text):
            if denied is not None and denied.search(text, max(0, m.start() - _NEGATION_REACH), m.start()):
                continue
            name = m.group("topic").lower()
            topic = index.get(name) or more.get(name)
            if topic:
                found.append((m.start(), topic, m.group(0)))
    return [(topic, said) for _, topic, said in sorted(found)]


_NEGATION_REACH = 12  # characters before a statement read for a negation word


@lru_cache(maxsize=16)
def _after_negation(words: tuple[str, ...]) -> re.Pattern[str]:
    """Any of `words` ending where the statement starts (only whitespace between)."""
    kept = sorted((w for w in words if w.strip()), key=lambda w: (-len(w), w))
    return re.compile("(?:" + terms_pattern(kept) + r")\s*$", re.I) if kept else _NEVER


def found_word(words: tuple[str, ...], text: str, unless: tuple[str, ...] = ()) -> str | None:
    """The first of `words` in `text` that is not the start of one of `unless` ("不进一步")."""
    return _found_word(words, text, unless)


# A pure function of its arguments, asked of the same entries' texts by every window of a lookback.
@per_window_item(16384)
def _found_word(words: tuple[str, ...], text: str, unless: tuple[str, ...]) -> str | None:
    # Only words that could occur can match (the vocabulary's substring tests are far cheaper than
    # the alternation's lookbehinds at every position of a long entry).
    vocab = vocabulary(words)
    could = vocab.could_occur(text)
    present = [w for w in vocab.kept if w in could]
    exceptions = word_pattern(unless) if unless else None
    best: tuple[int, int, str] | None = None  # (start, -length, text): leftmost, then longest
    for word in present:  # one cached pattern per word: a pattern per subset of words compiled for ever
        for m in _word_regex(word).finditer(text):
            if exceptions is None or not exceptions.match(text, m.start()):
                if best is None or (m.start(), -len(m.group(0))) < best[:2]:
                    best = (m.start(), -len(m.group(0)), m.group(0))
                break
    return best[2] if best else None


@lru_cache(maxsize=4096)
def _word_regex(word: str) -> re.Pattern[str]:
    return re.compile(term_pattern(word), re.I)
