#!/usr/bin/env bash
# One process worker on the `predigest` pool; start one per core budget, on as many machines as
# you like. Each machine needs:
#   PREFECT_API_URL           the shared server, e.g. http://prefect.internal:4200/api
#   PREDIGEST_DATABASE_URL    the shared PostgreSQL (predigest's data), never the embedded one
#   PREDIGEST_STORAGE_URL     s3://bucket/prefix (or a folder every worker mounts)
#   PREDIGEST_WORKSPACE       the workspace, at the same absolute path on every machine
#   PREDIGEST_REPO            this checkout (default: the folder above this script)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
: "${PREFECT_API_URL:?set PREFECT_API_URL to the shared Prefect server}"
export PREDIGEST_REPO="${PREDIGEST_REPO:-$repo}"
export PREFECT_SERVER_ANALYTICS_ENABLED="${PREFECT_SERVER_ANALYTICS_ENABLED:-false}"
exec "${PREDIGEST_PYTHON:-$repo/.venv/bin/python}" -m prefect --no-prompt worker start \
  --pool predigest --type process --install-policy never --name "${PREDIGEST_WORKER_NAME:-predigest-$(hostname)-$$}" "$@"
