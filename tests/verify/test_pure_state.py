"""Contract: a briefing for (workspace, topic, date) is a function of what is stored with times up
to the date's cutoff, not of which dates were run on the database before, in what order, or how
old the database is (DESIGN.md, "State").

Workspace: the sample plus generated notes on each of the 30 dates 2026-09-10..2026-10-09, ingested
once into a template database; every database below is a copy of it.
- property (Hypothesis, fixed seed, bounded): for random subsets of those dates run on one
  database in random order, each date's briefing (markdown and JSON) is byte for byte the one a
  fresh database gives when it runs only that date;
- after a backfill of the 30 dates, the daily stage for a date (`tasks.stages.briefings.brief`, what
  `predigest run` runs per topic) publishes the bytes a fresh database publishes for it, writes
  nothing (the backfill published them), and running it again changes no verification row.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, seed
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from psycopg import sql
from sqlalchemy import make_url, text

from db import engine as db_engine
from db.engine import make_engine, normalise_url
from tasks.backfill.jobs import BackfillContext, plan_derivation, plan_jobs
from tasks.backfill.lanes import DateLanes
from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import brief, render_briefing
from tasks.stages.workspace import register_workspace
from tests.generate.large import add_notes
from tests.helpers import SAMPLE_WORKSPACE, ingest_all

pytestmark = pytest.mark.slow  # thirty evenings on many database copies

TOPIC = "inference"
DATES = [dt.date(2026, 9, 10) + dt.timedelta(days=n) for n in range(30)]


class Copies:
    """Databases copied from one ingested template (CREATE DATABASE … TEMPLATE), dropped at the end."""

    def __init__(self, admin_url: str, template_url: str, tmp: Path) -> None:
        self.admin = f"postgresql://{normalise_url(admin_url).partition('://')[2]}"
        self.template = make_url(template_url).database
        self.template_url = template_url
        self.tmp = tmp
        self.created: list[str] = []

    def settings(self) -> Settings:
        name = f"predigest_pure_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(name), sql.Identifier(self.template or "")))
        self.created.append(name)
        url = make_url(self.template_url).set(database=name).render_as_string(hide_password=False)
        return Settings(_env_file=None, home=self.tmp / name / "home", database_url=url,  # type: ignore[call-arg]
                        storage_url=(self.tmp / name / "published").as_uri())

    def drop(self) -> None:
        with psycopg.connect(self.admin, autocommit=True) as conn:
            for name in self.created:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _release(settings: Settings) -> None:
    """Close the process-wide engine of a database (a template must have no connections)."""
    engine = db_engine._engines.pop(normalise_url(settings.database_url or ""), None)
    if engine is not None:
        engine.dispose()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pure") / "workspace"
    shutil.copytree(SAMPLE_WORKSPACE, root)
    for day in DATES:
        add_notes(root, day, 2, seed=day.day)
    return root


@pytest.fixture(scope="module")
def copies(
    workspace: Path, pg_admin_url: str, migrated_database: Callable[[str], str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Copies]:
    tmp = tmp_path_factory.mktemp("pure_dbs")
    template = Settings(_env_file=None, home=tmp / "template", database_url=migrated_database("predigest_pure_tpl"),  # type: ignore[call-arg]
                        storage_url=(tmp / "template_published").as_uri())
    ingest_all(template, workspace)
    _release(template)
    out = Copies(pg_admin_url, template.database_url or "", tmp)
    yield out
    out.drop()


@pytest.fixture(scope="module")
def alone(copies: Copies, workspace: Path) -> Callable[[dt.date], tuple[str, str]]:
    """The briefing of one date on a fresh database that runs only that date (computed once per date)."""
    found: dict[dt.date, tuple[str, str]] = {}

    def brief(day: dt.date) -> tuple[str, str]:
        if day not in found:
            settings = copies.settings()
            ref = register_workspace(settings, workspace)
            (topic,) = topics_for(settings, workspace, [TOPIC])
            found[day] = render_briefing(settings, ref, topic, window_of(topic, day))
            _release(settings)
        return found[day]

    return brief


@seed(20261201)
@hypothesis_settings(max_examples=5, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(order=st.lists(st.sampled_from(DATES), min_size=2, max_size=4, unique=True))
def test_any_dates_in_any_order_give_each_date_its_own_bytes(
    order: list[dt.date], copies: Copies, workspace: Path, alone: Callable[[dt.date], tuple[str, str]],
) -> None:
    settings = copies.settings()
    ref = register_workspace(settings, workspace)
    (topic,) = topics_for(settings, workspace, [TOPIC])
    try:
        for day in order:
            assert render_briefing(settings, ref, topic, window_of(topic, day)) == alone(day), (order, day)
    finally:
        _release(settings)


def _rows(settings: Settings) -> list[Any]:
    engine = make_engine(settings.database_url or "", pool_size=1)
    try:
        with engine.connect() as conn:
            return [conn.execute(text(f"SELECT * FROM {table} ORDER BY id")).all()
                    for table in ("verifications", "verification_events", "verification_windows")]
    finally:
        engine.dispose()


def _published(settings: Settings, day: dt.date) -> tuple[bytes, bytes]:
    folder = Path(settings.storage_root_url.removeprefix("file://")) / "briefings" / TOPIC
    return (folder / f"{day}.md").read_bytes(), (folder / f"{day}.json").read_bytes()


def test_run_after_a_backfill_is_a_fresh_run_and_a_rerun_rewrites_nothing(copies: Copies, workspace: Path) -> None:
    backfilled = copies.settings()
    ref = register_workspace(backfilled, workspace)
    topics = topics_for(backfilled, workspace, [TOPIC])
    ctx = BackfillContext.load(backfilled, ref, topics, force=False)
    with DateLanes(ctx, 1) as lanes:
        lanes.run(plan_jobs(topics, DATES, derive=plan_derivation(backfilled, ref, topics, DATES[-1], ctx.known)))
    for day in (DATES[-1], DATES[11]):
        fresh = copies.settings()
        fresh_ref = register_workspace(fresh, workspace)
        assert brief(fresh, fresh_ref, topics[0], day).written
        rows = _rows(backfilled)
        result = brief(backfilled, ref, topics[0], day)
        assert not result.written, day
        assert _published(backfilled, day) == _published(fresh, day), day
        assert brief(backfilled, ref, topics[0], day).written is False
        assert _rows(backfilled) == rows, day
        _release(fresh)
    _release(backfilled)
