"""Run the benchmarks and print every figure, its ratio to the baseline of the same run, and the targets.

    python -m benchmarks                      # the whole suite (what `make bench` runs)
    python -m benchmarks --only ingest daily  # some of it
    python -m benchmarks --json results.json  # also write the figures as JSON
    python -m benchmarks --only daily --profile prof/   # also py-spy profiles of each timed part

Databases: PREDIGEST_BENCH_DATABASE_URL names a PostgreSQL server (each benchmark creates and drops
its own database there); unset, a throwaway embedded PostgreSQL (pgserver) is started. Workspaces
are generated under a temp dir and deleted afterwards; Prefect runs on an ephemeral API with its
home in a temp dir.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

NAMES = ("ingest", "growth", "daily", "backfill", "arxiv", "oneoff", "trigger", "wholerun")


def _prefect_environment() -> Path:
    """A private PREFECT_HOME (ephemeral API, its SQLite database) and a quiet console; before importing prefect."""
    home = Path(tempfile.mkdtemp(prefix="predigest-bench-prefect-"))
    os.environ["PREFECT_HOME"] = str(home)
    os.environ.pop("PREFECT_API_URL", None)
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    # Flows still log at INFO to the API (as in production); only the console shows warnings and up.
    os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING")
    for var in ("PREDIGEST_WORKSPACE", "PREDIGEST_TOPICS", "PREDIGEST_TOPICS_FILE"):
        os.environ.pop(var, None)
    return home


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", choices=NAMES, help="run only these benchmarks")
    parser.add_argument("--notes", type=int, default=10_000, help="notes in the full-ingest workspace")
    parser.add_argument("--growth-sizes", default="1000,10000,50000", help="comma-separated note counts")
    parser.add_argument("--daily-base", type=int, default=1_000, help="notes already in the daily workspace")
    parser.add_argument("--daily-new", type=int, default=100, help="new notes on the daily date")
    parser.add_argument("--backfill-notes", type=int, default=1_000, help="notes in the backfill workspace")
    parser.add_argument("--backfill-dates", type=int, default=365, help="dates to backfill (fewer: extrapolated to 365)")
    parser.add_argument("--wholerun-sizes", default="100,1000",
                        help="comma-separated note counts of the whole-run benchmark (~1 and ~10 MB; "
                             "1000,10000 is ~10 and ~100 MB, about 12 CPU minutes)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="record each timed part with py-spy into DIR (see benchmarks/profile.py)")
    parser.add_argument("--profile-wall", action="store_true",
                        help="with --profile: sample waiting threads too (wall time, not CPU)")
    args = parser.parse_args(argv)
    wanted = args.only or list(NAMES)

    prefect_home = _prefect_environment()
    root = Path(__file__).resolve().parents[1]
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from benchmarks.harness import Databases, host_speed, machine

    if args.profile:
        from benchmarks.profile import enable

        enable(args.profile, wall=args.profile_wall)

    info = machine()
    print(f"predigest benchmarks: {info['cores']} cores, {info['memory_gb']} GB, {info['cpu']}; "
          f"Python {info['python']}, Prefect {info['prefect']}, SQLAlchemy {info['sqlalchemy']}, "
          f"psycopg {info['psycopg']}", flush=True)
    speed = {"start": host_speed()}
    print(f"host speed: a fixed Python loop takes {speed['start']:.3f} s (lower is faster)", flush=True)
    started = time.perf_counter()
    results = []
    dbs = Databases()
    print(f"databases: {dbs.where}", flush=True)
    try:
        known = {}
        if "ingest" in wanted:
            from benchmarks.bench_ingest import bench_ingest

            result, run = bench_ingest(dbs, args.notes, args.seed)
            known[args.notes] = run
            results.append(result)
            result.print()
        if "growth" in wanted:
            from benchmarks.bench_ingest import bench_growth

            sizes = [int(s) for s in args.growth_sizes.split(",") if s.strip()]
            result = bench_growth(dbs, sizes, args.seed, known)
            results.append(result)
            result.print()
        if "daily" in wanted:
            from benchmarks.bench_daily import bench_daily

            result = bench_daily(dbs, args.daily_base, args.daily_new, args.seed)
            results.append(result)
            result.print()
        if "backfill" in wanted:
            from benchmarks.bench_backfill import bench_backfill

            result = bench_backfill(dbs, args.backfill_notes, args.backfill_dates, args.seed)
            results.append(result)
            result.print()
        if "wholerun" in wanted:
            from benchmarks.bench_wholerun import bench_wholerun

            result = bench_wholerun(dbs, [int(s) for s in args.wholerun_sizes.split(",") if s.strip()], args.seed)
            results.append(result)
            result.print()
        if "arxiv" in wanted:
            from benchmarks.bench_arxiv import bench_arxiv

            result = bench_arxiv(dbs)
            results.append(result)
            result.print()
        if "trigger" in wanted:
            from benchmarks.bench_trigger import bench_trigger

            result = bench_trigger(dbs, args.seed)
            results.append(result)
            result.print()
        if "oneoff" in wanted:
            from benchmarks.bench_oneoff import bench_oneoff

            result = bench_oneoff()
            results.append(result)
            result.print()
    finally:
        dbs.close()
        shutil.rmtree(prefect_home, ignore_errors=True)
    elapsed = time.perf_counter() - started
    speed["end"] = host_speed()
    print("== summary")
    for result in results:
        for check in result.checks:
            print(f"   [{'MET ' if check.ok else 'MISS'}] {check.name:<45} {check.measured:10.3f}  (target <= {check.limit:g})")
    print(f"   suite time: {elapsed:.0f} s")
    print(f"   host speed: the fixed loop took {speed['start']:.3f} s before and {speed['end']:.3f} s after")
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "databases": dbs.where, "suite_seconds": elapsed, "host_speed_s": speed,
                                         "results": [r.as_dict() for r in results]}, indent=2, default=str),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
