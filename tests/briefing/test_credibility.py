"""Contract of credibility per source (tasks.window.credibility, the rule under section 一).

- A note that rates itself keeps its rating (one rating, or the range of its entries' ratings),
  whether in its text or in its front matter (⭐ marks or a number of stars); the front matter
  survives ingest (a note ingested into the database is rated by it).
- Otherwise the base comes from what the note is, told by its own description (file name,
  preamble) before its entries, in Chinese, English and other languages: official blog or paper
  (an entry naming a well-formed arXiv id counts), firsthand measurement, digest, repost; a negated
  word ("不是二手", "not a repost") does not count; ties go to the lower base; none found is `unknown`.
- A malformed id, an id arXiv does not know and a majority of hedged entries each lower it, never
  below one star; a clean note of the same kind keeps its base.
- Cards, the queue and HF Daily are reference, the knowledge document the baseline; an unreadable
  or empty note is unrated and says why. No note with text is ever left unrated.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.config.judgment import default_judgment
from tasks.config.settings import Settings
from tasks.model.window_views import EntryView, MentionView, PaperLookup, SourceView, WindowData
from tasks.model.windows import window_for
from tasks.render.labels import LABELS
from tasks.render.sources_table import credibility_text
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.window.credibility import CredibilityRule, rate, rate_all
from tests.generate.files import write_file
from tests.generate.ten_days import make_workspace
from tests.helpers import ingest_all

J = default_judgment()
RULE = CredibilityRule.of(J)
NOON = dt.datetime(2026, 10, 9, 4, tzinfo=dt.UTC)
Entry = tuple[str, str, tuple[str, ...], bool]  # heading ("" = preamble), text, ids, hedged


def _data(path: str, entries: list[Entry], kind: str = "note", error: str | None = None,
          malformed: bool = False, unknown: tuple[str, ...] = (),
          front: tuple[tuple[str, str], ...] = ()) -> tuple[SourceView, WindowData]:
    data = WindowData(window_for(dt.date(2026, 10, 9), "20 22 * * *", "Asia/Shanghai"))
    source = SourceView(1, path, kind, "alice", NOON, "filename", error)
    data.sources.append(source)
    for k, (heading, text, ids, hedged) in enumerate(entries):
        label = "preamble" if not heading else f"#{k}"
        hedges = ({"marker": "x", "text": text},) if hedged else ()
        data.entries.append(EntryView(1, path, kind, k, label, heading, heading or None, text, hedges, ids=ids,
                                      front_matter=front if k == 0 else ()))
    if malformed:
        data.mentions.append(MentionView(1, path, kind, 0, None, "", None, None, "arXiv:2610.0x", True, "", NOON))
    for i in unknown:
        data.lookups[i] = PaperLookup(i, "unknown", None, NOON)
    return source, data


def _stars(path: str, entries: list[Entry], **kw: object) -> tuple[int | None, str | None, tuple[str, ...]]:
    r = rate(*_data(path, entries, **kw), J)  # type: ignore[arg-type]
    return r.stars, r.kind, r.checks


PLAIN = "inbox/a/2026-10-09-1000-a-notes.md"


def test_a_self_rating_is_kept_and_a_spread_is_shown_as_a_range() -> None:
    r = rate(*_data(PLAIN, [("X", "可信度：⭐⭐", (), False), ("Y", "Credibility: ⭐⭐⭐⭐⭐", (), False)]), J)
    assert (r.basis, r.low, r.stars) == ("self", 2, 5)
    assert credibility_text(r, LABELS["zh"]) == "⭐⭐–⭐⭐⭐⭐⭐（逐条自评）"
    single = rate(*_data(PLAIN, [("X", "转载自某处。可信度 ⭐⭐⭐⭐", (), True)], malformed=True), J)
    assert (single.basis, single.stars, single.checks) == ("self", 4, ())  # kept, whatever the checks


@pytest.mark.parametrize(("front", "stars"), [
    ((("credibility", "4"),), 4), ((("可信度", "⭐⭐⭐"),), 3), ((("Rating", "2/5"),), 2),
    ((("rating", "9"),), None), ((("author", "⭐⭐⭐⭐⭐"),), None),
])
def test_a_front_matter_rating_is_kept(front: tuple[tuple[str, str], ...], stars: int | None) -> None:
    r = rate(*_data(PLAIN, [("", "Reposted from somewhere.", (), False)], front=front), J)
    assert (r.basis, r.stars) == (("self", stars) if stars else ("kind", RULE.repost))


@pytest.mark.parametrize(("preamble", "kind"), [
    ("来源都是官方博客和 release notes。", "official"),
    ("From the official blog post of the project.", "official"),
    ("公式ブログからのメモ。", "official"),
    ("转载自公众号，数字是厂商自报。", "repost"),
    ("Reposted from a newsletter; numbers are vendor-reported.", "repost"),
    ("我们自己在 H100 上实测。", "firsthand"),
    ("We measured both engines on our own cluster.", "firsthand"),
    ("本周链接合集。", "digest"),
    ("Weekly digest of what came by.", "digest"),
    ("Wöchentliche Zusammenfassung.", "digest"),
])
def test_the_notes_own_description_tells_its_kind(preamble: str, kind: str) -> None:
    stars, found, checks = _stars(PLAIN, [("", preamble, (), False), ("Thing", "text", (), False)])
    assert (found, stars, checks) == (kind, RULE.base(kind), ())


def test_the_file_name_tells_a_digest() -> None:
    assert _stars("inbox/a/2026-10-09-1700-a-github-trending-oct09.md", [("Thing", "text", (), False)])[1] == "digest"


def test_a_negated_kind_word_does_not_count() -> None:
    for text in ("官方博客，不是二手。", "The official blog, not a repost."):
        assert _stars(PLAIN, [("", text, (), False)])[1] == "official"


def test_mixed_signals_go_to_the_lower_base() -> None:
    assert _stars(PLAIN, [("", "官方博客的数字，转载自别处。", (), False)])[1] == "repost"


def test_without_a_description_most_entries_decide_and_a_paper_id_counts_as_a_paper() -> None:
    entries: list[Entry] = [("A", "arXiv 2610.20001 summary", ("2610.20001",), False),
                            ("B", "arXiv 2610.20002 summary", ("2610.20002",), False),
                            ("C", "转载的一条消息", (), False)]
    assert _stars(PLAIN, entries)[:2] == (5, "official")
    assert _stars(PLAIN, [("Thing", "plain words", (), False)])[:2] == (RULE.unknown, "unknown")


def test_failed_checks_lower_the_rating_never_below_one_star() -> None:
    entries: list[Entry] = [("", "Reposted.", (), False), ("A", "x", ("2610.20001",), True),
                            ("B", "y", (), True)]
    assert _stars(PLAIN, entries[:1]) == (RULE.repost, "repost", ())
    stars, _, checks = _stars(PLAIN, entries, malformed=True, unknown=("2610.20001",))
    assert checks == ("malformed", "unknown_id", "hedged") and stars == max(
        1, RULE.repost - RULE.malformed_penalty - RULE.unknown_id_penalty - RULE.hedge_penalty)
    text = credibility_text(rate(*_data(PLAIN, entries, malformed=True), J), LABELS["en"])
    assert text.startswith("⭐") and "malformed id" in text


@pytest.mark.parametrize(("kind", "basis"), [("paper_card", "reference"), ("work_queue", "reference"),
                                             ("hf_daily", "reference"), ("knowledge", "baseline")])
def test_cards_queue_and_knowledge_are_reference_and_baseline(kind: str, basis: str) -> None:
    r = rate(*_data("organized/x.md", [("A", "可信度 ⭐⭐", (), False)], kind=kind), J)
    assert (r.stars, r.basis) == (None, basis)
    assert credibility_text(r, LABELS["zh"]) == {"reference": "参考", "baseline": "基线"}[basis]


def test_unreadable_and_empty_notes_are_unrated_with_the_reason() -> None:
    broken = rate(*_data(PLAIN, [], error="not UTF-8"), J)
    empty = rate(*_data(PLAIN, [("", "  ", (), False)]), J)
    assert (broken.basis, empty.basis) == ("error", "empty")
    assert "读取失败" in credibility_text(broken, LABELS["zh"]) and "empty" in credibility_text(empty, LABELS["en"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=40).filter(str.strip), st.text(max_size=80), st.booleans()), min_size=1,
                max_size=6), st.booleans())
def test_every_note_with_text_is_rated_one_to_five_stars(entries: list[tuple[str, str, bool]], malformed: bool) -> None:
    rows: list[Entry] = [(h, t, (), hedged) for h, t, hedged in entries]
    source, data = _data(PLAIN, rows, malformed=malformed)
    r = rate(source, data, J)
    assert r.stars is not None and 1 <= r.stars <= 5
    assert rate_all(data, J) == {source.id: r}  # a whole window rated at once says the same
    assert credibility_text(r, LABELS["zh"]).startswith("⭐")


def test_front_matter_survives_ingest(clean_db: object, settings: Settings, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make_workspace(root)  # the generated ten days: other notes in the window, none rated
    note = "inbox/zoe/2026-10-09-1200-zoe-notes.md"
    write_file(root, note, "---\nauthor: zoe\ncredibility: 2\n---\n\n# Notes\n\n## One\n\nSome text.\n")
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, ["inference"])
    doc = json.loads(render_briefing(settings, ref, topic, window_of(topic, dt.date(2026, 10, 9)))[1])
    (row,) = [s for s in doc["sources"] if s["path"] == note]
    assert (row["rating"]["basis"], row["rating"]["stars"]) == ("self", 2)
