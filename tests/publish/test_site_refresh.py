"""Contract of refreshing a topic's site once for many dates (`tasks.publish.site.refresh_site`,
`tasks.backfill.jobs.refresh_sites`, and the backfill flow that calls it):

- Publishing dates with `site=False` writes each date's markdown, JSON twin, index entry and page
  but none of the topic's site (site.json, index page, feed, site index); one `refresh_site` for
  those dates then leaves every object byte-identical to publishing them one by one with their
  site. A date with no JSON twin is skipped.
- A backfill (`flows.backfill.backfill_briefings`) stores byte-identical objects, every key of the
  store, to the daily stage run date by date (`tasks.stages.briefings.brief`, which publishes each date with its
  site) on a second database; running it again writes no object at all.
- When a date fails (here: its briefing cannot be stored), the backfill still refreshes the sites: they list every date that published
  (the other topic's briefing of the failing date included), and nothing after it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from sqlalchemy import Engine

from tasks.config.settings import Settings
from tasks.publish.rendered import rendered
from tasks.publish.site import publish_with_site, refresh_site
from tasks.publish.storage import LocalStore
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import brief
from tests.flows.test_backfill import _snapshot
from tests.generate.ten_days import DAYS, make_workspace
from tests.helpers import briefed_days, ingest_all, point_flows_at
from tests.publish.briefing_factory import make_content, publish_content
from tests.publish.test_site import CountingStore

SITE = ("briefings/inference/site.json", "briefings/inference/index.html", "briefings/inference/atom.xml",
        "briefings/index.html")


def _contents(topic: str = "inference") -> list[Any]:
    return [make_content(topic, day, net_new=k % 3 + 1) for k, day in enumerate(DAYS[:5])]


def _without_site(store: LocalStore, contents: list[Any]) -> None:
    for content in contents:
        publish_with_site(store, rendered(content, "zh"), "zh", site=False)


def test_one_refresh_equals_publishing_date_by_date(tmp_path: Path) -> None:
    contents = _contents() + _contents("rag")
    one_by_one = LocalStore(tmp_path / "a")
    for content in contents:
        publish_content(one_by_one, content)
    store = CountingStore(tmp_path / "b")
    _without_site(store, contents)
    assert not set(SITE) & set(store.puts)
    assert {f"briefings/inference/{d}.html" for d in DAYS[:5]} <= set(store.puts)
    for topic in ("inference", "rag"):
        written = refresh_site(store, topic, DAYS, "zh")  # DAYS[5:] have no twin: skipped
        assert written["topic_index"] and written["feed"]
    assert _snapshot(tmp_path / "b").keys() == _snapshot(tmp_path / "a").keys()
    for key in _snapshot(tmp_path / "a"):
        assert store.get(key) == one_by_one.get(key), key

    store.puts.clear()
    _without_site(store, contents)
    assert refresh_site(store, "inference", DAYS, "zh") == {"topic_index": False, "feed": False, "site_index": False}
    assert store.puts == []


def test_a_refresh_adds_the_dates_to_a_site_published_before(tmp_path: Path) -> None:
    contents = _contents()
    one_by_one = LocalStore(tmp_path / "a")
    for content in contents:
        publish_content(one_by_one, content)
    store = LocalStore(tmp_path / "b")
    for content in contents[:2]:  # an earlier evening's site
        publish_content(store, content)
    _without_site(store, contents[2:])
    refresh_site(store, "inference", DAYS[2:5], "zh")
    for key in SITE:
        assert store.get(key) == one_by_one.get(key), key


def _dates_listed(root: Path, topic: str) -> list[str]:
    site = json.loads((root / topic / "site.json").read_text(encoding="utf-8"))
    return [s["date"] for s in site["dates"]]


def test_backfill_equals_the_evenings_date_by_date_and_a_rerun_writes_nothing(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    migrated_database: Callable[[str], str],
) -> None:
    from flows.backfill import backfill_briefings

    point_flows_at(monkeypatch, settings)
    ws = (tmp_path / "ws").resolve()
    make_workspace(ws)
    backfill_briefings(start=DAYS[0], end=DAYS[-1], workspace=str(ws), max_concurrency=2)

    evenings = settings.model_copy(update={"database_url": migrated_database("predigest_site_evenings"),
                                           "storage_url": (tmp_path / "evenings").as_uri()})
    ref = ingest_all(evenings, ws)
    for day in briefed_days(DAYS):  # the default schedule skips Sundays
        for topic in topics_for(evenings, ws, None):
            brief(evenings, ref, topic, day)
    backfilled = _snapshot(tmp_path / "published")
    replayed = _snapshot(tmp_path / "evenings")
    assert {"briefings/index.html", "briefings/rag/atom.xml", "briefings/inference/index.html"} <= replayed.keys()
    assert backfilled.keys() == replayed.keys()
    for key, (data, _) in replayed.items():
        assert backfilled[key][0] == data, key
    assert _dates_listed(tmp_path / "published" / "briefings", "rag") == [d.isoformat() for d in briefed_days(DAYS)]

    again = backfill_briefings(start=DAYS[0], end=DAYS[-1], workspace=str(ws), max_concurrency=1)
    assert again and not any(r.written for r in again)
    # Bytes and modification times (ns): an object rewritten, by the lane's process or by the sites'
    # refresh in this one, would have a new one (a write replaces the file).
    assert _snapshot(tmp_path / "published") == backfilled


def test_a_failed_date_leaves_the_site_listing_every_date_that_published(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    from flows.backfill import backfill_briefings

    point_flows_at(monkeypatch, settings)
    ws = (tmp_path / "ws").resolve()
    make_workspace(ws)
    # rag's fourth briefing cannot be stored: a directory stands where its markdown goes (written first).
    blocked = tmp_path / "published" / "briefings" / "rag" / f"{DAYS[3]}.md"
    blocked.mkdir(parents=True)
    with pytest.raises(IsADirectoryError, match=str(blocked)):
        backfill_briefings(start=DAYS[0], end=DAYS[-1], workspace=str(ws), max_concurrency=1)

    out = tmp_path / "published" / "briefings"
    # inference is published before rag within a date: its fourth day published, rag's did not.
    published = {"inference": DAYS[:4], "rag": DAYS[:3]}
    for topic, days in published.items():
        iso = [d.isoformat() for d in days]
        assert sorted(p.stem for p in (out / topic).glob("*-*-*.json")) == iso
        assert _dates_listed(out, topic) == iso
        index = lxml.html.fromstring((out / topic / "index.html").read_bytes())
        assert [r.xpath("string(td[1])") for r in index.xpath("//table/tbody/tr")] == list(reversed(iso))
        assert (out / topic / "atom.xml").read_text(encoding="utf-8").count("<entry>") == len(days)
    root = lxml.html.fromstring((out / "index.html").read_bytes())
    assert root.xpath("//tbody/tr/td[2]/a/@href") == [f"inference/{DAYS[3]}.html", f"rag/{DAYS[2]}.html"]
