"""SQL helpers: `column IN (values)` as one array parameter, and plain-tuple reads of hot queries.

SQLAlchemy's `in_` sends one bind parameter per value, and PostgreSQL's protocol allows 65,535
per statement: a window naming 100,000 ids would fail. `= ANY(:array)` sends the list as one
parameter (and the planner uses the same indexes for it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import ColumnElement, Select, any_, bindparam
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session


def any_of(column: Any, values: Iterable[Any]) -> ColumnElement[bool]:
    """`column = ANY(:values)`: `column IN values` with the list as one array parameter."""
    return column == any_(bindparam(None, list(values), type_=ARRAY(column.type)))


def plain_rows(session: Session, statement: Select[*tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The rows of `statement` as the driver's tuples, in the session's transaction.

    For reads of thousands of rows on every date of a backfill: building SQLAlchemy `Row`s cost
    twice the query. The statement is compiled by the session's dialect (types and parameters
    as SQLAlchemy would send them); result types are the driver's (psycopg's), which for plain
    columns (text, integer, date, timestamptz) are those SQLAlchemy returns.
    """
    connection = session.connection()
    # Expanding IN lists ("postcompile" parameters) rendered as one placeholder per value.
    compiled = statement.compile(dialect=connection.dialect, compile_kwargs={"render_postcompile": True})
    raw = connection.connection.driver_connection
    assert raw is not None
    with raw.cursor() as cursor:
        cursor.execute(str(compiled), compiled.construct_params())
        return cursor.fetchall()
