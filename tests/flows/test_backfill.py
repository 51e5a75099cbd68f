"""Contract of the backfill flow (flows/backfill.py) on an ephemeral Prefect API, over a generated
ten-day workspace with two topics:

- one run publishes exactly one briefing per topic and date (10 x 2 rows and 40 objects), each
  byte-identical to `tasks.stages.briefings.render_briefing` for that date alone on the same database;
- the dates run as tasks of the backfill run, one per chunk of consecutive dates
  (`brief 2026-10-01..2026-10-07`, `brief 2026-10-08..2026-10-10`, after any windows before the
  range that hold something, `verify <first>..<last>`), not as child flow runs;
- running it again (in this process this time: one worker) rewrites nothing: every result says
  unchanged, and object bytes, modification times and row counts stay as they were;
- `force` re-publishes every date (results say written, `published_at` moves) without adding rows;
- the progress hook hears every date once; bad ranges and bounds are refused;
- a backfill of child runs (`child_deployment`) starts its worker processes only to derive windows:
  a re-run with nothing left to derive starts none;
- a parallel backfill publishes the same bytes, and stores the same verifications and events, as
  the evenings run one after another (verifications derived through each date, then the briefing),
  in a second database.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import brief, render_briefing
from tasks.stages.workspace import register_workspace
from tests.generate.ten_days import DAYS, make_workspace
from tests.helpers import briefed_days, ingest_all, point_flows_at


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()}


def _counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {t: conn.execute(text(f'SELECT count(*) FROM "{t}"')).scalar_one()
                for t in ("sources", "items", "mentions", "briefings")}


def _verifications(engine: Engine) -> tuple[list[Any], list[Any]]:
    """Every verification and event, by natural key (ids left out: only their order could differ)."""
    with engine.connect() as conn:
        return (
            [tuple(r) for r in conn.execute(text(
                "SELECT topic, key, kind, subject, claim, raised_on, last_seen FROM verifications ORDER BY topic, key"))],
            [tuple(r) for r in conn.execute(text(
                "SELECT v.topic, v.key, e.day, e.action, e.source_path, e.detail FROM verification_events e "
                "JOIN verifications v ON v.id = e.verification_id ORDER BY 1, 2, 3, 4, 5"))],
        )


BRIEFED = briefed_days(DAYS)  # the default schedule skips Sundays


def test_date_range_and_keys() -> None:
    from tasks.backfill.jobs import date_range
    from tasks.backfill.runs import idempotency_key

    assert date_range(DAYS[0], DAYS[2]) == DAYS[:3]
    assert date_range(DAYS[0], DAYS[0]) == DAYS[:1]
    with pytest.raises(ValueError):
        date_range(DAYS[2], DAYS[0])
    assert idempotency_key(["inference"], DAYS[0], "abc") == "backfill-inference-2026-10-01-abc"


def test_parameters_are_typed_for_the_ui() -> None:
    from prefect.utilities.callables import parameter_schema

    from flows.backfill import backfill_briefings

    schema = parameter_schema(backfill_briefings).model_dump_for_openapi()
    props = schema["properties"]
    assert set(schema["required"]) == {"start", "end"}
    assert props["start"]["format"] == "date" and props["force"]["type"] == "boolean"
    assert props["max_concurrency"]["default"] == 2 and props["max_concurrency"]["minimum"] == 1
    with pytest.raises(Exception, match="max_concurrency"):
        backfill_briefings.validate_parameters({"start": "2026-10-01", "end": "2026-10-02", "max_concurrency": 0})


def test_backfill_publishes_each_date_as_alone_and_rerun_changes_nothing(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from prefect import get_client

    from flows.backfill import backfill_briefings
    from tasks.backfill.runs import report_progress

    point_flows_at(monkeypatch, settings)
    ws = (tmp_path / "ws").resolve()
    make_workspace(ws)
    heard: list[dt.date] = []
    with report_progress(lambda day, results: heard.append(day)):
        results = backfill_briefings(start=DAYS[0], end=DAYS[-1], workspace=str(ws), max_concurrency=3)
    assert sorted(heard) == DAYS  # progress is reported for every date, Sundays (nothing to brief) included
    assert [(r.topic, r.date) for r in results] == [(t, d) for d in BRIEFED for t in ("inference", "rag")]
    assert all(r.written for r in results)

    out = tmp_path / "published" / "briefings"
    ref = register_workspace(settings, ws)
    for topic in topics_for(settings, ws, None):
        for day in BRIEFED:
            markdown, json_text = render_briefing(settings, ref, topic, window_of(topic, day))
            assert (out / topic.name / f"{day}.md").read_bytes() == markdown.encode("utf-8")
            assert (out / topic.name / f"{day}.json").read_bytes() == json_text.encode("utf-8")
    with clean_db.connect() as conn:
        rows = conn.execute(text("SELECT topic, date, count(*) FROM briefings GROUP BY topic, date")).all()
    assert sorted((t, d) for t, d, _ in rows) == sorted((t, d) for d in BRIEFED for t in ("inference", "rag"))
    assert {n for _, _, n in rows} == {1}

    with get_client(sync_client=True) as client:
        flow_runs = {r.name for r in client.read_flow_runs()}
        task_runs = {r.name for r in client.read_task_runs()}
    assert not {name for name in flow_runs if name.startswith("briefing ")}
    assert {"brief 2026-10-01..2026-10-07", "brief 2026-10-08..2026-10-10"} <= task_runs

    objects, counts = _snapshot(out), _counts(clean_db)
    again = backfill_briefings(start=DAYS[0], end=DAYS[-1], workspace=str(ws), max_concurrency=1)
    assert not any(r.written for r in again)
    assert [r.content_hash for r in again] == [r.content_hash for r in results]
    assert _snapshot(out) == objects
    assert _counts(clean_db) == counts

    with clean_db.connect() as conn:
        before: dict[dt.date, dt.datetime] = dict(conn.execute(text("SELECT date, published_at FROM briefings WHERE topic = 'rag'")).tuples().all())
    forced = backfill_briefings(start=DAYS[0], end=DAYS[1], topics=["rag"], workspace=str(ws), force=True)
    assert [(r.topic, r.date, r.written) for r in forced] == [("rag", DAYS[0], True), ("rag", DAYS[1], True)]
    with clean_db.connect() as conn:
        after: dict[dt.date, dt.datetime] = dict(conn.execute(text("SELECT date, published_at FROM briefings WHERE topic = 'rag'")).tuples().all())
    assert all(after[d] > before[d] for d in DAYS[:2]) and all(after[d] == before[d] for d in DAYS[2:])
    assert _counts(clean_db) == counts
    assert {k: v[0] for k, v in _snapshot(out).items()} == {k: v[0] for k, v in objects.items()}


def test_a_backfill_of_child_runs_starts_worker_processes_only_to_derive(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With `child_deployment`, this run only derives the windows; a re-run, with nothing left to
    derive, starts no worker process. (The child runs are stubbed: they need a deployment's workers,
    tests/stacks/test_prefect_server.py.)"""
    import flows.backfill as backfill_flow

    point_flows_at(monkeypatch, settings)
    ws = (tmp_path / "ws").resolve()
    make_workspace(ws)
    entered: list[int] = []
    handed: list[list[dt.date]] = []

    class CountedLanes(backfill_flow.DateLanes):
        def __enter__(self) -> backfill_flow.DateLanes:
            entered.append(self.workers)
            return super().__enter__()

    def children(settings: Settings, days: list[dt.date], *args: Any) -> list[Any]:
        handed.append(days)
        return []

    monkeypatch.setattr(backfill_flow, "DateLanes", CountedLanes)
    monkeypatch.setattr(backfill_flow, "_children", children)
    for _ in range(2):
        backfill_flow.backfill_briefings(start=DAYS[0], end=DAYS[2], workspace=str(ws), max_concurrency=2,
                                         child_deployment="briefing-for-date/briefing-for-date")
    assert entered == [2]  # the first run derived; the re-run had nothing to derive
    assert handed == [DAYS[:3], DAYS[:3]]
    with clean_db.connect() as conn:
        derived = conn.execute(text("SELECT count(*) FROM verification_windows")).scalar_one()
        published = conn.execute(text("SELECT count(*) FROM briefings")).scalar_one()
    assert derived > 0 and published == 0


def test_cli_backfill_shows_progress(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from predigest.cli import main

    point_flows_at(monkeypatch, settings)
    ws = (tmp_path / "ws").resolve()
    make_workspace(ws)
    assert main(["backfill", "--from", "2026-10-01", "--to", "2026-10-03", "--topic", "rag",
                 "--workspace", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "2026-10-02  rag published" in out
    assert "3 briefings over 3 dates: 3 published, 0 unchanged" in out
    assert main(["backfill", "--from", "2026-10-03", "--to", "2026-10-01", "--workspace", str(ws)]) == 2


def test_backfill_equals_the_evenings_run_one_after_another(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    migrated_database: Callable[[str], str],
) -> None:
    """The evenings, replayed without Prefect in a second database (ingest, then for each date in
    order: the daily stage, which derives verifications through that date and publishes), publish the same
    bytes as one parallel backfill over the range, including the aging hedged claim."""
    from db.engine import make_engine
    from flows.backfill import backfill_briefings

    point_flows_at(monkeypatch, settings)
    ws = (tmp_path / "ws").resolve()
    make_workspace(ws)
    backfill_briefings(start=DAYS[0], end=DAYS[-1], workspace=str(ws), max_concurrency=4)

    url = migrated_database("predigest_evenings")
    evenings = settings.model_copy(update={"database_url": url, "storage_url": (tmp_path / "evenings").as_uri()})
    ref = ingest_all(evenings, ws)
    for day in DAYS:
        for topic in topics_for(evenings, ws, None):
            brief(evenings, ref, topic, day)
    backfilled, replayed = tmp_path / "published" / "briefings", tmp_path / "evenings" / "briefings"
    for topic in ("inference", "rag"):
        for day in DAYS:
            for suffix in (".md", ".json"):
                name = f"{topic}/{day}{suffix}"
                assert (backfilled / name).read_bytes() == (replayed / name).read_bytes(), name
    # The hedged claim of the third day is pending then, and stale by the tenth (7 days later).
    engine = make_engine(url, pool_size=1)
    assert _verifications(engine) == _verifications(clean_db)
    engine.dispose()
    raised = json.loads((backfilled / "inference" / f"{DAYS[2]}.json").read_text(encoding="utf-8"))
    last = json.loads((backfilled / "inference" / f"{DAYS[-1]}.json").read_text(encoding="utf-8"))
    assert [v["status"] for v in raised["verifications"] if v["kind"] == "hedge"] == ["pending"]
    assert [v["status"] for v in last["verifications"] if v["kind"] == "hedge"] == []  # no source mentions it since
    assert [v["status"] for v in last["earlier_verifications"] if v["kind"] == "hedge"] == ["stale"]
