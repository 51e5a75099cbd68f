"""Contract of the stored derivation (`tasks.stages.derive`): rows are a cache of one fold over the
windows, kept valid by fingerprints.

- deriving through a date derives every window up to it that holds something, oldest first;
  deriving again (through that date or an earlier one) writes nothing;
- a note added later and dated on day k drops and re-derives from day k's window on, never earlier;
- a new version of the code (`timeline.derivation_code`) derives every window again, with no number
  bumped by hand;
  an arXiv lookup made later re-derives from the window of its time;
- the staleness check derives through its day first, so its report never depends on which
  evenings were run;
- what is stored after any of this equals what a fresh database derives (natural keys).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, insert, text

from db.models import Paper
from tasks.config.settings import Settings
from tasks.stages import timeline
from tasks.stages.briefed_topics import topics_for
from tasks.stages.verifications import derive_verifications, report_staleness
from tests.generate import replay as gen
from tests.helpers import empty_tables, ingest_all


def _stored(engine: Engine) -> tuple[list[Any], list[Any]]:
    with engine.connect() as conn:
        return (
            [tuple(r) for r in conn.execute(text(
                "SELECT key, kind, subject, claim, raised_on, last_seen FROM verifications ORDER BY key"))],
            [tuple(r) for r in conn.execute(text(
                "SELECT v.key, e.day, e.window_day, e.action, e.source_path, e.detail FROM verification_events e "
                "JOIN verifications v ON v.id = e.verification_id ORDER BY 1, 2, 3, 4, 5"))],
        )


def _derived(summary: Any) -> list[str]:
    return [d["date"] for d in summary.derived]


def _derived_days(settings: Settings, tmp_path: Path, days: int) -> tuple[Path, Any, Any, Any]:
    """A generated workspace of `days` days, ingested and derived through its last day."""
    root = tmp_path / "ws"
    for index in range(1, days + 1):
        gen.write_day(root, index)
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, [gen.TOPIC])
    return root, ref, topic, derive_verifications(settings, ref, topic, gen.day_of(days))


def test_the_cache_is_rederived_from_the_first_window_that_changed(
    clean_db: Engine, settings: Settings, tmp_path: Path
) -> None:
    root, ref, topic, first = _derived_days(settings, tmp_path, 6)
    assert first.dropped_from is not None and gen.day_of(1).isoformat() in _derived(first)
    assert _derived(first) == sorted(_derived(first)) and _derived(first)[-1] == gen.day_of(6).isoformat()
    for day in (gen.day_of(6), gen.day_of(3)):
        again = derive_verifications(settings, ref, topic, day)
        assert again.dropped_from is None and again.derived == []

    gen.write_conflict(root, gen.day_of(4))  # two notes dated day 4, written after the fact
    ingest_all(settings, root)
    later = derive_verifications(settings, ref, topic, gen.day_of(6))
    assert later.dropped_from == gen.day_of(4)
    assert _derived(later) == [gen.day_of(n).isoformat() for n in (4, 5, 6)]

    looked_up = dt.datetime.combine(gen.day_of(5), dt.time(9), ZoneInfo("Asia/Shanghai"))
    with clean_db.begin() as conn:
        conn.execute(insert(Paper).values(arxiv_id=gen.PAPER, status="unknown", looked_up_at=looked_up))
    lookup = derive_verifications(settings, ref, topic, gen.day_of(6))
    assert lookup.dropped_from == gen.day_of(5)
    stale = report_staleness(settings, ref, topic, gen.day_of(6))
    assert stale["stale"] + stale["pending"] + stale["resolved"] >= 1
    after = _stored(clean_db)

    empty_tables(clean_db)  # a fresh database: the same workspace, derived once through day 6
    ref = ingest_all(settings, root)
    with clean_db.begin() as conn:
        conn.execute(insert(Paper).values(arxiv_id=gen.PAPER, status="unknown", looked_up_at=looked_up))
    derive_verifications(settings, ref, topic, gen.day_of(6))
    assert _stored(clean_db) == after


def test_new_code_derives_every_window_again(clean_db: Engine, settings: Settings, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _, ref, topic, first = _derived_days(settings, tmp_path, 3)
    assert derive_verifications(settings, ref, topic, gen.day_of(3)).derived == []
    stored = _stored(clean_db)
    monkeypatch.setattr(timeline, "derivation_code", lambda: "another version of predigest")
    upgraded = derive_verifications(settings, ref, topic, gen.day_of(3))
    assert _derived(upgraded) == _derived(first) and upgraded.dropped_from == gen.day_of(1)
    assert _stored(clean_db) == stored  # the same code's answer: derived again, recorded the same
