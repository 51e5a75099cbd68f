"""The keeper of a kept Prefect server: it runs the server as its child and ends it when it is no
longer wanted.

Run as `python -m predigest.keeper <home> <idle seconds> -- <server argv…>` by `local_api.claim`,
as the process the home's `server.pid` names (the server is in its process group, so `down` stops
both). Every `POLL_S` seconds it looks:
- the home's run folder is gone (the home was deleted without `predigest down`): the server is
  stopped and the keeper exits;
- nothing used the server for `idle` seconds (0: never idle): stopped too. Used means a command
  claimed it (`touch_used`: `<run>/last_used`) or a process `up` started under the home (a
  worker, the watcher) is alive: a running stack is never idle;
- the server exited by itself: the keeper exits with its code.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from predigest import processes

POLL_S = 5.0  # how often the keeper looks; a deleted home's server ends within a few of these
STOP_GRACE_S = 10.0  # SIGTERM, then SIGKILL after this
SERVER = "server"  # the pid-file name of the kept server (`predigest up` gives its server too)


def touch_used(home: Path) -> None:
    """Record that a command uses this home's kept server now."""
    path = processes.run_dir(home) / "last_used"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


def idle_for(home: Path, now: float) -> float:
    """Seconds since this home's kept server was last used; 0 while a process `up` started runs."""
    rundir = processes.run_dir(home)
    if any(processes.running(home, p.stem) for p in rundir.glob("*.pid") if p.stem != SERVER):
        return 0.0
    try:
        return max(0.0, now - (rundir / "last_used").stat().st_mtime)
    except OSError:
        return float("inf")


def unwanted(home: Path, idle_s: float, now: float) -> str | None:
    """Why the kept server of `home` should end now (None: it is still wanted)."""
    if not processes.run_dir(home).is_dir():
        return "its home is gone"
    if idle_s > 0 and idle_for(home, now) >= idle_s:
        return f"unused for {idle_s:g} s"
    return None


@dataclass(frozen=True)
class Kept:
    """A server kept for this user: its process, what it is, and the home or data folder it serves."""

    pid: int
    kind: str  # "prefect" or "postgres"
    home: Path

    @property
    def orphaned(self) -> bool:
        return not self.home.is_dir()


def kept_by_user(proc: Path = Path("/proc")) -> list[Kept]:
    """Every kept Prefect server (its keeper) and embedded PostgreSQL (pgserver's postmaster) of
    this user, by pid; read from /proc (empty where there is none)."""
    found: list[Kept] = []
    uid = os.getuid()
    for entry in sorted(proc.glob("[0-9]*"), key=lambda p: int(p.name)):
        try:
            if entry.stat().st_uid != uid:
                continue
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if "predigest.keeper" in argv[1:3] and len(argv) > 3:
            found.append(Kept(int(entry.name), "prefect", Path(argv[argv.index("predigest.keeper") + 1])))
        elif "pgserver" in argv[0] and argv[0].endswith("/postgres") and "-D" in argv[:-1]:
            found.append(Kept(int(entry.name), "postgres", Path(argv[argv.index("-D") + 1])))
    return found


def _stop(child: subprocess.Popen[bytes]) -> None:
    child.terminate()
    try:
        child.wait(STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def keep(home: Path, idle_s: float, argv: list[str], poll_s: float = POLL_S) -> int:
    """Run `argv` until it exits or is no longer wanted; its exit code (0 when ended as unwanted)."""
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL)  # noqa: S603 - our own server command line

    def forward(signum: int, _frame: FrameType | None) -> None:
        child.send_signal(signum)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)
    touch_used(home)
    while True:
        try:
            return child.wait(poll_s)
        except subprocess.TimeoutExpired:
            pass
        why = unwanted(home, idle_s, time.time())
        if why is not None:
            print(f"predigest keeper: stopping the kept Prefect server: {why}", file=sys.stderr, flush=True)
            _stop(child)
            return 0


def main(args: list[str]) -> int:
    home, idle, sep, *argv = args
    if sep != "--" or not argv:
        raise SystemExit("usage: python -m predigest.keeper <home> <idle seconds> -- <command…>")
    return keep(Path(home), float(idle), argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
