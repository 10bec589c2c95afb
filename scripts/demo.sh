#!/usr/bin/env bash
# The first thing to try: scripts/demo.sh   (works from any directory)
# Installs hermes-wizard into .venv and runs `hermes-wizard demo`: the doctor on a temporary copy of
# the bundled "death-loop" example home (the gateway restart loop after the 0.19 upgrade). The
# original is never touched. Installed from a wheel, `hermes-wizard demo` alone does the same.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"

ensure_venv
exec "$hw_venv/bin/hermes-wizard" demo "$@"
