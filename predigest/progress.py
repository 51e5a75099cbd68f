"""The lines a one-off command prints around its flow: which database and Prefect API it uses, what
the ingest stored, and whether it leaves an embedded PostgreSQL running.

Contract: each function returns text (no printing) and reads only settings and the database, so the
CLI decides what to show and the lines are testable without a terminal. The ingest count is read
back (`tasks.stages.queries`) from the `sources` rows stored since a database timestamp taken
before the flow started.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from urllib.parse import urlsplit

from tasks.config.settings import Settings


def database_line(settings: Settings) -> str:
    """`database: …` naming the configured server (no password) or the embedded one under home."""
    if settings.database_url:
        parts = urlsplit(settings.database_url)
        where = f"{parts.hostname or 'local socket'}{f':{parts.port}' if parts.port else ''}{parts.path}"
        return f"database: PostgreSQL at {where} (PREDIGEST_DATABASE_URL)"
    from db.embedded import embedded_status

    status = embedded_status(settings.home)
    state = f"running, pid {status.pid}" if status.running else "starting"
    return f"database: embedded PostgreSQL under {status.pgdata} ({state})"


def prefect_line(api_url: str | None, kept: Path | None = None, started: bool = False) -> str:
    """`prefect: …` naming the API the runs go to; `kept`: the home whose local server it is."""
    if api_url and kept is not None:
        how = "started now, kept for later commands" if started else "kept between commands"
        return (f"prefect: runs are recorded on {api_url} (the local server under {kept / 'run'}, {how}; "
                f"`predigest down` stops it)")
    if api_url:
        return f"prefect: runs are recorded on {api_url}"
    return "prefect: starting an ephemeral API for this run (a few seconds; PREFECT_API_URL names a server instead)"


def ingest_line(settings: Settings, workspace_id: int, since: dt.datetime) -> str:
    """`ingest: N new or changed files stored (k unreadable)`, or that nothing new was found."""
    from tasks.common.safe_text import visible
    from tasks.stages.queries import ingested_since

    stored, unreadable, paths = ingested_since(settings, workspace_id, since)
    if not stored:
        return "ingest: no new or changed files"
    # Named here: an undated one (a stray .DS_Store) is in no briefing's window.
    more = f", +{unreadable - len(paths)} more" if unreadable > len(paths) else ""
    return f"ingest: {stored} new or changed file{'s' if stored != 1 else ''} stored" + (
        f" ({unreadable} unreadable: {', '.join(visible(p) for p in paths)}{more}; a dated one is named in its "
        "briefing)" if unreadable else "")


def embedded_notice(settings: Settings) -> str | None:
    """One line when this process started the embedded server: it keeps running, and how to stop it."""
    if settings.database_url:
        return None
    from db import engine
    from db.embedded import embedded_status

    status = embedded_status(settings.home)
    if status.pgdata not in engine.started_here or not status.running:
        return None
    return (f"the embedded PostgreSQL (pid {status.pid}) keeps running for later commands; "
            "stop it with `predigest db stop` or `predigest down`")
