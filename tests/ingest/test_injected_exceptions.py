"""Contract: for every parser and stage, an arbitrary exception raised for one input costs that input
alone. Each case monkeypatches one function to raise for the target file (or topic) only; the
evening still publishes the inference briefing, the target file is stored with an error naming the
exception's type, and a failing topic is reported failed while the others publish."""

from __future__ import annotations

import functools
import importlib
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from tasks.config.settings import Settings
from tests.helpers import SAMPLE_WORKSPACE
from tests.ingest.hostile import run_evening, sources

MARK = "INJECT-MARK-"  # + the stage's number: each stage raises for its own file only
TOPIC = "injectx"  # + the stage's number: each topic stage raises for its own topic only


class InjectedError(Exception):
    """Nothing in the product knows this exception."""


def _names(marker: str) -> Callable[[Any], bool]:
    def hits(value: Any) -> bool:
        if isinstance(value, str):
            return marker in value
        if isinstance(value, bytes):
            return marker.encode() in value
        return marker in repr(value)

    return hits


def _is_topic(name: str) -> Callable[[Any], bool]:
    def hits(value: Any) -> bool:
        return value == name or getattr(value, "name", None) == name or getattr(value, "topic", None) == name

    return hits


def _raising(real: Callable[..., Any], hits: Callable[[Any], bool]) -> Callable[..., Any]:
    @functools.wraps(real)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if any(hits(a) for a in (*args, *kwargs.values())):
            raise InjectedError(f"injected into {getattr(real, '__name__', real)}")
        return real(*args, **kwargs)

    return wrapper


# (module, function, kind of file the marker goes in): the file-level stages.
FILE_STAGES = [
    ("tasks.ingest.scan", "_check", "note"),
    ("tasks.ingest.store", "read_file", "note"),
    ("tasks.ingest.source_row", "decode_bytes", "note"),
    ("tasks.ingest.rows", "source_header", "note"),
    ("tasks.ingest.rows", "note_items", "note"),
    ("tasks.ingest.sources", "parse_note", "note"),
    ("tasks.ingest.rows", "cap_contexts", "note"),
    ("tasks.ingest.rows", "parse_card", "card"),
    ("tasks.ingest.rows", "card_items", "card"),
    ("tasks.ingest.rows", "parse_queue", "queue"),
    ("tasks.ingest.rows", "queue_items", "queue"),
    ("tasks.ingest.rows", "parse_knowledge", "knowledge"),
]
# The topic-level stages, each raising for its own topic.
TOPIC_STAGES = [  # where each stage is looked up when a topic is briefed (tasks/stages)
    ("tasks.stages.briefings", "window_of"), ("tasks.stages.derive", "collect_window"),
    ("tasks.stages.derive", "observe_window"), ("tasks.stages.derive", "judge_evening"),
    ("tasks.stages.briefings", "build_content"), ("tasks.publish.rendered", "render_markdown"),
    ("tasks.publish.rendered", "briefing_view"), ("tasks.stages.briefings", "publish_with_site"),
]


def _target(root: Path, k: int, kind: str) -> str:
    """Write stage k's target file (its marker in its name and text) and return its path."""
    marker = f"{MARK}{k:02d}"
    if kind == "note":
        rel = f"inbox/jay/2026-10-09-15{k:02d}-jay-{marker}.md"
        text = f"## 1. vLLM serving {marker} (arXiv:2610.04631)\n\n- 2× faster\n\n## 2. more vLLM {marker}\n"
    elif kind == "card":
        rel = f"organized/paper_cards/92{k:02d}-2610-092{k:02d}.md"
        text = f"---\narxiv: 2610.092{k:02d}\ntitle: {marker}\nprimary: inference\ncreated: 2026-10-09\n---\nTL;DR vLLM\n"
    elif kind == "queue":
        rel = f"organized/queue/queue-{marker}.md"
        text = f"## 2026-10-09 21:00\n\n| # | arXiv | 标题 |\n|---|---|---|\n| 1 | 2610.04631 | {marker} |\n"
    else:
        rel = f"organized/knowledge/k{k:02d}.md"
        text = (f"# k\n\nversion: v1 · updated: 2026-10-08 12:00 · citations: 1\n\n## §1 {marker}\n\n"
                "- Tool arXiv:2610.04102 [anchored 2026-10-01]\n")
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, "utf-8")
    return rel


def _patch(monkeypatch: pytest.MonkeyPatch, module: str, name: str, hits: Callable[[Any], bool]) -> None:
    owner: Any = importlib.import_module(module)
    *path, attr = name.split(".")
    for part in path:
        owner = getattr(owner, part)
    monkeypatch.setattr(owner, attr, _raising(getattr(owner, attr), hits))


def test_an_exception_in_any_file_stage_costs_that_file_alone(
    tmp_path: Path, settings: Settings, clean_db: Engine, monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = tmp_path / "ws"
    shutil.copytree(SAMPLE_WORKSPACE, root, symlinks=True)
    targets = {}
    for k, (module, name, kind) in enumerate(FILE_STAGES):
        targets[f"{module}.{name}"] = _target(root, k, kind)
        _patch(monkeypatch, module, name, _names(f"{MARK}{k:02d}"))
    _, results = run_evening(settings, root, ["inference"])
    assert results[0].error is None and results[0].written
    stored = sources(clean_db)
    for stage, path in targets.items():
        assert path in stored, f"{stage}: {path} not recorded"
        assert "InjectedError" in (stored[path].error or ""), f"{stage}: {stored[path].error}"
    hit = {p for p, s in stored.items() if s.error and "InjectedError" in s.error}
    assert hit == set(targets.values())


def test_an_exception_in_any_topic_stage_fails_that_topic_alone(
    tmp_path: Path, settings: Settings, clean_db: Engine, monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = tmp_path / "ws"
    shutil.copytree(SAMPLE_WORKSPACE, root, symlinks=True)
    topics = []
    for k, (module, name) in enumerate(TOPIC_STAGES):
        topics.append(f"{TOPIC}{k}")
        # A document of its own: a topic without one is refused before any of its stages runs.
        (root / "organized" / "knowledge" / f"{TOPIC}{k}.md").write_text(f"# {TOPIC}{k}\n\nversion: v1\n", "utf-8")
        _patch(monkeypatch, module, name, _is_topic(f"{TOPIC}{k}"))
    _, results = run_evening(settings, root, [*topics, "inference"])
    by_topic = {r.topic: r for r in results}
    assert by_topic["inference"].error is None and by_topic["inference"].written
    for topic, (module, name) in zip(topics, TOPIC_STAGES, strict=True):
        assert "InjectedError" in (by_topic[topic].error or ""), f"{module}.{name}: {by_topic[topic]}"


@pytest.mark.parametrize("target", ["fetch_hf_daily", "fetch_arxiv_category"])
def test_an_exception_in_a_feed_client_is_that_feeds_error(
    target: str, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datetime as dt

    from tasks.feeds import stage

    def boom(*_: Any, **__: Any) -> Any:
        raise InjectedError("injected into the feed")

    monkeypatch.setattr(stage, target, boom)
    kind = "hf_daily" if target == "fetch_hf_daily" else "arxiv"
    snapshot = stage.fetch_feed(settings, kind, dt.date(2026, 10, 9), "cs.DC")
    assert snapshot.items == () and "InjectedError" in (snapshot.error or "")
