"""`predigest up` / `predigest down`: a local Prefect server, the deployments, workers and the watcher.

- `up` starts (or reuses) the Prefect server of this home, creates the process work pool
  `predigest`, deploys prefect.yaml (skipping and naming deployments whose entrypoint is missing),
  starts `workers` workers and, with a workspace, `predigest watch`. Each process runs in its own
  session, with `<home>/run/<name>.pid` and `<name>.log`. Running twice starts nothing twice.
  It prints the deployments as `flow/deployment` and ends with `export PREFECT_API_URL=…`; a watcher
  that exits at once is a RuntimeError naming its last log line.
- `down` stops what `up` started, newest first, by the pid files (SIGTERM, then SIGKILL), and
  removes them; a pid file whose process is gone or not ours is only removed.
docs/layout.md ("One machine") has the details.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from predigest import automations
from predigest.processes import (
    is_ours,
    prefect_env,
    read_pid,
    run_dir,
    running,
    spawn,
    stop_group,
)
from predigest.stack_report import registered_deployments, wait_watching
from tasks.config.settings import Settings, get_settings, with_run_parameters

REPO = Path(__file__).resolve().parents[1]
POOL = "predigest"
DEFAULT_PORT = 4200


@dataclass
class Stack:
    """What `up` started or found."""

    api_url: str
    ui_url: str
    started: list[str] = field(default_factory=list)
    skipped_deployments: list[str] = field(default_factory=list)


def settings_for(workspace: str | None = None, lang: str | None = None, rehash: bool | None = None) -> Settings:
    """The settings of one command: the environment's, with its --workspace (made absolute), --lang
    and --rehash applied as a flow applies the same parameters (`with_run_parameters`); nothing is
    written to the environment."""
    return with_run_parameters(get_settings(), workspace, lang, rehash)


def prefect_cli(args: list[str], env: Mapping[str, str], cwd: Path = REPO,
                check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run `prefect --no-prompt ARGS` with this interpreter."""
    proc = subprocess.run(  # noqa: S603
        [sys.executable, "-m", "prefect", "--no-prompt", *args], env=dict(env), cwd=str(cwd),
        capture_output=True, text=True, check=False, timeout=600,
    )
    if check and proc.returncode != 0:
        raise RuntimeError(f"prefect {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def ensure_pool(api_url: str, pool: str = POOL) -> None:
    """Create the process work pool unless it exists, over the server's REST API (two `prefect
    work-pool` commands would each import Prefect's whole CLI), with the process worker's own
    default job template, as `prefect work-pool create --type process` makes it."""
    import urllib.error

    from predigest import rest

    try:
        rest.call(api_url, f"/work_pools/{pool}")
        return
    except urllib.error.HTTPError as error:
        if error.code != 404:
            raise
    from prefect.workers.process import ProcessWorker

    body = {"name": pool, "type": "process", "base_job_template": ProcessWorker.get_default_base_job_template()}
    try:
        rest.call(api_url, "/work_pools/", body)
    except urllib.error.HTTPError as error:
        if error.code != 409:  # 409: another `up` created it meanwhile
            raise


def deployment_names(prefect_file: Path = REPO / "prefect.yaml") -> list[tuple[str, str]]:
    """(name, entrypoint) of every deployment in prefect.yaml."""
    import yaml

    config = yaml.safe_load(prefect_file.read_text(encoding="utf-8"))
    return [(d["name"], d["entrypoint"]) for d in config.get("deployments", [])]


def deploy_all(env: Mapping[str, str], repo: Path = REPO) -> list[str]:
    """Register every deployment whose entrypoint file exists; return the names skipped."""
    present: list[str] = []
    skipped: list[str] = []
    for name, entrypoint in deployment_names(repo / "prefect.yaml"):
        (present if (repo / entrypoint.split(":", 1)[0]).is_file() else skipped).append(name)
    # Leave PREDIGEST_REPO unset here: the pull step then keeps `{{ $PREDIGEST_REPO }}` and each
    # worker resolves it to its own checkout.
    deploy_env = {k: v for k, v in env.items() if k != "PREDIGEST_REPO"}
    if not skipped:
        prefect_cli(["deploy", "--all"], deploy_env, cwd=repo)
    elif present:
        prefect_cli(["deploy", *[arg for n in present for arg in ("--name", n)]], deploy_env, cwd=repo)
    return skipped


def worker_argv(name: str, pool: str = POOL) -> list[str]:
    return [sys.executable, "-m", "prefect", "--no-prompt", "worker", "start", "--pool", pool,
            "--type", "process", "--name", name, "--install-policy", "never"]


def up(
    home: Path,
    *,
    port: int = DEFAULT_PORT,
    workers: int = 1,
    workspace: Path | None = None,
    repo: Path = REPO,
    echo: Callable[[str], None] = print,
    extra_env: Mapping[str, str] | None = None,
) -> Stack:
    """Start (or reuse) the server, register the deployments, start workers and the watcher."""
    from predigest import local_api

    home = home.resolve()
    # The server one-off commands keep is reused as it is; a new one gets the stack's environment.
    claimed = local_api.claim(home, port=port, extra_env=extra_env)
    if claimed.started:
        echo(f"prefect server starting (pid {claimed.pid}), PREFECT_HOME={home / 'prefect'}")
    else:
        echo(f"prefect server already running (pid {claimed.pid}): reused")
    api_url = claimed.ready()
    port = int(api_url.rsplit(":", 1)[1].split("/", 1)[0])
    env = prefect_env(home, api_url)
    env["PREDIGEST_REPO"] = str(repo.resolve())
    if workspace is not None:
        # The environment of the processes started here (not this one's): the workers' Settings read
        # it as the default `workspace` of every deployment run that names none.
        env["PREDIGEST_WORKSPACE"] = str(workspace.resolve())
    env.update(extra_env or {})
    stack = Stack(api_url=api_url, ui_url=f"http://127.0.0.1:{port}", started=["server"] if claimed.started else [])

    ensure_pool(api_url)
    stack.skipped_deployments = deploy_all(env, repo)
    for name in stack.skipped_deployments:
        echo(f"deployment {name} skipped: its entrypoint file does not exist yet")
    registered = registered_deployments(api_url)
    echo(f"{len(registered)} deployments registered on pool {POOL} (flow/deployment):")
    for line in registered:
        echo(f"  {line}")
    echo(automations.register(env, repo))

    for n in range(1, workers + 1):
        key = f"worker-{n}"
        if (pid := running(home, key)) is not None:
            echo(f"worker {n} already running (pid {pid}): reused")
            continue
        pid = spawn(home, key, worker_argv(f"predigest-{os.uname().nodename}-{n}"), env, cwd=repo)
        stack.started.append(key)
        echo(f"worker {n} started (pid {pid})")
    ws = env.get("PREDIGEST_WORKSPACE")
    if ws and (pid := running(home, "watcher")) is not None:
        echo(f"watcher on {ws}/inbox already running (pid {pid}): reused")
    elif ws:
        log = run_dir(home) / "watcher.log"
        offset = log.stat().st_size if log.exists() else 0  # the log is appended to: skip earlier starts
        pid = spawn(home, "watcher", [sys.executable, "-m", "predigest.cli", "watch", "--workspace", ws], env, cwd=repo)
        stack.started.append("watcher")
        echo(wait_watching(pid, log, f"watcher on {ws}/inbox", alive=is_ours, offset=offset))
    else:
        echo("no workspace (PREDIGEST_WORKSPACE or --workspace): the inbox watcher is not started")
    echo(f"Prefect UI: {stack.ui_url}; for `prefect` commands in this shell:")
    echo(f"export PREFECT_API_URL={api_url}")
    return stack



def down(home: Path, *, grace: float = 20.0, echo: Callable[[str], None] = print) -> list[str]:
    """Stop every process `up` started from this home (by pid file), newest first; return their names."""
    rundir = run_dir(home)
    if not rundir.is_dir():
        return []
    order_file = rundir / "order.json"
    order: list[Any] = json.loads(order_file.read_text()) if order_file.exists() else []
    names = [n for n in order if isinstance(n, str)]
    names += sorted(p.stem for p in rundir.glob("*.pid") if p.stem not in names)
    stopped = []
    for name in reversed(names):
        pidfile = rundir / f"{name}.pid"
        pid = read_pid(pidfile)
        if pid is not None and is_ours(pid):
            stop_group(pid, grace)
            stopped.append(name)
            echo(f"stopped {name} (pid {pid})")
        pidfile.unlink(missing_ok=True)
    order_file.unlink(missing_ok=True)
    (rundir / "api_url").unlink(missing_ok=True)
    return stopped
