"""The `predigest` command: brief a workspace, poll feeds, backfill, run the Prefect stack, manage the database.

Every command checks what it was asked before it starts a flow; a failure is one line on stderr
(`predigest: …`, exit 2 for a bad request, 1 for a failure) unless --debug or PREDIGEST_DEBUG=1
asks for the traceback. Subcommands: `build_parser` adds them, one `add_parser` call each
(orchestration and database commands live in `predigest.cli_ops`).
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from predigest import __version__, logfile
from predigest.cli_checks import (
    UsageError,
    bounded_int,
    check_date_range,
    check_storage,
    check_topics,
    check_workspace,
    one_line,
    parse_date,
    parse_datetime,
)
from predigest.quiet import quiet_prefect
from tasks.common.safe_text import show_controls_in_logs, visible

if TYPE_CHECKING:
    from predigest.local_api import LocalApi
    from tasks.config.settings import Settings

def _settings(args: argparse.Namespace) -> Settings:
    """This command's settings: the environment's with its --workspace (made absolute), --lang and
    --rehash applied, as the flow it starts applies the same values, passed as its parameters."""
    from predigest.orchestrate import settings_for

    return settings_for(getattr(args, "workspace", None), getattr(args, "lang", None), _rehash(args))


def _rehash(args: argparse.Namespace) -> bool | None:
    """True for --rehash; None otherwise, so that PREDIGEST_REHASH still decides."""
    return True if getattr(args, "rehash", False) else None


def _claim_local_api(settings: Settings) -> LocalApi | None:
    """Claim the Prefect server kept under home (started now if need be, without waiting for it),
    unless PREFECT_API_URL names a server or this process configured Prefect before (a Python
    caller, a test harness): their choice stands. Prefect reads its settings once, on import, so
    the URL goes into the environment now, before anything imports it (Prefect's configuration:
    predigest's own options reach the flows as parameters)."""
    if settings.prefect_api_url or "prefect" in sys.modules:
        return None
    from predigest import local_api, processes

    claimed = local_api.claim(settings.home, idle_seconds=settings.kept_server_idle_hours * 3600)
    # As for the processes `up` starts: the URL, and the CA file of a plain-HTTP API.
    env = processes.prefect_env(settings.home, claimed.url)
    for key in ("PREFECT_API_URL", "PREFECT_API_SSL_CERT_FILE"):
        os.environ[key] = env[key]
    return claimed


def _prefect_line(claimed: LocalApi | None) -> str:
    """Wait for the claimed server to answer; the `prefect: …` progress line."""
    from predigest import progress

    if claimed is not None:
        claimed.ready()
        return progress.prefect_line(claimed.url, kept=claimed.home, started=claimed.started)
    from prefect.settings import get_current_settings

    return progress.prefect_line(get_current_settings().api.url or None)


def _log_to_file(settings: Settings, args: argparse.Namespace) -> None:
    """Log records go to the log file under home from here on (--debug: the terminal too); call
    after `_claim_local_api`, as this imports Prefect."""
    from predigest.logfile import log_to_file

    log_to_file(settings.home, keep_terminal=_debug_wanted(args))


def cmd_run(args: argparse.Namespace) -> int:
    """Run the daily-briefing flow and print what it ingested and published."""
    quiet_prefect()
    settings = _settings(args)
    root = check_workspace(settings.workspace, "run")
    check_topics(settings, root, args.topic)
    check_storage(settings)
    claimed = _claim_local_api(settings)  # it starts while the database does
    _log_to_file(settings, args)
    from predigest import progress
    from tasks.stages.queries import database_now
    from tasks.stages.workspace import register_workspace

    print(progress.database_line(settings), flush=True)
    ref = register_workspace(settings, root)
    since = database_now(settings)
    print(_prefect_line(claimed), flush=True)
    import asyncio

    from flows.daily import daily_briefing

    results = asyncio.run(daily_briefing(date=args.date, topics=args.topic or None, workspace=str(root),
                                         since=args.since, lang=args.lang, rehash=_rehash(args)))
    print(progress.ingest_line(settings, ref.id, since))
    for result in results:
        if result.error:
            print(f"{result.topic!r} {result.date.isoformat()} failed: {visible(result.error)}")
            continue
        state = "published" if result.written else "unchanged"
        print(f"{result.topic} {result.date.isoformat()} {state}")
        print(f"  markdown: {result.markdown_url}")
        print(f"  json:     {result.json_url}")
        print(f"  page:     {result.html_url}")
        print(f"  feed:     {result.feed_url}")
    if notice := progress.embedded_notice(settings):
        print(notice)
    if line := logfile.summary_line():
        print(line)
    return 1 if results and all(r.error for r in results) else 0


def cmd_feeds(args: argparse.Namespace) -> int:
    """Poll HF Daily and arXiv listings for a date into the workspace's database."""
    quiet_prefect()
    settings = _settings(args)
    root = check_workspace(settings.workspace, "feeds", " (its snapshots are stored with the workspace's sources)")
    claimed = _claim_local_api(settings)
    _log_to_file(settings, args)
    print(_prefect_line(claimed), flush=True)
    import asyncio

    from flows.feeds import poll_feeds
    from predigest import progress

    outcomes = asyncio.run(poll_feeds(date=args.date, sources=args.source or None,
                                      categories=args.category or None, workspace=str(root),
                                      lookup=args.lookup or None))
    for outcome in outcomes:
        state = f"error: {outcome.error}" if outcome.error else outcome.status
        print(visible(f"{outcome.path}  {state}"))
    if notice := progress.embedded_notice(settings):
        print(notice)
    return 1 if outcomes and all(o.error for o in outcomes) else 0


def cmd_backfill(args: argparse.Namespace) -> int:
    """Publish the briefings of each date from --from to --to, as each evening run would have."""
    quiet_prefect()
    settings = _settings(args)
    root = check_workspace(settings.workspace, "backfill")
    check_date_range(args.start, args.end)
    check_topics(settings, root, args.topic)
    check_storage(settings)
    claimed = _claim_local_api(settings)
    _log_to_file(settings, args)
    from predigest import progress as lines

    print(lines.database_line(settings), flush=True)
    print(_prefect_line(claimed), flush=True)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from flows.backfill import backfill_briefings
    from tasks.backfill.jobs import date_range
    from tasks.backfill.runs import report_progress
    from tasks.stages.briefings import BriefingResult

    days = date_range(args.start, args.end)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  transient=False) as progress:
        bar = progress.add_task(f"backfill {args.start}..{args.end}", total=len(days))

        def advance(day: object, results: list[BriefingResult]) -> None:
            states = ", ".join(f"{r.topic} {'published' if r.written else 'unchanged'}" for r in results)
            progress.console.print(f"{day}  {states}")
            progress.advance(bar)

        with report_progress(advance):
            results = backfill_briefings(
                start=args.start, end=args.end, topics=args.topic or None, force=args.force,
                max_concurrency=args.concurrency, workspace=str(root), lang=args.lang, rehash=_rehash(args),
            )
    written = sum(r.written for r in results)
    print(f"{len(results)} briefings over {len(days)} dates: {written} published, {len(results) - written} unchanged")
    if notice := lines.embedded_notice(settings):
        print(notice)
    return 0


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad argument as one line, `predigest: …` like every other error, from
    the subcommands too (whose prog is `predigest run`); usage stays in --help."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"predigest: {message} (see {self.prog} --help)\n")


def _rehash_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rehash", action="store_true",
                        help="read and hash every stored file to find what changed, instead of trusting an "
                             "unchanged size and mtime (also PREDIGEST_REHASH=1)")


def _debug_flag(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument("--debug", action="store_true", default=default,
                        help="show the full traceback when the command fails (also PREDIGEST_DEBUG=1)")


def build_parser() -> argparse.ArgumentParser:
    from predigest.cli_ops import add_ops_commands

    parser = OneLineParser(prog="predigest", description=__doc__.split("\n\n")[0],
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"predigest {__version__}")
    _debug_flag(parser, False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=OneLineParser)

    run = sub.add_parser("run", help="ingest the workspace, publish each topic's briefing for a date",
                         description="Ingest what changed in the workspace, then publish each topic's briefing.")
    run.add_argument("--workspace", metavar="PATH", help="workspace root (default: PREDIGEST_WORKSPACE)")
    run.add_argument("--date", type=parse_date, default=None, metavar="YYYY-MM-DD",
                     help="briefing date YYYY-MM-DD (default: the latest closed window, whose cutoff has passed)")
    run.add_argument("--topic", action="append", metavar="T", help="topic to brief (repeatable; default: every knowledge document)")
    run.add_argument("--since", type=parse_datetime, default=None, metavar="DATETIME", help="override the window start (ISO datetime)")
    run.add_argument("--lang", choices=("zh", "en"), default=None, help="briefing language (default zh: Chinese)")
    _rehash_flag(run)
    run.set_defaults(func=cmd_run)

    feeds = sub.add_parser("feeds", help="poll HF Daily Papers and arXiv listings into the database",
                           description="Fetch and store the day's feed snapshots; needs a workspace.")
    feeds.add_argument("--workspace", metavar="PATH", help="workspace root (default: PREDIGEST_WORKSPACE)")
    feeds.add_argument("--date", type=parse_date, default=None, metavar="D",
                       help="feed date YYYY-MM-DD (default: today in PREDIGEST_TIMEZONE)")
    feeds.add_argument("--source", action="append", choices=("hf_daily", "arxiv"), help="feed to poll (repeatable)")
    feeds.add_argument("--category", action="append", metavar="CAT", help="arXiv category, e.g. cs.DC (repeatable)")
    feeds.add_argument("--lookup", action="store_true", help="also look up arXiv metadata for mentioned ids")
    feeds.set_defaults(func=cmd_feeds)

    backfill = sub.add_parser("backfill", help="publish past dates' briefings as their evenings would have",
                              description="Ingest once, then publish each date from --from to --to as of its cutoff.")
    backfill.add_argument("--from", dest="start", type=parse_date, required=True, metavar="D1", help="first date YYYY-MM-DD")
    backfill.add_argument("--to", dest="end", type=parse_date, required=True, metavar="D2", help="last date YYYY-MM-DD (included)")
    backfill.add_argument("--topic", action="append", metavar="T", help="topic (repeatable; default: every knowledge document)")
    backfill.add_argument("--force", action="store_true", help="re-publish dates whose briefing did not change")
    backfill.add_argument("--concurrency", type=bounded_int(1, 8), default=2, metavar="N", help="dates assembled at once, 1..8 (default 2)")
    backfill.add_argument("--workspace", metavar="PATH", help="workspace root (default: PREDIGEST_WORKSPACE)")
    backfill.add_argument("--lang", choices=("zh", "en"), default=None, help="briefing language (default zh: Chinese)")
    _rehash_flag(backfill)
    backfill.set_defaults(func=cmd_backfill)

    from predigest import explain

    explain.add_parser(sub, parse_date, parse_datetime)
    from predigest import merge_cli

    merge_cli.add_parser(sub, parse_date)
    from predigest import feedback_cli

    feedback_cli.add_parser(sub, parse_date)
    from predigest import score_cli

    score_cli.add_parser(sub)
    add_ops_commands(sub)
    for subparser in sub.choices.values():
        _debug_flag(subparser, argparse.SUPPRESS)  # after the subcommand too; never overrides the global one
    return parser


def _debug_wanted(args: argparse.Namespace) -> bool:
    if getattr(args, "debug", False):
        return True
    try:
        from tasks.config.settings import Settings

        return Settings().debug
    except Exception:  # invalid settings are reported by the command itself
        return False


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    show_controls_in_logs()
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("predigest: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`predigest status | head`): nothing is wrong with the command. Point
        # stdout at nothing so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        expected = isinstance(exc, UsageError | FileNotFoundError | ValueError | RuntimeError)
        if _debug_wanted(args):
            traceback.print_exc()
        elif not expected:
            print(f"predigest: {type(exc).__name__}: {one_line(exc)} (--debug shows the traceback)", file=sys.stderr)
            return 1
        where = "" if isinstance(exc, UsageError) else logfile.details()
        print(f"predigest: {one_line(exc)}{where}", file=sys.stderr)
        return 2 if isinstance(exc, UsageError | ValueError | FileNotFoundError) else 1
    finally:
        if argv is not None:  # called in-process (a test, a script): its logging is left as it was
            logfile.restore()


if __name__ == "__main__":
    raise SystemExit(main())
