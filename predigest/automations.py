"""Prefect automations `predigest up` registers: tell the notification destinations when the evening goes wrong.

- "predigest: daily briefing failed": a `daily-briefing` run fails, crashes, times out or turns Late.
- "predigest: no <topic> briefing by 23:00": once a `daily-briefing` run is Running, expect the
  topic's `predigest.briefing.published` (or `.unchanged`) event by 23:00 in its timezone.
- "predigest: crash unresponsive flow runs": a run whose heartbeats stop for
  `PREDIGEST_ZOMBIE_MISSED_HEARTBEATS` periods is set Crashed (docs/faults.md); notifies nobody,
  not registered when heartbeats are off.
Actions send through Prefect blocks made from `Settings`: a CustomWebhook per `notify_webhooks` URL
and an Apprise-URL block per `notify_urls` entry (no e-mail: Prefect ships no SMTP block).
`register(env)` runs `python -m predigest.automations` with the stack's environment; registering
again replaces the automations and blocks of the same names.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tasks.config.settings import Settings, get_settings

PREFIX = "predigest"
DEADLINE = dt.time(23, 0)
FAILED_EVENTS = {"prefect.flow-run.Failed", "prefect.flow-run.Crashed", "prefect.flow-run.TimedOut",
                 "prefect.flow-run.Late"}
PUBLISHED_EVENTS = {"predigest.briefing.published", "predigest.briefing.unchanged"}
DAILY_FLOW = "daily-briefing"
FINAL_EVENTS = {"prefect.flow-run.Completed", "prefect.flow-run.Failed", "prefect.flow-run.Cancelled",
                "prefect.flow-run.Crashed"}
# What opens a run's watch: a worker took it, it started, or it beat.
ZOMBIE_WATCH_FROM = {"prefect.flow-run.Pending", "prefect.flow-run.Running", "prefect.flow-run.heartbeat"}
# What closes it: a sign of life (Running, a heartbeat: they open the next watch), a final state, or
# a state no process is behind (scheduled again, waiting for a slot, paused, suspended).
ZOMBIE_SEEN_ALIVE_OR_DONE = {
    "prefect.flow-run.Running", "prefect.flow-run.heartbeat", *FINAL_EVENTS, "prefect.flow-run.TimedOut",
    "prefect.flow-run.Scheduled", "prefect.flow-run.Late", "prefect.flow-run.AwaitingRetry",
    "prefect.flow-run.AwaitingConcurrencySlot", "prefect.flow-run.Paused", "prefect.flow-run.Suspended",
}


def seconds_until_deadline(schedule: str) -> int:
    """Seconds from a daily cron's time (`M H * * *`, in the topic's timezone) to 23:00; at least one minute.

    A schedule whose minute or hour is not a plain number counts from the default 22:20.
    """
    minute, hour = (schedule.split() + ["20", "22"])[:2]
    cutoff = dt.time(int(hour), int(minute)) if minute.isdigit() and hour.isdigit() else dt.time(22, 20)
    span = (dt.datetime.combine(dt.date.min, DEADLINE) - dt.datetime.combine(dt.date.min, cutoff)).total_seconds()
    return max(60, int(span))


def topic_schedules(settings: Settings) -> list[tuple[str, str, str]]:
    """(topic, timezone, schedule) of every topic the daily run briefs, as far as the settings know them."""
    from tasks.config.topics import load_topic_config, resolve_topic

    workspace = settings.workspace or Path(".")
    config = load_topic_config(settings, workspace)
    names = list(settings.topics)
    if settings.workspace is not None:
        from tasks.config.topics import discover_topics

        names = names or discover_topics(settings.workspace)
    return [(t.name, t.timezone, t.schedule) for t in (resolve_topic(n, settings, workspace, config) for n in names)]


def _blocks(settings: Settings) -> list[Any]:
    """Save one notification block per destination (overwriting earlier ones); return their document ids."""
    from prefect.blocks.notifications import CustomWebhookNotificationBlock, SlackWebhook
    from pydantic import SecretStr

    from tasks.publish.notify import destinations

    ids = []
    for k, url in enumerate(settings.notify_webhooks):
        block = CustomWebhookNotificationBlock(name=f"{PREFIX}-webhook-{k}", url=url,
                                               json_data={"subject": "{{subject}}", "body": "{{body}}"},
                                               headers=None, cookies=None)
        ids.append(block.save(f"{PREFIX}-webhook-{k}", overwrite=True))
    apprise_urls = [d.url for d in destinations(settings.model_copy(update={"notify_webhooks": [], "smtp_host": None}))]
    for k, url in enumerate(apprise_urls):
        ids.append(SlackWebhook(url=SecretStr(url)).save(f"{PREFIX}-apprise-{k}", overwrite=True))
    return ids


def _replace(automation: Any) -> None:
    from prefect import get_client

    with get_client(sync_client=True) as client:
        for earlier in client.read_automations_by_name(name=automation.name):
            client.delete_automation(earlier.id)
    automation.create()


def zombie_automation(heartbeat_seconds: int | None, missed: int) -> Any | None:
    """The automation that sets a flow run Crashed once `missed` heartbeat periods pass without one
    (None: heartbeats are off)."""
    from prefect.automations import Automation, EventTrigger, Posture
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState

    if heartbeat_seconds is None:
        return None
    silence = missed * heartbeat_seconds
    return Automation(
        name=f"{PREFIX}: crash unresponsive flow runs",
        description=f"A flow run Pending or Running sent no heartbeat for {missed} x "
                    f"{heartbeat_seconds} s: its process is gone (worker or machine died).",
        trigger=EventTrigger(
            # Running and heartbeat are in both: each one closes the watch it answers and opens the next.
            after=ZOMBIE_WATCH_FROM, expect=ZOMBIE_SEEN_ALIVE_OR_DONE,
            match={"prefect.resource.id": "prefect.flow-run.*"}, for_each={"prefect.resource.id"},
            # Runs of deployments only: their workers share the frequency of this stack's environment;
            # a flow run in some shell may beat less often and is no worker's to declare dead.
            match_related={"prefect.resource.role": "deployment"},
            posture=Posture.Proactive, threshold=1,
            within=dt.timedelta(seconds=silence),
        ),
        actions=[ChangeFlowRunState(name="Crashed", state=StateType.CRASHED, force=False,
                                    message=f"no heartbeat for {silence} s: "
                                            "its worker or machine died")],
    )


def register_automations(settings: Settings) -> list[str]:
    """Create (or replace) the automations; returns their names."""
    from prefect.automations import Automation, EventTrigger, Posture, SendNotification
    from prefect.settings import get_current_settings

    zombie = zombie_automation(get_current_settings().flows.heartbeat_frequency, settings.zombie_missed_heartbeats)
    if zombie is not None:
        _replace(zombie)
    names = [zombie.name] if zombie is not None else []
    block_ids = _blocks(settings)
    if not block_ids:
        return names
    daily_flow: dict[str, str | list[str]] = {"prefect.resource.role": "flow", "prefect.resource.name": DAILY_FLOW}

    def notify(subject: str, body: str) -> list[Any]:
        return [SendNotification(block_document_id=b, subject=subject, body=body) for b in block_ids]

    automations = [Automation(
        name=f"{PREFIX}: daily briefing failed",
        description="A daily-briefing run failed, crashed, timed out or was not started on time.",
        trigger=EventTrigger(expect=FAILED_EVENTS, match={"prefect.resource.id": "prefect.flow-run.*"},
                             match_related=daily_flow, posture=Posture.Reactive, threshold=1),
        actions=notify("predigest: {{ flow_run.name }} is {{ flow_run.state.name }}",
                       "The daily briefing run {{ flow_run.name }} is {{ flow_run.state.name }}: "
                       "{{ flow_run.state.message }}"),
    )]
    for topic, timezone, schedule in topic_schedules(settings):
        automations.append(Automation(
            name=f"{PREFIX}: no {topic} briefing by 23:00",
            description=f"No {topic} briefing published by 23:00 {timezone} after the daily run started.",
            trigger=EventTrigger(
                after={"prefect.flow-run.Running"}, expect=PUBLISHED_EVENTS,
                match={"prefect.resource.id": ["prefect.flow-run.*", f"predigest.briefing.{topic}"]},
                match_related=daily_flow, posture=Posture.Proactive, threshold=1,
                within=dt.timedelta(seconds=seconds_until_deadline(schedule)),
            ),
            actions=notify(f"predigest: no {topic} briefing by 23:00 ({timezone})",
                           f"The daily run started, but no {topic} briefing was published by 23:00 {timezone}."),
        ))
    for automation in automations:
        _replace(automation)
    return names + [a.name for a in automations]


def register(env: Mapping[str, str], repo: Path) -> str:
    """Register the automations on the server named by `env` (a subprocess with that environment)."""
    done = subprocess.run([sys.executable, "-m", "predigest.automations"], env=dict(env), cwd=repo, check=False,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return f"automations not registered: {last[0]}"
    return done.stdout.strip()


def main() -> int:
    names = register_automations(get_settings())
    print(f"automations: {', '.join(names)}" if names else
          "automations: none (no PREDIGEST_NOTIFY_WEBHOOKS or PREDIGEST_NOTIFY_URLS, heartbeats off)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
