"""`column IN (values)` as one array parameter, whatever the number of values.

SQLAlchemy's `in_` sends one bind parameter per value, and PostgreSQL's protocol allows 65,535
per statement: a window naming 100,000 ids would fail. `= ANY(:array)` sends the list as one
parameter (and the planner uses the same indexes for it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import ColumnElement, any_, bindparam
from sqlalchemy.dialects.postgresql import ARRAY


def any_of(column: Any, values: Iterable[Any]) -> ColumnElement[bool]:
    """`column = ANY(:values)`: `column IN values` with the list as one array parameter."""
    return column == any_(bindparam(None, list(values), type_=ARRAY(column.type)))
