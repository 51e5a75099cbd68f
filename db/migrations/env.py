"""Alembic environment: migrate on a connection handed in by db.engine, or on the configured database."""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection, create_engine, pool

from db.engine import resolve_database_url
from db.models import Base
from tasks.config.settings import get_settings

config = context.config
target_metadata = Base.metadata


def _configure(connection: Connection) -> None:
    """Point alembic at `connection` with the options autogenerate and the tests rely on."""
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        compare_server_default=True,
    )


def run_migrations_offline() -> None:
    """Emit SQL for the configured database's dialect instead of executing it (`--sql`)."""
    context.configure(
        url=resolve_database_url(get_settings()),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Migrate on the caller's connection if given (inside its transaction), else on the configured one."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        # db.engine already opened the transaction (and holds the advisory lock in it).
        with context.begin_transaction():
            context.run_migrations()
        return

    # Only the alembic CLI gets here; configuring logging in-process would clobber the app's loggers.
    if config.config_file_name is not None:
        fileConfig(config.config_file_name, disable_existing_loggers=False)
    engine = create_engine(resolve_database_url(get_settings()), poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            _configure(conn)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
