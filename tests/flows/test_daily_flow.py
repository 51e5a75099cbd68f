"""Contract of the daily-briefing flow under Prefect: it ingests, publishes to local storage or S3,
and a second run changes nothing (row counts, object bytes and modification times)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from db.models import Base
from tasks.config.settings import Settings
from tests.helpers import SAMPLE_WORKSPACE, expected, point_flows_at


def _row_counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {t.name: conn.execute(text(f'SELECT count(*) FROM "{t.name}"')).scalar_one() for t in Base.metadata.sorted_tables}


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()}


def test_flow_publishes_and_rerun_changes_nothing(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from flows.daily import daily_briefing

    point_flows_at(monkeypatch, settings)
    day = dt.date(2026, 10, 9)
    results = asyncio.run(daily_briefing(date=day, topics=["inference"], workspace=str(SAMPLE_WORKSPACE)))
    assert [r.topic for r in results] == ["inference"] and results[0].written
    out = tmp_path / "published"
    brief = json.loads((out / "briefings" / "inference" / "2026-10-09.json").read_text(encoding="utf-8"))
    assert {c["arxiv_id"] for c in brief["citations"] if c["status"] == "net_new"} == set(expected("2026-10-09")["net_new"])
    index = json.loads((out / "briefings" / "index.json").read_text(encoding="utf-8"))
    assert [(e["topic"], e["date"]) for e in index["briefings"]] == [("inference", "2026-10-09")]

    counts, objects = _row_counts(clean_db), _snapshot(out)
    again = asyncio.run(daily_briefing(date=day, topics=["inference"], workspace=str(SAMPLE_WORKSPACE)))
    assert not again[0].written
    assert _row_counts(clean_db) == counts
    assert _snapshot(out) == objects


def test_flow_publishes_to_s3(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, s3_bucket: str
) -> None:
    import boto3

    from flows.daily import daily_briefing

    settings = settings.model_copy(update={"storage_url": f"s3://{s3_bucket}/team"})
    point_flows_at(monkeypatch, settings)
    asyncio.run(daily_briefing(date=dt.date(2026, 10, 7), topics=["inference"], workspace=str(SAMPLE_WORKSPACE)))
    s3 = boto3.client("s3", region_name="us-east-1")
    keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=s3_bucket)["Contents"])
    assert keys == ["team/briefings/index.html", "team/briefings/index.json",
                    "team/briefings/inference/2026-10-07.html", "team/briefings/inference/2026-10-07.json",
                    "team/briefings/inference/2026-10-07.knowledge.diff",  # the noon merge proposal
                    "team/briefings/inference/2026-10-07.knowledge.md",
                    "team/briefings/inference/2026-10-07.md", "team/briefings/inference/atom.xml",
                    "team/briefings/inference/index.html", "team/briefings/inference/site.json",
                    "team/predigest-workspace.json"]  # the workspace this store publishes for
    body = json.loads(s3.get_object(Bucket=s3_bucket, Key="team/briefings/inference/2026-10-07.json")["Body"].read())
    assert {c["arxiv_id"] for c in body["citations"] if c["status"] == "net_new"} == set(expected("2026-10-07")["net_new"])
