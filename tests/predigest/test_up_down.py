"""Contract of the pid-file bookkeeping behind `predigest up` / `predigest down` (predigest/orchestrate.py),
with stand-in processes instead of Prefect:

- `spawn` starts a process in its own session, writes `<home>/run/<name>.pid` and a log;
- `down` stops the processes it finds by pid file, newest first, and removes the pid files; a pid
  file whose process is gone, or whose pid belongs to a program that is not prefect/predigest, is
  only removed (that process is left alone);
- a started process takes SIGINT at its default even when its starter ignores it (a background
  job), since a Prefect worker stops on SIGTERM by sending itself SIGINT;
- the Prefect environment puts PREFECT_HOME under predigest's home, turns analytics off and puts this
  interpreter first on PATH (the deployments run `python -m prefect.engine`); for a plain-HTTP API
  its clients load a CA file of one certificate, not certifi's bundle;
- the CLI has `watch`, `up`, `down` and `backfill`.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from predigest import orchestrate, processes
from predigest.cli import build_parser


@pytest.fixture
def stranger() -> Iterator[subprocess.Popen[bytes]]:
    """A process that is not ours (its command line names neither prefect nor predigest)."""
    proc = subprocess.Popen(["sleep", "300"])
    yield proc
    proc.kill()
    proc.wait()


def test_down_stops_ours_and_only_ours(tmp_path: Path, stranger: subprocess.Popen[bytes]) -> None:
    home = tmp_path / "home"
    argv = [sys.executable, "-c", "import time; time.sleep(300)  # predigest stand-in"]
    first = processes.spawn(home, "worker-1", argv, {"PATH": "/usr/bin:/bin"})
    second = processes.spawn(home, "watcher", argv, {"PATH": "/usr/bin:/bin"})
    rundir = home / "run"
    assert (rundir / "worker-1.pid").read_text().strip() == str(first)
    assert processes.running(home, "watcher") == second
    (rundir / "gone.pid").write_text("999999999\n")
    (rundir / "stranger.pid").write_text(f"{stranger.pid}\n")

    stopped = orchestrate.down(home, grace=10, echo=lambda _: None)
    assert stopped == ["watcher", "worker-1"]  # newest first; not the stranger, not the gone one
    assert not list(rundir.glob("*.pid"))
    assert processes.running(home, "worker-1") is None and not processes.is_ours(first)
    assert stranger.poll() is None  # left alone
    assert orchestrate.down(home, echo=lambda _: None) == []


def test_prefect_env_is_offline_and_under_home(tmp_path: Path) -> None:
    env = processes.prefect_env(tmp_path / "home", "http://127.0.0.1:4999/api", base={})
    assert env["PREFECT_HOME"] == str((tmp_path / "home").resolve() / "prefect")
    assert env["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"
    assert env["PREFECT_API_URL"] == "http://127.0.0.1:4999/api"
    assert env["PREDIGEST_HOME"] == str((tmp_path / "home").resolve())


def test_python_on_the_prefect_processes_path_is_this_interpreter(tmp_path: Path) -> None:
    """The deployments' command (prefect.yaml) starts `python -m prefect.engine` on the worker's PATH."""
    env = processes.prefect_env(tmp_path / "home", None, base={"PATH": "/usr/bin:/bin"})
    found = subprocess.run(["python", "-c", "import sys, prefect; print(sys.prefix)"], env=env,  # noqa: S607
                           capture_output=True, text=True, check=True)
    assert found.stdout.strip() == sys.prefix
    assert env["PATH"].split(":")[1:] == ["/usr/bin", "/bin"]
    assert processes.prefect_env(tmp_path / "home", None, base=env)["PATH"] == env["PATH"]  # not prefixed twice


def test_clients_of_a_plain_http_api_load_one_certificate_and_others_keep_theirs(tmp_path: Path) -> None:
    """PREFECT_API_SSL_CERT_FILE: a CA file of one certificate for the local `http://` API (a Prefect
    client loads it into a TLS context it never uses); not for an `https://` API, nor over one set."""
    import ssl

    home = tmp_path / "home"
    env = processes.prefect_env(home, "http://127.0.0.1:4999/api", base={})
    context = ssl.create_default_context(cafile=env["PREFECT_API_SSL_CERT_FILE"])
    assert len(context.get_ca_certs()) == 1
    assert processes.prefect_env(home, "http://127.0.0.1:4999/api", base={}) == env  # the same file again
    assert "PREFECT_API_SSL_CERT_FILE" not in processes.prefect_env(home, "https://api.example.org/api", base={})
    mine = {"PREFECT_API_SSL_CERT_FILE": "/etc/ssl/mine.pem"}
    assert processes.prefect_env(home, "http://127.0.0.1:4999/api", base=mine)["PREFECT_API_SSL_CERT_FILE"] == mine["PREFECT_API_SSL_CERT_FILE"]


def test_deployment_names_come_from_prefect_yaml() -> None:
    names = dict(orchestrate.deployment_names())
    assert names["daily-briefing"] == "flows/daily.py:daily_briefing"
    assert names["ingest-inbox-file"] == "flows/inbox.py:ingest_inbox_file"


def test_cli_has_the_orchestration_commands() -> None:
    parser = build_parser()
    args = parser.parse_args(["backfill", "--from", "2026-10-01", "--to", "2026-10-10", "--topic", "rag", "--force"])
    assert (args.start.isoformat(), args.end.isoformat(), args.topic, args.force, args.concurrency) == (
        "2026-10-01", "2026-10-10", ["rag"], True, 2)
    assert parser.parse_args(["up", "--port", "4300", "--workers", "2"]).workers == 2
    assert parser.parse_args(["watch", "--once"]).once
    assert parser.parse_args(["down"]).func.__name__ == "cmd_down"
    with pytest.raises(SystemExit):
        parser.parse_args(["backfill", "--from", "2026-13-01", "--to", "2026-10-10"])


def _stand_in(home: Path, code: str) -> tuple[int, Path, int]:
    """A watcher stand-in running `code` (its command line names predigest, so it counts as ours)."""
    log = home / "run" / "watcher.log"
    offset = log.stat().st_size if log.exists() else 0
    pid = processes.spawn(home, "watcher", [sys.executable, "-c", f"{code}  # predigest stand-in"], {"PATH": "/usr/bin:/bin"})
    return pid, log, offset


def test_the_watcher_is_reported_started_only_once_it_watches(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pid, log, offset = _stand_in(home, "import time; print('watching /ws/inbox', flush=True); time.sleep(30)")
    try:
        assert orchestrate.wait_watching(pid, log, "watcher", alive=processes.is_ours, deadline_s=20, offset=offset) == f"watcher started (pid {pid})"
    finally:
        orchestrate.down(home, grace=5, echo=lambda _: None)
    # A watcher that dies at once is an error naming its last line, even though the appended log
    # still holds the earlier start's "watching" line.
    pid, log, offset = _stand_in(home, "import sys; print('predigest: workspace not found: /nowhere'); sys.exit(2)")
    assert "watching" in log.read_text()
    with pytest.raises(RuntimeError, match="exited at once: predigest: workspace not found: /nowhere"):
        orchestrate.wait_watching(pid, log, "watcher", alive=processes.is_ours, deadline_s=20, offset=offset)


# Stops as a Prefect worker does (prefect.utilities.processutils.setup_signal_handlers_worker): on
# SIGTERM it restores SIGINT's disposition from its start and sends itself SIGINT.
_STOPS_LIKE_A_WORKER = """
import os, signal, time
at_start = signal.getsignal(signal.SIGINT)
def on_term(*_):
    signal.signal(signal.SIGINT, at_start)
    os.kill(os.getpid(), signal.SIGINT)
signal.signal(signal.SIGTERM, on_term)
print('ready', flush=True)
try:
    time.sleep(120)
except KeyboardInterrupt:
    print('stopped on SIGINT', flush=True)
# predigest stand-in
"""


def test_a_process_started_from_the_background_still_stops_on_sigterm(tmp_path: Path) -> None:
    """A starter that ignores SIGINT (a script's background job) does not pass that on: the worker
    stand-in stops by its own SIGINT, not by `down`'s SIGKILL after the grace."""
    home = tmp_path / "home"
    starter = ("import signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
               "from pathlib import Path; from predigest import processes; "
               f"processes.spawn(Path(sys.argv[1]), 'worker-1', [sys.executable, '-c', {_STOPS_LIKE_A_WORKER!r}], {{}})")
    subprocess.run([sys.executable, "-c", starter, str(home)], check=True, timeout=60)
    log = home / "run" / "worker-1.log"
    deadline = time.monotonic() + 30
    while "ready" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "ready" in log.read_text()
    assert orchestrate.down(home, grace=5, echo=lambda _: None) == ["worker-1"]
    assert "stopped on SIGINT" in log.read_text()
