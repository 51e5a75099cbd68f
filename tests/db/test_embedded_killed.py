"""Contract: a one-off `predigest run` on the embedded PostgreSQL whose server is killed mid-ingest
(SIGKILL to its postmaster) starts that server again and finishes: exit code 0, no traceback on the
terminal (records go to `run/predigest.log`, which the run names in one line), and what it stored and
published equals a clean run of the same workspace under another home, row for row and byte for
byte; a second run after it changes nothing."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.db.counts import table_counts
from tests.generate.many_small import many_small_notes
from tests.helpers import ROOT

pytestmark = pytest.mark.slow

NOTES = 2000
# Sources stored before the kill: the ingest has begun, and most of it is still to come.
KILL_AFTER_SOURCES = 100


@pytest.fixture
def base() -> Iterator[Path]:
    """A short folder (the embedded server's socket lives in its data dir) for the workspace and two homes."""
    path = Path(tempfile.mkdtemp(prefix="pdk", dir="/tmp"))
    yield path
    from db.engine import stop_embedded
    from predigest.orchestrate import down

    for home in ("clean", "killed"):
        down(path / home, grace=10.0, echo=lambda _: None)  # the Prefect server each run kept
        stop_embedded(path / home)
    shutil.rmtree(path, ignore_errors=True)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREDIGEST_", "PREFECT_"))}
    return env | {"PREDIGEST_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PYTHONPATH": str(ROOT),
                  "PREDIGEST_DB_RETRY_BACKOFF_SECONDS": "0.5"}


def _argv(workspace: Path) -> list[str]:
    return [sys.executable, "-m", "predigest.cli", "run", "--workspace", str(workspace), "--date", "2026-10-09"]


def _run(workspace: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_argv(workspace), env=_env(home), cwd=home.parent, capture_output=True, text=True,
                          timeout=900, check=False)


def _postmaster(home: Path) -> tuple[int, str] | None:
    """(pid, socket dir) of the embedded server of `home` once its postmaster.pid names both."""
    try:
        lines = (home / "pg" / "postmaster.pid").read_text().splitlines()
        return int(lines[0]), lines[4].strip()
    except (OSError, ValueError, IndexError):
        return None


def _url(home: Path) -> str:
    found = _postmaster(home)
    assert found is not None
    return f"postgresql://postgres@/predigest?host={found[1]}"


def _sources(socket_dir: str) -> int:
    try:
        with psycopg.connect(host=socket_dir, dbname="predigest", user="postgres", connect_timeout=2) as conn:
            row = conn.execute("SELECT count(*) FROM sources").fetchone()
    except psycopg.Error:  # not created yet, or not migrated yet
        return 0
    return int(row[0]) if row else 0


def _published(home: Path) -> dict[str, bytes]:
    root = home / "published"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_killed_embedded_server_is_started_again_and_the_run_equals_a_clean_one(base: Path) -> None:
    if not Path("/proc").is_dir():
        pytest.skip("needs /proc to tell a live postmaster")
    workspace = base / "ws"
    many_small_notes(workspace, NOTES)
    clean_home, killed_home = base / "clean", base / "killed"
    clean = _run(workspace, clean_home)
    assert clean.returncode == 0, clean.stderr
    expected_rows, expected_bytes = table_counts(_url(clean_home)), _published(clean_home)

    proc = subprocess.Popen(_argv(workspace), env=_env(killed_home), cwd=base, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600
    killed = None
    while killed is None and proc.poll() is None and time.monotonic() < deadline:
        found = _postmaster(killed_home)
        if found is not None and _sources(found[1]) >= KILL_AFTER_SOURCES:
            os.kill(found[0], signal.SIGKILL)
            killed = found[0]
        time.sleep(0.2)
    out, err = proc.communicate(timeout=900)
    assert killed is not None, f"the run ended before its ingest could be interrupted: {out}{err}"
    assert proc.returncode == 0, err
    assert "Traceback" not in out + err
    assert err.strip() == ""  # what went wrong on the way is in the log file
    log = killed_home / "run" / "predigest.log"
    last = out.splitlines()[-1]
    assert last.startswith("log: ") and last.endswith(f"warnings or errors in {log}")
    assert "started it again" in log.read_text(encoding="utf-8")
    new_pid = _postmaster(killed_home)
    assert new_pid is not None and new_pid[0] != killed
    assert table_counts(_url(killed_home)) == expected_rows
    assert _published(killed_home) == expected_bytes

    again = _run(workspace, killed_home)
    assert again.returncode == 0, again.stderr
    assert "unchanged" in again.stdout
    assert table_counts(_url(killed_home)) == expected_rows
    assert _published(killed_home) == expected_bytes
