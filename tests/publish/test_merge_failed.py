"""Contract (issue 47, point 3): a briefing links only what its own run published.

The noon merge proposal is made before the briefing is written, from the document as ingest reads
it (a GB18030 document too). When it cannot be made (any exception of the step), the briefing says so in section 五 with the reason, its
twin's `knowledge_merge` has null keys and `failed`, and its page links no proposal, even where a
proposal of an earlier run is still stored. Same workspace, date and topic give the same bytes
whatever ran before. Workspaces are generated (tests/generate/replay.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tasks.config.settings import Settings
from tasks.model.keys import briefing_keys, proposal_keys, site_keys
from tasks.stages import briefings
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import BriefingResult, brief
from tests.generate.replay import KNOWLEDGE, TOPIC, day_of, write_day
from tests.helpers import ingest_all, published_store

DAY = day_of(2)
MD, JSON = briefing_keys(TOPIC, DAY)
PAGE = site_keys(TOPIC, DAY, "zh")["page"]
DIFF, DOCUMENT = proposal_keys(TOPIC, DAY)


def _workspace(root: Path) -> Path:
    for index in (1, 2):
        write_day(root, index)
    return root


def _brief(settings: Settings, root: Path) -> BriefingResult:
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, [TOPIC])
    return brief(settings, ref, topic, DAY)


def _published(settings: Settings) -> tuple[str, dict, str]:
    store = published_store(settings)
    return ((store.get(MD) or b"").decode("utf-8"), json.loads(store.get(JSON) or b"{}"),
            (store.get(PAGE) or b"").decode("utf-8"))


def _merge_line(markdown: str) -> str:
    (line,) = [x for x in markdown.splitlines() if "午间合入提案" in x]
    return line


def test_a_document_in_another_encoding_gets_its_proposal_linked(
        clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    doc = root / KNOWLEDGE / f"{TOPIC}.md"
    doc.write_bytes(doc.read_text(encoding="utf-8").encode("gb18030"))
    assert _brief(settings, root).written
    markdown, twin, page = _published(settings)
    merge = twin["knowledge_merge"]
    assert merge["diff"] == DIFF and "failed" not in merge  # the merge reads what ingest reads
    assert DIFF.rsplit("/", 1)[1] in page and "未能生成" not in _merge_line(markdown)
    assert published_store(settings).get(DIFF) is not None
    # Again: nothing is written, the same bytes stand.
    assert not _brief(settings, root).written
    assert _published(settings) == (markdown, twin, page)


def test_a_failed_step_never_links_an_earlier_runs_proposal(
        clean_db: Engine, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _workspace(tmp_path / "ws")
    assert _brief(settings, root).written
    good = _published(settings)
    assert good[1]["knowledge_merge"]["diff"] == DIFF and "failed" not in good[1]["knowledge_merge"]
    assert DIFF.rsplit("/", 1)[1] in good[2]  # the page links the proposal this run wrote
    store = published_store(settings)
    earlier_diff = store.get(DIFF)
    assert earlier_diff is not None

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the proposal step fell over")

    monkeypatch.setattr(briefings, "make_proposal", boom)
    assert _brief(settings, root).written
    markdown, twin, page = _published(settings)
    assert "RuntimeError: the proposal step fell over" in _merge_line(markdown)
    assert twin["knowledge_merge"]["diff"] is None and "fell over" in twin["knowledge_merge"]["failed"]
    assert "knowledge.diff" not in markdown and "knowledge.diff" not in page and "fell over" in page
    assert store.get(DIFF) == earlier_diff  # still stored from the earlier run, and not linked

    monkeypatch.undo()
    assert _brief(settings, root).written
    assert _published(settings) == good  # byte for byte what the first run published
