#!/usr/bin/env bash
# Create the `predigest` process work pool (if missing) and register every deployment in
# prefect.yaml on the server named by PREFECT_API_URL. Safe to re-run after changing prefect.yaml.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
: "${PREFECT_API_URL:?set PREFECT_API_URL, e.g. http://prefect.internal:4200/api}"
py="${PREDIGEST_PYTHON:-$repo/.venv/bin/python}"
cd "$repo"
"$py" -m prefect --no-prompt work-pool inspect predigest >/dev/null 2>&1 \
  || "$py" -m prefect --no-prompt work-pool create predigest --type process
# PREDIGEST_REPO must stay unset here: each worker resolves the pull step to its own checkout.
env -u PREDIGEST_REPO "$py" -m prefect --no-prompt deploy --all
