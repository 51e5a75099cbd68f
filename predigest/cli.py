"""The `predigest` command: run briefings, manage the database."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from collections.abc import Sequence
from pathlib import Path


def _date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from exc


def _datetime(value: str) -> dt.datetime:
    try:
        return dt.datetime.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a datetime (YYYY-MM-DDTHH:MM[+08:00]): {value!r}") from exc


def _quiet_prefect() -> None:
    """Offline defaults for Prefect in this process; an explicit environment still wins."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "WARNING")


def cmd_run(args: argparse.Namespace) -> int:
    """Run the daily-briefing flow and print what it published."""
    if args.workspace:
        os.environ["PREDIGEST_WORKSPACE"] = str(Path(args.workspace).resolve())
    if args.lang:
        os.environ["PREDIGEST_LANG"] = args.lang
    _quiet_prefect()
    from predigest.settings import get_settings

    get_settings.cache_clear()
    settings = get_settings()
    if settings.workspace is None:
        print("predigest: no workspace; pass --workspace or set PREDIGEST_WORKSPACE", file=sys.stderr)
        return 2
    from flows.daily import daily_briefing

    results = daily_briefing(
        date=args.date, topics=args.topic or None, workspace=str(settings.workspace), since=args.since
    )
    for result in results:
        state = "published" if result.written else "unchanged"
        print(f"{result.topic} {result.date.isoformat()} {state}")
        print(f"  markdown: {result.markdown_url}")
        print(f"  json:     {result.json_url}")
    return 0


def cmd_feeds(args: argparse.Namespace) -> int:
    """Poll HF Daily and arXiv listings for a date into the workspace's database."""
    if args.workspace:
        os.environ["PREDIGEST_WORKSPACE"] = str(Path(args.workspace).resolve())
    _quiet_prefect()
    from predigest.settings import get_settings

    get_settings.cache_clear()
    from flows.feeds import poll_feeds

    outcomes = poll_feeds(
        date=args.date, sources=args.source or None, categories=args.category or None, lookup=args.lookup or None
    )
    for outcome in outcomes:
        state = f"error: {outcome.error}" if outcome.error else outcome.status
        print(f"{outcome.path}  {state}")
    return 1 if outcomes and all(o.error for o in outcomes) else 0


def cmd_db(args: argparse.Namespace) -> int:
    """Database maintenance: upgrade to the newest schema, or show the current revision."""
    from db.engine import current_revision, ensure_schema, head_revision
    from predigest.settings import get_settings

    engine = ensure_schema(get_settings())
    current = current_revision(engine)
    print(f"schema at {current} (head {head_revision()})")
    return 0


# --- orchestration: watch, up, down, backfill --------------------------------------------------


def cmd_watch(args: argparse.Namespace) -> int:
    """Emit a Prefect event per new or changed inbox file (rescan first); `--once` stops after the rescan."""
    import contextlib
    import signal
    import threading

    _quiet_prefect()
    from predigest import watch
    from predigest.orchestrate import settings_for

    settings = settings_for(args.workspace)
    root = settings.workspace
    if root is None:
        print("predigest: no workspace; pass --workspace or set PREDIGEST_WORKSPACE", file=sys.stderr)
        return 2

    def show(event: watch.InboxEvent) -> None:
        print(f"{event.event} {event.path}", flush=True)

    def send(event: watch.InboxEvent) -> None:
        show(event)
        if not args.dry_run:
            watch.emit(event)

    if not args.dry_run:
        watch.require_api_url()
    try:
        if args.once:
            for event in watch.rescan_events(settings, Path(root)):
                send(event)
            return 0
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        with contextlib.suppress(KeyboardInterrupt):
            watch.watch_inbox(settings, Path(root), send=send, stop_event=stop, rescan=not args.no_rescan,
                              on_ready=lambda: print(f"watching {Path(root).resolve() / 'inbox'}", flush=True))
        return 0
    finally:
        if not args.dry_run:
            watch.flush()


def cmd_up(args: argparse.Namespace) -> int:
    """Start a local Prefect server, register the deployments, start workers and the inbox watcher."""
    from predigest import orchestrate

    settings = orchestrate.settings_for(args.workspace)
    try:
        orchestrate.up(settings.home, port=args.port, workers=args.workers, workspace=settings.workspace)
    except RuntimeError as exc:
        print(f"predigest: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_down(args: argparse.Namespace) -> int:
    """Stop what `predigest up` started (by the pid files under <home>/run)."""
    from predigest import orchestrate

    if not orchestrate.down(orchestrate.settings_for(None).home):
        print("nothing to stop")
    return 0


def cmd_backfill(args: argparse.Namespace) -> int:
    """Publish the briefings of each date from --from to --to, as each evening run would have."""
    if args.lang:
        os.environ["PREDIGEST_LANG"] = args.lang
    _quiet_prefect()
    from predigest.orchestrate import settings_for

    settings = settings_for(args.workspace)
    if settings.workspace is None:
        print("predigest: no workspace; pass --workspace or set PREDIGEST_WORKSPACE", file=sys.stderr)
        return 2
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from flows.backfill import backfill_briefings, date_range, report_progress
    from tasks.run import BriefingResult

    days = date_range(args.start, args.end)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  transient=False) as progress:
        bar = progress.add_task(f"backfill {args.start}..{args.end}", total=len(days))

        def advance(day: dt.date, results: list[BriefingResult]) -> None:
            states = ", ".join(f"{r.topic} {'published' if r.written else 'unchanged'}" for r in results)
            progress.console.print(f"{day.isoformat()}  {states}")
            progress.advance(bar)

        with report_progress(advance):
            results = backfill_briefings(
                start=args.start, end=args.end, topics=args.topic or None, force=args.force,
                max_concurrency=args.concurrency, workspace=str(settings.workspace),
            )
    written = sum(r.written for r in results)
    print(f"{len(results)} briefings over {len(days)} dates: {written} published, {len(results) - written} unchanged")
    return 0


def _add_orchestration_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    watch = sub.add_parser("watch", help="emit a Prefect event per new or changed inbox note")
    watch.add_argument("--workspace", help="workspace root (default: PREDIGEST_WORKSPACE)")
    watch.add_argument("--once", action="store_true", help="rescan, emit for unstored files, then exit")
    watch.add_argument("--no-rescan", action="store_true", help="do not rescan on start")
    watch.add_argument("--dry-run", action="store_true", help="print the events instead of sending them")
    watch.set_defaults(func=cmd_watch)

    up = sub.add_parser("up", help="start a local Prefect server, deployments, workers and the watcher")
    up.add_argument("--workspace", help="workspace root for the watcher and flows (default: PREDIGEST_WORKSPACE)")
    up.add_argument("--port", type=int, default=4200, help="server port on 127.0.0.1 (default 4200)")
    up.add_argument("--workers", type=int, default=1, help="process workers on the predigest pool (default 1)")
    up.set_defaults(func=cmd_up)

    down = sub.add_parser("down", help="stop what `predigest up` started")
    down.set_defaults(func=cmd_down)

    backfill = sub.add_parser("backfill", help="publish past dates' briefings as their evening runs would have")
    backfill.add_argument("--from", dest="start", type=_date, required=True, help="first date YYYY-MM-DD")
    backfill.add_argument("--to", dest="end", type=_date, required=True, help="last date YYYY-MM-DD (included)")
    backfill.add_argument("--topic", action="append", help="topic (repeatable; default: every knowledge document)")
    backfill.add_argument("--force", action="store_true", help="re-publish dates whose briefing did not change")
    backfill.add_argument("--concurrency", type=int, default=2, help="dates assembled at once (default 2)")
    backfill.add_argument("--workspace", help="workspace root (default: PREDIGEST_WORKSPACE)")
    backfill.add_argument("--lang", choices=("zh", "en"), default=None, help="briefing language (default zh)")
    backfill.set_defaults(func=cmd_backfill)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="predigest", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="ingest the workspace and publish briefings for a date")
    run.add_argument("--workspace", help="workspace root (default: PREDIGEST_WORKSPACE)")
    run.add_argument("--date", type=_date, default=None, help="briefing date YYYY-MM-DD (default: today in the topic's timezone)")
    run.add_argument("--topic", action="append", help="topic to brief (repeatable; default: every knowledge document)")
    run.add_argument("--since", type=_datetime, default=None, help="override the window start (ISO datetime)")
    run.add_argument("--lang", choices=("zh", "en"), default=None, help="briefing language (default zh)")
    run.set_defaults(func=cmd_run)

    feeds = sub.add_parser("feeds", help="poll HF Daily Papers and arXiv listings for a date")
    feeds.add_argument("--workspace", help="workspace root (default: PREDIGEST_WORKSPACE)")
    feeds.add_argument("--date", type=_date, default=None, help="feed date YYYY-MM-DD (default: today, UTC)")
    feeds.add_argument("--source", action="append", choices=("hf_daily", "arxiv"), help="feed to poll (repeatable)")
    feeds.add_argument("--category", action="append", help="arXiv category, e.g. cs.DC (repeatable)")
    feeds.add_argument("--lookup", action="store_true", help="also look up arXiv metadata for mentioned ids")
    feeds.set_defaults(func=cmd_feeds)

    db = sub.add_parser("db", help="database schema")
    db.add_argument("action", choices=("upgrade", "current"))
    db.set_defaults(func=cmd_db)
    _add_orchestration_commands(sub)
    from predigest import explain

    explain.add_parser(sub, _date)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (FileNotFoundError, ValueError) as exc:
        print(f"predigest: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
