"""Contract of `tasks.stages.briefings.assemble_and_publish` under concurrency: two assemblies of the same
(topic, date) never run at once. While the first holds the briefings row lock (it is rendering),
the second waits in PostgreSQL on that lock; when the first commits, the second goes on, finds the
same content and writes nothing. The result is one briefings row and the same bytes for both.
The test observes the wait in pg_stat_activity (no sleeps or timing assertions).
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from tasks.config.settings import Settings
from tasks.stages import briefings as briefing_stage
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import BriefingResult, assemble_and_publish, render_briefing
from tests.generate.ten_days import make_workspace
from tests.helpers import ingest_all


def _lock_waiters(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND query ILIKE '%FOR UPDATE%'"
        )).scalar_one())


def _wait_for(condition: object, what: str, deadline_s: float = 60.0) -> None:
    end = time.monotonic() + deadline_s
    while not condition():  # type: ignore[operator]
        if time.monotonic() > end:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.05)


def test_same_topic_and_date_are_serialised(
    clean_db: Engine, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = (tmp_path / "ws").resolve()
    make_workspace(ws)
    ref = ingest_all(settings, ws)
    (topic,) = topics_for(settings, ws, ["inference"])
    window = window_of(topic, dt.date(2026, 10, 5))

    real_render = briefing_stage.briefing_content  # what assemble_and_publish builds under the row lock
    gate = threading.Event()
    in_render = 0
    max_in_render = 0
    entered = threading.Event()
    guard = threading.Lock()

    def render(*args: object, **kwargs: object) -> object:
        nonlocal in_render, max_in_render
        with guard:
            in_render += 1
            max_in_render = max(max_in_render, in_render)
        entered.set()
        gate.wait(timeout=120)
        try:
            return real_render(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            with guard:
                in_render -= 1

    monkeypatch.setattr(briefing_stage, "briefing_content", render)
    results: dict[str, BriefingResult] = {}
    errors: list[BaseException] = []

    def assemble(name: str) -> None:
        try:
            results[name] = assemble_and_publish(settings, ref, topic, window)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    first = threading.Thread(target=assemble, args=("first",))
    first.start()
    _wait_for(entered.is_set, "the first assembly to take the row lock and render")
    second = threading.Thread(target=assemble, args=("second",))
    second.start()
    _wait_for(lambda: _lock_waiters(clean_db) == 1, "the second assembly to wait on the row lock")
    assert in_render == 1  # the second is blocked in the database, not rendering
    gate.set()
    first.join(120)
    second.join(120)
    assert not errors
    assert max_in_render == 1
    assert results["first"].content_hash == results["second"].content_hash
    assert [results["first"].written, results["second"].written] == [True, False]
    with clean_db.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM briefings")).scalar_one() == 1
    out = tmp_path / "published" / "briefings" / "inference"
    markdown, json_text = render_briefing(settings, ref, topic, window)
    assert (out / "2026-10-05.md").read_bytes() == markdown.encode("utf-8")
    assert (out / "2026-10-05.json").read_bytes() == json_text.encode("utf-8")
