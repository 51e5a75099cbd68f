"""Contract: a workspace's `predigest-judgment.toml` reaches the briefing.

Each test writes a small workspace of its own (a knowledge document and one evening note), briefs it
through the real pipeline (ingest, judge, verify, render) once with the packaged judgment and once
with a `predigest-judgment.toml` that adds one word to one table, and asserts on the briefing:

- `[markers] hedge`: a line holding the added word (and no packaged hedge) raises a pending item;
- `[titles] markers`: an added title marker in front of a paper's name leaves its title;
- `[credibility.words]`: a note whose description holds an added repost word is rated as a repost.

The override repeats the packaged list with the word added (a list in an override replaces the
packaged one), so the change each test sees is that word's alone.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from tasks.config.judgment import WORKSPACE_JUDGMENT_FILE, packaged_config
from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tests.helpers import empty_tables, ingest_all

DAY = dt.date(2026, 11, 10)
TOPIC = "inference"
NOTE = f"inbox/mara/{DAY}T1400-mara-inference-notes.md"
DOC = (f"# {TOPIC} · 知识活文档\n\nversion: v1 · updated: {DAY - dt.timedelta(days=1)} 12:00 · citations: 1\n\n"
       "## §1 现状\n\n- **vLLM**（arXiv:2309.06180）：PagedAttention serving。[anchored 2026-07-14]\n")


def _toml_list(words: list[str]) -> str:
    return "[" + ", ".join(json.dumps(w, ensure_ascii=False) for w in words) + "]"


def _added(table: str, key: str, word: str) -> str:
    """An override of `[table] key`: the packaged list plus `word`."""
    config: dict[str, Any] = packaged_config()
    for part in table.split("."):
        config = config[part]
    return f"[{table}]\n{key} = {_toml_list([*config[key], word])}\n"


def _brief(settings: Settings, root: Path, note: str, override: str | None) -> tuple[dict[str, Any], str]:
    """The evening's JSON twin and Markdown for a workspace of the knowledge document and `note`."""
    (root / "organized" / "knowledge").mkdir(parents=True)
    (root / "organized" / "knowledge" / f"{TOPIC}.md").write_text(DOC, encoding="utf-8")
    (root / NOTE).parent.mkdir(parents=True)
    (root / NOTE).write_text(note, encoding="utf-8")
    if override is not None:
        (root / WORKSPACE_JUDGMENT_FILE).write_text(override, encoding="utf-8")
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, [TOPIC])
    markdown, json_text = render_briefing(settings, ref, topic, window_of(topic, DAY))
    return json.loads(json_text), markdown


def _both(settings: Settings, engine: Engine, tmp_path: Path, note: str,
          override: str) -> tuple[tuple[dict[str, Any], str], tuple[dict[str, Any], str]]:
    """(the briefing on the packaged judgment, the briefing with `override`), each from a fresh database."""
    empty_tables(engine)
    packaged = _brief(settings, tmp_path / "packaged", note, None)
    empty_tables(engine)
    overridden = _brief(settings, tmp_path / "override", note, override)
    return packaged, overridden


def _section(markdown: str, heading: str) -> str:
    """The Markdown section that starts with `heading`, up to the next section."""
    return markdown.split(f"\n{heading}", 1)[1].split("\n## ", 1)[0]


def _pending(data: dict[str, Any]) -> list[str]:
    return [v["subject"] for v in data["verifications"] if v["status"] == "pending" and NOTE in v["sources"]]


@pytest.mark.parametrize("word", ["zweifelhaft", "有待商榷"])
def test_an_added_hedge_word_raises_a_pending_item(word: str, settings: Settings, clean_db: Engine,
                                                  tmp_path: Path) -> None:
    note = ("# Inference notes\n\n## QuillServe 1.2 decode claim\n\n"
            f"- QuillServe 1.2 claims a 3.1× decode speed-up over vLLM on H200, {word}: one model measured.\n")
    (before, _), (after, markdown) = _both(settings, clean_db, tmp_path, note,
                                           _added("markers", "hedge", word))
    assert _pending(before) == []
    assert any("QuillServe" in s for s in _pending(after)), after["verifications"]
    assert "QuillServe" in _section(markdown, "## 三")


def test_an_added_title_marker_leaves_the_papers_title(settings: Settings, clean_db: Engine, tmp_path: Path) -> None:
    note = ("# Inference notes\n\n## Quorbix · SpecFlow: Speculative Decoding at Scale (arXiv:2611.04242)\n\n"
            "- A new paper on speculative decoding for vLLM serving: decode throughput up 1.8× on H200.\n")
    (before, _), (after, markdown) = _both(settings, clean_db, tmp_path, note,
                                           _added("titles", "markers", "Quorbix"))
    title = {p["arxiv_id"]: p["title"] for p in before["increments"]}["2611.04242"]
    assert title.startswith("Quorbix")
    assert {p["arxiv_id"]: p["title"] for p in after["increments"]}["2611.04242"] == \
        "SpecFlow: Speculative Decoding at Scale"
    increments = _section(markdown, "## 二")
    assert "SpecFlow: Speculative Decoding at Scale" in increments and "Quorbix" not in increments


def test_an_added_repost_word_rates_the_note_a_repost(settings: Settings, clean_db: Engine, tmp_path: Path) -> None:
    note = ("# Inference notes\n\nA weitergereicht digest of what others wrote this week.\n\n"
            "## Tiered KV cache offloading in vLLM\n\n- vLLM 0.12 spills the KV cache to CPU memory, then to NVMe.\n")
    (before, _), (after, markdown) = _both(settings, clean_db, tmp_path, note,
                                           _added("credibility.words", "repost", "weitergereicht"))

    def rating(data: dict[str, Any]) -> dict[str, Any]:
        return next(s for s in data["sources"] if s["path"] == NOTE)["rating"]

    assert rating(before)["kind"] != "repost"
    assert rating(after)["kind"] == "repost"
    assert rating(after)["stars"] == packaged_config()["credibility"]["repost"]
    assert "⭐" * packaged_config()["credibility"]["repost"] in markdown


def test_changed_credibility_numbers_reword_the_rule_line(settings: Settings, clean_db: Engine, tmp_path: Path) -> None:
    note = "# Inference notes\n\n## Tiered KV cache offloading in vLLM\n\n- vLLM 0.12 spills the KV cache to CPU memory.\n"
    (before, _), (after, markdown) = _both(settings, clean_db, tmp_path, note,
                                           "[credibility]\nmalformed_penalty = 3\n")
    assert "−3" not in before["credibility_rule"]
    assert "−3" in after["credibility_rule"] and after["credibility_rule"] in markdown
