"""Retry a unit of work whose database connection was lost (the server restarted, or is restarting).

A lost connection is not the input's fault: a guarded per-input step lets it through (`is_disconnect`)
so that the whole unit (a stage: register, find changes, an ingest batch, a topic's briefing) is
redone on a fresh connection after a backoff. Redoing a unit is safe because each one is one or more
transactions that are idempotent: an ingest rolled back is written again whole, one committed before
the connection went is found unchanged and not written twice, and publishing writes only bytes that
changed. Before each new attempt `revive` (when given) may bring the server back: the embedded
PostgreSQL a run was using is started again when its postmaster died (`db.engine.revive_embedded`).
After the last attempt the error is raised as one line, `DatabaseUnavailable`, which says that a
re-run is safe.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError

P = ParamSpec("P")
T = TypeVar("T")

log = logging.getLogger(__name__)

# admin_shutdown, crash_shutdown, cannot_connect_now: the server is stopping or not yet up.
_SERVER_GOING_AWAY = frozenset({"57P01", "57P02", "57P03"})


class DatabaseUnavailable(RuntimeError):
    """The database stayed unreachable through every retry of a unit of work."""


class ServerRestarting(RuntimeError):
    """The embedded server a process was using died and has not started again yet: a lost
    connection like any other, retried."""


def is_disconnect(exc: BaseException) -> bool:
    """Whether `exc` (or what it was raised from) says the connection to the server was lost or refused."""
    import psycopg

    seen: set[int] = set()
    current: BaseException | None = exc
    # DatabaseUnavailable is the verdict after the retries: not to be retried again by an outer unit.
    while current is not None and id(current) not in seen and not isinstance(current, DatabaseUnavailable):
        seen.add(id(current))
        if isinstance(current, DBAPIError) and current.connection_invalidated:
            return True
        if isinstance(current, InterfaceError | psycopg.InterfaceError | ServerRestarting):  # closed, or restarting
            return True
        # An OperationalError without a SQLSTATE is the client's (refused, or closed under it); with
        # one, only the connection classes count, not e.g. a statement timeout or a full disk.
        if isinstance(current, psycopg.OperationalError):
            state = current.sqlstate
            return state is None or state.startswith("08") or state in _SERVER_GOING_AWAY
        current = current.__cause__ or current.__context__
    return False


def retry_on_disconnect(
    attempts: int, backoff_seconds: float, step: Callable[P, T], *args: P.args, **kwargs: P.kwargs
) -> T:
    """`step(*args, **kwargs)`, redone up to `attempts` times in all while it loses its connection,
    waiting `backoff_seconds`, then twice as long each time; other errors pass through at once."""
    return retry_reviving(attempts, backoff_seconds, None, step, *args, **kwargs)


def retry_reviving(
    attempts: int, backoff_seconds: float, revive: Callable[[], object] | None, step: Callable[P, T],
    *args: P.args, **kwargs: P.kwargs
) -> T:
    """`retry_on_disconnect`, calling `revive` (when given) before each new attempt."""
    name = getattr(step, "__name__", "a stage")
    for attempt in range(1, attempts + 1):
        try:
            return step(*args, **kwargs)
        except Exception as exc:
            if not is_disconnect(exc):
                raise
            first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            if attempt == attempts:
                raise DatabaseUnavailable(
                    f"the database connection was lost in {name} and the database stayed unreachable through "
                    f"{attempts} attempts ({first_line}); what was not committed was rolled back, so running "
                    "the same command again once the database is back is safe"
                ) from exc
            wait = backoff_seconds * 2 ** (attempt - 1)
            log.warning("database connection lost in %s (%s); retrying in %.1f s", name, first_line, wait)
            time.sleep(wait)
            if revive is not None:
                revive()
    raise AssertionError("unreachable")  # the loop returns or raises
