"""The operating subcommands of `predigest`: `db`, `status`, `watch`, `up` and `down`.

Contract: `db status`, `db stop` and `status` never start a server; `down` stops what `up` started and then
the embedded PostgreSQL of the home; `up` refuses a workspace that `run` would refuse before it
starts anything. `add_ops_commands` registers the subparsers (one `add_parser` call each).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from predigest.cli_checks import UsageError, bounded_int, check_workspace
from tasks.common.safe_text import visible


def cmd_db(args: argparse.Namespace) -> int:
    """Database maintenance: migrate, show the revision, or show/stop the embedded server."""
    from predigest.orchestrate import settings_for

    settings = settings_for(None)
    if args.action in ("status", "stop"):
        return _embedded(settings.home, args.action, settings.database_url)
    from db.engine import current_revision, ensure_schema, head_revision

    engine = ensure_schema(settings)
    print(f"schema at {current_revision(engine)} (head {head_revision()})")
    return 0


def _embedded(home: Path, action: str, configured_url: str | None) -> int:
    from db.embedded import embedded_status
    from db.engine import stop_embedded

    status = embedded_status(home)
    if action == "stop":
        pid = stop_embedded(home)
        if pid is not None:
            print(f"stopped the embedded PostgreSQL under {status.pgdata} (pid {pid})")
        elif configured_url:
            raise UsageError("PREDIGEST_DATABASE_URL names an external server; predigest neither started nor stops it")
        else:
            print(f"the embedded PostgreSQL under {status.pgdata} is not running")
        return 0
    if configured_url:
        print("database: the server named by PREDIGEST_DATABASE_URL (not managed by predigest)")
    if status.running:
        print(f"embedded PostgreSQL under {status.pgdata}: running (pid {status.pid}, socket {status.socket_dir})")
    elif status.exists:
        print(f"embedded PostgreSQL under {status.pgdata}: stopped (the next command starts it)")
    elif not configured_url:
        print(f"embedded PostgreSQL under {status.pgdata}: not created yet (the next command creates it)")
    return 0


def cmd_status(args: argparse.Namespace) -> int:  # noqa: ARG001 - a subcommand handler: func(args)
    """What runs under PREDIGEST_HOME: the embedded PostgreSQL and the kept Prefect server (starts nothing)."""
    from predigest import local_api
    from predigest.keeper import kept_by_user
    from predigest.orchestrate import settings_for

    settings = settings_for(None)
    _embedded(settings.home, "status", settings.database_url)
    if settings.prefect_api_url:
        print(f"prefect: the server named by PREFECT_API_URL ({settings.prefect_api_url}; not managed by predigest)")
    print(local_api.status_line(settings.home))
    if (url := local_api.describe(settings.home)).answering:
        print(f"export PREFECT_API_URL={url.url}")
    for kept in kept_by_user():
        gone = " (its home is gone: it stops itself)" if kept.orphaned else ""
        print(f"kept by this user: {kept.kind} (pid {kept.pid}) for {kept.home}{gone}")
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    """Emit a Prefect event per new or changed inbox file (rescan first); `--once` stops after the rescan."""
    import contextlib
    import signal
    import threading

    from predigest import watch
    from predigest.orchestrate import settings_for
    from predigest.quiet import quiet_prefect

    quiet_prefect()
    settings = settings_for(args.workspace)
    root = check_workspace(settings.workspace, "watch")

    def send(event: watch.InboxEvent) -> None:
        print(visible(f"{event.event} {event.path}"), flush=True)
        if not args.dry_run:
            watch.emit(event)

    if not args.dry_run:
        watch.require_api_url()
    try:
        if args.once:
            for event in watch.rescan_events(settings, root):
                send(event)
            return 0
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        with contextlib.suppress(KeyboardInterrupt):
            watch.watch_inbox(settings, root, send=send, stop_event=stop, rescan=not args.no_rescan,
                              on_ready=lambda: print(f"{watch.READY} {root / 'inbox'}", flush=True))
        return 0
    finally:
        if not args.dry_run:
            watch.flush()


def cmd_up(args: argparse.Namespace) -> int:
    """Start a local Prefect server, register the deployments, start workers and the inbox watcher."""
    from predigest import orchestrate

    settings = orchestrate.settings_for(args.workspace)
    workspace = check_workspace(settings.workspace, "up") if settings.workspace is not None else None
    orchestrate.up(settings.home, port=args.port, workers=args.workers, workspace=workspace)
    return 0


def cmd_down(args: argparse.Namespace) -> int:  # noqa: ARG001 - a subcommand handler: func(args)
    """Stop what `predigest up` or a one-off command started (by the pid files under <home>/run: the
    Prefect server, workers, watcher), then the embedded PostgreSQL."""
    from db.engine import stop_embedded
    from predigest import orchestrate

    home = orchestrate.settings_for(None).home
    stopped = orchestrate.down(home)
    pid = stop_embedded(home)
    if pid is not None:
        print(f"stopped the embedded PostgreSQL under {(home / 'pg').resolve()} (pid {pid})")
    if not stopped and pid is None:
        print("nothing to stop")
    return 0


def add_ops_commands(sub: argparse._SubParsersAction[Any]) -> None:
    db = sub.add_parser("db", help="migrate the database; show or stop the embedded PostgreSQL",
                        description="upgrade: apply migrations; current: show the revision; "
                                    "status / stop: the embedded PostgreSQL under PREDIGEST_HOME (never started by these)")
    db.add_argument("action", choices=("upgrade", "current", "status", "stop"))
    db.set_defaults(func=cmd_db)

    status = sub.add_parser("status", help="show the embedded PostgreSQL and the kept Prefect server")
    status.set_defaults(func=cmd_status)

    watch = sub.add_parser("watch", help="emit a Prefect event per new or changed inbox note")
    watch.add_argument("--workspace", metavar="PATH", help="workspace root (default: PREDIGEST_WORKSPACE)")
    watch.add_argument("--once", action="store_true", help="rescan, emit for unstored files, then exit")
    watch.add_argument("--no-rescan", action="store_true", help="do not rescan on start")
    watch.add_argument("--dry-run", action="store_true", help="print the events instead of sending them")
    watch.set_defaults(func=cmd_watch)

    up = sub.add_parser("up", help="start a local Prefect server, deployments, workers, watcher")
    up.add_argument("--workspace", metavar="PATH", help="workspace root for the watcher and flows (default: PREDIGEST_WORKSPACE)")
    up.add_argument("--port", type=bounded_int(1, 65535), default=4200, metavar="PORT", help="server port on 127.0.0.1 (default 4200)")
    up.add_argument("--workers", type=bounded_int(0, 64), default=1, metavar="N", help="process workers on the predigest pool (default 1)")
    up.set_defaults(func=cmd_up)

    down = sub.add_parser("down", help="stop the Prefect server, workers, watcher and embedded database")
    down.set_defaults(func=cmd_down)
