"""Contract: predigest leaves no PostgreSQL of its own running once told to stop.

- A one-off `predigest run` on the embedded database (what `make demo` does) prints its progress
  (database, the Prefect API it started and keeps, ingest count with the unreadable files named, each
  topic published or unchanged)
  and, having started the embedded server, says in one line that it keeps running and how to stop
  it; a second run reuses both, says `unchanged` and `no new or changed files`, and no such line.
- `predigest db status` reports it running, `predigest status` prints the kept API's
  `export PREFECT_API_URL=…` line, `predigest down` stops both, after which no process of
  that data directory is left and `db status` / `db stop` say it is not running (and start nothing).
- A pytest session on the embedded test server (tests/conftest.py, `make test` without a server)
  leaves no postgres process behind: processes are recognised by a marker in their environment,
  which postgres inherits from the session that started it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from db.embedded import embedded_status
from tests.helpers import ROOT, SAMPLE_WORKSPACE

pytestmark = pytest.mark.slow


def _postgres_pids(marker: str | None = None, pgdata: Path | None = None) -> set[int]:
    """Live postgres processes carrying `marker` in their environment or `pgdata` in their command line."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            if "postgres" not in cmdline:
                continue
            by_dir = pgdata is not None and str(pgdata) in cmdline
            if by_dir or (marker is not None and marker.encode() in (entry / "environ").read_bytes()):
                found.add(int(entry.name))
        except OSError:
            continue
    return found


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "predigest.cli", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=600, check=False)


@pytest.fixture
def short_home() -> Iterator[Path]:
    """A home with a short path (the embedded server's socket lives in its data dir)."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="pdh", dir="/tmp"))
    yield path / "home"
    from db.engine import stop_embedded
    from predigest.orchestrate import down

    down(path / "home", grace=10.0, echo=lambda _: None)  # the Prefect server the runs kept
    stop_embedded(path / "home")
    shutil.rmtree(path, ignore_errors=True)


def test_demo_run_then_down_leaves_no_postgres(short_home: Path) -> None:
    if not Path("/proc").is_dir():
        pytest.skip("needs /proc to list processes")
    workspace = short_home.parent / "ws"
    shutil.copytree(SAMPLE_WORKSPACE, workspace)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREDIGEST_", "PREFECT_"))}
    env |= {"PREDIGEST_HOME": str(short_home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PYTHONPATH": str(ROOT)}
    argv = ["run", "--workspace", str(workspace), "--date", "2026-10-09", "--topic", "inference"]

    first = _run(argv, env, short_home.parent)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0].startswith("database: embedded PostgreSQL under") and lines[1].startswith("prefect: runs are recorded on")
    assert "started now, kept for later commands" in lines[1]
    api_url = lines[1].split()[5]
    (ingested,) = [ln for ln in lines if ln.startswith("ingest: ")]
    assert "new or changed files stored" in ingested
    # The unreadable files are named where they are counted: the undated .DS_Store is in no briefing.
    assert "2 unreadable: inbox/jay/.DS_Store, inbox/tom/2026-10-07-0900-hf-daily-2026-10-07.md;" in ingested
    assert "inference 2026-10-09 published" in lines
    assert "keeps running" in lines[-1] and "predigest db stop" in lines[-1] and "predigest down" in lines[-1]
    status = embedded_status(short_home)
    assert status.running and status.pid in _postgres_pids(pgdata=status.pgdata)

    second = _run(argv, env, short_home.parent)
    assert second.returncode == 0, second.stderr
    assert "inference 2026-10-09 unchanged" in second.stdout and "ingest: no new or changed files" in second.stdout
    assert "keeps running" not in second.stdout  # it did not start the server this time
    assert f"prefect: runs are recorded on {api_url} (" in second.stdout and "kept between commands" in second.stdout

    assert f"running (pid {status.pid}" in _run(["db", "status"], env, short_home.parent).stdout
    assert f"\nexport PREFECT_API_URL={api_url}\n" in _run(["status"], env, short_home.parent).stdout
    down = _run(["down"], env, short_home.parent)
    assert down.returncode == 0 and "stopped server (pid" in down.stdout and f"stopped the embedded PostgreSQL under {status.pgdata} (pid {status.pid})" in down.stdout
    assert not _postgres_pids(pgdata=status.pgdata)
    assert "stopped (the next command starts it)" in _run(["db", "status"], env, short_home.parent).stdout
    assert "no local server" in _run(["status"], env, short_home.parent).stdout
    assert "is not running" in _run(["db", "stop"], env, short_home.parent).stdout
    assert "nothing to stop" in _run(["down"], env, short_home.parent).stdout
    assert not embedded_status(short_home).running


def test_a_pytest_session_on_the_embedded_server_leaves_no_postgres(tmp_path: Path) -> None:
    if not Path("/proc").is_dir():
        pytest.skip("needs /proc to list processes")
    marker = f"PREDIGEST_LEAK_PROBE={uuid.uuid4().hex}"
    env = {k: v for k, v in os.environ.items() if k != "PREDIGEST_TEST_DATABASE_URL"}
    env[marker.split("=")[0]] = marker.split("=")[1]
    # One database test: the session starts the embedded server (conftest.pg_admin_url) and must stop it.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "inner"),
         "tests/db/test_engine.py::test_session_scope_commits_or_rolls_back"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not _postgres_pids(marker=marker), "a postgres started by the test session is still running"


def test_the_probe_sees_a_running_server(short_home: Path) -> None:
    """The leak probe is not vacuous: it finds a server started with the marker while it runs."""
    marker = f"PREDIGEST_LEAK_PROBE={uuid.uuid4().hex}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREDIGEST_")}
    env |= {"PREDIGEST_HOME": str(short_home), "PYTHONPATH": str(ROOT), marker.split("=")[0]: marker.split("=")[1]}
    code = "from db.engine import resolve_database_url as r; from tasks.config.settings import Settings as S; r(S(_env_file=None))"
    subprocess.run([sys.executable, "-c", code], env=env, cwd=short_home.parent, check=True, timeout=120)
    assert _postgres_pids(marker=marker)
    assert _run(["db", "stop"], env, short_home.parent).returncode == 0
    assert not _postgres_pids(marker=marker)
