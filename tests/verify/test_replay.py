"""Contract: replaying 14 consecutive evenings on a generated workspace (ingest, record verifications,
render) gives the lifecycle the briefings promise, and re-rendering any past date afterwards (a
backfill) gives exactly the bytes of that evening.

- a hedge raised on day 1 is pending through day 7 and stale from day 8 (Settings.stale_after_days = 7);
- a hedge settled on day 5 is listed as resolved with its evidence that day and stays resolved;
- a promise dated day 5 surfaces on day 6 and is resolved when it is kept (day 9);
- a paper anchored on day 3 is NET-new on days 1-2 and already anchored from day 3 on, and its
  days_seen counts the earlier windows' mentions;
- deriving a date again adds no rows; report_staleness(settings, ref, topic, day) counts how they stand
  as of that day and names those that turned stale on it, from the events alone (nothing is written).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from db.engine import get_engine, session_scope
from db.models import Verification, VerificationEvent
from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.verifications import derive_verifications, report_staleness
from tasks.stages.workspace import WorkspaceRef
from tasks.verify.records import load_tracked
from tasks.verify.status import status_as_of
from tests.generate import replay as gen
from tests.helpers import empty_tables, ingest_all

DAYS = range(1, 15)


@dataclass
class Replay:
    settings: Settings
    ref: WorkspaceRef
    topic: Any
    evenings: dict[int, tuple[str, str]]

    def brief(self, index: int) -> dict[str, Any]:
        return json.loads(self.evenings[index][1])


@pytest.fixture(scope="module")
def replay(engine: Engine, module_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Replay:
    empty_tables(engine)
    settings = module_settings
    root = tmp_path_factory.mktemp("replay") / "workspace"
    evenings: dict[int, tuple[str, str]] = {}
    ref, topic = None, None
    for index in DAYS:
        gen.write_day(root, index)
        ref = ingest_all(settings, root)
        (topic,) = topics_for(settings, root, [gen.TOPIC])
        window = window_of(topic, gen.day_of(index))
        derive_verifications(settings, ref, topic, window.date)
        evenings[index] = render_briefing(settings, ref, topic, window)
    assert ref is not None
    return Replay(settings, ref, topic, evenings)


def _verification(brief: dict[str, Any], **match: str) -> dict[str, Any] | None:
    listed = brief["verifications"] + brief["earlier_verifications"]  # section 三, then earlier items
    found = [v for v in listed if all(v.get(k) == val for k, val in match.items())]
    assert len(found) <= 1, found
    return found[0] if found else None


def test_hedge_pending_through_day_7_then_stale(replay: Replay) -> None:
    for index in DAYS:
        item = _verification(replay.brief(index), kind="hedge", subject=gen.STALE_NAME)
        assert item is not None, index
        assert item["raised_on"] == gen.day_of(1).isoformat()
        assert item["age_days"] == index - 1
        assert item["status"] == ("pending" if index <= 7 else "stale"), index
    # Seen again on day 4 by another entry naming it: the same verification, not a new one.
    assert _verification(replay.brief(4), kind="hedge", subject=gen.STALE_NAME)["last_seen"] == gen.day_of(4).isoformat()
    stale_first = replay.brief(8)["earlier_verifications"][0]  # earlier items: stale first
    assert stale_first["subject"] == gen.STALE_NAME and stale_first["status"] == "stale"
    assert "⏳" in replay.evenings[8][0] and "已过期" in replay.evenings[8][0]


def test_settled_hedge_is_resolved_with_evidence_and_stays_resolved(replay: Replay) -> None:
    for index in range(1, gen.SETTLE_DAY):
        assert _verification(replay.brief(index), subject=gen.SETTLED)["status"] == "pending"
    resolved = _verification(replay.brief(gen.SETTLE_DAY), subject=gen.SETTLED)
    assert resolved is not None and resolved["status"] == "resolved"
    assert gen.EVIDENCE in resolved["evidence"]
    assert resolved["resolved_on"] == gen.day_of(gen.SETTLE_DAY).isoformat()
    assert "✅" in replay.evenings[gen.SETTLE_DAY][0]
    with session_scope(get_engine(replay.settings)) as session:
        for index in range(gen.SETTLE_DAY + 1, 15):
            assert _verification(replay.brief(index), subject=gen.SETTLED) is None  # no longer listed
            (item,) = [t for t in load_tracked(session, replay.ref.id, gen.TOPIC, gen.day_of(index))
                       if t.subject == gen.SETTLED]
            view = status_as_of(item, gen.day_of(index), replay.settings.stale_after_days)
            assert view is not None and view.status == "resolved" and gen.EVIDENCE in (view.evidence or "")


def test_promise_surfaces_after_its_date_and_resolves_when_kept(replay: Replay) -> None:
    due = (gen.PROMISE_DUE - gen.START).days + 1
    for index in range(1, due + 1):
        assert _verification(replay.brief(index), kind="promise") is None, index
    for index in range(due + 1, gen.PROMISE_KEPT_DAY):
        item = _verification(replay.brief(index), kind="promise")
        assert item is not None and item["status"] == "pending", index
        assert gen.PROMISE_DUE.strftime("%Y-%m-%d") in item["claim"]
    kept = _verification(replay.brief(gen.PROMISE_KEPT_DAY), kind="promise")
    assert kept is not None and kept["status"] == "resolved" and "已开源" in kept["evidence"]


def test_paper_is_net_new_until_its_anchor_day_then_already_anchored(replay: Replay) -> None:
    for index in DAYS:
        brief = replay.brief(index)
        increments = {i["arxiv_id"]: i for i in brief["increments"]}
        citations = {c["arxiv_id"]: c for c in brief["citations"]}
        if index < gen.ANCHOR_DAY:
            assert increments[gen.PAPER]["status"] == "net_new", index
            assert increments[gen.PAPER]["days_seen"] == index
            assert increments[gen.PAPER]["first_seen"] == gen.day_of(1).isoformat()
        else:
            assert gen.PAPER not in increments, index
            assert citations[gen.PAPER]["status"] == "already_anchored"
            assert citations[gen.PAPER]["anchored_on"] == gen.day_of(gen.ANCHOR_DAY).isoformat()


def test_backfill_reproduces_every_evening(replay: Replay) -> None:
    for index in DAYS:
        window = window_of(replay.topic, gen.day_of(index))
        assert render_briefing(replay.settings, replay.ref, replay.topic, window) == replay.evenings[index], index


def test_recording_again_adds_no_rows(replay: Replay) -> None:
    def counts() -> tuple[int, int]:
        with session_scope(get_engine(replay.settings)) as session:
            return (session.execute(select(func.count()).select_from(Verification)).scalar_one(),
                    session.execute(select(func.count()).select_from(VerificationEvent)).scalar_one())

    before = counts()
    for index in (1, gen.SETTLE_DAY, 14):
        derivation = derive_verifications(replay.settings, replay.ref, replay.topic, gen.day_of(index))
        assert derivation.dropped_from is None and derivation.derived == []
    assert counts() == before


def test_the_staleness_report_of_a_day_is_read_from_the_events(replay: Replay) -> None:
    def stored() -> list[tuple[object, ...]]:
        with session_scope(get_engine(replay.settings)) as session:
            table = Verification.__table__
            return [tuple(r) for r in session.execute(table.select().order_by(table.c.key)).all()]

    day7 = report_staleness(replay.settings, replay.ref, gen.TOPIC, gen.day_of(7))
    assert day7["topic"] == gen.TOPIC and day7["day"] == gen.day_of(7).isoformat()
    assert not any(gen.STALE_NAME.split()[0].lower() in k for k in day7["newly_stale"])
    rows = stored()
    day8 = report_staleness(replay.settings, replay.ref, replay.topic, gen.day_of(8))
    key = next(k for k in day8["newly_stale"] if gen.STALE_NAME.split()[0].lower() in k)
    assert key.startswith("hedge:")
    assert day8["stale"] >= 1 and day8["resolved"] >= 1 and day8["stale"] > day7["stale"]
    assert stored() == rows  # through a derived day, a report writes nothing
    # Any order, any repetition: a day's report is its own (day 9: stale since day 8, not newly).
    assert report_staleness(replay.settings, replay.ref, gen.TOPIC, gen.day_of(8)) == day8
    assert report_staleness(replay.settings, replay.ref, gen.TOPIC, gen.day_of(7)) == day7
    day9 = report_staleness(replay.settings, replay.ref, gen.TOPIC, gen.day_of(9))
    assert key not in day9["newly_stale"]


def test_generator_is_deterministic(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for index in DAYS:
        gen.write_day(first, index)
        gen.write_day(second, index)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)
