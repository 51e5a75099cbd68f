"""What a note says about itself, kept on its first entry (`items.extra`): written by ingest
(`tasks.ingest.sources`), read into `EntryView.front_matter` and `.note_title`
(`tasks.window.entries`). One place for the keys, so writer and reader cannot drift apart."""

from __future__ import annotations

from typing import Any

# What of a note's title is kept: markers sit at its start, and a longer "title" is a line of garbage.
NOTE_TITLE_CHARS = 2000


def note_facts(front_matter: dict[str, str], title: str | None) -> dict[str, Any]:
    """`items.extra` of a note's first entry: its front matter (its own credibility rating,
    tasks/window/credibility) and its title, which no entry holds (a published briefing's
    "# … E1 预消化简报 …" says it is one: tasks.judge.own_text.echo_paths)."""
    facts: dict[str, Any] = {}
    if front_matter:
        facts["front_matter"] = dict(front_matter)
    if title:
        facts["note_title"] = title[:NOTE_TITLE_CHARS]
    return facts


def read_note_facts(extra: dict[str, Any]) -> tuple[tuple[tuple[str, str], ...], str | None]:
    """`note_facts` read back: the front matter as sorted (key, value) pairs, and the title."""
    fields = extra.get("front_matter") or {}
    title = extra.get("note_title")
    return tuple(sorted((str(k), str(v)) for k, v in fields.items())), str(title) if title else None
