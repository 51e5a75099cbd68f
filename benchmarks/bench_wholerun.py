"""A whole first run's cost per MB of workspace, and how it grows with the workspace.

A whole run is what the first evening on a fresh database does, with the stage functions called
directly (no Prefect, whose cost `bench_daily` measures): register the workspace, find what
changed, ingest it all (`ingest_batch`, one process), then the inference topic's evening for the
last date (`brief`: derive the verifications of every window through it, judge, render, publish).
The workspaces are the generator's (`tests/generate/large.py`) over `DAYS` dates, so a larger one
has more notes per window as well as more windows' worth of history, as a busier team's does.

CPU seconds are reported beside wall seconds, this process's and those of the PostgreSQL backends
that served it: the machine is shared, and CPU moves much less with the load than wall time.
"""

from __future__ import annotations

import resource
from typing import Any

from benchmarks.bench_ingest import _server_cpu
from benchmarks.harness import Databases, Result, fresh_database, settings_for, temp_dir, timed
from tests.generate.large import DEFAULT_END, generate

DAYS = 30  # dates the notes are spread over (the derivation judges each window through the last)


def _own_cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


def whole_run(dbs: Databases, notes: int, seed: int) -> dict[str, Any]:
    """Generate a workspace of `notes` notes, run it whole once on a fresh database; its figures."""
    from tasks.stages.briefed_topics import topics_for
    from tasks.stages.briefings import brief
    from tasks.stages.workspace import find_changed_files, ingest_batch, register_workspace

    with temp_dir(f"wholerun-{notes}") as root, fresh_database(dbs, f"bench_wholerun_{notes}") as url:
        info = generate(root / "ws", notes, seed, days=DAYS)
        settings = settings_for(url, root)
        cpu0 = _own_cpu()
        with timed() as wall:
            ref = register_workspace(settings, root / "ws")
            ingest_batch(settings, ref, find_changed_files(settings, ref))
            ingested = wall()
            (topic,) = topics_for(settings, root / "ws", ["inference"])
            outcome = brief(settings, ref, topic, DEFAULT_END)
        server = _server_cpu(url)  # the backends of this run's pool (the database is new)
        cpu = _own_cpu() - cpu0
        return {
            "notes": notes, "MB": info.bytes / 1e6, "files": info.files, "wall_s": wall(), "ingest_s": ingested,
            "cpu_s": cpu, "server_cpu_s": server, "published": outcome.written,
        }


def bench_wholerun(dbs: Databases, sizes: list[int], seed: int = 1) -> Result:
    result = Result(
        "a whole first run (ingest + one topic's evening) per MB of workspace",
        f"python -m benchmarks --only wholerun --wholerun-sizes {','.join(str(s) for s in sizes)}",
    )
    runs = [whole_run(dbs, notes, seed) for notes in sizes]
    for r in runs:
        server = "" if r["server_cpu_s"] is None else f", PostgreSQL backends {r['server_cpu_s']:.1f} s CPU"
        result.add(f"{r['notes']:,} notes, {r['MB']:.1f} MB: whole run", r["wall_s"], "s",
                   f"ingest {r['ingest_s']:.1f} s; this process {r['cpu_s']:.1f} s CPU{server}")
        result.add(f"  CPU per MB ({r['notes']:,} notes)", r["cpu_s"] / r["MB"], "s")
        result.table.append({k: round(v, 2) if isinstance(v, float) else v for k, v in r.items()})
    if len(runs) >= 2:
        small, large = runs[0], runs[-1]
        size = large["MB"] / small["MB"]
        growth = large["cpu_s"] / small["cpu_s"]
        result.add(f"CPU {large['MB']:.0f} MB / {small['MB']:.0f} MB", growth, "x", f"linear would be {size:.1f}x")
        result.add(f"wall {large['MB']:.0f} MB / {small['MB']:.0f} MB", large["wall_s"] / small["wall_s"], "x")
        result.check(f"CPU growth {small['MB']:.0f} -> {large['MB']:.0f} MB, per unit of size", growth / size, 1.2, "x")
    return result
