"""Contract: the alembic migrations are the only source of the schema, and they build exactly db/models.py.

- `upgrade head` creates exactly the tables of `Base.metadata` (plus alembic_version);
- autogenerate finds no difference (types, nullability, defaults, constraints, indexes) between
  the migrated database and the models, so a model change without a migration fails here;
- the history is linear, `downgrade base` removes everything and a second `upgrade head` rebuilds it;
- upgrading an up-to-date database executes no DDL;
- product code never creates tables with `metadata.create_all`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, event, inspect

from db.engine import (
    alembic_config,
    current_revision,
    downgrade_database,
    head_revision,
    make_engine,
    upgrade_database,
)
from db.models import Base

MODEL_TABLES = set(Base.metadata.tables)
ROOT = Path(__file__).resolve().parents[2]


def _tables(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names())


def _schema_diff(engine: Engine) -> list[Any]:
    """What autogenerate would put in a new migration, compared as strictly as env.py does."""
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True}
        )
        return list(compare_metadata(context, Base.metadata))


def test_history_is_linear_with_one_head() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert len(script.get_heads()) == 1
    assert script.get_current_head() == head_revision()


def test_upgrade_creates_exactly_the_model_tables(engine: Engine) -> None:
    assert current_revision(engine) == head_revision()
    assert _tables(engine) == MODEL_TABLES | {"alembic_version"}


def test_migrated_schema_matches_models(engine: Engine) -> None:
    assert _schema_diff(engine) == []


def test_upgrade_when_current_is_a_noop(engine: Engine) -> None:
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        upgrade_database(engine)
        upgrade_database(engine)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    writes = [s for s in statements if s.lstrip().split()[0].upper() not in ("SELECT", "SHOW")]
    assert writes == []
    assert current_revision(engine) == head_revision()
    assert _tables(engine) == MODEL_TABLES | {"alembic_version"}


def test_downgrade_to_base_then_upgrade_again(database_factory: Callable[[str], str]) -> None:
    engine = make_engine(database_factory("predigest_downgrade"), pool_size=1)
    try:
        upgrade_database(engine)
        assert _tables(engine) == MODEL_TABLES | {"alembic_version"}

        downgrade_database(engine, "base")
        assert current_revision(engine) is None
        assert _tables(engine) == {"alembic_version"}

        upgrade_database(engine)
        assert current_revision(engine) == head_revision()
        assert _tables(engine) == MODEL_TABLES | {"alembic_version"}
        assert _schema_diff(engine) == []
    finally:
        engine.dispose()


def test_product_code_never_uses_create_all() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for package in ("db", "predigest", "flows", "tasks")
        for path in (ROOT / package).rglob("*.py")
        if "create_all(" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
