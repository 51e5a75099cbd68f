"""The local Prefect API kept between one-off commands, the way the embedded PostgreSQL is kept.

- `claim(home)` finds this home's Prefect server (the pid and URL files `predigest up` uses too) or
  starts one on a free 127.0.0.1 port without waiting; `LocalApi.ready()` waits for /api/health
  and returns the API URL.
- A dead, foreign, silent or long-unhealthy server is stale: stopped if alive, its files removed,
  and a new one started.
- Concurrent first commands start exactly one server (an `fcntl` lock on `<home>/run/server.lock`).
- `describe(home)` reports without starting anything; `orchestrate.down` stops the server.
docs/layout.md ("The local Prefect server") has the rest.
"""

from __future__ import annotations

import contextlib
import fcntl
import socket
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from predigest import processes
from predigest.keeper import SERVER, touch_used

UNHEALTHY_GRACE_S = 15.0  # a live server of ours that does not answer within this is replaced
START_DEADLINE_S = 180.0  # a first start on a busy 2-core machine takes tens of seconds


def free_port() -> int:
    """A loopback port nobody listens on now (the kernel's pick for an ephemeral bind)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def recorded_url(home: Path) -> str | None:
    try:
        return (processes.run_dir(home) / "api_url").read_text().strip() or None
    except OSError:
        return None


def _acquire(home: Path) -> IO[str]:
    """This home's server lock, held (blocking until it is free) until the handle is closed."""
    rundir = processes.run_dir(home)
    rundir.mkdir(parents=True, exist_ok=True)
    handle = (rundir / "server.lock").open("a")
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


@contextlib.contextmanager
def server_lock(home: Path) -> Iterator[None]:
    """Hold this home's server lock for the `with` block (`predigest up` starts its server in one)."""
    handle = _acquire(home)
    try:
        yield
    finally:
        handle.close()  # closing releases the flock


@dataclass
class LocalApi:
    """A claimed server: `ready()` waits for it and releases the lock."""

    home: Path
    url: str
    pid: int
    started: bool
    _lock: IO[str] | None

    def ready(self, deadline_s: float = START_DEADLINE_S) -> str:
        try:
            if self.started:
                log = processes.run_dir(self.home) / f"{SERVER}.log"
                processes.wait_healthy(self.url, self.pid, log, deadline_s)
                (processes.run_dir(self.home) / "api_url").write_text(self.url + "\n")
            return self.url
        finally:
            self.release()

    def release(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None


def _reusable(home: Path) -> tuple[int, str] | None:
    """(pid, url) of this home's server when it answers; a stale one is stopped and forgotten."""
    pid = processes.running(home, SERVER)
    url = recorded_url(home)
    if pid is not None and url is not None:
        if processes.healthy(url):
            return pid, url
        try:  # ours and alive but silent: maybe only slow, so a short grace before it is replaced
            processes.wait_healthy(url, pid, processes.run_dir(home) / f"{SERVER}.log", UNHEALTHY_GRACE_S)
            return pid, url
        except RuntimeError:
            pass
    if pid is not None:
        processes.stop_group(pid, grace=10.0)
    rundir = processes.run_dir(home)
    (rundir / f"{SERVER}.pid").unlink(missing_ok=True)
    (rundir / "api_url").unlink(missing_ok=True)
    return None


def server_argv(port: int, idle_seconds: float = 0.0, home: Path | None = None) -> list[str]:
    """The server's command line; with `home`, run by its keeper (`predigest.keeper`), which ends it
    once the home is gone or after `idle_seconds` unused (0: never idle)."""
    server = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)]
    if home is None:
        return server
    return [sys.executable, "-m", "predigest.keeper", str(home), f"{idle_seconds:g}", "--", *server]


def claim(home: Path, port: int | None = None, extra_env: Mapping[str, str] | None = None,
          idle_seconds: float = 0.0) -> LocalApi:
    """Find this home's running server or start one (on `port`, else a free one) under its keeper
    (ended when the home is gone, or after `idle_seconds` unused); the lock is held until `ready()`
    (or `release()`). Each claim counts as a use."""
    home = home.resolve()
    lock = _acquire(home)
    try:
        touch_used(home)
        found = _reusable(home)
        if found is not None:
            return LocalApi(home, found[1], found[0], False, lock)
        if port is None:
            port = free_port()
        elif processes.healthy(f"http://127.0.0.1:{port}/api"):
            raise RuntimeError(f"something else already answers on 127.0.0.1:{port}; pick another --port")
        env = processes.prefect_env(home) | dict(extra_env or {})
        env.pop("PREFECT_API_URL", None)  # the server itself must not point at a client URL
        pid = processes.spawn(home, SERVER, server_argv(port, idle_seconds, home), env)
        return LocalApi(home, f"http://127.0.0.1:{port}/api", pid, True, lock)
    except BaseException:
        lock.close()
        raise


def ensure(home: Path, idle_seconds: float = 0.0) -> str:
    """The URL of this home's local Prefect API, started if need be (waits until it answers)."""
    return claim(home, idle_seconds=idle_seconds).ready()


@dataclass(frozen=True)
class ServerStatus:
    pid: int | None
    url: str | None
    answering: bool


def describe(home: Path) -> ServerStatus:
    """This home's kept server, without starting, stopping or locking anything."""
    pid = processes.running(home, SERVER)
    url = recorded_url(home)
    return ServerStatus(pid, url, bool(pid is not None and url and processes.healthy(url)))


def status_line(home: Path) -> str:
    found = describe(home)
    where = processes.run_dir(home)
    if found.answering:
        return f"prefect: local server under {where} running (pid {found.pid}) at {found.url}"
    if found.pid is not None:
        return f"prefect: local server under {where} (pid {found.pid}) is not answering (the next command replaces it)"
    return f"prefect: no local server under {where} (the next command starts one)"
