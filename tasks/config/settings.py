"""The one place predigest reads its environment: `PREDIGEST_*` variables and an optional `.env`.

A run's own parameters (`workspace`, `lang`, `rehash`: a CLI flag or a deployment run's parameter)
are applied to these settings as a derived copy (`with_run_parameters`, `resolve_workspace`), never
written back into the environment, so a run started from the UI and one started by the CLI are
configured the same way."""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Runtime configuration; every field is `PREDIGEST_<FIELD>` in the environment."""

    model_config = SettingsConfigDict(env_prefix="PREDIGEST_", env_file=".env", extra="ignore")

    home: Path = Path(".predigest")
    database_url: str | None = None
    storage_url: str | None = None
    workspace: Path | None = None
    timezone: str = "Asia/Shanghai"
    cutoff: str = "22:20"
    # The days with an evening briefing, as cron's day-of-week field (0 or 7 is Sunday). The default
    # skips Sundays, so Monday's window reaches back to Saturday's cutoff (48 hours), as the team's
    # hand-written Monday briefings do; "*" briefs daily. A Sunday asked for by date still briefs.
    briefing_days: str = "1-6"
    # The noon update that merges an evening's increments into the knowledge document (HH:MM, topic's timezone).
    merge_time: str = "12:00"
    topics: list[str] = Field(default_factory=list)
    # Optional TOML with per-topic settings (schedule, timezone, terms); defaults ship in the package.
    topics_file: Path | None = None
    # Optional TOML overriding judgment word lists and weights (tasks/config/judgment.toml).
    judgment_file: Path | None = None
    lang: str = "zh"
    # Prefect's own PREFECT_API_URL, read here (not by importing Prefect) to decide whether a one-off
    # command uses the server it names or the local one kept under home (predigest/local_api.py).
    prefect_api_url: str | None = Field(default=None, validation_alias="PREFECT_API_URL")
    # Hours the Prefect server kept for one-off commands runs unused before it stops itself (0: never);
    # a running `predigest up` stack is never idle, and a server whose home is deleted always stops.
    kept_server_idle_hours: float = Field(default=6.0, ge=0)
    # Bound on concurrent Prefect task threads; keep below the DB pool size.
    task_concurrency: int = 4
    # "threads" (default) or "dask": extraction fan-out on a Dask cluster (pip install predigest[dask]);
    # dask_address names a running scheduler, else a local cluster of task_concurrency processes starts.
    task_runner: Literal["threads", "dask"] = "threads"
    dask_address: str | None = None
    db_pool_size: int = 8
    # A stage whose database connection is lost (the server restarted) is redone, up to this many
    # attempts in all, waiting the backoff, then twice as long each time (db/retry.py).
    db_retry_attempts: int = Field(default=6, ge=1, le=20)
    db_retry_backoff_seconds: float = Field(default=1.0, ge=0)
    # Heartbeat periods a deployment's flow run may stay silent before the automation `predigest up`
    # registers sets it Crashed (predigest/automations.py): one late beat on a loaded machine is no crash.
    zombie_missed_heartbeats: int = Field(default=3, ge=2, le=20)
    s3_endpoint_url: str | None = None
    # botocore's retry of S3 requests that answer 5xx/throttling or drop the connection: "standard"
    # backs off exponentially with jitter (up to 20 s a wait); max_attempts counts the first try.
    s3_retry_mode: Literal["standard", "adaptive", "legacy"] = "standard"
    s3_max_attempts: int = Field(default=5, ge=1, le=20)
    # Seconds to wait for an S3 connection, and for each read of an answer, before the attempt fails.
    s3_timeout_seconds: float = Field(default=30.0, gt=0)
    stale_after_days: int = 7
    # Units of work one source may cost, once to parse it (an entry a unit) and once to judge and
    # verify it (a paper it names first, a candidate, a comparison, an entry a check reads): past
    # it the source is cut short, keeps what was done by then, says so, the briefing names it, and
    # the run goes on (docs/work-budget.md). Counted, so the cut never depends on the load.
    source_budget_units: int = Field(default=10_000, gt=0)
    # Read and hash every stored workspace file to find what changed, instead of trusting an
    # unchanged size and mtime (what misses: tasks/ingest/changes.py). Slower; exact.
    rehash: bool = False
    # Feeds polled by `predigest feeds` and the feeds flow.
    arxiv_categories: list[str] = Field(default_factory=lambda: ["cs.CL", "cs.LG", "cs.DC"])
    # Look up every mentioned arXiv id on the arXiv API (batched, 3 s apart) during runs.
    arxiv_lookup: bool = False
    # Named in the User-Agent of requests to arXiv and Hugging Face, as arXiv asks of API clients.
    contact_email: str | None = None
    # Show the full traceback when a command fails (the CLI's --debug does the same).
    debug: bool = False
    # Public address of the published folder or bucket (e.g. https://briefings.example.org): makes the
    # links in feeds and notifications absolute. Unset, they are relative to the feed or page.
    site_url: str | None = None
    # Notifications on publish (never when unchanged); see tasks/publish/notify.py and docs/site.md.
    # Generic JSON webhooks (http/https URLs that receive a JSON POST).
    notify_webhooks: list[str] = Field(default_factory=list)
    # Any Apprise URL: Slack (https://hooks.slack.com/services/…), Feishu (https://open.feishu.cn/…/hook/…), …
    notify_urls: list[str] = Field(default_factory=list)
    # E-mail over SMTP (HTML and plain-text parts) to email_to, when smtp_host and email_to are set.
    smtp_host: str | None = None
    smtp_port: int = 587
    smtp_security: Literal["starttls", "ssl", "none"] = "starttls"
    smtp_user: str | None = None
    smtp_password: SecretStr | None = None
    email_from: str = "predigest@localhost"
    email_to: list[str] = Field(default_factory=list)
    notify_attempts: int = Field(default=3, ge=1, le=10)  # per destination, with backoff between them
    notify_backoff_seconds: float = Field(default=2.0, ge=0)
    # A backfill publishes many dates at once; notify for them only when asked.
    notify_backfill: bool = False

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:  # ZoneInfoNotFoundError is a KeyError
            raise ValueError(f"unknown timezone {value!r}") from exc
        return value

    @field_validator("cutoff", "merge_time")
    @classmethod
    def _valid_cutoff(cls, value: str) -> str:
        hour, _, minute = value.partition(":")
        if not (hour.isdigit() and minute.isdigit() and int(hour) < 24 and int(minute) < 60):
            raise ValueError(f"must be HH:MM, got {value!r}")
        return value

    @property
    def storage_root_url(self) -> str:
        """Where briefings are published: as configured, else the workspace's own folder under home
        (`published/<workspace_key>`), so two workspaces sharing a home never publish over each other."""
        if self.storage_url:
            return self.storage_url
        if self.workspace is None:
            raise ValueError("the default store is the workspace's own folder under PREDIGEST_HOME: name the "
                             "workspace (--workspace, PREDIGEST_WORKSPACE) or set PREDIGEST_STORAGE_URL")
        return (self.home.resolve() / "published" / workspace_key(self.workspace)).as_uri()

    @property
    def default_schedule(self) -> str:
        hour, minute = self.cutoff.split(":")
        return f"{int(minute)} {int(hour)} * * {self.briefing_days}"


def workspace_key(workspace: Path) -> str:
    """A workspace's name in stores: its folder's name (made a safe key segment) and the first 8 hex of
    the sha256 of its absolute path, which is how the database tells workspaces apart too."""
    root = Path(workspace).expanduser().resolve()
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", root.name).strip("-_")[:40] or "workspace"
    return f"{name}-{hashlib.sha256(bytes(root)).hexdigest()[:8]}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


# The briefing languages the label tables hold (tasks/render/labels.py); a run's `lang` parameter.
Lang = Literal["zh", "en"]


def with_run_parameters(settings: Settings, workspace: str | Path | None = None, lang: str | None = None,
                        rehash: bool | None = None) -> Settings:
    """`settings` as one run was asked to use them: each parameter given replaces the configured
    value (None keeps it); the workspace, given or configured, made absolute."""
    update: dict[str, Any] = {}
    if root := workspace or settings.workspace:
        update["workspace"] = Path(root).expanduser().resolve()
    if lang:
        update["lang"] = lang
    if rehash is not None:
        update["rehash"] = rehash
    return settings.model_copy(update=update) if update else settings


def resolve_workspace(workspace: str | Path | None = None, lang: str | None = None, rehash: bool | None = None,
                      settings: Settings | None = None) -> tuple[Settings, str]:
    """What a flow run uses: the settings (default: the environment's) with the run's parameters
    applied, and its workspace root; ValueError when neither names a workspace."""
    resolved = with_run_parameters(settings or get_settings(), workspace, lang, rehash)
    if resolved.workspace is None:
        raise ValueError("no workspace: pass `workspace` or set PREDIGEST_WORKSPACE")
    return resolved, str(resolved.workspace)
