"""Contract: the local Prefect API one-off commands keep under PREDIGEST_HOME (predigest/local_api.py).

Real `prefect server start` processes under a temp home; each test stops what it started (by the
pid files, as `predigest down` does) even when it fails. Waits have generous deadlines that only
turn a hang into a failure; nothing asserts durations.

- Three first commands at once start exactly one server (the fcntl lock): all three get the same
  URL, one server process of that home is alive, and a later call reuses it (same pid, same URL).
- A pid file naming a process that is gone, with a URL nobody answers, is replaced by a new server;
  so is a server that was killed (pid file left behind, nothing answering).
- `orchestrate.down` stops the server: its process is gone, its URL stops answering, its pid file
  and URL file are removed, and `describe` reports no server (and starts none).
- A kept server ends when it is no longer wanted (predigest/keeper.py): its home deleted, it and its
  keeper are gone within a minute; unused for its idle time, it stops itself, while a server used
  every few seconds, or a home whose `up` processes run, is never idle. `kept_by_user` (what
  `predigest status` lists) names it, and says when its home is gone.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from predigest import keeper as keeper_module
from predigest import local_api, orchestrate, processes
from predigest.keeper import kept_by_user
from tests.helpers import ROOT
from tests.prefect_db import seed_prefect_home

pytestmark = pytest.mark.slow


def _processes(home: Path) -> dict[int, bytes]:
    """Live processes (pid: command line) that run `prefect server start`, directly or as its keeper,
    and whose environment names this predigest home."""
    marker = f"PREDIGEST_HOME={home.resolve()}".encode() + b"\0"
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
            if b"prefect\0server\0start" in cmdline and marker in (entry / "environ").read_bytes() \
                    and stat.rsplit(")", 1)[-1].split()[0] != "Z":
                found[int(entry.name)] = cmdline
        except OSError:
            continue
    return found


def _server_pids(home: Path) -> set[int]:
    """The kept servers of this home: the keeper processes its pid file names (each runs one server)."""
    return {pid for pid, cmdline in _processes(home).items() if b"predigest.keeper" in cmdline}


@pytest.fixture
def home(prefect_db_template: Path) -> Iterator[Path]:
    if not Path("/proc").is_dir():
        pytest.skip("needs /proc to list processes")
    base = Path(tempfile.mkdtemp(prefix="pdapi", dir="/tmp"))
    seed_prefect_home(base / "home" / "prefect", prefect_db_template)  # PREFECT_HOME (processes.prefect_env)
    yield base / "home"
    orchestrate.down(base / "home", grace=10.0, echo=lambda _: None)
    for pid in _processes(base / "home"):  # a replaced server the test left behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    shutil.rmtree(base, ignore_errors=True)


def _clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREDIGEST_", "PREFECT_"))}
    return env | {"PREDIGEST_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PYTHONPATH": str(ROOT)}


def test_concurrent_first_commands_start_one_server_and_later_ones_reuse_it(home: Path) -> None:
    code = "import sys; from pathlib import Path; from predigest import local_api; print(local_api.ensure(Path(sys.argv[1])))"
    procs = [subprocess.Popen([sys.executable, "-c", code, str(home)], env=_clean_env(home), cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [p.communicate(timeout=400) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    urls = {out.strip() for out, _ in outputs}
    assert len(urls) == 1, urls
    url = urls.pop()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/api")
    pids = _server_pids(home)
    assert len(pids) == 1, pids
    status = local_api.describe(home)
    assert status.answering and status.url == url and status.pid in pids

    assert local_api.ensure(home) == url
    assert local_api.describe(home).pid == status.pid and _server_pids(home) == pids


def test_a_stale_pid_or_a_killed_server_is_replaced(home: Path) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    rundir = processes.run_dir(home)
    rundir.mkdir(parents=True)
    (rundir / "server.pid").write_text(f"{gone.pid}\n")
    (rundir / "api_url").write_text(f"http://127.0.0.1:{local_api.free_port()}/api\n")

    url = local_api.ensure(home)
    first = local_api.describe(home)
    assert first.answering and first.url == url and first.pid not in (None, gone.pid)

    assert first.pid is not None
    os.killpg(first.pid, signal.SIGKILL)  # a dead server: its pid file and URL stay behind
    deadline = time.monotonic() + 30
    while processes.is_ours(first.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not processes.healthy(url)

    again = local_api.ensure(home)
    second = local_api.describe(home)
    assert second.answering and second.url == again and second.pid != first.pid
    assert _server_pids(home) == {second.pid}


def test_down_stops_the_kept_server(home: Path) -> None:
    url = local_api.ensure(home)
    pid = local_api.describe(home).pid
    assert pid is not None and processes.healthy(url)

    assert orchestrate.down(home, grace=10.0, echo=lambda _: None) == ["server"]
    assert not processes.is_ours(pid) and not _server_pids(home)
    assert not processes.healthy(url)
    assert not (processes.run_dir(home) / "server.pid").exists()
    assert local_api.recorded_url(home) is None
    assert local_api.describe(home) == local_api.ServerStatus(None, None, False)
    assert "no local server" in local_api.status_line(home) and not _server_pids(home)


def _wait_gone(home: Path, deadline_s: float) -> dict[int, bytes]:
    deadline = time.monotonic() + deadline_s
    while (left := _processes(home)) and time.monotonic() < deadline:
        time.sleep(1)
    return left


def test_a_kept_server_ends_within_a_minute_of_its_home_being_deleted(home: Path) -> None:
    url = local_api.ensure(home)
    keeper = local_api.describe(home).pid
    assert keeper is not None and processes.healthy(url) and len(_processes(home)) == 2  # keeper and server
    assert any(k.pid == keeper and k.kind == "prefect" and not k.orphaned for k in kept_by_user())
    moved = home.with_name("deleted")  # what `rm -rf` does to the keeper: the run folder is gone
    home.rename(moved)
    try:
        assert any(k.pid == keeper and k.orphaned for k in kept_by_user())
        assert _wait_gone(home, 60) == {}
        assert not processes.healthy(url)
    finally:
        moved.rename(home)


def test_an_unused_kept_server_ends_after_its_idle_time_and_a_used_one_does_not(home: Path) -> None:
    url = local_api.claim(home, idle_seconds=20).ready()
    keeper = local_api.describe(home).pid
    assert keeper is not None
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:  # used every few seconds: never idle
        assert local_api.claim(home, idle_seconds=20).ready() == url
        time.sleep(3)
    assert processes.is_ours(keeper) and processes.healthy(url)
    assert _wait_gone(home, 60) == {}  # then unused: it stops itself
    assert not processes.healthy(url)


def test_a_running_stack_is_never_idle(tmp_path: Path) -> None:
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "predigest-worker"])
    try:
        rundir = processes.run_dir(tmp_path)
        rundir.mkdir(parents=True)
        (rundir / "worker-1.pid").write_text(f"{worker.pid}\n")
        (rundir / "last_used").touch()
        os.utime(rundir / "last_used", (time.time() - 3600, time.time() - 3600))
        assert keeper_module.idle_for(tmp_path, time.time()) == 0
        assert keeper_module.unwanted(tmp_path, 60, time.time()) is None
        worker.kill()
        worker.wait()
        assert keeper_module.idle_for(tmp_path, time.time()) >= 3600
        assert keeper_module.unwanted(tmp_path, 60, time.time()) == "unused for 60 s"
        assert keeper_module.unwanted(tmp_path, 0, time.time()) is None  # 0: never idle
        shutil.rmtree(rundir)
        assert keeper_module.unwanted(tmp_path, 0, time.time()) == "its home is gone"
    finally:
        worker.kill()
