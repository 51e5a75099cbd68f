"""Patterns compiled from the judgment word lists (`predigest/judgment.toml`), cached per list.

Two shapes of list:
- words ("待核实", "skip"): any of them, found with `word_pattern`;
- statement templates ("已在 {topic}.md 锚定"): `{topic}` is any name or alias of a known topic,
  found with `topic_statements`, which says which topic each statement names.
A space in a word or template matches any run of whitespace or none; an ASCII letter or digit at
either end of a word (or of a template's literal text) must sit on an ASCII word boundary, and so
must an ASCII topic name (Chinese prose runs names into the next word: "非inference主轴").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from predigest.judgment import Judgment
from tasks.judge.terms import term_pattern

_NEVER = re.compile(r"(?!x)x")
_ASCII_EDGE = r"[A-Za-z0-9]"


@lru_cache(maxsize=256)
def word_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """Any of `words` (longer ones first, so "skipped" is found whole)."""
    kept = sorted((w for w in words if w.strip()), key=lambda w: (-len(w), w))
    return re.compile("|".join(term_pattern(w) for w in kept), re.I) if kept else _NEVER


def _literal(text: str) -> str:
    return re.escape(text).replace(r"\ ", r"\s*")


def _template(template: str, names: str) -> str:
    before, _, after = template.partition("{topic}")
    head = (f"(?<!{_ASCII_EDGE})" if before[:1].isascii() and before[:1].isalnum() else "") + _literal(before)
    tail = _literal(after) + (f"(?!{_ASCII_EDGE})" if after[-1:].isascii() and after[-1:].isalnum() else "")
    return f"{head}{names}{tail}" if "{topic}" in template else head


def _name(name: str) -> str:
    escaped = re.escape(name)
    # A Chinese name must end its word ("无训练方法" says nothing about training).
    return rf"(?<![A-Za-z0-9_-]){escaped}(?![A-Za-z0-9_-])" if name.isascii() else rf"{escaped}(?![\w-])"


@lru_cache(maxsize=256)
def template_pattern(templates: tuple[str, ...], names: tuple[str, ...]) -> re.Pattern[str]:
    """Any of `templates`, group `topic` holding the topic name it names."""
    if not templates or not names:
        return _NEVER
    alternation = "(?P<topic>" + "|".join(_name(n) for n in sorted(names, key=lambda n: (-len(n), n))) + ")"
    parts = [f"(?:{_template(t, alternation)})" for t in templates if "{topic}" in t]
    # Each alternative has its own `topic` group: give them distinct names, read back by prefix.
    numbered = [p.replace("(?P<topic>", f"(?P<topic{i}>", 1) for i, p in enumerate(parts)]
    return re.compile("|".join(numbered), re.I) if numbered else _NEVER


@lru_cache(maxsize=64)
def name_index(judgment: Judgment) -> tuple[tuple[str, ...], dict[str, str]]:
    """Every name and alias of a known topic, and the topic each one is (lower-cased)."""
    index: dict[str, str] = {}
    for topic in judgment.topics:
        for name in topic.names:
            index.setdefault(name.lower(), topic.name)
    return tuple(sorted(index)), index


def topic_statements(text: str, templates: tuple[str, ...], judgment: Judgment,
                     extra: Iterable[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """(topic, statement) for each statement of `templates` in `text`, in order.

    `extra`: (name, topic) pairs of topics the judgment does not list (a topic briefed without
    configuration) that statements may also name.
    """
    names, index = name_index(judgment)
    more = {n.lower(): t for n, t in extra if n.lower() not in index}
    pattern = template_pattern(templates, tuple(sorted({*names, *more})))
    found = []
    for m in pattern.finditer(text):
        name = next(v for k, v in m.groupdict().items() if v is not None and k.startswith("topic"))
        topic = index.get(name.lower()) or more.get(name.lower())
        if topic:
            found.append((topic, m.group(0)))
    return found


def found_word(words: tuple[str, ...], text: str, unless: tuple[str, ...] = ()) -> str | None:
    """The first of `words` in `text` that is not the start of one of `unless` ("不进一步")."""
    exceptions = word_pattern(unless) if unless else None
    for m in word_pattern(words).finditer(text):
        if exceptions is None or not exceptions.match(text, m.start()):
            return m.group(0)
    return None
