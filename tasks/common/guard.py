"""Isolation as a mechanism: run one input's step so that any exception costs that input alone.

Every per-input boundary of the system (a workspace file, a card, a queue row, a feed entry, a
knowledge document, a topic's briefing) runs its work through `guarded`: the result, or a
`Failure` naming the input and the exception's type and message (`isolated` is the same as a
decorator whose failure is turned into a value). Nothing is re-raised except
what must stop the process (KeyboardInterrupt, SystemExit, MemoryError are not swallowed:
`BaseException` that is not `Exception` passes through), and a lost database connection, which is
not the input's fault: the stage around it is redone (`db.retry`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Concatenate, Generic, ParamSpec, TypeVar

from db.retry import is_disconnect
from tasks.common.text import clean_text

P = ParamSpec("P")
T = TypeVar("T")

# An error message stored on a source or shown in a briefing; longer ones are cut.
MAX_ERROR_CHARS = 500


def describe(exc: BaseException) -> str:
    """`Type: message` of an exception, cleaned for storage (no NUL, no lone surrogate) and bounded."""
    message = clean_text(str(exc), limit=MAX_ERROR_CHARS)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


@dataclass(frozen=True)
class Failure:
    """What a guarded step raised: which input, and `Type: message`."""

    label: str
    error: str


@dataclass(frozen=True)
class Guarded(Generic[T]):
    """The outcome of one guarded step: `value` when it ran, else `failure`."""

    value: T | None
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def guarded(label: str, step: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Guarded[T]:
    """Run `step(*args, **kwargs)` for the input `label`; any Exception but a lost database
    connection becomes a Failure."""
    try:
        return Guarded(step(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - the point: one input's failure, foreseen or not, stays its own
        if is_disconnect(exc):
            raise
        return Guarded(None, Failure(label, describe(exc)))


def isolated(on_failure: Callable[Concatenate[str, P], T]) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Decorate a step so that a failure costs its input alone: any Exception but a lost database
    connection returns `on_failure(error, *args, **kwargs)`, `error` being `Type: message`."""
    def decorate(step: Callable[P, T]) -> Callable[P, T]:
        @functools.wraps(step)
        def run(*args: P.args, **kwargs: P.kwargs) -> T:
            outcome = guarded(step.__name__, step, *args, **kwargs)
            if outcome.failure is not None:
                return on_failure(outcome.failure.error, *args, **kwargs)
            return outcome.value  # type: ignore[return-value]  # T itself may be Optional
        return run

    return decorate
