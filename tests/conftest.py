"""Shared pytest fixtures. Sections: import path, database, database marker; add new sections below,
one per concern.

Database tests run against real PostgreSQL only. With `PREDIGEST_TEST_DATABASE_URL` set (CI), each
test session creates uniquely named databases on that server; otherwise it starts a throwaway
embedded server (pgserver) in a short temp dir. Either way the databases are dropped at the end.
Each pytest-xdist worker is a session of its own, with its own databases, server and Prefect API.

Every test whose fixtures reach `pg_admin_url` is marked `database` at collection, so `-m database`
selects exactly the tests that depend on the database mode (CI runs them a second time against the
embedded server); a test that reaches the database only through `request.getfixturevalue` fails,
saying so, rather than being left out of that run.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# --- import path ---------------------------------------------------------------------------------
# The top-level packages (db, predigest, flows, tasks) import without installing the project;
# `pythonpath = ["."]` under [tool.pytest.ini_options] would make this unnecessary.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sqlalchemy import Engine  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from db.engine import make_engine, normalise_url, upgrade_database  # noqa: E402
from tasks.config.settings import Settings  # noqa: E402
from tests.helpers import empty_tables  # noqa: E402

# Generated workspaces span Sundays and their answers assume an evening every day (their
# generator's assumption), so the suite briefs daily; tests of the default schedule (Monday to
# Saturday) and of corpus2's Mondays set it themselves. An explicit setting wins.
os.environ.setdefault("PREDIGEST_BRIEFING_DAYS", "*")

# --- database ------------------------------------------------------------------------------------

TEST_DATABASE_URL_VAR = "PREDIGEST_TEST_DATABASE_URL"


def _psycopg_conninfo(url: str) -> str:
    """Turn a SQLAlchemy URL back into a libpq URL that psycopg.connect accepts."""
    _, _, rest = normalise_url(url).partition("://")
    return f"postgresql://{rest}"


def _with_database(url: str, name: str) -> str:
    """Return `url` (any accepted form) pointing at database `name`, with the psycopg driver."""
    from sqlalchemy import make_url

    return make_url(normalise_url(url)).set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def pg_admin_url() -> Iterator[str]:
    """A URL to an existing database on the test server, used only to create and drop databases."""
    configured = os.environ.get(TEST_DATABASE_URL_VAR)
    if configured:
        yield normalise_url(configured)
        return
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on import
        import pgserver
    # Short path: the server's unix socket lives in its data dir (sun_path is ~107 bytes).
    pgdata = Path(tempfile.mkdtemp(prefix="pdg", dir="/tmp" if Path("/tmp").is_dir() else None))
    server = pgserver.get_server(pgdata, cleanup_mode="delete")
    try:
        yield normalise_url(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(pgdata, ignore_errors=True)


@pytest.fixture(scope="session")
def database_factory(pg_admin_url: str) -> Iterator[Callable[..., str]]:
    """Create uniquely named databases (`prefix` names their purpose), empty or a copy of `template`;
    dropped at session end."""
    import psycopg
    from psycopg import sql

    created: list[str] = []

    def create(prefix: str = "predigest_test", template: str | None = None) -> str:
        name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template is not None:
            statement += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
        with psycopg.connect(_psycopg_conninfo(pg_admin_url), autocommit=True) as conn:
            conn.execute(statement)
        created.append(name)
        return _with_database(pg_admin_url, name)

    yield create
    with psycopg.connect(_psycopg_conninfo(pg_admin_url), autocommit=True) as conn:
        for name in created:
            # FORCE: a leaked connection (e.g. a failed test's engine) must not keep the database alive.
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="session")
def migrated_template(database_factory: Callable[..., str]) -> str:
    """The name of a database migrated to head once per session and never connected to again: the
    template `migrated_database` copies (a copy takes a fraction of the second the migrations take;
    tests/db/test_migrations.py and test_engine.py run the migrations themselves on empty databases)."""
    from sqlalchemy import make_url

    url = database_factory("predigest_template")
    engine = make_engine(url, pool_size=1)
    try:
        upgrade_database(engine)
    finally:
        engine.dispose()  # CREATE DATABASE … TEMPLATE fails while anyone is connected to it
    return str(make_url(url).database)


@pytest.fixture(scope="session")
def migrated_database(database_factory: Callable[..., str], migrated_template: str) -> Callable[[str], str]:
    """Like `database_factory`, but each new database is at head (a copy of `migrated_template`)."""

    def create(prefix: str = "predigest_test") -> str:
        return database_factory(prefix, template=migrated_template)

    return create


@pytest.fixture(scope="session")
def database_url(migrated_database: Callable[[str], str]) -> str:
    """The session's database, migrated to head once; a `postgresql+psycopg://` URL."""
    return migrated_database("predigest_test")


@pytest.fixture(scope="session")
def engine(database_url: str) -> Iterator[Engine]:
    """A session-wide engine on the migrated test database."""
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def clean_db(engine: Engine) -> Engine:
    """Empty every table (ids restart at 1) before the test; returns the engine for convenience."""
    empty_tables(engine)
    return engine


@pytest.fixture
def db_session(engine: Engine) -> Iterator[Session]:
    """A Session on the test database; uncommitted work is rolled back afterwards (use clean_db to isolate)."""
    with Session(engine, expire_on_commit=False) as session:
        yield session
        session.rollback()


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    """Settings for a test: a fresh home and local storage under tmp_path, on the session's database."""
    return Settings(
        _env_file=None,  # type: ignore[call-arg]  # a developer's .env must not leak into tests
        home=tmp_path / "home",
        database_url=database_url,
        storage_url=(tmp_path / "published").as_uri(),
    )


# --- database marker -----------------------------------------------------------------------------
# The mode (server or embedded) reaches a test only through `pg_admin_url`; nothing else reads
# PREDIGEST_TEST_DATABASE_URL. So the tests that depend on it are exactly those whose fixture closure
# contains it: new tests are classified by what they request, not by a list.

DATABASE_ROOT_FIXTURE = "pg_admin_url"
DATABASE_MARK = "database"


def _reaches_database(item: pytest.Item, names: set[str]) -> bool:
    """Whether any fixture in `names`, or anything it depends on, is the database root fixture."""
    manager = item.session._fixturemanager
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name == DATABASE_ROOT_FIXTURE:
            return True
        for fixturedef in manager.getfixturedefs(name, item) or ():
            todo.extend(fixturedef.argnames)
    return False


def _mark_database(items: list[pytest.Item]) -> None:
    for item in items:
        if DATABASE_ROOT_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker(DATABASE_MARK)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    if item.get_closest_marker(DATABASE_MARK) is not None:
        return
    request = getattr(item, "_request", None)
    dynamic = set(request.fixturenames if request is not None else ()) - set(getattr(item, "fixturenames", ()))
    if dynamic and _reaches_database(item, dynamic):
        pytest.fail(f"{item.nodeid} uses the database through request.getfixturevalue({sorted(dynamic)}): "
                    "name the fixture as a parameter, so that it is marked `database` and runs in both modes",
                    pytrace=False)


# --- worker balance ------------------------------------------------------------------------------
# `make test` hands whole modules to xdist workers in collection order (`--dist loadfile
# --no-loadscope-reorder`); a worker takes the next module when it is nearly done. xdist's own
# order (most tests first) put the costliest module, a single test, last, on one worker, while the
# other had nothing left to do. So modules go out costliest first (the classic rule for list
# scheduling), by an estimate from what their tests are: marked `slow`, counting Python lines
# (`counting`), running flows on the Prefect API, reaching the database, or none of these. The
# weights are the ratio of the mean durations of those classes in a measured run (4f64802, three
# workers: 8.1, 7.6, 5.0, 0.87 and 0.075 s); classified by marks and fixtures, as the database marker
# is, not by a list. It only orders: every test still runs.
#
# The modules under tests/stacks/ start real Prefect stacks, which take turns on one machine-wide
# lock (`one_stack_at_a_time`): as two work units, the second held a worker idle at the lock for
# minutes, or started minutes late behind a cheap module. So they are one work unit
# (`pytest_xdist_make_scheduler`), sent out first (they take ~4 minutes, mostly waiting), the module
# with the fewest tests first: the killed-worker drill, one test that waits out the zombie
# automation. xdist hands a worker its next unit when two of its tests are left, so the next unit
# then waits only for the last short tests, not for the drill.

COST_SLOW, COST_COUNTING, COST_PREFECT, COST_DATABASE, COST_PLAIN = 108, 101, 67, 12, 1
STACKS_DIR = "tests/stacks/"  # its modules are one work unit: see above


def _estimated_cost(item: pytest.Item) -> int:
    fixtures = getattr(item, "fixturenames", ())
    if item.get_closest_marker("slow") is not None:
        return COST_SLOW
    if item.get_closest_marker("counting") is not None:
        return COST_COUNTING
    if "prefect_harness" in fixtures:
        return COST_PREFECT
    return COST_DATABASE if DATABASE_ROOT_FIXTURE in fixtures else COST_PLAIN


def _order_costliest_module_first(items: list[pytest.Item]) -> None:
    def module(item: pytest.Item) -> str:
        return item.nodeid.split("::")[0]

    cost: dict[str, int] = {}
    tests: dict[str, int] = {}
    for item in items:
        cost[module(item)] = cost.get(module(item), 0) + _estimated_cost(item)
        tests[module(item)] = tests.get(module(item), 0) + 1

    def key(item: pytest.Item) -> tuple[int, int]:
        if module(item).startswith(STACKS_DIR):
            return (0, tests[module(item)])
        return (1, -cost[module(item)])

    # The sort is stable: a module's tests keep their order and stay together.
    items.sort(key=key)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, absent with `-p no:xdist`
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadfile` with the modules under tests/stacks/ as one work unit (see "worker balance")."""
    if config.getoption("dist", None) != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class StacksTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return STACKS_DIR if scope.startswith(STACKS_DIR) else scope

    return StacksTogether(config, log)


def _deselect_live(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`live` tests touch the network: they run only with PREDIGEST_LIVE=1 and are otherwise
    deselected (reported as such), not skipped, so that a skip in CI always means something is missing."""
    if os.environ.get("PREDIGEST_LIVE") == "1":
        return
    live = [item for item in items if item.get_closest_marker("live") is not None]
    if live:
        config.hook.pytest_deselected(items=live)
        items[:] = [item for item in items if item.get_closest_marker("live") is None]


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Iterator[None]:
    _mark_database(items)  # before `-m` deselects by marker
    _deselect_live(config, items)
    yield
    _order_costliest_module_first(items)  # what is left to run


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Each test process, once it has collected (every test module, Prefect, SQLAlchemy, Hypothesis
    imported), collects its garbage once and then runs fewer full collections, as a backfill's
    lanes do (`tasks.common.gc_policy`): each one scanned all of that again. On tests/judge,
    tests/briefing and two more modules, three alternations: 88-99 user CPU s before, 73-84 after.
    The line-counting tests turn the collector off while they count (tests/counting.py)."""
    import gc

    from tasks.common.gc_policy import fewer_full_collections

    gc.collect()
    fewer_full_collections()


@pytest.fixture(autouse=True)
def _restore_environment() -> Iterator[None]:
    """os.environ as the test found it, afterwards. The CLI applies `--workspace`, `--lang` and
    `--rehash` to os.environ for the flows it calls, and `up` hands os.environ to the processes it
    starts: without this, one CLI test's flags reached every later test of its worker (a stack
    started after it got a watcher for that test's workspace). Session and module fixtures set
    their variables before this snapshot, so theirs stay."""
    saved = dict(os.environ)
    yield
    if dict(os.environ) != saved:
        os.environ.clear()
        os.environ.update(saved)


# --- page tests without a browser -----------------------------------------------------------------

BROWSER_SKIPS = "predigest/browser_skips"  # pytest's cache key: `make test` prints it in its last line
_browser_skips: list[int] = [0]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Count page tests that skipped for want of Chromium (on the controller, which gets every report)."""
    from tests.publish.chromium import MISSING

    if report.skipped and MISSING in str(report.longrepr):
        _browser_skips[0] += 1


def pytest_sessionfinish(session: pytest.Session) -> None:
    cache = getattr(session.config, "cache", None)  # None with -p no:cacheprovider
    if not hasattr(session.config, "workerinput") and cache is not None:
        cache.set(BROWSER_SKIPS, _browser_skips[0])


# --- other fixtures ------------------------------------------------------------------------------
# Add further shared fixtures below in their own section (e.g. Prefect test harness, S3/moto).


@pytest.fixture(scope="module")
def module_settings(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Settings:
    """Settings shared by one test module (for module-scoped expensive setups)."""
    tmp = tmp_path_factory.mktemp("module")
    return Settings(
        _env_file=None, home=tmp / "home", database_url=database_url, storage_url=(tmp / "published").as_uri()
    )


# --- prefect -------------------------------------------------------------------------------------


def _own_random_for_prefect_loops() -> None:
    """Background loops in a test worker draw from the global `random`: the events client's
    websocket keepalive (a ping's payload), its reconnect backoff, the in-process Prefect server's
    service jitter. Hypothesis, in the same worker, warns when the global state moves while it draws
    (HypothesisDeprecationWarning "Do not use the `random` module inside strategies"): those
    loops get a generator of their own."""
    import importlib
    import random

    for name in ("websockets.asyncio.connection", "websockets.sync.connection", "websockets.legacy.protocol",
                 "websockets.client", "websockets.legacy.client", "prefect.utilities.math",
                 "prefect._internal._observation_delivery"):
        try:
            module = importlib.import_module(name)
        except ImportError:  # another Prefect version: nothing of that name to give one to
            continue
        if getattr(module, "random", None) is random:
            module.random = random.Random()  # type: ignore[attr-defined]


_own_random_for_prefect_loops()


@pytest.fixture(scope="session")
def prefect_db_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Prefect server database at head, migrated once per run for all xdist workers (tests/prefect_db.py)."""
    from tests.prefect_db import migrated_prefect_db

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return migrated_prefect_db(shared / "prefect-db")


@pytest.fixture(scope="session")
def prefect_harness(prefect_db_template: Path) -> Iterator[None]:
    """One ephemeral Prefect API for the whole session (it takes seconds to start), on a copy of
    the migrated database: the harness puts its database in a new temp dir (`mkdtemp`), which
    is handed one that already holds it."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    from unittest import mock

    from prefect.testing import utilities
    from prefect.testing.utilities import prefect_test_harness

    from tests.prefect_db import seed_prefect_home

    seeded = Path(tempfile.mkdtemp(prefix="prefect-harness-"))
    seed_prefect_home(seeded, prefect_db_template, "prefect-test.db")  # the harness's database name
    harness = prefect_test_harness(server_startup_timeout=120)
    with mock.patch.object(utilities, "mkdtemp", return_value=str(seeded)):
        harness.__enter__()
    try:
        yield
    finally:
        harness.__exit__(None, None, None)


# --- s3 ------------------------------------------------------------------------------------------


@pytest.fixture
def s3_bucket(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A moto-backed S3 bucket named `briefings-test`; no network."""
    from moto import mock_aws

    for var, value in {
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1", "AWS_SESSION_TOKEN": "testing",
    }.items():
        monkeypatch.setenv(var, value)
    with mock_aws():
        import boto3

        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="briefings-test")
        yield "briefings-test"
