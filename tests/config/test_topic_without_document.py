"""Contract (issue 47, point 4): a topic with no knowledge document is refused, in one line.

A topic the topics file configures but the workspace has no `organized/knowledge/<topic>.md` for
has no baseline: every paper would be NET-new against nothing (the issue's 「不收：RAGCache-Bench」).
So it is never briefed. The CLI refuses it before starting (exit 2), saying how to create the
document; a run that reaches the stage anyway (a deployment's parameter) fails that topic with
the same line and publishes nothing for it, while the other topics run on. Once the document
exists, even as the one line the message suggests, the topic briefs. Workspaces are generated.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import Engine

from predigest.cli_checks import UsageError, check_topics
from tasks.config.settings import Settings
from tasks.model.keys import briefing_keys
from tasks.stages.briefed_topics import known_topic_names, topics_for
from tasks.stages.briefings import brief
from tasks.window.anchors import NoBaseline
from tests.generate.files import write_file
from tests.generate.replay import KNOWLEDGE, day_of, write_day
from tests.helpers import ingest_all, point_flows_at, published_store

DAY = day_of(2)
HOW = "create organized/knowledge/rag.md (a title `# rag` and a line `version: v1` are enough"


def _workspace(root: Path) -> Path:
    for index in (1, 2):
        write_day(root, index)
    write_file(root, "predigest-topics.toml", '[topics.rag]\nterms = ["RAG", "retrieval"]\n')
    write_file(root, f"inbox/jay/{DAY.isoformat()}T1100-jay-rag.md",
               "# RAG 笔记\n\n## 条目1 · 不收：RAGCache-Bench（arXiv:2611.00077）\n\n- RAG retrieval cache 基准。\n")
    return root


def test_the_cli_refuses_it_in_one_line(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    settings = Settings(_env_file=None, home=tmp_path / "home")  # type: ignore[call-arg]
    assert "rag" in known_topic_names(settings, root)  # configured, so not "unknown"
    for how in ({"requested": ["rag"]}, {"requested": ["inference", "rag"]}, {"topics": ["rag"]}):
        configured = settings.model_copy(update={"topics": how.get("topics", [])})
        with pytest.raises(UsageError) as refused:
            check_topics(configured, root, how.get("requested"))
        message = str(refused.value)
        assert "\n" not in message and HOW in message and "no knowledge document" in message
    assert check_topics(settings, root, None) == ["inference"]  # an all-topics run briefs the documents


def test_the_stage_refuses_it_and_a_one_line_document_makes_it_a_topic(
        clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    ref = ingest_all(settings, root)
    (rag,) = topics_for(settings, root, ["rag"])
    with pytest.raises(NoBaseline, match="has no knowledge document: create organized/knowledge/rag.md"):
        brief(settings, ref, rag, DAY)
    store = published_store(settings)
    assert all(store.get(key) is None for key in briefing_keys("rag", DAY))

    write_file(root, f"{KNOWLEDGE}/rag.md", "# rag\n\nversion: v1\n")  # what the message says is enough
    check_topics(settings, root, ["rag"])
    ref = ingest_all(settings, root)
    assert brief(settings, ref, rag, DAY).written
    markdown = (store.get(briefing_keys("rag", DAY)[0]) or b"").decode("utf-8")
    assert "organized/knowledge/rag.md" in markdown


def test_the_evening_flow_fails_that_topic_alone(
        prefect_harness: None, clean_db: Engine, settings: Settings, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from flows.daily import daily_briefing

    root = _workspace(tmp_path / "ws")
    point_flows_at(monkeypatch, settings)
    results = asyncio.run(daily_briefing(date=DAY, topics=["inference", "rag"], workspace=str(root)))
    by_topic = {r.topic: r for r in results}
    assert by_topic["inference"].error is None and by_topic["inference"].written
    failed = by_topic["rag"]
    assert failed.error is not None and not failed.written and HOW in failed.error
    store = published_store(settings)
    assert all(store.get(key) is None for key in briefing_keys("rag", DAY))
