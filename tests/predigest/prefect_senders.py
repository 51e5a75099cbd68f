"""What this test process's Prefect background senders are bound to, for the tests that stop a server.

Prefect sends a process's events (`EventsWorker`) and run logs (`APILogWorker`) from queue services
that live as long as the process. An events worker is cached under a key that does not hold the API
URL: whichever server `PREFECT_API_URL` named when the first event was sent is the one every later
event of the process goes to, whatever the settings say then. A flow run in this process while the
settings named a test's own server therefore bound the session's events to that server; once it was
stopped, each event took ~10 reconnection attempts, and the session's test harness, which drains
every sender at teardown (`prefect_test_harness`), waited for the harness tests' events for good.

`drain_senders_to` runs before a test stops a server it started: a sender bound to it (nothing in
the test should have made one) is drained while the server still answers, so nothing is left queued
for it, and the test fails saying what it was.
"""

from __future__ import annotations

import concurrent.futures
from typing import Any
from urllib.parse import urlsplit

DRAIN_DEADLINE_S = 120.0  # the server still answers: a few seconds at most


def _targets(service: Any) -> set[str]:
    """The API URLs a sender's clients talk to (its events client and its orchestration client)."""
    urls = set()
    for name in ("_client", "_orchestration_client"):
        client = getattr(service, name, None)
        for attribute in ("_api_url", "api_url"):
            if (url := getattr(client, attribute, None)) is not None:
                urls.add(str(url))
    return urls


def _running(service: Any) -> bool:
    """Started in this process and not finished (a draining sender is still running)."""
    done = getattr(service, "_done_event", None)
    return done is not None and not done.is_set()


def senders_to(api_url: str) -> list[Any]:
    """This process's running Prefect senders bound to the server at `api_url`."""
    from prefect._internal.concurrency.services import _active_services

    server = urlsplit(api_url).netloc
    return [s for s in list(_active_services)
            if _running(s) and any(urlsplit(url).netloc == server for url in _targets(s))]


def drain_senders_to(api_url: str) -> list[str]:
    """Drain every sender bound to `api_url` (the server must still answer); the names of those there were.
    Raises TimeoutError if one does not finish within the deadline."""
    found = senders_to(api_url)
    names = [f"{type(s).__name__} ({s._queue.qsize()} queued)" for s in found]
    futures = [service._drain() for service in found]  # stops it taking items, waits for what it holds
    _, pending = concurrent.futures.wait(futures, timeout=DRAIN_DEADLINE_S)
    if pending:
        raise TimeoutError(f"{len(pending)} Prefect sender(s) bound to {api_url} did not drain in {DRAIN_DEADLINE_S} s")
    return names
