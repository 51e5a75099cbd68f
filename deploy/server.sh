#!/usr/bin/env bash
# A shared Prefect server for several worker machines (run it on one host, e.g. under systemd).
#   PREFECT_API_DATABASE_CONNECTION_URL  Prefect's own database; PostgreSQL for a shared server:
#       postgresql+asyncpg://prefect:secret@db.internal:5432/prefect   (default: SQLite in PREFECT_HOME)
#   PREFECT_SERVER_API_HOST / _PORT      where it listens (default 0.0.0.0:4200 here)
#   PREFECT_UI_API_URL                   the API URL browsers use, e.g. http://prefect.internal:4200/api
# Then, once, from a checkout: PREFECT_API_URL=http://prefect.internal:4200/api deploy/register.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
export PREFECT_SERVER_ANALYTICS_ENABLED="${PREFECT_SERVER_ANALYTICS_ENABLED:-false}"
export PREFECT_HOME="${PREFECT_HOME:-${PREDIGEST_HOME:-$repo/.predigest}/prefect}"
exec "${PREDIGEST_PYTHON:-$repo/.venv/bin/python}" -m prefect server start \
  --host "${PREFECT_SERVER_API_HOST:-0.0.0.0}" --port "${PREFECT_SERVER_API_PORT:-4200}"
