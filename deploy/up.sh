#!/usr/bin/env bash
# Start a local Prefect server, register prefect.yaml's deployments, start workers and the inbox
# watcher. Same as `predigest up`; pass its flags (--workspace, --port, --workers).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
export PREFECT_SERVER_ANALYTICS_ENABLED="${PREFECT_SERVER_ANALYTICS_ENABLED:-false}"
exec "${PREDIGEST_PYTHON:-$repo/.venv/bin/python}" -m predigest.cli up "$@"
