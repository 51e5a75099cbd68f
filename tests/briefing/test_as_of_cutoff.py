"""Contract: a briefing reads what was in force at its cutoff, judged by time.

- A file stored in several versions: the briefing of a date reads the version first seen (the
  earlier of the file's mtime when read and the ingest time) by its cutoff; a date before the
  edit reads the old version, a date after it the new one. When only versions first seen after
  the cutoff exist, it reads the earliest and says so in that source's row.
- The knowledge document's baseline (version, update time, citation count) is the one in force at
  the cutoff: the header when dated by then, else the change log's last update before the cutoff
  (its version column); when neither tells, the version is reported unknown ("版本不明").
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine

from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.workspace import register_workspace
from tests.helpers import ingest_all

TZ = ZoneInfo("Asia/Shanghai")
# No date in its name: each version is dated by its front matter (`_dated`), written as it is edited.
EDITED = "inbox/jay/kv-notes.md"
DATED = "inbox/jay/2026-10-02T1000-jay-kv.md"

KNOWLEDGE = """# inference · 知识活文档

version: v12 · updated: 2026-10-09 12:00 · citations: 30

## 更新记录

| 午间更新 | 版本 | 合入内容 | 引用数 |
|---|---|---|---|
| 2026-10-09 12:00 | v11 → v12 | 合入 Oct 8 E1 | 28 → 30 |
| 2026-10-07 12:00 | v11 | 合入 Oct 6 E1 | 25 → 28 |
| 2026-10-05 12:00 | v10 | 合入 Oct 4 E1 | 25 |

## §1 推理引擎

- vLLM 调度基线 arXiv:2609.00001 [anchored 2026-10-01]
"""


def _entry(number: int, name: str, arxiv_id: str) -> str:
    return (f"## 条目{number} · {name}（arXiv:{arxiv_id}）\n\n"
            f"{name} 改进 vLLM 的 KV cache 调度，推理吞吐提升 1.4×。建议进 E1。\n\n")


def _write(root: Path, rel: str, text: str, at: dt.datetime) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (at.timestamp(), at.timestamp()))


def _dated(at: dt.datetime) -> str:
    return f"---\ndate: {at:%Y-%m-%d %H:%M}\n---\n"


def _local(day: int, hour: int) -> dt.datetime:
    return dt.datetime(2026, 10, day, hour, 0, tzinfo=TZ)


def _brief(settings: Settings, root: Path, day: dt.date) -> dict[str, Any]:
    ref = register_workspace(settings, root)
    (topic,) = topics_for(settings, root, ["inference"])
    return json.loads(render_briefing(settings, ref, topic, window_of(topic, day))[1])


def _ids(brief: dict[str, Any]) -> set[str]:
    return {c["arxiv_id"] for c in brief["citations"]} | {c["arxiv_id"] for c in brief["off_topic"]}


def _source(brief: dict[str, Any], path: str) -> dict[str, Any] | None:
    return next((s for s in brief["sources"] if s["path"] == path), None)


def test_a_date_before_an_edit_reads_the_old_version_and_a_date_after_the_new(
    clean_db: Engine, settings: Settings, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    _write(root, "organized/knowledge/inference.md", KNOWLEDGE, _local(9, 12))
    _write(root, EDITED, _dated(_local(3, 10)) + _entry(1, "FooKV", "2610.01111"), _local(3, 10))
    ingest_all(settings, root)
    _write(root, EDITED, _dated(_local(6, 9)) + _entry(1, "FooKV", "2610.01111") + _entry(2, "BarKV", "2610.02222"),
           _local(6, 9))
    ingest_all(settings, root)

    before = _brief(settings, root, dt.date(2026, 10, 3))
    assert _source(before, EDITED) is not None
    assert "2610.01111" in _ids(before) and "2610.02222" not in _ids(before)
    after = _brief(settings, root, dt.date(2026, 10, 6))
    assert _source(after, EDITED) is not None and "仅存截止后" not in _source(after, EDITED)["summary"]
    assert {"2610.01111", "2610.02222"} <= _ids(after)
    # The old version's window no longer holds the file once the new version is in force.
    assert _source(_brief(settings, root, dt.date(2026, 10, 3)), EDITED) == _source(before, EDITED)
    assert _source(_brief(settings, root, dt.date(2026, 10, 5)), EDITED) is None


def test_only_later_versions_are_read_and_flagged(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _write(root, "organized/knowledge/inference.md", KNOWLEDGE, _local(9, 12))
    _write(root, DATED, _entry(1, "FooKV", "2610.01111"), _local(4, 10))  # first seen after Oct 2's cutoff
    ingest_all(settings, root)
    _write(root, DATED, _entry(1, "FooKV", "2610.01111") + _entry(2, "BarKV", "2610.02222"), _local(5, 10))
    ingest_all(settings, root)

    brief = _brief(settings, root, dt.date(2026, 10, 2))
    row = _source(brief, DATED)
    assert row is not None and row["summary"].startswith("仅存截止后的版本")
    assert "2026-10-04 10:00" in row["summary"]
    assert "2610.01111" in _ids(brief) and "2610.02222" not in _ids(brief)  # the earliest of them


def test_the_baseline_is_the_version_in_force_at_the_cutoff(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _write(root, "organized/knowledge/inference.md", KNOWLEDGE, _local(9, 12))
    for day in (4, 8, 9):
        _write(root, f"inbox/jay/2026-10-{day:02d}T1000-jay-kv.md", _entry(1, "FooKV", "2610.01111"), _local(day, 10))
    ingest_all(settings, root)
    ref = register_workspace(settings, root)
    (topic,) = topics_for(settings, root, ["inference"])

    def baseline(day: int) -> tuple[dict[str, Any], str]:
        markdown, json_text = render_briefing(settings, ref, topic, window_of(topic, dt.date(2026, 10, day)))
        return json.loads(json_text)["knowledge"], markdown

    knowledge, markdown = baseline(9)  # the header is dated before the cutoff
    assert (knowledge["version"], knowledge["citations"]) == ("v12", 30)
    assert "inference.md v12" in markdown
    knowledge, markdown = baseline(8)  # the header is newer: the change log's update of Oct 7
    assert (knowledge["version"], knowledge["citations"]) == ("v11", 28)
    assert knowledge["updated_at"].startswith("2026-10-07T12:00")
    line = next(line for line in markdown.splitlines() if line.startswith("基线："))
    assert "inference.md v11" in line and "v12" not in line and "2026-10-07 12:00" in line
    knowledge, markdown = baseline(4)  # before every update the document records: nothing tells
    assert knowledge["version"] is None and knowledge["citations"] is None
    assert "版本不明" in markdown
