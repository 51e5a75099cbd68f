"""Contract of the "no briefing by 23:00" window (`predigest.automations.seconds_until_deadline`):
from the topic's daily cutoff (its cron's minute and hour, in its own timezone) to 23:00, at least a
minute; a cron whose minute or hour is not a plain number counts from the default 22:20. The
zombie automation (`zombie_automation`) watches a run from its Pending, Running or a heartbeat, waits
3 heartbeat periods for a heartbeat, Running or a state that ends the watch, for deployments' runs
only, and sets the run Crashed; there is none when heartbeats are off. The automations themselves are
tested on a real server in tests/predigest/test_prefect_server.py and test_worker_killed.py."""

from __future__ import annotations

import pytest

from predigest.automations import seconds_until_deadline, zombie_automation


@pytest.mark.parametrize(("schedule", "seconds"), [
    ("20 22 * * *", 40 * 60),
    ("20 22 * * 1-6", 40 * 60),
    ("0 21 * * *", 2 * 3600),
    ("59 22 * * *", 60),
    ("30 23 * * *", 60),  # after the deadline: alert a minute after the run starts
    ("*/10 22 * * *", 40 * 60),
])
def test_window_runs_from_the_cutoff_to_23(schedule: str, seconds: int) -> None:
    assert seconds_until_deadline(schedule) == seconds


@pytest.mark.parametrize("heartbeat", [30, 45, 180])
def test_a_run_is_crashed_after_three_missed_heartbeats(heartbeat: int) -> None:
    import datetime as dt

    automation = zombie_automation(heartbeat)
    assert automation is not None
    trigger = automation.trigger
    assert trigger.within == dt.timedelta(seconds=3 * heartbeat)
    assert trigger.after == {"prefect.flow-run.Pending", "prefect.flow-run.Running", "prefect.flow-run.heartbeat"}
    # A run killed while Pending (taken by a worker) or before its first heartbeat is watched too;
    # Running and a heartbeat answer one watch and open the next; Pending answers none.
    assert {"prefect.flow-run.Running", "prefect.flow-run.heartbeat"} <= trigger.expect
    assert "prefect.flow-run.Pending" not in trigger.expect
    assert {f"prefect.flow-run.{s}" for s in ("Completed", "Failed", "Cancelled", "Crashed", "TimedOut")} <= trigger.expect
    # A run scheduled again or waiting for a slot has no process behind it: not a zombie.
    assert {"prefect.flow-run.Scheduled", "prefect.flow-run.AwaitingRetry"} <= trigger.expect
    assert trigger.match_related.root == {"prefect.resource.role": "deployment"}
    assert [a.state.value for a in automation.actions] == ["CRASHED"]


def test_no_zombie_automation_without_heartbeats() -> None:
    assert zombie_automation(None) is None
