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


def cmd_db(args: argparse.Namespace) -> int:
    """Database maintenance: upgrade to the newest schema, or show the current revision."""
    from db.engine import current_revision, ensure_schema, head_revision
    from predigest.settings import get_settings

    engine = ensure_schema(get_settings())
    current = current_revision(engine)
    print(f"schema at {current} (head {head_revision()})")
    return 0


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

    db = sub.add_parser("db", help="database schema")
    db.add_argument("action", choices=("upgrade", "current"))
    db.set_defaults(func=cmd_db)
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
