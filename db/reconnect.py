"""`reconnecting`: a stage redone on a fresh connection while its database connection is lost, as
its settings say (`db_retry_attempts`, `db_retry_backoff_seconds`); an embedded server that died
meanwhile is started again before each new attempt."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from db.engine import revive_embedded
from db.retry import retry_reviving
from tasks.config.settings import Settings

P = ParamSpec("P")
T = TypeVar("T")


def reconnecting(step: Callable[P, T]) -> Callable[P, T]:
    """Decorate a step whose parameter `settings` holds the retry settings (redoing a stage is safe:
    `db.retry` says why)."""
    signature = inspect.signature(step)

    @functools.wraps(step)
    def redone(*args: P.args, **kwargs: P.kwargs) -> T:
        settings: Settings = signature.bind_partial(*args, **kwargs).arguments["settings"]
        return retry_reviving(settings.db_retry_attempts, settings.db_retry_backoff_seconds,
                              lambda: revive_embedded(settings), step, *args, **kwargs)

    return redone
