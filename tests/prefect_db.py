"""A Prefect server database migrated once per test run, for the Prefect servers tests start.

`prefect server start` in an empty PREFECT_HOME first creates and migrates a new SQLite database:
about 5 of the ~11 CPU seconds a start costs on the 2-core machine. The tests that start servers
(the session's test harness, the kept local API, the real stack) test what predigest does around a
server (reuse, the lock, stale pids, workers, automations), not Prefect's migrations, so they start
from a copy of one database migrated to the installed Prefect's head. The demo run in
tests/predigest/test_cli_lifecycle.py still starts in an empty home, as a user's first command does.

One build per test run: the xdist workers of a run share the parent of their base temp dirs, and
the first to get the lock builds the database there (`prefect server database upgrade`, the
migration Prefect's server itself runs), checkpointed into one file so a copy is complete.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

SERVER_DB = "prefect.db"  # the server's database under PREFECT_HOME (Prefect's default URL)


def migrated_prefect_db(shared: Path) -> Path:
    """The path of a Prefect database at head, built under `shared` by the first caller of a run."""
    shared.mkdir(parents=True, exist_ok=True)
    target = shared / f"prefect-{version('prefect')}.db"
    with (shared / "prefect-db.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            home = shared / "prefect-db-build"
            shutil.rmtree(home, ignore_errors=True)
            env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
            env |= {"PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
            subprocess.run([sys.executable, "-m", "prefect", "server", "database", "upgrade", "-y"], env=env,
                           check=True, capture_output=True, timeout=300)
            built = home / SERVER_DB
            with sqlite3.connect(built) as db:  # fold the write-ahead log into the file itself
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.close()
            built.replace(target)
            shutil.rmtree(home, ignore_errors=True)
    return target


def seed_prefect_home(prefect_home: Path, template: Path, name: str = SERVER_DB) -> None:
    """Put a copy of the migrated database where a server started with this PREFECT_HOME reads it."""
    prefect_home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, prefect_home / name)
