"""The local processes `up` starts: pid files under `<home>/run`, their sessions, health and stopping.

Shared by `predigest.orchestrate` (the stack) and `predigest.local_api` (the kept API server)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from predigest import rest
from tasks.common.files import write_atomically

_OURS = ("prefect", "predigest")  # a pid file's process must still be one of these


def run_dir(home: Path) -> Path:
    return home.resolve() / "run"


def prefect_env(home: Path, api_url: str | None = None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for the Prefect processes of this home: offline, PREFECT_HOME under predigest's home."""
    env = dict(os.environ if base is None else base)
    env["PREFECT_HOME"] = str(home.resolve() / "prefect")
    env.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    env["PREDIGEST_HOME"] = str(home.resolve())
    # `python` in the deployments' command (prefect.yaml, job_variables) is this interpreter.
    here = str(Path(sys.executable).parent)
    if env.get("PATH", "").split(os.pathsep)[0] != here:
        env["PATH"] = os.pathsep.join(p for p in (here, env.get("PATH")) if p)
    if api_url:
        env["PREFECT_API_URL"] = api_url
        if api_url.startswith("http://") and not env.get("PREFECT_API_SSL_CERT_FILE"):
            env["PREFECT_API_SSL_CERT_FILE"] = str(plain_http_ca_file(home))
    return env


def plain_http_ca_file(home: Path) -> Path:
    """A CA file of one certificate, for Prefect clients of a plain-HTTP API.

    Every Prefect client builds a verifying TLS context when it is made, whatever the API's scheme,
    from certifi's whole bundle unless PREFECT_API_SSL_CERT_FILE names another file, and a run
    makes several clients. The local API is `http://`, so no connection ever uses the context; a
    file of one certificate (certifi's first) makes it far cheaper (figures: docs/dependencies.md)."""
    import certifi

    path = run_dir(home) / "plain-http-api-ca.pem"
    if not path.is_file():
        bundle = Path(certifi.where()).read_text(encoding="ascii")
        end = "-----END CERTIFICATE-----"
        path.parent.mkdir(parents=True, exist_ok=True)
        first = bundle[bundle.index("-----BEGIN CERTIFICATE-----"):bundle.index(end) + len(end)] + "\n"
        write_atomically(path, first.encode("ascii"))  # whole or absent, for `up`s started side by side
    return path


def read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _cmdline(pid: int) -> str | None:
    """The command line of a live process, or None when it is gone (zombies count as gone)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
        if status.rsplit(")", 1)[-1].split()[0] == "Z":
            return None
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return None
        return ""  # alive but unreadable (no /proc): trust the pid file


def is_ours(pid: int) -> bool:
    """True when `pid` is alive and still runs prefect or predigest."""
    cmdline = _cmdline(pid)
    return cmdline is not None and (cmdline == "" or any(word in cmdline for word in _OURS))


def running(home: Path, name: str) -> int | None:
    pid = read_pid(run_dir(home) / f"{name}.pid")
    return pid if pid is not None and is_ours(pid) else None


# Each process `up` starts takes SIGINT at its default, whatever the starter ignores. A Prefect
# worker stops on SIGTERM by sending itself SIGINT, and a starter run in the background of a script
# (`predigest up &`, some CI runners) ignores SIGINT, which its children inherit: such a worker never
# stopped, and `down` killed it after the grace. In its own session no terminal's Ctrl-C reaches it.
# A launcher sets it, then execs the command in the same process (the pid file stays right);
# Popen's `preexec_fn` could do the same, but is unsafe in a process with threads.
_SIGINT_DEFAULT = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])"


def spawn(home: Path, name: str, argv: list[str], env: Mapping[str, str], cwd: Path | None = None) -> int:
    """Start `argv` in its own session, SIGINT at its default, output to <run>/<name>.log, pid to
    <run>/<name>.pid."""
    rundir = run_dir(home)
    rundir.mkdir(parents=True, exist_ok=True)
    with (rundir / f"{name}.log").open("ab") as log:
        proc = subprocess.Popen(  # noqa: S603
            [sys.executable, "-c", _SIGINT_DEFAULT, *argv], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=dict(env),
            cwd=str(cwd) if cwd else None, start_new_session=True,
        )
    (rundir / f"{name}.pid").write_text(f"{proc.pid}\n")
    order = rundir / "order.json"
    names = json.loads(order.read_text()) if order.exists() else []
    (rundir / "order.json").write_text(json.dumps([n for n in names if n != name] + [name]))
    return proc.pid


def healthy(api_url: str, timeout: float = 2.0) -> bool:
    try:
        rest.call(api_url, "/health", timeout=timeout)  # an error status raises HTTPError, an OSError
        return True
    except (OSError, ValueError):  # refused, timed out, an error status, not JSON
        return False


def wait_healthy(api_url: str, pid: int, log: Path, deadline_s: float = 180.0) -> None:
    """Wait until the server answers /api/health; RuntimeError with the log's tail if it dies or never does."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if healthy(api_url):
            return
        if not is_ours(pid):
            break
        time.sleep(0.5)
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
    raise RuntimeError(f"Prefect server at {api_url} did not become healthy; log {log}:\n{tail}")


def stop_group(pid: int, grace: float) -> None:
    """SIGTERM the process group `pid` leads, SIGKILL after `grace` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)  # each was started in its own session: pgid == pid
        except ProcessLookupError:
            return
        except PermissionError:
            os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if _cmdline(pid) is None:
                return
            time.sleep(0.2)
