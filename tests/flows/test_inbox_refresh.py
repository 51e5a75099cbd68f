"""Contract of the refresh after the `ingest-inbox-file` flow (flows/inbox.py) stores a file, on an
ephemeral Prefect API and the real clock (each topic's daily cutoff is set hours away from now):

- a late note dated into a topic's latest closed window republishes that topic's briefing for that
  date, with the note's paper in it; a topic whose window containing the note is still open (its
  cutoff is later in the day) is not briefed, and none of its objects changes;
- a note dated into the window still open publishes nothing and changes no object, and neither do
  an undated note or a changed knowledge document;
- a reader's feedback file (organized/feedback/<topic>.md) is picked up like a note: a verdict
  recorded by a closed window's cutoff republishes that briefing, its page and its feed; one
  recorded after it waits for the next evening and changes nothing now.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine

from tasks.config.settings import Settings
from tasks.inbox.feedback_file import feedback_path, format_line
from tasks.model.windows import latest_closed_date
from tests.generate.documents import knowledge_document
from tests.helpers import point_flows_at


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()}


def _note(inbox: Path, at: dt.datetime, arxiv_id: str) -> str:
    """A serving note named by its local time `at`; returns its workspace-relative path."""
    name = f"{at:%Y-%m-%dT%H%M}-alice-serving.md"
    (inbox / name).write_text(
        f"# Alice · Serving notes\n\n## 条目#1 · KV cache offload for vLLM serving\n\n"
        f"- arXiv:{arxiv_id} — KV cache 分层卸载，vLLM 上 TTFT 降低 30%，throughput +12%。\n- 建议：§3 KV Cache。\n",
        encoding="utf-8")
    return f"inbox/alice/{name}"


def _net_new(out: Path, topic: str, day: dt.date) -> set[str]:
    brief = json.loads((out / "briefings" / topic / f"{day.isoformat()}.json").read_text(encoding="utf-8"))
    return {c["arxiv_id"] for c in brief["citations"] if c["status"] == "net_new"}


def test_a_late_note_republishes_its_closed_window_and_an_open_one_waits(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from flows.daily import daily_briefing
    from flows.inbox import ingest_inbox_file

    point_flows_at(monkeypatch, settings)
    tz = ZoneInfo(settings.timezone)
    now = dt.datetime.now(tz).replace(second=0, microsecond=0)
    ws = (tmp_path / "ws").resolve()
    # inference closed three hours ago; rag closes in an hour (both daily).
    schedules = {"inference": now - dt.timedelta(hours=3), "rag": now + dt.timedelta(hours=1)}
    ws.mkdir()
    (ws / "predigest-topics.toml").write_text("".join(
        f'[topics.{name}]\nschedule = "{at.minute} {at.hour} * * *"\n' for name, at in schedules.items()), encoding="utf-8")
    inbox = ws / "inbox" / "alice"
    inbox.mkdir(parents=True)
    knowledge = ws / "organized" / "knowledge"
    knowledge.mkdir(parents=True)
    (knowledge / "inference.md").write_text(knowledge_document("inference", [], None), encoding="utf-8")
    (knowledge / "rag.md").write_text(knowledge_document("rag", [], None), encoding="utf-8")
    closed = latest_closed_date(f"{schedules['inference'].minute} {schedules['inference'].hour} * * *",
                                settings.timezone, now)
    _note(inbox, now - dt.timedelta(hours=5), "2611.01001")
    published = asyncio.run(daily_briefing(workspace=str(ws)))  # each topic's latest closed window
    assert ("inference", closed) in [(r.topic, r.date) for r in published]
    out = tmp_path / "published"
    assert _net_new(out, "inference", closed) == {"2611.01001"}
    before = _snapshot(out)

    late = _note(inbox, now - dt.timedelta(hours=4), "2611.01002")
    result = asyncio.run(ingest_inbox_file(path=late, workspace=str(ws)))

    assert result.status == "new"
    assert [(r.topic, r.date, r.written) for r in result.refreshed] == [("inference", closed, True)]
    assert _net_new(out, "inference", closed) == {"2611.01001", "2611.01002"}
    after = _snapshot(out)
    changed = {key for key in after if before.get(key) != after[key]}
    assert f"briefings/inference/{closed.isoformat()}.md" in changed
    assert not any(key.startswith("briefings/rag/") for key in changed)

    # Dated after inference's last cutoff: tonight's run briefs it; nothing is published now.
    early = _note(inbox, now - dt.timedelta(hours=2), "2611.01003")
    (inbox / "undated-alice-serving.md").write_text("# Alice\n\n- arXiv:2611.01004 vLLM serving\n", encoding="utf-8")
    (knowledge / "inference.md").write_text(knowledge_document("inference", [("2611.01001", "KV offload", closed)], None),
                                            encoding="utf-8")
    quiet = asyncio.run(ingest_inbox_file(path=early, workspace=str(ws), paths=[
        "inbox/alice/undated-alice-serving.md", "organized/knowledge/inference.md"]))
    assert quiet.status == "new" and quiet.refreshed == ()
    assert _snapshot(out) == after

    # A reader's verdict, recorded before inference's cutoff: the closed briefing is republished.
    feedback = ws / feedback_path("inference")
    feedback.parent.mkdir(parents=True)
    # Recorded in the window and on the closed briefing's own day: a verdict dated before the day of
    # the briefing it answers answers a briefing not yet written (verdicts.BEFORE_BRIEFING), which
    # `now - 4h` is when the cutoff falls just after midnight.
    recorded = max(now - dt.timedelta(hours=4), dt.datetime.combine(closed, dt.time(), tz))
    verdict = format_line(closed, "2611.01002", "not-ours", "jay", recorded)
    feedback.write_text(f"# Feedback\n\n{verdict}\n", encoding="utf-8")
    judged = asyncio.run(ingest_inbox_file(path=feedback_path("inference"), workspace=str(ws)))
    assert judged.status == "new"
    assert [(r.topic, r.date, r.written) for r in judged.refreshed] == [("inference", closed, True)]
    brief = json.loads((out / "briefings" / "inference" / f"{closed.isoformat()}.json").read_text(encoding="utf-8"))
    assert [p["arxiv_id"] for p in brief["off_topic"] if "jay" in p["reason"]] == ["2611.01002"]
    refreshed = _snapshot(out)
    changed = {key for key in refreshed if after.get(key) != refreshed[key]}
    assert {f"briefings/inference/{closed.isoformat()}.{ext}" for ext in ("md", "json", "html")} | {
        "briefings/inference/atom.xml"} <= changed, sorted(changed)
    # Recorded now, after the cutoff: the closed briefing does not apply it (the next evening does). Its
    # one change: both versions of the file were first seen after that cutoff, and the file's row says so.
    later = format_line(closed, "2611.01001", "not-ours", "jay", now)
    feedback.write_text(f"# Feedback\n\n{verdict}\n{later}\n", encoding="utf-8")
    waiting = asyncio.run(ingest_inbox_file(path=feedback_path("inference"), workspace=str(ws)))
    assert waiting.status == "new"
    twin = f"briefings/inference/{closed.isoformat()}.json"

    def without_feedback_row(raw: bytes) -> dict[str, object]:
        doc = json.loads(raw)
        doc["sources"] = [r for r in doc["sources"] if r["path"] != feedback_path("inference")]
        return doc

    assert without_feedback_row((out / twin).read_bytes()) == without_feedback_row(refreshed[twin][0])
