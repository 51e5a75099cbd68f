"""Lifecycle of the embedded PostgreSQL (pgserver) under `<home>/pg`: is it running, stop it.

Contract:
- `embedded_status(home)` reads `<home>/pg/postmaster.pid` and never starts anything: the server is
  running when that file names a live postgres process.
- `stop_server(home)` asks that postmaster for a fast shutdown (SIGINT: open sessions are ended,
  the data stays), waits for it to exit and escalates to SIGQUIT, then SIGKILL; it returns the pid
  it stopped, or None when no server of this home was running. A pid that now belongs to a program
  other than postgres is left alone. `db.engine.stop_embedded` also drops this process's handles on
it, so later database calls start the server again. Starting lives in `db.engine` (`resolve_database_url`), which leaves the server running on exit so
later commands and workers reuse it.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class EmbeddedStatus:
    """What `<home>/pg` holds: whether a server was ever created there and whether it runs now."""

    pgdata: Path
    exists: bool
    pid: int | None  # the live postmaster's pid, None when not running
    socket_dir: Path | None = None

    @property
    def running(self) -> bool:
        return self.pid is not None


def pgdata_of(home: Path) -> Path:
    return (home / "pg").expanduser().resolve()


def _postmaster(pgdata: Path) -> tuple[int, Path | None] | None:
    """(pid, socket dir) from postmaster.pid when that pid is a live postgres process, else None."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
        pid = int(lines[0].strip())
    except (OSError, ValueError, IndexError):
        return None
    if not _is_postgres(pid):
        return None
    socket_dir = Path(lines[4].strip()) if len(lines) > 4 and lines[4].strip() else None
    return pid, socket_dir


def _is_postgres(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[-1].split()[0] == "Z":
            return False  # a zombie has exited; only its parent has not reaped it yet
        return "postgres" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        try:
            os.kill(pid, 0)  # no /proc (macOS): trust postmaster.pid while the pid lives
        except OSError:
            return False
        return True


def embedded_status(home: Path) -> EmbeddedStatus:
    """The embedded server of `home`, without starting it."""
    pgdata = pgdata_of(home)
    found = _postmaster(pgdata)
    return EmbeddedStatus(pgdata, (pgdata / "PG_VERSION").is_file(), found[0] if found else None,
                          found[1] if found else None)


def stop_server(home: Path, grace: float = 30.0) -> int | None:
    """Stop the embedded server of `home` (fast shutdown); return its pid, or None if none was running.

    This process's handles on it are not dropped here: `db.engine.stop_embedded` does both."""
    status = embedded_status(home)
    if status.pid is None:
        return None
    pid = status.pid
    for sig, wait in ((signal.SIGINT, grace), (signal.SIGQUIT, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and _is_postgres(pid):
            time.sleep(0.1)
        if not _is_postgres(pid):
            break
    return pid
