#!/usr/bin/env bash
# Stop what deploy/up.sh (`predigest up`) started, by the pid files under $PREDIGEST_HOME/run,
# then the embedded PostgreSQL under $PREDIGEST_HOME/pg.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
exec "${PREDIGEST_PYTHON:-$repo/.venv/bin/python}" -m predigest.cli down "$@"
