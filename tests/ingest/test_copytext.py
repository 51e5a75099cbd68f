"""Contract of tasks.ingest.copytext: a row written as COPY text stores exactly the values that
psycopg's `Copy.write_row` (what ingest used before) stores: text with backslashes, tabs, line
ends, `%` and COPY's own markers, NULL, booleans, integers, dates, datetimes with their offsets,
and JSON (nested, non-ASCII, escapes, floats) for jsonb; ids filled into a row template last.
Runs on real PostgreSQL (`engine`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from psycopg.types.json import Jsonb
from sqlalchemy import Engine

from tasks.ingest.copytext import field, json_field, template

TEXTS = ["", "plain", "tab\there", "line\nend", "cr\rlf\r\n", "back\\slash", "\\N", "\\.", "\\", "a\\tb",
         "中文 · 推理（arXiv：2609.01234）", "emoji 🚀", "\u2028\u2029", "\x01\x7f", " lead and trail ",
         "100%", "%d %s %% %(x)s"]
JSONS: list[Any] = [
    [], {}, ["a", "b"], [{"value": "1.8×", "unit": "×", "context": "tab\tline\nquote\" back\\"}],
    {"nested": {"list": [1, 2.5, -3, 1e-7, 1e300, True, None]}, "中": "文"}, ["\u2028", "\x01", "\\u0041"],
    [12345678901234567890], "just a string", 0.1,
]
DATES = [dt.date(2026, 10, 9), dt.date(1, 1, 1)]
TIMES = [
    dt.datetime(2026, 10, 9, 4, 0, tzinfo=dt.UTC),
    dt.datetime(2026, 10, 9, 12, 0, 0, 123456, tzinfo=dt.timezone(dt.timedelta(hours=8))),
    dt.datetime(2026, 3, 29, 1, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5, minutes=-30))),
]
INTS = [0, -1, 2**31 - 1, 2**62]


def _rows() -> list[tuple[Any, ...]]:
    """(n, text, int, bool, date, timestamptz, jsonb) rows covering every value above and NULLs."""
    count = max(len(TEXTS), len(JSONS), len(DATES), len(TIMES), len(INTS))
    rows = [(n, TEXTS[n % len(TEXTS)], INTS[n % len(INTS)], n % 2 == 0, DATES[n % len(DATES)],
             TIMES[n % len(TIMES)], JSONS[n % len(JSONS)]) for n in range(count)]
    return [*rows, (count, None, None, None, None, None, None)]


def test_copy_text_rows_store_what_write_row_stores(engine: Engine) -> None:
    columns = "n int, t text, i bigint, b boolean, d date, ts timestamptz, j jsonb"
    with engine.connect() as conn:
        raw = conn.connection.driver_connection
        assert raw is not None
        with raw.cursor() as cursor:
            cursor.execute(f"CREATE TEMP TABLE via_row ({columns}) ON COMMIT DROP")
            cursor.execute(f"CREATE TEMP TABLE via_text ({columns}) ON COMMIT DROP")
            with cursor.copy("COPY via_row FROM STDIN") as copy:
                for row in _rows():
                    copy.write_row([*row[:-1], None if row[-1] is None else Jsonb(row[-1])])
            # As ingest writes them: `%` templates whose last column (here n) is filled in afterwards.
            payload = "".join(
                template([field(t), field(i), field(b), field(d), field(ts), field(None) if j is None else json_field(j)],
                         1)
                for _, t, i, b, d, ts, j in _rows()
            ).encode() % tuple(row[0] for row in _rows())
            with cursor.copy("COPY via_text (t, i, b, d, ts, j, n) FROM STDIN") as copy:
                copy.write(payload)
            cursor.execute("SELECT * FROM via_row ORDER BY n")
            expected = cursor.fetchall()
            cursor.execute("SELECT * FROM via_text ORDER BY n")
            assert cursor.fetchall() == expected
            # jsonb compares by value; the text it gives back (key order, spacing) must match too.
            cursor.execute("SELECT a.j::text = b.j::text FROM via_row a JOIN via_text b USING (n) ORDER BY n")
            assert all(same is not False for (same,) in cursor.fetchall())
        raw.rollback()
    assert len(expected) == len(_rows())
    assert [r[1] for r in expected[: len(TEXTS)]] == TEXTS
