"""Tests for tasks.queue.parse.

Contract: `parse_queue(text, tz)` returns one `QueueSnapshot` per dated heading, newest first,
its time the heading's wall clock in `tz` as aware UTC; table columns are matched by header
name, so order drift is tolerated; bad rows are kept and noted in the snapshot's warnings.
Non-empty text with neither a dated heading nor a table raises `ParseError`.
`snapshot_at_or_before(snapshots, when)` is the newest snapshot at or before `when`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tasks.queue.parse import ParseError, parse_queue, snapshot_at_or_before

SHANGHAI = ZoneInfo("Asia/Shanghai")
QUEUE = Path(__file__).resolve().parents[2] / "examples/workspace/organized/queue/work-queue.md"


@pytest.fixture(scope="module")
def snapshots() -> list:
    return parse_queue(QUEUE.read_text(encoding="utf-8"), SHANGHAI)


def test_four_snapshots_newest_first_in_utc(snapshots: list) -> None:
    assert [s.at for s in snapshots] == [datetime(2026, 10, d, 14, 0, tzinfo=UTC) for d in (9, 8, 7, 6)]
    assert all(s.at.utcoffset() is not None and s.at.utcoffset().total_seconds() == 0 for s in snapshots)
    assert snapshots[0].heading == "2026-10-09 22:00"
    assert all(len(s.rows) == 15 and s.warnings == () for s in snapshots)


def test_oct9_rows(snapshots: list) -> None:
    rows = snapshots[0].rows
    assert [r.rank for r in rows] == list(range(1, 16))
    third = rows[2]
    assert (third.rank, third.arxiv_id, third.primary, third.secondary) == (
        3,
        "2610.12085",
        "rag",
        ("engineering",),
    )
    assert third.title == "Is Memorization Context-Sensitive? Prefix-Based Extraction Revisited"
    assert third.note is not None and "待核实" in third.note
    assert third.line.startswith("| 3 | 2610.12085 |")


def test_dash_secondary_is_empty(snapshots: list) -> None:
    muon = next(r for r in snapshots[2].rows if r.arxiv_id == "2610.06344")
    assert muon.secondary == ()


def test_snapshot_at_or_before(snapshots: list) -> None:
    picked = snapshot_at_or_before(snapshots, datetime(2026, 10, 8, 23, 0, tzinfo=SHANGHAI))
    assert picked is not None and picked.at == datetime(2026, 10, 8, 22, 0, tzinfo=SHANGHAI)
    exact = snapshot_at_or_before(snapshots, datetime(2026, 10, 9, 22, 0, tzinfo=SHANGHAI))
    assert exact is snapshots[0]
    assert snapshot_at_or_before(snapshots, datetime(2026, 10, 6, 21, 59, tzinfo=SHANGHAI)) is None
    with pytest.raises(ValueError):
        snapshot_at_or_before(snapshots, datetime(2026, 10, 9, 22, 0))


def test_column_order_drift_and_heading_variants() -> None:
    text = (
        "# Queue\n\n"
        "## 2026-10-05\n\n"
        "| arXiv | Rank | Note | Title | Secondary | Primary |\n|---|---|---|---|---|---|\n"
        "| arXiv:2610.04646v2 | 1 | n | SEIS | KV-Cache, Serving | Inference |\n\n"
        "## 2026-10-10T08:30\n\n"
        "| # | arXiv | 标题 | 主分类 | 副分类 | 备注 |\n|:-:|---|---|---|---|---|\n"
        "| 1 | 2610.0998 | Bad id | rag | — | x |\n"
        "| 2 | https://arxiv.org/abs/2610.07219 | Cascadia | llm-infra |\n"
    )
    newest, oldest = parse_queue(text, SHANGHAI)
    assert oldest.at == datetime(2026, 10, 4, 16, 0, tzinfo=UTC)  # date-only heading = 00:00 local
    row = oldest.rows[0]
    assert (row.rank, row.arxiv_id, row.raw_id, row.title) == (1, "2610.04646", "arXiv:2610.04646v2", "SEIS")
    assert (row.primary, row.secondary) == ("inference", ("kv-cache", "serving"))
    assert newest.at == datetime(2026, 10, 10, 0, 30, tzinfo=UTC)
    bad, short = newest.rows
    assert bad.arxiv_id is None and bad.raw_id == "2610.0998"
    assert short.arxiv_id == "2610.07219" and short.secondary == () and short.note is None
    assert any("malformed" in w for w in newest.warnings)
    assert any("cells" in w for w in newest.warnings)


def test_undated_section_ends_a_snapshot() -> None:
    text = (
        "## 2026-10-09 22:00\n\n| # | arXiv |\n|---|---|\n| 1 | 2610.11959 |\n\n"
        "## Archive\n\n| # | arXiv |\n|---|---|\n| 1 | 2610.12415 |\n"
    )
    (only,) = parse_queue(text, SHANGHAI)
    assert [r.arxiv_id for r in only.rows] == ["2610.11959"]


def test_empty_and_garbage_input() -> None:
    assert parse_queue("", SHANGHAI) == []
    assert parse_queue("  \n", SHANGHAI) == []
    with pytest.raises(ParseError):
        parse_queue("lorem ipsum\n## not a date\n", SHANGHAI)
    (snap,) = parse_queue("## 2026-10-09 22:00\n\nno table today\n", SHANGHAI)
    assert snap.rows == () and snap.warnings == ("snapshot without a table",)
