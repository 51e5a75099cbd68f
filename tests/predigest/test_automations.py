"""Contract of the "no briefing by 23:00" window (`predigest.automations.seconds_until_deadline`):
from the topic's daily cutoff (its cron's minute and hour, in its own timezone) to 23:00, at least a
minute; a cron whose minute or hour is not a plain number counts from the default 22:20. The
zombie automation (`zombie_automation`) watches a run from its Pending, Running or a heartbeat, waits
`PREDIGEST_ZOMBIE_MISSED_HEARTBEATS` heartbeat periods (3 unless set) for a heartbeat, Running or a state that ends the watch, for deployments' runs
only, and sets the run Crashed; there is none when heartbeats are off. The automations themselves are
tested on a real server in tests/stacks/test_prefect_server.py and test_worker_killed.py."""

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


@pytest.mark.parametrize(("heartbeat", "missed"), [(30, None), (45, None), (180, None), (30, 2), (60, 5)])
def test_a_run_is_crashed_after_the_missed_heartbeats(heartbeat: int, missed: int | None) -> None:
    import datetime as dt

    from tasks.config.settings import Settings

    env = {} if missed is None else {"zombie_missed_heartbeats": missed}
    settings = Settings(_env_file=None, **env)  # type: ignore[arg-type]
    automation = zombie_automation(heartbeat, settings.zombie_missed_heartbeats)
    assert automation is not None
    trigger = automation.trigger
    assert trigger.within == dt.timedelta(seconds=(missed or 3) * heartbeat)
    assert f"{(missed or 3) * heartbeat} s" in automation.actions[0].message
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
    assert zombie_automation(None, 3) is None
