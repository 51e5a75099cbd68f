"""One-off commands as a person runs them: `predigest run` on the sample workspace, whole processes.

A temp PREDIGEST_HOME (embedded PostgreSQL and the kept Prefect server under it, as `make demo`
has them), the sample workspace copied next to it, `run --date 2026-10-09 --topic inference`:
- a first run ingests and publishes and leaves both servers running (reported, not a target);
- the unchanged run without PREFECT_API_URL (it finds the kept server), and the same unchanged run
  with PREFECT_API_URL naming that server, `REPEATS` times each, in turns: the ratio of the medians
  is what keeping the server leaves of the start-up cost (target <= 1.3x);
- `predigest down`, then the first command after it, which starts both servers again (<= 20 s).
Everything is stopped with `predigest down` at the end, also on failure.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchmarks.harness import Result, timed

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "workspace"
REPEATS = 3
RUN = ["run", "--date", "2026-10-09", "--topic", "inference"]


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREDIGEST_", "PREFECT_"))}
    return env | {"PREDIGEST_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                  "PYTHONPATH": str(ROOT)} | extra


def _predigest(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall time of one `predigest ARGS` process, and its output; RuntimeError when it fails."""
    with timed() as elapsed:
        done = subprocess.run([sys.executable, "-m", "predigest.cli", *args], env=env, capture_output=True,
                              text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"predigest {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return elapsed(), done.stdout


def _alternated(first: Callable[[], float], second: Callable[[], float]) -> tuple[list[float], list[float]]:
    """`REPEATS` times of each, taken in turns and in alternating order (AB BA AB …), so that a host
    whose load drifts (the previous benchmark's servers still shutting down) weighs on both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for i in range(REPEATS):
        for which in ((0, 1) if i % 2 == 0 else (1, 0)):
            times[which].append((first, second)[which]())
    return times


def _export_line(status: str) -> str:
    (line,) = [ln for ln in status.splitlines() if ln.startswith("export PREFECT_API_URL=")]
    return line.split("=", 1)[1]


def bench_oneoff() -> Result:
    result = Result("oneoff: an unchanged `predigest run` on the sample, as a whole process",
                    "python -m benchmarks --only oneoff")
    base = Path(tempfile.mkdtemp(prefix="pdone", dir="/tmp"))  # short: the embedded server's socket lives here
    home, workspace = base / "home", base / "ws"
    shutil.copytree(SAMPLE, workspace)
    env = _env(home)
    run = [*RUN, "--workspace", str(workspace)]
    try:
        first, out = _predigest(run, env)
        assert "inference 2026-10-09 published" in out, out
        result.add("first run (ingest, publish; starts PostgreSQL and Prefect)", first)

        url = _export_line(_predigest(["status"], env)[1])
        kept, named = _alternated(lambda: _predigest(run, env)[0],
                                  lambda: _predigest(run, _env(home, PREFECT_API_URL=url))[0])
        kept_s = result.add(f"unchanged run, kept server found (median of {REPEATS})", statistics.median(kept),
                            note=", ".join(f"{t:.1f}" for t in kept))
        named_s = result.add(f"unchanged run, PREFECT_API_URL set (median of {REPEATS})", statistics.median(named),
                             note=", ".join(f"{t:.1f}" for t in named))
        result.check("kept server / server already running", kept_s / named_s, 1.3, "x")

        _predigest(["down"], env)
        after_down, out = _predigest(run, env)
        assert "started now" in out, out
        result.add("first command after `predigest down` (starts both again)", after_down)
        result.check("first command after down", after_down, 20.0)
        result.notes.append("the issue's baseline: 32-40 s per unchanged run on an ephemeral API, 8-9.5 s on a running server")
    finally:
        subprocess.run([sys.executable, "-m", "predigest.cli", "down"], env=env, capture_output=True, timeout=120,
                       check=False)
        shutil.rmtree(base, ignore_errors=True)
    return result
