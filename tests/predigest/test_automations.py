"""Contract of the "no briefing by 23:00" window (`predigest.automations.seconds_until_deadline`):
from the topic's daily cutoff (its cron's minute and hour, in its own timezone) to 23:00, at least a
minute; a cron whose minute or hour is not a plain number counts from the default 22:20. The
automations themselves are tested on a real server in tests/orchestration/test_prefect_server.py."""

from __future__ import annotations

import pytest

from predigest.automations import seconds_until_deadline


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
