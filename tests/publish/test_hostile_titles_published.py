"""Contract (issue 47, point 1): no published markdown, and no knowledge document a merge writes,
holds live markup or an invisible control that a source put in a title.

A generated workspace (tests/generate/replay.py) gets hostile titles in each kind of source that
names papers: a paper card, a row of the work queue, a note's entry heading and an HF Daily feed
entry, each a paper of the briefed topic's vocabulary, so its title reaches the briefing (and the
merge proposal, for those judged the topic's). Every
`.md` object the run publishes (the briefing, the proposed document) and the document
`merge --apply` writes are rendered as CommonMark with raw HTML on: no element other than those the
markdown itself makes, no attribute at all, no bidi or C0/C1 control; each title's own words stay
readable.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from db.engine import get_engine
from tasks.config.judgment import default_judgment
from tasks.config.settings import Settings
from tasks.feeds.health import FeedHealthRule
from tasks.feeds.hf_daily import hf_daily_uri
from tasks.feeds.results import FeedItem, FeedSnapshot
from tasks.feeds.store import store_snapshot
from tasks.merge.merge_stage import merge_knowledge
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import brief
from tests.generate.files import write_file
from tests.generate.replay import KNOWLEDGE, TOPIC, day_of, write_day
from tests.helpers import ingest_all, published_store

DAY = day_of(2)
TITLES = {  # a source kind: its paper's id and hostile title (a word in it stays readable)
    "card": ("2611.00041", "<script>alert(1)</script>Kestrel \u202egnp.exe\u202c \x1b[31mserving"),
    "queue": ("2611.00042", "Heron <img src=x onerror=alert(2)> \u2066cache\u2069"),
    "note": ("2611.00043", "[Osprey](javascript:alert(3)) <svg onload=alert(4)> &#60;b&#62;"),
    "feed": ("2611.00044", "Plover <iframe src=javascript:alert(5)></iframe> \u200fKV\u200e \x9b2J"),
}
READABLE = {"card": "Kestrel", "queue": "Heron", "note": "Osprey", "feed": "Plover"}
_OWN = {"h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "strong", "em", "code", "table", "thead", "tbody", "tr",
        "th", "td", "hr", "br", "pre", "blockquote"}
_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9]*)([^>]*)>")
_INVISIBLE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _workspace(root: Path) -> Path:
    for index in (1, 2):
        write_day(root, index)
    card_id, card_title = TITLES["card"]
    write_file(root, f"organized/paper_cards/2001-{card_id.replace('.', '-')}.md", (
        f'---\narxiv: "{card_id}"\ntitle: "{card_title}"\nprimary: {TOPIC}\nsecondary: []\n'
        f"created: {DAY.isoformat()}\nvotes: 12\n---\n\n**TL;DR** KV cache 调度，吞吐提升。\n"))
    queue_id, queue_title = TITLES["queue"]
    write_file(root, "organized/queue/work-queue.md", (
        f"# Work Queue\n\n## {DAY.isoformat()} 22:00\n\n| # | arXiv | 标题 | 主分类 | 副分类 | 备注 |\n"
        f"|---|---|---|---|---|---|\n| 1 | {queue_id} | {queue_title} | {TOPIC} | engineering | 新入队 |\n"))
    note_id, note_title = TITLES["note"]
    write_file(root, f"inbox/amy/{DAY.isoformat()}T1100-amy-{TOPIC}-notes.md", (
        f"# {TOPIC} 笔记\n\n## 条目1 · {note_title}（arXiv:{note_id}）\n\n- 推理 serving 的 KV cache 新调度，吞吐提升 1.8×。\n"))
    return root


def _feed(settings: Settings, workspace_id: int) -> None:
    """An HF Daily snapshot of the day whose one entry has the feed's hostile title."""
    arxiv_id, title = TITLES["feed"]
    item = FeedItem(arxiv_id, 1, title, ("A. Author",), "KV cache 推理 serving 调度。", ("cs.DC",), None, None, None,
                    42, f"https://huggingface.co/papers/{arxiv_id}", arxiv_id)
    snapshot = FeedSnapshot(hf_daily_uri(DAY), "hf_daily", DAY, "e" * 64, (item,), requested_day=DAY)
    with Session(get_engine(settings)) as session, session.begin():
        store_snapshot(session, workspace_id, snapshot, dt.datetime.combine(DAY, dt.time(9), dt.UTC),
                       FeedHealthRule.of(default_judgment()))


def _live(markdown: str) -> list[tuple[str, str]]:
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    return [(name, attrs) for name, attrs in _TAG.findall(html) if name.lower() not in _OWN or attrs.strip()]


def _assert_inert(text: str, where: str) -> None:
    assert _live(text) == [], where
    assert not _INVISIBLE.findall(text), (where, _INVISIBLE.findall(text)[:5])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_hostile_titles_of_every_source_kind_publish_and_merge_as_text(
        clean_db: Engine, settings: Settings, tmp_path: Path, lang: str) -> None:
    settings = settings.model_copy(update={"lang": lang})
    root = _workspace(tmp_path / "ws")
    ref = ingest_all(settings, root)
    _feed(settings, ref.id)
    (topic,) = topics_for(settings, root, [TOPIC])
    assert brief(settings, ref, topic, DAY).written
    store = published_store(settings)
    published = [key for key in store.list("briefings/") if key.endswith(".md")]
    assert any(key.endswith(".knowledge.md") for key in published), published  # the proposal is among them
    texts = {key: (store.get(key) or b"").decode("utf-8") for key in published}
    briefing = next(text for key, text in texts.items() if not key.endswith(".knowledge.md"))
    for kind, word in READABLE.items():
        assert word in briefing, (kind, lang)  # each hostile title reached the briefing, as words
    for key, text in texts.items():
        _assert_inert(text, key)

    outcome = merge_knowledge(settings, root, TOPIC, DAY, apply=True)
    assert outcome.status == "applied", outcome
    merged = (root / KNOWLEDGE / f"{TOPIC}.md").read_text(encoding="utf-8")
    assert any(word in merged for word in READABLE.values())
    _assert_inert(merged, "the merged knowledge document")
