"""Rows per table of a database, to compare what two runs stored (tests and benchmarks alike)."""

from __future__ import annotations

from sqlalchemy import Engine, text

from db.engine import make_engine
from db.models import Base


def table_counts(database: Engine | str) -> dict[str, int]:
    """Rows in every table of `database` (an engine, or a URL opened and closed here)."""
    engine = make_engine(database, pool_size=1) if isinstance(database, str) else database
    try:
        with engine.connect() as conn:
            return {t.name: conn.execute(text(f'SELECT count(*) FROM "{t.name}"')).scalar_one()
                    for t in Base.metadata.sorted_tables}
    finally:
        if isinstance(database, str):
            engine.dispose()
