"""Offline defaults for Prefect in a process of the CLI."""

from __future__ import annotations

import os


def quiet_prefect() -> None:
    """Offline defaults for Prefect in this process; an explicit environment still wins. These are
    Prefect's own settings, which Prefect reads from the environment (predigest's PREDIGEST_* are
    read by `Settings` alone and never written here)."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "WARNING")
    # The ephemeral API gets 20 s to start by default; on a busy machine (a worker host, CI) that is
    # not enough, and a one-off run should wait rather than fail.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
