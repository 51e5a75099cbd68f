"""Database URL resolution, engines, sessions and programmatic alembic migrations.

With `PREDIGEST_DATABASE_URL` unset, predigest runs an embedded PostgreSQL (pgserver) under
`<home>/pg`; it keeps running after the process exits so later commands and workers reuse it
(`predigest db stop` or `predigest down` stop it: `db.embedded`). A server this process was using
that dies under it (its postmaster killed) is started again by the next retry (`revive_embedded`).
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import quote

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from db.embedded import embedded_status, pgdata_of, stop_server
from db.retry import ServerRestarting
from tasks.config.settings import Settings, get_settings

ALEMBIC_INI = Path(__file__).resolve().parent / "alembic.ini"
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
DRIVER = "postgresql+psycopg"
EMBEDDED_DATABASE = "predigest"
# Key for pg_advisory_xact_lock; any constant unique to predigest's migrations will do.
MIGRATION_LOCK_KEY = 0x70_72_65_64_69_67  # b"predig"
# sun_path holds 108 bytes including the NUL; postgres names its socket `.s.PGSQL.<port>`.
MAX_SOCKET_PATH = 107
_SOCKET_NAME = ".s.PGSQL.5432"

_engines: dict[str, Engine] = {}
_embedded_urls: dict[Path, str] = {}
# Data dirs whose server this process started (rather than found running), so a one-off command
# can say that it leaves one behind.
started_here: set[Path] = set()
_lock = threading.Lock()
# Re-entrant: reviving a dead server forgets it and starts it again under it, so no other thread
# starts it, or reads pgserver's handle files, in between.
_embedded_lock = threading.RLock()
_used_here: set[Path] = set()  # data dirs whose server this process has used: the ones it revives
# alembic keeps the running migration context in module globals, so one process may run only one
# command at a time; the advisory lock then serialises processes.
_alembic_lock = threading.Lock()

log = logging.getLogger(__name__)


class DatabaseError(RuntimeError):
    """The database cannot be reached or is at a schema this predigest does not know."""


def normalise_url(url: str) -> str:
    """Rewrite libpq-style PostgreSQL URLs to use SQLAlchemy's psycopg 3 driver."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise DatabaseError(f"not a database URL: {url.split('@')[-1]!r}")
    # psycopg2 is not a dependency, so an explicit `+psycopg2` would only fail later.
    if scheme in ("postgres", "postgresql", "postgresql+psycopg2"):
        return f"{DRIVER}://{rest}"
    return url


def resolve_database_url(settings: Settings) -> str:
    """Return the configured database URL, or start (or reuse) the embedded server and return its URL."""
    if settings.database_url:
        return normalise_url(settings.database_url)
    return _embedded_url((settings.home / "pg").expanduser().resolve())


def _embedded_url(pgdata: Path) -> str:
    """Start or reuse the pgserver instance in `pgdata`, create the predigest database, return its URL."""
    # pgserver's start lock is a file lock, which threads of one process all pass; serialise them here.
    with _embedded_lock:
        if pgdata not in _embedded_urls:
            try:
                _embedded_urls[pgdata] = _start_embedded(pgdata)
            except Exception as exc:
                if pgdata not in _used_here:
                    raise
                # It ran for this process and died: not ready again yet, which the retries wait out.
                raise ServerRestarting(f"the embedded PostgreSQL in {pgdata} is not running again yet: {exc}") from exc
            _used_here.add(pgdata)
        return _embedded_urls[pgdata]


def _start_embedded(pgdata: Path) -> str:
    """Start (or attach to) the server in `pgdata`, create the predigest database, return its URL."""
    # platformdirs warns on import when XDG_RUNTIME_DIR is unset; that is normal for services.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    was_running = embedded_status(pgdata.parent).running
    try:
        # cleanup_mode=None: leave the server running for the next command or worker process.
        server = pgserver.get_server(pgdata, cleanup_mode=None)
    except RuntimeError as exc:
        if "socket path" in str(exc):
            raise DatabaseError(_too_long_message(pgdata)) from exc
        raise
    info = server.get_postmaster_info()
    if info.socket_dir is None:
        raise DatabaseError(f"embedded PostgreSQL in {pgdata} is not listening on a unix socket")
    socket_dir = Path(info.socket_dir)
    # pgserver falls back to a short runtime dir when pgdata is too deep; check in case it could not.
    if len(str(socket_dir / _SOCKET_NAME).encode()) > MAX_SOCKET_PATH:
        raise DatabaseError(_too_long_message(pgdata))
    _create_database(server.get_uri(), EMBEDDED_DATABASE)
    if not was_running:
        started_here.add(pgdata)
    return f"{DRIVER}://postgres:@/{EMBEDDED_DATABASE}?host={quote(str(socket_dir), safe='/')}"


def stop_embedded(home: Path, grace: float = 30.0) -> int | None:
    """Stop the embedded server of `home`; return its pid (None if none ran). This process's cached
    handles and engines on it are dropped, so the next use starts it again."""
    pid = stop_server(home, grace)
    if pid is not None:
        forget_embedded(pgdata_of(home))
    return pid


def forget_embedded(pgdata: Path) -> None:
    """Forget this process's handles on the embedded server in `pgdata` (after it was stopped)."""
    with _embedded_lock:
        url = _embedded_urls.pop(pgdata, None)
        started_here.discard(pgdata)
    if url is not None:
        with _lock:
            engine = _engines.pop(url, None)
        if engine is not None:
            engine.dispose()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    stale = pgserver.PostgresServer._instances.pop(pgdata, None)
    if stale is not None:
        # Its exit hook would look itself up in that registry again; the server is gone anyway.
        atexit.unregister(stale._cleanup)
        with suppress(OSError, ValueError):
            stale.global_process_id_list.get_and_remove(os.getpid())


def revive_embedded(settings: Settings) -> int | None:
    """Start the embedded server of `settings.home` again when this process was using it and its
    postmaster is gone (killed, or crashed); return the new pid, None when nothing was started.
    A server that will not start yet (its old backends still exiting) is left to the next retry."""
    if settings.database_url:
        return None  # an external server is restarted by whoever runs it; the retries wait for it
    pgdata = pgdata_of(settings.home)
    with _embedded_lock:
        if pgdata not in _used_here or embedded_status(settings.home).running:
            return None
        forget_embedded(pgdata)
        try:
            resolve_database_url(settings)
        except ServerRestarting as exc:  # the caller's retry reports what stays wrong
            log.warning("%s", exc)
            return None
        pid = embedded_status(settings.home).pid
        log.warning("the embedded PostgreSQL in %s had stopped; started it again (pid %s)", pgdata, pid)
        return pid


def _too_long_message(pgdata: Path) -> str:
    return (
        f"cannot start the embedded PostgreSQL: its unix socket path under {pgdata} exceeds "
        f"{MAX_SOCKET_PATH} bytes. Set PREDIGEST_HOME to a shorter path (e.g. ~/.predigest) "
        "or set PREDIGEST_DATABASE_URL to an existing PostgreSQL server."
    )


def _create_database(admin_conninfo: str, name: str) -> None:
    """Create database `name` on the server behind `admin_conninfo` unless it exists."""
    import psycopg
    from psycopg import errors, sql

    with psycopg.connect(admin_conninfo, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            return
        # Another process may create it between our check and our CREATE.
        with suppress(errors.DuplicateDatabase, errors.UniqueViolation):
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def make_engine(url: str, pool_size: int = 8) -> Engine:
    """Create an engine whose pool checks connections before use (the embedded server may restart)."""
    return create_engine(
        normalise_url(url),
        pool_size=pool_size,
        pool_pre_ping=True,
        connect_args={"application_name": "predigest"},
    )


def get_engine(settings: Settings | None = None) -> Engine:
    """Return the process-wide engine for the settings' database, creating it on first use."""
    settings = settings or get_settings()
    url = resolve_database_url(settings)
    with _lock:
        engine = _engines.get(url)
        if engine is None:
            engine = _engines[url] = make_engine(url, settings.db_pool_size)
    return engine


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Return a sessionmaker; objects stay readable after commit so results can leave the session."""
    return sessionmaker(bind=engine, expire_on_commit=False)


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """Yield a session that commits on success and rolls back on any exception."""
    with session_factory(engine)() as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def refresh_statistics(engine: Engine, tables: Sequence[str], columns: Mapping[str, Sequence[str]] | None = None) -> None:
    """ANALYZE `tables` now (the planner's statistics), each only in its `columns` when named there
    (else in all of them); a failure, e.g. a role that does not own them, is logged and otherwise
    ignored: the data is stored either way."""
    named = columns or {}
    listed = [f'"{t}"' + (" (" + ", ".join(f'"{c}"' for c in named[t]) + ")" if named.get(t) else "") for t in tables]
    try:
        with engine.begin() as conn:
            conn.execute(text("ANALYZE " + ", ".join(listed)))
    except SQLAlchemyError as exc:
        log.warning("could not refresh the planner's statistics of %s: %s", ", ".join(tables), exc)


def alembic_config() -> Config:
    """Return an alembic Config for the packaged migrations, independent of the working directory."""
    config = Config(str(ALEMBIC_INI))
    # ConfigParser interpolates '%', so escape it in the path.
    config.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    return config


@functools.cache  # parsing every migration script was a third of each register_workspace's CPU
def head_revision() -> str:
    """Return the newest migration revision shipped with this code (read once per process: the
    code, and so its migrations, do not change under a running process)."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise DatabaseError("no alembic migrations found")
    return head


def current_revision(engine: Engine) -> str | None:
    """Return the database's migration revision, or None if it has never been migrated."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade_database(engine: Engine, revision: str = "head") -> None:
    """Run `alembic upgrade`, serialised across processes so concurrent starters don't race."""
    _run_locked(engine, lambda config: command.upgrade(config, revision))


def downgrade_database(engine: Engine, revision: str) -> None:
    """Run `alembic downgrade` to `revision` under the same lock as upgrades."""
    _run_locked(engine, lambda config: command.downgrade(config, revision))


def _run_locked(engine: Engine, run: Callable[[Config], None]) -> None:
    """Run an alembic command in one transaction that holds the migration advisory lock."""
    config = alembic_config()
    with _alembic_lock, engine.begin() as conn:
        # A transaction-scoped lock is released by the commit/rollback, even if we crash mid-way;
        # a waiter then re-reads alembic_version and finds nothing left to do.
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
        config.attributes["connection"] = conn
        run(config)


def ensure_schema(settings: Settings | None = None) -> Engine:
    """Resolve the database, migrate it to head if behind, and return its engine."""
    engine = get_engine(settings)
    current = current_revision(engine)
    head = head_revision()
    if current == head:
        return engine
    if current is not None:
        try:
            ScriptDirectory.from_config(alembic_config()).get_revision(current)
        except CommandError as exc:
            raise DatabaseError(
                f"database is at schema revision {current!r}, which this predigest does not know; "
                "upgrade predigest or point PREDIGEST_DATABASE_URL at another database"
            ) from exc
    upgrade_database(engine)
    return engine
