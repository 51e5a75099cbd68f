"""Contract of the static site and the Atom feeds (`tasks.publish.site`, `pages`, `atom`):

- Publishing a briefing writes `briefings/<topic>/<date>.html`, `briefings/<topic>/index.html`,
  `briefings/<topic>/atom.xml` and `briefings/index.html`; republishing the same content rewrites none
  of them (nor the markdown, JSON or index.json).
- Bytes are deterministic: the same briefings published in any order give identical pages and feeds;
  a lost `site.json` is rebuilt from the JSON twins to the same bytes.
- feedparser reads each topic's feed with bozo 0 and one entry per published date (the latest
  `FEED_ENTRIES`), newest first, each
  with a stable id, `updated` = the briefing's cutoff, and the honest density statement as summary.
- The topic index lists every date with its density and NET-new count and draws one SVG bar per date.
- `lang` applies to pages and feeds, and each language has its own keys: the default language
  (zh) keeps `<date>.md/.json/.html`, `atom.xml`, `index.html`; English gets `<date>.en.md/.json/.html`,
  `atom.en.xml`, `index.en.html` with links among them, its own feed entry ids and its own index.json
  entries, so publishing English never overwrites a Chinese object.
- Whatever text the workspace holds, the feed stays well-formed and pages hold no script, no `on*`
  attribute and no link outside http/https/mailto (property test over arbitrary text).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import feedparser
import lxml.html
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tasks.publish.atom import entry_id
from tasks.publish.objects import read_index
from tasks.publish.storage import LocalStore
from tests.publish.briefing_factory import make_content, publish_content

DAYS = [dt.date(2026, 10, 6) + dt.timedelta(days=n) for n in range(3)]
SITE_KEYS = ("briefings/index.html", "briefings/inference/index.html", "briefings/inference/atom.xml")


class CountingStore(LocalStore):
    """A LocalStore that remembers which keys were written."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.puts: list[str] = []

    def put(self, key: str, data: bytes, content_type: str) -> None:
        self.puts.append(key)
        super().put(key, data, content_type)


def _publish_all(root: Path, days: list[dt.date], lang: str = "zh") -> CountingStore:
    store = CountingStore(root)
    for k, day in enumerate(days):
        publish_content(store, make_content("inference", day, net_new=k + 1), lang)
    return store


def test_publishing_writes_page_index_and_feed_and_republishing_rewrites_nothing(tmp_path: Path) -> None:
    store = _publish_all(tmp_path, DAYS)
    for day in DAYS:
        assert (tmp_path / f"briefings/inference/{day}.html").is_file()
    for key in SITE_KEYS:
        assert (tmp_path / key).is_file()
    store.puts.clear()
    for k, day in enumerate(DAYS):
        result = publish_content(store, make_content("inference", day, net_new=k + 1))
        assert not result.written and not result.feed_written and not result.topic_index_written
    assert store.puts == []


def test_a_changed_briefing_rewrites_its_page_and_the_feed_only(tmp_path: Path) -> None:
    store = _publish_all(tmp_path, DAYS)
    store.puts.clear()
    result = publish_content(store, make_content("inference", DAYS[0], net_new=4))
    assert result.written and result.page_written and result.feed_written
    assert f"briefings/inference/{DAYS[1]}.html" not in store.puts
    assert f"briefings/inference/{DAYS[2]}.html" not in store.puts


def test_bytes_do_not_depend_on_publishing_order_or_on_the_site_cache(tmp_path: Path) -> None:
    forward = _publish_all(tmp_path / "a", DAYS)
    store = CountingStore(tmp_path / "b")
    for k, day in reversed(list(enumerate(DAYS))):
        publish_content(store, make_content("inference", day, net_new=k + 1))
    for key in (*SITE_KEYS, *(f"briefings/inference/{d}.html" for d in DAYS)):
        assert forward.get(key) == store.get(key), key
    (tmp_path / "b/briefings/inference/site.json").unlink()
    publish_content(store, make_content("inference", DAYS[0], net_new=1))
    assert (tmp_path / "b/briefings/inference/site.json").read_bytes() == forward.get("briefings/inference/site.json")
    assert store.get("briefings/inference/atom.xml") == forward.get("briefings/inference/atom.xml")


def test_feedparser_reads_one_entry_per_date_with_stable_ids_and_the_statement(tmp_path: Path) -> None:
    store = _publish_all(tmp_path, DAYS)
    feed = feedparser.parse(store.get("briefings/inference/atom.xml"))
    assert feed.bozo == 0, feed.get("bozo_exception")
    assert [e.id for e in feed.entries] == [entry_id("inference", d.isoformat()) for d in reversed(DAYS)]
    assert len({e.id for e in feed.entries}) == len(DAYS)
    for k, (entry, day) in enumerate(zip(feed.entries, reversed(DAYS), strict=True)):
        cutoff = dt.datetime.combine(day, dt.time(14, 20), dt.UTC)  # 22:20 Asia/Shanghai
        assert dt.datetime(*entry.updated_parsed[:6], tzinfo=dt.UTC) == cutoff
        net_new = len(DAYS) - k
        assert entry.summary.startswith("诚实度声明：本轮增量密度为")
        assert f"{net_new} 条 NET-new arXiv" in entry.summary
        assert entry.link.endswith(f"{day}.html")


def test_topic_index_lists_every_date_with_density_net_new_and_a_bar(tmp_path: Path) -> None:
    store = _publish_all(tmp_path, DAYS)
    tree = lxml.html.fromstring(store.get("briefings/inference/index.html"))
    rows = tree.xpath("//table/tbody/tr")
    assert [r.xpath("string(td[1])") for r in rows] == [d.isoformat() for d in reversed(DAYS)]
    assert [int(r.xpath("string(td[4])")) for r in rows] == [3, 2, 1]
    bars = tree.xpath("//svg/rect")
    assert len(bars) == len(DAYS)
    heights = [float(b.get("height")) for b in bars]
    assert heights == sorted(heights) and heights[0] < heights[-1]  # scores 1.5, 2.5, 3.5, oldest left
    root = lxml.html.fromstring(store.get("briefings/index.html"))
    assert root.xpath("//tbody/tr/td[2]/a/@href") == [f"inference/{DAYS[-1]}.html"]


def test_each_language_has_its_own_keys_feed_and_links(tmp_path: Path) -> None:
    chinese = _publish_all(tmp_path, DAYS)
    before = {key: chinese.get(key) for key in chinese.list("briefings/") if key != "briefings/index.json"}
    english = _publish_all(tmp_path, DAYS, lang="en")
    for key, data in before.items():  # English never overwrites the default language's objects
        assert english.get(key) == data, key
    stem = f"briefings/inference/{DAYS[0]}"
    assert {f"{stem}.en.md", f"{stem}.en.json", f"{stem}.en.html"} <= set(english.puts)
    assert not any(key in before for key in english.puts if key != "briefings/index.json")
    page = english.get(f"{stem}.en.html").decode()
    assert "Sources checked" in page and "检查过的来源" not in page
    assert "检查过的来源" in (english.get(f"{stem}.html") or b"").decode()
    links = set(lxml.html.fromstring(page).xpath("//nav/a/@href"))
    assert links == {"index.en.html", "../index.en.html", "atom.en.xml", f"{DAYS[0]}.en.md", f"{DAYS[0]}.en.json"}
    feed = feedparser.parse(english.get("briefings/inference/atom.en.xml"))
    assert feed.entries[0].summary.startswith("Honesty statement:")
    assert [e.link for e in feed.entries] == [f"{d}.en.html" for d in reversed(DAYS)]
    assert {e.id for e in feed.entries}.isdisjoint(e.id for e in feedparser.parse(
        english.get("briefings/inference/atom.xml")).entries)
    assert feedparser.parse(english.get("briefings/inference/atom.xml")).entries[0].summary.startswith("诚实度声明")
    root = lxml.html.fromstring(english.get("briefings/index.en.html"))
    assert root.xpath("//tbody/tr/td[2]/a/@href") == [f"inference/{DAYS[-1]}.en.html"]
    index = read_index(english)
    assert sorted((e.date, e.lang, e.json_key) for e in index) == sorted(
        [(d, "zh", f"briefings/inference/{d}.json") for d in DAYS] +
        [(d, "en", f"briefings/inference/{d}.en.json") for d in DAYS])
    (tmp_path / "briefings/index.json").unlink()  # a rebuilt index finds both languages again
    assert sorted(read_index(english), key=lambda e: (e.date, e.lang)) == sorted(index, key=lambda e: (e.date, e.lang))


def _unsafe_in_html(data: bytes) -> list[str]:
    tree = lxml.html.fromstring(data)
    problems = [f"<{el.tag}>" for el in tree.iter() if el.tag in ("script", "iframe", "object", "embed", "form")]
    for el in tree.iter():
        for name, value in el.attrib.items():
            if name.lower().startswith("on"):
                problems.append(f"{el.tag}@{name}")
            if name.lower() in ("href", "src", "action", "formaction", "xlink:href") and \
                    not re.match(r"^(https?:|mailto:|[\w./-]*$)", value):
                problems.append(f"{el.tag}@{name}={value!r}")
    return problems


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=60))
def test_any_text_keeps_feeds_well_formed_and_pages_inert(tmp_path_factory: object, text: str) -> None:
    root = tmp_path_factory.mktemp("prop")  # type: ignore[attr-defined]
    store = LocalStore(root)
    publish_content(store, make_content("inference", DAYS[0], text=text))
    feed = feedparser.parse(store.get("briefings/inference/atom.xml"))
    assert feed.bozo == 0, (text, feed.get("bozo_exception"))
    assert len(feed.entries) == 1
    for key in (f"briefings/inference/{DAYS[0]}.html", "briefings/inference/index.html"):
        assert _unsafe_in_html(store.get(key) or b"") == [], (text, key)


def test_the_feed_keeps_the_latest_dates_only() -> None:
    from tasks.publish.atom import FEED_ENTRIES, render_feed
    from tasks.publish.pages import date_summary
    from tasks.render.twin import briefing_dict

    base = date_summary(briefing_dict(make_content("inference", DAYS[0])))
    days = [DAYS[0] + dt.timedelta(days=n) for n in range(FEED_ENTRIES + 5)]
    summaries = [{**base, "date": d.isoformat(), "cutoff": f"{d.isoformat()}T22:20:00+08:00"} for d in days]
    feed = feedparser.parse(render_feed("inference", summaries, "zh"))
    assert feed.bozo == 0
    assert [e.id for e in feed.entries] == [entry_id("inference", d.isoformat()) for d in reversed(days[5:])]


def test_a_corrupt_site_cache_is_rebuilt_from_the_json_twins(tmp_path: Path) -> None:
    store = _publish_all(tmp_path, DAYS)
    good = store.get("briefings/inference/site.json")
    for junk in (b"{not json", b'{"dates": [{"date": "2026-10-06"}]}', b'{"dates": 3}'):
        store.put("briefings/inference/site.json", junk, "application/json")
        publish_content(store, make_content("inference", DAYS[0], net_new=1))
        assert store.get("briefings/inference/site.json") == good
