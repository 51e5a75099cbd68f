"""The inbox trigger's flow: one new note into a source row, in workspaces of 1,000 and 10,000 notes.

Setup (not timed): a generated workspace per size, wholly ingested (the database of a team whose
evenings ran); the ephemeral Prefect API already started by a warm-up flow. Timed: a new note dated
into the window still open (tonight's, by the real clock: a note written today, which the flow
stores and refreshes no briefing for) is written, then `flows.inbox.ingest_inbox_file(path=…)`
runs, as the `ingest-inbox-file` deployment runs it when the watcher's event fires; the time is
until the flow returns with the note's source row stored (checked). `REPEATS` new notes per size,
medians. A late note dated into a closed window also republishes that briefing: the cost of briefing
one (topic, date), not measured here.
Targets: <= 5 s at 10,000 notes, and the 10,000-note time <= 1.5x the 1,000-note time (it does
not grow with the workspace). Excluded: the watcher's event and a worker picking the run up.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import statistics
from pathlib import Path
from typing import Any

from benchmarks.bench_daily import warm_up_prefect
from benchmarks.harness import (
    Databases,
    Result,
    environment,
    ingested_template,
    settings_for,
    temp_dir,
    timed,
)
from tests.generate.large import add_notes, generate

REPEATS = 3
SIZES = (1_000, 10_000)


def _open_day(settings: Any) -> dt.date:
    """The date of the window still open now under the default (daily) schedule."""
    from tasks.model.windows import latest_closed_date

    closed = latest_closed_date(settings.default_schedule, settings.timezone, dt.datetime.now(dt.UTC))
    return closed + dt.timedelta(days=1)


def _new_note_times(root: Path, seed: int, settings: Any) -> list[float]:
    from flows.inbox import ingest_inbox_file

    times = []
    for k in range(REPEATS):
        (rel,) = add_notes(root, _open_day(settings), 1, seed=seed + 1000 + k)
        with timed() as elapsed:
            outcome = asyncio.run(ingest_inbox_file(path=rel, workspace=str(root)))
        if outcome.status != "new" or outcome.source_id is None or outcome.refreshed:
            raise RuntimeError(f"the new note {rel} was not stored, or refreshed a briefing: {outcome}")
        times.append(elapsed())
    return times


def bench_trigger(dbs: Databases, seed: int = 1) -> Result:
    result = Result("inbox trigger: a new note into a source row (ingest-inbox-file flow), by workspace size",
                    "python -m benchmarks --only trigger")
    result.add("ephemeral API start-up and flow imports (excluded)", warm_up_prefect())
    medians = {}
    for size in SIZES:
        with temp_dir(f"trigger{size}") as tmp:
            root = tmp / "workspace"
            generate(root, notes=size, seed=seed)
            with ingested_template(dbs, f"trigger_{size}", root, tmp / "base") as url:
                settings = settings_for(url, tmp)
                with environment(settings):
                    times = _new_note_times(root, seed, settings)
        medians[size] = result.add(f"new note -> source row, {size:,}-note workspace (median of {REPEATS})",
                                   statistics.median(times), note=", ".join(f"{t:.2f}" for t in times))
    small, large = medians[SIZES[0]], medians[SIZES[-1]]
    result.check(f"new note -> source row at {SIZES[-1]:,} notes", large, 5.0)
    result.check(f"{SIZES[-1]:,} notes / {SIZES[0]:,} notes", large / small, 1.5, "x")
    return result
