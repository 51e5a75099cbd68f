"""Contract of prefect.yaml: every deployment loads the way `prefect deploy` would load it.

- Its entrypoint imports and names a Prefect flow; its parameters (and a trigger's templated
  parameters) are parameters of that flow and validate against the flow's parameter schema.
- Every schedule is a cron with an explicit timezone that cronsim parses, and has a slug.
- Every trigger is a valid deployment trigger with `match` and `expect`; the inbox trigger passes
  the event's path and workspace and debounces per file with the watcher's window.
- The daily briefing keeps 22:20 Asia/Shanghai, concurrency limit 1 with CANCEL_NEW and a slug.
- The noon merge `knowledge-merge` runs at 12:00 Asia/Shanghai, after the evening it merges, and
  only proposes (`auto_apply: false`) unless a run asks otherwise.
- The pull step leaves the checkout path to each worker (PREDIGEST_REPO); each run is the engine
  process alone (the `command` job variable), and no flow has hooks that would need Prefect's
  workspace supervisor.
- Every description starts with when it runs: a scheduled one with its time, days and timezone
  ("daily 22:20 Asia/Shanghai"), so the UI and `prefect deployment ls` show the zone.
- A deployment is named after its flow (`prefect deployment run <flow>/<deployment>`), except the
  per-source polls of the one `poll-feeds` flow; the README's table names every real pair.
No server is needed: this reads the file and imports the flows.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import yaml
from cronsim import CronSim

from predigest import watch
from tasks.config.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
CONFIG: dict[str, Any] = yaml.safe_load((ROOT / "prefect.yaml").read_text(encoding="utf-8"))
DEPLOYMENTS: list[dict[str, Any]] = CONFIG["deployments"]
def _by_name(name: str) -> dict[str, Any]:
    (deployment,) = [d for d in DEPLOYMENTS if d["name"] == name]
    return deployment


def _load_flow(deployment: dict[str, Any]) -> Any:
    from prefect.flows import load_flow_from_entrypoint

    file = deployment["entrypoint"].split(":", 1)[0]
    assert (ROOT / file).is_file(), f"{deployment['name']}: entrypoint file {file} does not exist"
    return load_flow_from_entrypoint(str(ROOT / deployment["entrypoint"]))


def test_names_are_unique_and_expected() -> None:
    names = [d["name"] for d in DEPLOYMENTS]
    assert len(names) == len(set(names))
    assert set(names) >= {"daily-briefing", "ingest-inbox-file", "hf-daily-poll", "arxiv-poll", "check-staleness",
                          "briefing-for-date", "backfill-briefings", "knowledge-merge"}
    assert all(d["work_pool"]["name"] == "predigest" for d in DEPLOYMENTS)


def test_every_deployment_starts_the_engine_itself() -> None:
    """A run is one `python -m prefect.engine` process: with a command set, the process worker starts
    no workspace supervisor (a second interpreter importing Prefect per run). Without the supervisor,
    on_crashed / on_cancellation hooks would run in the worker's own process; no flow here has any."""
    for deployment in DEPLOYMENTS:
        command = deployment["work_pool"]["job_variables"]["command"]
        assert command.split()[1:] == ["-m", "prefect.engine"], deployment["name"]
        flow = _load_flow(deployment)
        assert not flow.on_crashed_hooks and not flow.on_cancellation_hooks, deployment["name"]


@pytest.mark.parametrize("deployment", DEPLOYMENTS, ids=lambda d: d["name"])
def test_entrypoint_imports_and_parameters_validate(deployment: dict[str, Any]) -> None:
    from prefect.flows import Flow
    from prefect.utilities.callables import parameter_schema
    from prefect.utilities.schema_tools import validate

    flow = _load_flow(deployment)
    assert isinstance(flow, Flow)
    schema = parameter_schema(flow).model_dump_for_openapi()
    properties = set(schema["properties"])
    given = deployment.get("parameters") or {}
    assert set(given) <= properties, f"unknown parameters {set(given) - properties}"
    validate(given, schema, raise_on_error=True, ignore_required=True)
    required = set(schema.get("required", []))
    # A scheduled run gets only these parameters; a triggered one also the trigger's. Deployments
    # with neither are started by hand, where the UI form asks for the required ones.
    if deployment.get("schedules"):
        assert not required - set(given), f"scheduled runs would lack {required - set(given)}"
    for trigger in deployment.get("triggers", []):
        templated = set(trigger.get("parameters") or {})
        assert templated <= properties
        assert not required - set(given) - templated, f"triggered runs would lack {required - set(given) - templated}"


@pytest.mark.parametrize("deployment", DEPLOYMENTS, ids=lambda d: d["name"])
def test_schedules_have_timezone_slug_and_parse(deployment: dict[str, Any]) -> None:
    from prefect.client.schemas.schedules import CronSchedule

    slugs = set()
    for schedule in deployment.get("schedules", []):
        assert schedule.get("timezone"), "a cron without timezone runs in UTC"
        assert schedule.get("slug")
        slugs.add(schedule["slug"])
        CronSchedule(cron=schedule["cron"], timezone=schedule["timezone"])
        start = dt.datetime(2026, 10, 9, 12, 0, tzinfo=ZoneInfo(schedule["timezone"]))
        nxt = next(CronSim(schedule["cron"], start))
        assert nxt > start and nxt.tzinfo is not None
    assert len(slugs) == len(deployment.get("schedules", []))


def test_schedule_times() -> None:
    def first(name: str, after: dt.datetime) -> dt.datetime:
        (schedule,) = _by_name(name)["schedules"]
        return next(CronSim(schedule["cron"], after.astimezone(ZoneInfo(schedule["timezone"]))))

    shanghai, new_york = ZoneInfo("Asia/Shanghai"), ZoneInfo("America/New_York")
    thursday_noon = dt.datetime(2026, 10, 8, 12, 0, tzinfo=shanghai)
    assert first("daily-briefing", thursday_noon) == dt.datetime(2026, 10, 8, 22, 20, tzinfo=shanghai)
    assert first("hf-daily-poll", thursday_noon) == dt.datetime(2026, 10, 9, 8, 30, tzinfo=shanghai)
    # arXiv announces Sun-Thu evenings US Eastern: after Thursday's comes Sunday's.
    friday = dt.datetime(2026, 10, 9, 21, 0, tzinfo=new_york)
    assert first("arxiv-poll", friday) == dt.datetime(2026, 10, 11, 20, 30, tzinfo=new_york)
    assert first("check-staleness", thursday_noon) < first("daily-briefing", thursday_noon)


def test_knowledge_merge_proposes_at_noon_and_applies_only_when_asked() -> None:
    import inspect

    merge = _by_name("knowledge-merge")
    assert merge["entrypoint"] == "flows/merge.py:knowledge_merge"
    assert merge["parameters"] == {"auto_apply": False}
    assert merge["concurrency_limit"] == {"limit": 1, "collision_strategy": "CANCEL_NEW"}
    (schedule,) = merge["schedules"]
    assert (schedule["cron"], schedule["timezone"]) == ("0 12 * * *", "Asia/Shanghai")
    evening = dt.datetime(2026, 10, 9, 22, 20, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert next(CronSim(schedule["cron"], evening)) == dt.datetime(2026, 10, 10, 12, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    flow = _load_flow(merge)
    assert inspect.signature(flow.fn).parameters["auto_apply"].default is False


def test_daily_briefing_is_limited_to_one_run_and_cancels_new_ones() -> None:
    daily = _by_name("daily-briefing")
    assert daily["entrypoint"] == "flows/daily.py:daily_briefing"
    assert daily["concurrency_limit"] == {"limit": 1, "collision_strategy": "CANCEL_NEW"}
    (schedule,) = daily["schedules"]
    # The settings' default schedule: cutoff 22:20 on the default briefing days (Monday to Saturday).
    fields = Settings.model_fields
    default = f"20 22 * * {fields['briefing_days'].default}"
    assert fields["cutoff"].default == "22:20" and default == "20 22 * * 1-6"
    assert (schedule["cron"], schedule["timezone"]) == (default, "Asia/Shanghai")
    assert schedule["slug"] == "daily-2220-asia-shanghai"


@pytest.mark.parametrize("deployment", [d for d in DEPLOYMENTS if d.get("triggers")], ids=lambda d: d["name"])
def test_triggers_are_valid_deployment_triggers(deployment: dict[str, Any]) -> None:
    import copy

    from prefect.cli.deploy._triggers import _initialize_deployment_triggers

    for spec in deployment["triggers"]:
        assert spec.get("match") and spec.get("expect")
    triggers = _initialize_deployment_triggers(deployment["name"], copy.deepcopy(deployment["triggers"]))
    assert len(triggers) == len(deployment["triggers"])


def test_inbox_trigger_passes_the_event_path_and_debounces_per_file() -> None:
    from prefect.events.schemas.events import Event

    inbox = _by_name("ingest-inbox-file")
    assert inbox["entrypoint"] == "flows/inbox.py:ingest_inbox_file"
    (trigger,) = inbox["triggers"]
    assert set(trigger["expect"]) == {watch.CREATED, watch.UPDATED}
    assert trigger["parameters"] == {"path": "{{ event.payload.path }}", "workspace": "{{ event.payload.workspace }}"}
    assert trigger["within"] == watch.TRIGGER_WITHIN_SECONDS and trigger["threshold"] == 1
    assert trigger["posture"] == "Reactive"
    # Per file: the bucketing labels are on every event the watcher builds.
    event = watch.build_event(watch.CREATED, "inbox/alice/2026-10-09-note.md", "/ws")
    assert set(trigger["for_each"]) <= set(event.resource)
    # The match pattern accepts the watcher's resource ids (Prefect matches trailing wildcards).
    prefect_event = Event.model_validate({"event": event.event, "resource": event.resource, "payload": event.payload})
    pattern = trigger["match"]["prefect.resource.id"]
    assert pattern.endswith("*") and prefect_event.resource.id.startswith(pattern[:-1])


def test_pull_step_uses_each_workers_checkout() -> None:
    (step,) = CONFIG["pull"]
    assert step == {"prefect.deployments.steps.set_working_directory": {"directory": "{{ $PREDIGEST_REPO }}"}}


def test_feed_polls_pass_one_source_each() -> None:
    assert _by_name("hf-daily-poll")["parameters"] == {"sources": ["hf_daily"]}
    assert _by_name("arxiv-poll")["parameters"] == {"sources": ["arxiv"]}
    assert _by_name("hf-daily-poll")["entrypoint"] == _by_name("arxiv-poll")["entrypoint"] == "flows/feeds.py:poll_feeds"


_DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]


def _when(schedule: dict[str, Any]) -> str:
    """The schedule as its description must begin: `daily 22:20 Asia/Shanghai`, `Sun-Thu 20:30 …`."""
    minute, hour, dom, month, dow = schedule["cron"].split()
    assert (dom, month) == ("*", "*") and minute.isdigit() and hour.isdigit(), "extend _when for this cron"
    if dow == "*":
        days = "daily"
    else:
        first, _, last = dow.partition("-")
        days = f"{_DAYS[int(first)]}-{_DAYS[int(last)]}" if last else _DAYS[int(first)]
    return f"{days} {int(hour):02d}:{int(minute):02d} {schedule['timezone']}"


@pytest.mark.parametrize("deployment", DEPLOYMENTS, ids=lambda d: d["name"])
def test_description_names_the_schedule_in_its_timezone(deployment: dict[str, Any]) -> None:
    description = deployment["description"]
    schedules = deployment.get("schedules", [])
    if schedules:
        (schedule,) = schedules
        assert description.startswith(_when(schedule) + ":"), (description, _when(schedule))
    elif deployment.get("triggers"):
        assert description.startswith("on ") and all(e in description for e in deployment["triggers"][0]["expect"])
    else:
        assert description.startswith("unscheduled")


def test_when_renders_the_cron_it_is_given() -> None:
    assert _when({"cron": "30 20 * * 0-4", "timezone": "America/New_York"}) == "Sun-Thu 20:30 America/New_York"
    assert _when({"cron": "5 7 * * *", "timezone": "UTC"}) == "daily 07:05 UTC"


@pytest.mark.parametrize("deployment", DEPLOYMENTS, ids=lambda d: d["name"])
def test_deployment_is_named_after_its_flow(deployment: dict[str, Any]) -> None:
    flow = _load_flow(deployment)
    if flow.name == "poll-feeds":  # one flow, one deployment per source
        assert deployment["name"] in {"hf-daily-poll", "arxiv-poll"}
    else:
        assert deployment["name"] == flow.name


def test_readme_names_every_flow_deployment_pair() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for deployment in DEPLOYMENTS:
        assert f"`{_load_flow(deployment).name}/{deployment['name']}`" in readme, deployment["name"]


@pytest.mark.parametrize(("given", "now", "named"), [
    (None, dt.datetime(2026, 10, 9, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai")), "daily-briefing 2026-10-08"),  # morning
    (None, dt.datetime(2026, 10, 9, 22, 20, tzinfo=ZoneInfo("Asia/Shanghai")), "daily-briefing 2026-10-09"),  # at cutoff
    (dt.date(2026, 10, 5), dt.datetime(2026, 10, 9, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai")), "daily-briefing 2026-10-05"),
])
def test_a_daily_run_is_named_after_the_date_it_briefs(given: dt.date | None, now: dt.datetime, named: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # A run by hand before tonight's cutoff briefs (and is named after) last evening, never the open window.
    import prefect.runtime.flow_run

    from flows import daily
    from tasks.model.windows import latest_closed_date

    monkeypatch.setattr(prefect.runtime.flow_run, "parameters", {"date": given} if given else {}, raising=False)
    monkeypatch.setattr(daily, "latest_closed_date", lambda schedule, tz, _now: latest_closed_date(schedule, tz, now))
    assert daily._run_name() == named
