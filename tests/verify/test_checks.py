"""Contract of the checks sources do not flag themselves, through the real stages (ingest, record, render):

- two sources giving non-overlapping numbers for the same subject, unit and metric give exactly one
  contradiction naming both sources and both numbers (quoting the same pair of numbers does not);
- a number's subject is climbed to: the name its own item opens with when its heading names nothing,
  never the paper a sibling item names; a number restated from another person ("和 ben 的 …") is
  theirs, not a second reading of the note that quotes it;
- an arXiv lookup made by the cutoff raises an unknown id or a title mismatch; a lookup made after
  the cutoff does not exist yet; an empty papers table raises nothing; a later matching lookup
  resolves the item with that evidence.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, delete
from sqlalchemy.dialects.postgresql import insert

from db.engine import get_engine, session_scope
from db.models import Paper
from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.verifications import derive_verifications
from tasks.verify.checks import _line_holding
from tests.generate import replay as gen
from tests.helpers import ingest_all

TZ = ZoneInfo("Asia/Shanghai")


def _brief(settings: Settings, root: Path, day: dt.date, record: bool = True) -> dict[str, Any]:
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, [gen.TOPIC])
    window = window_of(topic, day)
    if record:
        derive_verifications(settings, ref, topic, window.date)
    return json.loads(render_briefing(settings, ref, topic, window)[1])


def _write_notes(root: Path, day: str, notes: dict[str, str]) -> None:
    """One note per person, written at 11:00 of `day`."""
    for who, text in notes.items():
        note = root / "inbox" / who / f"{day}T1100-{who}-numbers.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(text, encoding="utf-8")


def test_conflicting_numbers_give_exactly_one_contradiction(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    gen.write_day(tmp_path, 1)
    first, second = gen.write_conflict(tmp_path, gen.day_of(1))
    brief = _brief(settings, tmp_path, gen.day_of(1))
    conflicts = [v for v in brief["verifications"] if "conflict" in v["kinds"]]
    assert len(conflicts) == 1, conflicts
    (item,) = conflicts
    assert set(item["sources"]) == {first, second}
    assert item["subject"] == "2611.00030"
    assert first in item["claim"] and second in item["claim"]
    assert "29%" in item["claim"] and "1–4%" in item["claim"]
    assert item["status"] == "pending"


def test_quoting_the_same_numbers_is_not_a_contradiction(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    gen.write_day(tmp_path, 1)
    for who in ("jay", "spark"):
        note = tmp_path / "inbox" / who / f"{gen.day_of(1).isoformat()}T1100-{who}-mori.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text("# MORI\n\n## 条目1 · MORI-IO Read/Write\n\n"
                        "- READ 在 decode 95% 负载下 P99 延迟 31ms vs WRITE 190ms。\n", encoding="utf-8")
    brief = _brief(settings, tmp_path, gen.day_of(1))
    assert [v for v in brief["verifications"] if v["kind"] == "conflict"] == []


def test_a_line_named_system_contradicts_across_notes_and_a_sibling_paper_takes_no_number(
        clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    gen.write_day(tmp_path, 1)
    day = gen.day_of(1).isoformat()
    notes = {
        "ben": "Measurements\n------------\n\n1) FooServe v2.1, 70B, FP8, 8×H100, batch 64, decode: 4,100 tok/s.\n"
               "2) BarPrefill (arXiv:2611.00031) at 128K tokens: 1.9x over chunked prefill.\n",
        "chen": "# 记录\n\n- FooServe v2.1：同样是 70B、FP8、8×H100、batch 64 的 decode，只有 3,200 tok/s，"
                "和 ben 的 4,100 tok/s 对不上。\n",
    }
    _write_notes(tmp_path, day, {who: f"Numbers, {who}\n=====\n\n{text}" if who == "ben" else text
                                 for who, text in notes.items()})
    brief = _brief(settings, tmp_path, gen.day_of(1))
    (item,) = [v for v in brief["verifications"] if v["kind"] == "conflict"]
    assert item["subject"] == "FooServe v2.1"
    assert "4,100" in item["claim"] and "3,200" in item["claim"] and len(item["sources"]) == 2


def test_a_table_row_is_measured_under_its_own_setup_and_a_sibling_rows_paper_takes_no_number(
        clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    """Rows of one table that open alike are each read under their own cells (batch 1 is not batch
    32), and another topic's paper in the next row neither takes nor drops the row's number."""
    gen.write_day(tmp_path, 1)
    day = gen.day_of(1).isoformat()
    notes = {
        "mei": "# 周报\n\n## 哪些数字对不上？\n\n| 系统 | 配置 | 指标 | 数值 | 备注 |\n|---|---|---|---|---|\n"
               "| FooServe v2.1 | 32B，FP8，1×H200，batch 32，decode | 吞吐 | 2,950 tok/s | 我们实测 |\n"
               "| FooServe v2.1 | 32B，FP8，1×H200，batch 1，decode | 吞吐 | 96 tok/s | 我们实测 |\n"
               "| ChunkRAG（arXiv:2611.00032） | RAG 检索切块 | 召回 | 91% | 检索增强 |\n",
        "raj": "# Evening notes\n\n## What did we measure?\n\n"
               "* FooServe v2.1, 32B, FP8, 1×H200, batch 32, decode: 2,400 tok/s.\n",
    }
    _write_notes(tmp_path, day, notes)
    brief = _brief(settings, tmp_path, gen.day_of(1))
    (item,) = [v for v in brief["verifications"] if v["kind"] == "conflict"]
    assert item["subject"] == "FooServe v2.1" and len(item["sources"]) == 2
    assert "2,950" in item["claim"] and "2,400" in item["claim"] and "96" not in item["claim"]


def test_a_numbers_line_is_the_one_holding_its_whole_context() -> None:
    """Rows that open alike: the row of the number is the one holding all of its context."""
    rows = ["| FooServe v2.1 | 32B, FP8, 1×H200, batch 32, decode | 吞吐 | 2,950 tok/s |",
            "| FooServe v2.1 | 32B, FP8, 1×H200, batch 1, decode | 吞吐 | 96 tok/s |"]
    assert _line_holding("\n".join(rows), rows[1].strip("| ")) == rows[1]


def _lookup(engine: Engine, arxiv_id: str, status: str, title: str | None, at: dt.datetime) -> None:
    with session_scope(engine) as session:
        session.execute(delete(Paper).where(Paper.arxiv_id == arxiv_id))
        session.execute(insert(Paper).values(arxiv_id=arxiv_id, status=status, title=title, looked_up_at=at))


def test_arxiv_lookups_raise_and_a_later_match_resolves(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    engine = get_engine(settings)
    gen.write_day(tmp_path, 1)
    day1, day2 = gen.day_of(1), gen.day_of(2)
    assert not [v for v in _brief(settings, tmp_path, day1, record=False)["verifications"]
                if v["kind"] in ("unknown_id", "title_mismatch")]  # empty papers table: not looked up, not unknown

    noon = dt.datetime.combine(day1, dt.time(12), TZ)
    _lookup(engine, gen.PAPER, "unknown", None, noon)
    _lookup(engine, gen.SETTLED, "found", "A Survey of Retrieval-Augmented Generation Benchmarks", noon)
    late = dt.datetime.combine(day1, dt.time(23, 30), TZ)  # after the cutoff: does not exist for day 1
    brief = _brief(settings, tmp_path, day1)
    kinds = {(kind, v["subject"]) for v in brief["verifications"] for kind in v["kinds"]}
    assert ("unknown_id", gen.PAPER) in kinds
    assert ("title_mismatch", gen.SETTLED) in kinds
    # The note's hedge on the same paper and the mismatch are one item, saying both.
    (mismatch,) = [v for v in brief["verifications"] if v["subject"] == gen.SETTLED]
    assert mismatch["kinds"] == ["hedge", "title_mismatch"]
    assert "A Survey of Retrieval-Augmented Generation Benchmarks" in mismatch["claim"]

    _lookup(engine, gen.PAPER, "found", "PagedFoo: Paging KV Cache for Serving", late)
    gen.write_day(tmp_path, 2)
    brief = _brief(settings, tmp_path, day2)
    resolved = next(v for v in brief["verifications"] if "unknown_id" in v["kinds"])
    assert resolved["status"] == "resolved" and resolved["resolved_on"] == day2.isoformat()
    assert "PagedFoo" in resolved["evidence"]
    # Day 1 again (a backfill): the later lookup did not exist then.
    again = _brief(settings, tmp_path, day1, record=False)
    assert next(v for v in again["verifications"] if "unknown_id" in v["kinds"])["status"] == "pending"
