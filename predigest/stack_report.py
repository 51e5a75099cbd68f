"""What `predigest up` reports: the deployments the server holds, and whether the watcher really watches.

Contract: `registered_deployments` asks the server's API (not prefect.yaml) for `flow/deployment`
pairs with their descriptions; `wait_watching` returns a "started" line only once the watcher's
log (after `offset`: the log is appended to) has its ready line, and raises RuntimeError naming the
log's last line when the process is gone first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from predigest import rest


def registered_deployments(api_url: str) -> list[str]:
    """`flow/deployment (description)` of every deployment the server knows, sorted."""

    flows = {f["id"]: f["name"] for f in rest.call(api_url, "/flows/filter", {})}
    return sorted(f"{flows.get(d['flow_id'], '?')}/{d['name']}" + (f"  ({d['description']})" if d.get("description") else "")
                  for d in rest.call(api_url, "/deployments/filter", {}))


def wait_watching(pid: int, log: Path, what: str, alive: Callable[[int], bool], deadline_s: float = 30.0,
                  offset: int = 0) -> str:
    """Wait until the watcher says it watches (in `log` after `offset`); RuntimeError with its last
    log line if it exits first."""
    from predigest.watch import READY

    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        with log.open("rb") as handle:
            handle.seek(offset)
            text = handle.read().decode(errors="replace")
        if any(line.startswith(READY) for line in text.splitlines()):
            return f"{what} started (pid {pid})"
        if not alive(pid):
            last = [line for line in text.splitlines() if line.strip()][-1:] or ["no output"]
            raise RuntimeError(f"{what} exited at once: {last[0]} (log {log})")
        time.sleep(0.3)
    return f"{what} started (pid {pid}), still rescanning the inbox (log {log})"
