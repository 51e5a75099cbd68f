"""`tasks.common.sql.plain_rows` returns what `session.execute(...).all()` returns, as tuples.

Contract: the same values, types and order for the column types hot reads use (integer, text,
NULL, date, timestamptz), parameters of those types and array parameters (`any_of`) included,
inside the session's own transaction (rows it has not committed are seen).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Values, column, literal, select, text, values
from sqlalchemy.orm import Session
from sqlalchemy.types import Date, DateTime, Integer, Text

from tasks.common.sql import any_of, plain_rows


def _table() -> Values:
    return values(column("n", Integer), column("t", Text), column("d", Date), column("ts", DateTime(timezone=True)),
                  name="v").data([
        (1, "é 中文 ' \" \\", dt.date(2026, 10, 9), dt.datetime(2026, 10, 9, 14, 20, tzinfo=dt.UTC)),
        (2, None, dt.date(2025, 1, 1), None),
        (3, "", dt.date(2026, 12, 1), dt.datetime(2026, 12, 1, 0, 0, tzinfo=dt.UTC)),
    ])


def test_same_rows_as_sqlalchemy(db_session: Session) -> None:
    v = _table()
    stmt = (select(v.c.n, v.c.t, v.c.d, v.c.ts, literal("x").label("lit"))
            .where(v.c.d <= dt.date(2026, 10, 9), any_of(v.c.n, [1, 2, 7]))
            .order_by(v.c.n.desc()))
    expected = [tuple(r) for r in db_session.execute(stmt).all()]
    assert len(expected) == 2
    got = plain_rows(db_session, stmt)
    assert got == expected
    assert [tuple(type(x) for x in r) for r in got] == [tuple(type(x) for x in r) for r in expected]


def test_in_lists_are_expanded(db_session: Session) -> None:
    v = _table()
    stmt = select(v.c.n).where(v.c.n.in_([1, 3]), v.c.t.in_(["", "x"])).order_by(v.c.n)
    assert plain_rows(db_session, stmt) == [tuple(r) for r in db_session.execute(stmt).all()] == [(3,)]


def test_sees_the_sessions_uncommitted_rows(db_session: Session) -> None:
    db_session.execute(text("CREATE TEMP TABLE plain_rows_probe (n integer)"))
    db_session.execute(text("INSERT INTO plain_rows_probe VALUES (41), (42)"))
    probe = select(column("n", Integer)).select_from(text("plain_rows_probe")).order_by(column("n"))
    assert plain_rows(db_session, probe) == [(41,), (42,)]
