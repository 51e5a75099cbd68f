"""What every benchmark shares: fresh databases, settings, temp dirs, timers and the figures it prints.

Databases: each benchmark creates its own uniquely named database on the server named by
`PREDIGEST_BENCH_DATABASE_URL` (any database on it; used to CREATE/DROP DATABASE, like
tests/conftest.py's database_factory), or, unset, on a throwaway embedded PostgreSQL (pgserver)
in a short temp dir. Databases are dropped (WITH FORCE) when the benchmark is done.
"""

from __future__ import annotations

import contextlib
import gc
import os
import platform
import shutil
import tempfile
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DATABASE_URL_VAR = "PREDIGEST_BENCH_DATABASE_URL"


# --- figures -----------------------------------------------------------------------------------


@dataclass
class Figure:
    """One measured number."""

    name: str
    value: float
    unit: str = "s"
    note: str = ""


@dataclass
class Check:
    """A target: `measured <= limit` (ratios and times alike)."""

    name: str
    measured: float
    limit: float
    unit: str = "s"

    @property
    def ok(self) -> bool:
        return self.measured <= self.limit


@dataclass
class Result:
    """What one benchmark reports: its figures, its targets, and how to reproduce it."""

    name: str
    command: str
    figures: list[Figure] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    table: list[dict[str, Any]] = field(default_factory=list)

    def add(self, name: str, value: float, unit: str = "s", note: str = "") -> float:
        self.figures.append(Figure(name, value, unit, note))
        return value

    def check(self, name: str, measured: float, limit: float, unit: str = "s") -> None:
        self.checks.append(Check(name, measured, limit, unit))

    def print(self) -> None:
        print(f"\n== {self.name}", flush=True)
        print(f"   reproduce: {self.command}")
        for f in self.figures:
            print(f"   {f.name:<58} {_fmt(f.value, f.unit):>14}" + (f"   ({f.note})" if f.note else ""))
        for row in self.table:
            print("   " + "  ".join(f"{k}={v}" for k, v in row.items()))
        for c in self.checks:
            mark = "MET " if c.ok else "MISS"
            print(f"   [{mark}] {c.name:<51} {_fmt(c.measured, c.unit):>14}  target <= {_fmt(c.limit, c.unit)}")
        for n in self.notes:
            print(f"   note: {n}")
        print("", flush=True)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "command": self.command,
            "figures": [f.__dict__ for f in self.figures],
            "checks": [{**c.__dict__, "ok": c.ok} for c in self.checks],
            "notes": self.notes, "table": self.table,
        }


def _fmt(value: float, unit: str) -> str:
    if unit == "s":
        return f"{value:.3f} s"
    if unit == "x":
        return f"{value:.2f}x"
    if unit in ("", "count"):
        return f"{value:g}"
    return f"{value:.2f} {unit}"


@contextlib.contextmanager
def timed() -> Iterator[Callable[[], float]]:
    """`with timed() as t: ...` then `t()` is the elapsed wall time in seconds (garbage collected first)."""
    gc.collect()  # leftovers of the setup (e.g. generating a workspace) are not the measured code's
    start = time.perf_counter()
    end: list[float] = []
    yield lambda: (end[0] if end else time.perf_counter()) - start
    end.append(time.perf_counter())


def machine() -> dict[str, Any]:
    """Cores, memory and versions of the machine the figures come from."""
    mem = 0
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) * 1024
    import prefect
    import psycopg
    import sqlalchemy

    return {
        "cores": os.cpu_count(), "memory_gb": round(mem / 2**30, 1), "python": platform.python_version(),
        "platform": platform.platform(), "cpu": _cpu_model(), "prefect": prefect.__version__,
        "sqlalchemy": sqlalchemy.__version__, "psycopg": psycopg.__version__,
    }


def host_speed(rounds: int = 3) -> float:
    """Seconds a fixed pure-Python loop takes on one core (best of `rounds`): the same code on this
    cloud machine ran 96 s one day and 149 s another, so figures taken at different times are
    compared with this beside them, not alone."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        total = 0
        for n in range(5_000_000):
            total += n % 7
        best = min(best, time.perf_counter() - start)
    return best


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


# --- databases ---------------------------------------------------------------------------------


class Databases:
    """Create fresh, uniquely named databases; all are dropped on close (and an embedded server stopped)."""

    def __init__(self) -> None:
        self._server: Any = None
        self._pgdata: Path | None = None
        self._created: list[str] = []
        configured = os.environ.get(BENCH_DATABASE_URL_VAR)
        if configured:
            self.admin_url = configured
            self.where = f"server {_hide_password(configured)}"
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import pgserver
            # Short path: the server's unix socket lives in its data dir (sun_path is ~107 bytes).
            self._pgdata = Path(tempfile.mkdtemp(prefix="pdb", dir="/tmp" if Path("/tmp").is_dir() else None))
            self._server = pgserver.get_server(self._pgdata, cleanup_mode="delete")
            self.admin_url = self._server.get_uri()
            self.where = f"embedded pgserver in {self._pgdata}"

    def _conninfo(self) -> str:
        from db.engine import normalise_url

        _, _, rest = normalise_url(self.admin_url).partition("://")
        return f"postgresql://{rest}"

    def create(self, prefix: str, template: str | None = None) -> str:
        """A new database, empty or a copy of the database at `template` (whose connections are
        closed first: PostgreSQL copies only a database nobody is connected to); returns its
        `postgresql+psycopg://` URL."""
        import psycopg
        from psycopg import sql
        from sqlalchemy import make_url

        from db.engine import normalise_url

        name = f"bench_{prefix}_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template is not None:
            _dispose_engines(template)
            statement += sql.SQL(" TEMPLATE {}").format(sql.Identifier(str(make_url(template).database)))
        with psycopg.connect(self._conninfo(), autocommit=True) as conn:
            conn.execute(statement)
        self._created.append(name)
        return make_url(normalise_url(self.admin_url)).set(database=name).render_as_string(hide_password=False)

    def drop(self, url: str) -> None:
        """Dispose predigest's engine for `url` and drop the database."""
        import psycopg
        from psycopg import sql
        from sqlalchemy import make_url

        _dispose_engines(url)
        name = str(make_url(url).database)
        if name in self._created:
            self._created.remove(name)
        with psycopg.connect(self._conninfo(), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    def close(self) -> None:
        from db import engine as db_engine

        for key in list(db_engine._engines):
            db_engine._engines.pop(key).dispose()
        import psycopg
        from psycopg import sql

        with contextlib.suppress(Exception), psycopg.connect(self._conninfo(), autocommit=True) as conn:
            for name in list(self._created):
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        self._created.clear()
        if self._server is not None:
            with contextlib.suppress(Exception):
                self._server.cleanup()
            shutil.rmtree(self._pgdata or "", ignore_errors=True)
            self._server = None


def _dispose_engines(url: str) -> None:
    """Close the pooled connections predigest's engine for `url` holds (if it has one)."""
    from db import engine as db_engine

    for key in [k for k in db_engine._engines if k == url]:
        db_engine._engines.pop(key).dispose()


def _hide_password(url: str) -> str:
    from sqlalchemy import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001
        return url.split("@")[-1]


@contextlib.contextmanager
def fresh_database(dbs: Databases, prefix: str, migrate: bool = True, template: str | None = None) -> Iterator[str]:
    """A new database, dropped afterwards: a copy of `template`, or else empty and migrated to head
    unless `migrate` is False."""
    url = dbs.create(prefix, template)
    try:
        if migrate and template is None:
            from db.engine import make_engine, upgrade_database

            engine = make_engine(url, pool_size=1)
            try:
                upgrade_database(engine)
            finally:
                engine.dispose()
        yield url
    finally:
        dbs.drop(url)


@contextlib.contextmanager
def ingested_template(dbs: Databases, prefix: str, root: Path, home: Path) -> Iterator[str]:
    """A migrated database holding the ingest of the workspace at `root`, for runs that each start
    from a copy of it (`fresh_database(..., template=url)`); dropped afterwards."""
    from tasks.stages.workspace import find_changed_files, ingest_batch, register_workspace

    with fresh_database(dbs, prefix) as url:
        settings = settings_for(url, home)
        ref = register_workspace(settings, root)
        ingest_batch(settings, ref, find_changed_files(settings, ref))
        yield url


@contextlib.contextmanager
def temp_dir(prefix: str) -> Iterator[Path]:
    """A temp dir (workspace, home, published objects), deleted afterwards."""
    path = Path(tempfile.mkdtemp(prefix=f"predigest-bench-{prefix}-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def settings_for(url: str, home: Path, **extra: Any) -> Any:
    """Settings on `url` with home and published objects under `home`; no .env is read."""
    from tasks.config.settings import Settings

    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        home=home / "home", database_url=url, storage_url=(home / "published").as_uri(), **extra,
    )


@contextlib.contextmanager
def environment(settings: Any) -> Iterator[None]:
    """Point `get_settings()` (what flows read) at `settings` for the duration."""
    from tasks.config.settings import get_settings

    values = {
        "PREDIGEST_DATABASE_URL": settings.database_url or "",
        "PREDIGEST_HOME": str(settings.home),
        "PREDIGEST_STORAGE_URL": settings.storage_root_url,
    }
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    get_settings.cache_clear()
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        get_settings.cache_clear()
