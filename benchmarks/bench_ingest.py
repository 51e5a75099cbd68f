"""Full ingest of a generated workspace into PostgreSQL, against reading it and running one regex;
then the same workspace again, unchanged (every file skipped by its size and mtime, and once more
with every file read and hashed, PREDIGEST_REHASH); and how both grow with the number of notes."""

from __future__ import annotations

import contextlib
import os
import re
import resource
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.harness import Databases, Result, fresh_database, settings_for, temp_dir, timed
from benchmarks.profile import profiled
from tests.db.counts import table_counts
from tests.generate.large import WorkspaceInfo, generate

# The baseline's one regex: anything shaped like a new-style arXiv id.
ARXIV_ID = re.compile(r"\d{4}\.\d{4,5}")


@dataclass(frozen=True)
class CpuTime:
    """CPU seconds an ingest used, by process: on a shared machine wall times move with the load,
    CPU times much less (and they show what the 2 cores are spent on)."""

    main: float  # the process calling ingest_batch (it writes)
    workers: float  # its worker processes, once they have exited
    server: float | None  # the PostgreSQL backends serving it (None: server not on this machine)

    @property
    def total(self) -> float:
        return self.main + self.workers + (self.server or 0.0)


@dataclass
class IngestRun:
    info: WorkspaceInfo
    baseline: float
    ingest: dict[int, float]  # worker processes -> seconds
    reingest: float
    files: int
    counts: dict[str, int]
    cpu: dict[int, CpuTime] = field(default_factory=dict)  # worker processes -> CPU seconds
    reingest_cpu: float = 0.0  # this process's CPU seconds of the unchanged re-ingest
    rehash: float = 0.0  # the unchanged re-ingest with every stored file read and hashed
    rehash_cpu: float = 0.0


def _own_cpu() -> tuple[float, float]:
    """(this process, its exited children) CPU seconds so far."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def _server_cpu(url: str) -> float | None:
    """CPU seconds of the backends connected to `url`'s database (the ingest's pooled connections),
    read from /proc; None when the server is not on this machine or /proc does not tell."""
    from sqlalchemy import text

    from db.engine import make_engine

    engine = make_engine(url, pool_size=1)
    try:
        with engine.connect() as conn:
            pids = conn.execute(text("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                                     "AND pid <> pg_backend_pid()")).scalars().all()
    finally:
        engine.dispose()
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            if Path(f"/proc/{pid}/comm").read_text().strip() not in ("postgres", "postmaster"):
                return None  # a pid of another machine's server, taken for one here
            total += (int(fields[11]) + int(fields[12])) / tick  # utime + stime, in clock ticks
            continue
        return None
    return total


def read_and_regex(root: Path) -> tuple[int, int, int]:
    """The baseline: read every file predigest would look at, decode it, run ARXIV_ID over it.

    Returns (files, bytes, ids found)."""
    files = size = ids = 0
    for top in ("inbox", "organized"):
        for dirpath, _, filenames in os.walk(root / top):
            for name in filenames:
                data = (Path(dirpath) / name).read_bytes()
                files += 1
                size += len(data)
                ids += len(ARXIV_ID.findall(data.decode("utf-8", "replace")))
    return files, size, ids


def ingest_workspace(dbs: Databases, notes: int, seed: int, label: str, workers: tuple[int, ...]) -> IngestRun:
    """Generate, then time the baseline (best of 3), the full ingest (once per worker count, each
    into its own fresh database) and the unchanged re-ingest (on the last one)."""
    from tasks.stages.workspace import find_changed_files, ingest_batch, register_workspace

    with temp_dir(f"ingest{notes}") as tmp:
        root = tmp / "workspace"
        with timed() as gen:
            info = generate(root, notes=notes, seed=seed)
        print(f"   [{label}] generated {info.files} files, {info.bytes / 1e6:.1f} MB in {gen():.1f} s", flush=True)
        baseline = float("inf")
        for _ in range(3):
            with timed() as t:
                read_and_regex(root)
            baseline = min(baseline, t())
        times: dict[int, float] = {}
        cpu: dict[int, CpuTime] = {}
        for n in workers:
            with fresh_database(dbs, f"ingest{notes}_{n}w") as url:
                settings = settings_for(url, tmp / f"w{n}")
                main0, workers0 = _own_cpu()
                with profiled(f"{label}-{notes}-notes-{n}-processes"), timed() as full:
                    ref = register_workspace(settings, root)
                    changed = find_changed_files(settings, ref)
                    ingest_batch(settings, ref, changed, workers=n)
                times[n] = full()
                main1, workers1 = _own_cpu()
                cpu[n] = CpuTime(main1 - main0, workers1 - workers0, _server_cpu(url))
                counts = table_counts(url)
                print(f"   [{label}] ingested {len(changed)} files with {n} process(es) in {full():.1f} s "
                      f"(CPU: {_cpu_note(cpu[n])}; load average {os.getloadavg()[0]:.1f})", flush=True)
                if n != workers[-1]:
                    continue
                again = _reingest(settings, root, url, counts)
                hashed = _reingest(settings.model_copy(update={"rehash": True}), root, url, counts)
        return IngestRun(info, baseline, times, again[0], len(changed), counts, cpu,
                         reingest_cpu=again[1], rehash=hashed[0], rehash_cpu=hashed[1])


def _reingest(settings: Any, root: Path, url: str, counts: dict[str, int]) -> tuple[float, float]:
    """(wall, this process's CPU) seconds of re-ingesting the unchanged workspace, which must write nothing."""
    from tasks.stages.workspace import find_changed_files, ingest_batch, register_workspace

    with timed() as again:
        cpu0, _ = _own_cpu()  # after timed()'s garbage collection, as the wall time is
        ref = register_workspace(settings, root)
        unchanged = find_changed_files(settings, ref)
        ingest_batch(settings, ref, unchanged)
        cpu1, _ = _own_cpu()
    if unchanged or table_counts(url) != counts:
        raise AssertionError(f"re-ingest of an unchanged workspace wrote rows ({len(unchanged)} files)")
    return again(), cpu1 - cpu0


def _cpu_note(cpu: CpuTime) -> str:
    server = "server not local" if cpu.server is None else f"PostgreSQL {cpu.server:.1f} s"
    return f"this process {cpu.main:.1f} s, workers {cpu.workers:.1f} s, {server}"


def bench_ingest(dbs: Databases, notes: int = 10_000, seed: int = 1) -> tuple[Result, IngestRun]:
    result = Result(
        f"full ingest of a {notes:,}-note workspace, and the unchanged re-ingest",
        f"python -m benchmarks --only ingest --notes {notes}",
    )
    r = ingest_workspace(dbs, notes, seed, "ingest", (1, 2))
    mb = r.info.bytes / 1e6
    result.add("workspace files", r.info.files, "count", f"{mb:.1f} MB: {r.info.notes} notes, "
               f"{r.info.cards} cards, a queue, a knowledge document with {r.info.anchors} anchors")
    result.add("rows written: items", r.counts["items"], "count",
               f"{r.counts['mentions']} mentions, {r.counts['anchors']} anchors, {r.counts['sources']} sources")
    result.add("baseline: read every file + one arXiv-id regex", r.baseline, "s", f"{mb / r.baseline:.0f} MB/s")
    for n, seconds in r.ingest.items():
        result.add(f"full ingest, {n} process(es) (ingest_batch workers={n})", seconds, "s",
                   f"{mb / seconds:.1f} MB/s, {seconds / r.baseline:.1f}x the baseline")
    for n, cpu in r.cpu.items():
        result.add(f"  CPU of the ingest with {n} process(es), all processes", cpu.total, "s", _cpu_note(cpu))
    best = min(r.ingest.values())
    result.add("full ingest (best) / baseline", best / r.baseline, "x")
    result.add("re-ingest unchanged (register + find changed + ingest)", r.reingest, "s",
               f"CPU {r.reingest_cpu:.2f} s; by size and mtime")
    result.add("  the same, every file read and hashed (REHASH)", r.rehash, "s",
               f"CPU {r.rehash_cpu:.2f} s")
    result.check("full ingest time (best)", best, 10.0)
    result.check("full ingest / read+regex baseline (best)", best / r.baseline, 10.0, "x")
    result.check("unchanged re-ingest time", r.reingest, 1.0)
    return result, r


def bench_growth(
    dbs: Databases, sizes: list[int], seed: int = 1, known: dict[int, IngestRun] | None = None, workers: int = 2
) -> Result:
    """Ingest (with `workers` processes) and re-ingest at each size; a size measured already in this run is reused."""
    result = Result(
        f"growth with workspace size (ingest_batch workers={workers})",
        f"python -m benchmarks --only growth --growth-sizes {','.join(str(s) for s in sizes)}",
    )
    runs: dict[int, IngestRun] = {n: r for n, r in (known or {}).items() if workers in r.ingest}
    for notes in sizes:
        if notes not in runs:
            runs[notes] = ingest_workspace(dbs, notes, seed, f"growth {notes}", (workers,))
    for notes in sizes:
        r = runs[notes]
        result.table.append({
            "notes": notes, "files": r.info.files, "MB": round(r.info.bytes / 1e6, 1),
            "items": r.counts["items"], "baseline_s": round(r.baseline, 3),
            "ingest_s": round(r.ingest[workers], 2), "ingest_per_1k_notes_s": round(r.ingest[workers] * 1000 / notes, 2),
            "reingest_s": round(r.reingest, 3),
        })
    if 10_000 in runs and 50_000 in runs:
        growth = runs[50_000].ingest[workers] / runs[10_000].ingest[workers]
        result.add("ingest time 50k / 10k notes", growth, "x", "linear would be 5.0x")
        result.add("re-ingest time 50k / 10k notes", runs[50_000].reingest / runs[10_000].reingest, "x")
        result.add("baseline time 50k / 10k notes", runs[50_000].baseline / runs[10_000].baseline, "x")
        result.check("growth 10k -> 50k notes (ingest time)", growth, 5.5, "x")
    return result
