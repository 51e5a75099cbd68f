"""Contract: `senders_to` finds the Prefect senders of this process bound to a server (the guard the
real-stack fixtures run before stopping theirs, tests/predigest/prefect_senders.py).

A flow with a task run on the session's test harness binds the process's events worker to the
harness's server: `senders_to` names it for that URL and finds nothing for another server's. It
reads Prefect's private attributes; if a Prefect upgrade renames them, this fails rather than the
guard passing for nothing.
"""

from __future__ import annotations

import pytest
from prefect import flow, task

from tests.predigest.prefect_senders import senders_to


@task
def _one() -> int:
    return 1


@flow
def _emits() -> int:
    return _one()


@pytest.mark.usefixtures("prefect_harness")
def test_a_flow_run_binds_the_events_worker_to_its_server() -> None:
    from prefect.settings import PREFECT_API_URL

    assert _emits() == 1
    harness = str(PREFECT_API_URL.value())
    assert "EventsWorker" in {type(s).__name__ for s in senders_to(harness)}
    assert senders_to("http://127.0.0.1:1/api") == []
