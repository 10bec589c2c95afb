#!/usr/bin/env bash
# The first thing to try: scripts/demo.sh   (works from any directory)
# Installs hermes-wizard into .venv, copies the "death-loop" example home (the gateway restart loop
# after the 0.19 upgrade) to a temporary directory, and runs the wizard on the copy. The original is
# never touched.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"

ensure_venv
home="$(mktemp -d "${TMPDIR:-/tmp}/hermes-wizard-demo.XXXXXX")/home"
cp -R "$hw_repo/assets/homes/death-loop" "$home"
chmod 600 "$home/.env"   # git does not keep modes; a real home has its secrets at 0600

rc=0
"$hw_venv/bin/hermes-wizard" doctor --home "$home" || rc=$?   # the demo: the TUI on a terminal, else the plan

echo
echo "demo: the home is a copy at $home (exit code $rc; 78 means Hermes would refuse to start)"
echo "demo: try also: $hw_venv/bin/hermes-wizard check --home $home   (and setup, doctor --fix --yes, undo)"
case "$rc" in 0|1|78) exit 0 ;; *) exit "$rc" ;; esac
