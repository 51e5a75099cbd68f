"""A PostgreSQL server a test owns and may restart: initdb in a temp dir, then pg_ctl, with either the
machine's binaries (a real server on a TCP port) or pgserver's (the embedded server, on a unix socket).
Never the machine's shared server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import warnings
from pathlib import Path

DEBIAN_BINARIES = Path("/usr/lib/postgresql/15/bin")


def pgserver_binaries() -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    return Path(pgserver.__file__).parent / "pginstall" / "bin"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ThrowawayPostgres:
    """initdb + pg_ctl on a fresh data dir; `tcp` listens on 127.0.0.1, else on a unix socket only."""

    def __init__(self, binaries: Path, tcp: bool) -> None:
        self.binaries, self.tcp = binaries, tcp
        self.root = Path(tempfile.mkdtemp(prefix="pgr", dir="/tmp"))  # short: the socket path is bounded
        self.pgdata = self.root / "data"
        self.port = _free_port()
        # postgres refuses to run as root; run it as the unprivileged user pgserver creates for itself.
        self.user: str | None = None
        if os.geteuid() == 0:
            from pgserver.utils import ensure_user_exists

            self.user = "pgserver"
            ensure_user_exists(self.user)
            shutil.chown(self.root, self.user)
        self._run("initdb", "-D", str(self.pgdata), "-U", "postgres", "--auth=trust", "--encoding=utf8")
        listen = f"-c listen_addresses=127.0.0.1 -k {self.root}" if tcp else f"-c listen_addresses= -k {self.root}"
        self._run("pg_ctl", "-D", str(self.pgdata), "-w", "-l", str(self.root / "log"),
                  "-o", f"-p {self.port} {listen}", "start")

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run([str(self.binaries / tool), *args], check=True, capture_output=True, timeout=120,
                       user=self.user, cwd=self.root)

    def url(self, database: str) -> str:
        if self.tcp:
            return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"
        return f"postgresql+psycopg://postgres@/{database}?host={self.root}&port={self.port}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url("postgres").replace("+psycopg", ""), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def restart(self) -> None:
        """Restart now, ending every open session (`-m fast`): what a server restart does to a run."""
        # -l again: without it the server's output would go to our pipe, which then never closes.
        self._run("pg_ctl", "-D", str(self.pgdata), "-w", "-l", str(self.root / "log"), "-m", "fast", "restart")

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.pgdata), "-w", "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
